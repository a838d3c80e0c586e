//! Unit tests of the lexer: every token class, positions, and every lexical error.

use super::*;
use TokenKind as T;

/// The token kinds of `src`, without positions, without the final `Eof`.
fn kinds(src: &str) -> Vec<TokenKind> {
    let mut tokens: Vec<TokenKind> = tokenize(src).unwrap().into_iter().map(|t| t.kind).collect();
    assert_eq!(tokens.pop(), Some(TokenKind::Eof));
    tokens
}

fn err(src: &str) -> NnefError {
    tokenize(src).expect_err(src)
}

#[test]
fn identifiers_and_keywords() {
    assert_eq!(
        kinds("conv1 _x A_9 graph extent then yield"),
        vec![
            T::Identifier("conv1".into()),
            T::Identifier("_x".into()),
            T::Identifier("A_9".into()),
            T::Keyword(Keyword::Graph),
            T::Keyword(Keyword::Extent),
            T::Identifier("then".into()),
            T::Keyword(Keyword::Yield),
        ]
    );
    for k in Keyword::ALL {
        assert_eq!(kinds(k.as_str()), vec![T::Keyword(k)]);
        // A keyword prefix of a longer word is an identifier.
        assert_eq!(
            kinds(&format!("{}x", k.as_str())),
            vec![T::Identifier(format!("{}x", k.as_str()))]
        );
    }
}

#[test]
fn numbers_integer_versus_real() {
    assert_eq!(
        kinds("0 42 007 1.0 1. 2.5e3 1e-2 3E+1"),
        vec![
            T::Integer(0),
            T::Integer(42),
            T::Integer(7),
            T::Real(1.0),
            T::Real(1.0),
            T::Real(2500.0),
            T::Real(0.01),
            T::Real(30.0),
        ]
    );
    assert_eq!(kinds("9223372036854775807"), vec![T::Integer(i64::MAX)]);
    // The sign is an operator token.
    assert_eq!(kinds("-1"), vec![T::Minus, T::Integer(1)]);
}

#[test]
fn bad_numbers() {
    let e = err("x = 9223372036854775808");
    assert_eq!(e.span, Span::new(1, 5));
    assert!(
        e.message
            .contains("expected an integer literal of at most 9223372036854775807"),
        "{e}"
    );
    let e = err("1e");
    assert_eq!(e.span, Span::new(1, 3));
    assert_eq!(
        e.message,
        "expected a digit in the exponent of numeric literal '1e', found end of input"
    );
    let e = err("  2e+x");
    assert_eq!(e.span, Span::new(1, 6));
    let e = err("12abc");
    assert_eq!(e.span, Span::new(1, 3));
    assert_eq!(
        e.message,
        "expected a delimiter after numeric literal '12', found 'a'"
    );
    let e = err("1.2.3");
    assert_eq!(e.span, Span::new(1, 4));
    let e = err("1e999");
    assert_eq!(
        e.message,
        "expected a real literal within the f64 range, found '1e999'"
    );
}

#[test]
fn strings() {
    assert_eq!(
        kinds(r#"'abc' "d'e" 'f"g' '' 'a\'b' "c\\d" 'x\"y'"#),
        vec![
            T::String("abc".into()),
            T::String("d'e".into()),
            T::String("f\"g".into()),
            T::String(String::new()),
            T::String("a'b".into()),
            T::String("c\\d".into()),
            T::String("x\"y".into()),
        ]
    );
    assert_eq!(
        kinds("'é # not a comment'"),
        vec![T::String("é # not a comment".into())]
    );
}

#[test]
fn bad_strings() {
    let e = err("x = 'abc");
    assert_eq!(e.span, Span::new(1, 5));
    assert_eq!(
        e.message,
        "unterminated string literal: expected closing ', found end of input"
    );
    let e = err("\n  \"ab\ncd\"");
    assert_eq!(e.span, Span::new(2, 3));
    assert_eq!(
        e.message,
        "unterminated string literal: expected closing \", found end of line"
    );
    let e = err(r"'a\nb'");
    assert_eq!(e.span, Span::new(1, 3));
    assert!(e.message.starts_with("expected \\\\, \\' or \\\""), "{e}");
    assert!(e.message.ends_with("found '\\' followed by 'n'"), "{e}");
}

#[test]
fn operators_and_punctuation() {
    assert_eq!(
        kinds("( ) [ ] { } : ; , = -> ? + - * / ^ < <= > >= == != && || !"),
        vec![
            T::LParen,
            T::RParen,
            T::LBracket,
            T::RBracket,
            T::LBrace,
            T::RBrace,
            T::Colon,
            T::Semicolon,
            T::Comma,
            T::Assign,
            T::Arrow,
            T::Question,
            T::Plus,
            T::Minus,
            T::Star,
            T::Slash,
            T::Caret,
            T::Lt,
            T::Le,
            T::Gt,
            T::Ge,
            T::EqEq,
            T::Ne,
            T::AndAnd,
            T::OrOr,
            T::Bang,
        ]
    );
    // Maximal munch without spaces.
    assert_eq!(
        kinds("a<=-b"),
        vec![
            T::Identifier("a".into()),
            T::Le,
            T::Minus,
            T::Identifier("b".into())
        ]
    );
    assert_eq!(kinds("->-"), vec![T::Arrow, T::Minus]);
}

#[test]
fn stray_characters() {
    let e = err("a = b & c");
    assert_eq!(e.span, Span::new(1, 7));
    assert_eq!(
        e.message,
        "expected a token, found unexpected character '&'"
    );
    let e = err("x\n  é");
    assert_eq!(e.span, Span::new(2, 3));
    assert_eq!(
        e.message,
        "expected a token, found unexpected character U+00E9 'é'"
    );
    assert_eq!(err("$").span, Span::new(1, 1));
    assert_eq!(err("a.b").span, Span::new(1, 2));
}

#[test]
fn comments_whitespace_and_positions() {
    let tokens = tokenize("# header\nversion 1.0; # trailing\r\n\tgraph\x0b\x0cG # end").unwrap();
    let summary: Vec<(TokenKind, u32, u32, bool)> = tokens
        .iter()
        .map(|t| (t.kind.clone(), t.span.line, t.span.column, t.newline_before))
        .collect();
    assert_eq!(
        summary,
        vec![
            (T::Keyword(Keyword::Version), 2, 1, true),
            (T::Real(1.0), 2, 9, false),
            (T::Semicolon, 2, 12, false),
            (T::Keyword(Keyword::Graph), 3, 2, true),
            (T::Identifier("G".into()), 3, 9, false),
            (T::Eof, 3, 16, false),
        ]
    );
    // Columns count characters, not bytes; byte offsets are kept.
    let tokens = tokenize("'éé' x").unwrap();
    assert_eq!(tokens[1].span, Span::new(1, 6));
    assert_eq!(tokens[1].start, 7);
    // A lone '\r' is a line break too.
    assert_eq!(tokenize("a\rb").unwrap()[1].span, Span::new(2, 1));
}

#[test]
fn empty_and_comment_only_input() {
    assert_eq!(kinds(""), vec![]);
    assert_eq!(kinds("# only a comment"), vec![]);
    assert_eq!(kinds("  \n\t "), vec![]);
}

#[test]
fn tokens_before_an_error_are_kept() {
    let (tokens, error) = tokenize_until_error("a b 'c");
    let error = error.unwrap();
    assert_eq!(error.span, Span::new(1, 5));
    assert_eq!(tokens.len(), 3);
    assert_eq!(tokens[2].kind, T::Eof);
    assert_eq!(tokens[2].span, Span::new(1, 5));
}

#[test]
fn describe_names_tokens() {
    assert_eq!(T::Identifier("x".into()).describe(), "identifier 'x'");
    assert_eq!(T::Integer(3).describe(), "integer literal '3'");
    assert_eq!(T::Real(1.0).describe(), "real literal '1.0'");
    assert_eq!(T::String("s".into()).describe(), "string literal \"s\"");
    assert_eq!(T::Keyword(Keyword::Graph).describe(), "keyword 'graph'");
    assert_eq!(T::Arrow.describe(), "'->'");
    assert_eq!(T::Eof.describe(), "end of input");
}
