//! Matrix multiplication (NNEF 1.0.5 §4.7): `matmul(A, B, transposeA, transposeB)` on tensors of
//! equal rank r ≥ 2; the first r - 2 dimensions are batch dimensions (singletons broadcast as
//! for binary operations). HLO `dot` with batch dimensions `0..r-2` and the contracting
//! dimension chosen by the transposition flags: `C[b, i, j] = Σ_l A'[b, i, l]·B'[b, l, j]`.

use conformance_spec::hlo::DotDimensionNumbers;

use super::{attrs, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[("matmul", matmul)];

fn matmul(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let a = l.input(op, "A", DataType::Scalar)?;
    let b = l.input(op, "B", DataType::Scalar)?;
    let (ta, tb) = (
        attrs::logical(op, "transposeA")?,
        attrs::logical(op, "transposeB")?,
    );
    let (ad, bd) = (l.dims(a), l.dims(b));
    let out = l.result_dims(op, "C")?;
    let r = ad.len();
    if r < 2 || bd.len() != r || out.len() != r {
        return Err(fail(
            op,
            format!("A {ad:?}, B {bd:?} and C {out:?} must have the same rank, at least 2"),
        ));
    }
    let batch = &out[..r - 2];
    let mut target = batch.to_vec();
    target.extend_from_slice(&ad[r - 2..]);
    let a = l.broadcast_to(op, a, &target)?;
    let mut target = batch.to_vec();
    target.extend_from_slice(&bd[r - 2..]);
    let b = l.broadcast_to(op, b, &target)?;
    let batch_dims: Vec<i64> = (0..r as i64 - 2).collect();
    let last = r as i64 - 1;
    let dn = DotDimensionNumbers {
        lhs_batch_dimensions: batch_dims.clone(),
        rhs_batch_dimensions: batch_dims,
        lhs_contracting_dimensions: vec![if ta { last - 1 } else { last }],
        rhs_contracting_dimensions: vec![if tb { last } else { last - 1 }],
    };
    let c = l.b.dot_general(a, b, &dn, None).at(op)?;
    l.bind(op, "C", c)
}
