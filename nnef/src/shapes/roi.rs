//! Region-of-interest operations (NNEF 1.0.5 §4.6): `avg_roi_pool`, `max_roi_pool`
//! (§4.6.1) and `roi_resample` (§4.6.2).
//!
//! With `input` of shape `[B, C, spatial...]` (M spatial dimensions) and N RoIs: `rois` must be
//! `[N, 2*M]`, `batch_index` must hold N items (`[N]`, as the Khronos tools require, or
//! `[N, 1]`, as the specification text writes it), and `output_size` must have M strictly
//! positive items. The output is `[N, C, output_size...]`.

use super::args::{fmt_shape, Ctx};

/// The shared shape rule of the three RoI primitives.
pub(crate) fn roi(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let rois = ctx.tensor("rois")?;
    let batch_index = ctx.tensor("batch_index")?;
    let output_size = ctx.integers("output_size")?;
    if ctx.has("method") {
        ctx.one_of("method", &["symmetric", "asymmetric", "aligned"])?;
    }
    if input.len() < 2 {
        return Err(ctx.err(format!(
            "'input' must have batch and channel dimensions (rank >= 2), found shape {}",
            fmt_shape(&input)
        )));
    }
    let spatial = input.len() - 2;
    ctx.check_len(
        "output_size",
        output_size.len(),
        spatial,
        "the number of spatial dimensions",
        false,
    )?;
    ctx.check_min("output_size", &output_size, 1)?;
    if rois.len() != 2 || rois[1] != 2 * spatial {
        return Err(ctx.err(format!(
            "'rois' must have shape [N,{}] (two coordinates per spatial dimension), found {}",
            2 * spatial,
            fmt_shape(&rois)
        )));
    }
    let n = rois[0];
    let index_ok = match batch_index.as_slice() {
        [k] => *k == n,
        [k, 1] => *k == n,
        _ => false,
    };
    if !index_ok {
        return Err(ctx.err(format!(
            "'batch_index' must have shape [{n}] or [{n},1] to match 'rois' {}, found {}",
            fmt_shape(&rois),
            fmt_shape(&batch_index)
        )));
    }
    let mut output = vec![n, input[1]];
    for &s in &output_size {
        output.push(ctx.extent(s as i128, "'output_size' item")?);
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use crate::graph::Value;
    use crate::shapes::infer;
    use crate::shapes::testing::{ints, one, op, t, tensor_shapes};

    fn run(
        name: &str,
        rois: &[usize],
        index: &[usize],
        size: &[i64],
    ) -> Result<Vec<usize>, String> {
        let shapes = tensor_shapes(&[("x", &[2, 16, 32, 32]), ("r", rois), ("i", index)]);
        let mut args = vec![
            ("input", t("x")),
            ("rois", t("r")),
            ("batch_index", t("i")),
            ("output_size", ints(size)),
        ];
        if name == "roi_resample" {
            args.push(("method", Value::String("symmetric".into())));
        }
        infer(&op(name, args), &shapes).map(|r| one(Ok(r)))
    }

    #[test]
    fn output_is_rois_by_channels_by_size() {
        assert_eq!(
            run("avg_roi_pool", &[5, 4], &[5], &[7, 7]).unwrap(),
            vec![5, 16, 7, 7]
        );
        assert_eq!(
            run("max_roi_pool", &[5, 4], &[5, 1], &[3, 2]).unwrap(),
            vec![5, 16, 3, 2]
        );
        assert_eq!(
            run("roi_resample", &[1, 4], &[1], &[14, 14]).unwrap(),
            vec![1, 16, 14, 14]
        );
    }

    #[test]
    fn errors() {
        assert!(run("avg_roi_pool", &[5, 3], &[5], &[7, 7])
            .unwrap_err()
            .contains("'rois' must have shape [N,4]"));
        assert!(run("avg_roi_pool", &[5, 4], &[4], &[7, 7])
            .unwrap_err()
            .contains("'batch_index' must have shape [5]"));
        assert!(run("avg_roi_pool", &[5, 4], &[5], &[7])
            .unwrap_err()
            .contains("length of 'output_size' must be 2"));
        assert!(run("avg_roi_pool", &[5, 4], &[5], &[7, 0])
            .unwrap_err()
            .contains("strictly positive"));
    }
}
