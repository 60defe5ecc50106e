//! Encoding and decoding of the format's values (see docs/format.md):
//! schemas, shapes, columns (contiguous buffers), slices, bags (flattened:
//! attributes, lists, dicts), expressions (a node table in topological
//! order) and the values expressions hold.
//!
//! Decoding validates everything it builds from: counts against the bytes
//! left, offsets, UTF-8, node references (only to earlier nodes), operator
//! names and arities, and nesting depth.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use plait_core::bag::AttrBlock;
use plait_core::column::{VarBinary, packed_bits};
use plait_core::{Column, DataBag, DataSlice, Edge, Error, ItemId, JaggedShape, Quoted, Result, Schema, SchemaValues, SliceData, Values};
use plait_expr::extension::{self, Object, ObjectValue, QTypeValue};
use plait_expr::operator::{OperatorKind, is_variadic, lookup};
use plait_expr::value::Tuple;
use plait_expr::{Expr, ExprValue, NodeKind, packed};
use plait_ops::registry::{Param, ParamKind, Value};

use crate::wire::{Reader, Writer, corrupt};

fn unsupported(message: impl std::fmt::Display) -> Error {
    Error::value("kd.dumps", message)
}

// ------------------------------------------------------------------ schemas

const STRUCT_TAG: u8 = Schema::ALL.len() as u8;

fn put_schema(w: &mut Writer, s: Schema) {
    match s {
        Schema::Struct(id) => {
            w.u8(STRUCT_TAG);
            w.u128(id.0);
        }
        other => w.u8(Schema::ALL.iter().position(|&a| a == other).expect("every non-struct schema is listed") as u8),
    }
}

fn get_schema(r: &mut Reader<'_>) -> Result<Schema> {
    let tag = r.u8()?;
    if tag == STRUCT_TAG {
        return Ok(Schema::Struct(ItemId(r.u128()?)));
    }
    Schema::ALL.get(tag as usize).copied().ok_or_else(|| corrupt(format!("unknown schema tag {tag}")))
}

// ------------------------------------------------------------------ shapes

pub fn put_shape(w: &mut Writer, shape: &JaggedShape) {
    w.u32(shape.rank() as u32);
    for edge in shape.edges() {
        match edge.uniform_size() {
            Some(size) => {
                w.u8(0);
                w.len(edge.parent_size());
                w.len(size);
            }
            None => {
                w.u8(1);
                w.len(edge.parent_size());
                put_sizes(w, edge);
            }
        }
    }
}

/// The most items a shape may declare (uniform edges cost no bytes).
const MAX_ITEMS: u64 = 1 << 40;

/// The size of each parent of `edge`, as a varint (its count is written
/// by the caller).
fn put_sizes(w: &mut Writer, edge: &Edge) {
    for size in edge.sizes() {
        w.varint(size as u64);
    }
}

/// An edge from `n` sizes (varints; a `u64` each before version 3), each
/// at most `MAX_ITEMS` (`what` names one parent in the error: "a row", "a
/// list"). The caller has checked that `n` sizes fit in the bytes left.
fn get_sizes(r: &mut Reader<'_>, n: usize, what: &str) -> Result<Edge> {
    let mut sizes = Vec::with_capacity(n);
    for _ in 0..n {
        let s = if r.version >= 3 { r.varint()? } else { r.u64()? };
        if s > MAX_ITEMS {
            return Err(corrupt(format!("{what} of {s} items")));
        }
        sizes.push(s as i64);
    }
    Edge::from_sizes(&sizes).map_err(|e| corrupt(e.message))
}

pub fn get_shape(r: &mut Reader<'_>) -> Result<JaggedShape> {
    let rank = r.u32()? as usize;
    if rank > plait_core::limits::MAX_RANK {
        return Err(corrupt(format!("a shape of rank {rank}")));
    }
    let mut edges = Vec::with_capacity(rank);
    for _ in 0..rank {
        let edge = match r.u8()? {
            0 => {
                let (parents, size) = (r.u64()?, r.u64()?);
                if parents.checked_mul(size).is_none_or(|n| n > MAX_ITEMS) {
                    return Err(corrupt(format!("a dimension of {parents} x {size} items")));
                }
                Edge::uniform(parents as usize, size as usize)
            }
            1 => {
                let n = r.count(if r.version >= 3 { 1 } else { 8 }, "dimension sizes")?;
                get_sizes(r, n, "a row")?
            }
            tag => return Err(corrupt(format!("unknown dimension tag {tag}"))),
        };
        edges.push(edge);
    }
    JaggedShape::from_edges(edges).map_err(|e| corrupt(e.message))
}

// ------------------------------------------------------------------ columns

fn put_bits(w: &mut Writer, bits: &BooleanBuffer) {
    w.raw(&packed_bits(bits));
}

fn get_bits(r: &mut Reader<'_>, n: usize) -> Result<BooleanBuffer> {
    let bytes = r.take(n.div_ceil(8))?;
    Ok(BooleanBuffer::new(Buffer::from(bytes.to_vec()), 0, n))
}

/// How the values of a column are laid out: as in memory (slices, dense
/// blocks), or delta-coded in varints (packed blocks: many items of small
/// allocations, whose ids and numbers are mostly close to the previous ones).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Coding {
    Raw,
    Delta,
}

fn put_values(w: &mut Writer, values: &Values, ctx: &mut Encoder, coding: Coding) -> Result<()> {
    put_schema(w, values.dtype());
    w.len(values.len());
    if coding == Coding::Delta && put_delta_values(w, values) {
        return Ok(());
    }
    match values {
        Values::Int32(v) => w.planes::<4>(v.inner().as_slice()),
        Values::Int64(v) => w.planes::<8>(v.inner().as_slice()),
        Values::Float32(v) => w.planes::<4>(v.inner().as_slice()),
        Values::Float64(v) => w.planes::<8>(v.inner().as_slice()),
        Values::Boolean(v) => put_bits(w, v),
        Values::Mask(_) => {}
        Values::Bytes(v) | Values::String(v) => put_text(w, v),
        Values::Schema(v) => (0..v.len()).for_each(|i| put_schema(w, v.get(i))),
        Values::ItemId(v) => w.planes::<16>(v.bits().inner().as_slice()),
        Values::Expr(v) => {
            for q in v.iter() {
                match packed::expr_of(q) {
                    Some(e) => {
                        w.u8(1);
                        put_expr(w, &e, ctx)?;
                    }
                    None => w.u8(0),
                }
            }
        }
    }
    Ok(())
}

// The format is little-endian, and numeric columns are written from their
// bytes in memory.
#[cfg(target_endian = "big")]
compile_error!("plait-persist writes numeric columns from their bytes in memory: it needs a little-endian target");

/// Text: one varint length per value, then the data as a byte string.
fn put_text(w: &mut Writer, v: &VarBinary) {
    v.offsets.windows(2).for_each(|pair| w.varint((pair[1] - pair[0]) as u64));
    w.blob(&v.data.as_slice()[v.offsets[0] as usize..v.offsets[v.offsets.len() - 1] as usize]);
}

/// `n` text values of [`put_text`].
fn get_text(r: &mut Reader<'_>, dtype: Schema, n: usize) -> Result<Values> {
    check_fits(r, n)?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0i64);
    let mut end = 0u64;
    for _ in 0..n {
        end = end.checked_add(r.varint()?).filter(|&e| e <= MAX_ITEMS).ok_or_else(|| corrupt("text lengths overflow"))?;
        offsets.push(end as i64);
    }
    let data = r.blob()?;
    if end != data.len() as u64 {
        return Err(corrupt("text lengths do not add up to the data's length"));
    }
    text_values(dtype, offsets, data)
}

/// `n` text values as version 1 and 2 wrote them: `n + 1` offsets (`u64`)
/// from 0, then the data as a byte string.
fn get_text_offsets(r: &mut Reader<'_>, dtype: Schema, n: usize) -> Result<Values> {
    let offsets = r.fixed::<i64, 8>(n.checked_add(1).ok_or_else(|| corrupt("a column too long"))?)?;
    let data = r.blob()?;
    if offsets.last() != Some(&(data.len() as i64)) {
        return Err(corrupt("text offsets do not end at the data's end"));
    }
    text_values(dtype, offsets, data)
}

fn text_values(dtype: Schema, offsets: impl Into<ScalarBuffer<i64>>, data: &[u8]) -> Result<Values> {
    let binary = VarBinary::checked(offsets.into(), Buffer::from(data.to_vec()), dtype == Schema::String).map_err(corrupt)?;
    Ok(if dtype == Schema::String { Values::String(binary) } else { Values::Bytes(binary) })
}

/// A column of `n` values (`n` is the slice's item count, read and
/// checked by the caller).
fn get_values(r: &mut Reader<'_>, ctx: &mut Decoder, n: usize, coding: Coding) -> Result<Values> {
    let dtype = get_schema(r)?;
    let declared = r.u64()?;
    if declared != n as u64 {
        return Err(corrupt(format!("a column of {declared} values in a slice of {n} items")));
    }
    if coding == Coding::Delta {
        if let Some(values) = get_delta_values(r, dtype, n)? {
            return Ok(values);
        }
    }
    Ok(match dtype {
        Schema::Int32 => Values::Int32(r.fixed::<i32, 4>(n)?),
        Schema::Int64 => Values::Int64(r.fixed::<i64, 8>(n)?),
        Schema::Float32 => Values::Float32(r.fixed::<f32, 4>(n)?),
        Schema::Float64 => Values::Float64(r.fixed::<f64, 8>(n)?),
        Schema::Boolean => Values::Boolean(get_bits(r, n)?),
        Schema::Mask => Values::Mask(n),
        Schema::Bytes | Schema::String if r.version >= 3 => get_text(r, dtype, n)?,
        Schema::Bytes | Schema::String => get_text_offsets(r, dtype, n)?,
        Schema::Schema => {
            let schemas = (0..n).map(|_| get_schema(r)).collect::<Result<Vec<_>>>()?;
            Values::Schema(SchemaValues::from(schemas))
        }
        Schema::ItemId => Values::ItemId(r.fixed::<i128, 16>(n)?.into()),
        Schema::Expr => {
            let mut quoted: Vec<Quoted> = Vec::with_capacity(n);
            for _ in 0..n {
                quoted.push(match r.u8()? {
                    0 => plait_core::quoted::filler(),
                    1 => packed::quote(&get_expr(r, ctx)?),
                    tag => return Err(corrupt(format!("unknown EXPR slot tag {tag}"))),
                });
            }
            Values::Expr(quoted.into())
        }
        other => return Err(corrupt(format!("no column holds values of type {other}"))),
    })
}

// ------------------------------------------------------------------ delta coding

/// Ids written as the difference from the previous id of the same column:
/// the high half (kind and allocation) as a zigzag varint, then the low
/// half (the offset) as a zigzag varint of its difference when the high
/// half is unchanged, else as a varint. Consecutive allocations (objects
/// made one by one) take two bytes an id.
#[derive(Default)]
struct IdDeltas {
    prev: u128,
}

impl IdDeltas {
    fn put(&mut self, w: &mut Writer, id: u128) {
        let (high, low) = ((id >> 64) as u64, id as u64);
        let (prev_high, prev_low) = ((self.prev >> 64) as u64, self.prev as u64);
        let high_delta = high.wrapping_sub(prev_high) as i64;
        w.zigzag(high_delta);
        if high_delta == 0 {
            w.zigzag(low.wrapping_sub(prev_low) as i64);
        } else {
            w.varint(low);
        }
        self.prev = id;
    }

    fn get(&mut self, r: &mut Reader<'_>) -> Result<u128> {
        let (prev_high, prev_low) = ((self.prev >> 64) as u64, self.prev as u64);
        let high_delta = r.zigzag()?;
        let high = prev_high.wrapping_add(high_delta as u64);
        let low = if high_delta == 0 { prev_low.wrapping_add(r.zigzag()? as u64) } else { r.varint()? };
        self.prev = ((high as u128) << 64) | low as u128;
        Ok(self.prev)
    }
}

/// The delta-coded payload of the columns that have one (integers as
/// zigzag varints of their differences, ids and struct schemas as
/// [`IdDeltas`], text as varint lengths and the bytes); false for the
/// others, which are written as in memory.
fn put_delta_values(w: &mut Writer, values: &Values) -> bool {
    match values {
        Values::Int32(v) => put_int_deltas(w, v.iter().map(|&x| i64::from(x))),
        Values::Int64(v) => put_int_deltas(w, v.iter().copied()),
        Values::ItemId(v) => {
            let mut deltas = IdDeltas::default();
            v.bits().iter().for_each(|&id| deltas.put(w, id as u128));
        }
        Values::Schema(v) => {
            let mut deltas = IdDeltas::default();
            for i in 0..v.len() {
                match v.get(i) {
                    Schema::Struct(id) => {
                        w.u8(STRUCT_TAG);
                        deltas.put(w, id.0);
                    }
                    other => put_schema(w, other),
                }
            }
        }
        Values::Bytes(v) | Values::String(v) => put_text(w, v),
        _ => return false,
    }
    true
}

fn put_int_deltas(w: &mut Writer, values: impl Iterator<Item = i64>) {
    let mut prev = 0i64;
    for x in values {
        w.zigzag(x.wrapping_sub(prev));
        prev = x;
    }
}

/// `n` integers of [`put_int_deltas`] (each at least one byte: the count
/// is checked before anything is allocated).
fn get_int_deltas(r: &mut Reader<'_>, n: usize) -> Result<Vec<i64>> {
    check_fits(r, n)?;
    let mut prev = 0i64;
    (0..n)
        .map(|_| {
            prev = prev.wrapping_add(r.zigzag()?);
            Ok(prev)
        })
        .collect()
}

/// Refuses `n` elements of at least one byte each when fewer bytes are left.
fn check_fits(r: &Reader<'_>, n: usize) -> Result<()> {
    if n > r.remaining() {
        return Err(corrupt(format!("a column of {n} values in {} bytes", r.remaining())));
    }
    Ok(())
}

/// The column [`put_delta_values`] wrote, or `None` for a type written as
/// in memory.
fn get_delta_values(r: &mut Reader<'_>, dtype: Schema, n: usize) -> Result<Option<Values>> {
    Ok(Some(match dtype {
        Schema::Int32 => {
            let values = get_int_deltas(r, n)?;
            let narrow = values.into_iter().map(i32::try_from).collect::<std::result::Result<Vec<i32>, _>>();
            Values::Int32(ScalarBuffer::from(narrow.map_err(|_| corrupt("an INT32 value out of range"))?))
        }
        Schema::Int64 => Values::Int64(ScalarBuffer::from(get_int_deltas(r, n)?)),
        Schema::ItemId => {
            check_fits(r, n)?;
            let mut deltas = IdDeltas::default();
            let ids = (0..n).map(|_| deltas.get(r).map(|id| id as i128)).collect::<Result<Vec<i128>>>()?;
            Values::ItemId(ids.into())
        }
        Schema::Schema => {
            check_fits(r, n)?;
            let mut deltas = IdDeltas::default();
            let mut schemas = Vec::with_capacity(n);
            for _ in 0..n {
                schemas.push(match r.u8()? {
                    STRUCT_TAG => Schema::Struct(ItemId(deltas.get(r)?)),
                    tag => Schema::ALL.get(tag as usize).copied().ok_or_else(|| corrupt(format!("unknown schema tag {tag}")))?,
                });
            }
            Values::Schema(SchemaValues::from(schemas))
        }
        Schema::Bytes | Schema::String => get_text(r, dtype, n)?,
        _ => return Ok(None),
    }))
}

fn put_data(w: &mut Writer, data: &SliceData, ctx: &mut Encoder) -> Result<()> {
    put_data_coded(w, data, ctx, Coding::Raw)
}

fn put_data_coded(w: &mut Writer, data: &SliceData, ctx: &mut Encoder, coding: Coding) -> Result<()> {
    w.len(data.len());
    w.u8(data.columns().len() as u8);
    for column in data.columns() {
        put_values(w, &column.values, ctx, coding)?;
        match &column.presence {
            None => w.u8(0),
            Some(p) => {
                w.u8(1);
                put_bits(w, p.inner());
            }
        }
    }
    Ok(())
}

fn get_data(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<SliceData> {
    get_data_coded(r, ctx, Coding::Raw)
}

fn get_data_coded(r: &mut Reader<'_>, ctx: &mut Decoder, coding: Coding) -> Result<SliceData> {
    let len = r.count(0, "items")?;
    let n_columns = r.u8()? as usize;
    if n_columns > Schema::ALL.len() {
        return Err(corrupt(format!("{n_columns} columns in one slice")));
    }
    let mut columns = Vec::with_capacity(n_columns);
    for _ in 0..n_columns {
        let values = get_values(r, ctx, len, coding)?;
        let presence = match r.u8()? {
            0 => None,
            1 => Some(NullBuffer::new(get_bits(r, len)?)),
            tag => return Err(corrupt(format!("unknown presence tag {tag}"))),
        };
        columns.push(Column::new(values, presence));
    }
    check_columns(len, &columns)?;
    Ok(SliceData::from_columns(len, columns))
}

/// The columns of one slice hold one type each and never the same item
/// twice (an item present in two columns would be read twice).
fn check_columns(len: usize, columns: &[Column]) -> Result<()> {
    if columns.len() < 2 {
        return Ok(());
    }
    let mut dtypes: Vec<Schema> = columns.iter().map(|c| c.values.dtype()).collect();
    dtypes.sort();
    if dtypes.windows(2).any(|w| w[0] == w[1]) {
        return Err(corrupt("two columns of one slice hold the same type"));
    }
    let mut taken = BooleanBuffer::new_unset(len);
    for column in columns {
        let present = column.presence.as_ref().map_or_else(|| BooleanBuffer::new_set(len), |p| p.inner().clone());
        if (&taken & &present).count_set_bits() > 0 {
            return Err(corrupt("columns overlap: an item is present in two columns of one slice"));
        }
        taken = &taken | &present;
    }
    Ok(())
}

// ------------------------------------------------------------------ slices and bags

/// What encoding remembers: the bags already written (written once, then
/// referred to by index).
#[derive(Default)]
pub struct Encoder {
    bags: HashMap<u64, usize>,
    depth: usize,
}

/// What decoding has read: the bags, by index.
#[derive(Default)]
pub struct Decoder {
    bags: Vec<DataBag>,
}

/// About how many bytes a slice's data takes in the format (without its
/// bag): what the writer reserves before writing it.
pub fn estimated_size(x: &DataSlice) -> usize {
    let columns = x.data().columns().iter().map(|c| {
        let presence = if c.presence.is_some() { c.values.len() / 8 } else { 0 };
        let values = match &c.values {
            Values::Int32(v) => v.len() * 4,
            Values::Int64(v) => v.len() * 8,
            Values::Float32(v) => v.len() * 4,
            Values::Float64(v) => v.len() * 8,
            Values::ItemId(v) => v.len() * 16,
            Values::Bytes(v) | Values::String(v) => v.len() + v.data.len(),
            other => other.len(),
        };
        values + presence
    });
    let sizes: usize = x.shape().edges().iter().map(|e| e.parent_size()).sum();
    columns.sum::<usize>() + sizes + 1024
}

pub fn put_slice(w: &mut Writer, x: &DataSlice, ctx: &mut Encoder) -> Result<()> {
    ctx.depth += 1;
    if ctx.depth > crate::wire::MAX_DEPTH {
        return Err(unsupported(format!("values nested deeper than {} levels (a cycle through expressions?)", crate::wire::MAX_DEPTH)));
    }
    put_shape(w, x.shape());
    put_schema(w, x.schema());
    put_data(w, x.data(), ctx)?;
    put_bag_ref(w, x.bag(), ctx)?;
    ctx.depth -= 1;
    Ok(())
}

/// The bag of a slice or a bag literal: none, a new one, or one already
/// written (by index), so that a bag shared by several values is saved once.
fn put_bag_ref(w: &mut Writer, bag: Option<&DataBag>, ctx: &mut Encoder) -> Result<()> {
    match bag {
        None => w.u8(0),
        Some(bag) => match ctx.bags.get(&bag.id()) {
            Some(&index) => {
                w.u8(2);
                w.len(index);
            }
            None => {
                w.u8(1);
                put_bag(w, bag, ctx)?;
                let index = ctx.bags.len();
                ctx.bags.insert(bag.id(), index);
            }
        },
    }
    Ok(())
}

pub fn get_slice(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<DataSlice> {
    r.enter()?;
    let shape = get_shape(r)?;
    let schema = get_schema(r)?;
    let data = get_data(r, ctx)?;
    if data.len() != shape.size() {
        return Err(corrupt(format!("{} items for a shape of {}", data.len(), shape.size())));
    }
    let bag = get_bag_ref(r, ctx)?;
    r.leave();
    Ok(DataSlice::new(shape, data, schema).map_err(|e| corrupt(e.message))?.with_bag(bag))
}

fn stored_data<'a>(values: impl ExactSizeIterator<Item = Option<&'a plait_core::bag::Stored>>) -> SliceData {
    let mut builder = plait_core::column::SliceBuilder::with_capacity(values.len());
    for v in values {
        builder.push(v.map(|s| s.as_ref()));
    }
    builder.finish()
}

/// A count, then the ids (128 bits each) as byte planes.
fn put_ids(w: &mut Writer, ids: &[ItemId]) {
    w.len(ids.len());
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.0.to_le_bytes()).collect();
    w.planes::<16>(&bytes);
}

fn get_ids(r: &mut Reader<'_>) -> Result<Vec<Option<ItemId>>> {
    let n = r.count(16, "ids")?;
    Ok(r.fixed::<i128, 16>(n)?.iter().map(|&id| Some(ItemId(id as u128))).collect())
}

/// A packed block: items stored one by one (each of its own small
/// allocation, like objects made one by one), with their values, as one
/// LZ4-compressed body: the count, the ids as [`IdDeltas`], then the values
/// with delta-coded columns. Ids sorted, and values that mostly follow
/// from the previous ones (a chain's links, counters, implicit schemas),
/// take a few bits an item once compressed.
fn put_packed(w: &mut Writer, ids: &[ItemId], values: &SliceData, ctx: &mut Encoder) -> Result<()> {
    let mut body = Writer::default();
    body.varint(ids.len() as u64);
    let mut deltas = IdDeltas::default();
    ids.iter().for_each(|id| deltas.put(&mut body, id.0));
    put_data_coded(&mut body, values, ctx, Coding::Delta)?;
    w.blob(&crate::compress::lz4_compress(&body.bytes));
    Ok(())
}

/// The ids and values of a packed block ([`put_packed`]).
fn get_packed(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<(Vec<Option<ItemId>>, SliceData)> {
    let body = crate::compress::lz4_decompress(r.blob()?)?;
    let mut b = r.nested(&body);
    // Each id takes at least two bytes.
    let n = b.varint_count(2, "packed ids")?;
    let mut deltas = IdDeltas::default();
    let ids = (0..n).map(|_| deltas.get(&mut b).map(|id| Some(ItemId(id)))).collect::<Result<Vec<_>>>()?;
    let values = get_data_coded(&mut b, ctx, Coding::Delta)?;
    if values.len() != n {
        return Err(corrupt(format!("a packed block of {} values for {n} items", values.len())));
    }
    if b.remaining() != 0 {
        return Err(corrupt(format!("{} bytes left in a packed block", b.remaining())));
    }
    r.absorb(&b);
    Ok((ids, values))
}

/// What [`put_bag_ref`] wrote.
fn get_bag_ref(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<Option<DataBag>> {
    Ok(match r.u8()? {
        0 => None,
        1 => {
            let bag = get_bag(r, ctx)?;
            ctx.bags.push(bag.clone());
            Some(bag)
        }
        2 => {
            let index = r.u64()? as usize;
            Some(ctx.bags.get(index).cloned().ok_or_else(|| corrupt(format!("a reference to bag {index} before it is read")))?)
        }
        tag => return Err(corrupt(format!("unknown bag tag {tag}"))),
    })
}

/// A bag, flattened (its fallbacks merged in): attributes (block by
/// block: dense allocations as columns, sparse items with their ids),
/// lists, dicts.
pub fn put_bag(w: &mut Writer, bag: &DataBag, ctx: &mut Encoder) -> Result<()> {
    let flat = bag.merged();
    let attrs = flat.own_attr_blocks();
    w.len(attrs.len());
    for (attr, blocks) in &attrs {
        w.str(attr);
        w.len(blocks.len());
        for block in blocks {
            match block {
                AttrBlock::Dense { allocation, data, set } => {
                    w.u8(0);
                    w.u64(*allocation);
                    put_data(w, data, ctx)?;
                    match set {
                        None => w.u8(0),
                        Some(bits) => {
                            w.u8(1);
                            put_bits(w, bits);
                        }
                    }
                }
                AttrBlock::Sparse { ids, values } => {
                    w.u8(2);
                    put_packed(w, ids, values, ctx)?;
                }
            }
        }
    }
    let list_ids = flat.own_list_ids();
    let wrapped: Vec<Option<ItemId>> = list_ids.iter().copied().map(Some).collect();
    let (edge, items) = flat.explode(&wrapped)?;
    put_ids(w, &list_ids);
    put_sizes(w, &edge);
    put_data(w, &items, ctx)?;
    let entries = flat.own_dict_entries();
    let owners: Vec<ItemId> = entries.iter().map(|e| e.0).collect();
    put_ids(w, &owners);
    put_data(w, &stored_data(entries.iter().map(|e| Some(&e.1))), ctx)?;
    put_data(w, &stored_data(entries.iter().map(|e| e.2.as_ref())), ctx)?;
    Ok(())
}

/// A bag (saved on its own by `kd.dumps(bag)`, or with a slice).
pub fn get_bag(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<DataBag> {
    let bag = DataBag::new_immutable();
    let n_attrs = r.count(9, "attributes")?;
    for _ in 0..n_attrs {
        let attr = r.str()?.to_string();
        let n_blocks = r.count(1, "attribute blocks")?;
        for _ in 0..n_blocks {
            match r.u8()? {
                0 => {
                    let allocation = r.u64()?;
                    let values = get_data(r, ctx)?;
                    match r.u8()? {
                        0 => bag.fill(|w| w.set_attr_of_allocation(&attr, allocation, &values)),
                        1 => {
                            let set = get_bits(r, values.len())?;
                            let indices: Vec<usize> = set.set_indices().collect();
                            let ids: Vec<Option<ItemId>> = indices.iter().map(|&k| Some(ItemId::in_allocation(allocation, k as u64))).collect();
                            let picked = values.take(&indices);
                            bag.fill(|w| w.set_attr(&attr, &ids, &picked));
                        }
                        tag => return Err(corrupt(format!("unknown set-bitmap tag {tag}"))),
                    }
                }
                1 => {
                    let ids = get_ids(r)?;
                    let values = get_data(r, ctx)?;
                    if values.len() != ids.len() {
                        return Err(corrupt(format!("attribute '{attr}': {} values for {} items", values.len(), ids.len())));
                    }
                    bag.fill(|w| w.set_attr(&attr, &ids, &values));
                }
                2 => {
                    let (ids, values) = get_packed(r, ctx)?;
                    bag.fill(|w| w.set_attr(&attr, &ids, &values));
                }
                tag => return Err(corrupt(format!("unknown attribute block tag {tag}"))),
            }
        }
    }
    let list_ids = get_ids(r)?;
    let edge = get_sizes(r, list_ids.len(), "a list")?;
    let items = get_data(r, ctx)?;
    if items.len() != edge.child_size() {
        return Err(corrupt(format!("{} list items for lists of {} items", items.len(), edge.child_size())));
    }
    if !list_ids.is_empty() {
        bag.fill(|w| w.set_lists(&list_ids, &edge, &items));
    }
    let owners = get_ids(r)?;
    let keys = get_data(r, ctx)?;
    let values = get_data(r, ctx)?;
    if keys.len() != owners.len() || values.len() != owners.len() {
        return Err(corrupt("dict entries with keys or values missing"));
    }
    if keys.present_count() != keys.len() {
        return Err(corrupt("a dict entry without a key"));
    }
    if !owners.is_empty() {
        bag.fill(|w| w.set_dict_entries(&owners, &keys, &values));
    }
    Ok(bag)
}

// ------------------------------------------------------------------ expressions

pub fn put_expr(w: &mut Writer, expr: &Expr, ctx: &mut Encoder) -> Result<()> {
    let nodes = expr.post_order();
    let index: HashMap<u128, usize> = nodes.iter().enumerate().map(|(i, n)| (n.fingerprint(), i)).collect();
    w.len(nodes.len());
    for node in &nodes {
        match node.kind() {
            NodeKind::Input(name) => {
                w.u8(0);
                w.str(name);
            }
            NodeKind::Variable(name) => {
                w.u8(1);
                w.str(name);
            }
            NodeKind::Placeholder(name) => {
                w.u8(2);
                w.str(name);
            }
            NodeKind::Literal(value) => {
                w.u8(3);
                put_expr_value(w, value, ctx)?;
            }
            NodeKind::Op { op, args, kwarg_names } => {
                match &op.kind {
                    // A Python-function operator registered under its name
                    // (`kd.register_py_fn`) travels as that name; any other
                    // would need its Python code.
                    OperatorKind::Function { .. } if lookup(&op.name).is_none_or(|r| r.fingerprint != op.fingerprint) => {
                        return Err(unsupported(format!(
                            "cannot serialize the Python-function operator {}: Python code is not saved (no pickles)",
                            op.name
                        )));
                    }
                    // A lambda operator the registry does not know by its
                    // name travels with its signature and body.
                    OperatorKind::Lambda(body) if lookup(&op.name).is_none_or(|r| r.fingerprint != op.fingerprint) => {
                        w.u8(5);
                        w.str(&op.name);
                        put_params(w, &op.params, ctx)?;
                        put_expr(w, body, ctx)?;
                    }
                    _ => {
                        w.u8(4);
                        w.str(&op.name);
                    }
                }
                w.len(args.len());
                for arg in args {
                    w.u64(arg.as_ref().map_or(0, |a| index[&a.fingerprint()] as u64 + 1));
                }
                w.len(kwarg_names.len());
                for name in kwarg_names {
                    w.str(name);
                }
            }
        }
    }
    Ok(())
}

/// The parameters of a lambda operator: a count, then for each its name,
/// its kind (an index into `ParamKind::ALL`) and `0` required, `1`
/// unspecified or `2` and a DataSlice default.
fn put_params(w: &mut Writer, params: &[Param], ctx: &mut Encoder) -> Result<()> {
    w.len(params.len());
    for p in params {
        w.str(&p.name);
        w.u8(ParamKind::ALL.iter().position(|k| *k == p.kind).expect("a parameter kind") as u8);
        match &p.default {
            None => w.u8(0),
            Some(None) => w.u8(1),
            Some(Some(default)) => {
                w.u8(2);
                put_slice(w, default, ctx)?;
            }
        }
    }
    Ok(())
}

fn get_params(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<Vec<Param>> {
    let n = r.count(3, "parameters")?;
    (0..n)
        .map(|_| {
            let name = r.str()?.to_string();
            let kind = *ParamKind::ALL.get(r.u8()? as usize).ok_or_else(|| corrupt("an unknown parameter kind"))?;
            let default = match r.u8()? {
                0 => None,
                1 => Some(None),
                2 => Some(Some(get_slice(r, ctx)?)),
                tag => return Err(corrupt(format!("unknown parameter default tag {tag}"))),
            };
            Ok(Param { name, kind, default })
        })
        .collect()
}

pub fn put_expr_value(w: &mut Writer, value: &ExprValue, ctx: &mut Encoder) -> Result<()> {
    match value {
        ExprValue::Data(Value::Slice(x)) => {
            w.u8(0);
            put_slice(w, x, ctx)
        }
        ExprValue::Data(Value::Shape(shape)) => {
            w.u8(1);
            put_shape(w, shape);
            Ok(())
        }
        ExprValue::Tuple(t) => {
            w.u8(2);
            w.len(t.items.len());
            for item in &t.items {
                put_expr_value(w, item, ctx)?;
            }
            match &t.names {
                None => w.u8(0),
                Some(names) => {
                    w.u8(1);
                    names.iter().for_each(|n| w.str(n));
                }
            }
            Ok(())
        }
        ExprValue::Unspecified => {
            w.u8(3);
            Ok(())
        }
        ExprValue::Data(Value::Bag(bag)) => {
            w.u8(4);
            put_bag_ref(w, bag.as_ref(), ctx)
        }
        ExprValue::Data(v @ Value::Tuple(_)) => put_expr_value(w, &ExprValue::from(v.clone()), ctx),
        ExprValue::Data(Value::Range { start, stop, step }) => {
            w.u8(5);
            for bound in [start, stop, step] {
                match bound {
                    None => w.u8(0),
                    Some(b) => {
                        w.u8(1);
                        put_slice(w, b, ctx)?;
                    }
                }
            }
            Ok(())
        }
        ExprValue::Data(Value::Ellipsis) => {
            w.u8(6);
            Ok(())
        }
        ExprValue::Iterable(it) => {
            w.u8(7);
            w.u8(it.ordered as u8);
            w.str(&it.value_type);
            w.len(it.items.len());
            for item in &it.items {
                put_expr_value(w, item, ctx)?;
            }
            Ok(())
        }
        ExprValue::Foreign(f) if let Some(q) = f.as_any().downcast_ref::<QTypeValue>() => {
            w.u8(8);
            w.str(&q.0);
            Ok(())
        }
        ExprValue::Foreign(f) if let Some(o) = f.as_any().downcast_ref::<ObjectValue>() => {
            w.u8(9);
            match &o.label {
                None => w.u8(0),
                Some(ext) => {
                    w.u8(1);
                    w.str(&ext.qtype_name);
                }
            }
            // The object, then its prototypes, outermost first.
            let chain: Vec<&Object> = std::iter::successors(Some(o.object.as_ref()), |obj| obj.prototype.as_deref()).collect();
            w.len(chain.len());
            for obj in chain {
                w.len(obj.attrs.len());
                for (name, v) in &obj.attrs {
                    w.str(name);
                    put_expr_value(w, v, ctx)?;
                }
            }
            Ok(())
        }
        ExprValue::Foreign(f) if f.type_name() == "PY_OBJECT" => Err(unsupported(format!(
            "cannot serialize {} in an expression: Python objects (py_fn functors, Python-function operators) are not saved (no pickles)",
            f.repr()
        ))),
        // Streams, executors, extension values and QTypes live in one process.
        ExprValue::Foreign(f) => Err(unsupported(format!("cannot serialize {} in an expression: {} values are not saved", f.repr(), f.type_name()))),
    }
}

pub fn get_expr(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<Expr> {
    r.enter()?;
    let n = r.count(1, "expression nodes")?;
    if n == 0 {
        return Err(corrupt("an expression without nodes"));
    }
    let mut nodes: Vec<Expr> = Vec::with_capacity(n);
    for _ in 0..n {
        let node = match r.u8()? {
            0 => Expr::input(r.str()?),
            1 => Expr::variable(r.str()?),
            2 => Expr::placeholder(r.str()?),
            3 => Expr::literal(get_expr_value(r, ctx)?),
            tag @ (4 | 5) => {
                let name = r.str()?;
                let op = if tag == 4 {
                    lookup(name).ok_or_else(|| {
                        Error::value(
                            "kd.loads",
                            format!(
                                "unknown operator {name}: it is not registered in this process \
                                 (a function made by kd.register_py_fn must be registered before loading)"
                            ),
                        )
                    })?
                } else {
                    let params = get_params(r, ctx)?;
                    let body = get_expr(r, ctx)?;
                    plait_expr::operator::Operator::lambda(name, params, "", body).map_err(|e| corrupt(e.message))?
                };
                let n_args = r.count(8, "arguments")?;
                let mut args = Vec::with_capacity(n_args);
                for _ in 0..n_args {
                    let k = r.u64()? as usize;
                    args.push(match k {
                        0 => None,
                        k => Some(nodes.get(k - 1).cloned().ok_or_else(|| corrupt("an argument that is not an earlier node"))?),
                    });
                }
                let n_kw = r.count(8, "keyword names")?;
                let kwarg_names: Vec<Arc<str>> = (0..n_kw).map(|_| r.str().map(Arc::from)).collect::<Result<_>>()?;
                // The layout of the node must fit the operator's signature.
                let fixed = op.fixed_params();
                let n_var = n_args.checked_sub(fixed + n_kw).ok_or_else(|| corrupt(format!("too few arguments for {name}")))?;
                let has = |kind| op.params.iter().any(|p| is_variadic(p) && p.kind == kind);
                if (n_var > 0 && !has(ParamKind::VarPositional)) || (n_kw > 0 && !has(ParamKind::VarKeyword)) {
                    return Err(corrupt(format!("arguments that {name} does not take")));
                }
                let fixed_params = op.params.iter().filter(|p| !is_variadic(p));
                if fixed_params.zip(&args).any(|(p, a)| p.default.is_none() && a.is_none()) {
                    return Err(corrupt(format!("a required argument of {name} is missing")));
                }
                Expr::node(op, args, kwarg_names)
            }
            tag => return Err(corrupt(format!("unknown expression node tag {tag}"))),
        };
        nodes.push(node);
    }
    r.leave();
    Ok(nodes.pop().expect("n > 0"))
}

pub fn get_expr_value(r: &mut Reader<'_>, ctx: &mut Decoder) -> Result<ExprValue> {
    r.enter()?;
    let value = match r.u8()? {
        0 => ExprValue::slice(get_slice(r, ctx)?),
        1 => ExprValue::Data(Value::Shape(get_shape(r)?)),
        2 => {
            let n = r.count(1, "tuple items")?;
            let items = (0..n).map(|_| get_expr_value(r, ctx)).collect::<Result<Vec<_>>>()?;
            let names = match r.u8()? {
                0 => None,
                1 => Some((0..n).map(|_| r.str().map(Arc::from)).collect::<Result<Vec<_>>>()?),
                tag => return Err(corrupt(format!("unknown tuple tag {tag}"))),
            };
            ExprValue::Tuple(Arc::new(Tuple { items, names }))
        }
        3 => ExprValue::Unspecified,
        4 => ExprValue::Data(Value::Bag(get_bag_ref(r, ctx)?)),
        5 => {
            let version = r.version;
            let mut bound = || -> Result<Option<DataSlice>> {
                match r.u8()? {
                    0 => Ok(None),
                    1 => get_slice(r, ctx).map(Some),
                    tag => Err(corrupt(format!("unknown range bound tag {tag}"))),
                }
            };
            let start = bound()?.map(Box::new);
            let stop = bound()?.map(Box::new);
            // (A step since version 4.)
            let step = if version >= 4 { bound()?.map(Box::new) } else { None };
            ExprValue::Data(Value::Range { start, stop, step })
        }
        6 => ExprValue::Data(Value::Ellipsis),
        7 => {
            let ordered = match r.u8()? {
                0 => false,
                1 => true,
                tag => return Err(corrupt(format!("unknown iterable order tag {tag}"))),
            };
            // (The value type since version 4.)
            let value_type = if r.version >= 4 { Some(r.str()?) } else { None };
            let n = r.count(1, "iterable items")?;
            let items = (0..n).map(|_| get_expr_value(r, ctx)).collect::<Result<Vec<_>>>()?;
            match value_type {
                Some(value_type) => ExprValue::iterable_of(items, ordered, value_type.to_string()),
                None => ExprValue::iterable(items, ordered),
            }
        }
        8 => QTypeValue::value(r.str()?),
        9 => {
            let label = match r.u8()? {
                0 => None,
                1 => {
                    let name = r.str()?;
                    Some(extension::lookup(name).ok_or_else(|| {
                        Error::value("kd.loads", format!("the extension type {name} is not registered: define its class before loading"))
                    })?)
                }
                tag => return Err(corrupt(format!("unknown object label tag {tag}"))),
            };
            let links = r.count(1, "objects")?;
            let mut chain = Vec::with_capacity(links);
            for _ in 0..links {
                let n = r.count(1, "object attributes")?;
                let attrs = (0..n).map(|_| Ok((Arc::from(r.str()?), get_expr_value(r, ctx)?))).collect::<Result<Vec<_>>>()?;
                chain.push(attrs);
            }
            let mut object: Option<Arc<Object>> = None;
            for attrs in chain.into_iter().rev() {
                object = Some(Arc::new(Object { attrs, prototype: object }));
            }
            let object = object.ok_or_else(|| corrupt("an object value without an object"))?;
            ObjectValue { object, label }.into_value()
        }
        tag => return Err(corrupt(format!("unknown value tag {tag}"))),
    };
    r.leave();
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plait_core::ScalarRef;
    use plait_core::column::SliceBuilder;
    use plait_core::itemid::{ItemKind, new_allocation};

    /// Objects of consecutive one-item allocations (as made one by one),
    /// with values of every delta-coded type, a missing one and a float.
    fn chain(n: usize) -> (Vec<ItemId>, SliceData) {
        let start = new_allocation();
        let ids: Vec<ItemId> = (0..n as u64).map(|k| ItemId::new(ItemKind::Object, start + 2 * k, 0)).collect();
        let mut b = SliceBuilder::new();
        for (k, id) in ids.iter().enumerate() {
            b.push(match k % 7 {
                0 => Some(ScalarRef::Int32(k as i32 - 3)),
                1 => Some(ScalarRef::Int64(-(k as i64) << 40)),
                2 => Some(ScalarRef::ItemId(ItemId(id.0 - (2u128 << 64)))),
                3 => Some(ScalarRef::Schema(Schema::Struct(id.with_kind(ItemKind::ImplicitSchema)))),
                4 => Some(ScalarRef::String(if k % 2 == 0 { "héllo" } else { "" })),
                5 => None,
                _ => Some(ScalarRef::Float32(k as f32)),
            });
        }
        (ids, b.finish())
    }

    /// The body of a packed block (before compression).
    fn body(ids: &[ItemId], values: &SliceData) -> Vec<u8> {
        let mut w = Writer::default();
        put_packed(&mut w, ids, values, &mut Encoder::default()).unwrap();
        crate::compress::lz4_decompress(Reader::new(&w.bytes).blob().unwrap()).unwrap()
    }

    /// Reads a packed block whose body is `body` (compressed here).
    fn read(body: &[u8]) -> Result<(Vec<Option<ItemId>>, SliceData)> {
        let mut w = Writer::default();
        w.blob(&crate::compress::lz4_compress(body));
        let mut r = Reader::new(&w.bytes);
        let out = get_packed(&mut r, &mut Decoder::default())?;
        assert_eq!(r.remaining(), 0);
        Ok(out)
    }

    #[test]
    fn packed_blocks_round_trip_and_are_small() {
        let (ids, values) = chain(700);
        let mut w = Writer::default();
        put_packed(&mut w, &ids, &values, &mut Encoder::default()).unwrap();
        // 700 ids and values, 16 + 16 bytes and more each in memory.
        assert!(w.bytes.len() < 700 * 8, "{} bytes", w.bytes.len());
        let (got_ids, got) = get_packed(&mut Reader::new(&w.bytes), &mut Decoder::default()).unwrap();
        assert_eq!(got_ids, ids.iter().copied().map(Some).collect::<Vec<_>>());
        assert_eq!(got.len(), values.len());
        for i in 0..values.len() {
            assert_eq!(got.get(i), values.get(i), "item {i}");
        }
    }

    #[test]
    fn every_truncation_of_a_packed_body_is_an_error() {
        let (ids, values) = chain(30);
        let body = body(&ids, &values);
        assert!(read(&body).is_ok());
        for n in 0..body.len() {
            assert!(read(&body[..n]).is_err(), "a body cut at {n} of {} bytes was read", body.len());
        }
    }

    #[test]
    fn mutated_packed_bodies_never_panic() {
        let (ids, values) = chain(40);
        let body = body(&ids, &values);
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..5000 {
            let mut mutated = body.clone();
            for _ in 0..1 + state % 3 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = state as usize % mutated.len();
                mutated[i] = match state >> 60 {
                    0..4 => 0xff,
                    4..8 => 0,
                    v => mutated[i] ^ (1 << (v % 8)),
                };
            }
            let outcome = std::panic::catch_unwind(|| read(&mutated).map(|(ids, values)| (ids.len(), values.len())));
            let read_back = outcome.expect("reading a mutated packed body panicked");
            if let Ok((n_ids, n_values)) = read_back {
                assert_eq!(n_ids, n_values);
            }
        }
    }

    fn message(result: Result<(Vec<Option<ItemId>>, SliceData)>) -> String {
        result.map(|_| ()).unwrap_err().message
    }

    #[test]
    fn hostile_packed_counts_are_refused_before_allocating() {
        // Ids: a count of 2^62 in a few bytes.
        let mut w = Writer::default();
        w.varint(1 << 62);
        w.raw(&[0; 8]);
        assert!(message(read(&w.bytes)).contains("does not fit"));
        // Values of more items than the input may declare.
        let mut w = Writer::default();
        w.varint(1);
        w.raw(&[2, 0]); // one id
        w.u64(1 << 40); // items
        assert!(message(read(&w.bytes)).contains("does not fit"));
        // A value column claiming more values than bytes are left.
        let mut w = Writer::default();
        w.varint(1);
        w.raw(&[2, 0]);
        w.u64(100_000);
        w.u8(1); // one column
        w.u8(1); // INT32
        w.u64(100_000);
        assert!(message(read(&w.bytes)).contains("a column of"));
        // A compressed body claiming a size no LZ4 input this short has.
        let mut w = Writer::default();
        let mut lying = crate::compress::lz4_compress(&[0; 10]);
        lying[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        w.blob(&lying);
        let err = get_packed(&mut Reader::new(&w.bytes), &mut Decoder::default()).unwrap_err();
        assert!(err.message.contains("impossible size"), "{}", err.message);
    }

    #[test]
    fn out_of_range_packed_values_are_refused() {
        let header = |w: &mut Writer, dtype: u8| {
            w.varint(1);
            w.raw(&[2, 0]);
            w.u64(1);
            w.u8(1);
            w.u8(dtype);
            w.u64(1);
        };
        let mut w = Writer::default();
        header(&mut w, 1); // INT32
        w.zigzag(i64::from(i32::MAX) + 1);
        w.u8(0);
        assert!(message(read(&w.bytes)).contains("out of range"));
        let mut w = Writer::default();
        header(&mut w, 8); // STRING
        w.varint(u64::MAX);
        assert!(message(read(&w.bytes)).contains("overflow"));
        let mut w = Writer::default();
        header(&mut w, 8);
        w.varint(5);
        w.str("abc");
        assert!(message(read(&w.bytes)).contains("add up"));
        let mut w = Writer::default();
        header(&mut w, 2); // INT64: a varint of eleven bytes
        w.raw(&[0xff; 10]);
        w.u8(1);
        assert!(message(read(&w.bytes)).contains("64 bits"));
        let mut w = Writer::default();
        header(&mut w, 1);
        w.zigzag(7);
        w.u8(0);
        w.u8(0); // a byte too many
        assert!(message(read(&w.bytes)).contains("left in a packed block"));
    }
}
