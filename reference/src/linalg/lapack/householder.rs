//! `lapack_?geqrf_ffi` and `lapack_?orgqr_ffi` / `?ungqr` (docs/custom-calls.md).
//!
//! **geqrf** (f32, f64, c64, c128): LAPACK's Householder QR (`?GEQR2` with `?LARFG`'s
//! convention) run in MPFR at [`mp::precision`] (`4·p + 64` bits), each output rounded once (per
//! component). Per column `j`: `α = a_jj`, `x = a_{j+1:m, j}`; when `x` is exactly zero and
//! `Im α = 0`, `τ = 0`, `H = I`, `R_jj = α`; otherwise `β = −sign(Re α)·√(|α|² + ‖x‖²)` (sign(0)
//! = +), `τ = (β − α)/β`, `v = x/(α − β)`, `R_jj = β` (real), and `H_jᴴ = I − conj(τ)·v·vᴴ`
//! (`v_j = 1` implicit) is applied to the trailing columns. Gauge: given a backend's result, the
//! sign of `β` at step `j` is that of the (real part of the) backend's `R_jj` when it is finite
//! and nonzero (the factorization is unique up to those signs; the other columns follow). Two
//! cases of a real `α` where rounding decides between `H = I` and a reflection: for `x = 0`, a
//! backend's `R_jj = −α` (it saw a nonzero `x` or `Im α` of rounding noise) is the reflection
//! `τ = 2`, `v = 0`; for `0 < ‖x‖ ≤ 8mn·u·‖A‖_F` (within the backward error), a backend's
//! `R_jj` of the sign of `α` (it found `x = 0`) is `τ = 0`, `v = 0`, `R_jj = α`, as LAPACK's
//! `x = 0` (with that sign the reflector `v = x/(α − β)` would be cancellation).
//! Bounds (`error_bound: lapack`): growth `n = 8·m·n` (Householder QR's backward error, Higham
//! 2002, Thm 19.4, times the perturbation theory of QR, Sun 1991 / Higham §19.9),
//! `κ = ‖A‖_F·‖R₁⁻¹‖_F` (`R₁` the leading `k × k` block, +inf when singular), `scale = ‖A‖_F`
//! for the elements of `R` (on and above the diagonal), 2 for the reflector elements (below it)
//! and `τ` (`|τ − 1| ≤ 1`, `|v_i| ≤ 1` up to the perturbation). A batch element with a
//! non-finite input is NaN and masked.
//!
//! **orgqr/ungqr** (f32, f64, c64, c128): the first `n` columns of `H(1)⋯H(k)`, a rational
//! function of the reflectors and `τ`, computed exactly (complex rationals) and rounded once per
//! component. No gauge. Bounds: growth `n = 8·m·k` (`k` reflectors applied to `m`-vectors,
//! Higham Lemma 19.3), `κ = 1`, `scale = Π_j (1 + |τ_j|·‖v_j‖²)` (the product of the
//! reflectors' norm bounds `‖H_j‖₂ ≤ 1 + |τ_j|‖v_j‖²`). A batch element whose read part (the
//! strictly lower part of the first `k` columns, `τ`) holds NaN or ±inf is NaN and masked.

use super::spectral::mp::{self, Operand, Part};
use super::Evaluation;
use crate::linalg::exact::{self, CRat};
use conformance_spec::custom_call::LapackCall;
use conformance_spec::literal::{complex_bits, ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

/// Evaluates geqrf: `a [B..., m, n]` → `(qr [B..., m, n], tau [B..., min(m, n)])` (see the
/// module documentation and [`super::evaluate`]).
///
/// Errors: [`BackendError::Invalid`] for operands or a `got` that do not fit the call;
/// [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128.
pub fn geqrf(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let [a] = operands else {
        return Err(BackendError::Invalid(format!("{target} takes one operand")));
    };
    let a = Operand::new(&target, a, call.num_batch_dims, 2)?;
    let got = mp::got_leaves(&target, got, shape)?;
    let size = a.rows * a.cols;
    let parts = (0..a.batch)
        .into_par_iter()
        .map(|t| {
            let g = got
                .as_ref()
                .and_then(|l| l.first())
                .and_then(|l| l.get(t * size..(t + 1) * size));
            geqrf_one(&a, t, g, want_scales)
        })
        .collect::<Result<Vec<_>, _>>()?;
    mp::assemble(shape, parts)
}

/// A complex number at MPFR precision (`im = 0` for real data).
#[derive(Clone, Debug)]
struct Cx {
    re: Float,
    im: Float,
}

impl Cx {
    fn zero(prec: u32) -> Cx {
        Cx {
            re: Float::new(prec),
            im: Float::new(prec),
        }
    }

    fn real(re: Float) -> Cx {
        let im = Float::new(re.prec());
        Cx { re, im }
    }

    fn is_zero(&self) -> bool {
        self.re.is_zero() && self.im.is_zero()
    }

    fn add(&self, o: &Cx) -> Cx {
        let p = self.re.prec();
        Cx {
            re: Float::with_val(p, &self.re + &o.re),
            im: Float::with_val(p, &self.im + &o.im),
        }
    }

    fn sub(&self, o: &Cx) -> Cx {
        let p = self.re.prec();
        Cx {
            re: Float::with_val(p, &self.re - &o.re),
            im: Float::with_val(p, &self.im - &o.im),
        }
    }

    fn mul(&self, o: &Cx) -> Cx {
        let p = self.re.prec();
        let mul = |a: &Float, b: &Float| Float::with_val(p, a * b);
        Cx {
            re: mul(&self.re, &o.re) - mul(&self.im, &o.im),
            im: mul(&self.re, &o.im) + mul(&self.im, &o.re),
        }
    }

    fn conj(&self) -> Cx {
        Cx {
            re: self.re.clone(),
            im: Float::with_val(self.im.prec(), -&self.im),
        }
    }

    fn norm_sqr(&self) -> Float {
        let p = self.re.prec();
        Float::with_val(p, self.re.square_ref()) + Float::with_val(p, self.im.square_ref())
    }

    /// `1/self` (`self ≠ 0`).
    fn recip(&self) -> Cx {
        let n = self.norm_sqr();
        let c = self.conj();
        Cx {
            re: c.re / &n,
            im: c.im / &n,
        }
    }
}

fn geqrf_one(
    a: &Operand,
    t: usize,
    got_qr: Option<&[u128]>,
    want: bool,
) -> Result<Part, BackendError> {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let growth = (8 * m * n) as u64;
    let prec = mp::precision(a.fmt);
    let nan = exact::nan_element(a.fmt, a.complex);
    let mut r: Vec<Cx> = Vec::with_capacity(m * n);
    let mut norm2 = Rational::new();
    for i in 0..m {
        for j in 0..n {
            let Some(x) = a.exact(t, i, j) else {
                return Ok(Part {
                    values: vec![vec![nan; m * n], vec![nan; k]],
                    scales: if want {
                        vec![vec![mp::masked(growth); m * n], vec![mp::masked(growth); k]]
                    } else {
                        vec![]
                    },
                });
            };
            norm2 += x.norm_sqr();
            r.push(Cx {
                re: Float::with_val(prec, &x.re),
                im: Float::with_val(prec, &x.im),
            });
        }
    }
    let at = |i: usize, j: usize| i * n + j;
    // ‖x‖ at most this (the backward error of the factorization) may be rounding noise to a
    // backend, which then finds it zero.
    let noise = Float::with_val(prec, &norm2).sqrt() * (growth as f64 * a.fmt.unit_roundoff());
    let noise2 = Float::with_val(prec, noise.square_ref());
    let mut tau = vec![Cx::zero(prec); k];
    for j in 0..k {
        let alpha = r[at(j, j)].clone();
        let mut xnorm2 = Float::new(prec);
        for i in j + 1..m {
            xnorm2 += r[at(i, j)].norm_sqr();
        }
        let got_diag = got_qr
            .and_then(|g| {
                let bits = *g.get(at(j, j))?;
                let re = if a.complex {
                    conformance_spec::literal::complex_parts(a.fmt, bits).0
                } else {
                    bits as u64
                };
                mp::decode(a.fmt, u128::from(re), prec)
            })
            .filter(|d| !d.is_zero());
        // The backend's R_jj has the sign of a real α: it did not reflect (H = I).
        let kept = got_diag.as_ref().map(|d| {
            alpha.im.is_zero()
                && !alpha.re.is_zero()
                && d.is_sign_negative() == alpha.re.is_sign_negative()
        });
        if alpha.im.is_zero() && (xnorm2.is_zero() || (kept == Some(true) && xnorm2 <= noise2)) {
            // LAPACK's τ = 0 for x = 0, or a backend's for an x at the noise level (treated as
            // zero: a perturbation within the backward error) — unless, for x = 0, the backend
            // reflected (R_jj = −α, τ = 2: rounding gave it a nonzero x or Im α).
            if !(xnorm2.is_zero() && kept == Some(false)) {
                for i in j + 1..m {
                    r[at(i, j)] = Cx::zero(prec);
                }
                continue;
            }
        }
        let norm = (xnorm2 + alpha.norm_sqr()).sqrt();
        let negative = match got_diag {
            Some(d) => d.is_sign_negative(),
            _ => !alpha.re.is_sign_negative(),
        };
        let beta = Cx::real(if negative { -norm } else { norm });
        tau[j] = Cx {
            re: Float::with_val(prec, &beta.re - &alpha.re) / &beta.re,
            im: Float::with_val(prec, -&alpha.im) / &beta.re,
        };
        let scal = alpha.sub(&beta).recip();
        for i in j + 1..m {
            r[at(i, j)] = r[at(i, j)].mul(&scal);
        }
        r[at(j, j)] = beta;
        // A(j:m, j+1:n) ← H(j)ᴴ·A(j:m, j+1:n), H(j)ᴴ = I − conj(τ)·v·vᴴ.
        let ctau = tau[j].conj();
        for c in j + 1..n {
            let mut w = r[at(j, c)].clone();
            for i in j + 1..m {
                w = w.add(&r[at(i, j)].conj().mul(&r[at(i, c)]));
            }
            let tw = ctau.mul(&w);
            r[at(j, c)] = r[at(j, c)].sub(&tw);
            for i in j + 1..m {
                r[at(i, c)] = r[at(i, c)].sub(&r[at(i, j)].mul(&tw));
            }
        }
    }
    let round = |z: &Cx| {
        if a.complex {
            let (re, im) = (mp::round(a.fmt, &z.re), mp::round(a.fmt, &z.im));
            complex_bits(a.fmt, re as u64, im as u64)
        } else {
            mp::round(a.fmt, &z.re)
        }
    };
    let qr = r.iter().map(round).collect();
    let taus = tau.iter().map(round).collect();
    let scales = if want {
        let norm_a = exact::sqrt_up(&norm2);
        let kappa = match inverse_frobenius(&r, n, k, prec) {
            Some(f) => mp::up(&Float::with_val_round(64, &norm_a * &f, Round::Up).0),
            None => f64::INFINITY,
        };
        let scale_r = mp::up(&norm_a);
        let qr_scales = (0..m * n)
            .map(|e| {
                let s = if e / n <= e % n { scale_r } else { 2.0 };
                mp::bound(growth, kappa, s)
            })
            .collect();
        vec![qr_scales, vec![mp::bound(growth, kappa, 2.0); k]]
    } else {
        vec![]
    };
    Ok(Part {
        values: vec![qr, taus],
        scales,
    })
}

/// `‖R₁⁻¹‖_F` of the leading `k × k` upper triangle of `r` (row-major, `n` columns; back
/// substitution at `prec`), rounded up to 64 bits; `None` when a diagonal element is zero.
fn inverse_frobenius(r: &[Cx], n: usize, k: usize, prec: u32) -> Option<Float> {
    if (0..k).any(|i| r[i * n + i].is_zero()) {
        return None;
    }
    let mut sum = Float::new(prec);
    for c in 0..k {
        let mut x = vec![Cx::zero(prec); c + 1];
        x[c] = r[c * n + c].recip();
        for i in (0..c).rev() {
            let mut acc = Cx::zero(prec);
            for (l, xl) in x.iter().enumerate().take(c + 1).skip(i + 1) {
                acc = acc.add(&r[i * n + l].mul(xl));
            }
            x[i] = Cx::zero(prec).sub(&acc).mul(&r[i * n + i].recip());
        }
        for xi in &x {
            sum += xi.norm_sqr();
        }
    }
    Some(Float::with_val_round(64, sum.sqrt_ref(), Round::Up).0)
}

/// Evaluates orgqr/ungqr: `a [B..., m, n]` (reflectors below the diagonal), `tau [B..., k]`,
/// `k ≤ n ≤ m` → `q [B..., m, n]`, the first `n` columns of `H(1)⋯H(k)`, exactly (see the
/// module documentation and [`super::evaluate`]).
///
/// Errors: [`BackendError::Invalid`] for operands that do not fit the call.
pub fn orgqr(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    _got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let [a, tau] = operands else {
        return Err(BackendError::Invalid(format!(
            "{target} takes two operands"
        )));
    };
    let a = Operand::new(&target, a, call.num_batch_dims, 2)?;
    let tau = Operand::new(&target, tau, call.num_batch_dims, 1)?;
    if tau.batch != a.batch || !(tau.cols <= a.cols && a.cols <= a.rows) {
        return Err(BackendError::Invalid(format!(
            "{target}: a and tau need k ≤ n ≤ m and the same batch"
        )));
    }
    let parts = (0..a.batch)
        .into_par_iter()
        .map(|t| orgqr_one(&a, &tau, t, want_scales))
        .collect::<Result<Vec<_>, _>>()?;
    mp::assemble(shape, parts)
}

fn orgqr_one(a: &Operand, tau: &Operand, t: usize, want: bool) -> Result<Part, BackendError> {
    let (m, n, k) = (a.rows, a.cols, tau.cols);
    let growth = (8 * m * k.max(1)) as u64;
    let read = || -> Option<(Vec<CRat>, Vec<Vec<CRat>>)> {
        let mut taus = Vec::with_capacity(k);
        let mut vs = Vec::with_capacity(k);
        for j in 0..k {
            taus.push(tau.exact(t, 0, j)?);
            let mut v = Vec::with_capacity(m - j - 1);
            for i in j + 1..m {
                v.push(a.exact(t, i, j)?);
            }
            vs.push(v);
        }
        Some((taus, vs))
    };
    let Some((taus, vs)) = read() else {
        let nan = exact::nan_element(a.fmt, a.complex);
        return Ok(Part {
            values: vec![vec![nan; m * n]],
            scales: if want {
                vec![vec![mp::masked(growth); m * n]]
            } else {
                vec![]
            },
        });
    };
    // Q = H(1)⋯H(k)·I_{m×n}: apply H(k) first.
    let mut q: Vec<Vec<CRat>> = (0..m)
        .map(|i| {
            (0..n)
                .map(|c| if i == c { CRat::one() } else { CRat::default() })
                .collect()
        })
        .collect();
    for j in (0..k).rev() {
        if taus[j].is_zero() {
            continue;
        }
        #[allow(clippy::needless_range_loop)] // column c of several rows of q
        for c in 0..n {
            // w = v_jᴴ·q_c with v_j = (0, …, 0, 1, a_{j+1:m, j}).
            let mut w = q[j][c].clone();
            for (i, vi) in (j + 1..m).zip(&vs[j]) {
                if !vi.is_zero() && !q[i][c].is_zero() {
                    w = w.add(&vi.conj().mul(&q[i][c]));
                }
            }
            if w.is_zero() {
                continue;
            }
            let tw = taus[j].mul(&w);
            q[j][c] = q[j][c].sub(&tw);
            for (i, vi) in (j + 1..m).zip(&vs[j]) {
                if !vi.is_zero() {
                    q[i][c] = q[i][c].sub(&vi.mul(&tw));
                }
            }
        }
    }
    let values = q
        .iter()
        .flatten()
        .map(|z| {
            let re = exact::round_rational(a.fmt, &z.re);
            if a.complex {
                complex_bits(a.fmt, re, exact::round_rational(a.fmt, &z.im))
            } else {
                u128::from(re)
            }
        })
        .collect();
    let scales = if want {
        let mut prod = Float::with_val(64, 1);
        for (tj, v) in taus.iter().zip(&vs) {
            let mut norm2 = Rational::from(1);
            for vi in v {
                norm2 += vi.norm_sqr();
            }
            let abs_tau = exact::sqrt_up(&tj.norm_sqr());
            let norm2 = Float::with_val_round(64, &norm2, Round::Up).0;
            let term = Float::with_val_round(64, &abs_tau * &norm2, Round::Up).0;
            let factor = Float::with_val_round(64, &term + 1u32, Round::Up).0;
            prod = Float::with_val_round(64, &prod * &factor, Round::Up).0;
        }
        vec![vec![mp::bound(growth, 1.0, mp::up(&prod)); m * n]]
    } else {
        vec![]
    };
    Ok(Part {
        values: vec![values],
        scales,
    })
}

#[cfg(test)]
#[path = "householder_tests.rs"]
mod tests;
