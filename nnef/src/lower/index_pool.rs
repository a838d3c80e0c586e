//! Index-based sampling (NNEF 1.0.5 §4.3.3): `argmax_pool`, `sample`, `desample`.
//!
//! Window indices are row-major positions within the window (`j = Σ j_k · Π_{m>k} size_m`).
//!
//! - `argmax_pool`: a two-operand `reduce-window` over the (explicitly padded) input and the
//!   row-major positions of the padded input; the reducer keeps the larger value, a NaN over a
//!   number, and on ties the smaller position, which is the first index in window order. The
//!   winning position is decoded to per-dimension coordinates `g_k`, and
//!   `j_k = (g_k - i_k · stride_k) / dilation_k`. With `border = 'ignore'` the border is −∞
//!   with an out-of-range position, so it never wins over an input element (a window wholly in
//!   the border gives index 0).
//! - `sample`: a `gather` of the padded input at `i_k · stride_k + j_k · dilation_k`.
//! - `desample`: a `scatter` (add) of the input into zeros of the up-scaled shape at
//!   `i_k · stride_k + j_k · dilation_k - p_k`; positions outside are dropped (HLO scatter skips
//!   out-of-bounds updates), which is the standard's sum over in-range terms.

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{GatherDimensionNumbers, Opcode, ScatterDimensionNumbers};
use conformance_spec::shape::ArrayShape;

use super::border::{Border, Sliding};
use super::{attrs, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("argmax_pool", argmax_pool),
    ("sample", sample),
    ("desample", desample),
];

const F32: ElementType = ElementType::F32;
const S32: ElementType = ElementType::S32;

/// The window `size` over every dimension of `dims`.
fn size(op: &Operation, dims: &[i64]) -> Result<Vec<i64>, NnefError> {
    let size = attrs::integers(op, "size")?;
    if size.len() != dims.len() {
        return Err(fail(
            op,
            format!(
                "'size' has {} items for an input of rank {}",
                size.len(),
                dims.len()
            ),
        ));
    }
    Ok(size)
}

/// Row-major strides of `dims` (`Π_{m>k} dims_m`).
fn strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * dims[k + 1];
    }
    s
}

impl Lowerer<'_> {
    /// `opcode(x, c)` on s32 for a constant `c`.
    fn int_c(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        c: i64,
    ) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let c = self.full(op, S32, c as f64, &dims)?;
        self.b.binary(opcode, x, c).at(op)
    }

    /// The s32 iota of extents `dims` along `k`.
    fn iota_s32(&mut self, op: &Operation, dims: &[i64], k: usize) -> Result<usize, NnefError> {
        self.b
            .iota(ArrayShape::new(S32, dims.to_vec()), k as i64)
            .at(op)
    }

    /// The per-dimension window offsets `j_k` of row-major window indices `index` (s32).
    fn window_offsets(
        &mut self,
        op: &Operation,
        index: usize,
        size: &[i64],
    ) -> Result<Vec<usize>, NnefError> {
        let w = strides(size);
        let mut out = Vec::with_capacity(size.len());
        for k in 0..size.len() {
            let q = self.int_c(op, Opcode::Divide, index, w[k])?;
            out.push(self.int_c(op, Opcode::Remainder, q, size[k])?);
        }
        Ok(out)
    }

    /// Coordinates `iota_k · stride_k + j_k · dilation_k - shift_k` stacked along a new last
    /// dimension: the `[dims..., rank]` index vectors of a gather or scatter.
    fn window_coordinates(
        &mut self,
        op: &Operation,
        offsets: &[usize],
        geo: &Sliding,
        shift: &[i64],
    ) -> Result<usize, NnefError> {
        let dims = self.dims(offsets[0]);
        let mut column = dims.clone();
        column.push(1);
        let mut parts = Vec::with_capacity(offsets.len());
        for (k, &j) in offsets.iter().enumerate() {
            let i = self.iota_s32(op, &dims, k)?;
            let base = self.int_c(op, Opcode::Multiply, i, geo.stride[k])?;
            let tap = self.int_c(op, Opcode::Multiply, j, geo.dilation[k])?;
            let g = self.b.binary(Opcode::Add, base, tap).at(op)?;
            let g = if shift[k] != 0 {
                self.int_c(op, Opcode::Subtract, g, shift[k])?
            } else {
                g
            };
            parts.push(self.reshape(op, g, &column)?);
        }
        self.b.concatenate(&parts, dims.len() as i64).at(op)
    }
}

/// `index = argmax_pool(input, size, border, padding, stride, dilation)`.
fn argmax_pool(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let size = size(op, &d)?;
    let border = Border::read(op, Border::ALL)?;
    let geo = Sliding::read(op, &size, &d, None)?;
    let ignore = border == Border::Ignore;
    let fill = if ignore { f64::NEG_INFINITY } else { 0.0 };
    let v = l.extend(op, x, &geo.padding, border, fill)?;
    let pd = l.dims(v);
    let total: i64 = pd.iter().product();
    let flat = l.iota_s32(op, &[total], 0)?;
    let mut pos = l.reshape(op, flat, &pd)?;
    if ignore {
        let inside = l.full(op, ElementType::Pred, 1.0, &d)?;
        let mask = l.extend(op, inside, &geo.padding, Border::Constant, 0.0)?;
        let never = l.full(op, S32, f64::from(i32::MAX), &pd)?;
        pos = l.b.select(mask, pos, never).at(op)?;
    }
    let window = Sliding {
        padding: vec![(0, 0); d.len()],
        ..geo.clone()
    }
    .basic_window();
    let reducer = l.arg_reducer(op, true)?;
    let init_v = l.scalar(op, F32, f64::NEG_INFINITY)?;
    let init_i = l.scalar(op, S32, f64::from(i32::MAX))?;
    let r =
        l.b.reduce_window(&[v, pos], &[init_v, init_i], &reducer, &window)
            .at(op)?;
    let p = l.b.get_tuple_element(r, 1).at(op)?;
    let out = l.dims(p);
    let (position_strides, window_strides) = (strides(&pd), strides(&size));
    let mut index = l.full(op, S32, 0.0, &out)?;
    for k in 0..d.len() {
        let q = l.int_c(op, Opcode::Divide, p, position_strides[k])?;
        let g = l.int_c(op, Opcode::Remainder, q, pd[k])?;
        let i = l.iota_s32(op, &out, k)?;
        let start = l.int_c(op, Opcode::Multiply, i, geo.stride[k])?;
        let offset = l.b.binary(Opcode::Subtract, g, start).at(op)?;
        let j = l.int_c(op, Opcode::Divide, offset, geo.dilation[k])?;
        let term = l.int_c(op, Opcode::Multiply, j, window_strides[k])?;
        index = l.b.binary(Opcode::Add, index, term).at(op)?;
    }
    if ignore {
        let never = l.full(op, S32, f64::from(i32::MAX), &out)?;
        let found = l.b.compare(p, never, "NE", None).at(op)?;
        let zero = l.full(op, S32, 0.0, &out)?;
        index = l.b.select(found, index, zero).at(op)?;
    }
    l.bind(op, "index", index)
}

/// `output = sample(input, index, size, border, padding, stride, dilation)`.
fn sample(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let index = l.input(op, "index", DataType::Integer)?;
    let d = l.dims(x);
    let size = size(op, &d)?;
    // `ignore` reaches `sample` through max_pool_with_index; its maxima are never in the border.
    let border = match Border::read(op, Border::ALL)? {
        Border::Ignore => Border::Constant,
        b => b,
    };
    let geo = Sliding::read(op, &size, &d, None)?;
    let out = l.result_dims(op, "output")?;
    let index = l.broadcast_to(op, index, &out)?;
    let v = l.extend(op, x, &geo.padding, border, 0.0)?;
    let offsets = l.window_offsets(op, index, &size)?;
    let coordinates = l.window_coordinates(op, &offsets, &geo, &vec![0; d.len()])?;
    let r = d.len() as i64;
    let dn = GatherDimensionNumbers {
        offset_dims: vec![],
        collapsed_slice_dims: (0..r).collect(),
        start_index_map: (0..r).collect(),
        index_vector_dim: r,
    };
    let y =
        l.b.gather(v, coordinates, &dn, &vec![1; d.len()], false)
            .at(op)?;
    l.bind(op, "output", y)
}

/// `output = desample(input, index, size, border, padding, stride, dilation, output_shape)`.
fn desample(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let index = l.input(op, "index", DataType::Integer)?;
    let d = l.dims(x);
    let size = size(op, &d)?;
    // Every border is equivalent here: no index designates a tap outside the input.
    Border::read(op, Border::ALL)?;
    let out = l.result_dims(op, "output")?;
    let geo = Sliding::read(op, &size, &out, Some(&d))?;
    let index = l.broadcast_to(op, index, &d)?;
    let offsets = l.window_offsets(op, index, &size)?;
    let shift: Vec<i64> = geo.padding.iter().map(|&(p, _)| p).collect();
    let coordinates = l.window_coordinates(op, &offsets, &geo, &shift)?;
    let zeros = l.full(op, F32, 0.0, &out)?;
    let add = l.reducer(op, Opcode::Add, F32)?;
    let r = d.len() as i64;
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![],
        inserted_window_dims: (0..r).collect(),
        scatter_dims_to_operand_dims: (0..r).collect(),
        index_vector_dim: r,
    };
    let y =
        l.b.scatter(&[zeros], coordinates, &[x], &add, &dn, false, false)
            .at(op)?;
    l.bind(op, "output", y)
}

#[cfg(test)]
mod tests {
    use super::strides;

    #[test]
    fn row_major_strides() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[5]), vec![1]);
        assert!(strides(&[]).is_empty());
    }
}
