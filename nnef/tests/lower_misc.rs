//! Lowering of matmul (§4.7), multilinear_upsample (§4.3.4) and the RoI operations (§4.6).

mod lower_support;

use conformance_spec::literal::Literal;
use lower_support::*;

fn matmul(a: Literal, b_: Literal, ta: bool, tb: bool, out: &[usize]) -> Vec<f64> {
    let args = vec![
        ("A", t("a")),
        ("B", t("b")),
        ("transposeA", b(ta)),
        ("transposeB", b(tb)),
    ];
    values(&one_op(
        "matmul",
        &[("a", Scalar, a), ("b", Scalar, b_)],
        args,
        "C",
        Scalar,
        out,
    ))
}

#[test]
fn matmul_transpositions_and_batches() {
    assert_eq!(
        matmul(iota(&[2, 3]), iota(&[3, 2]), false, false, &[2, 2]),
        [10.0, 13.0, 28.0, 40.0]
    );
    assert_eq!(
        matmul(iota(&[3, 2]), iota(&[3, 2]), true, false, &[2, 2]),
        [20.0, 26.0, 26.0, 35.0]
    );
    assert_eq!(
        matmul(iota(&[2, 3]), iota(&[2, 3]), false, true, &[2, 2]),
        [5.0, 14.0, 14.0, 50.0]
    );
    assert_eq!(
        matmul(iota(&[3, 2]), iota(&[2, 3]), true, true, &[2, 2]),
        [10.0, 28.0, 13.0, 40.0]
    );
    // The batch dimension of B broadcasts.
    let a = f32s(&[2, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
    let b_ = f32s(&[1, 2, 1], &[1.0, 10.0]);
    assert_eq!(matmul(a, b_, false, false, &[2, 1, 1]), [21.0, 43.0]);
}

fn upsample(x: Literal, factor: &[i64], method: &str, border: &str, out: &[usize]) -> Vec<f64> {
    let args = vec![
        ("input", t("x")),
        ("factor", ints(factor)),
        ("method", st(method)),
        ("border", st(border)),
    ];
    values(&one_op(
        "multilinear_upsample",
        &[("x", Scalar, x)],
        args,
        "output",
        Scalar,
        out,
    ))
}

fn assert_values(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= 1e-6, "got {got:?}, want {want:?}");
    }
}

#[test]
fn multilinear_upsample_methods_and_borders() {
    let x = || f32s(&[1, 1, 2], &[1.0, 3.0]);
    assert_values(
        &upsample(x(), &[2], "asymmetric", "constant", &[1, 1, 4]),
        &[1.0, 2.0, 3.0, 1.5],
    );
    assert_values(
        &upsample(x(), &[2], "asymmetric", "replicate", &[1, 1, 4]),
        &[1.0, 2.0, 3.0, 3.0],
    );
    assert_values(
        &upsample(x(), &[2], "symmetric", "constant", &[1, 1, 4]),
        &[0.75, 1.5, 2.5, 2.25],
    );
    assert_values(
        &upsample(x(), &[2], "symmetric", "replicate", &[1, 1, 4]),
        &[1.0, 1.5, 2.5, 3.0],
    );
    assert_values(
        &upsample(x(), &[2], "aligned", "replicate", &[1, 1, 4]),
        &[1.0, 5.0 / 3.0, 7.0 / 3.0, 3.0],
    );
    // Bilinear = linear along each spatial dimension in turn.
    let got = upsample(
        f32s(&[1, 1, 2, 2], &[1.0, 3.0, 5.0, 7.0]),
        &[2, 2],
        "symmetric",
        "replicate",
        &[1, 1, 4, 4],
    );
    let want = [
        1.0, 1.5, 2.5, 3.0, 2.0, 2.5, 3.5, 4.0, 4.0, 4.5, 5.5, 6.0, 5.0, 5.5, 6.5, 7.0,
    ];
    assert_values(&got, &want);
    // Factor 3, asymmetric: weights 1, 2/3, 1/3.
    assert_values(
        &upsample(x(), &[3], "asymmetric", "replicate", &[1, 1, 6]),
        &[1.0, 5.0 / 3.0, 7.0 / 3.0, 3.0, 3.0, 3.0],
    );
}

fn roi(
    name: &str,
    x: Literal,
    rois: Literal,
    batch: Literal,
    size: &[i64],
    extra: Vec<(&str, conformance_nnef::graph::Value)>,
    out: &[usize],
) -> Vec<f64> {
    let mut args = vec![
        ("input", t("x")),
        ("rois", t("r")),
        ("batch_index", t("k")),
        ("output_size", ints(size)),
    ];
    args.extend(extra);
    values(&one_op(
        name,
        &[("x", Scalar, x), ("r", Scalar, rois), ("k", Integer, batch)],
        args,
        "output",
        Scalar,
        out,
    ))
}

#[test]
fn roi_pooling_per_cell() {
    // Two RoIs: (0.4, 0.4, 3.6, 3.6) rounds to the whole 4x4 map of batch 0 (cells 2x2 with
    // stride 2); (1, 1, 4, 4) on batch 1 has extent 3: cells of 2 with stride 1.
    let x = || iota(&[2, 1, 4, 4]);
    let rois = || f32s(&[2, 4], &[0.4, 0.4, 3.6, 3.6, 1.0, 1.0, 4.0, 4.0]);
    let batch = || s32s(&[2, 1], &[0, 1]);
    let max = roi(
        "max_roi_pool",
        x(),
        rois(),
        batch(),
        &[2, 2],
        vec![],
        &[2, 1, 2, 2],
    );
    assert_eq!(max, [5.0, 7.0, 13.0, 15.0, 26.0, 27.0, 30.0, 31.0]);
    let avg = roi(
        "avg_roi_pool",
        x(),
        rois(),
        batch(),
        &[2, 2],
        vec![],
        &[2, 1, 2, 2],
    );
    assert_eq!(avg, [2.5, 4.5, 10.5, 12.5, 23.5, 24.5, 27.5, 28.5]);
}

#[test]
fn roi_resample_interpolates_inside_the_roi() {
    let x = || f32s(&[1, 1, 2, 2], &[1.0, 3.0, 5.0, 7.0]);
    let batch = || s32s(&[1, 1], &[0]);
    // The whole map resampled to 4x4 is multilinear_upsample's result.
    let got = roi(
        "roi_resample",
        x(),
        f32s(&[1, 4], &[0.0, 0.0, 2.0, 2.0]),
        batch(),
        &[4, 4],
        vec![("method", st("symmetric"))],
        &[1, 1, 4, 4],
    );
    let want = [
        1.0, 1.5, 2.5, 3.0, 2.0, 2.5, 3.5, 4.0, 4.0, 4.5, 5.5, 6.0, 5.0, 5.5, 6.5, 7.0,
    ];
    assert_values(&got, &want);
    let got = roi(
        "roi_resample",
        x(),
        f32s(&[1, 4], &[0.0, 0.0, 2.0, 2.0]),
        batch(),
        &[2, 4],
        vec![("method", st("asymmetric"))],
        &[1, 1, 2, 4],
    );
    assert_values(&got, &[1.0, 2.0, 3.0, 3.0, 5.0, 6.0, 7.0, 7.0]);
    // A RoI starting at column 1 of extent 1 samples columns 1 and 1.5 (clamped to 1).
    let got = roi(
        "roi_resample",
        x(),
        f32s(&[1, 4], &[0.0, 1.0, 2.0, 2.0]),
        batch(),
        &[2, 2],
        vec![("method", st("asymmetric"))],
        &[1, 1, 2, 2],
    );
    assert_values(&got, &[3.0, 3.0, 7.0, 7.0]);
}
