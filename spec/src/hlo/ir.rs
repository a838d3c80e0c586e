//! The one IR: HLO modules, computations and instructions, as HLO text writes them.
//!
//! An [`HloModule`] holds computations; one is the entry. A computation is a list of instructions
//! in definition order (every operand is defined before its use) and a root. Instructions refer to
//! their operands by index into the same computation, and to called computations (`to_apply=`,
//! `calls=`, ...) by name. Attributes are kept in text order; those the IR does not interpret
//! (`metadata={...}`, `frontend_attributes={...}`, ...) are kept verbatim so that printing is lossless.

use super::contraction_numbers::{ConvolutionDimensionNumbers, Window};
use crate::literal::Literal;
use crate::shape::Shape;

/// An HLO module (`HloModule name, attr=..., ...` followed by computations).
#[derive(Clone, Debug, PartialEq)]
pub struct HloModule {
    pub name: String,
    /// Header attributes after the name (e.g. `entry_computation_layout={...}`), kept verbatim.
    pub header_attributes: Vec<Attribute>,
    /// Computations in text order (called computations usually come first).
    pub computations: Vec<HloComputation>,
    /// Index into `computations` of the `ENTRY` computation.
    pub entry: usize,
}

/// A computation: `[ENTRY] name { instructions }` with exactly one `ROOT`.
#[derive(Clone, Debug, PartialEq)]
pub struct HloComputation {
    pub name: String,
    pub instructions: Vec<HloInstruction>,
    /// Index into `instructions` of the root.
    pub root: usize,
}

/// One instruction: `name = shape opcode(operands), attributes`.
#[derive(Clone, Debug, PartialEq)]
pub struct HloInstruction {
    pub name: String,
    pub opcode: Opcode,
    pub shape: Shape,
    /// Indices of the operands in the enclosing computation's `instructions`.
    pub operands: Vec<usize>,
    /// `parameter(N)`: the parameter number.
    pub parameter_number: Option<i64>,
    /// `constant(...)`: the value, with the instruction's shape.
    pub literal: Option<Literal>,
    pub attributes: Vec<Attribute>,
}

/// `name=value` after the operand list.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub value: AttrValue,
}

/// An attribute value. Attributes the IR interprets are parsed into their typed form; all others
/// are [`AttrValue::Raw`] (the exact source text of the value, normalized only in whitespace).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// `iota_dimension=0`, `exponent_bits=5`, `index=1`.
    Int(i64),
    /// `indices_are_sorted=true`.
    Bool(bool),
    /// `dimensions={1,0}`, `broadcast_dimensions={}`.
    Ints(Vec<i64>),
    /// An enumerator such as `direction=LT` or `type=TOTALORDER`.
    Enum(String),
    /// A called computation: `to_apply=%add`, `calls=%f`.
    Computation(String),
    /// Several called computations: `branch_computations={%a, %b}`.
    Computations(Vec<String>),
    /// A string: `custom_call_target="foo"`.
    Str(String),
    /// `slice={[0:2], [1:5:2]}`: per dimension, start (inclusive), limit (exclusive), stride.
    Slice(Vec<SliceDim>),
    /// `padding=0_0x1_2_1`: per dimension, edge padding low and high (negative: cut) and interior
    /// padding (seed 004, Pad).
    Padding(Vec<PaddingDim>),
    /// `window={size=3x3 stride=2x1 pad=1_1x0_-1 ...}` of `convolution`, `reduce-window` and
    /// `select-and-scatter` (seed 004, ConvWithGeneralPadding, ReduceWindow).
    Window(Window),
    /// `dim_labels=b01f_01io->b01f` of `convolution` (seed 004, ConvWithGeneralPadding).
    DimLabels(ConvolutionDimensionNumbers),
    /// Anything else, verbatim (`metadata={op_name="..."}`, ...).
    Raw(String),
}

/// One dimension of a `slice` attribute: elements `start, start + stride, ...` below `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceDim {
    pub start: i64,
    pub limit: i64,
    pub stride: i64,
}

/// One dimension of a `padding` attribute (XLA's `PaddingConfig`): `low` and `high` elements of
/// edge padding (negative values remove elements), `interior` elements between neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaddingDim {
    pub low: i64,
    pub high: i64,
    pub interior: i64,
}

impl HloModule {
    pub fn entry_computation(&self) -> &HloComputation {
        &self.computations[self.entry]
    }

    /// The computation with this name (with or without a leading `%`).
    pub fn computation(&self, name: &str) -> Option<&HloComputation> {
        let name = name.strip_prefix('%').unwrap_or(name);
        self.computations.iter().find(|c| c.name == name)
    }
}

impl HloComputation {
    pub fn root_instruction(&self) -> &HloInstruction {
        &self.instructions[self.root]
    }

    /// The parameter instructions, ordered by parameter number.
    pub fn parameters(&self) -> Vec<&HloInstruction> {
        let mut p: Vec<&HloInstruction> = self
            .instructions
            .iter()
            .filter(|i| i.opcode == Opcode::Parameter)
            .collect();
        p.sort_by_key(|i| i.parameter_number);
        p
    }

    /// The shapes of the parameters, by parameter number.
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters().iter().map(|i| i.shape.clone()).collect()
    }
}

impl HloInstruction {
    /// The attribute with this name.
    pub fn attribute(&self, name: &str) -> Option<&AttrValue> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    pub fn attr_int(&self, name: &str) -> Option<i64> {
        match self.attribute(name)? {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn attr_ints(&self, name: &str) -> Option<&[i64]> {
        match self.attribute(name)? {
            AttrValue::Ints(v) => Some(v),
            _ => None,
        }
    }

    pub fn attr_enum(&self, name: &str) -> Option<&str> {
        match self.attribute(name)? {
            AttrValue::Enum(v) => Some(v),
            _ => None,
        }
    }

    /// `slice={...}`.
    pub fn attr_slice(&self, name: &str) -> Option<&[SliceDim]> {
        match self.attribute(name)? {
            AttrValue::Slice(v) => Some(v),
            _ => None,
        }
    }

    /// `padding=...` of `pad`.
    pub fn attr_padding(&self, name: &str) -> Option<&[PaddingDim]> {
        match self.attribute(name)? {
            AttrValue::Padding(v) => Some(v),
            _ => None,
        }
    }

    /// `window={...}` (convolution, reduce-window, select-and-scatter).
    pub fn attr_window(&self, name: &str) -> Option<&Window> {
        match self.attribute(name)? {
            AttrValue::Window(v) => Some(v),
            _ => None,
        }
    }

    /// `dim_labels=...` of `convolution`.
    pub fn attr_dim_labels(&self, name: &str) -> Option<&ConvolutionDimensionNumbers> {
        match self.attribute(name)? {
            AttrValue::DimLabels(v) => Some(v),
            _ => None,
        }
    }

    /// A floating-point attribute (`epsilon=0.001` of the batch-norm operations), kept as its text.
    pub fn attr_f64(&self, name: &str) -> Option<f64> {
        match self.attribute(name)? {
            AttrValue::Raw(v) => v.parse().ok(),
            AttrValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    pub fn attr_bool(&self, name: &str) -> Option<bool> {
        match self.attribute(name)? {
            AttrValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// Names of every computation this instruction calls, in attribute order.
    pub fn called_computations(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for a in &self.attributes {
            match &a.value {
                AttrValue::Computation(c) => out.push(c.as_str()),
                AttrValue::Computations(cs) => out.extend(cs.iter().map(String::as_str)),
                _ => {}
            }
        }
        out
    }
}

macro_rules! opcodes {
    ($($variant:ident => $name:literal,)*) => {
        /// Every HLO opcode, named as in HLO text (cf. XLA `hlo_opcode.h`), and the CHLO
        /// operations JAX leaves in its StableHLO that HLO has no opcode for (`chlo.asin`,
        /// `chlo.erf_inv`, `chlo.lgamma`, `chlo.zeta`, ...: XLA expands them into HLO before it
        /// compiles). Our HLO text names those in HLO's style (`asin`, `erf-inv`, `lgamma`,
        /// `zeta`); XLA's HLO parser does not read them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($variant,)* }

        impl Opcode {
            /// Every opcode.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode's name in HLO text (`add`, `round-nearest-even`, ...).
            pub fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// Parses an HLO text opcode name.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name { $($name => Some(Opcode::$variant),)* _ => None }
            }
        }
    };
}

opcodes! {
    Abs => "abs",
    Acos => "acos",
    Acosh => "acosh",
    Add => "add",
    AddDependency => "add-dependency",
    AfterAll => "after-all",
    AllGather => "all-gather",
    AllGatherDone => "all-gather-done",
    AllGatherStart => "all-gather-start",
    AllReduce => "all-reduce",
    AllReduceDone => "all-reduce-done",
    AllReduceStart => "all-reduce-start",
    AllToAll => "all-to-all",
    Asin => "asin",
    Asinh => "asinh",
    And => "and",
    AsyncDone => "async-done",
    AsyncStart => "async-start",
    AsyncUpdate => "async-update",
    Atan => "atan",
    Atan2 => "atan2",
    Atanh => "atanh",
    BatchNormGrad => "batch-norm-grad",
    BatchNormInference => "batch-norm-inference",
    BatchNormTraining => "batch-norm-training",
    BesselI1e => "bessel-i1e",
    Bitcast => "bitcast",
    BitcastConvert => "bitcast-convert",
    Broadcast => "broadcast",
    Call => "call",
    Cbrt => "cbrt",
    Ceil => "ceil",
    Cholesky => "cholesky",
    Clamp => "clamp",
    CollectiveBroadcast => "collective-broadcast",
    CollectivePermute => "collective-permute",
    CollectivePermuteDone => "collective-permute-done",
    CollectivePermuteStart => "collective-permute-start",
    Compare => "compare",
    Complex => "complex",
    Concatenate => "concatenate",
    Conditional => "conditional",
    Constant => "constant",
    Convert => "convert",
    Convolution => "convolution",
    Copy => "copy",
    CopyDone => "copy-done",
    CopyStart => "copy-start",
    Cosh => "cosh",
    Cosine => "cosine",
    CountLeadingZeros => "count-leading-zeros",
    CustomCall => "custom-call",
    Digamma => "digamma",
    Divide => "divide",
    Domain => "domain",
    Dot => "dot",
    DynamicReshape => "dynamic-reshape",
    DynamicSlice => "dynamic-slice",
    DynamicUpdateSlice => "dynamic-update-slice",
    Erf => "erf",
    ErfInv => "erf-inv",
    Erfc => "erfc",
    Exponential => "exponential",
    ExponentialMinusOne => "exponential-minus-one",
    Fft => "fft",
    Floor => "floor",
    Fusion => "fusion",
    Gather => "gather",
    GetDimensionSize => "get-dimension-size",
    GetTupleElement => "get-tuple-element",
    Imag => "imag",
    Infeed => "infeed",
    Iota => "iota",
    Lgamma => "lgamma",
    IsFinite => "is-finite",
    Log => "log",
    LogPlusOne => "log-plus-one",
    Logistic => "logistic",
    Map => "map",
    Maximum => "maximum",
    Minimum => "minimum",
    Multiply => "multiply",
    Negate => "negate",
    NextAfter => "next-after",
    Not => "not",
    OptimizationBarrier => "opt-barrier",
    Or => "or",
    Outfeed => "outfeed",
    Pad => "pad",
    Parameter => "parameter",
    PartitionId => "partition-id",
    Polygamma => "polygamma",
    PopulationCount => "popcnt",
    Power => "power",
    Real => "real",
    Recv => "recv",
    RecvDone => "recv-done",
    Reduce => "reduce",
    ReducePrecision => "reduce-precision",
    ReduceScatter => "reduce-scatter",
    ReduceWindow => "reduce-window",
    Remainder => "remainder",
    ReplicaId => "replica-id",
    Reshape => "reshape",
    Reverse => "reverse",
    Rng => "rng",
    RngBitGenerator => "rng-bit-generator",
    RngGetAndUpdateState => "rng-get-and-update-state",
    RoundNearestAfz => "round-nearest-afz",
    RoundNearestEven => "round-nearest-even",
    Rsqrt => "rsqrt",
    Scatter => "scatter",
    Select => "select",
    SelectAndScatter => "select-and-scatter",
    Send => "send",
    SendDone => "send-done",
    SetDimensionSize => "set-dimension-size",
    ShiftLeft => "shift-left",
    ShiftRightArithmetic => "shift-right-arithmetic",
    ShiftRightLogical => "shift-right-logical",
    Sign => "sign",
    Sine => "sine",
    Slice => "slice",
    Sinh => "sinh",
    Sort => "sort",
    Sqrt => "sqrt",
    StochasticConvert => "stochastic-convert",
    Subtract => "subtract",
    Tan => "tan",
    Tanh => "tanh",
    TopK => "topk",
    Transpose => "transpose",
    TriangularSolve => "triangular-solve",
    Tuple => "tuple",
    While => "while",
    Xor => "xor",
    Zeta => "zeta",
}

impl Opcode {
    /// True for the CHLO functions that HLO has no opcode for (`asin`, `erf-inv`, `lgamma`,
    /// `zeta`, ...): JAX's StableHLO keeps them as `chlo.*` operations, its HLO holds their
    /// expansions into HLO instructions.
    pub fn is_chlo_function(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Acos | Acosh
                | Asin
                | Asinh
                | Atan
                | Atanh
                | BesselI1e
                | Cosh
                | Digamma
                | ErfInv
                | Erfc
                | Lgamma
                | NextAfter
                | Polygamma
                | Sinh
                | Zeta
        )
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_names_round_trip() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        assert_eq!(
            Opcode::from_name("round-nearest-afz"),
            Some(Opcode::RoundNearestAfz)
        );
        assert_eq!(Opcode::from_name("frobnicate"), None);
        assert!(Opcode::Lgamma.is_chlo_function() && !Opcode::Erf.is_chlo_function());
        assert_eq!(
            Opcode::ALL.iter().filter(|o| o.is_chlo_function()).count(),
            16
        );
    }
}
