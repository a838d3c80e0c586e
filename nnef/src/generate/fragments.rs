//! Compositional documents (NNEF 1.0.5 `KHR_enable_fragment_definitions` and
//! `KHR_enable_operator_expressions`, seed 003 §3.2.3): fragment definitions built from
//! templates that exercise defaults, arrays, tuples, `if`/`else` selection, comprehensions,
//! subscripts, built-ins and generic types, and graph invocations of them with arguments valid
//! for the tracked shapes.

use crate::ast::{
    Assignment, BinaryOp, Builtin, Expr, ExprKind, Fragment, FragmentDeclaration, Parameter,
    ResultDecl, TypeName, TypeSpec,
};
use crate::graph::DataType;
use crate::Span;

use super::ops_tensor::reduced;
use super::syntax::{
    assign, binary, builtin, call, expr, ident, index, int, ints, logical, named, pairs, pos, real,
    select, tuple,
};
use super::valid::{broadcast, type_name, Builder, TensorInfo};
use super::RngLike;

/// Which template a defined fragment follows (it decides how the graph invokes it and the
/// shapes of its results).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Template {
    /// `(x, y, alpha, flag) -> z [, w]`: element-wise arithmetic with a scalar attribute and
    /// an attribute-selected branch; results have the broadcast shape of `x` and `y`.
    Scaled { two_results: bool },
    /// `(input, axes, normalize) -> output`: a comprehension filters `axes`, then a reduction.
    Reduce,
    /// `(input, size, stride) -> output`: a max pool whose window is built with array
    /// arithmetic; `stride`'s default has `spatial` items.
    Pool { spatial: usize },
    /// `<?>(x, times) -> y`: `times` copies of `x` concatenated along axis 0.
    Repeat,
    /// `(x, axis, ratios) -> (first, last)`: a split into two, its ratios taken by subscripts
    /// from the `ratios` array, unpacked into the results by an array left side.
    Halves,
}

/// A fragment the document defines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Defined {
    pub fragment: Fragment,
    pub template: Template,
}

fn tensor(t: TypeName) -> TypeSpec {
    TypeSpec::Tensor(Some(t))
}
fn prim(t: TypeName) -> TypeSpec {
    TypeSpec::Primitive(t)
}
fn param(name: &str, ty: TypeSpec, default: Option<Expr>) -> Parameter {
    Parameter {
        name: name.to_string(),
        ty,
        default,
        span: Span::default(),
    }
}
fn result(name: &str, ty: TypeSpec) -> ResultDecl {
    ResultDecl {
        name: name.to_string(),
        ty,
        span: Span::default(),
    }
}

/// Defines one or two fragments (distinct templates) for the graph to invoke.
pub(crate) fn define<R: RngLike>(b: &mut Builder<'_, R>) {
    let count = 1 + b.rng.index(2);
    for _ in 0..count {
        let template = match b.rng.index(5) {
            0 => Template::Scaled {
                two_results: b.rng.chance(0.4),
            },
            1 => Template::Reduce,
            2 => Template::Pool {
                spatial: b.rng.range(1, 2) as usize,
            },
            3 => Template::Repeat,
            _ => Template::Halves,
        };
        if b.fragments
            .iter()
            .any(|d| std::mem::discriminant(&d.template) == std::mem::discriminant(&template))
        {
            continue;
        }
        let prefix = ["block", "unit", "layer"][b.rng.index(3)];
        let name = b.fresh(prefix);
        let fragment = build(b, &name, template);
        b.fragments.push(Defined { fragment, template });
    }
}

fn build<R: RngLike>(b: &mut Builder<'_, R>, name: &str, template: Template) -> Fragment {
    let s = TypeName::Scalar;
    let (generic, parameters, results, body): (
        _,
        Vec<Parameter>,
        Vec<ResultDecl>,
        Vec<Assignment>,
    ) = match template {
        Template::Scaled { two_results } => {
            let mut results = vec![result("z", tensor(s))];
            let mut body = vec![
                assign(
                    ident("s"),
                    binary(
                        BinaryOp::Add,
                        binary(BinaryOp::Mul, ident("alpha"), real(2.0)),
                        real(1.0),
                    ),
                ),
                assign(
                    ident("t"),
                    binary(
                        BinaryOp::Add,
                        binary(BinaryOp::Mul, ident("x"), ident("s")),
                        ident("y"),
                    ),
                ),
                assign(
                    ident("z"),
                    select(
                        ident("flag"),
                        call("relu", vec![pos(ident("t"))]),
                        binary(BinaryOp::Sub, ident("t"), ident("y")),
                    ),
                ),
            ];
            if two_results {
                results.push(result("w", tensor(s)));
                body.push(assign(ident("w"), call("sqr", vec![pos(ident("t"))])));
            }
            let params = vec![
                param("x", tensor(s), None),
                param("y", tensor(s), None),
                param("alpha", prim(s), Some(real(b.real_value()))),
                param(
                    "flag",
                    prim(TypeName::Logical),
                    Some(logical(b.rng.chance(0.5))),
                ),
            ];
            (None, params, results, body)
        }
        Template::Reduce => {
            let kept = expr(ExprKind::Comprehension {
                iterators: vec![("i".to_string(), ident("axes"))],
                condition: Some(Box::new(binary(BinaryOp::Ge, ident("i"), int(0)))),
                body: Box::new(ident("i")),
            });
            let count = builtin(Builtin::Scalar, builtin(Builtin::LengthOf, ident("kept")));
            let body = vec![
                assign(ident("kept"), kept),
                assign(
                    ident("total"),
                    call(
                        "sum_reduce",
                        vec![pos(ident("input")), named("axes", ident("kept"))],
                    ),
                ),
                assign(
                    ident("output"),
                    select(
                        ident("normalize"),
                        binary(BinaryOp::Div, ident("total"), count),
                        ident("total"),
                    ),
                ),
            ];
            let params = vec![
                param("input", tensor(s), None),
                param(
                    "axes",
                    TypeSpec::Array(Box::new(prim(TypeName::Integer))),
                    Some(ints(&[0])),
                ),
                param(
                    "normalize",
                    prim(TypeName::Logical),
                    Some(logical(b.rng.chance(0.5))),
                ),
            ];
            (None, params, vec![result("output", tensor(s))], body)
        }
        Template::Pool { spatial } => {
            let window = binary(
                BinaryOp::Add,
                ints(&[1, 1]),
                expr(ExprKind::Comprehension {
                    iterators: vec![("i".to_string(), builtin(Builtin::RangeOf, ident("stride")))],
                    condition: None,
                    body: Box::new(ident("size")),
                }),
            );
            let rank = binary(
                BinaryOp::Add,
                builtin(Builtin::LengthOf, ident("stride")),
                int(2),
            );
            let body = vec![
                assign(ident("window"), window),
                assign(
                    ident("output"),
                    call(
                        "max_pool",
                        vec![
                            pos(ident("input")),
                            named("size", ident("window")),
                            named(
                                "stride",
                                binary(BinaryOp::Add, ints(&[1, 1]), ident("stride")),
                            ),
                            named("padding", binary(BinaryOp::Mul, pairs(&[(0, 0)]), rank)),
                        ],
                    ),
                ),
            ];
            let params = vec![
                param("input", tensor(s), None),
                param("size", prim(TypeName::Integer), Some(int(1))),
                param(
                    "stride",
                    TypeSpec::Array(Box::new(prim(TypeName::Integer))),
                    Some(ints(&vec![1; spatial])),
                ),
            ];
            (None, params, vec![result("output", tensor(s))], body)
        }
        Template::Repeat => {
            let g = TypeName::Generic;
            let copies = expr(ExprKind::Comprehension {
                iterators: vec![(
                    "i".to_string(),
                    builtin(
                        Builtin::RangeOf,
                        binary(BinaryOp::Mul, ints(&[0]), ident("times")),
                    ),
                )],
                condition: None,
                body: Box::new(ident("x")),
            });
            let body = vec![
                assign(ident("copies"), copies),
                assign(
                    ident("y"),
                    call("concat", vec![pos(ident("copies")), named("axis", int(0))]),
                ),
            ];
            let params = vec![
                param("x", tensor(g), None),
                param("times", prim(TypeName::Integer), Some(int(2))),
            ];
            (Some(None), params, vec![result("y", tensor(g))], body)
        }
        Template::Halves => {
            let last = binary(
                BinaryOp::Sub,
                builtin(Builtin::LengthOf, ident("ratios")),
                int(1),
            );
            let pair = super::syntax::array(vec![
                index(ident("ratios"), int(0)),
                index(ident("ratios"), last),
            ]);
            let body = vec![assign(
                super::syntax::array(vec![ident("first"), ident("last")]),
                call(
                    "split",
                    vec![
                        pos(ident("x")),
                        named("axis", ident("axis")),
                        named("ratios", pair),
                    ],
                ),
            )];
            let params = vec![
                param("x", tensor(s), None),
                param("axis", prim(TypeName::Integer), Some(int(0))),
                param(
                    "ratios",
                    TypeSpec::Array(Box::new(prim(TypeName::Integer))),
                    Some(ints(&[1, 1])),
                ),
            ];
            (
                None,
                params,
                vec![result("first", tensor(s)), result("last", tensor(s))],
                body,
            )
        }
    };
    Fragment {
        declaration: FragmentDeclaration {
            name: name.to_string(),
            generic,
            parameters,
            results,
            span: Span::default(),
        },
        body: Some(body),
    }
}

/// Whether `assignment` invokes one of the document's own fragments.
pub(crate) fn invokes_defined<R: RngLike>(b: &Builder<'_, R>, assignment: &Assignment) -> bool {
    matches!(&assignment.rhs.kind, ExprKind::Invocation(inv)
        if b.fragments.iter().any(|d| d.fragment.declaration.name == inv.name))
}

/// Invokes one of the defined fragments with valid arguments; `false` when no defined tensor
/// suits it.
pub(crate) fn invoke<R: RngLike>(b: &mut Builder<'_, R>) -> bool {
    if b.fragments.is_empty() {
        return false;
    }
    let defined = b.fragments[b.rng.index(b.fragments.len())].clone();
    let name = defined.fragment.declaration.name.clone();
    match defined.template {
        Template::Scaled { two_results } => {
            let Some(x) = b.pick_scalar(0, usize::MAX) else {
                return false;
            };
            let (y, y_shape) = if b.rng.chance(0.3) {
                (real(b.real_value()), vec![])
            } else {
                let shape = b.broadcast_variant(&x.shape, false);
                let name = b.operand_of_shape(&shape);
                (ident(&name), shape)
            };
            let Some(shape) = broadcast(&x.shape, &y_shape) else {
                return false;
            };
            let mut args = vec![pos(ident(&x.name)), pos(y)];
            if b.rng.chance(0.5) {
                args.push(named("alpha", real(b.real_value())));
            }
            if b.rng.chance(0.5) {
                args.push(named("flag", logical(b.rng.chance(0.5))));
            }
            let shapes = if two_results {
                vec![shape.clone(), shape]
            } else {
                vec![shape]
            };
            emit(b, &name, args, DataType::Scalar, shapes);
        }
        Template::Reduce => {
            let Some(x) = b.pick_scalar(1, usize::MAX) else {
                return false;
            };
            let mut args = vec![pos(ident(&x.name))];
            let axes = if b.rng.chance(0.8) {
                let axes = b.random_axes(x.shape.len());
                let mut written = axes.clone();
                if b.rng.chance(0.4) {
                    written.insert(b.rng.index(written.len() + 1), -1);
                }
                args.push(named("axes", ints(&written)));
                axes
            } else {
                vec![0]
            };
            if b.rng.chance(0.5) {
                args.push(named("normalize", logical(b.rng.chance(0.5))));
            }
            emit(
                b,
                &name,
                args,
                DataType::Scalar,
                vec![reduced(&x.shape, &axes)],
            );
        }
        Template::Pool { spatial } => {
            let Some(x) = b.pick_scalar(3, 5) else {
                return false;
            };
            let extents = &x.shape[2..];
            let smallest = *extents.iter().min().unwrap_or(&1);
            let size = b.rng.range(1, smallest.min(3) as i64) as usize;
            let mut args = vec![pos(ident(&x.name))];
            if size != 1 || b.rng.chance(0.3) {
                args.push(named("size", int(size as i64)));
            }
            let strides: Vec<usize> = if extents.len() != spatial || b.rng.chance(0.5) {
                let strides: Vec<usize> =
                    extents.iter().map(|_| b.rng.range(1, 2) as usize).collect();
                args.push(named("stride", super::syntax::extents(&strides)));
                strides
            } else {
                vec![1; spatial]
            };
            let mut shape = x.shape[..2].to_vec();
            shape.extend(
                extents
                    .iter()
                    .zip(&strides)
                    .map(|(&i, &s)| (i - size) / s + 1),
            );
            emit(b, &name, args, DataType::Scalar, vec![shape]);
        }
        Template::Repeat => {
            let Some(x) = b.pick(|t: &TensorInfo| !t.shape.is_empty()) else {
                return false;
            };
            let times = if b.rng.chance(0.5) {
                2
            } else {
                b.rng.range(1, 3) as usize
            };
            let mut args = vec![pos(ident(&x.name))];
            if times != 2 || b.rng.chance(0.3) {
                args.push(named("times", int(times as i64)));
            }
            let mut shape = x.shape.clone();
            shape[0] *= times;
            let rhs = if b.rng.chance(0.3) {
                super::syntax::call_generic(&name, type_name(x.dtype), args)
            } else {
                call(&name, args)
            };
            let out = b.fresh("t");
            b.body.push(assign(ident(&out), rhs));
            b.define(&out, x.dtype, shape);
        }
        Template::Halves => {
            let Some(x) = b.pick(|t: &TensorInfo| {
                t.dtype == DataType::Scalar && t.shape.iter().any(|&e| e >= 2)
            }) else {
                return false;
            };
            let axes: Vec<usize> = (0..x.shape.len()).filter(|&i| x.shape[i] >= 2).collect();
            let axis = axes[b.rng.index(axes.len())];
            let extent = x.shape[axis];
            let divisors: Vec<usize> = (2..=extent).filter(|d| extent.is_multiple_of(*d)).collect();
            let total = divisors[b.rng.index(divisors.len())];
            let first = b.rng.range(1, total as i64 - 1) as usize;
            let ratios = [first, total - first];
            let unit = extent / total;
            let shape_of = |r: usize| {
                let mut s = x.shape.clone();
                s[axis] = unit * r;
                s
            };
            let shapes = vec![shape_of(ratios[0]), shape_of(ratios[1])];
            let mut args = vec![pos(ident(&x.name))];
            if axis != 0 || b.rng.chance(0.3) {
                args.push(named("axis", int(axis as i64)));
            }
            if ratios != [1, 1] || b.rng.chance(0.3) {
                args.push(named("ratios", super::syntax::extents(&ratios)));
            }
            emit(b, &name, args, DataType::Scalar, shapes);
        }
    }
    true
}

/// `t = name(args);` or `(t1, t2) = name(args);` with the result shapes recorded.
fn emit<R: RngLike>(
    b: &mut Builder<'_, R>,
    name: &str,
    args: Vec<crate::ast::Argument>,
    dtype: DataType,
    shapes: Vec<Vec<usize>>,
) {
    let names: Vec<String> = shapes.iter().map(|_| b.fresh("t")).collect();
    let lhs = if names.len() == 1 {
        ident(&names[0])
    } else {
        tuple(names.iter().map(|n| ident(n)).collect())
    };
    b.body.push(assign(lhs, call(name, args)));
    for (n, shape) in names.iter().zip(shapes) {
        b.define(n, dtype, shape);
    }
}
