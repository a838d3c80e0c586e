//! Matrix multiplication (NNEF 1.0.5 §4.7): `matmul`.

use super::args::{fmt_shape, Ctx};
use super::elementwise::broadcast;

/// `matmul`: `A` and `B` must have one rank `r >= 2`; the first `r - 2` dimensions are batch
/// dimensions and broadcast as for binary operations (§4.2.2); with `A' = A^T` when
/// `transposeA` (and `B'` likewise), `A'` is `[m, k]`, `B'` is `[k, n]` and `C` is
/// `[batch..., m, n]`.
///
/// Errors: ranks differ or are below 2, batch dimensions that do not broadcast, inner extents
/// that differ.
pub(crate) fn matmul(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let a = ctx.tensor("A")?;
    let b = ctx.tensor("B")?;
    let transpose_a = ctx.logical("transposeA")?;
    let transpose_b = ctx.logical("transposeB")?;
    if a.len() != b.len() {
        return Err(ctx.err(format!(
            "ranks of 'A' {} and 'B' {} differ",
            fmt_shape(&a),
            fmt_shape(&b)
        )));
    }
    let rank = a.len();
    if rank < 2 {
        return Err(ctx.err(format!(
            "rank of 'A' and 'B' must be at least 2, found {}",
            fmt_shape(&a)
        )));
    }
    let (a_rows, a_cols) = (a[rank - 2], a[rank - 1]);
    let (b_rows, b_cols) = (b[rank - 2], b[rank - 1]);
    let (m, k_a) = if transpose_a {
        (a_cols, a_rows)
    } else {
        (a_rows, a_cols)
    };
    let (k_b, n) = if transpose_b {
        (b_cols, b_rows)
    } else {
        (b_rows, b_cols)
    };
    if k_a != k_b {
        return Err(ctx.err(format!(
            "inner dimensions differ: {k_a} of 'A' {} (transposeA = {transpose_a}) vs {k_b} of 'B' {} (transposeB = {transpose_b})",
            fmt_shape(&a),
            fmt_shape(&b)
        )));
    }
    let mut output = broadcast(ctx, "A", &a[..rank - 2], "B", &b[..rank - 2])?;
    output.extend([m, n]);
    Ok(output)
}

#[cfg(test)]
mod tests {
    use crate::graph::Value;
    use crate::shapes::infer;
    use crate::shapes::testing::{one, op, t, tensor_shapes};

    fn matmul(a: &[usize], b: &[usize], ta: bool, tb: bool) -> Result<Vec<usize>, String> {
        let shapes = tensor_shapes(&[("a", a), ("b", b)]);
        infer(
            &op(
                "matmul",
                vec![
                    ("A", t("a")),
                    ("B", t("b")),
                    ("transposeA", Value::Logical(ta)),
                    ("transposeB", Value::Logical(tb)),
                ],
            ),
            &shapes,
        )
        .map(|r| one(Ok(r)))
    }

    #[test]
    fn the_four_transpositions() {
        assert_eq!(matmul(&[2, 3], &[3, 5], false, false).unwrap(), vec![2, 5]);
        assert_eq!(matmul(&[2, 3], &[5, 3], false, true).unwrap(), vec![2, 5]);
        assert_eq!(matmul(&[3, 2], &[3, 5], true, false).unwrap(), vec![2, 5]);
        assert_eq!(matmul(&[3, 2], &[5, 3], true, true).unwrap(), vec![2, 5]);
    }

    #[test]
    fn batch_dimensions_broadcast() {
        // tvm-cases/matmul_4d_transpose: [4,16,32,64] x [4,16,32,64]^T... (see the json sweep)
        assert_eq!(
            matmul(&[4, 1, 8, 3], &[1, 6, 3, 2], false, false).unwrap(),
            vec![4, 6, 8, 2]
        );
        let err = matmul(&[4, 2, 8, 3], &[3, 2, 3, 2], false, false).unwrap_err();
        assert!(err.contains("dimension 0 (4 vs 3)"), "{err}");
    }

    #[test]
    fn errors() {
        assert!(matmul(&[2, 3], &[4, 5], false, false)
            .unwrap_err()
            .contains("inner dimensions differ: 3"));
        assert!(matmul(&[2, 3, 4], &[4, 5], false, false)
            .unwrap_err()
            .contains("ranks"));
        assert!(matmul(&[3], &[3], false, false)
            .unwrap_err()
            .contains("at least 2"));
    }
}
