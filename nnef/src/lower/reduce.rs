//! Reduce operations (NNEF 1.0.5 §4.4): `sum_reduce` (optionally normalized), `mean_reduce`,
//! `max_reduce`, `min_reduce`, `any_reduce`, `all_reduce`, `argmax_reduce`, `argmin_reduce`.
//! The result keeps the reduced axes as singletons: an HLO `reduce` over `axes`, then a reshape
//! to the graph's shape.
//!
//! `argmax_reduce` / `argmin_reduce` over several axes give the row-major position within the
//! reduced axes (the first one on ties; a NaN wins over numbers, as for `argmax_pool`): the
//! reduced axes are moved last and flattened, paired with an iota, and reduced by a
//! two-operand `reduce` keeping the better value and, on ties, the smaller position.

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{HloComputation, Opcode};
use conformance_spec::shape::Shape;

use super::{attrs, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("sum_reduce", |l, op| {
        let normalize = attrs::logical(op, "normalize")?;
        reduce(l, op, Opcode::Add, 0.0, DataType::Scalar, normalize)
    }),
    ("mean_reduce", |l, op| {
        reduce(l, op, Opcode::Add, 0.0, DataType::Scalar, true)
    }),
    ("max_reduce", |l, op| {
        reduce(
            l,
            op,
            Opcode::Maximum,
            f64::NEG_INFINITY,
            DataType::Scalar,
            false,
        )
    }),
    ("min_reduce", |l, op| {
        reduce(
            l,
            op,
            Opcode::Minimum,
            f64::INFINITY,
            DataType::Scalar,
            false,
        )
    }),
    ("any_reduce", |l, op| {
        reduce(l, op, Opcode::Or, 0.0, DataType::Logical, false)
    }),
    ("all_reduce", |l, op| {
        reduce(l, op, Opcode::And, 1.0, DataType::Logical, false)
    }),
    ("argmax_reduce", |l, op| arg_reduce(l, op, true)),
    ("argmin_reduce", |l, op| arg_reduce(l, op, false)),
];

const F32: ElementType = ElementType::F32;
const S32: ElementType = ElementType::S32;

/// `output = opcode-reduce(input, axes)`, divided by the reduced volume when `normalize`.
fn reduce(
    l: &mut Lowerer<'_>,
    op: &Operation,
    opcode: Opcode,
    init: f64,
    dtype: DataType,
    normalize: bool,
) -> Result<(), NnefError> {
    let x = l.input(op, "input", dtype)?;
    let d = l.dims(x);
    let mut axes = attrs::axes(op, "axes", d.len())?;
    if axes.is_empty() {
        return l.bind(op, "output", x);
    }
    axes.sort_unstable();
    let ty = super::element_type(dtype);
    let reducer = l.reducer(op, opcode, ty)?;
    let init = l.scalar(op, ty, init)?;
    let dimensions: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let mut y = l.b.reduce(&[x], &[init], &reducer, &dimensions).at(op)?;
    if normalize {
        let volume: i64 = axes.iter().map(|&a| d[a]).product();
        let dims = l.dims(y);
        let v = l.full(op, ty, volume as f64, &dims)?;
        y = l.b.binary(Opcode::Divide, y, v).at(op)?;
    }
    l.bind(op, "output", y)
}

/// `output = argmax_reduce(input, axes)` (`greater`) or `argmin_reduce`.
fn arg_reduce(l: &mut Lowerer<'_>, op: &Operation, greater: bool) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let mut axes = attrs::axes(op, "axes", d.len())?;
    axes.sort_unstable();
    let kept: Vec<usize> = (0..d.len()).filter(|k| !axes.contains(k)).collect();
    let perm: Vec<i64> = kept.iter().chain(&axes).map(|&k| k as i64).collect();
    let moved = if perm.iter().enumerate().all(|(i, &k)| i as i64 == k) {
        x
    } else {
        l.b.transpose(x, &perm).at(op)?
    };
    let mut flat: Vec<i64> = kept.iter().map(|&k| d[k]).collect();
    flat.push(axes.iter().map(|&k| d[k]).product());
    let last = flat.len() - 1;
    let values = l.reshape(op, moved, &flat)?;
    let positions =
        l.b.iota(
            conformance_spec::shape::ArrayShape::new(S32, flat.clone()),
            last as i64,
        )
        .at(op)?;
    let reducer = l.arg_reducer(op, greater)?;
    let worst = if greater {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let init_v = l.scalar(op, F32, worst)?;
    let init_i = l.scalar(op, S32, f64::from(i32::MAX))?;
    let r =
        l.b.reduce(
            &[values, positions],
            &[init_v, init_i],
            &reducer,
            &[last as i64],
        )
        .at(op)?;
    let index = l.b.get_tuple_element(r, 1).at(op)?;
    l.bind(op, "output", index)
}

impl Lowerer<'_> {
    /// The reducer of (value f32, position s32) pairs keeping the greater value (`greater`) or
    /// the smaller one, a NaN over a number, and on ties (NaN with NaN included) the smaller
    /// position. It is associative and commutative (a selection by a total order), so the
    /// result does not depend on the reduction order.
    pub(super) fn arg_reducer(
        &mut self,
        op: &Operation,
        greater: bool,
    ) -> Result<HloComputation, NnefError> {
        let (name, direction) = if greater {
            ("argmax_f32_s32", "GT")
        } else {
            ("argmin_f32_s32", "LT")
        };
        self.computation(op, name, |b| {
            let (v, i) = (Shape::array(F32, vec![]), Shape::array(S32, vec![]));
            let (av, ai) = (b.parameter(v.clone())?, b.parameter(i.clone())?);
            let (bv, bi) = (b.parameter(v)?, b.parameter(i)?);
            let a_nan = b.compare(av, av, "NE", None)?;
            let b_nan = b.compare(bv, bv, "NE", None)?;
            let better = b.compare(av, bv, direction, None)?;
            let equal = b.compare(av, bv, "EQ", None)?;
            let b_number = b.unary(Opcode::Not, b_nan)?;
            let only_a_nan = b.binary(Opcode::And, a_nan, b_number)?;
            let both_nan = b.binary(Opcode::And, a_nan, b_nan)?;
            let tie = b.binary(Opcode::Or, equal, both_nan)?;
            let first = b.compare(ai, bi, "LT", None)?;
            let tie_a = b.binary(Opcode::And, tie, first)?;
            let wins = b.binary(Opcode::Or, better, only_a_nan)?;
            let take_a = b.binary(Opcode::Or, wins, tie_a)?;
            let rv = b.select(take_a, av, bv)?;
            let ri = b.select(take_a, ai, bi)?;
            b.tuple(&[rv, ri])
        })
    }
}
