//! Lowering of sliding-window operations (NNEF 1.0.5 §4.3, §4.9.3): conv, deconv, box, debox,
//! avg_pool, max_pool, argmax_pool, sample, desample; expected values computed by hand from
//! the standard's formulas.

mod lower_support;

use conformance_nnef::graph::Value;
use conformance_nnef::lower::lower;
use conformance_spec::literal::Literal;
use lower_support::*;

/// `conv(input, filter, bias, border, padding, stride, dilation, groups)`.
#[allow(clippy::too_many_arguments)]
fn conv(
    name: &str,
    x: Literal,
    w: Literal,
    bias: Value,
    border: &str,
    padding: Value,
    stride: &[i64],
    dilation: &[i64],
    groups: i64,
    out: &[usize],
) -> Literal {
    let mut args = vec![
        ("input", t("x")),
        ("filter", t("w")),
        ("bias", bias),
        ("border", st(border)),
        ("padding", padding),
        ("stride", ints(stride)),
        ("dilation", ints(dilation)),
    ];
    if name == "deconv" {
        args.push(("output_shape", ints(&[])));
    }
    args.push(("groups", i(groups)));
    one_op(
        name,
        &[("x", Scalar, x), ("w", Scalar, w)],
        args,
        "output",
        Scalar,
        out,
    )
}

fn window_args(
    size: &[i64],
    border: &str,
    padding: Value,
    stride: &[i64],
    dilation: &[i64],
) -> Vec<(&'static str, Value)> {
    vec![
        ("input", t("x")),
        ("size", ints(size)),
        ("border", st(border)),
        ("padding", padding),
        ("stride", ints(stride)),
        ("dilation", ints(dilation)),
    ]
}

fn pool(
    name: &str,
    x: Literal,
    size: &[i64],
    border: &str,
    padding: Value,
    stride: &[i64],
    out: &[usize],
) -> Literal {
    one_op(
        name,
        &[("x", Scalar, x)],
        window_args(size, border, padding, stride, &[]),
        "output",
        Scalar,
        out,
    )
}

#[allow(clippy::too_many_arguments)]
fn boxed(
    name: &str,
    x: Literal,
    size: &[i64],
    border: &str,
    padding: Value,
    stride: &[i64],
    normalize: bool,
    out: &[usize],
) -> Literal {
    let mut args = window_args(size, border, padding, stride, &[]);
    if name == "debox" {
        args.push(("output_shape", ints(&[])));
    }
    args.push(("normalize", b(normalize)));
    one_op(name, &[("x", Scalar, x)], args, "output", Scalar, out)
}

#[test]
fn conv_with_automatic_padding() {
    // X = 5, f = 3, s = 1: padding (1, 1); output[i] = in[i-1] - in[i+1].
    let out = conv(
        "conv",
        f32s(&[1, 1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0]),
        f32s(&[1, 1, 3], &[1.0, 0.0, -1.0]),
        s(0.0),
        "constant",
        pairs(&[]),
        &[],
        &[],
        1,
        &[1, 1, 5],
    );
    assert_close(&out, &[1, 1, 5], &[-2.0, -2.0, -2.0, -2.0, 4.0], 0.0);
    // 2-D, stride 2 over X = 3: x = 2, total padding 1 -> (0, 1), the extra row and column after.
    let out = conv(
        "conv",
        iota(&[1, 1, 3, 3]),
        f32s(&[1, 1, 2, 2], &[1.0; 4]),
        s(0.0),
        "constant",
        pairs(&[]),
        &[2, 2],
        &[],
        1,
        &[1, 1, 2, 2],
    );
    assert_close(&out, &[1, 1, 2, 2], &[8.0, 7.0, 13.0, 8.0], 0.0);
}

#[test]
fn conv_bias_dilation_and_groups() {
    let mut g = G::new();
    g.input("x", Scalar, &[1, 1, 3])
        .input("w", Scalar, &[1, 1, 1])
        .input("bias", Scalar, &[1, 1]);
    let args = vec![
        ("input", t("x")),
        ("filter", t("w")),
        ("bias", t("bias")),
        ("border", st("constant")),
        ("padding", pairs(&[])),
        ("stride", ints(&[])),
        ("dilation", ints(&[])),
        ("groups", i(1)),
    ];
    g.op("conv", args, "output", "y", Scalar, &[1, 1, 3])
        .output("y");
    let out = run(
        &g,
        &["y"],
        &[
            iota(&[1, 1, 3]),
            f32s(&[1, 1, 1], &[2.0]),
            f32s(&[1, 1], &[10.0]),
        ],
    );
    assert_close(&out[0], &[1, 1, 3], &[10.0, 12.0, 14.0], 0.0);
    // Dilation 2: output[i] = in[i] + in[i + 2].
    let out = conv(
        "conv",
        iota(&[1, 1, 5]),
        f32s(&[1, 1, 2], &[1.0, 1.0]),
        s(0.0),
        "constant",
        pairs(&[(0, 0)]),
        &[],
        &[2],
        1,
        &[1, 1, 3],
    );
    assert_close(&out, &[1, 1, 3], &[2.0, 4.0, 6.0], 0.0);
    let x = || f32s(&[1, 2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // groups = 0: depth-wise, one filter per channel.
    let out = conv(
        "conv",
        x(),
        f32s(&[2, 1, 1], &[2.0, 3.0]),
        s(0.0),
        "constant",
        pairs(&[(0, 0)]),
        &[],
        &[],
        0,
        &[1, 2, 3],
    );
    assert_close(&out, &[1, 2, 3], &[2.0, 4.0, 6.0, 12.0, 15.0, 18.0], 0.0);
    // groups = 1: channels mixed.
    let out = conv(
        "conv",
        x(),
        f32s(&[1, 2, 1], &[1.0, 10.0]),
        s(0.5),
        "constant",
        pairs(&[(0, 0)]),
        &[],
        &[],
        1,
        &[1, 1, 3],
    );
    assert_close(&out, &[1, 1, 3], &[41.5, 52.5, 63.5], 0.0);
}

#[test]
fn conv_border_modes() {
    let run_border = |border: &str| {
        let out = conv(
            "conv",
            f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]),
            f32s(&[1, 1, 3], &[1.0; 3]),
            s(0.0),
            border,
            pairs(&[(1, 1)]),
            &[],
            &[],
            1,
            &[1, 1, 3],
        );
        values(&out)
    };
    assert_eq!(run_border("constant"), [3.0, 6.0, 5.0]);
    assert_eq!(run_border("replicate"), [4.0, 6.0, 8.0]); // 1 1 2 3 3
    assert_eq!(run_border("reflect"), [5.0, 6.0, 7.0]); // 2 1 2 3 2
    assert_eq!(run_border("reflect-even"), [4.0, 6.0, 8.0]); // 1 1 2 3 3
                                                             // 'ignore' is not a border of conv.
    let mut g = G::new();
    g.input("x", Scalar, &[1, 1, 3])
        .input("w", Scalar, &[1, 1, 3]);
    let args = vec![
        ("input", t("x")),
        ("filter", t("w")),
        ("bias", s(0.0)),
        ("border", st("ignore")),
        ("padding", pairs(&[])),
        ("stride", ints(&[])),
        ("dilation", ints(&[])),
        ("groups", i(1)),
    ];
    g.op("conv", args, "output", "y", Scalar, &[1, 1, 3]);
    let e = lower(&g.graph, &["y".into()]).unwrap_err();
    assert!(
        e.message.starts_with("conv:") && e.message.contains("'ignore'"),
        "{e}"
    );
}

#[test]
fn deconv_output_size_and_values() {
    // x = 2, s = 2, f = 3, padding (0, 1): X = (2-1)·2 + 3 - 1 = 4;
    // output[i] = Σ_j in[(i - j) / 2]·f[j] over exact divisions: [1, 2, 1·2 + 3·1, 2·2].
    let out = conv(
        "deconv",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]),
        s(0.0),
        "constant",
        pairs(&[(0, 1)]),
        &[2],
        &[],
        1,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[1.0, 2.0, 5.0, 4.0], 0.0);
    // Automatic padding gives the same: t = (2-1)·2 + 3 - 4 = 1 -> (0, 1).
    let out = conv(
        "deconv",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]),
        s(1.0),
        "constant",
        pairs(&[]),
        &[2],
        &[],
        1,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[2.0, 3.0, 6.0, 5.0], 0.0);
    // A filling border reads the input outside its range: in~[-1] = in[0], in~[2] = in[1].
    let out = conv(
        "deconv",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        f32s(&[1, 1, 3], &[1.0; 3]),
        s(0.0),
        "replicate",
        pairs(&[(1, 1)]),
        &[],
        &[],
        1,
        &[1, 1, 2],
    );
    assert_close(&out, &[1, 1, 2], &[4.0, 5.0], 0.0);
    let out = conv(
        "deconv",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        f32s(&[1, 1, 3], &[1.0; 3]),
        s(0.0),
        "constant",
        pairs(&[(1, 1)]),
        &[],
        &[],
        1,
        &[1, 1, 2],
    );
    assert_close(&out, &[1, 1, 2], &[3.0, 3.0], 0.0);
}

#[test]
fn deconv_groups() {
    let x = || f32s(&[1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    // groups = 0: one group per output channel (C = 2).
    let out = conv(
        "deconv",
        x(),
        f32s(&[2, 1, 1], &[2.0, 3.0]),
        s(0.0),
        "constant",
        pairs(&[(0, 0)]),
        &[],
        &[],
        0,
        &[1, 2, 2],
    );
    assert_close(&out, &[1, 2, 2], &[2.0, 4.0, 9.0, 12.0], 0.0);
    // groups = 2 with two output channels per group: filter[k2][k1 - g·2].
    let out = conv(
        "deconv",
        x(),
        f32s(&[2, 2, 1], &[1.0, 2.0, 3.0, 4.0]),
        s(0.0),
        "constant",
        pairs(&[(0, 0)]),
        &[],
        &[],
        2,
        &[1, 4, 2],
    );
    assert_close(
        &out,
        &[1, 4, 2],
        &[1.0, 2.0, 2.0, 4.0, 9.0, 12.0, 12.0, 16.0],
        0.0,
    );
}

#[test]
fn box_and_avg_pool_borders() {
    let x = || f32s(&[1, 1, 4], &[1.0, 2.0, 3.0, 4.0]);
    let p = || pairs(&[(0, 0), (0, 0), (1, 1)]);
    let out = boxed(
        "box",
        x(),
        &[1, 1, 3],
        "constant",
        p(),
        &[],
        false,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[3.0, 6.0, 9.0, 7.0], 0.0);
    let out = boxed(
        "box",
        x(),
        &[1, 1, 3],
        "constant",
        p(),
        &[],
        true,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[1.0, 2.0, 3.0, 7.0 / 3.0], 1e-6);
    // 'ignore': the divisor counts only taps inside the input.
    let out = boxed("box", x(), &[1, 1, 3], "ignore", p(), &[], true, &[1, 1, 4]);
    assert_close(&out, &[1, 1, 4], &[1.5, 2.0, 3.0, 3.5], 0.0);
    let out = boxed(
        "box",
        x(),
        &[1, 1, 3],
        "reflect",
        p(),
        &[],
        false,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[5.0, 6.0, 9.0, 10.0], 0.0); // 2 1 2 3 4 3
                                                                 // avg_pool 3x3 with automatic padding (1, 1): a corner averages 4 inputs with 'ignore'.
    let out = pool(
        "avg_pool",
        iota(&[1, 1, 3, 3]),
        &[1, 1, 3, 3],
        "ignore",
        pairs(&[]),
        &[],
        &[1, 1, 3, 3],
    );
    assert_close(
        &out,
        &[1, 1, 3, 3],
        &[2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0],
        1e-6,
    );
    let out = pool(
        "avg_pool",
        iota(&[1, 1, 3, 3]),
        &[1, 1, 3, 3],
        "constant",
        pairs(&[]),
        &[],
        &[1, 1, 3, 3],
    );
    assert_close(
        &out,
        &[1, 1, 3, 3],
        &[
            8.0 / 9.0,
            15.0 / 9.0,
            12.0 / 9.0,
            21.0 / 9.0,
            4.0,
            27.0 / 9.0,
            20.0 / 9.0,
            33.0 / 9.0,
            24.0 / 9.0,
        ],
        1e-6,
    );
}

#[test]
fn debox_is_the_reverse_of_box() {
    // size 2, stride 2: every input element spreads over two outputs (nearest up-sampling).
    let out = boxed(
        "debox",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        &[1, 1, 2],
        "constant",
        pairs(&[(0, 0), (0, 0), (0, 0)]),
        &[1, 1, 2],
        false,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[1.0, 1.0, 2.0, 2.0], 0.0);
    let out = boxed(
        "debox",
        f32s(&[1, 1, 2], &[1.0, 2.0]),
        &[1, 1, 2],
        "constant",
        pairs(&[(0, 0), (0, 0), (0, 0)]),
        &[1, 1, 2],
        true,
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[0.5, 0.5, 1.0, 1.0], 0.0);
    // size 3, stride 1, padding 1: output[i] = in[i-1] + in[i] + in[i+1] (reverse taps).
    let out = boxed(
        "debox",
        f32s(&[1, 1, 3], &[1.0, 2.0, 4.0]),
        &[1, 1, 3],
        "ignore",
        pairs(&[(0, 0), (0, 0), (1, 1)]),
        &[],
        true,
        &[1, 1, 3],
    );
    assert_close(&out, &[1, 1, 3], &[1.5, 7.0 / 3.0, 3.0], 1e-6);
}

#[test]
fn max_pool_borders_and_strides() {
    let x = || f32s(&[1, 1, 4], &[-1.0, -2.0, -3.0, -4.0]);
    let p = || pairs(&[(0, 0), (0, 0), (1, 1)]);
    let out = pool("max_pool", x(), &[1, 1, 3], "ignore", p(), &[], &[1, 1, 4]);
    assert_close(&out, &[1, 1, 4], &[-1.0, -1.0, -2.0, -3.0], 0.0);
    // 'constant': the zero border takes part in the maximum.
    let out = pool(
        "max_pool",
        x(),
        &[1, 1, 3],
        "constant",
        p(),
        &[],
        &[1, 1, 4],
    );
    assert_close(&out, &[1, 1, 4], &[0.0, -1.0, -2.0, 0.0], 0.0);
    let out = pool(
        "max_pool",
        iota(&[1, 1, 4, 4]),
        &[1, 1, 2, 2],
        "ignore",
        pairs(&[]),
        &[1, 1, 2, 2],
        &[1, 1, 2, 2],
    );
    assert_close(&out, &[1, 1, 2, 2], &[5.0, 7.0, 13.0, 15.0], 0.0);
}

fn argmax_pool(
    x: Literal,
    size: &[i64],
    border: &str,
    padding: Value,
    stride: &[i64],
    dilation: &[i64],
    out: &[usize],
) -> Vec<f64> {
    let r = one_op(
        "argmax_pool",
        &[("x", Scalar, x)],
        window_args(size, border, padding, stride, dilation),
        "index",
        Integer,
        out,
    );
    values(&r)
}

#[test]
fn argmax_pool_indices_within_the_window() {
    let p = || pairs(&[(0, 0), (0, 0), (1, 1)]);
    // First maximum on ties; the 'ignore' border never wins.
    let x = || f32s(&[1, 1, 4], &[1.0, 5.0, 5.0, 2.0]);
    assert_eq!(
        argmax_pool(x(), &[1, 1, 3], "ignore", p(), &[], &[], &[1, 1, 4]),
        [2.0, 1.0, 0.0, 0.0]
    );
    // The 'constant' border is 0 and can be the maximum.
    let x = || f32s(&[1, 1, 4], &[-1.0, -2.0, -3.0, -4.0]);
    assert_eq!(
        argmax_pool(x(), &[1, 1, 3], "constant", p(), &[], &[], &[1, 1, 4]),
        [0.0, 0.0, 0.0, 2.0]
    );
    assert_eq!(
        argmax_pool(x(), &[1, 1, 3], "ignore", p(), &[], &[], &[1, 1, 4]),
        [1.0, 0.0, 0.0, 0.0]
    );
    // Row-major within a 2x2 window.
    let x = f32s(&[1, 1, 2, 2], &[1.0, 4.0, 3.0, 2.0]);
    assert_eq!(
        argmax_pool(
            x,
            &[1, 1, 2, 2],
            "constant",
            pairs(&[(0, 0); 4]),
            &[],
            &[],
            &[1, 1, 1, 1]
        ),
        [1.0]
    );
    // Dilation 2: taps in[i] and in[i + 2].
    let x = f32s(&[1, 1, 5], &[9.0, 0.0, 1.0, 0.0, 8.0]);
    assert_eq!(
        argmax_pool(
            x,
            &[1, 1, 2],
            "constant",
            pairs(&[(0, 0); 3]),
            &[],
            &[1, 1, 2],
            &[1, 1, 3]
        ),
        [0.0, 0.0, 1.0]
    );
}

#[test]
fn sample_and_desample() {
    let sample = |x: Literal,
                  index: Literal,
                  size: &[i64],
                  padding: Value,
                  stride: &[i64],
                  out: &[usize]| {
        let mut args = window_args(size, "constant", padding, stride, &[]);
        args.insert(1, ("index", t("index")));
        values(&one_op(
            "sample",
            &[("x", Scalar, x), ("index", Integer, index)],
            args,
            "output",
            Scalar,
            out,
        ))
    };
    let out = sample(
        f32s(&[1, 1, 4], &[10.0, 20.0, 30.0, 40.0]),
        s32s(&[1, 1, 2], &[1, 0]),
        &[1, 1, 2],
        pairs(&[(0, 0); 3]),
        &[1, 1, 2],
        &[1, 1, 2],
    );
    assert_eq!(out, [20.0, 30.0]);
    // An index into the zero border samples 0.
    let out = sample(
        f32s(&[1, 1, 3], &[10.0, 20.0, 30.0]),
        s32s(&[1, 1, 3], &[0, 2, 2]),
        &[1, 1, 3],
        pairs(&[(0, 0), (0, 0), (1, 1)]),
        &[],
        &[1, 1, 3],
    );
    assert_eq!(out, [0.0, 30.0, 0.0]);

    let desample = |x: Literal,
                    index: Literal,
                    size: &[i64],
                    padding: Value,
                    stride: &[i64],
                    out: &[usize]| {
        let mut args = window_args(size, "constant", padding, stride, &[]);
        args.insert(1, ("index", t("index")));
        args.push(("output_shape", ints(&[])));
        values(&one_op(
            "desample",
            &[("x", Scalar, x), ("index", Integer, index)],
            args,
            "output",
            Scalar,
            out,
        ))
    };
    let out = desample(
        f32s(&[1, 1, 2], &[5.0, 7.0]),
        s32s(&[1, 1, 2], &[1, 0]),
        &[1, 1, 2],
        pairs(&[(0, 0); 3]),
        &[1, 1, 2],
        &[1, 1, 4],
    );
    assert_eq!(out, [0.0, 5.0, 7.0, 0.0]);
    // Values sent to the same position add up; positions outside are dropped.
    let p = || pairs(&[(0, 0), (0, 0), (1, 1)]);
    let out = desample(
        f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]),
        s32s(&[1, 1, 3], &[2, 1, 0]),
        &[1, 1, 3],
        p(),
        &[],
        &[1, 1, 3],
    );
    assert_eq!(out, [0.0, 6.0, 0.0]);
    let out = desample(
        f32s(&[1, 1, 3], &[1.0, 2.0, 3.0]),
        s32s(&[1, 1, 3], &[0, 1, 2]),
        &[1, 1, 3],
        p(),
        &[],
        &[1, 1, 3],
    );
    assert_eq!(out, [0.0, 2.0, 0.0]);
}

#[test]
fn max_pool_with_index_through_its_expansion() {
    let mut g = G::new();
    g.input("x", Scalar, &[1, 1, 4]);
    let common = |args: &mut Vec<(&'static str, Value)>| {
        args.extend([
            ("size", ints(&[1, 1, 2])),
            ("border", st("constant")),
            ("padding", pairs(&[])),
            ("stride", ints(&[1, 1, 2])),
            ("dilation", ints(&[])),
        ])
    };
    let mut a = vec![("input", t("x"))];
    common(&mut a);
    let argmax = g.make("argmax_pool", a.clone(), vec![("index", t("index"))]);
    let mut sa = vec![("input", t("x")), ("index", t("index"))];
    common(&mut sa);
    let sample = g.make("sample", sa, vec![("output", t("y"))]);
    let mut op = g.make(
        "max_pool_with_index",
        a,
        vec![("output", t("y")), ("index", t("index"))],
    );
    op.expansion = vec![argmax, sample];
    g.compound(
        op,
        &[("index", Integer, &[1, 1, 2]), ("y", Scalar, &[1, 1, 2])],
    );
    let out = run(
        &g,
        &["y", "index"],
        &[f32s(&[1, 1, 4], &[1.0, 3.0, 2.0, 5.0])],
    );
    assert_close(&out[0], &[1, 1, 2], &[3.0, 5.0], 0.0);
    assert_close(&out[1], &[1, 1, 2], &[1.0, 1.0], 0.0);
}
