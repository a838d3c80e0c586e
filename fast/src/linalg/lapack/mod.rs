//! LAPACK custom calls: what JAX emits for linear algebra on CPU, HLO `custom-call` with
//! `custom_call_target="lapack_<t><routine>_ffi"` (`<t>`: `s` f32, `d` f64, `c` c64, `z` c128).
//! Semantics, operands, results and attributes are those of `docs/custom-calls.md`; the options
//! are read by [`LapackCall::from_instruction`] and the expected result shape is
//! [`LapackCall::result_shape`].
//!
//! Every routine is batched over the leading `num_batch_dims` dimensions of its operands (batch
//! elements on rayon's pool when there are several and the work is large enough). Operands are
//! read in any layout (copied to LAPACK's layout, each matrix column-major, when needed) and every
//! result comes out in the layout of its leaf of the instruction's shape. With batch dimensions `B`
//! and `a: [B, m, n]`, `k = min(m, n)`:
//!
//! | routine | results | how |
//! |---|---|---|
//! | potrf | `(l [B,n,n], info s32[B])` | `faer`'s Cholesky of the `uplo` triangle; the strict other triangle keeps the input's values |
//! | trsm | `x`: `b`'s shape | the solves of `triangular-solve` ([`super::triangular_solve::solve_one`]) |
//! | getrf | `(lu [B,m,n], ipiv s32[B,k], info s32[B])` | our right-looking loops, LAPACK's pivoting rule ([`lu`]) |
//! | geqrf | `(qr [B,m,n], tau [B,k])` | our Householder loops, `?LARFG`'s convention ([`qr`]) |
//! | orgqr / ungqr | `q [B,m,n]` | `?ORG2R`'s backward accumulation ([`qr`]) |
//! | syevd / heevd | `(v [B,n,n], w real[B,n], info s32[B])` | our blocked `?HETRD`, divide and conquer (`?STEDC`) and `?UNMTR` ([`spectral`]) |
//! | gesdd / gesvd | `(a_out [B,m,n], s real[B,k], u, vt, info s32[B])` | `faer`'s SVD ([`spectral`]) |
//!
//! Every element type is computed in its own precision (f32 and c64 in single precision, by
//! `faer` or by our loops), never in f64 and rounded.
//!
//! Errors: a target outside the registry is [`BackendError::Unsupported`] with
//! [`unknown_target_message`]; a known target with missing or malformed attributes, operands of
//! the wrong rank, size or element type, or a declared shape other than the one LAPACK's interface
//! gives (layouts aside) is [`BackendError::Invalid`] with the registry's message.

pub mod lu;
pub mod qr;
pub mod spectral;
mod stedc;
mod tridiagonal;

use super::cholesky::{batch_parallelism, Scalar};
use super::triangular_solve::{solve_one, Options, TransposeA};
use super::{bad, dims, finish, finish_row_major, result_array, result_tuple};
use crate::buffer::typed;
use crate::layout;
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::custom_call::{
    parse_target, unknown_target_message, LapackCall, Routine, Trans,
};
use conformance_spec::hlo::{AttrValue, HloInstruction};
use conformance_spec::{ArrayShape, BackendError, ElementType, Layout};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{
    cholesky_in_place, cholesky_in_place_scratch, LltError, LltRegularization,
};
use faer::{MatMut, Par};
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// The real scalars of LAPACK's element types (f32, f64): the component type of the complex ones.
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Scalar
{
    /// 0.
    const ZERO: Self;
    /// The machine epsilon (LAPACK's `?LAMCH('E')` times 2: the distance from 1 to the next
    /// larger number).
    const EPS: Self;
    /// 1.
    const ONE: Self;
    /// LAPACK's `?LAMCH('S')`: the smallest normal number (its reciprocal does not overflow).
    const SAFE_MIN: Self;
    /// `sqrt(x² + y²)` without undue overflow.
    fn rhypot(self, other: Self) -> Self;
    /// `|x|` with the sign (bit) of `sign`, Fortran's `SIGN(x, sign)` as gfortran computes it.
    fn rcopysign(self, sign: Self) -> Self;
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// `x` rounded to the type (exact for the powers of two [`spectral`] scales by).
    fn from_f64(x: f64) -> Self;
    /// `|x|`.
    fn rabs(self) -> Self;
    /// The larger of two numbers (the other when one is NaN).
    fn rmax(self, other: Self) -> Self;
    /// The correctly rounded square root.
    fn rsqrt(self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite_value(self) -> bool;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const SAFE_MIN: f32 = f32::MIN_POSITIVE;
    const EPS: f32 = f32::EPSILON;
    fn rhypot(self, other: f32) -> f32 {
        f32::hypot(self, other)
    }
    fn rcopysign(self, sign: f32) -> f32 {
        f32::copysign(self, sign)
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn rabs(self) -> f32 {
        f32::abs(self)
    }
    fn rmax(self, other: f32) -> f32 {
        f32::max(self, other)
    }
    fn rsqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn is_finite_value(self) -> bool {
        f32::is_finite(self)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const SAFE_MIN: f64 = f64::MIN_POSITIVE;
    const EPS: f64 = f64::EPSILON;
    fn rhypot(self, other: f64) -> f64 {
        f64::hypot(self, other)
    }
    fn rcopysign(self, sign: f64) -> f64 {
        f64::copysign(self, sign)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn rabs(self) -> f64 {
        f64::abs(self)
    }
    fn rmax(self, other: f64) -> f64 {
        f64::max(self, other)
    }
    fn rsqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn is_finite_value(self) -> bool {
        f64::is_finite(self)
    }
}

/// LAPACK's element types (f32, f64, c64, c128) with the arithmetic our own loops need. The method
/// names avoid those of `faer`'s `ComplexField` (a supertrait through [`Scalar`]).
pub trait Elem:
    Scalar
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + PartialEq
{
    /// The real type (f32 for c64, f64 for c128; the type itself for real types).
    type R: Real;
    /// The real part.
    fn re_of(self) -> Self::R;
    /// The imaginary part (0 for real types).
    fn im_of(self) -> Self::R;
    /// The element with real part `r` and imaginary part 0.
    fn lift(r: Self::R) -> Self;
    /// `|re| + |im|` (BLAS's `?CABS1`, `|x|` for real types): the pivot magnitude of `I?AMAX`.
    fn cabs1(self) -> Self::R;
    /// The modulus `sqrt(re² + im²)`.
    fn modulus(self) -> Self::R;
    /// Both components divided by the real `r`.
    fn div_r(self, r: Self::R) -> Self;
    /// `‖x‖₂` without undue overflow or underflow (`faer`'s scaled norm, BLAS's `?NRM2`).
    fn nrm2(x: &[Self]) -> Self::R;
}

impl Elem for f32 {
    type R = f32;
    fn re_of(self) -> f32 {
        self
    }
    fn im_of(self) -> f32 {
        0.0
    }
    fn lift(r: f32) -> f32 {
        r
    }
    fn cabs1(self) -> f32 {
        self.abs()
    }
    fn modulus(self) -> f32 {
        self.abs()
    }
    fn div_r(self, r: f32) -> f32 {
        self / r
    }
    fn nrm2(x: &[f32]) -> f32 {
        faer::ColRef::from_slice(x).norm_l2()
    }
}

impl Elem for f64 {
    type R = f64;
    fn re_of(self) -> f64 {
        self
    }
    fn im_of(self) -> f64 {
        0.0
    }
    fn lift(r: f64) -> f64 {
        r
    }
    fn cabs1(self) -> f64 {
        self.abs()
    }
    fn modulus(self) -> f64 {
        self.abs()
    }
    fn div_r(self, r: f64) -> f64 {
        self / r
    }
    fn nrm2(x: &[f64]) -> f64 {
        faer::ColRef::from_slice(x).norm_l2()
    }
}

impl Elem for Complex32 {
    type R = f32;
    fn re_of(self) -> f32 {
        self.re
    }
    fn im_of(self) -> f32 {
        self.im
    }
    fn lift(r: f32) -> Complex32 {
        Complex32::new(r, 0.0)
    }
    fn cabs1(self) -> f32 {
        self.re.abs() + self.im.abs()
    }
    fn modulus(self) -> f32 {
        self.re.hypot(self.im)
    }
    fn div_r(self, r: f32) -> Complex32 {
        Complex32::new(self.re / r, self.im / r)
    }
    fn nrm2(x: &[Complex32]) -> f32 {
        faer::ColRef::from_slice(x).norm_l2()
    }
}

impl Elem for Complex64 {
    type R = f64;
    fn re_of(self) -> f64 {
        self.re
    }
    fn im_of(self) -> f64 {
        self.im
    }
    fn lift(r: f64) -> Complex64 {
        Complex64::new(r, 0.0)
    }
    fn cabs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn modulus(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn div_r(self, r: f64) -> Complex64 {
        Complex64::new(self.re / r, self.im / r)
    }
    fn nrm2(x: &[Complex64]) -> f64 {
        faer::ColRef::from_slice(x).norm_l2()
    }
}

/// Errors: [`BackendError::Unsupported`] with [`unknown_target_message`] when `instr`'s
/// `custom_call_target` is a string outside the registry (a missing target is left to
/// [`custom_call`], which reports it as [`BackendError::Invalid`]).
pub(crate) fn refuse_unknown_target(instr: &HloInstruction) -> Result<(), BackendError> {
    match instr.attribute("custom_call_target") {
        Some(AttrValue::Str(target)) if parse_target(target).is_none() => {
            Err(BackendError::Unsupported(unknown_target_message(target)))
        }
        _ => Ok(()),
    }
}

/// Evaluates a `custom-call` to a LAPACK target (see the module's table for the results).
///
/// Errors: [`BackendError::Unsupported`] with [`unknown_target_message`] for a target outside the
/// registry; [`BackendError::Invalid`] for a malformed call of a known target (the message of
/// [`LapackCall::from_instruction`] or [`LapackCall::result_shape`], or a declared result shape
/// that differs from LAPACK's in element types or dimensions).
pub(crate) fn custom_call<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    refuse_unknown_target(instr)?;
    let call = LapackCall::from_instruction(instr).map_err(bad)?;
    let shapes: Vec<&ArrayShape> = arrays.iter().map(|a| a.shape()).collect();
    let expected = call.result_shape(&shapes).map_err(bad)?;
    if !instr.shape.compatible(&expected) {
        return Err(bad(format!(
            "`{}` of {} gives {expected} (layouts aside), not {}",
            call.target(),
            shapes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            instr.shape
        )));
    }
    let a = dims(arrays[0].shape());
    let nb = call.num_batch_dims;
    let geometry = Geometry {
        batches: a[..nb].iter().product(),
        m: a[nb],
        n: a[nb + 1],
        parallel: exec
            .heavy()
            .parallel(arrays[0].shape().element_count() * a[nb].max(a[nb + 1]).max(1)),
        isa: exec.isa,
    };
    match call.element_type {
        ElementType::F32 => routine::<f32>(instr, &call, arrays, geometry),
        ElementType::F64 => routine::<f64>(instr, &call, arrays, geometry),
        ElementType::C64 => routine::<Complex32>(instr, &call, arrays, geometry),
        ElementType::C128 => routine::<Complex64>(instr, &call, arrays, geometry),
        t => Err(BackendError::Unsupported(format!(
            "`{}` of {t} (f32, f64, c64, c128 only)",
            call.target()
        ))),
    }
}

/// The sizes of a call: `batches` matrices `m × n` (operand 0), and whether the work is large
/// enough for the pool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub batches: usize,
    pub m: usize,
    pub n: usize,
    pub parallel: bool,
    /// The instruction set of the trailing updates.
    pub isa: crate::kernels::Isa,
}

impl Geometry {
    /// Batch elements go to the pool (one task each) when there are several.
    fn across(&self) -> bool {
        self.parallel && self.batches > 1
    }
}

fn routine<'a, T: Elem>(
    instr: &HloInstruction,
    call: &LapackCall,
    arrays: &[ArrayRef<'a>],
    g: Geometry,
) -> Result<Value<'a>, BackendError> {
    let p = g.parallel;
    match call.routine {
        Routine::Potrf => {
            let r = result_tuple(instr, 2)?;
            let (l, info) = potrf::<T>(&matrices::<T>(&arrays[0], p), g, call.lower);
            tuple(vec![matrix_out(r[0], &l, p)?, plain_out(r[1], &info, p)?])
        }
        Routine::Trsm => trsm::<T>(instr, call, arrays, g),
        Routine::Getrf => {
            let r = result_tuple(instr, 3)?;
            let (lu, ipiv, info) = lu::getrf::<T>(&matrices::<T>(&arrays[0], p), g);
            tuple(vec![
                matrix_out(r[0], &lu, p)?,
                plain_out(r[1], &ipiv, p)?,
                plain_out(r[2], &info, p)?,
            ])
        }
        Routine::Geqrf => {
            let r = result_tuple(instr, 2)?;
            let (qr, tau) = qr::geqrf::<T>(&matrices::<T>(&arrays[0], p), g);
            tuple(vec![matrix_out(r[0], &qr, p)?, plain_out(r[1], &tau, p)?])
        }
        Routine::Orgqr => {
            let r = result_array(instr)?;
            let tau = super::row_major_elements::<T>(&arrays[1], p);
            let q = qr::orgqr::<T>(&matrices::<T>(&arrays[0], p), &tau, g);
            matrix_out(r, &q, p)
        }
        Routine::Syevd => {
            let r = result_tuple(instr, 3)?;
            let (v, w, info) =
                spectral::syevd::<T>(&matrices::<T>(&arrays[0], p), g, call.lower, call.mode);
            tuple(vec![
                matrix_out(r[0], &v, p)?,
                plain_out(r[1], &w, p)?,
                plain_out(r[2], &info, p)?,
            ])
        }
        Routine::Gesdd | Routine::Gesvd => {
            let r = result_tuple(instr, 5)?;
            let a = matrices::<T>(&arrays[0], p);
            let svd = spectral::svd::<T>(&a, g, call.mode);
            tuple(vec![
                matrix_out(r[0], &a, p)?,
                plain_out(r[1], &svd.s, p)?,
                matrix_out(r[2], &svd.u, p)?,
                matrix_out(r[3], &svd.vt, p)?,
                plain_out(r[4], &svd.info, p)?,
            ])
        }
    }
}

fn tuple<'a>(items: Vec<Value<'a>>) -> Result<Value<'a>, BackendError> {
    Ok(Value::Tuple(items))
}

/// `shape`'s dimensions in LAPACK's layout: the last two dimensions column-major (rows fastest),
/// the batch dimensions outside, row-major (`{1,2,0}` for `[B, m, n]`, what JAX asks for).
pub(crate) fn lapack_shape(shape: &ArrayShape) -> ArrayShape {
    let r = shape.rank() as i64;
    let mut minor_to_major = vec![r - 2, r - 1];
    minor_to_major.extend((0..r - 2).rev());
    ArrayShape::new(shape.element_type, shape.dimensions.clone())
        .with_layout(Layout::new(minor_to_major))
}

/// The matrices of a batch `[B, m, n]` in LAPACK's layout ([`lapack_shape`]): matrix `b` is
/// `[b·m·n, (b+1)·m·n)`, column-major. Borrowed when the buffer already is that.
pub(crate) fn matrices<'s, T: bytemuck::Pod>(a: &'s ArrayRef<'_>, parallel: bool) -> Cow<'s, [T]> {
    let want = lapack_shape(a.shape());
    if !a.shape().layout.is_padded() && layout::same_physical_layout(a.shape(), &want) {
        let n = a.shape().element_count() * a.element_type().byte_width();
        typed::<T>(&a.data()[..n])
    } else {
        Cow::Owned(typed::<T>(&layout::relayout_bytes(a, &want, parallel)).into_owned())
    }
}

/// A result leaf from matrices in LAPACK's layout ([`lapack_shape`]), in `shape`'s layout.
fn matrix_out<'a, T: bytemuck::Pod>(
    shape: &ArrayShape,
    data: &[T],
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    finish(
        shape,
        &lapack_shape(shape),
        bytemuck::cast_slice(data).to_vec(),
        parallel,
    )
}

/// A result leaf from row-major values (vectors `[B, k]`, `info` `[B]`), in `shape`'s layout.
fn plain_out<'a, T: bytemuck::Pod>(
    shape: &ArrayShape,
    data: &[T],
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    finish_row_major(shape, bytemuck::cast_slice(data).to_vec(), parallel)
}

/// Runs `f` on each of `count` matrices of `size` elements of `data` in place, with the matching
/// element of `info`; on the pool when `across`.
pub(crate) fn each_matrix<T: Send>(
    data: &mut [T],
    size: usize,
    info: &mut [i32],
    across: bool,
    f: impl Fn(&mut [T], &mut i32) + Sync + Send,
) {
    if size == 0 {
        return;
    }
    if across {
        data.par_chunks_mut(size)
            .zip(info.par_iter_mut())
            .for_each(|(m, i)| f(m, i));
    } else {
        data.chunks_mut(size)
            .zip(info.iter_mut())
            .for_each(|(m, i)| f(m, i));
    }
}

/// `?POTRF(uplo)` on every `n × n` matrix (LAPACK's layout): `A = L·Lᴴ` from the lower triangle
/// (`lower`) or `A = Uᴴ·U` from the upper one, the factor on that triangle and the strict other
/// triangle the input's values (LAPACK never touches it). `info` = 0, or the 1-based index of the
/// first pivot that is not positive (`≤ 0` or NaN; `faer` also stops at an infinite one, where
/// LAPACK would go on) — the factor is then `faer`'s partial content.
pub fn potrf<T: Elem>(a: &[T], g: Geometry, lower: bool) -> (Vec<T>, Vec<i32>) {
    let n = g.n;
    let mut l = a.to_vec();
    let mut info = vec![0i32; g.batches];
    let (across, par) = batch_parallelism(g.batches, n, g.parallel);
    each_matrix(&mut l, n * n, &mut info, across, |mat, info| {
        *info = potrf_one(mat, n, lower, par)
    });
    (l, info)
}

/// One column-major `n × n` matrix in place; returns `info`.
///
/// `faer` factors the lower triangle of the view it is given: for `lower` that is the matrix
/// itself; otherwise the buffer read row-major is `aᵀ`, whose lower triangle holds `a`'s upper
/// one: conjugated it is the Hermitian matrix's lower triangle, and the factor conjugated in place
/// is `U = Lᴴ` read column-major.
fn potrf_one<T: Elem>(mat: &mut [T], n: usize, lower: bool, par: Par) -> i32 {
    let saved = mat.to_vec();
    let conj_upper = |mat: &mut [T]| {
        if T::COMPLEX {
            for j in 0..n {
                for v in &mut mat[j * n..j * n + j + 1] {
                    *v = v.conj_value();
                }
            }
        }
    };
    if !lower {
        conj_upper(mat);
    }
    let result = {
        let view = if lower {
            MatMut::from_column_major_slice_mut(mat, n, n)
        } else {
            MatMut::from_row_major_slice_mut(mat, n, n)
        };
        let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()));
        cholesky_in_place(
            view,
            LltRegularization::default(),
            par,
            MemStack::new(&mut mem),
            Default::default(),
        )
    };
    if !lower {
        conj_upper(mat);
    }
    // The strict other triangle is the input's; the diagonal is real (`faer` scales it like the
    // rest of its column, which leaves rounding residue in complex imaginary parts).
    for j in 0..n {
        if T::COMPLEX {
            mat[j + j * n] = T::lift(mat[j + j * n].re_of());
        }
        let other = if lower { 0..j } else { j + 1..n };
        for i in other {
            mat[i + j * n] = saved[i + j * n];
        }
    }
    match result {
        Ok(_) => 0,
        Err(LltError::NonPositivePivot { index }) => (index + 1) as i32,
    }
}

/// `?TRSM(side, uplo, trans_x, diag, alpha = 1)` of every batch element: `op(a)·x = b` (left) or
/// `x·op(a) = b` (right), only the `uplo` triangle of `a` read, its diagonal taken as ones for
/// `diag = U`; the result has `b`'s shape. The solves of `triangular-solve` on row-major copies.
fn trsm<'a, T: Elem>(
    instr: &HloInstruction,
    call: &LapackCall,
    arrays: &[ArrayRef<'a>],
    g: Geometry,
) -> Result<Value<'a>, BackendError> {
    let result = result_array(instr)?;
    let m = g.m;
    let nb = call.num_batch_dims;
    let db = dims(arrays[1].shape());
    let k = if call.left_side { db[nb + 1] } else { db[nb] };
    let opts = Options {
        left_side: call.left_side,
        lower: call.lower,
        unit_diagonal: call.unit_diagonal,
        transpose: match call.trans {
            Trans::No => TransposeA::NoTranspose,
            Trans::Transpose => TransposeA::Transpose,
            Trans::Adjoint => TransposeA::Adjoint,
        },
    };
    let parallel = g.parallel;
    let mut x = super::row_major_elements::<T>(&arrays[1], parallel).into_owned();
    if m > 0 && k > 0 {
        let a = super::row_major_elements::<T>(&arrays[0], parallel);
        let (across, par) = batch_parallelism(g.batches, m.max(k), parallel);
        let solve =
            |i: usize, xb: &mut [T]| solve_one(&a[i * m * m..][..m * m], xb, m, k, opts, par);
        if across {
            x.par_chunks_mut(m * k)
                .enumerate()
                .for_each(|(i, xb)| solve(i, xb));
        } else {
            x.chunks_mut(m * k)
                .enumerate()
                .for_each(|(i, xb)| solve(i, xb));
        }
    }
    finish_row_major(result, bytemuck::cast_slice(&x).to_vec(), parallel)
}
