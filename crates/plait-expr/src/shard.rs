//! `kd.shard_map`'s replay plan (seed 003, "Shard Map"): a program written
//! for whole values, traced once, replayed on shards that each hold whole
//! rows of the sharded inputs (their first dimension cut into ranges; jagged
//! rows stay whole).
//!
//! Every value of the program has a place: whole (one value, as in the
//! program), rows (each shard holds its rows of the value: dimension 0 cut
//! by a *split*), or partial (each shard holds a partial result, an item).
//! An operator runs on the shards when that gives the rows of its result:
//! item by item on arguments cut by one split (a whole argument with
//! dimensions gives each shard its rows of it: broadcasting aligns
//! dimension 0), or over the last dimensions of a value that has more. The
//! operators that cross shards are replayed with combining steps: whole
//! aggregations and aggregations of dimension 0 compute a partial result
//! per shard and combine the stacked partials once (`sum` of sums, `max` of
//! maxes, counts summed, means weighted by counts); `kd.index` over
//! dimension 0 adds each shard's first row; `kd.unique` of dimension 0
//! keeps the first of each value per shard, then once over what the shards
//! kept; `kd.select` of dimension 0 filters each shard (the result's rows
//! are cut by a new split). Any other operator on rows gathers them (its
//! arguments' shards concatenated) and runs once: the result always equals
//! the program's on whole values.
//!
//! The plan is a list of actions by *level* (how many gathers precede):
//! at each level the gathers into it, then the step computed once on whole
//! values, then the step computed on every shard. A step is one tuple
//! expression over its imports (`_0`, `_1`, ...): whole values, each
//! shard's pieces of values on the shards, rows of whole values, and the
//! shard's first row.

use std::collections::{BTreeMap, HashMap, HashSet};

use plait_core::{Error, Result};
use plait_ops::registry::Value;
use plait_ops::typing::{Batching, TypeValue};

use crate::expr::{Expr, NodeKind};
use crate::operator::OperatorKind;
use crate::typing::TypeEnv;
use crate::value::ExprValue;
use crate::vmap::{literal_int, op};

/// The prefix of the names the plan gives values (reserved).
pub const SHARD_PREFIX: &str = "_pd_shard_";

/// Where a value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// One value, the same everywhere.
    Whole,
    /// Each shard holds its rows of the value: dimension 0 cut by this split.
    Rows(usize),
    /// Each shard holds a partial result (gathered by stacking).
    Partial,
}

/// A value a step reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Import {
    /// A whole value, as it is.
    Whole(String),
    /// Each shard's own piece of a value on the shards.
    Piece(String),
    /// The rows of whole value `source` that each shard's rows of `split`
    /// cover (a DataItem, or a value that is no DataSlice, as it is).
    Rows { source: String, split: usize },
    /// The index of the shard's first row of `split` (an INT64 item).
    Start(usize),
}

/// Where a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StepKind {
    /// Once, on whole values.
    Once,
    /// On every shard.
    Shards,
}

/// One step: its outputs computed together, from its imports.
#[derive(Clone, Debug)]
pub struct Step {
    pub kind: StepKind,
    pub level: usize,
    pub imports: Vec<Import>,
    /// The names of the outputs, in the order of `expr`'s tuple.
    pub outputs: Vec<String>,
    /// The outputs as one tuple, over inputs `_0`, `_1`, ... (the imports).
    pub expr: Expr,
    /// Each output over the imports' names (for showing the plan).
    pub shown: Vec<(String, Expr)>,
}

/// Values on the shards made whole: `source`'s pieces concatenated along
/// dimension 0 (rows) or stacked (partial results), named `output`.
#[derive(Clone, Debug)]
pub struct Gather {
    pub level: usize,
    pub source: String,
    pub output: String,
    pub stack: bool,
    /// Why: the operator that needs the whole value, or the combining step.
    pub why: String,
}

#[derive(Clone, Debug)]
pub enum Action {
    Step(Step),
    Gather(Gather),
}

/// A replay plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub actions: Vec<Action>,
    /// The program's outputs: the name of an input or of a step's output,
    /// and where it lives.
    pub outputs: Vec<(String, Place)>,
    /// For each split made on the shards (by a filter or a flatten of
    /// dimension 0), a value cut by it: its pieces give the split's rows.
    pub split_sources: BTreeMap<usize, String>,
}

/// A value of the rewritten program: its expression (over the program's
/// inputs and the plan's names), where it lives, the level it is ready at,
/// and its rank when known.
#[derive(Clone, Debug)]
struct Val {
    expr: Expr,
    place: Place,
    level: usize,
    rank: Option<usize>,
}

/// The value a node gives backend operator parameter `name` (by the
/// position of the parameter), when given.
fn arg_named(backend: &plait_ops::registry::Operator, args: &[Option<Val>], name: &str) -> Option<Val> {
    backend.params.iter().position(|p| p.name == name).and_then(|i| args.get(i).cloned().flatten())
}

/// What a combining step needs of the items: partial results of other
/// schemas (an empty shard's OBJECT sum is an INT32 0) would not combine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Items {
    /// A numeric schema (INT32, INT64, FLOAT32, FLOAT64).
    Numeric,
    /// MASK.
    Mask,
    /// Any: the partial results' schema does not depend on the items'.
    Any,
}

/// Whole aggregations: (operator, the operator combining the partials,
/// what the items must be).
const COMBINED: &[(&str, &str, Items)] = &[
    ("kd.math.sum", "kd.math.sum", Items::Numeric),
    ("kd.math.max", "kd.math.max", Items::Numeric),
    ("kd.math.min", "kd.math.min", Items::Numeric),
    ("kd.slices.count", "kd.math.sum", Items::Any),
    ("kd.slices.size", "kd.math.sum", Items::Any),
    ("kd.masking.all", "kd.masking.all", Items::Mask),
    ("kd.masking.any", "kd.masking.any", Items::Mask),
    ("kd.slices.is_empty", "kd.masking.all", Items::Any),
    ("kd.math.agg_sum", "kd.math.sum", Items::Numeric),
    ("kd.math.agg_max", "kd.math.max", Items::Numeric),
    ("kd.math.agg_min", "kd.math.min", Items::Numeric),
    ("kd.slices.agg_count", "kd.math.sum", Items::Any),
    ("kd.slices.agg_size", "kd.math.sum", Items::Any),
    ("kd.masking.agg_all", "kd.masking.all", Items::Mask),
    ("kd.masking.agg_any", "kd.masking.any", Items::Mask),
    ("kd.masking.agg_has", "kd.masking.any", Items::Any),
];

/// Means (of numeric items): combined as sums of partial means weighted by
/// partial counts.
const MEANS: &[&str] = &["kd.math.mean", "kd.math.agg_mean"];

/// Operators over all dimensions with no combining step here: gathered.
const WHOLE_ONLY: &[&str] = &["kd.math.median", "kd.math.inverse_cdf"];

/// Operators with type rules of their own that work item by item, so rows
/// of their arguments give rows of their results.
const ROWWISE: &[&str] =
    &["kd.slices.range", "kd.slices.zip", "kd.strings.split", "kd.core.get_attr", "kd.lists.explode", "kd.lists.size", "kd.dicts.size"];

/// Operators over the last dimension whose type rules are their own.
const LAST_DIM: &[&str] = &["kd.slices.take", "kd.slices.reverse", "kd.slices.sort", "kd.slices.unique", "kd.slices.group_by"];

/// Filters: over a dimension that may be 0 (each shard then keeps its own
/// rows, cut by a new split).
const FILTERS: &[&str] = &["kd.slices.select", "kd.slices.select_present"];

/// `outputs` (expressions over the program's inputs) planned for shards:
/// `types` gives the inputs' types, `sharded` the split of each sharded
/// input (inputs with equal numbers of rows share one).
pub fn plan(outputs: &[Expr], types: Vec<(String, TypeValue)>, sharded: &HashMap<String, usize>) -> Result<Plan> {
    let prepared = outputs
        .iter()
        .map(|e| {
            let p = crate::prepare::prepare(e)?;
            let inlined = crate::inline::inline_calls(&p)?;
            if inlined.same_node(&p) { Ok(p) } else { crate::prepare::prepare(&inlined) }
        })
        .collect::<Result<Vec<_>>>()?;
    // Types give ranks (which dimensions an operator touches) and values
    // known from types alone; a program types reject still runs (its
    // errors are the evaluation's), with ranks unknown.
    let env = TypeEnv::new(types).ok().and_then(|mut env| prepared.iter().try_for_each(|e| env.infer(e).map(|_| ())).ok().map(|_| env));
    let mut planner = Planner {
        env,
        sharded,
        ready: sharded.values().map(|&s| (s, 0)).collect(),
        next_split: sharded.values().copied().max().map_or(0, |s| s + 1),
        done: HashMap::new(),
        gathers: Vec::new(),
        gathered: HashMap::new(),
        rows: Vec::new(),
        rows_of: HashMap::new(),
        born: Vec::new(),
        bounds_read: HashSet::new(),
    };
    let mut roots = Vec::with_capacity(prepared.len());
    for e in &prepared {
        for node in e.post_order() {
            if !planner.done.contains_key(&node.fingerprint()) {
                let v = planner.visit(&node)?;
                planner.done.insert(node.fingerprint(), v);
            }
        }
        roots.push(planner.done[&e.fingerprint()].clone());
    }
    planner.finish(roots)
}

struct Planner<'a> {
    env: Option<TypeEnv>,
    sharded: &'a HashMap<String, usize>,
    /// The level at which each split's rows are known.
    ready: HashMap<usize, usize>,
    next_split: usize,
    /// By original node.
    done: HashMap<u128, Val>,
    /// (source value, gathered input name, stack, why).
    gathers: Vec<(Val, String, bool, String)>,
    gathered: HashMap<(u128, bool), Val>,
    /// Rows imports: (whole source value, split), named `rows<k>`.
    rows: Vec<(Val, usize)>,
    rows_of: HashMap<(u128, usize), Expr>,
    /// Splits made on the shards, and a value cut by each.
    born: Vec<(usize, Val)>,
    /// The splits whose row bounds steps read (rows of whole values, first
    /// rows of shards).
    bounds_read: HashSet<usize>,
}

fn name_of(node: &Expr) -> &str {
    match node.kind() {
        NodeKind::Op { op, .. } => match &op.kind {
            OperatorKind::Backend(b) => b.name,
            OperatorKind::Builtin(def) => def.name,
            _ => &op.name,
        },
        _ => "",
    }
}

fn start_name(split: usize) -> String {
    format!("{SHARD_PREFIX}start{split}")
}

impl Planner<'_> {
    fn rank(&self, node: &Expr) -> Option<usize> {
        match node.literal_value() {
            Some(ExprValue::Data(Value::Slice(x))) => return Some(x.rank()),
            Some(_) => return None,
            None => {}
        }
        match self.env.as_ref()?.node_type(node)?.untagged() {
            TypeValue::Slice(t, _) => t.rank(),
            _ => None,
        }
    }

    /// The schema of the items of `node` (an original node), when known and
    /// one without attributes.
    fn schema_of(&self, node: Option<&Expr>) -> Option<plait_core::Schema> {
        let node = node?;
        match node.literal_value() {
            Some(ExprValue::Data(Value::Slice(x))) => Some(x.schema()),
            Some(_) => None,
            None => match self.env.as_ref()?.node_type(node)?.untagged() {
                TypeValue::Slice(t, _) => match t.schema {
                    plait_core::typing::SchemaType::Named(s) => Some(s),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    /// Whether the items of `node` (an original node) are what `need` says.
    fn items_are(&self, node: Option<&Expr>, need: Items) -> bool {
        match need {
            Items::Any => true,
            Items::Numeric => self.schema_of(node).is_some_and(|s| s.is_numeric()),
            Items::Mask => self.schema_of(node) == Some(plait_core::Schema::Mask),
        }
    }

    /// The value of `node` when its type gives it (a rank, a size known
    /// from the inputs' types).
    fn known(&self, node: &Expr) -> Option<Expr> {
        let t = self.env.as_ref()?.node_type(node)?;
        matches!(node.kind(), NodeKind::Op { .. }).then_some(())?;
        t.known().map(Expr::data)
    }

    fn visit(&mut self, node: &Expr) -> Result<Val> {
        let rank = self.rank(node);
        let whole = |expr: Expr, level: usize| Val { expr, place: Place::Whole, level, rank };
        let NodeKind::Op { .. } = node.kind() else {
            return Ok(match node.kind() {
                NodeKind::Input(name) => match self.sharded.get(name.as_ref()) {
                    Some(&s) => Val { expr: node.clone(), place: Place::Rows(s), level: 0, rank },
                    None => whole(node.clone(), 0),
                },
                _ => whole(node.clone(), 0),
            });
        };
        let args: Vec<Option<Val>> = node.args().iter().map(|a| a.as_ref().map(|e| self.done[&e.fingerprint()].clone())).collect();
        let level = args.iter().flatten().map(|a| a.level).max().unwrap_or(0);
        let splits: Vec<usize> = args.iter().flatten().filter_map(|a| if let Place::Rows(s) = a.place { Some(s) } else { None }).collect();
        if splits.is_empty() {
            return Ok(whole(node.with_args(args.iter().map(|a| a.as_ref().map(|v| v.expr.clone())).collect()), level));
        }
        if let Some(value) = self.known(node) {
            return Ok(whole(value, 0));
        }
        let name = name_of(node);
        if splits.iter().any(|&s| s != splits[0]) {
            return self.gathered_node(node, &args, rank, &format!("{name}: its arguments are cut by different splits"));
        }
        let split = splits[0];
        let x_rank = args.first().and_then(|a| a.as_ref()).and_then(|a| a.rank);
        let x_on_shards = args.first().and_then(|a| a.as_ref()).is_some_and(|a| a.place != Place::Whole);
        let OperatorKind::Backend(backend) = &node.op_ref().expect("an operator node").kind else {
            return self.gathered_node(node, &args, rank, &format!("{name} runs on whole values"));
        };
        let family = backend.type_rule.as_ref().map(|r| r.batching());
        // How many last dimensions the operator works over (its `ndim`, 1
        // unless given), when literal.
        let touched = || -> Option<usize> {
            match arg_named(backend, &args, "ndim") {
                None => Some(1),
                Some(v) => literal_int(&v.expr).and_then(|n| usize::try_from(n).ok()),
            }
        };
        let x_node = node.args().first().and_then(|a| a.as_ref());
        if let Some((_, combine, need)) = COMBINED.iter().find(|(n, ..)| *n == name) {
            let all = family == Some(Batching::AllDims) || !name.contains(".agg_") || (x_rank.is_some() && touched() == x_rank);
            if all && !self.items_are(x_node, *need) {
                let what = if *need == Items::Mask { "MASK" } else { "numeric" };
                return self.gathered_node(node, &args, rank, &format!("{name} of items not known to be {what}: partial results might not combine"));
            }
            if all {
                let partial = self.on_shards(node, &args, split, Place::Partial)?;
                let g = self.gather(partial, true, &format!("partial {name} per shard, combined by {combine}"));
                let level = g.level;
                return Ok(whole(op(combine, vec![g.expr])?, level));
            }
        }
        if MEANS.contains(&name) && (name == "kd.math.mean" || (x_rank.is_some() && touched() == x_rank)) {
            if !self.items_are(x_node, Items::Numeric) {
                return self.gathered_node(node, &args, rank, &format!("{name} of items that are not all numeric: partial means might not combine"));
            }
            let integers = matches!(self.schema_of(x_node), Some(plait_core::Schema::Int32 | plait_core::Schema::Int64));
            return match self.schema_of(Some(node)) {
                Some(result) if integers => self.integer_mean(node, &args, rank, result),
                _ => self.mean(node, &args, split, rank),
            };
        }
        if WHOLE_ONLY.contains(&name) || (family == Some(Batching::AllDims) && !COMBINED.iter().any(|(n, ..)| *n == name)) {
            return self.gathered_node(node, &args, rank, &format!("{name} needs every item at once"));
        }
        if name == "kd.slices.index" {
            let dim = match args.get(1).cloned().flatten() {
                None => Some(-1),
                Some(d) => literal_int(&d.expr),
            };
            let dim = match (dim, x_rank) {
                (Some(d), Some(r)) if d < 0 => Some(d + r as i64),
                (Some(d), _) if d >= 0 => Some(d),
                _ => None,
            };
            return match dim {
                Some(0) if x_on_shards => {
                    let local = self.on_shards(node, &args, split, Place::Rows(split))?;
                    let start = Expr::input(&start_name(split));
                    self.bounds_read.insert(split);
                    let level = local.level.max(self.ready[&split]);
                    Ok(Val { expr: op("kd.math.add", vec![local.expr, start])?, place: Place::Rows(split), level, rank })
                }
                Some(d) if d > 0 => self.on_shards(node, &args, split, Place::Rows(split)),
                _ => self.gathered_node(node, &args, rank, &format!("{name}: the dimension it indexes is not known before running")),
            };
        }
        if name == "kd.shapes.flatten" && x_on_shards {
            let bound = |i: usize, default: Option<i64>| -> Option<Option<i64>> {
                match args.get(i).cloned().flatten() {
                    None => Some(default),
                    Some(v) if matches!(v.expr.literal_value(), Some(ExprValue::Data(Value::Slice(x))) if x.get(0).is_none()) => Some(None),
                    Some(v) => literal_int(&v.expr).map(Some),
                }
            };
            if let (Some(r), Some(Some(from)), Some(to)) = (x_rank, bound(1, Some(0)), bound(2, None)) {
                let norm = |d: i64| if d < 0 { (d + r as i64).max(0) } else { d.min(r as i64) };
                let (from, to) = (norm(from), to.map_or(r as i64, norm));
                // Dimensions after 0 merged, or 0 alone: the rows stay.
                if from > 0 || to == from + 1 {
                    return self.on_shards(node, &args, split, Place::Rows(split));
                }
                // Dimension 0 merged with the next: each shard's items are the
                // rows of the result.
                if to > from + 1 {
                    return self.new_split(node, &args, split);
                }
                // A new dimension 0 (of one row) in front: gathered below.
            }
            return self.gathered_node(node, &args, rank, &format!("{name}: its dimensions are not known before running"));
        }
        if name == "kd.slices.expand_to" {
            // With `ndim`, the last `ndim` dimensions of x are folded into
            // each item of the target: the rows stay only when dimension 0
            // is not among them.
            let ndim = match arg_named(backend, &args, "ndim") {
                None => Some(0),
                Some(v) if matches!(v.expr.literal_value(), Some(ExprValue::Data(Value::Slice(x))) if x.get(0).is_none()) => Some(0),
                Some(v) => literal_int(&v.expr),
            };
            return match (ndim, x_rank) {
                (Some(0), _) => self.on_shards(node, &args, split, Place::Rows(split)),
                (Some(k), Some(r)) if k >= 0 && (k as usize) < r => self.on_shards(node, &args, split, Place::Rows(split)),
                _ => self.gathered_node(node, &args, rank, &format!("{name}: `ndim` folds dimension 0 into every item")),
            };
        }
        if FILTERS.contains(&name) {
            return self.filter(node, &args, split, rank, backend);
        }
        let last_dims = family == Some(Batching::Trailing) || LAST_DIM.contains(&name);
        if last_dims && x_on_shards {
            return match (x_rank, touched()) {
                (Some(r), Some(t)) if r > t => self.on_shards(node, &args, split, Place::Rows(split)),
                (Some(1), Some(1)) if name == "kd.slices.unique" => {
                    // Each shard's first occurrences, then the first of those.
                    let partial = self.new_split(node, &args, split)?;
                    let g = self.gather(partial, false, &format!("{name} per shard, then once over what the shards kept"));
                    let mut rest: Vec<Option<Expr>> = args.iter().map(|a| a.as_ref().map(|v| v.expr.clone())).collect();
                    rest[0] = Some(g.expr.clone());
                    Ok(whole(node.with_args(rest), g.level))
                }
                _ => self.gathered_node(node, &args, rank, &format!("{name} works over dimension 0, which the shards cut")),
            };
        }
        if family == Some(Batching::Items) || ROWWISE.contains(&name) {
            return self.on_shards(node, &args, split, Place::Rows(split));
        }
        self.gathered_node(node, &args, rank, &format!("{name} has no rule for values on shards"))
    }

    /// `node` run on every shard: arguments on the shards as they are,
    /// whole ones with dimensions as each shard's rows of `split`.
    fn on_shards(&mut self, node: &Expr, args: &[Option<Val>], split: usize, place: Place) -> Result<Val> {
        let mut level = 0;
        let mut rewritten = Vec::with_capacity(args.len());
        for a in args {
            let Some(a) = a else {
                rewritten.push(None);
                continue;
            };
            level = level.max(a.level);
            let as_is = a.place != Place::Whole
                || a.rank == Some(0)
                || matches!(a.expr.literal_value(), Some(v) if !matches!(v, ExprValue::Data(Value::Slice(x)) if !x.is_item()))
                || matches!(
                    self.env.as_ref().and_then(|env| env.node_type(&a.expr)).map(TypeValue::untagged),
                    Some(TypeValue::Shape(_) | TypeValue::Bag | TypeValue::Tuple(_))
                );
            if as_is {
                rewritten.push(Some(a.expr.clone()));
            } else {
                level = level.max(self.ready[&split]);
                rewritten.push(Some(self.rows_import(a, split)));
            }
        }
        Ok(Val { expr: node.with_args(rewritten), place, level, rank: self.rank(node) })
    }

    /// A filter (`select`, `select_present`): it removes items of the last
    /// dimension of x (of the filter's when `expand_filter=False`); of
    /// dimension 0 when that is the only one, so each shard keeps its own
    /// rows, cut by a new split. Where the dimension is not known: gathered.
    fn filter(
        &mut self,
        node: &Expr,
        args: &[Option<Val>],
        split: usize,
        rank: Option<usize>,
        backend: &plait_ops::registry::Operator,
    ) -> Result<Val> {
        let name = name_of(node);
        let param = |p: &str| arg_named(backend, args, p);
        let expand = match param("expand_filter") {
            None => Some(true),
            Some(v) => match v.expr.literal_value() {
                Some(ExprValue::Data(Value::Slice(x))) if x.is_item() => match x.get(0) {
                    Some(plait_core::ScalarRef::Boolean(b)) => Some(b),
                    None => Some(true),
                    _ => None,
                },
                _ => None,
            },
        };
        let x_rank = args.first().and_then(|a| a.as_ref()).and_then(|a| a.rank);
        let filtered_rank = match (expand, name) {
            (Some(true), _) | (_, "kd.slices.select_present") => x_rank,
            (Some(false), _) => param("fltr").and_then(|f| f.rank),
            (None, _) => None,
        };
        match filtered_rank {
            Some(r) if r >= 2 => self.on_shards(node, args, split, Place::Rows(split)),
            Some(1) => self.new_split(node, args, split),
            _ => self.gathered_node(node, args, rank, &format!("{name}: the dimension it filters is not known before running")),
        }
    }

    /// `node` on every shard, its result's rows cut by a new split.
    fn new_split(&mut self, node: &Expr, args: &[Option<Val>], split: usize) -> Result<Val> {
        let s = self.next_split;
        self.next_split += 1;
        let v = self.on_shards(node, args, split, Place::Rows(s))?;
        self.ready.insert(s, v.level + 1);
        self.born.push((s, v.clone()));
        Ok(v)
    }

    /// Each shard's rows of whole value `a`.
    fn rows_import(&mut self, a: &Val, split: usize) -> Expr {
        let key = (a.expr.fingerprint(), split);
        if let Some(e) = self.rows_of.get(&key) {
            return e.clone();
        }
        let e = Expr::input(&format!("{SHARD_PREFIX}rows{}", self.rows.len()));
        self.rows.push((a.clone(), split));
        self.bounds_read.insert(split);
        self.rows_of.insert(key, e.clone());
        e
    }

    /// `v` (on the shards) made whole.
    fn gather(&mut self, v: Val, stack: bool, why: &str) -> Val {
        let key = (v.expr.fingerprint(), stack);
        if let Some(g) = self.gathered.get(&key) {
            return g.clone();
        }
        let name = format!("{SHARD_PREFIX}g{}", self.gathers.len());
        let g = Val { expr: Expr::input(&name), place: Place::Whole, level: v.level + 1, rank: if stack { Some(1) } else { v.rank } };
        self.gathers.push((v, name, stack, why.to_string()));
        self.gathered.insert(key, g.clone());
        g
    }

    /// `node` run once, its arguments on the shards gathered.
    fn gathered_node(&mut self, node: &Expr, args: &[Option<Val>], rank: Option<usize>, why: &str) -> Result<Val> {
        let mut level = 0;
        let mut rewritten = Vec::with_capacity(args.len());
        for a in args {
            let a = match a {
                Some(a) if a.place != Place::Whole => Some(self.gather(a.clone(), false, why)),
                other => other.clone(),
            };
            level = level.max(a.as_ref().map_or(0, |a| a.level));
            rewritten.push(a.map(|a| a.expr));
        }
        Ok(Val { expr: node.with_args(rewritten), place: Place::Whole, level, rank })
    }

    /// A mean of dimension 0: each shard's mean and count, combined as
    /// `sum(mean * count) / sum(count)` in FLOAT64, cast back to the
    /// partial means' schema (missing when no shard has a mean).
    fn mean(&mut self, node: &Expr, args: &[Option<Val>], split: usize, rank: Option<usize>) -> Result<Val> {
        let name = name_of(node);
        let x = args[0].clone().expect("a mean has x");
        let means = self.on_shards(node, args, split, Place::Partial)?;
        let counts = Val { expr: op("kd.slices.count", vec![x.expr])?, place: Place::Partial, level: means.level, rank: Some(0) };
        let why = format!("partial {name} and count per shard, combined as their weighted mean");
        let (m, c) = (self.gather(means, true, &why), self.gather(counts, true, &why));
        let weighted = op("kd.math.multiply", vec![op("kd.schema.to_float64", vec![m.expr.clone()])?, c.expr.clone()])?;
        let mean = op("kd.math.divide", vec![op("kd.math.sum", vec![weighted])?, op("kd.math.sum", vec![c.expr])?])?;
        let present = op("kd.masking.any", vec![op("kd.masking.has", vec![m.expr.clone()])?])?;
        let mean = op("kd.schema.cast_to", vec![op("kd.masking.apply_mask", vec![mean, present])?, op("kd.schema.get_schema", vec![m.expr])?])?;
        Ok(Val { expr: mean, place: Place::Whole, level: m.level.max(c.level), rank })
    }

    /// A mean of dimension 0 of integers, exact: each shard's INT64 sum and
    /// count, combined as `sum / count` in FLOAT64 (exact below 2**53, as
    /// the unsharded mean's sum), cast to the mean's schema `result`.
    fn integer_mean(&mut self, node: &Expr, args: &[Option<Val>], rank: Option<usize>, result: plait_core::Schema) -> Result<Val> {
        let name = name_of(node);
        let x = args[0].clone().expect("a mean has x");
        let level = x.level;
        let partial = |e: Result<Expr>| e.map(|expr| Val { expr, place: Place::Partial, level, rank: Some(0) });
        let sums = partial(op("kd.math.sum", vec![op("kd.schema.to_int64", vec![x.expr.clone()])?]))?;
        let counts = partial(op("kd.slices.count", vec![x.expr]))?;
        let why = format!("partial sums and counts per shard, combined as {name}");
        let (s, c) = (self.gather(sums, true, &why), self.gather(counts, true, &why));
        let (total, n) = (op("kd.math.sum", vec![s.expr])?, op("kd.math.sum", vec![c.expr])?);
        let mean = op("kd.math.divide", vec![op("kd.schema.to_float64", vec![total])?, op("kd.schema.to_float64", vec![n.clone()])?])?;
        let mean = op("kd.masking.apply_mask", vec![mean, op("kd.comparison.greater", vec![n, crate::vmap::int(0)])?])?;
        let schema = Expr::data(Value::Slice(plait_core::DataSlice::item(Some(plait_core::ScalarRef::Schema(result)), plait_core::Schema::Schema)?));
        Ok(Val { expr: op("kd.schema.cast_to", vec![mean, schema])?, place: Place::Whole, level: s.level.max(c.level), rank })
    }

    /// The steps: each rewritten operator node in the step of its place and
    /// level; values read by other steps, gathers and the outputs exported
    /// under names.
    fn finish(self, roots: Vec<Val>) -> Result<Plan> {
        let mut builder = Steps::default();
        let rows_names: HashMap<String, usize> = self.rows.iter().enumerate().map(|(k, (_, s))| (format!("{SHARD_PREFIX}rows{k}"), *s)).collect();
        // Where each rewritten node lives: the rules' values, the gathered
        // inputs; nodes the rules made inside values (a partial count, a
        // combining step) follow their arguments.
        let mut places: HashMap<u128, (Place, usize)> = HashMap::new();
        for v in self.done.values().chain(self.gathered.values()) {
            places.insert(v.expr.fingerprint(), (v.place, v.level));
        }
        for (name, &s) in self.sharded {
            places.insert(Expr::input(name).fingerprint(), (Place::Rows(s), 0));
        }
        let born: Vec<&(usize, Val)> = self.born.iter().filter(|(s, _)| self.bounds_read.contains(s)).collect();
        let sources: Vec<&Val> = roots
            .iter()
            .chain(self.gathers.iter().map(|(v, ..)| v))
            .chain(self.rows.iter().map(|(v, _)| v))
            .chain(born.iter().map(|(_, v)| v))
            .collect();
        let mut seen = HashSet::new();
        for v in &sources {
            places.insert(v.expr.fingerprint(), (v.place, v.level));
            for node in v.expr.post_order() {
                if !seen.insert(node.fingerprint()) || !matches!(node.kind(), NodeKind::Op { .. }) {
                    continue;
                }
                let (place, level) = match places.get(&node.fingerprint()) {
                    Some(&p) => p,
                    None => {
                        let args: Vec<(Place, usize)> =
                            node.children().map(|c| places.get(&c.fingerprint()).copied().unwrap_or((Place::Whole, 0))).collect();
                        let level = args.iter().map(|a| a.1).max().unwrap_or(0);
                        (args.iter().map(|a| a.0).find(|p| *p != Place::Whole).unwrap_or(Place::Whole), level)
                    }
                };
                places.insert(node.fingerprint(), (place, level));
                builder.add(&node, place, level, &places, &rows_names, self.sharded)?;
            }
        }
        let export = |v: &Val, builder: &mut Steps| builder.export(&v.expr);
        let rows_sources = self.rows.iter().map(|(v, _)| export(v, &mut builder)).collect::<Result<Vec<_>>>()?;
        builder.resolve_rows(&rows_sources);
        let gathers: Vec<Gather> = self
            .gathers
            .iter()
            .map(|(v, name, stack, why)| {
                Ok(Gather { level: v.level + 1, source: export(v, &mut builder)?, output: name.clone(), stack: *stack, why: why.clone() })
            })
            .collect::<Result<_>>()?;
        let split_sources = born.iter().map(|(s, v)| Ok((*s, export(v, &mut builder)?))).collect::<Result<BTreeMap<_, _>>>()?;
        let outputs = roots.iter().map(|v| Ok((export(v, &mut builder)?, v.place))).collect::<Result<Vec<_>>>()?;
        let mut steps = builder.finish()?;
        let max_level = steps.keys().map(|k| k.0).chain(gathers.iter().map(|g| g.level)).max().unwrap_or(0);
        let mut actions = Vec::new();
        for level in 0..=max_level {
            actions.extend(gathers.iter().filter(|g| g.level == level).cloned().map(Action::Gather));
            for kind in [StepKind::Once, StepKind::Shards] {
                if let Some(step) = steps.remove(&(level, kind)) {
                    actions.push(Action::Step(step));
                }
            }
        }
        Ok(Plan { actions, outputs, split_sources })
    }
}

/// A step being built: its imports, its nodes' local expressions (over the
/// imports' names), its exported outputs.
#[derive(Default)]
struct StepBuild {
    imports: Vec<(String, Import)>,
    outputs: Vec<(String, Expr)>,
}

#[derive(Default)]
struct Steps {
    steps: BTreeMap<(usize, StepKind), StepBuild>,
    /// Each rewritten operator node's step and local expression.
    local: HashMap<u128, ((usize, StepKind), Expr)>,
    /// Names of exported values, by node.
    exported: HashMap<u128, String>,
    next: usize,
}

fn step_kind(place: Place) -> StepKind {
    if place == Place::Whole { StepKind::Once } else { StepKind::Shards }
}

impl Steps {
    /// Adds operator node `node` (its arguments added before) to its step.
    fn add(
        &mut self,
        node: &Expr,
        place: Place,
        level: usize,
        places: &HashMap<u128, (Place, usize)>,
        rows: &HashMap<String, usize>,
        sharded: &HashMap<String, usize>,
    ) -> Result<()> {
        let key = (level, step_kind(place));
        let mut args = Vec::with_capacity(node.args().len());
        for a in node.args() {
            let Some(a) = a else {
                args.push(None);
                continue;
            };
            let local = match a.kind() {
                NodeKind::Literal(_) => a.clone(),
                NodeKind::Input(name) => {
                    // A rows import's source is named once every step is built.
                    let import = if let Some(&split) = rows.get(name.as_ref()) {
                        Import::Rows { source: name.to_string(), split }
                    } else if let Some(s) = name.strip_prefix(SHARD_PREFIX).and_then(|n| n.strip_prefix("start")).and_then(|s| s.parse().ok()) {
                        Import::Start(s)
                    } else if sharded.contains_key(name.as_ref()) {
                        Import::Piece(name.to_string())
                    } else {
                        Import::Whole(name.to_string())
                    };
                    self.import(key, name, import)
                }
                _ => match self.local.get(&a.fingerprint()) {
                    Some((k, e)) if *k == key => e.clone(),
                    _ => {
                        let (p, _) = places[&a.fingerprint()];
                        let name = self.export(a)?;
                        let import = if p == Place::Whole { Import::Whole(name.clone()) } else { Import::Piece(name.clone()) };
                        self.import(key, &name, import)
                    }
                },
            };
            args.push(Some(local));
        }
        self.local.insert(node.fingerprint(), (key, node.with_args(args)));
        self.steps.entry(key).or_default();
        Ok(())
    }

    fn import(&mut self, key: (usize, StepKind), name: &str, import: Import) -> Expr {
        let step = self.steps.entry(key).or_default();
        if !step.imports.iter().any(|(n, _)| n == name) {
            step.imports.push((name.to_string(), import));
        }
        Expr::input(name)
    }

    /// The name `e` is read under outside its step: an input's own, else
    /// an output of its step (a literal: of the first step computed once).
    fn export(&mut self, e: &Expr) -> Result<String> {
        if let NodeKind::Input(name) = e.kind() {
            return Ok(name.to_string());
        }
        if let Some(name) = self.exported.get(&e.fingerprint()) {
            return Ok(name.clone());
        }
        let (key, local) = match self.local.get(&e.fingerprint()) {
            Some((key, local)) => (*key, local.clone()),
            None if matches!(e.kind(), NodeKind::Literal(_)) => ((0, StepKind::Once), e.clone()),
            None => return Err(Error::internal(format!("kd.shard_map: value {} of the plan has no step", crate::text::expr_text(e)))),
        };
        let name = format!("{SHARD_PREFIX}v{}", self.next);
        self.next += 1;
        self.steps.entry(key).or_default().outputs.push((name.clone(), local));
        self.exported.insert(e.fingerprint(), name.clone());
        Ok(name)
    }

    /// Rows imports named by the values they cut (`sources[k]` for
    /// `_pd_shard_rows<k>`).
    fn resolve_rows(&mut self, sources: &[String]) {
        for step in self.steps.values_mut() {
            for (name, import) in &mut step.imports {
                if let Import::Rows { source, .. } = import {
                    let k: usize =
                        name.strip_prefix(SHARD_PREFIX).and_then(|n| n.strip_prefix("rows")).and_then(|k| k.parse().ok()).expect("a rows import");
                    *source = sources[k].clone();
                }
            }
        }
    }

    /// The steps with outputs, each as one tuple over positional inputs.
    fn finish(self) -> Result<BTreeMap<(usize, StepKind), Step>> {
        let tuple = crate::operator::lookup_or_error("kd.tuples.tuple")?;
        let mut out = BTreeMap::new();
        for ((level, kind), build) in self.steps {
            if build.outputs.is_empty() {
                continue;
            }
            let renamed: HashMap<String, Expr> =
                build.imports.iter().enumerate().map(|(i, (n, _))| (n.clone(), Expr::input(&crate::builtins::fused::input_name(i)))).collect();
            let parts = build.outputs.iter().map(|(_, e)| crate::transform::substitute_inputs(e, &renamed)).collect();
            let expr = Expr::call(&tuple, parts, Vec::new())?;
            out.insert(
                (level, kind),
                Step {
                    kind,
                    level,
                    imports: build.imports.into_iter().map(|(_, i)| i).collect(),
                    outputs: build.outputs.iter().map(|(n, _)| n.clone()).collect(),
                    expr,
                    shown: build.outputs,
                },
            );
        }
        Ok(out)
    }
}
