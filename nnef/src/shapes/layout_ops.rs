//! Tensor shape operations (NNEF 1.0.5 §4.5): `reshape`, `squeeze`, `unsqueeze` (§4.5.1),
//! `transpose` (§4.5.2), `split`, `concat`, `stack`, `unstack` (§4.5.3), `slice` (§4.5.4),
//! `pad` (§4.5.5), `tile` (§4.5.6) and `gather` (§4.5.7).

use super::args::{fmt_shape, volume, Ctx};

/// `reshape` (§4.5.1): replaces the axes `[axis_start, axis_start + axis_count)` of `input`
/// with `shape`, where a `0` item copies the input extent at the same position
/// (`input[axis_start + i]`) and one `-1` item takes whatever extent makes the volumes equal.
///
/// Errors: `axis_start` outside `[0, rank]`, `axis_count` below -1 or reaching past the rank,
/// items below -1, two `-1` items, a `0` item with no input extent to copy, volumes that do not
/// match (or do not divide, with `-1`).
pub(crate) fn reshape(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let shape = ctx.integers("shape")?;
    let axis_start = ctx.integer("axis_start")?;
    let axis_count = ctx.integer("axis_count")?;
    let rank = input.len();
    let start = ctx.axis("axis_start", axis_start, rank + 1)?;
    let count = match axis_count {
        -1 => rank - start,
        c if c < -1 => {
            return Err(ctx.err(format!("'axis_count' must be non-negative or -1, found {c}")));
        }
        c => usize::try_from(c)
            .ok()
            .filter(|&c| c <= rank - start)
            .ok_or_else(|| {
                ctx.err(format!(
                    "'axis_start' + 'axis_count' ({axis_start} + {c}) must be at most the rank {rank}"
                ))
            })?,
    };
    let end = start + count;
    let mut inferred = None;
    let mut replaced = Vec::with_capacity(shape.len());
    for (i, &s) in shape.iter().enumerate() {
        let extent = match s {
            -1 => {
                if inferred.replace(i).is_some() {
                    return Err(ctx.err(format!(
                        "'shape' may contain at most one -1 item, found {shape:?}"
                    )));
                }
                1
            }
            0 => *input.get(start + i).ok_or_else(|| {
                ctx.err(format!(
                    "item {i} of 'shape' is 0 but 'input' {} has no dimension {} to copy",
                    fmt_shape(&input),
                    start + i
                ))
            })?,
            s if s < -1 => {
                return Err(ctx.err(format!("items of 'shape' must be >= -1, found {s}")));
            }
            s => ctx.extent(s as i128, "'shape' item")?,
        };
        replaced.push(extent);
    }
    let overflow = || ctx.err("volume overflows");
    let input_volume = volume(&input[start..end]).ok_or_else(overflow)?;
    let shape_volume = volume(&replaced).ok_or_else(overflow)?;
    match inferred {
        Some(i) => {
            if shape_volume == 0 || input_volume % shape_volume != 0 {
                return Err(ctx.err(format!(
                    "volume {shape_volume} of the known items of 'shape' {shape:?} does not divide the volume {input_volume} of 'input' {} in axes [{start},{end})",
                    fmt_shape(&input)
                )));
            }
            replaced[i] = ctx.extent((input_volume / shape_volume) as i128, "inferred extent")?;
        }
        None if shape_volume != input_volume => {
            return Err(ctx.err(format!(
                "volume {shape_volume} of 'shape' {shape:?} != volume {input_volume} of 'input' {} in axes [{start},{end})",
                fmt_shape(&input)
            )));
        }
        None => {}
    }
    let mut output = input[..start].to_vec();
    output.extend(replaced);
    output.extend_from_slice(&input[end..]);
    Ok(output)
}

/// `squeeze` (§4.5.1): removes the listed axes, which must be unique, below the rank of
/// `input`, and singleton.
pub(crate) fn squeeze(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let axes = ctx.integers("axes")?;
    let axes = ctx.unique_axes("axes", &axes, input.len())?;
    if let Some(&a) = axes.iter().find(|&&a| input[a] != 1) {
        return Err(ctx.err(format!(
            "squeezed dimension {a} of 'input' {} is not singleton",
            fmt_shape(&input)
        )));
    }
    Ok(input
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &x)| x)
        .collect())
}

/// `unsqueeze` (§4.5.1): `axes` are the positions of the inserted singleton dimensions in the
/// output (rank of `input` + length of `axes`); they must be unique and below the output rank.
pub(crate) fn unsqueeze(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let axes = ctx.integers("axes")?;
    let rank = input.len() + axes.len();
    let axes = ctx.unique_axes("axes", &axes, rank)?;
    let mut rest = input.iter();
    Ok((0..rank)
        .map(|i| {
            if axes.contains(&i) {
                1
            } else {
                rest.next().copied().unwrap_or(1)
            }
        })
        .collect())
}

/// `transpose` (§4.5.2): `axes` (n items) must be a permutation of `0..n` with `n` at most the
/// rank; the first `n` output extents are `input[axes[i]]`, the trailing ones are kept.
pub(crate) fn transpose(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let axes = ctx.integers("axes")?;
    if axes.len() > input.len() {
        return Err(ctx.err(format!(
            "length of 'axes' {} exceeds the rank of 'input' {}",
            axes.len(),
            fmt_shape(&input)
        )));
    }
    let mut sorted = axes.clone();
    sorted.sort_unstable();
    if sorted.iter().enumerate().any(|(i, &a)| a != i as i64) {
        return Err(ctx.err(format!(
            "'axes' must be a permutation of 0..{}, found {axes:?}",
            axes.len()
        )));
    }
    let mut output: Vec<usize> = axes.iter().map(|&a| input[a as usize]).collect();
    output.extend_from_slice(&input[axes.len()..]);
    Ok(output)
}

/// `concat` (§4.5.3): `values` must be non-empty, of one rank, and equal except along `axis`
/// (below that rank), where the output extent is the sum.
pub(crate) fn concat(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let values = ctx.tensors("values")?;
    let axis = ctx.integer("axis")?;
    let first = values
        .first()
        .ok_or_else(|| ctx.err("'values' must be non-empty"))?;
    let axis = ctx.axis("axis", axis, first.len())?;
    let mut output = first.clone();
    for (k, value) in values.iter().enumerate().skip(1) {
        let same_elsewhere = value.len() == first.len()
            && value
                .iter()
                .zip(first)
                .enumerate()
                .all(|(i, (a, b))| i == axis || a == b);
        if !same_elsewhere {
            return Err(ctx.err(format!(
                "shape of values[{k}] {} does not match values[0] {} outside axis {axis}",
                fmt_shape(value),
                fmt_shape(first)
            )));
        }
        output[axis] = output[axis]
            .checked_add(value[axis])
            .ok_or_else(|| ctx.err("concatenated extent overflows"))?;
    }
    Ok(output)
}

/// `split` (§4.5.3): `ratios` (non-empty, strictly positive) must sum to a divisor of the
/// extent of `value` along `axis`; item `i` gets `extent / sum * ratios[i]` along `axis`.
pub(crate) fn split(ctx: &Ctx) -> Result<Vec<Vec<usize>>, String> {
    let value = ctx.tensor("value")?;
    let axis = ctx.integer("axis")?;
    let ratios = ctx.integers("ratios")?;
    let axis = ctx.axis("axis", axis, value.len())?;
    if ratios.is_empty() {
        return Err(ctx.err("'ratios' must be non-empty"));
    }
    ctx.check_min("ratios", &ratios, 1)?;
    let total = ratios
        .iter()
        .try_fold(0u128, |acc, &r| acc.checked_add(r as u128))
        .ok_or_else(|| ctx.err("sum of 'ratios' overflows"))?;
    let extent = value[axis] as u128;
    if !extent.is_multiple_of(total) {
        return Err(ctx.err(format!(
            "sum of 'ratios' {total} does not divide the extent {extent} of 'value' {} along axis {axis}",
            fmt_shape(&value)
        )));
    }
    let unit = extent / total;
    ratios
        .iter()
        .map(|&r| {
            let mut item = value.clone();
            item[axis] = ctx.extent((unit * r as u128) as i128, "split extent")?;
            Ok(item)
        })
        .collect()
}

/// `stack` (§4.5.3): `values` must be non-empty and of one shape; a new axis of extent
/// `length_of(values)` is inserted at `axis` (below the output rank).
pub(crate) fn stack(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let values = ctx.tensors("values")?;
    let axis = ctx.integer("axis")?;
    let first = values
        .first()
        .ok_or_else(|| ctx.err("'values' must be non-empty"))?;
    if let Some((k, value)) = values.iter().enumerate().find(|(_, v)| *v != first) {
        return Err(ctx.err(format!(
            "shape of values[{k}] {} differs from values[0] {}",
            fmt_shape(value),
            fmt_shape(first)
        )));
    }
    let axis = ctx.axis("axis", axis, first.len() + 1)?;
    let mut output = first.clone();
    output.insert(axis, values.len());
    Ok(output)
}

/// The most tensors one `unstack` may produce: a resource limit of this implementation (each
/// result needs its own identifier in the document, so real graphs stay far below it).
pub const MAX_UNSTACKED: usize = 1 << 16;

/// `unstack` (§4.5.3): `value[axis]` tensors of the shape of `value` without `axis`.
///
/// Errors: `axis` out of range; more than [`MAX_UNSTACKED`] results.
pub(crate) fn unstack(ctx: &Ctx) -> Result<Vec<Vec<usize>>, String> {
    let value = ctx.tensor("value")?;
    let axis = ctx.integer("axis")?;
    let axis = ctx.axis("axis", axis, value.len())?;
    if value[axis] > MAX_UNSTACKED {
        return Err(ctx.err(format!(
            "unstacking extent {} of 'value' {} along axis {axis} exceeds the supported {MAX_UNSTACKED} results",
            value[axis],
            fmt_shape(&value)
        )));
    }
    let mut item = value.clone();
    item.remove(axis);
    Ok(vec![item; value[axis]])
}

/// `slice` (§4.5.4). For each `axes[i]` with extent `x`: negative `begin`/`end` items count
/// from the end (`+ x`), then clamp to `[-1, x]`; with a positive stride `0 <= begin <= end`
/// must hold, with a negative stride `end <= begin < x`; the output extent is
/// `ceil((end - begin) / stride)`. `stride = []` means 1s; `end[i] = 0` means "to the end"
/// when every stride is 1 (the deprecated notation kept for backwards compatibility).
///
/// Errors: lengths of `axes`/`begin`/`end`/`stride` differ, an axis out of range or repeated,
/// a zero stride, an empty or reversed range.
pub(crate) fn slice(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let axes = ctx.integers("axes")?;
    let begin = ctx.integers("begin")?;
    let end = ctx.integers("end")?;
    let stride = ctx.integers("stride")?;
    ctx.check_len(
        "begin",
        begin.len(),
        axes.len(),
        "the length of 'axes'",
        false,
    )?;
    ctx.check_len("end", end.len(), axes.len(), "the length of 'axes'", false)?;
    ctx.check_len(
        "stride",
        stride.len(),
        axes.len(),
        "the length of 'axes'",
        true,
    )?;
    let axes = ctx.unique_axes("axes", &axes, input.len())?;
    let stride = if stride.is_empty() {
        vec![1; axes.len()]
    } else {
        stride
    };
    if let Some(i) = stride.iter().position(|&s| s == 0) {
        return Err(ctx.err(format!(
            "items of 'stride' must be non-zero, found 0 at index {i}"
        )));
    }
    let to_end = stride.iter().all(|&s| s == 1);
    let mut output = input.clone();
    for (i, &axis) in axes.iter().enumerate() {
        let x = input[axis] as i128;
        let clamp = |v: i64| {
            let v = v as i128;
            let v = if v < 0 { v + x } else { v };
            v.clamp(-1, x)
        };
        let first = clamp(begin[i]);
        let last = if to_end && end[i] == 0 {
            x
        } else {
            clamp(end[i])
        };
        let s = stride[i] as i128;
        let valid = if s > 0 {
            0 <= first && first <= last
        } else {
            last <= first && first < x
        };
        if !valid {
            return Err(ctx.err(format!(
                "slice range {}:{}:{s} (clamped to {first}:{last}) is invalid for axis {axis} of extent {x}",
                begin[i], end[i]
            )));
        }
        let (span, step) = if s > 0 {
            (last - first, s)
        } else {
            (first - last, -s)
        };
        output[axis] = ctx.extent(
            (span + step - 1) / step,
            &format!("output extent in dimension {axis}"),
        )?;
    }
    Ok(output)
}

/// `tile` (§4.5.6): `repeats` has one strictly positive item per dimension; extents are
/// multiplied by it.
pub(crate) fn tile(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let repeats = ctx.integers("repeats")?;
    ctx.check_len(
        "repeats",
        repeats.len(),
        input.len(),
        "the rank of 'input'",
        false,
    )?;
    ctx.check_min("repeats", &repeats, 1)?;
    input
        .iter()
        .zip(&repeats)
        .enumerate()
        .map(|(i, (&x, &r))| {
            ctx.extent(
                x as i128 * r as i128,
                &format!("output extent in dimension {i}"),
            )
        })
        .collect()
}

/// `pad` (§4.5.5): `padding` has one `(p, q)` pair per dimension (items may be negative); the
/// output extent is `p + x + q`, which must not be negative. `border` must be a border mode of
/// §4.3.
pub(crate) fn pad(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let padding = ctx.padding("padding")?;
    ctx.one_of(
        "border",
        &["ignore", "constant", "replicate", "reflect", "reflect-even"],
    )?;
    ctx.check_len(
        "padding",
        padding.len(),
        input.len(),
        "the rank of 'input'",
        false,
    )?;
    input
        .iter()
        .zip(&padding)
        .enumerate()
        .map(|(i, (&x, &(p, q)))| {
            ctx.extent(
                p as i128 + x as i128 + q as i128,
                &format!("output extent in dimension {i}"),
            )
        })
        .collect()
}

/// `gather` (§4.5.7): the shape of `input` with dimension `axis` replaced by the whole shape of
/// `indices` (rank n + m - 1).
pub(crate) fn gather(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let input = ctx.tensor("input")?;
    let indices = ctx.tensor("indices")?;
    let axis = ctx.integer("axis")?;
    let axis = ctx.axis("axis", axis, input.len())?;
    let mut output = input[..axis].to_vec();
    output.extend(indices);
    output.extend_from_slice(&input[axis + 1..]);
    Ok(output)
}

#[cfg(test)]
#[path = "layout_ops_tests.rs"]
mod tests;
