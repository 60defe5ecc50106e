//! The text form of slice types read back: `FLOAT32[n, *]`,
//! `Entity(x=INT32, y=LIST[STRING])[2*n + 1]`, `?[...]` — what `Display`
//! writes. Each `*` read is a ragged dimension with a total of its own,
//! named by `ragged_total`.

use std::sync::Arc;

use super::dim::{Dim, RAGGED_PREFIX};
use super::schema_type::SchemaType;
use super::size::Size;
use super::slice_type::SliceType;
use crate::schema::Schema;

/// Why a text is not a slice type: what was expected, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub position: usize,
    pub expected: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expected {} at position {}", self.expected, self.position)
    }
}

/// How deeply schemas may nest in a text (the parser recurses on them).
const MAX_NESTING: usize = 64;

struct Parser<'t, F: FnMut() -> Size> {
    text: &'t str,
    pos: usize,
    ragged_total: F,
}

/// Reads the slice type `text` (the whole of it).
pub fn parse_slice_type(text: &str, ragged_total: impl FnMut() -> Size) -> Result<SliceType, ParseError> {
    let mut p = Parser { text, pos: 0, ragged_total };
    let t = p.slice_type()?;
    p.skip_space();
    if p.pos != text.len() {
        return Err(p.error("the end of the type"));
    }
    Ok(t)
}

/// What a functor's type says of its output: `FLOAT32[n]`, `?`,
/// `JAGGED_SHAPE[n, *]`, `DATA_BAG`, or a tuple of those, `(A, B)`.
#[derive(Clone, Debug, PartialEq)]
pub enum OutputType {
    Unknown,
    Slice(SliceType),
    /// A JaggedShape of these dims (`None`: rank unknown).
    Shape(Option<Vec<Dim>>),
    Bag,
    Tuple(Vec<OutputType>),
}

/// A functor's type as `FunctorType` writes it: `(x: INT32[n], sz:
/// INT64[]=sz) -> FLOAT32[n]`: each input's type, and for an integer item
/// standing for a size (`=sz`) that size; then the output's.
pub type FunctorSignature = (Vec<(String, SliceType, Option<Size>)>, OutputType);

/// Reads the functor type `text`.
pub fn parse_functor_type(text: &str, ragged_total: impl FnMut() -> Size) -> Result<FunctorSignature, ParseError> {
    let mut p = Parser { text, pos: 0, ragged_total };
    p.expect("(")?;
    let inputs = p.list(")", |p| {
        let name = p.identifier().ok_or_else(|| p.error("a parameter name"))?.to_string();
        p.expect(":")?;
        let t = p.slice_type()?;
        let value = if p.eat("=") { Some(p.size()?) } else { None };
        Ok((name, t, value))
    })?;
    p.expect("->")?;
    let output = p.output(0)?;
    p.skip_space();
    if p.pos != text.len() {
        return Err(p.error("the end of the type"));
    }
    Ok((inputs, output))
}

impl<'t, F: FnMut() -> Size> Parser<'t, F> {
    fn error(&self, expected: &str) -> ParseError {
        ParseError { position: self.pos, expected: expected.to_string() }
    }

    fn skip_space(&mut self) {
        while self.rest().starts_with(' ') {
            self.pos += 1;
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    /// Consumes `token` (after spaces) if it comes next.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ParseError> {
        if self.eat(token) { Ok(()) } else { Err(self.error(&format!("'{token}'"))) }
    }

    fn identifier(&mut self) -> Option<&'t str> {
        self.skip_space();
        let rest: &'t str = &self.text[self.pos..];
        let len =
            rest.char_indices().find(|&(i, c)| !(c.is_alphanumeric() || c == '_') || (i == 0 && c.is_ascii_digit())).map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(&self.text[self.pos - len..self.pos])
    }

    fn number(&mut self) -> Option<Result<i64, ParseError>> {
        self.skip_space();
        let rest = self.rest();
        let len = rest.chars().take_while(char::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        let start = self.pos;
        self.pos += len;
        Some(self.text[start..self.pos].parse().map_err(|_| ParseError { position: start, expected: "a number within 64 bits".to_string() }))
    }

    fn slice_type(&mut self) -> Result<SliceType, ParseError> {
        let schema = self.schema(0)?;
        Ok(SliceType { schema, dims: self.dims()? })
    }

    /// `[d, ...]`, or `[...]` for an unknown rank (`None`).
    fn dims(&mut self) -> Result<Option<Vec<Dim>>, ParseError> {
        self.expect("[")?;
        if self.eat("...") {
            self.expect("]")?;
            return Ok(None);
        }
        self.list("]", Self::dim).map(Some)
    }

    fn output(&mut self, depth: usize) -> Result<OutputType, ParseError> {
        if depth > MAX_NESTING {
            return Err(self.error(&format!("tuples nested at most {MAX_NESTING} deep")));
        }
        if self.eat("?") {
            Ok(OutputType::Unknown)
        } else if self.eat("(") {
            self.list(")", |p| p.output(depth + 1)).map(OutputType::Tuple)
        } else if self.eat("DATA_BAG") {
            Ok(OutputType::Bag)
        } else if self.eat("JAGGED_SHAPE") {
            self.dims().map(OutputType::Shape)
        } else {
            self.slice_type().map(OutputType::Slice)
        }
    }

    /// Items read by `item`, separated by commas, up to `close` (consumed;
    /// the opening bracket is read already).
    fn list<T>(&mut self, close: &str, mut item: impl FnMut(&mut Self) -> Result<T, ParseError>) -> Result<Vec<T>, ParseError> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(",")?;
        }
    }

    fn schema(&mut self, depth: usize) -> Result<SchemaType, ParseError> {
        if depth > MAX_NESTING {
            return Err(self.error(&format!("schemas nested at most {MAX_NESTING} deep")));
        }
        if self.eat("?") {
            return Ok(SchemaType::Unknown);
        }
        let start = self.pos;
        let name = self.identifier().ok_or_else(|| self.error("a schema"))?.to_string();
        match name.as_str() {
            "Entity" => {
                self.expect("(")?;
                let attrs = self.list(")", |p| {
                    let attr = p.identifier().ok_or_else(|| p.error("an attribute name"))?;
                    p.expect("=")?;
                    Ok((Arc::from(attr), p.schema(depth + 1)?))
                })?;
                Ok(SchemaType::entity(attrs))
            }
            "LIST" => {
                self.expect("[")?;
                let items = self.schema(depth + 1)?;
                self.expect("]")?;
                Ok(SchemaType::List(Box::new(items)))
            }
            "DICT" => {
                self.expect("{")?;
                let keys = self.schema(depth + 1)?;
                self.expect(",")?;
                let values = self.schema(depth + 1)?;
                self.expect("}")?;
                Ok(SchemaType::Dict(Box::new(keys), Box::new(values)))
            }
            other => match Schema::from_name(other) {
                Some(s) if !s.is_struct() => Ok(SchemaType::Named(s)),
                _ => Err(ParseError {
                    position: start,
                    expected: "a schema name (INT32, STRING, OBJECT, Entity(...), LIST[...], DICT{...}, ?)".to_string(),
                }),
            },
        }
    }

    fn dim(&mut self) -> Result<Dim, ParseError> {
        if self.eat("*") {
            // `*e`: a ragged edge named `e`, the same edge wherever the name
            // stands (an output's rows are its input's); `*`: an edge of
            // its own.
            let rest = &self.text[self.pos..];
            if rest.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && let Some(name) = self.identifier()
            {
                return Ok(Dim::Ragged { total: Size::param(&format!("{RAGGED_PREFIX}{name}")) });
            }
            return Ok(Dim::Ragged { total: (self.ragged_total)() });
        }
        if self.eat("?") {
            return Ok(Dim::Unknown);
        }
        let start = self.pos;
        let size = self.size()?;
        if size.as_constant().is_some_and(|k| k < 0) {
            return Err(ParseError { position: start, expected: "a size that is not negative".to_string() });
        }
        Ok(Dim::Uniform(size))
    }

    /// `term (('+' | '-') term)*`, a term being `k`, `name` or `k*name`,
    /// the first one possibly negated.
    fn size(&mut self) -> Result<Size, ParseError> {
        let overflow = |p: &Self| p.error("a size within 64 bits");
        let mut sign = if self.eat("-") { -1 } else { 1 };
        let mut total = Size::constant(0);
        loop {
            let term = self.term()?.checked_scale(sign).ok_or_else(|| overflow(self))?;
            total = total.checked_add(&term).ok_or_else(|| overflow(self))?;
            if self.eat("+") {
                sign = 1;
            } else if self.eat("-") {
                sign = -1;
            } else {
                return Ok(total);
            }
        }
    }

    fn term(&mut self) -> Result<Size, ParseError> {
        if let Some(k) = self.number() {
            let k = k?;
            if !self.eat("*") {
                return Ok(Size::constant(k));
            }
            let name = self.identifier().ok_or_else(|| self.error("a size name"))?;
            return Size::param(name).checked_scale(k).ok_or_else(|| self.error("a size within 64 bits"));
        }
        let name = self.identifier().ok_or_else(|| self.error("a dimension (a size, '*' or '?')"))?;
        Ok(Size::param(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SliceType, ParseError> {
        let mut k = 0;
        parse_slice_type(text, || {
            k += 1;
            Size::param(&format!("*{k}"))
        })
    }

    #[test]
    fn round_trips() {
        for text in [
            "FLOAT32[n, *]",
            "Entity(x=INT32)[n, m]",
            "INT32[]",
            "?[...]",
            "LIST[STRING][3, ?]",
            "DICT{STRING, Entity(a=?, b=LIST[INT64])}[2*n + 1]",
            "MASK[m - 3*n - 4 + k]",
            "OBJECT[-n + 5]",
        ] {
            let t = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let again = t.to_string();
            assert_eq!(parse(&again).unwrap().to_string(), again, "{text}");
        }
        assert_eq!(parse("MASK[m - 3*n - 4 + k]").unwrap().to_string(), "MASK[k + m - 3*n - 4]");
        assert_eq!(parse(" INT32 [ n , 2 ] ").unwrap().to_string(), "INT32[n, 2]");
    }

    #[test]
    fn functor_types() {
        let mut k = 0;
        let (inputs, output) = parse_functor_type("(x: INT32[n, *], y: ?[...]) -> FLOAT32[n]", || {
            k += 1;
            Size::param(&format!("*{k}"))
        })
        .unwrap();
        assert_eq!(inputs.iter().map(|(n, t, _)| format!("{n}: {t}")).collect::<Vec<_>>(), ["x: INT32[n, *]", "y: ?[...]"]);
        let (inputs, _) = parse_functor_type("(sz: INT64[]=sz) -> INT64[sz + 1]", || Size::constant(0)).unwrap();
        assert_eq!(inputs[0].2, Some(Size::param("sz")));
        assert!(matches!(output, OutputType::Slice(t) if t.to_string() == "FLOAT32[n]"));
        assert_eq!(parse_functor_type("() -> ?", || Size::constant(0)).unwrap().1, OutputType::Unknown);
        let (_, output) = parse_functor_type("(x: INT32[n]) -> (INT32[n], (JAGGED_SHAPE[n], DATA_BAG), ?)", || Size::constant(0)).unwrap();
        let OutputType::Tuple(items) = output else { panic!("a tuple") };
        assert!(
            matches!(&items[1], OutputType::Tuple(inner) if inner[0] == OutputType::Shape(Some(vec![Dim::Uniform(Size::param("n"))])) && inner[1] == OutputType::Bag)
        );
        assert_eq!(items[2], OutputType::Unknown);
        assert!(parse_functor_type("(x INT32[n]) -> ?", || Size::constant(0)).is_err());
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(parse("INT32").unwrap_err(), ParseError { position: 5, expected: "'['".to_string() });
        assert_eq!(parse("FOO[1]").unwrap_err().position, 0);
        assert!(parse("INT32[1,]").is_err());
        assert!(parse("INT32[-1]").is_err());
        assert!(parse("INT32[n] x").is_err());
        assert!(parse("INT32[99999999999999999999]").is_err());
        assert!(parse("Entity(x=)[1]").is_err());
        let deep = format!("{}INT32{}[1]", "LIST[".repeat(100), "]".repeat(100));
        assert!(parse(&deep).unwrap_err().expected.contains("nested"));
    }
}
