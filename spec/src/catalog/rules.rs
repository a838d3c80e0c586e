//! What the catalog requires of the entries of each opcode: the operand signatures and result
//! rules they may have, the attributes they may fix, and the structural form each data-movement
//! signature gives its examples' root (e.g. XlaBuilder's Broadcast is a `broadcast` whose operand
//! dimensions are the result's minor ones).
//!
//! The validator (`validate`) reads these tables; a family adds its table here.

use super::model::{ResultRule, Signature};
use crate::element_type::ElementType;
use crate::hlo::{HloComputation, HloInstruction, Opcode};

/// The rules for the entries of one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpcodeRules {
    /// The signatures its entries may have (several when XlaBuilder forms share the opcode, e.g.
    /// `reshape`: Reshape, Reshape with dimensions, Collapse).
    pub signatures: &'static [Signature],
    /// The result rules its entries may have.
    pub results: &'static [ResultRule],
    /// The attributes its entries may fix (`attributes:` / `generated_attributes:`).
    pub attributes: &'static [&'static str],
}

const SAME: &[ResultRule] = &[ResultRule::Same];

const fn rules(
    signatures: &'static [Signature],
    results: &'static [ResultRule],
    attributes: &'static [&'static str],
) -> OpcodeRules {
    OpcodeRules {
        signatures,
        results,
        attributes,
    }
}

/// The rules for `opcode`, or `None` for an opcode no family table covers yet (such entries are
/// not checked against an opcode table).
pub(crate) fn opcode_rules(opcode: Opcode) -> Option<OpcodeRules> {
    elementwise_rules(opcode)
        .or_else(|| data_movement_rules(opcode))
        .or_else(|| contraction_rules(opcode))
        .or_else(|| control_flow_rules(opcode))
        .or_else(|| linalg_rules(opcode))
        .or_else(|| random_rules(opcode))
        .or_else(|| collective_rules(opcode))
        .or_else(|| host_transfer_rules(opcode))
}

/// Tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv; XLA's Outfeed).
fn host_transfer_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Signature as S;
    const CHANNEL: &[&str] = &["channel_id", "is_host_transfer", "frontend_attributes"];
    match opcode {
        Opcode::AfterAll => Some(rules(&[S::AfterAll], SAME, &[])),
        Opcode::Infeed => Some(rules(&[S::Infeed], SAME, &["infeed_config"])),
        Opcode::Outfeed => Some(rules(
            &[S::Outfeed],
            SAME,
            &["outfeed_shape", "outfeed_config"],
        )),
        Opcode::Send => Some(rules(&[S::Send], SAME, CHANNEL)),
        Opcode::Recv => Some(rules(&[S::Recv], SAME, CHANNEL)),
        _ => None,
    }
}

/// Collectives over several devices (seed 004: AllReduce, CrossReplicaSum, AllGather,
/// AllToAll, CollectivePermute, ReduceScatter, ReplicaId).
fn collective_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Signature as S;
    const GROUPS: &[&str] = &["replica_groups", "channel_id", "use_global_device_ids"];
    match opcode {
        Opcode::AllReduce => Some(rules(&[S::AllReduce], SAME, GROUPS)),
        Opcode::AllGather => Some(rules(&[S::AllGather], SAME, GROUPS)),
        Opcode::AllToAll => Some(rules(&[S::AllToAll], SAME, GROUPS)),
        Opcode::ReduceScatter => Some(rules(&[S::ReduceScatter], SAME, GROUPS)),
        Opcode::CollectivePermute => Some(rules(
            &[S::CollectivePermute],
            SAME,
            &["source_target_pairs", "channel_id"],
        )),
        Opcode::ReplicaId | Opcode::PartitionId => Some(rules(&[S::DeviceId], SAME, &[])),
        _ => None,
    }
}

/// Random numbers (seed 004: RngBitGenerator, RngUniform, RngNormal).
fn random_rules(opcode: Opcode) -> Option<OpcodeRules> {
    match opcode {
        Opcode::RngBitGenerator => Some(rules(&[Signature::RngBitGenerator], SAME, &["algorithm"])),
        Opcode::Rng => Some(rules(&[Signature::Rng], SAME, &["distribution"])),
        _ => None,
    }
}

/// The numerical family (seed 004: Fft; Cholesky; TriangularSolve; BatchNormTraining;
/// BatchNormInference; BatchNormGrad).
fn linalg_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Opcode::*;
    use ResultRule as R;
    use Signature as S;
    const BATCH_NORM: &[&str] = &["epsilon", "feature_index"];
    Some(match opcode {
        Fft => rules(
            &[S::Fft],
            &[R::Same, R::ComplexOfComponent, R::RealComponent],
            &["fft_type", "fft_length"],
        ),
        Cholesky => rules(&[S::Cholesky], SAME, &["lower"]),
        TriangularSolve => rules(
            &[S::TriangularSolve],
            SAME,
            &["left_side", "lower", "unit_diagonal", "transpose_a"],
        ),
        BatchNormTraining => rules(&[S::BatchNormTraining], SAME, BATCH_NORM),
        BatchNormInference => rules(&[S::BatchNormInference], SAME, BATCH_NORM),
        BatchNormGrad => rules(&[S::BatchNormGrad], SAME, BATCH_NORM),
        CustomCall => rules(
            &[S::CustomCall],
            SAME,
            &[
                crate::custom_call::ROUTINE_ATTRIBUTE,
                "custom_call_target",
                "backend_config",
            ],
        ),
        _ => return None,
    })
}

/// Computations and control flow (seed 004: Call; Map; Conditional; While; Sort;
/// OptimizationBarrier; and XLA's `topk`).
fn control_flow_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Opcode::*;
    use Signature as S;
    Some(match opcode {
        Call | Fusion => rules(&[S::Call], SAME, &[]),
        Map => rules(&[S::Map], &[ResultRule::Chosen], &[]),
        Conditional => rules(&[S::Conditional], SAME, &[]),
        While => rules(&[S::While], SAME, &[]),
        Sort => rules(&[S::Sort], SAME, &["is_stable"]),
        TopK => rules(&[S::TopK], SAME, &["largest"]),
        OptimizationBarrier => rules(&[S::OptimizationBarrier], SAME, &[]),
        _ => return None,
    })
}

/// Contractions, reductions and windows (seed 004: Dot; DotGeneral; Conv/ConvWithGeneralPadding;
/// Reduce; ReduceWindow; SelectAndScatter).
fn contraction_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Opcode::*;
    use ResultRule as R;
    use Signature as S;
    const WIDENING: &[ResultRule] = &[R::SameOrAccumulation];
    Some(match opcode {
        Dot => rules(
            &[S::Dot, S::DotGeneral],
            WIDENING,
            &[
                "lhs_batch_dims",
                "rhs_batch_dims",
                "lhs_contracting_dims",
                "rhs_contracting_dims",
                "operand_precision",
            ],
        ),
        Convolution => rules(
            &[S::Convolution],
            WIDENING,
            &[
                "window",
                "dim_labels",
                "feature_group_count",
                "batch_group_count",
                "operand_precision",
            ],
        ),
        Reduce => rules(&[S::Reduce], SAME, &["dimensions"]),
        ReduceWindow => rules(&[S::ReduceWindow], SAME, &["window"]),
        SelectAndScatter => rules(&[S::SelectAndScatter], SAME, &["window"]),
        _ => return None,
    })
}

/// The opcodes whose rules admit `signature`, in `Opcode::ALL` order.
pub(crate) fn opcodes_with_signature(signature: Signature) -> Vec<Opcode> {
    Opcode::ALL
        .iter()
        .copied()
        .filter(|&o| opcode_rules(o).is_some_and(|r| r.signatures.contains(&signature)))
        .collect()
}

/// Element-wise opcodes (seed 004, Element-wise unary functions; Element-wise binary arithmetic
/// operations; Element-wise comparison operations; Select; Clamp; ConvertElementType;
/// BitcastConvertType; ReducePrecision).
fn elementwise_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Opcode::*;
    use ResultRule as R;
    use Signature as S;
    const UNARY: &[Signature] = &[S::Unary];
    const BINARY: &[Signature] = &[S::Binary];
    Some(match opcode {
        Cbrt | Ceil | CountLeadingZeros | Cosine | Erf | Exponential | ExponentialMinusOne
        | Floor | Log | LogPlusOne | Logistic | Negate | Not | PopulationCount
        | RoundNearestAfz | RoundNearestEven | Rsqrt | Sign | Sine | Sqrt | Tan | Tanh | Acos
        | Acosh | Asin | Asinh | Atan | Atanh | BesselI1e | Cosh | Digamma | ErfInv | Erfc
        | Lgamma | Sinh => rules(UNARY, SAME, &[]),
        Abs => rules(UNARY, &[R::Same, R::RealComponent], &[]),
        Real | Imag => rules(UNARY, &[R::RealComponent], &[]),
        IsFinite => rules(UNARY, &[R::Pred], &[]),
        ReducePrecision => rules(UNARY, SAME, &["exponent_bits", "mantissa_bits"]),
        Add | Subtract | Multiply | Divide | Power | Remainder | Maximum | Minimum | And | Or
        | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Atan2 | NextAfter
        | Polygamma | Zeta => rules(BINARY, SAME, &[]),
        Complex => rules(BINARY, &[R::ComplexOfComponent], &[]),
        Compare => rules(BINARY, &[R::Pred], &["direction", "type"]),
        Select => rules(&[S::Select], SAME, &[]),
        Clamp => rules(&[S::Clamp], SAME, &[]),
        Convert | BitcastConvert => rules(&[S::Convert], &[R::Chosen], &[]),
        _ => return None,
    })
}

/// Data-movement opcodes (seed 004: Broadcast, BroadcastInDim, Reshape, Collapse, Transpose,
/// Slice, DynamicSlice, DynamicUpdateSlice, Concatenate, Pad, Rev, Iota, Gather, Scatter, Tuple,
/// GetTupleElement, GetDimensionSize, SetDimensionSize; and `copy`). The attributes are those of
/// the HLO text forms; entries fix none of them today (they are drawn per case), but an entry
/// that does may fix only these.
fn data_movement_rules(opcode: Opcode) -> Option<OpcodeRules> {
    use Opcode::*;
    use Signature as S;
    Some(match opcode {
        Broadcast => rules(&[S::Broadcast, S::BroadcastInDim], SAME, &["dimensions"]),
        Reshape => rules(&[S::Reshape, S::ReshapeReordering, S::Collapse], SAME, &[]),
        Bitcast => rules(&[S::Reshape], SAME, &[]),
        Transpose => rules(&[S::Transpose], SAME, &["dimensions"]),
        Slice => rules(&[S::Slice], SAME, &["slice"]),
        DynamicSlice => rules(&[S::DynamicSlice], SAME, &["dynamic_slice_sizes"]),
        DynamicUpdateSlice => rules(&[S::DynamicUpdateSlice], SAME, &[]),
        Concatenate => rules(&[S::Concatenate], SAME, &["dimensions"]),
        Pad => rules(&[S::Pad], SAME, &["padding"]),
        Reverse => rules(&[S::Reverse], SAME, &["dimensions"]),
        Iota => rules(&[S::Iota], SAME, &["iota_dimension"]),
        Gather => rules(
            &[S::Gather],
            SAME,
            &[
                "offset_dims",
                "collapsed_slice_dims",
                "start_index_map",
                "index_vector_dim",
                "slice_sizes",
                "indices_are_sorted",
                "operand_batching_dims",
                "start_indices_batching_dims",
            ],
        ),
        Scatter => rules(
            &[S::Scatter],
            SAME,
            &[
                "update_window_dims",
                "inserted_window_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
                "indices_are_sorted",
                "unique_indices",
                "input_batching_dims",
                "scatter_indices_batching_dims",
            ],
        ),
        Tuple => rules(&[S::Tuple], SAME, &[]),
        GetTupleElement => rules(&[S::GetTupleElement], SAME, &["index"]),
        GetDimensionSize => rules(&[S::GetDimensionSize], &[ResultRule::S32], &["dimensions"]),
        SetDimensionSize => rules(&[S::SetDimensionSize], SAME, &["dimensions"]),
        Copy => rules(&[S::Copy], SAME, &[]),
        _ => return None,
    })
}

fn array_dims(instr: &HloInstruction) -> Option<&[i64]> {
    instr.shape.as_array().map(|a| a.dimensions.as_slice())
}

/// Problems with the form of an example whose entry has `signature`, given its entry computation
/// (already parsed and verified) and the element types the entry accepts. Checks what the
/// signature says beyond the opcode:
///
/// - `broadcast` (XlaBuilder Broadcast): `dimensions={n, ..., n+rank-1}`, the operand's
///   dimensions are the result's minor ones;
/// - `reshape-reordering`: the reshape's operand is a `transpose` (seed 004, Reshape with
///   dimensions);
/// - `collapse`: the result merges one run of consecutive operand dimensions into their product
///   (seed 004, Collapse);
/// - `iota`: no operands, and the result's element type is one the entry accepts (the entry's
///   element type is the result's);
/// - `scatter`: a `to_apply` computation;
/// - `get-dimension-size`: an `s32[]` result.
///
/// Element-wise signatures have no further form. Returns one message per problem.
pub(crate) fn example_form_problems(
    signature: Signature,
    entry: &HloComputation,
    accepted: &[ElementType],
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(root) = entry.instructions.get(entry.root) else {
        return out;
    };
    let operand = |k: usize| {
        root.operands
            .get(k)
            .and_then(|&i| entry.instructions.get(i))
    };
    match signature {
        Signature::Broadcast => {
            let (Some(x), Some(out_dims)) = (operand(0).and_then(array_dims), array_dims(root))
            else {
                return out;
            };
            let n = out_dims.len().saturating_sub(x.len()) as i64;
            let expected: Vec<i64> = (n..out_dims.len() as i64).collect();
            if root.attr_ints("dimensions") != Some(expected.as_slice()) {
                out.push(format!(
                    "XlaBuilder Broadcast adds major dimensions: the root's `dimensions` must be {{{}}} (the operand's dimensions are the result's minor ones); use `broadcast-in-dim` for other mappings",
                    expected
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                ));
            }
        }
        Signature::ReshapeReordering
            if operand(0).is_none_or(|x| x.opcode != Opcode::Transpose) =>
        {
            out.push(
                "Reshape with dimensions lowers to a transpose then a reshape: the root reshape's operand must be a `transpose`"
                    .into(),
            );
        }
        Signature::Collapse => {
            if let (Some(x), Some(y)) = (operand(0).and_then(array_dims), array_dims(root)) {
                if !is_collapse(x, y) {
                    out.push(format!(
                        "Collapse merges one run of consecutive dimensions: {y:?} is not {x:?} with consecutive dimensions replaced by their product"
                    ));
                }
            }
        }
        Signature::Iota => {
            if !root.operands.is_empty() {
                out.push("iota takes no operands".into());
            }
            if let Some(t) = root.shape.as_array().map(|a| a.element_type) {
                if !accepted.contains(&t) {
                    out.push(format!(
                        "result element type {t} is not in the entry's element_types (an iota entry's type is its result's)"
                    ));
                }
            }
        }
        Signature::Scatter if root.attribute("to_apply").is_none() => {
            out.push("scatter needs an update computation `to_apply=`".into());
        }
        Signature::GetDimensionSize => {
            let is_s32_scalar = root
                .shape
                .as_array()
                .is_some_and(|a| a.element_type == ElementType::S32 && a.dimensions.is_empty());
            if !is_s32_scalar {
                out.push(format!(
                    "get-dimension-size gives an s32[] scalar, the root is `{}`",
                    root.shape
                ));
            }
        }
        _ => {}
    }
    out
}

/// Whether `to` is `from` with one run `from[i..=j]` (j >= i) replaced by its product.
fn is_collapse(from: &[i64], to: &[i64]) -> bool {
    if to.is_empty() || to.len() > from.len() {
        return false;
    }
    let run = from.len() - to.len() + 1;
    (0..to.len()).any(|i| {
        from[..i] == to[..i]
            && from[i + run..] == to[i + 1..]
            && from[i..i + run]
                .iter()
                .try_fold(1i64, |acc, &d| acc.checked_mul(d))
                == Some(to[i])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_module;

    #[test]
    fn every_signature_has_an_opcode_and_tables_are_disjoint() {
        use Signature::*;
        for s in [
            Unary,
            Binary,
            Select,
            Clamp,
            Convert,
            Broadcast,
            BroadcastInDim,
            Reshape,
            ReshapeReordering,
            Collapse,
            Transpose,
            Slice,
            DynamicSlice,
            DynamicUpdateSlice,
            Concatenate,
            Pad,
            Reverse,
            Iota,
            Gather,
            Scatter,
            Tuple,
            GetTupleElement,
            GetDimensionSize,
            SetDimensionSize,
            Copy,
            Call,
            Map,
            Conditional,
            While,
            Sort,
            TopK,
            OptimizationBarrier,
            Fft,
            Cholesky,
            TriangularSolve,
            BatchNormTraining,
            BatchNormInference,
            BatchNormGrad,
            CustomCall,
            RngBitGenerator,
            Rng,
            AllReduce,
            AllGather,
            AllToAll,
            CollectivePermute,
            ReduceScatter,
            DeviceId,
            AfterAll,
            Infeed,
            Outfeed,
            Send,
            Recv,
        ] {
            let ops = opcodes_with_signature(s);
            assert!(!ops.is_empty(), "{s:?}");
            // A signature is element-wise exactly when its opcodes are in the element-wise table.
            for o in ops {
                assert_eq!(
                    elementwise_rules(o).is_some(),
                    s.is_elementwise(),
                    "{s:?} {o}"
                );
            }
        }
        for &o in Opcode::ALL {
            assert!(
                elementwise_rules(o).is_none() || data_movement_rules(o).is_none(),
                "{o} is in two tables"
            );
        }
        assert_eq!(
            opcodes_with_signature(Signature::Collapse),
            vec![Opcode::Reshape]
        );
        assert_eq!(
            opcode_rules(Opcode::GetDimensionSize).map(|r| r.results),
            Some(&[ResultRule::S32][..])
        );
        assert!(opcode_rules(Opcode::Dot).is_some());
        assert!(opcode_rules(Opcode::AllReduce).is_some());
        assert!(opcode_rules(Opcode::Send).is_some());
        assert!(opcode_rules(Opcode::SendDone).is_none());
    }

    #[test]
    fn collapse_runs() {
        assert!(is_collapse(&[4, 2, 3], &[24]));
        assert!(is_collapse(&[4, 2, 3], &[8, 3]));
        assert!(is_collapse(&[4, 2, 3], &[4, 6]));
        assert!(is_collapse(&[4, 2, 3], &[4, 2, 3]));
        assert!(!is_collapse(&[4, 2, 3], &[6, 4]));
        assert!(!is_collapse(&[4, 2, 3], &[3, 8]));
        assert!(!is_collapse(&[4, 2, 3], &[2, 12]));
        assert!(!is_collapse(&[1, 1], &[]));
        assert!(!is_collapse(&[2], &[1, 2]));
    }

    fn problems(signature: Signature, hlo: &str) -> Vec<String> {
        let m = parse_module(hlo).expect("parses");
        example_form_problems(signature, m.entry_computation(), &ElementType::ALL)
    }

    #[test]
    fn broadcast_form_needs_minor_operand_dimensions() {
        let hlo = |dims: &str| {
            format!("HloModule m\nENTRY e {{\n  x = f32[3]{{0}} parameter(0)\n  ROOT r = f32[3,3]{{1,0}} broadcast(x), dimensions={{{dims}}}\n}}\n")
        };
        assert!(problems(Signature::Broadcast, &hlo("1")).is_empty());
        let p = problems(Signature::Broadcast, &hlo("0"));
        assert!(p.len() == 1 && p[0].contains("{1}"), "{p:?}");
        assert!(problems(Signature::BroadcastInDim, &hlo("0")).is_empty());
    }

    #[test]
    fn reshape_forms() {
        let plain = "HloModule m\nENTRY e {\n  x = f32[2,3]{1,0} parameter(0)\n  ROOT r = f32[3,2]{1,0} reshape(x)\n}\n";
        assert!(problems(Signature::Reshape, plain).is_empty());
        assert_eq!(problems(Signature::ReshapeReordering, plain).len(), 1);
        assert_eq!(problems(Signature::Collapse, plain).len(), 1);
        let reordered = "HloModule m\nENTRY e {\n  x = f32[2,3]{1,0} parameter(0)\n  t = f32[3,2]{1,0} transpose(x), dimensions={1,0}\n  ROOT r = f32[6]{0} reshape(t)\n}\n";
        assert!(problems(Signature::ReshapeReordering, reordered).is_empty());
        assert!(problems(Signature::Collapse, reordered).is_empty());
    }

    #[test]
    fn iota_and_get_dimension_size_forms() {
        let iota = "HloModule m\nENTRY e {\n  ROOT r = pred[2]{0} iota(), iota_dimension=0\n}\n";
        let m = parse_module(iota).unwrap();
        let p = example_form_problems(Signature::Iota, m.entry_computation(), &[ElementType::S32]);
        assert!(p.len() == 1 && p[0].contains("pred"), "{p:?}");
        let gds = "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT r = s64[] get-dimension-size(x), dimensions={0}\n}\n";
        let p = problems(Signature::GetDimensionSize, gds);
        assert!(p.len() == 1 && p[0].contains("s32[]"), "{p:?}");
    }
}
