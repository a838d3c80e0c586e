//! The catalog's data model: what `spec/ops/*.yaml` says about each operation.
//!
//! YAML says what exists and what is checked; Rust implements the math. Names that refer to Rust
//! code (type classes, result rules, masks of implementation-defined elements) are drawn from
//! closed sets that the loader checks.

use crate::element_type::ElementType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One catalog file (`spec/ops/<family>.yaml`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyFile {
    /// Family name, e.g. `elementwise`; equal to the file stem.
    pub family: String,
    /// Where the family is specified, e.g. "seed 004".
    pub source: String,
    pub ops: Vec<OpEntry>,
}

/// One operation.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OpEntry {
    /// Catalog id, unique across the catalog: the HLO opcode, or `compare-LT`-style ids when one
    /// opcode has several catalog entries. Used by `--ops` filters and report rows.
    pub id: String,
    /// The HLO opcode (`exponential`, `compare`, ...).
    pub opcode: String,
    /// The XlaBuilder name (`Exp`, `Lt`, ...).
    pub builder: String,
    /// Section of the seed that specifies it, e.g. "seed 004, Element-wise unary functions (Exp)".
    pub source: String,
    /// One line saying what it computes.
    pub summary: String,
    /// Operand signature kind: how many operands and how their shapes relate.
    pub signature: Signature,
    /// Fixed attribute values of this entry (e.g. `direction: LT`), as HLO text writes them.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// Attributes the generator draws (e.g. `exponent_bits` of reduce-precision).
    #[serde(default)]
    pub generated_attributes: Vec<GeneratedAttribute>,
    /// Element types the operation accepts (of its first data operand): names or classes
    /// (`all`, `pred`, `integer`, `signed`, `unsigned`, `float`, `complex`, `floating`, `f8`,
    /// `fnuz`, `has-infinity`, `has-negative-zero`; see [`resolve_element_types`]).
    pub element_types: Vec<String>,
    /// How the result element type follows from the operand's.
    pub result: ResultRule,
    /// For `result: chosen` entries (`convert`, `bitcast-convert`): the element types the result
    /// may have (names or classes); every element type when absent.
    #[serde(default)]
    pub result_element_types: Vec<String>,
    /// Values the semantics fix exactly, checked by tests on every backend.
    #[serde(default)]
    pub special_values: Vec<SpecialValue>,
    /// Elements whose value the semantics leave to the implementation: the comparator masks them.
    #[serde(default)]
    pub implementation_defined: Vec<ImplementationDefined>,
    /// Accuracy budget of a backend against the exact reference.
    pub tolerance: Tolerance,
    /// The seed's worked examples (and hand-made ones), executable.
    #[serde(default)]
    pub examples: Vec<Example>,
    /// Backends that do not implement this entry, with the reason (`fast: "..."`).
    #[serde(default)]
    pub unsupported: BTreeMap<String, String>,
    /// Free text for a reader: how XlaBuilder forms lower, what XLA accepts beyond this entry, ...
    #[serde(default)]
    pub notes: Option<String>,
}

/// Operand signature of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Signature {
    /// One operand, result of the same dimensions.
    Unary,
    /// Two operands of the same shape (in HLO; XlaBuilder's scalar and `broadcast_dimensions`
    /// forms lower to a `broadcast` first).
    Binary,
    /// `select(pred, on_true, on_false)`.
    Select,
    /// `clamp(min, operand, max)`; `min`/`max` may be scalars.
    Clamp,
    /// `convert` / `bitcast-convert`: one operand, result type from the instruction's shape.
    Convert,
    // Data movement (seed 004; `spec/ops/data_movement.yaml`). The element type of an entry is
    // that of its data operand (of the result for `iota`, which has none).
    /// `broadcast` in XlaBuilder's Broadcast form: new major dimensions before the operand's.
    Broadcast,
    /// `broadcast` with any `dimensions` (BroadcastInDim).
    BroadcastInDim,
    /// `reshape` (row-major reinterpretation of the logical element order).
    Reshape,
    /// XlaBuilder's Reshape with `dimensions`: a `transpose` then a `reshape`.
    ReshapeReordering,
    /// XlaBuilder's Collapse: a `reshape` merging consecutive dimensions.
    Collapse,
    /// `transpose(operand), dimensions=permutation`.
    Transpose,
    /// `slice(operand), slice={[start:limit:stride], ...}`.
    Slice,
    /// `dynamic-slice(operand, start indices...)`, `dynamic_slice_sizes`.
    DynamicSlice,
    /// `dynamic-update-slice(operand, update, start indices...)`.
    DynamicUpdateSlice,
    /// `concatenate(operands...), dimensions={d}`.
    Concatenate,
    /// `pad(operand, padding_value), padding=...`.
    Pad,
    /// `reverse(operand), dimensions={...}`.
    Reverse,
    /// `iota(), iota_dimension=d`: no operands.
    Iota,
    /// `gather(operand, start_indices)` with full dimension numbers.
    Gather,
    /// `scatter(operand, scatter_indices, updates), to_apply=update computation`.
    Scatter,
    /// `tuple(operands...)`.
    Tuple,
    /// `get-tuple-element(tuple), index=i`.
    GetTupleElement,
    /// `get-dimension-size(operand), dimensions={d}`: an s32 scalar.
    GetDimensionSize,
    /// `set-dimension-size(operand, size), dimensions={d}`.
    SetDimensionSize,
    /// `copy(operand)`, possibly into another layout.
    Copy,
    // Contractions, reductions and windows (seed 004; `spec/ops/contractions.yaml`). The element
    // type of an entry is that of its operands.
    /// XlaBuilder's Dot: `dot` of rank-1/2 operands contracting lhs's last and rhs's first dimension.
    Dot,
    /// `dot` with any batch and contracting dimensions (DotGeneral).
    DotGeneral,
    /// `convolution` (ConvGeneralDilated): window, dim_labels, feature/batch group counts.
    Convolution,
    /// `reduce(operands..., init_values...), dimensions, to_apply`.
    Reduce,
    /// `reduce-window(operands..., init_values...), window, to_apply`.
    ReduceWindow,
    /// `select-and-scatter(operand, source, init_value), window, select, scatter`.
    SelectAndScatter,
    // Computations and control flow (seed 004; `spec/ops/control_flow.yaml`). The element type
    // of an entry is that of the first array leaf of its result (`call`, `conditional`, `while`,
    // `opt-barrier`) or of its first operand (`map`, `sort`, `topk`).
    /// `call(args...), to_apply=computation`.
    Call,
    /// `map(operands...), dimensions={0..rank-1}, to_apply=scalar computation`.
    Map,
    /// `conditional(pred, t, f), true_computation, false_computation` or
    /// `conditional(index, args...), branch_computations={...}`.
    Conditional,
    /// `while(init), condition, body`.
    While,
    /// `sort(operands...), dimensions={d}, is_stable, to_apply=comparator`.
    Sort,
    /// `topk(operand), k, largest`: a tuple of values and s32 indices.
    TopK,
    /// `opt-barrier(operand)`.
    OptimizationBarrier,
    // The numerical family (seed 004; `spec/ops/linalg.yaml`, docs/linalg-semantics.md). The
    // element type of an entry is that of its first operand.
    /// `fft(operand), fft_type, fft_length` over the 1 to 3 innermost dimensions.
    Fft,
    /// `cholesky(a), lower`: `a` is `[..., m, m]`.
    Cholesky,
    /// `triangular-solve(a, b), left_side, lower, unit_diagonal, transpose_a`.
    TriangularSolve,
    /// `batch-norm-training(operand, scale, offset), epsilon, feature_index`.
    BatchNormTraining,
    /// `batch-norm-inference(operand, scale, offset, mean, variance), epsilon, feature_index`.
    BatchNormInference,
    /// `batch-norm-grad(operand, scale, mean, variance, grad_output), epsilon, feature_index`.
    BatchNormGrad,
    /// `custom-call(operands...), custom_call_target, backend_config`: a call to a target of the
    /// registry (`conformance_spec::custom_call`); the entry's element type is that of the
    /// first operand.
    CustomCall,
    // Random numbers (seed 004; `spec/ops/random.yaml`, docs/random.md). The element type of an
    // entry is that of the generated data.
    /// `rng-bit-generator(state), algorithm`: a tuple of the new state and the data.
    RngBitGenerator,
    /// `rng(a, b), distribution`: a sample of the uniform or normal distribution.
    Rng,
    // Collectives (seed 004; `spec/ops/collective.yaml`, docs/collectives.md): cases run on
    // several devices (`conformance_spec::collective`). The element type of an entry is that of
    // its operand (u32 for the device ids).
    /// `all-reduce(operand), replica_groups, to_apply`: the group's values combined.
    AllReduce,
    /// `all-gather(operand), replica_groups, dimensions={d}`: the group's values concatenated.
    AllGather,
    /// `all-to-all(operand), replica_groups, dimensions={d}`: blocks exchanged.
    AllToAll,
    /// `collective-permute(operand), source_target_pairs`.
    CollectivePermute,
    /// `reduce-scatter(operand), replica_groups, dimensions={d}, to_apply`.
    ReduceScatter,
    /// `replica-id()` / `partition-id()`: the device's id, a u32 scalar.
    DeviceId,
    // Tokens and host transfers (seed 004; `spec/ops/host_transfer.yaml`,
    // docs/host-transfers.md). The element type of an entry is that of the data moved.
    /// `after-all(tokens...)`: a token joining its operands.
    AfterAll,
    /// `infeed(token)`: `(data, token)` from the device's infeed queue.
    Infeed,
    /// `outfeed(data, token), outfeed_shape`: a token; the data goes to the outfeed queue.
    Outfeed,
    /// `send(data, token), channel_id` with `send-done`.
    Send,
    /// `recv(token), channel_id` with `recv-done`.
    Recv,
}

impl Signature {
    /// True for the element-wise signatures (one result element per operand element position),
    /// the only ones that take `special_values`.
    pub fn is_elementwise(self) -> bool {
        matches!(
            self,
            Signature::Unary
                | Signature::Binary
                | Signature::Select
                | Signature::Clamp
                | Signature::Convert
        )
    }
}

/// How the result element type follows from the first operand's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultRule {
    /// Same element type as the operand.
    Same,
    /// PRED (compare, is-finite).
    Pred,
    /// The real component type (`real`, `imag`, `abs` of complex): c64 → f32, c128 → f64; else same.
    RealComponent,
    /// The complex type of the component (`complex`): f32 → c64, f64 → c128.
    ComplexOfComponent,
    /// Any element type, named by the instruction's shape (`convert`, `bitcast-convert`).
    Chosen,
    /// S32, whatever the operand (`get-dimension-size`).
    S32,
    /// The operand's type, or the wider type XLA accumulates it in (`dot`, `convolution`: bf16,
    /// f16 and the f8 types → f32; s8, s16 → s32; u8, u16 → u32), named by the instruction's shape.
    SameOrAccumulation,
}

/// The wider result types a contraction of `t` operands may have besides `t` itself
/// ([`ResultRule::SameOrAccumulation`]; XLA's mixed-precision dots: bf16 x bf16 -> f32,
/// s8 x s8 -> s32).
pub fn accumulation_types(t: ElementType) -> Vec<ElementType> {
    use ElementType as E;
    match t {
        E::Bf16 | E::F16 => vec![E::F32],
        _ if t.is_float() && t.bit_width() == 8 => vec![E::F32],
        E::S8 | E::S16 => vec![E::S32],
        E::U8 | E::U16 => vec![E::U32],
        _ => vec![],
    }
}

/// An attribute the generator draws from a range.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratedAttribute {
    pub name: String,
    /// Inclusive range of integer values.
    pub min: i64,
    pub max: i64,
}

/// A value the semantics fix: `op(inputs) = output` (HLO literal element syntax: `-0`, `nan`, `inf`).
///
/// One input per operand, in operand order (`select`: the predicate first; `clamp`: min, operand,
/// max). The loader checks, for every element type the value covers, that each input is exactly a
/// value of its type (`5.5` is not an f8e5m2 value) and that the output means itself there (a
/// decimal output may be the correctly rounded value; no `inf` in a format without infinities, no
/// `-0` in an FNUZ format, integers in range).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialValue {
    pub inputs: Vec<String>,
    pub output: String,
    /// Element types it applies to (classes or names) — of the first data operand, like the
    /// entry's `element_types`; all supported types when absent.
    #[serde(default)]
    pub element_types: Vec<String>,
    /// The result element type, for `result: chosen` entries (`convert`): required there.
    #[serde(default)]
    pub output_type: Option<String>,
    /// Attribute values for this case (e.g. `exponent_bits: "5"` of reduce-precision), as HLO text
    /// writes them; they complete the entry's fixed `attributes`.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    #[serde(default)]
    pub note: Option<String>,
}

/// A class of elements left to the implementation.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ImplementationDefined {
    /// Name of the mask that finds these elements (one of `catalog::masks`, checked by the loader).
    pub mask: String,
    pub description: String,
    /// Element types it concerns (classes or names); all when absent.
    #[serde(default)]
    pub element_types: Vec<String>,
}

/// How the error of a complex result element is measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComplexError {
    /// Each component in ULPs of that component's exact value (DESIGN.md).
    #[default]
    Componentwise,
    /// Each component's error in ULPs of the *larger-magnitude* component of the exact value: a
    /// normwise measure. Complex functions are computed from real ones whose rounding errors are
    /// relative to |z|, so a component much smaller than the other (the real part of
    /// rsqrt(1e-40 − 2.5i), say) carries an absolute error of a few ULPs of |z| in every
    /// implementation short of a correctly rounded one.
    Normwise,
}

/// A condition-number rule that widens an entry's budget element by element
/// ([`super::conditioning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Conditioning {
    /// Complex `power` z^w: κ = |w|·(1 + |log z|).
    ComplexPower,
    /// A real function of real operands (CHLO's `lgamma`, `digamma`, `polygamma`, `zeta`):
    /// κ = Σ_k |x_k·∂f/∂x_k| / |f|, which the exact reference evaluates per element
    /// (`conformance_reference::condition_number`).
    Function,
}

/// Accuracy budget against the exact reference.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Budget in ULPs of the result's format, keyed by the *result* element type's name or class
    /// (so `abs` of `c64` is looked up as `f32`); `default` for the rest. Complex results: per
    /// component. 0 means bit-exact (NaN matches NaN).
    pub ulp: BTreeMap<String, u64>,
    /// True when −0 and +0 are interchangeable in results (default: they differ).
    #[serde(default)]
    pub ignore_zero_sign: bool,
    /// True when the semantics fix the NaN bits of a result (sign and payload), e.g.
    /// `bitcast-convert` moves bits unchanged: NaN results are then compared bit-exactly instead of
    /// any NaN matching any NaN (DESIGN.md, Comparison).
    #[serde(default)]
    pub exact_nan_bits: bool,
    /// How complex results are measured (default: each component in ULPs of its own value).
    #[serde(default)]
    pub complex_error: ComplexError,
    /// Sums of products and reductions: the error-analysis bound replaces the ULP budget for
    /// floating-point results (the reference supplies the number of terms and Σ|terms| of each
    /// element). Integer results stay exact.
    #[serde(default)]
    pub accumulation: Option<Accumulation>,
    /// When the semantics accept a set of results rather than one (elements in any order), the
    /// rule that decides membership ([`OrderSet`]; `harness/src/oracles/order_set.rs`).
    #[serde(default)]
    pub order_set: Option<OrderSet>,
    /// Widens the budget of each element by its condition number (`2·κ` ULPs), and leaves
    /// elements whose result the working precision does not determine uncompared (the rule
    /// names its operands' meaning: complex `power`, or a real function of real operands).
    #[serde(default)]
    pub conditioning: Option<Conditioning>,
    /// The operations whose accuracy no ULP budget can state (FFT, triangular solve,
    /// Cholesky, batch norm): the error-analysis bound that replaces the ULP budget for their
    /// floating-point results, each element's ingredients computed by the exact reference
    /// ([`ErrorBound`]; `harness/src/oracles/error_bounds.rs`).
    #[serde(default)]
    pub error_bound: Option<ErrorBound>,
    /// Random numbers: how a backend's result is judged when bits need not agree
    /// ([`RandomCheck`]; `harness/src/oracles/random.rs`).
    #[serde(default)]
    pub random: Option<RandomCheck>,
    /// Why the budget is what it is.
    #[serde(default)]
    pub rationale: Option<String>,
}

/// How the results of a random-number operation are judged (`tolerance.random`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RandomCheck {
    /// `rng-bit-generator`: bit-exact (state and data) against a backend that declares the
    /// reference's bit layout (`conformance_spec::random`, [`crate::Capabilities::rng_bit_layout`]);
    /// for any other backend the state's shape and statistical tests of the data's bits
    /// (frequency of ones per bit position, and of byte values), each at a stated false-alarm
    /// rate.
    Bits,
    /// `rng` with `rng_uniform`: the support `[a, b)`, then Kolmogorov–Smirnov (floats) or χ² of
    /// the values (integers) and the serial correlation of neighbours.
    Uniform,
    /// `rng` with `rng_normal`: no NaN, then Kolmogorov–Smirnov against `Φ((x − μ)/σ)` and the
    /// serial correlation of neighbours.
    Normal,
}

/// A normwise error bound from the error analysis of an algorithm class, per result element:
/// `|got − exact| ≤ c·f(n)·u·κ·scale / (1 − c·f(n)·u·κ) + 1 ulp(exact)`, with `n`, `κ` and `scale`
/// reported by the reference (`conformance_reference::error_scales`) and `c`, `f` fixed by the
/// bound (docs/linalg-semantics.md gives the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorBound {
    /// Any FFT algorithm of the Cooley–Tukey class (radix 2, mixed radix, Bluestein through
    /// power-of-two transforms): `‖ŷ − y‖₂ ≤ c·log₂N·u·‖y‖₂` (Higham, Accuracy and Stability of
    /// Numerical Algorithms, 2nd ed., Theorem 24.2), so each element is within that of the block's
    /// `‖y‖₂`.
    Fft,
    /// Substitution or multiplication by inverted diagonal blocks (XLA's expander): the
    /// normwise backward error `c·m·u‖op(a)‖` (Higham §8.1, §14.2) turned into a forward bound by
    /// `κ∞` of the matrix solved with.
    TriangularSolve,
    /// Any Cholesky algorithm (unblocked, blocked, recursive): backward error `c·m·u‖A‖`
    /// (Higham Theorem 10.3) and the perturbation bound of the factor (Higham Theorem 10.8,
    /// after Sun 1991): `‖ΔL‖_F ≤ κ₂(A)·c·m·u·‖L‖₂`.
    Cholesky,
    /// The sums over a feature's `N` elements (means, variances in one or two passes, the
    /// gradient's sums) with the error of recursive summation (Higham §4.2), propagated to the
    /// outputs to first order, plus the element-wise roundings.
    BatchNorm,
    /// LAPACK custom calls (docs/custom-calls.md): each routine's bound from its backward error
    /// and perturbation theory, computed whole by the reference per element (the growth factor
    /// `c·f(dimensions)` in `n`, the condition number, the scale; `conformance_reference::
    /// linalg::lapack`), compared in the backend's gauge where the decomposition is not unique.
    Lapack,
}

/// A rule for operations whose semantics accept several results that differ in the order of
/// elements: the harness compares a backend's result with the member of the set nearest to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderSet {
    /// `scatter` (seed 004, Scatter: "the order in which updates are applied is
    /// non-deterministic"): each output element reached by several updates may hold the value of
    /// any order of applying them.
    ScatterUpdates,
    /// `sort` (seed 004, Sort): with `is_stable=false` the elements the comparator finds
    /// equivalent (neither less than the other) may come in any order among themselves; when the
    /// comparator is not a strict weak order on the data, any permutation of the input tuples is
    /// accepted (implementation-defined); tuples holding a NaN may stand anywhere (where NaNs go
    /// in an order is left to the implementation, as for `compare` in the total order).
    SortEquivalents,
    /// `topk`: the place of NaNs in the order is left to the implementation (as for `compare`
    /// in the total order); the elements that are not NaN must be the first of their row in
    /// order, ties to the lower index.
    TopkNanOrder,
}

/// The error bound of a floating-point sum of `n` terms (products, or reduced elements and the
/// init value), from the standard error analysis of recursive summation in any order (Higham,
/// Accuracy and Stability of Numerical Algorithms, §4.2):
/// `|got − exact| ≤ γ(n)·Σ|terms| + 1 ulp(exact)` with `γ(n) = n·u / (1 − n·u)`, `u` the unit
/// roundoff (2^−p) of the accumulation format, and the last ulp (of the result format) for the
/// final rounding into the result type. An element whose Σ|terms| exceeds the accumulation
/// format's largest finite value may overflow in some summation orders and not others: it is
/// masked (undetermined), not compared.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Accumulation {
    /// The accumulation format per *result* element type (name or class, `default` for the
    /// rest): a float type name, or `result` for the result's own format.
    pub format: BTreeMap<String, String>,
}

/// An executable example: an HLO module, its inputs and the expected output, as HLO text.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub name: String,
    /// Where it comes from ("seed 004, Clamp" or "hand-made: ...").
    pub source: String,
    /// HLO module text.
    pub hlo: String,
    /// One literal per entry parameter, e.g. `s32[3] {-1, 5, 9}`.
    pub inputs: Vec<String>,
    /// The expected result literal.
    pub expected: String,
}

/// The element type classes a catalog may name, with what each contains.
///
/// `all`; `pred`; `integer` (signed and unsigned); `signed`; `unsigned`; `float` (real
/// floating-point, including the f8 types); `complex`; `floating` (float and complex); `f8` (the
/// 8-bit float types); `fnuz` (the float types without infinities and without −0, whose only NaN
/// is the bit pattern of −0); `has-infinity` (real float types with ±inf: f16, bf16, f32, f64,
/// f8e5m2, f8e4m3, f8e3m4); `has-negative-zero` (real float types with −0: those and f8e4m3fn).
pub const TYPE_CLASSES: &[&str] = &[
    "all",
    "pred",
    "integer",
    "signed",
    "unsigned",
    "float",
    "complex",
    "floating",
    "f8",
    "fnuz",
    "has-infinity",
    "has-negative-zero",
];

/// The members of a type class (see [`TYPE_CLASSES`]), in `ElementType::ALL` order; `None` for a
/// name that is not a class.
pub fn type_class(name: &str) -> Option<Vec<ElementType>> {
    let keep =
        |p: fn(ElementType) -> bool| ElementType::ALL.into_iter().filter(|&t| p(t)).collect();
    let float_with = |p: fn(crate::element_type::FloatFormat) -> bool| -> Vec<ElementType> {
        ElementType::ALL
            .into_iter()
            .filter(|t| t.is_float() && t.float_format().is_some_and(p))
            .collect()
    };
    Some(match name {
        "all" => ElementType::ALL.to_vec(),
        "pred" => vec![ElementType::Pred],
        "integer" => keep(|t| t.is_integer()),
        "signed" => keep(|t| t.is_signed_integer()),
        "unsigned" => keep(|t| t.is_unsigned_integer()),
        "float" => keep(|t| t.is_float()),
        "complex" => keep(|t| t.is_complex()),
        "floating" => keep(|t| t.is_floating()),
        "f8" => keep(|t| t.is_float() && t.bit_width() == 8),
        "fnuz" => float_with(|f| !f.has_infinity() && !f.has_negative_zero()),
        "has-infinity" => float_with(|f| f.has_infinity()),
        "has-negative-zero" => float_with(|f| f.has_negative_zero()),
        _ => return None,
    })
}

/// Resolves a list of element type names and classes into element types, in `ElementType::ALL` order.
///
/// Errors: the name of the first entry that is neither a type nor a class.
pub fn resolve_element_types(names: &[String]) -> Result<Vec<ElementType>, String> {
    let mut out = Vec::new();
    for name in names {
        let class = match type_class(name) {
            Some(members) => members,
            None => vec![ElementType::from_hlo_name(name).ok_or_else(|| name.to_string())?],
        };
        for t in class {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out.sort();
    Ok(out)
}

impl Tolerance {
    /// The ULP budget for a result element type: its own entry, else that of the most specific
    /// class containing it (fewest members; `f8` before `float` before `all`, ties by name), else
    /// `default`, else 0.
    pub fn ulp_for(&self, ty: ElementType) -> u64 {
        lookup_by_type(&self.ulp, ty).copied().unwrap_or(0)
    }
}

/// The value for `ty` in a map keyed by element type names and classes: its own entry, else that
/// of the most specific class containing it (fewest members; `f8` before `float` before `all`,
/// ties by name), else `default`.
fn lookup_by_type<T>(map: &BTreeMap<String, T>, ty: ElementType) -> Option<&T> {
    if let Some(v) = map.get(ty.hlo_name()) {
        return Some(v);
    }
    let mut best: Option<(usize, &T)> = None;
    for (class, v) in map {
        if class == "default" {
            continue;
        }
        if let Some(members) = type_class(class) {
            if members.contains(&ty) && best.is_none_or(|(n, _)| members.len() < n) {
                best = Some((members.len(), v));
            }
        }
    }
    best.map(|(_, v)| v).or_else(|| map.get("default"))
}

impl Accumulation {
    /// The accumulation type for a result of type `ty` (see [`Accumulation::format`]): the named
    /// float type, or `ty` itself for `result` or no entry; `None` for a name that is not a type
    /// (the loader rejects those).
    pub fn type_for(&self, ty: ElementType) -> Option<ElementType> {
        match lookup_by_type(&self.format, ty).map(String::as_str) {
            None | Some("result") => Some(ty),
            Some(name) => ElementType::from_hlo_name(name),
        }
    }
}

impl OpEntry {
    /// The entry's HLO opcode, or `None` if `opcode` names none (the loader rejects such entries).
    pub fn hlo_opcode(&self) -> Option<crate::hlo::Opcode> {
        crate::hlo::Opcode::from_name(&self.opcode)
    }
}

/// The element type that selects and names the catalog entry of an instruction (the "element
/// type of the case"): the first array leaf of the result for instructions that pass values
/// through computations (`call`, `conditional`, `while`, `opt-barrier`; the selector of a
/// conditional is not its data) and for `get-tuple-element` (the element it extracts), the `on_true` operand's for `select`, the first operand's (first
/// array leaf) for every other instruction, and the result's for an instruction without operands
/// (`iota`, `constant`). `None` when there is no array to take it from (a token, an empty tuple).
pub fn entry_element_type(
    opcode: crate::hlo::Opcode,
    operand_shapes: &[&crate::shape::Shape],
    result: &crate::shape::Shape,
) -> Option<ElementType> {
    use crate::hlo::Opcode;
    let first_leaf = |s: &crate::shape::Shape| s.array_leaves().first().map(|a| a.element_type);
    match opcode {
        Opcode::Call
        | Opcode::Fusion
        | Opcode::Conditional
        | Opcode::While
        | Opcode::OptimizationBarrier
        | Opcode::GetTupleElement
        // The data received (the token and context id follow it).
        | Opcode::Infeed
        | Opcode::Recv
        | Opcode::RecvDone => first_leaf(result),
        // Tokens only.
        Opcode::AfterAll => None,
        Opcode::Select => operand_shapes.get(1).and_then(|s| first_leaf(s)),
        // The generated data, not the u64 state.
        Opcode::RngBitGenerator => result
            .tuple_shapes()
            .and_then(|t| t.get(1))
            .and_then(&first_leaf),
        _ => match operand_shapes.first() {
            Some(s) => first_leaf(s),
            None => first_leaf(result),
        },
    }
}
