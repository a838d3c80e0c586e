//! `dot` (seed 004, Dot and DotGeneral): batch and contracting dimensions in any position, any
//! operand layouts. The operands are seen as batched matrices `lhs[b] : M × K`, `rhs[b] : K × N`
//! (`M`, `N` the products of the free dimensions, `K` of the contracting ones): with their own
//! strides when the grouped dimensions collapse into one stride each (no copy), packed into
//! contiguous matrices otherwise (and whenever the arithmetic type differs from the operand's).
//! The result `[batch..., lhs free..., rhs free...]` is computed row-major and put into the
//! declared layout.

use super::elements::{self, Domain};
use super::gemm::{self, GemmScalar, MatRef};
use super::{bad, finish_row_major, result_shape, Ctx};
use crate::buffer::typed;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::DotDimensionNumbers;
use conformance_spec::{index, ArrayShape, BackendError, ElementType};
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use std::borrow::Cow;

/// Validated dimension groups of one `dot`.
#[derive(Clone, Debug)]
pub(crate) struct DotPlan {
    pub(crate) lhs_batch: Vec<usize>,
    pub(crate) rhs_batch: Vec<usize>,
    pub(crate) lhs_contracting: Vec<usize>,
    pub(crate) rhs_contracting: Vec<usize>,
    pub(crate) lhs_free: Vec<usize>,
    pub(crate) rhs_free: Vec<usize>,
    pub(crate) b: usize,
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
}

impl DotPlan {
    /// Checks the dimension numbers against the operand and result shapes (seed 004,
    /// DotGeneral: distinct in-range dimensions, paired batch and contracting sizes equal, result
    /// dimensions batch, lhs free, rhs free).
    pub(crate) fn new(
        dn: &DotDimensionNumbers,
        lhs: &ArrayShape,
        rhs: &ArrayShape,
        result: &ArrayShape,
    ) -> Result<DotPlan, String> {
        let dims = |v: &[i64], rank: usize, what: &str| -> Result<Vec<usize>, String> {
            v.iter()
                .map(|&d| {
                    usize::try_from(d)
                        .ok()
                        .filter(|&d| d < rank)
                        .ok_or_else(|| format!("{what} dimension {d} out of range for rank {rank}"))
                })
                .collect()
        };
        let lb = dims(&dn.lhs_batch_dimensions, lhs.rank(), "lhs batch")?;
        let rb = dims(&dn.rhs_batch_dimensions, rhs.rank(), "rhs batch")?;
        let lc = dims(
            &dn.lhs_contracting_dimensions,
            lhs.rank(),
            "lhs contracting",
        )?;
        let rc = dims(
            &dn.rhs_contracting_dimensions,
            rhs.rank(),
            "rhs contracting",
        )?;
        if lb.len() != rb.len() || lc.len() != rc.len() {
            return Err(
                "lhs and rhs have different numbers of batch or contracting dimensions".into(),
            );
        }
        let free = |rank: usize, a: &[usize], b: &[usize]| -> Result<Vec<usize>, String> {
            let mut seen = vec![false; rank];
            for &d in a.iter().chain(b) {
                if std::mem::replace(&mut seen[d], true) {
                    return Err(format!("dimension {d} is listed twice"));
                }
            }
            Ok((0..rank).filter(|&d| !seen[d]).collect())
        };
        let lf = free(lhs.rank(), &lb, &lc)?;
        let rf = free(rhs.rank(), &rb, &rc)?;
        for (&l, &r) in lb.iter().zip(&rb).chain(lc.iter().zip(&rc)) {
            if lhs.dimensions[l] != rhs.dimensions[r] {
                return Err(format!(
                    "lhs dimension {l} (size {}) and rhs dimension {r} (size {}) are paired but differ",
                    lhs.dimensions[l], rhs.dimensions[r]
                ));
            }
        }
        let expect: Vec<i64> = lb
            .iter()
            .chain(&lf)
            .map(|&d| lhs.dimensions[d])
            .chain(rf.iter().map(|&d| rhs.dimensions[d]))
            .collect();
        if expect != result.dimensions {
            return Err(format!(
                "result dimensions {:?}, expected {expect:?}",
                result.dimensions
            ));
        }
        let prod =
            |s: &ArrayShape, d: &[usize]| d.iter().map(|&d| s.dimensions[d] as usize).product();
        Ok(DotPlan {
            b: prod(lhs, &lb),
            m: prod(lhs, &lf),
            n: prod(rhs, &rf),
            k: prod(lhs, &lc),
            lhs_batch: lb,
            rhs_batch: rb,
            lhs_contracting: lc,
            rhs_contracting: rc,
            lhs_free: lf,
            rhs_free: rf,
        })
    }
}

/// `dot` of seed 004. Errors: malformed dimension numbers, operand types that differ, pred
/// operands (unsupported).
pub(super) fn dot<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let (lhs, rhs) = (cx.array(0)?, cx.array(1)?);
    let result = result_shape(cx.instr)?;
    elements::same_operand_types(lhs.shape(), rhs.shape())?;
    let dn = DotDimensionNumbers::from_instruction(cx.instr).map_err(bad)?;
    let plan = DotPlan::new(&dn, lhs.shape(), rhs.shape(), result).map_err(bad)?;
    let flops = plan.b * plan.m * plan.n * plan.k;
    let parallel = cx.parallel(flops / 64);
    let bytes = match elements::domain(lhs.element_type(), result.element_type)? {
        Domain::F32 => float_dot::<f32>(&plan, &lhs, &rhs, result.element_type, parallel)?,
        Domain::F64 => float_dot::<f64>(&plan, &lhs, &rhs, result.element_type, parallel)?,
        Domain::C32 => float_dot::<Complex32>(&plan, &lhs, &rhs, result.element_type, parallel)?,
        Domain::C64 => float_dot::<Complex64>(&plan, &lhs, &rhs, result.element_type, parallel)?,
        Domain::Int => int_dot(&plan, &lhs, &rhs, result.element_type, parallel),
    };
    finish_row_major(result, bytes, cx.parallel(plan.b * plan.m * plan.n))
}

/// The element type a GEMM type reads without conversion.
pub(crate) trait Native: GemmScalar + bytemuck::Pod {
    const NATIVE: ElementType;
}
impl Native for f32 {
    const NATIVE: ElementType = ElementType::F32;
}
impl Native for f64 {
    const NATIVE: ElementType = ElementType::F64;
}
impl Native for Complex32 {
    const NATIVE: ElementType = ElementType::C64;
}
impl Native for Complex64 {
    const NATIVE: ElementType = ElementType::C128;
}

/// The single stride of dimensions `dims` (major to minor) when they collapse into one index
/// (each stride the next one's times its size; dimensions of size 1 ignored).
pub(crate) fn collapse(shape: &ArrayShape, strides: &[i64], dims: &[usize]) -> Option<usize> {
    let live: Vec<usize> = dims
        .iter()
        .copied()
        .filter(|&d| shape.dimensions[d] != 1)
        .collect();
    for w in live.windows(2) {
        if strides[w[0]] != strides[w[1]] * shape.dimensions[w[1]] {
            return None;
        }
    }
    Some(live.last().map_or(0, |&d| strides[d] as usize))
}

/// Element offsets of every batch index (row-major over `dims`).
fn batch_offsets(shape: &ArrayShape, strides: &[i64], dims: &[usize]) -> Vec<usize> {
    let sizes: Vec<usize> = dims.iter().map(|&d| shape.dimensions[d] as usize).collect();
    let total: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return out;
    }
    let mut idx = vec![0usize; dims.len()];
    loop {
        out.push(
            idx.iter()
                .zip(dims)
                .map(|(&i, &d)| i * strides[d] as usize)
                .sum(),
        );
        if !elements::advance(&mut idx, &sizes) {
            return out;
        }
    }
}

/// One operand as batched matrices: its elements, each batch's offset and the row/column strides.
struct Operand<'s, T: Clone> {
    data: Cow<'s, [T]>,
    offsets: Vec<usize>,
    row_stride: usize,
    col_stride: usize,
}

/// `a` seen as `batch × rows × cols` (groups of its dimensions, each major to minor): strided
/// over its own buffer when possible, else packed.
fn operand<'s, T: Native>(
    a: &'s ArrayRef<'_>,
    batch: &[usize],
    rows: &[usize],
    cols: &[usize],
) -> Operand<'s, T> {
    let shape = a.shape();
    if shape.element_type == T::NATIVE {
        let strides = index::strides(shape);
        if let (Some(rs), Some(cs)) = (
            collapse(shape, &strides, rows),
            collapse(shape, &strides, cols),
        ) {
            return Operand {
                data: typed::<T>(a.data()),
                offsets: batch_offsets(shape, &strides, batch),
                row_stride: rs,
                col_stride: cs,
            };
        }
    }
    let order: Vec<usize> = batch.iter().chain(rows).chain(cols).copied().collect();
    let data = elements::pack::<T>(shape, a.data(), &order);
    let r: usize = rows.iter().map(|&d| shape.dimensions[d] as usize).product();
    let c: usize = cols.iter().map(|&d| shape.dimensions[d] as usize).product();
    let nb: usize = batch
        .iter()
        .map(|&d| shape.dimensions[d] as usize)
        .product();
    Operand {
        data: Cow::Owned(data),
        offsets: (0..nb).map(|b| b * r * c).collect(),
        row_stride: c,
        col_stride: 1,
    }
}

/// Batched GEMM over `out` (row-major `b × m × n`): one multi-threaded GEMM per batch when the
/// matrices are large, batches across threads otherwise.
#[allow(clippy::too_many_arguments)]
pub(crate) fn batched_gemm<T: GemmScalar>(
    (b, m, n, k): (usize, usize, usize, usize),
    out: &mut [T],
    lhs: (&[T], &[usize], usize, usize),
    rhs: (&[T], &[usize], usize, usize),
    parallel: bool,
) -> Result<(), BackendError> {
    let mn = m * n;
    if mn == 0 {
        return Ok(());
    }
    let one = |bi: usize, o: &mut [T], threads: usize| {
        gemm::gemm(
            m,
            n,
            k,
            o,
            0,
            n,
            false,
            MatRef {
                data: lhs.0,
                offset: lhs.1[bi],
                row_stride: lhs.2,
                col_stride: lhs.3,
            },
            MatRef {
                data: rhs.0,
                offset: rhs.1[bi],
                row_stride: rhs.2,
                col_stride: rhs.3,
            },
            threads,
        )
    };
    let big = m * n * k >= 1 << 18;
    if parallel && (b == 1 || big) {
        let threads = rayon::current_num_threads();
        out.chunks_mut(mn)
            .enumerate()
            .try_for_each(|(bi, o)| one(bi, o, threads))
    } else if parallel {
        out.par_chunks_mut(mn)
            .enumerate()
            .try_for_each(|(bi, o)| one(bi, o, 1))
    } else {
        out.chunks_mut(mn)
            .enumerate()
            .try_for_each(|(bi, o)| one(bi, o, 1))
    }
}

/// A floating-point (or complex) dot in arithmetic `T`; raw bytes of the row-major result.
fn float_dot<T: Native>(
    p: &DotPlan,
    lhs: &ArrayRef<'_>,
    rhs: &ArrayRef<'_>,
    result: ElementType,
    parallel: bool,
) -> Result<Vec<u8>, BackendError> {
    let l = operand::<T>(lhs, &p.lhs_batch, &p.lhs_free, &p.lhs_contracting);
    let r = operand::<T>(rhs, &p.rhs_batch, &p.rhs_contracting, &p.rhs_free);
    let len = p.b * p.m * p.n;
    let run = |out: &mut [T]| {
        batched_gemm(
            (p.b, p.m, p.n, p.k),
            out,
            (&l.data, &l.offsets, l.row_stride, l.col_stride),
            (&r.data, &r.offsets, r.row_stride, r.col_stride),
            parallel,
        )
    };
    if result == T::NATIVE {
        let mut status = Ok(());
        let bytes = crate::buffer::with_output::<T>(len, |out| status = run(out));
        status.map(|()| bytes)
    } else {
        let mut out = vec![T::default(); len];
        run(&mut out)?;
        Ok(elements::to_bytes(&out, result))
    }
}

/// An integer dot: 64-bit wrapping products and sums, wrapped to the result width.
fn int_dot(
    p: &DotPlan,
    lhs: &ArrayRef<'_>,
    rhs: &ArrayRef<'_>,
    result: ElementType,
    parallel: bool,
) -> Vec<u8> {
    let lorder: Vec<usize> = p
        .lhs_batch
        .iter()
        .chain(&p.lhs_free)
        .chain(&p.lhs_contracting)
        .copied()
        .collect();
    let rorder: Vec<usize> = p
        .rhs_batch
        .iter()
        .chain(&p.rhs_free)
        .chain(&p.rhs_contracting)
        .copied()
        .collect();
    let l = elements::pack::<i64>(lhs.shape(), lhs.data(), &lorder);
    let r = elements::pack::<i64>(rhs.shape(), rhs.data(), &rorder);
    let (m, n, k) = (p.m, p.n, p.k);
    let mut out = Vec::with_capacity(p.b * m * n);
    for bi in 0..p.b {
        out.extend(gemm::int_gemm(
            m,
            n,
            k,
            &l[bi * m * k..(bi + 1) * m * k],
            &r[bi * n * k..(bi + 1) * n * k],
            parallel,
        ));
    }
    elements::to_bytes(&out, result)
}
