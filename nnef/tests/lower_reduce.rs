//! Lowering of reduce operations (NNEF 1.0.5 §4.4): the reduced axes stay as singletons.

mod lower_support;

use conformance_nnef::graph::DataType;
use conformance_spec::literal::Literal;
use lower_support::*;

fn reduce(
    name: &str,
    x: Literal,
    dtype: DataType,
    axes: &[i64],
    extra: Vec<(&str, conformance_nnef::graph::Value)>,
    out_dtype: DataType,
    out: &[usize],
) -> Literal {
    let mut args = vec![("input", t("x")), ("axes", ints(axes))];
    args.extend(extra);
    one_op(name, &[("x", dtype, x)], args, "output", out_dtype, out)
}

#[test]
fn sum_mean_max_min_keep_singleton_axes() {
    // x = [[0, 1, 2], [3, 4, 5]]
    let out = reduce(
        "sum_reduce",
        iota(&[2, 3]),
        Scalar,
        &[1],
        vec![("normalize", b(false))],
        Scalar,
        &[2, 1],
    );
    assert_close(&out, &[2, 1], &[3.0, 12.0], 0.0);
    let out = reduce(
        "sum_reduce",
        iota(&[2, 3]),
        Scalar,
        &[0, 1],
        vec![("normalize", b(true))],
        Scalar,
        &[1, 1],
    );
    assert_close(&out, &[1, 1], &[2.5], 0.0);
    let out = reduce(
        "mean_reduce",
        iota(&[2, 3]),
        Scalar,
        &[0],
        vec![],
        Scalar,
        &[1, 3],
    );
    assert_close(&out, &[1, 3], &[1.5, 2.5, 3.5], 0.0);
    let out = reduce(
        "max_reduce",
        f32s(&[2, 2], &[1.0, -5.0, -2.0, -3.0]),
        Scalar,
        &[1],
        vec![],
        Scalar,
        &[2, 1],
    );
    assert_close(&out, &[2, 1], &[1.0, -2.0], 0.0);
    let out = reduce(
        "min_reduce",
        f32s(&[2, 2], &[1.0, -5.0, -2.0, -3.0]),
        Scalar,
        &[0],
        vec![],
        Scalar,
        &[1, 2],
    );
    assert_close(&out, &[1, 2], &[-2.0, -5.0], 0.0);
    // No axes: the input itself.
    let out = reduce(
        "sum_reduce",
        iota(&[2]),
        Scalar,
        &[],
        vec![("normalize", b(true))],
        Scalar,
        &[2],
    );
    assert_close(&out, &[2], &[0.0, 1.0], 0.0);
}

#[test]
fn any_and_all() {
    let x = || preds(&[2, 2], &[false, true, false, false]);
    let out = reduce("any_reduce", x(), Logical, &[1], vec![], Logical, &[2, 1]);
    assert_close(&out, &[2, 1], &[1.0, 0.0], 0.0);
    let out = reduce(
        "all_reduce",
        preds(&[2, 2], &[true, true, false, true]),
        Logical,
        &[1],
        vec![],
        Logical,
        &[2, 1],
    );
    assert_close(&out, &[2, 1], &[1.0, 0.0], 0.0);
}

#[test]
fn argmax_and_argmin_reduce() {
    // Ties give the first index.
    let x = || f32s(&[2, 4], &[1.0, 7.0, 7.0, 0.0, -1.0, -3.0, 2.0, -3.0]);
    let out = reduce("argmax_reduce", x(), Scalar, &[1], vec![], Integer, &[2, 1]);
    assert_eq!(
        out.as_array().unwrap().element_type(),
        conformance_spec::ElementType::S32
    );
    assert_close(&out, &[2, 1], &[1.0, 2.0], 0.0);
    let out = reduce("argmin_reduce", x(), Scalar, &[1], vec![], Integer, &[2, 1]);
    assert_close(&out, &[2, 1], &[3.0, 1.0], 0.0);
    let out = reduce("argmax_reduce", x(), Scalar, &[0], vec![], Integer, &[1, 4]);
    assert_close(&out, &[1, 4], &[0.0, 0.0, 0.0, 0.0], 0.0);
    let out = reduce("argmin_reduce", x(), Scalar, &[0], vec![], Integer, &[1, 4]);
    assert_close(&out, &[1, 4], &[1.0, 1.0, 1.0, 1.0], 0.0);
    // Several axes: the row-major position within them.
    let out = reduce(
        "argmax_reduce",
        x(),
        Scalar,
        &[0, 1],
        vec![],
        Integer,
        &[1, 1],
    );
    assert_close(&out, &[1, 1], &[1.0], 0.0);
    let y = f32s(&[2, 2, 2], &[0.0, 1.0, 9.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = reduce(
        "argmax_reduce",
        y,
        Scalar,
        &[0, 2],
        vec![],
        Integer,
        &[1, 2, 1],
    );
    // j = 0: values [0, 1, 3, 4] at (0,0),(0,1),(1,0),(1,1) -> 3; j = 1: [9, 2, 5, 6] -> 0.
    assert_close(&out, &[1, 2, 1], &[3.0, 0.0], 0.0);
    // A NaN wins (the first one).
    let out = reduce(
        "argmax_reduce",
        f32s(&[4], &[1.0, f64::NAN, 5.0, f64::NAN]),
        Scalar,
        &[0],
        vec![],
        Integer,
        &[1],
    );
    assert_close(&out, &[1], &[1.0], 0.0);
    let out = reduce(
        "argmin_reduce",
        f32s(&[3], &[1.0, f64::NAN, -5.0]),
        Scalar,
        &[0],
        vec![],
        Integer,
        &[1],
    );
    assert_close(&out, &[1], &[1.0], 0.0);
}
