//! `kd.proto.*`: protobuf messages to Koda data and back.
//!
//! Message types come from descriptors ([`desc`]): a serialized
//! `FileDescriptorSet` that the host (the Python bindings, reading
//! protobuf's default descriptor pool) gives for a message's full name.
//! [`decode`] reads binary messages into entities column by column,
//! [`encode`] writes entities as binary messages a level at a time, and
//! [`schema`] derives Koda schemas from message types. JSON-format
//! messages go through the host's converter to and from binary.

pub mod decode;
pub mod desc;
pub mod encode;
pub mod schema;
pub mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::bag::text::SCHEMA_METADATA_ATTR;
use plait_core::bag::{SCHEMA_ATTR, Stored};
use plait_core::column::SliceBuilder;
use plait_core::{DataBag, DataSlice, Error, ItemId, Result, ScalarRef, Schema, SliceData};

use crate::checks::not_castable;
use crate::registry::{Args, Registry};
use decode::{Options, Target};
use desc::Pool;

/// What finds message types and converts JSON-format messages.
pub trait ProtoHost: Send + Sync {
    /// A serialized `FileDescriptorSet` defining message `full_name` (with
    /// its dependencies and the extensions known for its types); `Ok(None)`
    /// when no such message type is known.
    fn descriptors(&self, full_name: &str) -> std::result::Result<Option<Vec<u8>>, String>;
    /// Each JSON text as a binary message of `full_name` (`None` where the
    /// text does not parse).
    fn json_to_binary(&self, full_name: &str, texts: &[&str]) -> std::result::Result<Vec<Option<Vec<u8>>>, String>;
    /// Each binary message of `full_name` as JSON text.
    fn binary_to_json(&self, full_name: &str, messages: &[&[u8]]) -> std::result::Result<Vec<String>, String>;
}

static HOST: OnceLock<Box<dyn ProtoHost>> = OnceLock::new();

/// Installs the host (the first one installed stays).
pub fn set_host(host: Box<dyn ProtoHost>) {
    let _ = HOST.set(host);
}

fn host(op: &str) -> Result<&'static dyn ProtoHost> {
    HOST.get().map(|h| h.as_ref()).ok_or_else(|| Error::value(op, "no protobuf descriptor pool is available"))
}

type PoolCache = Mutex<HashMap<Vec<u8>, Arc<Pool>>>;

/// The pool of a serialized descriptor set (read once per distinct set).
pub fn pool_of(op: &str, descriptor_set: &[u8]) -> Result<Arc<Pool>> {
    static POOLS: OnceLock<PoolCache> = OnceLock::new();
    let cache = POOLS.get_or_init(Default::default);
    if let Some(p) = cache.lock().expect("pool cache").get(descriptor_set) {
        return Ok(p.clone());
    }
    let pool = Arc::new(Pool::from_descriptor_set(descriptor_set).map_err(|e| Error::value(op, e))?);
    let mut guard = cache.lock().expect("pool cache");
    if guard.len() > 256 {
        guard.clear();
    }
    guard.insert(descriptor_set.to_vec(), pool.clone());
    Ok(pool)
}

/// The pool and index of message type `full_name`, from the host.
fn find_message(op: &str, full_name: &str) -> Result<(Arc<Pool>, usize)> {
    let not_found = || Error::value(op, format!("proto message `{full_name}` not found in the default descriptor pool"));
    let bytes = host(op)?.descriptors(full_name).map_err(|e| Error::value(op, e))?.ok_or_else(not_found)?;
    let pool = pool_of(op, &bytes)?;
    let m = *pool.by_name.get(full_name).ok_or_else(not_found)?;
    Ok((pool, m))
}

/// The message index of `full_name` in `pool`, or Koda's error.
pub fn message_index(op: &str, pool: &Pool, full_name: &str) -> Result<usize> {
    pool.by_name.get(full_name).copied().ok_or_else(|| Error::value(op, format!("proto message `{full_name}` not found in its descriptor set")))
}

fn text_item(op: &str, a: &Args<'_>, name: &str) -> Result<String> {
    crate::checks::string_item(op, name, a.slice(name)?).map(str::to_string)
}

/// The extension paths argument (a 1-D slice of STRING), if given.
pub fn extension_paths(op: &str, x: Option<&DataSlice>) -> Result<Vec<String>> {
    let Some(x) = x else { return Ok(vec![]) };
    if x.rank() != 1 {
        return Err(Error::value(op, format!("argument `extensions` must be a 1-D slice of STRING, got a slice of rank {}", x.rank())));
    }
    let mut out = vec![];
    for i in 0..x.size() {
        match x.get(i) {
            Some(ScalarRef::String(s)) => out.push(s.to_string()),
            None => {}
            Some(v) => return Err(Error::value(op, format!("argument `extensions` must be a 1-D slice of STRING, got an item of {}", v.dtype()))),
        }
    }
    Ok(out)
}

/// What `schema=` asks for: `None` for the derived uu schema.
pub fn target_of(op: &str, schema: Option<&DataSlice>) -> Result<(Target, Option<DataBag>)> {
    let Some(s) = schema else { return Ok((Target::Uu, None)) };
    match (s.is_item(), s.get(0)) {
        (true, Some(ScalarRef::Schema(Schema::Object))) => Ok((Target::Object, None)),
        (true, Some(ScalarRef::Schema(Schema::Struct(id)))) => Ok((Target::Entity(id), s.bag().cloned())),
        (true, None) => Ok((Target::Uu, None)),
        (true, Some(ScalarRef::Schema(other))) => Err(Error::value(op, format!("schema must be OBJECT or an entity schema, got {other}"))),
        _ => Err(Error::value(op, format!("argument `schema` must be an item holding SCHEMA, got {}", crate::describe(s)))),
    }
}

/// Everything a conversion into Koda data takes besides the messages.
pub struct FromArgs<'a> {
    pub extensions: Vec<String>,
    pub itemids: Option<&'a DataSlice>,
    pub schema: Option<&'a DataSlice>,
    pub on_invalid: Option<&'a DataSlice>,
}

/// Converts `messages` (binary messages of `pool`'s type `m`, None where
/// missing) to Koda data of `shape`.
pub fn from_binary(
    op: &str,
    messages: &[Option<&[u8]>],
    shape: &plait_core::JaggedShape,
    pool: &Pool,
    m: usize,
    args: &FromArgs<'_>,
    parse_error: &str,
) -> Result<DataSlice> {
    let tree = decode::ext_tree(pool, m, &args.extensions, false).map_err(|e| Error::value(op, e))?;
    let (target, schema_bag) = target_of(op, args.schema)?;
    if let Some(ids) = args.itemids {
        if ids.shape() != shape {
            return Err(Error::value(op, "argument `itemids` must have the shape of the messages".to_string()));
        }
    }
    let on_invalid = match args.on_invalid {
        Some(v) if !v.is_item() => Some(plait_core::broadcast::expand_to_shape(op, v, shape, 0)?),
        Some(v) => Some(v.clone()),
        None => None,
    };
    let opts = Options { pool, root: m, target, schema_bag: schema_bag.as_ref(), extensions: &tree, itemids: args.itemids, op };
    let (data, mut schema, bag) = decode::decode(messages, &opts, on_invalid.as_ref(), parse_error)?;
    if messages.is_empty() && args.schema.is_none() {
        schema = Schema::Object;
    }
    if let Some(v) = &on_invalid {
        let other = v.schema();
        if other != schema && other != Schema::None && schema != Schema::Object {
            return Err(crate::promote::no_common_schema_error(op, (schema, Some(&bag)), (other, v.bag())));
        }
    }
    let mut bags = vec![bag];
    bags.extend(schema_bag);
    bags.extend(on_invalid.as_ref().and_then(|v| v.bag().cloned()));
    let bag = DataBag::combined(&bags).expect("one bag").fork(false);
    Ok(DataSlice::new(shape.clone(), data, schema)?.with_bag(Some(bag)))
}

/// The schema of message type `m` with every field (and `extensions`).
pub fn full_schema(op: &str, pool: &Pool, m: usize, extensions: &[String]) -> Result<DataSlice> {
    let mut exts = vec![];
    for path in extensions {
        let inner = path.trim_start_matches('(').trim_end_matches(')');
        let tree = decode::ext_tree(pool, m, std::slice::from_ref(path), true).map_err(|e| Error::value(op, e))?;
        let _ = tree;
        // The schema records the extension's field on the message it extends.
        let last = path.rsplit_once(".(").map_or(inner.to_string(), |(_, t)| t.trim_end_matches(')').to_string());
        if let Some((target, field)) = pool.extensions.get(last.trim_start_matches('(')) {
            exts.push((*target, field.clone()));
        }
    }
    let bag = DataBag::new_mutable();
    let schema = bag.fill(|w| schema::write_full_schema(w, pool, m, &exts));
    Ok(DataSlice::item(Some(ScalarRef::Schema(schema)), Schema::Schema)?.with_bag(Some(bag.fork(false))))
}

/// `x`'s items as binary messages of type `m` (flat, None where missing).
pub fn to_binary(op: &str, x: &DataSlice, pool: &Pool, m: usize) -> Result<Vec<Option<Vec<u8>>>> {
    if x.schema().is_primitive() && x.schema() != Schema::None {
        if let Some(v) = (0..x.size()).find_map(|i| x.get(i)) {
            return Err(Error::value(op, format!("proto message should have only entities/objects, found {}", v.dtype())));
        }
    }
    encode::encode(x.data(), x.bag(), pool, m, op)
}

fn bytes_data(values: &[Option<Vec<u8>>]) -> SliceData {
    let mut b = SliceBuilder::with_capacity(values.len());
    for v in values {
        b.push(v.as_deref().map(ScalarRef::Bytes));
    }
    b.finish()
}

const FROM_PROTO_BYTES: &str = "kd.proto.from_proto_bytes";
const FROM_PROTO_JSON: &str = "kd.proto.from_proto_json";
const TO_PROTO_BYTES: &str = "kd.proto.to_proto_bytes";
const TO_PROTO_JSON: &str = "kd.proto.to_proto_json";
const SCHEMA_FROM_PROTO_PATH: &str = "kd.proto.schema_from_proto_path";

fn from_args<'a>(op: &str, a: &'a Args<'_>) -> Result<FromArgs<'a>> {
    Ok(FromArgs {
        extensions: extension_paths(op, a.opt_given("extensions")?)?,
        itemids: a.opt_given("itemids")?,
        schema: a.opt_given("schema")?,
        on_invalid: a.opt_slice("on_invalid")?,
    })
}

fn from_proto_bytes_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = FROM_PROTO_BYTES;
    let x = a.slice("x")?;
    if let Some(got) = not_castable(x, Schema::Bytes) {
        return Err(Error::value(op, format!("argument `x` must be a slice of BYTES, got a slice of {got}")));
    }
    let path = text_item(op, a, "proto_path")?;
    let args = from_args(op, a)?;
    let (pool, m) = find_message(op, &path)?;
    let messages: Vec<Option<&[u8]>> = (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::Bytes(b)) => Some(b),
            _ => None,
        })
        .collect();
    from_binary(op, &messages, x.shape(), &pool, m, &args, &format!("failed to parse input as a binary proto of type `{path}`"))
}

fn from_proto_json_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = FROM_PROTO_JSON;
    let x = a.slice("x")?;
    if let Some(got) = not_castable(x, Schema::String) {
        return Err(Error::value(op, format!("argument `x` must be a slice of STRING, got a slice of {got}")));
    }
    let path = text_item(op, a, "proto_path")?;
    let args = from_args(op, a)?;
    let (pool, m) = find_message(op, &path)?;
    let texts: Vec<Option<&str>> = (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::String(s)) => Some(s),
            _ => None,
        })
        .collect();
    let present: Vec<&str> = texts.iter().flatten().copied().collect();
    let converted = host(op)?.json_to_binary(&path, &present).map_err(|e| Error::value(op, e))?;
    let parse_error = format!("failed to parse input as a JSON-format proto of type `{path}`");
    if args.on_invalid.is_none() && converted.iter().any(Option::is_none) {
        return Err(Error::value(op, parse_error));
    }
    // An invalid text becomes bytes no message has (a lone end-group tag).
    const INVALID: &[u8] = &[0x0c];
    let mut it = converted.iter();
    let messages: Vec<Option<&[u8]>> = texts.iter().map(|t| t.map(|_| it.next().and_then(|c| c.as_deref()).unwrap_or(INVALID))).collect();
    from_binary(op, &messages, x.shape(), &pool, m, &args, &parse_error)
}

fn schema_from_proto_path_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = SCHEMA_FROM_PROTO_PATH;
    let path = text_item(op, a, "proto_path")?;
    let extensions = extension_paths(op, a.opt_given("extensions")?)?;
    let (pool, m) = find_message(op, &path)?;
    full_schema(op, &pool, m, &extensions)
}

fn to_proto_bytes_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = TO_PROTO_BYTES;
    let x = a.slice("x")?;
    let path = text_item(op, a, "proto_path")?;
    let (pool, m) = find_message(op, &path)?;
    let out = to_binary(op, x, &pool, m)?;
    DataSlice::new(x.shape().clone(), bytes_data(&out), Schema::Bytes)
}

fn to_proto_json_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = TO_PROTO_JSON;
    let x = a.slice("x")?;
    let path = text_item(op, a, "proto_path")?;
    let (pool, m) = find_message(op, &path)?;
    let out = to_binary(op, x, &pool, m)?;
    let present: Vec<&[u8]> = out.iter().flatten().map(|b| b.as_slice()).collect();
    let texts = host(op)?.binary_to_json(&path, &present).map_err(|e| Error::value(op, e))?;
    let mut it = texts.iter();
    let mut b = SliceBuilder::with_capacity(out.len());
    for v in &out {
        b.push(v.as_ref().and_then(|_| it.next()).map(|s| ScalarRef::String(s)));
    }
    DataSlice::new(x.shape().clone(), b.finish(), Schema::String)
}

/// The struct schema of each item of `x` (its schema, its `__schema__`, or
/// itself for schemas).
fn item_schemas(op: &str, x: &DataSlice) -> Result<Vec<Option<ItemId>>> {
    let n = x.size();
    match x.schema() {
        Schema::Struct(id) => Ok(vec![Some(id); n]),
        Schema::None => Ok(vec![None; n]),
        Schema::Schema => Ok((0..n)
            .map(|i| match x.get(i) {
                Some(ScalarRef::Schema(Schema::Struct(id))) => Some(id),
                _ => None,
            })
            .collect()),
        Schema::Object => {
            let ids: Vec<Option<ItemId>> = (0..n)
                .map(|i| match x.get(i) {
                    Some(ScalarRef::ItemId(id)) => Some(id),
                    _ => None,
                })
                .collect();
            if let Some(i) = (0..n).find(|&i| matches!(x.get(i), Some(v) if !matches!(v, ScalarRef::ItemId(_)))) {
                let v = x.get(i).expect("present");
                return Err(Error::value(
                    op,
                    format!(
                        "failed to get attribute '{SCHEMA_METADATA_ATTR}': primitives do not have attributes, got OBJECT DataSlice with at least one primitive {} at ds.flatten().S[{i}]",
                        v.dtype()
                    ),
                ));
            }
            let Some(bag) = x.bag() else { return Ok(vec![None; n]) };
            let schemas = bag.get_attr(SCHEMA_ATTR, &ids);
            Ok((0..n)
                .map(|i| match schemas.get(i) {
                    Some(ScalarRef::Schema(Schema::Struct(id))) => Some(id),
                    _ => None,
                })
                .collect())
        }
        other if x.is_item() => Err(Error::value(
            op,
            format!(
                "failed to get attribute '{SCHEMA_METADATA_ATTR}': primitives do not have attributes, got SCHEMA DataItem with primitive {other}"
            ),
        )),
        other => Err(Error::value(
            op,
            format!(
                "failed to get attribute '{SCHEMA_METADATA_ATTR}': primitives do not have attributes, got SCHEMA DataSlice with at least one primitive {other} at ds.flatten().S[0]"
            ),
        )),
    }
}

/// Metadata attribute `attr` of the schemas of `x`'s items (shape of `x`).
fn metadata_attr(op: &str, x: &DataSlice, attr: &str) -> Result<DataSlice> {
    let schemas = item_schemas(op, x)?;
    let n = schemas.len();
    let Some(bag) = x.bag() else {
        return DataSlice::new(x.shape().clone(), SliceData::missing(n), Schema::None);
    };
    // Metadata objects, read once per distinct schema.
    let mut cache: HashMap<ItemId, Option<ItemId>> = HashMap::new();
    let metas: Vec<Option<ItemId>> = schemas
        .iter()
        .map(|s| {
            s.and_then(|s| {
                *cache.entry(s).or_insert_with(|| match bag.get_one(SCHEMA_METADATA_ATTR, s).as_ref().map(Stored::as_ref) {
                    Some(ScalarRef::ItemId(m)) => Some(m),
                    _ => None,
                })
            })
        })
        .collect();
    let data = bag.get_attr(attr, &metas);
    let mut schema = Schema::None;
    if let Some(v) = (0..n).find_map(|i| data.get(i)) {
        schema = v.dtype();
    }
    let data = if schema == Schema::None { SliceData::missing(n) } else { data };
    Ok(DataSlice::new(x.shape().clone(), data, schema)?.with_bag(Some(bag.clone())))
}

fn get_proto_full_name_kernel(a: &Args<'_>) -> Result<DataSlice> {
    metadata_attr("kd.proto.get_proto_full_name", a.slice("x")?, schema::FULL_NAME_ATTR)
}

fn field_default(op: &str, x: &DataSlice, field: &str) -> Result<DataSlice> {
    metadata_attr(op, x, &format!("{}{field}", schema::DEFAULT_PREFIX))
}

fn get_proto_field_custom_default_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = "kd.proto.get_proto_field_custom_default";
    let field = text_item(op, a, "field_name")?;
    field_default(op, a.slice("x")?, &field)
}

fn get_proto_attr_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = "kd.proto.get_proto_attr";
    let x = a.slice("x")?;
    let field = text_item(op, a, "field_name")?;
    let default = field_default(op, x, &field)?;
    let value = crate::objects::access::get_attr(x, &field, None).map_err(|e| Error::value(op, e.message))?;
    let bag = value.bag().cloned();
    let value = if default.data().present_count() > 0 { crate::masking::coalesce(&value, &default)?.with_bag(bag) } else { value };
    if value.schema() == Schema::Boolean {
        let mut b = SliceBuilder::with_capacity(value.size());
        for i in 0..value.size() {
            b.push(matches!(value.get(i), Some(ScalarRef::Boolean(true))).then_some(ScalarRef::Mask));
        }
        return DataSlice::new(value.shape().clone(), b.finish(), Schema::Mask);
    }
    Ok(value)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FROM_PROTO_BYTES,
        &["kd.from_proto_bytes"],
        "x, proto_path, /, *, extensions=unspecified, itemids=unspecified, schema=unspecified, on_invalid=unspecified",
        include_str!("doc_from_proto_bytes.txt"),
        from_proto_bytes_kernel,
    );
    r.add(
        FROM_PROTO_JSON,
        &["kd.from_proto_json"],
        "x, proto_path, /, *, extensions=unspecified, itemids=unspecified, schema=unspecified, on_invalid=unspecified",
        include_str!("doc_from_proto_json.txt"),
        from_proto_json_kernel,
    );
    r.add(
        SCHEMA_FROM_PROTO_PATH,
        &["kd.schema_from_proto_path"],
        "proto_path, /, *, extensions=unspecified",
        include_str!("doc_schema_from_proto_path.txt"),
        schema_from_proto_path_kernel,
    );
    r.add(TO_PROTO_BYTES, &["kd.to_proto_bytes"], "x, proto_path, /", include_str!("doc_to_proto_bytes.txt"), to_proto_bytes_kernel);
    r.add(TO_PROTO_JSON, &["kd.to_proto_json"], "x, proto_path, /", include_str!("doc_to_proto_json.txt"), to_proto_json_kernel);
    r.add("kd.proto.get_proto_full_name", &[], "x", include_str!("doc_get_proto_full_name.txt"), get_proto_full_name_kernel);
    r.add(
        "kd.proto.get_proto_field_custom_default",
        &[],
        "x, field_name",
        include_str!("doc_get_proto_field_custom_default.txt"),
        get_proto_field_custom_default_kernel,
    );
    r.add("kd.proto.get_proto_attr", &["kd.get_proto_attr"], "x, field_name", include_str!("doc_get_proto_attr.txt"), get_proto_attr_kernel);
    for name in [FROM_PROTO_BYTES, FROM_PROTO_JSON] {
        r.non_deterministic(name);
    }
    // Type rules (see `crate::typing`): one message per item; what a
    // message's fields hold is known from its descriptor only.
    use crate::typing::rules::{Out, item, like};
    r.type_rule("kd.proto.to_proto_bytes", like("x", Out::Fixed(plait_core::Schema::Bytes)));
    r.type_rule("kd.proto.to_proto_json", like("x", Out::Fixed(plait_core::Schema::String)));
    for name in ["kd.proto.from_proto_bytes", "kd.proto.from_proto_json", "kd.proto.get_proto_full_name"] {
        r.type_rule(name, like("x", Out::Unknown));
    }
    for name in ["kd.proto.get_proto_attr", "kd.proto.get_proto_field_custom_default"] {
        r.type_rule(name, like("x", Out::Unknown));
    }
    r.type_rule("kd.proto.schema_from_proto_path", item(&[], plait_core::Schema::Schema));
}
