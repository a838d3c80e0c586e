//! Cases of the numerical family (seed 004: Fft, Cholesky, TriangularSolve, BatchNormTraining,
//! BatchNormInference, BatchNormGrad), valid by construction, random layouts on every parameter
//! and result, batch dimensions (sizes 0 to 3) and matrix or transform sizes including 0 and 1:
//!
//! - `fft`: 1 to 3 transformed axes of lengths 0, 1, primes, powers of two and mixed radices;
//!   for IRFFT the innermost dimension `n/2+1` of a Hermitian half spectrum;
//! - `cholesky`: well-conditioned Hermitian positive-definite matrices (`B·Bᴴ + m·I`),
//!   ill-conditioned ones (`Q·diag(d)·Qᴴ`, `d` geometric from 1 down to 10^-k with k up to the
//!   format's precision), indefinite and merely symmetric ones, the other triangle filled with
//!   unrelated values (it must not be read);
//! - `triangular-solve`: every combination of `left_side`, `lower`, `unit_diagonal` and
//!   `transpose_a`, diagonals well-scaled or geometrically shrinking (condition numbers up to
//!   about 1/u), sometimes a zero on the diagonal, unread diagonal and triangle filled with
//!   unrelated values;
//! - batch norm: features whose mean is far from zero (where a one-pass variance cancels),
//!   constant features (zero variance), `epsilon` 0 to 0.1, `feature_index` any dimension;
//! - in every op, now and then a NaN or an infinity among the inputs (when the sweep's value
//!   classes include specials).
//!
//! Sizes are capped well below the shape configuration's limits: the reference evaluates DFTs
//! in O(N²) per transform and solves in exact rational arithmetic.

use super::elementwise::{Built, CaseSpec};
use super::movement::{array, boolean, int, ints, Gen};
use super::rng::Rng;
use super::values::ValueClass;
use conformance_spec::catalog::Signature;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::hlo::{AttrValue, Attribute, Opcode};
use conformance_spec::literal::complex_bits;
use conformance_spec::shape::Shape;

/// True for the family's signatures.
pub fn is_linalg(signature: Signature) -> bool {
    matches!(
        signature,
        Signature::Fft
            | Signature::Cholesky
            | Signature::TriangularSolve
            | Signature::BatchNormTraining
            | Signature::BatchNormInference
            | Signature::BatchNormGrad
            | Signature::CustomCall
    )
}

/// Builds one case of a numerical-family entry.
///
/// Errors: not a signature of the family, or the generator built an invalid module (a bug).
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let mut g = Gen::new(rng, spec);
    let ty = spec.element_type;
    let root = match spec.op.signature {
        Signature::Fft => {
            let kind = spec
                .op
                .attributes
                .get("fft_type")
                .ok_or("an fft entry fixes fft_type")?
                .clone();
            fft(&mut g, ty, &kind)?
        }
        Signature::Cholesky => cholesky(&mut g, ty)?,
        Signature::TriangularSolve => triangular_solve(&mut g, ty)?,
        Signature::BatchNormTraining | Signature::BatchNormInference | Signature::BatchNormGrad => {
            batch_norm(&mut g, ty, spec.op.signature)?
        }
        Signature::CustomCall => {
            let routine = spec
                .op
                .attributes
                .get(conformance_spec::custom_call::ROUTINE_ATTRIBUTE)
                .ok_or("a custom-call entry fixes lapack_routine")?;
            super::lapack::build(&mut g, ty, routine)?
        }
        other => {
            return Err(format!(
                "{other:?} is not a signature of the numerical family"
            ))
        }
    };
    g.into_built(root)
}

/// Draws values of one case: a scale for the whole case, mostly moderate values around it,
/// small integers, and (rarely, when the sweep enables them) specials from the value classes.
pub(super) struct Values {
    pub(super) format: FloatFormat,
    pub(super) complex: bool,
    /// log₂ of the case's magnitude.
    pub(super) exponent: i32,
    /// Probability of a non-finite element per case that has any.
    special: bool,
}

impl Values {
    pub(super) fn new(g: &mut Gen, ty: ElementType) -> Result<Values, String> {
        let format = ty.float_format().ok_or("a floating-point type")?;
        let specials = g.spec.values.contains(&ValueClass::Special);
        Ok(Values {
            format,
            complex: ty.is_complex(),
            exponent: if g.rng.chance(0.7) {
                0
            } else {
                g.rng.range_i64(-30, 30) as i32
            },
            special: specials && g.rng.chance(0.08),
        })
    }

    /// One real value: uniform in [-1, 1)·2^exponent, a small integer or half, or a value
    /// scaled far from the case's magnitude.
    pub(super) fn real(&self, rng: &mut Rng) -> f64 {
        let scale = 2f64.powi(self.exponent);
        match rng.below(10) {
            0 | 1 => (rng.range_i64(-8, 8) as f64) / 2.0 * scale,
            2 => (rng.unit() * 2.0 - 1.0) * scale * 2f64.powi(rng.range_i64(-12, 12) as i32),
            _ => (rng.unit() * 2.0 - 1.0) * scale,
        }
    }

    /// The bits of `re + i·im` (the imaginary part ignored for real types), rounded to nearest.
    pub(super) fn bits(&self, re: f64, im: f64) -> u128 {
        if self.complex {
            complex_bits(self.format, self.format.encode(re), self.format.encode(im))
        } else {
            self.format.encode(re) as u128
        }
    }

    pub(super) fn element(&self, rng: &mut Rng) -> u128 {
        let re = self.real(rng);
        let im = if self.complex { self.real(rng) } else { 0.0 };
        self.bits(re, im)
    }

    /// `count` random elements, one of them NaN or ±inf in a case that has specials.
    pub(super) fn elements(&self, rng: &mut Rng, count: usize) -> Vec<u128> {
        let mut out: Vec<u128> = (0..count).map(|_| self.element(rng)).collect();
        self.spoil(rng, &mut out);
        out
    }

    /// Puts one NaN or infinity into `bits` when this case has specials.
    pub(super) fn spoil(&self, rng: &mut Rng, bits: &mut [u128]) {
        if !self.special || bits.is_empty() {
            return;
        }
        let k = rng.below(bits.len() as u64) as usize;
        let v = *rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        bits[k] = self.bits(v, if rng.chance(0.5) { 0.0 } else { v });
    }
}

/// Batch dimensions: none, or 1 to 2 of sizes 0 to 3 (0 rarely).
pub(super) fn batch_dims(g: &mut Gen) -> Vec<i64> {
    let rank = *g.rng.pick(&[0usize, 0, 1, 1, 2]);
    (0..rank)
        .map(|_| {
            if g.spec.shapes.zero_sized && g.rng.chance(0.05) {
                0
            } else {
                g.rng.range_i64(1, 3)
            }
        })
        .collect()
}

/// `fft` of `kind` on `ty` (complex for FFT/IFFT/IRFFT, real for RFFT).
fn fft(g: &mut Gen, ty: ElementType, kind: &str) -> Result<usize, String> {
    // Powers of two, mixed radices, and primes (Rader's and Bluestein's algorithms in FFT
    // libraries: 17, 31, 61, 97, 127, 251).
    const LENGTHS: &[i64] = &[
        1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 61, 64, 97, 127, 251,
    ];
    let axes = *g.rng.pick(&[1usize, 1, 1, 2, 2, 3]);
    let mut lengths: Vec<i64> = Vec::with_capacity(axes);
    let mut total = 1i64;
    for _ in 0..axes {
        let n = if g.spec.shapes.zero_sized && g.rng.chance(0.03) {
            0
        } else {
            *g.rng.pick(LENGTHS)
        };
        // At most 256 points per transform (the reference's DFT is O(N²) per block).
        let n = if total * n.max(1) > 256 { 1 } else { n };
        total *= n.max(1);
        lengths.push(n);
    }
    let mut batch = batch_dims(g);
    if total * batch.iter().product::<i64>().max(1) > 1024 {
        batch.clear();
    }
    let last = *lengths.last().ok_or("at least one axis")?;
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    let (in_ty, out_ty) = match kind {
        "RFFT" => (
            ty,
            conformance_spec::shape_inference::complex_of(ty)
                .ok_or_else(|| format!("RFFT of {ty}"))?,
        ),
        "IRFFT" => (ty, ty.complex_component().ok_or("IRFFT of a complex type")?),
        _ => (ty, ty),
    };
    let mut in_dims = batch.clone();
    in_dims.extend(&lengths);
    let mut out_dims = in_dims.clone();
    let inner = in_dims.len() - 1;
    match kind {
        "RFFT" => out_dims[inner] = half,
        "IRFFT" => in_dims[inner] = half,
        _ => {}
    }
    let values = Values::new(g, in_ty)?;
    let count: i64 = in_dims.iter().product();
    let bits = values.elements(g.rng, count as usize);
    let x = g.param_bits(in_ty, &in_dims, &bits)?;
    g.add(
        Opcode::Fft,
        array(out_ty, &out_dims),
        vec![x],
        vec![
            Attribute {
                name: "fft_type".into(),
                value: AttrValue::Enum(kind.into()),
            },
            ints("fft_length", &lengths),
        ],
    )
}

/// Matrix orders the generator uses (the reference solves exactly in rationals).
pub(super) const ORDERS: &[i64] = &[0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 8, 12, 16];

/// A random complex (or real) matrix `m×m` as `(re, im)` pairs, row-major.
pub(super) fn random_matrix(g: &mut Gen, v: &Values, m: usize) -> Vec<(f64, f64)> {
    (0..m * m)
        .map(|_| {
            let re = v.real(g.rng);
            let im = if v.complex { v.real(g.rng) } else { 0.0 };
            (re, im)
        })
        .collect()
}

/// A random unitary (orthogonal) matrix: a Householder reflection `I − 2wwᴴ/‖w‖²`.
pub(super) fn householder(g: &mut Gen, complex: bool, m: usize) -> Vec<(f64, f64)> {
    let w: Vec<(f64, f64)> = (0..m)
        .map(|_| {
            (
                g.rng.unit() * 2.0 - 1.0,
                if complex {
                    g.rng.unit() * 2.0 - 1.0
                } else {
                    0.0
                },
            )
        })
        .collect();
    let norm: f64 = w
        .iter()
        .map(|(a, b)| a * a + b * b)
        .sum::<f64>()
        .max(1e-300);
    let mut q = vec![(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            // −2·w_i·conj(w_j)/‖w‖²
            let (a, b) = w[i];
            let (c, d) = w[j];
            let re = -2.0 * (a * c + b * d) / norm;
            let im = -2.0 * (b * c - a * d) / norm;
            q[i * m + j] = (re + if i == j { 1.0 } else { 0.0 }, im);
        }
    }
    q
}

/// `x·yᴴ`-style product `Σ_k a[i,k]·conj(b[j,k])` of two `m×m` matrices.
pub(super) fn times_adjoint(a: &[(f64, f64)], b: &[(f64, f64)], m: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            let (mut re, mut im) = (0.0, 0.0);
            for k in 0..m {
                let (p, q) = a[i * m + k];
                let (r, s) = b[j * m + k];
                re += p * r + q * s;
                im += q * r - p * s;
            }
            out[i * m + j] = (re, im);
        }
    }
    out
}

/// `cholesky(a), lower` on a batch of matrices of several kinds (see the module documentation).
fn cholesky(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let v = Values::new(g, ty)?;
    let m = *g.rng.pick(ORDERS) as usize;
    let batch = batch_dims(g);
    let count = batch.iter().product::<i64>().max(0) as usize;
    let lower = g.rng.chance(0.5);
    let digits = (v.format.precision() as f64 * std::f64::consts::LN_2 / std::f64::consts::LN_10)
        .floor() as i32;
    let mut bits = Vec::with_capacity(count * m * m);
    for _ in 0..count {
        let hermitian: Vec<(f64, f64)> = match g.rng.below(10) {
            // Well-conditioned: B·Bᴴ + m·I, scaled to the case's magnitude.
            0..=4 => {
                let b = random_matrix(g, &v, m);
                let mut a = times_adjoint(&b, &b, m);
                let s = 2f64.powi(v.exponent);
                for i in 0..m {
                    a[i * m + i].0 += m as f64 * s * s;
                }
                a
            }
            // Ill-conditioned: Q·diag(d)·Qᴴ with d from 1 down to 10^-k.
            5..=7 => {
                let q = householder(g, v.complex, m);
                let k = g.rng.range_i64(1, digits as i64 + 1) as f64;
                let qd: Vec<(f64, f64)> = (0..m * m)
                    .map(|t| {
                        let j = t % m;
                        let d = 10f64.powf(-k * j as f64 / (m.max(2) - 1) as f64);
                        (q[t].0 * d, q[t].1 * d)
                    })
                    .collect();
                times_adjoint(&qd, &q, m)
            }
            // Hermitian but (most likely) indefinite.
            8 => {
                let b = random_matrix(g, &v, m);
                (0..m * m)
                    .map(|t| {
                        let (i, j) = (t / m, t % m);
                        let (p, q) = b[i * m + j];
                        let (r, s) = b[j * m + i];
                        (p + r, q - s)
                    })
                    .collect()
            }
            // Positive definite but for one negative pivot.
            _ => {
                let b = random_matrix(g, &v, m);
                let mut a = times_adjoint(&b, &b, m);
                if m > 0 {
                    let k = g.rng.below(m as u64) as usize;
                    a[k * m + k].0 = -a[k * m + k].0.abs() - 1.0;
                }
                a
            }
        };
        for i in 0..m {
            for j in 0..m {
                let read = if lower { j <= i } else { j >= i };
                let (re, im) = hermitian[i * m + j];
                bits.push(if read {
                    // The diagonal of a Hermitian matrix is real.
                    v.bits(re, if i == j { 0.0 } else { im })
                } else {
                    v.element(g.rng)
                });
            }
        }
    }
    v.spoil(g.rng, &mut bits);
    let mut dims = batch;
    dims.extend([m as i64, m as i64]);
    let a = g.param_bits(ty, &dims, &bits)?;
    g.add(
        Opcode::Cholesky,
        array(ty, &dims),
        vec![a],
        vec![boolean("lower", lower)],
    )
}

/// `triangular-solve(a, b)` with random attributes (see the module documentation).
fn triangular_solve(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let v = Values::new(g, ty)?;
    let m = *g.rng.pick(ORDERS) as usize;
    let k = *g.rng.pick(&[0i64, 1, 1, 2, 3, 5, 8]);
    let batch = batch_dims(g);
    let count = batch.iter().product::<i64>().max(0) as usize;
    let left_side = g.rng.chance(0.5);
    let lower = g.rng.chance(0.5);
    let unit_diagonal = g.rng.chance(0.3);
    let transpose = *g.rng.pick(&["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]);
    let digits = v.format.precision() as i32;
    let mut a_bits = Vec::with_capacity(count * m * m);
    for _ in 0..count {
        // Diagonal magnitudes: 1 to 4, or shrinking geometrically to 2^-shrink.
        let shrink = if g.rng.chance(0.3) {
            g.rng.range_i64(1, digits as i64) as f64
        } else {
            0.0
        };
        let singular = g.rng.chance(0.04);
        let zero_at = g.rng.below(m.max(1) as u64) as usize;
        for i in 0..m {
            for j in 0..m {
                let inside = if lower { j < i } else { j > i };
                let bits = if i == j && !unit_diagonal {
                    if singular && i == zero_at {
                        v.bits(0.0, 0.0)
                    } else {
                        let s = 2f64.powi(v.exponent)
                            * (1.0 + 3.0 * g.rng.unit())
                            * 2f64.powf(-shrink * i as f64 / (m.max(2) - 1) as f64);
                        let sign = if g.rng.chance(0.5) { -1.0 } else { 1.0 };
                        let im = if v.complex { v.real(g.rng) * 0.5 } else { 0.0 };
                        v.bits(sign * s, im)
                    }
                } else if inside {
                    // Off-diagonal entries below the diagonal's scale keep most cases
                    // well-conditioned; the shrinking diagonal makes the others ill-conditioned.
                    let re = v.real(g.rng) / (m as f64).max(1.0);
                    let im = if v.complex {
                        v.real(g.rng) / (m as f64).max(1.0)
                    } else {
                        0.0
                    };
                    v.bits(re, im)
                } else {
                    // Not read: the other triangle, or the diagonal under unit_diagonal.
                    v.element(g.rng)
                };
                a_bits.push(bits);
            }
        }
    }
    v.spoil(g.rng, &mut a_bits);
    let mut a_dims = batch.clone();
    a_dims.extend([m as i64, m as i64]);
    let mut b_dims = batch;
    if left_side {
        b_dims.extend([m as i64, k]);
    } else {
        b_dims.extend([k, m as i64]);
    }
    let b_count: i64 = b_dims.iter().product();
    let b_bits = v.elements(g.rng, b_count as usize);
    let a = g.param_bits(ty, &a_dims, &a_bits)?;
    let b = g.param_bits(ty, &b_dims, &b_bits)?;
    g.add(
        Opcode::TriangularSolve,
        array(ty, &b_dims),
        vec![a, b],
        vec![
            boolean("left_side", left_side),
            boolean("lower", lower),
            boolean("unit_diagonal", unit_diagonal),
            Attribute {
                name: "transpose_a".into(),
                value: AttrValue::Enum(transpose.into()),
            },
        ],
    )
}

/// The three batch-norm operations over an operand of rank 1 to 4.
fn batch_norm(g: &mut Gen, ty: ElementType, signature: Signature) -> Result<usize, String> {
    let v = Values::new(g, ty)?;
    let rank = g.rng.range_i64(1, 4) as usize;
    let mut dims: Vec<i64> = (0..rank)
        .map(|_| {
            if g.spec.shapes.zero_sized && g.rng.chance(0.03) {
                0
            } else {
                g.rng.range_i64(1, 6)
            }
        })
        .collect();
    let feature_index = g.rng.below(rank as u64) as usize;
    if dims.iter().product::<i64>() > 512 {
        dims = vec![1; rank];
        dims[feature_index] = 3;
    }
    let features = dims[feature_index].max(0) as usize;
    // Per feature: a center (sometimes far from zero, where E[x²] − E[x]² cancels), a spread
    // (sometimes zero: a constant feature).
    let centers: Vec<f64> = (0..features)
        .map(|_| {
            if g.rng.chance(0.3) {
                v.real(g.rng) * 2f64.powi(g.rng.range_i64(4, 12) as i32)
            } else {
                v.real(g.rng)
            }
        })
        .collect();
    let spreads: Vec<f64> = (0..features)
        .map(|_| {
            if g.rng.chance(0.1) {
                0.0
            } else {
                2f64.powi(v.exponent) * (0.1 + g.rng.unit())
            }
        })
        .collect();
    let count: i64 = dims.iter().product();
    let strides: i64 = dims[feature_index + 1..].iter().product();
    let mut x_bits: Vec<u128> = (0..count)
        .map(|t| {
            let f = ((t / strides.max(1)) % dims[feature_index].max(1)) as usize;
            v.bits(centers[f] + spreads[f] * (g.rng.unit() * 2.0 - 1.0), 0.0)
        })
        .collect();
    v.spoil(g.rng, &mut x_bits);
    let epsilon = *g.rng.pick(&["0", "1e-05", "0.001", "0.1"]);
    let vector = |g: &mut Gen, positive: bool| -> Vec<u128> {
        (0..features)
            .map(|_| {
                let r = v.real(g.rng);
                v.bits(if positive { r.abs() } else { r }, 0.0)
            })
            .collect()
    };
    let fdims = [features as i64];
    let x = g.param_bits(ty, &dims, &x_bits)?;
    let scale_bits = vector(g, false);
    let scale = g.param_bits(ty, &fdims, &scale_bits)?;
    let attrs = vec![
        Attribute {
            name: "epsilon".into(),
            value: AttrValue::Raw(epsilon.into()),
        },
        int("feature_index", feature_index as i64),
    ];
    let tuple = Shape::Tuple(vec![array(ty, &dims), array(ty, &fdims), array(ty, &fdims)]);
    // The given mean and variance of inference and grad: near the data's, or unrelated.
    let moments = |g: &mut Gen| -> Result<(usize, usize), String> {
        let mean_bits: Vec<u128> = centers.iter().map(|&c| v.bits(c, 0.0)).collect();
        let var_bits: Vec<u128> = spreads
            .iter()
            .map(|&s| {
                let var = if g.rng.chance(0.8) {
                    s * s / 3.0
                } else {
                    v.real(g.rng).abs()
                };
                v.bits(var, 0.0)
            })
            .collect();
        let mean = g.param_bits(ty, &fdims, &mean_bits)?;
        let var = g.param_bits(ty, &fdims, &var_bits)?;
        Ok((mean, var))
    };
    match signature {
        Signature::BatchNormTraining => {
            let offset_bits = vector(g, false);
            let offset = g.param_bits(ty, &fdims, &offset_bits)?;
            g.add(
                Opcode::BatchNormTraining,
                tuple,
                vec![x, scale, offset],
                attrs,
            )
        }
        Signature::BatchNormInference => {
            let offset_bits = vector(g, false);
            let offset = g.param_bits(ty, &fdims, &offset_bits)?;
            let (mean, var) = moments(g)?;
            g.add(
                Opcode::BatchNormInference,
                array(ty, &dims),
                vec![x, scale, offset, mean, var],
                attrs,
            )
        }
        _ => {
            let (mean, var) = moments(g)?;
            let dy_bits = v.elements(g.rng, count as usize);
            let dy = g.param_bits(ty, &dims, &dy_bits)?;
            g.add(
                Opcode::BatchNormGrad,
                tuple,
                vec![x, scale, mean, var, dy],
                attrs,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_valid_cases_the_reference_runs() {
        let built = crate::generate::test_support::build_every_entry(
            |op| is_linalg(op.signature),
            4,
            build,
        );
        assert!(built >= 60, "only {built} cases built");
    }

    #[test]
    fn every_triangular_solve_attribute_combination_is_drawn() {
        let catalog = conformance_spec::catalog::Catalog::builtin().unwrap();
        let op = catalog.op("triangular-solve").unwrap();
        let shapes = crate::generate::shapes::ShapeConfig::default();
        let spec = CaseSpec {
            op,
            element_type: ElementType::F32,
            target_type: None,
            shapes: &shapes,
            values: &ValueClass::ALL,
        };
        let mut seen = std::collections::HashSet::new();
        for seed in 0..400 {
            let built = build(&mut Rng::new(seed), &spec).unwrap();
            let root = built.module.entry_computation().root_instruction();
            seen.insert((
                root.attr_bool("left_side"),
                root.attr_bool("lower"),
                root.attr_bool("unit_diagonal"),
                root.attr_enum("transpose_a").map(str::to_string),
            ));
        }
        assert_eq!(seen.len(), 24, "{seen:?}");
    }
}
