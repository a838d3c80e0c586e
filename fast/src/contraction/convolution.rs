//! `convolution` (seed 004, ConvWithGeneralPadding, general dilated form): window strides, low/high
//! padding (negative cuts), lhs (base) and rhs (window) dilation, window reversal,
//! `feature_group_count`, `batch_group_count`, dimension numbers from `dim_labels`, any number of
//! spatial dimensions, any layouts.
//!
//! General path: im2col + GEMM. For each output batch and block of output features sharing one
//! feature group and one batch group, the input windows are gathered into a `positions ×
//! (features·window)` matrix (zeros for padding and dilation holes) and multiplied by the kernel
//! as an `out_features × (features·window)` matrix (the kernel element at stored window index `w`
//! meets the input at window position `rev(w)`). Group rules (seed 004 and the lead's decision):
//! input features split into `G` contiguous groups and kernel output features into `G` groups;
//! the batch split into `B` contiguous groups matched with `B` groups of output features.
//!
//! Fast path (f32, two spatial dimensions, `bf01_oi01->bf01`-style contiguous operands, stride 1,
//! no dilation or reversal, padding >= 0, one group): the padded image is copied once per kernel
//! column shift `s` (a `(C·S) × (Hp·Wp)` matrix), and each kernel row `r` is one GEMM
//! `K × (C·S) · (C·S) × (Ho·Wp)` (in bands of output rows that stay in cache) accumulated into a
//! wide output whose `Wp − Wo` extra columns per
//! row are dropped — no full im2col.

use super::dot::Native;
use super::elements::{self, Arith, Domain};
use super::gemm::{self, MatRef};
use super::window::{self, Dim};
use super::{bad, finish_in_layout, result_shape, Ctx};
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::{ConvolutionDimensionNumbers, Window};
use conformance_spec::{index, ArrayShape, BackendError, ElementType, Layout};
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;

/// Output columns (wide rows of `Wp` positions) per band of the NCHW fast path: the band of the
/// output (`K × BAND_COLUMNS` f32) and of the shifted input (`C·S × BAND_COLUMNS`) stay in L2.
const BAND_COLUMNS: usize = 512;

/// A validated convolution.
pub(crate) struct ConvPlan {
    pub(crate) dn: ConvolutionDimensionNumbers,
    pub(crate) dims: Vec<Dim>,
    /// Input batch, input features, kernel input features, kernel output features.
    pub(crate) batch: usize,
    pub(crate) features: usize,
    pub(crate) kernel_in: usize,
    pub(crate) kernel_out: usize,
    pub(crate) feature_groups: usize,
    pub(crate) batch_groups: usize,
    /// Output spatial sizes.
    pub(crate) out_spatial: Vec<usize>,
}

fn dim(v: i64, rank: usize, what: &str) -> Result<usize, String> {
    usize::try_from(v)
        .ok()
        .filter(|&d| d < rank)
        .ok_or_else(|| format!("{what} dimension {v} out of range for rank {rank}"))
}

impl ConvPlan {
    /// Checks the attributes against the shapes (seed 004, Conv). Errors name the rule broken.
    pub(crate) fn new(
        dn: &ConvolutionDimensionNumbers,
        window: &Window,
        feature_groups: i64,
        batch_groups: i64,
        lhs: &ArrayShape,
        rhs: &ArrayShape,
        result: &ArrayShape,
    ) -> Result<ConvPlan, String> {
        dn.validate()?;
        let n = dn.input_spatial_dimensions.len();
        if lhs.rank() != n + 2 || rhs.rank() != n + 2 || result.rank() != n + 2 {
            return Err(format!(
                "operands and result must have rank {} (spatial + 2)",
                n + 2
            ));
        }
        if dn.kernel_spatial_dimensions.len() != n || dn.output_spatial_dimensions.len() != n {
            return Err("dimension numbers with different spatial ranks".into());
        }
        let ld = |v: i64| dim(v, lhs.rank(), "input").map(|d| lhs.dimensions[d] as usize);
        let rd = |v: i64| dim(v, rhs.rank(), "kernel").map(|d| rhs.dimensions[d] as usize);
        let batch = ld(dn.input_batch_dimension)?;
        let features = ld(dn.input_feature_dimension)?;
        let kernel_in = rd(dn.kernel_input_feature_dimension)?;
        let kernel_out = rd(dn.kernel_output_feature_dimension)?;
        if feature_groups < 1 || batch_groups < 1 {
            return Err("group counts must be >= 1".into());
        }
        let (g, b) = (feature_groups as usize, batch_groups as usize);
        if kernel_in * g != features {
            return Err(format!(
                "{features} input features with feature_group_count={g} need a kernel input feature size of {}",
                features / g
            ));
        }
        if kernel_out % g != 0 || kernel_out % b != 0 || batch % b != 0 {
            return Err(format!(
                "kernel output features {kernel_out} and batch {batch} must divide by the group counts {g} and {b}"
            ));
        }
        let inputs: Vec<i64> = dn
            .input_spatial_dimensions
            .iter()
            .map(|&d| ld(d).map(|s| s as i64))
            .collect::<Result<_, _>>()?;
        let dims = window::dims(window, &inputs)?;
        for (k, (&kd, w)) in dn.kernel_spatial_dimensions.iter().zip(&dims).enumerate() {
            if rd(kd)? as i64 != w.w.size {
                return Err(format!(
                    "window size {} differs from the kernel's spatial dimension {k}",
                    w.w.size
                ));
            }
        }
        let out_spatial: Vec<usize> = dims.iter().map(|d| d.output_size() as usize).collect();
        let mut expect = vec![0i64; n + 2];
        expect[dim(dn.output_batch_dimension, n + 2, "output")?] = (batch / b) as i64;
        expect[dim(dn.output_feature_dimension, n + 2, "output")?] = kernel_out as i64;
        for (&d, &s) in dn.output_spatial_dimensions.iter().zip(&out_spatial) {
            expect[dim(d, n + 2, "output")?] = s as i64;
        }
        if expect != result.dimensions {
            return Err(format!(
                "result dimensions {:?}, expected {expect:?}",
                result.dimensions
            ));
        }
        Ok(ConvPlan {
            dn: dn.clone(),
            dims,
            batch,
            features,
            kernel_in,
            kernel_out,
            feature_groups: g,
            batch_groups: b,
            out_spatial,
        })
    }

    /// The row-major `[batch, feature, spatial...]` output as a shape with the result's
    /// dimensions (a layout over them).
    fn computed_shape(&self, result: &ArrayShape) -> ArrayShape {
        let mut major_to_minor = vec![
            self.dn.output_batch_dimension,
            self.dn.output_feature_dimension,
        ];
        major_to_minor.extend(&self.dn.output_spatial_dimensions);
        ArrayShape::new(result.element_type, result.dimensions.clone())
            .with_layout(Layout::new(major_to_minor.into_iter().rev().collect()))
    }
}

/// `convolution` of seed 004. Errors: malformed attributes or shapes ([`BackendError::Invalid`]);
/// pred operands ([`BackendError::Unsupported`]).
pub(super) fn convolution<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let (lhs, rhs) = (cx.array(0)?, cx.array(1)?);
    let result = result_shape(cx.instr)?;
    elements::same_operand_types(lhs.shape(), rhs.shape())?;
    let dn = ConvolutionDimensionNumbers::from_instruction(cx.instr).map_err(bad)?;
    let window = match cx.instr.attr_window("window") {
        Some(w) => w.clone(),
        None => Window::from_instruction(cx.instr).map_err(bad)?,
    };
    let g = cx.instr.attr_int("feature_group_count").unwrap_or(1);
    let b = cx.instr.attr_int("batch_group_count").unwrap_or(1);
    let plan = ConvPlan::new(&dn, &window, g, b, lhs.shape(), rhs.shape(), result).map_err(bad)?;
    let p: usize = plan.out_spatial.iter().product();
    let work = plan.batch / plan.batch_groups
        * plan.kernel_out
        * p
        * plan.kernel_in
        * plan
            .dims
            .iter()
            .map(|d| d.w.size as usize)
            .product::<usize>();
    let parallel = cx.parallel(work / 64);
    let computed = plan.computed_shape(result);
    let ty = result.element_type;
    let bytes = match elements::domain(lhs.element_type(), ty)? {
        Domain::F32 => {
            if let Some(out) = nchw_fast(&plan, &lhs, &rhs, parallel)? {
                if ty == ElementType::F32 {
                    crate::buffer::with_output::<f32>(out.len(), |o| o.copy_from_slice(&out))
                } else {
                    elements::to_bytes(&out, ty)
                }
            } else {
                elements::to_bytes(&general::<f32>(&plan, &lhs, &rhs, parallel, float_mm)?, ty)
            }
        }
        Domain::F64 => {
            elements::to_bytes(&general::<f64>(&plan, &lhs, &rhs, parallel, float_mm)?, ty)
        }
        Domain::C32 => elements::to_bytes(
            &general::<Complex32>(&plan, &lhs, &rhs, parallel, float_mm)?,
            ty,
        ),
        Domain::C64 => elements::to_bytes(
            &general::<Complex64>(&plan, &lhs, &rhs, parallel, float_mm)?,
            ty,
        ),
        Domain::Int => {
            elements::to_bytes(&general::<i64>(&plan, &lhs, &rhs, parallel, int_mm)?, ty)
        }
    };
    finish_in_layout(
        result,
        &computed,
        bytes,
        cx.parallel(result.element_count()),
    )
}

/// `dst (m × n, row stride n) = a (m × k, row-major) · colᵀ` where `col_t` is `n × k` row-major.
type MatMul<T> = fn(usize, usize, usize, &[T], &[T], &mut [T], usize) -> Result<(), BackendError>;

fn float_mm<T: Native>(
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    col_t: &[T],
    dst: &mut [T],
    threads: usize,
) -> Result<(), BackendError> {
    gemm::gemm(
        m,
        n,
        k,
        dst,
        0,
        n,
        false,
        MatRef {
            data: a,
            offset: 0,
            row_stride: k,
            col_stride: 1,
        },
        MatRef {
            data: col_t,
            offset: 0,
            row_stride: 1,
            col_stride: k,
        },
        threads,
    )
}

fn int_mm(
    m: usize,
    n: usize,
    k: usize,
    a: &[i64],
    col_t: &[i64],
    dst: &mut [i64],
    threads: usize,
) -> Result<(), BackendError> {
    dst[..m * n].copy_from_slice(&gemm::int_gemm(m, n, k, a, col_t, threads > 1));
    Ok(())
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The general path (see the module docs); row-major `[out batch, out feature, spatial...]`.
fn general<T: Arith>(
    p: &ConvPlan,
    lhs: &ArrayRef<'_>,
    rhs: &ArrayRef<'_>,
    parallel: bool,
    mm: MatMul<T>,
) -> Result<Vec<T>, BackendError> {
    let dn = &p.dn;
    let n = p.dims.len();
    let us = |v: i64| v as usize;
    // Kernel as [out feature, in feature, window...] (stored window order).
    let mut korder = vec![
        us(dn.kernel_output_feature_dimension),
        us(dn.kernel_input_feature_dimension),
    ];
    korder.extend(dn.kernel_spatial_dimensions.iter().map(|&d| us(d)));
    let kmat = elements::pack::<T>(rhs.shape(), rhs.data(), &korder);
    // Input as [batch, feature, spatial...] row-major.
    let mut lorder = vec![us(dn.input_batch_dimension), us(dn.input_feature_dimension)];
    lorder.extend(dn.input_spatial_dimensions.iter().map(|&d| us(d)));
    let input = elements::pack::<T>(lhs.shape(), lhs.data(), &lorder);
    let in_sizes: Vec<usize> = p.dims.iter().map(|d| d.input as usize).collect();
    let in_plane: usize = in_sizes.iter().product();
    let wsizes: Vec<usize> = p.dims.iter().map(|d| d.w.size as usize).collect();
    let wtotal: usize = wsizes.iter().product();
    let positions: usize = p.out_spatial.iter().product();
    let kw = p.kernel_in * wtotal;
    // For each (output position, stored window index): the input plane offset, or None.
    let tables: Vec<Vec<Vec<Option<usize>>>> = p.dims.iter().map(Dim::table).collect();
    let mut gather: Vec<Option<usize>> = Vec::with_capacity(positions * wtotal);
    if positions > 0 {
        let mut o = vec![0usize; n];
        for _ in 0..positions {
            let mut w = vec![0usize; n];
            for _ in 0..wtotal {
                let mut off = Some(0usize);
                let mut stride = 1usize;
                for d in (0..n).rev() {
                    let k = if p.dims[d].w.window_reversal {
                        wsizes[d] - 1 - w[d]
                    } else {
                        w[d]
                    };
                    off = match (off, tables[d][o[d]][k]) {
                        (Some(a), Some(i)) => Some(a + i * stride),
                        _ => None,
                    };
                    stride *= in_sizes[d];
                }
                gather.push(off);
                elements::advance(&mut w, &wsizes);
            }
            elements::advance(&mut o, &p.out_spatial);
        }
    }
    let out_batch = p.batch / p.batch_groups;
    let per_fg = p.kernel_out / p.feature_groups;
    let per_bg = p.kernel_out / p.batch_groups;
    let cs = gcd(per_fg, per_bg).max(1);
    let plane = p.kernel_out * positions;
    let mut out = vec![T::default(); out_batch * plane];
    if plane == 0 {
        return Ok(out);
    }
    let one = |ob: usize, o: &mut [T], threads: usize| -> Result<(), BackendError> {
        let mut col_t = vec![T::default(); positions * kw];
        let mut last: Option<(usize, usize)> = None;
        for c in 0..p.kernel_out / cs {
            let oz = c * cs;
            let (fg, bg) = (oz / per_fg, oz / per_bg);
            let batch = bg * out_batch + ob;
            if last != Some((batch, fg)) {
                last = Some((batch, fg));
                for (pos, row) in col_t
                    .chunks_exact_mut(kw.max(1))
                    .enumerate()
                    .take(positions)
                {
                    for iz in 0..p.kernel_in {
                        let base = (batch * p.features + fg * p.kernel_in + iz) * in_plane;
                        for (w, x) in row[iz * wtotal..(iz + 1) * wtotal].iter_mut().enumerate() {
                            *x = match gather[pos * wtotal + w] {
                                Some(off) => input[base + off],
                                None => T::default(),
                            };
                        }
                    }
                }
            }
            mm(
                cs,
                positions,
                kw,
                &kmat[oz * kw..(oz + cs) * kw],
                &col_t,
                &mut o[oz * positions..(oz + cs) * positions],
                threads,
            )?;
        }
        Ok(())
    };
    for_each_batch(&mut out, plane, parallel && out_batch > 1, parallel, one)?;
    Ok(out)
}

/// Runs `one(b, plane_b, threads)` on every batch plane of `out` (consecutive chunks of `plane`
/// elements): with `across_batches`, the planes in parallel on the rayon pool, one GEMM thread
/// each; otherwise one after the other, each GEMM on all of the pool's threads when `parallel`
/// (else on 1). Errors: the first error of `one`.
fn for_each_batch<T: Send>(
    out: &mut [T],
    plane: usize,
    across_batches: bool,
    parallel: bool,
    one: impl Fn(usize, &mut [T], usize) -> Result<(), BackendError> + Sync,
) -> Result<(), BackendError> {
    if across_batches {
        out.par_chunks_mut(plane)
            .enumerate()
            .try_for_each(|(b, o)| one(b, o, 1))
    } else {
        let threads = if parallel {
            rayon::current_num_threads()
        } else {
            1
        };
        out.chunks_mut(plane)
            .enumerate()
            .try_for_each(|(b, o)| one(b, o, threads))
    }
}

/// True when dimensions `order` (major to minor) of `shape` are laid out row-major, unpadded.
fn row_major_in(shape: &ArrayShape, order: &[i64]) -> bool {
    if shape.layout.is_padded() {
        return false;
    }
    let strides = index::strides(shape);
    let mut expect = 1i64;
    for &d in order.iter().rev() {
        if strides[d as usize] != expect && shape.dimensions[d as usize] != 1 {
            return false;
        }
        expect *= shape.dimensions[d as usize];
    }
    true
}

/// The NCHW/OIHW fast path (module docs); `None` when the convolution is not of that form.
fn nchw_fast(
    p: &ConvPlan,
    lhs: &ArrayRef<'_>,
    rhs: &ArrayRef<'_>,
    parallel: bool,
) -> Result<Option<Vec<f32>>, BackendError> {
    let dn = &p.dn;
    let simple = p.dims.len() == 2
        && p.feature_groups == 1
        && p.batch_groups == 1
        && lhs.element_type() == ElementType::F32
        && p.dims.iter().all(|d| {
            d.w.stride == 1
                && d.w.window_dilation == 1
                && d.w.base_dilation == 1
                && !d.w.window_reversal
                && d.w.padding_low >= 0
                && d.w.padding_high >= 0
                && d.w.size >= 1
        });
    if !simple {
        return Ok(None);
    }
    let mut lo = vec![dn.input_batch_dimension, dn.input_feature_dimension];
    lo.extend(&dn.input_spatial_dimensions);
    let mut ko = vec![
        dn.kernel_output_feature_dimension,
        dn.kernel_input_feature_dimension,
    ];
    ko.extend(&dn.kernel_spatial_dimensions);
    if !row_major_in(lhs.shape(), &lo) || !row_major_in(rhs.shape(), &ko) {
        return Ok(None);
    }
    let x = crate::buffer::typed::<f32>(lhs.data());
    let wts = crate::buffer::typed::<f32>(rhs.data());
    let (bn, c, k) = (p.batch, p.features, p.kernel_out);
    let (h, w) = (p.dims[0].input as usize, p.dims[1].input as usize);
    let (r, s) = (p.dims[0].w.size as usize, p.dims[1].w.size as usize);
    let (pt, pl) = (
        p.dims[0].w.padding_low as usize,
        p.dims[1].w.padding_low as usize,
    );
    let hp = h + pt + p.dims[0].w.padding_high as usize;
    let wp = w + pl + p.dims[1].w.padding_high as usize;
    let (ho, wo) = (p.out_spatial[0], p.out_spatial[1]);
    if ho == 0 || wo == 0 || k == 0 || bn == 0 {
        return Ok(Some(vec![0.0; bn * k * ho * wo]));
    }
    let l = hp * wp;
    let j = ho * wp;
    let cols = c * s;
    // Kernel row r as K × (C·S): wr[r][k][c·S + s] = W[k, c, r, s].
    let wr: Vec<Vec<f32>> = (0..r)
        .map(|ri| {
            let mut m = vec![0.0f32; k * cols];
            for kk in 0..k {
                for cc in 0..c {
                    for si in 0..s {
                        m[kk * cols + cc * s + si] = wts[((kk * c + cc) * r + ri) * s + si];
                    }
                }
            }
            m
        })
        .collect();
    let plane = k * ho * wo;
    let mut out = vec![0.0f32; bn * plane];
    let one = |b: usize, o: &mut [f32], threads: usize| -> Result<(), BackendError> {
        // xs[(c·S + s)·L + t] = padded[c][s + t] (0 beyond the padded image).
        let mut xs = vec![0.0f32; cols * l];
        for cc in 0..c {
            let src = &x[(b * c + cc) * h * w..][..h * w];
            for si in 0..s {
                let row = &mut xs[(cc * s + si) * l..][..l];
                for hh in 0..h {
                    // padded position (hh + pt, ww + pl) lands at t = (hh + pt)·Wp + ww + pl − s.
                    let t0 = (hh + pt) * wp + pl;
                    for ww in 0..w {
                        let t = t0 + ww;
                        if t >= si {
                            row[t - si] = src[hh * w + ww];
                        }
                    }
                }
            }
        }
        let mut y = vec![0.0f32; k * j];
        // Bands of output rows: the band of `y` stays in cache across the R accumulations.
        let band_rows = (BAND_COLUMNS / wp).clamp(1, ho);
        for h0 in (0..ho).step_by(band_rows) {
            let cols_in_band = (band_rows.min(ho - h0)) * wp;
            for (ri, wm) in wr.iter().enumerate() {
                gemm::gemm(
                    k,
                    cols_in_band,
                    cols,
                    &mut y,
                    h0 * wp,
                    j,
                    ri > 0,
                    MatRef {
                        data: wm,
                        offset: 0,
                        row_stride: cols,
                        col_stride: 1,
                    },
                    MatRef {
                        data: &xs,
                        offset: (ri + h0) * wp,
                        row_stride: l,
                        col_stride: 1,
                    },
                    threads,
                )?;
            }
        }
        for kk in 0..k {
            for hh in 0..ho {
                o[(kk * ho + hh) * wo..][..wo].copy_from_slice(&y[kk * j + hh * wp..][..wo]);
            }
        }
        Ok(())
    };
    for_each_batch(&mut out, plane, parallel && bn > 1, parallel, one)?;
    Ok(Some(out))
}
