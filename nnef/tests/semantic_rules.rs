//! One invalid document per rule of seed 003 §3.3: each gives exactly one clear error at the
//! offending line:col, never a panic; and the valid forms the rules allow are accepted.

use conformance_nnef::{eval, parse_document, ErrorKind, NnefError};

const FRAGMENTS: &str = "version 1.0;\nextension KHR_enable_fragment_definitions;\nextension KHR_enable_operator_expressions;\n";

fn evaluate(src: &str) -> Result<conformance_nnef::graph::Graph, NnefError> {
    let doc = parse_document(src)?;
    eval::evaluate(&doc)
}

/// Asserts `src` fails with a `kind` error at `line:col` whose message contains `needle`.
fn rejects(src: &str, kind: ErrorKind, line: u32, col: u32, needle: &str) {
    let e = evaluate(src).expect_err(&format!("accepted:\n{src}"));
    assert_eq!(e.kind, kind, "wrong kind for {e}\n{src}");
    assert!(
        e.message.contains(needle),
        "message {e:?} lacks {needle:?}\n{src}"
    );
    assert_eq!(
        (e.span.line, e.span.column),
        (line, col),
        "wrong position for {e}\n{src}"
    );
}

fn graph(body: &str) -> String {
    format!("version 1.0;\ngraph G( input ) -> ( output )\n{{\n{body}\n}}\n")
}

fn with_fragment(fragment: &str, body: &str) -> String {
    format!("{FRAGMENTS}{fragment}\ngraph G( input ) -> ( output )\n{{\n{body}\n}}\n")
}

const INPUT: &str = "    input = external<scalar>(shape = [2, 3]);";

#[test]
fn accepts_flat_and_compositional_documents() {
    let g = evaluate(&graph(&format!("{INPUT}\n    output = relu(input);"))).unwrap();
    assert_eq!(g.tensors["output"].shape, vec![2, 3]);
    let src = with_fragment(
        "fragment twice( x: tensor<scalar>, k: integer = 2 ) -> ( y: tensor<scalar> )\n{\n    y = x * scalar(k) if k > 0 else x;\n}",
        &format!("{INPUT}\n    output = twice(input, k = 3) + 1.0;"),
    );
    let g = evaluate(&src).unwrap();
    assert_eq!(g.tensors["output"].shape, vec![2, 3]);
    assert_eq!(g.operations.last().unwrap().name, "add");
}

#[test]
fn fragment_names_are_unique() {
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }\nfragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 5, 1, "already declared");
    let src = with_fragment(
        "fragment relu( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; }",
        &format!("{INPUT}\n    output = relu(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 1, "standard library");
}

#[test]
fn parameter_and_result_names_are_unique() {
    let src = with_fragment(
        "fragment f( x: tensor<scalar>, x: scalar = 1.0 ) -> ( y: tensor<scalar> ) { y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 32, "declared twice");
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( x: tensor<scalar> ) { x = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(
        &src,
        ErrorKind::Semantic,
        4,
        38,
        "both a parameter and a result",
    );
}

#[test]
fn default_values_match_their_types() {
    let src = with_fragment(
        "fragment f( x: tensor<scalar>, a: scalar = 'one' ) -> ( y: tensor<scalar> ) { y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 44, "does not convert");
}

#[test]
fn invocation_rules() {
    // Undeclared operation.
    rejects(
        &graph(&format!("{INPUT}\n    output = frobnicate(input);")),
        ErrorKind::Semantic,
        5,
        14,
        "not declared",
    );
    // Too many arguments.
    rejects(
        &graph(&format!("{INPUT}\n    output = relu(input, input);")),
        ErrorKind::Semantic,
        5,
        26,
        "too many arguments",
    );
    // Missing argument without default.
    rejects(
        &graph(&format!("{INPUT}\n    output = add(input);")),
        ErrorKind::Semantic,
        5,
        14,
        "missing argument for parameter 'y'",
    );
    // Positional after named.
    rejects(
        &graph(&format!("{INPUT}\n    output = add(x = input, input);")),
        ErrorKind::Semantic,
        5,
        29,
        "positional argument cannot follow",
    );
    // Unknown name.
    rejects(
        &graph(&format!("{INPUT}\n    output = relu(input, alpha = 1.0);")),
        ErrorKind::Semantic,
        5,
        26,
        "no parameter called 'alpha'",
    );
    // Named twice.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = add(x = input, y = input, y = input);"
        )),
        ErrorKind::Semantic,
        5,
        40,
        "given twice",
    );
    // Named and positional.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = add(input, input, x = input);"
        )),
        ErrorKind::Semantic,
        5,
        32,
        "given twice",
    );
    // Attributes must be named.
    rejects(
        &graph(&format!("{INPUT}\n    output = leaky_relu(input, 0.2);")),
        ErrorKind::Semantic,
        5,
        32,
        "must be given by name",
    );
}

#[test]
fn assignment_rules() {
    // A literal on the left side.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { 1 = x; y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    // (The grammar already excludes it: a syntax error.)
    rejects(&src, ErrorKind::Syntax, 4, 60, "expected an lvalue");
    // A parameter assigned in the body.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { x = relu(x); y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 60, "read-only");
    // A result never assigned.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, z: tensor<scalar> ) { y = x; }",
        &format!("{INPUT}\n    output = f(input)[0];"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 57, "never assigned");
    // A result assigned twice.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x; y = x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 67, "already assigned");
}

#[test]
fn identifier_usage_rules() {
    // Graph input not defined by external.
    rejects(
        &graph("    input = variable(shape = [2], label = 'w');\n    output = relu(input);"),
        ErrorKind::Semantic,
        4,
        5,
        "must be assigned by `external`",
    );
    // external assigning a non-input.
    rejects(
        &graph(&format!(
            "{INPUT}\n    other = external(shape = [2]);\n    output = relu(input);"
        )),
        ErrorKind::Semantic,
        5,
        5,
        "not a graph input",
    );
    // external inside a fragment.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = external(shape = [1]); }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(
        &src,
        ErrorKind::Semantic,
        4,
        64,
        "not allowed inside fragments",
    );
    // Use before definition.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = add(input, later);\n    later = relu(input);"
        )),
        ErrorKind::Semantic,
        5,
        25,
        "used before it is assigned",
    );
    // Assigned twice in the graph.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = relu(input);\n    output = relu(input);"
        )),
        ErrorKind::Semantic,
        6,
        5,
        "already assigned",
    );
    // Non-tensor identifier in the graph body.
    let src = format!("{FRAGMENTS}graph G( input ) -> ( output )\n{{\n{INPUT}\n    n = 3;\n    output = relu(input);\n}}\n");
    rejects(&src, ErrorKind::Semantic, 7, 5, "must be single tensors");
    // Input never defined, output never assigned.
    rejects(
        &graph("    output = constant(shape = [1], value = [1.0]);"),
        ErrorKind::Semantic,
        2,
        10,
        "never defined",
    );
    rejects(
        &graph(&format!("{INPUT}\n    other = relu(input);")),
        ErrorKind::Semantic,
        2,
        23,
        "never assigned",
    );
}

#[test]
fn type_rules() {
    // A string where a scalar is expected.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = leaky_relu(input, alpha = 'big');"
        )),
        ErrorKind::Semantic,
        5,
        40,
        "does not convert",
    );
    // A logical tensor where a scalar tensor is expected.
    rejects(
        &graph(&format!(
            "{INPUT}\n    mask = gt(input, 0.0);\n    output = exp(mask);"
        )),
        ErrorKind::Semantic,
        6,
        18,
        "does not convert",
    );
    // Integers do not convert to scalars.
    rejects(
        &graph(&format!(
            "{INPUT}\n    output = leaky_relu(input, alpha = 1);"
        )),
        ErrorKind::Semantic,
        5,
        40,
        "does not convert",
    );
    // The flat graph body does not allow operator expressions.
    rejects(
        &graph(&format!("{INPUT}\n    output = relu(input * 2.0);")),
        ErrorKind::Semantic,
        5,
        19,
        "KHR_enable_operator_expressions",
    );
    // Fragment definitions need their extension.
    rejects(
        &format!("version 1.0;\nfragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> ) {{ y = x; }}\ngraph G( input ) -> ( output )\n{{\n{INPUT}\n    output = relu(input);\n}}\n"),
        ErrorKind::Semantic,
        2,
        1,
        "KHR_enable_fragment_definitions",
    );
    // Tuple arity on unpacking.
    let src = with_fragment(
        "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, z: tensor<scalar> ) { y = x; z = x; }",
        &format!("{INPUT}\n    (output, a, b) = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 8, 5, "tuple of 2 items into 3");
    // Select condition must be logical.
    let src = with_fragment(
        "fragment f( x: tensor<scalar>, k: integer = 1 ) -> ( y: tensor<scalar> ) { y = x if k else x; }",
        &format!("{INPUT}\n    output = f(input);"),
    );
    rejects(&src, ErrorKind::Semantic, 4, 85, "must be a logical value");
}

#[test]
fn recursion_and_lazy_branches() {
    // Seed 003's own example passes `items[1:]` positionally, which its invocation rule forbids
    // for attributes (and the Khronos parser rejects): the rule wins, the argument is named.
    let src = with_fragment(
        "fragment sum_of( items: scalar[] ) -> ( sum: scalar )\n{\n    sum = items[0] + sum_of(items = items[1:]) if length_of(items) > 0 else 0.0;\n}",
        &format!("{INPUT}\n    output = mul(input, sum_of(items = [1.0, 2.0, 3.5]));"),
    );
    let g = evaluate(&src).unwrap();
    let mul = g.operations.iter().find(|o| o.name == "mul").unwrap();
    assert_eq!(
        mul.argument("y"),
        Some(&conformance_nnef::graph::Value::Scalar(6.5))
    );
    // Recursion that never ends is an error, not a stack overflow.
    let src = with_fragment(
        "fragment forever( n: integer ) -> ( r: integer ) { r = forever(n = n + 1); }",
        &format!("{INPUT}\n    output = add(input, scalar(forever(n = 0)));"),
    );
    let e = evaluate(&src).unwrap_err();
    assert!(e.message.contains("does its recursion terminate"), "{e}");
}

#[test]
fn shape_rules() {
    rejects(
        &graph("    input = external<scalar>(shape = [2, 3]);\n    other = variable<scalar>(shape = [4, 3], label = 'w');\n    output = add(input, other);"),
        ErrorKind::Shape,
        6,
        14,
        "add",
    );
    rejects(
        &graph("    input = external<scalar>(shape = [2, -3]);\n    output = relu(input);"),
        ErrorKind::Shape,
        4,
        13,
        "negative",
    );
}
