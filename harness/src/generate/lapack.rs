//! Cases of the LAPACK custom calls (`spec/ops/lapack.yaml`, docs/custom-calls.md), valid by
//! construction: the call as JAX writes it (`api_version=API_VERSION_TYPED_FFI`, options in
//! `backend_config`, `num_batch_dims` in `frontend_attributes`), batch dimensions (sizes 0 to 3),
//! matrix sizes including 0 and 1, random parameter layouts, and per routine the inputs that
//! reach its corners:
//!
//! - potrf: well- and ill-conditioned Hermitian positive-definite matrices, indefinite ones, the
//!   unread triangle filled with unrelated values, both `uplo`;
//! - trsm: every `side`, `uplo`, `trans_x`, `diag`, diagonals well-scaled or shrinking
//!   geometrically, now and then a zero on the diagonal;
//! - getrf: rectangular matrices, rows that tie in magnitude (pivots LAPACK takes first), zero
//!   columns (`info > 0`), rank-deficient and ill-conditioned ones;
//! - geqrf: rectangular matrices, columns already zero below the diagonal (`tau = 0`),
//!   rank-deficient and ill-conditioned ones;
//! - orgqr: reflectors with LAPACK's `tau = 2/‖v‖²` (an orthogonal product) or arbitrary `tau`,
//!   `k ≤ n ≤ m`;
//! - syevd: Hermitian matrices with simple, clustered and repeated eigenvalues, both `uplo`,
//!   modes `V` and `N`;
//! - gesdd, gesvd: rectangular matrices with distinct, repeated and zero singular values, modes
//!   `A`, `S`, `N`;
//! - now and then a NaN or an infinity among the inputs (when the sweep's value classes include
//!   specials).

use super::linalg::{batch_dims, householder, random_matrix, times_adjoint, Values, ORDERS};
use super::movement::Gen;
use conformance_spec::custom_call::{parse_target, LapackCall, Mode, Routine, Trans};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{AttrValue, Attribute, Opcode};
use conformance_spec::shape::{ArrayShape, Shape};

/// Builds the call of `routine` (the entry's `lapack_routine`) on `ty` and returns the root.
///
/// Errors: an unknown routine, or an invalid module (a generator bug).
pub(super) fn build(g: &mut Gen, ty: ElementType, routine: &str) -> Result<usize, String> {
    let routine = conformance_spec::custom_call::Routine::ALL
        .into_iter()
        .find(|r| r.name() == routine)
        .ok_or_else(|| format!("no LAPACK routine `{routine}`"))?;
    let v = Values::new(g, ty)?;
    let batch = batch_dims(g);
    let count = batch.iter().product::<i64>().max(0) as usize;
    let mut call = LapackCall::new(routine, ty, batch.len());
    let dims = |tail: &[i64]| {
        let mut d = batch.clone();
        d.extend_from_slice(tail);
        d
    };
    let pick = |g: &mut Gen| *g.rng.pick(ORDERS) as usize;
    let param = |g: &mut Gen, ty: ElementType, dims: &[i64], bits: &[u128]| {
        g.param_bits(ty, dims, bits)
            .map(|i| (i, ArrayShape::new(ty, dims.to_vec())))
    };
    let operands: Vec<(usize, ArrayShape)> = match routine {
        Routine::Potrf => {
            call.lower = g.rng.chance(0.7);
            let m = pick(g);
            let mut bits = Vec::with_capacity(count * m * m);
            for _ in 0..count {
                let a = positive_definite_or_not(g, &v, m);
                bits.extend(hermitian_bits(g, &v, &a, m, call.lower));
            }
            v.spoil(g.rng, &mut bits);
            vec![param(g, ty, &dims(&[m as i64, m as i64]), &bits)?]
        }
        Routine::Trsm => {
            call.left_side = g.rng.chance(0.5);
            call.lower = g.rng.chance(0.5);
            call.unit_diagonal = g.rng.chance(0.3);
            call.trans = *g.rng.pick(&[Trans::No, Trans::Transpose, Trans::Adjoint]);
            if !ty.is_complex() && call.trans == Trans::Adjoint {
                call.trans = Trans::Transpose;
            }
            let m = pick(g);
            let k = *g.rng.pick(&[0i64, 1, 1, 2, 3, 5]);
            let mut a = Vec::with_capacity(count * m * m);
            for _ in 0..count {
                a.extend(triangular(g, &v, m, call.lower, call.unit_diagonal));
            }
            v.spoil(g.rng, &mut a);
            let b_tail = if call.left_side {
                [m as i64, k]
            } else {
                [k, m as i64]
            };
            let b_count: i64 = dims(&b_tail).iter().product();
            let b = v.elements(g.rng, b_count as usize);
            vec![
                param(g, ty, &dims(&[m as i64, m as i64]), &a)?,
                param(g, ty, &dims(&b_tail), &b)?,
            ]
        }
        Routine::Getrf | Routine::Geqrf | Routine::Gesdd | Routine::Gesvd => {
            if matches!(routine, Routine::Gesdd | Routine::Gesvd) {
                call.mode =
                    *g.rng
                        .pick(&[Mode::Reduced, Mode::Reduced, Mode::All, Mode::NoVectors]);
            }
            let (m, n) = (pick(g).min(8), pick(g).min(8));
            let mut bits = Vec::with_capacity(count * m * n);
            for _ in 0..count {
                bits.extend(general(g, &v, m, n, routine));
            }
            v.spoil(g.rng, &mut bits);
            vec![param(g, ty, &dims(&[m as i64, n as i64]), &bits)?]
        }
        Routine::Orgqr => {
            let m = pick(g).min(8);
            let n = g.rng.range_i64(0, m as i64) as usize;
            let k = g.rng.range_i64(0, n as i64) as usize;
            let orthogonal = g.rng.chance(0.7);
            let (mut a, mut tau) = (Vec::new(), Vec::new());
            for _ in 0..count {
                let (x, t) = reflectors(g, &v, m, n, k, orthogonal);
                a.extend(x);
                tau.extend(t);
            }
            v.spoil(g.rng, &mut a);
            vec![
                param(g, ty, &dims(&[m as i64, n as i64]), &a)?,
                param(g, ty, &dims(&[k as i64]), &tau)?,
            ]
        }
        Routine::Syevd => {
            call.lower = g.rng.chance(0.6);
            call.mode = if g.rng.chance(0.85) {
                Mode::Vectors
            } else {
                Mode::NoVectors
            };
            let m = pick(g).min(12);
            let mut bits = Vec::with_capacity(count * m * m);
            for _ in 0..count {
                let a = spectrum_matrix(g, &v, m);
                bits.extend(hermitian_bits(g, &v, &a, m, call.lower));
            }
            v.spoil(g.rng, &mut bits);
            vec![param(g, ty, &dims(&[m as i64, m as i64]), &bits)?]
        }
    };
    let refs: Vec<&ArrayShape> = operands.iter().map(|(_, s)| s).collect();
    let result = call.result_shape(&refs)?;
    // Random layouts on every result leaf (the semantics are on logical indices).
    let result = match result {
        Shape::Tuple(leaves) => Shape::Tuple(
            leaves
                .into_iter()
                .map(|l| match l {
                    Shape::Array(a) => {
                        let layout = g.layout(&a.dimensions);
                        Shape::Array(a.with_layout(layout))
                    }
                    other => other,
                })
                .collect(),
        ),
        other => other,
    };
    debug_assert!(parse_target(&call.target()).is_some());
    let attributes = vec![
        Attribute {
            name: "custom_call_target".into(),
            value: AttrValue::Str(call.target()),
        },
        Attribute {
            name: "api_version".into(),
            value: AttrValue::Raw("API_VERSION_TYPED_FFI".into()),
        },
        Attribute {
            name: "frontend_attributes".into(),
            value: AttrValue::Raw(format!("{{num_batch_dims=\"{}\"}}", call.num_batch_dims)),
        },
        Attribute {
            name: "backend_config".into(),
            value: AttrValue::Raw(call.backend_config()),
        },
    ];
    let operands = operands.into_iter().map(|(i, _)| i).collect();
    g.add(Opcode::CustomCall, result, operands, attributes)
}

/// A Hermitian matrix: positive definite well-conditioned (`B·Bᴴ + m·I`), ill-conditioned
/// (`Q·diag(10^-k…1)·Qᴴ`), or indefinite.
fn positive_definite_or_not(g: &mut Gen, v: &Values, m: usize) -> Vec<(f64, f64)> {
    let digits = (v.format.precision() as f64 * std::f64::consts::LOG10_2).floor() as i64;
    match g.rng.below(10) {
        0..=5 => {
            let b = random_matrix(g, v, m);
            let mut a = times_adjoint(&b, &b, m);
            let s = 2f64.powi(v.exponent);
            for i in 0..m {
                a[i * m + i].0 += m as f64 * s * s;
            }
            a
        }
        6..=7 => {
            let k = g.rng.range_i64(1, digits + 1) as f64;
            let d: Vec<f64> = (0..m)
                .map(|j| 10f64.powf(-k * j as f64 / (m.max(2) - 1) as f64))
                .collect();
            conjugated(g, v, m, &d)
        }
        _ => {
            let b = random_matrix(g, v, m);
            (0..m * m)
                .map(|t| {
                    let (i, j) = (t / m, t % m);
                    let (p, q) = b[i * m + j];
                    let (r, s) = b[j * m + i];
                    (p + r, q - s)
                })
                .collect()
        }
    }
}

/// `Q·diag(d)·Qᴴ` with a random reflection `Q`.
fn conjugated(g: &mut Gen, v: &Values, m: usize, d: &[f64]) -> Vec<(f64, f64)> {
    let q = householder(g, v.complex, m);
    let qd: Vec<(f64, f64)> = (0..m * m)
        .map(|t| (q[t].0 * d[t % m], q[t].1 * d[t % m]))
        .collect();
    times_adjoint(&qd, &q, m)
}

/// A Hermitian matrix for syevd: random, or with clustered or repeated eigenvalues.
fn spectrum_matrix(g: &mut Gen, v: &Values, m: usize) -> Vec<(f64, f64)> {
    let s = 2f64.powi(v.exponent);
    match g.rng.below(4) {
        0 | 1 => positive_definite_or_not(g, v, m),
        2 => {
            // Repeated eigenvalues: a few distinct values, each several times.
            let values: Vec<f64> = (0..m).map(|j| s * ((j % 2) as f64 * 3.0 - 1.0)).collect();
            conjugated(g, v, m, &values)
        }
        _ => {
            // A cluster: eigenvalues 1 + j·δ with δ tiny, and one far away.
            let delta = 2f64.powi(-(g.rng.range_i64(4, v.format.precision() as i64) as i32));
            let values: Vec<f64> = (0..m)
                .map(|j| {
                    if j == 0 {
                        -4.0 * s
                    } else {
                        s * (1.0 + j as f64 * delta)
                    }
                })
                .collect();
            conjugated(g, v, m, &values)
        }
    }
}

/// The bits of a Hermitian matrix as its `uplo` triangle (real diagonal) with the other triangle
/// filled with unrelated values (LAPACK never reads them).
fn hermitian_bits(g: &mut Gen, v: &Values, a: &[(f64, f64)], m: usize, lower: bool) -> Vec<u128> {
    let mut out = Vec::with_capacity(m * m);
    for i in 0..m {
        for j in 0..m {
            let read = if lower { j <= i } else { j >= i };
            let (re, im) = a[i * m + j];
            out.push(if read {
                v.bits(re, if i == j { 0.0 } else { im })
            } else {
                v.element(g.rng)
            });
        }
    }
    out
}

/// A triangular matrix for trsm: diagonals of magnitude 1 to 4 or shrinking geometrically, a
/// zero on the diagonal now and then, unread parts filled with unrelated values.
fn triangular(g: &mut Gen, v: &Values, m: usize, lower: bool, unit: bool) -> Vec<u128> {
    let shrink = if g.rng.chance(0.3) {
        g.rng.range_i64(1, v.format.precision() as i64) as f64
    } else {
        0.0
    };
    let zero_at = g
        .rng
        .chance(0.04)
        .then(|| g.rng.below(m.max(1) as u64) as usize);
    let mut out = Vec::with_capacity(m * m);
    for i in 0..m {
        for j in 0..m {
            let inside = if lower { j < i } else { j > i };
            out.push(if i == j && !unit {
                if zero_at == Some(i) {
                    v.bits(0.0, 0.0)
                } else {
                    let s = 2f64.powi(v.exponent)
                        * (1.0 + 3.0 * g.rng.unit())
                        * 2f64.powf(-shrink * i as f64 / (m.max(2) - 1) as f64);
                    let sign = if g.rng.chance(0.5) { -1.0 } else { 1.0 };
                    v.bits(sign * s, if v.complex { v.real(g.rng) * 0.5 } else { 0.0 })
                }
            } else if inside {
                let d = (m as f64).max(1.0);
                let im = if v.complex { v.real(g.rng) / d } else { 0.0 };
                v.bits(v.real(g.rng) / d, im)
            } else {
                v.element(g.rng)
            });
        }
    }
    out
}

/// An `m×n` matrix for getrf, geqrf and the SVDs: random; with rows tied in magnitude; with a
/// zero column or columns already zero below the diagonal; rank-deficient (a repeated column);
/// or with repeated singular values.
fn general(g: &mut Gen, v: &Values, m: usize, n: usize, routine: Routine) -> Vec<u128> {
    let mut a: Vec<(f64, f64)> = (0..m * n)
        .map(|_| {
            let im = if v.complex { v.real(g.rng) } else { 0.0 };
            (v.real(g.rng), im)
        })
        .collect();
    match g.rng.below(10) {
        0 if m >= 2 => {
            // Two rows equal up to sign: equal pivot candidates (LAPACK takes the first).
            let (r, t) = (
                g.rng.below(m as u64) as usize,
                g.rng.below(m as u64) as usize,
            );
            for j in 0..n {
                let (re, im) = a[r * n + j];
                a[t * n + j] = (-re, -im);
            }
        }
        1 if n >= 1 => {
            // A zero column (getrf: info > 0) or an upper-triangular block (geqrf: tau = 0).
            let c = g.rng.below(n as u64) as usize;
            let upper = routine == Routine::Geqrf && g.rng.chance(0.5);
            for i in 0..m {
                for j in 0..n {
                    if (upper && i > j) || (!upper && j == c) {
                        a[i * n + j] = (0.0, 0.0);
                    }
                }
            }
        }
        2 if n >= 2 => {
            // Rank-deficient: one column a multiple of another.
            let (c, d) = (
                g.rng.below(n as u64) as usize,
                g.rng.below(n as u64) as usize,
            );
            for i in 0..m {
                let (re, im) = a[i * n + c];
                a[i * n + d] = (2.0 * re, 2.0 * im);
            }
        }
        3 if m == n && m >= 2 => {
            // Repeated singular values: a multiple of a unitary matrix.
            let s = 2f64.powi(v.exponent);
            a = householder(g, v.complex, m)
                .into_iter()
                .map(|(re, im)| (re * s, im * s))
                .collect();
        }
        _ => {}
    }
    a.into_iter().map(|(re, im)| v.bits(re, im)).collect()
}

/// Reflectors for orgqr: `a` `m×n` with `v_j` below the diagonal of column `j < k` (the rest
/// unread, filled), and `tau` (`k`): `2/(1 + ‖v_j‖²)` (an orthogonal product) or arbitrary.
fn reflectors(
    g: &mut Gen,
    v: &Values,
    m: usize,
    n: usize,
    k: usize,
    orthogonal: bool,
) -> (Vec<u128>, Vec<u128>) {
    let mut a = Vec::with_capacity(m * n);
    let mut norms = vec![0.0f64; n];
    for i in 0..m {
        for (j, norm) in norms.iter_mut().enumerate() {
            let (re, im) = (
                g.rng.unit() * 2.0 - 1.0,
                if v.complex {
                    g.rng.unit() * 2.0 - 1.0
                } else {
                    0.0
                },
            );
            let round = |x: f64| v.format.decode(v.format.encode(x));
            let (re, im) = (round(re), round(im));
            if i > j {
                *norm += re * re + im * im;
            }
            a.push(v.bits(re, im));
        }
    }
    let tau = (0..k)
        .map(|j| {
            let t = if orthogonal {
                2.0 / (1.0 + norms[j])
            } else {
                g.rng.unit() * 2.0
            };
            v.bits(t, 0.0)
        })
        .collect();
    (a, tau)
}

#[cfg(test)]
mod tests {
    use crate::generate::test_support::build_every_entry;
    use conformance_spec::catalog::Signature;

    /// Every entry of the family on every element type builds valid cases the reference runs.
    #[test]
    fn every_routine_builds_valid_cases() {
        let n = build_every_entry(
            |op| op.signature == Signature::CustomCall,
            12,
            super::super::linalg::build,
        );
        // 5 routines × 4 types + 3 × 2 types, 12 seeds each.
        assert_eq!(n, 8 * 4 * 12);
    }
}
