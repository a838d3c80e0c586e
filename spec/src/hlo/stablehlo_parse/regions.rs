//! Operations with regions → instructions calling computations (seed 004: Reduce, ReduceWindow,
//! SelectAndScatter, Sort, Map, Scatter, While, Conditional). The inverse of the printer's
//! `regions.rs`, `indexing.rs` (scatter) and `control.rs` (while, case, if).
//!
//! `to_apply`-style regions take their block arguments as scalar parameters, in order (for
//! reductions: the accumulators then the elements; for sort: `lhs_k, rhs_k` pairs; for scatter:
//! the current values then the updates), and may use constants defined outside (copied in).
//! `while` regions take the loop state as one tuple parameter, extended by the values they use
//! from outside (carried unchanged by the body); `case` / `if` branches take one tuple of the
//! values they use from outside. Constants used from outside are copied into every kind of
//! region's computation rather than passed in.

use super::contraction::batched_indices;
use super::lower::{attr, int_attr, ints_attr, Binding, LResult, Lowering, Scope};
use super::ops::{
    base_name, elements, field_int, field_ints, operands_n, opt_bool, opt_int, padding_pairs,
    req_ints, struct_fields,
};
use super::syntax::{Block, Op, Use};
use crate::hlo::contraction_numbers::{Window, WindowDimension};
use crate::hlo::ir::{AttrValue, Opcode};
use crate::literal::Literal;
use crate::shape::Shape;
use std::collections::HashSet;

/// Lowers `reduce`, `reduce_window`, `select_and_scatter`, `sort`, `map`, `scatter`, `while`,
/// `case` or `if`.
///
/// Errors: region counts or block argument counts that do not fit, a `to_apply` region using a
/// non-constant value from outside, results that disagree with the declared types, missing or
/// malformed attributes.
pub(crate) fn lower(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    let base = base_name(op);
    let n_regions = match op.name.as_str() {
        "stablehlo.select_and_scatter" | "stablehlo.while" | "stablehlo.if" => 2,
        "stablehlo.case" => op.regions.len().max(1),
        _ => 1,
    };
    if op.regions.len() != n_regions {
        return Err(l.err(
            op.pos,
            format!(
                "`{}` takes {n_regions} region(s), found {}",
                op.name,
                op.regions.len()
            ),
        ));
    }
    match op.name.as_str() {
        "stablehlo.reduce" | "stablehlo.reduce_window" => {
            let windowed = op.name.ends_with("window");
            let used: &[&str] = if windowed {
                &[
                    "window_dimensions",
                    "window_strides",
                    "base_dilations",
                    "window_dilations",
                    "padding",
                ]
            } else {
                &["dimensions"]
            };
            l.check_attributes(op, used)?;
            let operands = l.operands(s, op)?;
            let n = operands.len() / 2;
            if n == 0 || operands.len() % 2 != 0 {
                return Err(l.err(
                    op.pos,
                    format!(
                        "`{}` takes N inputs and N initial values, found {} operands",
                        op.name,
                        operands.len()
                    ),
                ));
            }
            let comp = to_apply(l, s, op, 0, 2 * n, &format!("{base}.body"))?;
            let mut attrs = if windowed {
                let rank = rank_of(l, s, op, operands[0])?;
                vec![window(l, op, rank, true)?.to_attribute()]
            } else {
                vec![ints_attr("dimensions", &req_ints(l, op, "dimensions")?)]
            };
            attrs.push(attr("to_apply", AttrValue::Computation(comp)));
            let opcode = if windowed {
                Opcode::ReduceWindow
            } else {
                Opcode::Reduce
            };
            results(l, s, op, opcode, operands, attrs, n)
        }
        "stablehlo.select_and_scatter" => {
            l.check_attributes(op, &["window_dimensions", "window_strides", "padding"])?;
            let operands = operands_n(l, s, op, 3)?;
            let rank = rank_of(l, s, op, operands[0])?;
            let w = window(l, op, rank, false)?;
            let select = to_apply(l, s, op, 0, 2, &format!("{base}.select"))?;
            let scatter = to_apply(l, s, op, 1, 2, &format!("{base}.scatter"))?;
            let attrs = vec![
                w.to_attribute(),
                attr("select", AttrValue::Computation(select)),
                attr("scatter", AttrValue::Computation(scatter)),
            ];
            results(l, s, op, Opcode::SelectAndScatter, operands, attrs, 1)
        }
        "stablehlo.sort" => {
            l.check_attributes(op, &["dimension", "is_stable"])?;
            let operands = l.operands(s, op)?;
            if operands.is_empty() {
                return Err(l.err(op.pos, "`stablehlo.sort` needs at least one input"));
            }
            let rank = rank_of(l, s, op, operands[0])? as i64;
            let mut d = opt_int(l, op, "dimension")?.unwrap_or(-1);
            if d < 0 {
                d += rank;
            }
            let stable = opt_bool(l, op, "is_stable", false)?;
            let comp = to_apply(
                l,
                s,
                op,
                0,
                2 * operands.len(),
                &format!("{base}.comparator"),
            )?;
            let attrs = vec![
                ints_attr("dimensions", &[d]),
                attr("is_stable", AttrValue::Bool(stable)),
                attr("to_apply", AttrValue::Computation(comp)),
            ];
            let n = operands.len();
            results(l, s, op, Opcode::Sort, operands, attrs, n)
        }
        "stablehlo.map" => {
            l.check_attributes(op, &["dimensions"])?;
            let operands = l.operands(s, op)?;
            let comp = to_apply(l, s, op, 0, operands.len(), &format!("{base}.body"))?;
            let attrs = vec![
                ints_attr("dimensions", &req_ints(l, op, "dimensions")?),
                attr("to_apply", AttrValue::Computation(comp)),
            ];
            results(l, s, op, Opcode::Map, operands, attrs, 1)
        }
        "stablehlo.scatter" => scatter(l, s, op, &base),
        "stablehlo.while" => while_op(l, s, op, &base),
        _ => branches(l, s, op, &base),
    }
}

/// The instruction with the declared result shape(s): one array for `n == 1`, else a tuple.
#[allow(clippy::too_many_arguments)]
fn results(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    opcode: Opcode,
    operands: Vec<usize>,
    attrs: Vec<crate::hlo::ir::Attribute>,
    n: usize,
) -> LResult<Vec<Binding>> {
    if op.result_types.len() != n {
        return Err(l.err(
            op.pos,
            format!(
                "`{}` has {n} result(s) here, the text types {}",
                op.name,
                op.result_types.len()
            ),
        ));
    }
    let shape = l.results_shape(op)?;
    let base = base_name(op);
    let i = l.add(s, opcode, shape, operands, attrs, &base, op.pos)?;
    Ok(if n == 1 {
        vec![Binding::Instr(i)]
    } else {
        elements(i, n, &base)
    })
}

fn rank_of(l: &Lowering, s: &Scope, op: &Op, i: usize) -> LResult<usize> {
    match s.shape(i) {
        Shape::Array(a) => Ok(a.rank()),
        other => Err(l.err(op.pos, format!("expected an array operand, found {other}"))),
    }
}

/// The window of `reduce_window` (`dilations`) or `select_and_scatter` from `window_dimensions`,
/// `window_strides`, `base_dilations`, `window_dilations` and `padding` (absent: 1, 1, 1, 0).
fn window(l: &Lowering, op: &Op, rank: usize, dilations: bool) -> LResult<Window> {
    let sizes = req_ints(l, op, "window_dimensions")?;
    let list = |name: &str| -> LResult<Vec<i64>> {
        match op.attr(name) {
            Some(_) if dilations || name == "window_strides" => req_ints(l, op, name),
            _ => Ok(vec![1; rank]),
        }
    };
    let strides = list("window_strides")?;
    let base = list("base_dilations")?;
    let win = list("window_dilations")?;
    let pads = padding_pairs(l, op, rank)?;
    if [sizes.len(), strides.len(), base.len(), win.len()]
        .iter()
        .any(|&k| k != rank)
    {
        return Err(l.err(
            op.pos,
            format!("window attributes must have {rank} entries (the operand's rank)"),
        ));
    }
    Ok(Window {
        dimensions: (0..rank)
            .map(|k| WindowDimension {
                size: sizes[k],
                stride: strides[k],
                padding_low: pads[k].0,
                padding_high: pads[k].1,
                window_dilation: win[k],
                base_dilation: base[k],
                window_reversal: false,
            })
            .collect(),
    })
}

/// `scatter(inputs..., indices, updates...)` with its dimension numbers and update region.
fn scatter(l: &mut Lowering, s: &mut Scope, op: &Op, base: &str) -> LResult<Vec<Binding>> {
    l.check_attributes(
        op,
        &[
            "scatter_dimension_numbers",
            "indices_are_sorted",
            "unique_indices",
        ],
    )?;
    let operands = l.operands(s, op)?;
    if operands.len() < 3 || operands.len() % 2 == 0 {
        return Err(l.err(
            op.pos,
            format!(
                "`stablehlo.scatter` takes N inputs, the indices and N updates, found {} operands",
                operands.len()
            ),
        ));
    }
    let mut operands = operands;
    let n = operands.len() / 2;
    let at = op.attr_pos("scatter_dimension_numbers");
    let f = struct_fields(l, op, "scatter_dimension_numbers")?;
    let mut inserted = field_ints(l, at, f, "inserted_window_dims")?;
    let mut to_operand = field_ints(l, at, f, "scatter_dims_to_operand_dims")?;
    let mut index_vector_dim = field_int(l, at, f, "index_vector_dim")?;
    let input_batching = field_ints(l, at, f, "input_batching_dims")?;
    let indices_batching = field_ints(l, at, f, "scatter_indices_batching_dims")?;
    if !input_batching.is_empty() || !indices_batching.is_empty() {
        (operands[n], index_vector_dim) =
            batched_indices(l, s, op, operands[n], index_vector_dim, &indices_batching)?;
        to_operand.extend(&input_batching);
        inserted.extend(&input_batching);
        inserted.sort_unstable();
    }
    let mut attrs = vec![
        ints_attr(
            "update_window_dims",
            &field_ints(l, at, f, "update_window_dims")?,
        ),
        ints_attr("inserted_window_dims", &inserted),
        ints_attr("scatter_dims_to_operand_dims", &to_operand),
        int_attr("index_vector_dim", index_vector_dim),
    ];
    for flag in ["indices_are_sorted", "unique_indices"] {
        // Sortedness is a promise about the given indices; appended batch components can
        // break it.
        let kept = flag == "unique_indices" || input_batching.is_empty();
        if opt_bool(l, op, flag, false)? && kept {
            attrs.push(attr(flag, AttrValue::Bool(true)));
        }
    }
    let comp = to_apply(l, s, op, 0, 2 * n, &format!("{base}.update"))?;
    attrs.push(attr("to_apply", AttrValue::Computation(comp)));
    results(l, s, op, Opcode::Scatter, operands, attrs, n)
}

/// The values a region uses from outside it, in order of first use (each once).
fn free_uses(blocks: &[&Block]) -> Vec<Use> {
    fn walk(
        block: &Block,
        scopes: &mut Vec<HashSet<(String, usize)>>,
        out: &mut Vec<Use>,
        seen: &mut HashSet<(String, usize)>,
    ) {
        scopes.push(block.args.iter().map(|a| (a.name.clone(), 0)).collect());
        for op in &block.ops {
            for u in &op.operands {
                let k = u.key();
                if !scopes.iter().any(|s| s.contains(&k)) && seen.insert(k) {
                    out.push(u.clone());
                }
            }
            for r in &op.regions {
                walk(r, scopes, out, seen);
            }
            let top = scopes.last_mut().expect("pushed above");
            for (name, count) in &op.results {
                for k in 0..*count {
                    top.insert((name.clone(), k));
                }
            }
        }
        scopes.pop();
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for b in blocks {
        walk(b, &mut Vec::new(), &mut out, &mut seen);
    }
    out
}

/// A constant a region uses from outside: the use and the constant's value.
type Captured = (Use, Literal);

/// The values a region uses from outside, split into constants (copied into the region's
/// computation: `(use, literal)`) and the others (passed in: the uses and their instructions in
/// the enclosing computation).
fn split_captures(
    l: &mut Lowering,
    outer: &mut Scope,
    uses: Vec<Use>,
) -> LResult<(Vec<Captured>, Vec<Use>, Vec<usize>)> {
    let (mut constants, mut others, mut values) = (Vec::new(), Vec::new(), Vec::new());
    for u in uses {
        let v = l.value(outer, &u)?;
        let instr = &outer.b.instructions()[v];
        match (&instr.opcode, &instr.literal) {
            (Opcode::Constant, Some(lit)) => constants.push((u, lit.clone())),
            _ => {
                others.push(u);
                values.push(v);
            }
        }
    }
    Ok((constants, others, values))
}

/// Copies captured constants into the region's computation and binds them.
fn copy_constants(l: &mut Lowering, r: &mut Scope, constants: &[Captured]) {
    for (u, lit) in constants {
        let c = l.constant(r, lit.clone(), &u.name, u.pos);
        r.bind(u.key(), Binding::Instr(c));
    }
}

/// Region `k` of `op` as a computation named after `name` whose parameters are the block's
/// `nargs` arguments; values from outside must be constants (copied in).
pub(crate) fn to_apply(
    l: &mut Lowering,
    outer: &mut Scope,
    op: &Op,
    k: usize,
    nargs: usize,
    name: &str,
) -> LResult<String> {
    let region = &op.regions[k];
    if region.args.len() != nargs {
        return Err(l.err(
            region.pos,
            format!(
                "the region of `{}` takes {nargs} argument(s), found {}",
                op.name,
                region.args.len()
            ),
        ));
    }
    let comp = l.computation_name(name);
    let mut s = Scope::new(comp.clone());
    for a in &region.args {
        let shape = l.shape_of_type(&a.ty, a.pos)?;
        let p = l.parameter(&mut s, shape, &a.name, a.pos)?;
        s.bind((a.name.clone(), 0), Binding::Instr(p));
    }
    let (constants, others, _) = split_captures(l, outer, free_uses(&[region]))?;
    if let Some(u) = others.first() {
        return Err(l.err(
            u.pos,
            format!(
                "the region of `{}` uses `{}`, defined outside it: an HLO `to_apply` \
                 computation takes only its parameters (and constants)",
                op.name,
                u.describe()
            ),
        ));
    }
    copy_constants(l, &mut s, &constants);
    let (values, ret) = l.block(&mut s, region)?;
    let root = l.root(&mut s, &values, ret.pos)?;
    l.push_computation(s, root);
    Ok(comp)
}

/// `while`: the state tuple (operands, then the values the regions use from outside), the
/// condition and body computations, and the loop results (the first N state elements).
fn while_op(l: &mut Lowering, s: &mut Scope, op: &Op, base: &str) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &[])?;
    let operands = l.operands(s, op)?;
    let n = operands.len();
    let (cond, body) = (&op.regions[0], &op.regions[1]);
    for r in [cond, body] {
        if r.args.len() != n {
            return Err(l.err(
                r.pos,
                format!(
                    "the region of `stablehlo.while` takes {n} argument(s), found {}",
                    r.args.len()
                ),
            ));
        }
        for (a, &v) in r.args.iter().zip(&operands) {
            let declared = l.shape_of_type(&a.ty, a.pos)?;
            l.check_shape(
                &s.shape(v),
                &declared,
                a.pos,
                &format!("loop variable `%{}`", a.name),
            )?;
        }
    }
    let (constants, captures, captured) = split_captures(l, s, free_uses(&[cond, body]))?;
    let mut state = operands.clone();
    state.extend(captured);
    let init = l.tuple(s, &state, &format!("{base}.init"), op.pos)?;
    let shape = s.shape(init);
    let mut names = Vec::new();
    for (is_body, region) in [(false, cond), (true, body)] {
        let comp = l.computation_name(&format!("{base}.{}", if is_body { "body" } else { "cond" }));
        let mut r = Scope::new(comp.clone());
        let p = l.parameter(&mut r, shape.clone(), &format!("{base}.state"), region.pos)?;
        copy_constants(l, &mut r, &constants);
        for (k, a) in region.args.iter().enumerate() {
            r.bind(
                (a.name.clone(), 0),
                Binding::Element {
                    tuple: p,
                    index: k,
                    hint: a.name.clone(),
                },
            );
        }
        for (j, u) in captures.iter().enumerate() {
            r.bind(
                u.key(),
                Binding::Element {
                    tuple: p,
                    index: n + j,
                    hint: u.name.clone(),
                },
            );
        }
        let (mut values, ret) = l.block(&mut r, region)?;
        let root = if is_body {
            if values.len() != n {
                return Err(l.err(
                    ret.pos,
                    format!(
                        "the loop body returns {} value(s) for a state of {n}",
                        values.len()
                    ),
                ));
            }
            for (k, (&v, &o)) in values.iter().zip(&operands).enumerate() {
                l.check_shape(
                    &r.shape(v),
                    &s.shape(o),
                    ret.pos,
                    &format!("state element {k}"),
                )?;
            }
            for u in &captures {
                values.push(l.value(&mut r, u)?);
            }
            l.tuple(&mut r, &values, &format!("{base}.next"), ret.pos)?
        } else {
            match values[..] {
                [v] if matches!(r.shape(v), Shape::Array(ref a) if a.element_type == crate::ElementType::Pred && a.dimensions.is_empty()) => {
                    v
                }
                _ => return Err(l.err(ret.pos, "the loop condition must return one `tensor<i1>`")),
            }
        };
        l.push_computation(r, root);
        names.push(comp);
    }
    let attrs = vec![
        attr("condition", AttrValue::Computation(names[0].clone())),
        attr("body", AttrValue::Computation(names[1].clone())),
    ];
    for (k, ty) in op.result_types.iter().enumerate() {
        let declared = l.shape_of_type(ty, op.pos)?;
        if let Some(&o) = operands.get(k) {
            l.check_shape(
                &s.shape(o),
                &declared,
                op.pos,
                &format!("result {k} of `stablehlo.while`"),
            )?;
        }
    }
    if op.result_types.len() != n {
        return Err(l.err(
            op.pos,
            format!(
                "`stablehlo.while` has {n} results, the text types {}",
                op.result_types.len()
            ),
        ));
    }
    let w = l.add(s, Opcode::While, shape, vec![init], attrs, base, op.pos)?;
    Ok(elements(w, n, base))
}

/// `case` (an `i32` index; out of range runs the last branch, as HLO's indexed conditional) and
/// `if` (a predicate: true runs the first region): each branch a computation of one tuple
/// parameter holding the values it uses from outside.
fn branches(l: &mut Lowering, s: &mut Scope, op: &Op, base: &str) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &[])?;
    let selector = operands_n(l, s, op, 1)?[0];
    let shape = l.results_shape(op)?;
    let n = op.result_types.len();
    let mut operands = vec![selector];
    let mut comps = Vec::new();
    for (k, region) in op.regions.iter().enumerate() {
        if !region.args.is_empty() {
            return Err(l.err(
                region.pos,
                format!("a branch of `{}` takes no arguments", op.name),
            ));
        }
        let (constants, captures, values) = split_captures(l, s, free_uses(&[region]))?;
        let arg = l.tuple(s, &values, &format!("{base}.branch{k}.args"), region.pos)?;
        operands.push(arg);
        let comp = l.computation_name(&format!("{base}.branch{k}"));
        let mut r = Scope::new(comp.clone());
        let p = l.parameter(
            &mut r,
            s.shape(arg),
            &format!("{base}.branch{k}.param"),
            region.pos,
        )?;
        copy_constants(l, &mut r, &constants);
        for (j, u) in captures.iter().enumerate() {
            r.bind(
                u.key(),
                Binding::Element {
                    tuple: p,
                    index: j,
                    hint: u.name.clone(),
                },
            );
        }
        let (values, ret) = l.block(&mut r, region)?;
        if values.len() != n {
            return Err(l.err(
                ret.pos,
                format!(
                    "branch {k} returns {} value(s), `{}` has {n} result(s)",
                    values.len(),
                    op.name
                ),
            ));
        }
        for (j, &v) in values.iter().enumerate() {
            let declared = l.result_shape(op, j)?;
            l.check_shape(
                &r.shape(v),
                &declared,
                ret.pos,
                &format!("result {j} of branch {k}"),
            )?;
        }
        let root = l.root(&mut r, &values, ret.pos)?;
        l.push_computation(r, root);
        comps.push(comp);
    }
    let attrs = if op.name == "stablehlo.if" {
        vec![
            attr("true_computation", AttrValue::Computation(comps[0].clone())),
            attr(
                "false_computation",
                AttrValue::Computation(comps[1].clone()),
            ),
        ]
    } else {
        vec![attr("branch_computations", AttrValue::Computations(comps))]
    };
    let c = l.add(s, Opcode::Conditional, shape, operands, attrs, base, op.pos)?;
    Ok(if n == 1 {
        vec![Binding::Instr(c)]
    } else {
        elements(c, n, base)
    })
}
