//! Operations that select, place or reorder sub-arrays (seed 004): `slice` (with strides),
//! `dynamic-slice` and `dynamic-update-slice` (start indices clamped so the window fits),
//! `pad` (negative edge padding and interior padding), `concatenate` and `reverse`.

use super::plan::{self, DimMap, Plan, FILL};
use super::{array_operand, bad, result_shape, same_type, scalar_index, Ctx};
use crate::value::Value;
use conformance_spec::shape::slices_equal;
use conformance_spec::{index, ArrayShape, BackendError};

/// Checks the result's dimensions against the expected ones.
fn expect_dims(result: &ArrayShape, dims: &[i64], what: &str) -> Result<(), BackendError> {
    if slices_equal(&result.dimensions, dims) {
        Ok(())
    } else {
        Err(bad(format!(
            "{what}: the result must have dimensions {dims:?}, not {result}"
        )))
    }
}

/// HLO `slice`: per dimension, indices `start, start + stride, ...` below `limit` (seed 004,
/// Slice). Errors: bounds outside `0 <= start <= limit <= size`, a stride below 1, or result
/// dimensions other than `ceil((limit - start) / stride)`.
pub(super) fn slice<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    let dims = cx
        .instr
        .attr_slice("slice")
        .ok_or_else(|| bad("slice without a `slice` attribute"))?;
    if dims.len() != a.shape().rank() {
        return Err(bad(format!(
            "slice has {} dimensions for an operand of rank {}",
            dims.len(),
            a.shape().rank()
        )));
    }
    let strides = index::strides(a.shape());
    let mut maps = Vec::with_capacity(dims.len());
    let mut expected = Vec::with_capacity(dims.len());
    for (d, sd) in dims.iter().enumerate() {
        let size = a.dimensions()[d];
        if sd.start < 0 || sd.start > sd.limit || sd.limit > size || sd.stride < 1 {
            return Err(bad(format!(
                "slice dimension {d}: [{}:{}:{}] does not fit size {size}",
                sd.start, sd.limit, sd.stride
            )));
        }
        expected.push((sd.limit - sd.start + sd.stride - 1) / sd.stride);
        maps.push(DimMap::Affine {
            start: sd.start * strides[d],
            stride: sd.stride * strides[d],
        });
    }
    expect_dims(result, &expected, "slice")?;
    run_maps(cx, &a, result, maps, 0)
}

/// Runs a plan reading `a` through `maps` over the whole of a new `result` buffer.
fn run_maps<'a>(
    cx: &Ctx<'_, 'a>,
    a: &crate::value::ArrayRef<'_>,
    result: &ArrayShape,
    maps: Vec<DimMap>,
    fill: u128,
) -> Result<Value<'a>, BackendError> {
    let p = Plan {
        width: a.element_type().byte_width(),
        src: a.data(),
        base: 0,
        maps,
        fill,
        gather: None,
        lo: vec![0; result.rank()],
        hi: result.dimensions.clone(),
    };
    super::build(result, cx.par(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}

/// The start indices of a dynamic slice or update (operands `first..first + rank`), each clamped
/// into `[0, size - window]` (seed 004, DynamicSlice: the slice always fits).
fn clamped_starts(
    cx: &Ctx<'_, '_>,
    first: usize,
    sizes: &[i64],
    window: &[i64],
) -> Result<Vec<i64>, BackendError> {
    (0..sizes.len())
        .map(|d| {
            let s = scalar_index(cx, first + d)?;
            Ok(s.clamp(0, (sizes[d] - window[d]).max(0)))
        })
        .collect()
}

/// HLO `dynamic-slice(operand, start_0, ..., start_{r-1})`, `dynamic_slice_sizes={...}` (seed 004,
/// DynamicSlice). Errors: operand count, sizes outside `[0, size]`, result dimensions other than
/// the sizes, non-integer start operands.
pub(super) fn dynamic_slice<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let a = array_operand(cx, 0)?;
    let rank = a.shape().rank();
    cx.arity(1 + rank)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    let sizes = cx
        .instr
        .attr_ints("dynamic_slice_sizes")
        .ok_or_else(|| bad("dynamic-slice without dynamic_slice_sizes"))?;
    if sizes.len() != rank || (0..rank).any(|d| sizes[d] < 0 || sizes[d] > a.dimensions()[d]) {
        return Err(bad(format!(
            "dynamic_slice_sizes={sizes:?} does not fit {}",
            a.shape()
        )));
    }
    expect_dims(result, sizes, "dynamic-slice")?;
    let starts = clamped_starts(cx, 1, a.dimensions(), sizes)?;
    let strides = index::strides(a.shape());
    let maps = (0..rank)
        .map(|d| DimMap::Affine {
            start: starts[d] * strides[d],
            stride: strides[d],
        })
        .collect();
    run_maps(cx, &a, result, maps, 0)
}

/// HLO `dynamic-update-slice(operand, update, start_0, ...)` (seed 004, DynamicUpdateSlice): the
/// operand with the update written at the clamped start. Updates the operand's buffer in place
/// when this instruction is its last user and its layout is the result's. Errors: operand count,
/// an update larger than the operand, types or result dimensions that differ.
pub(super) fn dynamic_update_slice<'a>(cx: &mut Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let a_shape = array_operand(cx, 0)?.shape().clone();
    let u = array_operand(cx, 1)?;
    let rank = a_shape.rank();
    cx.arity(2 + rank)?;
    let result = result_shape(cx)?;
    same_type(&a_shape, result)?;
    same_type(u.shape(), result)?;
    expect_dims(result, &a_shape.dimensions, "dynamic-update-slice")?;
    if u.shape().rank() != rank || (0..rank).any(|d| u.dimensions()[d] > a_shape.dimensions[d]) {
        return Err(bad(format!(
            "update {} does not fit operand {a_shape}",
            u.shape()
        )));
    }
    let starts = clamped_starts(cx, 2, &a_shape.dimensions, u.dimensions())?;
    let par = cx.par(u.shape().element_count());
    let su = index::strides(u.shape());
    let p = Plan {
        width: u.element_type().byte_width(),
        src: u.data(),
        base: 0,
        maps: (0..rank)
            .map(|d| DimMap::Affine {
                start: -starts[d] * su[d],
                stride: su[d],
            })
            .collect(),
        fill: 0,
        gather: None,
        lo: starts.clone(),
        hi: (0..rank).map(|d| starts[d] + u.dimensions()[d]).collect(),
    };
    // The operand's buffer, taken over when uniquely owned and already in the result's layout.
    let operand = std::mem::replace(&mut cx.operands[0], Value::Token);
    let mut out = match operand {
        Value::Array(a) if a.shape() == result => match a.try_into_unique() {
            Ok(lit) => lit,
            Err(a) => a.into_array_literal(),
        },
        Value::Array(a) => {
            match super::relayout(&a, result, cx.parallel(result.element_count()))? {
                Value::Array(r) => r.into_array_literal(),
                _ => unreachable!("relayout gives an array"),
            }
        }
        Value::Splat { shape, bits } => {
            crate::layout::splat(shape.clone().with_layout(result.layout.clone()), bits)?
        }
        _ => return Err(bad("operand 0 of dynamic-update-slice is not an array")),
    };
    plan::execute(&p, result, out.data_mut(), par);
    if out.shape() != result {
        // Only the dynamic-dimension flags can differ here.
        let (_, data) = out.into_parts();
        out = conformance_spec::literal::ArrayLiteral::from_physical_bytes(result.clone(), data)
            .map_err(|e| BackendError::Failure(format!("dynamic-update-slice: {e}")))?;
    }
    Ok(Value::owned(out))
}

/// HLO `pad(operand, padding_value)`, `padding=low_high_interior x ...` (seed 004, Pad): negative
/// edge padding removes elements. Errors: a negative interior padding, a padding config of the
/// wrong rank, a non-scalar padding value, result dimensions that differ.
pub(super) fn pad<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    let fill = match &cx.operands[1] {
        Value::Splat { shape, bits } if shape.rank() == 0 => *bits,
        Value::Array(v) if v.shape().rank() == 0 => v.get_bits_linear(0),
        _ => return Err(bad("the padding value of pad must be a scalar")),
    };
    let config = cx
        .instr
        .attr_padding("padding")
        .ok_or_else(|| bad("pad without a `padding` attribute"))?;
    let rank = a.shape().rank();
    if config.len() != rank {
        return Err(bad(format!(
            "padding has {} dimensions for an operand of rank {rank}",
            config.len()
        )));
    }
    let strides = index::strides(a.shape());
    let mut maps = Vec::with_capacity(rank);
    let mut expected = Vec::with_capacity(rank);
    for (d, pd) in config.iter().enumerate() {
        let n = a.dimensions()[d];
        if pd.interior < 0 {
            return Err(bad(format!("dimension {d}: negative interior padding")));
        }
        let size = pd
            .low
            .checked_add(pd.high)
            .and_then(|e| e.checked_add(n))
            .and_then(|e| e.checked_add((n - 1).max(0).checked_mul(pd.interior)?))
            .filter(|&s| s >= 0)
            .ok_or_else(|| bad(format!("dimension {d}: padding gives a negative size")))?;
        expected.push(size);
        let step = pd.interior + 1;
        maps.push(DimMap::Table(
            (0..size)
                .map(|o| {
                    let t = o - pd.low;
                    if t >= 0 && t % step == 0 && t / step < n {
                        (t / step) * strides[d]
                    } else {
                        FILL
                    }
                })
                .collect(),
        ));
    }
    expect_dims(result, &expected, "pad")?;
    run_maps(cx, &a, result, maps, fill)
}

/// HLO `concatenate`, `dimensions={d}` (seed 004, ConcatInDim): the operands one after another
/// along dimension `d`. Errors: no operands, ranks, types or other dimensions that differ.
pub(super) fn concatenate<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let result = result_shape(cx)?;
    let dim = match cx.instr.attr_ints("dimensions") {
        Some([d]) if *d >= 0 && (*d as usize) < result.rank() => *d as usize,
        _ => return Err(bad("concatenate needs dimensions={d} with d < rank")),
    };
    if cx.operands.is_empty() {
        return Err(bad("concatenate without operands"));
    }
    let arrays = (0..cx.operands.len())
        .map(|i| array_operand(cx, i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut total = 0i64;
    for (i, a) in arrays.iter().enumerate() {
        same_type(a.shape(), result)?;
        let ok = a.shape().rank() == result.rank()
            && (0..result.rank()).all(|d| d == dim || a.dimensions()[d] == result.dimensions[d]);
        if !ok {
            return Err(bad(format!(
                "operand {i} {} does not concatenate into {result} along {dim}",
                a.shape()
            )));
        }
        total += a.dimensions()[dim];
    }
    if total != result.dimensions[dim] {
        return Err(bad(format!(
            "operands have {total} elements along dimension {dim}, the result {result}"
        )));
    }
    let par = cx.par(result.element_count());
    super::build(result, par, |dst, par| {
        let mut offset = 0i64;
        for a in &arrays {
            let s = index::strides(a.shape());
            let n = a.dimensions()[dim];
            let mut lo = vec![0; result.rank()];
            let mut hi = result.dimensions.clone();
            lo[dim] = offset;
            hi[dim] = offset + n;
            let p = Plan {
                width: a.element_type().byte_width(),
                src: a.data(),
                base: 0,
                maps: (0..result.rank())
                    .map(|d| DimMap::Affine {
                        start: if d == dim { -offset * s[d] } else { 0 },
                        stride: s[d],
                    })
                    .collect(),
                fill: 0,
                gather: None,
                lo,
                hi,
            };
            plan::execute(&p, result, dst, par);
            offset += n;
        }
    })
}

/// HLO `reverse`, `dimensions={...}` (seed 004, Rev): the listed dimensions in reverse order.
/// Errors: a dimension out of range or listed twice, result dimensions that differ.
pub(super) fn reverse<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    expect_dims(result, a.dimensions(), "reverse")?;
    let rank = a.shape().rank();
    let dims = cx.instr.attr_ints("dimensions").unwrap_or(&[]);
    let mut rev = vec![false; rank];
    for &d in dims {
        if d < 0 || d as usize >= rank || std::mem::replace(&mut rev[d as usize], true) {
            return Err(bad(format!("reverse dimensions={dims:?} for rank {rank}")));
        }
    }
    let strides = index::strides(a.shape());
    let maps = (0..rank)
        .map(|d| {
            if rev[d] {
                DimMap::Affine {
                    start: (a.dimensions()[d] - 1).max(0) * strides[d],
                    stride: -strides[d],
                }
            } else {
                DimMap::Affine {
                    start: 0,
                    stride: strides[d],
                }
            }
        })
        .collect();
    run_maps(cx, &a, result, maps, 0)
}
