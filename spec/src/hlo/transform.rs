//! Semantics-preserving rewrites of a module that let the harness check a dump as XLA's own
//! passes would see it: [`inline_calls`] (XLA's call inliner) and [`with_root`] (re-rooting the
//! entry computation with dead-code elimination); [`parameters_to_constants`], which moves
//! arguments into the module so that a compiler evaluates the operation at compile time; and
//! [`root_in_tuple`], JAX's entry form (the result wrapped in a one-element tuple).

use super::ir::{HloComputation, HloInstruction, HloModule, Opcode};
use crate::literal::Literal;
use std::collections::HashSet;

/// How deep `call`s may nest before [`inline_calls`] reports a cycle.
pub const MAX_CALL_DEPTH: usize = 64;

/// `module` with every `call` (and `fusion`, a call of its fused computation) in the entry
/// computation replaced by the instructions of the
/// computation it calls (recursively, so nested calls are inlined too): a `call`'s parameters
/// become its operands and its value becomes the callee's root, followed by a `copy` to the
/// `call`'s shape when the layouts differ. Inlined instructions keep their names where these are
/// free in the entry and get a `.N` suffix otherwise. Computations no longer called are dropped.
/// The result computes the same values as `module` (cf. XLA's `CallInliner`).
///
/// Errors: a `call` without `to_apply`, one naming a computation that is not in the module, or
/// calls nested deeper than [`MAX_CALL_DEPTH`] (a cycle).
pub fn inline_calls(module: &HloModule) -> Result<HloModule, String> {
    let entry = module.entry_computation();
    if !entry
        .instructions
        .iter()
        .any(|i| matches!(i.opcode, Opcode::Call | Opcode::Fusion))
    {
        return Ok(module.clone());
    }
    let mut inliner = Inliner {
        module,
        out: Vec::with_capacity(entry.instructions.len()),
        names: entry.instructions.iter().map(|i| i.name.clone()).collect(),
    };
    let root = inliner.computation(entry, None, 0)?;
    let mut m = module.clone();
    m.computations[m.entry] = HloComputation {
        name: entry.name.clone(),
        instructions: inliner.out,
        root,
    };
    Ok(without_unused_computations(m))
}

struct Inliner<'m> {
    module: &'m HloModule,
    out: Vec<HloInstruction>,
    /// Every name used in the entry so far (and every original entry name, reserved).
    names: HashSet<String>,
}

impl Inliner<'_> {
    /// Appends `c`'s instructions to `out` with calls inlined; `parameters` maps a callee's
    /// parameter numbers to indices in `out` (`None` for the entry, whose parameters stay).
    /// Returns the index in `out` of `c`'s value.
    fn computation(
        &mut self,
        c: &HloComputation,
        parameters: Option<&[usize]>,
        depth: usize,
    ) -> Result<usize, String> {
        let mut index = vec![usize::MAX; c.instructions.len()];
        for (i, instruction) in c.instructions.iter().enumerate() {
            if let (Opcode::Parameter, Some(map)) = (instruction.opcode, parameters) {
                let n = instruction.parameter_number.unwrap_or(-1);
                index[i] = usize::try_from(n)
                    .ok()
                    .and_then(|n| map.get(n).copied())
                    .ok_or_else(|| {
                        format!(
                            "computation `{}`: parameter({n}) has no operand in its call",
                            c.name
                        )
                    })?;
                continue;
            }
            let operands: Vec<usize> = instruction.operands.iter().map(|&o| index[o]).collect();
            if matches!(instruction.opcode, Opcode::Call | Opcode::Fusion) {
                index[i] = self.call(instruction, &operands, parameters.is_none(), depth)?;
                continue;
            }
            let mut copy = instruction.clone();
            copy.operands = operands;
            if parameters.is_some() {
                copy.name = self.fresh(&instruction.name);
            }
            index[i] = self.out.len();
            self.out.push(copy);
        }
        Ok(index[c.root])
    }

    fn call(
        &mut self,
        instruction: &HloInstruction,
        operands: &[usize],
        in_entry: bool,
        depth: usize,
    ) -> Result<usize, String> {
        let name = *instruction
            .called_computations()
            .first()
            .ok_or_else(|| format!("call `{}` has no `to_apply=`", instruction.name))?;
        let callee = self.module.computation(name).ok_or_else(|| {
            format!(
                "call `{}`: computation `{name}` is not in the module",
                instruction.name
            )
        })?;
        if depth >= MAX_CALL_DEPTH {
            return Err(format!(
                "call `{}`: calls nest deeper than {MAX_CALL_DEPTH} (a cycle through `{name}`?)",
                instruction.name
            ));
        }
        let value = self.computation(callee, Some(operands), depth + 1)?;
        if self.out[value].shape == instruction.shape {
            return Ok(value);
        }
        // The call's result has the call's layout; an entry call's name is its own (reserved).
        let copy = HloInstruction {
            name: if in_entry {
                instruction.name.clone()
            } else {
                self.fresh(&instruction.name)
            },
            opcode: Opcode::Copy,
            shape: instruction.shape.clone(),
            operands: vec![value],
            parameter_number: None,
            literal: None,
            attributes: vec![],
        };
        self.out.push(copy);
        Ok(self.out.len() - 1)
    }

    fn fresh(&mut self, name: &str) -> String {
        let mut candidate = name.to_string();
        let mut n = 1;
        while self.names.contains(&candidate) {
            candidate = format!("{name}.{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }
}

/// `module` with the entry root moved to instruction `root` of the entry computation and every
/// instruction `root` does not depend on removed, except parameters (the module keeps its
/// signature). Computations no longer called are dropped.
///
/// Panics if `root` is not an index into the entry's instructions.
pub fn with_root(module: &HloModule, root: usize) -> HloModule {
    let entry = module.entry_computation();
    let mut live = vec![false; entry.instructions.len()];
    live[root] = true;
    for i in (0..=root).rev() {
        if live[i] {
            for &o in &entry.instructions[i].operands {
                live[o] = true;
            }
        }
    }
    let mut index = vec![usize::MAX; entry.instructions.len()];
    let mut instructions = Vec::new();
    for (i, instruction) in entry.instructions.iter().enumerate() {
        if live[i] || instruction.opcode == Opcode::Parameter {
            let mut copy = instruction.clone();
            copy.operands = copy.operands.iter().map(|&o| index[o]).collect();
            index[i] = instructions.len();
            instructions.push(copy);
        }
    }
    let mut m = module.clone();
    m.computations[m.entry] = HloComputation {
        name: entry.name.clone(),
        instructions,
        root: index[root],
    };
    without_unused_computations(m)
}

/// `module` with the entry parameters whose number `n` has `which[n]` replaced by `constant`
/// instructions holding `args[n]` (same name and shape, layout included), the other parameters
/// renumbered in order; and the arguments left to pass. The module computes the same values: a
/// compiler may now fold the operation at compile time, through other code than its kernels
/// (XLA's constant folding runs its HloEvaluator).
///
/// Errors: `args` or `which` not one per entry parameter, a chosen argument that is not an array
/// or whose shape (dimensions and element type) differs from its parameter's. An
/// `entry_computation_layout` header attribute, which lists the parameters, is dropped.
pub fn parameters_to_constants(
    module: &HloModule,
    args: &[Literal],
    which: &[bool],
) -> Result<(HloModule, Vec<Literal>), String> {
    let entry = module.entry_computation();
    let count = entry
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Parameter)
        .count();
    if args.len() != count || which.len() != count {
        return Err(format!(
            "{count} entry parameters, {} arguments and {} choices",
            args.len(),
            which.len()
        ));
    }
    let mut m = module.clone();
    let mut kept = Vec::new();
    let mut renumbered = Vec::with_capacity(count);
    let mut next = 0i64;
    for n in 0..count {
        if which[n] {
            renumbered.push(None);
        } else {
            renumbered.push(Some(next));
            next += 1;
            kept.push(args[n].clone());
        }
    }
    for instruction in &mut m.computations[m.entry].instructions {
        if instruction.opcode != Opcode::Parameter {
            continue;
        }
        let n = instruction
            .parameter_number
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < count)
            .ok_or_else(|| {
                format!(
                    "parameter `{}` has no number below {count}",
                    instruction.name
                )
            })?;
        match renumbered[n] {
            Some(k) => instruction.parameter_number = Some(k),
            None => {
                let Literal::Array(a) = &args[n] else {
                    return Err(format!("argument {n} is not an array"));
                };
                let Some(shape) = instruction.shape.as_array() else {
                    return Err(format!("parameter {n} is not an array"));
                };
                if a.dimensions() != shape.dimensions.as_slice()
                    || a.element_type() != shape.element_type
                {
                    return Err(format!(
                        "argument {n} is {}, its parameter {}",
                        a.shape(),
                        shape
                    ));
                }
                instruction.opcode = Opcode::Constant;
                instruction.parameter_number = None;
                instruction.literal = Some(Literal::Array(a.relayout(shape.layout.clone())));
                instruction.attributes.clear();
            }
        }
    }
    m.header_attributes
        .retain(|a| a.name != "entry_computation_layout");
    Ok((m, kept))
}

/// The inverse of [`parameters_to_constants`] for the array constants the entry root reads:
/// each becomes a parameter numbered after the existing ones. Returns the module, the
/// constants' values (the new parameters' arguments, in order) and the mask that
/// [`parameters_to_constants`] takes to fold them back (true for the new parameters); `None`
/// when the root reads no array constant.
pub fn root_constants_to_parameters(
    module: &HloModule,
) -> Option<(HloModule, Vec<Literal>, Vec<bool>)> {
    let entry = module.entry_computation();
    let root = &entry.instructions[entry.root];
    let count = entry
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Parameter)
        .count();
    let mut m = module.clone();
    let mut values = Vec::new();
    let mut seen = HashSet::new();
    for &o in &root.operands {
        let i = &mut m.computations[m.entry].instructions[o];
        let is_array_constant = i.opcode == Opcode::Constant
            && i.shape.as_array().is_some()
            && matches!(i.literal, Some(Literal::Array(_)));
        if !is_array_constant || !seen.insert(o) {
            continue;
        }
        values.push(i.literal.take().expect("checked"));
        i.opcode = Opcode::Parameter;
        i.parameter_number = Some((count + values.len() - 1) as i64);
        i.attributes.clear();
    }
    if values.is_empty() {
        return None;
    }
    m.header_attributes
        .retain(|a| a.name != "entry_computation_layout");
    let mask = (0..count + values.len()).map(|n| n >= count).collect();
    Some((m, values, mask))
}

/// The module with its entry root wrapped in a one-element `tuple` (the form of a JAX function's
/// entry computation, whose results are always a tuple), or `None` when the root already is a
/// tuple. The new root is named `tuple` with the first numeric suffix no instruction of the entry
/// uses; the other instructions are untouched, so every instruction keeps its name and value.
pub fn root_in_tuple(module: &HloModule) -> Option<HloModule> {
    let entry = module.entry_computation();
    let root = entry.root_instruction();
    if matches!(root.shape, crate::Shape::Tuple(_)) {
        return None;
    }
    let names: HashSet<&str> = entry.instructions.iter().map(|i| i.name.as_str()).collect();
    let name = (1..)
        .map(|k| format!("tuple.{k}"))
        .find(|n| !names.contains(n.as_str()))?;
    let wrapped = HloInstruction {
        name,
        opcode: Opcode::Tuple,
        shape: crate::Shape::Tuple(vec![root.shape.clone()]),
        operands: vec![entry.root],
        parameter_number: None,
        literal: None,
        attributes: Vec::new(),
    };
    let mut m = module.clone();
    let e = &mut m.computations[m.entry];
    e.instructions.push(wrapped);
    e.root = e.instructions.len() - 1;
    m.header_attributes
        .retain(|a| a.name != "entry_computation_layout");
    Some(m)
}

/// `m` without the computations that the entry does not reach through called computations.
fn without_unused_computations(mut m: HloModule) -> HloModule {
    let mut reached = vec![false; m.computations.len()];
    let mut stack = vec![m.entry];
    reached[m.entry] = true;
    while let Some(c) = stack.pop() {
        for instruction in &m.computations[c].instructions {
            for name in instruction.called_computations() {
                let name = name.strip_prefix('%').unwrap_or(name);
                if let Some(k) = m.computations.iter().position(|x| x.name == name) {
                    if !reached[k] {
                        reached[k] = true;
                        stack.push(k);
                    }
                }
            }
        }
    }
    let entry_name = m.computations[m.entry].name.clone();
    let mut k = 0;
    m.computations.retain(|_| {
        k += 1;
        reached[k - 1]
    });
    m.entry = m
        .computations
        .iter()
        .position(|c| c.name == entry_name)
        .unwrap_or(0);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_module;

    const CLIP: &str = r#"HloModule clip

clip.1 {
  Arg_2.1 = f32[] parameter(2)
  min.2 = f32[2,3]{1,0} broadcast(Arg_2.1), dimensions={}
  Arg_1.1 = f32[] parameter(1)
  max.2 = f32[2,3]{1,0} broadcast(Arg_1.1), dimensions={}
  Arg_0.1 = f32[2,3]{1,0} parameter(0)
  max.3 = f32[2,3]{1,0} maximum(max.2, Arg_0.1)
  ROOT min.3 = f32[2,3]{1,0} minimum(min.2, max.3)
}

ENTRY main.2 {
  x.1 = f32[2,3]{1,0} parameter(0)
  constant.2 = f32[] constant(-1)
  constant.3 = f32[] constant(1)
  ROOT jit_clip_.1 = f32[2,3]{1,0} call(x.1, constant.2, constant.3), to_apply=clip.1
}
"#;

    fn names(c: &HloComputation) -> Vec<&str> {
        c.instructions.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn the_root_is_wrapped_in_a_one_element_tuple() {
        let m = inline_calls(&parse_module(CLIP).unwrap()).unwrap();
        let t = root_in_tuple(&m).expect("an array root");
        let e = t.entry_computation();
        let root = e.root_instruction();
        assert_eq!(root.opcode, Opcode::Tuple);
        assert_eq!(root.name, "tuple.1");
        assert_eq!(root.operands, [m.entry_computation().root]);
        assert_eq!(root.shape.to_string(), "(f32[2,3]{1,0})");
        assert_eq!(
            e.instructions.len(),
            m.entry_computation().instructions.len() + 1
        );
        let again = parse_module(&t.to_string()).unwrap();
        assert_eq!(again, t, "the tuple-rooted module prints and re-parses");
        assert!(root_in_tuple(&t).is_none(), "a tuple root stays as it is");
        // A name in use is skipped.
        let mut taken = m.clone();
        let r = taken.entry_computation().root;
        taken.computations[taken.entry].instructions[r].name = "tuple.1".into();
        let t2 = root_in_tuple(&taken).unwrap();
        assert_eq!(t2.entry_computation().root_instruction().name, "tuple.2");
    }

    #[test]
    fn a_call_is_replaced_by_its_callee() {
        let m = inline_calls(&parse_module(CLIP).unwrap()).unwrap();
        assert_eq!(m.computations.len(), 1, "the callee is no longer called");
        let e = m.entry_computation();
        assert_eq!(
            names(e),
            [
                "x.1",
                "constant.2",
                "constant.3",
                "min.2",
                "max.2",
                "max.3",
                "min.3"
            ]
        );
        assert_eq!(e.root_instruction().name, "min.3");
        // Parameters became the call's operands: min.2 broadcasts constant.3 (parameter 2).
        assert_eq!(e.instructions[3].operands, [2]);
        assert_eq!(e.instructions[5].operands, [4, 0]);
        let again = parse_module(&m.to_string()).unwrap();
        assert_eq!(again, m, "the inlined module prints and re-parses");
    }

    #[test]
    fn nested_calls_and_name_collisions() {
        let text = r#"HloModule nested

inner {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}

outer {
  p = f32[2] parameter(0)
  c = f32[2] call(p), to_apply=inner
  ROOT n = f32[2] add(c, p)
}

ENTRY main {
  n = f32[2] parameter(0)
  ROOT r = f32[2]{0} call(n), to_apply=outer
}
"#;
        let m = inline_calls(&parse_module(text).unwrap()).unwrap();
        let e = m.entry_computation();
        assert_eq!(names(e), ["n", "n.1", "n.2"]);
        assert_eq!(e.instructions[1].opcode, Opcode::Negate);
        assert_eq!(e.instructions[1].operands, [0]);
        assert_eq!(e.instructions[2].operands, [1, 0]);
        assert_eq!(e.root, 2);
        assert_eq!(m.computations.len(), 1);
    }

    #[test]
    fn a_call_whose_layout_differs_ends_in_a_copy() {
        let text = r#"HloModule layout

f {
  p = f32[2,3]{1,0} parameter(0)
  ROOT a = f32[2,3]{1,0} abs(p)
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{0,1} call(x), to_apply=f
}
"#;
        let m = inline_calls(&parse_module(text).unwrap()).unwrap();
        let root = m.entry_computation().root_instruction();
        assert_eq!(root.opcode, Opcode::Copy);
        assert_eq!(root.name, "c");
        assert_eq!(root.shape.to_string(), "f32[2,3]{0,1}");
    }

    #[test]
    fn an_identity_callee_forwards_its_operand() {
        let text = r#"HloModule id

f {
  ROOT p = f32[2] parameter(0)
}

ENTRY main {
  x = f32[2] parameter(0)
  c = f32[2] call(x), to_apply=f
  ROOT a = f32[2] abs(c)
}
"#;
        let m = inline_calls(&parse_module(text).unwrap()).unwrap();
        let e = m.entry_computation();
        assert_eq!(names(e), ["x", "a"]);
        assert_eq!(e.instructions[1].operands, [0]);
    }

    #[test]
    fn computations_used_by_inlined_instructions_are_kept() {
        let text = r#"HloModule reduce

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

sum {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = f32[] call(x), to_apply=sum
}
"#;
        let m = inline_calls(&parse_module(text).unwrap()).unwrap();
        let kept: Vec<&str> = m.computations.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(kept, ["add", "main"]);
        assert_eq!(m.entry, 1);
    }

    #[test]
    fn with_root_keeps_what_the_root_needs_and_every_parameter() {
        let text = r#"HloModule t

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  a = f32[3] abs(x)
  b = f32[3] negate(y)
  ROOT t = (f32[3], f32[3]) tuple(a, b)
}
"#;
        let m = parse_module(text).unwrap();
        let a = with_root(&m, 2);
        assert_eq!(names(a.entry_computation()), ["x", "y", "a"]);
        assert_eq!(a.entry_computation().root, 2);
        let b = with_root(&m, 3);
        assert_eq!(names(b.entry_computation()), ["x", "y", "b"]);
        assert_eq!(b.entry_computation().instructions[2].operands, [1]);
    }

    #[test]
    fn chosen_parameters_become_constants_and_the_rest_are_renumbered() {
        let m = parse_module(
            "HloModule m\nENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = s32[2,2]{0,1} parameter(1)\n  \
             c = f32[2]{0} parameter(2)\n  s = f32[2]{0} add(a, c)\n  ROOT t = (f32[2]{0}, s32[2,2]{0,1}) tuple(s, b)\n}",
        )
        .unwrap();
        let lit = |t: &str| crate::hlo::parse_literal(t).unwrap();
        let args = [
            lit("f32[2] {1, 2}"),
            lit("s32[2,2] {{1, 2}, {3, 4}}"),
            lit("f32[2] {5, 6}"),
        ];
        let (c, rest) = parameters_to_constants(&m, &args, &[false, true, true]).unwrap();
        assert_eq!(rest, vec![args[0].clone()]);
        let e = c.entry_computation();
        let b = e.instructions.iter().find(|i| i.name == "b").unwrap();
        assert_eq!(b.opcode, Opcode::Constant);
        // The constant keeps its parameter's layout and the argument's logical values.
        assert_eq!(b.shape.to_string(), "s32[2,2]{0,1}");
        assert!(b.literal.as_ref().unwrap().logical_eq(&args[1]));
        let a = e.instructions.iter().find(|i| i.name == "a").unwrap();
        assert_eq!((a.opcode, a.parameter_number), (Opcode::Parameter, Some(0)));
        // It prints and parses back as the same module.
        let again = parse_module(&c.to_string()).unwrap();
        assert_eq!(again.to_string(), c.to_string());
        // Every parameter a constant: no arguments left.
        let (_, none) = parameters_to_constants(&m, &args, &[true, true, true]).unwrap();
        assert!(none.is_empty());
        // The root's constants back to parameters, and folded again: the same module.
        let (lifted, values, mask) = root_constants_to_parameters(&c).unwrap();
        assert_eq!(values.len(), 1, "the root reads the constant b once");
        assert_eq!(mask, vec![false, true]);
        let mut all_args = rest.clone();
        all_args.extend(values);
        let (again, left) = parameters_to_constants(&lifted, &all_args, &mask).unwrap();
        assert_eq!(left, rest);
        assert_eq!(again.to_string(), c.to_string());
        assert!(root_constants_to_parameters(&m).is_none());
        // Wrong counts or shapes are errors.
        assert!(parameters_to_constants(&m, &args[..2], &[true, true]).is_err());
        let wrong = [lit("f32[3] {1, 2, 3}"), args[1].clone(), args[2].clone()];
        assert!(parameters_to_constants(&m, &wrong, &[true, false, false]).is_err());
    }
}
