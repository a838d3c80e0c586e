//! Reduce operations (NNEF 1.0.5 §4.4): `sum_reduce`, `max_reduce`, `min_reduce`,
//! `argmax_reduce`, `argmin_reduce`, `any_reduce`, `all_reduce`.
//!
//! Items of `axes` must be unique, non-negative and less than the rank of `input`; the output
//! has the rank of `input`, extent 1 along `axes` and the input's extent elsewhere.

use super::args::Ctx;

/// The reduced shape of `input` along `axes`.
pub(crate) fn reduce(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let axes = ctx.integers("axes")?;
    let axes = ctx.unique_axes("axes", &axes, input.len())?;
    let mut output = input;
    for axis in axes {
        output[axis] = 1;
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use crate::graph::Value;
    use crate::shapes::infer;
    use crate::shapes::testing::{ints, one, op, t, tensor_shapes};

    #[test]
    fn reduced_axes_become_one() {
        let shapes = tensor_shapes(&[("a", &[4, 16, 32, 32])]);
        let run = |name: &str, axes: &[i64]| {
            let mut args = vec![("input", t("a")), ("axes", ints(axes))];
            if name == "sum_reduce" {
                args.push(("normalize", Value::Logical(true)));
            }
            infer(&op(name, args), &shapes)
        };
        // tvm-cases *_reduce_channel and *_reduce_spatial
        assert_eq!(one(run("sum_reduce", &[1])), vec![4, 1, 32, 32]);
        assert_eq!(one(run("argmax_reduce", &[2, 3])), vec![4, 16, 1, 1]);
        assert_eq!(one(run("any_reduce", &[])), vec![4, 16, 32, 32]);
        assert_eq!(one(run("min_reduce", &[3, 0])), vec![1, 16, 32, 1]);
    }

    #[test]
    fn bad_axes_are_errors() {
        let shapes = tensor_shapes(&[("a", &[4, 16])]);
        let run = |axes: &[i64]| {
            infer(
                &op("max_reduce", vec![("input", t("a")), ("axes", ints(axes))]),
                &shapes,
            )
        };
        assert!(run(&[2])
            .unwrap_err()
            .contains("'axes' must be in range [0,2), found 2"));
        assert!(run(&[-1]).unwrap_err().contains("found -1"));
        assert!(run(&[1, 1]).unwrap_err().contains("must not repeat axis 1"));
    }
}
