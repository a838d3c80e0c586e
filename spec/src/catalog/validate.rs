//! Semantic checks of a parsed catalog file (everything the data model's types cannot say).
//!
//! Each problem becomes a [`Diagnostic`] at the YAML node it concerns (see `spans`).

use super::error::Diagnostic;
use super::examples;
use super::masks::{mask_info, MASKS};
use super::model::{
    resolve_element_types, type_class, Conditioning, FamilyFile, OpEntry, ResultRule, Signature,
    TYPE_CLASSES,
};
use super::rules::{example_form_problems, opcode_rules, opcodes_with_signature};
use super::spans::{pos_of, FileLocator, OpSpans, Pos};
use super::values::{parse_element, parse_element_exact};
use crate::element_type::ElementType;
use crate::hlo::Opcode;
use std::collections::BTreeSet;
use std::path::Path;

/// Checks one family file; appends every problem to `out`.
pub(crate) fn validate_file(
    path: &str,
    file: &FamilyFile,
    loc: &FileLocator,
    out: &mut Vec<Diagnostic>,
) {
    let stem = Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(path);
    let diag = |pos: Pos, message: String| Diagnostic {
        file: path.to_string(),
        line: pos.0,
        column: pos.1,
        message,
    };
    if file.family != stem {
        out.push(diag(
            loc.family(),
            format!(
                "family `{}` does not match the file name: expected `{stem}`",
                file.family
            ),
        ));
    }
    if file.source.trim().is_empty() {
        out.push(diag(
            (1, 1),
            "`source` is empty: name the seed section".into(),
        ));
    }
    if file.ops.is_empty() {
        out.push(diag(loc.family(), "the family lists no ops".into()));
    }
    for (index, op) in file.ops.iter().enumerate() {
        let mut ctx = OpCtx {
            path,
            loc,
            spans: loc.op(index),
            start: loc.op_start(index, &op.id),
            op,
            out,
        };
        ctx.validate();
    }
}

const DIRECTIONS: &[&str] = &["EQ", "NE", "GE", "GT", "LE", "LT"];
const COMPARISON_TYPES: &[&str] = &["FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"];

/// Number of operands of an element-wise signature (0 for the others, which take no special
/// values).
pub(crate) fn arity(signature: Signature) -> usize {
    match signature {
        Signature::Unary | Signature::Convert => 1,
        Signature::Binary => 2,
        Signature::Select | Signature::Clamp => 3,
        _ => 0,
    }
}

/// Operand element types of an element-wise entry for a first-data-operand type `t` (empty for
/// the other signatures).
pub(crate) fn operand_types(signature: Signature, t: ElementType) -> Vec<ElementType> {
    match signature {
        Signature::Unary | Signature::Convert => vec![t],
        Signature::Binary => vec![t, t],
        Signature::Select => vec![ElementType::Pred, t, t],
        Signature::Clamp => vec![t, t, t],
        _ => vec![],
    }
}

/// Result element types of an entry for operand type `t` (see `Catalog::result_element_types`).
pub(crate) fn result_types(op: &OpEntry, t: ElementType) -> Vec<ElementType> {
    match op.result {
        ResultRule::Same => vec![t],
        ResultRule::Pred => vec![ElementType::Pred],
        ResultRule::S32 => vec![ElementType::S32],
        ResultRule::RealComponent => vec![t.complex_component().unwrap_or(t)],
        ResultRule::ComplexOfComponent => match t {
            ElementType::F32 => vec![ElementType::C64],
            ElementType::F64 => vec![ElementType::C128],
            _ => vec![],
        },
        ResultRule::SameOrAccumulation => {
            let mut v = vec![t];
            v.extend(super::model::accumulation_types(t));
            v
        }
        ResultRule::Chosen => {
            if op.result_element_types.is_empty() {
                ElementType::ALL.to_vec()
            } else {
                resolve_element_types(&op.result_element_types).unwrap_or_default()
            }
        }
    }
}

fn names(types: &[ElementType]) -> String {
    types
        .iter()
        .map(|t| t.hlo_name())
        .collect::<Vec<_>>()
        .join(", ")
}

struct OpCtx<'a> {
    path: &'a str,
    loc: &'a FileLocator<'a>,
    spans: Option<&'a OpSpans>,
    start: Pos,
    op: &'a OpEntry,
    out: &'a mut Vec<Diagnostic>,
}

impl OpCtx<'_> {
    fn err(&mut self, pos: Option<Pos>, message: String) {
        let (line, column) = pos.unwrap_or(self.start);
        self.out.push(Diagnostic {
            file: self.path.to_string(),
            line,
            column,
            message: format!("op `{}`: {message}", self.op.id),
        });
    }

    fn validate(&mut self) {
        let op = self.op;
        let sp = self.spans;
        let id_pos = sp.and_then(|s| s.id.as_ref()).and_then(pos_of);
        if op.id.is_empty()
            || !op
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            self.err(
                id_pos,
                format!("id `{}`: expected letters, digits, `-`, `_` or `.`", op.id),
            );
        }
        for (field, value, pos) in [
            (
                "builder",
                &op.builder,
                sp.and_then(|s| s.builder.as_ref()).and_then(pos_of),
            ),
            (
                "source",
                &op.source,
                sp.and_then(|s| s.source.as_ref()).and_then(pos_of),
            ),
            (
                "summary",
                &op.summary,
                sp.and_then(|s| s.summary.as_ref()).and_then(pos_of),
            ),
        ] {
            if value.trim().is_empty() {
                self.err(pos, format!("`{field}` is empty"));
            }
        }
        let opcode_pos = sp.and_then(|s| s.opcode.as_ref()).and_then(pos_of);
        let Some(opcode) = Opcode::from_name(&op.opcode) else {
            self.err(
                opcode_pos,
                format!("unknown HLO opcode `{}` (expected an HLO text opcode such as `add`, `exponential`, `compare`)", op.opcode),
            );
            return;
        };
        let rules = opcode_rules(opcode);
        let signature_pos = sp.and_then(|s| s.signature.as_ref()).and_then(pos_of);
        if let Some(r) = rules {
            if !r.signatures.contains(&op.signature) {
                let expected = r
                    .signatures
                    .iter()
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()
                    .join(" or ");
                self.err(
                    signature_pos,
                    format!(
                        "opcode `{}` has signature {expected}, not {:?}",
                        op.opcode, op.signature
                    ),
                );
            }
            let results = r.results;
            if !results.contains(&op.result) {
                let pos = sp.and_then(|s| s.result.as_ref()).and_then(pos_of);
                self.err(
                    pos,
                    format!(
                        "opcode `{}` has result rule {results:?}, not {:?}",
                        op.opcode, op.result
                    ),
                );
            }
        } else {
            let owners = opcodes_with_signature(op.signature);
            if !owners.is_empty() {
                self.err(
                    signature_pos,
                    format!(
                        "signature {:?} is for opcode(s) {}, not `{}`",
                        op.signature,
                        owners
                            .iter()
                            .map(|o| format!("`{o}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        op.opcode
                    ),
                );
            }
        }
        let types = self.element_types();
        self.result_element_types();
        self.attributes(opcode, rules.map(|r| r.attributes), &types);
        self.special_values(opcode, rules.map(|r| r.attributes), &types);
        self.implementation_defined(opcode, &types);
        self.tolerance(&types);
        self.conditioning(opcode);
        self.examples(opcode);
        self.unsupported();
    }

    /// Resolves `element_types`, reporting each bad name at its node.
    fn element_types(&mut self) -> Vec<ElementType> {
        let op = self.op;
        if op.element_types.is_empty() {
            self.err(None, "`element_types` is empty".into());
        }
        let spans = self
            .spans
            .map(|s| s.element_types.as_slice())
            .unwrap_or(&[]);
        self.resolve_list(&op.element_types, spans, "element_types")
    }

    fn resolve_list(
        &mut self,
        list: &[String],
        spans: &[serde_saphyr::Spanned<String>],
        field: &str,
    ) -> Vec<ElementType> {
        let mut out = Vec::new();
        for (j, name) in list.iter().enumerate() {
            match resolve_element_types(std::slice::from_ref(name)) {
                Ok(ts) => out.extend(ts),
                Err(bad) => {
                    let pos = spans.get(j).and_then(pos_of);
                    self.err(
                        pos,
                        format!(
                            "{field}: `{bad}` is neither an element type (pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64, c128, f8e4m3fn, ...) nor a class ({})",
                            TYPE_CLASSES.join(", ")
                        ),
                    );
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn result_element_types(&mut self) {
        let op = self.op;
        let spans = self
            .spans
            .map(|s| s.result_element_types.as_slice())
            .unwrap_or(&[]);
        if !op.result_element_types.is_empty() && op.result != ResultRule::Chosen {
            let pos = spans.first().and_then(pos_of);
            self.err(
                pos,
                "`result_element_types` is only for `result: chosen` entries".into(),
            );
        }
        self.resolve_list(&op.result_element_types, spans, "result_element_types");
    }

    fn attributes(&mut self, opcode: Opcode, allowed: Option<&[&str]>, types: &[ElementType]) {
        let op = self.op;
        let keys = self.spans.and_then(|s| s.attributes.as_ref());
        let key_pos = |k: &str| keys.and_then(|a| a.value.find(k));
        let op_spans = self.spans;
        let gen_pos = |j: usize| {
            op_spans
                .and_then(|s| s.generated_attributes.get(j))
                .and_then(pos_of)
        };
        if let Some(allowed) = allowed {
            for name in op.attributes.keys() {
                if !allowed.contains(&name.as_str()) {
                    self.err(
                        key_pos(name),
                        format!(
                            "attribute `{name}` does not apply to `{}` (expected one of: {})",
                            op.opcode,
                            if allowed.is_empty() {
                                "none".to_string()
                            } else {
                                allowed.join(", ")
                            }
                        ),
                    );
                }
            }
            for (j, g) in op.generated_attributes.iter().enumerate() {
                if !allowed.contains(&g.name.as_str()) {
                    self.err(
                        gen_pos(j),
                        format!(
                            "generated attribute `{}` does not apply to `{}`",
                            g.name, op.opcode
                        ),
                    );
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (j, g) in op.generated_attributes.iter().enumerate() {
            if !seen.insert(g.name.as_str()) {
                self.err(
                    gen_pos(j),
                    format!("generated attribute `{}` listed twice", g.name),
                );
            }
            if op.attributes.contains_key(&g.name) {
                self.err(
                    gen_pos(j),
                    format!("attribute `{}` is both fixed and generated", g.name),
                );
            }
            if g.min > g.max {
                self.err(
                    gen_pos(j),
                    format!(
                        "generated attribute `{}`: min {} > max {}",
                        g.name, g.min, g.max
                    ),
                );
            }
        }
        match opcode {
            Opcode::Compare => {
                match op.attributes.get("direction") {
                    None => self.err(
                        None,
                        "compare entries fix `direction` (EQ, NE, GE, GT, LE or LT)".into(),
                    ),
                    Some(d) if !DIRECTIONS.contains(&d.as_str()) => self.err(
                        key_pos("direction"),
                        format!("direction `{d}`: expected one of {}", DIRECTIONS.join(", ")),
                    ),
                    _ => {}
                }
                if let Some(t) = op.attributes.get("type") {
                    let fits: fn(ElementType) -> bool = match t.as_str() {
                        "FLOAT" => |e| e.is_floating(),
                        "TOTALORDER" => |e| e.is_float(),
                        "SIGNED" => |e| e.is_signed_integer(),
                        "UNSIGNED" => |e| e.is_unsigned_integer() || e.is_pred(),
                        _ => {
                            self.err(
                                key_pos("type"),
                                format!(
                                    "comparison type `{t}`: expected one of {}",
                                    COMPARISON_TYPES.join(", ")
                                ),
                            );
                            return;
                        }
                    };
                    let bad: Vec<ElementType> =
                        types.iter().copied().filter(|&e| !fits(e)).collect();
                    if !bad.is_empty() {
                        self.err(
                            key_pos("type"),
                            format!(
                                "comparison type {t} does not apply to element types {}",
                                names(&bad)
                            ),
                        );
                    }
                }
            }
            Opcode::ReducePrecision => {
                for (name, least) in [("exponent_bits", 1i64), ("mantissa_bits", 0)] {
                    let generated = op.generated_attributes.iter().position(|g| g.name == name);
                    match (op.attributes.get(name), generated) {
                        (None, None) => self.err(
                            None,
                            format!("reduce-precision needs `{name}`, fixed or generated"),
                        ),
                        (Some(v), _) => match v.trim().parse::<i64>() {
                            Ok(n) if n >= least => {}
                            _ => self.err(
                                key_pos(name),
                                format!("`{name}` = `{v}`: expected an integer >= {least}"),
                            ),
                        },
                        (None, Some(j)) => {
                            if op.generated_attributes[j].min < least {
                                self.err(gen_pos(j), format!("`{name}` range starts at {}: expected >= {least} (seed 004, ReducePrecision)", op.generated_attributes[j].min));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn special_values(&mut self, opcode: Opcode, allowed: Option<&[&str]>, types: &[ElementType]) {
        let op = self.op;
        let n = arity(op.signature);
        for (k, sv) in op.special_values.iter().enumerate() {
            let spans = self.spans.and_then(|s| s.special_values.get(k));
            let here = spans.and_then(pos_of);
            let sv_spans = spans.map(|s| &s.value);
            if !op.signature.is_elementwise() {
                self.err(
                    here,
                    format!(
                        "special values are element-wise facts; {:?} takes none (write an example)",
                        op.signature
                    ),
                );
                continue;
            }
            if sv.inputs.len() != n {
                self.err(
                    here,
                    format!(
                        "special value has {} inputs; {:?} takes {n}",
                        sv.inputs.len(),
                        op.signature
                    ),
                );
                continue;
            }
            let et_spans = sv_spans.map(|s| s.element_types.as_slice()).unwrap_or(&[]);
            let sv_types = if sv.element_types.is_empty() {
                types.to_vec()
            } else {
                let ts =
                    self.resolve_list(&sv.element_types, et_spans, "special value element_types");
                let extra: Vec<ElementType> =
                    ts.iter().copied().filter(|t| !types.contains(t)).collect();
                if !extra.is_empty() {
                    self.err(
                        et_spans.first().and_then(pos_of).or(here),
                        format!(
                            "special value names element types the entry does not accept: {}",
                            names(&extra)
                        ),
                    );
                }
                ts.into_iter().filter(|t| types.contains(t)).collect()
            };
            // Attributes of the case.
            let attr_keys = sv_spans.and_then(|s| s.attributes.as_ref());
            if let Some(allowed) = allowed {
                for name in sv.attributes.keys() {
                    if !allowed.contains(&name.as_str()) {
                        self.err(
                            attr_keys.and_then(|a| a.value.find(name)).or(here),
                            format!(
                                "special value attribute `{name}` does not apply to `{}`",
                                op.opcode
                            ),
                        );
                    }
                }
            }
            if opcode == Opcode::ReducePrecision {
                for name in ["exponent_bits", "mantissa_bits"] {
                    let v = sv.attributes.get(name).or(op.attributes.get(name));
                    if v.and_then(|v| v.trim().parse::<i64>().ok()).is_none() {
                        self.err(here, format!("reduce-precision special value needs an integer `{name}` attribute"));
                    }
                }
            }
            // Output type for `chosen` results.
            let out_type_pos = sv_spans
                .and_then(|s| s.output_type.as_ref())
                .and_then(pos_of)
                .or(here);
            let chosen = match (&op.result, &sv.output_type) {
                (ResultRule::Chosen, None) => {
                    self.err(
                        here,
                        "special value of a `result: chosen` entry needs `output_type`".into(),
                    );
                    continue;
                }
                (ResultRule::Chosen, Some(name)) => match ElementType::from_hlo_name(name) {
                    Some(t) => Some(t),
                    None => {
                        self.err(
                            out_type_pos,
                            format!("output_type `{name}` is not an element type"),
                        );
                        continue;
                    }
                },
                (_, Some(_)) => {
                    self.err(
                        out_type_pos,
                        "`output_type` is only for `result: chosen` entries".into(),
                    );
                    continue;
                }
                (_, None) => None,
            };
            // Every input and the output must mean themselves in every type the value covers.
            'types: for &t in &sv_types {
                let operand_types = operand_types(op.signature, t);
                for (i, (text, &ty)) in sv.inputs.iter().zip(&operand_types).enumerate() {
                    if let Err(e) = parse_element_exact(ty, text) {
                        let pos = sv_spans
                            .and_then(|s| s.inputs.get(i))
                            .and_then(pos_of)
                            .or(here);
                        self.err(
                            pos,
                            format!("special value input {i}: {e}; restrict its `element_types`"),
                        );
                        break 'types;
                    }
                }
                let results = result_types(op, t);
                let out_ty = match chosen {
                    Some(c) if results.contains(&c) => c,
                    Some(c) => {
                        self.err(
                            out_type_pos,
                            format!("output_type {c} is not a result type of this entry"),
                        );
                        break 'types;
                    }
                    None => match results.first() {
                        Some(&r) => r,
                        None => {
                            self.err(
                                here,
                                format!("the entry's result rule gives no result type for {t}"),
                            );
                            break 'types;
                        }
                    },
                };
                if let Err(e) = parse_element(out_ty, &sv.output) {
                    let pos = sv_spans
                        .and_then(|s| s.output.as_ref())
                        .and_then(pos_of)
                        .or(here);
                    self.err(
                        pos,
                        format!("special value output: {e}; restrict its `element_types`"),
                    );
                    break 'types;
                }
            }
        }
    }

    fn implementation_defined(&mut self, opcode: Opcode, types: &[ElementType]) {
        let op = self.op;
        for (k, item) in op.implementation_defined.iter().enumerate() {
            let spans = self.spans.and_then(|s| s.implementation_defined.get(k));
            let here = spans.and_then(pos_of);
            let mask_pos = spans
                .and_then(|s| s.value.mask.as_ref())
                .and_then(pos_of)
                .or(here);
            match mask_info(&item.mask) {
                None => self.err(
                    mask_pos,
                    format!(
                        "unknown mask `{}` (expected one of: {})",
                        item.mask,
                        MASKS.join(", ")
                    ),
                ),
                Some(info) if !info.opcodes.contains(&opcode) => self.err(
                    mask_pos,
                    format!(
                        "mask `{}` never selects elements of `{}`",
                        item.mask, op.opcode
                    ),
                ),
                Some(_) => {}
            }
            if item.description.trim().is_empty() {
                self.err(
                    here,
                    "implementation-defined item without a description".into(),
                );
            }
            let et_spans = spans
                .map(|s| s.value.element_types.as_slice())
                .unwrap_or(&[]);
            let ts = self.resolve_list(
                &item.element_types,
                et_spans,
                "implementation_defined element_types",
            );
            let extra: Vec<ElementType> = ts.into_iter().filter(|t| !types.contains(t)).collect();
            if !extra.is_empty() {
                self.err(
                    et_spans.first().and_then(pos_of).or(here),
                    format!(
                        "mask names element types the entry does not accept: {}",
                        names(&extra)
                    ),
                );
            }
        }
    }

    fn tolerance(&mut self, types: &[ElementType]) {
        let op = self.op;
        let tol_spans = self.spans.and_then(|s| s.tolerance.as_ref());
        let here = tol_spans.and_then(pos_of);
        let keys = tol_spans.and_then(|t| t.value.ulp.as_ref());
        let mut result_set: Vec<ElementType> =
            types.iter().flat_map(|&t| result_types(op, t)).collect();
        result_set.sort();
        result_set.dedup();
        if op.tolerance.ulp.is_empty() {
            self.err(
                here,
                "tolerance.ulp is empty: give at least `default`".into(),
            );
        }
        for key in op.tolerance.ulp.keys() {
            if key == "default" {
                continue;
            }
            let pos = keys.and_then(|k| k.value.find(key)).or(here);
            let members =
                type_class(key).or_else(|| ElementType::from_hlo_name(key).map(|t| vec![t]));
            match members {
                None => self.err(
                    pos,
                    format!(
                        "tolerance key `{key}` is not `default`, an element type or a class ({})",
                        TYPE_CLASSES.join(", ")
                    ),
                ),
                Some(m) if !m.iter().any(|t| result_set.contains(t)) => self.err(
                    pos,
                    format!(
                        "tolerance key `{key}` matches no result type of this entry ({})",
                        names(&result_set)
                    ),
                ),
                Some(_) => {}
            }
        }
        if let Some(acc) = &op.tolerance.accumulation {
            for (key, format) in &acc.format {
                let key_ok = key == "default"
                    || type_class(key).is_some()
                    || ElementType::from_hlo_name(key).is_some();
                let format_ok = format == "result"
                    || ElementType::from_hlo_name(format).is_some_and(|t| t.is_float());
                if !key_ok || !format_ok {
                    self.err(
                        here,
                        format!(
                            "tolerance.accumulation.format `{key}: {format}`: expected `default`, an element type or a class, mapped to `result` or a float type"
                        ),
                    );
                }
            }
        }
        if op
            .tolerance
            .rationale
            .as_deref()
            .is_none_or(|r| r.trim().is_empty())
        {
            let pos = tol_spans
                .and_then(|t| t.value.rationale.as_ref())
                .and_then(pos_of)
                .or(here);
            self.err(
                pos,
                "tolerance needs a `rationale` saying why the budget is what it is".into(),
            );
        }
    }

    /// A conditioning rule reads its operands with a fixed meaning (`complex-power`: base and
    /// exponent of `power`), so it belongs to one opcode.
    fn conditioning(&mut self, opcode: Opcode) {
        let here = self
            .spans
            .and_then(|s| s.tolerance.as_ref())
            .and_then(pos_of);
        match self.op.tolerance.conditioning {
            Some(Conditioning::ComplexPower) if opcode != Opcode::Power => self.err(
                here,
                format!(
                    "tolerance.conditioning `complex-power` applies to `power`, not `{}`",
                    self.op.opcode
                ),
            ),
            Some(Conditioning::Function)
                if !crate::catalog::conditioning::FUNCTION_OPCODES.contains(&opcode) =>
            {
                self.err(
                    here,
                    format!(
                        "tolerance.conditioning `function` applies to real functions whose \
                         condition number the reference computes ({}), not `{}`",
                        crate::catalog::conditioning::FUNCTION_OPCODES
                            .iter()
                            .map(|o| o.name())
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.op.opcode
                    ),
                )
            }
            _ => {}
        }
    }

    fn examples(&mut self, opcode: Opcode) {
        let op = self.op;
        let mut seen = BTreeSet::new();
        for (k, ex) in op.examples.iter().enumerate() {
            let spans = self.spans.and_then(|s| s.examples.get(k)).map(|s| &s.value);
            let here = self.spans.and_then(|s| s.examples.get(k)).and_then(pos_of);
            if ex.name.trim().is_empty() || !seen.insert(ex.name.as_str()) {
                let pos = spans
                    .and_then(|s| s.name.as_ref())
                    .and_then(pos_of)
                    .or(here);
                self.err(
                    pos,
                    format!("example name `{}` is empty or repeated", ex.name),
                );
            }
            if ex.source.trim().is_empty() {
                self.err(here, format!("example `{}` has no source", ex.name));
            }
            let problems = examples::validate_example(op, opcode, ex);
            if problems.is_empty() {
                self.example_form(
                    ex,
                    spans.and_then(|s| s.hlo.as_ref()).and_then(pos_of).or(here),
                );
            }
            for problem in problems {
                let pos = match problem.place {
                    examples::Place::Hlo(line, column) => spans
                        .and_then(|s| s.hlo.as_ref())
                        .and_then(pos_of)
                        .map(|node| self.loc.inside_string(node, line, column)),
                    examples::Place::Input(i) => {
                        spans.and_then(|s| s.inputs.get(i)).and_then(pos_of)
                    }
                    examples::Place::Inputs => {
                        spans.and_then(|s| s.inputs.first()).and_then(pos_of)
                    }
                    examples::Place::Expected => {
                        spans.and_then(|s| s.expected.as_ref()).and_then(pos_of)
                    }
                };
                self.err(
                    pos.or(here),
                    format!("example `{}`: {}", ex.name, problem.message),
                );
            }
        }
    }

    /// The form the entry's signature gives an example (see [`example_form_problems`]); run on
    /// examples that otherwise check out.
    fn example_form(&mut self, ex: &super::model::Example, pos: Option<Pos>) {
        let Ok(module) = crate::hlo::parse_module(&ex.hlo) else {
            return;
        };
        let Some(entry) = module.computations.get(module.entry) else {
            return;
        };
        let accepted = resolve_element_types(&self.op.element_types).unwrap_or_default();
        for message in example_form_problems(self.op.signature, entry, &accepted) {
            self.err(pos, format!("example `{}`: {message}", ex.name));
        }
    }

    fn unsupported(&mut self) {
        let op = self.op;
        let keys = self.spans.and_then(|s| s.unsupported.as_ref());
        for (backend, reason) in &op.unsupported {
            if backend.trim().is_empty() || reason.trim().is_empty() {
                let pos = keys
                    .and_then(|k| k.value.find(backend))
                    .or_else(|| keys.and_then(pos_of));
                self.err(
                    pos,
                    format!("unsupported `{backend}` needs a backend name and a reason"),
                );
            }
        }
    }
}
