//! Unit tests of `reduce`: seed 004's worked examples, exact sums, direct and interpreted
//! reducers in canonical order, variadic argmax, layouts, integers, complex and bounds.

use super::super::test_util::*;
use crate::contraction::accumulation_bounds;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::Literal;

const ADD_F32: &str =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";

fn reduce_hlo(
    computations: &str,
    operand: &str,
    init: &str,
    out: &str,
    dims: &str,
    to_apply: &str,
) -> String {
    format!(
        "HloModule m\n{computations}\nENTRY e {{\n  a = {operand} parameter(0)\n  i = {init} parameter(1)\n  ROOT r = {out} reduce(a, i), dimensions={{{dims}}}, to_apply={to_apply}\n}}\n"
    )
}

fn sum_f32(operand: &str, out: &str, dims: &str, values: &[f32]) -> Vec<f32> {
    let hlo = reduce_hlo(ADD_F32, operand, "f32[]", out, dims, "add");
    f32_values(&run_array(
        &hlo,
        &[f32s(operand, values), f32s("f32[]", &[0.0])],
    ))
}

#[test]
fn seed_2d_example() {
    // Seed 004, Reduce: [[1, 2, 3], [4, 5, 6]] reduced with add along 0 and along 1.
    let v = [1., 2., 3., 4., 5., 6.];
    assert_eq!(sum_f32("f32[2,3]", "f32[3]", "0", &v), vec![5., 7., 9.]);
    assert_eq!(sum_f32("f32[2,3]", "f32[2]", "1", &v), vec![6., 15.]);
}

#[test]
fn seed_3d_example_in_several_layouts() {
    // Seed 004, Reduce: a 4x2x3 array with values 1..6 replicated along dimension 0.
    let v: Vec<f32> = (0..24).map(|i| (i % 6 + 1) as f32).collect();
    for layout in ["{2,1,0}", "{0,1,2}", "{1,0,2}"] {
        let shape = format!("f32[4,2,3]{layout}");
        assert_eq!(
            sum_f32(&shape, "f32[2,3]", "0", &v),
            vec![4., 8., 12., 16., 20., 24.]
        );
        assert_eq!(
            sum_f32(&shape, "f32[4,2]{0,1}", "2", &v),
            vec![6., 15., 6., 15., 6., 15., 6., 15.]
        );
        assert_eq!(sum_f32(&shape, "f32[3]", "1,0", &v), vec![20., 28., 36.]);
        assert_eq!(sum_f32(&shape, "f32[]", "0,1,2", &v), vec![84.]);
    }
}

#[test]
fn sums_are_exact_and_rounded_once() {
    // Naive left-to-right f32 summation of [1e8, 1, -1e8, 1] gives 1; the exact sum is 2.
    let x = [1e8f32, 1.0, -1e8, 1.0];
    assert_eq!(x.iter().fold(0f32, |a, &v| a + v), 1.0);
    assert_eq!(sum_f32("f32[4]", "f32[]", "0", &x), vec![2.0]);
    // f16: 2048 + 1 + 1 is 2050 exactly, but naive f16 gives 2048 (each +1 is a tie to even).
    let add16 = ADD_F32.replace("f32", "f16");
    let hlo = reduce_hlo(&add16, "f16[3]", "f16[]", "f16[]", "0", "add");
    let got = run_array(
        &hlo,
        &[values("f16[3]", &[2048., 1., 1.]), values("f16[]", &[0.])],
    );
    assert_eq!(f64_values(&got), vec![2050.]);
    // The init value is a term: init 1e8, elements [1, -1e8] → 1.
    let hlo = reduce_hlo(ADD_F32, "f32[2]", "f32[]", "f32[]", "0", "add");
    let got = run_array(&hlo, &[f32s("f32[2]", &[1., -1e8]), f32s("f32[]", &[1e8])]);
    assert_eq!(f32_values(&got), vec![1.0]);
}

#[test]
fn integer_sums_wrap_and_complex_sums_are_exact() {
    let add = ADD_F32.replace("f32", "s8");
    let hlo = reduce_hlo(&add, "s8[3]", "s8[]", "s8[]", "0", "add");
    let got = run_array(&hlo, &[ints("s8[3]", &[100, 100, 1]), ints("s8[]", &[0])]);
    assert_eq!(int_values(&got), vec![-55]);
    let add = ADD_F32.replace("f32", "c64");
    let hlo = reduce_hlo(&add, "c64[3]", "c64[]", "c64[]", "0", "add");
    let shape = parse_shape_array("c64[3]");
    let a = conformance_spec::literal::ArrayLiteral::from_complex(
        shape,
        &[(1e8, 1.0), (1.0, 2f64.powi(-40)), (-1e8, -1.0)],
    )
    .unwrap();
    let init = conformance_spec::literal::ArrayLiteral::from_complex(
        parse_shape_array("c64[]"),
        &[(1.0, 0.0)],
    )
    .unwrap();
    let got = run_array(&hlo, &[Literal::Array(a), Literal::Array(init)]);
    let (re, im) = conformance_spec::literal::complex_parts(
        conformance_spec::element_type::FloatFormat::F32,
        got.get_bits(&[]),
    );
    assert_eq!(f32::from_bits(re as u32), 2.0);
    assert_eq!(f32::from_bits(im as u32), 2f32.powi(-40));
}

#[test]
fn max_and_min_reducers() {
    let max = "mx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] maximum(x, y)\n}\n";
    let hlo = reduce_hlo(max, "f32[2,3]", "f32[]", "f32[2]", "1", "mx");
    let got = run_array(
        &hlo,
        &[
            f32s("f32[2,3]", &[1., 7., -2., -5., f32::NAN, 3.]),
            f32s("f32[]", &[f32::NEG_INFINITY]),
        ],
    );
    let got = f32_values(&got);
    assert_eq!(got[0], 7.0);
    assert!(got[1].is_nan());
    let m = parse_module(&hlo).unwrap();
    let args = [f32s("f32[2,3]", &[0.; 6]), f32s("f32[]", &[0.])];
    assert_eq!(accumulation_bounds(&m, &args).unwrap(), None);
}

#[test]
fn arbitrary_reducers_run_in_canonical_order() {
    // f(acc, e) = acc − e: init 10, elements 1, 2, 3 → 4 (direct element-wise path).
    let sub = "sub {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] subtract(x, y)\n}\n";
    let hlo = reduce_hlo(sub, "f32[3]", "f32[]", "f32[]", "0", "sub");
    let args = [f32s("f32[3]", &[1., 2., 3.]), f32s("f32[]", &[10.])];
    assert_eq!(f32_values(&run_array(&hlo, &args)), vec![4.]);
    // f(acc, e) = e − acc (parameters swapped): 1 − 10 = −9, 2 + 9 = 11, 3 − 11 = −8.
    let rsub = sub.replace("subtract(x, y)", "subtract(y, x)");
    let hlo = reduce_hlo(&rsub, "f32[3]", "f32[]", "f32[]", "0", "sub");
    assert_eq!(f32_values(&run_array(&hlo, &args)), vec![-8.]);
    // f(acc, e) = 2·acc + e through the interpreter, over two reduced dimensions in row-major
    // order: the digits of e in base 2, most significant first.
    let horner = "h {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  two = f32[] constant(2)\n  t = f32[] multiply(x, two)\n  ROOT s = f32[] add(t, y)\n}\n";
    let hlo = reduce_hlo(horner, "f32[2,2,3]{0,1,2}", "f32[]", "f32[2]", "0,2", "h");
    // Row 0 (dimension 1 = 0): elements [1,0,1],[1,1,0] in row-major order over (d0, d2) → 0b101110.
    let v = [1., 0., 1., 0., 0., 0., 1., 1., 0., 1., 1., 1.];
    let got = run_array(&hlo, &[f32s("f32[2,2,3]{0,1,2}", &v), f32s("f32[]", &[0.])]);
    assert_eq!(f32_values(&got), vec![0b101110 as f32, 0b000111 as f32]);
    // Not a sum: no bounds.
    let m = parse_module(&hlo).unwrap();
    let args = [f32s("f32[2,2,3]{0,1,2}", &v), f32s("f32[]", &[0.])];
    assert_eq!(accumulation_bounds(&m, &args).unwrap(), None);
}

#[test]
fn variadic_argmax() {
    // Seed 004, Variadic Reduce: f(max, argmax, value, index) = value >= max ? (value, index) :
    // (max, argmax); ties pick the later index.
    let hlo = "HloModule m\nargmax {\n  m = f32[] parameter(0)\n  k = s32[] parameter(1)\n  v = f32[] parameter(2)\n  i = s32[] parameter(3)\n  ge = pred[] compare(v, m), direction=GE\n  nm = f32[] select(ge, v, m)\n  nk = s32[] select(ge, i, k)\n  ROOT t = (f32[], s32[]) tuple(nm, nk)\n}\n\nENTRY e {\n  a = f32[2,4] parameter(0)\n  b = s32[2,4] parameter(1)\n  i = f32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = (f32[2], s32[2]) reduce(a, b, i, j), dimensions={1}, to_apply=argmax\n}\n";
    let values = f32s("f32[2,4]", &[3., 9., 1., 9., -1., -7., -0.5, -3.]);
    let iota = ints("s32[2,4]", &[0, 1, 2, 3, 0, 1, 2, 3]);
    let got = run(
        hlo,
        &[
            values,
            iota,
            f32s("f32[]", &[f32::NEG_INFINITY]),
            ints("s32[]", &[-1]),
        ],
    )
    .unwrap();
    let Literal::Tuple(items) = got else {
        panic!("not a tuple: {got}")
    };
    assert_eq!(f32_values(items[0].as_array().unwrap()), vec![9., -0.5]);
    assert_eq!(int_values(items[1].as_array().unwrap()), vec![3, 2]);
}

#[test]
fn bounds_of_sums() {
    let hlo = reduce_hlo(ADD_F32, "f32[2,3]", "f32[]", "f32[2]", "1", "add");
    let m = parse_module(&hlo).unwrap();
    let args = [
        f32s("f32[2,3]", &[1., -2., 3., 0.25, 0., 0.]),
        f32s("f32[]", &[-1.]),
    ];
    let b = accumulation_bounds(&m, &args).unwrap().unwrap();
    assert_eq!(b[0].iter().map(|x| x.terms).collect::<Vec<_>>(), vec![4, 4]);
    assert_eq!(
        b[0].iter().map(|x| x.abs_sum).collect::<Vec<_>>(),
        vec![7., 1.25]
    );
}

#[test]
fn errors_name_the_problem() {
    let hlo = reduce_hlo(ADD_F32, "f32[2,3]", "f32[]", "f32[3]", "1", "add");
    let e = run(&hlo, &[f32s("f32[2,3]", &[0.; 6]), f32s("f32[]", &[0.])]).unwrap_err();
    assert!(e.to_string().contains("produces [2]"), "{e}");
    let hlo = reduce_hlo(ADD_F32, "f32[2,3]", "f32[]", "f32[]", "1,1", "add");
    let e = run(&hlo, &[f32s("f32[2,3]", &[0.; 6]), f32s("f32[]", &[0.])]).unwrap_err();
    assert!(e.to_string().contains("repeat"), "{e}");
    let hlo = reduce_hlo(ADD_F32, "f32[2,3]", "f32[2]", "f32[2]", "1", "add");
    let e = run(
        &hlo,
        &[f32s("f32[2,3]", &[0.; 6]), f32s("f32[2]", &[0.; 2])],
    )
    .unwrap_err();
    assert!(e.to_string().contains("init value 0"), "{e}");
}
