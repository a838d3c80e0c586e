//! Unit tests of the tensor shape operations: expected shapes are the Khronos parser's for the
//! tvm-cases graphs (khronos-parser-shapes.json) and hand-computed ones from §4.5.

use crate::graph::Value;
use crate::shapes::testing::{ints, one, op, pads, s, t, tensor_shapes};
use crate::shapes::{infer, ResultShape};

fn run(name: &str, input: &[usize], args: Vec<(&str, Value)>) -> Result<Vec<usize>, String> {
    let shapes = tensor_shapes(&[("x", input)]);
    let mut all = vec![("input", t("x"))];
    all.extend(args);
    infer(&op(name, all), &shapes).map(|r| one(Ok(r)))
}

fn reshape(input: &[usize], shape: &[i64], start: i64, count: i64) -> Result<Vec<usize>, String> {
    run(
        "reshape",
        input,
        vec![
            ("shape", ints(shape)),
            ("axis_start", Value::Integer(start)),
            ("axis_count", Value::Integer(count)),
        ],
    )
}

#[test]
fn reshape_rules() {
    assert_eq!(
        reshape(&[4, 16, 32, 32], &[0, -1], 0, -1).unwrap(),
        vec![4, 16384]
    ); // reshape_flatten
    assert_eq!(
        reshape(&[2, 3, 3, 3, 2], &[0, -1], 1, 3).unwrap(),
        vec![2, 3, 9, 2]
    ); // reshape_partial
    assert_eq!(
        reshape(&[4, 16, 1, 1], &[4, 16], 0, -1).unwrap(),
        vec![4, 16]
    ); // reshape_squeeze
    assert_eq!(reshape(&[2, 3], &[1], 2, 0).unwrap(), vec![2, 3, 1]); // insert at the end
    assert_eq!(reshape(&[2, 3, 4], &[], 1, 0).unwrap(), vec![2, 3, 4]);
    assert!(reshape(&[2, 3], &[5], 0, -1)
        .unwrap_err()
        .contains("volume 5 of 'shape' [5] != volume 6"));
    assert!(reshape(&[2, 3], &[4, -1], 0, -1)
        .unwrap_err()
        .contains("does not divide the volume 6"));
    assert!(reshape(&[2, 3], &[-1, -1], 0, -1)
        .unwrap_err()
        .contains("at most one -1"));
    assert!(reshape(&[2, 3], &[-2, 3], 0, -1)
        .unwrap_err()
        .contains(">= -1"));
    assert!(reshape(&[2, 3], &[6], 3, -1)
        .unwrap_err()
        .contains("'axis_start' must be in range [0,3)"));
    assert!(reshape(&[2, 3], &[6], 1, 2)
        .unwrap_err()
        .contains("must be at most the rank 2"));
    assert!(reshape(&[2, 3], &[6], 0, -2)
        .unwrap_err()
        .contains("non-negative or -1"));
    assert!(reshape(&[2, 3], &[1, 0, 0], 1, 1)
        .unwrap_err()
        .contains("no dimension 2 to copy"));
    assert!(reshape(&[usize::MAX, 4], &[-1], 0, -1)
        .unwrap_err()
        .contains("inferred extent overflows"));
}

#[test]
fn squeeze_unsqueeze_transpose() {
    let axes = |a: &[i64]| vec![("axes", ints(a))];
    assert_eq!(
        run("squeeze", &[4, 16, 1, 1], axes(&[2, 3])).unwrap(),
        vec![4, 16]
    );
    assert!(run("squeeze", &[4, 16, 1, 1], axes(&[1]))
        .unwrap_err()
        .contains("dimension 1 of 'input' [4,16,1,1] is not singleton"));
    assert!(run("squeeze", &[4, 1], axes(&[1, 1]))
        .unwrap_err()
        .contains("must not repeat"));
    assert_eq!(
        run("unsqueeze", &[4, 16], axes(&[2, 3])).unwrap(),
        vec![4, 16, 1, 1]
    );
    // axes are output positions, whatever their order
    assert_eq!(
        run("unsqueeze", &[2, 3], axes(&[2, 0])).unwrap(),
        vec![1, 2, 1, 3]
    );
    assert!(run("unsqueeze", &[2, 3], axes(&[4]))
        .unwrap_err()
        .contains("range [0,3)"));
    assert_eq!(
        run("transpose", &[4, 16, 32, 32], axes(&[0, 2, 3, 1])).unwrap(),
        vec![4, 32, 32, 16]
    );
    assert_eq!(
        run("transpose", &[4, 32, 32, 16], axes(&[0, 3, 1, 2])).unwrap(),
        vec![4, 16, 32, 32]
    );
    assert_eq!(
        run("transpose", &[2, 3, 5, 7], axes(&[1, 0])).unwrap(),
        vec![3, 2, 5, 7]
    ); // shorter axes
    assert!(run("transpose", &[2, 3], axes(&[0, 2]))
        .unwrap_err()
        .contains("permutation of 0..2"));
    assert!(run("transpose", &[2, 3], axes(&[1, 1]))
        .unwrap_err()
        .contains("permutation"));
    assert!(run("transpose", &[2], axes(&[1, 0]))
        .unwrap_err()
        .contains("exceeds the rank"));
}

fn arrays(name: &str, shapes_in: &[&[usize]], axis: i64) -> Result<Vec<usize>, String> {
    let names: Vec<String> = (0..shapes_in.len()).map(|i| format!("v{i}")).collect();
    let table: Vec<(&str, &[usize])> = names
        .iter()
        .map(String::as_str)
        .zip(shapes_in.iter().copied())
        .collect();
    let shapes = tensor_shapes(&table);
    let values = Value::Array(names.iter().map(|n| t(n)).collect());
    infer(
        &op(
            name,
            vec![("values", values), ("axis", Value::Integer(axis))],
        ),
        &shapes,
    )
    .map(|r| one(Ok(r)))
}

#[test]
fn concat_and_stack() {
    assert_eq!(
        arrays("concat", &[&[4, 16, 32, 32], &[4, 16, 32, 32]], 1).unwrap(),
        vec![4, 32, 32, 32]
    );
    assert_eq!(
        arrays("concat", &[&[2, 3], &[2, 5], &[2, 1]], 1).unwrap(),
        vec![2, 9]
    );
    assert!(arrays("concat", &[&[2, 3], &[3, 3]], 1)
        .unwrap_err()
        .contains("values[1] [3,3] does not match values[0] [2,3]"));
    assert!(arrays("concat", &[&[2, 3], &[2, 3, 1]], 0)
        .unwrap_err()
        .contains("values[1]"));
    assert!(arrays("concat", &[], 0).unwrap_err().contains("non-empty"));
    assert!(arrays("concat", &[&[2, 3]], 2)
        .unwrap_err()
        .contains("'axis' must be in range [0,2)"));
    assert_eq!(
        arrays("stack", &[&[4, 16, 32, 32], &[4, 16, 32, 32]], 1).unwrap(),
        vec![4, 2, 16, 32, 32]
    );
    assert_eq!(
        arrays("stack", &[&[2usize, 3][..]; 3], 2).unwrap(),
        vec![2, 3, 3]
    );
    assert!(arrays("stack", &[&[2, 3], &[2, 4]], 0)
        .unwrap_err()
        .contains("differs"));
    assert!(arrays("stack", &[&[2, 3]], 3)
        .unwrap_err()
        .contains("range [0,3)"));
}

fn multi(name: &str, input: &[usize], args: Vec<(&str, Value)>) -> Result<Vec<Vec<usize>>, String> {
    let shapes = tensor_shapes(&[("x", input)]);
    let mut all = vec![("value", t("x"))];
    all.extend(args);
    match infer(&op(name, all), &shapes)?.as_slice() {
        [ResultShape::Array(items)] => Ok(items.clone()),
        other => panic!("expected one array result, got {other:?}"),
    }
}

#[test]
fn split_and_unstack() {
    let split = |input: &[usize], axis: i64, ratios: &[i64]| {
        multi(
            "split",
            input,
            vec![("axis", Value::Integer(axis)), ("ratios", ints(ratios))],
        )
    };
    assert_eq!(
        split(&[4, 32, 3], 1, &[3, 1, 4]).unwrap(),
        vec![vec![4, 12, 3], vec![4, 4, 3], vec![4, 16, 3]]
    );
    assert_eq!(
        split(&[4, 16, 32, 32], 1, &[1, 1]).unwrap(),
        vec![vec![4, 8, 32, 32]; 2]
    );
    assert!(split(&[4, 30, 3], 1, &[3, 1, 4])
        .unwrap_err()
        .contains("sum of 'ratios' 8 does not divide the extent 30"));
    assert!(split(&[4, 32], 1, &[0, 4])
        .unwrap_err()
        .contains("strictly positive"));
    assert!(split(&[4, 32], 1, &[]).unwrap_err().contains("non-empty"));
    assert!(split(&[4, 32], 2, &[1])
        .unwrap_err()
        .contains("range [0,2)"));
    let unstack =
        |input: &[usize], axis: i64| multi("unstack", input, vec![("axis", Value::Integer(axis))]);
    assert_eq!(unstack(&[4, 3, 16], 1).unwrap(), vec![vec![4, 16]; 3]);
    assert!(unstack(&[4, 3, 16], 3).unwrap_err().contains("range [0,3)"));
    assert!(unstack(&[1, usize::MAX], 1)
        .unwrap_err()
        .contains("exceeds the supported 65536 results"));
}

fn slice(
    input: &[usize],
    axes: &[i64],
    begin: &[i64],
    end: &[i64],
    stride: &[i64],
) -> Result<Vec<usize>, String> {
    run(
        "slice",
        input,
        vec![
            ("axes", ints(axes)),
            ("begin", ints(begin)),
            ("end", ints(end)),
            ("stride", ints(stride)),
        ],
    )
}

#[test]
fn slice_rules() {
    let x = &[4, 16, 32, 32];
    assert_eq!(
        slice(x, &[2, 3], &[1, 2], &[-1, -2], &[]).unwrap(),
        vec![4, 16, 30, 28]
    ); // slice
    assert_eq!(
        slice(x, &[1, 2, 3], &[5, 16, 2], &[1, 4, -1], &[-1, -1, 1]).unwrap(),
        vec![4, 4, 12, 29]
    ); // slice_strides
       // end = 0 means "to the end" only when every stride is 1
    assert_eq!(
        slice(x, &[1], &[4], &[0], &[]).unwrap(),
        vec![4, 12, 32, 32]
    );
    assert_eq!(
        slice(x, &[1, 2], &[4, 0], &[0, 32], &[1, 1]).unwrap(),
        vec![4, 12, 32, 32]
    );
    assert!(slice(x, &[1, 2], &[4, 0], &[0, 32], &[1, 2])
        .unwrap_err()
        .contains("invalid for axis 1"));
    // out-of-range items clamp to [-1, extent]
    assert_eq!(
        slice(x, &[1], &[0], &[100], &[]).unwrap(),
        vec![4, 16, 32, 32]
    );
    assert_eq!(
        slice(x, &[1], &[-16], &[16], &[]).unwrap(),
        vec![4, 16, 32, 32]
    );
    assert!(slice(x, &[1], &[-100], &[3], &[])
        .unwrap_err()
        .contains("clamped to -1:3"));
    assert!(slice(x, &[1], &[-17], &[100], &[])
        .unwrap_err()
        .contains("clamped to -1:16"));
    // reversed full range: begin = extent - 1, end below 0 clamps to -1
    assert_eq!(
        slice(x, &[1], &[-1], &[-100], &[-1]).unwrap(),
        vec![4, 16, 32, 32]
    );
    assert_eq!(
        slice(x, &[1], &[15], &[-17], &[-3]).unwrap(),
        vec![4, 6, 32, 32]
    );
    // strides round the count up
    assert_eq!(
        slice(x, &[3], &[0], &[5], &[2]).unwrap(),
        vec![4, 16, 32, 3]
    );
    assert_eq!(slice(x, &[3], &[3], &[3], &[]).unwrap(), vec![4, 16, 32, 0]);
    assert!(slice(x, &[3], &[5], &[3], &[])
        .unwrap_err()
        .contains("slice range 5:3:1"));
    assert!(slice(x, &[3], &[32], &[3], &[-1])
        .unwrap_err()
        .contains("invalid for axis 3"));
    assert!(slice(x, &[3], &[0], &[3], &[0])
        .unwrap_err()
        .contains("non-zero"));
    assert!(slice(x, &[3], &[0, 1], &[3], &[])
        .unwrap_err()
        .contains("length of 'begin' must be 1"));
    assert!(slice(x, &[3], &[0], &[3], &[1, 1])
        .unwrap_err()
        .contains("length of 'stride' must be 1"));
    assert!(slice(x, &[4], &[0], &[3], &[])
        .unwrap_err()
        .contains("range [0,4)"));
    assert_eq!(
        slice(x, &[3], &[0], &[i64::MAX], &[i64::MAX]).unwrap(),
        vec![4, 16, 32, 1]
    );
    assert_eq!(
        slice(x, &[3], &[-1], &[i64::MIN], &[i64::MIN]).unwrap(),
        vec![4, 16, 32, 1]
    );
    assert!(slice(x, &[3], &[i64::MAX], &[i64::MIN], &[-1])
        .unwrap_err()
        .contains("clamped to 32:-1"));
    assert!(slice(x, &[3], &[i64::MIN], &[i64::MAX], &[1]).is_err());
}

#[test]
fn tile_pad_gather() {
    assert_eq!(
        run("tile", &[1, 16], vec![("repeats", ints(&[16, 1]))]).unwrap(),
        vec![16, 16]
    );
    assert_eq!(
        run(
            "tile",
            &[4, 16, 32, 32],
            vec![("repeats", ints(&[1, 1, 3, 3]))]
        )
        .unwrap(),
        vec![4, 16, 96, 96]
    );
    assert!(run("tile", &[4, 16], vec![("repeats", ints(&[1]))])
        .unwrap_err()
        .contains("length of 'repeats' must be 2"));
    assert!(run("tile", &[4, 16], vec![("repeats", ints(&[1, 0]))])
        .unwrap_err()
        .contains("strictly positive"));
    let tile_huge = run(
        "tile",
        &[usize::MAX, 16],
        vec![("repeats", ints(&[i64::MAX, 1]))],
    );
    assert!(tile_huge.unwrap_err().contains("overflows"));

    let pad = |padding: &[(i64, i64)], border: &str| {
        run(
            "pad",
            &[1, 16, 32, 32],
            vec![
                ("padding", pads(padding)),
                ("border", s(border)),
                ("value", Value::Scalar(0.0)),
            ],
        )
    };
    assert_eq!(
        pad(&[(0, 0), (0, 0), (0, 1), (0, 1)], "reflect").unwrap(),
        vec![1, 16, 33, 33]
    );
    assert_eq!(
        pad(&[(0, 0), (0, 0), (1, 1), (1, 1)], "replicate").unwrap(),
        vec![1, 16, 34, 34]
    );
    assert_eq!(
        pad(&[(0, 0), (0, 0), (-1, -2), (0, 0)], "constant").unwrap(),
        vec![1, 16, 29, 32]
    );
    assert!(pad(&[(0, 0), (0, 0), (-20, -20), (0, 0)], "constant")
        .unwrap_err()
        .contains("dimension 2 would be negative"));
    assert!(pad(&[(0, 0)], "constant")
        .unwrap_err()
        .contains("length of 'padding' must be 4"));
    assert!(pad(&[(0, 0); 4], "wrap").unwrap_err().contains("'border'"));

    let shapes = tensor_shapes(&[("x", &[5, 6, 7]), ("i", &[2, 3])]);
    let gather = |indices: Value, axis: i64| {
        infer(
            &op(
                "gather",
                vec![
                    ("input", t("x")),
                    ("indices", indices),
                    ("axis", Value::Integer(axis)),
                ],
            ),
            &shapes,
        )
        .map(|r| one(Ok(r)))
    };
    assert_eq!(gather(t("i"), 0).unwrap(), vec![2, 3, 6, 7]);
    assert_eq!(gather(t("i"), 1).unwrap(), vec![5, 2, 3, 7]);
    assert_eq!(gather(t("i"), 2).unwrap(), vec![5, 6, 2, 3]);
    assert_eq!(gather(Value::Integer(1), 1).unwrap(), vec![5, 7]); // a literal index has shape []
    assert!(gather(t("i"), 3).unwrap_err().contains("range [0,3)"));
}
