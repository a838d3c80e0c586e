//! `transpose` (seed 004, Transpose) and the cache-blocked tile kernel used by every copy whose
//! innermost result dimension is strided in the source (transposes, layout-changing copies,
//! relayouts of arguments).
//!
//! A transpose whose result layout puts every element at the physical position it already has in
//! the operand (a transpose that is a layout change) shares the operand's buffer.

use super::plan::{self, Plan};
use super::{array_operand, bad, result_shape, Ctx};
use crate::value::Value;
use conformance_spec::{index, BackendError};

/// Side of the square tiles (elements). 32 × 32 f32 tiles: 4 KiB read + 4 KiB written, in L1.
pub(crate) const TILE: usize = 32;

/// Side of the blocks of tiles (elements), and the granularity of parallel tasks along a tiled
/// major dimension.
pub(crate) const BLOCK: usize = 128;

/// Copies the 2-D block `i in l0..h0` (innermost result dimension, destination stride 1, source
/// stride `s_i`) × `a in la..ha` (source stride 1, destination stride `d_a`) tile by tile:
/// `dst[o0 + i + a * d_a] = src[s0 + i * s_i + a]` (offsets in elements of `W` bytes). `simd`:
/// whole f32 tiles may use the AVX kernel (when the CPU has it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile_2d<const W: usize>(
    src: &[u8],
    s0: i64,
    s_i: i64,
    dst: &mut [u8],
    o0: i64,
    d_a: i64,
    (l0, h0): (i64, i64),
    (la, ha): (i64, i64),
    simd: bool,
) {
    // Two levels: blocks of BLOCK x BLOCK (64 KiB of f32 each way, in L2; source rows of
    // BLOCK elements are read as runs of whole lines), then TILE x TILE tiles (in L1).
    let (t, b) = (TILE as i64, BLOCK as i64);
    let mut ab = la;
    while ab < ha {
        let ab1 = (ab + b).min(ha);
        let mut ib = l0;
        while ib < h0 {
            let ib1 = (ib + b).min(h0);
            let mut a0 = ab;
            while a0 < ab1 {
                let a1 = (a0 + t).min(ab1);
                let mut i0 = ib;
                while i0 < ib1 {
                    let i1 = (i0 + t).min(ib1);
                    tile::<W>(src, s0, s_i, dst, o0, d_a, (i0, i1), (a0, a1), simd);
                    i0 = i1;
                }
                a0 = a1;
            }
            ib = ib1;
        }
        ab = ab1;
    }
}

/// One tile (at most [`TILE`] × [`TILE`]); dispatches to a SIMD kernel when one fits.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile<const W: usize>(
    src: &[u8],
    s0: i64,
    s_i: i64,
    dst: &mut [u8],
    o0: i64,
    d_a: i64,
    (i0, i1): (i64, i64),
    (a0, a1): (i64, i64),
    simd: bool,
) {
    if simd && W == 4 && i1 - i0 == TILE as i64 && a1 - a0 == TILE as i64 && s_i >= 0 && d_a >= 0 {
        #[cfg(target_arch = "x86_64")]
        if super::simd::transpose_tile_f32(
            src,
            (s0 + i0 * s_i + a0) as usize,
            s_i as usize,
            dst,
            (o0 + i0 + a0 * d_a) as usize,
            d_a as usize,
        ) {
            return;
        }
    }
    tile_scalar::<W>(src, s0, s_i, dst, o0, d_a, (i0, i1), (a0, a1));
}

/// The scalar tile kernel (the reference the SIMD kernels are tested against).
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile_scalar<const W: usize>(
    src: &[u8],
    s0: i64,
    s_i: i64,
    dst: &mut [u8],
    o0: i64,
    d_a: i64,
    (i0, i1): (i64, i64),
    (a0, a1): (i64, i64),
) {
    let n = (i1 - i0) as usize;
    for a in a0..a1 {
        let d = (o0 + i0 + a * d_a) as usize * W;
        let row = &mut dst[d..d + n * W];
        let mut s = (s0 + i0 * s_i + a) as usize * W;
        for e in row.chunks_exact_mut(W) {
            let v: [u8; W] = src[s..s + W].try_into().expect("W bytes");
            e.copy_from_slice(&v);
            s = s.wrapping_add((s_i as usize).wrapping_mul(W));
        }
    }
}

/// HLO `transpose`: result dimension `d` is operand dimension `dimensions[d]` (seed 004,
/// Transpose). Errors: `dimensions` not a permutation of the operand's dimensions, or a result
/// shape that does not match.
pub(super) fn transpose<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    let perm = cx
        .instr
        .attr_ints("dimensions")
        .ok_or_else(|| bad("transpose without dimensions"))?;
    let rank = a.shape().rank();
    let mut seen = vec![false; rank];
    if perm.len() != rank
        || perm
            .iter()
            .any(|&p| p < 0 || p as usize >= rank || std::mem::replace(&mut seen[p as usize], true))
    {
        return Err(bad(format!(
            "dimensions={perm:?} is not a permutation of 0..{rank}"
        )));
    }
    let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    if result.element_type != a.element_type()
        || (0..rank).any(|d| result.dimensions[d] != a.dimensions()[perm[d]])
    {
        return Err(bad(format!(
            "transpose of {} by {perm:?} cannot give {result}",
            a.shape()
        )));
    }
    let src_strides = index::strides(a.shape());
    let strides: Vec<i64> = perm.iter().map(|&p| src_strides[p]).collect();
    // A layout change: every element keeps its physical position.
    let dst_strides = index::strides(result);
    let same_positions = (0..rank)
        .all(|d| result.dimensions[d] <= 1 || strides[d] == dst_strides[d])
        && index::physical_element_count(result) * result.element_type.byte_width()
            == a.data().len()
        && super::same_padding_fill(a.shape(), result);
    if same_positions {
        if let Some(v) = a.view_as(result.clone()) {
            return Ok(Value::Array(v));
        }
    }
    let p = Plan::strided(a.element_type().byte_width(), a.data(), &strides, result);
    super::build(result, cx.par(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}
