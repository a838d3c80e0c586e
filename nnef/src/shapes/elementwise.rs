//! Element-wise operations (NNEF 1.0.5 §4.2): unary, binary (with broadcasting), `select`,
//! plus `copy`, `cast` (§4.5.8) and `update` (§4.8), which keep their argument's shape.
//!
//! Broadcasting aligns shapes from the LEFT: a missing trailing dimension counts as 1, so
//! `[1,64]` broadcasts against `[N,64,H,W]`.

use super::args::{fmt_shape, Ctx};

/// Unary operations (§4.2.1): `y` has the shape of `x`. Parameter names: `x` for the
/// arithmetic and logical ones, `input` for `cast`.
pub(crate) fn unary(ctx: &Ctx, param: &str) -> Result<Vec<usize>, String> {
    ctx.tensor(param)
}

/// The broadcast of `a` and `b` (§4.2.2): the rank is the larger rank; in each dimension the
/// extents must be equal or one of them 1 (missing trailing dimensions count as 1), and the
/// result takes the non-singular extent.
///
/// Errors name `a_name`/`b_name` and the first dimension where the rule fails.
pub(crate) fn broadcast(
    ctx: &Ctx,
    a_name: &str,
    a: &[usize],
    b_name: &str,
    b: &[usize],
) -> Result<Vec<usize>, String> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let x = a.get(i).copied().unwrap_or(1);
            let y = b.get(i).copied().unwrap_or(1);
            if x == y || y == 1 {
                Ok(x)
            } else if x == 1 {
                Ok(y)
            } else {
                Err(ctx.err(format!(
                    "shapes of '{a_name}' {} and '{b_name}' {} are not broadcast-compatible in dimension {i} ({x} vs {y})",
                    fmt_shape(a),
                    fmt_shape(b)
                )))
            }
        })
        .collect()
}

/// Binary operations (§4.2.2, `x`, `y` -> `z`): the broadcast of the two shapes.
pub(crate) fn binary(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let x = ctx.tensor("x")?;
    let y = ctx.tensor("y")?;
    broadcast(ctx, "x", &x, "y", &y)
}

/// `select` (§4.2.3): the broadcast of `condition`, `true_value` and `false_value`.
pub(crate) fn select(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let c = ctx.tensor("condition")?;
    let t = ctx.tensor("true_value")?;
    let f = ctx.tensor("false_value")?;
    let values = broadcast(ctx, "true_value", &t, "false_value", &f)?;
    broadcast(ctx, "condition", &c, "true_value/false_value", &values)
}

/// `update` (§4.8): `value` must have exactly the shape of `variable`; `result` has it too.
pub(crate) fn update(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let variable = ctx.tensor("variable")?;
    let value = ctx.tensor("value")?;
    if value != variable {
        return Err(ctx.err(format!(
            "shape of 'value' {} does not equal shape of 'variable' {}",
            fmt_shape(&value),
            fmt_shape(&variable)
        )));
    }
    Ok(variable)
}

#[cfg(test)]
mod tests {
    use crate::shapes::infer;
    use crate::shapes::testing::{one, op, t, tensor_shapes};

    #[test]
    fn unary_keeps_shape() {
        let shapes = tensor_shapes(&[("a", &[4, 16, 32, 32])]);
        for name in ["exp", "neg", "abs", "floor", "copy", "not", "acosh"] {
            assert_eq!(
                one(infer(&op(name, vec![("x", t("a"))]), &shapes)),
                vec![4, 16, 32, 32]
            );
        }
        assert_eq!(
            one(infer(&op("cast", vec![("input", t("a"))]), &shapes)),
            vec![4, 16, 32, 32]
        );
    }

    #[test]
    fn binary_broadcasts_from_the_left() {
        let shapes = tensor_shapes(&[("a", &[4, 16, 32, 32]), ("b", &[1, 16]), ("c", &[4, 8])]);
        let add = |x, y| infer(&op("add", vec![("x", x), ("y", y)]), &shapes);
        assert_eq!(one(add(t("a"), t("b"))), vec![4, 16, 32, 32]);
        assert_eq!(one(add(t("b"), t("a"))), vec![4, 16, 32, 32]);
        assert_eq!(
            one(add(t("a"), crate::graph::Value::Scalar(1.0))),
            vec![4, 16, 32, 32]
        );
        let err = add(t("a"), t("c")).unwrap_err();
        assert!(
            err.contains("add:") && err.contains("dimension 1 (16 vs 8)"),
            "{err}"
        );
        let lt = infer(&op("lt", vec![("x", t("c")), ("y", t("b"))]), &shapes);
        assert!(lt.unwrap_err().contains("dimension 1 (8 vs 16)"));
    }

    #[test]
    fn zero_extents_broadcast_against_one() {
        let shapes = tensor_shapes(&[("a", &[0, 3]), ("b", &[1, 3])]);
        assert_eq!(
            one(infer(
                &op("mul", vec![("x", t("a")), ("y", t("b"))]),
                &shapes
            )),
            vec![0, 3]
        );
    }

    #[test]
    fn select_broadcasts_three_ways() {
        let shapes = tensor_shapes(&[
            ("c", &[4, 1, 32]),
            ("t", &[1, 16]),
            ("f", &[4, 16, 1]),
            ("g", &[3]),
        ]);
        let sel = |c, f| {
            infer(
                &op(
                    "select",
                    vec![("condition", c), ("true_value", t("t")), ("false_value", f)],
                ),
                &shapes,
            )
        };
        assert_eq!(one(sel(t("c"), t("f"))), vec![4, 16, 32]);
        assert!(sel(t("c"), t("g")).unwrap_err().contains("select:"));
    }

    #[test]
    fn update_requires_equal_shapes() {
        let shapes = tensor_shapes(&[("v", &[2, 3]), ("w", &[2, 3]), ("u", &[3, 2])]);
        assert_eq!(
            one(infer(
                &op("update", vec![("variable", t("v")), ("value", t("w"))]),
                &shapes
            )),
            vec![2, 3]
        );
        let err = infer(
            &op("update", vec![("variable", t("v")), ("value", t("u"))]),
            &shapes,
        )
        .unwrap_err();
        assert!(err.contains("[3,2]") && err.contains("[2,3]"), "{err}");
    }
}
