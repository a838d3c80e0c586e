//! One-rule mutations: [`mutate`] takes a valid document and breaks exactly one semantic rule
//! ([`Rule`]), leaving everything else valid, so that a conforming front end must reject the
//! result and should name that rule.

use std::collections::BTreeSet;

use crate::ast::{
    Assignment, BinaryOp, Builtin, Document, Expr, ExprKind, Fragment, FragmentDeclaration,
    Invocation, Parameter, ResultDecl, Subscript, TypeName, TypeSpec,
};
use crate::Span;

use super::signatures::signature;
use super::syntax::{
    assign, binary, bound_names, builtin, call, extents, ident, index, int, ints, logical, named,
    pos, real, select, string, tuple, used_names,
};
use super::{RngLike, Rule};

/// `doc` with exactly one rule of seed 003 §3.3 broken, or `None` when `doc` has no place where
/// `rule` can be broken alone (e.g. no tuple assignment and no scalar external for
/// [`Rule::TupleArityMismatch`]).
///
/// Rules about fragment declarations and bodies add a small fragment definition (and the KHR
/// extensions, and an invocation of it in the graph) when the document defines none. Shape rules
/// append operations on an external, whose shape the document states.
pub fn mutate(doc: &Document, rule: Rule, rng: &mut impl RngLike) -> Option<Document> {
    let mut doc = doc.clone();
    let mut m = Mutator { doc: &mut doc, rng };
    m.apply(rule)?;
    Some(doc)
}

/// Which body an assignment index refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Graph,
    Fragment(usize),
}

/// A formal parameter of a standard or document fragment.
#[derive(Debug, Clone)]
struct ParamInfo {
    name: String,
    ty: TypeSpec,
    default: bool,
}

fn is_tensor_type(ty: &TypeSpec) -> bool {
    match ty {
        TypeSpec::Tensor(_) => true,
        TypeSpec::Array(item) => is_tensor_type(item),
        TypeSpec::Tuple(items) => items.iter().any(is_tensor_type),
        TypeSpec::Primitive(_) => false,
    }
}

/// A literal whose type cannot be converted to `ty` (seed 003 §3.3.2), if one is known.
fn wrong_literal(ty: &TypeSpec) -> Option<Expr> {
    Some(match ty {
        TypeSpec::Primitive(TypeName::Scalar) | TypeSpec::Tensor(Some(TypeName::Scalar)) => {
            string("wrong")
        }
        TypeSpec::Primitive(TypeName::Integer) | TypeSpec::Tensor(Some(TypeName::Integer)) => {
            real(1.5)
        }
        TypeSpec::Primitive(TypeName::Logical) | TypeSpec::Tensor(Some(TypeName::Logical)) => {
            int(1)
        }
        TypeSpec::Primitive(TypeName::String) => real(1.0),
        TypeSpec::Array(_) => logical(true),
        TypeSpec::Tuple(_) => string("wrong"),
        TypeSpec::Primitive(TypeName::Generic) | TypeSpec::Tensor(_) => return None,
    })
}

/// Pre-order visit of every sub-expression.
fn visit_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match &mut e.kind {
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter_mut().for_each(|x| visit_mut(x, f))
        }
        ExprKind::Unary(_, x) | ExprKind::Builtin(_, x) => visit_mut(x, f),
        ExprKind::Binary(_, a, b) => {
            visit_mut(a, f);
            visit_mut(b, f);
        }
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => {
            visit_mut(condition, f);
            visit_mut(then, f);
            visit_mut(otherwise, f);
        }
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => {
            iterators.iter_mut().for_each(|(_, x)| visit_mut(x, f));
            if let Some(c) = condition {
                visit_mut(c, f);
            }
            visit_mut(body, f);
        }
        ExprKind::Subscript(base, subscript) => {
            visit_mut(base, f);
            match subscript {
                Subscript::Index(i) => visit_mut(i, f),
                Subscript::Range(a, b) => {
                    if let Some(a) = a {
                        visit_mut(a, f);
                    }
                    if let Some(b) = b {
                        visit_mut(b, f);
                    }
                }
            }
        }
        ExprKind::Invocation(inv) => inv
            .arguments
            .iter_mut()
            .for_each(|a| visit_mut(&mut a.value, f)),
        _ => {}
    }
}

struct Mutator<'d, R> {
    doc: &'d mut Document,
    rng: R,
}

fn choose<T: Clone>(rng: &mut impl RngLike, items: &[T]) -> Option<T> {
    if items.is_empty() {
        None
    } else {
        Some(items[rng.index(items.len())].clone())
    }
}

impl<R: RngLike> Mutator<'_, R> {
    fn apply(&mut self, rule: Rule) -> Option<()> {
        use Rule::*;
        match rule {
            DuplicateFragmentName => self.duplicate_fragment_name(),
            DuplicateParameterName => {
                let f = self.fragment_index();
                let decl = &mut self.doc.fragments[f].declaration;
                let p = decl.parameters.iter().rposition(|p| p.default.is_some())?;
                let copy = decl.parameters[p].clone();
                decl.parameters.push(copy);
                Some(())
            }
            DuplicateResultName => {
                let f = self.fragment_index();
                let decl = &mut self.doc.fragments[f].declaration;
                let copy = decl.results[self.rng.index(decl.results.len())].clone();
                decl.results.push(copy);
                Some(())
            }
            DefaultTypeMismatch => {
                let f = self.fragment_index();
                let decl = &mut self.doc.fragments[f].declaration;
                let candidates: Vec<usize> = (0..decl.parameters.len())
                    .filter(|&i| {
                        decl.parameters[i].default.is_some()
                            && wrong_literal(&decl.parameters[i].ty).is_some()
                    })
                    .collect();
                let i = choose(&mut self.rng, &candidates)?;
                decl.parameters[i].default = wrong_literal(&decl.parameters[i].ty);
                Some(())
            }
            UndeclaredOperation => {
                let site = self.site(|_, _| true)?;
                let name = ["undefined_op", "relu6", "Relu", "conv_3d"][self.rng.index(4)];
                self.invocation_mut(site).name = name.to_string();
                Some(())
            }
            TooManyArguments => {
                let site = self.site(|inv, params| {
                    !params.is_empty()
                        && inv.arguments.len() == params.len()
                        && inv.arguments.iter().all(|a| a.name.is_none())
                })?;
                let inv = self.invocation_mut(site);
                let extra = inv.arguments.last()?.clone();
                inv.arguments.push(extra);
                Some(())
            }
            MissingArgument => self.missing_argument(),
            PositionalAfterNamed => {
                let site = self.site(|inv, _| {
                    inv.arguments.iter().any(|a| a.name.is_none())
                        && inv.arguments.iter().any(|a| a.name.is_some())
                })?;
                let inv = self.invocation_mut(site);
                let named: Vec<usize> = (0..inv.arguments.len())
                    .filter(|&i| inv.arguments[i].name.is_some())
                    .collect();
                let i = named[0];
                let arg = inv.arguments.remove(i);
                inv.arguments.insert(0, arg);
                Some(())
            }
            UnknownNamedArgument => {
                let site = self.site(|_, _| true)?;
                let params = self.params_at(site)?;
                let name = ["no_such_param", "pads", "axis_begin", "alpha2"]
                    .into_iter()
                    .find(|n| params.iter().all(|p| p.name != *n))?;
                self.invocation_mut(site)
                    .arguments
                    .push(named(name, int(1)));
                Some(())
            }
            DuplicateNamedArgument => {
                let site = self.site(|inv, _| inv.arguments.iter().any(|a| a.name.is_some()))?;
                let inv = self.invocation_mut(site);
                let i = inv.arguments.iter().position(|a| a.name.is_some())?;
                let copy = inv.arguments[i].clone();
                inv.arguments.insert(i + 1, copy);
                Some(())
            }
            NamedAlsoPositional => {
                let site = self.site(|inv, params| {
                    inv.arguments.first().is_some_and(|a| a.name.is_none()) && !params.is_empty()
                })?;
                let params = self.params_at(site)?;
                let positional = {
                    let inv = self.invocation_mut(site);
                    inv.arguments
                        .iter()
                        .take_while(|a| a.name.is_none())
                        .count()
                        .min(params.len())
                };
                let j = self.rng.index(positional);
                let inv = self.invocation_mut(site);
                let value = inv.arguments[j].value.clone();
                inv.arguments.push(named(&params[j].name, value));
                Some(())
            }
            NonTensorPositional => self.non_tensor_positional(),
            LiteralOnLeft | InvocationOnLeft => self.bad_left_side(rule == InvocationOnLeft),
            FragmentParameterAssigned => {
                let f = self.fragment_index();
                let fragment = &mut self.doc.fragments[f];
                let p = fragment
                    .declaration
                    .parameters
                    .iter()
                    .find(|p| matches!(p.ty, TypeSpec::Tensor(_)))?;
                let name = p.name.clone();
                fragment.body.as_mut()?.insert(
                    0,
                    assign(ident(&name), call("copy", vec![pos(ident(&name))])),
                );
                Some(())
            }
            GraphInputNotExternal => {
                let (i, name, _) = {
                    let e = self.externals(false);
                    choose(&mut self.rng, &e)?
                };
                let ExprKind::Invocation(inv) = &mut self.doc.graph.body[i].rhs.kind else {
                    return None;
                };
                inv.name = "variable".to_string();
                inv.arguments.push(named("label", string(&name)));
                Some(())
            }
            ExternalInFragment => {
                let f = self.fragment_index();
                let local = self.fresh_name("outside");
                let body = self.doc.fragments[f].body.as_mut()?;
                body.insert(
                    0,
                    assign(
                        ident(&local),
                        call("external", vec![named("shape", ints(&[1]))]),
                    ),
                );
                Some(())
            }
            ResultNotAssigned => {
                let f = self.fragment_index();
                let fragment = &mut self.doc.fragments[f];
                let results: BTreeSet<String> = fragment
                    .declaration
                    .results
                    .iter()
                    .map(|r| r.name.clone())
                    .collect();
                let body = fragment.body.as_mut()?;
                let candidates: Vec<usize> = (0..body.len())
                    .filter(|&i| {
                        let ExprKind::Identifier(n) = &body[i].lhs.kind else {
                            return false;
                        };
                        let mut used = Vec::new();
                        body[i + 1..]
                            .iter()
                            .for_each(|a| used_names(&a.rhs, &mut used));
                        results.contains(n) && !used.contains(n)
                    })
                    .collect();
                let i = choose(&mut self.rng, &candidates)?;
                // The value goes to a new local instead (a body needs an assignment).
                let local = self.fresh_name("unassigned");
                self.doc.fragments[f].body.as_mut()?[i].lhs = ident(&local);
                Some(())
            }
            ResultAssignedTwice => {
                let f = self.fragment_index();
                let fragment = &mut self.doc.fragments[f];
                let results: BTreeSet<String> = fragment
                    .declaration
                    .results
                    .iter()
                    .map(|r| r.name.clone())
                    .collect();
                let body = fragment.body.as_mut()?;
                let i = body.iter().position(
                    |a| matches!(&a.lhs.kind, ExprKind::Identifier(n) if results.contains(n)),
                )?;
                let copy = body[i].clone();
                body.insert(i + 1, copy);
                Some(())
            }
            UseBeforeDefinition => self.use_before_definition(),
            IdentifierAssignedTwice => {
                let body = &self.doc.graph.body;
                let candidates: Vec<usize> = (0..body.len())
                    .filter(|&i| {
                        matches!(body[i].lhs.kind, ExprKind::Identifier(_))
                            && matches!(&body[i].rhs.kind, ExprKind::Invocation(inv) if inv.name != "external")
                    })
                    .collect();
                let i = choose(&mut self.rng, &candidates)?;
                let copy = self.doc.graph.body[i].clone();
                self.doc.graph.body.insert(i + 1, copy);
                Some(())
            }
            NonTensorIdentifierInGraph => {
                let names = self.graph_tensors();
                let t = choose(&mut self.rng, &names)?;
                let array_name = self.fresh_name("copies");
                let rhs = call("copy_n", vec![pos(ident(&t)), named("times", int(2))]);
                self.doc.graph.body.push(assign(ident(&array_name), rhs));
                Some(())
            }
            ArgumentTypeMismatch => self.argument_type_mismatch(),
            ResultTypeMismatch => {
                let candidates: Vec<usize> = (0..self.doc.fragments.len())
                    .filter(|&f| {
                        let d = &self.doc.fragments[f].declaration;
                        self.doc.fragments[f].body.is_some()
                            && d.results
                                .iter()
                                .any(|r| r.ty == TypeSpec::Tensor(Some(TypeName::Scalar)))
                            && d.parameters
                                .iter()
                                .any(|p| p.ty == TypeSpec::Tensor(Some(TypeName::Scalar)))
                    })
                    .collect();
                let f = match choose(&mut self.rng, &candidates) {
                    Some(f) => f,
                    None => self.add_fragment(),
                };
                let fragment = &mut self.doc.fragments[f];
                let decl = &fragment.declaration;
                let x = decl
                    .parameters
                    .iter()
                    .find(|p| p.ty == TypeSpec::Tensor(Some(TypeName::Scalar)))?
                    .name
                    .clone();
                let r = decl
                    .results
                    .iter()
                    .find(|r| r.ty == TypeSpec::Tensor(Some(TypeName::Scalar)))?
                    .name
                    .clone();
                let body = fragment.body.as_mut()?;
                let i = body
                    .iter()
                    .position(|a| matches!(&a.lhs.kind, ExprKind::Identifier(n) if *n == r))?;
                body[i].rhs = call("lt", vec![pos(ident(&x)), pos(real(0.0))]);
                Some(())
            }
            LogicalForScalarTensor => self.logical_for_scalar(),
            TupleArityMismatch => self.tuple_arity(),
            ArrayItemTypeMismatch => {
                let site = self.site(|inv, _| {
                    inv.arguments
                        .iter()
                        .any(|a| a.name.is_some() && is_int_array(&a.value))
                })?;
                let inv = self.invocation_mut(site);
                let arg = inv
                    .arguments
                    .iter_mut()
                    .find(|a| a.name.is_some() && is_int_array(&a.value))?;
                let ExprKind::Array(items) = &mut arg.value.kind else {
                    return None;
                };
                items.push(string("x"));
                Some(())
            }
            SelectConditionNotLogical => self.rewrite_nth_in_fragments(
                |e| matches!(e.kind, ExprKind::Select { .. }),
                |e| {
                    if let ExprKind::Select { condition, .. } = &mut e.kind {
                        **condition = int(1);
                    }
                },
            ),
            IndexNotInteger => self.rewrite_nth_in_fragments(
                |e| matches!(e.kind, ExprKind::Subscript(_, Subscript::Index(_))),
                |e| {
                    if let ExprKind::Subscript(_, Subscript::Index(i)) = &mut e.kind {
                        **i = real(0.0);
                    }
                },
            ),
            BroadcastMismatch => {
                let externals: Vec<_> = self
                    .externals(true)
                    .into_iter()
                    .filter(|(_, _, s)| s.iter().any(|&e| e >= 2))
                    .collect();
                let (_, x, mut shape) = choose(&mut self.rng, &externals)?;
                let dims: Vec<usize> = (0..shape.len()).filter(|&i| shape[i] >= 2).collect();
                let d = choose(&mut self.rng, &dims)?;
                shape[d] += 1;
                let v = self.append_variable(&shape);
                self.append_op("add", vec![pos(ident(&x)), pos(ident(&v))]);
                Some(())
            }
            ConvChannelMismatch => {
                let externals: Vec<_> = self
                    .externals(true)
                    .into_iter()
                    .filter(|(_, _, s)| (3..=5).contains(&s.len()))
                    .collect();
                let (_, x, shape) = choose(&mut self.rng, &externals)?;
                let mut filter = vec![2, shape[1] + 1];
                filter.extend(std::iter::repeat_n(1, shape.len() - 2));
                let w = self.append_variable(&filter);
                self.append_op("conv", vec![pos(ident(&x)), pos(ident(&w))]);
                Some(())
            }
            AxisOutOfRange => {
                let (_, x, shape) = {
                    let e = self.externals(true);
                    choose(&mut self.rng, &e)?
                };
                let axis = if self.rng.chance(0.5) {
                    shape.len() as i64
                } else {
                    -1 - shape.len() as i64
                };
                self.append_op(
                    "sum_reduce",
                    vec![pos(ident(&x)), named("axes", ints(&[axis]))],
                );
                Some(())
            }
            ReshapeVolumeMismatch => {
                let (_, x, shape) = {
                    let e = self.externals(false);
                    choose(&mut self.rng, &e)?
                };
                let volume: usize = shape.iter().product();
                self.append_op(
                    "reshape",
                    vec![pos(ident(&x)), named("shape", extents(&[volume + 1]))],
                );
                Some(())
            }
        }
    }
}

fn is_int_array(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Array(items) if !items.is_empty() && items.iter().all(|i| matches!(i.kind, ExprKind::Integer(_))))
}

mod breakers;
mod places;
#[cfg(test)]
mod tests;
