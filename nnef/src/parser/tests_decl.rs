//! Unit tests of the document structure: version, extensions, fragments and their types and
//! defaults, the graph, assignments and left values, `graph.quant` entries, and errors.

use super::tests_expr::{is_depth_error, sexp};
use super::{parse_document, parse_fragments, parse_quantization};
use crate::ast::{Document, Fragment, TypeName, TypeSpec};
use crate::error::{ErrorKind, NnefError, Span};

const GRAPH: &str = "graph G( x ) -> ( y ) { x = external(shape = [1]); y = relu(x); }";

fn doc(src: &str) -> Document {
    parse_document(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn error(src: &str) -> NnefError {
    let e = parse_document(src).expect_err(src);
    assert_eq!(e.kind, ErrorKind::Syntax);
    e
}

/// The one fragment of `version 1.0; {fragment} {GRAPH}`.
fn fragment(text: &str) -> Fragment {
    let mut d = doc(&format!("version 1.0;\n{text}\n{GRAPH}"));
    assert_eq!(d.fragments.len(), 1);
    d.fragments.remove(0)
}

/// The type of the first parameter of `fragment f( p: {ty} ) -> ( r: tensor );`.
fn param_type(ty: &str) -> TypeSpec {
    fragment(&format!("fragment f( p: {ty} ) -> ( r: tensor );"))
        .declaration
        .parameters[0]
        .ty
        .clone()
}

/// The default of `fragment f( p: integer = {default} ) -> ( r: tensor );`.
fn default(default: &str) -> String {
    let f = fragment(&format!(
        "fragment f( p: integer = {default} ) -> ( r: tensor );"
    ));
    sexp(f.declaration.parameters[0].default.as_ref().unwrap())
}

#[test]
fn minimal_flat_document() {
    let src = "version 1.0;\n\ngraph net( input ) -> ( output )\n{\n    input = external<scalar>(shape = [1, 3]);\n    output = relu(input);\n}\n";
    let d = doc(src);
    assert_eq!(d.version, (1, 0));
    assert_eq!(d.version_span, Span::new(1, 1));
    assert!(d.extensions.is_empty());
    assert!(d.fragments.is_empty());
    let g = &d.graph;
    assert_eq!(g.name, "net");
    assert_eq!(g.span, Span::new(3, 1));
    assert_eq!(g.inputs, vec![("input".to_string(), Span::new(3, 12))]);
    assert_eq!(g.outputs, vec![("output".to_string(), Span::new(3, 25))]);
    assert_eq!(g.body.len(), 2);
    assert_eq!(g.body[0].span, Span::new(5, 5));
    assert_eq!(sexp(&g.body[0].lhs), "input");
    assert_eq!(sexp(&g.body[0].rhs), "(call external<Scalar> shape=[1 3])");
    assert_eq!(g.body[0].rhs.span, Span::new(5, 13));
    assert_eq!(sexp(&g.body[1].rhs), "(call relu input)");
}

#[test]
fn version_forms() {
    assert_eq!(doc(&format!("version 1.0; {GRAPH}")).version, (1, 0));
    assert_eq!(doc(&format!("version 2.15;\n{GRAPH}")).version, (2, 15));
    // Seed 003: no `;` at the end of the line.
    assert_eq!(doc(&format!("version 1.0\n{GRAPH}")).version, (1, 0));
    let e = error(&format!("version 1.0 {GRAPH}"));
    assert_eq!(e.span, Span::new(1, 13));
    assert_eq!(
        e.message,
        "expected ';' after the version number, found keyword 'graph'"
    );
    let e = error(&format!("version 1; {GRAPH}"));
    assert_eq!(e.span, Span::new(1, 9));
    assert_eq!(
        e.message,
        "expected a version number MAJOR.MINOR such as 1.0, found integer literal '1'"
    );
    let e = error(&format!("version 1.0e0; {GRAPH}"));
    assert_eq!(
        e.message,
        "expected a version number MAJOR.MINOR such as 1.0, found real literal '1.0e0'"
    );
    let e = error(&format!("version 1.; {GRAPH}"));
    assert_eq!(
        e.message,
        "expected a version number MAJOR.MINOR such as 1.0, found real literal '1.'"
    );
    let e = error(GRAPH);
    assert_eq!(e.span, Span::new(1, 1));
    assert_eq!(e.message, "expected 'version', found keyword 'graph'");
}

#[test]
fn extensions() {
    let d = doc(&format!(
        "version 1.0;\nextension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\nextension A, B;\n{GRAPH}"
    ));
    let names: Vec<&str> = d.extensions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "KHR_enable_fragment_definitions",
            "KHR_enable_operator_expressions",
            "A",
            "B"
        ]
    );
    assert_eq!(d.extensions[0].1, Span::new(2, 11));
    assert_eq!(d.extensions[3].1, Span::new(3, 14));
    let e = error(&format!("version 1.0; extension; {GRAPH}"));
    assert_eq!(e.span, Span::new(1, 23));
    assert_eq!(e.message, "expected an extension name, found ';'");
    let e = error(&format!("version 1.0; extension A 1; {GRAPH}"));
    assert_eq!(
        e.message,
        "expected ';' after the extension names, found integer literal '1'"
    );
}

#[test]
fn missing_or_misplaced_graph() {
    let e = error("version 1.0;\n");
    assert_eq!(e.span, Span::new(2, 1));
    assert_eq!(e.message, "expected 'graph', found end of input");
    let e = error("version 1.0;\nfragment f( x: tensor ) -> ( y: tensor );\n");
    assert_eq!(e.message, "expected 'graph', found end of input");
    let e = error(&format!("version 1.0;\n{GRAPH}\n{GRAPH}"));
    assert_eq!(e.span, Span::new(3, 1));
    assert_eq!(e.message, "expected end of input, found keyword 'graph'");
    let e = error(&format!(
        "version 1.0;\n{GRAPH}\nfragment f( x: tensor ) -> ( y: tensor );"
    ));
    assert_eq!(e.message, "expected end of input, found keyword 'fragment'");
    let e = error("");
    assert_eq!(e.span, Span::new(1, 1));
    assert_eq!(e.message, "expected 'version', found end of input");
}

#[test]
fn graph_header_errors() {
    let e = error("version 1.0; graph ( x ) -> ( y ) { y = f(x); }");
    assert_eq!(e.span, Span::new(1, 20));
    assert_eq!(e.message, "expected a graph name, found '('");
    let e = error("version 1.0; graph G( ) -> ( y ) { y = f(x); }");
    assert_eq!(e.message, "expected an input name, found ')'");
    let e = error("version 1.0; graph G( x ) ( y ) { y = f(x); }");
    assert_eq!(
        e.message,
        "expected '->' before the graph outputs, found '('"
    );
    let e = error("version 1.0; graph G( x, ) -> ( y ) { y = f(x); }");
    assert_eq!(e.message, "expected an input name, found ')'");
    let e = error("version 1.0; graph G( x ) -> ( y ) { }");
    assert_eq!(e.span, Span::new(1, 38));
    assert_eq!(
        e.message,
        "expected an assignment (a body has at least one), found '}'"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) { y = f(x);");
    assert_eq!(
        e.message,
        "expected an assignment or '}' closing the body, found end of input"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) y = f(x);");
    assert_eq!(
        e.message,
        "expected '{' opening the body, found identifier 'y'"
    );
    let e = error("version 1.0; graph G( graph ) -> ( y ) { y = f(x); }");
    assert_eq!(e.message, "expected an input name, found keyword 'graph'");
}

#[test]
fn assignments_and_lvalues() {
    let d = doc("version 1.0;\ngraph G( x ) -> ( y ) {\n  a = f(x);\n  [b, c] = g(x);\n  d, e = h(x);\n  (p, [q, r]) = k(x);\n  [] = z(x);\n  (s) = f(x);\n  y = f(a);\n}");
    let lhs: Vec<String> = d.graph.body.iter().map(|a| sexp(&a.lhs)).collect();
    assert_eq!(
        lhs,
        [
            "a",
            "[b c]",
            "(tuple d e)",
            "(tuple p [q r])",
            "[]",
            "s",
            "y"
        ]
    );
    assert_eq!(d.graph.body[2].span, Span::new(5, 3));
    assert_eq!(d.graph.body[2].lhs.span, Span::new(5, 3));
}

#[test]
fn left_sides_that_are_not_lvalues() {
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  1 = f(x);\n}");
    assert_eq!(e.span, Span::new(2, 3));
    assert_eq!(
        e.message,
        "expected an lvalue (an identifier, or an array or tuple of lvalues), found integer literal '1'"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  f(x) = g(x);\n}");
    assert_eq!(e.span, Span::new(2, 3));
    assert_eq!(
        e.message,
        "expected an lvalue (an identifier, or an array or tuple of lvalues), found an invocation of 'f'"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  ['a'] = g(x);\n}");
    assert_eq!(e.span, Span::new(2, 4));
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  a + b = g(x);\n}");
    assert_eq!(e.span, Span::new(2, 5));
    assert_eq!(
        e.message,
        "expected '=' after the left side of the assignment, found '+'"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  y f(x);\n}");
    assert_eq!(
        e.message,
        "expected '=' after the left side of the assignment, found identifier 'f'"
    );
    let e = error("version 1.0; graph G( x ) -> ( y ) {\n  y = ;\n}");
    assert_eq!(e.span, Span::new(2, 7));
    assert_eq!(e.message, "expected an expression, found ';'");
}

#[test]
fn deeply_nested_left_sides_and_defaults_are_errors() {
    for n in [200, 100_000] {
        let lhs = format!("{}y{}", "[".repeat(n), "]".repeat(n));
        let e = error(&format!(
            "version 1.0; graph G( x ) -> ( y ) {{ {lhs} = f(x); }}"
        ));
        assert!(is_depth_error(&e), "{e}");
        let lhs = format!("{}y{}", "(".repeat(n), ")".repeat(n));
        let e = error(&format!(
            "version 1.0; graph G( x ) -> ( y ) {{ {lhs} = f(x); }}"
        ));
        assert!(is_depth_error(&e), "{e}");
        let default = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let e = error(&format!(
            "version 1.0; fragment f( p: integer = {default} ) -> ( r: tensor ); {GRAPH}"
        ));
        assert!(is_depth_error(&e), "{e}");
    }
    // Moderate nesting is fine.
    let d = doc("version 1.0; graph G( x ) -> ( y ) { [[[a]], (b, [c])] = f(x); y = a; }");
    assert_eq!(sexp(&d.graph.body[0].lhs), "[[[a]] (tuple b [c])]");
    assert_eq!(default("[[[[1]]]]"), "[[[[1]]]]");
}

#[test]
fn seed_003_optional_semicolons() {
    // Seed 003's example: no `;` after `version` or after assignments.
    let src = "version 1.0\n\ngraph barfoo( input ) -> ( output )\n{\n    input = external(shape = [1,10])\n    intermediate, extra = bar(input, alpha = 2)\n    output = foo(intermediate, size = [3,5])\n}";
    let d = doc(src);
    let rhs: Vec<String> = d.graph.body.iter().map(|a| sexp(&a.rhs)).collect();
    assert_eq!(
        rhs,
        [
            "(call external shape=[1 10])",
            "(call bar input alpha=2)",
            "(call foo intermediate size=[3 5])"
        ]
    );
    assert_eq!(sexp(&d.graph.body[1].lhs), "(tuple intermediate extra)");
    // Before `}` on the same line.
    assert_eq!(
        doc("version 1.0; graph G( x ) -> ( y ) { y = f(x) }")
            .graph
            .body
            .len(),
        1
    );
    // A `(` or `[` starting a line begins the next assignment, not an invocation or subscript.
    let d = doc(
        "version 1.0; graph G( x ) -> ( y ) {\n  a = b\n  (c, d) = f(a)\n  e = c\n  [y] = g(e)\n}",
    );
    let pairs: Vec<(String, String)> = d
        .graph
        .body
        .iter()
        .map(|a| (sexp(&a.lhs), sexp(&a.rhs)))
        .collect();
    assert_eq!(
        pairs,
        [
            ("a".into(), "b".into()),
            ("(tuple c d)".into(), "(call f a)".into()),
            ("e".into(), "c".into()),
            ("[y]".into(), "(call g e)".into())
        ]
    );
    // ... but inside brackets line breaks do not matter.
    let d =
        doc("version 1.0; graph G( x ) -> ( y ) {\n  y = f(\n    a\n    [0],\n    g\n    (x));\n}");
    assert_eq!(sexp(&d.graph.body[0].rhs), "(call f (at a 0) (call g x))");
    // Two assignments on one line need the `;`.
    let e = error("version 1.0; graph G( x ) -> ( y ) { a = f(x) y = g(a) }");
    assert_eq!(e.span, Span::new(1, 47));
    assert_eq!(
        e.message,
        "expected ';' after the assignment, found identifier 'y'"
    );
}

#[test]
fn khronos_dialect_requires_every_semicolon() {
    use super::{parse_document_with, Dialect};
    let khronos = |src: &str| parse_document_with(src, Dialect::Khronos);
    // Seed 003's example, accepted by default, is refused at the first missing `;`.
    let seed = "version 1.0\n\ngraph barfoo( input ) -> ( output )\n{\n    input = external(shape = [1,10])\n    output = foo(input)\n}";
    doc(seed);
    let e = khronos(seed).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.span, Span::new(3, 1));
    assert_eq!(
        e.message,
        "expected ';' after the version number, found keyword 'graph'"
    );
    // After an assignment: at the token that follows, on the next line.
    let src = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1])\n    y = relu(x);\n}";
    doc(src);
    let e = khronos(src).unwrap_err();
    assert_eq!(e.span, Span::new(5, 5));
    assert_eq!(
        e.message,
        "expected ';' after the assignment, found identifier 'y'"
    );
    // ... also before `}`.
    let e = khronos("version 1.0; graph G( x ) -> ( y ) { y = f(x) }").unwrap_err();
    assert_eq!(e.message, "expected ';' after the assignment, found '}'");
    // Extension lines and fragment declarations.
    let e = khronos("version 1.0;\nextension KHR_enable_fragment_definitions\ngraph G( x ) -> ( y ) { y = f(x); }").unwrap_err();
    assert_eq!(e.span, Span::new(3, 1));
    assert_eq!(
        e.message,
        "expected ';' after the extension names, found keyword 'graph'"
    );
    let e = khronos(&format!(
        "version 1.0;\nfragment f( x: tensor ) -> ( y: tensor )\n{GRAPH}"
    ))
    .unwrap_err();
    assert_eq!(
        e.message,
        "expected ';' or '{' after the fragment declaration, found keyword 'graph'"
    );
    // A line break is plain white space: `(` on a new line calls what precedes it.
    let d = khronos("version 1.0; graph G( x ) -> ( y ) {\n  y = f\n  (x);\n}").unwrap();
    assert_eq!(sexp(&d.graph.body[0].rhs), "(call f x)");
    // With every `;` written, both dialects read the same document.
    let full = format!("version 1.0;\nextension KHR_enable_operator_expressions;\n{GRAPH}");
    assert_eq!(khronos(&full).unwrap(), doc(&full));
}

#[test]
fn fragment_declarations_and_definitions() {
    let f =
        fragment("fragment add( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );");
    assert_eq!(f.declaration.name, "add");
    assert_eq!(f.declaration.span, Span::new(2, 1));
    assert_eq!(f.declaration.generic, None);
    assert!(f.body.is_none());
    let params: Vec<(&str, &TypeSpec)> = f
        .declaration
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), &p.ty))
        .collect();
    let scalar_tensor = TypeSpec::Tensor(Some(TypeName::Scalar));
    assert_eq!(params, [("x", &scalar_tensor), ("y", &scalar_tensor)]);
    assert_eq!(f.declaration.parameters[1].span, Span::new(2, 34));
    assert_eq!(f.declaration.results[0].name, "z");
    assert_eq!(f.declaration.results[0].span, Span::new(2, 59));

    let f = fragment(
        "fragment sqr( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = x ^ 2.0;\n}",
    );
    let body = f.body.unwrap();
    assert_eq!(sexp(&body[0].rhs), "(^ x 2.0)");

    let f = fragment("fragment external<? = scalar>( shape: integer[] ) -> ( output: tensor<?> );");
    assert_eq!(f.declaration.generic, Some(Some(TypeName::Scalar)));
    assert_eq!(
        f.declaration.results[0].ty,
        TypeSpec::Tensor(Some(TypeName::Generic))
    );
    let f = fragment("fragment copy<?>( x: tensor<?> ) -> ( y: tensor<?> );");
    assert_eq!(f.declaration.generic, Some(None));
    let f = fragment("fragment m( a: tensor, b: tensor ) -> ( c: tensor, d: tensor[] );");
    assert_eq!(f.declaration.results.len(), 2);
    assert_eq!(
        f.declaration.results[1].ty,
        TypeSpec::Array(Box::new(TypeSpec::Tensor(None)))
    );
}

#[test]
fn seed_003_fragment_declarations_without_semicolon() {
    let d = doc(&format!(
        "version 1.0\nfragment foo( input: tensor, size: extent[] = [1] ) -> ( output: tensor )\nfragment bar( input: tensor, alpha: scalar = 0.5 )\n-> ( output: tensor, extra: tensor[] )\n{GRAPH}"
    ));
    assert_eq!(d.fragments.len(), 2);
    assert!(d.fragments.iter().all(|f| f.body.is_none()));
    assert_eq!(
        d.fragments[0].declaration.parameters[1].ty,
        TypeSpec::Array(Box::new(TypeSpec::Primitive(TypeName::Integer)))
    );
    // On the same line as what follows, the `;` is required.
    let e = error(&format!(
        "version 1.0; fragment f( x: tensor ) -> ( y: tensor ) {GRAPH}"
    ));
    assert_eq!(e.span, Span::new(1, 55));
    assert_eq!(
        e.message,
        "expected ';' or '{' after the fragment declaration, found keyword 'graph'"
    );
}

#[test]
fn type_specs() {
    use TypeName::*;
    let p = |n| TypeSpec::Primitive(n);
    let arr = |t| TypeSpec::Array(Box::new(t));
    assert_eq!(param_type("integer"), p(Integer));
    assert_eq!(param_type("extent"), p(Integer));
    assert_eq!(param_type("scalar"), p(Scalar));
    assert_eq!(param_type("logical"), p(Logical));
    assert_eq!(param_type("string"), p(String));
    assert_eq!(param_type("?"), p(Generic));
    assert_eq!(param_type("tensor"), TypeSpec::Tensor(None));
    assert_eq!(param_type("tensor<>"), TypeSpec::Tensor(None));
    assert_eq!(
        param_type("tensor<integer>"),
        TypeSpec::Tensor(Some(Integer))
    );
    assert_eq!(param_type("tensor<?>"), TypeSpec::Tensor(Some(Generic)));
    assert_eq!(param_type("scalar[][]"), arr(arr(p(Scalar))));
    assert_eq!(param_type("?[]"), arr(p(Generic)));
    assert_eq!(
        param_type("tensor<scalar>[]"),
        arr(TypeSpec::Tensor(Some(Scalar)))
    );
    assert_eq!(
        param_type("(integer, integer)[]"),
        arr(TypeSpec::Tuple(vec![p(Integer), p(Integer)]))
    );
    assert_eq!(
        param_type("(integer[], (scalar, tensor), logical)"),
        TypeSpec::Tuple(vec![
            arr(p(Integer)),
            TypeSpec::Tuple(vec![p(Scalar), TypeSpec::Tensor(None)]),
            p(Logical)
        ])
    );
    assert_eq!(param_type("integer [ ]"), arr(p(Integer)));
    // `>=` right after a type is `>` then `=`.
    let f = fragment("fragment f( b: tensor<scalar>= 0.0 ) -> ( r: tensor );");
    assert_eq!(
        f.declaration.parameters[0].ty,
        TypeSpec::Tensor(Some(Scalar))
    );
    assert_eq!(
        sexp(f.declaration.parameters[0].default.as_ref().unwrap()),
        "0.0"
    );
}

#[test]
fn bad_type_specs() {
    let bad = |ty: &str| {
        error(&format!(
            "version 1.0;\nfragment f( p: {ty} ) -> ( r: tensor );\n{GRAPH}"
        ))
    };
    let e = bad("float");
    assert_eq!(e.span, Span::new(2, 16));
    assert_eq!(e.message, "expected a type (integer, scalar, logical, string, ?, tensor, or a tuple type), found identifier 'float'");
    let e = bad("tensor<float>");
    assert_eq!(e.span, Span::new(2, 23));
    assert_eq!(
        e.message,
        "expected a type name (integer, scalar, logical, string or ?), found identifier 'float'"
    );
    let e = bad("tensor<scalar");
    assert_eq!(e.message, "expected '>' closing the tensor type, found ')'");
    let e = bad("(integer)");
    assert_eq!(
        e.message,
        "expected ',' (a tuple type has at least two item types), found ')'"
    );
    let e = bad("integer[");
    assert_eq!(
        e.message,
        "expected ']' of the array type suffix '[]', found ')'"
    );
    let e = bad("tensor<tensor>");
    assert_eq!(
        e.message,
        "expected a type name (integer, scalar, logical, string or ?), found keyword 'tensor'"
    );
    let e = bad("");
    assert_eq!(
        e.message,
        "expected a type (integer, scalar, logical, string, ?, tensor, or a tuple type), found ')'"
    );
    let e = error(&format!(
        "version 1.0;\nfragment f<?=?>( p: ? ) -> ( r: tensor<?> );\n{GRAPH}"
    ));
    assert_eq!(e.span, Span::new(2, 14));
    assert_eq!(
        e.message,
        "expected a type name (integer, scalar, logical or string), found '?'"
    );
    let e = error(&format!(
        "version 1.0;\nfragment f<scalar>( p: ? ) -> ( r: tensor<?> );\n{GRAPH}"
    ));
    assert_eq!(
        e.message,
        "expected '?' in the generic declaration '<?>', found keyword 'scalar'"
    );
    // Nested too deep.
    let e = bad(&format!(
        "{}integer{}",
        "(integer, ".repeat(300),
        ")".repeat(300)
    ));
    assert!(is_depth_error(&e), "{e}");
    let e = bad(&format!("integer{}", "[]".repeat(100_000)));
    assert!(is_depth_error(&e), "{e}");
}

#[test]
fn default_values_are_literal_expressions() {
    assert_eq!(default("1"), "1");
    assert_eq!(default("-1"), "-1");
    assert_eq!(default("-0.5"), "-0.5");
    assert_eq!(default("'constant'"), "'constant'");
    assert_eq!(default("true"), "true");
    assert_eq!(default("[]"), "[]");
    assert_eq!(default("[1, -2, 3]"), "[1 -2 3]");
    assert_eq!(default("[(0, 0), (1, -1)]"), "[(tuple 0 0) (tuple 1 -1)]");
    assert_eq!(
        default("([1], ('a', false))"),
        "(tuple [1] (tuple 'a' false))"
    );
    assert_eq!(default("[[1, 2], []]"), "[[1 2] []]");
    // Seed 003: unparenthesised tuples, ended by the next parameter's name.
    let f =
        fragment("fragment f( p: (integer, scalar) = 1, 2.0, q: integer = 3 ) -> ( r: tensor );");
    let d: Vec<String> = f
        .declaration
        .parameters
        .iter()
        .map(|p| sexp(p.default.as_ref().unwrap()))
        .collect();
    assert_eq!(d, ["(tuple 1 2.0)", "3"]);
    let f = fragment("fragment f( p: (integer, integer) = 1, -2 ) -> ( r: tensor );");
    assert_eq!(
        sexp(f.declaration.parameters[0].default.as_ref().unwrap()),
        "(tuple 1 -2)"
    );
}

#[test]
fn default_values_that_are_not_literals() {
    let bad = |d: &str| {
        error(&format!(
            "version 1.0;\nfragment f( p: integer = {d} ) -> ( r: tensor );\n{GRAPH}"
        ))
    };
    let e = bad("x");
    assert_eq!(e.span, Span::new(2, 26));
    assert_eq!(
        e.message,
        "expected a literal expression (a number, string, true, false, or an array or tuple of literals), found identifier 'x'"
    );
    let e = bad("1 + 2");
    assert_eq!(e.span, Span::new(2, 28));
    assert_eq!(
        e.message,
        "expected ',' or ')' after a parameter, found '+'"
    );
    let e = bad("-true");
    assert_eq!(
        e.message,
        "expected a numeric literal after '-', found keyword 'true'"
    );
    let e = bad("(1)");
    assert_eq!(
        e.message,
        "expected ',' (a tuple literal has at least two items), found ')'"
    );
    let e = bad("[1, 2");
    assert_eq!(
        e.message,
        "expected ',' or ']' in the array literal, found ')'"
    );
    let e = bad("f(1)");
    assert!(e.message.ends_with("found identifier 'f'"), "{e}");
    let e = bad("");
    assert!(e.message.ends_with("found ')'"), "{e}");
}

#[test]
fn fragment_header_errors() {
    let bad = |text: &str| error(&format!("version 1.0;\n{text}\n{GRAPH}"));
    let e = bad("fragment ( x: tensor ) -> ( y: tensor );");
    assert_eq!(e.span, Span::new(2, 10));
    assert_eq!(e.message, "expected a fragment name, found '('");
    let e = bad("fragment f() -> ( y: tensor );");
    assert_eq!(e.message, "expected a parameter name, found ')'");
    let e = bad("fragment f( x tensor ) -> ( y: tensor );");
    assert_eq!(
        e.message,
        "expected ':' after the parameter name, found keyword 'tensor'"
    );
    let e = bad("fragment f( x: tensor ) ( y: tensor );");
    assert_eq!(e.message, "expected '->' before the results, found '('");
    let e = bad("fragment f( x: tensor ) -> y: tensor;");
    assert_eq!(
        e.message,
        "expected '(' before the results, found identifier 'y'"
    );
    let e = bad("fragment f( x: tensor ) -> ( y: tensor = 1 );");
    assert_eq!(e.message, "expected ',' or ')' after a result, found '='");
    let e = bad("fragment f( x: tensor ) -> ( );");
    assert_eq!(e.message, "expected a result name, found ')'");
    let e = bad("fragment f( x: tensor ) -> ( y: tensor ) { }");
    assert_eq!(
        e.message,
        "expected an assignment (a body has at least one), found '}'"
    );
    let e = bad("fragment f( x: tensor ) -> ( y: tensor ) = 1;");
    assert_eq!(
        e.message,
        "expected ';' or '{' after the fragment declaration, found '='"
    );
}

#[test]
fn parse_fragments_reads_a_library() {
    let lib = "# library\nfragment add( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );\n\nfragment relu( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = max(x, 0.0);\n}\nfragment pad( input: tensor<scalar>, padding: (integer, integer)[], border: string = 'constant', value: scalar = 0.0 ) -> ( output: tensor<scalar> );\n";
    let fragments = parse_fragments(lib).unwrap();
    let names: Vec<&str> = fragments
        .iter()
        .map(|f| f.declaration.name.as_str())
        .collect();
    assert_eq!(names, ["add", "relu", "pad"]);
    assert!(fragments[0].body.is_none());
    assert_eq!(
        sexp(&fragments[1].body.as_ref().unwrap()[0].rhs),
        "(call max x 0.0)"
    );
    assert_eq!(fragments[2].declaration.parameters.len(), 4);
    assert!(parse_fragments("").unwrap().is_empty());
    assert!(parse_fragments("# nothing\n").unwrap().is_empty());
    let e = parse_fragments(
        "fragment f( x: tensor ) -> ( y: tensor );\ngraph G( x ) -> ( y ) { y = f(x); }",
    )
    .unwrap_err();
    assert_eq!(e.span, Span::new(2, 1));
    assert_eq!(e.message, "expected 'fragment', found keyword 'graph'");
    let e = parse_fragments("version 1.0;").unwrap_err();
    assert_eq!(e.message, "expected 'fragment', found keyword 'version'");
    let e = parse_fragments("fragment f( x: tensor ) -> ( y: tensor );\nfragment g( x: 'oops")
        .unwrap_err();
    assert_eq!(e.span, Span::new(2, 16));
}

#[test]
fn parse_fragments_reads_compositional_bodies() {
    let lib = "fragment nearest_downsample( input: tensor<scalar>, factor: integer[] ) -> ( output: tensor<scalar> )\n{\n    dims = 2 + length_of(factor);\n    output = box(input, size = [1] * dims, stride = [1,1] + factor, padding = [(0,0)] * dims);\n}\n";
    let f = &parse_fragments(lib).unwrap()[0];
    let body = f.body.as_ref().unwrap();
    assert_eq!(sexp(&body[0].rhs), "(+ 2 (length_of factor))");
    assert_eq!(
        sexp(&body[1].rhs),
        "(call box input size=(* [1] dims) stride=(+ [1 1] factor) padding=(* [(tuple 0 0)] dims))"
    );
}

#[test]
fn quantization_files() {
    let src = "\"conv1\": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n'input': zero_point_linear_quantize<scalar>(zero_point = 0, scale = 0.5, bits = 8, signed = true, symmetric = false);\n";
    let entries = parse_quantization(src).unwrap();
    assert_eq!(entries.len(), 2);
    let (name, invocation, span) = &entries[0];
    assert_eq!(name, "conv1");
    assert_eq!(*span, Span::new(1, 1));
    assert_eq!(invocation.name, "linear_quantize");
    let args: Vec<String> = invocation
        .arguments
        .iter()
        .map(|a| format!("{}={}", a.name.as_ref().unwrap().0, sexp(&a.value)))
        .collect();
    assert_eq!(args, ["min=-1.0", "max=1.0", "bits=8"]);
    assert_eq!(entries[1].0, "input");
    assert_eq!(entries[1].1.generic, Some(TypeName::Scalar));
    assert_eq!(entries[1].2, Span::new(2, 1));
    assert!(parse_quantization("").unwrap().is_empty());
    assert!(parse_quantization("# no entries\n").unwrap().is_empty());
}

#[test]
fn quantization_errors() {
    let e = parse_quantization("conv1: q(bits = 8);").unwrap_err();
    assert_eq!(e.span, Span::new(1, 1));
    assert_eq!(
        e.message,
        "expected a quoted tensor name, found identifier 'conv1'"
    );
    let e = parse_quantization("'conv1' q(bits = 8);").unwrap_err();
    assert_eq!(e.span, Span::new(1, 9));
    assert_eq!(
        e.message,
        "expected ':' after the tensor name, found identifier 'q'"
    );
    let e = parse_quantization("'a': q(bits = 8)\n'b': q(bits = 8);").unwrap_err();
    assert_eq!(e.span, Span::new(2, 1));
    assert_eq!(
        e.message,
        "expected ';' after the quantization entry, found string literal \"b\""
    );
    let e = parse_quantization("'a': 8;").unwrap_err();
    assert_eq!(
        e.message,
        "expected the name of a quantization operation, found integer literal '8'"
    );
    let e = parse_quantization("'a': q;").unwrap_err();
    assert_eq!(
        e.message,
        "expected '(' opening the arguments of 'q', found ';'"
    );
}

#[test]
fn comments_and_crlf_line_endings() {
    let src = "# header\r\nversion 1.0; # v\r\n# between\r\ngraph G( x ) -> ( y ) # decl\r\n{\r\n\tx = external(shape = [1]); # input\r\n\ty = relu(x);\r\n}\r\n# trailer";
    let d = doc(src);
    assert_eq!(d.version_span, Span::new(2, 1));
    assert_eq!(d.graph.span, Span::new(4, 1));
    assert_eq!(d.graph.body[1].span, Span::new(7, 2));
}
