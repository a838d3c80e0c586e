//! The parser's position in the source and the token-level helpers shared by the shape, literal,
//! attribute and module parsers.

use super::error::HloParseError;
use super::lexer::{lex_at, skip_trivia, Tok, Token};

/// Deepest nesting of tuple shapes, literal braces and tuple literals the parser accepts (deeper
/// input is an error rather than a stack overflow).
pub(crate) const MAX_DEPTH: usize = 64;

pub(crate) struct Cursor<'a> {
    pub src: &'a str,
    /// Byte offset of the next unread character.
    pub pos: usize,
    depth: usize,
}

pub(crate) type PResult<T> = Result<T, HloParseError>;

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
        self.pos = skip_trivia(self.src, self.pos)?;
        lex_at(self.src, self.pos)
    }

    /// The token after the next one, without consuming anything.
    pub fn peek2(&mut self) -> PResult<Token> {
        let first = self.peek()?;
        let p = skip_trivia(self.src, first.end)?;
        lex_at(self.src, p)
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

    /// Consumes `tok` or fails with "expected `tok` {context}, found X".
    pub fn expect(&mut self, tok: &Tok, context: &str) -> PResult<Token> {
        let t = self.peek()?;
        if &t.tok == tok {
            self.pos = t.end;
            Ok(t)
        } else {
            Err(self.unexpected(&t, &format!("{} {context}", tok.describe())))
        }
    }

    /// "expected {what}, found X" at the token.
    pub fn unexpected(&self, t: &Token, what: &str) -> HloParseError {
        self.error_at(
            t.start,
            format!("expected {}, found {}", what.trim_end(), t.tok.describe()),
        )
    }

    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> HloParseError {
        HloParseError::at(self.src, offset, message)
    }

    /// True when the character at `offset` is `c` (no trivia skipped).
    pub fn char_at_is(&self, offset: usize, c: u8) -> bool {
        self.src.as_bytes().get(offset) == Some(&c)
    }

    /// Enters one nesting level; fails past [`MAX_DEPTH`]. Pair with [`Cursor::leave`].
    pub fn enter(&mut self, offset: usize) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(offset, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// An instruction or computation name: `%name` or a bare identifier. Returns (name, start offset).
    pub fn name(&mut self, what: &str) -> PResult<(String, usize)> {
        let t = self.next()?;
        match t.tok {
            Tok::Name(n) | Tok::Ident(n) => Ok((n, t.start)),
            _ => Err(self.unexpected(&t, what)),
        }
    }

    /// An integer token, returned with its start offset.
    pub fn int(&mut self, what: &str) -> PResult<(i128, usize)> {
        let t = self.next()?;
        match t.tok {
            Tok::Int(v) => Ok((v, t.start)),
            _ => Err(self.unexpected(&t, what)),
        }
    }

    /// An integer that fits in `i64`.
    pub fn int64(&mut self, what: &str) -> PResult<(i64, usize)> {
        let (v, at) = self.int(what)?;
        let v = i64::try_from(v)
            .map_err(|_| self.error_at(at, format!("integer {v} does not fit in 64 bits")))?;
        Ok((v, at))
    }

    /// `{` int, ... `}` (possibly empty).
    pub fn int_list(&mut self, what: &str) -> PResult<Vec<i64>> {
        let open = self.peek()?;
        if open.tok != Tok::LBrace {
            return Err(self.unexpected(&open, what));
        }
        self.pos = open.end;
        let mut out = Vec::new();
        if self.eat(&Tok::RBrace)? {
            return Ok(out);
        }
        loop {
            out.push(self.int64("an integer")?.0);
            let t = self.next()?;
            match t.tok {
                Tok::Comma => {}
                Tok::RBrace => return Ok(out),
                _ => return Err(self.unexpected(&t, "`,` or `}` in integer list")),
            }
        }
    }
}
