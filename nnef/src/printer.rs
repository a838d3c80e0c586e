//! Prints a syntax tree ([`crate::ast`]) as NNEF text that the Khronos reference parser (PyPI
//! `nnef` 1.0.10, the NNEF 1.0.5 tools) accepts.
//!
//! Forms printed (NNEF 1.0.5, as the Khronos parser reads them):
//! - `version 1.0;`, one `extension NAME;` line per extension;
//! - types `integer`, `scalar`, `logical`, `string`, `?`, `tensor<T>` (`tensor<>` for a tensor
//!   of unspecified data type: the Khronos parser requires the angle brackets), `T[]`,
//!   `(T1, T2)`;
//! - selection `a if c else b` (seed 003 §3.2.3; the Khronos parser and standard library use
//!   this form, not `if c then a else b`), comprehensions `[for i in a, j in b if c yield e]`;
//! - strings in single quotes (double quotes when the string holds a `'`: NNEF strings have no
//!   escapes);
//! - reals always with a `.` (and an exponent when large or small) so they stay reals; integers
//!   without; negative literals as `-1`;
//! - every assignment ends with `;` and every tuple is parenthesized.
//!
//! Parentheses are printed wherever the two grammars in use could read the text differently:
//! the Khronos parser gives `&&` and `||` one precedence level, makes `^` left-associative, and
//! lets a unary operator's operand run to the end of the expression (`-a + b` is `-(a + b)`
//! there), so such operands are always parenthesized. The syntax tree has no node for
//! parentheses, so `parse(print(doc))` equals `doc` up to spans.
//!
//! Not representable in NNEF text (printed best effort, and rejected by a parser): non-finite
//! reals (printed `(1.0 / 0.0)`, `(-1.0 / 0.0)`, `(0.0 / 0.0)`, which only an expression
//! context accepts) and strings holding both quote characters.

use std::fmt::Write;

use crate::ast::{
    Argument, Assignment, BinaryOp, Builtin, Document, Expr, ExprKind, Fragment,
    FragmentDeclaration, GraphDefinition, Invocation, Parameter, ResultDecl, Subscript, TypeName,
    TypeSpec, UnaryOp,
};

/// The whole document as NNEF text: version, extensions, fragments in order, then the graph;
/// bodies indented by 4 spaces, one assignment per line.
pub fn print_document(doc: &Document) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "version {}.{};", doc.version.0, doc.version.1);
    for (name, _) in &doc.extensions {
        let _ = writeln!(out, "extension {name};");
    }
    for fragment in &doc.fragments {
        out.push('\n');
        print_fragment_into(&mut out, fragment);
    }
    out.push('\n');
    print_graph_into(&mut out, &doc.graph);
    out
}

/// One expression as NNEF text (no trailing `;`), parenthesized only where needed.
pub fn print_expr(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr);
    out
}

/// A type specification: `tensor<scalar>`, `integer[]`, `(integer, integer)[]`, ...
pub fn print_type(ty: &TypeSpec) -> String {
    let mut out = String::new();
    write_type(&mut out, ty);
    out
}

/// The name of a primitive type (`?` for the generic type).
pub fn type_name(name: TypeName) -> &'static str {
    match name {
        TypeName::Integer => "integer",
        TypeName::Scalar => "scalar",
        TypeName::Logical => "logical",
        TypeName::String => "string",
        TypeName::Generic => "?",
    }
}

/// The token of a binary operator (`+`, `&&`, `in`, ...).
pub fn binary_op_token(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Pow => "^",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::And => "&&",
        BinaryOp::Or => "||",
        BinaryOp::In => "in",
    }
}

/// The keyword of a built-in function (`shape_of`, `integer`, ...).
pub fn builtin_name(builtin: Builtin) -> &'static str {
    match builtin {
        Builtin::ShapeOf => "shape_of",
        Builtin::LengthOf => "length_of",
        Builtin::RangeOf => "range_of",
        Builtin::Integer => "integer",
        Builtin::Scalar => "scalar",
        Builtin::Logical => "logical",
        Builtin::String => "string",
    }
}

fn print_fragment_into(out: &mut String, fragment: &Fragment) {
    write_declaration(out, &fragment.declaration);
    match &fragment.body {
        None => out.push_str(";\n"),
        Some(body) => {
            out.push_str("\n{\n");
            for assignment in body {
                write_assignment(out, assignment);
            }
            out.push_str("}\n");
        }
    }
}

fn write_declaration(out: &mut String, decl: &FragmentDeclaration) {
    let _ = write!(out, "fragment {}", decl.name);
    match decl.generic {
        None => {}
        Some(None) => out.push_str("<?>"),
        Some(Some(default)) => {
            let _ = write!(out, "<? = {}>", type_name(default));
        }
    }
    out.push_str("( ");
    for (i, parameter) in decl.parameters.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_parameter(out, parameter);
    }
    out.push_str(" ) -> ( ");
    for (i, result) in decl.results.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_result(out, result);
    }
    out.push_str(" )");
}

fn write_parameter(out: &mut String, parameter: &Parameter) {
    let _ = write!(out, "{}: ", parameter.name);
    write_type(out, &parameter.ty);
    if let Some(default) = &parameter.default {
        out.push_str(" = ");
        write_expr(out, default);
    }
}

fn write_result(out: &mut String, result: &ResultDecl) {
    let _ = write!(out, "{}: ", result.name);
    write_type(out, &result.ty);
}

fn print_graph_into(out: &mut String, graph: &GraphDefinition) {
    let _ = write!(out, "graph {}( ", graph.name);
    write_names(out, &graph.inputs);
    out.push_str(" ) -> ( ");
    write_names(out, &graph.outputs);
    out.push_str(" )\n{\n");
    for assignment in &graph.body {
        write_assignment(out, assignment);
    }
    out.push_str("}\n");
}

fn write_names(out: &mut String, names: &[(String, crate::Span)]) {
    for (i, (name, _)) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
    }
}

fn write_assignment(out: &mut String, assignment: &Assignment) {
    out.push_str("    ");
    write_expr(out, &assignment.lhs);
    out.push_str(" = ");
    write_expr(out, &assignment.rhs);
    out.push_str(";\n");
}

fn write_type(out: &mut String, ty: &TypeSpec) {
    match ty {
        TypeSpec::Primitive(name) => out.push_str(type_name(*name)),
        TypeSpec::Tensor(None) => out.push_str("tensor<>"),
        TypeSpec::Tensor(Some(name)) => {
            let _ = write!(out, "tensor<{}>", type_name(*name));
        }
        TypeSpec::Array(item) => {
            write_type(out, item);
            out.push_str("[]");
        }
        TypeSpec::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, item);
            }
            out.push(')');
        }
    }
}

/// Precedence level of a binary operator as both grammars agree on it (higher binds tighter);
/// `&&` and `||` share a level because the Khronos parser gives them one.
fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::In => 1,
        BinaryOp::And | BinaryOp::Or => 2,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne => {
            3
        }
        BinaryOp::Add | BinaryOp::Sub => 4,
        BinaryOp::Mul | BinaryOp::Div => 5,
        BinaryOp::Pow => 6,
    }
}

/// Operators whose chains `a op b op c` both grammars read left to right.
fn left_associative(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    )
}

/// Whether `expr` begins with a prefix operator whose operand would swallow what follows it
/// (a unary expression, or a negative numeric literal printed with a leading `-`).
fn starts_with_prefix(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Unary(..) => true,
        ExprKind::Integer(i) => *i < 0,
        ExprKind::Scalar(x) => x.is_sign_negative() && !x.is_nan(),
        _ => false,
    }
}

/// Where a sub-expression is printed, for deciding on parentheses.
#[derive(Clone, Copy)]
enum Position {
    /// A delimited position (argument, item, index, else-branch, right side): anything goes.
    Free,
    /// Left operand of a binary operator.
    Left(BinaryOp),
    /// Right operand of a binary operator.
    Right(BinaryOp),
    /// Operand of a unary operator.
    UnaryOperand,
    /// Subscripted expression `x[...]`.
    SubscriptBase,
    /// The value chosen when the condition holds (printed before `if`).
    SelectThen,
    /// The condition of a selection.
    SelectCondition,
    /// The array a comprehension iterates (followed by `,`, `if` or `yield`).
    Iterable,
}

fn needs_parens(expr: &Expr, position: Position) -> bool {
    let kind = &expr.kind;
    let select = matches!(kind, ExprKind::Select { .. });
    let prefix = starts_with_prefix(expr);
    match position {
        Position::Free => false,
        Position::Left(parent) | Position::Right(parent) => {
            if select || prefix {
                return true;
            }
            match kind {
                ExprKind::Binary(child, _, _) => {
                    let (c, p) = (precedence(*child), precedence(parent));
                    match position {
                        Position::Left(_) => c < p || (c == p && !left_associative(parent)),
                        _ => c <= p,
                    }
                }
                _ => false,
            }
        }
        Position::UnaryOperand => select || prefix || matches!(kind, ExprKind::Binary(..)),
        Position::SubscriptBase => matches!(
            kind,
            ExprKind::Binary(..)
                | ExprKind::Unary(..)
                | ExprKind::Select { .. }
                | ExprKind::Integer(_)
                | ExprKind::Scalar(_)
                | ExprKind::Logical(_)
                | ExprKind::String(_)
        ),
        Position::SelectThen | Position::SelectCondition | Position::Iterable => select || prefix,
    }
}

fn write_at(out: &mut String, expr: &Expr, position: Position) {
    if needs_parens(expr, position) {
        out.push('(');
        write_expr(out, expr);
        out.push(')');
    } else {
        write_expr(out, expr);
    }
}

fn write_expr(out: &mut String, expr: &Expr) {
    match &expr.kind {
        ExprKind::Identifier(name) => out.push_str(name),
        ExprKind::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        ExprKind::Scalar(x) => write_real(out, *x),
        ExprKind::Logical(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::String(s) => write_string(out, s),
        ExprKind::Array(items) => {
            out.push('[');
            write_list(out, items);
            out.push(']');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            write_list(out, items);
            out.push(')');
        }
        ExprKind::Unary(op, operand) => {
            out.push(match op {
                UnaryOp::Plus => '+',
                UnaryOp::Minus => '-',
                UnaryOp::Not => '!',
            });
            write_at(out, operand, Position::UnaryOperand);
        }
        ExprKind::Binary(op, left, right) => {
            write_at(out, left, Position::Left(*op));
            let _ = write!(out, " {} ", binary_op_token(*op));
            write_at(out, right, Position::Right(*op));
        }
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => {
            write_at(out, then, Position::SelectThen);
            out.push_str(" if ");
            write_at(out, condition, Position::SelectCondition);
            out.push_str(" else ");
            write_at(out, otherwise, Position::Free);
        }
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => {
            out.push_str("[for ");
            for (i, (name, iterable)) in iterators.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{name} in ");
                write_at(out, iterable, Position::Iterable);
            }
            if let Some(condition) = condition {
                out.push_str(" if ");
                write_at(out, condition, Position::SelectCondition);
            }
            out.push_str(" yield ");
            write_expr(out, body);
            out.push(']');
        }
        ExprKind::Subscript(base, subscript) => {
            write_at(out, base, Position::SubscriptBase);
            out.push('[');
            match subscript {
                Subscript::Index(index) => write_expr(out, index),
                Subscript::Range(begin, end) => {
                    if let Some(begin) = begin {
                        write_expr(out, begin);
                    }
                    out.push(':');
                    if let Some(end) = end {
                        write_expr(out, end);
                    }
                }
            }
            out.push(']');
        }
        ExprKind::Builtin(builtin, argument) => {
            let _ = write!(out, "{}(", builtin_name(*builtin));
            write_expr(out, argument);
            out.push(')');
        }
        ExprKind::Invocation(invocation) => write_invocation(out, invocation),
    }
}

fn write_list(out: &mut String, items: &[Expr]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, item);
    }
}

fn write_invocation(out: &mut String, invocation: &Invocation) {
    out.push_str(&invocation.name);
    if let Some(generic) = invocation.generic {
        let _ = write!(out, "<{}>", type_name(generic));
    }
    out.push('(');
    for (i, Argument { name, value }) in invocation.arguments.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if let Some((name, _)) = name {
            let _ = write!(out, "{name} = ");
        }
        write_expr(out, value);
    }
    out.push(')');
}

/// A real literal that reads back as a real: always a `.` (before any exponent); the shortest
/// decimal form that reads back as the same `f64`.
fn write_real(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("(0.0 / 0.0)");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 {
            "(1.0 / 0.0)"
        } else {
            "(-1.0 / 0.0)"
        });
        return;
    }
    // `{:?}` is the shortest round-trip form: `1.0`, `0.1`, `1e-7`, `1.5e300`.
    let text = format!("{x:?}");
    match text.find('e') {
        Some(e) if !text[..e].contains('.') => {
            out.push_str(&text[..e]);
            out.push_str(".0");
            out.push_str(&text[e..]);
        }
        Some(_) => out.push_str(&text),
        None if text.contains('.') => out.push_str(&text),
        None => {
            out.push_str(&text);
            out.push_str(".0");
        }
    }
}

/// A string literal: single quotes unless the string holds one (NNEF strings have no escapes).
fn write_string(out: &mut String, s: &str) {
    let quote = if s.contains('\'') { '"' } else { '\'' };
    out.push(quote);
    out.push_str(s);
    out.push(quote);
}

#[cfg(test)]
mod tests;
