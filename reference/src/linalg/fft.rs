//! `fft` (seed 004, Fft: FFT, IFFT, RFFT, IRFFT over the last 1–3 dimensions), exact.
//!
//! Every output is the exact DFT sum of `docs/linalg-semantics.md` rounded once per component.
//! The sum is enclosed by BALL arithmetic at a working precision `w`: the transform is composed
//! axis by axis (row-column), every value carried as a midpoint (MPFR, precision `w`) and a
//! radius bounding the error of both components; only the final enclosure is rounded, so the
//! composition does not round anything into the result format twice. When the two ends of an
//! output's enclosure round to different values, the whole block is recomputed at twice the
//! precision (Ziv's strategy) until every output is decided.
//!
//! Twiddles `exp(∓2πi·t/n)` come from MPFR's `cos_pi`/`sin_pi` at `x = 2t/n` (exact for
//! `t/n ∈ {0, ¼, ½, ¾}`), with the error bound derived in [`twiddles`].
//!
//! An input block holding NaN or ±inf gives NaN outputs for the whole block (masked).

use super::exact;
use super::{element_format, extent, invalid, row_major_bits};
use crate::contraction::array_from_row_major;
use crate::interpreter::{self, Context};
use crate::round::{self, round_exact};
use crate::ziv::MAX_PRECISION;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::literal::{complex_bits, complex_parts, ArrayLiteral, Literal};
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::float::Round;
use rug::Float;

/// `fft_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftType {
    /// Forward complex transform.
    Fft,
    /// Inverse complex transform (scaled by `1/N`).
    Ifft,
    /// Forward transform of a real input, keeping `n_last/2 + 1` outputs on the last axis.
    Rfft,
    /// Inverse of a Hermitian half spectrum, real output.
    Irfft,
}

impl FftType {
    /// True for the inverse transforms (scaled by `1/N`).
    pub fn inverse(self) -> bool {
        matches!(self, FftType::Ifft | FftType::Irfft)
    }
}

/// A validated `fft`: type, lengths, block and batch sizes, and the input's row-major bits.
pub struct Plan {
    /// `fft_type`.
    pub ty: FftType,
    /// Component format of input and output.
    pub fmt: FloatFormat,
    /// `fft_length` (1 to 3 values).
    pub lengths: Vec<usize>,
    /// The transformed dimensions of the input.
    pub in_block: Vec<usize>,
    /// The transformed dimensions of the output.
    pub out_block: Vec<usize>,
    /// Number of batch instances (product of the leading dimensions).
    pub batch: usize,
    /// The output dimensions (batch and transformed).
    pub out_dims: Vec<i64>,
    x: Vec<u128>,
}

impl Plan {
    /// Validates `fft(x)` with the instruction's attributes.
    ///
    /// Errors: [`BackendError::Unsupported`] for element types other than c64/c128 (FFT, IFFT,
    /// IRFFT) or f32/f64 (RFFT); [`BackendError::Invalid`] for a missing or unknown `fft_type`, an
    /// `fft_length` of other than 1–3 non-negative values, or input dimensions that disagree with
    /// it.
    pub fn new(instr: &HloInstruction, x: &ArrayLiteral) -> Result<Plan, BackendError> {
        const OP: &str = "fft";
        let ty = match instr.attr_enum("fft_type") {
            Some("FFT") => FftType::Fft,
            Some("IFFT") => FftType::Ifft,
            Some("RFFT") => FftType::Rfft,
            Some("IRFFT") => FftType::Irfft,
            other => {
                return invalid(format!(
                    "{OP}: fft_type {other:?} is not one of FFT, IFFT, RFFT, IRFFT"
                ))
            }
        };
        let (fmt, complex) = element_format(OP, x.element_type(), true)?;
        if complex == (ty == FftType::Rfft) {
            return Err(BackendError::Unsupported(format!(
                "{OP}: {ty:?} of element type {} (RFFT takes f32/f64, the others c64/c128)",
                x.element_type()
            )));
        }
        let lengths = match instr.attr_ints("fft_length") {
            Some(l) if (1..=3).contains(&l.len()) && l.iter().all(|&v| v >= 0) => {
                l.iter().map(|&v| extent(v)).collect::<Vec<_>>()
            }
            other => {
                return invalid(format!(
                    "{OP}: fft_length {other:?} must hold 1 to 3 non-negative lengths"
                ))
            }
        };
        let dims = x.dimensions();
        let (r, l) = (dims.len(), lengths.len());
        if r < l {
            return invalid(format!("{OP}: x {dims:?} has fewer than {l} dimensions"));
        }
        let last = lengths[l - 1];
        // n/2+1 outputs of a length-n real transform; none for n = 0 (XLA's shape rule).
        let half = if last == 0 { 0 } else { last / 2 + 1 };
        let mut in_block = lengths.clone();
        let mut out_block = lengths.clone();
        match ty {
            FftType::Rfft => out_block[l - 1] = half,
            FftType::Irfft => in_block[l - 1] = half,
            _ => {}
        }
        let got: Vec<usize> = dims[r - l..].iter().map(|&d| extent(d)).collect();
        if got != in_block {
            return invalid(format!(
                "{OP}: {ty:?} with fft_length {lengths:?} needs trailing dimensions {in_block:?}, x has {dims:?}"
            ));
        }
        let mut out_dims = dims[..r - l].to_vec();
        out_dims.extend(out_block.iter().map(|&d| d as i64));
        Ok(Plan {
            ty,
            fmt,
            lengths,
            in_block,
            out_block,
            batch: super::product(&dims[..r - l]),
            out_dims,
            x: row_major_bits(x),
        })
    }

    /// True when the output is complex (all but IRFFT).
    pub fn complex_output(&self) -> bool {
        self.ty != FftType::Irfft
    }

    /// `N = Π fft_length`.
    pub fn n(&self) -> usize {
        self.lengths.iter().product()
    }

    /// The exact input values `(re, im)` of batch block `t` (row-major; `im = 0` for RFFT), or
    /// `None` when one is NaN or infinite.
    pub fn block_inputs(&self, t: usize) -> Option<Vec<(Float, Float)>> {
        let size: usize = self.in_block.iter().product();
        self.x[t * size..(t + 1) * size]
            .iter()
            .map(|&bits| {
                let (re, im) = if self.ty == FftType::Rfft {
                    (
                        round::decode(self.fmt, bits as u64),
                        Float::new(self.fmt.precision()),
                    )
                } else {
                    let (re, im) = complex_parts(self.fmt, bits);
                    (round::decode(self.fmt, re), round::decode(self.fmt, im))
                };
                (re.is_finite() && im.is_finite()).then_some((re, im))
            })
            .collect()
    }
}

/// A complex midpoint and a radius bounding the error of each component.
#[derive(Clone, Debug)]
struct Ball {
    re: Float,
    im: Float,
    rad: Float,
}

/// Precision of radii and magnitude sums (rounded upward, so they stay upper bounds).
const RAD_PREC: u32 = 32;

/// A value or incomplete computation rounded UP to [`RAD_PREC`] bits.
fn up<T>(x: T) -> Float
where
    Float: rug::ops::AssignRound<T, Round = Round, Ordering = std::cmp::Ordering>,
{
    Float::with_val_round(RAD_PREC, x, Round::Up).0
}

/// The twiddle table `(cos(2πt/n), sin(2πt/n))`, `t ∈ [0, n)`, at precision `w`, and a bound `e`
/// of the absolute error of every entry.
///
/// `t/n ∈ {0, ¼, ½, ¾}` gives exact entries. Otherwise `x = 2t/n` is rounded to nearest at
/// precision `w` (`|x̃ − x| ≤ ½ulp ≤ 2^−w` since `x < 2`) and `cos_pi`, `sin_pi` are correctly
/// rounded (`≤ 2^−w` since their values are at most 1), and `cos(π·)`, `sin(π·)` are π-Lipschitz:
/// the error is at most `2^−w·(1 + π) < 2^(3−w)`.
fn twiddles(n: usize, w: u32) -> (Vec<(Float, Float)>, Float) {
    let table = (0..n)
        .map(|t| {
            if (4 * t) % n == 0 {
                let (c, s) = [(1, 0), (0, 1), (-1, 0), (0, -1)][4 * t / n];
                (Float::with_val(w, c), Float::with_val(w, s))
            } else {
                let x = Float::with_val(w, 2 * t) / n as u64;
                (
                    Float::with_val(w, x.cos_pi_ref()),
                    Float::with_val(w, x.sin_pi_ref()),
                )
            }
        })
        .collect();
    (
        table,
        Float::with_val(RAD_PREC, Float::i_exp(1, 3 - w as i32)),
    )
}

/// How one line along an axis is transformed.
#[derive(Clone, Copy, Debug)]
enum LineKind {
    /// `y_j = Σ_k v_k·exp(∓2πijk/n)`, `n` in and out (unscaled).
    Full { inverse: bool },
    /// The forward sum for `j ∈ [0, n/2]` (RFFT's last axis).
    RealHalf,
    /// IRFFT's last axis (unscaled): `n/2+1` values in, `n` real values out,
    /// `Re z₀ + Σ_{k=1}^{⌈n/2⌉−1} 2·Re(z_k·e^{+2πijk/n}) + [n even]·Re(z_{n/2})·(−1)^j`.
    RealInverse,
}

/// One line: `inputs` to the `out_len` outputs, each with its error radius.
///
/// Error bound (per component, for every output of the line). With exact inputs `v*_k`, inputs
/// `v_k = a_k + i·b_k` within `r_k`, exact twiddles `c*, s*` (`|c*|, |s*| ≤ 1`) within `e`, and
/// input weights `ω_k ∈ {1, 2}` (IRFFT), the exact-arithmetic sum of the approximations differs
/// from the true sum by at most `Σ_k ω_k·(2·r_k + (|a_k| + |b_k|)·e)`. The accumulation is `2m`
/// fused multiply-adds per component (`m` inputs), each rounded to nearest at precision `w`
/// (error `≤ 2^−w·|partial sum| ≤ 2^−w·(1 + 2m·2^−w)·A·(1 + e)` with `A = Σ ω_k(|a_k| + |b_k|)`),
/// in all at most `(2m + 2)·2^(1−w)·A` while `2m·2^−w ≤ ½`. Hence
/// `rad = 2·Σ ω_k r_k + A·(e + (2m + 2)·2^(1−w))`.
fn line(
    inputs: &[&Ball],
    kind: LineKind,
    n: usize,
    out_len: usize,
    w: u32,
    tw: &[(Float, Float)],
    e: &Float,
) -> Vec<Ball> {
    let m = inputs.len();
    // Effective inputs (weights applied exactly, b dropped where only Re z counts).
    let eff: Vec<(Float, Option<Float>, u32)> = inputs
        .iter()
        .enumerate()
        .map(|(k, v)| match kind {
            LineKind::RealInverse => {
                let edge = k == 0 || 2 * k == n;
                let weight = if edge { 1 } else { 2 };
                let a = Float::with_val(v.re.prec(), &v.re * weight);
                let b = (!edge).then(|| Float::with_val(v.im.prec(), &v.im * weight));
                (a, b, weight)
            }
            _ => (v.re.clone(), (!v.im.is_zero()).then(|| v.im.clone()), 1),
        })
        .collect();
    let mut r_sum = Float::new(RAD_PREC);
    let mut a_sum = Float::new(RAD_PREC);
    for ((a, b, weight), v) in eff.iter().zip(inputs) {
        // Exact: a power-of-two multiple.
        let r_k = Float::with_val(RAD_PREC, &v.rad * *weight);
        r_sum = up(&r_sum + &r_k);
        a_sum = up(&a_sum + &*a.as_abs());
        if let Some(b) = b {
            a_sum = up(&a_sum + &*b.as_abs());
        }
    }
    let unit = Float::with_val(RAD_PREC, Float::i_exp(1, 1 - w as i32));
    let rounding = up(&unit * (2 * m as u64 + 2));
    let factor = up(&rounding + e);
    let twice = Float::with_val(RAD_PREC, &r_sum * 2u32);
    let rad = up(&twice + &up(&a_sum * &factor));
    (0..out_len)
        .map(|j| {
            let mut re = Float::new(w);
            let mut im = Float::new(w);
            for (k, (a, b, _)) in eff.iter().enumerate() {
                let (c, s) = &tw[(j * k) % n];
                match kind {
                    LineKind::Full { inverse: false } | LineKind::RealHalf => {
                        // (a + ib)(c − is) = (ac + bs) + i(bc − as)
                        re += a * c;
                        im -= a * s;
                        if let Some(b) = b {
                            re += b * s;
                            im += b * c;
                        }
                    }
                    LineKind::Full { inverse: true } => {
                        // (a + ib)(c + is) = (ac − bs) + i(bc + as)
                        re += a * c;
                        im += a * s;
                        if let Some(b) = b {
                            re -= b * s;
                            im += b * c;
                        }
                    }
                    LineKind::RealInverse => {
                        re += a * c;
                        if let Some(b) = b {
                            re -= b * s;
                        }
                    }
                }
            }
            Ball {
                re,
                im,
                rad: rad.clone(),
            }
        })
        .collect()
}

/// Transforms every line of `data` (row-major, dimensions `dims`) along `axis`.
fn stage(
    data: &[Ball],
    dims: &[usize],
    axis: usize,
    kind: LineKind,
    n: usize,
    w: u32,
) -> (Vec<Ball>, Vec<usize>) {
    let out_len = match kind {
        LineKind::Full { .. } | LineKind::RealInverse => n,
        LineKind::RealHalf => n / 2 + 1,
    };
    let (outer, in_len): (usize, usize) = (dims[..axis].iter().product(), dims[axis]);
    let inner: usize = dims[axis + 1..].iter().product();
    let (tw, e) = twiddles(n, w);
    let lines: Vec<Vec<Ball>> = (0..outer * inner)
        .into_par_iter()
        .map(|li| {
            let (o, i) = (li / inner, li % inner);
            let inputs: Vec<&Ball> = (0..in_len)
                .map(|k| &data[(o * in_len + k) * inner + i])
                .collect();
            line(&inputs, kind, n, out_len, w, &tw, &e)
        })
        .collect();
    let mut out_dims = dims.to_vec();
    out_dims[axis] = out_len;
    let mut out: Vec<Option<Ball>> = vec![None; outer * out_len * inner];
    for (li, values) in lines.into_iter().enumerate() {
        let (o, i) = (li / inner, li % inner);
        for (j, v) in values.into_iter().enumerate() {
            out[(o * out_len + j) * inner + i] = Some(v);
        }
    }
    (out.into_iter().flatten().collect(), out_dims)
}

/// The whole (unscaled) transform of one block at precision `w`.
fn transform(plan: &Plan, inputs: &[(Float, Float)], w: u32) -> Vec<Ball> {
    let l = plan.lengths.len();
    let mut data: Vec<Ball> = inputs
        .iter()
        .map(|(re, im)| Ball {
            re: re.clone(),
            im: im.clone(),
            rad: Float::new(RAD_PREC),
        })
        .collect();
    let mut dims = plan.in_block.clone();
    let mut axes: Vec<(usize, LineKind)> = Vec::with_capacity(l);
    let full = LineKind::Full {
        inverse: plan.ty.inverse(),
    };
    match plan.ty {
        // RFFT: the real-to-half transform on the last axis first, then the others.
        FftType::Rfft => {
            axes.push((l - 1, LineKind::RealHalf));
            axes.extend((0..l - 1).map(|a| (a, full)));
        }
        // IRFFT: the complex inverse on the other axes first, then the real inverse.
        FftType::Irfft => {
            axes.extend((0..l - 1).map(|a| (a, full)));
            axes.push((l - 1, LineKind::RealInverse));
        }
        _ => axes.extend((0..l).map(|a| (a, full))),
    }
    for (axis, kind) in axes {
        let (next, next_dims) = stage(&data, &dims, axis, kind, plan.lengths[axis], w);
        data = next;
        dims = next_dims;
    }
    data
}

/// The working precision (bits) from which an enclosure of a rounding tie is taken as the tie
/// (see [`decide`]).
const TIE_PRECISION: u32 = 1024;

/// The bits of a component whose exact value `S·scale` (`scale = 1/N` or 1) lies within `rad` of
/// the midpoint `S`, or `None` when the enclosure does not decide it at this precision.
///
/// Exact zeros: the DFT of structured inputs (real symmetric sequences, ...) has components that
/// are exactly 0, whose enclosure straddles 0 at every precision. Once the enclosure's radius is
/// below `2^−8` of half the smallest subnormal, every value in it rounds to a zero, so the
/// magnitude of the correctly rounded result is decided; only its sign is not, and +0 is the
/// correct rounding of an exact 0 (a sum, under round-to-nearest: `x + (−x) = +0`). A NONZERO
/// value that small (≥ 2^150 times below every input of f32 order 1, with a shrinking bound at
/// every doubling of the precision) would round to −0 if negative: this is the one case the rule
/// could get wrong (only the sign of a zero), and it cannot be excluded without an exact
/// cyclotomic zero test.
///
/// Rounding ties: a component that is exactly the midpoint between two neighbouring values of
/// the format (common: the DFT of length 2 adds two inputs of different exponents) straddles
/// that midpoint at every precision. Once the working precision reaches [`TIE_PRECISION`] and the
/// enclosure, narrower than `2^−(w/2)` of its magnitude, holds the midpoint of two neighbours,
/// the component is taken to BE that midpoint and rounded to even. This is an assumption, not a
/// proof (the same one as for zeros): an algebraic value of the cyclotomic field that is not the
/// midpoint but lies within `2^−(w/2)` of it relative would be rounded the wrong way.
fn decide(fmt: FloatFormat, s: &Float, rad: &Float, n_inv: Option<u64>, w: u32) -> Option<u64> {
    let scale = |x: Float, r: Round| match n_inv {
        Some(n) => Float::with_val_round(w, x / n, r).0,
        None => x,
    };
    if rad.is_zero() {
        let mut q = s.to_rational()?;
        if let Some(n) = n_inv {
            q /= n;
        }
        return Some(exact::round_rational(fmt, &q));
    }
    let lo = scale(
        Float::with_val_round(w, s - rad, Round::Down).0,
        Round::Down,
    );
    let hi = scale(Float::with_val_round(w, s + rad, Round::Up).0, Round::Up);
    let (a, b) = (round_exact(fmt, &lo), round_exact(fmt, &hi));
    if a == b {
        return Some(a);
    }
    if w >= TIE_PRECISION && fmt.to_ordered(b) - fmt.to_ordered(a) == 1 {
        let width = Float::with_val_round(w, &hi - &lo, Round::Up).0;
        let size = Float::with_val(w, lo.abs_ref()) + Float::with_val(w, hi.abs_ref());
        let tolerance = size * Float::with_val(w, Float::i_exp(1, -((w / 2) as i32)));
        if width <= tolerance {
            return Some(if a & 1 == 0 { a } else { b });
        }
    }
    let magnitude = |bits: u64| bits & !(1u64 << (fmt.bit_width() - 1));
    let threshold = Float::with_val(
        RAD_PREC,
        Float::i_exp(
            1,
            fmt.min_normal_exponent() - fmt.mantissa_bits as i32 - 1 - 8,
        ),
    );
    let width = Float::with_val_round(w, &hi - &lo, Round::Up).0;
    (magnitude(a) == 0 && magnitude(b) == 0 && lo <= 0 && hi >= 0 && width < threshold * 2u32)
        .then_some(0)
}

/// The output bits of batch block `t` (row-major in the output block).
fn block_outputs(plan: &Plan, t: usize) -> Result<Vec<u128>, BackendError> {
    let size: usize = plan.out_block.iter().product();
    let complex = plan.complex_output();
    let Some(inputs) = plan.block_inputs(t) else {
        return Ok(vec![exact::nan_element(plan.fmt, complex); size]);
    };
    if size == 0 {
        return Ok(Vec::new());
    }
    let n_inv = plan.ty.inverse().then(|| plan.n() as u64);
    let parts = if complex { 2 } else { 1 };
    let mut bits: Vec<Option<u64>> = vec![None; size * parts];
    let mut w = plan.fmt.precision() + 40;
    while bits.iter().any(Option::is_none) {
        if w > MAX_PRECISION {
            return Err(BackendError::Failure(format!(
                "fft: an output did not round to one value in {MAX_PRECISION} bits"
            )));
        }
        let data = transform(plan, &inputs, w);
        bits.par_iter_mut().enumerate().for_each(|(i, slot)| {
            if slot.is_none() {
                let ball = &data[i / parts];
                let mid = if i % parts == 0 { &ball.re } else { &ball.im };
                *slot = decide(plan.fmt, mid, &ball.rad, n_inv, w);
            }
        });
        w *= 2;
    }
    let bits: Vec<u64> = bits.into_iter().flatten().collect();
    Ok(if complex {
        bits.chunks(2)
            .map(|c| complex_bits(plan.fmt, c[0], c[1]))
            .collect()
    } else {
        bits.into_iter().map(u128::from).collect()
    })
}

/// The handler: `fft(x)` into the instruction's shape (any layout).
///
/// Errors: those of [`Plan::new`]; [`BackendError::Invalid`] when the result's type or dimensions
/// are not the transform's; [`BackendError::Failure`] if an output is not decided within
/// [`MAX_PRECISION`] bits.
pub(crate) fn fft(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 1)?;
    let x = interpreter::array(instr, operands, 0)?;
    let shape = interpreter::result_array_shape(instr)?;
    let plan = Plan::new(instr, x)?;
    let (fmt, complex) = element_format("fft", shape.element_type, true)?;
    if fmt != plan.fmt || complex != plan.complex_output() || shape.dimensions != plan.out_dims {
        return invalid(format!(
            "fft: {:?} of {} gives {}{:?} ({}), not {shape}",
            plan.ty,
            x.shape(),
            if plan.complex_output() {
                "complex"
            } else {
                "real"
            },
            plan.out_dims,
            plan.fmt.precision()
        ));
    }
    let blocks: Vec<Vec<u128>> = (0..plan.batch)
        .map(|t| block_outputs(&plan, t))
        .collect::<Result<_, _>>()?;
    Ok(Literal::Array(array_from_row_major(
        shape,
        &blocks.concat(),
    )))
}

#[cfg(test)]
#[path = "fft_tests.rs"]
mod tests;
