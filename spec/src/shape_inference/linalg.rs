//! The numerical family (seed 004: Fft, Cholesky, TriangularSolve, BatchNormTraining,
//! BatchNormInference, BatchNormGrad): result shapes from operands and attributes, with XLA's
//! `ShapeInference` rules (docs/linalg-semantics.md gives the semantics).

use super::rules::{braces, Rules};
use super::ShapeInferenceError;
use crate::element_type::ElementType;
use crate::hlo::AttrValue;
use crate::shape::{ArrayShape, Shape};

/// `fft(operand), fft_type=T, fft_length={n...}` (seed 004, Fft): 1 to 3 transformed innermost
/// dimensions. FFT and IFFT keep the complex shape; RFFT takes f32/f64 whose innermost
/// dimensions equal `fft_length` and gives c64/c128 with the last one `n/2+1` (0 for `n = 0`);
/// IRFFT takes c64/c128 whose last dimension is `n/2+1` (the others equal `fft_length`) and gives
/// f32/f64 with the innermost dimensions `fft_length`.
pub(super) fn fft(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [operand] = r.arrays::<1>("1")?;
    let fft_type = r
        .enum_attr("fft_type")?
        .ok_or_else(|| r.attr_error("missing `fft_type=` (FFT, IFFT, RFFT or IRFFT)".into()))?;
    let lengths = r.ints_attr("fft_length")?;
    let rank = operand.rank();
    if lengths.is_empty() || lengths.len() > 3 {
        return Err(r.attr_error(format!(
            "`fft_length={}` must name 1 to 3 transformed dimensions",
            braces(lengths)
        )));
    }
    if lengths.len() > rank {
        return Err(r.operand_error(format!(
            "`fft_length={}` transforms {} dimensions of a rank-{rank} operand",
            braces(lengths),
            lengths.len()
        )));
    }
    if let Some(&n) = lengths.iter().find(|&&n| n < 0) {
        return Err(r.attr_error(format!(
            "`fft_length={}` has the negative length {n}",
            braces(lengths)
        )));
    }
    let ty = operand.element_type;
    let first = rank - lengths.len();
    let last = lengths.len() - 1;
    let mut dims = operand.dimensions.clone();
    let expect = |dims: &[i64], skip_last: bool| -> Result<(), ShapeInferenceError> {
        for (k, &n) in lengths.iter().enumerate() {
            if skip_last && k == last {
                continue;
            }
            if dims[first + k] != n {
                return Err(r.operand_error(format!(
                    "dimension {} of the operand is {}, `fft_length={}` says {n}",
                    first + k,
                    dims[first + k],
                    braces(lengths)
                )));
            }
        }
        Ok(())
    };
    let half = |n: i64| if n == 0 { 0 } else { n / 2 + 1 };
    let result_type = match fft_type {
        "FFT" | "IFFT" => {
            if !ty.is_complex() {
                return Err(r.type_error(format!(
                    "{fft_type} takes a complex operand (c64, c128), got {ty}"
                )));
            }
            expect(&dims, false)?;
            ty
        }
        "RFFT" => {
            let out = super::elementwise::complex_of(ty).ok_or_else(|| {
                r.type_error(format!("RFFT takes an f32 or f64 operand, got {ty}"))
            })?;
            expect(&dims, false)?;
            dims[first + last] = half(lengths[last]);
            out
        }
        "IRFFT" => {
            let out = match ty {
                ElementType::C64 => ElementType::F32,
                ElementType::C128 => ElementType::F64,
                _ => {
                    return Err(r.type_error(format!("IRFFT takes a c64 or c128 operand, got {ty}")))
                }
            };
            expect(&dims, true)?;
            let want = half(lengths[last]);
            if dims[first + last] != want {
                return Err(r.operand_error(format!(
                    "IRFFT with `fft_length={}` needs the innermost dimension {want} (n/2+1), got {}",
                    braces(lengths),
                    dims[first + last]
                )));
            }
            dims[first + last] = lengths[last];
            out
        }
        other => {
            return Err(r.attr_error(format!(
                "`fft_type={other}` is not FFT, IFFT, RFFT or IRFFT"
            )))
        }
    };
    r.types_ok(ty, result_type)?;
    Ok(Shape::Array(ArrayShape::new(result_type, dims)))
}

/// Checks `[..., m, m]` of rank ≥ 2 for a matrix operand named `what`; returns `m`.
fn square(r: &Rules, a: &ArrayShape, what: &str) -> Result<i64, ShapeInferenceError> {
    let rank = a.rank();
    if rank < 2 {
        return Err(r.operand_error(format!(
            "{what} must have rank 2 or more ([..., m, m]), got `{a}`"
        )));
    }
    let (rows, cols) = (a.dimensions[rank - 2], a.dimensions[rank - 1]);
    if rows != cols {
        return Err(r.operand_error(format!(
            "{what} must be square in its two minor dimensions, got {rows}x{cols}"
        )));
    }
    Ok(rows)
}

fn float_or_complex(r: &Rules, ty: ElementType) -> Result<(), ShapeInferenceError> {
    if ty.is_floating() {
        Ok(())
    } else {
        Err(r.type_error(format!(
            "{} takes a floating-point or complex operand, got {ty}",
            r.opcode
        )))
    }
}

fn bool_attr(r: &Rules, name: &str) -> Result<(), ShapeInferenceError> {
    match r.attr(name) {
        None | Some(AttrValue::Bool(_)) => Ok(()),
        Some(v) => Err(r.attr_error(format!("`{name}={v}` is not `true` or `false`"))),
    }
}

/// `cholesky(a), lower=b` (seed 004, Cholesky): `a` is `[..., m, m]` of a floating-point or
/// complex type; the result has its shape.
pub(super) fn cholesky(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [a] = r.arrays::<1>("1")?;
    square(r, a, "the operand")?;
    float_or_complex(r, a.element_type)?;
    bool_attr(r, "lower")?;
    r.types_ok(a.element_type, a.element_type)?;
    Ok(Shape::Array(ArrayShape::new(
        a.element_type,
        a.dimensions.clone(),
    )))
}

/// `triangular-solve(a, b), left_side, lower, unit_diagonal, transpose_a` (seed 004,
/// TriangularSolve): `a` is `[..., m, m]`, `b` `[..., m, k]` (`left_side=true`) or `[..., k, m]`,
/// of the same floating-point or complex type and batch dimensions; the result has `b`'s shape.
pub(super) fn triangular_solve(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [a, b] = r.arrays::<2>("2")?;
    let m = square(r, a, "a")?;
    float_or_complex(r, a.element_type)?;
    r.same_type(a, b, "a", "b")?;
    for name in ["left_side", "lower", "unit_diagonal"] {
        bool_attr(r, name)?;
    }
    r.enum_attr("transpose_a")?;
    if b.rank() != a.rank() {
        return Err(r.operand_error(format!(
            "b has rank {}, a has rank {} (the same batch dimensions, then a matrix)",
            b.rank(),
            a.rank()
        )));
    }
    let batch = a.rank() - 2;
    if a.dimensions[..batch] != b.dimensions[..batch] {
        return Err(r.operand_error(format!(
            "batch dimensions differ: a {:?}, b {:?}",
            &a.dimensions[..batch],
            &b.dimensions[..batch]
        )));
    }
    let left = matches!(r.attr("left_side"), Some(AttrValue::Bool(true)));
    let (k, side) = if left {
        (b.dimensions[batch], "rows (left_side=true)")
    } else {
        (b.dimensions[batch + 1], "columns (left_side=false)")
    };
    if k != m {
        return Err(r.operand_error(format!("b has {k} {side}, a is {m}x{m}")));
    }
    r.types_ok(a.element_type, a.element_type)?;
    Ok(Shape::Array(b.clone()))
}

/// Checks `feature_index` against the operand's rank and `epsilon`'s presence; returns the
/// number of features.
fn features(r: &Rules, operand: &ArrayShape) -> Result<i64, ShapeInferenceError> {
    let f = r.int_attr("feature_index")?;
    if f < 0 || f as usize >= operand.rank() {
        return Err(r.attr_error(format!(
            "`feature_index={f}` is not a dimension of the rank-{} operand",
            operand.rank()
        )));
    }
    match r.attr("epsilon") {
        Some(AttrValue::Raw(text)) if text.parse::<f64>().is_ok() => {}
        Some(v) => return Err(r.attr_error(format!("`epsilon={v}` is not a number"))),
        None => return Err(r.attr_error("missing `epsilon=`".into())),
    }
    if !operand.element_type.is_float() {
        return Err(r.type_error(format!(
            "{} takes a real floating-point operand, got {}",
            r.opcode, operand.element_type
        )));
    }
    r.types_ok(operand.element_type, operand.element_type)?;
    Ok(operand.dimensions[f as usize])
}

/// Checks that each named operand is `[F]` of the operand's element type.
fn per_feature(
    r: &Rules,
    operand: &ArrayShape,
    f: i64,
    vectors: &[(&ArrayShape, &str)],
) -> Result<(), ShapeInferenceError> {
    for (v, name) in vectors {
        if v.dimensions != [f] {
            return Err(r.operand_error(format!(
                "{name} must be [{f}] (one value per feature), got `{v}`"
            )));
        }
        r.same_type(operand, v, "the operand", name)?;
    }
    Ok(())
}

/// `batch-norm-training(operand, scale, offset), epsilon, feature_index` (seed 004,
/// BatchNormTraining): a tuple of the normalized operand, `batch_mean[F]` and `batch_var[F]`.
pub(super) fn batch_norm_training(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, scale, offset] = r.arrays::<3>("3")?;
    let f = features(r, x)?;
    per_feature(r, x, f, &[(scale, "scale"), (offset, "offset")])?;
    let vector = Shape::Array(ArrayShape::new(x.element_type, vec![f]));
    Ok(Shape::Tuple(vec![
        Shape::Array(x.clone()),
        vector.clone(),
        vector,
    ]))
}

/// `batch-norm-inference(operand, scale, offset, mean, variance), epsilon, feature_index` (seed
/// 004, BatchNormInference): the normalized operand.
pub(super) fn batch_norm_inference(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, scale, offset, mean, variance] = r.arrays::<5>("5")?;
    let f = features(r, x)?;
    per_feature(
        r,
        x,
        f,
        &[
            (scale, "scale"),
            (offset, "offset"),
            (mean, "mean"),
            (variance, "variance"),
        ],
    )?;
    Ok(Shape::Array(x.clone()))
}

/// `batch-norm-grad(operand, scale, mean, variance, grad_output), epsilon, feature_index` (seed
/// 004, BatchNormGrad): a tuple of `grad_operand` (the operand's shape), `grad_scale[F]` and
/// `grad_offset[F]`.
pub(super) fn batch_norm_grad(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, scale, mean, variance, grad_output] = r.arrays::<5>("5")?;
    let f = features(r, x)?;
    per_feature(
        r,
        x,
        f,
        &[(scale, "scale"), (mean, "mean"), (variance, "variance")],
    )?;
    r.same_type(x, grad_output, "the operand", "grad_output")?;
    r.same_dimensions(x, grad_output, "the operand", "grad_output")?;
    let vector = Shape::Array(ArrayShape::new(x.element_type, vec![f]));
    Ok(Shape::Tuple(vec![
        Shape::Array(x.clone()),
        vector.clone(),
        vector,
    ]))
}

/// `custom-call(operands...), custom_call_target, backend_config` to a target of the registry
/// (`crate::custom_call`, docs/custom-calls.md): the shape LAPACK's interface gives. Errors:
/// `Unsupported` for a target outside the registry; malformed options (attribute error),
/// operands that do not fit the routine.
pub(super) fn custom_call(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let known = r.attributes.iter().any(|a| {
        a.name == "custom_call_target"
            && matches!(&a.value, crate::hlo::ir::AttrValue::Str(t) if crate::custom_call::parse_target(t).is_some())
    });
    if !known {
        // What an unknown target returns is its own: not inferred (front ends name the target).
        return Err(ShapeInferenceError::Unsupported(r.opcode));
    }
    let call = crate::custom_call::LapackCall::from_attributes(r.attributes)
        .map_err(|e| r.attr_error(e))?;
    let mut arrays = Vec::with_capacity(r.operands.len());
    for (i, s) in r.operands.iter().enumerate() {
        match s.as_array() {
            Some(a) => arrays.push(a),
            None => return Err(r.operand_error(format!("operand {i} must be an array, got `{s}`"))),
        }
    }
    call.result_shape(&arrays).map_err(|e| r.operand_error(e))
}
