//! `triangular-solve` (seed 004, TriangularSolve): `op(a)·x = b` (`left_side=true`) or
//! `x·op(a) = b`, `op(a) = a`, `aᵀ` or `aᴴ` (`transpose_a=NO_TRANSPOSE|TRANSPOSE|ADJOINT`), only
//! the triangle of `a` named by `lower` read, its diagonal taken as ones when `unit_diagonal`;
//! batches `a [..., m, m]`, `b [..., m, k]` (left) or `[..., k, m]` (right) of f32, f64, c64 or
//! c128, on `faer`'s blocked triangular solves (rayon-parallel for large systems; batches of small
//! ones in parallel instead).
//!
//! Every case is one solve `M·X = B` in place on strided views of row-major buffers: the right
//! side `x·op(a) = b` is `op(a)ᵀ·xᵀ = bᵀ`, and `M` is `a` or its transposed view, implicitly
//! conjugated for ADJOINT:
//!
//! | side | transpose_a | M | triangle of M |
//! |---|---|---|---|
//! | left | NO_TRANSPOSE | a | lower |
//! | left | TRANSPOSE / ADJOINT | aᵀ (conj.) | !lower |
//! | right | NO_TRANSPOSE | aᵀ | !lower |
//! | right | TRANSPOSE / ADJOINT | a (conj.) | lower |

use super::cholesky::{batch_parallelism, Scalar};
use super::{
    arity, bad, dims, enumerator, finish_row_major, flag, for_chunks, result_array,
    row_major_bytes, row_major_elements, with_typed_mut,
};
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::HloInstruction;
use conformance_spec::{BackendError, ElementType};
use faer::linalg::triangular_solve as ts;
use faer::{Conj, MatMut, MatRef, Par};
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;

/// `transpose_a` of `triangular-solve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransposeA {
    /// `op(a) = a`.
    NoTranspose,
    /// `op(a) = aᵀ`.
    Transpose,
    /// `op(a) = aᴴ` (conjugate transpose).
    Adjoint,
}

/// The attributes of one `triangular-solve`.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `op(a)·x = b` when true, `x·op(a) = b` otherwise.
    pub left_side: bool,
    /// Which triangle of `a` is read.
    pub lower: bool,
    /// The diagonal of `a` is taken as ones (and not read).
    pub unit_diagonal: bool,
    /// `op`.
    pub transpose: TransposeA,
}

/// `triangular-solve` of seed 004. Result: `b`'s shape, in the instruction's layout.
/// Errors: [`BackendError::Invalid`] for shapes that do not fit (`a` not `[..., m, m]`, batch
/// dimensions that differ, `b`'s solved dimension not `m`, a result shape other than `b`'s) or a
/// malformed `transpose_a`; [`BackendError::Unsupported`] for element types other than f32, f64,
/// c64 and c128.
pub(crate) fn triangular_solve<'a>(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    arity(instr, arrays, 2)?;
    let (a, b) = (&arrays[0], &arrays[1]);
    let result = result_array(instr)?;
    let transpose = match enumerator(instr, "transpose_a") {
        None | Some("NO_TRANSPOSE") => TransposeA::NoTranspose,
        Some("TRANSPOSE") => TransposeA::Transpose,
        Some("ADJOINT") => TransposeA::Adjoint,
        Some(t) => return Err(bad(format!("triangular-solve: unknown transpose_a={t}"))),
    };
    let opts = Options {
        left_side: flag(instr, "left_side")?,
        lower: flag(instr, "lower")?,
        unit_diagonal: flag(instr, "unit_diagonal")?,
        transpose,
    };
    let (da, db) = (dims(a.shape()), dims(b.shape()));
    let r = da.len();
    let shapes_ok = r >= 2
        && db.len() == r
        && da[r - 1] == da[r - 2]
        && da[..r - 2] == db[..r - 2]
        && (if opts.left_side { db[r - 2] } else { db[r - 1] }) == da[r - 1]
        && a.element_type() == b.element_type()
        && result.compatible(b.shape());
    if !shapes_ok {
        return Err(bad(format!(
            "triangular-solve of a {} and b {} (left_side={}) to {result}: a must be [..., m, m], b [..., m, k] (left) or [..., k, m] (right) with the same batch dimensions and element type, the result b's shape",
            a.shape(),
            b.shape(),
            opts.left_side
        )));
    }
    let m = da[r - 1];
    let (rows, cols) = (db[r - 2], db[r - 1]);
    let k = if opts.left_side { cols } else { rows };
    let parallel = exec
        .heavy()
        .parallel(b.shape().element_count().saturating_mul(m.max(1)));
    let bytes = match a.element_type() {
        ElementType::F32 => solve_all::<f32>(a, b, m, k, opts, parallel),
        ElementType::F64 => solve_all::<f64>(a, b, m, k, opts, parallel),
        ElementType::C64 => solve_all::<Complex32>(a, b, m, k, opts, parallel),
        ElementType::C128 => solve_all::<Complex64>(a, b, m, k, opts, parallel),
        t => {
            return Err(BackendError::Unsupported(format!(
                "triangular-solve of {t} (f32, f64, c64, c128 only)"
            )))
        }
    };
    finish_row_major(result, bytes, parallel)
}

/// Solves every system of the batch; returns the row-major result bytes.
fn solve_all<T: Scalar>(
    a: &ArrayRef<'_>,
    b: &ArrayRef<'_>,
    m: usize,
    k: usize,
    opts: Options,
    parallel: bool,
) -> Vec<u8> {
    let mut bytes = row_major_bytes(b, parallel);
    if m == 0 || k == 0 {
        return bytes;
    }
    let a = row_major_elements::<T>(a, parallel);
    with_typed_mut::<T, _>(&mut bytes, |x| {
        let batches = x.len() / (m * k);
        let (across, par) = batch_parallelism(batches, m.max(k), parallel);
        let a: &[T] = &a;
        if across {
            for_chunks(x, m * k, true, |i, xb| {
                solve_one(&a[i * m * m..(i + 1) * m * m], xb, m, k, opts, par)
            });
        } else {
            for (i, xb) in x.chunks_exact_mut(m * k).enumerate() {
                solve_one(&a[i * m * m..(i + 1) * m * m], xb, m, k, opts, par);
            }
        }
    });
    bytes
}

/// Columns of the solution per parallel task: the right-hand sides are independent, so a large
/// solve splits into column panels solved sequentially on each thread (no synchronization, and
/// `faer`'s sequential kernels stay at full speed).
const PANEL: usize = 64;

/// Solves one system in place: `a` row-major `m × m`, `x` holding `b` row-major (`m × k` for the
/// left side, `k × m` for the right side) and receiving the solution. With `Par::Rayon` and
/// enough right-hand sides the columns of `X` are split into panels solved in parallel.
pub fn solve_one<T: Scalar>(a: &[T], x: &mut [T], m: usize, k: usize, opts: Options, par: Par) {
    let a = MatRef::from_row_major_slice(a, m, m);
    let x = if opts.left_side {
        MatMut::from_row_major_slice_mut(x, m, k)
    } else {
        MatMut::from_row_major_slice_mut(x, k, m).transpose_mut()
    };
    let threads = match par {
        Par::Seq => 1,
        Par::Rayon(n) => n.get(),
    };
    if threads > 1 && k >= 2 * PANEL {
        let panels = k.div_ceil(PANEL).min(4 * threads);
        let width = k.div_ceil(panels);
        let mut parts = Vec::with_capacity(panels);
        let mut rest = x;
        while rest.ncols() > width {
            let (head, tail) = rest.split_at_col_mut(width);
            parts.push(head);
            rest = tail;
        }
        parts.push(rest);
        parts
            .into_par_iter()
            .for_each(|p| solve_view(a, p, opts, Par::Seq));
    } else {
        solve_view(a, x, opts, par);
    }
}

/// Solves `M·X = B` in place on the view `x` (`m × k`; see the module's table for `M`).
fn solve_view<T: Scalar>(a: MatRef<'_, T>, x: MatMut<'_, T>, opts: Options, par: Par) {
    let transposed = opts.left_side != (opts.transpose == TransposeA::NoTranspose);
    let conj = if opts.transpose == TransposeA::Adjoint {
        Conj::Yes
    } else {
        Conj::No
    };
    let tri = if transposed { a.transpose() } else { a };
    let lower = opts.lower != transposed;
    match (lower, opts.unit_diagonal) {
        (true, false) => ts::solve_lower_triangular_in_place_with_conj(tri, conj, x, par),
        (true, true) => ts::solve_unit_lower_triangular_in_place_with_conj(tri, conj, x, par),
        (false, false) => ts::solve_upper_triangular_in_place_with_conj(tri, conj, x, par),
        (false, true) => ts::solve_unit_upper_triangular_in_place_with_conj(tri, conj, x, par),
    }
}
