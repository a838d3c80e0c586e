use super::*;
use crate::hlo::parse_module;

#[test]
fn dim_labels_parse_and_print() {
    let d = ConvolutionDimensionNumbers::from_dim_labels("b01f_01io->b01f").unwrap();
    assert_eq!(d.input_batch_dimension, 0);
    assert_eq!(d.input_feature_dimension, 3);
    assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
    assert_eq!(d.kernel_input_feature_dimension, 2);
    assert_eq!(d.kernel_output_feature_dimension, 3);
    assert_eq!(d.kernel_spatial_dimensions, vec![0, 1]);
    assert_eq!(d.output_batch_dimension, 0);
    assert_eq!(d.output_feature_dimension, 3);
    assert_eq!(d.output_spatial_dimensions, vec![1, 2]);
    assert_eq!(d.to_dim_labels(), "b01f_01io->b01f");
    assert_eq!(d.validate(), Ok(()));

    // Digits out of positional order: spatial dimension k is where digit k stands.
    let d = ConvolutionDimensionNumbers::from_dim_labels("f10b_o1i0->1bf0").unwrap();
    assert_eq!(d.input_spatial_dimensions, vec![2, 1]);
    assert_eq!(d.input_batch_dimension, 3);
    assert_eq!(d.kernel_spatial_dimensions, vec![3, 1]);
    assert_eq!(d.output_spatial_dimensions, vec![3, 0]);
    assert_eq!(d.to_string(), "f10b_o1i0->1bf0");
    assert_eq!("f10b_o1i0->1bf0".parse(), Ok(d));

    let d0 = ConvolutionDimensionNumbers::from_dim_labels("bf_io->bf").unwrap();
    assert!(d0.input_spatial_dimensions.is_empty());
    assert_eq!(d0.kernel_input_feature_dimension, 0);
    assert_eq!(d0.to_dim_labels(), "bf_io->bf");

    assert_eq!(
        ConvolutionDimensionNumbers::default_for_spatial(2).to_dim_labels(),
        "bf01_oi01->bf01"
    );
}

#[test]
fn dim_labels_errors_name_what_is_wrong() {
    let err = |t: &str| parse_dim_labels(t).unwrap_err();
    assert!(err("b01f_01io").1.contains("missing `->`"));
    assert!(err("b01f01io->b01f").1.contains("missing `_`"));
    let (at, m) = err("b01b_01io->b01f");
    assert_eq!(at, 3);
    assert!(m.contains("`b` appears twice in the lhs labels"), "{m}");
    let (at, m) = err("b01f_01ix->b01f");
    assert_eq!(at, 8);
    assert!(m.contains("unexpected `x` in the rhs labels"), "{m}");
    let (_, m) = err("b01_01io->b01f");
    assert!(m.contains("lack `f`"), "{m}");
    let (at, m) = err("b02f_01io->b01f");
    assert_eq!(at, 2);
    assert!(m.contains("spatial dimension `2` out of range"), "{m}");
    let (at, m) = err("b00f_01io->b01f");
    assert_eq!(at, 2);
    assert!(m.contains("`0` appears twice"), "{m}");
    let (at, m) = err("b01f_0io->b01f");
    assert_eq!(at, 5);
    assert!(m.contains("rhs labels have 1 spatial dimensions, the lhs labels 2"));
    let (at, m) = err("b01f_01io->bf");
    assert_eq!(at, 11);
    assert!(m.contains("output labels have 0"));
}

#[test]
fn invalid_numbers_are_reported_and_not_printed_as_labels() {
    let mut d = ConvolutionDimensionNumbers::from_dim_labels("b01f_01io->b01f").unwrap();
    d.kernel_spatial_dimensions = vec![0, 0];
    let e = d.validate().unwrap_err();
    assert!(e.contains("kernel dimension numbers"), "{e}");
    assert!(ConvolutionDimensionNumbers::from_dim_labels(&d.to_dim_labels()).is_err());
    d.kernel_spatial_dimensions = vec![0];
    assert!(d.validate().unwrap_err().contains("1 and 2 spatial"));
}

#[test]
fn window_parses_prints_and_defaults() {
    let text = "{size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=1x1 rhs_reversal=0x1}";
    let w: Window = text.parse().unwrap();
    assert_eq!(w.dimensions.len(), 2);
    assert_eq!(
        w.dimensions[0],
        WindowDimension {
            size: 3,
            stride: 2,
            padding_low: 1,
            padding_high: 1,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    );
    assert_eq!(
        w.dimensions[1],
        WindowDimension {
            size: 3,
            stride: 1,
            padding_low: 0,
            padding_high: -1,
            window_dilation: 1,
            base_dilation: 2,
            window_reversal: true,
        }
    );
    // rhs_dilate is all 1: omitted when printed.
    assert_eq!(
        w.to_string(),
        "{size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_reversal=0x1}"
    );
    assert_eq!(w.to_string().parse::<Window>(), Ok(w));

    let w: Window = "{size=2}".parse().unwrap();
    assert_eq!(w, Window::from_sizes(&[2]));
    assert_eq!(w.to_string(), "{size=2}");
    let empty: Window = "{}".parse().unwrap();
    assert!(empty.dimensions.is_empty());
    assert_eq!(empty.to_string(), "{}");
    // Field order is free, whitespace runs are allowed.
    let w: Window = "{ stride=2   size=4 }".parse().unwrap();
    assert_eq!((w.dimensions[0].size, w.dimensions[0].stride), (4, 2));
}

#[test]
fn window_errors_name_what_is_wrong() {
    let err = |t: &str| parse_window(t).unwrap_err();
    assert!(err("size=3").1.contains("in braces"));
    let (at, m) = err("{size=3 foo=1}");
    assert_eq!(at, 8);
    assert!(m.contains("unknown window field `foo`"), "{m}");
    let (at, m) = err("{size=3 size=3}");
    assert_eq!(at, 8);
    assert!(m.contains("given twice"));
    let (at, m) = err("{stride=3}");
    assert_eq!(at, 8);
    assert!(m.contains("needs `size=`"));
    let (at, m) = err("{size=3x3 stride=1}");
    assert_eq!(at, 17);
    assert!(m.contains("`stride` has 1 dimensions, `size` has 2"), "{m}");
    assert!(err("{size=3x}").1.contains("`` is not an integer"));
    assert!(err("{size=3 pad=1}").1.contains("`1` is not `low_high`"));
    assert!(err("{size=3 pad=1_a}").1.contains("`a` is not an integer"));
    assert!(err("{size=3 rhs_reversal=2}").1.contains("not `0` or `1`"));
    assert!(err("{size=3 stride}").1.contains("expected `field=value`"));
}

#[test]
fn dot_numbers_round_trip_through_attributes() {
    let d = DotDimensionNumbers {
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
    };
    let attrs = d.to_attributes();
    let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "lhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_batch_dims",
            "rhs_contracting_dims"
        ]
    );
    assert_eq!(DotDimensionNumbers::from_attributes(&attrs), Ok(d));
    let plain = DotDimensionNumbers::for_dot(2);
    let attrs = plain.to_attributes();
    assert_eq!(attrs.len(), 2);
    assert_eq!(DotDimensionNumbers::from_attributes(&attrs), Ok(plain));
    let bad = vec![Attribute {
        name: "lhs_contracting_dims".into(),
        value: AttrValue::Int(1),
    }];
    assert!(DotDimensionNumbers::from_attributes(&bad)
        .unwrap_err()
        .contains("not a list of integers"));
}

#[test]
fn typed_attributes_are_read_from_parsed_hlo() {
    let m = parse_module(
        "HloModule m\n\
         ENTRY e {\n\
           a = f32[1,5,5,2] parameter(0)\n\
           k = f32[3,3,2,4] parameter(1)\n\
           ROOT c = f32[1,3,5,4] convolution(a, k), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n\
         }\n",
    )
    .unwrap();
    let c = m.entry_computation().root_instruction();
    let w = c.attr_window("window").unwrap();
    assert_eq!(w.dimensions[0].stride, 2);
    assert_eq!(Window::from_instruction(c).as_ref(), Ok(w));
    let d = c.attr_dim_labels("dim_labels").unwrap();
    assert_eq!(d.input_feature_dimension, 3);
    assert_eq!(
        ConvolutionDimensionNumbers::from_instruction(c).as_ref(),
        Ok(d)
    );
    assert!(m.to_string().contains(
        "convolution(%a, %k), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"
    ));
    assert_eq!(parse_module(&m.to_string()), Ok(m.clone()));

    // Without window and dim_labels: the empty window and XLA's default numbering.
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  k = f32[4,3] parameter(1)\n  ROOT c = f32[2,4] convolution(a, k)\n}\n",
    )
    .unwrap();
    let c = m.entry_computation().root_instruction();
    assert_eq!(Window::from_instruction(c), Ok(Window::default()));
    assert_eq!(
        ConvolutionDimensionNumbers::from_instruction(c)
            .unwrap()
            .to_dim_labels(),
        "bf_oi->bf"
    );
}

#[test]
fn malformed_typed_attributes_are_parse_errors_at_the_fault() {
    let module = |attrs: &str| {
        format!(
            "HloModule m\nENTRY e {{\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce-window(a, z), {attrs}, to_apply=%e\n}}\n"
        )
    };
    let e = parse_module(&module("window={size=2 strid=2}")).unwrap_err();
    assert_eq!((e.line, e.column), (5, 55));
    assert!(e.message.contains("unknown window field `strid`"), "{e}");
    let e = parse_module(&module("window=2")).unwrap_err();
    assert_eq!((e.line, e.column), (5, 47));
    assert!(e.message.contains("expects a window"), "{e}");
    let e = parse_module(&module("window={size=2 stride=1x1}")).unwrap_err();
    assert_eq!((e.line, e.column), (5, 62));
    let e = parse_module(&module("dim_labels=b0f_0io->bf")).unwrap_err();
    assert!(e.message.contains("output labels have 0"), "{e}");
    assert_eq!((e.line, e.column), (5, 60));
}

#[test]
fn labels_starting_with_a_digit_parse_in_hlo() {
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[5,1,2] parameter(0)\n  k = f32[3,2,4] parameter(1)\n  ROOT c = f32[3,1,4] convolution(a, k), window={size=3}, dim_labels=0bf_0io->0bf\n}\n",
    )
    .unwrap();
    let c = m.entry_computation().root_instruction();
    let d = c.attr_dim_labels("dim_labels").unwrap();
    assert_eq!(d.input_spatial_dimensions, vec![0]);
    assert_eq!(d.input_batch_dimension, 1);
    assert_eq!(parse_module(&m.to_string()), Ok(m.clone()));
    assert_eq!(crate::shape_inference::verify_module(&m), Ok(()));
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Arbitrary text never panics the window and labels parsers, and an error offset always
        /// lies within the text.
        #[test]
        fn window_and_labels_parsers_never_panic(
            text in "[{}a-z_=0-9x \\-é>]{0,40}",
        ) {
            if let Err((at, _)) = parse_window(&text) {
                prop_assert!(at <= text.len());
            }
            if let Err((at, _)) = parse_dim_labels(&text) {
                prop_assert!(at <= text.len());
            }
        }

        /// Printing a window and parsing it back gives the same window.
        #[test]
        fn windows_print_and_parse_back(
            dims in proptest::collection::vec(
                (-3i64..9, -2i64..4, -5i64..5, -5i64..5, 0i64..4, 0i64..4, any::<bool>()),
                0..4,
            ),
        ) {
            let w = Window {
                dimensions: dims
                    .into_iter()
                    .map(|(size, stride, padding_low, padding_high, window_dilation, base_dilation, window_reversal)| {
                        WindowDimension {
                            size,
                            stride,
                            padding_low,
                            padding_high,
                            window_dilation,
                            base_dilation,
                            window_reversal,
                        }
                    })
                    .collect(),
            };
            prop_assert_eq!(w.to_string().parse::<Window>(), Ok(w));
        }
    }
}
