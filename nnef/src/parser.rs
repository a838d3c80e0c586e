//! Parser of NNEF documents (NNEF 1.0.5 §3.2, plus the older forms of seed 003 §3.2), of the
//! standard-library fragment text and of `graph.quant` files.
//!
//! The parser checks grammar only: it accepts any expression in any right-value position and
//! leaves flat-versus-compositional checking, the `KHR_enable_*` extensions, names, types and
//! argument order to the semantic checks (seed 003 §3.3). Every error is one
//! [`NnefError::syntax`] at the offending token, worded `expected X, found Y`.
//!
//! Grammar accepted (the union of NNEF 1.0.5 and seed 003):
//! - `version 1.0;` (the `;` may be omitted at the end of a line, seed 003), then
//!   `extension NAME [[,] NAME]...;` lines (1.0.5 separates names by spaces, the Khronos
//!   parser by commas: both are accepted);
//! - fragments `fragment name [<?> | <? = T>] ( p: type [= literal-expr], ... ) -> ( r: type,
//!   ... )` ending with `;` (declaration) or a `{ body }` (definition); at the end of a line,
//!   before `fragment`, `graph` or the end of input, the `;` may be omitted (seed 003);
//! - types `integer | extent | scalar | logical | string | ?`, `tensor`, `tensor<>`,
//!   `tensor<T>`, `T[]` (nestable) and tuples `(T, T, ...)` of two or more items;
//! - default values: literal expressions (numbers with an optional `-`, strings, `true`,
//!   `false`, arrays, parenthesised tuples, and seed 003's unparenthesised tuples);
//! - the graph `graph name ( ids ) -> ( ids ) { assignments }`;
//! - assignments `lvalue = rvalue ;` where the `;` may be omitted at the end of a line or before
//!   `}` (seed 003); lvalues are identifiers, `[...]` arrays and tuples with or without
//!   parentheses; right sides are expressions, or unparenthesised tuples of them (seed 003).
//!
//! The expression grammar and its operator precedence are documented on [`parse_document`].
//!
//! [`Dialect::Khronos`] ([`parse_document_with`]) follows the Khronos reference parser
//! (NNEF-Tools) on statement ends instead: every `;` is required (after `version`, `extension`
//! lines, fragment declarations and every assignment, also before `}`), and a line break never
//! ends a statement, so a `(` or `[` at the start of a line continues the expression before it.
//! The other seed 003 forms listed above are accepted in both dialects.

mod expr;
#[cfg(test)]
mod tests_decl;
#[cfg(test)]
mod tests_expr;

use crate::ast::{
    Assignment, Document, Fragment, FragmentDeclaration, GraphDefinition, Invocation, Parameter,
    ResultDecl, TypeName, TypeSpec,
};
use crate::error::{NnefError, Span};
use crate::lexer::{tokenize_until_error, Keyword, Token, TokenKind};

/// The deepest nesting of expressions, brackets, operator chains, types or lvalues the parser
/// accepts; deeper input is a syntax error rather than a stack overflow.
///
/// Each level of the deepest-recursing form (a comprehension inside a comprehension) costs
/// about 3 KiB of stack in an optimised build and 10 KiB unoptimised, so 128 levels stay well
/// inside a 2 MiB thread stack (Rust's default for spawned threads) in every build profile,
/// and bound the recursion of everything that walks the syntax tree later.
pub const MAX_NESTING_DEPTH: u32 = 128;

/// Parses a whole NNEF document: `version`, `extension`s, fragments, then the graph.
///
/// Binary operators follow the precedence table of the Khronos reference parser, loosest to
/// tightest: `in`; `&&` and `||` (one level); `<` `<=` `>` `>=` `==` `!=`; `+` `-`; `*` `/`;
/// `^`, all left-associative (`2 ^ 3 ^ 2` is 64 there too). Unary `+ - !` apply to a `^`
/// expression (`-a^b` is `-(a^b)`, `-a+b` is `(-a)+b`), and `-` directly before a numeric
/// literal makes a negative literal, as NNEF 1.0.5 §3.1 says ("the end result in either case
/// is the same"). Here the Khronos parser differs: its unary operators take a whole binary
/// expression, so it reads `-2 + 5` as `-(2 + 5)`. Postfix subscripts `a[i]`, `a[i:j]`, `a[:j]`, `a[i:]`, `a[:]` bind
/// tightest. Selects are `a if c else b` (1.0.5 and seed 003, loosest, right-nested) and
/// `if c then a else b` (`then` is not reserved); comprehensions are
/// `[for i in a, j in b if c yield e]` (1.0.5) and `[e for i in a if c]` (seed 003); in both the
/// `if` after an iterable is the filter. Builtins are `shape_of length_of range_of` and the casts
/// `integer extent scalar logical string`, each applied to one parenthesised expression.
/// Invocations are `name(args)` and `name<T>(args)` with positional and `name = value`
/// arguments. At the top level of an assignment, a `(` or `[` that starts a new line begins the
/// next assignment (seed 003 lets `;` be omitted there) instead of an invocation or subscript.
///
/// Errors: [`NnefError::syntax`] at the first token (or character) that does not fit, with a
/// message `expected X, found Y`; nesting deeper than [`MAX_NESTING_DEPTH`] is such an error.
pub fn parse_document(src: &str) -> Result<Document, NnefError> {
    parse_document_with(src, Dialect::Seed003)
}

/// Which rule ends a statement (a `version` or `extension` line, a fragment declaration, an
/// assignment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// Seed 003 (the default): the `;` may be omitted at the end of a line, and after an
    /// assignment also before `}`.
    #[default]
    Seed003,
    /// The Khronos reference parser (NNEF-Tools): the `;` is always required; line breaks are
    /// plain white space.
    Khronos,
}

/// [`parse_document`] under the statement-end rule of `dialect`.
///
/// Errors: as [`parse_document`]; under [`Dialect::Khronos`] a missing `;` is
/// `expected ';' after ..., found ...` at the token that follows (its line:col).
pub fn parse_document_with(src: &str, dialect: Dialect) -> Result<Document, NnefError> {
    let mut parser = Parser::new(src);
    parser.dialect = dialect;
    parser.document()
}

/// Parses a sequence of fragment declarations (ending with `;`) and definitions (with a
/// `{ body }`), without `version` or graph: the text of a standard library.
///
/// Errors: as [`parse_document`]; anything other than a fragment at the top level is
/// `expected 'fragment', found ...`. An empty text gives no fragments.
pub fn parse_fragments(src: &str) -> Result<Vec<crate::ast::Fragment>, NnefError> {
    let mut parser = Parser::new(src);
    let mut fragments = Vec::new();
    while !parser.at(&TokenKind::Eof) {
        if !parser.at_keyword(Keyword::Fragment) {
            return Err(parser.expected("'fragment'"));
        }
        fragments.push(parser.fragment()?);
    }
    parser.end_of_input()?;
    Ok(fragments)
}

/// Parses a `graph.quant` file (NNEF 1.0.5 §5.2): entries `"tensor-name": invocation;`, e.g.
/// `"conv1": linear_quantize(min = -1.0, max = 1.0, bits = 8);`. Returns, in file order, each
/// tensor name, its invocation and the position of the name.
///
/// Errors: as [`parse_document`]; the `;` after each entry is required. Duplicate names are
/// not checked here.
pub fn parse_quantization(src: &str) -> Result<Vec<(String, Invocation, Span)>, NnefError> {
    let mut parser = Parser::new(src);
    let mut entries = Vec::new();
    while !parser.at(&TokenKind::Eof) {
        let token = parser.peek().clone();
        let TokenKind::String(name) = token.kind else {
            return Err(parser.expected("a quoted tensor name"));
        };
        parser.advance();
        parser.expect(&TokenKind::Colon, "':' after the tensor name")?;
        let (op, _) = parser.identifier("the name of a quantization operation")?;
        let invocation = parser.invocation(op)?;
        parser.expect(&TokenKind::Semicolon, "';' after the quantization entry")?;
        entries.push((name, invocation, token.span));
    }
    parser.end_of_input()?;
    Ok(entries)
}

/// Parser state: the tokens, the position, and nesting counters.
pub(crate) struct Parser<'a> {
    src: &'a str,
    /// Tokens up to the first lexical error, ending with `Eof` (at the error, if any).
    tokens: Vec<Token>,
    pos: usize,
    /// The lexical error that ended `tokens`, reported when the parser reaches it.
    lex_error: Option<NnefError>,
    /// Current nesting depth, limited by [`MAX_NESTING_DEPTH`].
    depth: u32,
    /// Brackets open inside the current assignment (0 at its top level).
    group_depth: u32,
    /// Whether the innermost expression being parsed may take a postfix `if ... else`.
    allow_select: bool,
    /// The statement-end rule.
    dialect: Dialect,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        let (tokens, lex_error) = tokenize_until_error(src);
        Parser {
            src,
            tokens,
            pos: 0,
            lex_error,
            depth: 0,
            group_depth: 0,
            allow_select: true,
            dialect: Dialect::Seed003,
        }
    }

    /// True when the next token starts a new line and the dialect lets a line break end a
    /// statement (seed 003).
    fn line_break_ends_statement(&self) -> bool {
        self.starts_statement(self.peek())
    }

    /// True when `token` starts a new line and the dialect lets a line break end a statement
    /// (seed 003), so that it may begin the next one.
    fn starts_statement(&self, token: &Token) -> bool {
        self.dialect == Dialect::Seed003 && token.newline_before
    }

    // ----- token access -----

    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    /// The token `n` places ahead (the final `Eof` past the end).
    fn peek_nth(&self, n: usize) -> &Token {
        &self.tokens[(self.pos + n).min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> Token {
        let token = self.peek().clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    fn at(&self, kind: &TokenKind) -> bool {
        &self.peek().kind == kind
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        self.peek().kind.is_keyword(keyword)
    }

    fn eat(&mut self, kind: &TokenKind) -> bool {
        if self.at(kind) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn eat_keyword(&mut self, keyword: Keyword) -> bool {
        if self.at_keyword(keyword) {
            self.advance();
            true
        } else {
            false
        }
    }

    /// The error for the current token: `expected {what}, found {token}`, or the pending
    /// lexical error if the parser has reached it.
    fn expected(&self, what: &str) -> NnefError {
        let token = self.peek();
        if token.kind == TokenKind::Eof {
            if let Some(error) = &self.lex_error {
                return error.clone();
            }
        }
        // Numbers are quoted as written (`1e3`, not `1000.0`).
        let found = match token.kind {
            TokenKind::Integer(_) => {
                format!("integer literal '{}'", &self.src[token.start..token.end])
            }
            TokenKind::Real(_) => format!("real literal '{}'", &self.src[token.start..token.end]),
            ref other => other.describe(),
        };
        NnefError::syntax(token.span, format!("expected {what}, found {found}"))
    }

    fn expect(&mut self, kind: &TokenKind, what: &str) -> Result<Token, NnefError> {
        if self.at(kind) {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_keyword(&mut self, keyword: Keyword, what: &str) -> Result<Token, NnefError> {
        if self.at_keyword(keyword) {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    /// An identifier (not a keyword), with its position.
    fn identifier(&mut self, what: &str) -> Result<(String, Span), NnefError> {
        if let TokenKind::Identifier(name) = &self.peek().kind {
            let name = name.clone();
            let span = self.advance().span;
            Ok((name, span))
        } else {
            Err(self.expected(what))
        }
    }

    /// A closing `>` of `<...>`; a `>=` token is split so that `tensor<scalar>= 0.0` parses.
    fn expect_close_angle(&mut self, what: &str) -> Result<(), NnefError> {
        match self.peek().kind {
            TokenKind::Gt => {
                self.advance();
                Ok(())
            }
            TokenKind::Ge => {
                let token = &mut self.tokens[self.pos];
                token.kind = TokenKind::Assign;
                token.span.column = token.span.column.saturating_add(1);
                token.start += 1;
                token.newline_before = false;
                Ok(())
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Succeeds at the end of input (or reports the pending lexical error there).
    fn end_of_input(&mut self) -> Result<(), NnefError> {
        if self.at(&TokenKind::Eof) {
            match &self.lex_error {
                Some(error) => Err(error.clone()),
                None => Ok(()),
            }
        } else {
            Err(self.expected("end of input"))
        }
    }

    /// Accepts a `;`, or its absence when the next token starts a new line (seed 003; not under
    /// [`Dialect::Khronos`]).
    fn statement_end(&mut self, what: &str) -> Result<(), NnefError> {
        if self.eat(&TokenKind::Semicolon) || self.line_break_ends_statement() {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    // ----- nesting -----

    fn enter(&mut self) -> Result<(), NnefError> {
        self.depth += 1;
        if self.depth > MAX_NESTING_DEPTH {
            let token = self.peek();
            return Err(NnefError::syntax(
                token.span,
                format!(
                    "expected at most {MAX_NESTING_DEPTH} nested levels of expressions, operators, \
                     brackets or types, found deeper nesting at {}",
                    token.kind.describe()
                ),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, levels: u32) {
        self.depth = self.depth.saturating_sub(levels);
    }

    // ----- document -----

    fn document(&mut self) -> Result<Document, NnefError> {
        let version_span = self.expect_keyword(Keyword::Version, "'version'")?.span;
        let version = self.version_number()?;
        self.statement_end("';' after the version number")?;
        let mut extensions = Vec::new();
        while self.eat_keyword(Keyword::Extension) {
            extensions.push(self.identifier("an extension name")?);
            // Names are separated by spaces (NNEF 1.0.5) or commas (the Khronos parser).
            while self.eat(&TokenKind::Comma)
                || matches!(self.peek().kind, TokenKind::Identifier(_))
            {
                extensions.push(self.identifier("an extension name")?);
            }
            self.statement_end("';' after the extension names")?;
        }
        let mut fragments = Vec::new();
        while self.at_keyword(Keyword::Fragment) {
            fragments.push(self.fragment()?);
        }
        if !self.at_keyword(Keyword::Graph) {
            return Err(self.expected("'graph'"));
        }
        let graph = self.graph()?;
        self.end_of_input()?;
        Ok(Document {
            version,
            version_span,
            extensions,
            fragments,
            graph,
        })
    }

    /// `MAJOR.MINOR` as a real literal of digits, one `.` and digits.
    fn version_number(&mut self) -> Result<(u32, u32), NnefError> {
        let token = self.peek().clone();
        let what = "a version number MAJOR.MINOR such as 1.0";
        if !matches!(token.kind, TokenKind::Real(_)) {
            return Err(self.expected(what));
        }
        let text = &self.src[token.start..token.end];
        let parsed = text.split_once('.').and_then(|(major, minor)| {
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if digits(major) && digits(minor) {
                Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
            } else {
                None
            }
        });
        match parsed {
            Some(version) => {
                self.advance();
                Ok(version)
            }
            None => Err(NnefError::syntax(
                token.span,
                format!("expected {what}, found real literal '{text}'"),
            )),
        }
    }

    // ----- fragments and types -----

    fn fragment(&mut self) -> Result<Fragment, NnefError> {
        let span = self.expect_keyword(Keyword::Fragment, "'fragment'")?.span;
        let (name, _) = self.identifier("a fragment name")?;
        let generic = if self.eat(&TokenKind::Lt) {
            self.expect(&TokenKind::Question, "'?' in the generic declaration '<?>'")?;
            let default = if self.eat(&TokenKind::Assign) {
                Some(self.type_name(false)?)
            } else {
                None
            };
            self.expect_close_angle("'>' closing the generic declaration")?;
            Some(default)
        } else {
            None
        };
        self.expect(&TokenKind::LParen, "'(' before the parameters")?;
        let mut parameters = Vec::new();
        loop {
            parameters.push(self.parameter()?);
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RParen, "',' or ')' after a parameter")?;
        self.expect(&TokenKind::Arrow, "'->' before the results")?;
        self.expect(&TokenKind::LParen, "'(' before the results")?;
        let mut results = Vec::new();
        loop {
            let (name, span) = self.identifier("a result name")?;
            self.expect(&TokenKind::Colon, "':' after the result name")?;
            let ty = self.type_spec()?;
            results.push(ResultDecl { name, ty, span });
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RParen, "',' or ')' after a result")?;
        let declaration = FragmentDeclaration {
            name,
            generic,
            parameters,
            results,
            span,
        };
        // Seed 003 declarations end at the line break before the next fragment or the graph.
        let seed_003_end = self.line_break_ends_statement()
            && (self.at_keyword(Keyword::Fragment)
                || self.at_keyword(Keyword::Graph)
                || self.at(&TokenKind::Eof));
        let body = if self.at(&TokenKind::LBrace) {
            Some(self.body()?)
        } else if self.eat(&TokenKind::Semicolon) || seed_003_end {
            None
        } else {
            return Err(self.expected("';' or '{' after the fragment declaration"));
        };
        Ok(Fragment { declaration, body })
    }

    fn parameter(&mut self) -> Result<Parameter, NnefError> {
        let (name, span) = self.identifier("a parameter name")?;
        self.expect(&TokenKind::Colon, "':' after the parameter name")?;
        let ty = self.type_spec()?;
        let default = if self.eat(&TokenKind::Assign) {
            Some(self.literal_top()?)
        } else {
            None
        };
        Ok(Parameter {
            name,
            ty,
            default,
            span,
        })
    }

    /// `integer | extent | scalar | logical | string`, and `?` if `generic`.
    fn type_name(&mut self, generic: bool) -> Result<TypeName, NnefError> {
        let name = match &self.peek().kind {
            TokenKind::Keyword(Keyword::Integer | Keyword::Extent) => TypeName::Integer,
            TokenKind::Keyword(Keyword::Scalar) => TypeName::Scalar,
            TokenKind::Keyword(Keyword::Logical) => TypeName::Logical,
            TokenKind::Keyword(Keyword::String) => TypeName::String,
            TokenKind::Question if generic => TypeName::Generic,
            _ if generic => {
                return Err(self.expected("a type name (integer, scalar, logical, string or ?)"))
            }
            _ => return Err(self.expected("a type name (integer, scalar, logical or string)")),
        };
        self.advance();
        Ok(name)
    }

    /// A type specification: a primitive or `?`, a tensor type, a tuple of two or more types,
    /// any of them followed by `[]` suffixes.
    fn type_spec(&mut self) -> Result<TypeSpec, NnefError> {
        self.enter()?;
        let mut levels = 1;
        let mut ty = match &self.peek().kind {
            TokenKind::Keyword(Keyword::Tensor) => {
                self.advance();
                if self.eat(&TokenKind::Lt) {
                    if matches!(self.peek().kind, TokenKind::Gt | TokenKind::Ge) {
                        self.expect_close_angle("'>'")?;
                        TypeSpec::Tensor(None)
                    } else {
                        let name = self.type_name(true)?;
                        self.expect_close_angle("'>' closing the tensor type")?;
                        TypeSpec::Tensor(Some(name))
                    }
                } else {
                    TypeSpec::Tensor(None)
                }
            }
            TokenKind::LParen => {
                self.advance();
                let mut items = vec![self.type_spec()?];
                if !self.at(&TokenKind::Comma) {
                    return Err(self.expected("',' (a tuple type has at least two item types)"));
                }
                while self.eat(&TokenKind::Comma) {
                    items.push(self.type_spec()?);
                }
                self.expect(&TokenKind::RParen, "',' or ')' in the tuple type")?;
                TypeSpec::Tuple(items)
            }
            TokenKind::Keyword(
                Keyword::Integer
                | Keyword::Extent
                | Keyword::Scalar
                | Keyword::Logical
                | Keyword::String,
            )
            | TokenKind::Question => TypeSpec::Primitive(self.type_name(true)?),
            _ => {
                return Err(self.expected(
                    "a type (integer, scalar, logical, string, ?, tensor, or a tuple type)",
                ))
            }
        };
        while self.eat(&TokenKind::LBracket) {
            self.expect(&TokenKind::RBracket, "']' of the array type suffix '[]'")?;
            self.enter()?;
            levels += 1;
            ty = TypeSpec::Array(Box::new(ty));
        }
        self.leave(levels);
        Ok(ty)
    }

    // ----- graph and bodies -----

    fn graph(&mut self) -> Result<GraphDefinition, NnefError> {
        let span = self.expect_keyword(Keyword::Graph, "'graph'")?.span;
        let (name, _) = self.identifier("a graph name")?;
        self.expect(&TokenKind::LParen, "'(' before the graph inputs")?;
        let inputs = self.identifier_list("an input name")?;
        self.expect(&TokenKind::RParen, "',' or ')' after a graph input")?;
        self.expect(&TokenKind::Arrow, "'->' before the graph outputs")?;
        self.expect(&TokenKind::LParen, "'(' before the graph outputs")?;
        let outputs = self.identifier_list("an output name")?;
        self.expect(&TokenKind::RParen, "',' or ')' after a graph output")?;
        let body = self.body()?;
        Ok(GraphDefinition {
            name,
            inputs,
            outputs,
            body,
            span,
        })
    }

    fn identifier_list(&mut self, what: &str) -> Result<Vec<(String, Span)>, NnefError> {
        let mut names = vec![self.identifier(what)?];
        while self.eat(&TokenKind::Comma) {
            names.push(self.identifier(what)?);
        }
        Ok(names)
    }

    /// `{ assignment+ }`.
    fn body(&mut self) -> Result<Vec<Assignment>, NnefError> {
        self.expect(&TokenKind::LBrace, "'{' opening the body")?;
        let mut assignments = Vec::new();
        loop {
            if self.at(&TokenKind::RBrace) {
                if assignments.is_empty() {
                    return Err(self.expected("an assignment (a body has at least one)"));
                }
                self.advance();
                return Ok(assignments);
            }
            if self.at(&TokenKind::Eof) {
                return Err(self.expected("an assignment or '}' closing the body"));
            }
            assignments.push(self.assignment()?);
        }
    }

    fn assignment(&mut self) -> Result<Assignment, NnefError> {
        let span = self.peek().span;
        self.group_depth = 0;
        self.allow_select = true;
        let lhs = self.lvalue_top()?;
        self.expect(
            &TokenKind::Assign,
            "'=' after the left side of the assignment",
        )?;
        let rhs = self.rvalue_top()?;
        let seed_003_end = self.dialect == Dialect::Seed003
            && (self.at(&TokenKind::RBrace) || self.peek().newline_before);
        if !(self.eat(&TokenKind::Semicolon) || seed_003_end) {
            return Err(self.expected("';' after the assignment"));
        }
        Ok(Assignment { lhs, rhs, span })
    }
}
