//! The copy engine behind every data-movement operation: a *plan* says, for each dimension of the
//! result, which source element (offset in elements of the source's physical buffer) that result
//! index reads, as an affine map (`start + i * stride`: slice, reverse, transpose, broadcast,
//! relayout, dynamic-slice, concatenate) or a table (pad, where some result indices read nothing
//! and get a fill value). The source offset of a result element is the sum of its dimensions'
//! contributions plus a base.
//!
//! The engine walks a box of the result in the result's physical order (seed 000: most minor
//! dimension innermost, so writes are sequential), copies whole rows with `memcpy` when the source
//! is contiguous along the innermost dimension, and otherwise, when another dimension is contiguous
//! in the source (a transpose), runs the cache-blocked tile kernel of [`super::transpose`]. Large
//! boxes are split across threads along the result's most major dimension.

use super::transpose;
use crate::parallel::Par;
use conformance_spec::index;
use conformance_spec::ArrayShape;
use rayon::prelude::*;

/// Table entries at or below this value mean "no source element: write the fill value".
pub(crate) const FILL: i64 = i64::MIN / 4;

/// Result elements per parallel task (about 256 KiB of f32).
const TASK_ELEMENTS: usize = 1 << 16;

/// How the indices of one result dimension map to source offsets (elements).
#[derive(Clone, Debug)]
pub(crate) enum DimMap {
    /// `start + i * stride` for result index `i`.
    Affine { start: i64, stride: i64 },
    /// `table[i]`; [`FILL`] (or below) for result indices that read nothing.
    Table(Vec<i64>),
}

impl DimMap {
    #[inline(always)]
    fn at(&self, i: i64) -> i64 {
        match self {
            DimMap::Affine { start, stride } => start + i * stride,
            DimMap::Table(t) => t[i as usize],
        }
    }

    fn affine_stride(&self) -> Option<i64> {
        match self {
            DimMap::Affine { stride, .. } => Some(*stride),
            DimMap::Table(_) => None,
        }
    }
}

/// Per-position source offsets of a gather: result index `i` adds
/// `table[sum_d i_d * strides[d]]` (elements) to its source offset.
#[derive(Clone, Debug)]
pub(crate) struct GatherTable<'s> {
    pub(crate) table: &'s [i64],
    /// One per result dimension (0 for offset dimensions).
    pub(crate) strides: Vec<i64>,
}

/// A copy into (a box of) a result buffer.
#[derive(Clone, Debug)]
pub(crate) struct Plan<'s> {
    /// Bytes per element (1, 2, 4, 8 or 16).
    pub(crate) width: usize,
    /// The source's physical buffer.
    pub(crate) src: &'s [u8],
    /// Added to every source offset (elements).
    pub(crate) base: i64,
    /// One map per result dimension.
    pub(crate) maps: Vec<DimMap>,
    /// Bits written where a table says [`FILL`].
    pub(crate) fill: u128,
    /// For `gather`: source offsets added per batch position, `table[sum_d i_d * strides[d]]`.
    pub(crate) gather: Option<GatherTable<'s>>,
    /// The box of the result to write: `lo[d] <= i < hi[d]` (default: the whole result).
    pub(crate) lo: Vec<i64>,
    pub(crate) hi: Vec<i64>,
}

impl<'s> Plan<'s> {
    /// A plan over the whole result whose dimension `d` reads source stride `strides[d]`.
    pub(crate) fn strided(
        width: usize,
        src: &'s [u8],
        strides: &[i64],
        result: &ArrayShape,
    ) -> Plan<'s> {
        Plan {
            width,
            src,
            base: 0,
            maps: strides
                .iter()
                .map(|&s| DimMap::Affine {
                    start: 0,
                    stride: s,
                })
                .collect(),
            fill: 0,
            gather: None,
            lo: vec![0; result.rank()],
            hi: result.dimensions.clone(),
        }
    }
}

/// Runs `plan` into `dst`, the physical buffer of `result` (its layout and padding decide the
/// positions; padding positions are not written). Every source offset the plan produces must lie
/// inside `plan.src` (callers build plans from validated shapes; an offset outside panics through
/// slice bounds checks rather than reading out of bounds).
pub(crate) fn execute(plan: &Plan<'_>, result: &ArrayShape, dst: &mut [u8], par: Par) {
    let rank = result.rank();
    debug_assert_eq!(plan.maps.len(), rank);
    if (0..rank).any(|d| plan.hi[d] <= plan.lo[d]) {
        return;
    }
    match plan.width {
        1 => run::<1>(plan, result, dst, par),
        2 => run::<2>(plan, result, dst, par),
        4 => run::<4>(plan, result, dst, par),
        8 => run::<8>(plan, result, dst, par),
        _ => run::<16>(plan, result, dst, par),
    }
}

/// The plan, specialized for one element width and the result's layout.
struct Walk<'p, 's, const W: usize> {
    plan: &'p Plan<'s>,
    dst_strides: Vec<i64>,
    /// Dimensions, most minor first.
    m2m: Vec<usize>,
    fill: [u8; W],
    /// The dimension contiguous in the source used with the innermost one for tiling, if any.
    tile_with: Option<usize>,
    /// Whether tiles may use the AVX kernel.
    simd: bool,
}

fn run<const W: usize>(plan: &Plan<'_>, result: &ArrayShape, dst: &mut [u8], par: Par) {
    let rank = result.rank();
    let fill: [u8; W] = plan.fill.to_le_bytes()[..W].try_into().expect("W <= 16");
    if rank == 0 {
        let s = plan.base + plan.gather.as_ref().map_or(0, |g| g.table[0]);
        if s <= FILL / 2 {
            dst[..W].copy_from_slice(&fill);
        } else {
            let s = s as usize * W;
            dst[..W].copy_from_slice(&plan.src[s..s + W]);
        }
        return;
    }
    let m2m: Vec<usize> = result
        .layout
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .collect();
    let inner = m2m[0];
    let box_len = |d: usize| plan.hi[d] - plan.lo[d];
    // A transpose-like copy: the innermost result dimension is strided in the source and another
    // dimension is contiguous there. Tile the two so both sides stay in cache.
    let tile_with = match plan.maps[inner].affine_stride() {
        Some(s) if s != 1 && plan.gather.is_none() && box_len(inner) > 1 => m2m[1..]
            .iter()
            .copied()
            .find(|&d| plan.maps[d].affine_stride() == Some(1) && box_len(d) > 1),
        _ => None,
    };
    let walk = Walk::<W> {
        plan,
        dst_strides: index::strides(result),
        m2m,
        fill,
        tile_with,
        simd: par.avx2(),
    };
    let major = walk.m2m[rank - 1];
    let row = walk.dst_strides[major].max(1) as usize; // elements per major index
    let box_elements: usize = (0..rank).map(|d| box_len(d) as usize).product();
    let task = par.task(TASK_ELEMENTS);
    let mut k = task.div_ceil(row).max(1);
    if tile_with == Some(major) && !par.split {
        k = k.next_multiple_of(transpose::BLOCK);
    }
    let (lo, hi) = (plan.lo[major], plan.hi[major]);
    let job = |(c, chunk): (usize, &mut [u8])| {
        let r0 = (c * k) as i64;
        let r1 = r0 + chunk.len().div_ceil(row * W) as i64;
        let (a, b) = (r0.max(lo), r1.min(hi));
        if a < b {
            walk.region(chunk, r0 as usize * row, major, a, b);
        }
    };
    if par.on && box_elements >= 2 * task && (hi - lo) as usize > k {
        dst.par_chunks_mut(k * row * W).enumerate().for_each(job);
    } else {
        // One task over the rows of the box.
        let start = lo as usize * row * W;
        let end = (hi as usize * row * W).min(dst.len());
        walk.region(&mut dst[start..end], lo as usize * row, major, lo, hi);
    }
}

impl<const W: usize> Walk<'_, '_, W> {
    /// Writes the box restricted to major indices `a..b` into `chunk`, which starts at element
    /// `chunk_start` of the result buffer.
    fn region(&self, chunk: &mut [u8], chunk_start: usize, major: usize, a: i64, b: i64) {
        let plan = self.plan;
        let rank = self.m2m.len();
        let inner = self.m2m[0];
        let mut lo = plan.lo.clone();
        let mut hi = plan.hi.clone();
        lo[major] = a;
        hi[major] = b;
        if rank == 1 {
            match &plan.gather {
                Some(g) => self.gather_row(
                    chunk,
                    0,
                    plan.base,
                    0,
                    g,
                    inner,
                    lo[inner],
                    hi[inner],
                    chunk_start,
                ),
                None => self.row(
                    chunk,
                    0,
                    plan.base,
                    inner,
                    lo[inner],
                    hi[inner],
                    chunk_start,
                ),
            }
            return;
        }
        // Dimensions walked by the odometer (the innermost and the tiled one are walked inside).
        let outer: Vec<usize> = self.m2m[1..]
            .iter()
            .copied()
            .filter(|&d| Some(d) != self.tile_with)
            .collect();
        let mut idx: Vec<i64> = outer.iter().map(|&d| lo[d]).collect();
        loop {
            let mut s = plan.base;
            let mut o = 0i64;
            let mut t = 0i64;
            for (k, &d) in outer.iter().enumerate() {
                s = s.saturating_add(plan.maps[d].at(idx[k]));
                o += idx[k] * self.dst_strides[d];
                if let Some(g) = &plan.gather {
                    t += idx[k] * g.strides[d];
                }
            }
            match self.tile_with {
                Some(t) if s <= FILL / 2 => {
                    for i in lo[t]..hi[t] {
                        let o = o + i * self.dst_strides[t];
                        self.row(chunk, o, s, inner, lo[inner], hi[inner], chunk_start);
                    }
                }
                Some(t) => {
                    let (s_inner, s_t) = (
                        plan.maps[inner].affine_stride().unwrap_or(0),
                        self.dst_strides[t],
                    );
                    let start = plan.maps[inner].at(0) + plan.maps[t].at(0);
                    transpose::tile_2d::<W>(
                        plan.src,
                        s + start,
                        s_inner,
                        chunk,
                        o - chunk_start as i64,
                        s_t,
                        (lo[inner], hi[inner]),
                        (lo[t], hi[t]),
                        self.simd,
                    );
                }
                None => match &plan.gather {
                    Some(g) if g.strides[inner] != 0 => {
                        self.gather_row(chunk, o, s, t, g, inner, lo[inner], hi[inner], chunk_start)
                    }
                    Some(g) => {
                        let s = s + g.table[t as usize];
                        self.row(chunk, o, s, inner, lo[inner], hi[inner], chunk_start)
                    }
                    None => self.row(chunk, o, s, inner, lo[inner], hi[inner], chunk_start),
                },
            }
            // Advance the odometer, most minor first.
            let mut k = 0;
            loop {
                if k == outer.len() {
                    return;
                }
                idx[k] += 1;
                if idx[k] < hi[outer[k]] {
                    break;
                }
                idx[k] = lo[outer[k]];
                k += 1;
            }
        }
    }

    /// A row along an innermost dimension that indexes gather batches: every element adds its own
    /// table entry.
    #[allow(clippy::too_many_arguments)]
    fn gather_row(
        &self,
        chunk: &mut [u8],
        o: i64,
        s: i64,
        t: i64,
        g: &GatherTable<'_>,
        inner: usize,
        l: i64,
        h: i64,
        chunk_start: usize,
    ) {
        let src = self.plan.src;
        let n = (h - l) as usize;
        let d0 = (o as usize + l as usize - chunk_start) * W;
        let dst = &mut chunk[d0..d0 + n * W];
        let map = &self.plan.maps[inner];
        let tstride = g.strides[inner];
        for (j, d) in dst.chunks_exact_mut(W).enumerate() {
            let i = l + j as i64;
            let a = (s + map.at(i) + g.table[(t + i * tstride) as usize]) as usize * W;
            let e: [u8; W] = src[a..a + W].try_into().expect("W bytes");
            d.copy_from_slice(&e);
        }
    }

    /// One row along the innermost dimension: result indices `l..h` at result offset `o` (elements,
    /// before subtracting `chunk_start`), source offset `s` before the innermost contribution.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        chunk: &mut [u8],
        o: i64,
        s: i64,
        inner: usize,
        l: i64,
        h: i64,
        chunk_start: usize,
    ) {
        let src = self.plan.src;
        let n = (h - l) as usize;
        let d0 = (o as usize + l as usize - chunk_start) * W; // innermost stride is 1
        let dst = &mut chunk[d0..d0 + n * W];
        if s <= FILL / 2 {
            for e in dst.chunks_exact_mut(W) {
                e.copy_from_slice(&self.fill);
            }
            return;
        }
        match &self.plan.maps[inner] {
            DimMap::Affine { start, stride } => {
                let first = s + start + l * stride;
                if *stride == 1 {
                    let a = first as usize * W;
                    dst.copy_from_slice(&src[a..a + n * W]);
                } else if *stride == 0 {
                    let a = first as usize * W;
                    let e: [u8; W] = src[a..a + W].try_into().expect("W bytes");
                    for d in dst.chunks_exact_mut(W) {
                        d.copy_from_slice(&e);
                    }
                } else {
                    for (j, d) in dst.chunks_exact_mut(W).enumerate() {
                        let a = (first + j as i64 * stride) as usize * W;
                        let e: [u8; W] = src[a..a + W].try_into().expect("W bytes");
                        d.copy_from_slice(&e);
                    }
                }
            }
            DimMap::Table(t) => {
                for (d, &c) in dst.chunks_exact_mut(W).zip(&t[l as usize..h as usize]) {
                    if c <= FILL / 2 {
                        d.copy_from_slice(&self.fill);
                    } else {
                        let a = (s + c) as usize * W;
                        let e: [u8; W] = src[a..a + W].try_into().expect("W bytes");
                        d.copy_from_slice(&e);
                    }
                }
            }
        }
    }
}
