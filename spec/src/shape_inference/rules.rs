//! Operand and attribute access for the inference rules, with errors naming the opcode; the
//! catalog's per-element-type legality.

use super::{InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, Attribute, Opcode};
use crate::shape::{ArrayShape, Shape};

/// Per-element-type legality of an operation: `operand` is the type of its (first data) operand,
/// `result` the result element type, `attributes` the instruction's (a compare's `direction` and
/// `type` select its catalog entry).
///
/// The catalog (`spec/ops/*.yaml`, [`crate::catalog::shared`]) is the one source of which element
/// types an operation takes: an opcode with catalog entries is legal on a type pair exactly when
/// some entry accepts it. Opcodes the catalog does not list yet are not restricted here. While the
/// catalog itself is loading (its validation verifies the examples) this check is skipped; the
/// loader checks each example against its own entry.
pub(crate) fn element_types_ok(
    opcode: Opcode,
    attributes: &[Attribute],
    operand: ElementType,
    result: ElementType,
) -> Result<(), String> {
    let Some(catalog) = crate::catalog::shared() else {
        return Ok(());
    };
    if !catalog.ops().iter().any(|op| op.opcode == opcode.name()) {
        return Ok(());
    }
    if catalog.accepts(opcode, attributes, operand, result) {
        Ok(())
    } else {
        let mut types: Vec<String> = Vec::new();
        for op in catalog.ops().iter().filter(|op| op.opcode == opcode.name()) {
            for t in catalog.element_types(op) {
                let name = t.to_string();
                if !types.contains(&name) {
                    types.push(name);
                }
            }
        }
        Err(format!(
            "element type {operand} (result {result}) is not supported by `{opcode}` with these attributes (catalog: {})",
            types.join(", ")
        ))
    }
}

/// Operand and attribute access with errors naming the opcode.
pub(super) struct Rules<'a> {
    pub(super) opcode: Opcode,
    pub(super) operands: &'a [&'a Shape],
    pub(super) attributes: &'a [Attribute],
}

impl<'a> Rules<'a> {
    pub(super) fn exactly<const N: usize>(
        &self,
        expected: &'static str,
    ) -> Result<[&'a Shape; N], ShapeInferenceError> {
        <[&Shape; N]>::try_from(self.operands).map_err(|_| ShapeInferenceError::OperandCount {
            opcode: self.opcode,
            expected,
            got: self.operands.len(),
        })
    }

    pub(super) fn arrays<const N: usize>(
        &self,
        expected: &'static str,
    ) -> Result<[&'a ArrayShape; N], ShapeInferenceError> {
        let shapes = self.exactly::<N>(expected)?;
        let mut out = Vec::with_capacity(N);
        for (i, s) in shapes.iter().enumerate() {
            match s.as_array() {
                Some(a) => out.push(a),
                None => {
                    return Err(
                        self.operand_error(format!("operand {i} must be an array, got `{s}`"))
                    )
                }
            }
        }
        out.try_into()
            .map_err(|_| self.operand_error("operand count".into()))
    }

    pub(super) fn operand_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::Operands {
            opcode: self.opcode,
            message,
        }
    }

    pub(super) fn attr_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::Attribute {
            opcode: self.opcode,
            message,
        }
    }

    pub(super) fn type_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::ElementType {
            opcode: self.opcode,
            message,
        }
    }

    pub(super) fn types_ok(
        &self,
        operand: ElementType,
        result: ElementType,
    ) -> Result<(), ShapeInferenceError> {
        element_types_ok(self.opcode, self.attributes, operand, result)
            .map_err(|m| self.type_error(m))
    }

    pub(super) fn same_dimensions(
        &self,
        a: &ArrayShape,
        b: &ArrayShape,
        an: &str,
        bn: &str,
    ) -> Result<(), ShapeInferenceError> {
        if a.dimensions == b.dimensions {
            Ok(())
        } else {
            Err(self.operand_error(format!(
                "{an} dimensions {:?} differ from {bn} dimensions {:?} (HLO has no implicit broadcasting)",
                a.dimensions, b.dimensions
            )))
        }
    }

    pub(super) fn same_type(
        &self,
        a: &ArrayShape,
        b: &ArrayShape,
        an: &str,
        bn: &str,
    ) -> Result<(), ShapeInferenceError> {
        if a.element_type == b.element_type {
            Ok(())
        } else {
            Err(self.operand_error(format!(
                "{an} has element type {}, {bn} has {}",
                a.element_type, b.element_type
            )))
        }
    }

    pub(super) fn new_type(
        &self,
        context: &InferenceContext,
    ) -> Result<ElementType, ShapeInferenceError> {
        context
            .new_element_type
            .ok_or(ShapeInferenceError::MissingContext {
                opcode: self.opcode,
                what: "the new element type",
            })
    }

    pub(super) fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    pub(super) fn int_attr(&self, name: &str) -> Result<i64, ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Int(v)) => Ok(*v),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not an integer"))),
            None => Err(self.attr_error(format!("missing `{name}=`"))),
        }
    }

    pub(super) fn ints_attr(&self, name: &str) -> Result<&'a [i64], ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Ints(v)) => Ok(v),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not a list of integers"))),
            None => Err(self.attr_error(format!("missing `{name}=`"))),
        }
    }

    pub(super) fn enum_attr(&self, name: &str) -> Result<Option<&'a str>, ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Enum(v)) => Ok(Some(v)),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not an enumerator"))),
            None => Ok(None),
        }
    }
}

/// A list of dimension numbers as HLO text writes it: `{2,1}`.
pub(super) fn braces(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

/// Checks a list of dimension numbers named `name`: each in `[0, bound)`, no repeats, and (when
/// `sorted`) ascending. Errors name the list and show it, e.g. "offset_dims must be sorted
/// ascending, got {2,1}".
pub(super) fn check_dimension_list(
    name: &str,
    values: &[i64],
    bound: usize,
    sorted: bool,
) -> Result<(), String> {
    for (i, &d) in values.iter().enumerate() {
        if d < 0 || d as usize >= bound {
            return Err(format!(
                "{name} entry {d} is out of range [0, {bound}), got {}",
                braces(values)
            ));
        }
        if values[..i].contains(&d) {
            return Err(format!(
                "{name} repeats dimension {d}, got {}",
                braces(values)
            ));
        }
        if sorted && i > 0 && values[i - 1] > d {
            return Err(format!(
                "{name} must be sorted ascending, got {}",
                braces(values)
            ));
        }
    }
    Ok(())
}
