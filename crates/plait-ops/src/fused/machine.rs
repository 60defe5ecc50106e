//! Running a fused [`Program`]: the items are cut into tasks (run on the
//! thread pool when there are many) and each task into chunks of
//! [`CHUNK`] items; every instruction runs over a whole chunk before the
//! next, so a register is a small buffer that stays in the CPU's cache and
//! the loops vectorise. On x86-64 with AVX2 the same code is compiled a
//! second time for it and chosen at run time.

use std::mem::MaybeUninit;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use plait_core::{Column, DataSlice, JaggedShape, Result, SliceData, Values};
use rayon::prelude::*;

use super::{BinOp, ConstValue, Instr, Kind, NumType, Program, Rel, Src, UnOp};
use crate::elementwise::{FloatBinary, FloatUnary, NumBinary, NumUnary};
use crate::kernel::{PARALLEL_MIN, Side};
use crate::math::arithmetic as ar;
use crate::math::unary as un;
use crate::num::Num;

/// Items per chunk: a register of f64 is 16 KiB.
const CHUNK: usize = 2048;
/// Items per parallel task (a multiple of [`CHUNK`] and of 64).
const TASK: usize = 1 << 15;

/// An input of a run: a column with the items of the result's shape, or one
/// item for all of them.
#[derive(Clone, Copy)]
enum Input<'a> {
    Column { values: &'a Values, presence: Option<&'a NullBuffer> },
    Item(ConstValue),
}

/// Runs `program` on `inputs` (DataItems, or slices of shape `shape`, of the
/// kinds the program was built for). `Ok(None)`: the program declines these
/// values (a zero divisor of `//` or `%`), to be computed operator by
/// operator.
pub fn run(program: &Program, inputs: &[&DataSlice], shape: &JaggedShape) -> Result<Option<DataSlice>> {
    let n = shape.size();
    let mut args = Vec::with_capacity(inputs.len());
    for (x, kind) in inputs.iter().zip(&program.inputs) {
        args.push(match x.data().columns() {
            [] => Input::Item(ConstValue::Missing),
            [column] if x.is_item() => Input::Item(item_value(column)),
            [column] if x.size() == n && column.values.dtype() == kind.schema() => {
                Input::Column { values: &column.values, presence: column.presence.as_ref() }
            }
            _ => return Ok(None),
        });
    }
    let Some((values, presence)) = run_columns(program, &args, n) else { return Ok(None) };
    let data = SliceData::from_column(Column::new(values, presence));
    DataSlice::new(shape.clone(), data, program.output_schema()).map(Some)
}

/// The value of a one-item column as a constant.
fn item_value(column: &Column) -> ConstValue {
    if !column.is_present(0) {
        return ConstValue::Missing;
    }
    match &column.values {
        Values::Int32(v) => ConstValue::I32(v[0]),
        Values::Int64(v) => ConstValue::I64(v[0]),
        Values::Float32(v) => ConstValue::F32(v[0]),
        Values::Float64(v) => ConstValue::F64(v[0]),
        _ => ConstValue::Present,
    }
}

/// The part of the output one task writes (every item of it).
enum OutSlice<'a> {
    I32(&'a mut [MaybeUninit<i32>]),
    I64(&'a mut [MaybeUninit<i64>]),
    F32(&'a mut [MaybeUninit<f32>]),
    F64(&'a mut [MaybeUninit<f64>]),
    Mask,
}

/// What a task found: whether it ran to the end, and whether some item of
/// its output is missing.
#[derive(Clone, Copy)]
struct TaskEnd {
    ok: bool,
    missing: bool,
}

fn run_columns(program: &Program, inputs: &[Input<'_>], n: usize) -> Option<(Values, Option<NullBuffer>)> {
    // Not initialised: the tasks write every item (a pass clearing a
    // reused buffer would cost a tenth of a long chain).
    let mut out = match program.output_kind {
        Kind::Num(NumType::I32) => Buf::I32(Vec::with_capacity(n)),
        Kind::Num(NumType::I64) => Buf::I64(Vec::with_capacity(n)),
        Kind::Num(NumType::F32) => Buf::F32(Vec::with_capacity(n)),
        Kind::Num(NumType::F64) => Buf::F64(Vec::with_capacity(n)),
        Kind::Mask => Buf::None,
    };
    let mut words = vec![0u64; n.div_ceil(64)];
    let parallel = n >= PARALLEL_MIN;
    let end = {
        let words_per_task = TASK / 64;
        let slices: Vec<OutSlice<'_>> = match &mut out {
            Buf::I32(v) => v.spare_capacity_mut()[..n].chunks_mut(TASK).map(OutSlice::I32).collect(),
            Buf::I64(v) => v.spare_capacity_mut()[..n].chunks_mut(TASK).map(OutSlice::I64).collect(),
            Buf::F32(v) => v.spare_capacity_mut()[..n].chunks_mut(TASK).map(OutSlice::F32).collect(),
            Buf::F64(v) => v.spare_capacity_mut()[..n].chunks_mut(TASK).map(OutSlice::F64).collect(),
            Buf::None => (0..n.div_ceil(TASK)).map(|_| OutSlice::Mask).collect(),
        };
        let tasks: Vec<(usize, OutSlice<'_>, &mut [u64])> =
            slices.into_iter().zip(words.chunks_mut(words_per_task)).enumerate().map(|(k, (o, w))| (k * TASK, o, w)).collect();
        let run_one = |(start, out, words): (usize, OutSlice<'_>, &mut [u64])| {
            let len = TASK.min(n - start);
            run_task(program, inputs, start, len, out, words)
        };
        let join = |a: TaskEnd, b: TaskEnd| TaskEnd { ok: a.ok && b.ok, missing: a.missing || b.missing };
        let none = TaskEnd { ok: true, missing: false };
        if parallel {
            plait_core::parallel::install(|| tasks.into_par_iter().map(run_one).reduce(|| none, join))
        } else {
            tasks.into_iter().map(run_one).fold(none, join)
        }
    };
    if !end.ok {
        return None;
    }
    // SAFETY: every task ran to its end (`end.ok`), and a task writes each
    // item of its range (`write_output` after each chunk, the chunks
    // covering the range in order); the ranges cover `0..n`, within the
    // capacity.
    unsafe {
        match &mut out {
            Buf::I32(v) => v.set_len(n),
            Buf::I64(v) => v.set_len(n),
            Buf::F32(v) => v.set_len(n),
            Buf::F64(v) => v.set_len(n),
            Buf::None => {}
        }
    }
    let presence = end.missing.then(|| NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(words), 0, n)));
    let values = match out {
        Buf::I32(v) => Values::Int32(ScalarBuffer::from(v)),
        Buf::I64(v) => Values::Int64(ScalarBuffer::from(v)),
        Buf::F32(v) => Values::Float32(ScalarBuffer::from(v)),
        Buf::F64(v) => Values::Float64(ScalarBuffer::from(v)),
        Buf::None => Values::Mask(n),
    };
    Some((values, presence))
}

/// Runs one task: items `start..start + len`.
fn run_task(program: &Program, inputs: &[Input<'_>], start: usize, len: usize, out: OutSlice<'_>, words: &mut [u64]) -> TaskEnd {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has the features `run_task_avx2` is compiled for
            // (checked just above).
            return unsafe { run_task_avx2(program, inputs, start, len, out, words) };
        }
    }
    run_task_body(program, inputs, start, len, out, words)
}

/// [`run_task_body`] compiled for AVX2: the chunk loops are the same code,
/// vectorised eight floats wide. Results do not change (no fused
/// multiply-add is formed: Rust never contracts `a * b + c`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_task_avx2(program: &Program, inputs: &[Input<'_>], start: usize, len: usize, out: OutSlice<'_>, words: &mut [u64]) -> TaskEnd {
    run_task_body(program, inputs, start, len, out, words)
}

#[inline(always)]
fn run_task_body(program: &Program, inputs: &[Input<'_>], start: usize, len: usize, mut out: OutSlice<'_>, words: &mut [u64]) -> TaskEnd {
    let mut machine = Machine::new(program, inputs, len.min(CHUNK));
    let mut end = TaskEnd { ok: true, missing: false };
    let mut offset = 0;
    while offset < len {
        let m = CHUNK.min(len - offset);
        if !machine.run_chunk(start + offset, m) {
            end.ok = false;
            return end;
        }
        end.missing |= machine.write_output(offset, m, &mut out, &mut words[offset / 64..]);
        offset += m;
    }
    end
}

/// Register and input buffers of one task.
struct Machine<'p, 'a> {
    program: &'p Program,
    inputs: &'p [Input<'a>],
    regs: Vec<Reg>,
    /// Presence of the column inputs with missing items, in the current chunk.
    input_presence: Vec<Option<Vec<u8>>>,
    /// A chunk of zeros: the presence of a missing item.
    zeros: Vec<u8>,
    /// Where the current chunk starts, and its length.
    start: usize,
    len: usize,
}

/// A register: a chunk of values, and their presence unless `full`.
struct Reg {
    values: Buf,
    presence: Vec<u8>,
    full: bool,
}

/// Numbers of one type: a register's chunk, or the output while a run
/// writes it (`None`: a MASK, which has no values).
enum Buf {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    None,
}

/// The numbers a register or input may hold.
trait Lane: Num {
    fn regs(b: &Buf) -> &[Self];
    fn regs_mut(b: &mut Buf) -> &mut [Self];
    fn constant(c: ConstValue) -> Self;
    fn out<'o>(o: &'o mut OutSlice<'_>) -> Option<&'o mut [MaybeUninit<Self>]>;
    /// `u` when `present` is 1, else `v`, by bit masks (a branch would stop
    /// the loop vectorising).
    fn blend(present: u8, u: Self, v: Self) -> Self;
}

macro_rules! lane {
    ($t:ty, $v:ident, $bits:ty, $to:expr, $from:expr) => {
        impl Lane for $t {
            #[inline(always)]
            fn blend(present: u8, u: Self, v: Self) -> Self {
                let mask = <$bits>::from(present).wrapping_neg();
                let (u, v): ($bits, $bits) = ($to(u), $to(v));
                $from((u & mask) | (v & !mask))
            }
            #[inline(always)]
            fn regs(b: &Buf) -> &[Self] {
                match b {
                    Buf::$v(v) => v,
                    _ => unreachable!("register of another type"),
                }
            }
            #[inline(always)]
            fn regs_mut(b: &mut Buf) -> &mut [Self] {
                match b {
                    Buf::$v(v) => v,
                    _ => unreachable!("register of another type"),
                }
            }
            #[inline(always)]
            fn constant(c: ConstValue) -> Self {
                match c {
                    ConstValue::$v(v) => v,
                    _ => Self::ZERO,
                }
            }
            #[inline(always)]
            fn out<'o>(o: &'o mut OutSlice<'_>) -> Option<&'o mut [MaybeUninit<Self>]> {
                match o {
                    OutSlice::$v(v) => Some(&mut **v),
                    _ => None,
                }
            }
        }
    };
}
lane!(i32, I32, u32, |x: i32| x as u32, |x: u32| x as i32);
lane!(i64, I64, u64, |x: i64| x as u64, |x: u64| x as i64);
lane!(f32, F32, u32, f32::to_bits, f32::from_bits);
lane!(f64, F64, u64, f64::to_bits, f64::from_bits);

/// Presence of one argument in a chunk: `None` when every item is present.
type Pres<'a> = Option<&'a [u8]>;

impl<'p, 'a> Machine<'p, 'a> {
    fn new(program: &'p Program, inputs: &'p [Input<'a>], chunk: usize) -> Machine<'p, 'a> {
        let regs = program
            .regs
            .iter()
            .map(|kind| Reg {
                values: match kind {
                    Kind::Num(NumType::I32) => Buf::I32(vec![0; chunk]),
                    Kind::Num(NumType::I64) => Buf::I64(vec![0; chunk]),
                    Kind::Num(NumType::F32) => Buf::F32(vec![0.0; chunk]),
                    Kind::Num(NumType::F64) => Buf::F64(vec![0.0; chunk]),
                    Kind::Mask => Buf::None,
                },
                presence: vec![0; chunk],
                full: true,
            })
            .collect();
        let input_presence = inputs.iter().map(|i| matches!(i, Input::Column { presence: Some(_), .. }).then(|| vec![0; chunk])).collect();
        Machine { program, inputs, regs, input_presence, zeros: vec![0; chunk], start: 0, len: 0 }
    }

    /// Runs every instruction over items `start..start + len`; false when
    /// the program declines them.
    #[inline(always)]
    fn run_chunk(&mut self, start: usize, len: usize) -> bool {
        self.start = start;
        self.len = len;
        for (k, input) in self.inputs.iter().enumerate() {
            if let (Input::Column { presence: Some(bits), .. }, Some(bytes)) = (input, &mut self.input_presence[k]) {
                for (b, bit) in bytes[..len].iter_mut().zip(bits.inner().slice(start, len).iter()) {
                    *b = bit as u8;
                }
            }
        }
        let program = self.program;
        for instr in &program.instrs {
            let out_reg = match instr {
                Instr::Bin { out, .. }
                | Instr::Un { out, .. }
                | Instr::Cmp { out, .. }
                | Instr::Cast { out, .. }
                | Instr::ApplyMask { out, .. }
                | Instr::Coalesce { out, .. }
                | Instr::Has { out, .. } => *out,
            };
            // The output register is taken out while the arguments (never
            // that register) are read.
            let mut out = std::mem::replace(&mut self.regs[out_reg], Reg { values: Buf::None, presence: Vec::new(), full: true });
            let ok = self.exec(instr, &mut out);
            self.regs[out_reg] = out;
            if !ok {
                return false;
            }
        }
        true
    }

    /// The numbers `src` holds in the current chunk.
    #[inline(always)]
    fn side<T: Lane>(&self, src: Src) -> Side<'_, T> {
        let (start, len) = (self.start, self.len);
        match src {
            Src::Reg(r) => Side::Many(&T::regs(&self.regs[r].values)[..len]),
            Src::Const(k) => Side::One(T::constant(self.program.consts[k])),
            Src::Input(k) => match self.inputs[k] {
                Input::Column { values, .. } => Side::Many(&T::slice_of(values).expect("input of the program's type")[start..start + len]),
                Input::Item(c) => Side::One(T::constant(c)),
            },
        }
    }

    /// Which items `src` has in the current chunk.
    #[inline(always)]
    fn presence(&self, src: Src) -> Pres<'_> {
        let len = self.len;
        let constant = |c: ConstValue| if c == ConstValue::Missing { Some(&self.zeros[..len]) } else { None };
        match src {
            Src::Reg(r) => {
                let reg = &self.regs[r];
                if reg.full { None } else { Some(&reg.presence[..len]) }
            }
            Src::Const(k) => constant(self.program.consts[k]),
            Src::Input(k) => match self.inputs[k] {
                Input::Column { .. } => self.input_presence[k].as_ref().map(|p| &p[..len]),
                Input::Item(c) => constant(c),
            },
        }
    }

    #[inline(always)]
    fn exec(&self, instr: &Instr, out: &mut Reg) -> bool {
        let len = self.len;
        match *instr {
            Instr::Bin { op, t, a, b, .. } => {
                let (pa, pb) = (self.presence(a), self.presence(b));
                match op {
                    BinOp::Divide | BinOp::Pow => crate::with_float_type!(t.schema(), T => {
                        let (x, y) = (self.side::<T>(a), self.side::<T>(b));
                        let o = &mut T::regs_mut(&mut out.values)[..len];
                        if op == BinOp::Divide {
                            map2(x, y, o, <ar::Divide as FloatBinary>::apply::<T>);
                        } else {
                            map2(x, y, o, <ar::Pow as FloatBinary>::apply::<T>);
                        }
                    }),
                    _ => crate::with_num_type!(t.schema(), T => {
                        let (x, y) = (self.side::<T>(a), self.side::<T>(b));
                        if matches!(op, BinOp::FloorDiv | BinOp::Mod) && has_zero_at_present(y, pb, pa, len) {
                            return false;
                        }
                        let o = &mut T::regs_mut(&mut out.values)[..len];
                        match op {
                            BinOp::Add => num2::<T, ar::Add>(x, y, o),
                            BinOp::Subtract => num2::<T, ar::Subtract>(x, y, o),
                            BinOp::Multiply => num2::<T, ar::Multiply>(x, y, o),
                            BinOp::Maximum => num2::<T, ar::Maximum>(x, y, o),
                            BinOp::Minimum => num2::<T, ar::Minimum>(x, y, o),
                            BinOp::FloorDiv => num2::<T, ar::FloorDiv>(x, y, o),
                            BinOp::Mod | BinOp::Divide | BinOp::Pow => num2::<T, ar::FloorMod>(x, y, o),
                        }
                    }),
                }
                and_presence(pa, pb, out, len);
            }
            Instr::Un { op, t, a, .. } => {
                match op {
                    UnOp::Neg | UnOp::Abs | UnOp::Sign => crate::with_num_type!(t.schema(), T => {
                        let (x, o) = (self.side::<T>(a), &mut T::regs_mut(&mut out.values)[..len]);
                        match op {
                            UnOp::Neg => num1::<T, un::Neg>(x, o),
                            UnOp::Abs => num1::<T, un::Abs>(x, o),
                            _ => num1::<T, un::Sign>(x, o),
                        }
                    }),
                    _ => crate::with_float_type!(t.schema(), T => {
                        let (x, o) = (self.side::<T>(a), &mut T::regs_mut(&mut out.values)[..len]);
                        match op {
                            UnOp::Round => map1(x, o, <un::Round as FloatUnary>::apply::<T>),
                            UnOp::Floor => map1(x, o, <un::Floor as FloatUnary>::apply::<T>),
                            UnOp::Ceil => map1(x, o, <un::Ceil as FloatUnary>::apply::<T>),
                            UnOp::Log => map1(x, o, <un::Ln as FloatUnary>::apply::<T>),
                            UnOp::Log10 => map1(x, o, <un::Log10 as FloatUnary>::apply::<T>),
                            UnOp::Exp => map1(x, o, <un::Exp as FloatUnary>::apply::<T>),
                            _ => map1(x, o, <un::Sqrt as FloatUnary>::apply::<T>),
                        }
                    }),
                }
                copy_presence(self.presence(a), out, len);
            }
            Instr::Cmp { rel, t, a, b, .. } => {
                out.full = false;
                crate::with_num_type!(t.schema(), T => {
                    let (x, y) = (self.side::<T>(a), self.side::<T>(b));
                    let o = &mut out.presence[..len];
                    match rel {
                        Rel::Equal => compare(x, y, o, |u, v| u == v),
                        Rel::NotEqual => compare(x, y, o, |u, v| u != v),
                        Rel::Less => compare(x, y, o, |u, v| u < v),
                        Rel::LessEqual => compare(x, y, o, |u, v| u <= v),
                        Rel::Greater => compare(x, y, o, |u, v| u > v),
                        Rel::GreaterEqual => compare(x, y, o, |u, v| u >= v),
                    }
                    for p in [self.presence(a), self.presence(b)].into_iter().flatten() {
                        and_into(o, p);
                    }
                });
            }
            Instr::Cast { from, to, a, .. } => {
                crate::with_num_type!(from.schema(), F => crate::with_num_type!(to.schema(), T => {
                    let o = &mut T::regs_mut(&mut out.values)[..len];
                    match self.side::<F>(a) {
                        Side::Many(v) => {
                            for (o, &x) in o.iter_mut().zip(v) {
                                *o = T::from_f64(x.to_f64());
                            }
                        }
                        Side::One(x) => o.fill(T::from_f64(x.to_f64())),
                    }
                }));
                copy_presence(self.presence(a), out, len);
            }
            Instr::ApplyMask { t, x, m, .. } => {
                if let Some(t) = t {
                    crate::with_num_type!(t.schema(), T => copy_values(self.side::<T>(x), &mut T::regs_mut(&mut out.values)[..len]));
                }
                and_presence(self.presence(x), self.presence(m), out, len);
            }
            Instr::Coalesce { t, x, y, .. } => {
                let (px, py) = (self.presence(x), self.presence(y));
                if let Some(t) = t {
                    crate::with_num_type!(t.schema(), T => {
                        let o = &mut T::regs_mut(&mut out.values)[..len];
                        let (xs, ys) = (self.side::<T>(x), self.side::<T>(y));
                        match px {
                            None => copy_values(xs, o),
                            Some(px) => select(px, xs, ys, o),
                        }
                    });
                }
                match (px, py) {
                    (None, _) | (_, None) => out.full = true,
                    (Some(px), Some(py)) => {
                        out.full = false;
                        for ((o, &a), &b) in out.presence[..len].iter_mut().zip(px).zip(py) {
                            *o = a | b;
                        }
                    }
                }
            }
            Instr::Has { negate, x, .. } => match (self.presence(x), negate) {
                (None, false) => out.full = true,
                (None, true) => {
                    out.full = false;
                    out.presence[..len].fill(0);
                }
                (Some(p), false) => copy_presence(Some(p), out, len),
                (Some(p), true) => {
                    out.full = false;
                    for (o, &b) in out.presence[..len].iter_mut().zip(p) {
                        *o = b ^ 1;
                    }
                }
            },
        }
        true
    }

    /// Writes the output of the current chunk at `offset` of the task's
    /// output; true when some item is missing.
    #[inline(always)]
    fn write_output(&self, offset: usize, len: usize, out: &mut OutSlice<'_>, words: &mut [u64]) -> bool {
        let src = self.program.output;
        if let Kind::Num(t) = self.program.output_kind {
            crate::with_num_type!(t.schema(), T => {
                let o = &mut T::out(out).expect("output of the program's type")[offset..offset + len];
                match self.side::<T>(src) {
                    Side::Many(values) => {
                        for (o, &v) in o.iter_mut().zip(values) {
                            o.write(v);
                        }
                    }
                    Side::One(v) => {
                        for o in o.iter_mut() {
                            o.write(v);
                        }
                    }
                }
            });
        }
        match self.presence(src) {
            None => {
                let full_words = len / 64;
                words[..full_words].fill(u64::MAX);
                if len % 64 != 0 {
                    words[full_words] = (1u64 << (len % 64)) - 1;
                }
                false
            }
            Some(p) => {
                let mut missing = false;
                for (w, bytes) in words.iter_mut().zip(p.chunks(64)) {
                    let mut bits = 0u64;
                    for (j, &b) in bytes.iter().enumerate() {
                        bits |= u64::from(b) << j;
                    }
                    missing |= bits.count_ones() as usize != bytes.len();
                    *w = bits;
                }
                missing
            }
        }
    }
}

#[inline(always)]
fn num2<T: Lane, K: NumBinary>(x: Side<'_, T>, y: Side<'_, T>, out: &mut [T]) {
    map2(x, y, out, K::apply::<T>)
}

#[inline(always)]
fn num1<T: Lane, K: NumUnary>(x: Side<'_, T>, out: &mut [T]) {
    map1(x, out, K::apply::<T>)
}

/// `out[i] = f(x[i], y[i])`, one loop per kind of sides.
#[inline(always)]
fn map2<T: Copy, R: Copy>(x: Side<'_, T>, y: Side<'_, T>, out: &mut [R], f: impl Fn(T, T) -> R) {
    match (x, y) {
        (Side::Many(a), Side::Many(b)) => {
            for ((o, &u), &v) in out.iter_mut().zip(a).zip(b) {
                *o = f(u, v);
            }
        }
        (Side::Many(a), Side::One(v)) => {
            for (o, &u) in out.iter_mut().zip(a) {
                *o = f(u, v);
            }
        }
        (Side::One(u), Side::Many(b)) => {
            for (o, &v) in out.iter_mut().zip(b) {
                *o = f(u, v);
            }
        }
        (Side::One(u), Side::One(v)) => out.fill(f(u, v)),
    }
}

#[inline(always)]
fn map1<T: Copy>(x: Side<'_, T>, out: &mut [T], f: impl Fn(T) -> T) {
    match x {
        Side::Many(a) => {
            for (o, &u) in out.iter_mut().zip(a) {
                *o = f(u);
            }
        }
        Side::One(u) => out.fill(f(u)),
    }
}

/// Presence bytes of a comparison: 1 where `f` holds.
#[inline(always)]
fn compare<T: Copy>(x: Side<'_, T>, y: Side<'_, T>, out: &mut [u8], f: impl Fn(T, T) -> bool) {
    map2(x, y, out, |u, v| f(u, v) as u8)
}

#[inline(always)]
fn copy_values<T: Copy>(x: Side<'_, T>, out: &mut [T]) {
    match x {
        Side::Many(a) => out.copy_from_slice(&a[..out.len()]),
        Side::One(v) => out.fill(v),
    }
}

/// `x` where `present`, else `y` (a blend, one loop per kind of sides).
#[inline(always)]
fn select<T: Lane>(present: &[u8], x: Side<'_, T>, y: Side<'_, T>, out: &mut [T]) {
    let n = out.len();
    let present = &present[..n];
    match (x, y) {
        (Side::Many(a), Side::Many(b)) => {
            for (((o, &p), &u), &v) in out.iter_mut().zip(present).zip(&a[..n]).zip(&b[..n]) {
                *o = T::blend(p, u, v);
            }
        }
        (Side::Many(a), Side::One(v)) => {
            for ((o, &p), &u) in out.iter_mut().zip(present).zip(&a[..n]) {
                *o = T::blend(p, u, v);
            }
        }
        (Side::One(u), Side::Many(b)) => {
            for ((o, &p), &v) in out.iter_mut().zip(present).zip(&b[..n]) {
                *o = T::blend(p, u, v);
            }
        }
        (Side::One(u), Side::One(v)) => {
            for (o, &p) in out.iter_mut().zip(present) {
                *o = T::blend(p, u, v);
            }
        }
    }
}

/// Whether a zero divisor meets present items on both sides.
#[inline(always)]
fn has_zero_at_present<T: Lane>(divisor: Side<'_, T>, pd: Pres<'_>, px: Pres<'_>, len: usize) -> bool {
    (0..len).any(|i| divisor.get(i) == T::ZERO && pd.is_none_or(|p| p[i] != 0) && px.is_none_or(|p| p[i] != 0))
}

#[inline(always)]
fn and_into(out: &mut [u8], p: &[u8]) {
    for (o, &b) in out.iter_mut().zip(p) {
        *o &= b;
    }
}

#[inline(always)]
fn copy_presence(p: Pres<'_>, out: &mut Reg, len: usize) {
    match p {
        None => out.full = true,
        Some(p) => {
            out.full = false;
            out.presence[..len].copy_from_slice(p);
        }
    }
}

#[inline(always)]
fn and_presence(a: Pres<'_>, b: Pres<'_>, out: &mut Reg, len: usize) {
    match (a, b) {
        (None, None) => out.full = true,
        (Some(p), None) | (None, Some(p)) => {
            out.full = false;
            out.presence[..len].copy_from_slice(p);
        }
        (Some(p), Some(q)) => {
            out.full = false;
            for ((o, &u), &v) in out.presence[..len].iter_mut().zip(p).zip(q) {
                *o = u & v;
            }
        }
    }
}
