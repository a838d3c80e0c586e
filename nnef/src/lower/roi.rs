//! Region-of-interest operations (NNEF 1.0.5 §4.6): `avg_roi_pool`, `max_roi_pool`,
//! `roi_resample` (`avg_roi_align` / `max_roi_align` are compounds over `roi_resample`).
//!
//! Inputs: feature maps `[B, C, S_1..S_M]`, `rois` `[N, 2M]` (a row holds the M start
//! coordinates, then the M end coordinates: `(y0, x0, y1, x1)` in 2-D), `batch_index` `[N, 1]`;
//! the output is `[N, C, o_1..o_M]`. Each RoI first selects its feature map (a `gather` on the
//! batch dimension). The standard leaves details open; this lowering reads it as follows.
//!
//! - RoI pooling: coordinates are rounded (`floor(v + 1/2)`); along each dimension the RoI of
//!   extent `r = end - start` is divided into `o` cells of extent `c = ceil(r / o)`, cell `i`
//!   starting at `start + i·floor(r / o)` (the text's "starts at c_H + i·s_H" read as starting
//!   from the RoI's origin). A cell covers the positions it overlaps inside the feature map; the
//!   cell's maximum (−∞ when empty) or average (NaN, 0/0, when empty) is taken as `max_pool` /
//!   `avg_pool` with `border = 'ignore'` would. Lowered with per-cell masks built from iotas:
//!   `[N, C, o.., S..]` elements.
//! - `roi_resample`: the up-sampling rule of `multilinear_upsample` with the real factor
//!   `o / r` and the RoI's origin as offset: output `i` samples position
//!   `start + i·r/o` (`'asymmetric'`), `start + (i + 1/2)·r/o - 1/2` (`'symmetric'`) or
//!   `start + i·(r - 1)/(o - 1)` (`'aligned'`) by linear interpolation between the two
//!   neighbouring positions, clamped to the map (`border = 'replicate'`). Each dimension is a
//!   batched `dot` with a `[N, o, S]` weight matrix built at run time (so a non-finite feature
//!   value reaches every output of its RoI through `0·∞`).

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{DotDimensionNumbers, GatherDimensionNumbers, Opcode};
use conformance_spec::shape::ArrayShape;

use super::{attrs, elementwise, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("avg_roi_pool", |l, op| roi_pool(l, op, false)),
    ("max_roi_pool", |l, op| roi_pool(l, op, true)),
    ("roi_resample", roi_resample),
];

const F32: ElementType = ElementType::F32;
const S32: ElementType = ElementType::S32;

/// The per-RoI feature maps `[N, C, S..]`, the rois `[N, 2M]`, M and `output_size`.
fn roi_inputs(
    l: &mut Lowerer<'_>,
    op: &Operation,
) -> Result<(usize, usize, usize, Vec<i64>), NnefError> {
    let input = l.input(op, "input", DataType::Scalar)?;
    let rois = l.input(op, "rois", DataType::Scalar)?;
    let batch = l.input(op, "batch_index", DataType::Integer)?;
    let (xd, rd) = (l.dims(input), l.dims(rois));
    let m = xd.len().saturating_sub(2);
    let n = rd.first().copied().unwrap_or(0);
    let size = attrs::integers(op, "output_size")?;
    if xd.len() < 3 || rd != [n, 2 * m as i64] || size.len() != m || size.iter().any(|&s| s <= 0) {
        return Err(fail(
            op,
            format!("input {xd:?}, rois {rd:?} and output_size {size:?} do not fit: expected rois [N, {}] and {m} positive sizes", 2 * m),
        ));
    }
    let batch = l.reshape(op, batch, &[n])?;
    let r = xd.len() as i64;
    let dn = GatherDimensionNumbers {
        offset_dims: (1..r).collect(),
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
    };
    let mut sizes = xd.clone();
    sizes[0] = 1;
    let maps = l.b.gather(input, batch, &dn, &sizes, false).at(op)?;
    Ok((maps, rois, m, size))
}

impl Lowerer<'_> {
    /// Column `k` of `rois` as a vector `[N]`.
    fn roi_column(&mut self, op: &Operation, rois: usize, k: i64) -> Result<usize, NnefError> {
        let n = self.dims(rois)[0];
        let c = self.slice_along(op, rois, 1, k, k + 1)?;
        self.reshape(op, c, &[n])
    }

    /// `opcode(x, c)` for a constant `c` of `x`'s type and extents.
    fn op_c(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        c: f64,
    ) -> Result<usize, NnefError> {
        let (ty, dims) = (self.ety(x), self.dims(x));
        let c = self.full(op, ty, c, &dims)?;
        self.b.binary(opcode, x, c).at(op)
    }

    /// `x` `[N]` broadcast to `dims` along dimension 0.
    fn per_roi(&mut self, op: &Operation, x: usize, dims: &[i64]) -> Result<usize, NnefError> {
        self.b.broadcast(x, dims, &[0]).at(op)
    }
}

fn roi_pool(l: &mut Lowerer<'_>, op: &Operation, max: bool) -> Result<(), NnefError> {
    let (maps, rois, m, size) = roi_inputs(l, op)?;
    let md = l.dims(maps);
    let (n, c) = (md[0], md[1]);
    let spatial = &md[2..];
    // Result layout before reduction: [N, C, o_1..o_M, S_1..S_M].
    let mut wide = vec![n, c];
    wide.extend_from_slice(&size);
    wide.extend_from_slice(spatial);
    let mut mask: Option<usize> = None;
    for k in 0..m {
        let (o, s) = (size[k], spatial[k]);
        let begin = l.roi_column(op, rois, k as i64)?;
        let end = l.roi_column(op, rois, (m + k) as i64)?;
        let begin = elementwise::round(l, op, begin)?;
        let end = elementwise::round(l, op, end)?;
        let begin = l.b.convert(begin, S32).at(op)?;
        let end = l.b.convert(end, S32).at(op)?;
        let extent = l.b.binary(Opcode::Subtract, end, begin).at(op)?;
        let extent = l.op_c(op, Opcode::Maximum, extent, 0.0)?;
        let step = l.op_c(op, Opcode::Divide, extent, o as f64)?;
        let longer = l.op_c(op, Opcode::Add, extent, (o - 1) as f64)?;
        let cell = l.op_c(op, Opcode::Divide, longer, o as f64)?;
        // [N, o, S]: start_i = begin + i·step, inside = start_i <= h < start_i + cell.
        let grid = [n, o, s];
        let i = l.b.iota(ArrayShape::new(S32, grid.to_vec()), 1).at(op)?;
        let h = l.b.iota(ArrayShape::new(S32, grid.to_vec()), 2).at(op)?;
        let step = l.per_roi(op, step, &grid)?;
        let begin = l.per_roi(op, begin, &grid)?;
        let cell = l.per_roi(op, cell, &grid)?;
        let offset = l.b.binary(Opcode::Multiply, i, step).at(op)?;
        let start = l.b.binary(Opcode::Add, begin, offset).at(op)?;
        let stop = l.b.binary(Opcode::Add, start, cell).at(op)?;
        let after_start = l.b.compare(h, start, "GE", None).at(op)?;
        let before_stop = l.b.compare(h, stop, "LT", None).at(op)?;
        let inside = l.b.binary(Opcode::And, after_start, before_stop).at(op)?;
        let inside =
            l.b.broadcast(inside, &wide, &[0, 2 + k as i64, 2 + (m + k) as i64])
                .at(op)?;
        mask = Some(match mask {
            Some(prev) => l.b.binary(Opcode::And, prev, inside).at(op)?,
            None => inside,
        });
    }
    let Some(mask) = mask else {
        return Err(fail(op, "RoI pooling needs at least one spatial dimension"));
    };
    let mut keep: Vec<i64> = vec![0, 1];
    keep.extend((2 + m as i64)..(2 + 2 * m as i64));
    let values = l.b.broadcast(maps, &wide, &keep).at(op)?;
    let reduced: Vec<i64> = ((2 + m as i64)..(2 + 2 * m as i64)).collect();
    let y = if max {
        let low = l.full(op, F32, f64::NEG_INFINITY, &wide)?;
        let v = l.b.select(mask, values, low).at(op)?;
        let reducer = l.reducer(op, Opcode::Maximum, F32)?;
        let init = l.scalar(op, F32, f64::NEG_INFINITY)?;
        l.b.reduce(&[v], &[init], &reducer, &reduced).at(op)?
    } else {
        let zero = l.full(op, F32, 0.0, &wide)?;
        let v = l.b.select(mask, values, zero).at(op)?;
        let reducer = l.reducer(op, Opcode::Add, F32)?;
        let init = l.scalar(op, F32, 0.0)?;
        let sum = l.b.reduce(&[v], &[init], &reducer, &reduced).at(op)?;
        let ones = l.full(op, F32, 1.0, &wide)?;
        let counted = l.b.select(mask, ones, zero).at(op)?;
        let count = l.b.reduce(&[counted], &[init], &reducer, &reduced).at(op)?;
        l.b.binary(Opcode::Divide, sum, count).at(op)?
    };
    l.bind(op, "output", y)
}

fn roi_resample(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let (maps, rois, m, size) = roi_inputs(l, op)?;
    let method = attrs::string(op, "method")?;
    if !matches!(method, "asymmetric" | "symmetric" | "aligned") {
        return Err(fail(
            op,
            format!("method '{method}' is not one of 'asymmetric', 'symmetric', 'aligned'"),
        ));
    }
    let mut y = maps;
    for k in 0..m {
        let yd = l.dims(y);
        let (n, o, s) = (yd[0], size[k], yd[2 + k]);
        let begin = l.roi_column(op, rois, k as i64)?;
        let end = l.roi_column(op, rois, (m + k) as i64)?;
        let extent = l.b.binary(Opcode::Subtract, end, begin).at(op)?;
        // position = begin + scale·(i + shift) + bias, per method.
        let (scale, shift, bias) = match method {
            "asymmetric" => (l.op_c(op, Opcode::Divide, extent, o as f64)?, 0.0, 0.0),
            "symmetric" => (l.op_c(op, Opcode::Divide, extent, o as f64)?, 0.5, -0.5),
            _ if o > 1 => {
                let e = l.op_c(op, Opcode::Subtract, extent, 1.0)?;
                (l.op_c(op, Opcode::Divide, e, (o - 1) as f64)?, 0.0, 0.0)
            }
            _ => (l.op_c(op, Opcode::Multiply, extent, 0.0)?, 0.0, 0.0),
        };
        let grid = [n, o, s];
        let i = l.b.iota(ArrayShape::new(F32, grid.to_vec()), 1).at(op)?;
        let i = if shift != 0.0 {
            l.op_c(op, Opcode::Add, i, shift)?
        } else {
            i
        };
        let scale = l.per_roi(op, scale, &grid)?;
        let begin = l.per_roi(op, begin, &grid)?;
        let scaled = l.b.binary(Opcode::Multiply, i, scale).at(op)?;
        let position = l.b.binary(Opcode::Add, begin, scaled).at(op)?;
        let position = if bias != 0.0 {
            l.op_c(op, Opcode::Add, position, bias)?
        } else {
            position
        };
        let j = l.b.unary(Opcode::Floor, position).at(op)?;
        let u = l.b.binary(Opcode::Subtract, position, j).at(op)?;
        let one_minus_u = {
            let one = l.full(op, F32, 1.0, &grid)?;
            l.b.binary(Opcode::Subtract, one, u).at(op)?
        };
        let low = l.full(op, F32, 0.0, &grid)?;
        let high = l.full(op, F32, (s - 1) as f64, &grid)?;
        let ja = l.b.clamp(low, j, high).at(op)?;
        let j1 = l.op_c(op, Opcode::Add, j, 1.0)?;
        let jb = l.b.clamp(low, j1, high).at(op)?;
        let h = l.b.iota(ArrayShape::new(F32, grid.to_vec()), 2).at(op)?;
        let zero = l.full(op, F32, 0.0, &grid)?;
        let at_a = l.b.compare(h, ja, "EQ", None).at(op)?;
        let at_b = l.b.compare(h, jb, "EQ", None).at(op)?;
        let wa = l.b.select(at_a, one_minus_u, zero).at(op)?;
        let wb = l.b.select(at_b, u, zero).at(op)?;
        let w = l.b.binary(Opcode::Add, wa, wb).at(op)?;
        // Contract y's dimension 2+k with w's dimension 2, batch over N; then move the new
        // (last) dimension back to position 2+k.
        let dn = DotDimensionNumbers {
            lhs_batch_dimensions: vec![0],
            rhs_batch_dimensions: vec![0],
            lhs_contracting_dimensions: vec![2 + k as i64],
            rhs_contracting_dimensions: vec![2],
        };
        let z = l.b.dot_general(y, w, &dn, None).at(op)?;
        let rank = yd.len() as i64;
        let mut perm: Vec<i64> = (0..2 + k as i64).collect();
        perm.push(rank - 1);
        perm.extend(2 + k as i64..rank - 1);
        y = l.b.transpose(z, &perm).at(op)?;
    }
    l.bind(op, "output", y)
}
