//! `fft` (seed 004, Fft): FFT, IFFT, RFFT and IRFFT over the last 1 to 3 dimensions, the others
//! batch, with the semantics of `docs/linalg-semantics.md` (IFFT scaled by `1/N`; IRFFT's last axis
//! the real inverse of the Hermitian extension, the imaginary parts of the DC and, for even
//! lengths, Nyquist terms ignored).
//!
//! Lines go to `rustfft` (complex) and `realfft` (the real last axis of RFFT and IRFFT), whose plans
//! are cached per (length, direction) for the life of the process ([`PLAN_CACHE_LIMIT`] lengths at
//! most). Multi-axis transforms go axis by axis on a row-major buffer: the contiguous last axis line
//! by line, a strided axis through tiles of columns gathered into contiguous lines of a small
//! buffer, transformed there and scattered back (no transposed copy of the whole array). Lines
//! and groups of tiles run in parallel on rayon's pool. Lengths 0 give empty results (RFFT and
//! IRFFT with `n_last = 0` have a last dimension of 0, XLA's shape rule); a non-empty result of an
//! empty input would be zeros (empty sums).

use super::{
    arity, bad, dims, enumerator, finish_row_major, for_chunks, result_array, row_major_bytes,
    row_major_elements, with_typed_mut,
};
use crate::buffer::with_output;
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::HloInstruction;
use conformance_spec::{BackendError, ElementType};
use num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// Number of distinct (length, kind) plans kept per float type before the cache starts afresh.
pub const PLAN_CACHE_LIMIT: usize = 256;

/// Bytes per row of the columns of a strided axis gathered per tile (32 columns of c64, 16 of c128).
const TILE_BYTES: usize = 256;

/// Tiles per parallel task of a strided axis.
const GROUP_TILES: usize = 2;

/// Elements per parallel task for contiguous lines.
const TASK_ELEMENTS: usize = 1 << 15;

/// The kind of transform (`fft_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftType {
    /// Complex forward transform.
    Fft,
    /// Complex inverse transform, scaled by `1/N`.
    Ifft,
    /// Forward transform of real input keeping `n_last/2 + 1` terms of the last axis.
    Rfft,
    /// Inverse of RFFT: real output of length `n_last` from `n_last/2 + 1` complex terms.
    Irfft,
}

impl FftType {
    /// Parses `FFT`, `IFFT`, `RFFT` or `IRFFT`.
    pub fn from_name(name: &str) -> Option<FftType> {
        Some(match name {
            "FFT" => FftType::Fft,
            "IFFT" => FftType::Ifft,
            "RFFT" => FftType::Rfft,
            "IRFFT" => FftType::Irfft,
            _ => return None,
        })
    }
}

/// The plan caches of one float type.
pub struct Planners<F: FftNum> {
    complex: FftPlanner<F>,
    real: RealFftPlanner<F>,
    planned: HashSet<(usize, u8)>,
}

impl<F: FftNum> Planners<F> {
    fn new() -> Self {
        Planners {
            complex: FftPlanner::new(),
            real: RealFftPlanner::new(),
            planned: HashSet::new(),
        }
    }

    /// Records a plan of `len` and `kind`, starting afresh when the cache is full.
    fn note(&mut self, len: usize, kind: u8) {
        if self.planned.insert((len, kind)) && self.planned.len() > PLAN_CACHE_LIMIT {
            *self = Planners::new();
            self.planned.insert((len, kind));
        }
    }
}

/// The float types of the transforms (f32 for c64, f64 for c128).
pub trait FftFloat: FftNum + bytemuck::Pod {
    #[doc(hidden)]
    fn planners() -> &'static Mutex<Planners<Self>>;
    /// `v` rounded to this type.
    fn from_f64(v: f64) -> Self;
}

impl FftFloat for f32 {
    fn planners() -> &'static Mutex<Planners<f32>> {
        static P: OnceLock<Mutex<Planners<f32>>> = OnceLock::new();
        P.get_or_init(|| Mutex::new(Planners::new()))
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl FftFloat for f64 {
    fn planners() -> &'static Mutex<Planners<f64>> {
        static P: OnceLock<Mutex<Planners<f64>>> = OnceLock::new();
        P.get_or_init(|| Mutex::new(Planners::new()))
    }
    fn from_f64(v: f64) -> f64 {
        v
    }
}

fn with_planners<F: FftFloat, R>(f: impl FnOnce(&mut Planners<F>) -> R) -> R {
    let mut guard = F::planners()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

/// The cached complex plan of `len` points in `direction`.
pub fn complex_plan<F: FftFloat>(len: usize, direction: FftDirection) -> Arc<dyn Fft<F>> {
    with_planners::<F, _>(|p| {
        p.note(len, direction as u8);
        p.complex.plan_fft(len, direction)
    })
}

fn real_forward_plan<F: FftFloat>(len: usize) -> Arc<dyn RealToComplex<F>> {
    with_planners::<F, _>(|p| {
        p.note(len, 2);
        p.real.plan_fft_forward(len)
    })
}

fn real_inverse_plan<F: FftFloat>(len: usize) -> Arc<dyn ComplexToReal<F>> {
    with_planners::<F, _>(|p| {
        p.note(len, 3);
        p.real.plan_fft_inverse(len)
    })
}

/// `fft` of seed 004 (Fft). Operand `[batch..., n1[, n2[, n3]]]` (RFFT: real; IRFFT: last dimension
/// `n_last/2 + 1`); result per `docs/linalg-semantics.md`, in the instruction's layout.
/// Errors: [`BackendError::Invalid`] for a missing or malformed `fft_type`/`fft_length`, or shapes
/// that do not match them; [`BackendError::Unsupported`] for element types other than c64/c128
/// (FFT, IFFT, IRFFT) and f32/f64 (RFFT).
pub(crate) fn fft<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 1)?;
    let x = &arrays[0];
    let result = result_array(instr)?;
    let kind = enumerator(instr, "fft_type")
        .and_then(FftType::from_name)
        .ok_or_else(|| bad("fft needs fft_type=FFT|IFFT|RFFT|IRFFT"))?;
    let lengths = instr
        .attr_ints("fft_length")
        .ok_or_else(|| bad("fft needs fft_length={...}"))?;
    let l = lengths.len();
    if !(1..=3).contains(&l) || lengths.iter().any(|&n| n < 0) || l > x.shape().rank() {
        return Err(bad(format!(
            "fft_length={lengths:?} must hold 1 to 3 non-negative lengths, at most the operand's rank {}",
            x.shape().rank()
        )));
    }
    let lengths: Vec<usize> = lengths.iter().map(|&n| n as usize).collect();
    let rank = x.shape().rank();
    let n_last = lengths[l - 1];
    let mut expect_in: Vec<usize> = dims(x.shape());
    let mut expect_out = expect_in.clone();
    for (a, &n) in lengths.iter().enumerate() {
        expect_in[rank - l + a] = n;
        expect_out[rank - l + a] = n;
    }
    // n/2 + 1 terms of a real line of length n; none for n = 0 (XLA's shape rule).
    let half = if n_last == 0 { 0 } else { n_last / 2 + 1 };
    match kind {
        FftType::Rfft => expect_out[rank - 1] = half,
        FftType::Irfft => expect_in[rank - 1] = half,
        _ => {}
    }
    let (in_ty, out_ty) = (x.element_type(), result.element_type);
    let types_ok = match kind {
        FftType::Fft | FftType::Ifft => {
            matches!(in_ty, ElementType::C64 | ElementType::C128) && out_ty == in_ty
        }
        FftType::Rfft => matches!(
            (in_ty, out_ty),
            (ElementType::F32, ElementType::C64) | (ElementType::F64, ElementType::C128)
        ),
        FftType::Irfft => matches!(
            (in_ty, out_ty),
            (ElementType::C64, ElementType::F32) | (ElementType::C128, ElementType::F64)
        ),
    };
    if !types_ok {
        return Err(BackendError::Unsupported(format!(
            "fft {kind:?} of {in_ty} to {out_ty} (FFT/IFFT: c64, c128; RFFT: f32 -> c64, f64 -> c128; IRFFT: c64 -> f32, c128 -> f64)"
        )));
    }
    if dims(x.shape()) != expect_in || dims(result) != expect_out {
        return Err(bad(format!(
            "fft {kind:?} with fft_length={lengths:?}: operand {} and result {result} (expected dimensions {expect_in:?} -> {expect_out:?})",
            x.shape()
        )));
    }
    let out_count = result.element_count();
    let parallel = exec
        .heavy()
        .parallel(out_count.max(x.shape().element_count()));
    let bytes = match in_ty.max(out_ty) {
        ElementType::C64 => run::<f32>(kind, x, &expect_out, l, parallel),
        _ => run::<f64>(kind, x, &expect_out, l, parallel),
    }?;
    finish_row_major(result, bytes, parallel)
}

/// Runs one transform in float type `F`: returns the row-major result bytes.
fn run<F: FftFloat>(
    kind: FftType,
    x: &ArrayRef<'_>,
    out_dims: &[usize],
    l: usize,
    parallel: bool,
) -> Result<Vec<u8>, BackendError> {
    let in_dims = dims(x.shape());
    let rank = in_dims.len();
    let out_count: usize = out_dims.iter().product();
    let in_count: usize = in_dims.iter().product();
    let transformed = rank - l..rank;
    if out_count == 0 || in_count == 0 {
        // Empty result, or empty sums (zeros).
        return Ok(match kind {
            FftType::Irfft => with_output::<F>(out_count, |_| {}),
            _ => with_output::<Complex<F>>(out_count, |_| {}),
        });
    }
    match kind {
        FftType::Fft | FftType::Ifft => {
            let direction = if kind == FftType::Fft {
                FftDirection::Forward
            } else {
                FftDirection::Inverse
            };
            let mut bytes = row_major_bytes(x, parallel);
            with_typed_mut::<Complex<F>, _>(&mut bytes, |buf| {
                for axis in transformed.clone().rev() {
                    transform_axis(buf, &in_dims, axis, direction, parallel);
                }
                if kind == FftType::Ifft {
                    let n: usize = in_dims[transformed.clone()].iter().product();
                    scale(buf, <F as FftFloat>::from_f64(1.0 / n as f64), parallel);
                }
            });
            Ok(bytes)
        }
        FftType::Rfft => {
            let input = row_major_elements::<F>(x, parallel);
            let n = in_dims[rank - 1];
            let h = n / 2 + 1;
            let plan = real_forward_plan::<F>(n);
            let mut failure = None;
            let bytes = with_output::<Complex<F>>(out_count, |out| {
                let lines = TASK_ELEMENTS.div_ceil(n).max(1);
                let errors = std::sync::Mutex::new(None);
                for_chunks(out, lines * h, parallel, |i, chunk| {
                    let mut line_in = vec![F::zero(); n];
                    let mut scratch =
                        vec![Complex::new(F::zero(), F::zero()); plan.get_scratch_len()];
                    let first = i * lines;
                    for (k, o) in chunk.chunks_exact_mut(h).enumerate() {
                        let src = &input[(first + k) * n..(first + k + 1) * n];
                        line_in.copy_from_slice(src);
                        if let Err(e) = plan.process_with_scratch(&mut line_in, o, &mut scratch) {
                            *errors.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                        }
                    }
                });
                failure = errors.into_inner().unwrap_or_else(|p| p.into_inner());
                for axis in (rank - l..rank - 1).rev() {
                    transform_axis(out, out_dims, axis, FftDirection::Forward, parallel);
                }
            });
            match failure {
                Some(e) => Err(BackendError::Failure(format!("realfft: {e}"))),
                None => Ok(bytes),
            }
        }
        FftType::Irfft => {
            let n = out_dims[rank - 1];
            let h = n / 2 + 1;
            let total: usize = out_dims[transformed.clone()].iter().product();
            let factor = <F as FftFloat>::from_f64(1.0 / total as f64);
            let mut input = row_major_bytes(x, parallel);
            let plan = real_inverse_plan::<F>(n);
            let mut failure = None;
            let bytes = with_typed_mut::<Complex<F>, _>(&mut input, |buf| {
                for axis in (rank - l..rank - 1).rev() {
                    transform_axis(buf, &in_dims, axis, FftDirection::Inverse, parallel);
                }
                let buf: &[Complex<F>] = buf;
                with_output::<F>(out_count, |out| {
                    let lines = TASK_ELEMENTS.div_ceil(n).max(1);
                    let errors = std::sync::Mutex::new(None);
                    for_chunks(out, lines * n, parallel, |i, chunk| {
                        let zero = Complex::new(F::zero(), F::zero());
                        let mut line_in = vec![zero; h];
                        let mut scratch = vec![zero; plan.get_scratch_len()];
                        let first = i * lines;
                        for (k, o) in chunk.chunks_exact_mut(n).enumerate() {
                            line_in.copy_from_slice(&buf[(first + k) * h..(first + k + 1) * h]);
                            // The Hermitian extension ignores the imaginary parts of the DC term and,
                            // for even n, of the Nyquist term (realfft insists on zeros there).
                            line_in[0].im = F::zero();
                            if n.is_multiple_of(2) {
                                line_in[h - 1].im = F::zero();
                            }
                            if let Err(e) = plan.process_with_scratch(&mut line_in, o, &mut scratch)
                            {
                                *errors.lock().unwrap_or_else(|p| p.into_inner()) =
                                    Some(e.to_string());
                            }
                            for v in o.iter_mut() {
                                *v = *v * factor;
                            }
                        }
                    });
                    failure = errors.into_inner().unwrap_or_else(|p| p.into_inner());
                })
            });
            match failure {
                Some(e) => Err(BackendError::Failure(format!("realfft: {e}"))),
                None => Ok(bytes),
            }
        }
    }
}

/// Multiplies every element by `factor`.
fn scale<F: FftFloat>(buf: &mut [Complex<F>], factor: F, parallel: bool) {
    for_chunks(buf, TASK_ELEMENTS, parallel, |_, c| {
        for v in c {
            *v = Complex::new(v.re * factor, v.im * factor);
        }
    });
}

/// Transforms every line along `axis` of a row-major buffer of `dims`, in place (unscaled).
pub fn transform_axis<F: FftFloat>(
    buf: &mut [Complex<F>],
    dims: &[usize],
    axis: usize,
    direction: FftDirection,
    parallel: bool,
) {
    let n = dims[axis];
    if n <= 1 || buf.is_empty() {
        return;
    }
    let plan = complex_plan::<F>(n, direction);
    let inner: usize = dims[axis + 1..].iter().product();
    if inner == 1 {
        let lines = TASK_ELEMENTS.div_ceil(n).max(1);
        for_chunks(buf, lines * n, parallel, |_, chunk| {
            let zero = Complex::new(F::zero(), F::zero());
            let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
            plan.process_with_scratch(chunk, &mut scratch);
        });
        return;
    }
    let block = n * inner;
    let blocks = buf.len() / block;
    if parallel && blocks >= 2 * rayon::current_num_threads() {
        for_chunks(buf, block, true, |_, b| {
            strided_block(b, n, inner, &*plan, false)
        });
    } else {
        for b in buf.chunks_exact_mut(block) {
            strided_block(b, n, inner, &*plan, parallel);
        }
    }
}

/// Transforms the `inner` columns (stride `inner`, `n` points each) of an `n × inner` row-major
/// block in place, without a transposed copy of the block: the columns go in groups of
/// [`GROUP_TILES`] tiles (tasks on the pool when `parallel`), and each tile of [`TILE_BYTES`] per
/// row is gathered into contiguous lines of a small per-task buffer (which stays in cache),
/// transformed there and scattered back.
fn strided_block<F: FftFloat>(
    block: &mut [Complex<F>],
    n: usize,
    inner: usize,
    plan: &dyn Fft<F>,
    parallel: bool,
) {
    let tile = (TILE_BYTES / std::mem::size_of::<Complex<F>>()).clamp(1, inner);
    let tiles = inner.div_ceil(tile);
    let width = tile * if parallel { GROUP_TILES } else { tiles };
    let groups = inner.div_ceil(width);
    // Per group, its segment of every row (disjoint borrows of the block).
    let mut segments: Vec<Vec<&mut [Complex<F>]>> =
        (0..groups).map(|_| Vec::with_capacity(n)).collect();
    for row in block.chunks_exact_mut(inner) {
        for (g, seg) in row.chunks_mut(width).enumerate() {
            segments[g].push(seg);
        }
    }
    // Lines of the tile buffer are a cache line longer than `n`, so that the rows of a gather do
    // not all fall into the same L1 set when `n` is a power of two.
    let stride = n + (64 / std::mem::size_of::<Complex<F>>()).max(1);
    let zero = Complex::new(F::zero(), F::zero());
    let init = || {
        (
            vec![zero; tile * stride],
            vec![zero; plan.get_inplace_scratch_len()],
        )
    };
    let work = |state: &mut (Vec<Complex<F>>, Vec<Complex<F>>),
                rows: &mut Vec<&mut [Complex<F>]>| {
        let (buf, scratch) = state;
        transform_group(rows, buf, scratch, tile, stride, plan);
    };
    if parallel && groups > 1 {
        use rayon::prelude::*;
        segments.par_iter_mut().for_each_init(init, work);
    } else {
        let mut state = init();
        for rows in &mut segments {
            work(&mut state, rows);
        }
    }
}

/// Transforms the columns of one group (`rows`: the group's segment of each of the `n` rows), tile
/// by tile through `buf` (`tile` lines of `stride` elements).
fn transform_group<F: FftFloat>(
    rows: &mut [&mut [Complex<F>]],
    buf: &mut [Complex<F>],
    scratch: &mut [Complex<F>],
    tile: usize,
    stride: usize,
    plan: &dyn Fft<F>,
) {
    let n = rows.len();
    let width = rows.first().map_or(0, |r| r.len());
    let mut c0 = 0;
    while c0 < width {
        let w = tile.min(width - c0);
        // Four rows at a time: each line of the buffer gets four consecutive elements per step.
        let quads = n / 4;
        for (q, quad) in rows.chunks_exact(4).enumerate() {
            let [a, b, c, d] = [0, 1, 2, 3].map(|k| &quad[k][c0..c0 + w]);
            for (j, line) in buf.chunks_exact_mut(stride).take(w).enumerate() {
                line[4 * q..4 * q + 4].copy_from_slice(&[a[j], b[j], c[j], d[j]]);
            }
        }
        for (r, row) in rows.iter().enumerate().skip(4 * quads) {
            for (j, &v) in row[c0..c0 + w].iter().enumerate() {
                buf[j * stride + r] = v;
            }
        }
        for line in buf.chunks_exact_mut(stride).take(w) {
            plan.process_with_scratch(&mut line[..n], scratch);
        }
        for (q, quad) in rows.chunks_exact_mut(4).enumerate() {
            let [a, b, c, d] = quad else {
                unreachable!("chunks of four")
            };
            let [a, b, c, d] = [a, b, c, d].map(|s| &mut s[c0..c0 + w]);
            for (j, line) in buf.chunks_exact(stride).take(w).enumerate() {
                let v = &line[4 * q..4 * q + 4];
                (a[j], b[j], c[j], d[j]) = (v[0], v[1], v[2], v[3]);
            }
        }
        for (r, row) in rows.iter_mut().enumerate().skip(4 * quads) {
            for (j, v) in row[c0..c0 + w].iter_mut().enumerate() {
                *v = buf[j * stride + r];
            }
        }
        c0 += w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strided axes (several tiles and groups, row counts not multiples of four, sequential and
    /// parallel) give the bits of transforming each column on its own.
    #[test]
    fn linalg_strided_axis_matches_column_by_column() {
        for &(n, inner, parallel) in &[
            (1024, 513, true),
            (33, 70, true),
            (33, 70, false),
            (7, 1, false),
            (6, 200, true),
            (5, 3, true),
        ] {
            let data: Vec<Complex<f32>> = (0..n * inner)
                .map(|p| Complex::new((p % 97) as f32 - 48.0, (p % 31) as f32 * 0.5))
                .collect();
            let mut got = data.clone();
            transform_axis(&mut got, &[n, inner], 0, FftDirection::Forward, parallel);
            let plan = complex_plan::<f32>(n, FftDirection::Forward);
            for c in 0..inner {
                let mut col: Vec<Complex<f32>> = (0..n).map(|r| data[r * inner + c]).collect();
                plan.process(&mut col);
                for (r, &v) in col.iter().enumerate() {
                    assert_eq!(got[r * inner + c], v, "n={n} inner={inner} ({r}, {c})");
                }
            }
        }
    }
}
