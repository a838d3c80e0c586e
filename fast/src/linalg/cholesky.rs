//! `cholesky` (seed 004, Cholesky): `A = L·Lᴴ` (`lower=true`, `A` Hermitian from `a`'s lower
//! triangle) or `A = Uᴴ·U` (`lower=false`, from the upper triangle) for every matrix of a batch
//! `[..., m, m]` of f32, f64, c64 or c128, on `faer`'s blocked left-looking factorization
//! (`faer::linalg::cholesky::llt`, rayon-parallel for large matrices; batches of small matrices in
//! parallel instead). The other triangle of the result is zeros. A matrix that is not positive
//! definite (a pivot `≤ 0` or NaN: masked by the harness) gives NaN in every element.
//!
//! `faer` factors the lower triangle of the matrix it is given. For `lower=true` that is the
//! row-major buffer itself; for `lower=false` the buffer read as column-major is `aᵀ`, whose lower
//! triangle holds `a`'s upper one: conjugated it is `A`'s lower triangle, and the factor `L` read
//! back row-major and conjugated is `U = Lᴴ` (no transposition is needed either way).

use super::{
    arity, bad, dims, finish_row_major, flag, result_array, row_major_bytes, with_typed_mut,
};
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::HloInstruction;
use conformance_spec::{BackendError, ElementType};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{
    cholesky_in_place, cholesky_in_place_scratch, LltRegularization,
};
use faer::{MatMut, Par};
use num_complex::{Complex32, Complex64};

/// The element types of the factorizations and solves: `faer`'s scalars that are also plain data.
pub trait Scalar: faer::traits::ComplexField + bytemuck::Pod + Send + Sync {
    /// True for the complex types.
    const COMPLEX: bool;
    /// The complex conjugate (the value itself for real types).
    fn conj_value(self) -> Self;
    /// NaN (NaN + NaN·i for complex types).
    fn nan_value() -> Self;
    /// Zero.
    fn zero_value() -> Self;
}

impl Scalar for f32 {
    const COMPLEX: bool = false;
    fn conj_value(self) -> f32 {
        self
    }
    fn nan_value() -> f32 {
        f32::NAN
    }
    fn zero_value() -> f32 {
        0.0
    }
}

impl Scalar for f64 {
    const COMPLEX: bool = false;
    fn conj_value(self) -> f64 {
        self
    }
    fn nan_value() -> f64 {
        f64::NAN
    }
    fn zero_value() -> f64 {
        0.0
    }
}

impl Scalar for Complex32 {
    const COMPLEX: bool = true;
    fn conj_value(self) -> Complex32 {
        self.conj()
    }
    fn nan_value() -> Complex32 {
        Complex32::new(f32::NAN, f32::NAN)
    }
    fn zero_value() -> Complex32 {
        Complex32::new(0.0, 0.0)
    }
}

impl Scalar for Complex64 {
    const COMPLEX: bool = true;
    fn conj_value(self) -> Complex64 {
        self.conj()
    }
    fn nan_value() -> Complex64 {
        Complex64::new(f64::NAN, f64::NAN)
    }
    fn zero_value() -> Complex64 {
        Complex64::new(0.0, 0.0)
    }
}

/// How the matrices of a batch share the pool: `(batches in parallel, faer's parallelism per
/// matrix)`. Large matrices use every thread inside `faer`; many small ones go one per task.
pub(crate) fn batch_parallelism(batches: usize, m: usize, parallel: bool) -> (bool, Par) {
    if !parallel {
        (false, Par::Seq)
    } else if batches > 1 && m <= 256 {
        (true, Par::Seq)
    } else if m >= 64 {
        (false, Par::rayon(0))
    } else {
        (false, Par::Seq)
    }
}

/// `cholesky` of seed 004. Operand and result `[..., m, m]` of f32, f64, c64 or c128 (result in
/// the instruction's layout). Errors: [`BackendError::Invalid`] for a rank below 2, non-square
/// matrices or a result shape that differs; [`BackendError::Unsupported`] for other element types.
pub(crate) fn cholesky<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 1)?;
    let a = &arrays[0];
    let result = result_array(instr)?;
    let d = dims(a.shape());
    let r = d.len();
    if r < 2 || d[r - 1] != d[r - 2] {
        return Err(bad(format!(
            "cholesky of {}: the operand must be [..., m, m]",
            a.shape()
        )));
    }
    if !result.compatible(a.shape()) {
        return Err(bad(format!(
            "cholesky of {} cannot have shape {result}",
            a.shape()
        )));
    }
    let lower = flag(instr, "lower")?;
    let m = d[r - 1];
    let parallel = exec.heavy().parallel(a.shape().element_count() * m.max(1));
    let bytes = match a.element_type() {
        ElementType::F32 => factor_all::<f32>(a, m, lower, parallel),
        ElementType::F64 => factor_all::<f64>(a, m, lower, parallel),
        ElementType::C64 => factor_all::<Complex32>(a, m, lower, parallel),
        ElementType::C128 => factor_all::<Complex64>(a, m, lower, parallel),
        t => {
            return Err(BackendError::Unsupported(format!(
                "cholesky of {t} (f32, f64, c64, c128 only)"
            )))
        }
    };
    finish_row_major(result, bytes, parallel)
}

/// Factors every `m × m` matrix of `a` (row-major copy); returns the row-major result bytes.
fn factor_all<T: Scalar>(a: &ArrayRef<'_>, m: usize, lower: bool, parallel: bool) -> Vec<u8> {
    let mut bytes = row_major_bytes(a, parallel);
    if m == 0 {
        return bytes;
    }
    with_typed_mut::<T, _>(&mut bytes, |buf| {
        let batches = buf.len() / (m * m);
        let (across, par) = batch_parallelism(batches, m, parallel);
        if across {
            super::for_chunks(buf, m * m, true, |_, mat| factor_one(mat, m, lower, par));
        } else {
            for mat in buf.chunks_exact_mut(m * m) {
                factor_one(mat, m, lower, par);
            }
        }
    });
    bytes
}

/// Factors one row-major `m × m` matrix in place (see the module's notes); the other triangle
/// becomes zeros, a failed factorization NaN everywhere.
pub fn factor_one<T: Scalar>(mat: &mut [T], m: usize, lower: bool, par: Par) {
    if !lower && T::COMPLEX {
        conj_upper(mat, m);
    }
    let ok = {
        let view = if lower {
            MatMut::from_row_major_slice_mut(mat, m, m)
        } else {
            MatMut::from_column_major_slice_mut(mat, m, m)
        };
        let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(m, par, Default::default()));
        let stack = MemStack::new(&mut mem);
        cholesky_in_place(
            view,
            LltRegularization::default(),
            par,
            stack,
            Default::default(),
        )
        .is_ok()
    };
    if !ok {
        mat.fill(T::nan_value());
        return;
    }
    if !lower && T::COMPLEX {
        conj_upper(mat, m);
    }
    // Zero the other triangle.
    for (i, row) in mat.chunks_exact_mut(m).enumerate() {
        let other = if lower {
            &mut row[i + 1..]
        } else {
            &mut row[..i]
        };
        other.fill(T::zero_value());
    }
}

/// Conjugates the upper triangle (diagonal included) of a row-major `m × m` matrix.
fn conj_upper<T: Scalar>(mat: &mut [T], m: usize) {
    for (i, row) in mat.chunks_exact_mut(m).enumerate() {
        for v in &mut row[i..] {
            *v = v.conj_value();
        }
    }
}
