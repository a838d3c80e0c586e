//! Static checks of fragment and graph bodies (seed 003 §3.3.1 "invocations", "assignments",
//! "identifier usage"; §3.3.2 types; §3.3.3 operators, builtins, subscripts, comprehensions).
//!
//! Every body is checked once, whether or not it is invoked: each expression gets a [`Type`]
//! and every rule broken is reported at its line:col.

use std::collections::HashMap;

use crate::ast::{
    Argument, Assignment, BinaryOp, Builtin, Expr, ExprKind, Invocation, Subscript, TypeName,
    UnaryOp,
};
use crate::error::{NnefError, Result, Span};
use crate::eval::declarations::{Declarations, Prototype};
use crate::eval::types::Type;

use TypeName::{Integer, Logical, Scalar};

/// What a body may contain.
#[derive(Debug, Clone, Copy)]
pub struct BodyRules {
    /// True for the graph body, false for a fragment body.
    pub graph: bool,
    /// Compositional expressions allowed (fragment bodies; graph bodies with
    /// `KHR_enable_operator_expressions`).
    pub operators: bool,
}

/// Declared identifiers of a body and their types.
pub type Scope = HashMap<String, Type>;

/// The type of a literal expression (a default value): no identifiers or invocations.
pub fn literal_type(expr: &Expr) -> Result<Type> {
    let declarations = Declarations::default();
    let mut scope = Scope::new();
    Checker {
        declarations: &declarations,
        rules: BodyRules {
            graph: false,
            operators: true,
        },
    }
    .expr(expr, &mut scope)
}

/// Checks the assignments of a body, starting from `scope` (the fragment's parameters; empty for
/// the graph), and returns the scope after the last assignment.
///
/// Errors: see the module documentation; also a flat graph body using compositional
/// expressions, `external`/`variable`/`update` inside fragments.
pub fn check_body(
    declarations: &Declarations<'_>,
    rules: BodyRules,
    body: &[Assignment],
    mut scope: Scope,
    parameters: &[String],
) -> Result<Scope> {
    let checker = Checker {
        declarations,
        rules,
    };
    for assignment in body {
        if !rules.operators {
            checker.flat(&assignment.rhs)?;
        }
        let ty = checker.expr(&assignment.rhs, &mut scope)?;
        checker.declare(&assignment.lhs, &ty, &mut scope, parameters)?;
    }
    Ok(scope)
}

struct Checker<'d, 'a> {
    declarations: &'d Declarations<'a>,
    rules: BodyRules,
}

fn sem(span: Span, message: impl Into<String>) -> NnefError {
    NnefError::semantic(span, message)
}

impl Checker<'_, '_> {
    /// Flat syntax: an invocation whose arguments are identifiers, literals, and arrays and
    /// tuples of them.
    fn flat(&self, rhs: &Expr) -> Result<()> {
        fn flat_arg(e: &Expr) -> bool {
            match &e.kind {
                ExprKind::Identifier(_)
                | ExprKind::Integer(_)
                | ExprKind::Scalar(_)
                | ExprKind::Logical(_)
                | ExprKind::String(_) => true,
                ExprKind::Unary(UnaryOp::Minus | UnaryOp::Plus, inner) => {
                    matches!(inner.kind, ExprKind::Integer(_) | ExprKind::Scalar(_))
                }
                ExprKind::Array(items) | ExprKind::Tuple(items) => items.iter().all(flat_arg),
                _ => false,
            }
        }
        let hint = format!(
            "compositional expressions in the graph body need `extension {};`",
            crate::eval::declarations::OPERATOR_EXPRESSIONS
        );
        match &rhs.kind {
            ExprKind::Invocation(inv) => {
                for a in &inv.arguments {
                    if !flat_arg(&a.value) {
                        return Err(sem(
                            a.value.span,
                            format!("expected an identifier or a literal as argument: {hint}"),
                        ));
                    }
                }
                Ok(())
            }
            _ => Err(sem(
                rhs.span,
                format!("expected an invocation on the right side: {hint}"),
            )),
        }
    }

    fn declare(
        &self,
        lhs: &Expr,
        ty: &Type,
        scope: &mut Scope,
        parameters: &[String],
    ) -> Result<()> {
        match &lhs.kind {
            ExprKind::Identifier(name) => {
                if parameters.contains(name) && !self.rules.graph {
                    return Err(sem(
                        lhs.span,
                        format!("parameter '{name}' cannot be assigned: fragment parameters are read-only"),
                    ));
                }
                if scope.contains_key(name) {
                    return Err(sem(
                        lhs.span,
                        format!("identifier '{name}' is already assigned: each identifier is assigned once"),
                    ));
                }
                if self.rules.graph && !matches!(ty, Type::Tensor(_)) {
                    return Err(sem(
                        lhs.span,
                        format!(
                            "identifier '{name}' of the graph body has type {ty}: graph identifiers must be single tensors"
                        ),
                    ));
                }
                scope.insert(name.clone(), ty.clone());
                Ok(())
            }
            ExprKind::Array(items) => {
                let item = match ty {
                    Type::Array(Some(item)) => (**item).clone(),
                    Type::Array(None) => {
                        return if items.is_empty() {
                            Ok(())
                        } else {
                            Err(sem(lhs.span, "cannot unpack an empty array into identifiers"))
                        }
                    }
                    _ => return Err(sem(lhs.span, format!("cannot assign a value of type {ty} to an array"))),
                };
                for i in items {
                    self.declare(i, &item, scope, parameters)?;
                }
                Ok(())
            }
            ExprKind::Tuple(items) => {
                let Type::Tuple(types) = ty else {
                    return Err(sem(lhs.span, format!("cannot assign a value of type {ty} to a tuple")));
                };
                if types.len() != items.len() {
                    return Err(sem(
                        lhs.span,
                        format!(
                            "cannot unpack a tuple of {} items into {} identifiers",
                            types.len(),
                            items.len()
                        ),
                    ));
                }
                for (i, t) in items.iter().zip(types) {
                    self.declare(i, t, scope, parameters)?;
                }
                Ok(())
            }
            _ => Err(sem(
                lhs.span,
                "the left side of an assignment must be an identifier, or an array or tuple of identifiers",
            )),
        }
    }

    fn expr(&self, expr: &Expr, scope: &mut Scope) -> Result<Type> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Identifier(name) => scope.get(name).cloned().ok_or_else(|| {
                sem(
                    span,
                    format!("identifier '{name}' is used before it is assigned"),
                )
            }),
            ExprKind::Integer(_) => Ok(Type::Primitive(Integer)),
            ExprKind::Scalar(_) => Ok(Type::Primitive(Scalar)),
            ExprKind::Logical(_) => Ok(Type::Primitive(Logical)),
            ExprKind::String(_) => Ok(Type::Primitive(TypeName::String)),
            ExprKind::Array(items) => {
                let mut ty: Option<Type> = None;
                for item in items {
                    let t = self.expr(item, scope)?;
                    ty = Some(match ty {
                        None => t,
                        Some(prev) => Type::common(&prev, &t).ok_or_else(|| {
                            sem(
                                item.span,
                                format!("array items of types {prev} and {t} have no common type"),
                            )
                        })?,
                    });
                }
                Ok(Type::Array(ty.map(Box::new)))
            }
            ExprKind::Tuple(items) => Ok(Type::Tuple(
                items
                    .iter()
                    .map(|i| self.expr(i, scope))
                    .collect::<Result<_>>()?,
            )),
            ExprKind::Unary(op, operand) => {
                let t = self.expr(operand, scope)?;
                self.operators_allowed(span)?;
                unary_type(*op, &t).ok_or_else(|| {
                    sem(
                        span,
                        format!("operator {} does not apply to {t}", unary_symbol(*op)),
                    )
                })
            }
            ExprKind::Binary(op, lhs, rhs) => {
                let a = self.expr(lhs, scope)?;
                let b = self.expr(rhs, scope)?;
                self.operators_allowed(span)?;
                binary_type(*op, &a, &b).ok_or_else(|| {
                    sem(
                        span,
                        format!(
                            "operator {} does not apply to {a} and {b}",
                            binary_symbol(*op)
                        ),
                    )
                })
            }
            ExprKind::Select {
                condition,
                then,
                otherwise,
            } => {
                self.operators_allowed(span)?;
                let c = self.expr(condition, scope)?;
                if c != Type::Primitive(Logical) {
                    return Err(sem(
                        condition.span,
                        format!("the condition of a select must be a logical value, found {c}"),
                    ));
                }
                let a = self.expr(then, scope)?;
                let b = self.expr(otherwise, scope)?;
                Type::common(&a, &b).ok_or_else(|| {
                    sem(
                        span,
                        format!("the branches of a select have incompatible types {a} and {b}"),
                    )
                })
            }
            ExprKind::Comprehension {
                iterators,
                condition,
                body,
            } => {
                self.operators_allowed(span)?;
                let mut declared = Vec::new();
                let mut result = Ok(());
                for (name, iterable) in iterators {
                    let t = self.expr(iterable, scope)?;
                    let item = match t {
                        Type::Array(Some(item)) => *item,
                        Type::Array(None) => Type::Array(None),
                        other => {
                            result = Err(sem(
                                iterable.span,
                                format!("a comprehension iterates arrays, found {other}"),
                            ));
                            break;
                        }
                    };
                    if scope.contains_key(name) {
                        result = Err(sem(
                            iterable.span,
                            format!("loop variable '{name}' is already declared"),
                        ));
                        break;
                    }
                    scope.insert(name.clone(), item);
                    declared.push(name.clone());
                }
                let out = result.and_then(|()| {
                    if let Some(c) = condition {
                        let ct = self.expr(c, scope)?;
                        if ct != Type::Primitive(Logical) {
                            return Err(sem(
                                c.span,
                                format!(
                                    "the condition of a comprehension must be logical, found {ct}"
                                ),
                            ));
                        }
                    }
                    Ok(Type::array(self.expr(body, scope)?))
                });
                for name in declared {
                    scope.remove(&name);
                }
                out
            }
            ExprKind::Subscript(base, index) => {
                self.operators_allowed(span)?;
                let t = self.expr(base, scope)?;
                self.subscript(span, &t, index, scope)
            }
            ExprKind::Builtin(builtin, arg) => {
                self.operators_allowed(span)?;
                let t = self.expr(arg, scope)?;
                builtin_type(*builtin, &t).ok_or_else(|| {
                    sem(
                        span,
                        format!("{} does not apply to {t}", builtin_name(*builtin)),
                    )
                })
            }
            ExprKind::Invocation(inv) => self.invocation(inv, span, scope),
        }
    }

    fn operators_allowed(&self, span: Span) -> Result<()> {
        if self.rules.operators {
            Ok(())
        } else {
            Err(sem(
                span,
                format!(
                    "compositional expressions in the graph body need `extension {};`",
                    crate::eval::declarations::OPERATOR_EXPRESSIONS
                ),
            ))
        }
    }

    fn subscript(
        &self,
        span: Span,
        t: &Type,
        index: &Subscript,
        scope: &mut Scope,
    ) -> Result<Type> {
        let integer = |e: &Expr, scope: &mut Scope| -> Result<()> {
            let it = self.expr(e, scope)?;
            if it == Type::Primitive(Integer) {
                Ok(())
            } else {
                Err(sem(
                    e.span,
                    format!("an index must be an integer, found {it}"),
                ))
            }
        };
        match (t, index) {
            (Type::Tuple(items), Subscript::Index(i)) => match i.kind {
                ExprKind::Integer(k) if (0..items.len() as i64).contains(&k) => {
                    Ok(items[k as usize].clone())
                }
                ExprKind::Integer(k) => Err(sem(
                    i.span,
                    format!("tuple index {k} is out of range for {t}"),
                )),
                _ => Err(sem(i.span, "a tuple index must be an integer literal")),
            },
            (Type::Tuple(_), Subscript::Range(..)) => {
                Err(sem(span, "tuples cannot be sliced with a range"))
            }
            (Type::Array(item), Subscript::Index(i)) => {
                integer(i, scope)?;
                Ok(item.as_deref().cloned().unwrap_or(Type::Array(None)))
            }
            (Type::Array(_) | Type::Primitive(TypeName::String), Subscript::Range(b, e)) => {
                for x in [b, e].into_iter().flatten() {
                    integer(x, scope)?;
                }
                Ok(t.clone())
            }
            (Type::Primitive(TypeName::String), Subscript::Index(i)) => {
                integer(i, scope)?;
                Ok(t.clone())
            }
            _ => Err(sem(
                span,
                format!("only arrays, tuples and strings can be subscripted, found {t}"),
            )),
        }
    }

    fn invocation(&self, inv: &Invocation, span: Span, scope: &mut Scope) -> Result<Type> {
        let proto = self
            .declarations
            .get(&inv.name)
            .ok_or_else(|| sem(span, format!("operation '{}' is not declared", inv.name)))?;
        if !self.rules.graph && matches!(inv.name.as_str(), "external" | "variable" | "update") {
            return Err(sem(
                span,
                format!("operation '{}' is not allowed inside fragments", inv.name),
            ));
        }
        let decl = proto.declaration();
        let arg_types = bind_arguments(proto, &inv.arguments, span, |e| self.expr(e, scope))?;
        let data_type = generic_data_type(proto, inv.generic, &arg_types, span)?;
        for (i, (arg, t)) in arg_types.iter().enumerate() {
            let Some(t) = t else { continue };
            let param_type = bind_opt(&proto.parameter_types[i], data_type);
            if !t.castable_to(&param_type) {
                return Err(sem(
                    arg.map_or(span, |a| a.value.span),
                    format!(
                        "argument for parameter '{}' of '{}' has type {t}, which does not convert to {param_type}",
                        decl.parameters[i].name, decl.name
                    ),
                ));
            }
        }
        let results: Vec<Type> = proto
            .result_types
            .iter()
            .map(|t| bind_opt(t, data_type))
            .collect();
        Ok(if results.len() == 1 {
            results.into_iter().next().unwrap_or(Type::Tuple(vec![]))
        } else {
            Type::Tuple(results)
        })
    }
}

fn bind_opt(t: &Type, data_type: Option<TypeName>) -> Type {
    match data_type {
        Some(d) => t.bind(d),
        None => t.clone(),
    }
}

/// Matches an invocation's arguments to the parameters of `proto` (seed 003 §3.3.1,
/// "invocations") and returns, per parameter, the argument given (if any) and its type
/// (`None` type for a defaulted parameter).
///
/// Errors: too many arguments; a positional argument after a named one; a positional argument
/// for an attribute (non-tensor) parameter; an unknown name; a parameter given twice; a
/// parameter without default left out.
pub fn bind_arguments<'e>(
    proto: &Prototype<'_>,
    arguments: &'e [Argument],
    span: Span,
    mut type_of: impl FnMut(&Expr) -> Result<Type>,
) -> Result<Vec<(Option<&'e Argument>, Option<Type>)>> {
    let decl = proto.declaration();
    let mut bound: Vec<(Option<&Argument>, Option<Type>)> =
        vec![(None, None); decl.parameters.len()];
    let mut named_seen = false;
    for (position, arg) in arguments.iter().enumerate() {
        let index = match &arg.name {
            Some((name, name_span)) => {
                named_seen = true;
                proto.parameter_index(name).ok_or_else(|| {
                    sem(
                        *name_span,
                        format!("operation '{}' has no parameter called '{name}'", decl.name),
                    )
                })?
            }
            None => {
                if named_seen {
                    return Err(sem(
                        arg.value.span,
                        "a positional argument cannot follow a named argument",
                    ));
                }
                if position >= decl.parameters.len() {
                    return Err(sem(
                        arg.value.span,
                        format!(
                            "too many arguments: '{}' has {} parameters",
                            decl.name,
                            decl.parameters.len()
                        ),
                    ));
                }
                if proto.parameter_types[position].is_attribute() {
                    return Err(sem(
                        arg.value.span,
                        format!(
                            "attribute parameter '{}' of '{}' must be given by name (only tensor parameters may be positional)",
                            decl.parameters[position].name, decl.name
                        ),
                    ));
                }
                position
            }
        };
        if let Some(previous) = bound[index].0 {
            let how = if previous.name.is_some() {
                "named"
            } else {
                "positional"
            };
            return Err(sem(
                arg.name.as_ref().map_or(arg.value.span, |(_, s)| *s),
                format!(
                    "parameter '{}' of '{}' is given twice (already by the {how} argument at {})",
                    decl.parameters[index].name, decl.name, previous.value.span
                ),
            ));
        }
        let t = type_of(&arg.value)?;
        bound[index] = (Some(arg), Some(t));
    }
    for (i, p) in decl.parameters.iter().enumerate() {
        if bound[i].0.is_none() && p.default.is_none() {
            return Err(sem(
                span,
                format!(
                    "missing argument for parameter '{}' of '{}', which has no default",
                    p.name, decl.name
                ),
            ));
        }
    }
    Ok(bound)
}

/// The generic data type of an invocation: explicit `<T>`, deduced from arguments, or the
/// declaration's default. `None` for non-generic fragments.
///
/// Errors: arguments deducing two different types; no way to deduce it.
pub fn generic_data_type(
    proto: &Prototype<'_>,
    explicit: Option<TypeName>,
    arg_types: &[(Option<&Argument>, Option<Type>)],
    span: Span,
) -> Result<Option<TypeName>> {
    let decl = proto.declaration();
    let Some(default) = decl.generic else {
        return Ok(None);
    };
    if explicit.is_some() {
        return Ok(explicit);
    }
    let mut found = None;
    for (i, (_, t)) in arg_types.iter().enumerate() {
        let param = &proto.parameter_types[i];
        if !param.is_generic() {
            continue;
        }
        let t = match t {
            Some(t) => t.clone(),
            None => match &decl.parameters[i].default {
                Some(d) => literal_type(d)?,
                None => continue,
            },
        };
        param.deduce(&t, &mut found).map_err(|(a, b)| {
            sem(
                span,
                format!(
                    "cannot deduce the generic type of '{}': arguments give both {} and {}",
                    decl.name,
                    crate::eval::types::type_name(a),
                    crate::eval::types::type_name(b)
                ),
            )
        })?;
    }
    match found.or(default) {
        Some(t) => Ok(Some(t)),
        None => Err(sem(
            span,
            format!(
                "cannot deduce the generic type of '{}': give it as '{}<scalar>(...)'",
                decl.name, decl.name
            ),
        )),
    }
}

fn unary_type(op: UnaryOp, t: &Type) -> Option<Type> {
    match op {
        UnaryOp::Plus | UnaryOp::Minus => match t {
            Type::Primitive(Integer | Scalar) | Type::Tensor(Some(Scalar)) => Some(t.clone()),
            _ => None,
        },
        UnaryOp::Not => match t {
            Type::Primitive(Logical) | Type::Tensor(Some(Logical)) => Some(t.clone()),
            _ => None,
        },
    }
}

fn binary_type(op: BinaryOp, a: &Type, b: &Type) -> Option<Type> {
    use BinaryOp::*;
    match op {
        In => return matches!(b, Type::Array(_)).then_some(Type::Primitive(Logical)),
        Add if matches!(a, Type::Array(_)) => {
            return Type::common(a, b).filter(|t| matches!(t, Type::Array(_)))
        }
        Mul if matches!(a, Type::Array(_)) && *b == Type::Primitive(Integer) => {
            return Some(a.clone())
        }
        Mul if matches!(b, Type::Array(_)) && *a == Type::Primitive(Integer) => {
            return Some(b.clone())
        }
        _ => {}
    }
    let t = Type::common(a, b)?;
    let string = Type::Primitive(TypeName::String);
    match op {
        Lt | Le | Gt | Ge => match t {
            Type::Primitive(Integer | Scalar) => Some(Type::Primitive(Logical)),
            Type::Tensor(Some(Scalar)) => Some(Type::Tensor(Some(Logical))),
            _ => None,
        },
        Eq | Ne => match t {
            Type::Tensor(Some(Scalar)) => Some(Type::Tensor(Some(Logical))),
            Type::Tensor(_) => None,
            _ => Some(Type::Primitive(Logical)),
        },
        Add | Mul if t == string => Some(t),
        Add | Sub | Mul | Div | Pow => match t {
            Type::Primitive(Integer | Scalar) | Type::Tensor(Some(Scalar)) => Some(t),
            _ => None,
        },
        And | Or => match t {
            Type::Primitive(Logical) | Type::Tensor(Some(Logical)) => Some(t),
            _ => None,
        },
        In => None,
    }
}

fn builtin_type(builtin: Builtin, t: &Type) -> Option<Type> {
    let string = Type::Primitive(TypeName::String);
    match builtin {
        Builtin::ShapeOf => matches!(t, Type::Tensor(_) | Type::Primitive(_))
            .then(|| Type::array(Type::Primitive(Integer))),
        Builtin::LengthOf => {
            (matches!(t, Type::Array(_)) || *t == string).then_some(Type::Primitive(Integer))
        }
        Builtin::RangeOf => (matches!(t, Type::Array(_)) || *t == string)
            .then(|| Type::array(Type::Primitive(Integer))),
        Builtin::Integer | Builtin::Scalar | Builtin::Logical | Builtin::String => {
            let Type::Primitive(from) = t else {
                return None;
            };
            if *from == TypeName::Generic {
                return None;
            }
            Some(Type::Primitive(match builtin {
                Builtin::Integer => Integer,
                Builtin::Scalar => Scalar,
                Builtin::Logical => Logical,
                _ => TypeName::String,
            }))
        }
    }
}

/// The operator's symbol.
pub fn binary_symbol(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Pow => "^",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Eq => "==",
        Ne => "!=",
        And => "&&",
        Or => "||",
        In => "in",
    }
}

/// The operator's symbol.
pub fn unary_symbol(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Plus => "+",
        UnaryOp::Minus => "-",
        UnaryOp::Not => "!",
    }
}

/// The builtin's name.
pub fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::ShapeOf => "shape_of",
        Builtin::LengthOf => "length_of",
        Builtin::RangeOf => "range_of",
        Builtin::Integer => "integer",
        Builtin::Scalar => "scalar",
        Builtin::Logical => "logical",
        Builtin::String => "string",
    }
}
