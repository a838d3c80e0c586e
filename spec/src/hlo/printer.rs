//! IR → HLO text. What is printed parses back to an equal IR (`parse_module(&m.to_string()) == Ok(m)`)
//! for every module
//!
//! - whose names are HLO names (`[A-Za-z0-9_.-]+`, printed with `%`);
//! - whose instructions keep the IR's invariants (parameters have a number, constants a literal of
//!   exactly the instruction's shape, operands index earlier instructions; `verify_module` checks
//!   these);
//! - whose attributes have the value type the parser gives their name (`hlo::attributes::attr_kind`:
//!   e.g. `dimensions` is `Ints`, unknown names are `Raw`), header attributes being `Raw`;
//! - whose `DimLabels` are valid labellings (`ConvolutionDimensionNumbers::validate`; the parser
//!   only produces those);
//! - whose `Raw` texts are what the parser keeps: balanced, no whitespace outside brackets and
//!   strings, runs of whitespace inside them single spaces;
//! - whose layouts set `padding_value` only together with `padded_dimensions` (a layout prints
//!   its padding value only when padded).

use super::ir::{AttrValue, Attribute, HloComputation, HloInstruction, HloModule};
use super::lexer::quote;
use crate::literal::Literal;
use std::fmt;

impl fmt::Display for HloModule {
    /// `HloModule name, attr=value, ...`, then each computation (the entry marked `ENTRY`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HloModule {}", self.name)?;
        for a in &self.header_attributes {
            write!(f, ", {a}")?;
        }
        f.write_str("\n")?;
        for (i, c) in self.computations.iter().enumerate() {
            f.write_str("\n")?;
            if i == self.entry {
                f.write_str("ENTRY ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for HloComputation {
    /// `%name {`, one instruction per line (`ROOT` marked), `}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "%{} {{", self.name)?;
        for (i, instr) in self.instructions.iter().enumerate() {
            f.write_str("  ")?;
            if i == self.root {
                f.write_str("ROOT ")?;
            }
            write_instruction(f, instr, |f, op| match self.instructions.get(op) {
                Some(o) => write!(f, "%{}", o.name),
                None => write!(f, "%<missing operand #{op}>"),
            })?;
            f.write_str("\n")?;
        }
        f.write_str("}\n")
    }
}

impl fmt::Display for HloInstruction {
    /// The instruction alone, for diagnostics: operands are shown by index (`#0`) since their names
    /// live in the computation. Use [`HloInstruction::display_in`] for HLO text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_instruction(f, self, |f, op| write!(f, "#{op}"))
    }
}

/// An instruction shown with its operands' names (see [`HloInstruction::display_in`]).
pub struct InstructionInComputation<'a> {
    instruction: &'a HloInstruction,
    computation: &'a HloComputation,
}

impl HloInstruction {
    /// Displays the instruction as HLO text, `%name = shape opcode(%a, %b), attr=value`, naming its
    /// operands from `computation` (the one that contains it).
    pub fn display_in<'a>(
        &'a self,
        computation: &'a HloComputation,
    ) -> InstructionInComputation<'a> {
        InstructionInComputation {
            instruction: self,
            computation,
        }
    }
}

impl fmt::Display for InstructionInComputation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_instruction(f, self.instruction, |f, op| {
            match self.computation.instructions.get(op) {
                Some(o) => write!(f, "%{}", o.name),
                None => write!(f, "%<missing operand #{op}>"),
            }
        })
    }
}

fn write_instruction(
    f: &mut fmt::Formatter<'_>,
    instr: &HloInstruction,
    mut operand: impl FnMut(&mut fmt::Formatter<'_>, usize) -> fmt::Result,
) -> fmt::Result {
    write!(f, "%{} = {} {}(", instr.name, instr.shape, instr.opcode)?;
    match (instr.parameter_number, &instr.literal) {
        (Some(n), _) if instr.opcode == super::ir::Opcode::Parameter => write!(f, "{n}")?,
        (_, Some(l)) if instr.opcode == super::ir::Opcode::Constant => write_values(f, l)?,
        _ => {
            for (i, &op) in instr.operands.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                operand(f, op)?;
            }
        }
    }
    f.write_str(")")?;
    for a in &instr.attributes {
        write!(f, ", {a}")?;
    }
    Ok(())
}

/// A literal's values without its shape: `{1, 2}`, `-7`, `(1.5, {1, 2})` for tuples, `token`.
pub fn write_values(f: &mut impl fmt::Write, literal: &Literal) -> fmt::Result {
    match literal {
        Literal::Array(a) => a.fmt_values(f),
        Literal::Token => f.write_str("token"),
        Literal::Tuple(t) => {
            f.write_str("(")?;
            for (i, l) in t.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_values(f, l)?;
            }
            f.write_str(")")
        }
    }
}

impl fmt::Display for Attribute {
    /// `name=value`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

impl fmt::Display for AttrValue {
    /// `5`, `true`, `{1,0}`, `LT`, `%add`, `{%a, %b}`, `"text"` (escaped), or the verbatim text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Bool(v) => write!(f, "{v}"),
            AttrValue::Ints(v) => {
                f.write_str("{")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("}")
            }
            AttrValue::Enum(s) | AttrValue::Raw(s) => f.write_str(s),
            AttrValue::Computation(c) => write!(f, "%{c}"),
            AttrValue::Computations(cs) => {
                f.write_str("{")?;
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "%{c}")?;
                }
                f.write_str("}")
            }
            AttrValue::Str(s) => f.write_str(&quote(s)),
            AttrValue::Slice(dims) => {
                f.write_str("{")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "[{}:{}", d.start, d.limit)?;
                    if d.stride != 1 {
                        write!(f, ":{}", d.stride)?;
                    }
                    f.write_str("]")?;
                }
                f.write_str("}")
            }
            AttrValue::Padding(dims) => {
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str("x")?;
                    }
                    write!(f, "{}_{}", d.low, d.high)?;
                    if d.interior != 0 {
                        write!(f, "_{}", d.interior)?;
                    }
                }
                Ok(())
            }
            AttrValue::Window(w) => write!(f, "{w}"),
            AttrValue::DimLabels(d) => write!(f, "{d}"),
        }
    }
}
