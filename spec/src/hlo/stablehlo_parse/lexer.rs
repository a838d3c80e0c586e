//! Tokens of MLIR text as StableHLO uses it (MLIR LangRef, "Lexical structure"): SSA values
//! (`%x`, `%3#1`), symbols (`@main`, `@"a-b"`), block labels (`^bb0`), dialect attributes and
//! types (`#stablehlo...`, `!stablehlo.token`), bare identifiers (`stablehlo.add`, `tensor`,
//! `f32`), integers (decimal, `0x` hex), floats, strings and punctuation.
//!
//! The lexer is pull-based over byte offsets, like the HLO lexer: the parser asks for the token
//! at its position, and the type parser scans raw characters where MLIR's grammar is not
//! token-based (`4x8xf32` inside `tensor<...>`). Whitespace and `//` comments separate tokens.

use super::StablehloParseError;

/// A token kind with its payload.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// `%name` (without `%`), with the result number of `%name#N` when given.
    Value(String, Option<usize>),
    /// `@name` or `@"quoted name"` (without `@`, unescaped).
    Symbol(String),
    /// `^bb0` (without `^`).
    Block(String),
    /// `#name` or `#dialect.name` (without `#`): a dialect attribute or an attribute alias.
    Hash(String),
    /// `!name` (without `!`): a dialect type.
    Bang(String),
    /// `[A-Za-z_][A-Za-z0-9_$.]*`: keywords, operation names, builtin types.
    Ident(String),
    /// An integer: `-`? decimal digits, or `-`? `0x` hex digits (the text is kept: hex inside
    /// `dense<...>` of a float type is a bit pattern, not a value).
    Int(String),
    /// A decimal number with a fraction or an exponent (`1.000000e+00`, `-2.5`).
    Float(String),
    /// A double-quoted string, unescaped.
    Str(String),
    /// `->`
    Arrow,
    /// A single punctuation character: `( ) { } [ ] < > , : = ? * + -`.
    Punct(char),
    Eof,
}

/// A token and its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Tok {
    /// How an error message names the token: "`(`", "`stablehlo.add`", "end of input", ...
    pub fn describe(&self) -> String {
        match self {
            Tok::Value(s, None) => format!("`%{s}`"),
            Tok::Value(s, Some(k)) => format!("`%{s}#{k}`"),
            Tok::Symbol(s) => format!("`@{s}`"),
            Tok::Block(s) => format!("`^{s}`"),
            Tok::Hash(s) => format!("`#{s}`"),
            Tok::Bang(s) => format!("`!{s}`"),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(s) => format!("integer `{s}`"),
            Tok::Float(s) => format!("number `{s}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Arrow => "`->`".into(),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// True for characters that continue a bare identifier (`stablehlo.add`, `f8E4M3FN`).
pub(crate) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// True for characters of a `%value`, `^block` or `@symbol` name.
fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

/// The error at byte `offset` of `src`.
pub(crate) fn error_at(
    src: &str,
    offset: usize,
    message: impl Into<String>,
) -> StablehloParseError {
    StablehloParseError::at(src, offset, message)
}

/// Skips whitespace and `//` comments from `pos`; returns the offset of the next significant byte.
pub(crate) fn skip_trivia(src: &str, mut pos: usize) -> usize {
    let b = src.as_bytes();
    loop {
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if b[pos..].starts_with(b"//") {
            while pos < b.len() && b[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        return pos;
    }
}

/// The token at `pos` (which must not be trivia).
///
/// Errors: an unterminated string, an invalid escape, a `%`, `@`, `^`, `#` or `!` not followed
/// by a name, or a character MLIR text does not use.
pub(crate) fn lex_at(src: &str, pos: usize) -> Result<Token, StablehloParseError> {
    let b = src.as_bytes();
    let tok = |tok: Tok, end: usize| {
        Ok(Token {
            tok,
            start: pos,
            end,
        })
    };
    let Some(&c) = b.get(pos) else {
        return tok(Tok::Eof, pos);
    };
    let name_end = |from: usize| {
        let mut e = from;
        while e < b.len() && is_suffix_char(b[e]) {
            e += 1;
        }
        e
    };
    match c {
        b'%' => {
            let end = name_end(pos + 1);
            if end == pos + 1 {
                return Err(error_at(src, pos, "expected a value name after `%`"));
            }
            let name = src[pos + 1..end].to_string();
            // `%3#1`: result 1 of `%3`.
            if b.get(end) == Some(&b'#') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
                let mut e = end + 1;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                let k = src[end + 1..e]
                    .parse()
                    .map_err(|_| error_at(src, end + 1, "result number out of range"))?;
                return tok(Tok::Value(name, Some(k)), e);
            }
            tok(Tok::Value(name, None), end)
        }
        b'@' => {
            if b.get(pos + 1) == Some(&b'"') {
                let (s, end) = scan_string(src, pos + 1)?;
                return tok(Tok::Symbol(s), end);
            }
            let end = name_end(pos + 1);
            if end == pos + 1 {
                return Err(error_at(src, pos, "expected a symbol name after `@`"));
            }
            tok(Tok::Symbol(src[pos + 1..end].to_string()), end)
        }
        b'^' => {
            let end = name_end(pos + 1);
            if end == pos + 1 {
                return Err(error_at(src, pos, "expected a block name after `^`"));
            }
            tok(Tok::Block(src[pos + 1..end].to_string()), end)
        }
        b'#' | b'!' => {
            let mut end = pos + 1;
            while end < b.len() && is_ident_char(b[end]) {
                end += 1;
            }
            if end == pos + 1 {
                let what = if c == b'#' { "an attribute" } else { "a type" };
                return Err(error_at(
                    src,
                    pos,
                    format!("expected {what} name after `{}`", c as char),
                ));
            }
            let name = src[pos + 1..end].to_string();
            tok(
                if c == b'#' {
                    Tok::Hash(name)
                } else {
                    Tok::Bang(name)
                },
                end,
            )
        }
        b'"' => {
            let (s, end) = scan_string(src, pos)?;
            tok(Tok::Str(s), end)
        }
        b'-' if b.get(pos + 1) == Some(&b'>') => tok(Tok::Arrow, pos + 2),
        b'-' if b.get(pos + 1).is_some_and(u8::is_ascii_digit) => number(src, pos),
        b'0'..=b'9' => number(src, pos),
        c if c.is_ascii_alphabetic() || c == b'_' => {
            let mut end = pos + 1;
            while end < b.len() && is_ident_char(b[end]) {
                end += 1;
            }
            tok(Tok::Ident(src[pos..end].to_string()), end)
        }
        b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'=' | b'?'
        | b'*' | b'+' | b'-' => tok(Tok::Punct(c as char), pos + 1),
        _ => {
            let ch = src[pos..].chars().next().unwrap_or('?');
            Err(error_at(
                src,
                pos,
                format!("unexpected character `{}`", ch.escape_debug()),
            ))
        }
    }
}

/// An integer or float starting at `pos` (an optional `-` then a digit).
fn number(src: &str, pos: usize) -> Result<Token, StablehloParseError> {
    let b = src.as_bytes();
    let mut end = pos;
    if b[end] == b'-' {
        end += 1;
    }
    let digits_start = end;
    if b[end..].starts_with(b"0x") && b.get(end + 2).is_some_and(u8::is_ascii_hexdigit) {
        end += 2;
        while end < b.len() && b[end].is_ascii_hexdigit() {
            end += 1;
        }
        return Ok(Token {
            tok: Tok::Int(src[pos..end].to_string()),
            start: pos,
            end,
        });
    }
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let mut float = false;
    if b.get(end) == Some(&b'.') {
        float = true;
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(b.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if b.get(e).is_some_and(u8::is_ascii_digit) {
            float = true;
            end = e;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
    }
    debug_assert!(end > digits_start);
    let text = src[pos..end].to_string();
    Ok(Token {
        tok: if float {
            Tok::Float(text)
        } else {
            Tok::Int(text)
        },
        start: pos,
        end,
    })
}

/// The string starting with the `"` at `pos`, unescaped (`\"`, `\\`, `\n`, `\t`, `\XX` hex
/// bytes), and the offset after its closing quote.
///
/// Errors: no closing quote on the line, an invalid escape, or escaped bytes that are not UTF-8.
pub(crate) fn scan_string(src: &str, pos: usize) -> Result<(String, usize), StablehloParseError> {
    let b = src.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = pos + 1;
    loop {
        match b.get(i) {
            None | Some(b'\n') => return Err(error_at(src, pos, "unterminated string")),
            Some(b'"') => break,
            Some(b'\\') => {
                match b.get(i + 1) {
                    Some(b'"') => out.push(b'"'),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(h)
                        if h.is_ascii_hexdigit()
                            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                    {
                        let v = u8::from_str_radix(&src[i + 1..i + 3], 16)
                            .map_err(|_| error_at(src, i, "invalid escape"))?;
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    _ => return Err(error_at(src, i, "invalid escape in string")),
                }
                i += 2;
            }
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
    let s = String::from_utf8(out).map_err(|_| error_at(src, pos, "string is not UTF-8"))?;
    Ok((s, i + 1))
}

/// The parser's position in the source, with token-level helpers.
pub(crate) struct Cursor<'a> {
    pub src: &'a str,
    /// Byte offset of the next unread character.
    pub pos: usize,
    depth: usize,
}

/// Deepest nesting of regions, types and attribute lists the parser accepts (deeper input is an
/// error rather than a stack overflow).
pub(crate) const MAX_DEPTH: usize = 128;

pub(crate) type PResult<T> = Result<T, StablehloParseError>;

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor {
            src,
            pos: 0,
            depth: 0,
        }
    }

    /// The next token, without consuming it (trivia before it is consumed).
    pub fn peek(&mut self) -> PResult<Token> {
        self.pos = skip_trivia(self.src, self.pos);
        lex_at(self.src, self.pos)
    }

    /// The token after the next one, without consuming anything.
    pub fn peek2(&mut self) -> PResult<Token> {
        let first = self.peek()?;
        lex_at(self.src, skip_trivia(self.src, first.end))
    }

    /// Consumes and returns the next token.
    pub fn next(&mut self) -> PResult<Token> {
        let t = self.peek()?;
        self.pos = t.end;
        Ok(t)
    }

    /// True (and consumed) when the next token is `tok`.
    pub fn eat(&mut self, tok: &Tok) -> PResult<bool> {
        let t = self.peek()?;
        if &t.tok == tok {
            self.pos = t.end;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// True (and consumed) when the next token is punctuation `c`.
    pub fn eat_punct(&mut self, c: char) -> PResult<bool> {
        self.eat(&Tok::Punct(c))
    }

    /// True (and consumed) when the next token is the keyword `word`.
    pub fn eat_keyword(&mut self, word: &str) -> PResult<bool> {
        let t = self.peek()?;
        if matches!(&t.tok, Tok::Ident(s) if s == word) {
            self.pos = t.end;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes punctuation `c` or fails with "expected `c` {context}, found X".
    pub fn expect_punct(&mut self, c: char, context: &str) -> PResult<Token> {
        let t = self.next()?;
        if t.tok == Tok::Punct(c) {
            Ok(t)
        } else {
            Err(self.unexpected(&t, &format!("`{c}` {context}")))
        }
    }

    /// Consumes `->` or fails.
    pub fn expect_arrow(&mut self, context: &str) -> PResult<Token> {
        let t = self.next()?;
        if t.tok == Tok::Arrow {
            Ok(t)
        } else {
            Err(self.unexpected(&t, &format!("`->` {context}")))
        }
    }

    /// Consumes keyword `word` or fails.
    pub fn expect_keyword(&mut self, word: &str, context: &str) -> PResult<Token> {
        let t = self.next()?;
        if matches!(&t.tok, Tok::Ident(s) if s == word) {
            Ok(t)
        } else {
            Err(self.unexpected(&t, &format!("`{word}` {context}")))
        }
    }

    /// An integer token's value (decimal or `0x` hex, optionally negative) and its start offset.
    pub fn int(&mut self, what: &str) -> PResult<(i128, usize)> {
        let t = self.next()?;
        match &t.tok {
            Tok::Int(text) => Ok((parse_int(self.src, t.start, text)?, t.start)),
            _ => Err(self.unexpected(&t, what)),
        }
    }

    /// An integer that fits `i64`.
    pub fn i64(&mut self, what: &str) -> PResult<i64> {
        let (v, at) = self.int(what)?;
        i64::try_from(v).map_err(|_| self.error_at(at, format!("{v} does not fit in 64 bits")))
    }

    /// The error at byte offset `at`.
    pub fn error_at(&self, at: usize, message: impl Into<String>) -> StablehloParseError {
        error_at(self.src, at, message)
    }

    /// "expected {what}, found {token}" at the token.
    pub fn unexpected(&self, t: &Token, what: &str) -> StablehloParseError {
        self.error_at(
            t.start,
            format!("expected {what}, found {}", t.tok.describe()),
        )
    }

    /// Enters one level of nesting (regions, lists, types).
    ///
    /// Errors: deeper than [`MAX_DEPTH`].
    pub fn enter(&mut self, at: usize) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(at, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips a trailing location `loc(...)`, which carries no meaning for the IR.
    pub fn skip_location(&mut self) -> PResult<()> {
        let t = self.peek()?;
        if matches!(&t.tok, Tok::Ident(s) if s == "loc") && self.src[t.end..].starts_with('(') {
            self.pos = t.end;
            self.skip_balanced('(', ')')?;
        }
        Ok(())
    }

    /// Skips a balanced `open ... close` group starting at the next token (strings respected).
    ///
    /// Errors: the group is not closed.
    pub fn skip_balanced(&mut self, open: char, close: char) -> PResult<()> {
        let first = self.expect_punct(open, "")?;
        let mut depth = 1usize;
        while depth > 0 {
            let t = self.next()?;
            match t.tok {
                Tok::Punct(c) if c == open => depth += 1,
                Tok::Punct(c) if c == close => depth -= 1,
                Tok::Eof => {
                    return Err(self.error_at(first.start, format!("`{open}` is never closed")))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The value of an integer token's text.
pub(crate) fn parse_int(src: &str, at: usize, text: &str) -> PResult<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let v = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16)
            .ok()
            .and_then(|v| i128::try_from(v).ok()),
        None => digits.parse::<i128>().ok(),
    }
    .ok_or_else(|| error_at(src, at, format!("integer `{text}` is out of range")))?;
    Ok(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        let mut c = Cursor::new(src);
        let mut out = Vec::new();
        loop {
            let t = c.next().unwrap();
            if t.tok == Tok::Eof {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn values_symbols_and_numbers() {
        assert_eq!(
            toks("%1:2 = %x#1 @main @\"a-b\" ^bb0 -> -3 0xFF 1.5e+00 // c\n \"s\\22\""),
            vec![
                Tok::Value("1".into(), None),
                Tok::Punct(':'),
                Tok::Int("2".into()),
                Tok::Punct('='),
                Tok::Value("x".into(), Some(1)),
                Tok::Symbol("main".into()),
                Tok::Symbol("a-b".into()),
                Tok::Block("bb0".into()),
                Tok::Arrow,
                Tok::Int("-3".into()),
                Tok::Int("0xFF".into()),
                Tok::Float("1.5e+00".into()),
                Tok::Str("s\"".into()),
            ]
        );
        assert_eq!(
            toks("#stablehlo.gather<a = [1]> !stablehlo.token stablehlo.add"),
            vec![
                Tok::Hash("stablehlo.gather".into()),
                Tok::Punct('<'),
                Tok::Ident("a".into()),
                Tok::Punct('='),
                Tok::Punct('['),
                Tok::Int("1".into()),
                Tok::Punct(']'),
                Tok::Punct('>'),
                Tok::Bang("stablehlo.token".into()),
                Tok::Ident("stablehlo.add".into()),
            ]
        );
    }

    #[test]
    fn errors_have_positions() {
        let e = lex_at("  \"abc", 2).unwrap_err();
        assert_eq!((e.line, e.column), (1, 3));
        let e = lex_at("x\n %", 3).unwrap_err();
        assert_eq!((e.line, e.column), (2, 2));
        assert!(e.message.contains("value name"), "{e}");
        assert_eq!(parse_int("", 0, "-0x10").unwrap(), -16);
    }
}
