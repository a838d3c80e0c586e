//! Unit tests of the standard library text: it parses, it has every fragment of NNEF 1.0.5
//! chapter 4 with the standard's signature, primitives are exactly the fragments with a shape
//! function, and compound bodies only invoke fragments defined before them.

use std::collections::BTreeSet;

use super::{standard_fragment, standard_fragments, STDLIB_SOURCE};
use crate::ast::{Expr, ExprKind, Fragment, Subscript, TypeName, TypeSpec};

/// Every fragment of NNEF 1.0.5 chapter 4 (and of the Khronos tools' standard library).
const CHAPTER_4: &[&str] = &[
    "external",
    "constant",
    "variable",
    "copy",
    "neg",
    "rcp",
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "abs",
    "sign",
    "not",
    "floor",
    "ceil",
    "round",
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "lt",
    "gt",
    "le",
    "ge",
    "eq",
    "ne",
    "and",
    "or",
    "select",
    "sqr",
    "sqrt",
    "rsqr",
    "rsqrt",
    "log2",
    "min",
    "max",
    "clamp",
    "conv",
    "deconv",
    "box",
    "debox",
    "argmax_pool",
    "sample",
    "desample",
    "nearest_downsample",
    "area_downsample",
    "nearest_upsample",
    "multilinear_upsample",
    "sum_reduce",
    "max_reduce",
    "min_reduce",
    "argmax_reduce",
    "argmin_reduce",
    "all_reduce",
    "any_reduce",
    "mean_reduce",
    "reshape",
    "squeeze",
    "unsqueeze",
    "transpose",
    "split",
    "concat",
    "stack",
    "unstack",
    "slice",
    "pad",
    "tile",
    "gather",
    "cast",
    "avg_roi_pool",
    "max_roi_pool",
    "roi_resample",
    "avg_roi_align",
    "max_roi_align",
    "matmul",
    "update",
    "sigmoid",
    "relu",
    "prelu",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "silu",
    "softmax",
    "softplus",
    "softabs",
    "linear",
    "separable_conv",
    "separable_deconv",
    "max_pool_with_index",
    "max_pool",
    "avg_pool",
    "rms_pool",
    "local_response_normalization",
    "local_mean_normalization",
    "local_variance_normalization",
    "local_contrast_normalization",
    "l1_normalization",
    "l2_normalization",
    "batch_normalization",
    "min_max_linear_quantize",
    "zero_point_linear_quantize",
    "linear_quantize",
    "logarithmic_quantize",
    "copy_n",
    "add_n",
    "moments",
];

fn fragment(name: &str) -> &'static Fragment {
    standard_fragment(name).unwrap_or_else(|| panic!("no standard fragment {name}"))
}

#[test]
fn the_text_parses_and_has_every_fragment_once() {
    let names: Vec<&str> = standard_fragments()
        .iter()
        .map(|f| f.declaration.name.as_str())
        .collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a fragment is defined twice");
    let expected: BTreeSet<&str> = CHAPTER_4.iter().copied().collect();
    assert_eq!(unique, expected);
    assert!(STDLIB_SOURCE.starts_with("# The NNEF standard library"));
}

#[test]
fn primitives_are_exactly_the_fragments_with_a_shape_function() {
    let primitives: BTreeSet<&str> = standard_fragments()
        .iter()
        .filter(|f| f.body.is_none())
        .map(|f| f.declaration.name.as_str())
        .collect();
    let with_shapes: BTreeSet<&str> = crate::shapes::shape_function_names().collect();
    assert_eq!(primitives, with_shapes);
    for compound in [
        "relu",
        "max_pool",
        "avg_pool",
        "linear",
        "softmax",
        "clamp",
        "sqrt",
        "mean_reduce",
        "add_n",
    ] {
        assert!(
            fragment(compound).body.is_some(),
            "{compound} is a compound in chapter 4"
        );
    }
    for primitive in [
        "conv",
        "box",
        "multilinear_upsample",
        "sum_reduce",
        "slice",
        "matmul",
        "roi_resample",
    ] {
        assert!(
            fragment(primitive).body.is_none(),
            "{primitive} is a primitive in chapter 4"
        );
    }
}

/// `name: type = default` of parameter `i` of `fragment`, with the default's literal kind.
fn param(fragment_name: &str, i: usize) -> (String, TypeSpec, Option<ExprKind>) {
    let p = &fragment(fragment_name).declaration.parameters[i];
    (
        p.name.clone(),
        p.ty.clone(),
        p.default.as_ref().map(|d| d.kind.clone()),
    )
}

#[test]
fn signatures_follow_the_standard() {
    use TypeName::*;
    let tensor = |t| TypeSpec::Tensor(Some(t));
    let array = |t: TypeSpec| TypeSpec::Array(Box::new(t));
    let ints = array(TypeSpec::Primitive(Integer));
    let conv = &fragment("conv").declaration;
    let names: Vec<&str> = conv.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["input", "filter", "bias", "border", "padding", "stride", "dilation", "groups"]
    );
    assert_eq!(
        param("conv", 2),
        ("bias".into(), tensor(Scalar), Some(ExprKind::Scalar(0.0)))
    );
    assert_eq!(
        param("conv", 3).2,
        Some(ExprKind::String("constant".into()))
    );
    assert_eq!(
        param("conv", 4).1,
        array(TypeSpec::Tuple(vec![
            TypeSpec::Primitive(Integer),
            TypeSpec::Primitive(Integer)
        ]))
    );
    assert_eq!(
        param("conv", 5),
        ("stride".into(), ints.clone(), Some(ExprKind::Array(vec![])))
    );
    assert_eq!(
        param("conv", 7),
        (
            "groups".into(),
            TypeSpec::Primitive(Integer),
            Some(ExprKind::Integer(1))
        )
    );
    let deconv: Vec<&str> = fragment("deconv")
        .declaration
        .parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(deconv[7..], ["output_shape", "groups"]);

    let external = &fragment("external").declaration;
    assert_eq!(external.generic, Some(Some(Scalar)));
    assert_eq!(external.results[0].ty, TypeSpec::Tensor(Some(Generic)));
    assert_eq!(param("constant", 1).1, array(TypeSpec::Primitive(Generic)));
    assert_eq!(fragment("reshape").declaration.generic, Some(None));
    assert_eq!(
        param("reshape", 3),
        (
            "axis_count".into(),
            TypeSpec::Primitive(Integer),
            Some(ExprKind::Integer(-1))
        )
    );
    assert_eq!(param("cast", 0).1, TypeSpec::Tensor(None));
    assert_eq!(
        fragment("split").declaration.results[0].ty,
        array(TypeSpec::Tensor(Some(Generic)))
    );
    match param("softmax", 1).2 {
        Some(ExprKind::Array(items)) => assert!(matches!(
            items.as_slice(),
            [Expr {
                kind: ExprKind::Integer(1),
                ..
            }]
        )),
        other => panic!("softmax axes default: {other:?}"),
    }
    assert_eq!(param("selu", 1).2, Some(ExprKind::Scalar(1.67326319)));
    assert_eq!(param("selu", 2).2, Some(ExprKind::Scalar(1.05070102)));
    assert_eq!(
        param("multilinear_upsample", 3).2,
        Some(ExprKind::String("replicate".into()))
    );
    assert_eq!(
        param("pad", 3),
        (
            "value".into(),
            TypeSpec::Primitive(Scalar),
            Some(ExprKind::Scalar(0.0))
        )
    );
    assert_eq!(param("argmax_pool", 0).1, tensor(Scalar));
    assert_eq!(
        fragment("argmax_pool").declaration.results[0].ty,
        tensor(Integer)
    );
    let moments: Vec<&str> = fragment("moments")
        .declaration
        .results
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(moments, ["mean", "variance"]);
    assert_eq!(param("matmul", 2).0, "transposeA");
}

/// Every fragment name invoked in `expr`.
fn invoked(expr: &Expr, out: &mut Vec<String>) {
    match &expr.kind {
        ExprKind::Invocation(inv) => {
            out.push(inv.name.clone());
            for arg in &inv.arguments {
                invoked(&arg.value, out);
            }
        }
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|e| invoked(e, out))
        }
        ExprKind::Unary(_, e) | ExprKind::Builtin(_, e) => invoked(e, out),
        ExprKind::Binary(_, a, b) => {
            invoked(a, out);
            invoked(b, out);
        }
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => {
            invoked(condition, out);
            invoked(then, out);
            invoked(otherwise, out);
        }
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => {
            iterators.iter().for_each(|(_, e)| invoked(e, out));
            if let Some(c) = condition {
                invoked(c, out);
            }
            invoked(body, out);
        }
        ExprKind::Subscript(e, sub) => {
            invoked(e, out);
            match sub {
                Subscript::Index(i) => invoked(i, out),
                Subscript::Range(a, b) => {
                    for e in [a, b].into_iter().flatten() {
                        invoked(e, out);
                    }
                }
            }
        }
        ExprKind::Identifier(_)
        | ExprKind::Integer(_)
        | ExprKind::Scalar(_)
        | ExprKind::Logical(_)
        | ExprKind::String(_) => {}
    }
}

/// Identifiers assigned by an lvalue.
fn assigned(lhs: &Expr, out: &mut BTreeSet<String>) {
    match &lhs.kind {
        ExprKind::Identifier(name) => {
            out.insert(name.clone());
        }
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|e| assigned(e, out))
        }
        other => panic!("unexpected lvalue {other:?}"),
    }
}

#[test]
fn compound_bodies_invoke_earlier_fragments_and_assign_every_result() {
    let mut defined = BTreeSet::new();
    for f in standard_fragments() {
        let name = f.declaration.name.clone();
        defined.insert(name.clone()); // add_n recurses into itself
        let Some(body) = &f.body else { continue };
        let mut calls = Vec::new();
        let mut lhs = BTreeSet::new();
        for assignment in body {
            invoked(&assignment.rhs, &mut calls);
            assigned(&assignment.lhs, &mut lhs);
        }
        for call in calls {
            assert!(
                defined.contains(&call),
                "{name} invokes {call} before it is defined"
            );
        }
        for result in &f.declaration.results {
            assert!(
                lhs.contains(&result.name),
                "{name} never assigns its result {}",
                result.name
            );
        }
    }
}
