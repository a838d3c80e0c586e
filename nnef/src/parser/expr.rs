//! Expressions: right values (with the operator precedence of the Khronos reference parser),
//! left values of assignments, literal expressions of default values, and invocations.
//!
//! Binary precedence, loosest first (all left-associative, as in the Khronos parser's table):
//! `in` (10); `&&` `||` (20); `<` `<=` `>` `>=` `==` `!=` (30); `+` `-` (40); `*` `/` (50);
//! `^` (60). Unary `+ - !` take a `^`-level operand. Postfix `[...]` binds tightest. A select
//! `a if c else b` is looser than every binary operator.

use super::Parser;
use crate::ast::{
    Argument, BinaryOp, Builtin, Expr, ExprKind, Invocation, Subscript, TypeName, UnaryOp,
};
use crate::error::{NnefError, Span};
use crate::lexer::{Keyword, TokenKind};

/// The precedence of `^`, the tightest binary operator; unary operands are parsed at it.
const POWER_PRECEDENCE: u8 = 60;

/// The precedence and operator of a binary operator token.
fn binary_operator(kind: &TokenKind) -> Option<(u8, BinaryOp)> {
    Some(match kind {
        TokenKind::Keyword(Keyword::In) => (10, BinaryOp::In),
        TokenKind::AndAnd => (20, BinaryOp::And),
        TokenKind::OrOr => (20, BinaryOp::Or),
        TokenKind::Lt => (30, BinaryOp::Lt),
        TokenKind::Le => (30, BinaryOp::Le),
        TokenKind::Gt => (30, BinaryOp::Gt),
        TokenKind::Ge => (30, BinaryOp::Ge),
        TokenKind::EqEq => (30, BinaryOp::Eq),
        TokenKind::Ne => (30, BinaryOp::Ne),
        TokenKind::Plus => (40, BinaryOp::Add),
        TokenKind::Minus => (40, BinaryOp::Sub),
        TokenKind::Star => (50, BinaryOp::Mul),
        TokenKind::Slash => (50, BinaryOp::Div),
        TokenKind::Caret => (POWER_PRECEDENCE, BinaryOp::Pow),
        _ => return None,
    })
}

/// The builtin function or cast a keyword names.
fn builtin(kind: &TokenKind) -> Option<Builtin> {
    Some(match kind {
        TokenKind::Keyword(Keyword::ShapeOf) => Builtin::ShapeOf,
        TokenKind::Keyword(Keyword::LengthOf) => Builtin::LengthOf,
        TokenKind::Keyword(Keyword::RangeOf) => Builtin::RangeOf,
        TokenKind::Keyword(Keyword::Integer | Keyword::Extent) => Builtin::Integer,
        TokenKind::Keyword(Keyword::Scalar) => Builtin::Scalar,
        TokenKind::Keyword(Keyword::Logical) => Builtin::Logical,
        TokenKind::Keyword(Keyword::String) => Builtin::String,
        _ => return None,
    })
}

/// True for the tokens that can start a literal expression.
fn starts_literal(kind: &TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Integer(_)
            | TokenKind::Real(_)
            | TokenKind::String(_)
            | TokenKind::Keyword(Keyword::True | Keyword::False)
            | TokenKind::LBracket
            | TokenKind::LParen
            | TokenKind::Minus
    )
}

fn boxed(expr: Expr) -> Box<Expr> {
    Box::new(expr)
}

impl Parser<'_> {
    // ----- right values -----
    //
    // The recursive path through a nested bracket is expr -> binary -> unary -> postfix ->
    // primary -> (parenthesized | array_or_comprehension | invocation | ...) -> expr. Those
    // functions are kept lean and the less common forms live in separate, non-inlined
    // functions, so that a nesting level costs little stack even in unoptimised builds.

    /// The right side of an assignment: an expression, or an unparenthesised tuple of them
    /// (seed 003).
    pub(super) fn rvalue_top(&mut self) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let first = self.expr(true)?;
        if !self.at(&TokenKind::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(&TokenKind::Comma) {
            items.push(self.expr(true)?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), span))
    }

    /// An expression; with `allow_select`, a trailing `if c else b` makes it a select (off for
    /// comprehension iterables, where `if` starts the filter).
    pub(super) fn expr(&mut self, allow_select: bool) -> Result<Expr, NnefError> {
        self.enter()?;
        let saved = std::mem::replace(&mut self.allow_select, allow_select);
        let span = self.peek().span;
        let mut expr = self.binary(0)?;
        if allow_select && self.at_keyword(Keyword::If) {
            expr = self.postfix_select(expr, span)?;
        }
        self.allow_select = saved;
        self.leave(1);
        Ok(expr)
    }

    /// `then if condition else otherwise`, at the `if`.
    #[inline(never)]
    fn postfix_select(&mut self, then: Expr, span: Span) -> Result<Expr, NnefError> {
        let allow_select = self.allow_select;
        self.advance();
        let condition = self.expr(true)?;
        self.expect_keyword(Keyword::Else, "'else' of the if-else expression")?;
        let otherwise = self.expr(allow_select)?;
        let kind = ExprKind::Select {
            condition: boxed(condition),
            then: boxed(then),
            otherwise: boxed(otherwise),
        };
        Ok(Expr::new(kind, span))
    }

    /// Precedence climbing over binary operators of precedence `min_precedence` or tighter.
    fn binary(&mut self, min_precedence: u8) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let mut lhs = self.unary()?;
        let mut chain = 0;
        while let Some((precedence, op)) = binary_operator(&self.peek().kind) {
            if precedence < min_precedence {
                break;
            }
            self.advance();
            self.enter()?;
            chain += 1;
            let rhs = self.binary(precedence + 1)?;
            lhs = Expr::new(ExprKind::Binary(op, boxed(lhs), boxed(rhs)), span);
        }
        self.leave(chain);
        Ok(lhs)
    }

    /// `+x`, `-x`, `!x` (operand at `^` level), a negative literal, or a postfix expression.
    fn unary(&mut self) -> Result<Expr, NnefError> {
        let op = match self.peek().kind {
            TokenKind::Plus => UnaryOp::Plus,
            TokenKind::Minus => UnaryOp::Minus,
            TokenKind::Bang => UnaryOp::Not,
            _ => return self.postfix(),
        };
        let span = self.advance().span;
        if op == UnaryOp::Minus {
            if let Some(literal) = self.negative_literal(span) {
                return Ok(literal);
            }
        }
        self.enter()?;
        let operand = self.binary(POWER_PRECEDENCE)?;
        self.leave(1);
        Ok(Expr::new(ExprKind::Unary(op, boxed(operand)), span))
    }

    /// After a `-` at `span`: the negated numeric literal that follows, unless it is the operand
    /// of `^` or of a subscript.
    fn negative_literal(&mut self, span: Span) -> Option<Expr> {
        if self.starts_postfix_at(1) || self.peek_nth(1).kind == TokenKind::Caret {
            return None;
        }
        let kind = match self.peek().kind {
            TokenKind::Integer(v) => ExprKind::Integer(-v),
            TokenKind::Real(v) => ExprKind::Scalar(-v),
            _ => return None,
        };
        self.advance();
        Some(Expr::new(kind, span))
    }

    /// True if the token `n` ahead is a `[` that subscripts the expression before it: not one
    /// that starts a new line at the top level of an assignment.
    fn starts_postfix_at(&self, n: usize) -> bool {
        let token = self.peek_nth(n);
        token.kind == TokenKind::LBracket
            && !(self.starts_statement(token) && self.group_depth == 0)
    }

    /// A primary expression followed by subscripts.
    fn postfix(&mut self) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let mut expr = self.primary()?;
        let mut chain = 0;
        while self.starts_postfix_at(0) {
            self.enter()?;
            chain += 1;
            let subscript = self.subscript()?;
            expr = Expr::new(ExprKind::Subscript(boxed(expr), subscript), span);
        }
        self.leave(chain);
        Ok(expr)
    }

    /// `[i]`, `[i:j]`, `[:j]`, `[i:]` or `[:]`, at the `[`.
    #[inline(never)]
    fn subscript(&mut self) -> Result<Subscript, NnefError> {
        self.advance();
        self.group_depth += 1;
        let begin = if self.at(&TokenKind::Colon) {
            None
        } else {
            Some(boxed(self.expr(true)?))
        };
        let subscript = if self.eat(&TokenKind::Colon) {
            let end = if self.at(&TokenKind::RBracket) {
                None
            } else {
                Some(boxed(self.expr(true)?))
            };
            Subscript::Range(begin, end)
        } else {
            match begin {
                Some(index) => Subscript::Index(index),
                None => return Err(self.expected("an expression")),
            }
        };
        self.expect(&TokenKind::RBracket, "']' closing the subscript")?;
        self.group_depth -= 1;
        Ok(subscript)
    }

    fn primary(&mut self) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let kind = match &self.peek().kind {
            TokenKind::Identifier(_) => return self.name_or_invocation(),
            TokenKind::LParen => return self.parenthesized(),
            TokenKind::LBracket => return self.array_or_comprehension(),
            TokenKind::Keyword(Keyword::If) => return self.prefix_select(),
            TokenKind::Integer(v) => ExprKind::Integer(*v),
            TokenKind::Real(v) => ExprKind::Scalar(*v),
            TokenKind::String(s) => ExprKind::String(s.clone()),
            TokenKind::Keyword(Keyword::True) => ExprKind::Logical(true),
            TokenKind::Keyword(Keyword::False) => ExprKind::Logical(false),
            other => match builtin(other) {
                Some(function) => return self.builtin_call(function),
                None => return Err(self.expected("an expression")),
            },
        };
        self.advance();
        Ok(Expr::new(kind, span))
    }

    /// An identifier, or an invocation if `(` or `<T>` follows the name.
    #[inline(never)]
    fn name_or_invocation(&mut self) -> Result<Expr, NnefError> {
        let (name, span) = self.identifier("an identifier")?;
        let kind = if self.at_generic_argument() || self.at_call_paren() {
            ExprKind::Invocation(self.invocation(name)?)
        } else {
            ExprKind::Identifier(name)
        };
        Ok(Expr::new(kind, span))
    }

    /// `if c then a else b`, at the `if`.
    #[inline(never)]
    fn prefix_select(&mut self) -> Result<Expr, NnefError> {
        let span = self.advance().span;
        let allow_select = self.allow_select;
        let condition = self.expr(true)?;
        match &self.peek().kind {
            TokenKind::Identifier(word) if word == "then" => {
                self.advance();
            }
            _ => return Err(self.expected("'then' of the if-then-else expression")),
        }
        let then = self.expr(true)?;
        self.expect_keyword(Keyword::Else, "'else' of the if-then-else expression")?;
        let otherwise = self.expr(allow_select)?;
        let kind = ExprKind::Select {
            condition: boxed(condition),
            then: boxed(then),
            otherwise: boxed(otherwise),
        };
        Ok(Expr::new(kind, span))
    }

    /// `shape_of(x)`, `integer(x)`, ..., at the keyword.
    #[inline(never)]
    fn builtin_call(&mut self, function: Builtin) -> Result<Expr, NnefError> {
        let keyword = self.advance();
        if !self.at(&TokenKind::LParen) {
            let name = &self.src[keyword.start..keyword.end];
            return Err(self.expected(&format!("'(' after '{name}'")));
        }
        self.advance();
        self.group_depth += 1;
        let argument = self.expr(true)?;
        self.expect(&TokenKind::RParen, "')' closing the builtin's argument")?;
        self.group_depth -= 1;
        Ok(Expr::new(
            ExprKind::Builtin(function, boxed(argument)),
            keyword.span,
        ))
    }

    /// After a name: `<` type-name `>` of a generic invocation `name<T>(...)` (a binary `<`
    /// can never be followed by a type name and `>`).
    fn at_generic_argument(&self) -> bool {
        self.at(&TokenKind::Lt)
            && matches!(
                self.peek_nth(1).kind,
                TokenKind::Question
                    | TokenKind::Keyword(
                        Keyword::Integer
                            | Keyword::Extent
                            | Keyword::Scalar
                            | Keyword::Logical
                            | Keyword::String
                    )
            )
            && matches!(self.peek_nth(2).kind, TokenKind::Gt)
    }

    /// After a name: a `(` opening an argument list (not one starting a new line at the top
    /// level of an assignment, which starts the next assignment's tuple).
    fn at_call_paren(&self) -> bool {
        let token = self.peek();
        token.kind == TokenKind::LParen && !(self.starts_statement(token) && self.group_depth == 0)
    }

    /// `( expr )` or a tuple `( expr, expr, ... )`.
    fn parenthesized(&mut self) -> Result<Expr, NnefError> {
        let span = self.advance().span;
        self.group_depth += 1;
        let first = self.expr(true)?;
        let expr = if self.at(&TokenKind::Comma) {
            self.tuple_rest(first, span)?
        } else {
            self.expect(&TokenKind::RParen, "')' closing the parenthesis")?;
            first
        };
        self.group_depth -= 1;
        Ok(expr)
    }

    /// The items after the first of a parenthesised tuple, at the first `,`, and the `)`.
    #[inline(never)]
    fn tuple_rest(&mut self, first: Expr, span: Span) -> Result<Expr, NnefError> {
        let items = self.list_rest(first, &TokenKind::RParen, "',' or ')' in the tuple")?;
        Ok(Expr::new(ExprKind::Tuple(items), span))
    }

    /// `first` and the items after it, each after a `,`, up to and including `close` (`what`
    /// names the expected tokens in the error).
    fn list_rest(
        &mut self,
        first: Expr,
        close: &TokenKind,
        what: &str,
    ) -> Result<Vec<Expr>, NnefError> {
        let mut items = vec![first];
        while self.eat(&TokenKind::Comma) {
            items.push(self.expr(true)?);
        }
        self.expect(close, what)?;
        Ok(items)
    }

    /// `[]`, `[a, b, ...]`, `[for i in a if c yield e]` or `[e for i in a if c]`.
    fn array_or_comprehension(&mut self) -> Result<Expr, NnefError> {
        let span = self.advance().span;
        self.group_depth += 1;
        let expr = if self.eat(&TokenKind::RBracket) {
            Expr::new(ExprKind::Array(Vec::new()), span)
        } else if self.at_keyword(Keyword::For) {
            self.comprehension(None, span)?
        } else {
            let first = self.expr(true)?;
            if self.at_keyword(Keyword::For) {
                self.comprehension(Some(first), span)?
            } else {
                self.array_rest(first, span)?
            }
        };
        self.group_depth -= 1;
        Ok(expr)
    }

    /// The items after the first of an array, and the `]`.
    #[inline(never)]
    fn array_rest(&mut self, first: Expr, span: Span) -> Result<Expr, NnefError> {
        let items = self.list_rest(first, &TokenKind::RBracket, "',' or ']' in the array")?;
        Ok(Expr::new(ExprKind::Array(items), span))
    }

    /// A comprehension from its `for` to its `]`: the 1.0.5 form `for ... [if c] yield e` when
    /// `item` is `None`, seed 003's `e for ... [if c]` when it is the already parsed `e`.
    #[inline(never)]
    fn comprehension(&mut self, item: Option<Expr>, span: Span) -> Result<Expr, NnefError> {
        self.advance();
        let mut iterators = Vec::new();
        loop {
            let (name, _) = self.identifier("a loop variable")?;
            self.expect_keyword(Keyword::In, "'in' after the loop variable")?;
            iterators.push((name, self.expr(false)?));
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        let condition = if self.eat_keyword(Keyword::If) {
            Some(boxed(self.expr(true)?))
        } else {
            None
        };
        let body = match item {
            Some(item) => {
                let what = if condition.is_some() {
                    "']' closing the comprehension"
                } else {
                    "',', 'if' or ']' in the comprehension"
                };
                self.expect(&TokenKind::RBracket, what)?;
                item
            }
            None => {
                let what = if condition.is_some() {
                    "'yield'"
                } else {
                    "',', 'if' or 'yield'"
                };
                self.expect_keyword(Keyword::Yield, what)?;
                let body = self.expr(true)?;
                self.expect(&TokenKind::RBracket, "']' closing the comprehension")?;
                body
            }
        };
        Ok(Expr::new(
            ExprKind::Comprehension {
                iterators,
                condition,
                body: boxed(body),
            },
            span,
        ))
    }

    /// The rest of an invocation after its name: `[<T>] ( arguments )`, at least one argument,
    /// positional or `name = value`, in any order (order is a semantic rule).
    pub(super) fn invocation(&mut self, name: String) -> Result<Invocation, NnefError> {
        let generic = if self.at(&TokenKind::Lt) {
            Some(self.generic_argument()?)
        } else {
            None
        };
        if !self.at(&TokenKind::LParen) {
            return Err(self.expected(&format!("'(' opening the arguments of '{name}'")));
        }
        self.advance();
        self.group_depth += 1;
        let mut arguments = Vec::new();
        loop {
            arguments.push(self.argument()?);
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        if !self.at(&TokenKind::RParen) {
            return Err(self.expected(&format!("',' or ')' in the arguments of '{name}'")));
        }
        self.advance();
        self.group_depth -= 1;
        Ok(Invocation {
            name,
            generic,
            arguments,
        })
    }

    /// `<T>` after an invocation's name, at the `<`.
    #[inline(never)]
    fn generic_argument(&mut self) -> Result<TypeName, NnefError> {
        self.advance();
        let name = self.type_name(true)?;
        self.expect_close_angle("'>' closing the generic argument")?;
        Ok(name)
    }

    /// One argument: `name = value` or a positional value.
    fn argument(&mut self) -> Result<Argument, NnefError> {
        let name = match (&self.peek().kind, &self.peek_nth(1).kind) {
            (TokenKind::Identifier(arg), TokenKind::Assign) => {
                let named = (arg.clone(), self.peek().span);
                self.advance();
                self.advance();
                Some(named)
            }
            _ => None,
        };
        if self.at(&TokenKind::RParen) {
            return Err(self.expected("an argument"));
        }
        let value = self.expr(true)?;
        Ok(Argument { name, value })
    }

    // ----- left values -----

    /// The left side of an assignment: an lvalue or an unparenthesised tuple of them.
    pub(super) fn lvalue_top(&mut self) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let first = self.lvalue()?;
        if !self.at(&TokenKind::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(&TokenKind::Comma) {
            items.push(self.lvalue()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), span))
    }

    /// An identifier, `[lvalue, ...]` (possibly empty) or `(lvalue, lvalue, ...)`.
    fn lvalue(&mut self) -> Result<Expr, NnefError> {
        self.enter()?;
        let token = self.peek().clone();
        let expr = match token.kind {
            TokenKind::Identifier(name) => {
                self.advance();
                if self.at(&TokenKind::LParen) || self.at_generic_argument() {
                    return Err(NnefError::syntax(
                        token.span,
                        format!(
                            "expected an lvalue (an identifier, or an array or tuple of lvalues), \
                             found an invocation of '{name}'"
                        ),
                    ));
                }
                Expr::new(ExprKind::Identifier(name), token.span)
            }
            TokenKind::LBracket => {
                self.advance();
                let mut items = Vec::new();
                if !self.eat(&TokenKind::RBracket) {
                    loop {
                        items.push(self.lvalue()?);
                        if !self.eat(&TokenKind::Comma) {
                            break;
                        }
                    }
                    self.expect(
                        &TokenKind::RBracket,
                        "',' or ']' in the array on the left side",
                    )?;
                }
                Expr::new(ExprKind::Array(items), token.span)
            }
            TokenKind::LParen => {
                self.advance();
                let first = self.lvalue()?;
                if self.eat(&TokenKind::Comma) {
                    let mut items = vec![first];
                    loop {
                        items.push(self.lvalue()?);
                        if !self.eat(&TokenKind::Comma) {
                            break;
                        }
                    }
                    self.expect(
                        &TokenKind::RParen,
                        "',' or ')' in the tuple on the left side",
                    )?;
                    Expr::new(ExprKind::Tuple(items), token.span)
                } else {
                    self.expect(&TokenKind::RParen, "',' or ')' on the left side")?;
                    first
                }
            }
            _ => {
                return Err(
                    self.expected("an lvalue (an identifier, or an array or tuple of lvalues)")
                )
            }
        };
        self.leave(1);
        Ok(expr)
    }

    // ----- literal expressions (default values) -----

    /// A default value: a literal expression, or an unparenthesised tuple of them (seed 003)
    /// when each `,` is followed by the start of a literal (not by the next parameter's name).
    pub(super) fn literal_top(&mut self) -> Result<Expr, NnefError> {
        let span = self.peek().span;
        let first = self.literal()?;
        if !(self.at(&TokenKind::Comma) && starts_literal(&self.peek_nth(1).kind)) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.at(&TokenKind::Comma) && starts_literal(&self.peek_nth(1).kind) {
            self.advance();
            items.push(self.literal()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), span))
    }

    /// A literal (a number with an optional `-`, a string, `true`, `false`), an array of
    /// literal expressions, or a parenthesised tuple of two or more.
    fn literal(&mut self) -> Result<Expr, NnefError> {
        self.enter()?;
        let token = self.peek().clone();
        let kind = match token.kind {
            TokenKind::Integer(v) => {
                self.advance();
                ExprKind::Integer(v)
            }
            TokenKind::Real(v) => {
                self.advance();
                ExprKind::Scalar(v)
            }
            TokenKind::String(s) => {
                self.advance();
                ExprKind::String(s)
            }
            TokenKind::Keyword(Keyword::True) => {
                self.advance();
                ExprKind::Logical(true)
            }
            TokenKind::Keyword(Keyword::False) => {
                self.advance();
                ExprKind::Logical(false)
            }
            TokenKind::Minus => {
                self.advance();
                let kind = match self.peek().kind {
                    TokenKind::Integer(v) => ExprKind::Integer(-v),
                    TokenKind::Real(v) => ExprKind::Scalar(-v),
                    _ => return Err(self.expected("a numeric literal after '-'")),
                };
                self.advance();
                kind
            }
            TokenKind::LBracket => {
                self.advance();
                let mut items = Vec::new();
                if !self.eat(&TokenKind::RBracket) {
                    loop {
                        items.push(self.literal()?);
                        if !self.eat(&TokenKind::Comma) {
                            break;
                        }
                    }
                    self.expect(&TokenKind::RBracket, "',' or ']' in the array literal")?;
                }
                ExprKind::Array(items)
            }
            TokenKind::LParen => {
                self.advance();
                let mut items = vec![self.literal()?];
                if !self.at(&TokenKind::Comma) {
                    return Err(self.expected("',' (a tuple literal has at least two items)"));
                }
                while self.eat(&TokenKind::Comma) {
                    items.push(self.literal()?);
                }
                self.expect(&TokenKind::RParen, "',' or ')' in the tuple literal")?;
                ExprKind::Tuple(items)
            }
            _ => {
                return Err(self.expected(
                    "a literal expression (a number, string, true, false, or an array or tuple of literals)",
                ))
            }
        };
        self.leave(1);
        Ok(Expr::new(kind, token.span))
    }
}
