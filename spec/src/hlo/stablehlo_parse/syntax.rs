//! MLIR text → a syntax tree: `module`, `func.func`, blocks and operations in MLIR's generic form
//! (`%0 = "stablehlo.add"(%a, %b) <{...}> ({regions}) {attrs} : (types) -> types`). Operations
//! in their pretty form (`stablehlo.add %a, %b : tensor<4xf32>`) are read by `pretty.rs` into the
//! same [`Op`], with their attributes under the names the generic form uses.
//!
//! Source: MLIR LangRef ("Operations", "Blocks", "Regions"), the `func` dialect.

use super::attrs::{
    parse_attr, parse_dict, parse_type, skip_attr_dict, type_list_until_paren, Attr, Type,
};
use super::lexer::{Cursor, PResult, Tok};
use super::pretty;

/// A module: its name (`module @jit_f`) and functions in text order.
#[derive(Clone, Debug)]
pub(crate) struct Module {
    pub name: Option<String>,
    pub funcs: Vec<Func>,
    /// `mhlo.num_replicas` / `mhlo.num_partitions` of the module's attributes (JAX writes
    /// them for programs of several devices).
    pub num_replicas: Option<i128>,
    pub num_partitions: Option<i128>,
}

/// `func.func [public|private] @name(args) -> results { body }`.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub name: String,
    pub pos: usize,
    pub public: bool,
    pub args: Vec<Arg>,
    pub results: Vec<Type>,
    pub body: Block,
}

/// A block argument or function argument: `%name: type`.
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub name: String,
    pub ty: Type,
    pub pos: usize,
}

/// A block: arguments and operations (the last one its terminator). Regions have one block.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub args: Vec<Arg>,
    pub ops: Vec<Op>,
    pub pos: usize,
}

/// A use of a value: `%name` (result 0 of its group) or `%name#k`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Use {
    pub name: String,
    pub index: usize,
    pub pos: usize,
}

impl Use {
    pub fn key(&self) -> (String, usize) {
        (self.name.clone(), self.index)
    }

    /// `%name` or `%name#k`, as written.
    pub fn describe(&self) -> String {
        if self.index == 0 {
            format!("%{}", self.name)
        } else {
            format!("%{}#{}", self.name, self.index)
        }
    }
}

/// An operation with its attributes under their generic-form names.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    /// `stablehlo.add`, `func.call`, `func.return`, `chlo.top_k`, ...
    pub name: String,
    /// Byte offset of the operation name.
    pub pos: usize,
    /// Result groups: (`%name`, count) for `%name:count`; `%a, %b = ` is two groups of one.
    pub results: Vec<(String, usize)>,
    pub operands: Vec<Use>,
    pub operand_types: Vec<Type>,
    pub result_types: Vec<Type>,
    /// Attributes (properties and the attribute dictionary), each with its offset.
    pub attrs: Vec<(String, Attr, usize)>,
    pub regions: Vec<Block>,
}

impl Op {
    /// The number of results the text binds.
    pub fn result_count(&self) -> usize {
        self.results.iter().map(|(_, n)| n).sum()
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs
            .iter()
            .find(|(k, _, _)| k == name)
            .map(|(_, v, _)| v)
    }

    /// The offset of attribute `name` (the operation's when absent).
    pub fn attr_pos(&self, name: &str) -> usize {
        self.attrs
            .iter()
            .find(|(k, _, _)| k == name)
            .map_or(self.pos, |(_, _, p)| *p)
    }
}

/// Parses a whole text: one `module { ... }` (optionally named and with attributes) or bare
/// functions; `#alias = ...` definitions (locations) are skipped.
///
/// Errors: anything malformed, at its position.
pub(crate) fn parse_module(c: &mut Cursor) -> PResult<Module> {
    skip_aliases(c)?;
    let mut module = Module {
        name: None,
        funcs: Vec::new(),
        num_replicas: None,
        num_partitions: None,
    };
    if c.eat_keyword("module")? || c.eat_keyword("builtin.module")? {
        if let Tok::Symbol(s) = c.peek()?.tok {
            c.next()?;
            module.name = Some(s);
        }
        if c.eat_keyword("attributes")? {
            for (name, value) in parse_dict(c)? {
                let n = match value {
                    super::attrs::Attr::Int(n) => Some(n),
                    _ => None,
                };
                match name.as_str() {
                    "mhlo.num_replicas" => module.num_replicas = n,
                    "mhlo.num_partitions" => module.num_partitions = n,
                    _ => {}
                }
            }
        }
        c.expect_punct('{', "to open the module body")?;
        while !c.eat_punct('}')? {
            module.funcs.push(parse_func(c)?);
        }
        c.skip_location()?;
    } else {
        while !matches!(c.peek()?.tok, Tok::Eof | Tok::Hash(_)) {
            module.funcs.push(parse_func(c)?);
        }
    }
    skip_aliases(c)?;
    let t = c.peek()?;
    if t.tok != Tok::Eof {
        return Err(c.unexpected(&t, "the end of the text after the module"));
    }
    Ok(module)
}

/// Skips `#name = loc(...)` (and other `#name = attribute`) alias definitions.
fn skip_aliases(c: &mut Cursor) -> PResult<()> {
    while let Tok::Hash(_) = c.peek()?.tok {
        if c.peek2()?.tok != Tok::Punct('=') {
            break;
        }
        c.next()?;
        c.next()?;
        let t = c.peek()?;
        if matches!(&t.tok, Tok::Ident(s) if s == "loc") {
            c.skip_location()?;
        } else {
            parse_attr(c)?;
        }
    }
    Ok(())
}

/// `func.func [visibility] @name(%a: t {attrs}, ...) [-> t | -> (t {attrs}, ...)]
/// [attributes {...}] { body }`.
fn parse_func(c: &mut Cursor) -> PResult<Func> {
    let t = c.next()?;
    if !matches!(&t.tok, Tok::Ident(s) if s == "func.func" || s == "func") {
        return Err(c.unexpected(&t, "`func.func`"));
    }
    let mut public = true;
    for (word, is_public) in [("public", true), ("private", false), ("nested", false)] {
        if c.eat_keyword(word)? {
            public = is_public;
        }
    }
    let s = c.next()?;
    let Tok::Symbol(name) = s.tok else {
        return Err(c.unexpected(&s, "the function's `@name`"));
    };
    c.expect_punct('(', "to open the function's arguments")?;
    let mut args = Vec::new();
    if !c.eat_punct(')')? {
        loop {
            args.push(parse_arg(c)?);
            skip_attr_dict(c)?;
            c.skip_location()?;
            if c.eat_punct(')')? {
                break;
            }
            c.expect_punct(',', "or `)` after a function argument")?;
        }
    }
    let mut results = Vec::new();
    if c.eat(&Tok::Arrow)? {
        if c.eat_punct('(')? {
            results = type_list_until_paren(c)?;
        } else {
            // A result without parentheses has no attributes: the `{` is the body's.
            results.push(parse_type(c)?);
        }
    }
    if c.eat_keyword("attributes")? {
        parse_dict(c)?;
    }
    let body = parse_region(c, Vec::new())?;
    c.skip_location()?;
    Ok(Func {
        name,
        pos: s.start,
        public,
        args,
        results,
        body,
    })
}

/// `%name: type`.
fn parse_arg(c: &mut Cursor) -> PResult<Arg> {
    let t = c.next()?;
    let Tok::Value(name, None) = t.tok else {
        return Err(c.unexpected(&t, "an argument `%name`"));
    };
    c.expect_punct(':', "after an argument name")?;
    let ty = parse_type(c)?;
    Ok(Arg {
        name,
        ty,
        pos: t.start,
    })
}

/// A region of one block: `{ [^bb0(%a: t, ...):] ops }`. `args` are the block arguments a
/// pretty form names outside the braces (while, reduce); a `^bb` header adds its own.
///
/// Errors: a second block (`^bb1`), malformed operations.
pub(crate) fn parse_region(c: &mut Cursor, args: Vec<Arg>) -> PResult<Block> {
    let open = c.expect_punct('{', "to open a region")?;
    c.enter(open.start)?;
    let mut block = Block {
        args,
        ops: Vec::new(),
        pos: open.start,
    };
    if let Tok::Block(_) = c.peek()?.tok {
        c.next()?;
        if c.eat_punct('(')? && !c.eat_punct(')')? {
            loop {
                block.args.push(parse_arg(c)?);
                c.skip_location()?;
                if c.eat_punct(')')? {
                    break;
                }
                c.expect_punct(',', "or `)` after a block argument")?;
            }
        }
        c.expect_punct(':', "after the block header")?;
    }
    loop {
        let t = c.peek()?;
        match t.tok {
            Tok::Punct('}') => {
                c.next()?;
                break;
            }
            Tok::Block(ref b) => {
                return Err(c.error_at(
                    t.start,
                    format!("a second block `^{b}`: only single-block regions have an HLO form"),
                ))
            }
            _ => block.ops.push(parse_op(c)?),
        }
    }
    c.leave();
    Ok(block)
}

/// One operation, in generic or pretty form, with its results.
pub(crate) fn parse_op(c: &mut Cursor) -> PResult<Op> {
    let mut results = Vec::new();
    if let Tok::Value(..) = c.peek()?.tok {
        loop {
            let t = c.next()?;
            let Tok::Value(name, None) = t.tok else {
                return Err(c.unexpected(&t, "a result name `%name`"));
            };
            let count = if c.eat_punct(':')? {
                let (n, at) = c.int("a result count")?;
                usize::try_from(n).map_err(|_| c.error_at(at, "bad result count"))?
            } else {
                1
            };
            results.push((name, count));
            if c.eat_punct('=')? {
                break;
            }
            c.expect_punct(',', "or `=` after a result name")?;
        }
    }
    let t = c.next()?;
    let mut op = match &t.tok {
        Tok::Str(name) => generic_op(c, name.clone(), t.start)?,
        Tok::Ident(name) => pretty::parse(c, name, t.start)?,
        _ => return Err(c.unexpected(&t, "an operation")),
    };
    op.results = results;
    c.skip_location()?;
    Ok(op)
}

/// An empty operation named `name` at `pos`.
pub(crate) fn new_op(name: &str, pos: usize) -> Op {
    Op {
        name: name.to_string(),
        pos,
        results: Vec::new(),
        operands: Vec::new(),
        operand_types: Vec::new(),
        result_types: Vec::new(),
        attrs: Vec::new(),
        regions: Vec::new(),
    }
}

/// `"name"(operands) [<{properties}>] [(regions)] [{attributes}] : (types) -> types` (the name
/// already read).
fn generic_op(c: &mut Cursor, name: String, pos: usize) -> PResult<Op> {
    let mut op = new_op(&name, pos);
    c.expect_punct('(', "to open the operands of a generic operation")?;
    op.operands = use_list_until_paren(c)?;
    if c.peek()?.tok == Tok::Punct('[') {
        let t = c.peek()?;
        return Err(c.error_at(t.start, "successor blocks have no HLO form"));
    }
    if c.peek()?.tok == Tok::Punct('<') {
        c.next()?;
        attr_dict_into(c, &mut op)?;
        c.expect_punct('>', "to close the properties `<{...}>`")?;
    }
    if c.peek()?.tok == Tok::Punct('(') && c.peek2()?.tok == Tok::Punct('{') {
        c.next()?;
        loop {
            op.regions.push(parse_region(c, Vec::new())?);
            if c.eat_punct(')')? {
                break;
            }
            c.expect_punct(',', "or `)` between regions")?;
        }
    }
    if c.peek()?.tok == Tok::Punct('{') {
        attr_dict_into(c, &mut op)?;
    }
    c.expect_punct(':', "and the operation's function type")?;
    let at = c.peek()?.start;
    match parse_type(c)? {
        Type::Function(inputs, results) => {
            op.operand_types = inputs;
            op.result_types = results;
        }
        other => {
            return Err(c.error_at(
                at,
                format!(
                    "expected a function type `(...) -> ...`, found `{}`",
                    other.describe()
                ),
            ))
        }
    }
    Ok(op)
}

/// `{name = value, ...}` appended to the operation's attributes with their positions.
pub(crate) fn attr_dict_into(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    let open = c.expect_punct('{', "to open an attribute dictionary")?;
    c.enter(open.start)?;
    if !c.eat_punct('}')? {
        loop {
            let k = c.next()?;
            let name = match &k.tok {
                Tok::Ident(s) | Tok::Str(s) => s.clone(),
                _ => return Err(c.unexpected(&k, "an attribute name")),
            };
            let value = if c.eat_punct('=')? {
                parse_attr(c)?
            } else {
                Attr::Unit
            };
            op.attrs.push((name, value, k.start));
            if c.eat_punct('}')? {
                break;
            }
            c.expect_punct(',', "or `}` in an attribute dictionary")?;
        }
    }
    c.leave();
    Ok(())
}

/// An optional trailing attribute dictionary (`attr-dict` of a pretty form).
pub(crate) fn optional_attr_dict(c: &mut Cursor, op: &mut Op) -> PResult<()> {
    if c.peek()?.tok == Tok::Punct('{') {
        attr_dict_into(c, op)?;
    }
    Ok(())
}

/// A value use `%name` or `%name#k`.
pub(crate) fn parse_use(c: &mut Cursor) -> PResult<Use> {
    let t = c.next()?;
    match t.tok {
        Tok::Value(name, index) => Ok(Use {
            name,
            index: index.unwrap_or(0),
            pos: t.start,
        }),
        _ => Err(c.unexpected(&t, "a value `%name`")),
    }
}

/// Uses separated by commas up to `)` (consumed); the `(` is already consumed.
pub(crate) fn use_list_until_paren(c: &mut Cursor) -> PResult<Vec<Use>> {
    let mut out = Vec::new();
    if c.eat_punct(')')? {
        return Ok(out);
    }
    loop {
        out.push(parse_use(c)?);
        if c.eat_punct(')')? {
            return Ok(out);
        }
        c.expect_punct(',', "or `)` in an operand list")?;
    }
}
