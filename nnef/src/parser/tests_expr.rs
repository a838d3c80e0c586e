//! Unit tests of expressions: literals, operators and their precedence, both select forms,
//! both comprehension forms, subscripts, builtins, invocations, the nesting limit, and that
//! no input panics the parser.

use proptest::prelude::*;

use super::{parse_document, MAX_NESTING_DEPTH};
use crate::ast::{Argument, BinaryOp, Builtin, Expr, ExprKind, Subscript, TypeName, UnaryOp};
use crate::error::{ErrorKind, NnefError, Span};

/// A compact, unambiguous rendering of an expression tree for assertions.
pub(super) fn sexp(e: &Expr) -> String {
    let list = |items: &[Expr]| items.iter().map(sexp).collect::<Vec<_>>().join(" ");
    match &e.kind {
        ExprKind::Identifier(name) => name.clone(),
        ExprKind::Integer(v) => v.to_string(),
        ExprKind::Scalar(v) => format!("{v:?}"),
        ExprKind::Logical(v) => v.to_string(),
        ExprKind::String(s) => format!("'{s}'"),
        ExprKind::Array(items) => format!("[{}]", list(items)),
        ExprKind::Tuple(items) => format!("(tuple {})", list(items)),
        ExprKind::Unary(op, x) => {
            let op = match op {
                UnaryOp::Plus => "pos",
                UnaryOp::Minus => "neg",
                UnaryOp::Not => "not",
            };
            format!("({op} {})", sexp(x))
        }
        ExprKind::Binary(op, a, b) => {
            let op = match op {
                BinaryOp::Add => "+",
                BinaryOp::Sub => "-",
                BinaryOp::Mul => "*",
                BinaryOp::Div => "/",
                BinaryOp::Pow => "^",
                BinaryOp::Lt => "<",
                BinaryOp::Le => "<=",
                BinaryOp::Gt => ">",
                BinaryOp::Ge => ">=",
                BinaryOp::Eq => "==",
                BinaryOp::Ne => "!=",
                BinaryOp::And => "&&",
                BinaryOp::Or => "||",
                BinaryOp::In => "in",
            };
            format!("({op} {} {})", sexp(a), sexp(b))
        }
        ExprKind::Select {
            condition,
            then,
            otherwise,
        } => {
            format!(
                "(if {} {} {})",
                sexp(condition),
                sexp(then),
                sexp(otherwise)
            )
        }
        ExprKind::Comprehension {
            iterators,
            condition,
            body,
        } => {
            let mut s = String::from("(for");
            for (name, iterable) in iterators {
                s += &format!(" ({name} {})", sexp(iterable));
            }
            if let Some(c) = condition {
                s += &format!(" if {}", sexp(c));
            }
            s + &format!(" yield {})", sexp(body))
        }
        ExprKind::Subscript(a, Subscript::Index(i)) => format!("(at {} {})", sexp(a), sexp(i)),
        ExprKind::Subscript(a, Subscript::Range(i, j)) => {
            let end = |x: &Option<Box<Expr>>| x.as_ref().map_or("_".to_string(), |x| sexp(x));
            format!("(slice {} {} {})", sexp(a), end(i), end(j))
        }
        ExprKind::Builtin(f, x) => {
            let f = match f {
                Builtin::ShapeOf => "shape_of",
                Builtin::LengthOf => "length_of",
                Builtin::RangeOf => "range_of",
                Builtin::Integer => "integer",
                Builtin::Scalar => "scalar",
                Builtin::Logical => "logical",
                Builtin::String => "string",
            };
            format!("({f} {})", sexp(x))
        }
        ExprKind::Invocation(inv) => {
            let mut s = format!("(call {}", inv.name);
            if let Some(t) = inv.generic {
                s += &format!("<{t:?}>");
            }
            for Argument { name, value } in &inv.arguments {
                match name {
                    Some((n, _)) => s += &format!(" {n}={}", sexp(value)),
                    None => s += &format!(" {}", sexp(value)),
                }
            }
            s + ")"
        }
    }
}

/// The document text with `rhs` as the right side of the only graph assignment (on line 2,
/// starting at column [`RHS_COLUMN`]).
fn document_with(rhs: &str) -> String {
    format!("version 1.0;\ngraph G( x ) -> ( y ) {{ y = {rhs};\n}}")
}

/// The right side of `y = {rhs};` as an S-expression.
fn rhs(rhs: &str) -> String {
    let doc = parse_document(&document_with(rhs)).unwrap_or_else(|e| panic!("{rhs}: {e}"));
    sexp(&doc.graph.body[0].rhs)
}

/// The error for `y = {rhs};`.
fn rhs_error(rhs: &str) -> NnefError {
    match parse_document(&document_with(rhs)) {
        Ok(doc) => panic!("{rhs}: parsed as {}", sexp(&doc.graph.body[0].rhs)),
        Err(e) => e,
    }
}

/// The column of the right side in [`document_with`]'s line 2.
const RHS_COLUMN: u32 = 29;

#[test]
fn literals() {
    assert_eq!(rhs("1"), "1");
    assert_eq!(rhs("2.5"), "2.5");
    assert_eq!(rhs("1e3"), "1000.0");
    assert_eq!(rhs("true"), "true");
    assert_eq!(rhs("false"), "false");
    assert_eq!(rhs("'abc'"), "'abc'");
    assert_eq!(rhs("\"a b\""), "'a b'");
    assert_eq!(rhs("x"), "x");
}

#[test]
fn negative_literals_are_folded() {
    let doc = parse_document(&document_with("-3")).unwrap();
    let e = &doc.graph.body[0].rhs;
    assert_eq!(e.kind, ExprKind::Integer(-3));
    assert_eq!(e.span, Span::new(2, RHS_COLUMN));
    assert_eq!(rhs("-2.5"), "-2.5");
    assert_eq!(rhs("- 7"), "-7");
    // A negative literal, not `-(2 + 5)` as the Khronos parser reads it.
    assert_eq!(rhs("-2 + 5"), "(+ -2 5)");
    assert_eq!(rhs("2 * -3 + 10"), "(+ (* 2 -3) 10)");
    assert_eq!(rhs("[-1, -2.0]"), "[-1 -2.0]");
    // Not folded where the literal is an operand of a tighter operator.
    assert_eq!(rhs("-2 ^ 2"), "(neg (^ 2 2))");
    assert_eq!(rhs("-a"), "(neg a)");
    assert_eq!(rhs("- -1"), "(neg -1)");
    assert_eq!(rhs("+1"), "(pos 1)");
    assert_eq!(rhs("!flag"), "(not flag)");
}

#[test]
fn arrays_and_tuples() {
    assert_eq!(rhs("[]"), "[]");
    assert_eq!(rhs("[1, 2, 3]"), "[1 2 3]");
    assert_eq!(rhs("[[1], [2, 3], []]"), "[[1] [2 3] []]");
    assert_eq!(rhs("(1, 2)"), "(tuple 1 2)");
    assert_eq!(rhs("((a, b), [c])"), "(tuple (tuple a b) [c])");
    assert_eq!(rhs("[(0, 0), (1, 1)]"), "[(tuple 0 0) (tuple 1 1)]");
    // Seed 003: a tuple on the right side without parentheses.
    assert_eq!(rhs("a, b, 1"), "(tuple a b 1)");
    // A parenthesised single expression is not a tuple.
    assert_eq!(rhs("(a)"), "a");
    assert_eq!(rhs("((1))"), "1");
}

#[test]
fn binary_precedence_follows_the_khronos_parser() {
    assert_eq!(rhs("a + b * c"), "(+ a (* b c))");
    assert_eq!(rhs("a * b + c"), "(+ (* a b) c)");
    assert_eq!(rhs("a - b - c"), "(- (- a b) c)");
    assert_eq!(rhs("a / b * c"), "(* (/ a b) c)");
    // `^` binds tightest among binaries and is left-associative in the Khronos parser.
    assert_eq!(rhs("a * b ^ c"), "(* a (^ b c))");
    assert_eq!(rhs("a ^ b ^ c"), "(^ (^ a b) c)");
    assert_eq!(rhs("a ^ -2.0"), "(^ a -2.0)");
    // Comparisons are looser than arithmetic.
    assert_eq!(rhs("a + 1 < b * 2"), "(< (+ a 1) (* b 2))");
    assert_eq!(rhs("a <= b == c"), "(== (<= a b) c)");
    // `&&` and `||` share one level, looser than comparisons.
    assert_eq!(rhs("a < b && c > d"), "(&& (< a b) (> c d))");
    assert_eq!(rhs("a || b && c"), "(&& (|| a b) c)");
    assert_eq!(rhs("a && b || c"), "(|| (&& a b) c)");
    // `in` is the loosest binary operator.
    assert_eq!(rhs("i in a && b"), "(in i (&& a b))");
    assert_eq!(rhs("i + 1 in axes"), "(in (+ i 1) axes)");
    assert_eq!(rhs("a != b"), "(!= a b)");
    assert_eq!(rhs("a >= b"), "(>= a b)");
    // Parentheses override precedence.
    assert_eq!(rhs("(a + b) * c"), "(* (+ a b) c)");
}

#[test]
fn unary_binds_tighter_than_binary_except_power() {
    assert_eq!(rhs("-a + b"), "(+ (neg a) b)");
    assert_eq!(rhs("-a * b"), "(* (neg a) b)");
    assert_eq!(rhs("-a ^ b"), "(neg (^ a b))");
    assert_eq!(rhs("!a && b"), "(&& (not a) b)");
    assert_eq!(rhs("a * -b"), "(* a (neg b))");
    assert_eq!(rhs("a - -b"), "(- a (neg b))");
    assert_eq!(rhs("-x[0]"), "(neg (at x 0))");
}

#[test]
fn binary_spans_start_at_the_first_token() {
    let doc = parse_document(&document_with("(a + b) * c")).unwrap();
    let e = &doc.graph.body[0].rhs;
    assert_eq!(e.span, Span::new(2, RHS_COLUMN));
    let ExprKind::Binary(_, lhs, rhs) = &e.kind else {
        panic!()
    };
    assert_eq!(lhs.span, Span::new(2, RHS_COLUMN + 1));
    assert_eq!(rhs.span, Span::new(2, RHS_COLUMN + 10));
}

#[test]
fn select_in_both_forms() {
    // NNEF 1.0.5 and seed 003: `a if c else b`, looser than every binary operator.
    assert_eq!(rhs("a if c else b"), "(if c a b)");
    assert_eq!(
        rhs("a + 1 if c > 0 else b - 1"),
        "(if (> c 0) (+ a 1) (- b 1))"
    );
    assert_eq!(rhs("a if c else b if d else e"), "(if c a (if d b e))");
    // The prefix form `if c then a else b`.
    assert_eq!(rhs("if c then a else b"), "(if c a b)");
    assert_eq!(rhs("if c > 0 then a + 1 else b"), "(if (> c 0) (+ a 1) b)");
    assert_eq!(
        rhs("if c then a else if d then b else e"),
        "(if c a (if d b e))"
    );
    assert_eq!(rhs("1 + if c then a else b"), "(+ 1 (if c a b))");
    assert_eq!(rhs("(if c then a else b) * 2"), "(* (if c a b) 2)");
    // `then` is not reserved.
    assert_eq!(rhs("if then then then else then"), "(if then then then)");
    // Spans: the postfix form starts at its value, the prefix form at `if`.
    let doc = parse_document(&document_with("a if c else b")).unwrap();
    assert_eq!(doc.graph.body[0].rhs.span, Span::new(2, RHS_COLUMN));
}

#[test]
fn select_errors() {
    let e = rhs_error("a if c");
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 6));
    assert_eq!(
        e.message,
        "expected 'else' of the if-else expression, found ';'"
    );
    let e = rhs_error("if c else b");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 5));
    assert_eq!(
        e.message,
        "expected 'then' of the if-then-else expression, found keyword 'else'"
    );
    let e = rhs_error("if c then a");
    assert_eq!(
        e.message,
        "expected 'else' of the if-then-else expression, found ';'"
    );
}

#[test]
fn comprehension_in_both_forms() {
    // NNEF 1.0.5.
    assert_eq!(rhs("[for i in a yield i * 2]"), "(for (i a) yield (* i 2))");
    assert_eq!(
        rhs("[for i in a, j in b yield i + j]"),
        "(for (i a) (j b) yield (+ i j))"
    );
    assert_eq!(
        rhs("[for i in range_of(a) if i != 1 yield a[i]]"),
        "(for (i (range_of a)) if (!= i 1) yield (at a i))"
    );
    // Seed 003.
    assert_eq!(rhs("[i * 2 for i in a]"), "(for (i a) yield (* i 2))");
    assert_eq!(
        rhs("[a[i] for i in range_of(a) if i != 1]"),
        "(for (i (range_of a)) if (!= i 1) yield (at a i))"
    );
    assert_eq!(
        rhs("[i + j for i in a, j in b]"),
        "(for (i a) (j b) yield (+ i j))"
    );
    // The `if` after an iterable is the filter, not a select inside the iterable.
    assert_eq!(
        rhs("[x for x in a if x > 0]"),
        "(for (x a) if (> x 0) yield x)"
    );
    assert_eq!(
        rhs("[for x in a if x > 0 yield x]"),
        "(for (x a) if (> x 0) yield x)"
    );
    // ... but a select in parentheses, in the item or in the filter is fine.
    assert_eq!(
        rhs("[x for x in (a if c else b)]"),
        "(for (x (if c a b)) yield x)"
    );
    assert_eq!(
        rhs("[x if c else 0 for x in a]"),
        "(for (x a) yield (if c x 0))"
    );
    assert_eq!(
        rhs("[for x in a yield x if c else 0]"),
        "(for (x a) yield (if c x 0))"
    );
    assert_eq!(
        rhs("[x for x in a if p if q else r]"),
        "(for (x a) if (if q p r) yield x)"
    );
    // Nested.
    assert_eq!(
        rhs("[[j for j in i] for i in a]"),
        "(for (i a) yield (for (j i) yield j))"
    );
}

#[test]
fn comprehension_errors() {
    let e = rhs_error("[for i in a]");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 11));
    assert_eq!(e.message, "expected ',', 'if' or 'yield', found ']'");
    let e = rhs_error("[for i in a if c]");
    assert_eq!(e.message, "expected 'yield', found ']'");
    let e = rhs_error("[for 1 in a yield 1]");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 5));
    assert_eq!(
        e.message,
        "expected a loop variable, found integer literal '1'"
    );
    let e = rhs_error("[i for i of a]");
    assert_eq!(
        e.message,
        "expected 'in' after the loop variable, found identifier 'of'"
    );
    let e = rhs_error("[i for i in a yield i]");
    assert_eq!(
        e.message,
        "expected ',', 'if' or ']' in the comprehension, found keyword 'yield'"
    );
}

#[test]
fn subscripts() {
    assert_eq!(rhs("a[0]"), "(at a 0)");
    assert_eq!(rhs("a[i + 1]"), "(at a (+ i 1))");
    assert_eq!(rhs("a[1:3]"), "(slice a 1 3)");
    assert_eq!(rhs("a[:j]"), "(slice a _ j)");
    assert_eq!(rhs("a[i:]"), "(slice a i _)");
    assert_eq!(rhs("a[:]"), "(slice a _ _)");
    assert_eq!(rhs("a[0][1]"), "(at (at a 0) 1)");
    assert_eq!(rhs("shape_of(x)[1:]"), "(slice (shape_of x) 1 _)");
    assert_eq!(rhs("f(x)[0]"), "(at (call f x) 0)");
    assert_eq!(rhs("[1, 2][0]"), "(at [1 2] 0)");
    assert_eq!(rhs("(a, b)[1]"), "(at (tuple a b) 1)");
    let e = rhs_error("a[1:2:3]");
    assert_eq!(e.message, "expected ']' closing the subscript, found ':'");
    let e = rhs_error("a[]");
    assert_eq!(e.message, "expected an expression, found ']'");
}

#[test]
fn builtins_and_casts() {
    assert_eq!(rhs("shape_of(x)"), "(shape_of x)");
    assert_eq!(rhs("length_of(a) - 1"), "(- (length_of a) 1)");
    assert_eq!(rhs("range_of(a)"), "(range_of a)");
    assert_eq!(rhs("integer(2.5)"), "(integer 2.5)");
    assert_eq!(rhs("extent(2.5)"), "(integer 2.5)");
    assert_eq!(rhs("scalar(n)"), "(scalar n)");
    assert_eq!(rhs("logical(1)"), "(logical 1)");
    assert_eq!(rhs("string(1)"), "(string 1)");
    let e = rhs_error("shape_of x");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 9));
    assert_eq!(
        e.message,
        "expected '(' after 'shape_of', found identifier 'x'"
    );
    let e = rhs_error("length_of(a, b)");
    assert_eq!(
        e.message,
        "expected ')' closing the builtin's argument, found ','"
    );
    let e = rhs_error("tensor(x)");
    assert_eq!(e.message, "expected an expression, found keyword 'tensor'");
}

#[test]
fn invocations() {
    assert_eq!(rhs("relu(x)"), "(call relu x)");
    assert_eq!(
        rhs("conv(x, w, 0.0, border = 'constant', padding = [(0, 0), (1, 1)])"),
        "(call conv x w 0.0 border='constant' padding=[(tuple 0 0) (tuple 1 1)])"
    );
    assert_eq!(
        rhs("external<scalar>(shape = [1, 2])"),
        "(call external<Scalar> shape=[1 2])"
    );
    assert_eq!(rhs("f<integer>(x)"), "(call f<Integer> x)");
    assert_eq!(rhs("f<extent>(x)"), "(call f<Integer> x)");
    assert_eq!(rhs("f<logical>(x)"), "(call f<Logical> x)");
    assert_eq!(rhs("buzz<?>(x)"), "(call buzz<Generic> x)");
    // Any expression as an argument; order of positional and named is a semantic matter.
    assert_eq!(
        rhs("f(a + b, n = length_of(s) if c else 0)"),
        "(call f (+ a b) n=(if c (length_of s) 0))"
    );
    assert_eq!(rhs("f(k = 1, x)"), "(call f k=1 x)");
    assert_eq!(rhs("f(x == 1)"), "(call f (== x 1))");
    assert_eq!(rhs("f(g(h(x)))"), "(call f (call g (call h x)))");
    // `<` not followed by a type name and `>` is a comparison.
    assert_eq!(rhs("a < b"), "(< a b)");
    assert_eq!(rhs("a < scalar(b)"), "(< a (scalar b))");
    // Argument names are recorded with their positions.
    let doc = parse_document(&document_with("f(x, k = 1)")).unwrap();
    let ExprKind::Invocation(inv) = &doc.graph.body[0].rhs.kind else {
        panic!()
    };
    assert_eq!(inv.generic, None::<TypeName>);
    assert_eq!(
        inv.arguments[1].name,
        Some(("k".to_string(), Span::new(2, RHS_COLUMN + 5)))
    );
    assert_eq!(inv.arguments[1].value.span, Span::new(2, RHS_COLUMN + 9));
}

#[test]
fn invocation_errors() {
    let e = rhs_error("f()");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 2));
    assert_eq!(e.message, "expected an argument, found ')'");
    let e = rhs_error("f(x");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 3));
    assert_eq!(
        e.message,
        "expected ',' or ')' in the arguments of 'f', found ';'"
    );
    let e = rhs_error("f(x,)");
    assert_eq!(e.message, "expected an argument, found ')'");
    let e = rhs_error("f(k = )");
    assert_eq!(e.message, "expected an argument, found ')'");
    let e = rhs_error("f<tensor>(x)");
    assert_eq!(e.message, "expected an expression, found keyword 'tensor'");
    let e = rhs_error("f<scalar>[x]");
    assert_eq!(
        e.message,
        "expected '(' opening the arguments of 'f', found '['"
    );
}

#[test]
fn expression_errors_name_line_and_column() {
    let e = rhs_error("a +");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 3));
    assert_eq!(e.message, "expected an expression, found ';'");
    let e = rhs_error("(a + b");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 6));
    assert_eq!(e.message, "expected ')' closing the parenthesis, found ';'");
    let e = rhs_error("(a, b");
    assert_eq!(e.message, "expected ',' or ')' in the tuple, found ';'");
    let e = rhs_error("[1, 2");
    assert_eq!(e.message, "expected ',' or ']' in the array, found ';'");
    let e = rhs_error("()");
    assert_eq!(e.message, "expected an expression, found ')'");
    let e = rhs_error("a b");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 2));
    assert_eq!(
        e.message,
        "expected ';' after the assignment, found identifier 'b'"
    );
    let e = rhs_error("a 1e3");
    assert_eq!(
        e.message,
        "expected ';' after the assignment, found real literal '1e3'"
    );
    let e = rhs_error("graph");
    assert_eq!(e.message, "expected an expression, found keyword 'graph'");
    let e = rhs_error("a = b");
    assert_eq!(e.message, "expected ';' after the assignment, found '='");
    // A lexical error inside an expression is reported where it is.
    let e = rhs_error("a + 'oops");
    assert_eq!(e.span, Span::new(2, RHS_COLUMN + 4));
    assert!(e.message.starts_with("unterminated string literal"), "{e}");
}

/// True for the nesting-limit error.
pub(super) fn is_depth_error(e: &NnefError) -> bool {
    e.kind == ErrorKind::Syntax
        && e.message.starts_with(&format!(
            "expected at most {MAX_NESTING_DEPTH} nested levels"
        ))
}

/// `n` nested copies of `open` around `x`, closed by `close`.
fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}x{}", open.repeat(n), close.repeat(n))
}

/// The nestable forms: opening and closing text around the inner expression, and how many
/// nesting units one level costs.
const NESTABLE: &[(&str, &str, usize)] = &[
    ("(", ")", 1),
    ("[", "]", 1),
    ("(x, ", ")", 1),
    ("f(", ")", 1),
    ("f(k = ", ")", 1),
    ("-", "", 1),
    ("!", "", 1),
    ("+", "", 1),
    ("a[", "]", 2),
    ("a[1:", "]", 2),
    ("shape_of(", ")", 1),
    ("if c then a else ", "", 1),
    ("a if c else ", "", 1),
    ("[for i in ", " yield i]", 1),
    ("[for i in a yield ", "]", 1),
    ("[i for i in ", "]", 1),
];

#[test]
fn nesting_up_to_the_limit_parses_within_a_default_thread_stack() {
    // Run where the stack is the 2 MiB Rust gives spawned threads, whatever the test harness
    // is configured with.
    let worker = std::thread::Builder::new().stack_size(2 << 20).spawn(|| {
        for &(open, close, units) in NESTABLE {
            // Leave a few units for the assignment's own expression.
            let n = (MAX_NESTING_DEPTH as usize - 4) / units;
            let src = document_with(&nested(open, close, n));
            if let Err(e) = parse_document(&src) {
                panic!("{open}: {e}");
            }
        }
    });
    worker.unwrap().join().unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for &(open, close, _) in NESTABLE {
        for n in [MAX_NESTING_DEPTH as usize + 1, 100_000] {
            let src = document_with(&nested(open, close, n));
            let e = parse_document(&src).expect_err(open);
            assert!(is_depth_error(&e), "{open}: {e}");
            assert_eq!(e.span.line, 2, "{open}: {e}");
        }
    }
    // Long operator chains build deep trees too.
    for op in ["+", "^", "&&", "in"] {
        let chain = vec!["a"; 100_000].join(&format!(" {op} "));
        let e = parse_document(&document_with(&chain)).expect_err(op);
        assert!(is_depth_error(&e), "{op}: {e}");
    }
    let e = parse_document(&document_with(&format!("x{}", "[0]".repeat(100_000)))).unwrap_err();
    assert!(is_depth_error(&e), "{e}");
    // Unclosed brackets at the end of input.
    let e = parse_document(&format!(
        "version 1.0; graph G(x) -> (y) {{ y = {}",
        "(".repeat(100_000)
    ))
    .unwrap_err();
    assert!(is_depth_error(&e), "{e}");
}

#[test]
fn long_flat_lists_are_not_nesting() {
    let items = vec!["1"; 100_000].join(", ");
    assert!(parse_document(&document_with(&format!("[{items}]"))).is_ok());
    assert!(parse_document(&document_with(&format!("f({items})"))).is_ok());
}

/// Pieces of NNEF text, for token soups.
const TOKENS: &[&str] = &[
    "version",
    "1.0",
    ";",
    "extension",
    "KHR_enable_fragment_definitions",
    "fragment",
    "graph",
    "G",
    "x",
    "y",
    "f",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "<=",
    ">=",
    "==",
    "!=",
    "&&",
    "||",
    "!",
    "+",
    "-",
    "*",
    "/",
    "^",
    ":",
    ",",
    "=",
    "->",
    "?",
    "tensor",
    "integer",
    "extent",
    "scalar",
    "logical",
    "string",
    "true",
    "false",
    "shape_of",
    "length_of",
    "range_of",
    "for",
    "in",
    "yield",
    "if",
    "then",
    "else",
    "0",
    "42",
    "2.5",
    "1e3",
    "'s'",
    "\"t\"",
    "#c\n",
    "\n",
    "9999999999999999999",
    "'open",
    "$",
    "é",
    "1e",
    "\\",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec((0..TOKENS.len(), prop::bool::ANY), 0..80).prop_map(|picks| {
        picks
            .into_iter()
            .map(|(i, space)| format!("{}{}", TOKENS[i], if space { " " } else { "" }))
            .collect()
    })
}

/// The start of a valid document, so that soups reach the graph body.
const PREFIX: &str =
    "version 1.0;\nfragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{ y = ";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(src in any::<String>()) {
        let _ = parse_document(&src);
        let _ = super::parse_fragments(&src);
        let _ = super::parse_quantization(&src);
    }

    #[test]
    fn token_soups_never_panic(soup in token_soup()) {
        let _ = parse_document(&soup);
        let _ = parse_document(&format!("{PREFIX}{soup}"));
        let _ = super::parse_fragments(&format!("fragment f( x: {soup}"));
        let _ = super::parse_quantization(&format!("\"t\": {soup}"));
    }

    #[test]
    fn errors_point_inside_the_input(soup in token_soup()) {
        let src = format!("{PREFIX}{soup}");
        if let Err(e) = parse_document(&src) {
            let lines = src.split('\n').count() as u32;
            prop_assert!(e.span.line >= 1 && e.span.line <= lines, "{} in {:?}", e, src);
            prop_assert!(e.span.column >= 1);
            prop_assert!(e.message.starts_with("expected") || e.message.starts_with("unterminated"), "{}", e);
        }
    }
}

/// Random expressions over a small grammar, rendered fully parenthesised.
fn arb_expr() -> impl Strategy<Value = (String, String)> {
    let leaf = prop_oneof![
        (0i64..100).prop_map(|v| (v.to_string(), v.to_string())),
        prop::sample::select(vec!["a", "b", "c"]).prop_map(|s| (s.to_string(), s.to_string())),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/", "^", "<", "==", "&&", "||"]),
                inner.clone()
            )
                .prop_map(|((ta, sa), op, (tb, sb))| (
                    format!("({ta} {op} {tb})"),
                    format!("({op} {sa} {sb})")
                )),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(
                |((ta, sa), (tb, sb), (tc, sc))| {
                    (
                        format!("({ta} if {tb} else {tc})"),
                        format!("(if {sb} {sa} {sc})"),
                    )
                }
            ),
            (inner.clone(), inner.clone()).prop_map(|((ta, sa), (tb, sb))| (
                format!("{ta}[{tb}]"),
                format!("(at {sa} {sb})")
            )),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|items| {
                let texts: Vec<String> = items.iter().map(|(t, _)| t.clone()).collect();
                let sexps: Vec<String> = items.iter().map(|(_, s)| s.clone()).collect();
                (
                    format!("[{}]", texts.join(", ")),
                    format!("[{}]", sexps.join(" ")),
                )
            }),
            inner.prop_map(|(t, s)| (format!("f({t}, k = {t})"), format!("(call f {s} k={s})"))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parenthesised_expressions_parse_to_their_structure((text, expected) in arb_expr()) {
        prop_assert_eq!(rhs(&text), expected);
    }
}
