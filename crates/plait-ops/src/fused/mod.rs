//! Fused elementwise kernels (`kd.compile`): a group of elementwise
//! operators computed in one pass over the items, a chunk at a time, with no
//! intermediate slice.
//!
//! A group is given as [`Node`]s (operator and arguments, each argument
//! an earlier node, an input or a constant item) and specialised to the
//! types of its inputs by [`Program::build`]: every node gets the type its
//! eager operator would compute in (the promotion lattice, casts inserted
//! where an argument has another type), and values are assigned to
//! registers that are reused once their last reader has run. The program
//! then runs ([`machine`]) over chunks of a thousand items that stay in the
//! CPU's cache, calling the very per-item functions of the eager kernels
//! (`math::arithmetic`, `math::unary`), so results are bit for bit the
//! eager ones. Presence is a byte per item inside a chunk, packed into a
//! bitmap for the output.
//!
//! What a program cannot compute the way the eager operators would (text,
//! OBJECT slices, a zero divisor of `//`, ...) it declines — `build`
//! returns `None`, a run returns `Ok(None)` — and the caller evaluates the
//! operators one by one, which gives the eager result or error.

pub mod machine;

use plait_core::{DataSlice, ScalarRef, Schema};

use crate::num::Num;

/// An operator a fused group may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FusedOp {
    /// Arithmetic of two numbers.
    Bin(BinOp),
    /// Arithmetic of one number.
    Un(UnOp),
    /// `+x`: `x` itself, checked to be numeric.
    Pos,
    /// A comparison, giving a MASK.
    Rel(Rel),
    /// `x & m` (`kd.masking.apply_mask`).
    ApplyMask,
    /// `x | y` (`kd.masking.coalesce`).
    Coalesce,
    Has,
    HasNot,
    MaskAnd,
    MaskOr,
    /// `kd.float32(x)`, ...: a cast up the promotion lattice (others, which
    /// may fail or round, are declined).
    Cast(NumType),
}

impl FusedOp {
    /// The fused form of registry operator `name` (its canonical name).
    pub fn of(name: &str) -> Option<FusedOp> {
        use FusedOp::*;
        Some(match name {
            "kd.math.add" => Bin(BinOp::Add),
            "kd.math.subtract" => Bin(BinOp::Subtract),
            "kd.math.multiply" => Bin(BinOp::Multiply),
            "kd.math.divide" => Bin(BinOp::Divide),
            "kd.math.pow" => Bin(BinOp::Pow),
            "kd.math.floordiv" => Bin(BinOp::FloorDiv),
            "kd.math.mod" => Bin(BinOp::Mod),
            "kd.math.maximum" => Bin(BinOp::Maximum),
            "kd.math.minimum" => Bin(BinOp::Minimum),
            "kd.math.neg" => Un(UnOp::Neg),
            "kd.math.pos" => Pos,
            "kd.math.abs" => Un(UnOp::Abs),
            "kd.math.sign" => Un(UnOp::Sign),
            "kd.math.round" => Un(UnOp::Round),
            "kd.math.floor" => Un(UnOp::Floor),
            "kd.math.ceil" => Un(UnOp::Ceil),
            "kd.math.log" => Un(UnOp::Log),
            "kd.math.log10" => Un(UnOp::Log10),
            "kd.math.exp" => Un(UnOp::Exp),
            "kd.math.sqrt" => Un(UnOp::Sqrt),
            "kd.comparison.equal" => Rel(self::Rel::Equal),
            "kd.comparison.not_equal" => Rel(self::Rel::NotEqual),
            "kd.comparison.less" => Rel(self::Rel::Less),
            "kd.comparison.less_equal" => Rel(self::Rel::LessEqual),
            "kd.comparison.greater" => Rel(self::Rel::Greater),
            "kd.comparison.greater_equal" => Rel(self::Rel::GreaterEqual),
            "kd.masking.apply_mask" => ApplyMask,
            "kd.masking.coalesce" => Coalesce,
            "kd.masking.has" => Has,
            "kd.masking.has_not" => HasNot,
            "kd.masking.mask_and" => MaskAnd,
            "kd.masking.mask_or" => MaskOr,
            "kd.slices.int32" | "kd.schema.to_int32" => Cast(NumType::I32),
            "kd.slices.int64" | "kd.schema.to_int64" => Cast(NumType::I64),
            "kd.slices.float32" | "kd.schema.to_float32" => Cast(NumType::F32),
            "kd.slices.float64" | "kd.schema.to_float64" => Cast(NumType::F64),
            _ => return None,
        })
    }

    /// How many arguments the operator takes.
    pub fn arity(self) -> usize {
        match self {
            FusedOp::Un(_) | FusedOp::Pos | FusedOp::Has | FusedOp::HasNot | FusedOp::Cast(_) => 1,
            _ => 2,
        }
    }
}

/// An argument of a node of a group.
#[derive(Clone, Debug)]
pub enum Arg {
    /// The value of an earlier node.
    Node(usize),
    /// Input `k` of the group.
    Input(usize),
    /// A constant DataItem.
    Const(DataSlice),
}

/// One operator of a group, applied to its arguments.
#[derive(Clone, Debug)]
pub struct Node {
    pub op: FusedOp,
    pub args: Vec<Arg>,
}

/// A numeric type of values in a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumType {
    I32,
    I64,
    F32,
    F64,
}

impl NumType {
    fn of(schema: Schema) -> Option<NumType> {
        Some(match schema {
            Schema::Int32 => NumType::I32,
            Schema::Int64 => NumType::I64,
            Schema::Float32 => NumType::F32,
            Schema::Float64 => NumType::F64,
            _ => return None,
        })
    }

    pub fn schema(self) -> Schema {
        match self {
            NumType::I32 => Schema::Int32,
            NumType::I64 => Schema::Int64,
            NumType::F32 => Schema::Float32,
            NumType::F64 => Schema::Float64,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, NumType::F32 | NumType::F64)
    }

    /// The common type of two numbers (the promotion lattice).
    fn common(a: NumType, b: NumType) -> Option<NumType> {
        NumType::of(Schema::common(a.schema(), b.schema())?)
    }

    /// The float type operators with float results compute in.
    fn float(self) -> NumType {
        if self == NumType::F64 { NumType::F64 } else { NumType::F32 }
    }
}

/// What a value of a program is: numbers (with presence) or a MASK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Num(NumType),
    Mask,
}

impl Kind {
    /// The kind of items of `schema`, if programs compute on them.
    pub fn of(schema: Schema) -> Option<Kind> {
        if schema == Schema::Mask { Some(Kind::Mask) } else { NumType::of(schema).map(Kind::Num) }
    }

    pub fn schema(self) -> Schema {
        match self {
            Kind::Num(t) => t.schema(),
            Kind::Mask => Schema::Mask,
        }
    }
}

/// A constant of a program, in the type it is read as.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    /// A present MASK item.
    Present,
    /// A missing item (of any kind).
    Missing,
}

impl ConstValue {
    /// Numeric item `x` read as type `t`, converted as promotion converts
    /// (through f64, as `cast_column` does).
    fn number(x: ScalarRef<'_>, t: NumType) -> Option<ConstValue> {
        let v = match x {
            ScalarRef::Int32(v) => v as f64,
            ScalarRef::Int64(v) => return Some(Self::from_i64(v, t)),
            ScalarRef::Float32(v) => v as f64,
            ScalarRef::Float64(v) => v,
            _ => return None,
        };
        Some(match t {
            NumType::I32 => ConstValue::I32(i32::from_f64(v)),
            NumType::I64 => ConstValue::I64(i64::from_f64(v)),
            NumType::F32 => ConstValue::F32(v as f32),
            NumType::F64 => ConstValue::F64(v),
        })
    }

    /// The same constant, bit for bit (`-0.0` is not `0.0`; a NaN is itself).
    fn same(&self, other: &ConstValue) -> bool {
        match (self, other) {
            (ConstValue::F32(a), ConstValue::F32(b)) => a.to_bits() == b.to_bits(),
            (ConstValue::F64(a), ConstValue::F64(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }

    fn from_i64(v: i64, t: NumType) -> ConstValue {
        match t {
            NumType::I32 => ConstValue::I32(v as i32),
            NumType::I64 => ConstValue::I64(v),
            NumType::F32 => ConstValue::F32(v as f64 as f32),
            NumType::F64 => ConstValue::F64(v as f64),
        }
    }
}

/// Where an instruction reads a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(usize),
    Input(usize),
    Const(usize),
}

/// An arithmetic operator of two numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Pow,
    FloorDiv,
    Mod,
    Maximum,
    Minimum,
}

/// An arithmetic operator of one number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Abs,
    Sign,
    Round,
    Floor,
    Ceil,
    Log,
    Log10,
    Exp,
    Sqrt,
}

/// A comparison (the result is a MASK).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rel {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

/// One step of a program; `out` is a register no argument reads.
#[derive(Clone, Debug)]
pub enum Instr {
    Bin {
        op: BinOp,
        t: NumType,
        a: Src,
        b: Src,
        out: usize,
    },
    Un {
        op: UnOp,
        t: NumType,
        a: Src,
        out: usize,
    },
    Cmp {
        rel: Rel,
        t: NumType,
        a: Src,
        b: Src,
        out: usize,
    },
    Cast {
        from: NumType,
        to: NumType,
        a: Src,
        out: usize,
    },
    /// `x` where `m` is present (`t`: the type of `x`, `None` for a MASK).
    ApplyMask {
        t: Option<NumType>,
        x: Src,
        m: Src,
        out: usize,
    },
    /// `x` where present, else `y`.
    Coalesce {
        t: Option<NumType>,
        x: Src,
        y: Src,
        out: usize,
    },
    /// A MASK of where `x` is present (`negate`: where it is missing).
    Has {
        negate: bool,
        x: Src,
        out: usize,
    },
}

/// A group specialised to its inputs' types, ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) instrs: Vec<Instr>,
    pub(crate) consts: Vec<ConstValue>,
    /// The kind of each register.
    pub(crate) regs: Vec<Kind>,
    /// The kind of each input (what it was built for).
    pub(crate) inputs: Vec<Kind>,
    pub(crate) output: Src,
    pub(crate) output_kind: Kind,
}

impl Program {
    /// The program of `nodes` (the last one is the output) for inputs of
    /// schemas `inputs`; `None` where some node is not computed as its eager
    /// operator would be here (text, OBJECT, mixed kinds, ...).
    pub fn build(nodes: &[Node], inputs: &[Schema]) -> Option<Program> {
        Builder::new(inputs)?.build(nodes)
    }

    /// The schema of the result.
    pub fn output_schema(&self) -> Schema {
        self.output_kind.schema()
    }

    /// The input the result is, when no instruction computes it (`+x`,
    /// rounding integers): the operators return that input itself.
    pub fn output_input(&self) -> Option<usize> {
        match self.output {
            Src::Input(k) => Some(k),
            _ => None,
        }
    }

    /// The kinds of the inputs the program was built for.
    pub fn input_kinds(&self) -> &[Kind] {
        &self.inputs
    }

    /// The number of instructions (a measure of the work per item).
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// Whether the program has no instruction (its output is an input).
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }
}

/// A node's value while building: where it is and what it holds.
#[derive(Clone, Copy)]
struct Val {
    src: Src,
    kind: Kind,
}

struct Builder {
    instrs: Vec<Instr>,
    consts: Vec<ConstValue>,
    regs: Vec<Kind>,
    free: Vec<usize>,
    /// Registers of casts made for the node being built.
    temps: Vec<usize>,
    inputs: Vec<Kind>,
}

impl Builder {
    fn new(inputs: &[Schema]) -> Option<Builder> {
        let inputs = inputs.iter().map(|&s| Kind::of(s)).collect::<Option<Vec<Kind>>>()?;
        Some(Builder { instrs: Vec::new(), consts: Vec::new(), regs: Vec::new(), free: Vec::new(), temps: Vec::new(), inputs })
    }

    fn build(mut self, nodes: &[Node]) -> Option<Program> {
        if nodes.is_empty() {
            return None;
        }
        // The last node reading each node's value (itself when none does):
        // once it has run, the value is dead.
        let mut last_read: Vec<usize> = (0..nodes.len()).collect();
        for (i, node) in nodes.iter().enumerate() {
            if node.args.len() != node.op.arity() {
                return None;
            }
            for arg in &node.args {
                if let Arg::Node(j) = arg {
                    if *j >= i {
                        return None;
                    }
                    last_read[*j] = i;
                }
            }
        }
        let output = nodes.len() - 1;
        last_read[output] = usize::MAX;
        let mut dies_at: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (j, &i) in last_read.iter().enumerate() {
            if i != usize::MAX {
                dies_at[i].push(j);
            }
        }
        // How many live values each register holds (a value may be another's
        // register: `+x`, rounding an integer); free once none is live.
        let mut holders: Vec<usize> = Vec::new();
        let mut vals: Vec<Val> = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let args = node
                .args
                .iter()
                .map(|a| match a {
                    Arg::Node(j) => Some(vals[*j]),
                    Arg::Input(k) => Some(Val { src: Src::Input(*k), kind: *self.inputs.get(*k)? }),
                    Arg::Const(item) => self.constant(item),
                })
                .collect::<Option<Vec<Val>>>()?;
            let val = self.node(node.op, &args)?;
            // Casts made for this node are read by it alone.
            self.free.append(&mut self.temps);
            vals.push(val);
            if let Src::Reg(r) = val.src {
                holders.resize(self.regs.len(), 0);
                holders[r] += 1;
            }
            for &j in &dies_at[i] {
                if let Src::Reg(r) = vals[j].src {
                    holders[r] -= 1;
                    if holders[r] == 0 {
                        self.free.push(r);
                    }
                }
            }
        }
        let out = vals[output];
        Some(Program { instrs: self.instrs, consts: self.consts, regs: self.regs, inputs: self.inputs, output: out.src, output_kind: out.kind })
    }

    /// A constant item as a value of its own type.
    fn constant(&mut self, item: &DataSlice) -> Option<Val> {
        if !item.is_item() {
            return None;
        }
        let kind = Kind::of(item.schema())?;
        let value = match (item.get(0), kind) {
            (None, _) => ConstValue::Missing,
            (Some(_), Kind::Mask) => ConstValue::Present,
            (Some(x), Kind::Num(t)) => ConstValue::number(x, t)?,
        };
        Some(Val { src: self.push_const(value), kind })
    }

    fn push_const(&mut self, value: ConstValue) -> Src {
        let k = match self.consts.iter().position(|c| c.same(&value)) {
            Some(k) => k,
            None => {
                self.consts.push(value);
                self.consts.len() - 1
            }
        };
        Src::Const(k)
    }

    fn reg(&mut self, kind: Kind) -> usize {
        if let Some(k) = self.free.iter().position(|&r| self.regs[r] == kind) {
            return self.free.swap_remove(k);
        }
        self.regs.push(kind);
        self.regs.len() - 1
    }

    /// `v` as numbers of type `t` (a cast where it has another type).
    fn as_num(&mut self, v: Val, t: NumType) -> Option<Src> {
        let Kind::Num(from) = v.kind else { return None };
        if from == t {
            return Some(v.src);
        }
        if let Src::Const(k) = v.src {
            let value = match self.consts[k] {
                ConstValue::I32(x) => ConstValue::number(ScalarRef::Int32(x), t)?,
                ConstValue::I64(x) => ConstValue::from_i64(x, t),
                ConstValue::F32(x) => ConstValue::number(ScalarRef::Float32(x), t)?,
                ConstValue::F64(x) => ConstValue::number(ScalarRef::Float64(x), t)?,
                other => other,
            };
            return Some(self.push_const(value));
        }
        let out = self.reg(Kind::Num(t));
        self.temps.push(out);
        self.instrs.push(Instr::Cast { from, to: t, a: v.src, out });
        Some(Src::Reg(out))
    }

    fn num_type(v: Val) -> Option<NumType> {
        match v.kind {
            Kind::Num(t) => Some(t),
            Kind::Mask => None,
        }
    }

    /// The value of `op` on `args`, with the instructions computing it.
    fn node(&mut self, op: FusedOp, args: &[Val]) -> Option<Val> {
        match op {
            FusedOp::Bin(bin) => {
                let common = NumType::common(Self::num_type(args[0])?, Self::num_type(args[1])?)?;
                if bin == BinOp::Pow && !common.is_float() {
                    // Integer powers are computed in FLOAT64 and rounded
                    // to FLOAT32 (`math::arithmetic::pow`): left to the
                    // eager operator.
                    return None;
                }
                let t = if matches!(bin, BinOp::Divide | BinOp::Pow) { common.float() } else { common };
                let (a, b) = (self.as_num(args[0], t)?, self.as_num(args[1], t)?);
                let out = self.reg(Kind::Num(t));
                self.instrs.push(Instr::Bin { op: bin, t, a, b, out });
                Some(Val { src: Src::Reg(out), kind: Kind::Num(t) })
            }
            FusedOp::Rel(rel) => {
                let t = NumType::common(Self::num_type(args[0])?, Self::num_type(args[1])?)?;
                let (a, b) = (self.as_num(args[0], t)?, self.as_num(args[1], t)?);
                let out = self.reg(Kind::Mask);
                self.instrs.push(Instr::Cmp { rel, t, a, b, out });
                Some(Val { src: Src::Reg(out), kind: Kind::Mask })
            }
            FusedOp::Pos => {
                Self::num_type(args[0])?;
                Some(args[0])
            }
            FusedOp::Un(un) => {
                let t = Self::num_type(args[0])?;
                let t = match un {
                    UnOp::Neg | UnOp::Abs | UnOp::Sign => t,
                    // Rounding leaves INT32 as it is; INT64 goes through
                    // FLOAT64 (`math::unary::rounding`), left to the eager
                    // operator.
                    UnOp::Round | UnOp::Floor | UnOp::Ceil if t == NumType::I32 => return Some(args[0]),
                    UnOp::Round | UnOp::Floor | UnOp::Ceil if t == NumType::I64 => return None,
                    UnOp::Round | UnOp::Floor | UnOp::Ceil => t,
                    UnOp::Log | UnOp::Log10 | UnOp::Exp | UnOp::Sqrt => t.float(),
                };
                let a = self.as_num(args[0], t)?;
                let out = self.reg(Kind::Num(t));
                self.instrs.push(Instr::Un { op: un, t, a, out });
                Some(Val { src: Src::Reg(out), kind: Kind::Num(t) })
            }
            FusedOp::ApplyMask | FusedOp::MaskAnd => {
                let [x, m] = [args[0], args[1]];
                if m.kind != Kind::Mask || (op == FusedOp::MaskAnd && x.kind != Kind::Mask) {
                    return None;
                }
                let out = self.reg(x.kind);
                self.instrs.push(Instr::ApplyMask { t: Self::num_type(x), x: x.src, m: m.src, out });
                Some(Val { src: Src::Reg(out), kind: x.kind })
            }
            FusedOp::Coalesce | FusedOp::MaskOr => {
                let [x, y] = [args[0], args[1]];
                let kind = match (x.kind, y.kind) {
                    (Kind::Mask, Kind::Mask) => Kind::Mask,
                    (Kind::Num(a), Kind::Num(b)) if op == FusedOp::Coalesce => Kind::Num(NumType::common(a, b)?),
                    _ => return None,
                };
                let (t, xs, ys) = match kind {
                    Kind::Num(t) => (Some(t), self.as_num(x, t)?, self.as_num(y, t)?),
                    Kind::Mask => (None, x.src, y.src),
                };
                let out = self.reg(kind);
                self.instrs.push(Instr::Coalesce { t, x: xs, y: ys, out });
                Some(Val { src: Src::Reg(out), kind })
            }
            FusedOp::Cast(to) => {
                let from = Self::num_type(args[0])?;
                if from == to {
                    return Some(args[0]);
                }
                if NumType::common(from, to)? != to {
                    return None;
                }
                let out = self.reg(Kind::Num(to));
                self.instrs.push(Instr::Cast { from, to, a: args[0].src, out });
                Some(Val { src: Src::Reg(out), kind: Kind::Num(to) })
            }
            FusedOp::Has | FusedOp::HasNot => {
                let out = self.reg(Kind::Mask);
                self.instrs.push(Instr::Has { negate: op == FusedOp::HasNot, x: args[0].src, out });
                Some(Val { src: Src::Reg(out), kind: Kind::Mask })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_buffer::{NullBuffer, ScalarBuffer};
    use plait_core::{Column, JaggedShape, SliceData, Values};

    fn floats(values: &[Option<f32>]) -> DataSlice {
        let presence = NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<bool>>());
        let column = Column::new(Values::Float32(ScalarBuffer::from(values.iter().map(|v| v.unwrap_or(0.0)).collect::<Vec<f32>>())), Some(presence));
        DataSlice::new(JaggedShape::flat(values.len()), SliceData::from_column(column), Schema::Float32).unwrap()
    }

    fn item(v: i32) -> DataSlice {
        DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap()
    }

    fn node(op: FusedOp, args: Vec<Arg>) -> Node {
        Node { op, args }
    }

    #[test]
    fn a_long_chain_runs_in_two_registers() {
        // ((x * 2) + x) * 2 + x ... : each value is read once after it is made.
        let mut nodes = vec![node(FusedOp::Bin(BinOp::Multiply), vec![Arg::Input(0), Arg::Const(item(2))])];
        for k in 1..50 {
            let op = if k % 2 == 0 { FusedOp::Bin(BinOp::Multiply) } else { FusedOp::Bin(BinOp::Add) };
            let other = if k % 2 == 0 { Arg::Const(item(2)) } else { Arg::Input(0) };
            nodes.push(node(op, vec![Arg::Node(k - 1), other]));
        }
        let program = Program::build(&nodes, &[Schema::Float32]).unwrap();
        assert_eq!(program.len(), 50);
        assert_eq!(program.regs.len(), 2);
        // The INT32 constant is converted once, when built: no cast runs.
        assert!(program.consts.contains(&ConstValue::F32(2.0)));
        assert!(!program.instrs.iter().any(|i| matches!(i, Instr::Cast { .. })));
        assert_eq!(program.output_schema(), Schema::Float32);
    }

    #[test]
    fn inputs_of_another_type_are_cast_once_per_use() {
        let nodes = vec![
            node(FusedOp::Bin(BinOp::Add), vec![Arg::Input(0), Arg::Input(1)]),
            node(FusedOp::Rel(Rel::Less), vec![Arg::Node(0), Arg::Input(1)]),
        ];
        let program = Program::build(&nodes, &[Schema::Int32, Schema::Float64]).unwrap();
        assert!(matches!(program.instrs[0], Instr::Cast { from: NumType::I32, to: NumType::F64, .. }));
        assert_eq!(program.output_schema(), Schema::Mask);
    }

    #[test]
    fn negative_zero_is_its_own_constant() {
        let zero = |v: f32| Arg::Const(DataSlice::item(Some(ScalarRef::Float32(v)), Schema::Float32).unwrap());
        let nodes =
            vec![node(FusedOp::Bin(BinOp::Add), vec![Arg::Input(0), zero(0.0)]), node(FusedOp::Bin(BinOp::Multiply), vec![Arg::Node(0), zero(-0.0)])];
        let program = Program::build(&nodes, &[Schema::Float32]).unwrap();
        assert_eq!(program.consts.len(), 2);
    }

    #[test]
    fn what_operators_would_refuse_is_declined() {
        let add = vec![node(FusedOp::Bin(BinOp::Add), vec![Arg::Input(0), Arg::Input(1)])];
        assert!(Program::build(&add, &[Schema::String, Schema::String]).is_none());
        assert!(Program::build(&add, &[Schema::Mask, Schema::Int32]).is_none());
        assert!(Program::build(&add, &[Schema::Object, Schema::Int32]).is_none());
        let masked = vec![node(FusedOp::ApplyMask, vec![Arg::Input(0), Arg::Input(1)])];
        assert!(Program::build(&masked, &[Schema::Int32, Schema::Int32]).is_none());
        // A node reading a later one.
        assert!(Program::build(&[node(FusedOp::Un(UnOp::Neg), vec![Arg::Node(0)])], &[]).is_none());
    }

    #[test]
    fn runs_give_the_operators_results() {
        // (x * 2 + 1) & (x > 0) | -1, over many chunks and threads.
        let values: Vec<Option<f32>> = (0..300_001).map(|i| if i % 7 == 0 { None } else { Some(i as f32 - 1000.5) }).collect();
        let x = floats(&values);
        let nodes = vec![
            node(FusedOp::Bin(BinOp::Multiply), vec![Arg::Input(0), Arg::Const(item(2))]),
            node(FusedOp::Bin(BinOp::Add), vec![Arg::Node(0), Arg::Const(item(1))]),
            node(FusedOp::Rel(Rel::Greater), vec![Arg::Input(0), Arg::Const(item(0))]),
            node(FusedOp::ApplyMask, vec![Arg::Node(1), Arg::Node(2)]),
            node(FusedOp::Coalesce, vec![Arg::Node(3), Arg::Const(item(-1))]),
        ];
        let program = Program::build(&nodes, &[Schema::Float32]).unwrap();
        let out = machine::run(&program, &[&x], x.shape()).unwrap().unwrap();
        let two = item(2);
        let eager = crate::math::multiply(&x, &two).and_then(|a| crate::math::add(&a, &item(1))).unwrap();
        let mask = crate::comparison::greater(&x, &item(0)).unwrap();
        let eager = crate::masking::coalesce(&crate::masking::apply_mask(&eager, &mask).unwrap(), &item(-1)).unwrap();
        assert_eq!(out.schema(), eager.schema());
        assert_eq!(out.present_count(), eager.present_count());
        for i in (0..values.len()).step_by(997).chain([values.len() - 1]) {
            assert_eq!(out.get(i), eager.get(i), "item {i}");
        }
    }

    #[test]
    fn a_zero_divisor_declines_the_run() {
        let nodes =
            vec![node(FusedOp::Bin(BinOp::FloorDiv), vec![Arg::Input(0), Arg::Const(item(0))]), node(FusedOp::Un(UnOp::Neg), vec![Arg::Node(0)])];
        let program = Program::build(&nodes, &[Schema::Float32]).unwrap();
        let x = floats(&[Some(1.0), None]);
        assert!(machine::run(&program, &[&x], x.shape()).unwrap().is_none());
        let missing = floats(&[None, None]);
        assert!(machine::run(&program, &[&missing], missing.shape()).unwrap().is_some());
    }
}
