//! Printer tests: exact text of small trees, and round trips through the parser.

use super::*;
use crate::Span;

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}
fn id(name: &str) -> Expr {
    e(ExprKind::Identifier(name.into()))
}
fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary(op, Box::new(l), Box::new(r)))
}
fn neg(x: Expr) -> Expr {
    e(ExprKind::Unary(UnaryOp::Minus, Box::new(x)))
}

#[test]
fn reals_always_carry_a_point() {
    let cases = [
        (1.0, "1.0"),
        (0.5, "0.5"),
        (-2.0, "-2.0"),
        (1e-7, "1.0e-7"),
        (1.5e300, "1.5e300"),
        (1e20, "1.0e20"),
        (123456789.0, "123456789.0"),
    ];
    for (x, want) in cases {
        assert_eq!(print_expr(&e(ExprKind::Scalar(x))), want, "{x}");
    }
    for x in [1e-7, 1.5e300, 0.1, 3.25, 1e20, f64::MIN_POSITIVE, f64::MAX] {
        let text = print_expr(&e(ExprKind::Scalar(x)));
        assert_eq!(text.parse::<f64>().unwrap(), x, "{text} reads back");
    }
    assert_eq!(print_expr(&e(ExprKind::Integer(-3))), "-3");
    assert_eq!(
        print_expr(&e(ExprKind::Scalar(f64::INFINITY))),
        "(1.0 / 0.0)"
    );
}

#[test]
fn strings_pick_a_quote_they_do_not_contain() {
    assert_eq!(
        print_expr(&e(ExprKind::String("constant".into()))),
        "'constant'"
    );
    assert_eq!(print_expr(&e(ExprKind::String("it's".into()))), "\"it's\"");
}

#[test]
fn binary_parentheses_follow_precedence_and_associativity() {
    let (a, b, c) = (id("a"), id("b"), id("c"));
    // (a + b) * c needs parentheses; a + b * c does not.
    let sum = bin(BinaryOp::Add, a.clone(), b.clone());
    assert_eq!(
        print_expr(&bin(BinaryOp::Mul, sum.clone(), c.clone())),
        "(a + b) * c"
    );
    let prod = bin(BinaryOp::Mul, b.clone(), c.clone());
    assert_eq!(
        print_expr(&bin(BinaryOp::Add, a.clone(), prod)),
        "a + b * c"
    );
    // Left-associative chains print bare on the left, parenthesized on the right.
    assert_eq!(
        print_expr(&bin(BinaryOp::Sub, sum.clone(), c.clone())),
        "a + b - c"
    );
    let diff = bin(BinaryOp::Sub, b.clone(), c.clone());
    assert_eq!(
        print_expr(&bin(BinaryOp::Sub, a.clone(), diff)),
        "a - (b - c)"
    );
    // `^` and mixed `&&`/`||` always get parentheses (the grammars disagree there).
    let pow = bin(BinaryOp::Pow, a.clone(), b.clone());
    assert_eq!(
        print_expr(&bin(BinaryOp::Pow, pow, c.clone())),
        "(a ^ b) ^ c"
    );
    let or = bin(BinaryOp::Or, a.clone(), b.clone());
    assert_eq!(
        print_expr(&bin(BinaryOp::And, or, c.clone())),
        "(a || b) && c"
    );
}

#[test]
fn prefix_operators_are_fenced_in_operands() {
    let (a, b) = (id("a"), id("b"));
    // The Khronos parser reads `-a + b` as `-(a + b)`.
    assert_eq!(
        print_expr(&bin(BinaryOp::Add, neg(a.clone()), b.clone())),
        "(-a) + b"
    );
    assert_eq!(
        print_expr(&neg(bin(BinaryOp::Add, a.clone(), b.clone()))),
        "-(a + b)"
    );
    let minus_one = e(ExprKind::Integer(-1));
    assert_eq!(
        print_expr(&bin(BinaryOp::Mul, a.clone(), minus_one)),
        "a * (-1)"
    );
    let select = e(ExprKind::Select {
        condition: Box::new(e(ExprKind::Logical(true))),
        then: Box::new(neg(a.clone())),
        otherwise: Box::new(b.clone()),
    });
    assert_eq!(print_expr(&select), "(-a) if true else b");
    assert_eq!(
        print_expr(&bin(BinaryOp::Add, select, b)),
        "((-a) if true else b) + b"
    );
}

#[test]
fn documents_print_declarations_bodies_and_graph() {
    let span = Span::default();
    let doc = Document {
        version: (1, 0),
        version_span: span,
        extensions: vec![("KHR_enable_fragment_definitions".into(), span)],
        fragments: vec![Fragment {
            declaration: FragmentDeclaration {
                name: "f".into(),
                generic: Some(Some(TypeName::Scalar)),
                parameters: vec![
                    Parameter {
                        name: "x".into(),
                        ty: TypeSpec::Tensor(Some(TypeName::Generic)),
                        default: None,
                        span,
                    },
                    Parameter {
                        name: "p".into(),
                        ty: TypeSpec::Array(Box::new(TypeSpec::Tuple(vec![
                            TypeSpec::Primitive(TypeName::Integer),
                            TypeSpec::Primitive(TypeName::Integer),
                        ]))),
                        default: Some(e(ExprKind::Array(vec![]))),
                        span,
                    },
                ],
                results: vec![ResultDecl {
                    name: "y".into(),
                    ty: TypeSpec::Tensor(Some(TypeName::Generic)),
                    span,
                }],
                span,
            },
            body: Some(vec![Assignment {
                lhs: id("y"),
                rhs: e(ExprKind::Invocation(Invocation {
                    name: "copy".into(),
                    generic: None,
                    arguments: vec![Argument {
                        name: None,
                        value: id("x"),
                    }],
                })),
                span,
            }]),
        }],
        graph: GraphDefinition {
            name: "G".into(),
            inputs: vec![("x".into(), span)],
            outputs: vec![("y".into(), span)],
            body: vec![Assignment {
                lhs: id("x"),
                rhs: e(ExprKind::Invocation(Invocation {
                    name: "external".into(),
                    generic: Some(TypeName::Scalar),
                    arguments: vec![Argument {
                        name: Some(("shape".into(), span)),
                        value: e(ExprKind::Array(vec![e(ExprKind::Integer(2))])),
                    }],
                })),
                span,
            }],
            span,
        },
    };
    let want = "version 1.0;\nextension KHR_enable_fragment_definitions;\n\n\
                fragment f<? = scalar>( x: tensor<?>, p: (integer, integer)[] = [] ) -> ( y: tensor<?> )\n\
                {\n    y = copy(x);\n}\n\n\
                graph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [2]);\n}\n";
    assert_eq!(print_document(&doc), want);
}
// ----- round trips through the parser -----

use crate::ast::Subscript as Sub;
use crate::generate::{mutate, valid_document, Choices, Config, Rule};
use crate::parser::parse_document;
use proptest::prelude::*;

/// `e` without spans, with `-` applied to a non-negative literal folded into a negative
/// literal (the parser reads `-1` as one literal).
fn normal(e: &Expr) -> Expr {
    let n = |x: &Expr| Box::new(normal(x));
    let kind = match &e.kind {
        ExprKind::Unary(UnaryOp::Minus, x) => match normal(x).kind {
            ExprKind::Integer(i) if i >= 0 => ExprKind::Integer(-i),
            ExprKind::Scalar(v) if v.is_sign_positive() => ExprKind::Scalar(-v),
            other => ExprKind::Unary(UnaryOp::Minus, Box::new(Expr::new(other, Span::default()))),
        },
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, n(x)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, n(a), n(b)),
        ExprKind::Array(items) => ExprKind::Array(items.iter().map(normal).collect()),
        ExprKind::Tuple(items) => ExprKind::Tuple(items.iter().map(normal).collect()),
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => ExprKind::Select {
            condition: n(condition),
            then: n(then),
            otherwise: n(otherwise),
        },
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => ExprKind::Comprehension {
            iterators: iterators
                .iter()
                .map(|(i, x)| (i.clone(), normal(x)))
                .collect(),
            condition: condition.as_ref().map(|c| n(c)),
            body: n(body),
        },
        ExprKind::Subscript(base, Sub::Index(i)) => ExprKind::Subscript(n(base), Sub::Index(n(i))),
        ExprKind::Subscript(base, Sub::Range(a, b)) => ExprKind::Subscript(
            n(base),
            Sub::Range(a.as_ref().map(|x| n(x)), b.as_ref().map(|x| n(x))),
        ),
        ExprKind::Builtin(b, x) => ExprKind::Builtin(*b, n(x)),
        ExprKind::Invocation(inv) => ExprKind::Invocation(Invocation {
            name: inv.name.clone(),
            generic: inv.generic,
            arguments: inv
                .arguments
                .iter()
                .map(|a| Argument {
                    name: a.name.as_ref().map(|(n, _)| (n.clone(), Span::default())),
                    value: normal(&a.value),
                })
                .collect(),
        }),
        other => other.clone(),
    };
    Expr::new(kind, Span::default())
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "c"]).prop_map(id),
        (0i64..100).prop_map(|i| e(ExprKind::Integer(i))),
        prop::sample::select(vec![0.5, 1.0, 2.25, 1e-7, 3e12]).prop_map(|x| e(ExprKind::Scalar(x))),
        any::<bool>().prop_map(|b| e(ExprKind::Logical(b))),
        prop::sample::select(vec!["constant", "it's", ""])
            .prop_map(|s| e(ExprKind::String(s.into()))),
    ]
}

const BINARY_OPS: [BinaryOp; 14] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Pow,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::In,
];

/// Arbitrary expressions of every form (not necessarily well typed: only the syntax is
/// exercised).
fn expression() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 48, 3, |inner| {
        let boxed = inner.clone().prop_map(Box::new);
        prop_oneof![
            (
                prop::sample::select(vec![UnaryOp::Minus, UnaryOp::Not]),
                boxed.clone()
            )
                .prop_map(|(op, x)| e(ExprKind::Unary(op, x))),
            (
                prop::sample::select(BINARY_OPS.to_vec()),
                boxed.clone(),
                boxed.clone()
            )
                .prop_map(|(op, a, b)| e(ExprKind::Binary(op, a, b))),
            (boxed.clone(), boxed.clone(), boxed.clone()).prop_map(
                |(condition, then, otherwise)| {
                    e(ExprKind::Select {
                        condition,
                        then,
                        otherwise,
                    })
                }
            ),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| e(ExprKind::Array(v))),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|v| e(ExprKind::Tuple(v))),
            (boxed.clone(), boxed.clone())
                .prop_map(|(b, i)| e(ExprKind::Subscript(b, Sub::Index(i)))),
            (
                boxed.clone(),
                prop::option::of(boxed.clone()),
                prop::option::of(boxed.clone())
            )
                .prop_map(|(b, x, y)| e(ExprKind::Subscript(b, Sub::Range(x, y)))),
            (
                prop::sample::select(vec![
                    Builtin::LengthOf,
                    Builtin::RangeOf,
                    Builtin::ShapeOf,
                    Builtin::Integer,
                    Builtin::Scalar,
                    Builtin::Logical,
                    Builtin::String,
                ]),
                boxed.clone()
            )
                .prop_map(|(b, x)| e(ExprKind::Builtin(b, x))),
            (
                prop::collection::vec(inner.clone(), 1..3),
                prop::option::of(boxed.clone()),
                boxed.clone()
            )
                .prop_map(|(iterables, condition, body)| {
                    let iterators = iterables
                        .into_iter()
                        .enumerate()
                        .map(|(k, x)| (format!("i{k}"), x))
                        .collect();
                    e(ExprKind::Comprehension {
                        iterators,
                        condition,
                        body,
                    })
                }),
            (inner.clone(), prop::option::of(inner.clone())).prop_map(|(x, y)| {
                let mut arguments = vec![Argument {
                    name: None,
                    value: x,
                }];
                if let Some(y) = y {
                    arguments.push(Argument {
                        name: Some(("size".into(), Span::default())),
                        value: y,
                    });
                }
                e(ExprKind::Invocation(Invocation {
                    name: "f".into(),
                    generic: None,
                    arguments,
                }))
            }),
        ]
    })
}

/// The right side of `y = ...;` in a fragment body of `text`.
fn parse_rhs(text: &str) -> Expr {
    let doc = parse_document(text).unwrap_or_else(|err| panic!("{err}\n{text}"));
    doc.fragments[0].body.as_ref().expect("a body")[0]
        .rhs
        .clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The printed expression reads back as the same tree: parentheses exactly where
    /// precedence, associativity and prefix operators need them.
    #[test]
    fn expressions_read_back_as_printed(x in expression()) {
        let text = format!(
            "version 1.0;\nextension KHR_enable_fragment_definitions;\n\
             fragment g( a: tensor<scalar> ) -> ( y: tensor<scalar> )\n{{\n    y = {};\n}}\n\
             graph G( a ) -> ( y )\n{{\n    a = external(shape = [1]);\n    y = g(a);\n}}\n",
            print_expr(&x)
        );
        prop_assert_eq!(normal(&parse_rhs(&text)), normal(&x), "{}", text);
    }

    /// parse(print(doc)) prints as doc does, for valid documents and their one-rule mutations.
    #[test]
    fn generated_documents_round_trip(words in prop::collection::vec(any::<u64>(), 0..300), rule in 0..Rule::ALL.len()) {
        let mut rng = Choices::new(words);
        let doc = valid_document(&mut rng, &Config::default());
        let text = print_document(&doc);
        let parsed = parse_document(&text).map_err(|err| TestCaseError::fail(format!("{err}\n{text}")))?;
        prop_assert_eq!(print_document(&parsed), text.clone());
        let rule = Rule::ALL[rule];
        if let Some(mutated) = mutate(&doc, rule, &mut rng) {
            let text = print_document(&mutated);
            // An invocation or literal on the left side is a syntax error for our parser.
            if let Ok(parsed) = parse_document(&text) {
                prop_assert_eq!(print_document(&parsed), text);
            } else {
                prop_assert!(matches!(rule, Rule::LiteralOnLeft | Rule::InvocationOnLeft), "{:?}\n{}", rule, text);
            }
        }
    }
}
