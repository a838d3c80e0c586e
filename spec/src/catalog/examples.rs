//! Checks of the catalog's executable examples: the HLO module parses, its inputs and expected
//! output parse as literals of the entry parameters' and the root's shapes, and the root is the
//! entry's operation (opcode, fixed attributes, element types).
//!
//! Executing the examples needs a backend; the reference crate's tests do that.

use super::loader::default_comparison_type;
use super::model::{resolve_element_types, Example, OpEntry, ResultRule};
use super::validate::result_types;
use crate::hlo::{parse_literal, parse_module, AttrValue, HloInstruction, Opcode};
use crate::literal::Literal;
use crate::shape::Shape;
use crate::shape_inference::verify_module;

/// Where in an example a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// 1-based line and column inside the `hlo` text.
    Hlo(usize, usize),
    /// The input with this index.
    Input(usize),
    /// The input list as a whole.
    Inputs,
    Expected,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub place: Place,
    pub message: String,
}

fn problem(place: Place, message: impl Into<String>) -> Problem {
    Problem {
        place,
        message: message.into(),
    }
}

/// Element type and dimensions, ignoring the layout (element by element through tuples).
fn same_array_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_array_shape(p, q))
        }
        _ => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => x.element_type == y.element_type && x.dimensions == y.dimensions,
            _ => a == b,
        },
    }
}

/// The 1-based (line, column) of the `ROOT` keyword in the HLO text, or 1:1.
fn root_position(hlo: &str) -> (usize, usize) {
    for (n, line) in hlo.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("ROOT ") {
            return (n + 1, line.chars().count() - trimmed.chars().count() + 1);
        }
    }
    (1, 1)
}

fn enum_attr<'a>(instr: &'a HloInstruction, name: &str) -> Option<&'a str> {
    match instr.attribute(name)? {
        AttrValue::Enum(s) | AttrValue::Raw(s) => Some(s.as_str()),
        _ => None,
    }
}

/// Every problem of one example of entry `op` (whose opcode is `opcode`).
pub(crate) fn validate_example(op: &OpEntry, opcode: Opcode, ex: &Example) -> Vec<Problem> {
    let mut out = Vec::new();
    let module = match parse_module(&ex.hlo) {
        Ok(m) => m,
        Err(e) => {
            out.push(problem(
                Place::Hlo(e.line, e.column),
                format!("HLO does not parse: {}", e.message),
            ));
            return out;
        }
    };
    // Which element types an op takes is checked below against the entry (the verifier reads the
    // shared built-in catalog, which may be the one being loaded).
    let verified = verify_module(&module).err();
    if let Some(e) = verified {
        let (line, column) = e
            .instruction
            .as_deref()
            .and_then(|name| crate::hlo::instruction_position(&ex.hlo, None, name, ""))
            .unwrap_or((1, 1));
        out.push(problem(
            Place::Hlo(line, column),
            format!("HLO does not verify: {e}"),
        ));
        return out;
    }
    let Some(entry) = module.computations.get(module.entry) else {
        out.push(problem(
            Place::Hlo(1, 1),
            "the module has no entry computation",
        ));
        return out;
    };
    // A module of several devices takes each device's inputs in turn and gives a tuple of
    // the devices' results (crate::collective).
    let devices = match crate::collective::DeviceGrid::of(&module) {
        Ok(g) => g.devices(),
        Err(e) => {
            out.push(problem(Place::Hlo(1, 1), e.to_string()));
            return out;
        }
    };
    let one = entry.parameters();
    // A module that reads an infeed takes each device's queue after its parameters
    // (crate::host_transfer): the queue's length is the example's.
    let reads = crate::host_transfer::module_has(&module, Opcode::Infeed);
    let per_device = ex.inputs.len() / devices;
    let count_ok = if reads {
        ex.inputs.len().is_multiple_of(devices) && per_device >= one.len()
    } else {
        ex.inputs.len() == one.len() * devices
    };
    let params: Vec<Option<&HloInstruction>> = (0..ex.inputs.len())
        .map(|i| {
            one.get(if reads {
                i % per_device.max(1)
            } else {
                i % one.len().max(1)
            })
            .copied()
        })
        .collect();
    if !count_ok {
        out.push(problem(
            Place::Inputs,
            format!(
                "{} inputs given for {} entry parameters{}{}",
                ex.inputs.len(),
                one.len(),
                if devices > 1 {
                    format!(" on each of {devices} devices")
                } else {
                    String::new()
                },
                if reads {
                    " (each device's parameters, then its infeed queue)"
                } else {
                    ""
                }
            ),
        ));
    }
    for (i, text) in ex.inputs.iter().enumerate() {
        match parse_literal(text) {
            Err(e) => out.push(problem(
                Place::Input(i),
                format!("input {i} does not parse: {e}"),
            )),
            Ok(lit) => {
                if let Some(Some(p)) = params.get(i).filter(|_| count_ok) {
                    if !same_array_shape(&lit.shape(), &p.shape) {
                        out.push(problem(
                            Place::Input(i),
                            format!(
                                "input {i} has shape {}, parameter {i} `{}` has {}",
                                lit.shape(),
                                p.name,
                                p.shape
                            ),
                        ));
                    }
                }
            }
        }
    }
    let Some(root) = entry.instructions.get(entry.root) else {
        out.push(problem(
            Place::Hlo(1, 1),
            "the entry computation has no root",
        ));
        return out;
    };
    match parse_literal(&ex.expected) {
        Err(e) => out.push(problem(
            Place::Expected,
            format!("expected output does not parse: {e}"),
        )),
        Ok(lit) => {
            // A module that writes an outfeed gives `(root, (outfeed values))` per device;
            // the outfeed values' count is the run's, so only the root is checked here.
            let writes = crate::host_transfer::module_has(&module, Opcode::Outfeed);
            let device_results: Vec<&Literal> = match &lit {
                Literal::Tuple(d) if devices > 1 => d.iter().collect(),
                other => vec![other],
            };
            let roots: Option<Vec<Shape>> = device_results
                .iter()
                .map(|d| match d {
                    Literal::Tuple(p) if writes => match p.as_slice() {
                        [root, Literal::Tuple(_)] => Some(root.shape()),
                        _ => None,
                    },
                    other => Some(other.shape()),
                })
                .collect();
            let got = match roots {
                Some(mut r) if devices == 1 && r.len() == 1 => r.remove(0),
                Some(r) => Shape::Tuple(r),
                None => lit.shape(),
            };
            let root_shape = if devices > 1 {
                crate::shape::Shape::Tuple(vec![root.shape.clone(); devices])
            } else {
                root.shape.clone()
            };
            if !same_array_shape(&got, &root_shape) {
                out.push(problem(
                    Place::Expected,
                    format!(
                        "expected output has shape {}, the root has {}{}",
                        lit.shape(),
                        root.shape,
                        if writes {
                            " (with the outfeed queue: `(root, (values...))` per device)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            // A tuple is expected only of a tuple-shaped root (`tuple`, variadic `scatter`),
            // which the shape comparison above checks.
            if matches!(lit, Literal::Token) {
                out.push(problem(
                    Place::Expected,
                    "expected output is a token, not a value",
                ));
            }
        }
    }
    let (line, column) = root_position(&ex.hlo);
    let at_root = Place::Hlo(line, column);
    // A token is not a value: the instruction under test of a token or transfer entry is the
    // first of its opcode (entry computation first), not the root.
    let subject = if crate::host_transfer::is_host_transfer(opcode) {
        module
            .computations
            .iter()
            .flat_map(|c| c.instructions.iter().map(move |i| (c, i)))
            .filter(|(_, i)| i.opcode == opcode)
            .min_by_key(|(c, _)| !std::ptr::eq(*c, entry))
    } else {
        Some((entry, root))
    };
    let Some((subject_computation, root)) = subject.filter(|(_, i)| i.opcode == opcode) else {
        out.push(problem(
            at_root,
            format!(
                "the root is `{}`, not this entry's `{}`",
                root.opcode, op.opcode
            ),
        ));
        return out;
    };
    // The element type of the entry (the first data operand's, or the result's first array), and
    // of the result.
    let operand_shapes: Vec<&Shape> = root
        .operands
        .iter()
        .filter_map(|&k| subject_computation.instructions.get(k))
        .map(|i| &i.shape)
        .collect();
    let operand_type = super::model::entry_element_type(root.opcode, &operand_shapes, &root.shape);
    let result_type = root.shape.as_array().map(|a| a.element_type);
    let accepted = resolve_element_types(&op.element_types).unwrap_or_default();
    if let Some(t) = operand_type {
        if !accepted.contains(&t) {
            out.push(problem(
                at_root,
                format!("operand element type {t} is not in the entry's element_types"),
            ));
        } else if let Some(r) = result_type {
            if !result_types(op, t).contains(&r) {
                let rule = if op.result == ResultRule::Chosen {
                    "result_element_types"
                } else {
                    "result rule"
                };
                out.push(problem(
                    at_root,
                    format!("result element type {r} does not follow the entry's {rule} for {t}"),
                ));
            }
        }
    }
    // Fixed attributes of the entry must be those of the root.
    for (name, value) in &op.attributes {
        let got = match root.attribute(name) {
            None if name == crate::custom_call::ROUTINE_ATTRIBUTE => {
                super::loader::attribute_text(&root.attributes, name)
            }
            Some(AttrValue::Int(v)) => Some(v.to_string()),
            Some(AttrValue::Enum(s)) | Some(AttrValue::Raw(s)) => Some(s.clone()),
            Some(other) => Some(format!("{other:?}")),
            None => None,
        };
        let matches = match (name.as_str(), &got) {
            // An absent comparison type means the element type's default.
            ("type", None) => operand_type.is_some_and(|t| default_comparison_type(t) == *value),
            (_, Some(g)) => g == value,
            (_, None) => false,
        };
        if !matches {
            out.push(problem(
                at_root,
                format!(
                    "the root's `{name}` is {}, the entry fixes `{value}`",
                    got.as_deref().unwrap_or("absent")
                ),
            ));
        }
    }
    if opcode == Opcode::Compare && !op.attributes.contains_key("type") {
        if let (Some(t), Some(got)) = (operand_type, enum_attr(root, "type")) {
            if got != default_comparison_type(t) {
                out.push(problem(
                    at_root,
                    format!("the root compares with type={got}; this entry is for the default type {} of {t}", default_comparison_type(t)),
                ));
            }
        }
    }
    for g in &op.generated_attributes {
        match root.attr_int(&g.name) {
            Some(v) if (g.min..=g.max).contains(&v) => {}
            Some(v) => out.push(problem(
                at_root,
                format!(
                    "the root's `{}` = {v} is outside the generated range {}..={}",
                    g.name, g.min, g.max
                ),
            )),
            None => out.push(problem(
                at_root,
                format!("the root has no integer `{}`", g.name),
            )),
        }
    }
    out
}
