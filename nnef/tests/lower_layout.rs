//! Lowering of tensor shape and introducing operations (NNEF 1.0.5 §4.1, §4.5, §4.8).

mod lower_support;

use conformance_nnef::lower::lower;
use conformance_spec::literal::Literal;
use conformance_spec::ElementType;
use lower_support::*;

fn pad(x: Literal, padding: &[(i64, i64)], border: &str, value: f64, out: &[usize]) -> Vec<f64> {
    let args = vec![
        ("input", t("x")),
        ("padding", pairs(padding)),
        ("border", st(border)),
        ("value", s(value)),
    ];
    values(&one_op(
        "pad",
        &[("x", Scalar, x)],
        args,
        "output",
        Scalar,
        out,
    ))
}

#[test]
fn pad_border_modes() {
    let x = || f32s(&[3], &[1.0, 2.0, 3.0]);
    assert_eq!(
        pad(x(), &[(2, 2)], "constant", 9.0, &[7]),
        [9.0, 9.0, 1.0, 2.0, 3.0, 9.0, 9.0]
    );
    assert_eq!(
        pad(x(), &[(2, 2)], "replicate", 0.0, &[7]),
        [1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0]
    );
    // reflect: input[-i] before, the edge not repeated.
    assert_eq!(
        pad(x(), &[(2, 2)], "reflect", 0.0, &[7]),
        [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]
    );
    // reflect-even: input[-i-1] before, the edge repeated.
    assert_eq!(
        pad(x(), &[(2, 2)], "reflect-even", 0.0, &[7]),
        [2.0, 1.0, 1.0, 2.0, 3.0, 3.0, 2.0]
    );
    // Negative padding cuts.
    assert_eq!(pad(x(), &[(-1, 1)], "constant", 0.0, &[3]), [2.0, 3.0, 0.0]);
    // 2-D, as in the tvm cases: padding (0,0), (0,0), (1,0), (1,0) reflect.
    let out = one_op(
        "pad",
        &[("x", Scalar, iota(&[1, 1, 2, 2]))],
        vec![
            ("input", t("x")),
            ("padding", pairs(&[(0, 0), (0, 0), (1, 0), (1, 0)])),
            ("border", st("reflect")),
            ("value", s(0.0)),
        ],
        "output",
        Scalar,
        &[1, 1, 3, 3],
    );
    assert_close(
        &out,
        &[1, 1, 3, 3],
        &[3.0, 2.0, 3.0, 1.0, 0.0, 1.0, 3.0, 2.0, 3.0],
        0.0,
    );
    // A reflection wider than the input is an error naming the operation.
    let mut g = G::new();
    g.input("x", Scalar, &[3]);
    g.op(
        "pad",
        vec![
            ("input", t("x")),
            ("padding", pairs(&[(3, 0)])),
            ("border", st("reflect")),
            ("value", s(0.0)),
        ],
        "output",
        "y",
        Scalar,
        &[6],
    );
    let e = lower(&g.graph, &["y".into()]).unwrap_err();
    assert!(
        e.message.starts_with("pad:") && e.message.contains("reflect"),
        "{e}"
    );
}

fn slice(
    x: Literal,
    axes: &[i64],
    begin: &[i64],
    end: &[i64],
    stride: &[i64],
    out: &[usize],
) -> Vec<f64> {
    let args = vec![
        ("input", t("x")),
        ("axes", ints(axes)),
        ("begin", ints(begin)),
        ("end", ints(end)),
        ("stride", ints(stride)),
    ];
    values(&one_op(
        "slice",
        &[("x", Scalar, x)],
        args,
        "output",
        Scalar,
        out,
    ))
}

#[test]
fn slice_with_strides() {
    assert_eq!(slice(iota(&[6]), &[0], &[1], &[5], &[2], &[2]), [1.0, 3.0]);
    // Negative strides read backwards; begin -1 is the last element.
    assert_eq!(
        slice(iota(&[6]), &[0], &[-1], &[0], &[-2], &[3]),
        [5.0, 3.0, 1.0]
    );
    // An end below 0 (after adding the extent) is -1: the slice reaches index 0.
    assert_eq!(
        slice(iota(&[6]), &[0], &[4], &[-7], &[-1], &[5]),
        [4.0, 3.0, 2.0, 1.0, 0.0]
    );
    // Deprecated end = 0 with unit strides: to the end.
    assert_eq!(
        slice(iota(&[6]), &[0], &[2], &[0], &[], &[4]),
        [2.0, 3.0, 4.0, 5.0]
    );
    assert_eq!(
        slice(iota(&[3, 4]), &[1], &[1], &[3], &[], &[3, 2]),
        [1.0, 2.0, 5.0, 6.0, 9.0, 10.0]
    );
}

#[test]
fn reshape_transpose_tile() {
    let args = vec![
        ("input", t("x")),
        ("shape", ints(&[3, -1])),
        ("axis_start", i(0)),
        ("axis_count", i(-1)),
    ];
    let out = one_op(
        "reshape",
        &[("x", Scalar, iota(&[2, 3]))],
        args,
        "output",
        Scalar,
        &[3, 2],
    );
    assert_close(&out, &[3, 2], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 0.0);
    let out = one_op(
        "squeeze",
        &[("x", Scalar, iota(&[1, 3, 1]))],
        vec![("input", t("x")), ("axes", ints(&[0, 2]))],
        "output",
        Scalar,
        &[3],
    );
    assert_close(&out, &[3], &[0.0, 1.0, 2.0], 0.0);
    let out = one_op(
        "unsqueeze",
        &[("x", Scalar, iota(&[3]))],
        vec![("input", t("x")), ("axes", ints(&[0]))],
        "output",
        Scalar,
        &[1, 3],
    );
    assert_close(&out, &[1, 3], &[0.0, 1.0, 2.0], 0.0);
    let out = one_op(
        "transpose",
        &[("x", Scalar, iota(&[2, 3]))],
        vec![("input", t("x")), ("axes", ints(&[1, 0]))],
        "output",
        Scalar,
        &[3, 2],
    );
    assert_close(&out, &[3, 2], &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0], 0.0);
    // A shorter axes list permutes the leading dimensions only.
    let out = one_op(
        "transpose",
        &[("x", Scalar, iota(&[2, 2, 2]))],
        vec![("input", t("x")), ("axes", ints(&[1, 0]))],
        "output",
        Scalar,
        &[2, 2, 2],
    );
    assert_close(
        &out,
        &[2, 2, 2],
        &[0.0, 1.0, 4.0, 5.0, 2.0, 3.0, 6.0, 7.0],
        0.0,
    );
    let out = one_op(
        "tile",
        &[("x", Scalar, f32s(&[2], &[1.0, 2.0]))],
        vec![("input", t("x")), ("repeats", ints(&[3]))],
        "output",
        Scalar,
        &[6],
    );
    assert_close(&out, &[6], &[1.0, 2.0, 1.0, 2.0, 1.0, 2.0], 0.0);
    let out = one_op(
        "tile",
        &[("x", Scalar, iota(&[1, 2]))],
        vec![("input", t("x")), ("repeats", ints(&[2, 2]))],
        "output",
        Scalar,
        &[2, 4],
    );
    assert_close(
        &out,
        &[2, 4],
        &[0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        0.0,
    );
}

#[test]
fn concat_split_stack_unstack() {
    let mut g = G::new();
    g.input("a", Scalar, &[1, 2]).input("b", Scalar, &[1, 3]);
    g.op(
        "concat",
        vec![("values", tensors(&["a", "b"])), ("axis", i(1))],
        "value",
        "c",
        Scalar,
        &[1, 5],
    );
    g.op_array(
        "split",
        vec![("value", t("c")), ("axis", i(1)), ("ratios", ints(&[3, 2]))],
        "values",
        &[("s0", &[1, 3]), ("s1", &[1, 2])],
        Scalar,
    );
    g.op(
        "stack",
        vec![("values", tensors(&["a", "a"])), ("axis", i(1))],
        "value",
        "k",
        Scalar,
        &[1, 2, 2],
    );
    g.op_array(
        "unstack",
        vec![("value", t("k")), ("axis", i(2))],
        "values",
        &[("u0", &[1, 2]), ("u1", &[1, 2])],
        Scalar,
    );
    let out = run(
        &g,
        &["c", "s0", "s1", "k", "u1"],
        &[f32s(&[1, 2], &[1.0, 2.0]), f32s(&[1, 3], &[3.0, 4.0, 5.0])],
    );
    assert_close(&out[0], &[1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0], 0.0);
    assert_close(&out[1], &[1, 3], &[1.0, 2.0, 3.0], 0.0);
    assert_close(&out[2], &[1, 2], &[4.0, 5.0], 0.0);
    assert_close(&out[3], &[1, 2, 2], &[1.0, 2.0, 1.0, 2.0], 0.0);
    // k[0, j, 1] = a[0, 1] for both j.
    assert_close(&out[4], &[1, 2], &[2.0, 2.0], 0.0);
}

#[test]
fn gather_along_an_axis() {
    let out = one_op(
        "gather",
        &[
            ("x", Scalar, iota(&[3, 2])),
            ("k", Integer, s32s(&[2], &[2, 0])),
        ],
        vec![("input", t("x")), ("indices", t("k")), ("axis", i(0))],
        "output",
        Scalar,
        &[2, 2],
    );
    assert_close(&out, &[2, 2], &[4.0, 5.0, 0.0, 1.0], 0.0);
    // output[p0, i0, i1] = input[p0, indices[i0, i1]].
    let out = one_op(
        "gather",
        &[
            ("x", Scalar, iota(&[2, 3])),
            ("k", Integer, s32s(&[2, 2], &[2, 0, 1, 1])),
        ],
        vec![("input", t("x")), ("indices", t("k")), ("axis", i(1))],
        "output",
        Scalar,
        &[2, 2, 2],
    );
    assert_close(
        &out,
        &[2, 2, 2],
        &[2.0, 0.0, 1.0, 1.0, 5.0, 3.0, 4.0, 4.0],
        0.0,
    );
}

#[test]
fn cast_between_data_types() {
    let cast = |x: Literal,
                from: conformance_nnef::graph::DataType,
                to: conformance_nnef::graph::DataType,
                n: usize| {
        let mut g = G::new();
        g.input("x", from, &[n]);
        g.op("cast", vec![("input", t("x"))], "output", "y", to, &[n])
            .output("y");
        g.graph.operations[1].dtype = Some(to);
        run(&g, &["y"], &[x]).remove(0)
    };
    // scalar -> integer: the nearest smaller integer (seed 003, extent(x: scalar)).
    let out = cast(f32s(&[4], &[-1.5, -0.5, 0.5, 2.7]), Scalar, Integer, 4);
    assert_eq!(out.as_array().unwrap().element_type(), ElementType::S32);
    assert_close(&out, &[4], &[-2.0, -1.0, 0.0, 2.0], 0.0);
    let out = cast(f32s(&[4], &[0.0, -0.0, 2.0, f64::NAN]), Scalar, Logical, 4);
    assert_close(&out, &[4], &[0.0, 0.0, 1.0, 1.0], 0.0);
    let out = cast(preds(&[2], &[true, false]), Logical, Scalar, 2);
    assert_close(&out, &[2], &[1.0, 0.0], 0.0);
    let out = cast(s32s(&[2], &[-3, 0]), Integer, Logical, 2);
    assert_close(&out, &[2], &[1.0, 0.0], 0.0);
    let out = cast(s32s(&[2], &[-3, 7]), Integer, Scalar, 2);
    assert_close(&out, &[2], &[-3.0, 7.0], 0.0);
}

#[test]
fn constants_variables_and_updates() {
    let mut g = G::new();
    // A variable declared before the input still comes after the graph inputs.
    g.variable("w", &[2]);
    g.input("x", Scalar, &[2]);
    g.op(
        "constant",
        vec![
            ("shape", ints(&[2])),
            ("value", Value::Array(vec![s(1.0), s(2.0)])),
        ],
        "output",
        "c",
        Scalar,
        &[2],
    );
    g.op(
        "constant",
        vec![
            ("shape", ints(&[2, 2])),
            ("value", Value::Array(vec![i(7)])),
        ],
        "output",
        "k",
        Integer,
        &[2, 2],
    );
    g.op(
        "add",
        vec![("x", t("x")), ("y", t("w"))],
        "z",
        "sum",
        Scalar,
        &[2],
    );
    g.op(
        "add",
        vec![("x", t("sum")), ("y", t("c"))],
        "z",
        "sum2",
        Scalar,
        &[2],
    );
    g.op(
        "update",
        vec![("variable", t("w")), ("value", t("sum2"))],
        "result",
        "r",
        Scalar,
        &[2],
    );
    let outs = ["r".to_string(), "k".to_string()];
    let lowered = lower(&g.graph, &outs).unwrap();
    assert_eq!(lowered.parameters, ["x", "w"]);
    assert_eq!(lowered.outputs, outs);
    let out = run(
        &g,
        &["r", "k"],
        &[f32s(&[2], &[10.0, 20.0]), f32s(&[2], &[0.5, 0.25])],
    );
    assert_close(&out[0], &[2], &[11.5, 22.25], 0.0);
    assert_close(&out[1], &[2, 2], &[7.0; 4], 0.0);
}

#[test]
fn variables_with_equal_labels_share_one_parameter() {
    let mut g = G::new();
    g.input("x", Scalar, &[2]);
    g.variable("w1", &[2]).variable("w2", &[2]);
    // Labels compare ignoring case.
    g.graph.operations[2].arguments[1].1 = st("W1");
    g.op(
        "add",
        vec![("x", t("w1")), ("y", t("w2"))],
        "z",
        "s",
        Scalar,
        &[2],
    );
    g.op(
        "add",
        vec![("x", t("s")), ("y", t("x"))],
        "z",
        "y",
        Scalar,
        &[2],
    );
    let lowered = lower(&g.graph, &["y".into()]).unwrap();
    assert_eq!(lowered.parameters, ["x", "w1"]);
    let out = run(
        &g,
        &["y"],
        &[f32s(&[2], &[1.0, 2.0]), f32s(&[2], &[10.0, 20.0])],
    );
    assert_close(&out[0], &[2], &[21.0, 42.0], 0.0);
}

#[test]
fn unused_instructions_are_removed_but_parameters_stay() {
    let mut g = G::new();
    g.input("x", Scalar, &[2]).input("unused", Scalar, &[3]);
    g.op("exp", vec![("x", t("unused"))], "y", "e", Scalar, &[3]);
    g.op("neg", vec![("x", t("x"))], "y", "n", Scalar, &[2]);
    let lowered = lower(&g.graph, &["n".into()]).unwrap();
    let entry = lowered.module.entry_computation();
    assert_eq!(entry.parameters().len(), 2);
    assert!(!entry
        .instructions
        .iter()
        .any(|i| i.opcode == conformance_spec::hlo::Opcode::Exponential));
    check_round_trip(&lowered);
}

use conformance_nnef::graph::Value;
