//! The semantic rules of seed 003 §3.3 (NNEF chapter 3, "Semantics") that [`super::mutate`]
//! breaks, one at a time. Each variant quotes its rule (translated from the seed's Chinese).

/// One semantic rule of seed 003 §3.3 (or an argument-validity rule of NNEF 1.0.5 chapter 4 that
/// §3.3.1 "Argument validity" and §3.3.4 delegate to each operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// §3.3.1 Declarations: "Every fragment declaration must have a unique name. Fragments are
    /// identified by their name alone."
    DuplicateFragmentName,
    /// §3.3.1 Declarations: "Formal parameter names and result names must be unique within a
    /// declaration, that is, a valid declaration cannot contain several formal parameters or
    /// results with the same name." (two parameters)
    DuplicateParameterName,
    /// §3.3.1 Declarations: the same rule, broken by two results with the same name.
    DuplicateResultName,
    /// §3.3.1 Declarations: "The type of a default value expression must match the type of the
    /// formal parameter."
    DefaultTypeMismatch,
    /// §3.3.1 Invocations: "The operation name in an invocation must correspond to a declared
    /// operation."
    UndeclaredOperation,
    /// §3.3.1 Invocations: "An invocation must not have more arguments than the number of
    /// formal parameters in the declaration."
    TooManyArguments,
    /// §3.3.1 Invocations: "Every formal parameter that has no default value must be assigned an
    /// argument value."
    MissingArgument,
    /// §3.3.1 Invocations: "Positional arguments must precede named arguments."
    PositionalAfterNamed,
    /// §3.3.1 Invocations: "Every named argument must have a name that corresponds to a formal
    /// parameter declared for the operation."
    UnknownNamedArgument,
    /// §3.3.1 Invocations: "Named arguments must be unique, that is, each argument name may
    /// appear only once in an invocation."
    DuplicateNamedArgument,
    /// §3.3.1 Invocations: "A named argument must not refer to a formal parameter that is also
    /// assigned by a positional argument."
    NamedAlsoPositional,
    /// §3.3.1 Invocations: "Only tensor arguments (primitive, array or tuple) may be positional;
    /// all other arguments must be named."
    NonTensorPositional,
    /// §3.3.1 Assignments: "The left side must be an identifier, or an array or tuple of
    /// identifiers (or any such combination) into which the result is unpacked; ... invocations
    /// and constant expressions are not allowed on the left side." (a literal)
    LiteralOnLeft,
    /// §3.3.1 Assignments: the same rule, broken by an invocation on the left side.
    InvocationOnLeft,
    /// §3.3.1 Identifier usage: "The parameters of a fragment must not appear on the left side of
    /// assignments within the fragment body; they may only be used as arguments of expressions
    /// on the right side."
    FragmentParameterAssigned,
    /// §3.3.1 Identifier usage: "The parameters of the graph (implicitly typed tensors) must be
    /// defined as results of the external operation."
    GraphInputNotExternal,
    /// §3.3.1 Identifier usage: "The external operation must not be used in fragments."
    ExternalInFragment,
    /// §3.3.1 Identifier usage: "The results of a fragment must be assigned exactly once within
    /// the fragment body." (never assigned)
    ResultNotAssigned,
    /// §3.3.1 Identifier usage: the same rule, broken by a result assigned twice.
    ResultAssignedTwice,
    /// §3.3.1 Identifier usage: "Local identifiers in a fragment or in the main graph must first
    /// appear on the left side of an assignment, and only then be used as arguments in
    /// expressions on the right side of subsequent assignments."
    UseBeforeDefinition,
    /// §3.3.1 Identifier usage: "The same identifier must not appear on the left side of more
    /// than one assignment (within a fragment or in the main graph)."
    IdentifierAssignedTwice,
    /// §3.3.1 Identifier usage: "All individual identifiers in the graph body must be of tensor
    /// type. That is, identifiers of tensor arrays, tensor tuples or attribute types are not
    /// allowed."
    NonTensorIdentifierInGraph,
    /// §3.3.2 Type conversions: "When an expression is substituted for a formal parameter in an
    /// invocation ..., the type of the expression must equal or be convertible to the type of
    /// the formal parameter ...; otherwise the invocation is invalid." (e.g. a string where a
    /// scalar is expected)
    ArgumentTypeMismatch,
    /// §3.3.2 Type conversions: the same rule for an expression "assigned to a result of a
    /// fragment".
    ResultTypeMismatch,
    /// §3.3.2 Tensor data types: "Scalar tensors cannot be substituted for logical or coordinate
    /// tensors, and vice versa." (a logical tensor where a scalar tensor is expected)
    LogicalForScalarTensor,
    /// §3.3.3 Tuples: "The tuple on the left side must have the same number of items as the
    /// right side."
    TupleArityMismatch,
    /// §3.3.3 Arrays: "When building arrays, the items must be of the same type, or it must be
    /// possible to convert all items to a common type."
    ArrayItemTypeMismatch,
    /// §3.3.3 Compile-time branching: "The condition must be an expression of logical type (so
    /// that its value is known at compile time)."
    SelectConditionNotLogical,
    /// §3.3.3 Arrays: "If the subscript expression is a single expression of type extent, the
    /// result is a single item of the array." (an index that is not an integer)
    IndexNotInteger,
    /// §3.3.1 Argument validity / §3.3.4 shape propagation: "Operations with multiple tensor
    /// arguments may define tensor shape consistency rules" — the binary operations require
    /// broadcast-compatible shapes (NNEF 1.0.5 §4.3).
    BroadcastMismatch,
    /// §3.3.1 Argument validity: `conv` requires the filter's channels times `groups` to equal
    /// the input's channels (NNEF 1.0.5 §4.5).
    ConvChannelMismatch,
    /// §3.3.1 Argument validity: "an operation may restrict its arguments to a specific range" —
    /// reduction axes must lie in `[0, rank)` (NNEF 1.0.5 §4.4).
    AxisOutOfRange,
    /// §3.3.1 Argument validity: `reshape` must keep the volume (NNEF 1.0.5 §4.2).
    ReshapeVolumeMismatch,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 33] = [
        Rule::DuplicateFragmentName,
        Rule::DuplicateParameterName,
        Rule::DuplicateResultName,
        Rule::DefaultTypeMismatch,
        Rule::UndeclaredOperation,
        Rule::TooManyArguments,
        Rule::MissingArgument,
        Rule::PositionalAfterNamed,
        Rule::UnknownNamedArgument,
        Rule::DuplicateNamedArgument,
        Rule::NamedAlsoPositional,
        Rule::NonTensorPositional,
        Rule::LiteralOnLeft,
        Rule::InvocationOnLeft,
        Rule::FragmentParameterAssigned,
        Rule::GraphInputNotExternal,
        Rule::ExternalInFragment,
        Rule::ResultNotAssigned,
        Rule::ResultAssignedTwice,
        Rule::UseBeforeDefinition,
        Rule::IdentifierAssignedTwice,
        Rule::NonTensorIdentifierInGraph,
        Rule::ArgumentTypeMismatch,
        Rule::ResultTypeMismatch,
        Rule::LogicalForScalarTensor,
        Rule::TupleArityMismatch,
        Rule::ArrayItemTypeMismatch,
        Rule::SelectConditionNotLogical,
        Rule::IndexNotInteger,
        Rule::BroadcastMismatch,
        Rule::ConvChannelMismatch,
        Rule::AxisOutOfRange,
        Rule::ReshapeVolumeMismatch,
    ];

    /// The variant's name in snake case (`duplicate_fragment_name`), for reports.
    pub fn name(self) -> String {
        let debug = format!("{self:?}");
        let mut out = String::new();
        for (i, c) in debug.chars().enumerate() {
            if c.is_ascii_uppercase() {
                if i > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }

    /// Where the rule is stated: `"seed 003 §3.3.1"`, ...
    pub fn source(self) -> &'static str {
        use Rule::*;
        match self {
            ArgumentTypeMismatch | ResultTypeMismatch | LogicalForScalarTensor => "seed 003 §3.3.2",
            TupleArityMismatch
            | ArrayItemTypeMismatch
            | SelectConditionNotLogical
            | IndexNotInteger => "seed 003 §3.3.3",
            BroadcastMismatch | ConvChannelMismatch | AxisOutOfRange | ReshapeVolumeMismatch => {
                "seed 003 §3.3.1 argument validity; NNEF 1.0.5 chapter 4"
            }
            _ => "seed 003 §3.3.1",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_rule_once() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            assert!(seen.insert(rule), "{rule:?} twice");
        }
        assert_eq!(
            Rule::DuplicateFragmentName.name(),
            "duplicate_fragment_name"
        );
        assert_eq!(Rule::IndexNotInteger.source(), "seed 003 §3.3.3");
    }
}
