//! Unit tests of the sliding-window shape rules: expected shapes are the Khronos parser's for
//! the tvm-cases graphs (khronos-parser-shapes.json) and hand-computed ones from §4.3.

use crate::graph::Value;
use crate::shapes::infer;
use crate::shapes::testing::{ints, one, op, pads, s, t, tensor_shapes};

/// `conv`/`deconv` over `input`, `filter` shapes with optional padding/stride/dilation/groups.
struct Conv<'a> {
    input: &'a [usize],
    filter: &'a [usize],
    bias: Option<&'a [usize]>,
    padding: &'a [(i64, i64)],
    stride: &'a [i64],
    dilation: &'a [i64],
    groups: i64,
    output_shape: &'a [i64],
    border: &'a str,
}

impl Default for Conv<'_> {
    fn default() -> Self {
        Conv {
            input: &[4, 8, 32, 32],
            filter: &[16, 8, 3, 3],
            bias: None,
            padding: &[],
            stride: &[],
            dilation: &[],
            groups: 1,
            output_shape: &[],
            border: "constant",
        }
    }
}

impl Conv<'_> {
    fn run(&self, name: &str) -> Result<Vec<crate::shapes::ResultShape>, String> {
        let shapes = tensor_shapes(&[
            ("x", self.input),
            ("w", self.filter),
            ("b", self.bias.unwrap_or(&[])),
        ]);
        let mut args = vec![
            ("input", t("x")),
            ("filter", t("w")),
            (
                "bias",
                if self.bias.is_some() {
                    t("b")
                } else {
                    Value::Scalar(0.0)
                },
            ),
            ("border", s(self.border)),
            ("padding", pads(self.padding)),
            ("stride", ints(self.stride)),
            ("dilation", ints(self.dilation)),
        ];
        if name == "deconv" {
            args.push(("output_shape", ints(self.output_shape)));
        }
        args.push(("groups", Value::Integer(self.groups)));
        infer(&op(name, args), &shapes)
    }
    fn conv(&self) -> Vec<usize> {
        one(self.run("conv"))
    }
    fn deconv(&self) -> Vec<usize> {
        one(self.run("deconv"))
    }
}

#[test]
fn conv_matches_the_khronos_parser() {
    let bias: &[usize] = &[1, 16];
    let c = |filter, padding, stride| {
        Conv {
            filter,
            bias: Some(bias),
            padding,
            stride,
            ..Conv::default()
        }
        .conv()
    };
    assert_eq!(c(&[16, 8, 1, 1], &[], &[]), vec![4, 16, 32, 32]); // conv1x1
    assert_eq!(c(&[16, 8, 4, 4], &[], &[]), vec![4, 16, 32, 32]); // conv4x4
    assert_eq!(
        c(&[16, 8, 3, 3], &[(0, 0), (0, 0)], &[]),
        vec![4, 16, 30, 30]
    ); // conv3x3_pad0-0
    assert_eq!(
        c(&[16, 8, 3, 3], &[(0, 1), (0, 1)], &[]),
        vec![4, 16, 31, 31]
    ); // conv3x3_pad0-1
    assert_eq!(c(&[16, 8, 3, 3], &[], &[2, 2]), vec![4, 16, 16, 16]); // conv3x3_stride2x2
    assert_eq!(c(&[16, 8, 5, 5], &[], &[3, 3]), vec![4, 16, 11, 11]); // conv5x5_stride3x3
    assert_eq!(c(&[16, 8, 7, 7], &[], &[4, 4]), vec![4, 16, 8, 8]); // conv7x7_stride4x4
    assert_eq!(
        c(&[16, 8, 5, 5], &[(2, 2), (2, 2)], &[]),
        vec![4, 16, 32, 32]
    ); // conv5x5_pad2-2
       // conv3x3_nobias, conv3x3_groups0
    assert_eq!(Conv::default().conv(), vec![4, 16, 32, 32]);
    let depthwise = Conv {
        input: &[4, 16, 32, 32],
        filter: &[16, 1, 3, 3],
        bias: Some(bias),
        groups: 0,
        ..Conv::default()
    };
    assert_eq!(depthwise.conv(), vec![4, 16, 32, 32]);
}

#[test]
fn conv_dilation_and_explicit_padding() {
    // fd = (3-1)*2 + 1 = 5; (1 + 10 + 1 - 5) / 2 + 1 = 4
    let c = Conv {
        input: &[1, 2, 10],
        filter: &[3, 2, 3],
        padding: &[(1, 1)],
        stride: &[2],
        dilation: &[2],
        ..Conv::default()
    };
    assert_eq!(c.conv(), vec![1, 3, 4]);
    // negative padding is allowed
    let c = Conv {
        input: &[1, 2, 10],
        filter: &[3, 2, 1],
        padding: &[(-2, -3)],
        ..Conv::default()
    };
    assert_eq!(c.conv(), vec![1, 3, 5]);
    // grouped: 8 input channels, 2 groups, filter [6, 4, ...]
    let c = Conv {
        filter: &[6, 4, 3, 3],
        groups: 2,
        ..Conv::default()
    };
    assert_eq!(c.conv(), vec![4, 6, 32, 32]);
}

#[test]
fn deconv_matches_the_khronos_parser() {
    let bias: &[usize] = &[1, 8];
    let d = |filter, padding, stride| {
        Conv {
            input: &[4, 16, 32, 32],
            filter,
            bias: Some(bias),
            padding,
            stride,
            ..Conv::default()
        }
        .deconv()
    };
    assert_eq!(d(&[16, 8, 3, 3], &[], &[]), vec![4, 8, 32, 32]); // deconv3x3
    assert_eq!(
        d(&[16, 8, 3, 3], &[(0, 0), (0, 0)], &[]),
        vec![4, 8, 34, 34]
    ); // deconv3x3_pad0-0
    assert_eq!(
        d(&[16, 8, 3, 3], &[(0, 1), (0, 1)], &[]),
        vec![4, 8, 33, 33]
    ); // deconv3x3_pad0-1
    assert_eq!(d(&[16, 8, 4, 4], &[], &[2, 2]), vec![4, 8, 64, 64]); // deconv4x4_stride2x2
    assert_eq!(d(&[16, 8, 5, 5], &[], &[3, 3]), vec![4, 8, 96, 96]); // deconv5x5_stride3x3
    assert_eq!(d(&[16, 8, 7, 7], &[], &[4, 4]), vec![4, 8, 128, 128]); // deconv7x7_stride4x4
    let depthwise = Conv {
        input: &[4, 16, 32, 32],
        filter: &[16, 1, 3, 3],
        bias: Some(&[1, 16]),
        groups: 0,
        ..Conv::default()
    };
    assert_eq!(depthwise.deconv(), vec![4, 16, 32, 32]); // deconv3x3_groups0
}

#[test]
fn deconv_output_shape() {
    // conv of [1,8,33,33] with a 3x3 filter, stride 2, auto padding gives 17x17; the reverse
    // with output_shape restores 33x33 (without it, 17*2 = 34).
    let base = Conv {
        input: &[1, 16, 17, 17],
        filter: &[16, 8, 3, 3],
        stride: &[2, 2],
        ..Conv::default()
    };
    assert_eq!(base.deconv(), vec![1, 8, 34, 34]);
    let d = Conv {
        output_shape: &[1, 8, 33, 33],
        ..base
    };
    assert_eq!(d.deconv(), vec![1, 8, 33, 33]);
    let bad = Conv {
        output_shape: &[1, 8, 31, 33],
        ..base
    };
    let err = bad.run("deconv").unwrap_err();
    assert!(
        err.contains("down-scales to extent 16 in dimension 2"),
        "{err}"
    );
    let bad = Conv {
        output_shape: &[1, 4, 33, 33],
        ..base
    };
    assert!(bad
        .run("deconv")
        .unwrap_err()
        .contains("output_shape channels 4"));
    let bad = Conv {
        output_shape: &[1, 8, 33],
        ..base
    };
    assert!(bad
        .run("deconv")
        .unwrap_err()
        .contains("length of 'output_shape' must be 4"));
    // groups = 0 takes the channel count of output_shape
    let dw = Conv {
        input: &[1, 4, 8, 8],
        filter: &[4, 1, 3, 3],
        groups: 0,
        output_shape: &[1, 4, 8, 8],
        ..Conv::default()
    };
    assert_eq!(dw.deconv(), vec![1, 4, 8, 8]);
}

#[test]
fn conv_errors() {
    let err = Conv {
        filter: &[16, 3, 3, 3],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert_eq!(
        err,
        "conv: filter channels 3 * groups 1 != input channels 8"
    );
    let err = Conv {
        filter: &[16, 4, 3, 3],
        groups: 3,
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("filter channels 4 * groups 3"), "{err}");
    let err = Conv {
        filter: &[15, 4, 3, 3],
        groups: 2,
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(
        err.contains("groups 2 does not divide filter batch 15"),
        "{err}"
    );
    let err = Conv {
        groups: -1,
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("'groups' must be non-negative"), "{err}");
    let err = Conv {
        filter: &[16, 8, 3],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("rank of 'filter'"), "{err}");
    let err = Conv {
        stride: &[2],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("length of 'stride' must be 2"), "{err}");
    let err = Conv {
        stride: &[0, 1],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(
        err.contains("items of 'stride' must be strictly positive"),
        "{err}"
    );
    let err = Conv {
        dilation: &[1, -1],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("'dilation'"), "{err}");
    let err = Conv {
        padding: &[(0, 0)],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("length of 'padding' must be 2"), "{err}");
    let err = Conv {
        input: &[1, 8, 2, 2],
        padding: &[(0, 0), (0, 0)],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(
        err.contains("smaller than the dilated window 3 in dimension 2"),
        "{err}"
    );
    let err = Conv {
        bias: Some(&[1, 15]),
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(
        err.contains("bias channels 15 != output channels 16"),
        "{err}"
    );
    let err = Conv {
        bias: Some(&[16]),
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(
        err.contains("bias must be singular except in the channel dimension"),
        "{err}"
    );
    assert_eq!(
        Conv {
            bias: Some(&[1, 1]),
            ..Conv::default()
        }
        .conv(),
        vec![4, 16, 32, 32]
    );
    let err = Conv {
        border: "ignore",
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("'border' must be one of"), "{err}");
    let err = Conv {
        input: &[4, 8, 32, 32],
        filter: &[16, 8, 3, 3],
        ..Conv::default()
    }
    .run("deconv")
    .unwrap_err();
    assert!(err.contains("filter batch 16 != input channels 8"), "{err}");
    let err = Conv {
        input: &[8],
        filter: &[8],
        ..Conv::default()
    }
    .run("conv")
    .unwrap_err();
    assert!(err.contains("rank >= 2"), "{err}");
    // overflowing attributes are errors, not panics
    let err = Conv {
        stride: &[i64::MAX, 1],
        padding: &[(i64::MAX, i64::MAX), (0, 0)],
        ..Conv::default()
    }
    .run("deconv");
    assert!(err.is_err());
    let huge = Conv {
        input: &[1, 16, 3, 3],
        filter: &[16, 8, 1, 1],
        stride: &[i64::MAX, i64::MAX],
        ..Conv::default()
    };
    let err = huge.run("deconv").unwrap_err();
    assert!(
        err.contains("output extent in dimension 2 overflows"),
        "{err}"
    );
}

/// `box`/`debox`/`argmax_pool` over `[4,16,32,32]`.
fn pool(
    name: &str,
    size: &[i64],
    padding: &[(i64, i64)],
    stride: &[i64],
    border: &str,
) -> Result<Vec<usize>, String> {
    let shapes = tensor_shapes(&[("x", &[4, 16, 32, 32])]);
    let mut args = vec![
        ("input", t("x")),
        ("size", ints(size)),
        ("border", s(border)),
        ("padding", pads(padding)),
        ("stride", ints(stride)),
        ("dilation", ints(&[])),
    ];
    if name == "debox" {
        args.push(("output_shape", ints(&[])));
    }
    if name != "argmax_pool" {
        args.push(("normalize", Value::Logical(false)));
    }
    infer(&op(name, args), &shapes).map(|r| one(Ok(r)))
}

#[test]
fn box_and_debox_match_the_khronos_parser() {
    let k3 = &[1, 1, 3, 3];
    let s2 = &[1, 1, 2, 2];
    let p = |a: i64, b: i64| [(0, 0), (0, 0), (a, b), (a, b)];
    assert_eq!(
        pool("box", &[1, 1, 1, 1], &[], s2, "constant").unwrap(),
        vec![4, 16, 16, 16]
    );
    assert_eq!(
        pool("box", k3, &p(0, 0), s2, "constant").unwrap(),
        vec![4, 16, 15, 15]
    );
    assert_eq!(
        pool("box", k3, &p(0, 1), s2, "ignore").unwrap(),
        vec![4, 16, 16, 16]
    );
    assert_eq!(
        pool("box", k3, &p(1, 1), s2, "constant").unwrap(),
        vec![4, 16, 16, 16]
    );
    assert_eq!(
        pool("box", k3, &[], &[1, 1, 1, 1], "constant").unwrap(),
        vec![4, 16, 32, 32]
    );
    assert_eq!(
        pool(
            "debox",
            &[1, 1, 1, 1],
            &[(0, 0), (0, 0), (0, -1), (0, -1)],
            s2,
            "constant"
        )
        .unwrap(),
        vec![4, 16, 64, 64]
    );
    assert_eq!(
        pool("debox", k3, &[], s2, "constant").unwrap(),
        vec![4, 16, 64, 64]
    );
    assert_eq!(
        pool("debox", k3, &p(0, 0), s2, "constant").unwrap(),
        vec![4, 16, 65, 65]
    );
    assert_eq!(
        pool("debox", k3, &p(1, 1), s2, "constant").unwrap(),
        vec![4, 16, 63, 63]
    );
    assert_eq!(
        pool("argmax_pool", k3, &[], s2, "ignore").unwrap(),
        vec![4, 16, 16, 16]
    );
    // default stride over every dimension: same shape with automatic padding
    assert_eq!(
        pool("box", k3, &[], &[], "reflect-even").unwrap(),
        vec![4, 16, 32, 32]
    );
}

#[test]
fn pool_errors() {
    assert!(pool("box", &[3, 3], &[], &[], "constant")
        .unwrap_err()
        .contains("length of 'size' must be 4"));
    assert!(pool("box", &[1, 1, 0, 3], &[], &[], "constant")
        .unwrap_err()
        .contains("items of 'size' must be strictly positive"));
    assert!(pool("box", &[1, 1, 3, 3], &[], &[1, 1], "constant")
        .unwrap_err()
        .contains("length of 'stride' must be 4"));
    assert!(pool("box", &[1, 1, 3, 3], &[], &[], "mirror")
        .unwrap_err()
        .contains("'border' must be one of"));
    assert!(pool(
        "debox",
        &[1, 1, 3, 3],
        &[(0, 0), (0, 0), (0, 40), (0, 0)],
        &[],
        "constant"
    )
    .unwrap_err()
    .contains("negative"));
}

fn sample(
    name: &str,
    input: &[usize],
    index: &[usize],
    border: &str,
) -> Result<Vec<usize>, String> {
    let shapes = tensor_shapes(&[("x", input), ("i", index)]);
    let mut args = vec![
        ("input", t("x")),
        ("index", t("i")),
        ("size", ints(&[1, 1, 2, 2])),
        ("border", s(border)),
        ("padding", pads(&[])),
        ("stride", ints(&[1, 1, 2, 2])),
        ("dilation", ints(&[])),
    ];
    if name == "desample" {
        args.push(("output_shape", ints(&[])));
    }
    infer(&op(name, args), &shapes).map(|r| one(Ok(r)))
}

#[test]
fn sample_index_has_the_down_scaled_shape() {
    // max_pool_with_index: index = argmax_pool(input) has the output's shape
    assert_eq!(
        sample("sample", &[1, 3, 8, 8], &[1, 3, 4, 4], "ignore").unwrap(),
        vec![1, 3, 4, 4]
    );
    assert!(sample("sample", &[1, 3, 8, 8], &[1, 3, 8, 8], "constant")
        .unwrap_err()
        .contains("'index' [1,3,8,8]"));
    assert_eq!(
        sample("desample", &[1, 3, 4, 4], &[1, 3, 4, 4], "constant").unwrap(),
        vec![1, 3, 8, 8]
    );
    assert!(sample("desample", &[1, 3, 4, 4], &[1, 3, 8, 8], "constant")
        .unwrap_err()
        .contains("down-scaled shape [1,3,4,4]"));
    assert!(
        sample("desample", &[1, 3, 4, 4], &[1, 3, 4, 4], "replicate")
            .unwrap_err()
            .contains("'border'")
    );
}

fn upsample(
    input: &[usize],
    factor: &[i64],
    method: &str,
    border: &str,
) -> Result<Vec<usize>, String> {
    let shapes = tensor_shapes(&[("x", input)]);
    let args = vec![
        ("input", t("x")),
        ("factor", ints(factor)),
        ("method", s(method)),
        ("border", s(border)),
    ];
    infer(&op("multilinear_upsample", args), &shapes).map(|r| one(Ok(r)))
}

#[test]
fn multilinear_upsample_multiplies_spatial_extents() {
    for method in ["aligned", "symmetric", "asymmetric"] {
        for border in ["constant", "replicate"] {
            assert_eq!(
                upsample(&[4, 16, 32, 32], &[2, 2], method, border).unwrap(),
                vec![4, 16, 64, 64]
            );
        }
    }
    assert_eq!(
        upsample(&[1, 2, 5], &[3], "symmetric", "reflect").unwrap(),
        vec![1, 2, 15]
    );
    assert!(upsample(&[1, 2, 5], &[3, 3], "symmetric", "constant")
        .unwrap_err()
        .contains("length of 'factor' must be 1"));
    assert!(upsample(&[1, 2, 5], &[0], "symmetric", "constant")
        .unwrap_err()
        .contains("strictly positive"));
    assert!(upsample(&[1, 2, 5], &[2], "linear", "constant")
        .unwrap_err()
        .contains("'method' must be one of"));
    assert!(upsample(&[1, 2, 5], &[2], "symmetric", "ignore")
        .unwrap_err()
        .contains("'border' must be one of"));
}
