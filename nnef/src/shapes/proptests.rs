//! Properties of the shape rules: no input makes any rule panic, and the sliding-window,
//! reshape, slice and broadcasting rules satisfy the identities NNEF 1.0.5 chapter 4 states.

use proptest::prelude::*;

use crate::ast::{TypeName, TypeSpec};
use crate::graph::Value;
use crate::shapes::testing::{ints, one, op, pads, s, t, tensor_shapes};
use crate::shapes::{infer, ResultShape};
use crate::stdlib::standard_fragments;

/// An integer attribute: mostly small, sometimes extreme.
fn any_integer() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => -3i64..8,
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => any::<i64>(),
    ]
}

/// A shape: rank 0..5, extents mostly small, sometimes 0 or huge.
fn any_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![8 => 1usize..7, 1 => Just(0usize), 1 => Just(usize::MAX), 1 => any::<usize>()],
        0..5,
    )
}

/// A value of type `ty` (tensors are references `t0`, `t1`, ... with shapes in `shapes`).
fn value_of(ty: &TypeSpec, draw: &mut Draw) -> Value {
    match ty {
        TypeSpec::Tensor(_) => {
            let name = format!("t{}", draw.shapes.len());
            let shape = draw.shape();
            draw.shapes.push((name.clone(), shape));
            Value::Tensor(name)
        }
        TypeSpec::Primitive(TypeName::Integer) => Value::Integer(draw.integer()),
        TypeSpec::Primitive(TypeName::Scalar) => Value::Scalar(draw.integer() as f64 * 0.5),
        TypeSpec::Primitive(TypeName::Logical) => Value::Logical(draw.integer() % 2 == 0),
        TypeSpec::Primitive(TypeName::String) => {
            let strings = [
                "constant",
                "ignore",
                "replicate",
                "reflect",
                "symmetric",
                "aligned",
                "",
                "x",
            ];
            Value::String(
                strings[draw.integer().unsigned_abs() as usize % strings.len()].to_string(),
            )
        }
        TypeSpec::Primitive(TypeName::Generic) => Value::Scalar(1.0),
        TypeSpec::Array(item) => {
            let len = draw.integer().unsigned_abs() as usize % 6;
            Value::Array((0..len).map(|_| value_of(item, draw)).collect())
        }
        TypeSpec::Tuple(items) => Value::Tuple(items.iter().map(|i| value_of(i, draw)).collect()),
    }
}

/// A deterministic stream of draws from the proptest inputs.
struct Draw {
    integers: Vec<i64>,
    shapes_in: Vec<Vec<usize>>,
    next: usize,
    shapes: Vec<(String, Vec<usize>)>,
}

impl Draw {
    fn integer(&mut self) -> i64 {
        self.next += 1;
        self.integers[self.next % self.integers.len()]
    }
    fn shape(&mut self) -> Vec<usize> {
        self.next += 1;
        self.shapes_in[self.next % self.shapes_in.len()].clone()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every primitive, with arguments of its declared types but arbitrary values (including
    /// extreme integers and extents), returns a result or an error: never a panic.
    #[test]
    fn no_rule_panics(
        integers in prop::collection::vec(any_integer(), 1..40),
        shapes_in in prop::collection::vec(any_shape(), 1..8),
        offset in 0usize..64,
    ) {
        for fragment in standard_fragments().iter().filter(|f| f.body.is_none()) {
            let mut draw = Draw { integers: integers.clone(), shapes_in: shapes_in.clone(), next: offset, shapes: Vec::new() };
            let arguments: Vec<(String, Value)> = fragment
                .declaration
                .parameters
                .iter()
                .map(|p| (p.name.clone(), value_of(&p.ty, &mut draw)))
                .collect();
            let table: Vec<(&str, &[usize])> = draw.shapes.iter().map(|(n, s)| (n.as_str(), s.as_slice())).collect();
            let shapes = tensor_shapes(&table);
            let mut operation = op(&fragment.declaration.name, vec![]);
            operation.arguments = arguments;
            if let Err(message) = infer(&operation, &shapes) {
                prop_assert!(message.starts_with(&format!("{}: ", fragment.declaration.name)), "{message}");
            }
        }
    }

    /// Down-scaling then up-scaling with `output_shape` restores the input: a conv's input
    /// shape is a valid `output_shape` for the deconv of its output (§4.3: applying the
    /// down-scaled calculation to `output_shape` must give the input shape).
    #[test]
    fn deconv_with_output_shape_inverts_conv(
        spatial in prop::collection::vec((1usize..20, 1usize..5, 0i64..3, 0i64..3, 1i64..4, 1i64..3), 1..4),
        auto_padding: bool,
        channels in 1usize..4,
        filters in 1usize..4,
    ) {
        let input: Vec<usize> = [2, channels].into_iter().chain(spatial.iter().map(|s| s.0)).collect();
        let filter: Vec<usize> = [filters, channels].into_iter().chain(spatial.iter().map(|s| s.1)).collect();
        let padding: Vec<(i64, i64)> = if auto_padding { vec![] } else { spatial.iter().map(|s| (s.2, s.3)).collect() };
        let stride: Vec<i64> = spatial.iter().map(|s| s.4).collect();
        let dilation: Vec<i64> = spatial.iter().map(|s| s.5).collect();
        let conv_args = |x: &str, w: &str| vec![
            ("input", t(x)), ("filter", t(w)), ("bias", Value::Scalar(0.0)), ("border", s("constant")),
            ("padding", pads(&padding)), ("stride", ints(&stride)), ("dilation", ints(&dilation)),
        ];
        let shapes = tensor_shapes(&[("x", &input), ("w", &filter)]);
        let mut args = conv_args("x", "w");
        args.push(("groups", Value::Integer(1)));
        let result = infer(&op("conv", args), &shapes);
        // a conv fails only where a padded extent is smaller than the dilated window
        prop_assume!(result.is_ok());
        let output = one(result);
        let shapes = tensor_shapes(&[("y", &output), ("w", &filter)]);
        let mut args = conv_args("y", "w");
        let target: Vec<i64> = input.iter().map(|&e| e as i64).collect();
        args.push(("output_shape", ints(&target)));
        args.push(("groups", Value::Integer(1)));
        prop_assert_eq!(one(infer(&op("deconv", args), &shapes)), input);
    }

    /// Broadcasting is symmetric, and a shape broadcast against itself or against `[]` is
    /// unchanged.
    #[test]
    fn broadcasting_is_symmetric(a in prop::collection::vec(1usize..4, 0..5), b in prop::collection::vec(1usize..4, 0..5)) {
        let shapes = tensor_shapes(&[("a", &a), ("b", &b)]);
        let add = |x, y| infer(&op("add", vec![("x", t(x)), ("y", t(y))]), &shapes);
        prop_assert_eq!(add("a", "b").is_ok(), add("b", "a").is_ok());
        if let (Ok(ab), Ok(ba)) = (add("a", "b"), add("b", "a")) {
            prop_assert_eq!(ab, ba);
        }
        prop_assert_eq!(one(add("a", "a")), a.clone());
        prop_assert_eq!(one(infer(&op("mul", vec![("x", t("a")), ("y", Value::Scalar(2.0))]), &shapes)), a);
    }

    /// Flattening with `[-1]` and reshaping back restores the shape; slicing a whole axis with
    /// stride 1 or -1 keeps it; splitting then concatenating restores the extent.
    #[test]
    fn shape_round_trips(shape in prop::collection::vec(1usize..6, 1..5), axis_pick in 0usize..8, parts in 1i64..4) {
        let axis = axis_pick % shape.len();
        let shapes = tensor_shapes(&[("x", &shape)]);
        let flat = one(infer(&op("reshape", vec![("input", t("x")), ("shape", ints(&[-1])),
            ("axis_start", Value::Integer(0)), ("axis_count", Value::Integer(-1))]), &shapes));
        prop_assert_eq!(flat.clone(), vec![shape.iter().product::<usize>()]);
        let back: Vec<i64> = shape.iter().map(|&e| e as i64).collect();
        let flat_shapes = tensor_shapes(&[("f", &flat)]);
        let restored = one(infer(&op("reshape", vec![("input", t("f")), ("shape", ints(&back)),
            ("axis_start", Value::Integer(0)), ("axis_count", Value::Integer(-1))]), &flat_shapes));
        prop_assert_eq!(&restored, &shape);
        for (begin, end, stride) in [(0, shape[axis] as i64, 1), (-1, -(shape[axis] as i64) - 1, -1)] {
            let sliced = one(infer(&op("slice", vec![("input", t("x")), ("axes", ints(&[axis as i64])),
                ("begin", ints(&[begin])), ("end", ints(&[end])), ("stride", ints(&[stride]))]), &shapes));
            prop_assert_eq!(&sliced, &shape);
        }
        let mut whole = shape.clone();
        whole[axis] *= parts as usize;
        let whole_shapes = tensor_shapes(&[("w", &whole)]);
        let ratios: Vec<i64> = (0..parts).map(|_| shape[axis] as i64).collect();
        let split = infer(&op("split", vec![("value", t("w")), ("axis", Value::Integer(axis as i64)), ("ratios", ints(&ratios))]), &whole_shapes);
        let Ok(pieces) = split else { return Err(TestCaseError::fail("split failed")) };
        let ResultShape::Array(items) = &pieces[0] else { return Err(TestCaseError::fail("not an array")) };
        prop_assert!(items.iter().all(|i| i == &shape));
    }
}
