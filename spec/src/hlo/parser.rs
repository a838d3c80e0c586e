//! HLO text → IR: modules, computations and instructions.
//!
//! Grammar (what XLA and JAX print, plus the older operand style with shapes):
//!
//! ```text
//! module      := 'HloModule' name (',' ident '=' raw)* computation*
//! computation := ['ENTRY'] name [signature] '{' instruction* '}' [',' 'execution_thread' '=' string]
//! signature   := '(' [name ':' shape (',' name ':' shape)*] ')' '->' shape
//! instruction := ['ROOT'] name '=' shape opcode '(' operands ')' (',' ident '=' value)*
//! operands    := parameter number | constant values | [[shape] name (',' [shape] name)*]
//! ```
//!
//! Names may be written with or without `%`. A computation without `ROOT` has its last
//! instruction as root. The signature and `execution_thread` are checked for syntax and dropped
//! (the IR derives the signature from the parameters; it has no execution threads), and so are
//! the stack-frame tables XLA prints after the header when it prints metadata (`FileNames`,
//! `FunctionNames`, `FileLocations`, `StackFrames`).

use super::attributes::{attribute_value, raw_value, ComputationRef};
use super::cursor::{Cursor, PResult};
use super::error::HloParseError;
use super::ir::{Attribute, HloComputation, HloInstruction, HloModule, Opcode};
use super::lexer::Tok;
use super::literal_text::{literal_with_shape, same_structure, values};
use super::shape_text::{shape, starts_shape};
use crate::literal::Literal;
use crate::shape::Shape;
use std::collections::HashMap;

/// Parses an HLO module (`HloModule name, ...` followed by its computations).
///
/// Errors ([`HloParseError`], with the 1-based line:column of the offending token): syntax errors
/// ("expected `=` after instruction name, found `(`"), unknown opcodes, operands not defined
/// earlier in the same computation, unknown called computations, attribute values of the wrong
/// type, a second `ROOT`, duplicate names or parameter numbers, a missing or second `ENTRY`.
/// Never panics, whatever the input.
pub fn parse_module(text: &str) -> Result<HloModule, HloParseError> {
    let mut c = Cursor::new(text);
    let header = c.next()?;
    if header.tok != Tok::Ident("HloModule".into()) {
        return Err(c.unexpected(&header, "`HloModule` at the start of the module"));
    }
    let (name, _) = c.name("a module name after `HloModule`")?;
    let mut header_attributes: Vec<Attribute> = Vec::new();
    while c.eat(&Tok::Comma)? {
        let t = c.next()?;
        let Tok::Ident(attr) = t.tok else {
            return Err(c.unexpected(&t, "a header attribute name after `,`"));
        };
        if header_attributes.iter().any(|a| a.name == attr) {
            return Err(c.error_at(t.start, format!("duplicate header attribute `{attr}`")));
        }
        c.expect(&Tok::Eq, &format!("after header attribute `{attr}`"))?;
        let value = raw_value(&mut c, &attr)?;
        header_attributes.push(Attribute {
            name: attr,
            value: super::ir::AttrValue::Raw(value),
        });
    }
    stack_frame_tables(&mut c)?;
    let mut computations: Vec<HloComputation> = Vec::new();
    let mut entry: Option<usize> = None;
    let mut refs: Vec<ComputationRef> = Vec::new();
    loop {
        let t = c.peek()?;
        if t.tok == Tok::Eof {
            break;
        }
        let is_entry = t.tok == Tok::Ident("ENTRY".into());
        if is_entry {
            if entry.is_some() {
                return Err(c.error_at(t.start, "second `ENTRY` computation in the module"));
            }
            c.pos = t.end;
        }
        let (comp, at) = computation(&mut c, &mut refs)?;
        if computations.iter().any(|x| x.name == comp.name) {
            return Err(c.error_at(at, format!("duplicate computation name `%{}`", comp.name)));
        }
        if is_entry {
            entry = Some(computations.len());
        }
        computations.push(comp);
    }
    for (name, at) in &refs {
        if !computations.iter().any(|x| &x.name == name) {
            return Err(c.error_at(*at, format!("unknown computation `%{name}`")));
        }
    }
    let Some(entry) = entry else {
        return Err(c.error_at(
            header.start,
            format!("module `{name}` has no `ENTRY` computation"),
        ));
    };
    Ok(HloModule {
        name,
        header_attributes,
        computations,
        entry,
    })
}

/// Parses a shape, e.g. `f32[2,3]{1,0}`, `(f32[2]{0}, s32[])`, `token[]`, `f32[<=4]`,
/// `f32[2,3]{0,1:P(3,5)V(ZERO_PAD)}`. A shape without a layout gets the default layout.
///
/// Errors: malformed text, a layout that does not fit the dimensions, or text after the shape.
pub fn parse_shape(text: &str) -> Result<Shape, HloParseError> {
    let mut c = Cursor::new(text);
    let s = shape(&mut c)?;
    end_of_input(&mut c, "after the shape")?;
    Ok(s)
}

/// Parses a literal with its shape, as XLA prints literals: `f32[2,3] {{1, 2.5, 3}, {4, 5, 6}}`,
/// `f32[2,3]{0,1} {...}` (values in logical row-major nesting whatever the layout), `s32[] -7`,
/// `pred[2] {true, false}`, `c64[2] {(1, 2), (3, -4)}`, `inf`, `-nan`, `nan(0x1)`, hex integers,
/// tuples `(f32[], s32[2]) (1.5, {1, 2})`. Floats are read as the nearest `f64`, then rounded to the
/// element type with `FloatFormat::encode`.
///
/// Errors: malformed text, values that do not fit the shape or the element type, text after it.
pub fn parse_literal(text: &str) -> Result<Literal, HloParseError> {
    let mut c = Cursor::new(text);
    let l = literal_with_shape(&mut c)?;
    end_of_input(&mut c, "after the literal")?;
    Ok(l)
}

/// The sections XLA prints between the header and the computations when it prints metadata.
const STACK_FRAME_SECTIONS: &[&str] =
    &["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// Skips XLA's stack-frame tables: a section name, then entries `N "string"` or `N {...}`. The IR
/// has no place for them (instructions' `metadata={... stack_frame_id=N}` stays verbatim).
fn stack_frame_tables(c: &mut Cursor) -> PResult<()> {
    loop {
        let t = c.peek()?;
        let Tok::Ident(section) = &t.tok else {
            return Ok(());
        };
        if !STACK_FRAME_SECTIONS.contains(&section.as_str())
            || !matches!(c.peek2()?.tok, Tok::Int(_))
        {
            return Ok(());
        }
        c.pos = t.end;
        while matches!(c.peek()?.tok, Tok::Int(_)) {
            c.next()?;
            let v = c.peek()?;
            match v.tok {
                Tok::Str(_) => c.pos = v.end,
                Tok::LBrace => {
                    raw_value(c, section)?;
                }
                _ => {
                    return Err(
                        c.unexpected(&v, &format!("a string or `{{...}}` entry in `{section}`"))
                    )
                }
            }
        }
    }
}

fn end_of_input(c: &mut Cursor, context: &str) -> PResult<()> {
    let t = c.peek()?;
    if t.tok == Tok::Eof {
        Ok(())
    } else {
        Err(c.unexpected(&t, &format!("end of input {context}")))
    }
}

/// One computation, after `ENTRY` if any. Returns it with the offset of its name.
fn computation(c: &mut Cursor, refs: &mut Vec<ComputationRef>) -> PResult<(HloComputation, usize)> {
    let (name, at) = c.name("a computation name")?;
    if c.peek()?.tok == Tok::LParen {
        signature(c)?;
    }
    let open = c.expect(
        &Tok::LBrace,
        &format!("to open the body of computation `%{name}`"),
    )?;
    let mut instructions: Vec<HloInstruction> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut root: Option<usize> = None;
    loop {
        let t = c.peek()?;
        match &t.tok {
            Tok::RBrace => {
                c.pos = t.end;
                break;
            }
            Tok::Eof => {
                return Err(c.error_at(
                    open.start,
                    format!("computation `%{name}` is not closed with `}}`"),
                ))
            }
            _ => {}
        }
        let is_root = t.tok == Tok::Ident("ROOT".into());
        if is_root {
            if root.is_some() {
                return Err(c.error_at(t.start, format!("second `ROOT` in computation `%{name}`")));
            }
            c.pos = t.end;
        }
        let (instr, at) = instruction(c, &name, &instructions, &index, refs)?;
        if index.contains_key(&instr.name) {
            return Err(c.error_at(
                at,
                format!(
                    "duplicate instruction name `%{}` in computation `%{name}`",
                    instr.name
                ),
            ));
        }
        if is_root {
            root = Some(instructions.len());
        }
        index.insert(instr.name.clone(), instructions.len());
        instructions.push(instr);
    }
    if instructions.is_empty() {
        return Err(c.error_at(
            open.start,
            format!("computation `%{name}` has no instructions"),
        ));
    }
    // `}, execution_thread="..."` (XLA's non-main threads): accepted and dropped.
    if c.peek()?.tok == Tok::Comma && c.peek2()?.tok == Tok::Ident("execution_thread".into()) {
        c.next()?;
        c.next()?;
        c.expect(&Tok::Eq, "after `execution_thread`")?;
        let t = c.next()?;
        if !matches!(t.tok, Tok::Str(_)) {
            return Err(c.unexpected(&t, "a quoted thread name"));
        }
    }
    let root = root.unwrap_or(instructions.len() - 1);
    Ok((
        HloComputation {
            name,
            instructions,
            root,
        },
        at,
    ))
}

/// `(p: shape, ...) -> shape`, checked for syntax.
fn signature(c: &mut Cursor) -> PResult<()> {
    c.expect(&Tok::LParen, "to open the signature")?;
    if !c.eat(&Tok::RParen)? {
        loop {
            c.name("a parameter name in the signature")?;
            c.expect(&Tok::Colon, "after the parameter name")?;
            shape(c)?;
            let t = c.next()?;
            match t.tok {
                Tok::Comma => {}
                Tok::RParen => break,
                _ => return Err(c.unexpected(&t, "`,` or `)` in the signature")),
            }
        }
    }
    c.expect(&Tok::Arrow, "after the signature's parameters")?;
    shape(c)?;
    Ok(())
}

/// One instruction (after `ROOT` if any). Returns it with the offset of its name.
fn instruction(
    c: &mut Cursor,
    computation: &str,
    defined: &[HloInstruction],
    index: &HashMap<String, usize>,
    refs: &mut Vec<ComputationRef>,
) -> PResult<(HloInstruction, usize)> {
    let (name, at) = c.name("an instruction name or `}`")?;
    c.expect(&Tok::Eq, "after instruction name")?;
    let shape = shape(c)?;
    let t = c.next()?;
    let opcode = match &t.tok {
        Tok::Ident(op) => Opcode::from_name(op)
            .ok_or_else(|| c.error_at(t.start, format!("unknown opcode `{op}`")))?,
        _ => return Err(c.unexpected(&t, "an opcode after the shape")),
    };
    c.expect(&Tok::LParen, &format!("after opcode `{opcode}`"))?;
    let mut operands = Vec::new();
    let mut parameter_number = None;
    let mut literal = None;
    match opcode {
        Opcode::Parameter => {
            let (n, nat) = c.int64("a parameter number")?;
            if n < 0 {
                return Err(c.error_at(nat, format!("parameter number {n} is negative")));
            }
            if defined.iter().any(|i| i.parameter_number == Some(n)) {
                return Err(c.error_at(
                    nat,
                    format!("parameter number {n} is used twice in computation `%{computation}`"),
                ));
            }
            parameter_number = Some(n);
            c.expect(&Tok::RParen, "after the parameter number")?;
        }
        Opcode::Constant => {
            literal = Some(constant_values(c, &shape)?);
            c.expect(&Tok::RParen, "after the constant's value")?;
        }
        _ => {
            if !c.eat(&Tok::RParen)? {
                loop {
                    operands.push(operand(c, computation, defined, index)?);
                    let t = c.next()?;
                    match t.tok {
                        Tok::Comma => {}
                        Tok::RParen => break,
                        _ => return Err(c.unexpected(&t, "`,` or `)` after an operand")),
                    }
                }
            }
        }
    }
    let mut attributes: Vec<Attribute> = Vec::new();
    while c.eat(&Tok::Comma)? {
        let t = c.next()?;
        let Tok::Ident(attr) = t.tok else {
            return Err(c.unexpected(&t, "an attribute name after `,`"));
        };
        if attributes.iter().any(|a| a.name == attr) {
            return Err(c.error_at(t.start, format!("duplicate attribute `{attr}`")));
        }
        c.expect(&Tok::Eq, &format!("after attribute name `{attr}`"))?;
        let value = attribute_value(c, &attr, refs)?;
        attributes.push(Attribute { name: attr, value });
    }
    Ok((
        HloInstruction {
            name,
            opcode,
            shape,
            operands,
            parameter_number,
            literal,
            attributes,
        },
        at,
    ))
}

/// The value inside `constant(...)`: values of the instruction's shape, optionally preceded by
/// the shape itself (older XLA text), which must then match the instruction's.
fn constant_values(c: &mut Cursor, shape: &Shape) -> PResult<Literal> {
    let t = c.peek()?;
    if matches!(t.tok, Tok::Ident(_)) && starts_shape(c)? {
        let inner = super::shape_text::shape(c)?;
        if !same_structure(&inner, shape) {
            return Err(c.error_at(
                t.start,
                format!("constant's shape `{inner}` does not match the instruction's `{shape}`"),
            ));
        }
    }
    values(c, shape)
}

/// An operand: `%name`, `name`, or `shape %name` (the shape must match the operand's).
fn operand(
    c: &mut Cursor,
    computation: &str,
    defined: &[HloInstruction],
    index: &HashMap<String, usize>,
) -> PResult<usize> {
    let t = c.peek()?;
    let prefix = if starts_shape(c)? {
        Some((shape(c)?, t.start))
    } else {
        None
    };
    let (name, at) = c.name("an operand name")?;
    let Some(&i) = index.get(&name) else {
        return Err(c.error_at(
            at,
            format!(
                "operand `%{name}` is not defined before its use in computation `%{computation}`"
            ),
        ));
    };
    if let Some((s, sat)) = prefix {
        if !same_structure(&s, &defined[i].shape) {
            return Err(c.error_at(
                sat,
                format!(
                    "operand shape `{s}` does not match `%{name}`'s shape `{}`",
                    defined[i].shape
                ),
            ));
        }
    }
    Ok(i)
}
