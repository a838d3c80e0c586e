//! Computations and control flow (seed 004: Map; Conditional; While; Sort; OptimizationBarrier;
//! and XLA's `topk`): result shapes from operands, attributes and the signatures of the called
//! computations ([`InferenceContext::called`]).

use super::rules::{braces, Rules};
use super::{shapes_compatible, InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::shape::{ArrayShape, Shape};

/// The called computations' signatures, or a `MissingContext` error.
fn called<'a>(
    r: &Rules,
    context: &InferenceContext<'a>,
    what: &'static str,
) -> Result<&'a [(Vec<Shape>, Shape)], ShapeInferenceError> {
    if context.called.is_empty() {
        Err(ShapeInferenceError::MissingContext {
            opcode: r.opcode,
            what,
        })
    } else {
        Ok(context.called)
    }
}

fn is_scalar_of(s: &Shape, t: ElementType) -> bool {
    s.as_array()
        .is_some_and(|a| a.dimensions.is_empty() && a.element_type == t)
}

/// `map(operands...), dimensions={0..rank-1}, to_apply=f` (seed 004, Map): N arrays of equal
/// dimensions; `f` takes N scalars of the operands' element types and returns a scalar of type S;
/// the result is S with the operands' dimensions.
pub(super) fn map(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let arrays = equal_arrays(r)?;
    let first = arrays[0];
    let all: Vec<i64> = (0..first.rank() as i64).collect();
    if let Some(d) = r.attr("dimensions") {
        let ok = matches!(d, crate::hlo::AttrValue::Ints(v) if *v == all);
        if !ok {
            return Err(r.attr_error(format!(
                "`dimensions={d}` must list every dimension in order, {} (XLA maps over all dimensions)",
                braces(&all)
            )));
        }
    }
    let [(params, root)] = called(r, context, "the mapped computation's signature")? else {
        return Err(r.attr_error("map calls exactly one computation (`to_apply=`)".into()));
    };
    if params.len() != arrays.len() {
        return Err(r.operand_error(format!(
            "the mapped computation takes {} parameter(s), {} operand(s) given",
            params.len(),
            arrays.len()
        )));
    }
    for (i, (p, a)) in params.iter().zip(&arrays).enumerate() {
        if !is_scalar_of(p, a.element_type) {
            return Err(r.operand_error(format!(
                "parameter {i} of the mapped computation is `{p}`; it must be the scalar {}[] of operand {i}",
                a.element_type
            )));
        }
    }
    let Some(out) = root.as_array().filter(|a| a.dimensions.is_empty()) else {
        return Err(r.operand_error(format!(
            "the mapped computation returns `{root}`; it must return a scalar"
        )));
    };
    Ok(Shape::array(out.element_type, first.dimensions.clone()))
}

/// `conditional(selector, operands...)` (seed 004, Conditional): a `pred[]` selector with
/// `true_computation`/`false_computation` and 2 operands, or an `s32[]` selector with
/// `branch_computations` (N ≥ 1) and N operands; branch b takes operand b+1's shape; every branch
/// returns the same shape, the result's.
pub(super) fn conditional(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let Some((selector, operands)) = r.operands.split_first() else {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "at least 2",
            got: 0,
        });
    };
    let branches = called(r, context, "the branch computations' signatures")?;
    let by_pred = r.attr("true_computation").is_some() || r.attr("false_computation").is_some();
    if by_pred {
        if r.attr("branch_computations").is_some() {
            return Err(r.attr_error(
                "give either `true_computation`/`false_computation` or `branch_computations`, not both"
                    .into(),
            ));
        }
        if !is_scalar_of(selector, ElementType::Pred) {
            return Err(r.operand_error(format!(
                "with true_computation/false_computation the selector must be pred[], got `{selector}`"
            )));
        }
        if branches.len() != 2 {
            return Err(r.attr_error(
                "a pred conditional needs both `true_computation=` and `false_computation=`".into(),
            ));
        }
    } else if !is_scalar_of(selector, ElementType::S32)
        && !is_scalar_of(selector, ElementType::Pred)
    {
        return Err(r.operand_error(format!(
            "the branch index must be s32[] (or pred[] with two branches), got `{selector}`"
        )));
    } else if is_scalar_of(selector, ElementType::Pred) && branches.len() != 2 {
        return Err(r.operand_error(format!(
            "a pred selector chooses between 2 branches, {} given",
            branches.len()
        )));
    }
    if operands.len() != branches.len() {
        return Err(r.operand_error(format!(
            "{} branch(es) but {} branch operand(s): each branch takes one operand",
            branches.len(),
            operands.len()
        )));
    }
    let mut result: Option<&Shape> = None;
    for (b, ((params, root), operand)) in branches.iter().zip(operands).enumerate() {
        match params.as_slice() {
            [p] if shapes_compatible(p, operand) => {}
            [p] => {
                return Err(r.operand_error(format!(
                    "branch {b} takes `{p}` but its operand {} is `{operand}`",
                    b + 1
                )))
            }
            _ => {
                return Err(r.operand_error(format!(
                    "branch {b} must take exactly one parameter, it takes {}",
                    params.len()
                )))
            }
        }
        match result {
            None => result = Some(root),
            Some(first) if shapes_compatible(first, root) => {}
            Some(first) => {
                return Err(r.operand_error(format!(
                    "branch {b} returns `{root}` but branch 0 returns `{first}`: every branch must return the same shape"
                )))
            }
        }
    }
    result
        .cloned()
        .ok_or_else(|| r.attr_error("a conditional needs at least one branch".into()))
}

/// `while(init), condition=c, body=b` (seed 004, While): `c` takes the state and returns
/// `pred[]`; `b` takes the state and returns the same shape; the result is the state's shape.
pub(super) fn while_loop(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [state] = r.exactly::<1>("1")?;
    let [(cond_params, cond_root), (body_params, body_root)] =
        called(r, context, "the condition and body signatures")?
    else {
        return Err(r.attr_error("while needs `condition=` and `body=`".into()));
    };
    for (what, params) in [("condition", cond_params), ("body", body_params)] {
        match params.as_slice() {
            [p] if shapes_compatible(p, state) => {}
            [p] => {
                return Err(r.operand_error(format!(
                    "the {what} takes `{p}` but the state (init) is `{state}`"
                )))
            }
            _ => {
                return Err(r.operand_error(format!(
                    "the {what} must take exactly one parameter (the state), it takes {}",
                    params.len()
                )))
            }
        }
    }
    if !is_scalar_of(cond_root, ElementType::Pred) {
        return Err(r.operand_error(format!(
            "the condition must return pred[], it returns `{cond_root}`"
        )));
    }
    if !shapes_compatible(body_root, state) {
        return Err(r.operand_error(format!(
            "the body returns `{body_root}` but the state is `{state}`: a while's state keeps one shape in every trip"
        )));
    }
    Ok(state.clone())
}

/// `sort(operands...), dimensions={d}, to_apply=comparator` (seed 004, Sort): N arrays of equal
/// dimensions (element types may differ), one dimension `d` in range (default: the last); the
/// comparator takes 2·N scalars (parameters 2k and 2k+1 of operand k's element type) and returns
/// `pred[]`; the result is the operand (N = 1) or a tuple of the N operands' shapes.
pub(super) fn sort(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let arrays = equal_arrays(r)?;
    let first = arrays[0];
    let rank = first.rank() as i64;
    let d = match r.attr("dimensions") {
        None => rank - 1,
        Some(_) => match r.ints_attr("dimensions")? {
            [d] => *d,
            other => {
                return Err(r.attr_error(format!(
                    "`dimensions={}` must name exactly one dimension",
                    braces(other)
                )))
            }
        },
    };
    if rank == 0 || !(0..rank).contains(&d) {
        return Err(r.attr_error(format!(
            "sort dimension {d} is out of range for rank {rank}"
        )));
    }
    let [(params, root)] = called(r, context, "the comparator's signature")? else {
        return Err(r.attr_error("sort calls exactly one comparator (`to_apply=`)".into()));
    };
    if params.len() != 2 * arrays.len() {
        return Err(r.operand_error(format!(
            "the comparator takes {} parameter(s); sorting {} operand(s) needs {}",
            params.len(),
            arrays.len(),
            2 * arrays.len()
        )));
    }
    for (k, p) in params.iter().enumerate() {
        let t = arrays[k / 2].element_type;
        if !is_scalar_of(p, t) {
            return Err(r.operand_error(format!(
                "comparator parameter {k} is `{p}`; it must be the scalar {t}[] of operand {}",
                k / 2
            )));
        }
    }
    if !is_scalar_of(root, ElementType::Pred) {
        return Err(r.operand_error(format!(
            "the comparator must return pred[], it returns `{root}`"
        )));
    }
    Ok(if arrays.len() == 1 {
        Shape::Array(strip_layout(first))
    } else {
        Shape::Tuple(
            arrays
                .iter()
                .map(|a| Shape::Array(strip_layout(a)))
                .collect(),
        )
    })
}

/// `topk(operand), k=K, largest=bool` (XLA HloTopKInstruction): an array of rank ≥ 1 and
/// `0 ≤ K ≤` its last dimension; the result is `(T[..., K], s32[..., K])`.
pub(super) fn topk(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let k = r.int_attr("k")?;
    let Some(&last) = x.dimensions.last() else {
        return Err(r.operand_error("topk needs an operand of rank 1 or more".into()));
    };
    if !(0..=last).contains(&k) {
        return Err(r.attr_error(format!(
            "k={k} is out of range: the last dimension has {last} element(s)"
        )));
    }
    if x.element_type == ElementType::Pred || x.element_type.is_complex() {
        return Err(r.type_error(format!(
            "topk orders real numbers; {} has no order",
            x.element_type
        )));
    }
    let mut dims = x.dimensions.clone();
    *dims.last_mut().expect("rank ≥ 1") = k;
    Ok(Shape::Tuple(vec![
        Shape::array(x.element_type, dims.clone()),
        Shape::array(ElementType::S32, dims),
    ]))
}

/// `opt-barrier(operand)` (seed 004, OptimizationBarrier): the operand's shape.
pub(super) fn optimization_barrier(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.exactly::<1>("1")?;
    Ok(x.clone())
}

/// One or more array operands of equal dimensions (element types may differ).
fn equal_arrays<'a>(r: &Rules<'a>) -> Result<Vec<&'a ArrayShape>, ShapeInferenceError> {
    if r.operands.is_empty() {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "at least 1",
            got: 0,
        });
    }
    let arrays = array_operands(r)?;
    for (i, a) in arrays.iter().enumerate().skip(1) {
        r.same_dimensions(arrays[0], a, "operand 0", &format!("operand {i}"))?;
    }
    Ok(arrays)
}

fn array_operands<'a>(r: &Rules<'a>) -> Result<Vec<&'a ArrayShape>, ShapeInferenceError> {
    r.operands
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_array()
                .ok_or_else(|| r.operand_error(format!("operand {i} must be an array, got `{s}`")))
        })
        .collect()
}

fn strip_layout(a: &ArrayShape) -> ArrayShape {
    ArrayShape::new(a.element_type, a.dimensions.clone())
}
