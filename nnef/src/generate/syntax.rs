//! Small constructors of syntax-tree nodes for the generator and the mutator. Generated nodes
//! carry the default span (0:0): spans only matter for text a parser has read.

use crate::ast::{
    Argument, Assignment, BinaryOp, Builtin, Expr, ExprKind, Invocation, Subscript, TypeName,
};
use crate::Span;

pub(crate) fn expr(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

pub(crate) fn ident(name: &str) -> Expr {
    expr(ExprKind::Identifier(name.to_string()))
}

pub(crate) fn int(value: i64) -> Expr {
    expr(ExprKind::Integer(value))
}

pub(crate) fn real(value: f64) -> Expr {
    expr(ExprKind::Scalar(value))
}

pub(crate) fn logical(value: bool) -> Expr {
    expr(ExprKind::Logical(value))
}

pub(crate) fn string(value: &str) -> Expr {
    expr(ExprKind::String(value.to_string()))
}

pub(crate) fn array(items: Vec<Expr>) -> Expr {
    expr(ExprKind::Array(items))
}

pub(crate) fn tuple(items: Vec<Expr>) -> Expr {
    expr(ExprKind::Tuple(items))
}

pub(crate) fn ints(values: &[i64]) -> Expr {
    array(values.iter().map(|&v| int(v)).collect())
}

pub(crate) fn extents(values: &[usize]) -> Expr {
    array(values.iter().map(|&v| int(v as i64)).collect())
}

/// `[(p, q), ...]`.
pub(crate) fn pairs(values: &[(i64, i64)]) -> Expr {
    array(
        values
            .iter()
            .map(|&(p, q)| tuple(vec![int(p), int(q)]))
            .collect(),
    )
}

pub(crate) fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    expr(ExprKind::Binary(op, Box::new(left), Box::new(right)))
}

pub(crate) fn builtin(builtin: Builtin, argument: Expr) -> Expr {
    expr(ExprKind::Builtin(builtin, Box::new(argument)))
}

pub(crate) fn index(base: Expr, i: Expr) -> Expr {
    expr(ExprKind::Subscript(
        Box::new(base),
        Subscript::Index(Box::new(i)),
    ))
}

pub(crate) fn select(condition: Expr, then: Expr, otherwise: Expr) -> Expr {
    expr(ExprKind::Select {
        condition: Box::new(condition),
        then: Box::new(then),
        otherwise: Box::new(otherwise),
    })
}

/// A positional argument.
pub(crate) fn pos(value: Expr) -> Argument {
    Argument { name: None, value }
}

/// A named argument.
pub(crate) fn named(name: &str, value: Expr) -> Argument {
    Argument {
        name: Some((name.to_string(), Span::default())),
        value,
    }
}

pub(crate) fn call(name: &str, arguments: Vec<Argument>) -> Expr {
    expr(ExprKind::Invocation(Invocation {
        name: name.to_string(),
        generic: None,
        arguments,
    }))
}

pub(crate) fn call_generic(name: &str, generic: TypeName, arguments: Vec<Argument>) -> Expr {
    expr(ExprKind::Invocation(Invocation {
        name: name.to_string(),
        generic: Some(generic),
        arguments,
    }))
}

pub(crate) fn assign(lhs: Expr, rhs: Expr) -> Assignment {
    Assignment {
        lhs,
        rhs,
        span: Span::default(),
    }
}

/// Identifiers a left side binds, in order.
pub(crate) fn bound_names(lhs: &Expr, out: &mut Vec<String>) {
    match &lhs.kind {
        ExprKind::Identifier(name) => out.push(name.clone()),
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|item| bound_names(item, out))
        }
        _ => {}
    }
}

/// Identifiers an expression reads (comprehension variables included), in order.
pub(crate) fn used_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Identifier(name) => out.push(name.clone()),
        ExprKind::Integer(_) | ExprKind::Scalar(_) | ExprKind::Logical(_) | ExprKind::String(_) => {
        }
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|item| used_names(item, out))
        }
        ExprKind::Unary(_, x) | ExprKind::Builtin(_, x) => used_names(x, out),
        ExprKind::Binary(_, a, b) => {
            used_names(a, out);
            used_names(b, out);
        }
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => {
            used_names(condition, out);
            used_names(then, out);
            used_names(otherwise, out);
        }
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => {
            for (_, iterable) in iterators {
                used_names(iterable, out);
            }
            if let Some(c) = condition {
                used_names(c, out);
            }
            used_names(body, out);
        }
        ExprKind::Subscript(base, subscript) => {
            used_names(base, out);
            match subscript {
                Subscript::Index(i) => used_names(i, out),
                Subscript::Range(a, b) => {
                    a.iter().chain(b.iter()).for_each(|x| used_names(x, out));
                }
            }
        }
        ExprKind::Invocation(invocation) => invocation
            .arguments
            .iter()
            .for_each(|a| used_names(&a.value, out)),
    }
}
