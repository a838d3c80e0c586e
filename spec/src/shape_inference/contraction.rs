//! Contractions, reductions and windows (seed 004, Dot, DotGeneral, ConvWithGeneralPadding,
//! Reduce, ReduceWindow, SelectAndScatter): the shape rules of `dot`, `convolution`, `reduce`,
//! `reduce-window` and `select-and-scatter`, as XLA's `ShapeInference` enforces them
//! (`InferDotOpShape`, `InferConvolveShape`, `InferReduceShape`, `InferReduceWindowShape`,
//! `InferSelectAndScatterShape`, `InferWindowOutputShape`).
//!
//! The pure rules on dimension sizes are public ([`dot_output_dimensions`],
//! [`convolution_output_dimensions`], [`window_output_dimensions`],
//! [`reduce_output_dimensions`], [`contraction_result_type`], [`check_reducer`],
//! [`check_select_computation`]) for the backends and generators; the opcode rules below use them.

use super::rules::{braces, check_dimension_list, Rules};
use super::{shapes_compatible, InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::hlo::contraction_numbers::{
    ConvolutionDimensionNumbers, DotDimensionNumbers, Window, WindowDimension,
};
use crate::hlo::ir::AttrValue;
use crate::shape::{ArrayShape, Shape};

/// The result element type of a `dot` or `convolution` on operands of element type `operand`
/// when the result type `requested` is given (XlaBuilder's `preferred_element_type`; in HLO the
/// instruction's declared type): the operand type itself, or one of the wider types XLA
/// accumulates it in ([`crate::catalog::accumulation_types`], the catalog's
/// `same-or-accumulation` rule: bf16, f16 and the f8 types → f32; s8, s16 → s32; u8, u16 → u32).
/// Without a request, the operand type.
///
/// Errors: any other pair, naming the allowed result types.
pub fn contraction_result_type(
    operand: ElementType,
    requested: Option<ElementType>,
) -> Result<ElementType, String> {
    let Some(result) = requested else {
        return Ok(operand);
    };
    let wider = crate::catalog::accumulation_types(operand);
    if result == operand || wider.contains(&result) {
        return Ok(result);
    }
    let allowed: Vec<String> = std::iter::once(operand)
        .chain(wider)
        .map(|t| t.to_string())
        .collect();
    Err(format!(
        "result element type {result} is not allowed for operands of type {operand} (expected {})",
        allowed.join(" or ")
    ))
}

fn check_dot_list(name: &str, values: &[i64], rank: usize) -> Result<(), String> {
    check_dimension_list(name, values, rank, false)
}

/// The result dimensions of `dot` (seed 004, DotGeneral): the batch dimensions (in
/// `lhs_batch_dimensions` order), then the lhs dimensions that are neither batch nor contracting,
/// then the rhs ones (each in increasing order).
///
/// Rules: as many lhs as rhs batch dimensions and as many lhs as rhs contracting dimensions; each
/// list in range of its operand's rank without repeats; no dimension both batch and contracting;
/// paired batch dimensions of equal sizes; paired contracting dimensions of equal sizes.
///
/// Errors: the first rule broken, naming the attribute (`lhs_batch_dims`, ...) and the sizes.
pub fn dot_output_dimensions(
    lhs: &[i64],
    rhs: &[i64],
    dnums: &DotDimensionNumbers,
) -> Result<Vec<i64>, String> {
    let d = dnums;
    if d.lhs_batch_dimensions.len() != d.rhs_batch_dimensions.len() {
        return Err(format!(
            "lhs_batch_dims {} and rhs_batch_dims {} must have the same number of dimensions",
            braces(&d.lhs_batch_dimensions),
            braces(&d.rhs_batch_dimensions)
        ));
    }
    if d.lhs_contracting_dimensions.len() != d.rhs_contracting_dimensions.len() {
        return Err(format!(
            "lhs_contracting_dims {} and rhs_contracting_dims {} must have the same number of dimensions",
            braces(&d.lhs_contracting_dimensions),
            braces(&d.rhs_contracting_dimensions)
        ));
    }
    check_dot_list("lhs_batch_dims", &d.lhs_batch_dimensions, lhs.len())?;
    check_dot_list("rhs_batch_dims", &d.rhs_batch_dimensions, rhs.len())?;
    check_dot_list(
        "lhs_contracting_dims",
        &d.lhs_contracting_dimensions,
        lhs.len(),
    )?;
    check_dot_list(
        "rhs_contracting_dims",
        &d.rhs_contracting_dimensions,
        rhs.len(),
    )?;
    for (side, batch, contracting) in [
        (
            "lhs",
            &d.lhs_batch_dimensions,
            &d.lhs_contracting_dimensions,
        ),
        (
            "rhs",
            &d.rhs_batch_dimensions,
            &d.rhs_contracting_dimensions,
        ),
    ] {
        if let Some(x) = batch.iter().find(|x| contracting.contains(x)) {
            return Err(format!(
                "{side} dimension {x} is both a batch and a contracting dimension"
            ));
        }
    }
    for (&l, &r) in d.lhs_batch_dimensions.iter().zip(&d.rhs_batch_dimensions) {
        let (ls, rs) = (lhs[l as usize], rhs[r as usize]);
        if ls != rs {
            return Err(format!(
                "batch dimension sizes must match: lhs dimension {l} has size {ls}, rhs dimension {r} has size {rs}"
            ));
        }
    }
    for (&l, &r) in d
        .lhs_contracting_dimensions
        .iter()
        .zip(&d.rhs_contracting_dimensions)
    {
        let (ls, rs) = (lhs[l as usize], rhs[r as usize]);
        if ls != rs {
            return Err(format!(
                "contracting dimension sizes must match: lhs dimension {l} has size {ls}, rhs dimension {r} has size {rs}"
            ));
        }
    }
    let free = |dims: &[i64], batch: &[i64], contracting: &[i64]| -> Vec<i64> {
        (0..dims.len() as i64)
            .filter(|x| !batch.contains(x) && !contracting.contains(x))
            .map(|x| dims[x as usize])
            .collect()
    };
    let mut out: Vec<i64> = d
        .lhs_batch_dimensions
        .iter()
        .map(|&b| lhs[b as usize])
        .collect();
    out.extend(free(
        lhs,
        &d.lhs_batch_dimensions,
        &d.lhs_contracting_dimensions,
    ));
    out.extend(free(
        rhs,
        &d.rhs_batch_dimensions,
        &d.rhs_contracting_dimensions,
    ));
    Ok(out)
}

/// The number of window positions along one dimension (XLA's `InferWindowOutputShape` and
/// `window_util::StridedBound`; seed 004, ConvWithGeneralPadding and ReduceWindow): with
/// `dilated base = (base - 1) * base_dilation + 1` (0 for an empty base), `padded = padding_low +
/// dilated base + padding_high` and `dilated window = (size - 1) * window_dilation + 1`, the
/// result is `floor((padded - dilated window) / stride) + 1`, or 0 when the dilated window is
/// larger than the padded base.
///
/// Errors: size, stride or a dilation below 1; negative padding that removes more than the
/// dilated base (a negative padded size); sizes beyond 64 bits.
pub fn window_output_size(base: i64, w: &WindowDimension) -> Result<i64, String> {
    if w.size < 1 {
        return Err(format!("window size {} must be at least 1", w.size));
    }
    if w.stride < 1 {
        return Err(format!("window stride {} must be at least 1", w.stride));
    }
    if w.base_dilation < 1 {
        return Err(format!(
            "base dilation (lhs_dilate) {} must be at least 1",
            w.base_dilation
        ));
    }
    if w.window_dilation < 1 {
        return Err(format!(
            "window dilation (rhs_dilate) {} must be at least 1",
            w.window_dilation
        ));
    }
    let dilated = |n: i64, d: i64| -> i128 {
        if n <= 0 {
            0
        } else {
            (n as i128 - 1) * d as i128 + 1
        }
    };
    let padded = w.padding_low as i128 + dilated(base, w.base_dilation) + w.padding_high as i128;
    if padded < 0 {
        return Err(format!(
            "padding {}_{} removes more than the dilated base of {} element(s)",
            w.padding_low,
            w.padding_high,
            dilated(base, w.base_dilation)
        ));
    }
    let window = dilated(w.size, w.window_dilation);
    let out = if window > padded {
        0
    } else {
        (padded - window) / w.stride as i128 + 1
    };
    i64::try_from(out).map_err(|_| format!("window output size {out} does not fit in 64 bits"))
}

/// The window positions along each dimension of `base` (see [`window_output_size`]).
///
/// Errors: a window with another number of dimensions than `base`; the first dimension whose
/// window is invalid (the message names it).
pub fn window_output_dimensions(base: &[i64], window: &Window) -> Result<Vec<i64>, String> {
    if window.dimensions.len() != base.len() {
        return Err(format!(
            "the window {window} has {} dimension(s), expected {} (the windowed array's rank)",
            window.dimensions.len(),
            base.len()
        ));
    }
    base.iter()
        .zip(&window.dimensions)
        .enumerate()
        .map(|(i, (&b, w))| {
            window_output_size(b, w).map_err(|m| format!("window dimension {i}: {m}"))
        })
        .collect()
}

/// The result dimensions of `convolution` (seed 004, ConvWithGeneralPadding; XLA's
/// `InferConvolveShape`).
///
/// Rules: `feature_group_count` and `batch_group_count` at least 1 and not both above 1; the
/// dimension numbers a valid labelling of `n` spatial dimensions; lhs and rhs of rank `n + 2`;
/// a window of `n` dimensions whose sizes are the kernel's spatial sizes; input features
/// divisible by `feature_group_count` with quotient the kernel input features; kernel output
/// features divisible by `feature_group_count` and by `batch_group_count`; input batch divisible
/// by `batch_group_count`; each window dimension valid ([`window_output_size`]).
///
/// Output: batch `input batch / batch_group_count`, feature the kernel output features, spatial
/// dimension `k` the window positions over input spatial dimension `k`, each at the position
/// the output labels give.
///
/// Errors: the first rule broken, as a message naming it and the sizes.
pub fn convolution_output_dimensions(
    lhs: &[i64],
    rhs: &[i64],
    window: &Window,
    dnums: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> Result<Vec<i64>, String> {
    if feature_group_count < 1 {
        return Err(format!(
            "feature_group_count must be at least 1, got {feature_group_count}"
        ));
    }
    if batch_group_count < 1 {
        return Err(format!(
            "batch_group_count must be at least 1, got {batch_group_count}"
        ));
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return Err(format!(
            "feature_group_count {feature_group_count} and batch_group_count {batch_group_count} cannot both be greater than 1"
        ));
    }
    dnums.validate()?;
    let n = dnums.input_spatial_dimensions.len();
    if window.dimensions.len() != n {
        return Err(format!(
            "the window {window} has {} dimension(s), dim_labels {} has {n} spatial dimension(s)",
            window.dimensions.len(),
            dnums.to_dim_labels()
        ));
    }
    for (what, dims) in [("lhs", lhs), ("rhs", rhs)] {
        if dims.len() != n + 2 {
            return Err(format!(
                "the {what} must have rank {} ({n} spatial dimension(s) + 2), got dimensions {dims:?}",
                n + 2
            ));
        }
    }
    let at = |dims: &[i64], d: i64| dims[d as usize];
    let input_batch = at(lhs, dnums.input_batch_dimension);
    let input_features = at(lhs, dnums.input_feature_dimension);
    let kernel_input_features = at(rhs, dnums.kernel_input_feature_dimension);
    let kernel_output_features = at(rhs, dnums.kernel_output_feature_dimension);
    if input_features % feature_group_count != 0
        || input_features / feature_group_count != kernel_input_features
    {
        return Err(format!(
            "the lhs feature dimension ({input_features}) must be a multiple of feature_group_count ({feature_group_count}) with quotient the rhs input feature dimension ({kernel_input_features})"
        ));
    }
    if kernel_output_features % feature_group_count != 0 {
        return Err(format!(
            "the rhs output feature dimension ({kernel_output_features}) must be a multiple of feature_group_count ({feature_group_count})"
        ));
    }
    if kernel_output_features % batch_group_count != 0 {
        return Err(format!(
            "the rhs output feature dimension ({kernel_output_features}) must be a multiple of batch_group_count ({batch_group_count})"
        ));
    }
    if input_batch % batch_group_count != 0 {
        return Err(format!(
            "the lhs batch dimension ({input_batch}) must be a multiple of batch_group_count ({batch_group_count})"
        ));
    }
    let kernel_spatial: Vec<i64> = dnums
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| at(rhs, d))
        .collect();
    let window_sizes: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
    if kernel_spatial != window_sizes {
        return Err(format!(
            "the window sizes {window_sizes:?} must equal the rhs spatial dimension sizes {kernel_spatial:?}"
        ));
    }
    let input_spatial: Vec<i64> = dnums
        .input_spatial_dimensions
        .iter()
        .map(|&d| at(lhs, d))
        .collect();
    let spatial = window_output_dimensions(&input_spatial, window)?;
    let mut out = vec![0; n + 2];
    out[dnums.output_batch_dimension as usize] = input_batch / batch_group_count;
    out[dnums.output_feature_dimension as usize] = kernel_output_features;
    for (k, &d) in dnums.output_spatial_dimensions.iter().enumerate() {
        out[d as usize] = spatial[k];
    }
    Ok(out)
}

/// The result dimensions of `reduce` (seed 004, Reduce): the operand's dimensions without the
/// reduced ones, in order.
///
/// Errors: a reduced dimension out of `[0, rank)` or repeated.
pub fn reduce_output_dimensions(operand: &[i64], dimensions: &[i64]) -> Result<Vec<i64>, String> {
    check_dimension_list("dimensions", dimensions, operand.len(), false)?;
    Ok(operand
        .iter()
        .enumerate()
        .filter(|(i, _)| !dimensions.contains(&(*i as i64)))
        .map(|(_, &n)| n)
        .collect())
}

/// Checks a reducer computation's signature (seed 004, Reduce; XLA's `VerifyReducerShape`) for
/// `accumulators` (the init values' element types) and `inputs` (the reduced arrays' element
/// types), one per operand: `2N` scalar parameters (the N accumulators, then the N elements),
/// returning the accumulators' scalar shape (N = 1) or a tuple of them (N > 1).
///
/// Errors: a message naming the parameter or result at fault and the expected shape.
pub fn check_reducer(
    params: &[Shape],
    root: &Shape,
    accumulators: &[ElementType],
    inputs: &[ElementType],
) -> Result<(), String> {
    let n = accumulators.len();
    if params.len() != 2 * n {
        return Err(format!(
            "the reducer takes {} parameter(s), expected {} (accumulators then elements of {n} operand(s))",
            params.len(),
            2 * n
        ));
    }
    let scalar = |t: ElementType| Shape::array(t, vec![]);
    for (k, p) in params.iter().enumerate() {
        let want = scalar(if k < n {
            accumulators[k]
        } else {
            inputs[k - n]
        });
        if !shapes_compatible(p, &want) {
            return Err(format!(
                "parameter {k} of the reducer is `{p}`, expected `{want}`"
            ));
        }
    }
    let want_root = if n == 1 {
        scalar(accumulators[0])
    } else {
        Shape::Tuple(accumulators.iter().map(|&t| scalar(t)).collect())
    };
    if !shapes_compatible(root, &want_root) {
        return Err(format!(
            "the reducer returns `{root}`, expected `{want_root}`"
        ));
    }
    Ok(())
}

/// Checks `select-and-scatter`'s `select` computation (seed 004, SelectAndScatter): two scalar
/// parameters of the operand's element type, returning `pred[]`.
///
/// Errors: a message naming the parameter or result at fault.
pub fn check_select_computation(
    params: &[Shape],
    root: &Shape,
    element_type: ElementType,
) -> Result<(), String> {
    let want = Shape::array(element_type, vec![]);
    if params.len() != 2 {
        return Err(format!(
            "the select computation takes {} parameter(s), expected 2 of shape `{want}`",
            params.len()
        ));
    }
    for (k, p) in params.iter().enumerate() {
        if !shapes_compatible(p, &want) {
            return Err(format!(
                "parameter {k} of the select computation is `{p}`, expected `{want}`"
            ));
        }
    }
    let pred = Shape::array(ElementType::Pred, vec![]);
    if !shapes_compatible(root, &pred) {
        return Err(format!(
            "the select computation returns `{root}`, expected `{pred}`"
        ));
    }
    Ok(())
}

fn array_operand<'a>(
    r: &Rules<'a>,
    i: usize,
    what: &str,
) -> Result<&'a ArrayShape, ShapeInferenceError> {
    let s = r.operands[i];
    s.as_array()
        .ok_or_else(|| r.operand_error(format!("{what} (operand {i}) must be an array, got `{s}`")))
}

fn window_attr(r: &Rules) -> Result<Window, ShapeInferenceError> {
    match r.attr("window") {
        Some(AttrValue::Window(w)) => Ok(w.clone()),
        Some(AttrValue::Raw(s)) => s
            .parse()
            .map_err(|m| r.attr_error(format!("`window={s}`: {m}"))),
        Some(v) => Err(r.attr_error(format!("`window={v}` is not a window"))),
        None if r.opcode == crate::hlo::Opcode::Convolution => Ok(Window::default()),
        None => Err(r.attr_error("missing `window=`".into())),
    }
}

fn optional_int(r: &Rules, name: &str, default: i64) -> Result<i64, ShapeInferenceError> {
    if r.attr(name).is_some() {
        r.int_attr(name)
    } else {
        Ok(default)
    }
}

/// `dot(lhs, rhs)` with `lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims`,
/// `rhs_contracting_dims` (absent lists empty); `operand_precision` / `precision_config` are
/// accepted and ignored. Result type: [`contraction_result_type`] with the context's
/// `new_element_type`.
pub(super) fn dot(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let [lhs, rhs] = r.arrays::<2>("2")?;
    r.same_type(lhs, rhs, "lhs", "rhs")?;
    let dnums = DotDimensionNumbers::from_attributes(r.attributes).map_err(|m| r.attr_error(m))?;
    let dims = dot_output_dimensions(&lhs.dimensions, &rhs.dimensions, &dnums)
        .map_err(|m| r.operand_error(m))?;
    let result = contraction_result_type(lhs.element_type, context.new_element_type)
        .map_err(|m| r.type_error(m))?;
    r.types_ok(lhs.element_type, result)?;
    Ok(Shape::array(result, dims))
}

/// `convolution(lhs, rhs)` with `window=` (absent: no spatial dimensions), `dim_labels=`
/// (absent: XLA's default numbering), `feature_group_count=` and `batch_group_count=` (absent:
/// 1). Result type: [`contraction_result_type`] with the context's `new_element_type`.
pub(super) fn convolution(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [lhs, rhs] = r.arrays::<2>("2")?;
    r.same_type(lhs, rhs, "lhs", "rhs")?;
    let window = window_attr(r)?;
    let dnums = match r.attr("dim_labels") {
        Some(AttrValue::DimLabels(d)) => d.clone(),
        Some(AttrValue::Raw(s)) => ConvolutionDimensionNumbers::from_dim_labels(s)
            .map_err(|m| r.attr_error(format!("`dim_labels={s}`: {m}")))?,
        Some(v) => return Err(r.attr_error(format!("`dim_labels={v}` is not dimension labels"))),
        None => ConvolutionDimensionNumbers::default_for_spatial(window.dimensions.len()),
    };
    let fgc = optional_int(r, "feature_group_count", 1)?;
    let bgc = optional_int(r, "batch_group_count", 1)?;
    let dims =
        convolution_output_dimensions(&lhs.dimensions, &rhs.dimensions, &window, &dnums, fgc, bgc)
            .map_err(|m| r.operand_error(m))?;
    let result = contraction_result_type(lhs.element_type, context.new_element_type)
        .map_err(|m| r.type_error(m))?;
    r.types_ok(lhs.element_type, result)?;
    Ok(Shape::array(result, dims))
}

/// The operands of a variadic reduction: N arrays of equal dimensions, then N scalar init values
/// of their element types.
fn reduction_operands<'a>(
    r: &Rules<'a>,
) -> Result<(Vec<&'a ArrayShape>, Vec<ElementType>), ShapeInferenceError> {
    let count = r.operands.len();
    if count < 2 || !count.is_multiple_of(2) {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "2N (N arrays, then N init values; N >= 1)",
            got: count,
        });
    }
    let n = count / 2;
    let arrays: Vec<&ArrayShape> = (0..n)
        .map(|i| array_operand(r, i, "input"))
        .collect::<Result<_, _>>()?;
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if a.dimensions != arrays[0].dimensions {
            return Err(r.operand_error(format!(
                "input {i} has dimensions {:?}, input 0 has {:?}; all inputs must have the same dimensions",
                a.dimensions, arrays[0].dimensions
            )));
        }
    }
    for (i, input) in arrays.iter().enumerate() {
        let init = array_operand(r, n + i, "init value")?;
        if !init.dimensions.is_empty() {
            return Err(r.operand_error(format!(
                "init value {i} (operand {}) must be a scalar, got `{init}`",
                n + i
            )));
        }
        if init.element_type != input.element_type {
            return Err(r.operand_error(format!(
                "init value {i} has element type {}, input {i} has {}; expected the same",
                init.element_type, input.element_type
            )));
        }
    }
    let types = arrays.iter().map(|a| a.element_type).collect();
    Ok((arrays, types))
}

fn reducer_context(
    r: &Rules,
    context: &InferenceContext,
    types: &[ElementType],
) -> Result<(), ShapeInferenceError> {
    if let Some((params, root)) = context.callee {
        check_reducer(params, root, types, types).map_err(|m| r.attr_error(m))?;
    }
    for &t in types {
        r.types_ok(t, t)?;
    }
    Ok(())
}

fn results(types: &[ElementType], dims: &[i64]) -> Shape {
    let mut shapes: Vec<Shape> = types
        .iter()
        .map(|&t| Shape::array(t, dims.to_vec()))
        .collect();
    if shapes.len() == 1 {
        shapes.remove(0)
    } else {
        Shape::Tuple(shapes)
    }
}

/// `reduce(inputs..., inits...)` with `dimensions={...}` and `to_apply=` (checked against the
/// context's callee when given). Result: the inputs' dimensions without the reduced ones; a
/// tuple when N > 1.
pub(super) fn reduce(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let (arrays, types) = reduction_operands(r)?;
    let dimensions = r.ints_attr("dimensions")?;
    let dims =
        reduce_output_dimensions(&arrays[0].dimensions, dimensions).map_err(|m| r.attr_error(m))?;
    reducer_context(r, context, &types)?;
    Ok(results(&types, &dims))
}

/// Rejects `rhs_reversal` outside convolution (seed 004 defines no reversed reduction window).
fn no_reversal(r: &Rules, window: &Window) -> Result<(), ShapeInferenceError> {
    if window.dimensions.iter().any(|w| w.window_reversal) {
        return Err(r.attr_error(format!(
            "the window {window} reverses a dimension (rhs_reversal), which only convolution allows"
        )));
    }
    Ok(())
}

/// `reduce-window(inputs..., inits...)` with `window=` (one dimension per input dimension) and
/// `to_apply=`. Result: the window positions per dimension; a tuple when N > 1.
pub(super) fn reduce_window(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let (arrays, types) = reduction_operands(r)?;
    let window = window_attr(r)?;
    no_reversal(r, &window)?;
    let dims =
        window_output_dimensions(&arrays[0].dimensions, &window).map_err(|m| r.attr_error(m))?;
    reducer_context(r, context, &types)?;
    Ok(results(&types, &dims))
}

/// `select-and-scatter(operand, source, init_value)` with `window=`, `select=` and `scatter=`
/// (the context's callee, when given, is the `scatter` computation). The source has the
/// dimensions of the operand's window positions; the result has the operand's shape.
pub(super) fn select_and_scatter(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [_, _, _] = r.exactly::<3>("3 (operand, source, init_value)")?;
    let operand = array_operand(r, 0, "operand")?;
    let source = array_operand(r, 1, "source")?;
    let init = array_operand(r, 2, "init_value")?;
    let t = operand.element_type;
    r.same_type(operand, source, "operand", "source")?;
    if !init.dimensions.is_empty() || init.element_type != t {
        return Err(r.operand_error(format!(
            "init_value must be a scalar of the operand's element type {t}, got `{init}`"
        )));
    }
    let window = window_attr(r)?;
    no_reversal(r, &window)?;
    let positions =
        window_output_dimensions(&operand.dimensions, &window).map_err(|m| r.attr_error(m))?;
    if source.dimensions != positions {
        return Err(r.operand_error(format!(
            "the source has dimensions {:?}, expected {positions:?} (the window positions over the operand)",
            source.dimensions
        )));
    }
    if let Some((params, root)) = context.callee {
        check_reducer(params, root, &[t], &[t])
            .map_err(|m| r.attr_error(format!("scatter computation: {m}")))?;
    }
    r.types_ok(t, t)?;
    Ok(Shape::array(t, operand.dimensions.clone()))
}
