//! End to end: HLO modules dumped by JAX (spec/tests/data/jax, written by the HLO engineer's
//! `make_dumps.py`) parsed with `conformance_spec::hlo::parse_module` and run by the reference.
//! Expected values are worked out by hand, or with f32 arithmetic (IEEE, correctly rounded) on
//! correctly rounded function values listed in tests/special_values.rs.

use conformance_reference::Reference;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, ElementType::*, HloModule};

fn load(name: &str) -> HloModule {
    let path = format!(
        "{}/../spec/tests/data/jax/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_module(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    let bits: Vec<u128> = v.iter().map(|x| x.to_bits() as u128).collect();
    ArrayLiteral::from_bits(ArrayShape::new(F32, dims.to_vec()), &bits)
        .unwrap()
        .into()
}

fn run_f32(name: &str, args: Vec<Literal>) -> Vec<f32> {
    let r = Reference
        .execute(&load(name), &args)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    r.as_array()
        .expect("array")
        .logical_bits()
        .into_iter()
        .map(|b| f32::from_bits(b as u32))
        .collect()
}

fn same_bits(got: &[f32], want: &[f32]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
}

#[test]
fn affine() {
    let got = run_f32("affine", vec![f32s(&[3], &[1.0, -0.5, 3e38])]);
    assert!(same_bits(&got, &[3.0, 0.0, f32::INFINITY]), "{got:?}");
}

#[test]
fn bitcast_to_same_and_narrower_widths() {
    let r = Reference
        .execute(
            &load("bitcast"),
            &[f32s(&[3], &[1.0, -0.0, f32::from_bits(0x7fc0_0000)])],
        )
        .unwrap();
    let Literal::Tuple(items) = r else {
        panic!("tuple expected")
    };
    let s32 = items[0].as_array().unwrap().logical_bits();
    assert_eq!(s32, vec![0x3f80_0000, 0x8000_0000, 0x7fc0_0000]);
    let bytes = items[1].as_array().unwrap().logical_bits();
    assert_eq!(
        bytes,
        vec![0, 0, 0x80, 0x3f, 0, 0, 0, 0x80, 0, 0, 0xc0, 0x7f]
    );
}

#[test]
fn clip_calls_a_clamp_computation() {
    let got = run_f32(
        "clip",
        vec![f32s(&[2, 3], &[-2.0, -0.5, 0.0, 0.5, 2.0, f32::NAN])],
    );
    assert!(
        same_bits(&got, &[-1.0, -0.5, 0.0, 0.5, 1.0, f32::NAN]),
        "{got:?}"
    );
}

#[test]
fn conversions_round_to_nearest_even() {
    let i = ArrayLiteral::from_i128s(ArrayShape::new(S32, vec![3]), &[16_777_217, -1, 0]).unwrap();
    let x = [1.0 + 2f32.powi(-8), 1.0 + 3.0 * 2f32.powi(-8), 3.0];
    let got = run_f32("conversions", vec![f32s(&[3], &x), i.into()]);
    // bf16: 1 + 2^-8 ties to 1; 1 + 3·2^-8 ties to 1 + 2^-6. s32 16777217 → f32 16777216;
    // 1 + 16777216 = 16777217 ties to 16777216.
    assert!(same_bits(&got, &[16_777_216.0, 0.015625, 3.0]), "{got:?}");
}

#[test]
fn nested_calls() {
    let (sin1, sin2) = (f32::from_bits(0x3f57_6aa4), f32::from_bits(0x3f68_c7b7));
    let got = run_f32("nested_call", vec![f32s(&[3], &[0.0, 1.0, -1.0])]);
    // inner(x) = sin(x)·x; result = inner(x) + inner(x + 1).
    assert!(same_bits(&got, &[sin1, sin1 + 2.0 * sin2, sin1]), "{got:?}");
}

#[test]
fn reduce_precision_to_f16() {
    let got = run_f32(
        "reduce_precision",
        vec![f32s(&[3], &[65520.0, 1e-6, 1.0 + 2f32.powi(-11)])],
    );
    assert!(same_bits(&got, &[f32::INFINITY, 0.0, 1.0]), "{got:?}");
}

#[test]
fn special_constants() {
    let got = run_f32("special_constants", vec![f32s(&[3], &[1.0, 2.0, 0.0])]);
    assert!(same_bits(&got, &[f32::INFINITY, f32::NAN, 0.0]), "{got:?}");
}

#[test]
fn unary_chain() {
    // exp(x) + tanh(x) + 1/(1 + exp(-x)), each step rounded to f32.
    let (e1, t1, em1) = (
        f32::from_bits(0x402d_f854),
        f32::from_bits(0x3f42_f7d6),
        f32::from_bits(0x3ebc_5ab2),
    );
    let at_one = (e1 + t1) + 1.0 / (em1 + 1.0);
    let got = run_f32(
        "unary_chain",
        vec![f32s(&[2, 3], &[0.0, 100.0, -100.0, -0.0, 1.0, 0.0])],
    );
    assert!(
        same_bits(&got, &[1.5, f32::INFINITY, -1.0, 1.5, at_one, 1.5]),
        "{got:?}"
    );
}

#[test]
fn where_compare() {
    let got = run_f32(
        "where_compare",
        vec![
            f32s(&[3], &[1.0, f32::NAN, 3.0]),
            f32s(&[3], &[2.0, 0.0, -1.0]),
        ],
    );
    assert!(same_bits(&got, &[2.0, 0.0, 3.0]), "{got:?}");
}

#[test]
fn dot_and_reduce_sum() {
    // JAX's `a @ b` and `x.sum(axis=0)`: exact sums (issue 5).
    let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b: Vec<f32> = (0..12).map(|x| x as f32).collect();
    let got = run_f32("dot", vec![a.clone(), f32s(&[3, 4], &b)]);
    // Row i of a times column j of b: Σ_k a[i][k]·(4k + j).
    let want: Vec<f32> = (0..2)
        .flat_map(|i| (0..4).map(move |j| (i, j)))
        .map(|(i, j)| {
            (0..3)
                .map(|k| (3 * i + k + 1) as f32 * (4 * k + j) as f32)
                .sum()
        })
        .collect();
    assert!(same_bits(&got, &want), "{got:?}");
    let got = run_f32("sum_axis0", vec![a]);
    assert!(same_bits(&got, &[5.0, 7.0, 9.0]), "{got:?}");
}
