//! Tokens of HLO text.
//!
//! The lexer is pull-based over byte offsets: the parser asks for the token at its position, and
//! can also scan raw characters from a position (attribute values the IR keeps verbatim, the
//! tiling items of layouts). Whitespace, `//` line comments and `/* */` block comments separate
//! tokens.

use super::error::HloParseError;

/// A token kind with its payload.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_.-]*`: keywords, opcodes, element types, attribute names, bare names.
    /// A `-` directly followed by `>` is not part of an identifier (it starts `->`).
    Ident(String),
    /// `%` followed by `[A-Za-z0-9_.-]+`: an instruction or computation name (without the `%`).
    Name(String),
    /// An integer: `-`? decimal digits, or `-`? `0x` hex digits.
    Int(i128),
    /// A decimal number with a fraction or an exponent (`1.5`, `-2e-3`); the text is kept so that
    /// it can be read as the nearest `f64` exactly once.
    Float(String),
    /// A double-quoted string, unescaped.
    Str(String),
    Eq,
    Comma,
    Colon,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    /// `->`
    Arrow,
    /// `<=` (dynamic dimension bound)
    Le,
    /// A `-` not starting a number or `->` (as in `-inf`, `-nan`).
    Minus,
    /// Any other character.
    Other(char),
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
    /// How an error message names the token: "`(`", "identifier `add`", "end of input", ...
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Name(s) => format!("`%{s}`"),
            Tok::Int(v) => format!("integer `{v}`"),
            Tok::Float(s) => format!("number `{s}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Eq => "`=`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Other(c) => format!("`{}`", c.escape_debug()),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// True for characters that may continue an identifier or a `%` name.
pub(crate) fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// Skips whitespace and comments from `pos`; returns the new position.
///
/// Errors: an unterminated `/*` comment (at the `/*`).
pub(crate) fn skip_trivia(src: &str, mut pos: usize) -> Result<usize, HloParseError> {
    let b = src.as_bytes();
    loop {
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if b[pos..].starts_with(b"//") {
            while pos < b.len() && b[pos] != b'\n' {
                pos += 1;
            }
        } else if b[pos..].starts_with(b"/*") {
            match src[pos + 2..].find("*/") {
                Some(i) => pos = pos + 2 + i + 2,
                None => return Err(HloParseError::at(src, pos, "unterminated `/*` comment")),
            }
        } else {
            return Ok(pos);
        }
    }
}

/// Lexes the token that starts at `pos` (trivia must already be skipped).
///
/// Errors: an integer literal beyond 128 bits, an unterminated string or a bad escape.
pub(crate) fn lex_at(src: &str, pos: usize) -> Result<Token, HloParseError> {
    let b = src.as_bytes();
    let tok = |tok, end| {
        Ok(Token {
            tok,
            start: pos,
            end,
        })
    };
    let Some(&c) = b.get(pos) else {
        return tok(Tok::Eof, pos);
    };
    let next = b.get(pos + 1).copied();
    match c {
        b'=' => tok(Tok::Eq, pos + 1),
        b',' => tok(Tok::Comma, pos + 1),
        b':' => tok(Tok::Colon, pos + 1),
        b'(' => tok(Tok::LParen, pos + 1),
        b')' => tok(Tok::RParen, pos + 1),
        b'{' => tok(Tok::LBrace, pos + 1),
        b'}' => tok(Tok::RBrace, pos + 1),
        b'[' => tok(Tok::LBracket, pos + 1),
        b']' => tok(Tok::RBracket, pos + 1),
        b'<' if next == Some(b'=') => tok(Tok::Le, pos + 2),
        b'-' if next == Some(b'>') => tok(Tok::Arrow, pos + 2),
        b'-' if next.is_some_and(|n| n.is_ascii_digit()) => lex_number(src, pos),
        b'-' => tok(Tok::Minus, pos + 1),
        b'0'..=b'9' => lex_number(src, pos),
        b'"' => lex_string(src, pos),
        b'%' => {
            let end = name_end(b, pos + 1);
            if end == pos + 1 {
                tok(Tok::Other('%'), pos + 1)
            } else {
                tok(Tok::Name(src[pos + 1..end].to_string()), end)
            }
        }
        c if c.is_ascii_alphabetic() || c == b'_' => {
            let end = name_end(b, pos);
            tok(Tok::Ident(src[pos..end].to_string()), end)
        }
        _ => {
            let ch = src[pos..].chars().next().unwrap_or('\u{fffd}');
            tok(Tok::Other(ch), pos + ch.len_utf8())
        }
    }
}

/// End of a run of name characters from `pos`, not absorbing a `-` that starts `->`.
fn name_end(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && is_name_char(b[pos]) {
        if b[pos] == b'-' && b.get(pos + 1) == Some(&b'>') {
            break;
        }
        pos += 1;
    }
    pos
}

fn lex_number(src: &str, start: usize) -> Result<Token, HloParseError> {
    let b = src.as_bytes();
    let mut pos = start;
    let negative = b[pos] == b'-';
    if negative {
        pos += 1;
    }
    let digits = |mut p: usize, hex: bool| {
        while p < b.len() && (b[p].is_ascii_digit() || (hex && b[p].is_ascii_hexdigit())) {
            p += 1;
        }
        p
    };
    let too_big = || HloParseError::at(src, start, "integer literal does not fit in 128 bits");
    if b[pos] == b'0' && matches!(b.get(pos + 1), Some(b'x' | b'X')) {
        let end = digits(pos + 2, true);
        if end == pos + 2 {
            return Err(HloParseError::at(
                src,
                start,
                "expected hex digits after `0x`",
            ));
        }
        let v = i128::from_str_radix(&src[pos + 2..end], 16).map_err(|_| too_big())?;
        let v = if negative { -v } else { v };
        return Ok(Token {
            tok: Tok::Int(v),
            start,
            end,
        });
    }
    let mut end = digits(pos, false);
    let mut is_float = false;
    if b.get(end) == Some(&b'.') {
        is_float = true;
        end = digits(end + 1, false);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(b.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if b.get(e).is_some_and(|c| c.is_ascii_digit()) {
            is_float = true;
            end = digits(e, false);
        }
    }
    let text = &src[start..end];
    let tok = if is_float {
        Tok::Float(text.to_string())
    } else {
        Tok::Int(text.parse::<i128>().map_err(|_| too_big())?)
    };
    Ok(Token { tok, start, end })
}

fn lex_string(src: &str, start: usize) -> Result<Token, HloParseError> {
    let (value, end) = scan_string(src, start)?;
    Ok(Token {
        tok: Tok::Str(value),
        start,
        end,
    })
}

/// Scans a double-quoted string starting at `start` (the `"`); returns the unescaped value and the
/// offset after the closing quote. Escapes: `\\ \" \' \n \t \r \a \b \f \v \?`, octal `\NNN`, hex `\xNN`.
///
/// Errors: unterminated string (at the opening quote) or unknown escape (at the backslash).
pub(crate) fn scan_string(src: &str, start: usize) -> Result<(String, usize), HloParseError> {
    let mut out = String::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        let at = start + 1 + i;
        match c {
            '"' => {
                flush(&mut bytes, &mut out);
                return Ok((out, at + 1));
            }
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                let simple = match e {
                    '\\' => Some(b'\\'),
                    '"' => Some(b'"'),
                    '\'' => Some(b'\''),
                    '?' => Some(b'?'),
                    'n' => Some(b'\n'),
                    't' => Some(b'\t'),
                    'r' => Some(b'\r'),
                    'a' => Some(0x07),
                    'b' => Some(0x08),
                    'f' => Some(0x0c),
                    'v' => Some(0x0b),
                    _ => None,
                };
                if let Some(v) = simple {
                    bytes.push(v);
                } else if e == 'x' {
                    let rest = &src[at + 2..];
                    let n = rest
                        .bytes()
                        .take(2)
                        .take_while(u8::is_ascii_hexdigit)
                        .count();
                    if n == 0 {
                        return Err(HloParseError::at(
                            src,
                            at,
                            "expected hex digits after `\\x`",
                        ));
                    }
                    bytes.push(u8::from_str_radix(&rest[..n], 16).unwrap_or(0));
                    for _ in 0..n {
                        chars.next();
                    }
                } else if ('0'..='7').contains(&e) {
                    let rest = &src[at + 1..];
                    let n = rest
                        .bytes()
                        .take(3)
                        .take_while(|c| (b'0'..=b'7').contains(c))
                        .count();
                    let v = u32::from_str_radix(&rest[..n], 8).unwrap_or(0);
                    bytes.push((v & 0xff) as u8);
                    for _ in 1..n {
                        chars.next();
                    }
                } else {
                    return Err(HloParseError::at(
                        src,
                        at,
                        format!("unknown escape `\\{}` in string", e.escape_debug()),
                    ));
                }
            }
            c => {
                flush(&mut bytes, &mut out);
                out.push(c);
            }
        }
    }
    Err(HloParseError::at(src, start, "unterminated string"))
}

/// Appends escaped bytes (which may form UTF-8 sequences) to `out`.
fn flush(bytes: &mut Vec<u8>, out: &mut String) {
    if !bytes.is_empty() {
        out.push_str(&String::from_utf8_lossy(bytes));
        bytes.clear();
    }
}

/// Writes `s` as a double-quoted string that [`scan_string`] reads back to `s`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        let mut pos = 0;
        let mut out = Vec::new();
        loop {
            pos = skip_trivia(src, pos).unwrap();
            let t = lex_at(src, pos).unwrap();
            if t.tok == Tok::Eof {
                return out;
            }
            pos = t.end;
            out.push(t.tok);
        }
    }

    fn id(s: &str) -> Tok {
        Tok::Ident(s.into())
    }

    #[test]
    fn identifiers_names_and_punctuation() {
        assert_eq!(
            toks("ROOT %add.1 = f32[2]{0} round-nearest-even(%x_0), dimensions={}"),
            vec![
                id("ROOT"),
                Tok::Name("add.1".into()),
                Tok::Eq,
                id("f32"),
                Tok::LBracket,
                Tok::Int(2),
                Tok::RBracket,
                Tok::LBrace,
                Tok::Int(0),
                Tok::RBrace,
                id("round-nearest-even"),
                Tok::LParen,
                Tok::Name("x_0".into()),
                Tok::RParen,
                Tok::Comma,
                id("dimensions"),
                Tok::Eq,
                Tok::LBrace,
                Tok::RBrace,
            ]
        );
        assert_eq!(
            toks("(a: f32[<=4])->s32[]"),
            vec![
                Tok::LParen,
                id("a"),
                Tok::Colon,
                id("f32"),
                Tok::LBracket,
                Tok::Le,
                Tok::Int(4),
                Tok::RBracket,
                Tok::RParen,
                Tok::Arrow,
                id("s32"),
                Tok::LBracket,
                Tok::RBracket,
            ]
        );
        assert_eq!(
            toks("%x->y"),
            vec![Tok::Name("x".into()), Tok::Arrow, id("y")]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("1 -7 0x1f -0x10 2.5 -1e-40 3E+2 1e 18446744073709551615"),
            vec![
                Tok::Int(1),
                Tok::Int(-7),
                Tok::Int(31),
                Tok::Int(-16),
                Tok::Float("2.5".into()),
                Tok::Float("-1e-40".into()),
                Tok::Float("3E+2".into()),
                Tok::Int(1),
                id("e"),
                Tok::Int(18446744073709551615),
            ]
        );
        assert_eq!(
            toks("-inf -nan"),
            vec![Tok::Minus, id("inf"), Tok::Minus, id("nan")]
        );
        let huge = "1".repeat(50);
        let err = lex_at(&huge, 0).unwrap_err();
        assert_eq!((err.line, err.column), (1, 1));
    }

    #[test]
    fn comments_are_trivia() {
        assert_eq!(
            toks("a // line comment ( \n /* block\n ) */ b /*index=5*/c"),
            vec![id("a"), id("b"), id("c")]
        );
        let err = skip_trivia("a /* open", 1).unwrap_err();
        assert_eq!((err.line, err.column), (1, 3));
    }

    #[test]
    fn strings_unescape_and_requote() {
        assert_eq!(
            toks(r#""a\"b\\c\n\x41\101é""#),
            vec![Tok::Str("a\"b\\c\nAAé".into())]
        );
        let err = lex_at("x \"open", 2).unwrap_err();
        assert_eq!((err.line, err.column), (1, 3));
        let err = lex_at(r#""bad \q""#, 0).unwrap_err();
        assert_eq!((err.line, err.column), (1, 6));
        for s in [
            "",
            "plain",
            "q\"uote",
            "back\\slash",
            "nl\n\ttab\r\u{1}",
            "ünï",
        ] {
            let q = quote(s);
            assert_eq!(scan_string(&q, 0).unwrap(), (s.to_string(), q.len()), "{q}");
        }
    }
}
