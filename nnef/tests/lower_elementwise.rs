//! Lowering of element-wise operations (NNEF 1.0.5 §4.2), run on both backends, checked against
//! values computed by hand from the standard's definitions.

mod lower_support;

use conformance_nnef::graph::Value;
use conformance_nnef::lower::{direct_rules, lower};
use conformance_nnef::ErrorKind;
use lower_support::*;

fn unary(name: &str, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let out = one_op(
        name,
        &[("x", Scalar, f32s(&[n as i64], x))],
        vec![("x", t("x"))],
        "y",
        Scalar,
        &[n],
    );
    values(&out)
}

fn binary(
    name: &str,
    x: Literal2,
    y: Literal2,
    dtype: conformance_nnef::graph::DataType,
    shape: &[usize],
) -> conformance_spec::literal::Literal {
    one_op(
        name,
        &[("x", Scalar, x), ("y", Scalar, y)],
        vec![("x", t("x")), ("y", t("y"))],
        "z",
        dtype,
        shape,
    )
}

type Literal2 = conformance_spec::literal::Literal;

fn assert_rel(got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len());
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rel * b.abs().max(1e-30);
        assert!(ok, "element {k}: got {a}, want {b} (all {got:?})");
    }
}

#[test]
fn binary_operands_broadcast_from_the_left() {
    // [2] aligns with the first dimension of [2, 3] (it is [2, 1]): each row gets its own value.
    let out = binary(
        "add",
        iota(&[2, 3]),
        f32s(&[2], &[10.0, 20.0]),
        Scalar,
        &[2, 3],
    );
    assert_close(&out, &[2, 3], &[10.0, 11.0, 12.0, 23.0, 24.0, 25.0], 0.0);
    // A [1, 3] operand repeats along the first dimension.
    let out = binary(
        "mul",
        iota(&[2, 3]),
        f32s(&[1, 3], &[1.0, 10.0, 100.0]),
        Scalar,
        &[2, 3],
    );
    assert_close(&out, &[2, 3], &[0.0, 10.0, 200.0, 3.0, 40.0, 500.0], 0.0);
    // A conv-style bias [1, 2] over [1, 2, 2, 2].
    let out = binary(
        "add",
        iota(&[1, 2, 2, 2]),
        f32s(&[1, 2], &[100.0, 200.0]),
        Scalar,
        &[1, 2, 2, 2],
    );
    assert_close(
        &out,
        &[1, 2, 2, 2],
        &[100.0, 101.0, 102.0, 103.0, 204.0, 205.0, 206.0, 207.0],
        0.0,
    );
}

#[test]
fn literal_operands_are_constants() {
    let out = one_op(
        "sub",
        &[("x", Scalar, iota(&[3]))],
        vec![("x", t("x")), ("y", s(1.5))],
        "z",
        Scalar,
        &[3],
    );
    assert_close(&out, &[3], &[-1.5, -0.5, 0.5], 0.0);
    let out = one_op(
        "div",
        &[("y", Scalar, f32s(&[2], &[2.0, 4.0]))],
        vec![("x", i(1)), ("y", t("y"))],
        "z",
        Scalar,
        &[2],
    );
    assert_close(&out, &[2], &[0.5, 0.25], 0.0);
    let out = one_op(
        "pow",
        &[("x", Scalar, f32s(&[3], &[2.0, 3.0, 4.0]))],
        vec![("x", t("x")), ("y", s(2.0))],
        "z",
        Scalar,
        &[3],
    );
    assert_close(&out, &[3], &[4.0, 9.0, 16.0], 0.0);
}

#[test]
fn comparisons_give_logical_tensors() {
    let x = || f32s(&[4], &[1.0, 2.0, 3.0, f64::NAN]);
    let y = || f32s(&[4], &[2.0, 2.0, 2.0, 2.0]);
    let cases: [(&str, [f64; 4]); 6] = [
        ("lt", [1.0, 0.0, 0.0, 0.0]),
        ("gt", [0.0, 0.0, 1.0, 0.0]),
        ("le", [1.0, 1.0, 0.0, 0.0]),
        ("ge", [0.0, 1.0, 1.0, 0.0]),
        ("eq", [0.0, 1.0, 0.0, 0.0]),
        ("ne", [1.0, 0.0, 1.0, 1.0]),
    ];
    for (name, want) in cases {
        let out = binary(name, x(), y(), Logical, &[4]);
        assert_eq!(
            out.as_array().unwrap().element_type(),
            conformance_spec::ElementType::Pred
        );
        assert_close(&out, &[4], &want, 0.0);
    }
}

#[test]
fn logical_operations() {
    let x = || preds(&[4], &[false, false, true, true]);
    let y = || preds(&[4], &[false, true, false, true]);
    let and = one_op(
        "and",
        &[("x", Logical, x()), ("y", Logical, y())],
        vec![("x", t("x")), ("y", t("y"))],
        "z",
        Logical,
        &[4],
    );
    assert_close(&and, &[4], &[0.0, 0.0, 0.0, 1.0], 0.0);
    let or = one_op(
        "or",
        &[("x", Logical, x()), ("y", Logical, y())],
        vec![("x", t("x")), ("y", t("y"))],
        "z",
        Logical,
        &[4],
    );
    assert_close(&or, &[4], &[0.0, 1.0, 1.0, 1.0], 0.0);
    let not = one_op(
        "not",
        &[("x", Logical, x())],
        vec![("x", t("x"))],
        "y",
        Logical,
        &[4],
    );
    assert_close(&not, &[4], &[1.0, 1.0, 0.0, 0.0], 0.0);
}

#[test]
fn round_is_floor_of_x_plus_one_half() {
    // Halves round up (towards +inf), unlike round-half-even or round-half-away-from-zero.
    let x = [
        -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 0.49999997, 8388607.5, 1.0e9,
    ];
    let want = [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -1.0, 0.0, 8388608.0, 1.0e9];
    assert_eq!(unary("round", &x), want);
}

#[test]
fn simple_unary_operations() {
    let x = [-2.5, -0.0, 0.0, 1.25];
    assert_eq!(unary("neg", &x), [2.5, 0.0, -0.0, -1.25]);
    assert_eq!(unary("abs", &x), [2.5, 0.0, 0.0, 1.25]);
    assert_eq!(unary("sign", &[-3.0, 0.0, 2.0]), [-1.0, 0.0, 1.0]);
    assert_eq!(unary("floor", &x), [-3.0, -0.0, 0.0, 1.0]);
    assert_eq!(unary("ceil", &x), [-2.0, -0.0, 0.0, 2.0]);
    assert_eq!(unary("rcp", &[4.0, -0.5]), [0.25, -2.0]);
    assert_eq!(unary("copy", &x), x);
    assert_rel(
        &unary("exp", &[0.0, 1.0]),
        &[1.0, std::f64::consts::E],
        1e-7,
    );
    assert_rel(
        &unary("log", &[1.0, std::f64::consts::E as f32 as f64]),
        &[0.0, 1.0],
        1e-7,
    );
    assert_rel(&unary("sin", &[0.5]), &[0.5f64.sin()], 1e-7);
    assert_rel(&unary("cos", &[0.5]), &[0.5f64.cos()], 1e-7);
    assert_rel(&unary("tan", &[0.5]), &[0.5f64.tan()], 1e-7);
    assert_rel(&unary("tanh", &[0.5]), &[0.5f64.tanh()], 1e-7);
}

#[test]
fn composed_transcendental_functions_are_accurate() {
    // Inputs are f32 values, so the f64 functions of them are the exact results up to rounding.
    let f32v = |v: &[f64]| -> Vec<f64> { v.iter().map(|&x| x as f32 as f64).collect() };
    let check = |name: &str, x: &[f64], f: fn(f64) -> f64, rel: f64| {
        let x = f32v(x);
        let want: Vec<f64> = x.iter().map(|&v| f(v)).collect();
        assert_rel(&unary(name, &x), &want, rel);
    };
    let unit = [-0.99, -0.5, -1.0e-6, 0.0, 0.3, 0.999];
    check("asin", &unit, f64::asin, 4e-7);
    check("acos", &unit, f64::acos, 4e-7);
    check("atanh", &unit, f64::atanh, 4e-7);
    check("atan", &[-1.0e6, -2.0, 1.0e-7, 0.0, 3.0], f64::atan, 4e-7);
    check(
        "sinh",
        &[-5.0, -1.0e-4, 0.0, 1.0e-6, 2.0, 20.0],
        f64::sinh,
        4e-7,
    );
    check("cosh", &[-5.0, -1.0e-4, 0.0, 2.0, 20.0], f64::cosh, 4e-7);
    check(
        "asinh",
        &[-1.0e10, -3.0, -1.0e-5, 0.0, 1.0e-5, 2.0, 1.0e30],
        f64::asinh,
        4e-7,
    );
    check("acosh", &[1.0, 1.0001, 2.0, 10.0, 1.0e30], f64::acosh, 4e-7);
    // Outside the domains: NaN; at the poles of atanh: infinities.
    assert!(unary("asin", &[1.5])[0].is_nan());
    assert!(unary("acosh", &[0.5])[0].is_nan());
    assert_eq!(
        unary("atanh", &[1.0, -1.0]),
        [f64::INFINITY, f64::NEG_INFINITY]
    );
}

#[test]
fn select_broadcasts_all_three_operands() {
    let out = one_op(
        "select",
        &[
            ("c", Logical, preds(&[2], &[true, false])),
            ("x", Scalar, iota(&[2, 2])),
        ],
        vec![
            ("condition", t("c")),
            ("true_value", t("x")),
            ("false_value", s(-1.0)),
        ],
        "output",
        Scalar,
        &[2, 2],
    );
    assert_close(&out, &[2, 2], &[0.0, 1.0, -1.0, -1.0], 0.0);
}

#[test]
fn generic_copy_and_select_keep_integer_types() {
    let out = one_op(
        "copy",
        &[("x", Integer, s32s(&[3], &[1, -2, 3]))],
        vec![("x", t("x"))],
        "y",
        Integer,
        &[3],
    );
    assert_eq!(
        out.as_array().unwrap().element_type(),
        conformance_spec::ElementType::S32
    );
    assert_close(&out, &[3], &[1.0, -2.0, 3.0], 0.0);
    let out = one_op(
        "select",
        &[("c", Logical, preds(&[3], &[true, false, true]))],
        vec![
            ("condition", t("c")),
            ("true_value", i(7)),
            ("false_value", i(-7)),
        ],
        "output",
        Integer,
        &[3],
    );
    assert_close(&out, &[3], &[7.0, -7.0, 7.0], 0.0);
}

#[test]
fn compound_without_a_rule_is_lowered_through_its_expansion() {
    // relu(x) = max(x, 0.0) = select(x > 0.0, x, 0.0), nested two levels deep.
    let mut g = G::new();
    g.input("x", Scalar, &[4]);
    let gt = g.make(
        "gt",
        vec![("x", t("x")), ("y", s(0.0))],
        vec![("z", t("gt$1"))],
    );
    let sel = g.make(
        "select",
        vec![
            ("condition", t("gt$1")),
            ("true_value", t("x")),
            ("false_value", s(0.0)),
        ],
        vec![("output", t("y"))],
    );
    let mut max = g.make(
        "max",
        vec![("x", t("x")), ("y", s(0.0))],
        vec![("z", t("y"))],
    );
    max.expansion = vec![gt, sel];
    let mut relu = g.make("relu", vec![("x", t("x"))], vec![("y", t("y"))]);
    relu.expansion = vec![max];
    g.compound(relu, &[("gt$1", Logical, &[4]), ("y", Scalar, &[4])])
        .output("y");
    let out = run(&g, &["y"], &[f32s(&[4], &[-1.0, 0.5, -0.0, 3.0])]);
    assert_close(&out[0], &[4], &[0.0, 0.5, 0.0, 3.0], 0.0);
}

#[test]
fn errors_name_the_operation_and_its_position() {
    let mut g = G::new();
    g.input("x", Scalar, &[2]);
    g.op("frobnicate", vec![("x", t("x"))], "y", "y", Scalar, &[2])
        .output("y");
    let e = lower(&g.graph, &["y".to_string()]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Lowering);
    assert_eq!((e.span.line, e.span.column), (2, 1));
    assert!(
        e.message.contains("frobnicate") && e.message.contains("no lowering rule"),
        "{e}"
    );

    let mut g = G::new();
    g.input("x", Scalar, &[2]);
    g.op(
        "add",
        vec![("x", t("x")), ("y", Value::String("no".into()))],
        "z",
        "z",
        Scalar,
        &[2],
    );
    let e = lower(&g.graph, &["z".to_string()]).unwrap_err();
    assert!(
        e.message.starts_with("add:") && e.message.contains("string"),
        "{e}"
    );

    let mut g = G::new();
    g.input("x", Scalar, &[2]);
    let e = lower(&g.graph, &["nope".to_string()]).unwrap_err();
    assert!(e.message.contains("'nope'"), "{e}");
    assert!(lower(&g.graph, &[]).is_err());
}

#[test]
fn every_primitive_of_the_standard_has_a_direct_rule() {
    // The fragments without a body in NNEF 1.0.5 chapter 4.
    let primitives = [
        "external",
        "variable",
        "constant",
        "update",
        "reshape",
        "transpose",
        "concat",
        "split",
        "slice",
        "squeeze",
        "unsqueeze",
        "stack",
        "unstack",
        "tile",
        "pad",
        "gather",
        "cast",
        "add",
        "sub",
        "mul",
        "div",
        "pow",
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
        "rcp",
        "neg",
        "copy",
        "lt",
        "gt",
        "le",
        "ge",
        "eq",
        "ne",
        "and",
        "or",
        "not",
        "floor",
        "ceil",
        "round",
        "select",
        "matmul",
        "conv",
        "deconv",
        "box",
        "debox",
        "argmax_pool",
        "sample",
        "desample",
        "multilinear_upsample",
        "sum_reduce",
        "max_reduce",
        "min_reduce",
        "argmax_reduce",
        "argmin_reduce",
        "any_reduce",
        "all_reduce",
        "avg_roi_pool",
        "max_roi_pool",
        "roi_resample",
    ];
    let rules = direct_rules();
    for p in primitives {
        assert!(rules.contains(&p), "no direct rule for primitive {p}");
    }
}
