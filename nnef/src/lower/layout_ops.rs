//! Tensor shape operations (NNEF 1.0.5 §4.5) and tensor introducing operations (§4.1, §4.8):
//! `reshape`, `squeeze`, `unsqueeze`, `transpose`, `concat`, `split`, `stack`, `unstack`,
//! `slice`, `tile`, `pad`, `gather`, `cast`; `external`, `variable` (HLO parameters, created
//! before the walk), `constant` (an HLO constant) and `update` (its new value).
//!
//! Result extents come from the graph; e.g. `slice` takes its element count per axis from the
//! output shape and checks that every index `begin + k·stride` lies in the input (negative
//! strides read a reversed input), so the deprecated `end = 0` ("to the end") form needs no
//! special case.

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{GatherDimensionNumbers, Opcode, SliceDim};

use super::border::Border;
use super::{attrs, element_type, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation, Value};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("external", introduced),
    ("variable", introduced),
    ("constant", constant),
    ("update", update),
    ("reshape", reshape),
    ("squeeze", reshape),
    ("unsqueeze", reshape),
    ("transpose", transpose),
    ("concat", concat),
    ("split", split),
    ("stack", stack),
    ("unstack", unstack),
    ("slice", slice),
    ("tile", tile),
    ("pad", pad),
    ("gather", gather),
    ("cast", cast),
];

/// The data type of result `result` (generic operations take it from the graph).
fn dtype(l: &Lowerer<'_>, op: &Operation, result: &str) -> Result<DataType, NnefError> {
    Ok(l.result_tensor(op, result)?.dtype)
}

/// `external` and `variable`: their tensors are parameters, bound before the walk.
fn introduced(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let t = &l.result_tensor(op, "output")?.name;
    if l.values.contains_key(t) {
        Ok(())
    } else {
        Err(fail(
            op,
            format!(
                "tensor '{t}' is not a graph input (every `external` must be a graph parameter)"
            ),
        ))
    }
}

/// `constant(shape, value)`: `value` in row-major order, or one item repeated.
fn constant(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let t = l.result_tensor(op, "output")?;
    let (ty, dims) = (element_type(t.dtype), super::dims_i64(&t.shape));
    let items = op
        .argument("value")
        .and_then(Value::items)
        .ok_or_else(|| fail(op, "attribute 'value' must be an array"))?;
    let values = items
        .iter()
        .map(|v| super::literal_number(op, v, t.dtype))
        .collect::<Result<Vec<f64>, _>>()?;
    let count: i64 = dims.iter().product();
    let y = match values.len() {
        1 => l.full(op, ty, values[0], &dims)?,
        n if n as i64 == count => l.constant(op, ty, &dims, &values)?,
        n => {
            return Err(fail(
                op,
                format!("'value' has {n} items for shape {dims:?}"),
            ))
        }
    };
    l.bind(op, "output", y)
}

/// `update(variable, value)`: the result is the new value.
fn update(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "result")?;
    let v = l.input(op, "value", dt)?;
    let y = l.b.copy(v).at(op)?;
    l.bind(op, "result", y)
}

/// `reshape`, `squeeze`, `unsqueeze`: the row-major contents with the graph's output shape.
fn reshape(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "output")?;
    let x = l.input(op, "input", dt)?;
    let out = l.result_dims(op, "output")?;
    let y = l.reshape(op, x, &out)?;
    l.bind(op, "output", y)
}

/// `transpose(input, axes)`: output dimension `i < n` is input dimension `axes[i]`; the
/// trailing dimensions stay.
fn transpose(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "output")?;
    let x = l.input(op, "input", dt)?;
    let rank = l.dims(x).len();
    let axes = attrs::integers(op, "axes")?;
    let n = axes.len();
    let mut seen = vec![false; n];
    for &a in &axes {
        match usize::try_from(a).ok().filter(|&a| a < n) {
            Some(a) if !seen[a] => seen[a] = true,
            _ => {
                return Err(fail(
                    op,
                    format!("'axes' {axes:?} is not a permutation of 0..{n}"),
                ))
            }
        }
    }
    if n > rank {
        return Err(fail(
            op,
            format!("'axes' has {n} items for an input of rank {rank}"),
        ));
    }
    let mut perm = axes;
    perm.extend(n as i64..rank as i64);
    let y = l.b.transpose(x, &perm).at(op)?;
    l.bind(op, "output", y)
}

fn concat(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "value")?;
    let xs = l.inputs(op, "values", dt)?;
    let rank = xs.first().map_or(0, |&x| l.dims(x).len());
    let axis = attrs::axis(op, "axis", rank)?;
    let y = l.b.concatenate(&xs, axis as i64).at(op)?;
    l.bind(op, "value", y)
}

fn stack(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "value")?;
    let xs = l.inputs(op, "values", dt)?;
    let rank = xs.first().map_or(0, |&x| l.dims(x).len());
    let axis = attrs::axis(op, "axis", rank + 1)?;
    let mut parts = Vec::with_capacity(xs.len());
    for x in xs {
        let mut d = l.dims(x);
        d.insert(axis, 1);
        parts.push(l.reshape(op, x, &d)?);
    }
    let y = l.b.concatenate(&parts, axis as i64).at(op)?;
    l.bind(op, "value", y)
}

/// `split(value, axis, ratios)`: consecutive sections along `axis`, of the graph's extents.
fn split(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let names = l.result_array(op, "values")?;
    let dt = match names.first() {
        Some(n) => l.tensor(op, n)?.dtype,
        None => return Err(fail(op, "'values' is empty")),
    };
    let x = l.input(op, "value", dt)?;
    let d = l.dims(x);
    let axis = attrs::axis(op, "axis", d.len())?;
    let mut start = 0;
    let mut parts = Vec::with_capacity(names.len());
    for n in &names {
        let extent = l.tensor(op, n)?.shape.get(axis).copied().unwrap_or(1) as i64;
        parts.push(l.slice_along(op, x, axis, start, start + extent)?);
        start += extent;
    }
    if start != d[axis] {
        return Err(fail(
            op,
            format!(
                "the sections cover {start} of the {} elements along axis {axis}",
                d[axis]
            ),
        ));
    }
    l.bind_array(op, "values", &parts)
}

fn unstack(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let names = l.result_array(op, "values")?;
    let dt = match names.first() {
        Some(n) => l.tensor(op, n)?.dtype,
        None => return Err(fail(op, "'values' is empty")),
    };
    let x = l.input(op, "value", dt)?;
    let d = l.dims(x);
    let axis = attrs::axis(op, "axis", d.len())?;
    let mut out = d.clone();
    out.remove(axis);
    let mut parts = Vec::with_capacity(d[axis] as usize);
    for i in 0..d[axis] {
        let s = l.slice_along(op, x, axis, i, i + 1)?;
        parts.push(l.reshape(op, s, &out)?);
    }
    l.bind_array(op, "values", &parts)
}

/// `slice(input, axes, begin, end, stride)`.
fn slice(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "output")?;
    let x = l.input(op, "input", dt)?;
    let d = l.dims(x);
    let out = l.result_dims(op, "output")?;
    if out.len() != d.len() {
        return Err(fail(
            op,
            format!("output {out:?} must have the rank of input {d:?}"),
        ));
    }
    let axes = attrs::axes(op, "axes", d.len())?;
    let begin = attrs::integers(op, "begin")?;
    let end = attrs::integers(op, "end")?;
    let stride = attrs::integers(op, "stride")?;
    if begin.len() != axes.len()
        || end.len() != axes.len()
        || !(stride.is_empty() || stride.len() == axes.len())
    {
        return Err(fail(
            op,
            "'axes', 'begin', 'end' (and a non-empty 'stride') must have the same length",
        ));
    }
    let mut dims: Vec<SliceDim> = d
        .iter()
        .map(|&e| SliceDim {
            start: 0,
            limit: e,
            stride: 1,
        })
        .collect();
    let mut reversed = Vec::new();
    for (i, &a) in axes.iter().enumerate() {
        let (x_a, n) = (d[a], out[a]);
        let s = stride.get(i).copied().unwrap_or(1);
        if s == 0 {
            return Err(fail(op, format!("stride of axis {a} is 0")));
        }
        let mut b = begin[i];
        if b < 0 {
            b += x_a;
        }
        b = if s > 0 {
            b.clamp(0, x_a)
        } else {
            b.clamp(-1, x_a - 1)
        };
        if n == 0 {
            dims[a] = SliceDim {
                start: 0,
                limit: 0,
                stride: 1,
            };
            continue;
        }
        let last = b + (n - 1) * s;
        if b < 0 || b >= x_a || last < 0 || last >= x_a {
            return Err(fail(
                op,
                format!("axis {a}: {n} elements from {b} by {s} leave the extent {x_a}"),
            ));
        }
        dims[a] = if s > 0 {
            SliceDim {
                start: b,
                limit: last + 1,
                stride: s,
            }
        } else {
            reversed.push(a as i64);
            let r = x_a - 1 - b;
            SliceDim {
                start: r,
                limit: r + (n - 1) * -s + 1,
                stride: -s,
            }
        };
    }
    for (k, (&o, &e)) in out.iter().zip(&d).enumerate() {
        if !axes.contains(&k) && o != e {
            return Err(fail(
                op,
                format!("dimension {k} is not sliced but its extent changes from {e} to {o}"),
            ));
        }
    }
    let x = if reversed.is_empty() {
        x
    } else {
        l.b.reverse(x, &reversed).at(op)?
    };
    let y = l.b.slice(x, &dims).at(op)?;
    l.bind(op, "output", y)
}

/// `tile(input, repeats)`: `output[..., i, ...] = input[..., i mod x, ...]`, as a broadcast to
/// interleaved `[r_0, x_0, r_1, x_1, ...]` and a reshape.
fn tile(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "output")?;
    let x = l.input(op, "input", dt)?;
    let d = l.dims(x);
    let repeats = attrs::integers(op, "repeats")?;
    if repeats.len() != d.len() || repeats.iter().any(|&r| r <= 0) {
        return Err(fail(
            op,
            format!("'repeats' {repeats:?} must have one positive item per dimension of {d:?}"),
        ));
    }
    let interleaved: Vec<i64> = repeats.iter().zip(&d).flat_map(|(&r, &e)| [r, e]).collect();
    let mapping: Vec<i64> = (0..d.len() as i64).map(|k| 2 * k + 1).collect();
    let b = l.b.broadcast(x, &interleaved, &mapping).at(op)?;
    let out: Vec<i64> = repeats.iter().zip(&d).map(|(&r, &e)| r * e).collect();
    let y = l.reshape(op, b, &out)?;
    l.bind(op, "output", y)
}

/// `pad(input, padding, border, value)`.
fn pad(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let padding = attrs::pairs(op, "padding")?;
    if padding.len() != d.len() {
        return Err(fail(
            op,
            format!(
                "'padding' has {} items for an input of rank {}",
                padding.len(),
                d.len()
            ),
        ));
    }
    let border = Border::read(op, Border::ALL)?;
    let value = attrs::scalar(op, "value")?;
    let y = l.extend(op, x, &padding, border, value)?;
    l.bind(op, "output", y)
}

/// `gather(input, indices, axis)`: the output is `input` with dimension `axis` replaced by the
/// dimensions of `indices` (HLO `gather`; indices out of range are clamped by HLO).
fn gather(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dt = dtype(l, op, "output")?;
    let x = l.input(op, "input", dt)?;
    let indices = l.input(op, "indices", DataType::Integer)?;
    let (xd, id) = (l.dims(x), l.dims(indices));
    let axis = attrs::axis(op, "axis", xd.len())?;
    let (n, m) = (xd.len() as i64, id.len() as i64);
    let a = axis as i64;
    let dn = GatherDimensionNumbers {
        offset_dims: (0..a).chain(a + m..n + m - 1).collect(),
        collapsed_slice_dims: vec![a],
        start_index_map: vec![a],
        index_vector_dim: m,
    };
    let mut sizes = xd.clone();
    sizes[axis] = 1;
    let y = l.b.gather(x, indices, &dn, &sizes, false).at(op)?;
    l.bind(op, "output", y)
}

/// `cast<T>(input)`: scalar → integer rounds down (seed 003: the nearest smaller integer); to
/// logical is `!= 0`; logical → numbers is 1 / 0; integer → scalar converts.
fn cast(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let from = l.input_dtype(op, "input")?;
    let to = dtype(l, op, "output")?;
    let x = l.input(op, "input", from)?;
    let y = match (from, to) {
        _ if from == to => l.b.copy(x).at(op)?,
        (_, DataType::Logical) => {
            let dims = l.dims(x);
            let zero = l.full(op, element_type(from), 0.0, &dims)?;
            l.b.compare(x, zero, "NE", None).at(op)?
        }
        (DataType::Scalar, DataType::Integer) => {
            let f = l.b.unary(Opcode::Floor, x).at(op)?;
            l.b.convert(f, ElementType::S32).at(op)?
        }
        (_, to) => l.b.convert(x, element_type(to)).at(op)?,
    };
    l.bind(op, "output", y)
}
