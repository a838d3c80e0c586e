//! Shape shrinking for the numerical family (`fft`, `cholesky`, `triangular-solve`,
//! `batch-norm-*`), whose operands' shapes are tied together in ways the generic window cut of
//! [`super::structured`] cannot keep valid: a matrix order shared by `a` and `b`, a transform
//! length that `fft_length` names, a feature count shared by the operand and its per-feature
//! vectors. Each candidate cuts every operand consistently and infers the root's shape again.
//!
//! - a batch dimension (shared by every operand of cholesky and triangular-solve): one index,
//!   or the first half;
//! - a matrix order `m` (cholesky; triangular-solve's `a` and `b`'s matching dimension): the
//!   leading principal submatrix of order 1, `m/2` or `m − 1` (a principal submatrix of a
//!   positive-definite matrix is positive definite; of a triangular one, triangular);
//! - a transformed length `n` of `fft` (the axis and `fft_length` together; for RFFT and IRFFT
//!   on the innermost axis, the half-spectrum `n/2 + 1` follows): 1, 2, `n/2` or `n − 1`;
//! - batch norm's feature count: one feature, or the first half.
//!
//! - LAPACK custom calls: batch dimensions and leading blocks ([`lapack_candidates`]).
//!
//! Other dimensions (triangular-solve's right-hand sides, batch norm's reduced dimensions, fft's
//! batch) are cut by the generic step.

use super::window;
use conformance_spec::hlo::{AttrValue, HloInstruction, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;

/// True for the roots this module shrinks.
pub(super) fn is_linalg(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Fft
            | Opcode::Cholesky
            | Opcode::TriangularSolve
            | Opcode::BatchNormTraining
            | Opcode::BatchNormInference
            | Opcode::BatchNormGrad
            | Opcode::CustomCall
    )
}

/// The smaller consistent cases of `root` over `operands`: each a new root (attributes updated,
/// shape inferred again) and its operands. Empty for other roots or operands that are not arrays.
pub(super) fn candidates(
    root: &HloInstruction,
    operands: &[Literal],
) -> Vec<(HloInstruction, Vec<Literal>)> {
    let Some(arrays) = operands
        .iter()
        .map(Literal::as_array)
        .collect::<Option<Vec<&ArrayLiteral>>>()
    else {
        return vec![];
    };
    let mut out: Vec<(HloInstruction, Vec<ArrayLiteral>)> = Vec::new();
    match root.opcode {
        Opcode::Cholesky | Opcode::TriangularSolve => {
            let Some(a) = arrays.first() else {
                return vec![];
            };
            let rank = a.shape().rank();
            if rank < 2 {
                return vec![];
            }
            for d in 0..rank - 2 {
                for (start, len) in halves(a.dimensions()[d]) {
                    let cut = arrays.iter().map(|x| cut_dim(x, d, start, len)).collect();
                    out.push((root.clone(), cut));
                }
            }
            let m = a.dimensions()[rank - 1];
            let left = root.attr_bool("left_side").unwrap_or(false);
            for order in orders(m) {
                let mut cut = vec![cut_dim(&cut_dim(a, rank - 2, 0, order), rank - 1, 0, order)];
                if let Some(b) = arrays.get(1) {
                    let d = if left { rank - 2 } else { rank - 1 };
                    cut.push(cut_dim(b, d, 0, order));
                }
                out.push((root.clone(), cut));
            }
        }
        Opcode::Fft => {
            let (Some(x), Some(lengths)) = (arrays.first(), root.attr_ints("fft_length")) else {
                return vec![];
            };
            let kind = root.attr_enum("fft_type").unwrap_or("FFT");
            let rank = x.shape().rank();
            let first = rank.saturating_sub(lengths.len());
            for (k, &n) in lengths.iter().enumerate() {
                let last = k + 1 == lengths.len();
                for new in orders(n) {
                    let keep = match kind {
                        "IRFFT" if last => new / 2 + 1,
                        _ => new,
                    };
                    let mut r = root.clone();
                    let mut new_lengths = lengths.to_vec();
                    new_lengths[k] = new;
                    set_attr(&mut r, "fft_length", AttrValue::Ints(new_lengths));
                    out.push((r, vec![cut_dim(x, first + k, 0, keep)]));
                }
            }
        }
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad => {
            let (Some(x), Some(f)) = (arrays.first(), root.attr_int("feature_index")) else {
                return vec![];
            };
            let f = f as usize;
            let Some(&features) = x.dimensions().get(f) else {
                return vec![];
            };
            for (start, len) in halves(features) {
                let cut = arrays
                    .iter()
                    .map(|a| {
                        if a.shape().rank() == 1 {
                            cut_dim(a, 0, start, len)
                        } else {
                            cut_dim(a, f, start, len)
                        }
                    })
                    .collect();
                out.push((root.clone(), cut));
            }
        }
        Opcode::CustomCall => lapack_candidates(root, &arrays, &mut out),
        _ => {}
    }
    out.into_iter()
        .filter_map(|(mut r, cut)| {
            let shapes: Vec<Shape> = cut
                .iter()
                .map(|a| Shape::Array(a.shape().clone()))
                .collect();
            let refs: Vec<&Shape> = shapes.iter().collect();
            r.shape =
                conformance_spec::shape_inference::infer_shape(r.opcode, &refs, &r.attributes)
                    .ok()?;
            let changed = cut
                .iter()
                .zip(&arrays)
                .any(|(c, a)| c.dimensions() != a.dimensions());
            changed.then(|| (r, cut.into_iter().map(Literal::Array).collect()))
        })
        .collect()
}

/// A LAPACK custom call (docs/custom-calls.md): each batch dimension (shared by every operand)
/// cut to one index or its first half; the matrix cut to a leading block — a principal
/// submatrix for the square routines (potrf, syevd; trsm's `a` with `b`'s matching dimension),
/// leading rows or columns for getrf, geqrf, gesdd, gesvd, and for orgqr fewer reflectors (`tau`)
/// or fewer rows or columns of `a` that keep `k ≤ n ≤ m`.
fn lapack_candidates(
    root: &HloInstruction,
    arrays: &[&ArrayLiteral],
    out: &mut Vec<(HloInstruction, Vec<ArrayLiteral>)>,
) {
    use conformance_spec::custom_call::{LapackCall, Routine};
    let (Ok(call), Some(a)) = (LapackCall::from_instruction(root), arrays.first()) else {
        return;
    };
    let nb = call.num_batch_dims;
    if a.shape().rank() != nb + 2 {
        return;
    }
    for d in 0..nb {
        for (start, len) in halves(a.dimensions()[d]) {
            let cut = arrays.iter().map(|x| cut_dim(x, d, start, len)).collect();
            out.push((root.clone(), cut));
        }
    }
    let (m, n) = (a.dimensions()[nb], a.dimensions()[nb + 1]);
    match call.routine {
        Routine::Potrf | Routine::Syevd | Routine::Trsm => {
            for order in orders(m) {
                let mut cut = vec![cut_dim(&cut_dim(a, nb, 0, order), nb + 1, 0, order)];
                if let Some(b) = arrays.get(1) {
                    let d = if call.left_side { nb } else { nb + 1 };
                    cut.push(cut_dim(b, d, 0, order));
                }
                out.push((root.clone(), cut));
            }
        }
        Routine::Getrf | Routine::Geqrf | Routine::Gesdd | Routine::Gesvd => {
            for rows in orders(m) {
                out.push((root.clone(), vec![cut_dim(a, nb, 0, rows)]));
            }
            for cols in orders(n) {
                out.push((root.clone(), vec![cut_dim(a, nb + 1, 0, cols)]));
            }
        }
        Routine::Orgqr => {
            let Some(tau) = arrays.get(1) else {
                return;
            };
            let k = tau.dimensions()[nb];
            for fewer in orders(k) {
                out.push((root.clone(), vec![(*a).clone(), cut_dim(tau, nb, 0, fewer)]));
            }
            for cols in orders(n).into_iter().filter(|&c| c >= k) {
                out.push((
                    root.clone(),
                    vec![cut_dim(a, nb + 1, 0, cols), (*tau).clone()],
                ));
            }
            for rows in orders(m).into_iter().filter(|&r| r >= n) {
                out.push((root.clone(), vec![cut_dim(a, nb, 0, rows), (*tau).clone()]));
            }
        }
    }
}

/// Windows `(start, len)` to try on a dimension of `size`: one element at either end, the
/// first half.
fn halves(size: i64) -> Vec<(i64, i64)> {
    match size {
        s if s >= 2 => vec![(0, 1), (s - 1, 1), (0, s / 2)],
        _ => vec![],
    }
}

/// Smaller sizes to try for a matrix order or transform length `n`.
fn orders(n: i64) -> Vec<i64> {
    let mut v: Vec<i64> = [1, 2, n / 2, n - 1]
        .into_iter()
        .filter(|&k| k >= 1 && k < n)
        .collect();
    v.dedup();
    v
}

/// `a` cut to `[start, start + len)` along dimension `d`.
fn cut_dim(a: &ArrayLiteral, d: usize, start: i64, len: i64) -> ArrayLiteral {
    let mut starts = vec![0; a.shape().rank()];
    let mut sizes = a.dimensions().to_vec();
    if d < sizes.len() {
        starts[d] = start;
        sizes[d] = len.min(sizes[d] - start).max(0);
    }
    window(a, &starts, &sizes)
}

fn set_attr(i: &mut HloInstruction, name: &str, value: AttrValue) {
    match i.attributes.iter_mut().find(|a| a.name == name) {
        Some(a) => a.value = value,
        None => i.attributes.push(conformance_spec::hlo::Attribute {
            name: name.into(),
            value,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    fn root_and_args(hlo: &str, args: &[&str]) -> (HloInstruction, Vec<Literal>) {
        let m = parse_module(hlo).unwrap();
        let root = m.entry_computation().root_instruction().clone();
        (
            root,
            args.iter().map(|a| parse_literal(a).unwrap()).collect(),
        )
    }

    #[test]
    fn triangular_solve_shrinks_the_order_of_a_and_b_together() {
        let (root, args) = root_and_args(
            "HloModule t\nENTRY e {\n  a = f32[3,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  ROOT x = f32[3,2] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE\n}\n",
            &[
                "f32[3,3] {{1, 0, 0}, {2, 3, 0}, {4, 5, 6}}",
                "f32[3,2] {{1, 2}, {3, 4}, {5, 6}}",
            ],
        );
        let c = candidates(&root, &args);
        let orders: Vec<(Vec<i64>, Vec<i64>)> = c
            .iter()
            .map(|(_, ops)| {
                (
                    ops[0].as_array().unwrap().dimensions().to_vec(),
                    ops[1].as_array().unwrap().dimensions().to_vec(),
                )
            })
            .collect();
        assert!(orders.contains(&(vec![1, 1], vec![1, 2])), "{orders:?}");
        assert!(orders.contains(&(vec![2, 2], vec![2, 2])), "{orders:?}");
        let (r, ops) = c
            .iter()
            .find(|(_, ops)| ops[0].as_array().unwrap().dimensions() == [2, 2])
            .unwrap();
        assert_eq!(r.shape.to_string(), "f32[2,2]{1,0}");
        assert_eq!(
            ops[0].as_array().unwrap().get_bits(&[1, 1]),
            3f32.to_bits() as u128
        );
    }

    #[test]
    fn fft_lengths_shrink_with_their_attribute() {
        let (root, args) = root_and_args(
            "HloModule f\nENTRY e {\n  x = c64[9] parameter(0)\n  ROOT y = f32[16] fft(x), fft_type=IRFFT, fft_length={16}\n}\n",
            &["c64[9] {(1,0), (2,0), (3,0), (4,0), (5,0), (6,0), (7,0), (8,0), (9,0)}"],
        );
        let c = candidates(&root, &args);
        let forms: Vec<(String, Vec<i64>)> = c
            .iter()
            .map(|(r, ops)| {
                (
                    r.shape.to_string(),
                    ops[0].as_array().unwrap().dimensions().to_vec(),
                )
            })
            .collect();
        assert!(forms.contains(&("f32[8]{0}".into(), vec![5])), "{forms:?}");
        assert!(forms.contains(&("f32[1]{0}".into(), vec![1])), "{forms:?}");
    }

    #[test]
    fn batch_norm_features_shrink_in_every_operand() {
        let (root, args) = root_and_args(
            "HloModule b\nENTRY e {\n  x = f32[2,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n  ROOT t = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}\n",
            &["f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[3] {1, 1, 1}", "f32[3] {0, 0, 0}"],
        );
        let c = candidates(&root, &args);
        assert!(c.iter().any(|(r, ops)| {
            ops[0].as_array().unwrap().dimensions() == [2, 1]
                && ops[1].as_array().unwrap().dimensions() == [1]
                && r.shape.to_string() == "(f32[2,1]{1,0}, f32[1]{0}, f32[1]{0})"
        }));
    }

    #[test]
    fn lapack_calls_shrink_batches_and_leading_blocks_consistently() {
        let (root, args) = root_and_args(
            "HloModule t\nENTRY e {\n  a = f32[2,3,3] parameter(0)\n  b = f32[2,3,2] parameter(1)\n  ROOT x = f32[2,3,2]{1,2,0} custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", frontend_attributes={num_batch_dims=\"1\"}, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}\n}\n",
            &[
                "f32[2,3,3] {{{1, 0, 0}, {2, 3, 0}, {4, 5, 6}}, {{1, 0, 0}, {2, 3, 0}, {4, 5, 6}}}",
                "f32[2,3,2] {{{1, 2}, {3, 4}, {5, 6}}, {{1, 2}, {3, 4}, {5, 6}}}",
            ],
        );
        let c = candidates(&root, &args);
        let dims = |ops: &Vec<Literal>, k: usize| ops[k].as_array().unwrap().dimensions().to_vec();
        // One batch element of both operands.
        assert!(c.iter().any(|(r, ops)| dims(ops, 0) == [1, 3, 3]
            && dims(ops, 1) == [1, 3, 2]
            && r.shape.to_string() == "f32[1,3,2]{2,1,0}"));
        // The leading 1×1 block of a with b's first row.
        assert!(c
            .iter()
            .any(|(_, ops)| dims(ops, 0) == [2, 1, 1] && dims(ops, 1) == [2, 1, 2]));
        // Every candidate is a valid call.
        assert!(c
            .iter()
            .all(|(r, _)| r.shape.is_tuple() || r.shape.as_array().is_some()));

        let (root, args) = root_and_args(
            "HloModule q\nENTRY e {\n  a = f64[4,3] parameter(0)\n  t = f64[2] parameter(1)\n  ROOT q = f64[4,3]{0,1} custom-call(a, t), custom_call_target=\"lapack_dorgqr_ffi\", backend_config={}\n}\n",
            &["f64[4,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, 1, 1}}", "f64[2] {1, 1.5}"],
        );
        let c = candidates(&root, &args);
        // k ≤ n ≤ m holds in every candidate.
        for (_, ops) in &c {
            let (a, t) = (dims(ops, 0), dims(ops, 1));
            assert!(t[0] <= a[1] && a[1] <= a[0], "{a:?} {t:?}");
        }
        assert!(c.iter().any(|(_, ops)| dims(ops, 1) == [1]));
    }
}
