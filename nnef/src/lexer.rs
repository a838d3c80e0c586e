//! Tokens of an NNEF document (seed 003 §3.1; NNEF 1.0.5 §3.1 "Lexical Elements").
//!
//! Lexical rules:
//! - identifiers are `[A-Za-z_][A-Za-z0-9_]*`; the keywords below are not identifiers;
//! - numeric literals are decimal digits with an optional `.` and fraction and an optional
//!   exponent `e`/`E` `[+-]` digits; a literal with a `.` or an exponent is *real*, otherwise it
//!   is an *integer*, which must fit `i64`. A sign is never part of the token (the parser folds
//!   `-` followed by a literal into a negative literal, which the spec says is equivalent);
//! - string literals are enclosed in `'` or `"`; NNEF 1.0.5 requires the quote character and
//!   `\` to be escaped by `\` inside a string, so `\'`, `\"` and `\\` are unescaped and any
//!   other `\` sequence is an error; a string cannot span lines;
//! - `#` starts a comment up to the end of the line;
//! - white space is space, horizontal tab, vertical tab, form feed, `\r` and `\n` (a `\r\n` pair
//!   is one line break).
//!
//! Keywords: the NNEF 1.0.5 list (`version extension graph fragment tensor integer scalar logical
//! string true false shape_of length_of range_of for in yield if else`) plus seed 003's `extent`.
//! `then` is not reserved: the parser recognises it only after the condition of
//! `if c then a else b`.
//!
//! Positions are 1-based line:column, columns counting characters.

use std::fmt;

use crate::error::{NnefError, Span};

/// A reserved word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Keyword {
    /// `version`
    Version,
    /// `extension`
    Extension,
    /// `graph`
    Graph,
    /// `fragment`
    Fragment,
    /// `tensor`
    Tensor,
    /// `integer`
    Integer,
    /// `extent` (seed 003's name of `integer`)
    Extent,
    /// `scalar`
    Scalar,
    /// `logical`
    Logical,
    /// `string`
    String,
    /// `true`
    True,
    /// `false`
    False,
    /// `shape_of`
    ShapeOf,
    /// `length_of`
    LengthOf,
    /// `range_of`
    RangeOf,
    /// `for`
    For,
    /// `in`
    In,
    /// `yield`
    Yield,
    /// `if`
    If,
    /// `else`
    Else,
}

impl Keyword {
    /// Every keyword, for tests and generators.
    pub const ALL: [Keyword; 20] = [
        Keyword::Version,
        Keyword::Extension,
        Keyword::Graph,
        Keyword::Fragment,
        Keyword::Tensor,
        Keyword::Integer,
        Keyword::Extent,
        Keyword::Scalar,
        Keyword::Logical,
        Keyword::String,
        Keyword::True,
        Keyword::False,
        Keyword::ShapeOf,
        Keyword::LengthOf,
        Keyword::RangeOf,
        Keyword::For,
        Keyword::In,
        Keyword::Yield,
        Keyword::If,
        Keyword::Else,
    ];

    /// The spelling in a document.
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Version => "version",
            Keyword::Extension => "extension",
            Keyword::Graph => "graph",
            Keyword::Fragment => "fragment",
            Keyword::Tensor => "tensor",
            Keyword::Integer => "integer",
            Keyword::Extent => "extent",
            Keyword::Scalar => "scalar",
            Keyword::Logical => "logical",
            Keyword::String => "string",
            Keyword::True => "true",
            Keyword::False => "false",
            Keyword::ShapeOf => "shape_of",
            Keyword::LengthOf => "length_of",
            Keyword::RangeOf => "range_of",
            Keyword::For => "for",
            Keyword::In => "in",
            Keyword::Yield => "yield",
            Keyword::If => "if",
            Keyword::Else => "else",
        }
    }

    /// The keyword spelled `word`, if it is one.
    pub fn from_word(word: &str) -> Option<Keyword> {
        Keyword::ALL.iter().copied().find(|k| k.as_str() == word)
    }
}

/// What a token is, with its value.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// An identifier (not a keyword).
    Identifier(String),
    /// An integer numeric literal (no `.`, no exponent), `0 ..= i64::MAX`.
    Integer(i64),
    /// A real numeric literal (finite).
    Real(f64),
    /// A string literal, unescaped, without its quotes.
    String(String),
    /// A keyword.
    Keyword(Keyword),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `:`
    Colon,
    /// `;`
    Semicolon,
    /// `,`
    Comma,
    /// `=`
    Assign,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `^`
    Caret,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    EqEq,
    /// `!=`
    Ne,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `!`
    Bang,
    /// The end of the document.
    Eof,
}

impl TokenKind {
    /// How error messages name this token: `'('`, `identifier 'conv1'`, `end of input`, ...
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Identifier(s) => format!("identifier '{s}'"),
            TokenKind::Integer(v) => format!("integer literal '{v}'"),
            TokenKind::Real(v) => format!("real literal '{v:?}'"),
            TokenKind::String(s) => format!("string literal {s:?}"),
            TokenKind::Keyword(k) => format!("keyword '{}'", k.as_str()),
            TokenKind::Eof => "end of input".to_string(),
            other => format!("'{}'", other.punctuation().unwrap_or("?")),
        }
    }

    /// The spelling of an operator or punctuation token (`None` for identifiers, literals,
    /// keywords and the end of input).
    pub fn punctuation(&self) -> Option<&'static str> {
        Some(match self {
            TokenKind::LParen => "(",
            TokenKind::RParen => ")",
            TokenKind::LBracket => "[",
            TokenKind::RBracket => "]",
            TokenKind::LBrace => "{",
            TokenKind::RBrace => "}",
            TokenKind::Colon => ":",
            TokenKind::Semicolon => ";",
            TokenKind::Comma => ",",
            TokenKind::Assign => "=",
            TokenKind::Arrow => "->",
            TokenKind::Question => "?",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Caret => "^",
            TokenKind::Lt => "<",
            TokenKind::Le => "<=",
            TokenKind::Gt => ">",
            TokenKind::Ge => ">=",
            TokenKind::EqEq => "==",
            TokenKind::Ne => "!=",
            TokenKind::AndAnd => "&&",
            TokenKind::OrOr => "||",
            TokenKind::Bang => "!",
            _ => return None,
        })
    }

    /// True if this is keyword `k`.
    pub fn is_keyword(&self, k: Keyword) -> bool {
        matches!(self, TokenKind::Keyword(x) if *x == k)
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// A token with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Line:column of its first character.
    pub span: Span,
    /// Byte offset of its first character in the source.
    pub start: usize,
    /// Byte offset one past its last character.
    pub end: usize,
    /// True if a line break (possibly inside a comment's line) separates it from the previous
    /// token, or it is the first token. Seed 003 lets a `;` be omitted at such a break.
    pub newline_before: bool,
}

/// Splits `src` into tokens, ending with one [`TokenKind::Eof`] token.
///
/// Errors (all [`crate::ErrorKind::Syntax`], at the offending character): a character that
/// starts no token, an unterminated string (end of line or input before the closing quote), an
/// invalid escape in a string, an exponent without digits, a number directly followed by a
/// letter or `_`, an integer literal above `i64::MAX`, a real literal that overflows `f64`.
pub fn tokenize(src: &str) -> Result<Vec<Token>, NnefError> {
    let (tokens, error) = tokenize_until_error(src);
    match error {
        Some(e) => Err(e),
        None => Ok(tokens),
    }
}

/// Splits `src` into tokens up to the first lexical error. Returns the tokens before it
/// followed by an [`TokenKind::Eof`] token placed at the error, and the error if there was one.
///
/// The parser uses this so that a syntax error before a lexical error is reported first.
pub fn tokenize_until_error(src: &str) -> (Vec<Token>, Option<NnefError>) {
    let mut lexer = Lexer::new(src);
    let mut tokens = Vec::new();
    loop {
        match lexer.next_token() {
            Ok(token) => {
                let eof = token.kind == TokenKind::Eof;
                tokens.push(token);
                if eof {
                    return (tokens, None);
                }
            }
            Err(error) => {
                tokens.push(Token {
                    kind: TokenKind::Eof,
                    span: error.span,
                    start: lexer.pos,
                    end: lexer.pos,
                    newline_before: true,
                });
                return (tokens, Some(error));
            }
        }
    }
}

/// A cursor over the characters of a document.
struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    line: u32,
    column: u32,
    /// A line break was seen since the previous token.
    newline: bool,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            pos: 0,
            line: 1,
            column: 1,
            newline: true,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn span(&self) -> Span {
        Span::new(self.line, self.column)
    }

    /// Consumes one character, keeping line and column.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        match c {
            '\n' => {
                self.line = self.line.saturating_add(1);
                self.column = 1;
                self.newline = true;
            }
            '\r' => {
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
                self.line = self.line.saturating_add(1);
                self.column = 1;
                self.newline = true;
            }
            _ => self.column = self.column.saturating_add(1),
        }
        Some(c)
    }

    fn skip_space_and_comments(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}' => {
                    self.bump();
                }
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' || c == '\r' || c == '\u{0C}' {
                            break;
                        }
                        self.bump();
                    }
                }
                _ => break,
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, NnefError> {
        self.skip_space_and_comments();
        let span = self.span();
        let start = self.pos;
        let newline_before = std::mem::replace(&mut self.newline, false);
        let Some(c) = self.peek() else {
            return Ok(Token {
                kind: TokenKind::Eof,
                span,
                start,
                end: start,
                newline_before,
            });
        };
        let kind = if c.is_ascii_alphabetic() || c == '_' {
            self.word()
        } else if c.is_ascii_digit() {
            self.number(span)?
        } else if c == '\'' || c == '"' {
            self.string(span)?
        } else {
            self.operator(span)?
        };
        Ok(Token {
            kind,
            span,
            start,
            end: self.pos,
            newline_before,
        })
    }

    fn word(&mut self) -> TokenKind {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
            self.bump();
        }
        let word = &self.src[start..self.pos];
        match Keyword::from_word(word) {
            Some(k) => TokenKind::Keyword(k),
            None => TokenKind::Identifier(word.to_string()),
        }
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.bump();
        }
    }

    fn number(&mut self, span: Span) -> Result<TokenKind, NnefError> {
        let start = self.pos;
        self.digits();
        let mut real = false;
        if self.peek() == Some('.') {
            real = true;
            self.bump();
            self.digits();
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            real = true;
            self.bump();
            if matches!(self.peek(), Some('+' | '-')) {
                self.bump();
            }
            if !matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
                return Err(NnefError::syntax(
                    self.span(),
                    format!(
                        "expected a digit in the exponent of numeric literal '{}', found {}",
                        &self.src[start..self.pos],
                        describe_char(self.peek())
                    ),
                ));
            }
            self.digits();
        }
        if let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                return Err(NnefError::syntax(
                    self.span(),
                    format!(
                        "expected a delimiter after numeric literal '{}', found {}",
                        &self.src[start..self.pos],
                        describe_char(Some(c))
                    ),
                ));
            }
        }
        let text = &self.src[start..self.pos];
        if real {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(TokenKind::Real(v)),
                _ => Err(NnefError::syntax(
                    span,
                    format!("expected a real literal within the f64 range, found '{text}'"),
                )),
            }
        } else {
            match text.parse::<i64>() {
                Ok(v) => Ok(TokenKind::Integer(v)),
                Err(_) => Err(NnefError::syntax(
                    span,
                    format!(
                        "expected an integer literal of at most {}, found '{text}'",
                        i64::MAX
                    ),
                )),
            }
        }
    }

    fn string(&mut self, span: Span) -> Result<TokenKind, NnefError> {
        let quote = self.bump().unwrap_or('\'');
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n' | '\r') => {
                    let found = if self.peek().is_none() {
                        "end of input"
                    } else {
                        "end of line"
                    };
                    return Err(NnefError::syntax(
                        span,
                        format!(
                            "unterminated string literal: expected closing {quote}, found {found}"
                        ),
                    ));
                }
                Some(c) if c == quote => {
                    self.bump();
                    return Ok(TokenKind::String(value));
                }
                Some('\\') => {
                    let at = self.span();
                    self.bump();
                    match self.peek() {
                        Some(c @ ('\\' | '\'' | '"')) => {
                            self.bump();
                            value.push(c);
                        }
                        other => {
                            return Err(NnefError::syntax(
                                at,
                                format!(
                                    "expected \\\\, \\' or \\\" (the only escapes in a string literal), found '\\' followed by {}",
                                    describe_char(other)
                                ),
                            ))
                        }
                    }
                }
                Some(c) => {
                    self.bump();
                    value.push(c);
                }
            }
        }
    }

    fn operator(&mut self, span: Span) -> Result<TokenKind, NnefError> {
        let c = self.bump().unwrap_or('\0');
        let next = self.peek();
        let two = |lexer: &mut Lexer<'_>, kind: TokenKind| {
            lexer.bump();
            kind
        };
        Ok(match (c, next) {
            ('-', Some('>')) => two(self, TokenKind::Arrow),
            ('<', Some('=')) => two(self, TokenKind::Le),
            ('>', Some('=')) => two(self, TokenKind::Ge),
            ('=', Some('=')) => two(self, TokenKind::EqEq),
            ('!', Some('=')) => two(self, TokenKind::Ne),
            ('&', Some('&')) => two(self, TokenKind::AndAnd),
            ('|', Some('|')) => two(self, TokenKind::OrOr),
            ('(', _) => TokenKind::LParen,
            (')', _) => TokenKind::RParen,
            ('[', _) => TokenKind::LBracket,
            (']', _) => TokenKind::RBracket,
            ('{', _) => TokenKind::LBrace,
            ('}', _) => TokenKind::RBrace,
            (':', _) => TokenKind::Colon,
            (';', _) => TokenKind::Semicolon,
            (',', _) => TokenKind::Comma,
            ('=', _) => TokenKind::Assign,
            ('?', _) => TokenKind::Question,
            ('+', _) => TokenKind::Plus,
            ('-', _) => TokenKind::Minus,
            ('*', _) => TokenKind::Star,
            ('/', _) => TokenKind::Slash,
            ('^', _) => TokenKind::Caret,
            ('<', _) => TokenKind::Lt,
            ('>', _) => TokenKind::Gt,
            ('!', _) => TokenKind::Bang,
            _ => {
                return Err(NnefError::syntax(
                    span,
                    format!(
                        "expected a token, found unexpected character {}",
                        describe_char(Some(c))
                    ),
                ))
            }
        })
    }
}

/// `'x'`, `U+00E9 'é'`, `end of input`, `end of line`.
fn describe_char(c: Option<char>) -> String {
    match c {
        None => "end of input".to_string(),
        Some('\n' | '\r') => "end of line".to_string(),
        Some(c) if c.is_ascii_graphic() || c == ' ' => format!("'{c}'"),
        Some(c) => format!("U+{:04X} {:?}", c as u32, c),
    }
}

#[cfg(test)]
mod tests;
