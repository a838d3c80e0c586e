//! Constants, tuples and control flow (seed 004: ConstantLiteral, Tuple, GetTupleElement, Call,
//! While, Conditional, OptimizationBarrier; HLO `copy`).
//!
//! Tuples exist only while printing ([`Value::Tuple`]): `tuple` builds one from its operands'
//! values, `get-tuple-element` picks an element, and whatever consumes a tuple-shaped value
//! (a call, a while loop, a function's return) takes its leaves depth-first.

use super::types::{dense_constant, symbol, tensor_type};
use super::{operand, At, Emitter, Value, R};
use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, HloInstruction, Opcode};
use crate::literal::Literal;

/// Writes a `constant`: one `stablehlo.constant` per array leaf of its literal (bit-exact, see
/// [`dense_constant`]); a token leaf, which has no `stablehlo.constant` form, is a fresh token:
/// `stablehlo.after_all` without operands (seed 004, AfterAll: a token carries no data, so every
/// token constant is the same value).
///
/// Errors: a constant without a literal, or a literal with dynamic sizes.
pub(super) fn constant(e: &mut Emitter, instr: &HloInstruction) -> R<Value> {
    let literal = instr
        .literal
        .as_ref()
        .ok_or_else(|| super::unsupported(instr, "a constant without a literal"))?;
    literal_value(e, instr, literal)
}

fn literal_value(e: &mut Emitter, instr: &HloInstruction, literal: &Literal) -> R<Value> {
    match literal {
        Literal::Array(a) => {
            let value = dense_constant(a).map_err(|r| super::unsupported(instr, r))?;
            let ty = tensor_type(a.shape());
            let leaf = e.op("stablehlo.constant", &[], &[("value", value)], &[], &[ty]);
            Ok(Value::Leaf(leaf.into_iter().next().ok_or_else(|| {
                super::unsupported(instr, "a constant without a result")
            })?))
        }
        Literal::Tuple(t) => t
            .iter()
            .map(|l| literal_value(e, instr, l))
            .collect::<R<Vec<_>>>()
            .map(Value::Tuple),
        Literal::Token => {
            let leaf = e.op(
                "stablehlo.after_all",
                &[],
                &[],
                &[],
                &[super::types::TOKEN.into()],
            );
            Ok(Value::Leaf(leaf.into_iter().next().ok_or_else(|| {
                super::unsupported(instr, "an after_all without a result")
            })?))
        }
    }
}

/// Writes `tuple`, `get-tuple-element`, `copy` (the identity: layouts are not part of
/// StableHLO), `call` (`func.call` of the callee's private function, arguments and results
/// flattened to leaves), `while` (`stablehlo.while` over the leaves of the loop state, condition
/// and body as regions), `conditional` (`stablehlo.if` for a predicate, whether the branches are
/// `true_computation`/`false_computation` or two `branch_computations` — true runs the first, as
/// in XLA — and `stablehlo.case` for an s32 branch index, which runs the last branch when out of
/// range, as HLO; each branch's parameter bound to its operand) and `opt-barrier`
/// (`stablehlo.optimization_barrier`).
///
/// Errors: an element index out of range, a `get-tuple-element` of an array, operand counts
/// that do not fit, missing or unknown called computations.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let one = || match ops {
        [v] => Ok(*v),
        _ => Err(at.error(format!("expects 1 operand, found {}", ops.len()))),
    };
    match instr.opcode {
        Opcode::Tuple => Ok(Value::Tuple(ops.iter().map(|&v| v.clone()).collect())),
        Opcode::GetTupleElement => {
            let index = instr
                .attr_int("index")
                .ok_or_else(|| at.error("missing `index=`"))?;
            match one()? {
                Value::Tuple(t) => usize::try_from(index)
                    .ok()
                    .and_then(|i| t.get(i))
                    .cloned()
                    .ok_or_else(|| {
                        at.error(format!(
                            "index {index} is out of range for a tuple of {}",
                            t.len()
                        ))
                    }),
                Value::Leaf(_) => Err(at.error("the operand is not a tuple")),
            }
        }
        Opcode::Copy => Ok(one()?.clone()),
        Opcode::OptimizationBarrier => {
            let v = one()?;
            let leaves = v.leaves();
            let types: Vec<String> = leaves.iter().map(|l| l.ty.clone()).collect();
            let results = e.op("stablehlo.optimization_barrier", &leaves, &[], &[], &types);
            Value::from_leaves(&instr.shape, &mut results.into_iter())
                .ok_or_else(|| at.error("result shape and operand leaves disagree"))
        }
        Opcode::Call | Opcode::Fusion => {
            // A fusion is a call of its fused computation (its `kind` only says how XLA emits it).
            let callee = at.called(if instr.opcode == Opcode::Fusion {
                "calls"
            } else {
                "to_apply"
            })?;
            let sym = e.printer.function_symbol(instr, callee)?;
            let args: Vec<_> = ops.iter().flat_map(|v| v.leaves()).collect();
            e.op_shaped(instr, "func.call", &args, &[("callee", symbol(&sym))], &[])
        }
        Opcode::While => {
            let state = one()?;
            let (cond, _) = e.region(instr, at.called("condition")?, None)?;
            let (body, _) = e.region(instr, at.called("body")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.while",
                &state.leaves(),
                &[],
                &[cond, body],
            )
        }
        Opcode::Conditional => {
            let selector = operand(instr, ops, 0)?;
            let by_pred = at.operand_shape(0)?.element_type == ElementType::Pred;
            let (name, branches): (&str, Vec<&str>) = match instr.attribute("branch_computations") {
                // A pred selector over two branches (XLA stores every conditional this way):
                // true runs branch 0, false branch 1, which is `stablehlo.if`; `stablehlo.case`
                // takes an i32 index only.
                Some(AttrValue::Computations(cs)) if by_pred => {
                    if cs.len() != 2 {
                        return Err(at.error(format!(
                            "a pred selector chooses between 2 branches, not {}",
                            cs.len()
                        )));
                    }
                    ("stablehlo.if", cs.iter().map(String::as_str).collect())
                }
                Some(AttrValue::Computations(cs)) => {
                    ("stablehlo.case", cs.iter().map(String::as_str).collect())
                }
                _ => (
                    "stablehlo.if",
                    vec![
                        at.called("true_computation")?,
                        at.called("false_computation")?,
                    ],
                ),
            };
            if branches.is_empty() || ops.len() != branches.len() + 1 {
                return Err(at.error(format!(
                    "expects a selector and one operand per branch ({} branches), found {} \
                     operands",
                    branches.len(),
                    ops.len()
                )));
            }
            let mut regions = Vec::with_capacity(branches.len());
            for (k, b) in branches.iter().enumerate() {
                let (r, _) = e.region(instr, b, Some(vec![ops[k + 1].clone()]))?;
                regions.push(r);
            }
            e.op_shaped(instr, name, &[selector], &[], &regions)
        }
        op => Err(at.error(format!("`{op}` is not a tuple or control-flow opcode"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn tuples_are_resolved_and_the_entry_returns_leaves() {
        let text = print(
            "HloModule m
ENTRY e {
  a = f32[2]{0} parameter(0)
  b = s32[] parameter(1)
  i = (s32[], f32[2]) tuple(b, a)
  t = (f32[2], (s32[], f32[2])) tuple(a, i)
  c = f32[2]{0} copy(a)
  g = (s32[], f32[2]) get-tuple-element(t), index=1
  k = pred[] constant(true)
  ROOT r = ((s32[], f32[2]), f32[2], pred[]) tuple(g, c, k)
}",
        );
        assert_eq!(
            text,
            r#"module {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<i1>) {
    %0 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "func.return"(%arg1, %arg0, %arg0, %0) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<i1>) -> ()
  }
}
"#
        );
    }

    #[test]
    fn calls_become_private_functions() {
        let text = print(
            "HloModule m
pair {
  x = f32[] parameter(0)
  y = f32[] multiply(x, x)
  ROOT t = (f32[], f32[]) tuple(x, y)
}
ENTRY main {
  a = f32[] parameter(0)
  c = (f32[], f32[]) call(a), to_apply=pair
  ROOT s = f32[] get-tuple-element(c), index=1
}",
        );
        assert_eq!(
            text,
            r#"module {
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32>) {
    %0:2 = "func.call"(%arg0) <{callee = @pair}> : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
    "func.return"(%0#1) : (tensor<f32>) -> ()
  }
  func.func private @pair(%arg0: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%arg0, %0) : (tensor<f32>, tensor<f32>) -> ()
  }
}
"#
        );
    }

    #[test]
    fn while_and_conditional() {
        let text = print(
            "HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[2] add(v, v)
  ROOT t = (s32[], f32[2]) tuple(j, w)
}
yes {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
no {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}
ENTRY e {
  z = s32[] constant(0)
  a = f32[2] parameter(0)
  p = pred[] parameter(1)
  t = (s32[], f32[2]) tuple(z, a)
  w = (s32[], f32[2]) while(t), condition=cond, body=body
  r = f32[2] get-tuple-element(w), index=1
  ROOT c = f32[2] conditional(p, r, a), true_computation=yes, false_computation=no
}",
        );
        let expected = r#"    %0 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<i32>}> : () -> tensor<i32>
    %10:2 = "stablehlo.while"(%0, %arg0) ({
    ^bb0(%1: tensor<i32>, %2: tensor<2xf32>):
      %3 = "stablehlo.constant"() <{value = dense<"0x03000000"> : tensor<i32>}> : () -> tensor<i32>
      %4 = "stablehlo.compare"(%1, %3) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%4) : (tensor<i1>) -> ()
    }, {
    ^bb0(%5: tensor<i32>, %6: tensor<2xf32>):
      %7 = "stablehlo.constant"() <{value = dense<"0x01000000"> : tensor<i32>}> : () -> tensor<i32>
      %8 = "stablehlo.add"(%5, %7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %9 = "stablehlo.add"(%6, %6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%8, %9) : (tensor<i32>, tensor<2xf32>) -> ()
    }) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
    %12 = "stablehlo.if"(%arg1) ({
      %11 = "stablehlo.negate"(%10#1) : (tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%11) : (tensor<2xf32>) -> ()
    }, {
      "stablehlo.return"(%arg0) : (tensor<2xf32>) -> ()
    }) : (tensor<i1>) -> tensor<2xf32>
    "func.return"(%12) : (tensor<2xf32>) -> ()
"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }

    #[test]
    fn a_pred_selector_over_branch_computations_is_an_if() {
        let text = print(
            "HloModule m
b0 {
  x = s8[2] parameter(0)
  ROOT n = s8[2] negate(x)
}
b1 {
  x = s8[2] parameter(0)
  ROOT c = s8[2] add(x, x)
}
ENTRY e {
  p = pred[] parameter(0)
  a = s8[2] parameter(1)
  ROOT c = s8[2] conditional(p, a, a), branch_computations={b0, b1}
}",
        );
        let expected = r#"    %2 = "stablehlo.if"(%arg0) ({
      %0 = "stablehlo.negate"(%arg1) : (tensor<2xi8>) -> tensor<2xi8>
      "stablehlo.return"(%0) : (tensor<2xi8>) -> ()
    }, {
      %1 = "stablehlo.add"(%arg1, %arg1) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
      "stablehlo.return"(%1) : (tensor<2xi8>) -> ()
    }) : (tensor<i1>) -> tensor<2xi8>
"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }

    #[test]
    fn tuple_entry_parameters_and_tokens_are_refused() {
        let e = print_err(
            "HloModule m
ENTRY e {
  p = (f32[], f32[]) parameter(0)
  ROOT g = f32[] get-tuple-element(p), index=0
}",
        );
        assert!(e.contains("%p (parameter)"), "{e}");
        assert!(e.contains("worker protocol passes arrays"), "{e}");
    }
}
