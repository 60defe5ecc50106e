//! `kd.strings.format` (Python `str.format` style with named fields),
//! `kd.strings.printf` (C printf style) and `kd.strings.fstr` (Python
//! f-strings whose `{slice:spec}` fields were written by `DataSlice.__format__`).
//!
//! Every argument is broadcast with the format; an item is missing when the
//! format or any argument is missing there. A format given as one DataItem is
//! parsed once.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};

use plait_core::limits::MAX_FORMAT_WIDTH;
use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

use super::{TextSide, finish_text, text_map};
use crate::elementwise::{Prepared, prepare_each};
use crate::promote::{TypeClass, data_type, mixed_text_error, promote_text};

/// Checks the arguments of `format`/`printf` and broadcasts them with `fmt`.
fn prepare_format(op: &str, fmt: &DataSlice, args: &[(&str, &DataSlice)]) -> Result<Prepared> {
    let promotion = promote_text(op, &[("fmt", fmt)], TypeClass::Text)?;
    let mut dtypes = vec![promotion.dtype];
    for (name, x) in args {
        let dtype = match data_type(op, name, x, TypeClass::Primitive) {
            Ok(t) => t,
            Err(_) => {
                let mut types: Vec<Schema> = x.data().dtypes().collect();
                types.sort();
                let got = if x.schema() == Schema::Object && (types.len() > 1 || types.contains(&Schema::ItemId)) {
                    crate::promote::object_contents(&types)
                } else {
                    plait_core::bag::text::schema_text(x.schema(), x.bag())
                };
                return Err(Error::value(op, format!("cannot format argument {} of type {got}", display_name(name))));
            }
        };
        if dtype == Schema::Mask {
            return Err(Error::value(op, format!("cannot format argument {} of type MASK", display_name(name))));
        }
        let text_kind = matches!(dtype, Schema::String | Schema::Bytes);
        if text_kind && promotion.dtype != Schema::None && dtype != promotion.dtype {
            return Err(mixed_text_error(op, "fmt", promotion.dtype, name, dtype));
        }
        dtypes.push(dtype);
    }
    let mut named: Vec<(&str, &DataSlice)> = vec![("fmt", fmt)];
    named.extend_from_slice(args);
    prepare_each(op, &named, &dtypes, promotion)
}

/// `a` for keyword arguments, `1` for positional ones.
fn display_name(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_digit()) { name.to_string() } else { format!("`{name}`") }
}

/// One piece of a parsed `format` template.
enum Field {
    Text(String),
    /// Argument index and format spec.
    Arg(usize, String),
}

fn parse_format(op: &str, fmt: &str, names: &[&str]) -> Result<Vec<Field>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = fmt.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let Some(close) = fmt[start..].find('}') else {
                    return Err(Error::value(op, format!("incorrect format specification '{}'", &fmt[start..])));
                };
                let field = &fmt[start + 1..start + close];
                let (name, spec) = field.split_once(':').unwrap_or((field, ""));
                let valid = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !valid {
                    return Err(Error::value(op, format!("incorrect arg '' in format specification '{}'", &fmt[start..=start + close])));
                }
                let Some(k) = names.iter().position(|n| *n == name) else {
                    return Err(Error::value(op, format!("argument name '{name}' is not found")));
                };
                if !text.is_empty() {
                    out.push(Field::Text(std::mem::take(&mut text)));
                }
                out.push(Field::Arg(k, spec.to_string()));
                while chars.peek().is_some_and(|p| p.0 <= start + close) {
                    chars.next();
                }
            }
            '}' => return Err(Error::value(op, format!("incorrect format specification '{fmt}'"))),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Field::Text(text));
    }
    Ok(out)
}

/// A parsed Python format spec: `[[fill]align][sign][#][0][width][.precision][type]`.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse_spec(spec: &str) -> Option<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^' | '=') {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && matches!(chars[0], '<' | '>' | '^' | '=') {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alt = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let digits = |i: &mut usize| {
        let from = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        // Digits past usize saturate: refused as too wide, never wrapped.
        (from < *i).then(|| chars[from..*i].iter().collect::<String>().parse::<usize>().unwrap_or(usize::MAX))
    };
    s.width = digits(&mut i).unwrap_or(0);
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        s.precision = Some(digits(&mut i)?);
    }
    if i < chars.len() {
        s.kind = Some(chars[i]);
        i += 1;
    }
    (i == chars.len()).then_some(s)
}

/// Pads `body` (with its sign `sign`) to the spec's width.
fn pad(spec: &Spec, sign: &str, body: &str, default_right: bool, out: &mut String) {
    let len = sign.chars().count() + body.chars().count();
    let fill_n = spec.width.saturating_sub(len);
    if spec.zero && spec.align.is_none() {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill_n));
        out.push_str(body);
        return;
    }
    let fill = spec.fill.unwrap_or(' ');
    let align = spec.align.unwrap_or(if default_right { '>' } else { '<' });
    let (left, right) = match align {
        '<' => (0, fill_n),
        '^' => (fill_n / 2, fill_n - fill_n / 2),
        '=' => {
            out.push_str(sign);
            out.extend(std::iter::repeat_n(fill, fill_n));
            out.push_str(body);
            return;
        }
        _ => (fill_n, 0),
    };
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(sign);
    out.push_str(body);
    out.extend(std::iter::repeat_n(fill, right));
}

/// The default text of a float: FLOAT32 as Koda prints it with a bare `.`
/// after whole numbers (`2.`), FLOAT64 in its shortest form (`2`, `1e+100`).
pub(crate) fn default_float(v: f64, is_f32: bool) -> String {
    if is_f32 {
        let s = plait_core::repr::format_f32(v as f32);
        return s.strip_suffix(".0").map_or(s.clone(), |t| format!("{t}."));
    }
    if !v.is_finite() {
        return plait_core::repr::format_f64(v);
    }
    let s = plait_core::repr::format_f64(v);
    let s = s.strip_suffix(".0").map(str::to_string).unwrap_or(s);
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s,
    }
}

/// Digits after the point past which a double's decimal expansion is all
/// zeros (it ends within 1074 digits), and significant digits past which
/// its mantissa is (767): Rust's formatter takes precisions up to
/// `u16::MAX` only, so longer ones are formatted to these and padded.
const EXACT_FRACTION: usize = 1100;
const EXACT_MANTISSA: usize = 800;

/// `v` with `precision` digits after the point.
fn fixed(v: f64, precision: usize) -> String {
    if precision <= EXACT_FRACTION || !v.is_finite() {
        return format!("{v:.precision$}");
    }
    let mut s = format!("{v:.EXACT_FRACTION$}");
    s.extend(std::iter::repeat_n('0', precision - EXACT_FRACTION));
    s
}

/// `v` in Rust's scientific form (`d.ddde5`) with `precision` digits after the point.
fn scientific(v: f64, precision: usize) -> String {
    if precision <= EXACT_MANTISSA || !v.is_finite() {
        return format!("{v:.precision$e}");
    }
    let s = format!("{v:.EXACT_MANTISSA$e}");
    let (m, e) = s.split_once('e').expect("exponent");
    format!("{m}{}e{e}", "0".repeat(precision - EXACT_MANTISSA))
}

/// Results past which [`reserve_total`] checks that they can be allocated.
const LARGE_TEXT: usize = 1 << 26;

/// Fails before anything is formatted when `items` texts of at least the
/// sum of `widths` bytes each (a format's literal text and field widths)
/// could not be allocated: wide fields that fit one by one but not together.
fn reserve_total(op: &str, items: usize, widths: impl Iterator<Item = usize>) -> Result<()> {
    let each = widths.fold(0usize, usize::saturating_add);
    let total = items.saturating_mul(each);
    if total <= LARGE_TEXT || (total <= isize::MAX as usize && Vec::<u8>::new().try_reserve_exact(total).is_ok()) {
        return Ok(());
    }
    Err(Error::value(op, format!("the formatted text is more than this machine can allocate ({items} items of at least {each} bytes)")))
}

/// The items present among `n` (all when `presence` is None).
fn present_count(n: usize, presence: Option<&arrow_buffer::NullBuffer>) -> usize {
    presence.map_or(n, |p| n - p.null_count())
}

/// Room for one field of `width` and `precision` in `text`, reserved up
/// front so that a field too wide for this machine is an error, not an
/// abort; widths and precisions past [`MAX_FORMAT_WIDTH`] are refused.
fn reserve_field(width: usize, precision: Option<usize>, text: &mut String) -> std::result::Result<(), String> {
    for (what, n) in [("width", width), ("precision", precision.unwrap_or(0))] {
        if n > MAX_FORMAT_WIDTH {
            let n = if n == usize::MAX { "of 20 digits or more".to_string() } else { n.to_string() };
            return Err(format!("{what} {n} is more than the maximum of {MAX_FORMAT_WIDTH}"));
        }
    }
    // A number's digits before the point and its exponent take at most 330 bytes.
    let bytes = width.max(precision.unwrap_or(0).saturating_add(330));
    text.try_reserve(bytes).map_err(|_| format!("a field of {bytes} bytes is more than this machine can allocate"))
}

/// C's `%e`: `d.dddddde+XX`.
fn c_exp(v: f64, precision: usize, upper: bool) -> String {
    let s = scientific(v, precision);
    let (m, e) = s.split_once('e').expect("exponent");
    let e: i32 = e.parse().expect("exponent digits");
    let out = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper { out.to_uppercase() } else { out }
}

/// C's `%g`.
fn c_general(v: f64, precision: usize, alt: bool, upper: bool) -> String {
    if !v.is_finite() {
        return if upper { format!("{v}").to_uppercase() } else { format!("{v}") };
    }
    let p = precision.max(1);
    let exp =
        if v == 0.0 { 0 } else { scientific(v, (p - 1).min(EXACT_MANTISSA)).split_once('e').expect("exponent").1.parse::<i32>().expect("digits") };
    let mut s = if (exp as i64) < p as i64 && exp >= -4 { fixed(v, (p as i64 - 1 - exp as i64).max(0) as usize) } else { c_exp(v, p - 1, upper) };
    if !alt {
        let (m, e) = match s.find(['e', 'E']) {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.').to_string() } else { m };
        s = m + &e;
    }
    s
}

fn float_of(v: ScalarRef<'_>) -> Option<f64> {
    match v {
        ScalarRef::Int32(x) => Some(x as f64),
        ScalarRef::Int64(x) => Some(x as f64),
        ScalarRef::Float32(x) => Some(x as f64),
        ScalarRef::Float64(x) => Some(x),
        _ => None,
    }
}

/// Formats one value with a Python format spec; `None` when the spec does not
/// apply to the value's type.
fn format_value(v: ScalarRef<'_>, spec_text: &str, out: &mut String) -> Option<()> {
    let spec = parse_spec(spec_text)?;
    match v {
        ScalarRef::Int32(_) | ScalarRef::Int64(_) => {
            let x = match v {
                ScalarRef::Int32(x) => x as i64,
                ScalarRef::Int64(x) => x,
                _ => unreachable!(),
            };
            let kind = spec.kind.unwrap_or('d');
            if matches!(kind, 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') {
                return format_float(x as f64, false, &spec, out);
            }
            // C's conversions, as Koda's: `c` is one ASCII character (no
            // zero padding); `u`, `x`, `X`, `o` (and `b`) read the bits as
            // unsigned at the integer's width and have no sign; a
            // precision is the least number of digits, and turns zero
            // padding off.
            if kind == 'c' {
                let c = u8::try_from(x).ok().filter(u8::is_ascii).filter(|_| spec.precision.is_none())? as char;
                pad(&Spec { zero: false, ..spec }, "", &c.to_string(), true, out);
                return Some(());
            }
            let unsigned = match v {
                ScalarRef::Int32(x) => (x as u32) as u64,
                _ => x as u64,
            };
            let (digits, prefix, sign) = match kind {
                // `i` is C's name for `d`.
                'd' | 'i' => (x.unsigned_abs().to_string(), "", sign_of(x < 0, spec.sign)),
                'u' => (unsigned.to_string(), "", ""),
                'x' => (format!("{unsigned:x}"), if spec.alt { "0x" } else { "" }, ""),
                'X' => (format!("{unsigned:X}"), if spec.alt { "0X" } else { "" }, ""),
                'o' => (format!("{unsigned:o}"), if spec.alt { "0" } else { "" }, ""),
                'b' => (format!("{unsigned:b}"), if spec.alt { "0b" } else { "" }, ""),
                _ => return None,
            };
            let body = match spec.precision {
                Some(p) if p > digits.len() => format!("{prefix}{}{digits}", "0".repeat(p - digits.len())),
                _ => format!("{prefix}{digits}"),
            };
            let spec = if spec.precision.is_some() { Spec { zero: false, ..spec } } else { spec };
            pad(&spec, sign, &body, true, out);
            Some(())
        }
        ScalarRef::Float32(x) => format_float(x as f64, true, &spec, out),
        ScalarRef::Float64(x) => format_float(x, false, &spec, out),
        ScalarRef::Boolean(b) if spec_text.is_empty() => {
            out.push_str(if b { "true" } else { "false" });
            Some(())
        }
        ScalarRef::String(s) if matches!(spec.kind, None | Some('s')) && spec.sign.is_none() => {
            let s = match spec.precision {
                Some(p) => s.chars().take(p).collect::<String>(),
                None => s.to_string(),
            };
            pad(&spec, "", &s, false, out);
            Some(())
        }
        ScalarRef::Bytes(b) if spec_text.is_empty() => {
            // Only reached for BYTES formats, whose text is built as bytes.
            out.push_str(&String::from_utf8_lossy(b));
            Some(())
        }
        _ => None,
    }
}

fn sign_of(negative: bool, sign: Option<char>) -> &'static str {
    match (negative, sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

fn format_float(x: f64, is_f32: bool, spec: &Spec, out: &mut String) -> Option<()> {
    let mag = x.abs();
    let body = match (spec.kind, spec.precision) {
        (None, None) => default_float(mag, is_f32),
        (None, Some(p)) => fixed(mag, p),
        (Some('f' | 'F'), p) => fixed(mag, p.unwrap_or(6)),
        (Some(k @ ('e' | 'E')), p) => c_exp(mag, p.unwrap_or(6), k == 'E'),
        (Some(k @ ('g' | 'G')), p) => c_general(mag, p.unwrap_or(6), spec.alt, k == 'G'),
        (Some('%'), p) => fixed(mag * 100.0, p.unwrap_or(6)) + "%",
        _ => return None,
    };
    let body = if x.is_nan() { "nan".to_string() } else { body };
    pad(spec, sign_of(x.is_sign_negative() && !x.is_nan(), spec.sign), &body, true, out);
    Some(())
}

/// Formats `fmt` (Python `str.format` style, named fields only) with the
/// items of `kwargs`.
pub fn format(fmt: &DataSlice, kwargs: &[(&str, &DataSlice)]) -> Result<DataSlice> {
    let op = "kd.strings.format";
    let p = prepare_format(op, fmt, kwargs)?;
    let dtype = p.dtype();
    if p.operands[0].column.is_none() {
        return Ok(p.missing(dtype));
    }
    if p.all_missing() {
        return Ok(p.missing(if dtype == Schema::None { Schema::String } else { dtype }));
    }
    let names: Vec<&str> = kwargs.iter().map(|(n, _)| *n).collect();
    let fmt_side = TextSide::of(&p.operands[0]);
    let one = match fmt_side {
        TextSide::One(f) => Some(parse_format(op, &String::from_utf8_lossy(f), &names)?),
        _ => None,
    };
    let presence = p.presence();
    if let Some(fields) = &one {
        let widths = fields.iter().map(|f| match f {
            Field::Text(t) => t.len(),
            Field::Arg(_, spec) => parse_spec(spec).map_or(0, |s| s.width),
        });
        reserve_total(op, present_count(p.len(), presence.as_ref()), widths)?;
    }
    let errors: Mutex<Option<Error>> = Mutex::new(None);
    let out = text_map(p.len(), presence.as_ref(), 0, |i, out| {
        let parsed;
        let fields = match &one {
            Some(f) => f,
            None => match parse_format(op, &String::from_utf8_lossy(fmt_side.get(i)), &names) {
                Ok(f) => {
                    parsed = f;
                    &parsed
                }
                Err(e) => {
                    errors.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                    return false;
                }
            },
        };
        let mut text = String::new();
        for field in fields {
            match field {
                Field::Text(t) => text.push_str(t),
                Field::Arg(k, spec) => {
                    let o = &p.operands[k + 1];
                    let v = o.column.as_ref().expect("present argument").values.get(o.index(i));
                    let fail = |why: Option<String>| {
                        let why = why.map_or(String::new(), |w| format!(": {w}"));
                        let e = Error::value(op, format!("failed to format value of type {} with format '{spec}'{why}", v.dtype()));
                        errors.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                        false
                    };
                    if let Some(parsed) = parse_spec(spec) {
                        if let Err(why) = reserve_field(parsed.width, parsed.precision, &mut text) {
                            return fail(Some(why));
                        }
                    }
                    if format_value(v, spec, &mut text).is_none() {
                        return fail(None);
                    }
                }
            }
        }
        if out.try_reserve(text.len()).is_err() {
            errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(Error::value(op, "the formatted text is more than this machine can allocate"));
            return false;
        }
        out.extend_from_slice(text.as_bytes());
        true
    });
    if let Some(e) = errors.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    finish_text(&p, dtype, out)
}

/// One conversion of a printf format.
struct Conv {
    arg: usize,
    flags: String,
    width: Option<usize>,
    width_arg: Option<usize>,
    precision: Option<usize>,
    conv: char,
}

enum PrintfPiece {
    Text(String),
    Conv(Conv),
}

fn parse_printf(fmt: &str) -> Option<Vec<PrintfPiece>> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let mut next_arg = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            text.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        if chars.get(i) == Some(&'%') {
            text.push('%');
            i += 1;
            continue;
        }
        let digits = |i: &mut usize| {
            let from = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            // Digits past usize saturate: refused as too wide, never wrapped.
            (from < *i).then(|| chars[from..*i].iter().collect::<String>().parse::<usize>().unwrap_or(usize::MAX))
        };
        // `%2$s`: an explicit argument position.
        let save = i;
        let mut position = None;
        if let Some(n) = digits(&mut i) {
            if chars.get(i) == Some(&'$') && n > 0 {
                position = Some(n - 1);
                i += 1;
            } else {
                i = save;
            }
        }
        let mut flags = String::new();
        while i < chars.len() && matches!(chars[i], '-' | '+' | ' ' | '#' | '0') {
            flags.push(chars[i]);
            i += 1;
        }
        let mut width_arg = None;
        let width = if chars.get(i) == Some(&'*') {
            i += 1;
            width_arg = Some(next_arg);
            next_arg += 1;
            None
        } else {
            digits(&mut i)
        };
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            precision = Some(digits(&mut i).unwrap_or(0));
        }
        while i < chars.len() && matches!(chars[i], 'l' | 'h' | 'z' | 'j' | 'L' | 'q' | 't') && !(chars[i] == 'q' && i + 1 >= chars.len()) {
            if chars[i] == 'q' {
                return None;
            }
            i += 1;
        }
        let conv = *chars.get(i)?;
        if !"dicuoxXfFeEgGaAsv".contains(conv) {
            return None;
        }
        i += 1;
        let arg = position.unwrap_or_else(|| {
            next_arg += 1;
            next_arg - 1
        });
        if !text.is_empty() {
            out.push(PrintfPiece::Text(std::mem::take(&mut text)));
        }
        out.push(PrintfPiece::Conv(Conv { arg, flags, width, width_arg, precision, conv }));
    }
    if !text.is_empty() {
        out.push(PrintfPiece::Text(text));
    }
    Some(out)
}

/// Applies one printf conversion to `v`; `None` when the types do not match.
fn printf_value(c: &Conv, width: Option<usize>, v: ScalarRef<'_>, out: &mut String) -> Option<()> {
    let left = c.flags.contains('-');
    let zero = c.flags.contains('0') && !left;
    let plus = if c.flags.contains('+') {
        Some('+')
    } else if c.flags.contains(' ') {
        Some(' ')
    } else {
        None
    };
    let alt = c.flags.contains('#');
    let int = match v {
        ScalarRef::Int32(x) => Some((x as i64, 32)),
        ScalarRef::Int64(x) => Some((x, 64)),
        ScalarRef::Boolean(b) => Some((b as i64, 32)),
        _ => None,
    };
    let (sign, body): (&str, String) = match c.conv {
        'd' | 'i' | 'u' => {
            let (x, _) = int?;
            let mut digits = x.unsigned_abs().to_string();
            if let Some(p) = c.precision.filter(|&p| p > digits.len()) {
                digits = "0".repeat(p - digits.len()) + &digits;
            }
            (sign_of(x < 0, plus), digits)
        }
        'x' | 'X' | 'o' => {
            let (x, bits) = int?;
            let u = if bits == 32 { x as i32 as u32 as u64 } else { x as u64 };
            let body = match c.conv {
                'x' => format!("{}{u:x}", if alt && u != 0 { "0x" } else { "" }),
                'X' => format!("{}{u:X}", if alt && u != 0 { "0X" } else { "" }),
                _ => format!("{}{u:o}", if alt && u != 0 { "0" } else { "" }),
            };
            ("", body)
        }
        'c' => {
            let (x, _) = int?;
            ("", char::from_u32(x as u32)?.to_string())
        }
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
            if matches!(v, ScalarRef::Boolean(_)) {
                return None;
            }
            let x = float_of(v)?;
            let p = c.precision.unwrap_or(6);
            let mag = x.abs();
            let body = match c.conv {
                'f' | 'F' => fixed(mag, p),
                'e' | 'E' => c_exp(mag, p, c.conv == 'E'),
                'g' | 'G' => c_general(mag, p, alt, c.conv == 'G'),
                _ => hex_float(mag, c.conv == 'A'),
            };
            (sign_of(x.is_sign_negative() && !x.is_nan(), plus), body)
        }
        's' => match v {
            ScalarRef::String(s) => ("", c.precision.map_or(s.to_string(), |p| s.chars().take(p).collect())),
            ScalarRef::Bytes(b) => ("", String::from_utf8_lossy(b).into_owned()),
            _ => return None,
        },
        'v' => match v {
            ScalarRef::String(s) => ("", s.to_string()),
            ScalarRef::Bytes(b) => ("", String::from_utf8_lossy(b).into_owned()),
            ScalarRef::Boolean(b) => ("", if b { "true" } else { "false" }.to_string()),
            ScalarRef::Int32(x) => ("", x.to_string()),
            ScalarRef::Int64(x) => ("", x.to_string()),
            ScalarRef::Float32(x) => ("", c_general(x as f64, 6, false, false)),
            ScalarRef::Float64(x) => ("", c_general(x, 6, false, false)),
            _ => return None,
        },
        _ => return None,
    };
    let len = sign.chars().count() + body.chars().count();
    let fill = width.unwrap_or(0).saturating_sub(len);
    let numeric = !matches!(c.conv, 's' | 'v' | 'c');
    if left {
        out.push_str(sign);
        out.push_str(&body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if zero && numeric {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(&body);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(sign);
        out.push_str(&body);
    }
    Some(())
}

/// C's `%a` for a non-negative double.
fn hex_float(x: f64, upper: bool) -> String {
    if x == 0.0 {
        return if upper { "0X0P+0" } else { "0x0p+0" }.to_string();
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mant = bits & ((1u64 << 52) - 1);
    let mut frac = format!("{mant:013x}");
    while frac.ends_with('0') {
        frac.pop();
    }
    let s = if frac.is_empty() { format!("0x1p{exp:+}") } else { format!("0x1.{frac}p{exp:+}") };
    if upper { s.to_uppercase() } else { s }
}

/// Formats `fmt` (printf style: `%d`, `%5.2f`, `%s`, `%x`, `%v`, `%2$s` ...)
/// with the items of `args`.
pub fn printf(fmt: &DataSlice, args: &[&DataSlice]) -> Result<DataSlice> {
    let op = "kd.strings.printf";
    let names: Vec<String> = (1..=args.len()).map(|i| i.to_string()).collect();
    let named: Vec<(&str, &DataSlice)> = names.iter().map(String::as_str).zip(args.iter().copied()).collect();
    let p = prepare_format(op, fmt, &named)?;
    let dtype = p.dtype();
    if p.operands[0].column.is_none() {
        return Ok(p.missing(dtype));
    }
    if p.all_missing() {
        return Ok(p.missing(if dtype == Schema::None { Schema::String } else { dtype }));
    }
    let fmt_side = TextSide::of(&p.operands[0]);
    let presence = p.presence();
    if let TextSide::One(f) = fmt_side {
        if let Some(pieces) = parse_printf(&String::from_utf8_lossy(f)) {
            let widths = pieces.iter().map(|piece| match piece {
                PrintfPiece::Text(t) => t.len(),
                PrintfPiece::Conv(c) => c.width.unwrap_or(0),
            });
            reserve_total(op, present_count(p.len(), presence.as_ref()), widths)?;
        }
    }
    let errors: Mutex<Option<Error>> = Mutex::new(None);
    let mismatch = |f: &str| Error::value(op, format!("format specification '{f}' doesn't match format arguments"));
    let out = text_map(p.len(), presence.as_ref(), 0, |i, out| {
        let f = String::from_utf8_lossy(fmt_side.get(i));
        let fail = |e: Error| {
            errors.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            false
        };
        let Some(pieces) = parse_printf(&f) else { return fail(mismatch(&f)) };
        let value = |k: usize| {
            let o = p.operands.get(k + 1)?;
            Some(o.column.as_ref()?.values.get(o.index(i)))
        };
        let mut text = String::new();
        for piece in &pieces {
            match piece {
                PrintfPiece::Text(t) => text.push_str(t),
                PrintfPiece::Conv(c) => {
                    let width = match c.width_arg {
                        Some(k) => match value(k) {
                            Some(ScalarRef::Int32(w)) => Some(w.max(0) as usize),
                            Some(ScalarRef::Int64(w)) => Some(w.max(0) as usize),
                            _ => return fail(mismatch(&f)),
                        },
                        None => c.width,
                    };
                    let Some(v) = value(c.arg) else { return fail(mismatch(&f)) };
                    if let Err(why) = reserve_field(width.unwrap_or(0), c.precision, &mut text) {
                        return fail(Error::value(op, format!("format specification '{f}' cannot be applied: {why}")));
                    }
                    if printf_value(c, width, v, &mut text).is_none() {
                        return fail(mismatch(&f));
                    }
                }
            }
        }
        if out.try_reserve(text.len()).is_err() {
            return fail(Error::value(op, "the formatted text is more than this machine can allocate"));
        }
        out.extend_from_slice(text.as_bytes());
        true
    });
    if let Some(e) = errors.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    finish_text(&p, dtype, out)
}

/// Slices referenced by f-string fields (see [`stash`]), by id.
fn stash_store() -> &'static Mutex<(u64, BTreeMap<u64, DataSlice>)> {
    static STORE: OnceLock<Mutex<(u64, BTreeMap<u64, DataSlice>)>> = OnceLock::new();
    STORE.get_or_init(Default::default)
}

/// Fields kept for `fstr`; the oldest are dropped past this.
const STASH_LIMIT: usize = 4096;
const FIELD_START: char = '\u{1e}';
const FIELD_END: char = '\u{1f}';

/// The text `DataSlice.__format__` returns for `f"{x:spec}"`: a field that
/// [`fstr`] replaces with `x` formatted by `spec`.
pub fn stash(x: &DataSlice, spec: &str) -> String {
    let mut store = stash_store().lock().unwrap_or_else(|e| e.into_inner());
    let id = store.0;
    store.0 += 1;
    store.1.insert(id, x.clone());
    while store.1.len() > STASH_LIMIT {
        store.1.pop_first();
    }
    format!("{FIELD_START}plait:{id}:{spec}{FIELD_END}")
}

/// Evaluates an f-string whose fields are slices: `kd.fstr(f"{x:s} + {y:.2f}")`.
pub fn fstr(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.fstr";
    let text = match (x.is_item(), x.get(0)) {
        (true, Some(ScalarRef::String(s))) => s.to_string(),
        _ => {
            return Err(Error::type_error(op, format!("argument `x` must be a Python str or a STRING item, got {}", crate::describe(x))));
        }
    };
    let mut fmt = String::new();
    let mut names = Vec::new();
    let mut slices = Vec::new();
    let mut rest = text.as_str();
    {
        let store = stash_store().lock().unwrap_or_else(|e| e.into_inner());
        while let Some(start) = rest.find(FIELD_START) {
            let literal = &rest[..start];
            fmt.push_str(&literal.replace('{', "{{").replace('}', "}}"));
            let after = &rest[start + FIELD_START.len_utf8()..];
            let Some(end) = after.find(FIELD_END) else { break };
            let field = &after[..end];
            let parsed = field.strip_prefix("plait:").and_then(|f| f.split_once(':'));
            let Some((id, spec)) = parsed else { break };
            let slice = id.parse::<u64>().ok().and_then(|id| store.1.get(&id).cloned());
            let Some(slice) = slice else {
                return Err(Error::value(op, "the f-string refers to a DataSlice that is no longer available"));
            };
            let name = format!("_{}", names.len());
            let spec = if spec == "s" { "" } else { spec };
            let _ = write!(fmt, "{{{name}{}{spec}}}", if spec.is_empty() { "" } else { ":" });
            names.push(name);
            slices.push(slice);
            rest = &after[end + FIELD_END.len_utf8()..];
        }
    }
    if names.is_empty() {
        return Err(Error::value(op, "FString has nothing to format. Forgot to specify format `{...:s}`?"));
    }
    fmt.push_str(&rest.replace('{', "{{").replace('}', "}}"));
    let fmt = DataSlice::item(Some(ScalarRef::String(&fmt)), Schema::String)?;
    let kwargs: Vec<(&str, &DataSlice)> = names.iter().map(String::as_str).zip(slices.iter()).collect();
    format(&fmt, &kwargs).map_err(|e| e.raised_by("kd.strings.format", op))
}
