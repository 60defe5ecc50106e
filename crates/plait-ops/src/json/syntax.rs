//! Koda's message for JSON text that does not parse.
//!
//! Koda parses JSON with nlohmann/json, whose messages say where reading
//! stopped and what was read since the last string or number began
//! ("near token", "last read"), in the parser's terms (`syntax error while
//! parsing object key - unexpected ']'; expected string literal`). plait's
//! parser (`parse.rs`) reads values without tokens, so when it finds text
//! invalid the text is read again here, token by token as nlohmann reads
//! it, for the first error nlohmann would report. Invalid text is rare;
//! this reader is simple rather than fast. Nesting is a stack, not
//! recursion.

/// A byte read, or the end of the text.
const EOF: i32 = -1;

/// What the lexer returns, with nlohmann's names for messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    BeginArray,
    EndArray,
    BeginObject,
    EndObject,
    NameSeparator,
    ValueSeparator,
    True,
    False,
    Null,
    String,
    Integer,
    Float,
    EndOfInput,
    ParseError,
}

impl Token {
    fn name(self) -> &'static str {
        match self {
            Token::BeginArray => "'['",
            Token::EndArray => "']'",
            Token::BeginObject => "'{'",
            Token::EndObject => "'}'",
            Token::NameSeparator => "':'",
            Token::ValueSeparator => "','",
            Token::True => "true literal",
            Token::False => "false literal",
            Token::Null => "null literal",
            Token::String => "string literal",
            Token::Integer | Token::Float => "number literal",
            Token::EndOfInput => "end of input",
            Token::ParseError => "<parse error>",
        }
    }
}

/// What a value may start with (nlohmann's `literal_or_value`).
const A_VALUE: &str = "'[', '{', or a literal";

/// nlohmann's lexer: one byte at a time, counting the bytes, lines and
/// columns read, and keeping the bytes read since the current string or
/// number began (literals and structural characters do not start over).
struct Lexer<'s> {
    s: &'s [u8],
    next: usize,
    current: i32,
    next_unget: bool,
    read: usize,
    lines: usize,
    line_chars: usize,
    token: Vec<u8>,
    error: String,
}

impl Lexer<'_> {
    fn get(&mut self) -> i32 {
        self.read += 1;
        self.line_chars += 1;
        if self.next_unget {
            self.next_unget = false;
        } else {
            self.current = match self.s.get(self.next) {
                Some(&b) => {
                    self.next += 1;
                    b as i32
                }
                None => EOF,
            };
        }
        if self.current != EOF {
            self.token.push(self.current as u8);
        }
        if self.current == b'\n' as i32 {
            self.lines += 1;
            self.line_chars = 0;
        }
        self.current
    }

    fn unget(&mut self) {
        self.next_unget = true;
        self.read -= 1;
        if self.line_chars == 0 {
            self.lines = self.lines.saturating_sub(1);
        } else {
            self.line_chars -= 1;
        }
        if self.current != EOF {
            self.token.pop();
        }
    }

    /// A string or number begins: what was read before is dropped.
    fn reset(&mut self) {
        self.token.clear();
        self.token.push(self.current as u8);
    }

    fn fail(&mut self, message: impl Into<String>) -> Token {
        self.error = message.into();
        Token::ParseError
    }

    fn scan(&mut self) -> Token {
        if self.read == 0 {
            // A byte-order mark is skipped; a byte 0xEF starting anything
            // else is an error.
            if self.get() == 0xEF {
                if !(self.get() == 0xBB && self.get() == 0xBF) {
                    return self.fail("invalid BOM; must be 0xEF 0xBB 0xBF if given");
                }
            } else {
                self.unget();
            }
        }
        while matches!(self.get(), 0x20 | 0x09 | 0x0A | 0x0D) {}
        match self.current {
            0x5B => Token::BeginArray,
            0x5D => Token::EndArray,
            0x7B => Token::BeginObject,
            0x7D => Token::EndObject,
            0x3A => Token::NameSeparator,
            0x2C => Token::ValueSeparator,
            0x74 => self.literal(b"true", Token::True),
            0x66 => self.literal(b"false", Token::False),
            0x6E => self.literal(b"null", Token::Null),
            0x22 => self.string(),
            0x2D | 0x30..=0x39 => self.number(),
            0 | EOF => Token::EndOfInput,
            _ => self.fail("invalid literal"),
        }
    }

    fn literal(&mut self, word: &[u8], token: Token) -> Token {
        for &b in &word[1..] {
            if self.get() != b as i32 {
                return self.fail("invalid literal");
            }
        }
        token
    }

    fn is_digit(c: i32) -> bool {
        (0x30..=0x39).contains(&c)
    }

    fn number(&mut self) -> Token {
        self.reset();
        let mut float = false;
        let mut c = self.current;
        if c == b'-' as i32 {
            c = self.get();
            if !Self::is_digit(c) {
                return self.fail("invalid number; expected digit after '-'");
            }
        }
        if c != b'0' as i32 {
            while Self::is_digit(self.get()) {}
        } else {
            self.get();
        }
        if self.current == b'.' as i32 {
            float = true;
            if !Self::is_digit(self.get()) {
                return self.fail("invalid number; expected digit after '.'");
            }
            while Self::is_digit(self.get()) {}
        }
        if self.current == b'e' as i32 || self.current == b'E' as i32 {
            float = true;
            let c = self.get();
            if c == b'+' as i32 || c == b'-' as i32 {
                if !Self::is_digit(self.get()) {
                    return self.fail("invalid number; expected digit after exponent sign");
                }
            } else if !Self::is_digit(c) {
                return self.fail("invalid number; expected '+', '-', or digit after exponent");
            }
            while Self::is_digit(self.get()) {}
        }
        self.unget();
        if float { Token::Float } else { Token::Integer }
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = u8::try_from(self.get()).ok().and_then(|c| (c as char).to_digit(16))?;
            value = value * 16 + digit;
        }
        Some(value)
    }

    fn string(&mut self) -> Token {
        self.reset();
        loop {
            match self.get() {
                EOF => return self.fail("invalid string: missing closing quote"),
                0x22 => return Token::String,
                0x5C => match u8::try_from(self.get()).unwrap_or(0) {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        let Some(first) = self.hex4() else { return self.fail("invalid string: '\\u' must be followed by 4 hex digits") };
                        if (0xD800..=0xDBFF).contains(&first) {
                            if !(self.get() == b'\\' as i32 && self.get() == b'u' as i32) {
                                return self.fail("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
                            }
                            let Some(second) = self.hex4() else { return self.fail("invalid string: '\\u' must be followed by 4 hex digits") };
                            if !(0xDC00..=0xDFFF).contains(&second) {
                                return self.fail("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
                            }
                        } else if (0xDC00..=0xDFFF).contains(&first) {
                            return self.fail("invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
                        }
                    }
                    _ => return self.fail("invalid string: forbidden character after backslash"),
                },
                c @ 0..=0x1F => return self.fail(control_character(c as u8)),
                // (The text is a Rust string: its other bytes are UTF-8.)
                _ => {}
            }
        }
    }

    /// The bytes read since the current string or number began, control
    /// characters as `<U+000A>`.
    fn token_text(&self) -> String {
        let mut out = Vec::with_capacity(self.token.len());
        for &b in &self.token {
            if b <= 0x1F {
                out.extend_from_slice(format!("<U+{b:04X}>").as_bytes());
            } else {
                out.push(b);
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Koda's message for a syntax error `what` where reading stopped.
    fn syntax_error(&self, what: &str) -> String {
        format!(
            "json parse error at position {} near token \"{}\": [json.exception.parse_error.101] parse error at line {}, column {}: {what}",
            self.read,
            self.token_text(),
            self.lines + 1,
            self.line_chars
        )
    }
}

/// nlohmann's message for a control character inside a string.
fn control_character(c: u8) -> String {
    const NAMES: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4",
        "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
    ];
    let short = match c {
        0x08 => " or \\b",
        0x09 => " or \\t",
        0x0A => " or \\n",
        0x0C => " or \\f",
        0x0D => " or \\r",
        _ => "",
    };
    format!("invalid string: control character U+{c:04X} ({}) must be escaped to \\u{c:04X}{short}", NAMES[c as usize])
}

/// The parser reading tokens from the lexer.
struct Parser<'s> {
    lexer: Lexer<'s>,
    last: Token,
}

impl Parser<'_> {
    fn next(&mut self) -> Token {
        self.last = self.lexer.scan();
        self.last
    }

    /// `syntax error while parsing {context} - ...; expected {expected}`.
    fn error(&self, expected: Option<&str>, context: &str) -> String {
        let mut what = format!("syntax error while parsing {context} - ");
        if self.last == Token::ParseError {
            what.push_str(&format!("{}; last read: '{}'", self.lexer.error, self.lexer.token_text()));
        } else {
            what.push_str(&format!("unexpected {}", self.last.name()));
        }
        if let Some(expected) = expected {
            what.push_str(&format!("; expected {expected}"));
        }
        self.lexer.syntax_error(&what)
    }

    /// An object's key and its colon, after which a value is read.
    fn key(&mut self) -> Result<(), String> {
        if self.last != Token::String {
            return Err(self.error(Some(Token::String.name()), "object key"));
        }
        if self.next() != Token::NameSeparator {
            return Err(self.error(Some(Token::NameSeparator.name()), "object separator"));
        }
        self.next();
        Ok(())
    }

    fn parse(&mut self) -> Result<(), String> {
        self.next();
        // Open arrays (true) and objects (false).
        let mut open: Vec<bool> = Vec::new();
        loop {
            // A value starts at the last token read.
            match self.last {
                Token::BeginObject => {
                    if self.next() != Token::EndObject {
                        self.key()?;
                        open.push(false);
                        continue;
                    }
                }
                Token::BeginArray => {
                    if self.next() != Token::EndArray {
                        open.push(true);
                        continue;
                    }
                }
                Token::Float => {
                    let text = String::from_utf8_lossy(&self.lexer.token).into_owned();
                    if text.parse::<f64>().is_ok_and(f64::is_infinite) {
                        return Err(format!(
                            "json parse error at position {} near token \"{text}\": [json.exception.out_of_range.406] number overflow parsing '{text}'",
                            self.lexer.read
                        ));
                    }
                }
                Token::True | Token::False | Token::Null | Token::String | Token::Integer => {}
                Token::ParseError => return Err(self.error(None, "value")),
                Token::EndOfInput if self.lexer.read == 1 => {
                    return Err(self
                        .lexer
                        .syntax_error("attempting to parse an empty input; check that your input string or stream contains the expected JSON"));
                }
                _ => return Err(self.error(Some(A_VALUE), "value")),
            }
            // A value was read: close what it ends.
            loop {
                let Some(&is_array) = open.last() else {
                    if self.next() != Token::EndOfInput {
                        return Err(self.error(Some(Token::EndOfInput.name()), "value"));
                    }
                    return Ok(());
                };
                match (is_array, self.next()) {
                    (true, Token::ValueSeparator) => {
                        self.next();
                        break;
                    }
                    (false, Token::ValueSeparator) => {
                        self.next();
                        self.key()?;
                        break;
                    }
                    (true, Token::EndArray) | (false, Token::EndObject) => {
                        open.pop();
                    }
                    (true, _) => return Err(self.error(Some(Token::EndArray.name()), "array")),
                    (false, _) => return Err(self.error(Some(Token::EndObject.name()), "object")),
                }
            }
        }
    }
}

/// Koda's message for the first error in JSON `text`, or `None` when the
/// text is valid JSON.
pub fn syntax_error(text: &str) -> Option<String> {
    let lexer = Lexer {
        s: text.as_bytes(),
        next: 0,
        current: EOF,
        next_unget: false,
        read: 0,
        lines: 0,
        line_chars: 0,
        token: Vec::new(),
        error: String::new(),
    };
    Parser { lexer, last: Token::EndOfInput }.parse().err()
}

#[cfg(test)]
mod tests {
    use super::syntax_error;

    fn message(text: &str) -> String {
        let full = syntax_error(text).expect("invalid");
        full.split_once(": ").map_or(full.clone(), |(_, rest)| rest.to_string())
    }

    #[test]
    fn valid_text_has_no_error() {
        for text in ["1", " [1, 2.5e3, -0] ", "{\"a\": {\"b\": [true, false, null]}}", "\"\\ud83d\\ude00\"", "\u{feff}1", "[]", "{}"] {
            assert_eq!(syntax_error(text), None, "{text}");
        }
    }

    #[test]
    fn errors_say_what_nlohmann_says() {
        assert!(message("[1,]").ends_with("syntax error while parsing value - unexpected ']'; expected '[', '{', or a literal"));
        assert!(message("{\"a\":1 \"b\":2}").ends_with("syntax error while parsing object - unexpected string literal; expected '}'"));
        assert!(message("[null nul]").ends_with("syntax error while parsing array - invalid literal; last read: '[null nul]'; expected ']'"));
        assert!(syntax_error("[1,]").unwrap().starts_with("json parse error at position 4 near token \"1,]\""));
        assert!(syntax_error("\"a\nb\"").unwrap().contains("line 2, column 0"));
        assert!(syntax_error("").unwrap().contains("attempting to parse an empty input"));
        assert!(syntax_error("[1e999]").unwrap().contains("[json.exception.out_of_range.406] number overflow parsing '1e999'"));
    }

    #[test]
    fn deep_nesting_is_read_without_recursion() {
        let text = "[".repeat(200_000);
        assert!(syntax_error(&text).unwrap().contains("unexpected end of input"));
    }
}
