//! Message descriptors, read from a serialized `google.protobuf.FileDescriptorSet`
//! (what the Python front takes from protobuf's descriptor pool): each
//! message type with its fields, resolved to indices into one [`Pool`].

use std::collections::HashMap;

use super::wire::{self, Reader};

/// A field's value type (protobuf's `FieldDescriptorProto.Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    Bool,
    String,
    Group,
    Message,
    Bytes,
    Uint32,
    Enum,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
}

impl Ty {
    fn from_code(code: u64) -> Option<Ty> {
        use Ty::*;
        Some(match code {
            1 => Double,
            2 => Float,
            3 => Int64,
            4 => Uint64,
            5 => Int32,
            6 => Fixed64,
            7 => Fixed32,
            8 => Bool,
            9 => String,
            10 => Group,
            11 => Message,
            12 => Bytes,
            13 => Uint32,
            14 => Enum,
            15 => Sfixed32,
            16 => Sfixed64,
            17 => Sint32,
            18 => Sint64,
            _ => return None,
        })
    }

    /// Scalars that repeated fields may pack.
    pub fn packable(self) -> bool {
        !matches!(self, Ty::String | Ty::Bytes | Ty::Message | Ty::Group)
    }

    /// The C++ name of the value type (Koda's messages use it).
    pub fn cpp_name(self) -> &'static str {
        match self {
            Ty::Double => "double",
            Ty::Float => "float",
            Ty::Int64 | Ty::Sfixed64 | Ty::Sint64 => "int64",
            Ty::Uint64 | Ty::Fixed64 => "uint64",
            Ty::Int32 | Ty::Sfixed32 | Ty::Sint32 => "int32",
            Ty::Uint32 | Ty::Fixed32 => "uint32",
            Ty::Bool => "bool",
            Ty::String => "string",
            Ty::Bytes => "bytes",
            Ty::Enum => "enum",
            Ty::Message | Ty::Group => "message",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    /// The attribute name: the field's name, or `(full.name)` for an extension.
    pub name: String,
    pub number: u32,
    pub ty: Ty,
    pub repeated: bool,
    pub packed: bool,
    /// Whether an unset field is missing (else it reads as its zero value).
    pub presence: bool,
    pub in_oneof: bool,
    /// The message type (Message, Group) or enum type (Enum), by index.
    pub message: Option<usize>,
    pub enum_type: Option<usize>,
    /// The `[default = ...]` text, if any.
    pub default: Option<String>,
    pub is_extension: bool,
}

#[derive(Clone, Debug)]
pub struct Message {
    pub full_name: String,
    pub fields: Vec<Field>,
    /// Field number -> index in `fields`.
    pub by_number: HashMap<u32, usize>,
    pub map_entry: bool,
    /// Extension fields of this message known to the pool, by number.
    pub extensions: Vec<Field>,
}

#[derive(Clone, Debug)]
pub struct Enum {
    pub full_name: String,
    pub values: Vec<(String, i32)>,
}

/// Every message and enum type of a descriptor set.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    pub messages: Vec<Message>,
    pub by_name: HashMap<String, usize>,
    pub enums: Vec<Enum>,
    pub enum_by_name: HashMap<String, usize>,
    /// Extension full name -> (extendee message, field).
    pub extensions: HashMap<String, (usize, Field)>,
}

/// A field as read, before type names are resolved.
#[derive(Default, Clone)]
struct RawField {
    name: String,
    extendee: String,
    number: u32,
    label: u64,
    ty: u64,
    type_name: String,
    default: Option<String>,
    packed: Option<bool>,
    oneof_index: Option<u64>,
    proto3_optional: bool,
    presence_feature: Option<u64>,
    encoding_feature: Option<u64>,
}

struct RawMessage {
    full_name: String,
    fields: Vec<RawField>,
    map_entry: bool,
    syntax: Syntax,
    file_presence: Option<u64>,
    file_encoding: Option<u64>,
}

struct RawExtension {
    scope: String,
    field: RawField,
    syntax: Syntax,
    file_presence: Option<u64>,
    file_encoding: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Proto2,
    Proto3,
    Editions,
}

fn text(b: &[u8]) -> Option<String> {
    String::from_utf8(b.to_vec()).ok()
}

/// `FeatureSet`: (field_presence, repeated_field_encoding).
fn read_features(b: &[u8]) -> Option<(Option<u64>, Option<u64>)> {
    let mut r = Reader::new(b);
    let (mut presence, mut encoding) = (None, None);
    while !r.done() {
        let (n, w) = r.tag()?;
        match (n, w) {
            (1, wire::VARINT) => presence = Some(r.varint()?),
            (3, wire::VARINT) => encoding = Some(r.varint()?),
            _ => r.skip(n, w, 0)?,
        }
    }
    Some((presence, encoding))
}

fn read_field(b: &[u8]) -> Option<RawField> {
    let mut r = Reader::new(b);
    let mut f = RawField::default();
    while !r.done() {
        let (n, w) = r.tag()?;
        match (n, w) {
            (1, wire::LEN) => f.name = text(r.bytes()?)?,
            (2, wire::LEN) => f.extendee = text(r.bytes()?)?,
            (3, wire::VARINT) => f.number = r.varint()? as u32,
            (4, wire::VARINT) => f.label = r.varint()?,
            (5, wire::VARINT) => f.ty = r.varint()?,
            (6, wire::LEN) => f.type_name = text(r.bytes()?)?,
            (7, wire::LEN) => f.default = Some(text(r.bytes()?)?),
            (8, wire::LEN) => {
                let mut o = Reader::new(r.bytes()?);
                while !o.done() {
                    let (n, w) = o.tag()?;
                    match (n, w) {
                        (2, wire::VARINT) => f.packed = Some(o.varint()? != 0),
                        (21, wire::LEN) => {
                            let (p, e) = read_features(o.bytes()?)?;
                            f.presence_feature = p.or(f.presence_feature);
                            f.encoding_feature = e.or(f.encoding_feature);
                        }
                        _ => o.skip(n, w, 0)?,
                    }
                }
            }
            (9, wire::VARINT) => f.oneof_index = Some(r.varint()?),
            (17, wire::VARINT) => f.proto3_optional = r.varint()? != 0,
            _ => r.skip(n, w, 0)?,
        }
    }
    Some(f)
}

struct FileCtx {
    syntax: Syntax,
    presence: Option<u64>,
    encoding: Option<u64>,
}

fn read_enum(b: &[u8], scope: &str, enums: &mut Vec<Enum>) -> Option<()> {
    let mut r = Reader::new(b);
    let mut name = String::new();
    let mut values = vec![];
    while !r.done() {
        let (n, w) = r.tag()?;
        match (n, w) {
            (1, wire::LEN) => name = text(r.bytes()?)?,
            (2, wire::LEN) => {
                let mut v = Reader::new(r.bytes()?);
                let (mut vn, mut num) = (String::new(), 0i32);
                while !v.done() {
                    let (n, w) = v.tag()?;
                    match (n, w) {
                        (1, wire::LEN) => vn = text(v.bytes()?)?,
                        (2, wire::VARINT) => num = v.varint()? as i32,
                        _ => v.skip(n, w, 0)?,
                    }
                }
                values.push((vn, num));
            }
            _ => r.skip(n, w, 0)?,
        }
    }
    enums.push(Enum { full_name: join(scope, &name), values });
    Some(())
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() { name.to_string() } else { format!("{scope}.{name}") }
}

fn read_message(
    b: &[u8],
    scope: &str,
    ctx: &FileCtx,
    messages: &mut Vec<RawMessage>,
    enums: &mut Vec<Enum>,
    extensions: &mut Vec<RawExtension>,
) -> Option<()> {
    let mut r = Reader::new(b);
    let mut name = String::new();
    let mut fields = vec![];
    let mut nested = vec![];
    let mut nested_enums = vec![];
    let mut nested_ext = vec![];
    let mut map_entry = false;
    let (mut presence, mut encoding) = (ctx.presence, ctx.encoding);
    while !r.done() {
        let (n, w) = r.tag()?;
        match (n, w) {
            (1, wire::LEN) => name = text(r.bytes()?)?,
            (2, wire::LEN) => fields.push(read_field(r.bytes()?)?),
            (3, wire::LEN) => nested.push(r.bytes()?),
            (4, wire::LEN) => nested_enums.push(r.bytes()?),
            (6, wire::LEN) => nested_ext.push(read_field(r.bytes()?)?),
            (7, wire::LEN) => {
                let mut o = Reader::new(r.bytes()?);
                while !o.done() {
                    let (n, w) = o.tag()?;
                    match (n, w) {
                        (7, wire::VARINT) => map_entry = o.varint()? != 0,
                        (12, wire::LEN) => {
                            let (p, e) = read_features(o.bytes()?)?;
                            presence = p.or(presence);
                            encoding = e.or(encoding);
                        }
                        _ => o.skip(n, w, 0)?,
                    }
                }
            }
            _ => r.skip(n, w, 0)?,
        }
    }
    let full_name = join(scope, &name);
    let inner = FileCtx { syntax: ctx.syntax, presence, encoding };
    for m in nested {
        read_message(m, &full_name, &inner, messages, enums, extensions)?;
    }
    for e in nested_enums {
        read_enum(e, &full_name, enums)?;
    }
    for field in nested_ext {
        extensions.push(RawExtension { scope: full_name.clone(), field, syntax: ctx.syntax, file_presence: presence, file_encoding: encoding });
    }
    messages.push(RawMessage { full_name, fields, map_entry, syntax: ctx.syntax, file_presence: presence, file_encoding: encoding });
    Some(())
}

/// Resolves `type_name` as protobuf does from `scope`: a leading dot is
/// absolute; otherwise the innermost enclosing scope that has it.
fn resolve<'a>(type_name: &str, scope: &str, names: &'a HashMap<String, usize>) -> Option<&'a usize> {
    if let Some(abs) = type_name.strip_prefix('.') {
        return names.get(abs);
    }
    let mut scope = scope.to_string();
    loop {
        if let Some(i) = names.get(&join(&scope, type_name)) {
            return Some(i);
        }
        if scope.is_empty() {
            return None;
        }
        scope = match scope.rfind('.') {
            Some(p) => scope[..p].to_string(),
            None => String::new(),
        };
    }
}

impl Pool {
    /// Reads a serialized `FileDescriptorSet`.
    pub fn from_descriptor_set(bytes: &[u8]) -> Result<Pool, String> {
        Pool::read(bytes).ok_or_else(|| "invalid FileDescriptorSet".to_string())
    }

    fn read(bytes: &[u8]) -> Option<Pool> {
        let mut raw = vec![];
        let mut enums = vec![];
        let mut raw_ext = vec![];
        let mut r = Reader::new(bytes);
        while !r.done() {
            let (n, w) = r.tag()?;
            if (n, w) != (1, wire::LEN) {
                r.skip(n, w, 0)?;
                continue;
            }
            let mut f = Reader::new(r.bytes()?);
            let mut package = String::new();
            let mut syntax = Syntax::Proto2;
            let mut messages = vec![];
            let mut file_enums = vec![];
            let mut exts = vec![];
            let (mut presence, mut encoding) = (None, None);
            while !f.done() {
                let (n, w) = f.tag()?;
                match (n, w) {
                    (2, wire::LEN) => package = text(f.bytes()?)?,
                    (4, wire::LEN) => messages.push(f.bytes()?),
                    (5, wire::LEN) => file_enums.push(f.bytes()?),
                    (7, wire::LEN) => exts.push(read_field(f.bytes()?)?),
                    (8, wire::LEN) => {
                        let mut o = Reader::new(f.bytes()?);
                        while !o.done() {
                            let (n, w) = o.tag()?;
                            match (n, w) {
                                (50, wire::LEN) => {
                                    let (p, e) = read_features(o.bytes()?)?;
                                    presence = p.or(presence);
                                    encoding = e.or(encoding);
                                }
                                _ => o.skip(n, w, 0)?,
                            }
                        }
                    }
                    (12, wire::LEN) => {
                        syntax = match f.bytes()? {
                            b"proto3" => Syntax::Proto3,
                            b"editions" => Syntax::Editions,
                            _ => Syntax::Proto2,
                        }
                    }
                    _ => f.skip(n, w, 0)?,
                }
            }
            let ctx = FileCtx { syntax, presence, encoding };
            for m in messages {
                read_message(m, &package, &ctx, &mut raw, &mut enums, &mut raw_ext)?;
            }
            for e in file_enums {
                read_enum(e, &package, &mut enums)?;
            }
            for field in exts {
                raw_ext.push(RawExtension { scope: package.clone(), field, syntax, file_presence: presence, file_encoding: encoding });
            }
        }
        let mut pool = Pool::default();
        for (i, m) in raw.iter().enumerate() {
            pool.by_name.insert(m.full_name.clone(), i);
        }
        for (i, e) in enums.iter().enumerate() {
            pool.enum_by_name.insert(e.full_name.clone(), i);
        }
        let mut messages = Vec::with_capacity(raw.len());
        for m in &raw {
            let scope = m.full_name.as_str();
            let mut fields = vec![];
            for f in &m.fields {
                fields.push(pool.field(f, scope, m.syntax, m.file_presence, m.file_encoding, false)?);
            }
            let by_number = fields.iter().enumerate().map(|(i, f): (usize, &Field)| (f.number, i)).collect();
            messages.push(Message { full_name: m.full_name.clone(), fields, by_number, map_entry: m.map_entry, extensions: vec![] });
        }
        pool.enums = enums;
        for e in &raw_ext {
            let mut field = pool.field(&e.field, &e.scope, e.syntax, e.file_presence, e.file_encoding, true)?;
            let full = join(&e.scope, &e.field.name);
            field.name = format!("({full})");
            if let Some(&target) = resolve(&e.field.extendee, &e.scope, &pool.by_name) {
                messages[target].extensions.push(field.clone());
                pool.extensions.insert(full, (target, field));
            }
        }
        pool.messages = messages;
        Some(pool)
    }

    #[allow(clippy::too_many_arguments)]
    fn field(&self, f: &RawField, scope: &str, syntax: Syntax, presence: Option<u64>, encoding: Option<u64>, is_extension: bool) -> Option<Field> {
        let ty = Ty::from_code(f.ty)?;
        let (mut message, mut enum_type) = (None, None);
        match ty {
            Ty::Message | Ty::Group => message = Some(*resolve(&f.type_name, scope, &self.by_name)?),
            Ty::Enum => enum_type = Some(*resolve(&f.type_name, scope, &self.enum_by_name)?),
            _ => {}
        }
        let repeated = f.label == 3;
        let presence_feature = f.presence_feature.or(presence);
        let presence = if repeated {
            false
        } else {
            match syntax {
                _ if matches!(ty, Ty::Message | Ty::Group) || f.oneof_index.is_some() || is_extension => true,
                Syntax::Proto3 => f.proto3_optional,
                Syntax::Editions => presence_feature != Some(2),
                Syntax::Proto2 => true,
            }
        };
        let packed = repeated
            && ty.packable()
            && match syntax {
                Syntax::Proto2 => f.packed == Some(true),
                Syntax::Proto3 => f.packed != Some(false),
                Syntax::Editions => f.encoding_feature.or(encoding) != Some(2) && f.packed != Some(false),
            };
        Some(Field {
            name: f.name.clone(),
            number: f.number,
            ty,
            repeated,
            packed,
            presence,
            in_oneof: f.oneof_index.is_some() && !f.proto3_optional,
            message,
            enum_type,
            default: f.default.clone(),
            is_extension,
        })
    }

    /// Whether message `m` is a map's entry (its field is a map).
    pub fn is_map(&self, field: &Field) -> bool {
        field.repeated && field.message.is_some_and(|m| self.messages[m].map_entry)
    }
}
