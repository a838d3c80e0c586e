//! `lapack_?getrf_ffi` (docs/custom-calls.md): `?GETRF` on `a: [B..., m, n]`, result
//! `(lu: [B..., m, n], ipiv: s32[B..., k], info: s32[B...])`, `k = min(m, n)`.
//!
//! Evaluated exactly: Gaussian elimination with partial pivoting in (complex) rationals, in
//! LAPACK's order (`?GETF2`; the blocked and recursive `?GETRF`/`?GETRF2` choose the same pivots
//! in exact arithmetic). At step `s` (0-based) the pivot is the row `i ≥ s` of the largest
//! `cabs1(a_is)` (`|re| + |im|`, LAPACK's `i?amax`), the first on ties; `ipiv[s]` is its 1-based
//! row, rows `s` and `ipiv[s] − 1` are swapped (whole rows), the column below the pivot is
//! divided by it and the trailing matrix updated. A column whose candidates are all exactly zero
//! gives `ipiv[s] = s + 1` (no swap), no elimination, and `info = s + 1` if `info` is still 0.
//! `lu` packs `U` on and above the diagonal and the strictly lower part of the unit lower `L`,
//! each element rounded once.
//!
//! Gauge (`got` given): at step `s` the backend's pivot `q = ipiv[s] − 1` (from `got`'s second
//! leaf) is adopted when `s ≤ q < m`, `cabs1(a_qs) > 0` unless the whole column is zero, and it
//! is admissible on the exact values: `M − cabs1(a_qs) ≤ δ·W` with `M = max_{i≥s} cabs1(a_is)`,
//! `δ = 16·max(m, n)·u` (`u` the unit roundoff of the format) and
//! `W = max_{i≥s} (cabs1(a⁰_is) + Σ_{r<s} cabs1(l_ir)·cabs1(u_rs))` — the magnitude of the terms
//! that form the Schur-complement column (`a⁰` the operand, rows permuted alike). `W ≥ M`, so this
//! contains the relative rule `cabs1(a_qs) ≥ (1 − δ)·M`, and it also admits pivots among entries
//! that cancellation left tiny, where rounding errors of size `≈ u·W` decide. Otherwise the
//! canonical pivot is used (and a backend's different pivot fails the comparison, as it should).
//! From the first step `s` whose `ipiv[s]` is masked (below: the leading block before it is too
//! ill-conditioned, a zero pivot included) every backend pivot that is a row `s ≤ q < m` is
//! adopted: the column it is chosen from is rounding noise there (after a tiny nonzero pivot
//! where the exact one is zero a backend eliminates with multipliers of noise/noise), while the
//! determined elements of `L` that its row swaps move are still compared, in the backend's order.
//! Where `info` is masked, the backend's `info` (if in `0..=k`) is returned in its gauge.
//!
//! Error scales ([`ErrorScale`], `error_bound: lapack`), derived from the backward error of LU
//! (Higham Thm 9.3: `L̂·Û = P^T·A + ΔA`, `|ΔA| ≤ γ_{3k}·|L̂||Û|`, `3k` covering complex
//! arithmetic and blocked orders) by first-order perturbation with `P` fixed: with
//! `E = ΔA`, `X = L₁⁻¹·E₁·U₁⁻¹` (`L₁`, `U₁` the leading `k×k` blocks), `δL₁ = L₁·stril(X)`,
//! `δU₁ = triu(X)·U₁`, and for the rectangular parts `δL₂ = (E₂ − L₂·δU₁)·U₁⁻¹` (m > n),
//! `δU₂ = L₁⁻¹·(E₂ − δL₁·U₂)` (m < n). With `G = ‖|L||U|‖_F ≥ ‖E‖_F/γ` and
//! `κ = ‖L₁⁻¹‖_F·‖U₁⁻¹‖_F·G` (dimensionless) this gives `‖δL‖_F ≤ √3·γ·κ·‖L‖_F` and
//! `‖δU‖_F ≤ √3·γ·κ·‖U‖_F` (using `‖L₁⁻¹‖_F ≥ 1`, `‖U₁‖_F‖U₁⁻¹‖_F ≥ 1`, `‖L‖_F ≥ 1`). Hence
//! `n = 6·k` (≥ √3·3k), `scale = ‖L‖_F` (unit diagonal included) for the elements of `L`,
//! `‖U‖_F` for those of `U`. An element at `(i, j)` is final after step `r = min(i, j) + 1`, and
//! the same argument for the `r`-step partial factorization bounds it with `κ_r` of the leading
//! `r×r` blocks (`‖·‖_F` of leading blocks of triangular inverses grow with `r`), so elements
//! before the first zero pivot stay bounded; from a zero pivot on, `κ_r = +inf` (masked).
//! `ipiv[s]` is exact (`scale = 0`) where the Schur complement it is chosen from is determined
//! (`n·u·κ_s < ½`, `κ_0 = 0`), masked otherwise; `info` is exact where `n·u·κ_k < ½` (which
//! implies `info = 0`), masked otherwise (near or at singularity a backend may compute an exact
//! zero pivot, or a tiny nonzero one where the exact pivot is zero). A batch element with NaN or
//! ±inf in `a` is masked throughout.

use super::super::exact::{self, CRat};
use super::super::triangular_solve::substitute;
use super::super::{element_format, extent, invalid, product, row_major_bits, ErrorScale};
use super::Evaluation;
use super::{exact_scale, masked_scale};
use crate::contraction::array_from_row_major;
use conformance_spec::custom_call::LapackCall;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::literal::{complex_bits, ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

/// Evaluates the call (see [`super::evaluate`]): `operands` is `a: [B..., m, n]`; the result is
/// the tuple `(lu, ipiv, info)` in `shape`'s layouts, with three [`ErrorScale`] leaves when
/// `want_scales`. `got`: a backend's `(lu, ipiv, info)` whose admissible pivots are adopted (see
/// the module documentation).
///
/// Errors: [`BackendError::Invalid`] for an operand or result shape that does not fit;
/// [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128.
pub fn evaluate(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let &[a] = operands else {
        return invalid(format!(
            "`{target}` takes 1 operand, got {}",
            operands.len()
        ));
    };
    let (fmt, complex) = element_format(&target, a.element_type(), true)?;
    let Some([Shape::Array(lu_shape), Shape::Array(ipiv_shape), Shape::Array(info_shape)]) =
        shape.tuple_shapes()
    else {
        return invalid(format!(
            "`{target}`: the result {shape} must be a tuple (lu, ipiv, info)"
        ));
    };
    let d = a.dimensions();
    let r = d.len();
    if r < 2 || lu_shape.dimensions != d {
        return invalid(format!(
            "`{target}`: a {} must be [..., m, n] with the result's dimensions {lu_shape}",
            a.shape()
        ));
    }
    let (m, n) = (extent(d[r - 2]), extent(d[r - 1]));
    let k = m.min(n);
    let batch = product(&d[..r - 2]);
    let s32 = |s: &ArrayShape, count: usize| {
        s.element_type == ElementType::S32 && s.element_count() == count
    };
    if !s32(ipiv_shape, batch * k) || !s32(info_shape, batch) {
        return invalid(format!(
            "`{target}`: ipiv {ipiv_shape} and info {info_shape} must be s32 with {k} and 1 elements per batch ({batch})"
        ));
    }
    let g = Getrf {
        fmt,
        complex,
        m,
        n,
        a: row_major_bits(a),
    };
    let got_ipiv = got.and_then(|l| int_leaf(l, 1, batch * k));
    let got_info = got.and_then(|l| int_leaf(l, 2, batch));
    let outs: Vec<Batch> = (0..batch)
        .into_par_iter()
        .map(|t| {
            let gauge = got_ipiv.as_ref().and_then(|v| v.get(t * k..(t + 1) * k));
            let info = got_info.as_ref().and_then(|v| v.get(t).copied());
            g.batch(t, gauge, info, want_scales)
        })
        .collect();
    let mut lu = Vec::with_capacity(batch * m * n);
    let mut ipiv = Vec::with_capacity(batch * k);
    let mut info = Vec::with_capacity(batch);
    let mut scales = vec![vec![], vec![], vec![]];
    for o in outs {
        lu.extend(o.lu);
        ipiv.extend(o.ipiv.iter().map(|&p| u128::from(p as u32)));
        info.push(u128::from(o.info as u32));
        for (leaf, s) in scales.iter_mut().zip(o.scales) {
            leaf.extend(s);
        }
    }
    let result = Literal::Tuple(vec![
        Literal::Array(array_from_row_major(lu_shape, &lu)),
        Literal::Array(array_from_row_major(ipiv_shape, &ipiv)),
        Literal::Array(array_from_row_major(info_shape, &info)),
    ]);
    if !want_scales {
        scales.clear();
    }
    Ok(Evaluation { result, scales })
}

/// The values of `got`'s array leaf `leaf` when it is s32 with `count` elements.
fn int_leaf(got: &Literal, leaf: usize, count: usize) -> Option<Vec<i32>> {
    let leaves = got.array_leaves();
    let a = leaves.get(leaf)?;
    if a.element_type() != ElementType::S32 || a.shape().element_count() != count {
        return None;
    }
    Some(a.logical_bits().iter().map(|&b| b as u32 as i32).collect())
}

/// One validated call: formats, sizes and the operand's logical row-major bits.
struct Getrf {
    fmt: FloatFormat,
    complex: bool,
    m: usize,
    n: usize,
    a: Vec<u128>,
}

/// The evaluation of one batch element.
struct Batch {
    /// `m·n` row-major bits.
    lu: Vec<u128>,
    /// 1-based pivots.
    ipiv: Vec<i32>,
    info: i32,
    /// Scales of lu, ipiv, info (empty unless wanted).
    scales: Vec<Vec<ErrorScale>>,
}

/// The exact factorization of one batch element.
pub(crate) struct Lu {
    /// `m×n`: `U` on and above the diagonal, `L` strictly below (unit diagonal implicit).
    pub lu: Vec<Vec<CRat>>,
    /// 0-based pivot rows, one per step.
    pub ipiv: Vec<usize>,
    /// LAPACK's `info`: 0, or the 1-based step of the first zero pivot.
    pub info: usize,
}

/// `cabs1(z) = |re| + |im|` (exact).
fn cabs1(z: &CRat) -> Rational {
    Rational::from(z.re.abs_ref()) + Rational::from(z.im.abs_ref())
}

/// LU with partial pivoting of `a` (`m×n`, exact), in the gauge of `got` (the backend's 1-based
/// pivots) where admissible with tolerance `delta` (see the module documentation), and from step
/// `free_from` on wherever the backend's pivot is a row of the remaining block at all (the steps
/// whose pivot the precision does not determine).
#[allow(clippy::needless_range_loop)] // (i, r) index two rows at once
pub(crate) fn factor(
    mut a: Vec<Vec<CRat>>,
    got: Option<&[i32]>,
    delta: &Rational,
    free_from: usize,
) -> Lu {
    let m = a.len();
    let n = a.first().map_or(0, Vec::len);
    let k = m.min(n);
    // The operand's rows, permuted alike (for the admissibility magnitude W).
    let mut orig = if got.is_some() { a.clone() } else { vec![] };
    let mut ipiv = Vec::with_capacity(k);
    let mut info = 0;
    for s in 0..k {
        let c: Vec<Rational> = (s..m).map(|i| cabs1(&a[i][s])).collect();
        let (mut p, mut max) = (s, c[0].clone());
        for (o, v) in c.iter().enumerate().skip(1) {
            if *v > max {
                max = v.clone();
                p = s + o;
            }
        }
        let wanted = got
            .and_then(|g| g.get(s))
            .and_then(|&g| usize::try_from(i64::from(g) - 1).ok())
            .filter(|&q| q >= s && q < m && q != p);
        if let Some(q) = wanted.filter(|_| s >= free_from) {
            p = q;
        } else if let Some(q) = wanted.filter(|&q| c[q - s] > 0 || max == 0) {
            let mut w = Rational::new();
            for i in s..m {
                let mut wi = cabs1(&orig[i][s]);
                for r in 0..s {
                    wi += cabs1(&a[i][r]) * cabs1(&a[r][s]);
                }
                if wi > w {
                    w = wi;
                }
            }
            if Rational::from(&max - &c[q - s]) <= Rational::from(delta * &w) {
                p = q;
            }
        }
        ipiv.push(p);
        if p != s {
            a.swap(s, p);
            if !orig.is_empty() {
                orig.swap(s, p);
            }
        }
        if a[s][s].is_zero() {
            if info == 0 {
                info = s + 1;
            }
            continue;
        }
        let pivot_row = a[s].clone();
        for row in a.iter_mut().skip(s + 1) {
            if row[s].is_zero() {
                continue;
            }
            let Some(l) = row[s].div(&pivot_row[s]) else {
                continue; // unreachable: the pivot is nonzero
            };
            for (x, p) in row[s + 1..].iter_mut().zip(&pivot_row[s + 1..]) {
                if !p.is_zero() {
                    *x = x.sub(&l.mul(p));
                }
            }
            row[s] = l;
        }
    }
    Lu { lu: a, ipiv, info }
}

/// Upward-rounded arithmetic at precision 64 for the scales.
fn up(r: &Rational) -> Float {
    Float::with_val_round(64, r, Round::Up).0
}

fn add_up(a: &Float, b: &Float) -> Float {
    Float::with_val_round(64, a + b, Round::Up).0
}

fn mul_up(a: &Float, b: &Float) -> Float {
    Float::with_val_round(64, a * b, Round::Up).0
}

fn sqrt_up(a: &Float) -> Float {
    Float::with_val_round(64, a.sqrt_ref(), Round::Up).0
}

/// `|z|` rounded up.
fn abs_up(z: &CRat) -> Float {
    if z.im.is_zero() {
        return up(&Rational::from(z.re.abs_ref()));
    }
    sqrt_up(&up(&z.norm_sqr()))
}

/// `κ_r` for `r = 0..=k` (see the module documentation): `κ_0 = 0`, `+inf` from the first zero
/// pivot on; and `(‖L‖_F, ‖U‖_F)`, all rounded up.
#[allow(clippy::needless_range_loop)] // (r, j) index two matrices at once
pub(crate) fn condition(f: &Lu) -> (Vec<f64>, f64, f64) {
    let m = f.lu.len();
    let n = f.lu.first().map_or(0, Vec::len);
    let k = m.min(n);
    let zero = CRat::default();
    let l_at = |i: usize, j: usize| -> CRat {
        match i.cmp(&j) {
            std::cmp::Ordering::Greater => f.lu[i][j].clone(),
            std::cmp::Ordering::Equal => CRat::one(),
            std::cmp::Ordering::Less => zero.clone(),
        }
    };
    let u_at = |i: usize, j: usize| -> CRat {
        if i <= j {
            f.lu[i][j].clone()
        } else {
            zero.clone()
        }
    };
    let unit = |c: usize, size: usize| -> Vec<CRat> {
        (0..size)
            .map(|i| if i == c { CRat::one() } else { CRat::default() })
            .collect()
    };
    // ‖(L₁⁻¹)_r‖²: L₁⁻¹ is lower triangular; growing the block by one adds row r.
    let l1: Vec<Vec<CRat>> = (0..k)
        .map(|i| (0..k).map(|j| l_at(i, j)).collect())
        .collect();
    let l_cols: Vec<Vec<CRat>> = (0..k)
        .map(|c| substitute(&l1, true, &unit(c, k)).unwrap_or_default())
        .collect();
    // The leading nonsingular block of U₁: up to the first zero pivot z.
    let z = (0..k).find(|&i| f.lu[i][i].is_zero()).unwrap_or(k);
    let uz: Vec<Vec<CRat>> = (0..z)
        .map(|i| (0..z).map(|j| u_at(i, j)).collect())
        .collect();
    let u_cols: Vec<Vec<CRat>> = (0..z)
        .map(|c| substitute(&uz, false, &unit(c, z)).unwrap_or_default())
        .collect();
    // G = ‖|L||U|‖_F.
    let al: Vec<Vec<Float>> = (0..m)
        .map(|i| (0..k).map(|r| abs_up(&l_at(i, r))).collect())
        .collect();
    let au: Vec<Vec<Float>> = (0..k)
        .map(|r| (0..n).map(|j| abs_up(&u_at(r, j))).collect())
        .collect();
    let mut g2 = Float::new(64);
    for row in &al {
        for j in 0..n {
            let mut e = Float::new(64);
            for (r, lr) in row.iter().enumerate() {
                e = add_up(&e, &mul_up(lr, &au[r][j]));
            }
            g2 = add_up(&g2, &mul_up(&e, &e));
        }
    }
    let g = sqrt_up(&g2);
    let mut kappas = vec![0.0];
    let (mut nl, mut nu) = (Rational::new(), Rational::new());
    for r in 0..k {
        for col in l_cols.iter().take(r + 1) {
            nl += col.get(r).map_or_else(Rational::new, CRat::norm_sqr);
        }
        if r < z {
            for e in u_cols[r].iter().take(r + 1) {
                nu += e.norm_sqr();
            }
            let kappa = mul_up(&mul_up(&sqrt_up(&up(&nl)), &sqrt_up(&up(&nu))), &g);
            kappas.push(kappa.to_f64_round(Round::Up));
        } else {
            kappas.push(f64::INFINITY);
        }
    }
    let mut l_sq = Rational::from(k);
    let mut u_sq = Rational::new();
    for (i, row) in f.lu.iter().enumerate() {
        for (j, e) in row.iter().enumerate() {
            if i > j {
                l_sq += e.norm_sqr();
            } else {
                u_sq += e.norm_sqr();
            }
        }
    }
    let l_norm = sqrt_up(&up(&l_sq)).to_f64_round(Round::Up);
    let u_norm = sqrt_up(&up(&u_sq)).to_f64_round(Round::Up);
    (kappas, l_norm, u_norm)
}

impl Getrf {
    fn round(&self, e: &CRat) -> u128 {
        if self.complex {
            complex_bits(
                self.fmt,
                exact::round_rational(self.fmt, &e.re),
                exact::round_rational(self.fmt, &e.im),
            )
        } else {
            u128::from(exact::round_rational(self.fmt, &e.re))
        }
    }

    /// Evaluates batch `t`; `got` holds the backend's 1-based pivots for it (gauge).
    fn batch(
        &self,
        t: usize,
        got: Option<&[i32]>,
        got_info: Option<i32>,
        want_scales: bool,
    ) -> Batch {
        let (m, n) = (self.m, self.n);
        let k = m.min(n);
        let growth = 6 * k as u64;
        let base = t * m * n;
        let read: Option<Vec<Vec<CRat>>> = (0..m)
            .map(|i| {
                (0..n)
                    .map(|j| exact::element(self.fmt, self.complex, self.a[base + i * n + j]))
                    .collect()
            })
            .collect();
        let Some(a) = read else {
            let masked = |count: usize| vec![masked_scale(growth); count];
            return Batch {
                lu: vec![exact::nan_element(self.fmt, self.complex); m * n],
                ipiv: (1..=k as i32).collect(),
                info: 0,
                scales: if want_scales {
                    vec![masked(m * n), masked(k), masked(1)]
                } else {
                    vec![]
                },
            };
        };
        let size = m.max(n) as f64;
        let delta = Rational::from_f64(16.0 * size * self.fmt.unit_roundoff()).unwrap_or_default();
        let u = self.fmt.unit_roundoff();
        let determined = |kappa: f64| (growth as f64) * u * kappa < 0.5;
        let mut f = factor(a.clone(), got, &delta, k);
        let mut conditioned = None;
        // In the gauge of a backend: from the first step whose pivot is not determined by the
        // precision (a zero or nearly zero pivot before it: the Schur-complement column is then
        // rounding noise, e.g. after a tiny nonzero pivot a backend found where the exact one is
        // zero), the backend's pivots are adopted whatever they are, so that the determined
        // elements of L that those row swaps move are compared in the backend's order.
        let mut free_from = k;
        if let Some(g) = got {
            let c = condition(&f);
            free_from = (0..k).find(|&s| !determined(c.0[s])).unwrap_or(k);
            let differs = (free_from..k).any(|s| {
                g.get(s)
                    .and_then(|&q| usize::try_from(i64::from(q) - 1).ok())
                    .is_some_and(|q| q != f.ipiv[s] && q >= s && q < m)
            });
            if differs {
                f = factor(a, got, &delta, free_from);
            } else {
                conditioned = Some(c);
            }
        }
        let lu: Vec<u128> = f.lu.iter().flatten().map(|e| self.round(e)).collect();
        let ipiv: Vec<i32> = f.ipiv.iter().map(|&p| p as i32 + 1).collect();
        let mut info = f.info as i32;
        if !want_scales && got.is_none() {
            return Batch {
                lu,
                ipiv,
                info,
                scales: vec![],
            };
        }
        let (kappas, l_norm, u_norm) = conditioned.unwrap_or_else(|| condition(&f));
        let mut lu_scales = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                let kappa = kappas[i.min(j) + 1];
                lu_scales.push(ErrorScale {
                    n: growth,
                    kappa,
                    scale: if i > j { l_norm } else { u_norm },
                    masked: !kappa.is_finite(),
                });
            }
        }
        let exact_if = |kappa: f64| {
            if determined(kappa) {
                exact_scale(growth)
            } else {
                masked_scale(growth)
            }
        };
        let ipiv_scales = (0..k)
            .map(|s| {
                if s < free_from {
                    exact_if(kappas[s])
                } else {
                    masked_scale(growth)
                }
            })
            .collect();
        let info_scale = if free_from < k {
            masked_scale(growth)
        } else {
            exact_if(kappas[k])
        };
        // An undetermined info (whether a pivot is exactly zero): the backend's, when it is one
        // LAPACK could return (0..=k).
        if let (true, Some(g)) = (info_scale.masked, got_info) {
            if (0..=k as i32).contains(&g) {
                info = g;
            }
        }
        Batch {
            lu,
            ipiv,
            info,
            scales: if want_scales {
                vec![lu_scales, ipiv_scales, vec![info_scale]]
            } else {
                vec![]
            },
        }
    }
}

#[cfg(test)]
#[path = "getrf_tests.rs"]
mod tests;
