//! Errors of the NNEF front end: every one names a 1-based line:column of the document.

use std::fmt;

/// A 1-based position in an NNEF document (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl Span {
    /// The position `line:column`.
    pub fn new(line: u32, column: u32) -> Span {
        Span { line, column }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Which stage found an error; the CLI prints it and tests match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Lexical or grammar error (seed 003 §3.1, §3.2).
    Syntax,
    /// A semantic rule of seed 003 §3.3 (names, invocations, assignments, types).
    Semantic,
    /// Shape propagation or an operation's argument-validity rule (seed 003 §3.3.4; NNEF ch. 4).
    Shape,
    /// Tensor data (`.dat` files, archives, `graph.quant`).
    Data,
    /// Lowering to HLO.
    Lowering,
}

/// An error in an NNEF document at `span`, with what was expected and what was found.
///
/// Displays as `line:col: message`; [`NnefError::in_file`] prefixes the file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{span}: {message}")]
pub struct NnefError {
    /// Which stage found it.
    pub kind: ErrorKind,
    /// Where in the document.
    pub span: Span,
    /// What was expected and what was found.
    pub message: String,
}

impl NnefError {
    /// A syntax error at `span`.
    pub fn syntax(span: Span, message: impl Into<String>) -> NnefError {
        NnefError {
            kind: ErrorKind::Syntax,
            span,
            message: message.into(),
        }
    }
    /// A semantic (§3.3) error at `span`.
    pub fn semantic(span: Span, message: impl Into<String>) -> NnefError {
        NnefError {
            kind: ErrorKind::Semantic,
            span,
            message: message.into(),
        }
    }
    /// A shape-propagation or argument-validity error at `span`.
    pub fn shape(span: Span, message: impl Into<String>) -> NnefError {
        NnefError {
            kind: ErrorKind::Shape,
            span,
            message: message.into(),
        }
    }
    /// A tensor-data error at `span` (line 0 when the data has no lines).
    pub fn data(span: Span, message: impl Into<String>) -> NnefError {
        NnefError {
            kind: ErrorKind::Data,
            span,
            message: message.into(),
        }
    }
    /// A lowering error at `span`.
    pub fn lowering(span: Span, message: impl Into<String>) -> NnefError {
        NnefError {
            kind: ErrorKind::Lowering,
            span,
            message: message.into(),
        }
    }
    /// `file:line:col: message`.
    pub fn in_file(&self, file: &str) -> String {
        format!("{file}:{}: {}", self.span, self.message)
    }
}

/// Result of the NNEF front end.
pub type Result<T, E = NnefError> = std::result::Result<T, E>;
