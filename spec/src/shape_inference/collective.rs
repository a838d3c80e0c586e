//! Shape rules of the collectives (seed 004, AllReduce, AllGather, AllToAll, CollectivePermute,
//! ReduceScatter, ReplicaId; `spec/ops/collective.yaml`). The number of devices a group holds
//! is a property of the run, not of the shapes: where `replica_groups` are given, the result
//! must match their size; where they are empty (every device), the declared result (context
//! `given`) supplies the shard count, which the run checks against the device grid.

use super::contraction::check_reducer;
use super::rules::Rules;
use super::{InferenceContext, ShapeInferenceError};
use crate::collective::{check_groups, replica_groups_of};
use crate::element_type::ElementType;
use crate::shape::{ArrayShape, Shape};

fn arrays<'a>(r: &Rules<'a>) -> Result<Vec<&'a ArrayShape>, ShapeInferenceError> {
    if r.operands.is_empty() {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "at least 1",
            got: 0,
        });
    }
    r.operands
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_array()
                .ok_or_else(|| r.operand_error(format!("operand {i} must be an array, got `{s}`")))
        })
        .collect()
}

/// The size of every group when `replica_groups` are given (`None`: every device, unknown
/// here). Errors: malformed groups, or groups of different sizes.
fn group_size(r: &Rules) -> Result<Option<i64>, ShapeInferenceError> {
    let groups = replica_groups_of(r.attributes).map_err(|m| r.attr_error(m))?;
    // Cross-replica-and-partition: a group of replicas spans every partition, a count the
    // module's header holds; the run checks it.
    let spans_partitions = r.attr("channel_id").is_some()
        && matches!(
            r.attr("use_global_device_ids"),
            Some(crate::hlo::ir::AttrValue::Bool(false))
        );
    if groups.is_empty() || spans_partitions {
        if !groups.is_empty() {
            let ids = groups.iter().map(Vec::len).sum::<usize>();
            check_groups(&groups, ids, true).map_err(|m| r.attr_error(m))?;
        }
        return Ok(None);
    }
    let ids = groups.iter().map(Vec::len).sum::<usize>();
    check_groups(&groups, ids, true).map_err(|m| r.attr_error(m))?;
    Ok(Some(groups[0].len() as i64))
}

fn one_or_tuple(mut shapes: Vec<Shape>) -> Shape {
    if shapes.len() == 1 {
        shapes.remove(0)
    } else {
        Shape::Tuple(shapes)
    }
}

fn reducer(
    r: &Rules,
    context: &InferenceContext,
    t: ElementType,
) -> Result<(), ShapeInferenceError> {
    if let Some((params, root)) = context.callee {
        check_reducer(params, root, &[t], &[t]).map_err(|m| r.attr_error(m))?;
    }
    r.types_ok(t, t)
}

/// `all-reduce(operands...)`, `to_apply=` a scalar reducer `(T, T) -> T`: each result has its
/// operand's shape (a tuple for several operands, all of one element type).
pub(super) fn all_reduce(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let ops = arrays(r)?;
    let t = ops[0].element_type;
    if let Some(o) = ops.iter().find(|o| o.element_type != t) {
        return Err(r.operand_error(format!(
            "the operands share one reducer, so one element type: {t} and {}",
            o.element_type
        )));
    }
    // Groups of different sizes are allowed here (XLA's verifier asks for uniform sizes only
    // where a shape depends on them).
    let groups = replica_groups_of(r.attributes).map_err(|m| r.attr_error(m))?;
    let ids = groups.iter().map(Vec::len).sum::<usize>();
    check_groups(&groups, ids, false).map_err(|m| r.attr_error(m))?;
    reducer(r, context, t)?;
    Ok(one_or_tuple(
        ops.iter()
            .map(|o| Shape::array(o.element_type, o.dimensions.clone()))
            .collect(),
    ))
}

/// The one dimension of `dimensions={d}` of `operand`.
fn dimension(r: &Rules, operand: &ArrayShape) -> Result<usize, ShapeInferenceError> {
    match r.ints_attr("dimensions")? {
        [d] if (0..operand.rank() as i64).contains(d) => Ok(*d as usize),
        other => Err(r.attr_error(format!(
            "`dimensions` must name one dimension of the rank-{} operand, got {other:?}",
            operand.rank()
        ))),
    }
}

/// The declared result (context `given`) as an array of `t` differing from `operand` in
/// dimension `d` only.
fn declared<'a>(
    r: &Rules,
    context: &'a InferenceContext,
    operand: &ArrayShape,
    d: usize,
) -> Result<&'a ArrayShape, ShapeInferenceError> {
    let given = context.given.ok_or(ShapeInferenceError::MissingContext {
        opcode: r.opcode,
        what: "the result shape (its size along `dimensions` gives the shard count)",
    })?;
    let out = given.as_array().ok_or_else(|| {
        r.operand_error(format!("the result must be an array, declared `{given}`"))
    })?;
    let same_elsewhere = out.rank() == operand.rank()
        && (0..out.rank()).all(|k| k == d || out.dimensions[k] == operand.dimensions[k]);
    if out.element_type != operand.element_type || !same_elsewhere {
        return Err(r.operand_error(format!(
            "the result `{out}` must be the operand `{operand}` with dimension {d} resized"
        )));
    }
    Ok(out)
}

/// `all-gather(operand)`, `dimensions={d}`: the operand with dimension `d` multiplied by the
/// group size (the declared result's size when the groups are every device).
pub(super) fn all_gather(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [operand] = r.arrays::<1>("1")?;
    let d = dimension(r, operand)?;
    let out = declared(r, context, operand, d)?;
    let (n, m) = (operand.dimensions[d], out.dimensions[d]);
    let ok = match group_size(r)? {
        Some(g) => m == n * g,
        None => n == 0 && m == 0 || n > 0 && m % n == 0 && m > 0,
    };
    if !ok {
        return Err(r.operand_error(format!(
            "dimension {d} of the result is {m}: it must be {n} times the group size"
        )));
    }
    Ok(Shape::array(operand.element_type, out.dimensions.clone()))
}

/// `reduce-scatter(operand)`, `dimensions={d}`, `to_apply=`: the operand with dimension `d`
/// divided by the group size.
pub(super) fn reduce_scatter(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [operand] = r.arrays::<1>("1")?;
    let d = dimension(r, operand)?;
    let out = declared(r, context, operand, d)?;
    let (n, m) = (operand.dimensions[d], out.dimensions[d]);
    let ok = match group_size(r)? {
        Some(g) => m * g == n,
        None => m == 0 && n == 0 || m > 0 && n % m == 0,
    };
    if !ok {
        return Err(r.operand_error(format!(
            "dimension {d} of the operand is {n}: it must be the result's {m} times the group size"
        )));
    }
    reducer(r, context, operand.element_type)?;
    Ok(Shape::array(operand.element_type, out.dimensions.clone()))
}

/// `all-to-all(operand), dimensions={d}` (the array form: split and concatenated along `d`,
/// whose size the group size must divide) or `all-to-all(operands...)` without `dimensions`
/// (the tuple form: one operand per device of the group): each result has its operand's shape.
pub(super) fn all_to_all(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let ops = arrays(r)?;
    let g = group_size(r)?;
    if r.attr("dimensions").is_some() {
        let [operand] = r.arrays::<1>("1 (the array form, with `dimensions`)")?;
        let d = dimension(r, operand)?;
        if let Some(g) = g {
            if operand.dimensions[d] % g != 0 {
                return Err(r.operand_error(format!(
                    "dimension {d} ({}) is not a multiple of the group size {g}",
                    operand.dimensions[d]
                )));
            }
        }
    } else if let Some(g) = g {
        if ops.len() as i64 != g {
            return Err(r.operand_error(format!(
                "the tuple form takes one operand per device of the group: {} for groups of {g}",
                ops.len()
            )));
        }
    }
    if ops
        .iter()
        .any(|o| o.element_type != ops[0].element_type || o.dimensions != ops[0].dimensions)
    {
        return Err(r.operand_error("the operands must have one shape".into()));
    }
    Ok(one_or_tuple(
        ops.iter()
            .map(|o| Shape::array(o.element_type, o.dimensions.clone()))
            .collect(),
    ))
}

/// `collective-permute(operand), source_target_pairs=`: the operand's shape.
pub(super) fn collective_permute(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [operand] = r.arrays::<1>("1")?;
    crate::collective::source_target_pairs_of(r.attributes).map_err(|m| r.attr_error(m))?;
    Ok(Shape::array(
        operand.element_type,
        operand.dimensions.clone(),
    ))
}

/// `replica-id()` and `partition-id()`: a `u32` scalar.
pub(super) fn device_id(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    r.exactly::<0>("0")?;
    Ok(Shape::array(ElementType::U32, vec![]))
}
