//! `batch-norm-training`, `batch-norm-inference` and `batch-norm-grad` (seed 004, BatchNormTraining,
//! BatchNormInference, BatchNormGrad) with seed 004's formulas (`docs/linalg-semantics.md`): for
//! feature `l` (dimension `feature_index`), `N` elements per feature,
//! `μ = Σx/N`, `σ² = Σ(x−μ)²/N`, `y = γ·(x−μ)/√(σ²+ε) + β`; inference with the given mean and
//! variance; grad `∇x = γ/√(σ²+ε)·(∇y − Σ∇y/N − (x−μ)·Σ∇y(x−μ)/(N·(σ²+ε)))`,
//! `∇γ = Σ∇y(x−μ)/√(σ²+ε)`, `∇β = Σ∇y`. `ε` is the attribute rounded to f32.
//!
//! Element types f32, f64, bf16 and f16: every element is widened to f64, sums accumulate in f64
//! (sixteen lanes per run; the variance in two passes over each cache-sized block, mean first, then
//! squared deviations, the blocks combined by Chan et al.'s pairwise update) and each result is
//! rounded once into the element type. The loops of the moments and of the normalization run in
//! an AVX2+FMA build where the CPU has it (detected at run time; the same operations in the same
//! order, so the same bits as the portable build, which the unit tests check; f32 sums use explicit
//! AVX2 vectors). The arrays are processed in their own physical layout (seen as
//! `[outer, F, inner]` around the feature dimension; padded layouts go through a row-major copy):
//! reductions over a grid of (row block, feature block) tasks, combined
//! in a fixed order (the same bits whatever the thread count), and element-wise passes over equal
//! chunks of the buffer, both on rayon's pool.

use super::{arity, bad, dims, finish, finish_row_major, result_array, result_tuple, row_major};
use super::{map_range, row_major_elements};
use crate::buffer::{typed, with_output};
use crate::layout;
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::{AttrValue, HloInstruction};
use conformance_spec::{ArrayShape, BackendError, ElementType};
use half::{bf16, f16};
use std::borrow::Cow;

/// Elements per parallel task.
const TASK_ELEMENTS: usize = 1 << 14;

/// The element types of the batch-norm operations, widened to f64 for the arithmetic.
pub trait Elem: bytemuck::Pod + Send + Sync {
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// `v` rounded to nearest-even into this type.
    fn from_f64(v: f64) -> Self;
    /// The slice as f32 when this type is f32 (for the f32 SIMD kernels).
    #[inline(always)]
    fn as_f32s(_xs: &[Self]) -> Option<&[f32]> {
        None
    }
}

impl Elem for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn as_f32s(xs: &[f32]) -> Option<&[f32]> {
        Some(xs)
    }
}

impl Elem for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f64 {
        v
    }
}

impl Elem for bf16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> bf16 {
        bf16::from_f64(v)
    }
}

impl Elem for f16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f16 {
        f16::from_f64(v)
    }
}

/// `x` seen as `[outer, features, inner]` in its working layout.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    outer: usize,
    features: usize,
    inner: usize,
    parallel: bool,
    /// Whether the loops run in their AVX2+FMA builds ([`simd_available`]; the same bits).
    simd: bool,
}

impl Geometry {
    /// Elements per feature.
    fn per_feature(&self) -> usize {
        self.outer * self.inner
    }

    /// The tasks of a reduction: `(features per task, rows per task, row chunks, feature
    /// chunks)`, from the shape alone (never from the thread count).
    fn grid(&self) -> (usize, usize, usize, usize) {
        let (outer, nf, inner) = (self.outer, self.features, self.inner);
        let fc = if inner >= TASK_ELEMENTS {
            1
        } else {
            (TASK_ELEMENTS / inner.max(1)).clamp(1, nf.max(1))
        };
        let ro = (TASK_ELEMENTS / (fc * inner.max(1))).max(1);
        (fc, ro, outer.div_ceil(ro), nf.div_ceil(fc))
    }

    /// Per feature, the sums of `run(l, start, len)` over every run of that feature (`start`: the
    /// run's first position in the buffer), over a grid of tasks combined in a fixed order.
    fn reduce<const K: usize>(
        &self,
        run: impl Fn(usize, usize, usize) -> [f64; K] + Sync + Send,
    ) -> Vec<[f64; K]> {
        let (outer, nf, inner) = (self.outer, self.features, self.inner);
        if nf == 0 {
            return Vec::new();
        }
        let (fc, ro, row_chunks, feature_chunks) = self.grid();
        let partial = map_range(row_chunks * feature_chunks, self.parallel, |t| {
            let (rc, fcx) = (t / feature_chunks, t % feature_chunks);
            let (f0, f1) = (fcx * fc, ((fcx + 1) * fc).min(nf));
            let mut acc = vec![[0.0f64; K]; f1 - f0];
            for o in rc * ro..((rc + 1) * ro).min(outer) {
                for (l, a) in (f0..f1).zip(acc.iter_mut()) {
                    let s = run(l, (o * nf + l) * inner, inner);
                    for k in 0..K {
                        a[k] += s[k];
                    }
                }
            }
            acc
        });
        let mut out = vec![[0.0f64; K]; nf];
        for (t, acc) in partial.iter().enumerate() {
            let f0 = (t % feature_chunks) * fc;
            for (j, a) in acc.iter().enumerate() {
                for k in 0..K {
                    out[f0 + j][k] += a[k];
                }
            }
        }
        out
    }

    /// Per feature, the mean and the biased variance of `x`, reading `x` from memory once: each
    /// task makes two passes over its block (which stays in cache): its mean first, then the sum
    /// of squared deviations from it; the blocks' `(count, mean, M2)` then combine in a fixed
    /// order by Chan et al.'s pairwise update (`δ = mean_b − mean_a`,
    /// `M2 = M2_a + M2_b + δ²·n_a·n_b/n`), all in f64.
    fn moments<T: Elem>(&self, x: &[T]) -> Vec<(f64, f64)> {
        let (outer, nf, inner) = (self.outer, self.features, self.inner);
        if nf == 0 {
            return Vec::new();
        }
        let (fc, ro, row_chunks, feature_chunks) = self.grid();
        let partial = map_range(row_chunks * feature_chunks, self.parallel, |t| {
            let (rc, fcx) = (t / feature_chunks, t % feature_chunks);
            let (f0, f1) = (fcx * fc, ((fcx + 1) * fc).min(nf));
            let rows = rc * ro..((rc + 1) * ro).min(outer);
            let count = (rows.len() * inner) as f64;
            (f0..f1)
                .map(|l| {
                    let runs = Runs {
                        x,
                        first: (rows.start * nf + l) * inner,
                        rows: rows.len(),
                        stride: nf * inner,
                        len: inner,
                    };
                    let (mean, m2) = block_moments(self.simd, &runs);
                    (count, mean, m2)
                })
                .collect::<Vec<_>>()
        });
        let mut acc = vec![(0.0f64, 0.0f64, 0.0f64); nf];
        for (t, part) in partial.iter().enumerate() {
            let f0 = (t % feature_chunks) * fc;
            for (j, &(nb, mb, m2b)) in part.iter().enumerate() {
                let a = &mut acc[f0 + j];
                let (na, ma, m2a) = *a;
                let n = na + nb;
                if nb == 0.0 {
                    continue;
                }
                let delta = mb - ma;
                *a = (
                    n,
                    ma + delta * (nb / n),
                    m2a + m2b + delta * delta * (na * nb / n),
                );
            }
        }
        acc.iter().map(|&(n, mean, m2)| (mean, m2 / n)).collect()
    }

    /// Fills `out` (the whole buffer) by `f(l, start, segment)`: `segment` the part of one run of
    /// feature `l` starting at buffer position `start`, in equal chunks on the pool.
    fn map<T: Send>(&self, out: &mut [T], f: impl Fn(usize, usize, &mut [T]) + Sync + Send) {
        let (nf, inner) = (self.features, self.inner.max(1));
        super::for_chunks(out, TASK_ELEMENTS, self.parallel, |i, chunk| {
            let mut p = i * TASK_ELEMENTS;
            let mut rest = chunk;
            while !rest.is_empty() {
                let r = p / inner;
                let len = (inner - p % inner).min(rest.len());
                let (seg, tail) = rest.split_at_mut(len);
                f(r % nf, p, seg);
                p += len;
                rest = tail;
            }
        });
    }
}

/// The runs of one feature in one block of rows: `rows` runs of `len` elements of `x`, the first at
/// `first`, each `stride` after the previous.
struct Runs<'x, T> {
    x: &'x [T],
    first: usize,
    rows: usize,
    stride: usize,
    len: usize,
}

impl<T> Runs<'_, T> {
    /// Run `o` of the block.
    #[inline(always)]
    fn run(&self, o: usize) -> &[T] {
        &self.x[self.first + o * self.stride..][..self.len]
    }
}

/// Lanes of the f64 sums (four AVX2 vectors, enough independent additions to hide their
/// latency).
const LANES: usize = 16;

/// Σ f(x) over a run, in [`LANES`] f64 lanes combined pairwise, then the remainder in order.
#[inline(always)]
fn lane_sum<T: Elem>(xs: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = xs.chunks_exact(LANES);
    let rem = chunks.remainder();
    for c in chunks {
        for j in 0..LANES {
            acc[j] += f(c[j].to_f64());
        }
    }
    let mut width = LANES / 2;
    while width > 0 {
        for j in 0..width {
            acc[j] += acc[j + width];
        }
        width /= 2;
    }
    let mut s = acc[0];
    for &v in rem {
        s += f(v.to_f64());
    }
    s
}

/// The mean and `M2 = Σ(x − mean)²` of a block's runs of one feature: two passes in f64 (the
/// block is in cache for the second). `sum(run, None)` is [`lane_sum`] of the values,
/// `sum(run, Some(mean))` of their squared deviations from `mean`.
#[inline(always)]
fn block_moments_with<T: Elem>(
    runs: &Runs<'_, T>,
    sum: impl Fn(&[T], Option<f64>) -> f64,
) -> (f64, f64) {
    // Plain loops (no iterator adapters, which would not be inlined into the AVX2 builds).
    let count = (runs.rows * runs.len) as f64;
    let mut total = 0.0f64;
    for o in 0..runs.rows {
        total += sum(runs.run(o), None);
    }
    let mean = if count > 0.0 { total / count } else { 0.0 };
    let mut m2 = 0.0f64;
    for o in 0..runs.rows {
        m2 += sum(runs.run(o), Some(mean));
    }
    (mean, m2)
}

/// [`block_moments_with`] the portable [`lane_sum`].
#[inline(always)]
fn block_moments_body<T: Elem>(runs: &Runs<'_, T>) -> (f64, f64) {
    block_moments_with(runs, |r, mean| match mean {
        None => lane_sum(r, |v| v),
        Some(m) => lane_sum(r, |v| (v - m) * (v - m)),
    })
}

/// [`lane_sum`] of f32 values (`mean` `None`) or of their squared deviations from `mean`, with
/// AVX2: the [`LANES`] f64 lanes are four vectors, combined in [`lane_sum`]'s order, and the same
/// roundings (no fused operations), so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn lane_sum_f32_avx2(xs: &[f32], mean: Option<f64>) -> f64 {
    use std::arch::x86_64::*;
    let m = _mm256_set1_pd(mean.unwrap_or(0.0));
    let mut acc = [_mm256_setzero_pd(); 4];
    let chunks = xs.chunks_exact(LANES);
    let rem = chunks.remainder();
    for c in chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            let q = &c[4 * k..4 * k + 4];
            // SAFETY: `q` holds exactly 4 f32 (128 bits); unaligned loads are allowed.
            let v = _mm256_cvtps_pd(unsafe { _mm_loadu_ps(q.as_ptr()) });
            let t = if mean.is_some() {
                let d = _mm256_sub_pd(v, m);
                _mm256_mul_pd(d, d)
            } else {
                v
            };
            *a = _mm256_add_pd(*a, t);
        }
    }
    // Lanes j and j + 8, then j and j + 4 (as `lane_sum`), then the last four in scalar order.
    let v = _mm256_add_pd(_mm256_add_pd(acc[0], acc[2]), _mm256_add_pd(acc[1], acc[3]));
    let mut lanes = [0.0f64; 4];
    // SAFETY: `lanes` holds exactly 4 f64 (256 bits); unaligned stores are allowed.
    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), v) };
    let mut s = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
    for &x in rem {
        let x = x as f64;
        s += match mean {
            None => x,
            Some(m) => (x - m) * (x - m),
        };
    }
    s
}

/// [`block_moments_body`] for f32 with [`lane_sum_f32_avx2`] (the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn block_moments_f32_avx2(runs: &Runs<'_, f32>) -> (f64, f64) {
    // (The closure inherits this function's target features.)
    block_moments_with(runs, |r, mean| lane_sum_f32_avx2(r, mean))
}

/// `y = T((x − μ)·a + β)` over a segment, in f64.
#[inline(always)]
fn affine_body<T: Elem>(xs: &[T], out: &mut [T], mu: f64, a: f64, b: f64) {
    for (o, &v) in out.iter_mut().zip(xs) {
        *o = T::from_f64((v.to_f64() - mu) * a + b);
    }
}

/// [`block_moments_body`] compiled for AVX2 and FMA (the same operations, hence the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn block_moments_avx2<T: Elem>(runs: &Runs<'_, T>) -> (f64, f64) {
    block_moments_body(runs)
}

/// [`affine_body`] compiled for AVX2 and FMA (the same operations, hence the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn affine_avx2<T: Elem>(xs: &[T], out: &mut [T], mu: f64, a: f64, b: f64) {
    affine_body(xs, out, mu, a, b)
}

/// True when this CPU runs the AVX2+FMA builds of the loops (detected at run time).
fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`block_moments_body`], in its AVX2+FMA build when `simd`.
fn block_moments<T: Elem>(simd: bool, runs: &Runs<'_, T>) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        if let Some(x) = T::as_f32s(runs.x) {
            let runs = Runs {
                x,
                first: runs.first,
                rows: runs.rows,
                stride: runs.stride,
                len: runs.len,
            };
            // SAFETY: `simd` is set only where `simd_available()` detected AVX2 and FMA on this
            // CPU.
            return unsafe { block_moments_f32_avx2(&runs) };
        }
        // SAFETY: as above.
        return unsafe { block_moments_avx2(runs) };
    }
    let _ = simd;
    block_moments_body(runs)
}

/// [`affine_body`], in its AVX2+FMA build when `simd`.
fn affine<T: Elem>(simd: bool, xs: &[T], out: &mut [T], mu: f64, a: f64, b: f64) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where `simd_available()` detected AVX2 and FMA on this CPU.
        return unsafe { affine_avx2(xs, out, mu, a, b) };
    }
    let _ = simd;
    affine_body(xs, out, mu, a, b)
}

/// The parsed attributes and working layout of one batch-norm instruction.
struct Setup {
    epsilon: f64,
    /// `x`'s shape in the layout the buffers are processed in.
    work: ArrayShape,
    geometry: Geometry,
}

fn setup(instr: &HloInstruction, x: &ArrayRef<'_>, exec: Exec) -> Result<Setup, BackendError> {
    let op = instr.opcode;
    let rank = x.shape().rank();
    let feature = instr
        .attr_int("feature_index")
        .and_then(|f| usize::try_from(f).ok())
        .filter(|&f| f < rank)
        .ok_or_else(|| bad(format!("{op} needs feature_index in [0, {rank})")))?;
    let epsilon = match instr.attribute("epsilon") {
        Some(AttrValue::Raw(t)) => t.parse::<f64>().ok(),
        Some(AttrValue::Int(v)) => Some(*v as f64),
        _ => None,
    }
    .ok_or_else(|| bad(format!("{op} needs epsilon=<float>")))?;
    // XLA stores epsilon as an f32.
    let epsilon = epsilon as f32 as f64;
    let work = if x.shape().layout.is_padded() {
        row_major(x.shape())
    } else {
        x.shape().clone()
    };
    let d = dims(&work);
    let m2m: Vec<usize> = work
        .layout
        .minor_to_major
        .iter()
        .map(|&v| v as usize)
        .collect();
    let pos = m2m.iter().position(|&v| v == feature).ok_or_else(|| {
        bad(format!(
            "{op}: layout of {} lacks dimension {feature}",
            x.shape()
        ))
    })?;
    let inner = m2m[..pos].iter().map(|&v| d[v]).product();
    let outer = m2m[pos + 1..].iter().map(|&v| d[v]).product();
    let n = x.shape().element_count();
    Ok(Setup {
        epsilon,
        work,
        geometry: Geometry {
            outer,
            features: d[feature],
            inner,
            parallel: exec.parallel(n),
            simd: exec.isa >= crate::kernels::Isa::Avx2Fma && simd_available(),
        },
    })
}

/// The bytes of `a` laid out as `work` (its own element type; borrowed when already so).
fn bytes_in<'s>(a: &'s ArrayRef<'_>, work: &ArrayShape, parallel: bool) -> Cow<'s, [u8]> {
    let target = work.clone().with_element_type(a.element_type());
    if !a.shape().layout.is_padded() && layout::same_physical_layout(a.shape(), &target) {
        let n = a.shape().element_count() * a.element_type().byte_width();
        Cow::Borrowed(&a.data()[..n])
    } else {
        Cow::Owned(layout::relayout_bytes(a, &target, parallel))
    }
}

/// A rank-1 `[F]` operand as f64 values. Errors: another shape or element type.
fn vector(
    instr: &HloInstruction,
    a: &ArrayRef<'_>,
    what: &str,
    features: usize,
    ty: ElementType,
) -> Result<Vec<f64>, BackendError> {
    if a.shape().dimensions != [features as i64] || a.element_type() != ty {
        return Err(bad(format!(
            "{}: {what} must be {ty}[{features}], not {}",
            instr.opcode,
            a.shape()
        )));
    }
    Ok(match ty {
        ElementType::F32 => to_f64s::<f32>(a),
        ElementType::F64 => to_f64s::<f64>(a),
        ElementType::Bf16 => to_f64s::<bf16>(a),
        _ => to_f64s::<f16>(a),
    })
}

fn to_f64s<T: Elem>(a: &ArrayRef<'_>) -> Vec<f64> {
    row_major_elements::<T>(a, false)
        .iter()
        .map(|&v| v.to_f64())
        .collect()
}

/// Checks `x`'s element type. Errors: [`BackendError::Unsupported`] for non-float types.
fn check_type(instr: &HloInstruction, ty: ElementType) -> Result<(), BackendError> {
    if matches!(
        ty,
        ElementType::F32 | ElementType::F64 | ElementType::Bf16 | ElementType::F16
    ) {
        Ok(())
    } else {
        Err(BackendError::Unsupported(format!(
            "{} of {ty} (f32, f64, bf16, f16 only)",
            instr.opcode
        )))
    }
}

fn check_result(
    instr: &HloInstruction,
    result: &ArrayShape,
    expect: &ArrayShape,
) -> Result<(), BackendError> {
    if result.compatible(expect) {
        Ok(())
    } else {
        Err(bad(format!(
            "{}: result {result} where {} is expected",
            instr.opcode,
            expect.clone().with_layout(result.layout.clone())
        )))
    }
}

/// A vector of f64 values rounded into a rank-1 result of `shape`.
fn vector_result<'a, T: Elem>(
    shape: &ArrayShape,
    values: &[f64],
) -> Result<Value<'a>, BackendError> {
    let bytes = with_output::<T>(values.len(), |o| {
        for (o, &v) in o.iter_mut().zip(values) {
            *o = T::from_f64(v);
        }
    });
    finish_row_major(shape, bytes, false)
}

macro_rules! by_type {
    ($ty:expr, $f:ident ( $($arg:expr),* )) => {
        match $ty {
            ElementType::F32 => $f::<f32>($($arg),*),
            ElementType::F64 => $f::<f64>($($arg),*),
            ElementType::Bf16 => $f::<bf16>($($arg),*),
            _ => $f::<f16>($($arg),*),
        }
    };
}

/// `batch-norm-training` of seed 004: operands `(x, scale[F], offset[F])`, result the tuple
/// `(y: x's shape, batch_mean[F], batch_var[F])` (biased variance), each in its declared layout.
/// Errors: [`BackendError::Invalid`] for a missing or out-of-range `feature_index`, a missing
/// `epsilon`, operand or result shapes that do not fit; [`BackendError::Unsupported`] for element
/// types other than f32, f64, bf16 and f16.
pub(crate) fn training<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 3)?;
    let x = &arrays[0];
    let ty = x.element_type();
    check_type(instr, ty)?;
    let s = setup(instr, x, exec)?;
    let nf = s.geometry.features;
    let gamma = vector(instr, &arrays[1], "scale", nf, ty)?;
    let beta = vector(instr, &arrays[2], "offset", nf, ty)?;
    let results = result_tuple(instr, 3)?;
    let vshape = ArrayShape::new(ty, vec![nf as i64]);
    check_result(instr, results[0], x.shape())?;
    check_result(instr, results[1], &vshape)?;
    check_result(instr, results[2], &vshape)?;
    let data = bytes_in(x, &s.work, s.geometry.parallel);
    let (y, mean, var) = by_type!(ty, training_kernel(&data, &s, &gamma, &beta));
    let y = finish(results[0], &s.work, y, s.geometry.parallel)?;
    let (mean, var) = (
        by_type!(ty, vector_result(results[1], &mean))?,
        by_type!(ty, vector_result(results[2], &var))?,
    );
    Ok(Value::Tuple(vec![y, mean, var]))
}

/// Mean and biased variance per feature (two passes), then `y`.
fn training_kernel<T: Elem>(
    data: &[u8],
    s: &Setup,
    gamma: &[f64],
    beta: &[f64],
) -> (Vec<u8>, Vec<f64>, Vec<f64>) {
    let x = typed::<T>(data);
    let x: &[T] = &x;
    let g = s.geometry;
    let (mean, var): (Vec<f64>, Vec<f64>) = g.moments(x).into_iter().unzip();
    let a: Vec<f64> = (0..g.features)
        .map(|l| gamma[l] / (var[l] + s.epsilon).sqrt())
        .collect();
    let y = normalize::<T>(x, &g, &mean, &a, beta);
    (y, mean, var)
}

/// `y = (x − μ_l)·a_l + β_l` in the buffer's layout.
fn normalize<T: Elem>(x: &[T], g: &Geometry, mean: &[f64], a: &[f64], beta: &[f64]) -> Vec<u8> {
    with_output::<T>(x.len(), |out| {
        g.map(out, |l, p, seg| {
            affine(g.simd, &x[p..p + seg.len()], seg, mean[l], a[l], beta[l]);
        })
    })
}

/// `batch-norm-inference` of seed 004: operands `(x, scale[F], offset[F], mean[F], variance[F])`,
/// result `y` of x's shape in its declared layout. Errors as [`training`].
pub(crate) fn inference<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 5)?;
    let x = &arrays[0];
    let ty = x.element_type();
    check_type(instr, ty)?;
    let s = setup(instr, x, exec)?;
    let nf = s.geometry.features;
    let gamma = vector(instr, &arrays[1], "scale", nf, ty)?;
    let beta = vector(instr, &arrays[2], "offset", nf, ty)?;
    let mean = vector(instr, &arrays[3], "mean", nf, ty)?;
    let var = vector(instr, &arrays[4], "variance", nf, ty)?;
    let result = result_array(instr)?;
    check_result(instr, result, x.shape())?;
    let a: Vec<f64> = (0..nf)
        .map(|l| gamma[l] / (var[l] + s.epsilon).sqrt())
        .collect();
    let data = bytes_in(x, &s.work, s.geometry.parallel);
    let g = s.geometry;
    let y = by_type!(ty, inference_kernel(&data, &g, &mean, &a, &beta));
    finish(result, &s.work, y, g.parallel)
}

fn inference_kernel<T: Elem>(
    data: &[u8],
    g: &Geometry,
    mean: &[f64],
    a: &[f64],
    beta: &[f64],
) -> Vec<u8> {
    normalize::<T>(&typed::<T>(data), g, mean, a, beta)
}

/// `batch-norm-grad` of seed 004: operands `(x, scale[F], mean[F], variance[F], grad_output)`,
/// result the tuple `(grad_operand: x's shape, grad_scale[F], grad_offset[F])`, each in its
/// declared layout. Errors as [`training`] (and `grad_output` must have x's dimensions and type).
pub(crate) fn grad<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 5)?;
    let x = &arrays[0];
    let ty = x.element_type();
    check_type(instr, ty)?;
    let s = setup(instr, x, exec)?;
    let nf = s.geometry.features;
    let gamma = vector(instr, &arrays[1], "scale", nf, ty)?;
    let mean = vector(instr, &arrays[2], "mean", nf, ty)?;
    let var = vector(instr, &arrays[3], "variance", nf, ty)?;
    let dy = &arrays[4];
    if !dy.shape().compatible(x.shape()) {
        return Err(bad(format!(
            "batch-norm-grad: grad_output {} must have the operand's shape {}",
            dy.shape(),
            x.shape()
        )));
    }
    let results = result_tuple(instr, 3)?;
    let vshape = ArrayShape::new(ty, vec![nf as i64]);
    check_result(instr, results[0], x.shape())?;
    check_result(instr, results[1], &vshape)?;
    check_result(instr, results[2], &vshape)?;
    let g = s.geometry;
    let xd = bytes_in(x, &s.work, g.parallel);
    let dyd = bytes_in(dy, &s.work, g.parallel);
    let (dx, dgamma, dbeta) = by_type!(
        ty,
        grad_kernel(&xd, &dyd, &g, s.epsilon, &gamma, &mean, &var)
    );
    let dx = finish(results[0], &s.work, dx, g.parallel)?;
    let (dgamma, dbeta) = (
        by_type!(ty, vector_result(results[1], &dgamma))?,
        by_type!(ty, vector_result(results[2], &dbeta))?,
    );
    Ok(Value::Tuple(vec![dx, dgamma, dbeta]))
}

#[allow(clippy::too_many_arguments)]
fn grad_kernel<T: Elem>(
    xd: &[u8],
    dyd: &[u8],
    g: &Geometry,
    epsilon: f64,
    gamma: &[f64],
    mean: &[f64],
    var: &[f64],
) -> (Vec<u8>, Vec<f64>, Vec<f64>) {
    let (x, dy) = (typed::<T>(xd), typed::<T>(dyd));
    let (x, dy): (&[T], &[T]) = (&x, &dy);
    let n = g.per_feature() as f64;
    let sums = g.reduce(|l, p, len| {
        let mu = mean[l];
        let (xs, ds) = (&x[p..p + len], &dy[p..p + len]);
        let mut acc = [[0.0f64; 2]; 8];
        let (xc, dc) = (xs.chunks_exact(8), ds.chunks_exact(8));
        let (xr, dr) = (xc.remainder(), dc.remainder());
        for (xc, dc) in xc.zip(dc) {
            for j in 0..8 {
                let d = dc[j].to_f64();
                acc[j][0] += d;
                acc[j][1] += d * (xc[j].to_f64() - mu);
            }
        }
        let mut s = [0.0f64; 2];
        for k in 0..2 {
            s[k] = ((acc[0][k] + acc[4][k]) + (acc[1][k] + acc[5][k]))
                + ((acc[2][k] + acc[6][k]) + (acc[3][k] + acc[7][k]));
        }
        for (&xv, &dv) in xr.iter().zip(dr) {
            let d = dv.to_f64();
            s[0] += d;
            s[1] += d * (xv.to_f64() - mu);
        }
        s
    });
    let nf = g.features;
    let mut coef = Vec::with_capacity(nf);
    let mut dgamma = Vec::with_capacity(nf);
    let mut dbeta = Vec::with_capacity(nf);
    for l in 0..nf {
        let [sum_dy, sum_dy_xmu] = sums[l];
        let v = var[l] + epsilon;
        let rstd = 1.0 / v.sqrt();
        // ∇x = k·(∇y − d − c·(x − μ)), k = γ/√(σ²+ε), d = Σ∇y/N, c = Σ∇y(x−μ)/(N(σ²+ε)).
        coef.push((gamma[l] * rstd, sum_dy / n, sum_dy_xmu / (n * v)));
        dgamma.push(sum_dy_xmu / v.sqrt());
        dbeta.push(sum_dy);
    }
    let dx = with_output::<T>(x.len(), |out| {
        g.map(out, |l, p, seg| {
            let (k, d, c) = coef[l];
            let mu = mean[l];
            let xs = &x[p..p + seg.len()];
            let ds = &dy[p..p + seg.len()];
            for ((o, &xv), &dv) in seg.iter_mut().zip(xs).zip(ds) {
                *o = T::from_f64(k * (dv.to_f64() - d - c * (xv.to_f64() - mu)));
            }
        })
    });
    (dx, dgamma, dbeta)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values with a large mean and a small spread (where a careless variance
    /// cancels), some runs shorter than the lanes.
    fn data(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                1000.0 + (s >> 40) as f32 / (1u64 << 24) as f32
            })
            .collect()
    }

    fn geometry(outer: usize, features: usize, inner: usize, simd: bool) -> Geometry {
        Geometry {
            outer,
            features,
            inner,
            parallel: false,
            simd,
        }
    }

    /// The AVX2+FMA builds of the moments and of the normalization give the scalar build's bits.
    #[test]
    fn linalg_batch_norm_simd_matches_scalar() {
        if !simd_available() {
            return;
        }
        for &(outer, features, inner) in &[(8, 64, 56 * 56), (3, 5, 7), (2, 3, 33), (40, 2, 1)] {
            let x = data(outer * features * inner, (outer * 31 + inner) as u64);
            let scalar = geometry(outer, features, inner, false);
            let simd = geometry(outer, features, inner, true);
            let (ms, mv) = (scalar.moments(&x), simd.moments(&x));
            for (a, b) in ms.iter().zip(&mv) {
                assert_eq!(a.0.to_bits(), b.0.to_bits(), "mean");
                assert_eq!(a.1.to_bits(), b.1.to_bits(), "variance");
            }
            let mean: Vec<f64> = ms.iter().map(|m| m.0).collect();
            let a: Vec<f64> = ms.iter().map(|m| 1.5 / (m.1 + 1e-3).sqrt()).collect();
            let beta: Vec<f64> = (0..features).map(|l| l as f64 * 0.25 - 1.0).collect();
            let ys = normalize::<f32>(&x, &scalar, &mean, &a, &beta);
            let yv = normalize::<f32>(&x, &simd, &mean, &a, &beta);
            assert_eq!(ys, yv, "normalized values");
        }
    }

    /// The variance of values far from zero is their spread's, not swamped by the mean.
    #[test]
    fn linalg_batch_norm_variance_of_offset_values() {
        let (outer, features, inner) = (4, 2, 1000);
        let x: Vec<f32> = (0..outer * features * inner)
            .map(|p| 4096.0 + if p % 2 == 0 { 0.5 } else { -0.5 })
            .collect();
        for simd in [false, simd_available()] {
            for (mean, var) in geometry(outer, features, inner, simd).moments(&x) {
                assert_eq!(mean, 4096.0);
                assert_eq!(var, 0.25);
            }
        }
    }
}
