//! Operations without regions → instructions: element-wise (seed 004: element-wise unary and
//! binary operations, Compare, Select, Clamp, ConvertElementType, BitcastConvertType,
//! ReducePrecision), data movement (BroadcastInDim, Reshape, Transpose, Slice, ConcatInDim, Pad,
//! Iota, Rev, GetDimensionSize, SetDimensionSize, DynamicSlice, DynamicUpdateSlice),
//! constants, tuples, `func.call`, `optimization_barrier` and `chlo.top_k`. The inverse of the
//! printer's `elementwise.rs`, `movement.rs`, `indexing.rs` and `control.rs`; contractions and
//! `gather` are in `contraction.rs`, operations with regions in `regions.rs`.

use super::attrs::{int_list, Attr, Type};
use super::constants::dense_literal;
use super::lower::{attr, int_attr, ints_attr, Binding, LResult, Lowering, Scope};
use super::syntax::Op;
use crate::element_type::TypeKind;
use crate::hlo::attributes::{COMPARISON_TYPES, DIRECTIONS};
use crate::hlo::ir::{AttrValue, Opcode, PaddingDim, SliceDim};
use crate::literal::Literal;
use crate::shape::Shape;

/// The opcode and operand count of an element-wise operation.
fn elementwise(name: &str) -> Option<(Opcode, usize)> {
    use Opcode::*;
    Some(match name {
        "stablehlo.abs" => (Abs, 1),
        "stablehlo.cbrt" => (Cbrt, 1),
        "stablehlo.ceil" => (Ceil, 1),
        "stablehlo.convert" => (Convert, 1),
        "stablehlo.bitcast_convert" => (BitcastConvert, 1),
        "stablehlo.count_leading_zeros" => (CountLeadingZeros, 1),
        "stablehlo.cosine" => (Cosine, 1),
        "stablehlo.exponential" => (Exponential, 1),
        "stablehlo.exponential_minus_one" => (ExponentialMinusOne, 1),
        "stablehlo.floor" => (Floor, 1),
        "stablehlo.imag" => (Imag, 1),
        "stablehlo.is_finite" => (IsFinite, 1),
        "stablehlo.log" => (Log, 1),
        "stablehlo.log_plus_one" => (LogPlusOne, 1),
        "stablehlo.logistic" => (Logistic, 1),
        "stablehlo.not" => (Not, 1),
        "stablehlo.negate" => (Negate, 1),
        "stablehlo.popcnt" => (PopulationCount, 1),
        "stablehlo.real" => (Real, 1),
        "stablehlo.round_nearest_afz" => (RoundNearestAfz, 1),
        "stablehlo.round_nearest_even" => (RoundNearestEven, 1),
        "stablehlo.rsqrt" => (Rsqrt, 1),
        "stablehlo.sign" => (Sign, 1),
        "stablehlo.sine" => (Sine, 1),
        "stablehlo.sqrt" => (Sqrt, 1),
        "stablehlo.tan" | "chlo.tan" => (Tan, 1),
        "stablehlo.tanh" => (Tanh, 1),
        "chlo.erf" => (Erf, 1),
        "chlo.acos" => (Acos, 1),
        "chlo.acosh" => (Acosh, 1),
        "chlo.asin" => (Asin, 1),
        "chlo.asinh" => (Asinh, 1),
        "chlo.atan" => (Atan, 1),
        "chlo.atanh" => (Atanh, 1),
        "chlo.bessel_i1e" => (BesselI1e, 1),
        "chlo.cosh" => (Cosh, 1),
        "chlo.digamma" => (Digamma, 1),
        "chlo.erf_inv" => (ErfInv, 1),
        "chlo.erfc" => (Erfc, 1),
        "chlo.lgamma" => (Lgamma, 1),
        "chlo.sinh" => (Sinh, 1),
        "chlo.next_after" => (NextAfter, 2),
        "chlo.polygamma" => (Polygamma, 2),
        "chlo.zeta" => (Zeta, 2),
        "stablehlo.add" => (Add, 2),
        "stablehlo.atan2" => (Atan2, 2),
        "stablehlo.complex" => (Complex, 2),
        "stablehlo.divide" => (Divide, 2),
        "stablehlo.maximum" => (Maximum, 2),
        "stablehlo.minimum" => (Minimum, 2),
        "stablehlo.multiply" => (Multiply, 2),
        "stablehlo.power" => (Power, 2),
        "stablehlo.remainder" => (Remainder, 2),
        "stablehlo.shift_left" => (ShiftLeft, 2),
        "stablehlo.shift_right_arithmetic" => (ShiftRightArithmetic, 2),
        "stablehlo.shift_right_logical" => (ShiftRightLogical, 2),
        "stablehlo.subtract" => (Subtract, 2),
        "stablehlo.and" => (And, 2),
        "stablehlo.or" => (Or, 2),
        "stablehlo.xor" => (Xor, 2),
        "stablehlo.select" => (Select, 3),
        "stablehlo.clamp" => (Clamp, 3),
        _ => return None,
    })
}

/// `add.3` for `%3 = stablehlo.add ...`: the operation's mnemonic and its first result's name.
pub(crate) fn base_name(op: &Op) -> String {
    let mnemonic = op.name.rsplit('.').next().unwrap_or(&op.name);
    match op.results.first() {
        Some((n, _)) => format!("{mnemonic}.{n}"),
        None => mnemonic.to_string(),
    }
}

/// The bindings of the `n` elements of tuple-shaped instruction `t` named `base`.
pub(crate) fn elements(t: usize, n: usize, base: &str) -> Vec<Binding> {
    (0..n)
        .map(|index| Binding::Element {
            tuple: t,
            index,
            hint: format!("{base}.{index}"),
        })
        .collect()
}

/// Lowers one operation (not a terminator) and returns its results' bindings.
///
/// Errors: an operation without a translation (named, at its position), wrong operand counts,
/// types that disagree with the operands, missing or malformed attributes, attributes without a
/// translation.
pub(crate) fn lower(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    if let Some((opcode, arity)) = elementwise(&op.name) {
        l.check_attributes(op, &[])?;
        let operands = operands_n(l, s, op, arity)?;
        return single(l, s, op, opcode, operands, Vec::new());
    }
    if let Some(lowered) = super::linalg::lower(l, s, op) {
        return lowered;
    }
    if let Some(lowered) = super::collective::lower(l, s, op) {
        return lowered;
    }
    if let Some(lowered) = super::transfer::lower(l, s, op) {
        return lowered;
    }
    match op.name.as_str() {
        "stablehlo.compare" => compare(l, s, op),
        "chlo.square" => {
            // x² rounded once is the product x·x rounded once (XLA legalizes it so); complex
            // squares are computed by another formula, which has no single HLO opcode.
            l.check_attributes(op, &[])?;
            let x = operands_n(l, s, op, 1)?[0];
            if matches!(s.shape(x), Shape::Array(ref a) if a.element_type.is_complex()) {
                return Err(l.err(
                    op.pos,
                    "`chlo.square` of a complex value has no HLO opcode in the IR",
                ));
            }
            single(l, s, op, Opcode::Multiply, vec![x, x], Vec::new())
        }
        "stablehlo.reduce_precision" => {
            l.check_attributes(op, &["exponent_bits", "mantissa_bits"])?;
            let operands = operands_n(l, s, op, 1)?;
            let attrs = vec![
                int_attr("exponent_bits", req_int(l, op, "exponent_bits")?),
                int_attr("mantissa_bits", req_int(l, op, "mantissa_bits")?),
            ];
            single(l, s, op, Opcode::ReducePrecision, operands, attrs)
        }
        "stablehlo.constant" => {
            l.check_attributes(op, &["value"])?;
            let at = op.attr_pos("value");
            let Some(Attr::Dense(d, ty)) = op.attr("value") else {
                return Err(l.err(op.pos, "`stablehlo.constant` needs a `dense<...>` value"));
            };
            let Type::Tensor(shape) = ty else {
                return Err(l.err(at, "the constant's type is not a tensor"));
            };
            let lit =
                dense_literal(d, shape).map_err(|(p, m)| l.err(if p == 0 { at } else { p }, m))?;
            let declared = l.result_shape(op, 0)?;
            l.check_shape(
                &Shape::Array(shape.clone()),
                &declared,
                op.pos,
                "the constant",
            )?;
            let i = l.constant(s, Literal::Array(lit), &base_name(op), op.pos);
            Ok(vec![Binding::Instr(i)])
        }
        "stablehlo.iota" => {
            l.check_attributes(op, &["iota_dimension"])?;
            operands_n(l, s, op, 0)?;
            let d = req_int(l, op, "iota_dimension")?;
            single(
                l,
                s,
                op,
                Opcode::Iota,
                Vec::new(),
                vec![int_attr("iota_dimension", d)],
            )
        }
        "stablehlo.broadcast_in_dim" => {
            l.check_attributes(op, &["broadcast_dimensions"])?;
            let operands = operands_n(l, s, op, 1)?;
            let d = req_ints(l, op, "broadcast_dimensions")?;
            broadcast_in_dim(l, s, op, operands[0], d)
        }
        "stablehlo.broadcast" => {
            l.check_attributes(op, &["broadcast_sizes"])?;
            let operands = operands_n(l, s, op, 1)?;
            let n = req_ints(l, op, "broadcast_sizes")?.len() as i64;
            let rank = array_rank(l, s, op, operands[0])? as i64;
            let d: Vec<i64> = (n..n + rank).collect();
            single(
                l,
                s,
                op,
                Opcode::Broadcast,
                operands,
                vec![ints_attr("dimensions", &d)],
            )
        }
        "stablehlo.reshape" => {
            l.check_attributes(op, &[])?;
            let operands = operands_n(l, s, op, 1)?;
            single(l, s, op, Opcode::Reshape, operands, Vec::new())
        }
        "stablehlo.transpose" => {
            l.check_attributes(op, &["permutation"])?;
            let operands = operands_n(l, s, op, 1)?;
            let d = req_ints(l, op, "permutation")?;
            single(
                l,
                s,
                op,
                Opcode::Transpose,
                operands,
                vec![ints_attr("dimensions", &d)],
            )
        }
        "stablehlo.reverse" => {
            l.check_attributes(op, &["dimensions"])?;
            let operands = operands_n(l, s, op, 1)?;
            let d = req_ints(l, op, "dimensions")?;
            single(
                l,
                s,
                op,
                Opcode::Reverse,
                operands,
                vec![ints_attr("dimensions", &d)],
            )
        }
        "stablehlo.slice" => {
            l.check_attributes(op, &["start_indices", "limit_indices", "strides"])?;
            let operands = operands_n(l, s, op, 1)?;
            let start = req_ints(l, op, "start_indices")?;
            let limit = req_ints(l, op, "limit_indices")?;
            let stride = match op.attr("strides") {
                Some(_) => req_ints(l, op, "strides")?,
                None => vec![1; start.len()],
            };
            if limit.len() != start.len() || stride.len() != start.len() {
                return Err(l.err(op.pos, "start, limit and stride lists of different lengths"));
            }
            let dims = (0..start.len())
                .map(|k| SliceDim {
                    start: start[k],
                    limit: limit[k],
                    stride: stride[k],
                })
                .collect();
            single(
                l,
                s,
                op,
                Opcode::Slice,
                operands,
                vec![attr("slice", AttrValue::Slice(dims))],
            )
        }
        "stablehlo.concatenate" => {
            l.check_attributes(op, &["dimension"])?;
            let operands = l.operands(s, op)?;
            let d = req_int(l, op, "dimension")?;
            single(
                l,
                s,
                op,
                Opcode::Concatenate,
                operands,
                vec![ints_attr("dimensions", &[d])],
            )
        }
        "stablehlo.pad" => {
            l.check_attributes(
                op,
                &["edge_padding_low", "edge_padding_high", "interior_padding"],
            )?;
            let operands = operands_n(l, s, op, 2)?;
            let lo = req_ints(l, op, "edge_padding_low")?;
            let hi = req_ints(l, op, "edge_padding_high")?;
            let int = req_ints(l, op, "interior_padding")?;
            if hi.len() != lo.len() || int.len() != lo.len() {
                return Err(l.err(op.pos, "padding lists of different lengths"));
            }
            let dims = (0..lo.len())
                .map(|k| PaddingDim {
                    low: lo[k],
                    high: hi[k],
                    interior: int[k],
                })
                .collect();
            single(
                l,
                s,
                op,
                Opcode::Pad,
                operands,
                vec![attr("padding", AttrValue::Padding(dims))],
            )
        }
        "stablehlo.get_dimension_size" | "stablehlo.set_dimension_size" => {
            l.check_attributes(op, &["dimension"])?;
            let (opcode, n) = if op.name.ends_with("get_dimension_size") {
                (Opcode::GetDimensionSize, 1)
            } else {
                (Opcode::SetDimensionSize, 2)
            };
            let operands = operands_n(l, s, op, n)?;
            let d = req_int(l, op, "dimension")?;
            single(
                l,
                s,
                op,
                opcode,
                operands,
                vec![ints_attr("dimensions", &[d])],
            )
        }
        "stablehlo.dynamic_slice" => {
            l.check_attributes(op, &["slice_sizes"])?;
            let operands = l.operands(s, op)?;
            let d = req_ints(l, op, "slice_sizes")?;
            single(
                l,
                s,
                op,
                Opcode::DynamicSlice,
                operands,
                vec![ints_attr("dynamic_slice_sizes", &d)],
            )
        }
        "stablehlo.dynamic_update_slice" => {
            l.check_attributes(op, &[])?;
            let operands = l.operands(s, op)?;
            single(l, s, op, Opcode::DynamicUpdateSlice, operands, Vec::new())
        }
        "stablehlo.gather" => super::contraction::gather(l, s, op),
        "stablehlo.dot_general" | "stablehlo.dot" => super::contraction::dot(l, s, op),
        "stablehlo.convolution" => super::contraction::convolution(l, s, op),
        "stablehlo.tuple" => {
            l.check_attributes(op, &[])?;
            let operands = l.operands(s, op)?;
            single(l, s, op, Opcode::Tuple, operands, Vec::new())
        }
        "stablehlo.get_tuple_element" => {
            l.check_attributes(op, &["index"])?;
            let operands = operands_n(l, s, op, 1)?;
            let k = req_int(l, op, "index")?;
            single(
                l,
                s,
                op,
                Opcode::GetTupleElement,
                operands,
                vec![int_attr("index", k)],
            )
        }
        "stablehlo.optimization_barrier" => {
            l.check_attributes(op, &[])?;
            let operands = l.operands(s, op)?;
            let base = base_name(op);
            let t = l.tuple(s, &operands, &format!("{base}.operands"), op.pos)?;
            let shape = s.shape(t);
            let b = l.add(
                s,
                Opcode::OptimizationBarrier,
                shape,
                vec![t],
                Vec::new(),
                &base,
                op.pos,
            )?;
            Ok(elements(b, operands.len(), &base))
        }
        "func.call" => {
            l.check_attributes(op, &["callee"])?;
            let Some(Attr::Symbol(sym)) = op.attr("callee") else {
                return Err(l.err(op.pos, "`func.call` needs `callee = @name`"));
            };
            let callee = l.callee(sym, op.attr_pos("callee"))?;
            let operands = l.operands(s, op)?;
            if operands.len() != callee.params.len() {
                return Err(l.err(
                    op.pos,
                    format!(
                        "`@{sym}` takes {} argument(s), the call passes {}",
                        callee.params.len(),
                        operands.len()
                    ),
                ));
            }
            for (k, (&v, p)) in operands.iter().zip(&callee.params).enumerate() {
                l.check_shape(
                    &s.shape(v),
                    p,
                    op.operands[k].pos,
                    &format!("argument {k} of `@{sym}`"),
                )?;
            }
            for (k, r) in callee.results.iter().enumerate() {
                let declared = l.result_shape(op, k)?;
                l.check_shape(r, &declared, op.pos, &format!("result {k} of `@{sym}`"))?;
            }
            let shape = match &callee.results[..] {
                [one] => one.clone(),
                many => Shape::Tuple(many.to_vec()),
            };
            let base = base_name(op);
            let attrs = vec![attr(
                "to_apply",
                AttrValue::Computation(callee.computation.clone()),
            )];
            let i = l.add(s, Opcode::Call, shape, operands, attrs, &base, op.pos)?;
            Ok(match callee.results.len() {
                1 => vec![Binding::Instr(i)],
                n => elements(i, n, &base),
            })
        }
        "chlo.top_k" => {
            l.check_attributes(op, &["k"])?;
            let operands = operands_n(l, s, op, 1)?;
            let k = req_int(l, op, "k")?;
            let shape = Shape::Tuple(vec![l.result_shape(op, 0)?, l.result_shape(op, 1)?]);
            let base = base_name(op);
            let attrs = vec![int_attr("k", k), attr("largest", AttrValue::Bool(true))];
            let i = l.add(s, Opcode::TopK, shape, operands, attrs, &base, op.pos)?;
            Ok(elements(i, 2, &base))
        }
        "stablehlo.reduce"
        | "stablehlo.reduce_window"
        | "stablehlo.select_and_scatter"
        | "stablehlo.sort"
        | "stablehlo.map"
        | "stablehlo.scatter"
        | "stablehlo.while"
        | "stablehlo.case"
        | "stablehlo.if" => super::regions::lower(l, s, op),
        name => Err(l.err(op.pos, super::lower::no_translation(name))),
    }
}

/// `broadcast_in_dim`: HLO `broadcast`, except that StableHLO also expands operand dimensions of
/// size 1 into larger result dimensions, which HLO's `broadcast` does not; such dimensions are
/// first removed by a `reshape` (what XLA's own lowering does, with the same values).
fn broadcast_in_dim(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    x: usize,
    dims: Vec<i64>,
) -> LResult<Vec<Binding>> {
    let result = match l.result_shape(op, 0)? {
        Shape::Array(a) => a,
        other => {
            return Err(l.err(
                op.pos,
                format!("`broadcast_in_dim` of a non-array type {other}"),
            ))
        }
    };
    let operand = match s.shape(x) {
        Shape::Array(a) => a,
        other => {
            return Err(l.err(
                op.pos,
                format!("`broadcast_in_dim` of a non-array operand {other}"),
            ))
        }
    };
    if dims.len() != operand.rank() {
        return Err(l.err(
            op.attr_pos("broadcast_dimensions"),
            format!(
                "{} broadcast dimensions for an operand of rank {}",
                dims.len(),
                operand.rank()
            ),
        ));
    }
    let expands = |k: usize| {
        operand.dimensions[k] == 1
            && usize::try_from(dims[k])
                .ok()
                .and_then(|d| result.dimensions.get(d))
                != Some(&1)
    };
    if !(0..dims.len()).any(expands) {
        return single(
            l,
            s,
            op,
            Opcode::Broadcast,
            vec![x],
            vec![ints_attr("dimensions", &dims)],
        );
    }
    let kept: Vec<usize> = (0..dims.len()).filter(|&k| !expands(k)).collect();
    let mut squeezed = operand.clone();
    squeezed.dimensions = kept.iter().map(|&k| operand.dimensions[k]).collect();
    squeezed.dynamic_dimensions = kept
        .iter()
        .map(|&k| operand.dynamic_dimensions[k])
        .collect();
    squeezed.layout = crate::layout::Layout::default_for_rank(kept.len());
    let base = base_name(op);
    let r = l.add(
        s,
        Opcode::Reshape,
        Shape::Array(squeezed),
        vec![x],
        Vec::new(),
        &format!("{base}.squeeze"),
        op.pos,
    )?;
    let d: Vec<i64> = kept.iter().map(|&k| dims[k]).collect();
    single(
        l,
        s,
        op,
        Opcode::Broadcast,
        vec![r],
        vec![ints_attr("dimensions", &d)],
    )
}

/// One instruction with the operation's single result type.
pub(crate) fn single(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    opcode: Opcode,
    operands: Vec<usize>,
    attrs: Vec<crate::hlo::ir::Attribute>,
) -> LResult<Vec<Binding>> {
    if op.result_types.len() != 1 {
        return Err(l.err(
            op.pos,
            format!(
                "`{}` has one result, the text types {}",
                op.name,
                op.result_types.len()
            ),
        ));
    }
    let shape = l.result_shape(op, 0)?;
    let i = l.add(s, opcode, shape, operands, attrs, &base_name(op), op.pos)?;
    Ok(vec![Binding::Instr(i)])
}

/// The operands, exactly `n` of them.
pub(crate) fn operands_n(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    n: usize,
) -> LResult<Vec<usize>> {
    if op.operands.len() != n {
        return Err(l.err(
            op.pos,
            format!(
                "`{}` takes {n} operand(s), found {}",
                op.name,
                op.operands.len()
            ),
        ));
    }
    l.operands(s, op)
}

/// The rank of array instruction `i`.
pub(crate) fn array_rank(l: &Lowering, s: &Scope, op: &Op, i: usize) -> LResult<usize> {
    match s.shape(i) {
        Shape::Array(a) => Ok(a.rank()),
        other => Err(l.err(op.pos, format!("expected an array operand, found {other}"))),
    }
}

/// An optional integer attribute.
pub(crate) fn opt_int(l: &Lowering, op: &Op, name: &str) -> LResult<Option<i64>> {
    match op.attr(name) {
        None => Ok(None),
        Some(Attr::Int(v)) => i64::try_from(*v)
            .map(Some)
            .map_err(|_| l.err(op.attr_pos(name), format!("`{name}` is out of range"))),
        Some(_) => Err(l.err(op.attr_pos(name), format!("`{name}` is not an integer"))),
    }
}

/// A required integer attribute.
pub(crate) fn req_int(l: &Lowering, op: &Op, name: &str) -> LResult<i64> {
    opt_int(l, op, name)?.ok_or_else(|| l.err(op.pos, format!("`{}` needs `{name}`", op.name)))
}

/// A required list of integers (`array<i64: ...>`, `[...]` or a dense attribute).
pub(crate) fn req_ints(l: &Lowering, op: &Op, name: &str) -> LResult<Vec<i64>> {
    let a = op
        .attr(name)
        .ok_or_else(|| l.err(op.pos, format!("`{}` needs `{name}`", op.name)))?;
    int_list(a).ok_or_else(|| {
        l.err(
            op.attr_pos(name),
            format!("`{name}` is not a list of integers"),
        )
    })
}

/// An optional boolean attribute (default `default`).
pub(crate) fn opt_bool(l: &Lowering, op: &Op, name: &str, default: bool) -> LResult<bool> {
    match op.attr(name) {
        None => Ok(default),
        Some(Attr::Bool(b)) => Ok(*b),
        Some(_) => Err(l.err(
            op.attr_pos(name),
            format!("`{name}` is not `true` or `false`"),
        )),
    }
}

/// Per dimension (low, high) pairs of `padding` (`dense<[[l, h], ...]>` or `[[l, h], ...]`), or
/// `n` zero pairs when absent.
pub(crate) fn padding_pairs(l: &Lowering, op: &Op, n: usize) -> LResult<Vec<(i64, i64)>> {
    let Some(a) = op.attr("padding") else {
        return Ok(vec![(0, 0); n]);
    };
    let flat = match a {
        Attr::List(rows) => rows
            .iter()
            .map(int_list)
            .collect::<Option<Vec<_>>>()
            .filter(|r| r.iter().all(|p| p.len() == 2))
            .map(|r| r.concat()),
        other => int_list(other),
    };
    let flat = flat.filter(|f| f.len() == 2 * n).ok_or_else(|| {
        l.err(
            op.attr_pos("padding"),
            format!("`padding` is not {n} (low, high) pairs"),
        )
    })?;
    Ok(flat.chunks(2).map(|p| (p[0], p[1])).collect())
}

/// `compare` with `direction=` and `type=` when it is not the element type's default.
fn compare(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["comparison_direction", "compare_type"])?;
    let operands = operands_n(l, s, op, 2)?;
    let direction = match op.attr("comparison_direction") {
        Some(Attr::Enum(_, d)) if DIRECTIONS.contains(&d.as_str()) => d.clone(),
        _ => {
            return Err(l.err(
                op.attr_pos("comparison_direction"),
                "expected a comparison direction (EQ, NE, GE, GT, LE, LT)",
            ))
        }
    };
    let mut attrs = vec![attr("direction", AttrValue::Enum(direction))];
    match op.attr("compare_type") {
        None => {}
        Some(Attr::Enum(_, t)) if t == "NOTYPE" => {}
        Some(Attr::Enum(_, t)) if COMPARISON_TYPES.contains(&t.as_str()) => {
            let default = match s.shape(operands[0]) {
                Shape::Array(a) => match a.element_type.kind() {
                    TypeKind::Float | TypeKind::Complex => "FLOAT",
                    TypeKind::SignedInteger => "SIGNED",
                    TypeKind::UnsignedInteger | TypeKind::Pred => "UNSIGNED",
                },
                _ => "",
            };
            if t != default {
                attrs.push(attr("type", AttrValue::Enum(t.clone())));
            }
        }
        _ => {
            return Err(l.err(
                op.attr_pos("compare_type"),
                "expected a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)",
            ))
        }
    }
    single(l, s, op, Opcode::Compare, operands, attrs)
}

/// The fields of a `#stablehlo.name<...>` attribute.
pub(crate) fn struct_fields<'o>(
    l: &Lowering,
    op: &'o Op,
    name: &str,
) -> LResult<&'o [(String, Attr)]> {
    match op.attr(name) {
        Some(Attr::Struct(_, f)) => Ok(f),
        _ => Err(l.err(
            op.attr_pos(name),
            format!("`{}` needs `{name} = #stablehlo...<...>`", op.name),
        )),
    }
}

/// Field `name` of a structured attribute as a list of integers (empty when absent).
pub(crate) fn field_ints(
    l: &Lowering,
    at: usize,
    fields: &[(String, Attr)],
    name: &str,
) -> LResult<Vec<i64>> {
    match fields.iter().find(|(k, _)| k == name) {
        None => Ok(Vec::new()),
        Some((_, v)) => {
            int_list(v).ok_or_else(|| l.err(at, format!("`{name}` is not a list of integers")))
        }
    }
}

/// Field `name` as an integer.
pub(crate) fn field_int(
    l: &Lowering,
    at: usize,
    fields: &[(String, Attr)],
    name: &str,
) -> LResult<i64> {
    match fields.iter().find(|(k, _)| k == name) {
        Some((_, Attr::Int(v))) => i64::try_from(*v).map_err(|_| l.err(at, "out of range")),
        // MLIR leaves out a zero `index_vector_dim` of `#stablehlo.gather<...>` /
        // `#stablehlo.scatter<...>` (JAX's LU pivots-to-permutation loop prints it so).
        None if name == "index_vector_dim" => Ok(0),
        _ => Err(l.err(at, format!("missing integer field `{name}`"))),
    }
}
