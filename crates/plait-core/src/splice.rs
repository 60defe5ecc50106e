//! Splicing the rows of a jagged column: each row keeps its items before
//! and after a cut, with new items in between. Every in-place change of
//! many lists comes to this: `l[i] = v` cuts one item and puts one in,
//! `l.append(v)` cuts nothing at the end, `del l[a:b]` puts nothing in.
//!
//! Fixed-width values and text are copied a run at a time (short runs in
//! blocks, with no `memcpy` call each); when no row changes its length the
//! old values are copied whole and the new ones written over them. Other
//! values are gathered by index. A column of numbers or ids that nothing
//! else holds can instead be spliced where it is
//! ([`SliceData::splice_rows_in_place`]): items move within its buffer,
//! and only the rows' new items are written.

use std::ops::Range;

use arrow_buffer::{ArrowNativeType, BooleanBufferBuilder, NullBuffer};

use crate::alloc::fill_runs;
use crate::column::{Column, FixedVec, SliceData, Values, VarBinary, VarBinaryBuilder};
use crate::error::{Error, Result};
use crate::shape::Edge;

/// How one row is spliced: its items at `cut` (positions within the row)
/// give way to the items `new` of the new items.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Splice {
    pub cut: Range<usize>,
    pub new: Range<usize>,
}

/// The splices of the rows of a column under one edge, one per row in
/// order, and how they change the rows' sizes, worked out as each is added
/// (the splice itself then reads them once more, not twice).
#[derive(Clone, Debug)]
pub struct Splices {
    /// The rows spliced (only an equal edge is spliced with these).
    edge: Edge,
    rows: Vec<Splice>,
    /// Some row grows; some row shrinks.
    grows: bool,
    shrinks: bool,
    /// Items of the rows before, and after.
    old_total: usize,
    total: usize,
    /// Of the items after, items from the new items; the end of the new
    /// items read (`None` once some were moved: found again when needed).
    new_items: usize,
    new_end: Option<usize>,
    /// The split points after (empty until the first row is added).
    points: Vec<i64>,
}

impl Splices {
    /// No splices yet of the rows of `edge`.
    pub fn of_rows_of(edge: &Edge) -> Splices {
        let rows = edge.parent_size();
        let mut points = Vec::with_capacity(rows + 1);
        points.push(0);
        Splices {
            edge: edge.clone(),
            rows: Vec::with_capacity(rows),
            grows: false,
            shrinks: false,
            old_total: 0,
            total: 0,
            new_items: 0,
            new_end: Some(0),
            points,
        }
    }

    /// The splices `rows` of the rows of `edge`.
    pub fn of_rows(edge: &Edge, rows: Vec<Splice>) -> Result<Splices> {
        if rows.len() != edge.parent_size() {
            return Err(Error::internal(format!("{} splices for {} rows", rows.len(), edge.parent_size())));
        }
        let mut splices = Splices::of_rows_of(edge);
        for (r, s) in rows.into_iter().enumerate() {
            splices.push(edge.size_of(r), s)?;
        }
        Ok(splices)
    }

    /// Adds the splice of the next row, which has `n` items (the caller
    /// read them from the edge these are for; its cut must be in the row).
    #[inline(always)]
    pub fn push(&mut self, n: usize, s: Splice) -> Result<()> {
        let r = self.rows.len();
        debug_assert!(r < self.edge.parent_size() && n == self.edge.size_of(r), "row {r} of {} items", n);
        if r >= self.edge.parent_size() {
            return Err(Error::internal(format!("a splice of row {r}, past the {} rows", self.edge.parent_size())));
        }
        if s.cut.start > s.cut.end || s.cut.end > n || s.new.start > s.new.end {
            return Err(out_of_row(&s, r, n));
        }
        self.grows |= s.new.len() > s.cut.len();
        self.shrinks |= s.new.len() < s.cut.len();
        self.old_total += n;
        self.total += n - s.cut.len() + s.new.len();
        self.new_items += s.new.len();
        self.new_end = self.new_end.map(|end| end.max(s.new.end));
        self.points.push(self.total as i64);
        self.rows.push(s);
        Ok(())
    }

    /// Moves the new items of row `r` to start at `start` (as many as
    /// before).
    pub fn place_new(&mut self, r: usize, start: usize) {
        let s = &mut self.rows[r];
        s.new = start..start + s.new.len();
        self.new_end = None;
    }

    /// The splice of each row.
    pub fn rows(&self) -> &[Splice] {
        &self.rows
    }

    /// Whether some row changes (items cut or new items put in).
    pub fn changes_some_row(&self) -> bool {
        self.total != self.old_total || self.new_items > 0
    }

    /// No row changes its length.
    fn same_sizes(&self) -> bool {
        !self.grows && !self.shrinks
    }

    /// Checks that these are the splices of every row of `edge` (the edge
    /// they were made for: the same buffer, or equal), with new items
    /// among `new_len`.
    fn check(&self, edge: &Edge, new_len: usize) -> Result<()> {
        let new_end = self.new_end.unwrap_or_else(|| self.rows.iter().map(|s| s.new.end).max().unwrap_or(0));
        if self.rows.len() != edge.parent_size() || *edge != self.edge || self.old_total != edge.child_size() || new_end > new_len {
            return Err(Error::internal(format!(
                "{} splices of {} items (new items up to {}) for {} rows of {} items ({new_len} new items)",
                self.rows.len(),
                self.old_total,
                new_end,
                edge.parent_size(),
                edge.child_size()
            )));
        }
        Ok(())
    }

    /// The edge of the result (the split points taken: called once).
    fn take_edge(&mut self, edge: &Edge) -> Result<Edge> {
        if self.same_sizes() {
            return Ok(edge.clone());
        }
        Edge::from_split_points(std::mem::take(&mut self.points))
    }
}

#[cold]
fn out_of_row(s: &Splice, r: usize, n: usize) -> Error {
    Error::internal(format!("splice {s:?} out of row {r} ({n} items)"))
}

impl SliceData {
    /// The rows of `self` under `edge`, each spliced as `splices` (one per
    /// row) says, with items of `new`; and the edge of the result.
    pub fn splice_rows(&self, edge: &Edge, new: &SliceData, mut splices: Splices) -> Result<(Edge, SliceData)> {
        splices.check(edge, new.len())?;
        let out_edge = splices.take_edge(edge)?;
        let layout = Layout { edge, splices: &splices.rows, same_sizes: splices.same_sizes(), len: splices.total, new_items: splices.new_items };
        let mut columns = Vec::with_capacity(self.columns().len() + new.columns().len());
        let theirs_only = new.columns().iter().filter(|b| !self.columns().iter().any(|a| a.values.dtype() == b.values.dtype()));
        for (a, b) in self
            .columns()
            .iter()
            .map(|a| (Some(a), new.columns().iter().find(|b| b.values.dtype() == a.values.dtype())))
            .chain(theirs_only.map(|b| (None, Some(b))))
        {
            match splice_column(a, b, &layout) {
                Some(column) => columns.push(column),
                // Values with no run copy: everything gathered by index.
                None => return Ok((out_edge, self.take_pair(new, &layout.indices(self.len())))),
            }
        }
        Ok((out_edge, SliceData::from_columns(splices.total, columns)))
    }

    /// [`SliceData::splice_rows`] in `self`'s own buffer, moving items
    /// within it (no new buffer, no copy of the rows left as they are):
    /// when the buffer can be taken over ([`SliceData::into_fixed`]),
    /// `new` has every item present and of the same type (or has none),
    /// and no row shrinks while another grows. Otherwise `self` and the
    /// splices back (boxed), unchanged.
    pub fn splice_rows_in_place(
        self,
        edge: &Edge,
        new: &SliceData,
        mut splices: Splices,
    ) -> std::result::Result<(Edge, SliceData), Box<(SliceData, Splices)>> {
        if splices.check(edge, new.len()).is_err() || (splices.grows && splices.shrinks) {
            return Err(Box::new((self, splices)));
        }
        let new_values = match new.columns() {
            [] if splices.new_items == 0 => None,
            [c] if c.presence.is_none() => Some(&c.values),
            _ => return Err(Box::new((self, splices))),
        };
        let values = match self.into_fixed() {
            Ok(values) => values,
            Err(this) => return Err(Box::new((this, splices))),
        };
        macro_rules! splice {
            ($variant:ident, $v:ident) => {{
                let new: &[_] = match new_values {
                    None => &[],
                    Some(Values::$variant(x)) => x.as_ref(),
                    Some(_) => return Err(Box::new((SliceData::from(FixedVec::$variant($v)), splices))),
                };
                let mut $v = $v;
                splice_vec(&mut $v, edge, new, &splices);
                FixedVec::$variant($v)
            }};
        }
        let spliced = match values {
            FixedVec::Int32(v) => splice!(Int32, v),
            FixedVec::Int64(v) => splice!(Int64, v),
            FixedVec::Float32(v) => splice!(Float32, v),
            FixedVec::Float64(v) => splice!(Float64, v),
            FixedVec::ItemId(v) => splice!(ItemId, v),
        };
        let out_edge = splices.take_edge(edge).expect("split points of rows spliced are valid");
        Ok((out_edge, SliceData::from(spliced)))
    }
}

/// Splices the rows of `v` in place (see [`SliceData::splice_rows_in_place`]:
/// no row grows while another shrinks). When rows shrink, the items kept
/// between two cuts (across rows) move left as one run, first row first;
/// when they grow, right, last row first, in the vector grown to its new
/// length. Either way an item is moved only after every item written over
/// it was moved: new items never land on kept items not yet moved.
fn splice_vec<T: Copy + Default>(v: &mut Vec<T>, edge: &Edge, new: &[T], splices: &Splices) {
    let rows = splices.rows();
    if splices.same_sizes() {
        for (r, s) in rows.iter().enumerate() {
            if !s.new.is_empty() {
                let at = edge.start_of(r) + s.cut.start;
                v[at..at + s.new.len()].copy_from_slice(&new[s.new.clone()]);
            }
        }
    } else if splices.shrinks {
        // Items kept between two cuts (across rows) move as one run:
        // `kept` (where they are), going at `w`.
        let (mut kept, mut w) = (0..0, 0);
        for (r, s) in rows.iter().enumerate() {
            let row = edge.child_range(r);
            if s.cut.is_empty() && s.new.is_empty() {
                kept.end = row.end;
                continue;
            }
            kept.end = row.start + s.cut.start;
            move_left(v, kept.clone(), w);
            w += kept.len();
            v[w..w + s.new.len()].copy_from_slice(&new[s.new.clone()]);
            w += s.new.len();
            kept = row.start + s.cut.end..row.end;
        }
        move_left(v, kept.clone(), w);
        v.truncate(w + kept.len());
    } else {
        // As above, last row first: `kept` goes to end at `w`.
        let old_len = v.len();
        v.resize(splices.total, T::default());
        let (mut kept, mut w) = (old_len..old_len, splices.total);
        for (r, s) in rows.iter().enumerate().rev() {
            let row = edge.child_range(r);
            if s.cut.is_empty() && s.new.is_empty() {
                kept.start = row.start;
                continue;
            }
            kept.start = row.start + s.cut.end;
            w -= kept.len();
            move_right(v, kept.clone(), w);
            w -= s.new.len();
            v[w..w + s.new.len()].copy_from_slice(&new[s.new.clone()]);
            kept = row.start..row.start + s.cut.start;
        }
        move_right(v, kept.clone(), w - kept.len());
    }
}

/// Runs up to this long are moved in blocks of [`MOVE_BLOCK`] items when
/// they can be (rows of a few items, the usual ones, then cost no
/// `memmove` call each).
const SHORT_MOVE: usize = 32;
const MOVE_BLOCK: usize = 8;

/// Moves `v[from]` to `to`, no later than `from.start` (overlap allowed).
/// Only items from `to + from.len()` on may be written over beyond the
/// run, and only when they are items of the run (already read).
#[inline(always)]
fn move_left<T: Copy>(v: &mut [T], from: Range<usize>, to: usize) {
    let shift = from.start - to;
    if shift == 0 {
        return;
    }
    let blocks = from.len().next_multiple_of(MOVE_BLOCK);
    // The last block's extra items land on items of the run moved away
    // (`blocks - len <= shift`), and are read inside `v`.
    if from.len() <= SHORT_MOVE && blocks - from.len() <= shift && from.start + blocks <= v.len() {
        for k in (0..blocks).step_by(MOVE_BLOCK) {
            v.copy_within(from.start + k..from.start + k + MOVE_BLOCK, to + k);
        }
    } else {
        v.copy_within(from, to);
    }
}

/// Moves `v[from]` to `to`, no earlier than `from.start` (overlap allowed).
/// Only items below `to` may be written over beyond the run, and only when
/// they are items of the run (already read).
#[inline(always)]
fn move_right<T: Copy>(v: &mut [T], from: Range<usize>, to: usize) {
    let shift = to - from.start;
    if shift == 0 {
        return;
    }
    let blocks = from.len().next_multiple_of(MOVE_BLOCK);
    if from.len() <= SHORT_MOVE && blocks - from.len() <= shift && blocks <= from.end {
        // Last block first, each ending where the run ends.
        for k in (0..blocks).step_by(MOVE_BLOCK) {
            let end = from.end - k;
            v.copy_within(end - MOVE_BLOCK..end, to + from.len() - k - MOVE_BLOCK);
        }
    } else {
        v.copy_within(from, to);
    }
}

/// Where the items of a splice come from.
struct Layout<'a> {
    edge: &'a Edge,
    splices: &'a [Splice],
    /// No row changes its length (the result's rows are the old rows).
    same_sizes: bool,
    /// Items of the result.
    len: usize,
    /// Of them, items from the new items.
    new_items: usize,
}

impl Layout<'_> {
    /// Calls `f(from_new, range)` for the runs of the result in order: a
    /// range of the old items (`false`) or of the new ones (`true`).
    fn for_each_run(&self, mut f: impl FnMut(bool, Range<usize>)) {
        // Old items kept between two cuts (across rows) are one run.
        let mut kept = 0..0;
        for (r, s) in self.splices.iter().enumerate() {
            let row = self.edge.child_range(r);
            if s.cut.is_empty() && s.new.is_empty() {
                kept.end = row.end;
                continue;
            }
            kept.end = row.start + s.cut.start;
            f(false, kept);
            f(true, s.new.clone());
            kept = row.start + s.cut.end..row.end;
        }
        f(false, kept);
    }

    /// With the same sizes: calls `f(at, range)` for each row's new items
    /// `range`, which go at `at` of the result (and of the old items).
    fn for_each_new(&self, mut f: impl FnMut(usize, Range<usize>)) {
        for (r, s) in self.splices.iter().enumerate() {
            if !s.new.is_empty() {
                f(self.edge.start_of(r) + s.cut.start, s.new.clone());
            }
        }
    }

    /// The result as indices into the old items followed by the new ones.
    fn indices(&self, old_len: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.len);
        self.for_each_run(|from_new, r| if from_new { out.extend(r.start + old_len..r.end + old_len) } else { out.extend(r) });
        out
    }
}

/// The column of one type of the result, from the old items' column `a`
/// and the new items' column `b` of that type (at least one present);
/// `None` for values spliced only by index.
fn splice_column(a: Option<&Column>, b: Option<&Column>, layout: &Layout<'_>) -> Option<Column> {
    let values = match &a.or(b)?.values {
        Values::Int32(_) => Values::Int32(fixed(a, b, layout, |v| if let Values::Int32(x) = v { Some(&x[..]) } else { None }).into()),
        Values::Int64(_) => Values::Int64(fixed(a, b, layout, |v| if let Values::Int64(x) = v { Some(&x[..]) } else { None }).into()),
        Values::Float32(_) => Values::Float32(fixed(a, b, layout, |v| if let Values::Float32(x) = v { Some(&x[..]) } else { None }).into()),
        Values::Float64(_) => Values::Float64(fixed(a, b, layout, |v| if let Values::Float64(x) = v { Some(&x[..]) } else { None }).into()),
        Values::ItemId(_) => Values::ItemId(fixed(a, b, layout, |v| if let Values::ItemId(x) = v { Some(&x.bits()[..]) } else { None }).into()),
        Values::Bytes(_) => Values::Bytes(text(a, b, layout, |v| if let Values::Bytes(x) = v { Some(x) } else { None })),
        Values::String(_) => Values::String(text(a, b, layout, |v| if let Values::String(x) = v { Some(x) } else { None })),
        Values::Boolean(_) | Values::Mask(_) | Values::Schema(_) | Values::Expr(_) => return None,
    };
    Some(Column::new(values, presence(a, b, layout)))
}

/// The values of a fixed-width type (`get` reads them from a column; a
/// side without a column gives fillers, its items being missing).
fn fixed<T: ArrowNativeType>(a: Option<&Column>, b: Option<&Column>, layout: &Layout<'_>, get: impl Fn(&Values) -> Option<&[T]>) -> Vec<T> {
    let (a, b) = (a.and_then(|c| get(&c.values)), b.and_then(|c| get(&c.values)));
    if let (true, Some(a)) = (layout.same_sizes, a) {
        let mut out = crate::alloc::output_vec(a.len());
        out.extend_from_slice(a);
        layout.for_each_new(|at, new| match b {
            Some(b) => out[at..at + new.len()].iter_mut().zip(&b[new]).for_each(|(o, &v)| *o = v),
            None => out[at..at + new.len()].fill(T::default()),
        });
        return out;
    }
    fill_runs(layout.len, |out| {
        layout.for_each_run(|from_new, range| match if from_new { b } else { a } {
            Some(source) => out.copy(source, range),
            None => out.write(T::default(), range.len()),
        })
    })
}

/// Text values (`get` reads them from a column; a side without a column
/// gives empty values, its items being missing).
fn text(a: Option<&Column>, b: Option<&Column>, layout: &Layout<'_>, get: impl Fn(&Values) -> Option<&VarBinary>) -> VarBinary {
    let (a, b) = (a.and_then(|c| get(&c.values)), b.and_then(|c| get(&c.values)));
    let bytes = a.map_or(0, |v| v.data.len()) + b.map_or(0, |v| v.data.len());
    let mut out = VarBinaryBuilder::with_capacities(layout.len, bytes);
    layout.for_each_run(|from_new, range| match if from_new { b } else { a } {
        Some(source) => out.push_range(source, range),
        None => range.for_each(|_| out.end_value()),
    });
    out.finish()
}

/// The presence of the result's column from `a` and `b` (`None`: every
/// item present).
fn presence(a: Option<&Column>, b: Option<&Column>, layout: &Layout<'_>) -> Option<NullBuffer> {
    // A side whose items are read is all there, or no item of it is read.
    let whole = |c: Option<&Column>, read: bool| !read || c.is_some_and(|c| c.presence.is_none());
    if whole(a, layout.len > layout.new_items) && whole(b, layout.new_items > 0) {
        return None;
    }
    let mut bits = BooleanBufferBuilder::new(layout.len);
    let mut append = |c: Option<&Column>, range: Range<usize>| match c {
        None => bits.append_n(range.len(), false),
        Some(Column { presence: None, .. }) => bits.append_n(range.len(), true),
        Some(Column { presence: Some(p), .. }) => {
            let p = p.inner();
            bits.append_packed_range(p.offset() + range.start..p.offset() + range.end, p.values())
        }
    };
    if layout.same_sizes && a.is_some() {
        append(a, 0..layout.len);
        layout.for_each_new(|at, new| {
            for (k, j) in new.enumerate() {
                bits.set_bit(at + k, b.is_some_and(|b| b.is_present(j)));
            }
        });
    } else {
        layout.for_each_run(|from_new, range| append(if from_new { b } else { a }, range));
    }
    Some(NullBuffer::new(bits.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ScalarRef;
    use crate::column::tests::built;

    fn items(d: &SliceData) -> Vec<Option<String>> {
        (0..d.len()).map(|i| d.get(i).map(|v| format!("{v:?}"))).collect()
    }

    fn of(edge: &Edge, rows: &[Splice]) -> Splices {
        Splices::of_rows(edge, rows.to_vec()).unwrap()
    }

    /// The splice done item by item.
    fn expected(old: &SliceData, edge: &Edge, new: &SliceData, splices: &[Splice]) -> (Vec<i64>, Vec<Option<String>>) {
        let (old, new) = (items(old), items(new));
        let mut sizes = Vec::new();
        let mut out = Vec::new();
        for (r, s) in splices.iter().enumerate() {
            let row = &old[edge.child_range(r)];
            let spliced: Vec<_> = row[..s.cut.start].iter().chain(&new[s.new.clone()]).chain(&row[s.cut.end..]).cloned().collect();
            sizes.push(spliced.len() as i64);
            out.extend(spliced);
        }
        (sizes, out)
    }

    #[test]
    fn splices_equal_the_rows_spliced_item_by_item() {
        let ints = |v: &[Option<i64>]| built(&v.iter().map(|v| v.map(ScalarRef::Int64)).collect::<Vec<_>>());
        let text = |v: &[Option<&'static str>]| built(&v.iter().map(|v| v.map(ScalarRef::String)).collect::<Vec<_>>());
        let edge = Edge::from_sizes(&[3, 0, 12]).unwrap();
        let olds = [
            ints(&(0..15).map(Some).collect::<Vec<_>>()),
            ints(&(0..15).map(|v| (v % 4 != 1).then_some(v)).collect::<Vec<_>>()),
            text(&(0..15).map(|v| (v % 3 != 0).then_some(["a", "bc", ""][v % 3])).collect::<Vec<_>>()),
            built(&(0..15).map(|v| Some(if v % 2 == 0 { ScalarRef::Int64(v as i64) } else { ScalarRef::Boolean(true) })).collect::<Vec<_>>()),
            SliceData::missing(15),
        ];
        let news = [ints(&[Some(7), Some(8), None]), text(&[Some("x"), None, Some("yz")]), SliceData::missing(3), SliceData::missing(0)];
        let splice_sets = [
            // One item set in each row that has one (sizes kept).
            vec![Splice { cut: 1..2, new: 0..1 }, Splice::default(), Splice { cut: 11..12, new: 2..3 }],
            // An append, a range replaced by more items, a deletion.
            vec![Splice { cut: 3..3, new: 0..1 }, Splice { cut: 0..0, new: 1..3 }, Splice { cut: 2..9, new: 0..0 }],
            vec![Splice { cut: 0..3, new: 0..0 }, Splice::default(), Splice { cut: 0..12, new: 0..0 }],
        ];
        for old in &olds {
            for new in &news {
                for splices in &splice_sets {
                    if splices.iter().any(|s| s.new.end > new.len()) {
                        continue;
                    }
                    let (got_edge, got) = old.splice_rows(&edge, new, of(&edge, splices)).unwrap();
                    let (sizes, want) = expected(old, &edge, new, splices);
                    assert_eq!((got_edge.sizes(), items(&got)), (sizes, want), "{old:?} {new:?} {splices:?}");
                }
            }
        }
    }

    #[test]
    fn splices_in_place_equal_the_copying_ones() {
        let ints = |v: &[i64]| SliceData::from(FixedVec::Int64(v.to_vec()));
        let edge = Edge::from_sizes(&[3, 0, 4, 2]).unwrap();
        let new = ints(&[7, 8, 9]);
        let splice_sets = [
            // Sizes kept; rows growing only; rows shrinking only.
            vec![Splice { cut: 1..2, new: 0..1 }, Splice::default(), Splice { cut: 0..2, new: 1..3 }, Splice::default()],
            vec![Splice { cut: 3..3, new: 0..1 }, Splice { cut: 0..0, new: 1..3 }, Splice { cut: 1..2, new: 0..2 }, Splice { cut: 0..0, new: 2..2 }],
            vec![Splice { cut: 0..3, new: 0..0 }, Splice::default(), Splice { cut: 1..3, new: 2..3 }, Splice { cut: 1..2, new: 0..0 }],
        ];
        for splices in &splice_sets {
            let old = ints(&(0..9).collect::<Vec<_>>());
            let (want_edge, want) = old.splice_rows(&edge, &new, of(&edge, splices)).unwrap();
            let (got_edge, got) = old.splice_rows_in_place(&edge, &new, of(&edge, splices)).expect("an unshared column of numbers");
            assert_eq!((got_edge.sizes(), items(&got)), (want_edge.sizes(), items(&want)), "{splices:?}");
        }
        // Rows growing and rows shrinking at once, new items of another
        // type, or a buffer held elsewhere: left as they were.
        let mixed = [Splice { cut: 0..0, new: 0..1 }, Splice::default(), Splice { cut: 0..1, new: 0..0 }, Splice::default()];
        assert!(ints(&(0..9).collect::<Vec<_>>()).splice_rows_in_place(&edge, &new, of(&edge, &mixed)).is_err());
        let text = built(&[Some(ScalarRef::String("a"))]);
        assert!(
            ints(&(0..9).collect::<Vec<_>>())
                .splice_rows_in_place(
                    &edge,
                    &text,
                    of(&edge, &splice_sets[0][..1].iter().cloned().chain(vec![Splice::default(); 3]).collect::<Vec<_>>())
                )
                .is_err()
        );
        let old = ints(&(0..9).collect::<Vec<_>>());
        let view = old.clone();
        let (kept, _) = *old.splice_rows_in_place(&edge, &new, of(&edge, &splice_sets[0])).expect_err("shared");
        assert_eq!(items(&kept), items(&view));
    }

    #[test]
    fn random_splices_equal_the_rows_spliced_item_by_item() {
        // A small linear congruential generator: the same cases every run.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize % n.max(1)
        };
        for case in 0..400 {
            let sizes: Vec<i64> = (0..1 + next(30)).map(|_| next(25) as i64).collect();
            let edge = Edge::from_sizes(&sizes).unwrap();
            let old_len = edge.child_size();
            let new = SliceData::from(FixedVec::Int64((0..40).map(|v| 1000 + v).collect()));
            // 0: any; 1: rows only grow; 2: only shrink; 3: keep their sizes.
            let kind = case % 4;
            let splices: Vec<Splice> = sizes
                .iter()
                .map(|&n| {
                    let n = n as usize;
                    let lo = next(n + 1);
                    let hi = lo + next(n - lo + 1);
                    let len = match kind {
                        1 => (hi - lo) + next(4),
                        2 => next(hi - lo + 1),
                        3 => hi - lo,
                        _ => next(5),
                    };
                    let start = next(40 - len.min(40));
                    Splice { cut: lo..hi, new: start..start + len.min(40 - start) }
                })
                .map(|s| if kind == 3 && s.new.len() != s.cut.len() { Splice { cut: s.cut.start..s.cut.start + s.new.len(), ..s } } else { s })
                .collect();
            if splices.iter().zip(&sizes).any(|(s, &n)| s.cut.end > n as usize) {
                continue;
            }
            let old = SliceData::from(FixedVec::Int64((0..old_len as i64).collect()));
            let want = expected(&old, &edge, &new, &splices);
            let (edge_copied, copied) = old.splice_rows(&edge, &new, of(&edge, &splices)).unwrap();
            assert_eq!((edge_copied.sizes(), items(&copied)), want.clone(), "{case}: {splices:?}");
            match old.splice_rows_in_place(&edge, &new, of(&edge, &splices)) {
                Ok((e, moved)) => assert_eq!((e.sizes(), items(&moved)), want, "{case} in place: {splices:?}"),
                // (No old items: no column to take over.)
                Err(_) => assert!(kind == 0 || old_len == 0, "{case}: growing only, shrinking only or keeping sizes is done in place"),
            }
        }
    }

    #[test]
    fn splices_out_of_their_rows_are_refused() {
        let old = built(&[Some(ScalarRef::Int32(1))]);
        let edge = Edge::from_sizes(&[1]).unwrap();
        assert!(Splices::of_rows(&edge, vec![Splice { cut: 0..2, new: 0..0 }]).is_err());
        assert!(old.splice_rows(&edge, &old, of(&edge, &[Splice { cut: 0..0, new: 0..2 }])).is_err());
        assert!(Splices::of_rows(&edge, vec![]).is_err());
        let two_rows_edge = Edge::from_sizes(&[1, 0]).unwrap();
        let mut two_rows = Splices::of_rows_of(&two_rows_edge);
        two_rows.push(1, Splice::default()).unwrap();
        two_rows.push(0, Splice::default()).unwrap();
        assert!(old.splice_rows(&edge, &old, two_rows).is_err(), "made for other rows");
        let mut one_row = Splices::of_rows_of(&Edge::from_sizes(&[1]).unwrap());
        one_row.push(1, Splice { cut: 0..1, new: 0..0 }).unwrap();
        assert!(old.splice_rows(&Edge::uniform(1, 1), &old, one_row).is_ok(), "an equal edge");
    }
}
