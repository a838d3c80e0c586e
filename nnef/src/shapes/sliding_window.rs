//! Sliding-window operations (NNEF 1.0.5 §4.3): `conv`/`deconv` (§4.3.1), `box`/`debox`
//! (§4.3.2), `argmax_pool`, `sample`/`desample` (§4.3.3) and `multilinear_upsample` (§4.3.4).
//!
//! Output shape calculation (§4.3), per dimension with up-scaled extent `X`, down-scaled extent
//! `x`, window size `f`, padding `(p,q)`, stride `s`, dilation `d` and dilated window
//! `fd = (f-1)*d + 1`:
//! - down-scaling (basic operations): `x = floor((p + X + q - fd) / s) + 1`, where
//!   `p + X + q >= fd` must hold; with automatic padding (`padding = []`): `x = ceil(X / s)`;
//! - up-scaling (reverse operations): `X = (x - 1)*s + fd - (p + q)`; with automatic padding
//!   `X = x * s`;
//! - a non-empty `output_shape` of a reverse operation is the result, and down-scaling it must
//!   give the input shape.
//!
//! `stride` and `dilation` default to 1s when empty. All arithmetic is done in `i128` on the
//! `i64` attributes, so no input overflows silently.

use super::args::{fmt_shape, Ctx};

/// Border modes of §4.3 ("Border Modes").
const ALL_BORDERS: &[&str] = &["ignore", "constant", "replicate", "reflect", "reflect-even"];
/// Border modes allowed for `conv`, `deconv` and `multilinear_upsample` (no `'ignore'`).
const FILTER_BORDERS: &[&str] = &["constant", "replicate", "reflect", "reflect-even"];

/// The window parameters of one operation over `n` dimensions, validated.
struct Window {
    /// Window extent per dimension (`size`, or the filter's spatial extents).
    size: Vec<i64>,
    /// Explicit padding per dimension, or `None` for automatic padding.
    padding: Option<Vec<(i64, i64)>>,
    /// Stride per dimension (1s when the argument is empty).
    stride: Vec<i64>,
    /// Dilation per dimension (1s when the argument is empty).
    dilation: Vec<i64>,
}

impl Window {
    /// Reads `padding`, `stride`, `dilation` for `n` dimensions (`what` says which dimensions,
    /// for messages) and checks lengths and ranges (§4.3 "Argument Validity").
    fn read(
        ctx: &Ctx,
        size: Vec<i64>,
        size_param: &str,
        n: usize,
        what: &str,
    ) -> Result<Window, String> {
        ctx.check_len(size_param, size.len(), n, what, false)?;
        ctx.check_min(size_param, &size, 1)?;
        let padding = ctx.padding("padding")?;
        let stride = ctx.integers("stride")?;
        let dilation = ctx.integers("dilation")?;
        ctx.check_len("padding", padding.len(), n, what, true)?;
        ctx.check_len("stride", stride.len(), n, what, true)?;
        ctx.check_len("dilation", dilation.len(), n, what, true)?;
        ctx.check_min("stride", &stride, 1)?;
        ctx.check_min("dilation", &dilation, 1)?;
        let ones = |v: Vec<i64>| if v.is_empty() { vec![1; n] } else { v };
        Ok(Window {
            size,
            padding: if padding.is_empty() {
                None
            } else {
                Some(padding)
            },
            stride: ones(stride),
            dilation: ones(dilation),
        })
    }

    /// The stride `s` of window dimension `i` and its dilated window `fd = (f-1)*d + 1`, or an
    /// overflow error naming `dim`.
    fn stride_and_window(&self, ctx: &Ctx, i: usize, dim: usize) -> Result<(i128, i128), String> {
        let (f, d) = (self.size[i] as i128, self.dilation[i] as i128);
        let fd = (f - 1)
            .checked_mul(d)
            .and_then(|x| x.checked_add(1))
            .ok_or_else(|| ctx.err(format!("dilated window in dimension {dim} overflows")))?;
        Ok((self.stride[i] as i128, fd))
    }

    /// The down-scaled extent of `input` extent `big` in window dimension `i`.
    fn down(&self, ctx: &Ctx, i: usize, dim: usize, big: usize) -> Result<usize, String> {
        let (s, fd) = self.stride_and_window(ctx, i, dim)?;
        let big = big as i128;
        let extent = match &self.padding {
            None => (big + s - 1) / s,
            Some(padding) => {
                let (p, q) = (padding[i].0 as i128, padding[i].1 as i128);
                let padded = p + big + q;
                if padded < fd {
                    return Err(ctx.err(format!(
                        "padded extent {p} + {big} + {q} = {padded} is smaller than the dilated window {fd} in dimension {dim}"
                    )));
                }
                (padded - fd) / s + 1
            }
        };
        ctx.extent(extent, &format!("output extent in dimension {dim}"))
    }

    /// The up-scaled extent of `input` extent `small` in window dimension `i`.
    fn up(&self, ctx: &Ctx, i: usize, dim: usize, small: usize) -> Result<usize, String> {
        let (s, fd) = self.stride_and_window(ctx, i, dim)?;
        let small = small as i128;
        let what = format!("output extent in dimension {dim}");
        let extent = match &self.padding {
            None => small.checked_mul(s),
            Some(padding) => {
                let (p, q) = (padding[i].0 as i128, padding[i].1 as i128);
                (small - 1)
                    .checked_mul(s)
                    .and_then(|x| x.checked_add(fd))
                    .and_then(|x| x.checked_sub(p + q))
            }
        }
        .ok_or_else(|| ctx.err(format!("{what} overflows")))?;
        ctx.extent(extent, &what)
    }
}

/// Reads a non-empty `output_shape` of rank `rank` (items strictly positive), or `None`.
fn output_shape(ctx: &Ctx, rank: usize) -> Result<Option<Vec<usize>>, String> {
    if !ctx.has("output_shape") {
        return Ok(None);
    }
    let shape = ctx.integers("output_shape")?;
    if shape.is_empty() {
        return Ok(None);
    }
    ctx.check_len(
        "output_shape",
        shape.len(),
        rank,
        "the rank of 'input'",
        true,
    )?;
    ctx.check_min("output_shape", &shape, 1)?;
    shape
        .iter()
        .map(|&v| ctx.extent(v as i128, "'output_shape' item"))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `conv` (`transposed = false`) and `deconv` (`transposed = true`), §4.3.1.
///
/// Input `[B, C, X...]`, filter `[c, C/G, f...]` (conv) or `[c, C/G, f...]` with `c` the input
/// channels (deconv); `groups = 0` means one group per channel (the input channels; for deconv
/// with an `output_shape`, its channel extent). Bias: every dimension except 1 (channel) must
/// be 1 and the channel extent must be the output channel count or 1.
pub(crate) fn conv(ctx: &Ctx, transposed: bool) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let filter = ctx.tensor("filter")?;
    let bias = ctx.tensor("bias")?;
    ctx.one_of("border", FILTER_BORDERS)?;
    let rank = input.len();
    if rank < 2 {
        return Err(ctx.err(format!(
            "'input' must have batch and channel dimensions (rank >= 2), found shape {}",
            fmt_shape(&input)
        )));
    }
    if filter.len() != rank {
        return Err(ctx.err(format!(
            "rank of 'filter' {} must equal rank of 'input' {}",
            fmt_shape(&filter),
            fmt_shape(&input)
        )));
    }
    let size = filter[2..]
        .iter()
        .map(|&f| i64::try_from(f).map_err(|_| ctx.err(format!("filter extent {f} overflows"))))
        .collect::<Result<Vec<i64>, String>>()?;
    let window = Window::read(
        ctx,
        size,
        "filter spatial extents",
        rank - 2,
        "the number of spatial dimensions",
    )?;
    let groups = ctx.integer("groups")?;
    if groups < 0 {
        return Err(ctx.err(format!("'groups' must be non-negative, found {groups}")));
    }
    let out_shape = output_shape(ctx, rank)?;
    let groups: usize = if groups == 0 {
        match (&out_shape, transposed) {
            (Some(shape), true) => shape[1],
            _ => input[1],
        }
    } else {
        ctx.extent(groups as i128, "'groups'")?
    };
    if groups == 0 {
        return Err(ctx.err("depth-wise 'groups' (0) resolves to 0 channels"));
    }
    if transposed {
        if filter[0] != input[1] {
            return Err(ctx.err(format!(
                "filter batch {} != input channels {}",
                filter[0], input[1]
            )));
        }
    } else if filter[1].checked_mul(groups) != Some(input[1]) {
        return Err(ctx.err(format!(
            "filter channels {} * groups {groups} != input channels {}",
            filter[1], input[1]
        )));
    }
    if filter[0] % groups != 0 {
        return Err(ctx.err(format!(
            "groups {groups} does not divide filter batch {}",
            filter[0]
        )));
    }
    let channels = if transposed {
        filter[1]
            .checked_mul(groups)
            .ok_or_else(|| ctx.err("output channels overflow"))?
    } else {
        filter[0]
    };
    for (i, &b) in bias.iter().enumerate() {
        if i == 1 {
            if b != channels && b != 1 {
                return Err(ctx.err(format!(
                    "bias channels {b} != output channels {channels} (bias shape {})",
                    fmt_shape(&bias)
                )));
            }
        } else if b != 1 {
            return Err(ctx.err(format!(
                "bias must be singular except in the channel dimension, found shape {}",
                fmt_shape(&bias)
            )));
        }
    }
    if let Some(shape) = out_shape {
        if shape[0] != input[0] {
            return Err(ctx.err(format!(
                "output_shape batch {} != input batch {}",
                shape[0], input[0]
            )));
        }
        if shape[1] != channels {
            return Err(ctx.err(format!(
                "output_shape channels {} != filter channels {} * groups {groups}",
                shape[1], filter[1]
            )));
        }
        for i in 0..rank - 2 {
            let expected = window.down(ctx, i, i + 2, shape[i + 2])?;
            if expected != input[i + 2] {
                return Err(ctx.err(format!(
                    "'output_shape' {} down-scales to extent {expected} in dimension {}, but the input extent is {} (input shape {})",
                    fmt_shape(&shape),
                    i + 2,
                    input[i + 2],
                    fmt_shape(&input)
                )));
            }
        }
        return Ok(shape);
    }
    let mut output = vec![input[0], channels];
    for i in 0..rank - 2 {
        output.push(if transposed {
            window.up(ctx, i, i + 2, input[i + 2])?
        } else {
            window.down(ctx, i, i + 2, input[i + 2])?
        });
    }
    Ok(output)
}

/// The shared rule of `box`, `debox`, `argmax_pool`, `sample` and `desample`: the window
/// (`size`, `padding`, `stride`, `dilation`) covers every dimension of `input`.
fn pool_like(ctx: &Ctx, input: &[usize], transposed: bool) -> Result<Vec<usize>, String> {
    let rank = input.len();
    let size = ctx.integers("size")?;
    let window = Window::read(ctx, size, "size", rank, "the rank of 'input'")?;
    if transposed {
        if let Some(shape) = output_shape(ctx, rank)? {
            for (i, &extent) in shape.iter().enumerate() {
                let expected = window.down(ctx, i, i, extent)?;
                if expected != input[i] {
                    return Err(ctx.err(format!(
                        "'output_shape' {} down-scales to extent {expected} in dimension {i}, but the input extent is {} (input shape {})",
                        fmt_shape(&shape),
                        input[i],
                        fmt_shape(input)
                    )));
                }
            }
            return Ok(shape);
        }
    }
    (0..rank)
        .map(|i| {
            if transposed {
                window.up(ctx, i, i, input[i])
            } else {
                window.down(ctx, i, i, input[i])
            }
        })
        .collect()
}

/// `box` and `argmax_pool` (down-scaling), `debox` (up-scaling), §4.3.2–§4.3.3.
pub(crate) fn pool(ctx: &Ctx, transposed: bool) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    ctx.one_of("border", ALL_BORDERS)?;
    pool_like(ctx, &input, transposed)
}

/// `sample` (`transposed = false`) and `desample` (`transposed = true`), §4.3.3: `index` must
/// have the shape of the down-scaled tensor — the output of `sample`, the input of `desample`.
///
/// `sample` accepts every border mode, `'ignore'` included, because the standard's own
/// `max_pool` passes its `border` (commonly `'ignore'`) through `max_pool_with_index` to
/// `sample`; `desample` requires `'constant'` (§4.3.3).
pub(crate) fn sample(ctx: &Ctx, transposed: bool) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let index = ctx.tensor("index")?;
    if transposed {
        ctx.one_of("border", &["constant"])?;
    } else {
        ctx.one_of("border", ALL_BORDERS)?;
    }
    let output = pool_like(ctx, &input, transposed)?;
    let down = if transposed { &input } else { &output };
    if &index != down {
        return Err(ctx.err(format!(
            "shape of 'index' {} must equal the down-scaled shape {}",
            fmt_shape(&index),
            fmt_shape(down)
        )));
    }
    Ok(output)
}

/// `multilinear_upsample` (§4.3.4): `factor` has one strictly positive item per spatial
/// dimension; spatial extents are multiplied by it.
pub(crate) fn multilinear_upsample(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let factor = ctx.integers("factor")?;
    ctx.one_of("method", &["asymmetric", "symmetric", "aligned"])?;
    ctx.one_of("border", FILTER_BORDERS)?;
    if input.len() < 2 {
        return Err(ctx.err(format!(
            "'input' must have batch and channel dimensions (rank >= 2), found shape {}",
            fmt_shape(&input)
        )));
    }
    ctx.check_len(
        "factor",
        factor.len(),
        input.len() - 2,
        "the number of spatial dimensions",
        false,
    )?;
    ctx.check_min("factor", &factor, 1)?;
    let mut output = input[..2].to_vec();
    for (i, &f) in factor.iter().enumerate() {
        let extent = input[i + 2] as i128 * f as i128;
        output.push(ctx.extent(extent, &format!("output extent in dimension {}", i + 2))?);
    }
    Ok(output)
}

#[cfg(test)]
#[path = "sliding_window_tests.rs"]
mod tests;
