//! Cases of the computations and control-flow family (seed 004: Call, Map, Conditional, While,
//! Sort, OptimizationBarrier; XLA's topk), valid by construction, with random layouts on every
//! parameter and result:
//!
//! - `while`: a state tuple (data, an s32 counter) whose condition runs 0 to 9 trips (the trip
//!   count a parameter or a constant) and whose body is a random chain of element-wise
//!   operations over the data;
//! - `conditional`: a pred or an s32 selector (in range, negative or past the end) over 1 to 4
//!   branches, each with its own operand (an array or a tuple) and a random chain to one result
//!   shape;
//! - `map`: a random scalar computation of 1 to 3 operands (chains of element-wise operations,
//!   sometimes a comparison to pred);
//! - `sort`: 1 to 3 operands sorted along a random dimension by an LT/GT comparator, in the
//!   default or the total order, over one key or two (lexicographic), `is_stable` both ways; keys
//!   drawn from a few values so they repeat (NaN and ±0 among them when the sweep's values have
//!   them); complex and pred keys through a general comparator (real part; s32 of the pred);
//! - `topk`: random k from 0 to the last dimension, `largest` both ways, repeated values;
//! - `call`: a chain of one or two calls; `opt-barrier`: over a tuple or an array.

use super::elementwise::{Built, CaseSpec};
use super::movement::{array, boolean, int, ints, Gen};
use super::rng::Rng;
use super::values::{self, ValueHints};
use conformance_spec::catalog::Signature;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{AttrValue, Attribute, HloComputation, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// True for the family's signatures.
pub fn is_control_flow(signature: Signature) -> bool {
    matches!(
        signature,
        Signature::Call
            | Signature::Map
            | Signature::Conditional
            | Signature::While
            | Signature::Sort
            | Signature::TopK
            | Signature::OptimizationBarrier
    )
}

/// Builds one case of a control-flow entry.
///
/// Errors: not a control-flow signature, or the generator built an invalid module (a bug).
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let mut g = Gen::new(rng, spec);
    let ty = spec.element_type;
    let root = match spec.op.signature {
        Signature::While => while_loop(&mut g, ty)?,
        Signature::Conditional => conditional(&mut g, ty)?,
        Signature::Map => map(&mut g, ty)?,
        Signature::Sort => sort(&mut g, ty)?,
        Signature::TopK => topk(&mut g, ty)?,
        Signature::Call => call(&mut g, ty)?,
        Signature::OptimizationBarrier => barrier(&mut g, ty)?,
        other => return Err(format!("{other:?} is not a control-flow signature")),
    };
    g.into_built(root)
}

/// Opcodes of element-wise operations whose result has their operands' type `ty`, which the
/// catalog accepts on `ty` and which define every element of `ty` (no implementation-defined
/// corner concerning `ty`, which a loop would carry to the result unmasked): `(opcode, arity)`.
fn chain_ops(ty: ElementType) -> Vec<(Opcode, usize)> {
    use Opcode::*;
    const CANDIDATES: &[(Opcode, usize)] = &[
        (Add, 2),
        (Subtract, 2),
        (Multiply, 2),
        (Maximum, 2),
        (Minimum, 2),
        (Negate, 1),
        (And, 2),
        (Or, 2),
        (Xor, 2),
        (Not, 1),
        (Tanh, 1),
        (Exponential, 1),
        (Sine, 1),
    ];
    let Some(catalog) = conformance_spec::catalog::shared() else {
        return vec![];
    };
    CANDIDATES
        .iter()
        .copied()
        .filter(|&(op, _)| {
            catalog.ops().iter().any(|e| {
                e.opcode == op.name()
                    && e.implementation_defined.iter().all(|c| {
                        !c.element_types.is_empty()
                            && conformance_spec::catalog::resolve_element_types(&c.element_types)
                                .is_ok_and(|ts| !ts.contains(&ty))
                    })
                    && catalog.element_types(e).contains(&ty)
                    && conformance_spec::catalog::resolve_element_types(&e.element_types)
                        .is_ok_and(|ts| ts.contains(&ty))
            }) && catalog.accepts(op, &[], ty, ty)
        })
        .collect()
}

/// Appends 1 to `max` random element-wise operations to `b` over the values `inputs` (all of
/// one array shape `shape`), each taking earlier values; returns the last. Without any usable
/// operation it returns the last input.
fn chain(
    rng: &mut Rng,
    b: &mut ComputationBuilder,
    inputs: &[usize],
    ty: ElementType,
    max: usize,
) -> Result<usize, String> {
    let ops = chain_ops(ty);
    let mut values = inputs.to_vec();
    if ops.is_empty() {
        return Ok(*values.last().expect("at least one input"));
    }
    let n = rng.range_i64(1, max as i64) as usize;
    for _ in 0..n {
        let &(op, arity) = rng.pick(&ops);
        // Mostly the newest value, so the chain is deep.
        let pick = |rng: &mut Rng| {
            if rng.chance(0.6) {
                *values.last().expect("non-empty")
            } else {
                *rng.pick(&values)
            }
        };
        let v = if arity == 1 {
            let x = pick(rng);
            b.unary(op, x)
        } else {
            let (x, y) = (pick(rng), pick(rng));
            b.binary(op, x, y)
        }
        .map_err(|e| format!("{op}: {e}"))?;
        values.push(v);
    }
    Ok(*values.last().expect("non-empty"))
}

/// A called computation: `name` takes `params` and its body is built by `body` (which gets the
/// builder and the parameters' instruction indices and returns the root).
fn computation(
    name: &str,
    params: &[Shape],
    body: impl FnOnce(&mut ComputationBuilder, &[usize]) -> Result<usize, String>,
) -> Result<HloComputation, String> {
    let mut b = ComputationBuilder::new(name);
    let ps: Vec<usize> = params
        .iter()
        .map(|s| b.parameter(s.clone()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let root = body(&mut b, &ps)?;
    b.try_build(root).map_err(|e| e.to_string())
}

fn computation_attr(name: &str, callee: &str) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Computation(callee.into()),
    }
}

fn scalar(ty: ElementType) -> Shape {
    Shape::Array(ArrayShape::new(ty, vec![]))
}

/// A constant array of `dims` filled with one value drawn from the sweep's classes.
fn splat(rng: &mut Rng, spec: &CaseSpec, ty: ElementType, dims: &[i64]) -> Result<Literal, String> {
    let v = values::element(rng, ty, &ValueHints::default(), spec.values);
    let n: i64 = dims.iter().product();
    ArrayLiteral::from_bits(ArrayShape::new(ty, dims.to_vec()), &vec![v; n as usize])
        .map(Literal::Array)
        .map_err(|e| e.to_string())
}

/// `while` over the state `(data T[dims], counter s32[])`: the condition is `counter < n` (n a
/// parameter or a constant, 0 to 9), the body adds one to the counter and runs a chain over the
/// data and a constant.
fn while_loop(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let trips = g.rng.range_i64(0, 9);
    let data = g.data(ty, &dims)?;
    let state_shape = Shape::Tuple(vec![array(ty, &dims), scalar(ElementType::S32)]);
    let by_parameter = g.rng.chance(0.5);
    let zero = g.b.constant(Literal::Array(ArrayLiteral::scalar_bits(
        ElementType::S32,
        if g.rng.chance(0.2) { 0xffff_ffff } else { 0 },
    )));
    let init = g.b.tuple(&[data, zero]).map_err(|e| e.to_string())?;
    let limit_shape = scalar(ElementType::S32);
    let (state_shape, init, limit) = if by_parameter {
        // The trip count travels in the state: (data, counter, n).
        let n = g.index_param(ElementType::S32, &[], &[trips as i128])?;
        let d = g.b.get_tuple_element(init, 0).map_err(|e| e.to_string())?;
        let c = g.b.get_tuple_element(init, 1).map_err(|e| e.to_string())?;
        let init = g.b.tuple(&[d, c, n]).map_err(|e| e.to_string())?;
        let Shape::Tuple(mut parts) = state_shape else {
            unreachable_shape()?
        };
        parts.push(limit_shape);
        (Shape::Tuple(parts), init, None)
    } else {
        (state_shape, init, Some(trips))
    };
    let k = g.called.len();
    let (cond_name, body_name) = (format!("cond.{k}"), format!("body.{k}"));
    let cond = computation(&cond_name, std::slice::from_ref(&state_shape), |b, ps| {
        let c = b.get_tuple_element(ps[0], 1).map_err(|e| e.to_string())?;
        let n = match limit {
            Some(n) => b.constant(Literal::Array(ArrayLiteral::scalar_bits(
                ElementType::S32,
                n as u32 as u128,
            ))),
            None => b.get_tuple_element(ps[0], 2).map_err(|e| e.to_string())?,
        };
        b.compare(c, n, "LT", None).map_err(|e| e.to_string())
    })?;
    let constant = splat(g.rng, g.spec, ty, &dims)?;
    let rng = &mut *g.rng;
    let body = computation(&body_name, std::slice::from_ref(&state_shape), |b, ps| {
        let x = b.get_tuple_element(ps[0], 0).map_err(|e| e.to_string())?;
        let c = b.get_tuple_element(ps[0], 1).map_err(|e| e.to_string())?;
        let k = b.constant(constant);
        let x1 = chain(rng, b, &[x, k], ty, 4)?;
        let one = b.constant(Literal::Array(ArrayLiteral::scalar_bits(
            ElementType::S32,
            1,
        )));
        let c1 = b.binary(Opcode::Add, c, one).map_err(|e| e.to_string())?;
        let mut parts = vec![x1, c1];
        if limit.is_none() {
            parts.push(b.get_tuple_element(ps[0], 2).map_err(|e| e.to_string())?);
        }
        b.tuple(&parts).map_err(|e| e.to_string())
    })?;
    g.called.push(cond);
    g.called.push(body);
    let w = g.add(
        Opcode::While,
        state_shape,
        vec![init],
        vec![
            computation_attr("condition", &cond_name),
            computation_attr("body", &body_name),
        ],
    )?;
    // The root is the loop itself (a tuple), or its data.
    if g.rng.chance(0.5) {
        Ok(w)
    } else {
        g.b.get_tuple_element(w, 0).map_err(|e| e.to_string())
    }
}

fn unreachable_shape<T>() -> Result<T, String> {
    Err("the loop state is a tuple by construction".into())
}

/// `conditional` with a pred (2 branches) or an s32 index (1 to 4 branches, in range or not).
fn conditional(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let by_pred = g.rng.chance(0.35);
    let n = if by_pred {
        2
    } else {
        g.rng.range_i64(1, 4) as usize
    };
    let selector = if by_pred {
        let bit = u128::from(g.rng.chance(0.5));
        g.param_bits(ElementType::Pred, &[], &[bit])?
    } else {
        let index = if g.rng.chance(0.3) {
            if g.rng.chance(0.5) {
                -g.rng.range_i64(1, 3)
            } else {
                n as i64 + g.rng.range_i64(0, 2)
            }
        } else {
            g.rng.range_i64(0, n as i64 - 1)
        };
        g.index_param(ElementType::S32, &[], &[index as i128])?
    };
    let result = array(ty, &dims);
    let mut operands = vec![selector];
    let mut names = Vec::new();
    for b in 0..n {
        // A branch's operand: an array, or a tuple (array, s32).
        let x = g.data(ty, &dims)?;
        let (operand, shape) = if g.rng.chance(0.3) {
            let i = g.index_param(ElementType::S32, &[], &[b as i128])?;
            let t = g.b.tuple(&[x, i]).map_err(|e| e.to_string())?;
            (
                t,
                Shape::Tuple(vec![array(ty, &dims), scalar(ElementType::S32)]),
            )
        } else {
            (x, g.b.shape(x).map_err(|e| e.to_string())?.clone())
        };
        let name = format!("branch.{}.{b}", g.called.len());
        let rng = &mut *g.rng;
        let c = computation(&name, std::slice::from_ref(&shape), |bld, ps| {
            let x = match shape {
                Shape::Tuple(_) => bld.get_tuple_element(ps[0], 0).map_err(|e| e.to_string())?,
                _ => ps[0],
            };
            chain(rng, bld, &[x], ty, 3)
        })?;
        g.called.push(c);
        operands.push(operand);
        names.push(name);
    }
    let attributes = if by_pred && g.rng.chance(0.6) {
        vec![
            computation_attr("true_computation", &names[0]),
            computation_attr("false_computation", &names[1]),
        ]
    } else if by_pred {
        // JAX's form: branch_computations with a pred selector (branch 0 for true).
        vec![Attribute {
            name: "branch_computations".into(),
            value: AttrValue::Computations(names),
        }]
    } else {
        vec![Attribute {
            name: "branch_computations".into(),
            value: AttrValue::Computations(names),
        }]
    };
    g.add(Opcode::Conditional, result, operands, attributes)
}

/// `map` of a scalar computation over 1 to 3 operands of `ty`.
fn map(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let n = g.rng.range_i64(1, 3) as usize;
    let operands: Vec<usize> = (0..n)
        .map(|_| g.data(ty, &dims))
        .collect::<Result<_, _>>()?;
    let to_pred = g.rng.chance(0.2) && ty != ElementType::Pred && !ty.is_complex();
    let name = format!("mapped.{}", g.called.len());
    let params = vec![scalar(ty); n];
    let rng = &mut *g.rng;
    let f = computation(&name, &params, |b, ps| {
        let v = chain(rng, b, ps, ty, 3)?;
        if to_pred {
            let w = *rng.pick(ps);
            b.compare(v, w, "LT", None).map_err(|e| e.to_string())
        } else {
            Ok(v)
        }
    })?;
    g.called.push(f);
    let out = if to_pred { ElementType::Pred } else { ty };
    let all: Vec<i64> = (0..dims.len() as i64).collect();
    g.add(
        Opcode::Map,
        array(out, &dims),
        operands,
        vec![
            ints("dimensions", &all),
            computation_attr("to_apply", &name),
        ],
    )
}

/// Keys of `ty` for `count` positions drawn from a pool of 1 to 5 values of the sweep's classes,
/// so that they repeat.
fn repeated_bits(g: &mut Gen, ty: ElementType, count: usize) -> Vec<u128> {
    let pool_size = g.rng.range_i64(1, 5) as usize;
    let pool: Vec<u128> = (0..pool_size)
        .map(|_| values::element(g.rng, ty, &ValueHints::default(), g.spec.values))
        .collect();
    (0..count).map(|_| *g.rng.pick(&pool)).collect()
}

/// `sort` of 1 to 3 operands (keys of `ty` first) by an LT/GT comparator over one or two keys.
fn sort(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let d = g.rng.below(dims.len() as u64) as i64;
    let n_ops = g.rng.range_i64(1, 3) as usize;
    let count: i64 = dims.iter().product();
    let mut types = vec![ty];
    for _ in 1..n_ops {
        types.push(*g.rng.pick(&[ElementType::S32, ElementType::F32, ty]));
    }
    let mut operands = Vec::new();
    for &t in &types {
        let bits = if g.rng.chance(0.7) {
            repeated_bits(g, t, count as usize)
        } else {
            (0..count)
                .map(|_| values::element(g.rng, t, &ValueHints::default(), g.spec.values))
                .collect()
        };
        operands.push(g.param_bits(t, &dims, &bits)?);
    }
    // Keys: operand 0, and sometimes a second key (operand 1) breaking ties.
    let two_keys = n_ops > 1 && g.rng.chance(0.4) && orderable(types[1]);
    let direction = if g.rng.chance(0.5) { "LT" } else { "GT" };
    let total = g.rng.chance(0.5);
    let name = format!("compare.{}", g.called.len());
    let params: Vec<Shape> = types.iter().flat_map(|&t| [scalar(t), scalar(t)]).collect();
    let f = computation(&name, &params, |b, ps| {
        let less = |b: &mut ComputationBuilder, t: ElementType, x: usize, y: usize| {
            key_less(b, t, x, y, direction, total)
        };
        let first = less(b, types[0], ps[0], ps[1])?;
        if !two_keys {
            return Ok(first);
        }
        // Lexicographic: first key less, or equal first keys and second key less.
        let second = less(b, types[1], ps[2], ps[3])?;
        let swapped = less(b, types[0], ps[1], ps[0])?;
        let not_first = b.unary(Opcode::Not, first).map_err(|e| e.to_string())?;
        let not_swapped = b.unary(Opcode::Not, swapped).map_err(|e| e.to_string())?;
        let tie = b
            .binary(Opcode::And, not_first, not_swapped)
            .map_err(|e| e.to_string())?;
        let tie_less = b
            .binary(Opcode::And, tie, second)
            .map_err(|e| e.to_string())?;
        b.binary(Opcode::Or, first, tie_less)
            .map_err(|e| e.to_string())
    })?;
    g.called.push(f);
    let shape = if n_ops == 1 {
        array(ty, &dims)
    } else {
        Shape::Tuple(types.iter().map(|&t| array(t, &dims)).collect())
    };
    let mut attributes = vec![ints("dimensions", &[d])];
    if g.rng.chance(0.5) {
        attributes.push(boolean("is_stable", true));
    }
    attributes.push(computation_attr("to_apply", &name));
    // The sort is the root (a tuple of arrays with random layouts when N > 1): the order set
    // judges a sort root.
    g.add(Opcode::Sort, shape, operands, attributes)
}

/// Whether `compare` orders `t` directly (not pred, not complex).
fn orderable(t: ElementType) -> bool {
    t != ElementType::Pred && !t.is_complex()
}

/// `x < y` (or `x > y`) for scalars of `t`: a `compare` for orderable types (in the total order
/// for floats when `total`), the real parts' for complex, the s32 values' for pred.
fn key_less(
    b: &mut ComputationBuilder,
    t: ElementType,
    x: usize,
    y: usize,
    direction: &str,
    total: bool,
) -> Result<usize, String> {
    let (x, y, t) = if t.is_complex() {
        let (rx, ry) = (
            b.unary(Opcode::Real, x).map_err(|e| e.to_string())?,
            b.unary(Opcode::Real, y).map_err(|e| e.to_string())?,
        );
        (rx, ry, t.complex_component().unwrap_or(t))
    } else if t == ElementType::Pred {
        (
            b.convert(x, ElementType::S32).map_err(|e| e.to_string())?,
            b.convert(y, ElementType::S32).map_err(|e| e.to_string())?,
            ElementType::S32,
        )
    } else {
        (x, y, t)
    };
    let ty = (total && t.is_float()).then_some("TOTALORDER");
    b.compare(x, y, direction, ty).map_err(|e| e.to_string())
}

/// `topk` of random k along the last dimension, `largest` both ways, repeated values.
fn topk(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let last = *dims.last().expect("rank ≥ 1");
    let k = g.rng.range_i64(0, last);
    let count: i64 = dims.iter().product();
    let bits = if g.rng.chance(0.6) {
        repeated_bits(g, ty, count as usize)
    } else {
        (0..count)
            .map(|_| values::element(g.rng, ty, &ValueHints::default(), g.spec.values))
            .collect()
    };
    let x = g.param_bits(ty, &dims, &bits)?;
    let mut out = dims.clone();
    *out.last_mut().expect("rank ≥ 1") = k;
    let largest = g.rng.chance(0.7);
    g.add(
        Opcode::TopK,
        Shape::Tuple(vec![array(ty, &out), array(ElementType::S32, &out)]),
        vec![x],
        vec![int("k", k), boolean("largest", largest)],
    )
}

/// `call` of a computation running a chain over 1 or 2 operands; sometimes the callee calls a
/// second computation (a chain of calls).
fn call(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let n = g.rng.range_i64(1, 2) as usize;
    let operands: Vec<usize> = (0..n)
        .map(|_| g.data(ty, &dims))
        .collect::<Result<_, _>>()?;
    let params = vec![array(ty, &dims); n];
    let nested = g.rng.chance(0.4);
    let k = g.called.len();
    let inner_name = format!("inner.{k}");
    if nested {
        let rng = &mut *g.rng;
        let inner = computation(&inner_name, &params[..1], |b, ps| chain(rng, b, ps, ty, 2))?;
        g.called.push(inner);
    }
    let name = format!("callee.{k}");
    let rng = &mut *g.rng;
    let callee = computation(&name, &params, |b, ps| {
        let v = chain(rng, b, ps, ty, 3)?;
        if nested {
            let shape = b.shape(v).map_err(|e| e.to_string())?.clone();
            b.add_instruction(
                Opcode::Call,
                shape,
                vec![v],
                vec![computation_attr("to_apply", &inner_name)],
            )
            .map_err(|e| e.to_string())
        } else {
            Ok(v)
        }
    })?;
    g.called.push(callee);
    // The `fusion` entry: the same call as XLA's optimized modules write it.
    let (opcode, mut attributes) = if g.spec.op.opcode == "fusion" {
        (Opcode::Fusion, vec![computation_attr("calls", &name)])
    } else {
        (Opcode::Call, vec![computation_attr("to_apply", &name)])
    };
    if opcode == Opcode::Fusion {
        attributes.insert(
            0,
            Attribute {
                name: "kind".into(),
                value: AttrValue::Enum("kLoop".into()),
            },
        );
    }
    g.add(opcode, array(ty, &dims), operands, attributes)
}

/// `opt-barrier` over a tuple of two arrays, or over one array.
fn barrier(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    if g.rng.chance(0.3) {
        let shape = g.b.shape(x).map_err(|e| e.to_string())?.clone();
        return g.add(Opcode::OptimizationBarrier, shape, vec![x], vec![]);
    }
    let other = *g.rng.pick(&[ElementType::S32, ElementType::F32, ty]);
    let odims = g.dims(0);
    let y = g.data(other, &odims)?;
    let t = g.b.tuple(&[x, y]).map_err(|e| e.to_string())?;
    let shape = g.b.shape(t).map_err(|e| e.to_string())?.clone();
    g.add(Opcode::OptimizationBarrier, shape, vec![t], vec![])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_valid_cases() {
        let built = crate::generate::test_support::build_every_entry(
            |op| is_control_flow(op.signature),
            3,
            build,
        );
        assert!(built > 200, "{built}");
    }
}
