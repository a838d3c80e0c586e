//! Lowering of the quantization compounds (NNEF 1.0.5 §4.9.5) and of `graph.quant`
//! annotations (fake quantization with `lower_quantized`).

mod lower_support;

use std::collections::BTreeMap;

use conformance_nnef::graph::Value;
use conformance_nnef::lower::{lower, lower_quantized};
use conformance_nnef::ErrorKind;
use lower_support::*;

fn quantize(name: &str, x: &[f64], attributes: Vec<(&str, Value)>) -> Vec<f64> {
    let n = x.len();
    let mut args = vec![("x", t("x"))];
    args.extend(attributes);
    values(&one_op(
        name,
        &[("x", Scalar, f32s(&[n as i64], x))],
        args,
        "y",
        Scalar,
        &[n],
    ))
}

fn assert_values(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= 1e-6, "got {got:?}, want {want:?}");
    }
}

#[test]
fn linear_quantization() {
    // bits = 2: r = 3 levels above min; a NaN clamps to max (the standard's select-based clamp).
    let got = quantize(
        "linear_quantize",
        &[-0.5, 0.1, 0.2, 0.5, 0.9, 1.5, f64::NAN],
        vec![("min", s(0.0)), ("max", s(1.0)), ("bits", i(2))],
    );
    assert_values(&got, &[0.0, 0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0, 1.0, 1.0]);
    // signed, symmetric, 8 bits over [-1, 1]: r = 254, p = 127; -0.5 -> 63.5 rounds up to 64.
    let got = quantize(
        "min_max_linear_quantize",
        &[0.0, 1.0, -0.5, -2.0],
        vec![
            ("min", s(-1.0)),
            ("max", s(1.0)),
            ("bits", i(8)),
            ("signed", b(true)),
            ("symmetric", b(true)),
        ],
    );
    assert_values(&got, &[0.0, 1.0, 64.0 / 254.0 * 2.0 - 1.0, -1.0]);
}

#[test]
fn zero_point_and_logarithmic_quantization() {
    // s = round(x / 0.5) + 2, clamped to [0, 15], y = (q - 2)·0.5.
    let got = quantize(
        "zero_point_linear_quantize",
        &[-3.0, 0.0, 1.2, 10.0],
        vec![
            ("zero_point", i(2)),
            ("scale", s(0.5)),
            ("bits", i(4)),
            ("signed", b(false)),
            ("symmetric", b(false)),
        ],
    );
    assert_values(&got, &[-1.0, 0.0, 1.0, 6.5]);
    // m = ceil(log2 8) = 3, exponents clamped to [0, 3] and rounded; sign(0) = 0.
    let got = quantize(
        "logarithmic_quantize",
        &[0.3, -5.0, 100.0, 0.0],
        vec![("max", s(8.0)), ("bits", i(2))],
    );
    assert_values(&got, &[1.0, -4.0, 8.0, 0.0]);
}

fn linear(min: f64, max: f64, bits: i64) -> BTreeMap<String, Value> {
    [
        ("min".to_string(), s(min)),
        ("max".to_string(), s(max)),
        ("bits".to_string(), i(bits)),
    ]
    .into()
}

fn quantized_graph(fragment: &str, quantize_x: bool) -> G {
    let mut g = G::new();
    g.input("x", Scalar, &[3]);
    g.op("neg", vec![("x", t("x"))], "y", "y", Scalar, &[3])
        .output("y");
    if quantize_x {
        g.graph.tensors.get_mut("x").unwrap().quantization =
            Some((fragment.into(), linear(0.0, 1.0, 1)));
    }
    g.graph.tensors.get_mut("y").unwrap().quantization =
        Some((fragment.into(), linear(-1.0, 0.0, 2)));
    g
}

fn execute(
    l: &conformance_nnef::lower::Lowered,
    x: &conformance_spec::literal::Literal,
) -> Vec<f64> {
    check_round_trip(l);
    let r = conformance_spec::backend::Backend::execute(
        &conformance_reference::Reference,
        &l.module,
        std::slice::from_ref(x),
    );
    values(&r.unwrap())
}

#[test]
fn graph_quant_annotations_quantize_tensors() {
    let x = f32s(&[3], &[0.2, 0.6, 2.0]);
    // Without quantization: y = -x.
    let plain = lower(
        &quantized_graph("linear_quantize", true).graph,
        &["y".into()],
    )
    .unwrap();
    assert_values(&execute(&plain, &x), &[-0.2, -0.6, -2.0]);
    // x quantized to {0, 1} (bits 1), then y = -x quantized to {-1, -2/3, -1/3, 0}.
    let q = lower_quantized(
        &quantized_graph("linear_quantize", true).graph,
        &["y".into()],
    )
    .unwrap();
    assert_values(&execute(&q, &x), &[0.0, -1.0, -1.0]);
    // Only y quantized: -0.2 -> -1/3, -0.6 -> -2/3, -2 -> -1.
    let q = lower_quantized(
        &quantized_graph("linear_quantize", false).graph,
        &["y".into()],
    )
    .unwrap();
    assert_values(&execute(&q, &x), &[-1.0 / 3.0, -2.0 / 3.0, -1.0]);
    let e = lower_quantized(&quantized_graph("mystery", true).graph, &["y".into()]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Lowering);
    assert!(e.message.contains("mystery"), "{e}");
}
