//! The syntax tree of an NNEF document (seed 003 §3.2; NNEF 1.0.5 §3.2 adds `extension`,
//! generic fragments `<?>`, typed tensors `tensor<scalar>`, the `integer` type and the
//! `if c then a else b` / `[for i in a if c yield e]` forms).
//!
//! Every node carries the [`Span`] of its first token, so semantic errors name line:col.

use crate::error::Span;

/// A whole document: `version`, `extension`s, fragment definitions (or declarations) and the
/// graph definition (seed 003 §3.2.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// `version 1.0;` as (major, minor).
    pub version: (u32, u32),
    /// Where `version` is.
    pub version_span: Span,
    /// Extension names in order (`extension KHR_enable_fragment_definitions;`).
    pub extensions: Vec<(String, Span)>,
    /// Fragment definitions and declarations, in document order.
    pub fragments: Vec<Fragment>,
    /// The graph definition (always present).
    pub graph: GraphDefinition,
}

/// A primitive type name (`integer` is NNEF 1.0.5's name for seed 003's `extent`; `?` is the
/// generic type of a `<?>` fragment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeName {
    /// `integer` (also spelled `extent`).
    Integer,
    /// `scalar`.
    Scalar,
    /// `logical`.
    Logical,
    /// `string`.
    String,
    /// `?`: the generic type parameter.
    Generic,
}

/// A type specification (seed 003 §3.2.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeSpec {
    /// A primitive (attribute) type.
    Primitive(TypeName),
    /// `tensor` (data type unspecified, seed 003) or `tensor<T>` (1.0.5).
    Tensor(Option<TypeName>),
    /// `T[]`.
    Array(Box<TypeSpec>),
    /// `(T1, T2, ...)` with at least two items.
    Tuple(Vec<TypeSpec>),
}

/// A formal parameter `name: type [= default]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Parameter name.
    pub name: String,
    /// Declared type.
    pub ty: TypeSpec,
    /// Default value (a literal expression).
    pub default: Option<Expr>,
    /// Where the name is.
    pub span: Span,
}

/// A result `name: type`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultDecl {
    /// Result name.
    pub name: String,
    /// Declared type.
    pub ty: TypeSpec,
    /// Where the name is.
    pub span: Span,
}

/// `fragment name [<? [= T]>] ( params ) -> ( results )`.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentDeclaration {
    /// Fragment name.
    pub name: String,
    /// `Some(default)` for a generic fragment `<?>` / `<? = scalar>`.
    pub generic: Option<Option<TypeName>>,
    /// Formal parameters in order.
    pub parameters: Vec<Parameter>,
    /// Results in order.
    pub results: Vec<ResultDecl>,
    /// Where `fragment` is.
    pub span: Span,
}

/// A fragment declaration with an optional body (a declaration alone ends with `;`).
#[derive(Debug, Clone, PartialEq)]
pub struct Fragment {
    /// The declaration.
    pub declaration: FragmentDeclaration,
    /// The body, or `None` for a primitive/declared-only fragment.
    pub body: Option<Vec<Assignment>>,
}

/// `graph name ( inputs ) -> ( outputs ) { body }` (seed 003 §3.2.2).
#[derive(Debug, Clone, PartialEq)]
pub struct GraphDefinition {
    /// Graph name.
    pub name: String,
    /// Input identifiers with their positions.
    pub inputs: Vec<(String, Span)>,
    /// Output identifiers with their positions.
    pub outputs: Vec<(String, Span)>,
    /// The assignments of the body.
    pub body: Vec<Assignment>,
    /// Where `graph` is.
    pub span: Span,
}

/// `lvalue = rvalue;`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Left side: an identifier or an array/tuple of left sides.
    pub lhs: Expr,
    /// Right side (an invocation in flat syntax; any expression in compositional syntax).
    pub rhs: Expr,
    /// Where the left side starts.
    pub span: Span,
}

/// An expression with the position of its first token.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it starts.
    pub span: Span,
}

/// Unary operators (seed 003 §3.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `+x`
    Plus,
    /// `-x`
    Minus,
    /// `!x`
    Not,
}

/// Binary operators (seed 003 §3.2.3), loosest first as the Khronos parser binds them: `in`;
/// `&&` and `||` (one level); comparisons; `+ -`; `* /`; `^`; all left-associative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `in` (membership of an item in an array, NNEF 1.0.5)
    In,
}

/// Built-in functions and explicit casts (seed 003 §3.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `shape_of(x)`
    ShapeOf,
    /// `length_of(x)`
    LengthOf,
    /// `range_of(x)`
    RangeOf,
    /// `integer(x)` / `extent(x)`
    Integer,
    /// `scalar(x)`
    Scalar,
    /// `logical(x)`
    Logical,
    /// `string(x)`
    String,
}

/// The index of a subscript expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Subscript {
    /// `a[i]`
    Index(Box<Expr>),
    /// `a[begin:end]`, either end optional.
    Range(Option<Box<Expr>>, Option<Box<Expr>>),
}

/// One `name = value` or positional argument of an invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// `Some((name, span))` for a named argument.
    pub name: Option<(String, Span)>,
    /// The value.
    pub value: Expr,
}

/// `name [<T>] ( arguments )`.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// Fragment name.
    pub name: String,
    /// Explicit generic type argument `<scalar>`.
    pub generic: Option<TypeName>,
    /// Arguments in order.
    pub arguments: Vec<Argument>,
}

/// Expression forms (seed 003 §3.2.3 `<rvalue-expr>`; literal and lvalue expressions are the
/// subsets the parser allows in their positions).
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An identifier.
    Identifier(String),
    /// An integer numeric literal (no `.` and no exponent).
    Integer(i64),
    /// A real numeric literal.
    Scalar(f64),
    /// `true` / `false`.
    Logical(bool),
    /// A string literal (`'...'` or `"..."`), unescaped.
    String(String),
    /// `[a, b, ...]`.
    Array(Vec<Expr>),
    /// `(a, b, ...)` or `a, b, ...` (at least two items).
    Tuple(Vec<Expr>),
    /// `op x`.
    Unary(UnaryOp, Box<Expr>),
    /// `x op y`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `then if condition else otherwise` (seed 003) or `if condition then then else otherwise`
    /// (1.0.5); only the chosen branch is evaluated.
    Select {
        /// The condition (logical).
        condition: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
    /// `[e for i in a if c]` (seed 003) or `[for i in a, j in b if c yield e]` (1.0.5).
    Comprehension {
        /// Loop variables and the arrays they iterate (iterated in lock step).
        iterators: Vec<(String, Expr)>,
        /// Optional filter.
        condition: Option<Box<Expr>>,
        /// The produced item.
        body: Box<Expr>,
    },
    /// `a[i]` or `a[i:j]`.
    Subscript(Box<Expr>, Subscript),
    /// `shape_of(x)`, `scalar(x)`, ...
    Builtin(Builtin, Box<Expr>),
    /// A fragment invocation.
    Invocation(Invocation),
}

impl Expr {
    /// An expression of `kind` at `span`.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}
