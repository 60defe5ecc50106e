//! `kd.strings.encode` / `decode` (UTF-8 between STRING and BYTES) and
//! `encode_base64` / `decode_base64` (RFC 4648 section 4).

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use plait_core::column::VarBinary;
use plait_core::{Column, DataSlice, Error, Result, Schema, SliceData, Values};

use super::{TextSide, finish_text, fixed, prepare_text, text_map};
use crate::elementwise::Prepared;
use crate::promote::TypeClass;

/// The text columns of `x` (STRING and BYTES), checked convertible to `target`.
fn text_columns<'a>(op: &str, x: &'a DataSlice, target: Schema) -> Result<Vec<(&'a Column, &'a VarBinary)>> {
    if !matches!(x.schema(), Schema::String | Schema::Bytes | Schema::Object | Schema::None) {
        let source = plait_core::bag::text::schema_text(x.schema(), x.bag());
        return Err(Error::value(op, format!("casting a DataSlice with schema {source} to {target} is not supported")));
    }
    // Inside an OBJECT slice, Koda names the items' type.
    x.data()
        .columns()
        .iter()
        .map(|c| match &c.values {
            Values::String(v) | Values::Bytes(v) => Ok((c, v)),
            other => Err(Error::value(op, format!("casting data of type {} to {target} is not supported", other.dtype()))),
        })
        .collect()
}

/// Converts the text columns of `x` to one column of `target`, checking each
/// converted value with `check` (its index and bytes).
fn convert(op: &str, x: &DataSlice, target: Schema, check: impl Fn(&[u8]) -> Result<()> + Sync) -> Result<DataSlice> {
    let columns = text_columns(op, x, target)?;
    let wrap = |v: VarBinary| if target == Schema::Bytes { Values::Bytes(v) } else { Values::String(v) };
    let data = match columns.as_slice() {
        [] => SliceData::missing(x.size()),
        [(c, v)] => {
            if c.values.dtype() != target {
                for i in 0..v.len() {
                    if c.is_present(i) {
                        check(v.value(i))?;
                    }
                }
            }
            SliceData::from_column(Column::new(wrap((*v).clone()), c.presence.clone()))
        }
        many => {
            let n = x.size();
            for (c, v) in many {
                if c.values.dtype() != target {
                    for i in 0..n {
                        if c.is_present(i) {
                            check(v.value(i))?;
                        }
                    }
                }
            }
            let presence = x.data().present_bits();
            let (values, _) = text_map(n, None, 0, |i, out| {
                if let Some((_, v)) = many.iter().find(|(c, _)| c.is_present(i)) {
                    out.extend_from_slice(v.value(i));
                }
                true
            });
            SliceData::from_column(Column::new(wrap(values), Some(arrow_buffer::NullBuffer::new(presence))))
        }
    };
    DataSlice::new(x.shape().clone(), data, target)
}

/// STRING items as their UTF-8 BYTES (BYTES items stay).
pub fn encode(x: &DataSlice) -> Result<DataSlice> {
    convert("kd.strings.encode", x, Schema::Bytes, |_| Ok(()))
}

/// BYTES items decoded as UTF-8 into STRING (STRING items stay).
pub fn decode(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.decode";
    convert(op, x, Schema::String, |b| {
        std::str::from_utf8(b).map(|_| ()).map_err(|e| Error::value(op, format!("invalid UTF-8 sequence at position {}", e.valid_up_to())))
    })
}

/// BYTES items in base64 with padding, as STRING.
pub fn encode_base64(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.encode_base64";
    let p = prepare_text(op, &[("x", x)], TypeClass::Bytes, &[])?;
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.all_missing() {
        return Ok(p.missing(Schema::String));
    }
    let text = TextSide::of(&p.operands[0]);
    let engine = base64::engine::general_purpose::STANDARD;
    let out = text_map(p.len(), p.operands[0].presence(), 0, |i, out| {
        let b = text.get(i);
        let start = out.len();
        out.resize(start + b.len().div_ceil(3) * 4, 0);
        let written = engine.encode_slice(b, &mut out[start..]).expect("buffer sized for base64");
        out.truncate(start + written);
        true
    });
    finish_text(&p, Schema::String, out)
}

/// Decodes base64 (ASCII whitespace ignored, padding optional but complete
/// when given); invalid items raise unless `on_invalid` is given, whose items
/// then take their place.
pub fn decode_base64(x: &DataSlice, on_invalid: Option<&DataSlice>) -> Result<DataSlice> {
    let op = "kd.strings.decode_base64";
    let p = prepare_text(op, &[("x", x)], TypeClass::Text, &[])?;
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.all_missing() {
        let missing = p.missing(Schema::Bytes);
        return match on_invalid {
            Some(y) => crate::masking::coalesce(&missing, &DataSlice::missing(y.shape().clone(), y.schema())),
            None => Ok(missing),
        };
    }
    let text = TextSide::of(&p.operands[0]);
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true).with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let out = text_map(p.len(), p.operands[0].presence(), 0, |i, out| {
        let b = text.get(i);
        let clean: Vec<u8>;
        let b = if b.iter().any(|c| c.is_ascii_whitespace() || *c == 0x0b) {
            clean = b.iter().copied().filter(|c| !(c.is_ascii_whitespace() || *c == 0x0b)).collect();
            &clean[..]
        } else {
            b
        };
        let start = out.len();
        // Padding, when given, must complete the last quantum.
        let ok = (!b.contains(&b'=') || b.len() % 4 == 0) && engine.decode_vec(b, out).is_ok();
        if !ok {
            out.truncate(start);
        }
        ok
    });
    let (values, presence) = out;
    let decoded = Column::new(Values::Bytes(values), presence);
    let invalid: Vec<usize> = (0..p.len()).filter(|&i| p.operands[0].is_present(i) && !decoded.is_present(i)).collect();
    let data = SliceData::from_column(decoded);
    let result = DataSlice::new(p.shape.clone(), data, Schema::Bytes)?;
    match on_invalid {
        None => match invalid.first() {
            Some(&i) => Err(Error::value(op, format!("invalid base64 string: {}", String::from_utf8_lossy(text.get(i))))),
            None => Ok(result),
        },
        Some(y) => {
            let bits = arrow_buffer::BooleanBuffer::collect_bool(p.len(), |i| invalid.binary_search(&i).is_ok());
            let mask = crate::masking::mask_from_bits(&p.shape, bits)?;
            let fill = crate::masking::apply_mask(y, &mask)?;
            crate::masking::coalesce(&result, &fill)
        }
    }
}
