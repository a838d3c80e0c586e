//! Signatures of the standard fragments the generator and the mutator use (NNEF 1.0.5 chapter 4,
//! as declared by the Khronos tools' standard library): parameter names in order, their types,
//! which have defaults, and result names. The mutator needs them to break invocation rules
//! precisely (which parameters are tensors, which are required, where a positional argument
//! lands).

use crate::ast::{TypeName, TypeSpec};

/// One formal parameter of a standard fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// Parameter name.
    pub name: &'static str,
    /// Type as NNEF writes it (`tensor<scalar>`, `integer[]`, `(integer,integer)[]`, ...).
    pub ty: &'static str,
    /// Whether the declaration gives a default value.
    pub default: bool,
}

impl Param {
    /// The declared type as a syntax-tree type.
    pub fn type_spec(&self) -> TypeSpec {
        parse_type(self.ty)
    }

    /// Whether this is a tensor parameter (possibly an array of tensors): only those may be
    /// given positionally (seed 003 §3.3.1).
    pub fn is_tensor(&self) -> bool {
        self.ty.starts_with("tensor")
    }
}

/// Reads the table's type notation (`tensor<?>[]`, `(integer,integer)[]`, `scalar`, ...).
fn parse_type(text: &str) -> TypeSpec {
    if let Some(item) = text.strip_suffix("[]") {
        return TypeSpec::Array(Box::new(parse_type(item)));
    }
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        return TypeSpec::Tuple(inner.split(',').map(|t| parse_type(t.trim())).collect());
    }
    if let Some(inner) = text
        .strip_prefix("tensor<")
        .and_then(|t| t.strip_suffix('>'))
    {
        return TypeSpec::Tensor(if inner.is_empty() {
            None
        } else {
            Some(type_name(inner))
        });
    }
    TypeSpec::Primitive(type_name(text))
}

fn type_name(text: &str) -> TypeName {
    match text {
        "integer" => TypeName::Integer,
        "scalar" => TypeName::Scalar,
        "logical" => TypeName::Logical,
        "string" => TypeName::String,
        _ => TypeName::Generic,
    }
}

/// A standard fragment's declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// Fragment name.
    pub name: &'static str,
    /// Formal parameters in declaration order.
    pub params: &'static [Param],
    /// Result names in declaration order.
    pub results: &'static [&'static str],
}

impl Signature {
    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
    /// The index of the parameter called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }
}

/// The signature of the standard fragment `name`, if the table has it.
pub fn signature(name: &str) -> Option<&'static Signature> {
    SIGNATURES.iter().find(|s| s.name == name)
}

const fn p(name: &'static str, ty: &'static str) -> Param {
    Param {
        name,
        ty,
        default: false,
    }
}
const fn d(name: &'static str, ty: &'static str) -> Param {
    Param {
        name,
        ty,
        default: true,
    }
}

const TS: &str = "tensor<scalar>";
const TG: &str = "tensor<?>";
const UNARY: &[Param] = &[p("x", TS)];
const BINARY: &[Param] = &[p("x", TS), p("y", TS)];
const LOGICAL_BINARY: &[Param] = &[p("x", "tensor<logical>"), p("y", "tensor<logical>")];
const REDUCE: &[Param] = &[p("input", TS), p("axes", "integer[]")];
const WINDOW: &[Param] = &[
    p("input", TS),
    p("size", "integer[]"),
    d("border", "string"),
    d("padding", "(integer,integer)[]"),
    d("stride", "integer[]"),
    d("dilation", "integer[]"),
];
const NORMALIZE_AXES: &[Param] = &[
    p("input", TS),
    p("axes", "integer[]"),
    d("bias", "scalar"),
    d("epsilon", "scalar"),
];
const NORMALIZE_SIZE: &[Param] = &[
    p("input", TS),
    p("size", "integer[]"),
    d("bias", "scalar"),
    d("epsilon", "scalar"),
];
const FACTOR: &[Param] = &[p("input", TS), p("factor", "integer[]")];

macro_rules! sigs {
    ($($name:literal : $params:expr => [$($result:literal),*];)*) => {
        /// Every standard fragment the generator uses.
        pub const SIGNATURES: &[Signature] = &[
            $(Signature { name: $name, params: $params, results: &[$($result),*] },)*
        ];
    };
}

sigs! {
    "external": &[p("shape", "integer[]")] => ["output"];
    "variable": &[p("shape", "integer[]"), p("label", "string")] => ["output"];
    "constant": &[p("shape", "integer[]"), p("value", "?[]")] => ["output"];
    "copy": &[p("x", TG)] => ["y"];
    "neg": UNARY => ["y"];
    "rcp": UNARY => ["y"];
    "exp": UNARY => ["y"];
    "log": UNARY => ["y"];
    "sin": UNARY => ["y"];
    "cos": UNARY => ["y"];
    "tan": UNARY => ["y"];
    "sinh": UNARY => ["y"];
    "cosh": UNARY => ["y"];
    "tanh": UNARY => ["y"];
    "asin": UNARY => ["y"];
    "acos": UNARY => ["y"];
    "atan": UNARY => ["y"];
    "asinh": UNARY => ["y"];
    "acosh": UNARY => ["y"];
    "atanh": UNARY => ["y"];
    "abs": UNARY => ["y"];
    "sign": UNARY => ["y"];
    "floor": UNARY => ["y"];
    "ceil": UNARY => ["y"];
    "round": UNARY => ["y"];
    "sqr": UNARY => ["y"];
    "sqrt": UNARY => ["y"];
    "rsqr": UNARY => ["y"];
    "rsqrt": UNARY => ["y"];
    "log2": UNARY => ["y"];
    "relu": UNARY => ["y"];
    "sigmoid": UNARY => ["y"];
    "softplus": UNARY => ["y"];
    "gelu": UNARY => ["y"];
    "silu": UNARY => ["y"];
    "not": &[p("x", "tensor<logical>")] => ["y"];
    "elu": &[p("x", TS), d("alpha", "scalar")] => ["y"];
    "selu": &[p("x", TS), d("alpha", "scalar"), d("lambda", "scalar")] => ["y"];
    "leaky_relu": &[p("x", TS), p("alpha", "scalar")] => ["y"];
    "softabs": &[p("x", TS), p("epsilon", "scalar")] => ["y"];
    "prelu": &[p("x", TS), p("alpha", TS)] => ["y"];
    "add": BINARY => ["z"];
    "sub": BINARY => ["z"];
    "mul": BINARY => ["z"];
    "div": BINARY => ["z"];
    "pow": BINARY => ["z"];
    "min": BINARY => ["z"];
    "max": BINARY => ["z"];
    "lt": BINARY => ["z"];
    "gt": BINARY => ["z"];
    "le": BINARY => ["z"];
    "ge": BINARY => ["z"];
    "eq": BINARY => ["z"];
    "ne": BINARY => ["z"];
    "and": LOGICAL_BINARY => ["z"];
    "or": LOGICAL_BINARY => ["z"];
    "select": &[p("condition", "tensor<logical>"), p("true_value", TG), p("false_value", TG)] => ["output"];
    "clamp": &[p("x", TS), p("a", TS), p("b", TS)] => ["y"];
    "sum_reduce": &[p("input", TS), p("axes", "integer[]"), d("normalize", "logical")] => ["output"];
    "mean_reduce": REDUCE => ["output"];
    "max_reduce": REDUCE => ["output"];
    "min_reduce": REDUCE => ["output"];
    "argmax_reduce": REDUCE => ["output"];
    "argmin_reduce": REDUCE => ["output"];
    "any_reduce": &[p("input", "tensor<logical>"), p("axes", "integer[]")] => ["output"];
    "all_reduce": &[p("input", "tensor<logical>"), p("axes", "integer[]")] => ["output"];
    "moments": REDUCE => ["mean", "variance"];
    "softmax": &[p("x", TS), d("axes", "integer[]")] => ["y"];
    "l1_normalization": NORMALIZE_AXES => ["output"];
    "l2_normalization": NORMALIZE_AXES => ["output"];
    "local_response_normalization": &[
        p("input", TS), p("size", "integer[]"), d("alpha", "scalar"), d("beta", "scalar"), d("bias", "scalar"),
    ] => ["output"];
    "local_mean_normalization": &[p("input", TS), p("size", "integer[]")] => ["output"];
    "local_variance_normalization": NORMALIZE_SIZE => ["output"];
    "local_contrast_normalization": NORMALIZE_SIZE => ["output"];
    "batch_normalization": &[
        p("input", TS), p("mean", TS), p("variance", TS), p("offset", TS), p("scale", TS), p("epsilon", "scalar"),
    ] => ["output"];
    "reshape": &[p("input", TG), p("shape", "integer[]"), d("axis_start", "integer"), d("axis_count", "integer")] => ["output"];
    "transpose": &[p("input", TG), p("axes", "integer[]")] => ["output"];
    "concat": &[p("values", "tensor<?>[]"), p("axis", "integer")] => ["value"];
    "split": &[p("value", TG), p("axis", "integer"), p("ratios", "integer[]")] => ["values"];
    "slice": &[
        p("input", TG), p("axes", "integer[]"), p("begin", "integer[]"), p("end", "integer[]"), d("stride", "integer[]"),
    ] => ["output"];
    "squeeze": &[p("input", TG), p("axes", "integer[]")] => ["output"];
    "unsqueeze": &[p("input", TG), p("axes", "integer[]")] => ["output"];
    "stack": &[p("values", "tensor<?>[]"), p("axis", "integer")] => ["value"];
    "unstack": &[p("value", TG), p("axis", "integer")] => ["values"];
    "tile": &[p("input", TG), p("repeats", "integer[]")] => ["output"];
    "pad": &[p("input", TS), p("padding", "(integer,integer)[]"), d("border", "string"), d("value", "scalar")] => ["output"];
    "gather": &[p("input", TG), p("indices", "tensor<integer>"), d("axis", "integer")] => ["output"];
    "copy_n": &[p("x", TG), p("times", "integer")] => ["y"];
    "add_n": &[p("x", "tensor<scalar>[]")] => ["y"];
    "matmul": &[p("A", TS), p("B", TS), d("transposeA", "logical"), d("transposeB", "logical")] => ["C"];
    "linear": &[p("input", TS), p("filter", TS), d("bias", TS)] => ["output"];
    "conv": &[
        p("input", TS), p("filter", TS), d("bias", TS), d("border", "string"), d("padding", "(integer,integer)[]"),
        d("stride", "integer[]"), d("dilation", "integer[]"), d("groups", "integer"),
    ] => ["output"];
    "deconv": &[
        p("input", TS), p("filter", TS), d("bias", TS), d("border", "string"), d("padding", "(integer,integer)[]"),
        d("stride", "integer[]"), d("dilation", "integer[]"), d("output_shape", "integer[]"), d("groups", "integer"),
    ] => ["output"];
    "box": &[
        p("input", TS), p("size", "integer[]"), d("border", "string"), d("padding", "(integer,integer)[]"),
        d("stride", "integer[]"), d("dilation", "integer[]"), d("normalize", "logical"),
    ] => ["output"];
    "debox": &[
        p("input", TS), p("size", "integer[]"), d("border", "string"), d("padding", "(integer,integer)[]"),
        d("stride", "integer[]"), d("dilation", "integer[]"), d("output_shape", "integer[]"), d("normalize", "logical"),
    ] => ["output"];
    "argmax_pool": WINDOW => ["index"];
    "max_pool_with_index": WINDOW => ["output", "index"];
    "max_pool": WINDOW => ["output"];
    "avg_pool": WINDOW => ["output"];
    "rms_pool": WINDOW => ["output"];
    "nearest_downsample": FACTOR => ["output"];
    "area_downsample": FACTOR => ["output"];
    "nearest_upsample": FACTOR => ["output"];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_tensor_parameters_come_first() {
        for (i, s) in SIGNATURES.iter().enumerate() {
            assert!(
                SIGNATURES[..i].iter().all(|t| t.name != s.name),
                "{} twice",
                s.name
            );
            // NNEF declarations list tensor parameters before attributes.
            let first_attribute = s
                .params
                .iter()
                .position(|p| !p.is_tensor())
                .unwrap_or(s.params.len());
            assert!(
                s.params[first_attribute..].iter().all(|p| !p.is_tensor()),
                "{}: tensor parameter after an attribute",
                s.name
            );
        }
        assert_eq!(signature("conv").and_then(|s| s.index("groups")), Some(7));
        assert!(signature("no_such_op").is_none());
        let padding = signature("pad")
            .unwrap()
            .param("padding")
            .unwrap()
            .type_spec();
        let pair = TypeSpec::Tuple(vec![TypeSpec::Primitive(TypeName::Integer); 2]);
        assert_eq!(padding, TypeSpec::Array(Box::new(pair)));
        let values = signature("concat").unwrap().params[0].type_spec();
        assert_eq!(
            values,
            TypeSpec::Array(Box::new(TypeSpec::Tensor(Some(TypeName::Generic))))
        );
    }
}
