//! Tensor-introducing operations (NNEF 1.0.5 §4.1): `external`, `constant`, `variable`.
//!
//! Their result has exactly the shape given by the `shape` attribute, whose items must be
//! strictly positive.

use super::args::Ctx;

/// The checked `shape` attribute as extents.
fn declared_shape(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let shape = ctx.integers("shape")?;
    ctx.check_min("shape", &shape, 1)?;
    shape
        .iter()
        .map(|&s| ctx.extent(s as i128, "'shape' item"))
        .collect()
}

/// `external` (§4.1.1).
pub(crate) fn external(ctx: &Ctx) -> Result<Vec<usize>, String> {
    declared_shape(ctx)
}

/// `constant` (§4.1.2): the length of `value` must be the volume of `shape` or 1.
pub(crate) fn constant(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let shape = declared_shape(ctx)?;
    let count = ctx
        .value("value")?
        .items()
        .ok_or_else(|| ctx.err("argument 'value' must be an array"))?
        .len();
    let volume = super::args::volume(&shape);
    if count != 1 && volume != Some(count as u128) {
        return Err(ctx.err(format!(
            "length of 'value' ({count}) must be 1 or the volume of 'shape' ({})",
            volume.map_or("overflow".to_string(), |v| v.to_string())
        )));
    }
    Ok(shape)
}

/// `variable` (§4.1.3): `label` must be non-empty and use only `[a-zA-Z0-9_\-./\\]`.
pub(crate) fn variable(ctx: &Ctx) -> Result<Vec<usize>, String> {
    let shape = declared_shape(ctx)?;
    let label = ctx.string("label")?;
    if label.is_empty() {
        return Err(ctx.err("'label' must not be empty"));
    }
    if let Some(c) = label
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || "_-./\\".contains(c)))
    {
        return Err(ctx.err(format!(
            "'label' may only contain [a-z], [A-Z], [0-9], '_', '-', '.', '/', '\\', found {c:?} in '{label}'"
        )));
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use crate::graph::Value;
    use crate::shapes::infer;
    use crate::shapes::testing::{ints, one, op};

    fn no_tensors(_: &Value) -> Option<Vec<usize>> {
        None
    }

    #[test]
    fn declared_shapes() {
        let ext = op("external", vec![("shape", ints(&[4, 3, 224, 224]))]);
        assert_eq!(one(infer(&ext, &no_tensors)), vec![4, 3, 224, 224]);
        let var = op(
            "variable",
            vec![
                ("shape", ints(&[64, 3, 11, 11])),
                ("label", Value::String("alexnet_v2/conv1/weights".into())),
            ],
        );
        assert_eq!(one(infer(&var, &no_tensors)), vec![64, 3, 11, 11]);
        let c = op(
            "constant",
            vec![
                ("shape", ints(&[1, 3])),
                ("value", Value::Array(vec![Value::Scalar(2.5)])),
            ],
        );
        assert_eq!(one(infer(&c, &no_tensors)), vec![1, 3]);
        let c = op(
            "constant",
            vec![
                ("shape", ints(&[2])),
                (
                    "value",
                    Value::Array(vec![Value::Integer(1), Value::Integer(2)]),
                ),
            ],
        );
        assert_eq!(one(infer(&c, &no_tensors)), vec![2]);
    }

    #[test]
    fn errors() {
        let ext = op("external", vec![("shape", ints(&[4, 0]))]);
        assert!(infer(&ext, &no_tensors)
            .unwrap_err()
            .contains("external: items of 'shape' must be strictly positive, found 0"));
        let c = op(
            "constant",
            vec![
                ("shape", ints(&[2, 2])),
                ("value", Value::Array(vec![Value::Scalar(1.0); 3])),
            ],
        );
        assert!(infer(&c, &no_tensors)
            .unwrap_err()
            .contains("length of 'value' (3)"));
        let var = op(
            "variable",
            vec![
                ("shape", ints(&[1])),
                ("label", Value::String("a b".into())),
            ],
        );
        assert!(infer(&var, &no_tensors).unwrap_err().contains("' '"));
        let var = op(
            "variable",
            vec![
                ("shape", ints(&[1])),
                ("label", Value::String(String::new())),
            ],
        );
        assert!(infer(&var, &no_tensors)
            .unwrap_err()
            .contains("must not be empty"));
    }
}
