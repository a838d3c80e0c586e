//! HLO IR → StableHLO text, for backends that compile StableHLO rather than HLO text (XLA through
//! jaxlib, whose Python API compiles MLIR text; see `docs/protocol.md`, "StableHLO text").
//!
//! The output is a `module { ... }` holding one `func.func` per HLO computation that needs one:
//! the entry computation as `func.func public @main`, computations reached through `call` as
//! private functions. Computations that StableHLO wants as regions (the `to_apply` of reduce,
//! reduce-window, scatter, sort and map; select-and-scatter's `select` and `scatter`; while and
//! conditional bodies) are inlined as regions; XLA's `topk` is `chlo.top_k` (`largest=true`) or
//! the stable sort and slices XLA itself decomposes it into (`largest=false`). Operations are
//! written in MLIR's *generic* syntax (`%3 = "stablehlo.add"(%1, %2) : (tensor<2xf32>,
//! tensor<2xf32>) -> tensor<2xf32>`), which is mechanical and unambiguous.
//!
//! What is written, instruction by instruction:
//! - types are logical and row-major (StableHLO types have no layout): `copy` is the identity,
//!   parameters and results of `@main` are row-major arrays;
//! - tuples do not exist in the output: a tuple-shaped value is the list of its leaves (depth
//!   first), `tuple` and `get-tuple-element` are resolved while printing, `@main` returns one
//!   result per leaf of the entry root;
//! - constants are bit-exact (see [`types::dense_constant`]);
//! - every attribute of an instruction is either translated or, when it only annotates
//!   (`metadata`, `frontend_attributes`, `backend_config`, `sharding`, `operand_precision`, ...),
//!   dropped; anything else makes the instruction [`StablehloError::Unsupported`], as do opcodes
//!   without a faithful StableHLO form: the printer never writes a program that means something
//!   else;
//! - tokens are `!stablehlo.token` leaves (parameters and results of private functions, tuple
//!   and loop-state leaves); `after-all`, `infeed`, `outfeed` and `send`/`recv` with their
//!   `-done` halves are written as in `transfer.rs`; `@main` neither takes nor returns a token
//!   (the worker protocol passes arrays);
//! - bounded dynamic shapes (`f32[<=4]`, from `set-dimension-size`) are StableHLO's bounded
//!   types (`tensor<?xf32, #stablehlo.bounds<4>>`) inside the program, but not at `@main`'s
//!   boundary: a worker receives static arrays and returns the bound's elements, so a dynamic
//!   entry parameter or result is unsupported.
//!
//! Instructions that neither the root nor a side effect (`infeed`, `outfeed`, `send`, `recv` and
//! their `-done` halves) depends on are not printed.
//!
//! Sources: seed 004 (the meaning of each operation) and the StableHLO specification (the
//! operations and attribute forms that express it).

mod collective;
mod contraction;
mod control;
mod elementwise;
mod indexing;
mod linalg;
mod movement;
mod regions;
mod transfer;
pub mod types;

use super::ir::{HloComputation, HloInstruction, HloModule, Opcode};
use crate::shape::{ArrayShape, Shape};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Why a module cannot be printed as StableHLO.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StablehloError {
    /// `instruction` (`%name (opcode)` of the HLO instruction) has no faithful StableHLO form
    /// here; `reason` says why.
    #[error("cannot print {instruction} as StableHLO: {reason}")]
    Unsupported { instruction: String, reason: String },
}

type R<T> = Result<T, StablehloError>;

/// The error for `instr` with `reason`.
fn unsupported(instr: &HloInstruction, reason: impl Into<String>) -> StablehloError {
    StablehloError::Unsupported {
        instruction: format!("%{} ({})", instr.name, instr.opcode),
        reason: reason.into(),
    }
}

/// Prints `module` as StableHLO in MLIR's generic operation syntax: `module { func.func public
/// @main(...) ... }`, the entry computation as `@main` with one argument per parameter (in
/// parameter order, row-major tensors) and one result per leaf of the root (depth-first), and
/// the computations reached through `call` as private functions.
///
/// Errors: [`StablehloError::Unsupported`] naming the first instruction (in a depth-first walk
/// from the entry) that has no faithful StableHLO form: an opcode the printer does not translate
/// (`rng`, `fft`, collectives, ...), an attribute that would change the meaning and has no
/// StableHLO counterpart, a tuple-shaped, token or dynamic entry parameter, a dynamic entry
/// result or one holding a token (the worker protocol passes static arrays), or a malformed
/// module (an operand or a called computation that does not exist).
pub fn print_stablehlo(module: &HloModule) -> Result<String, StablehloError> {
    let mut printer = ModulePrinter {
        module,
        symbols: HashMap::new(),
        taken: HashSet::from(["main".to_string()]),
        in_progress: HashSet::new(),
        functions: Vec::new(),
    };
    let entry =
        module
            .computations
            .get(module.entry)
            .ok_or_else(|| StablehloError::Unsupported {
                instruction: format!("module {}", module.name),
                reason: format!("the entry index {} names no computation", module.entry),
            })?;
    let main = printer.function(entry, "main", true)?;
    // The device grid, as JAX writes it for a module of several devices.
    let grid =
        crate::collective::DeviceGrid::of(module).map_err(|e| StablehloError::Unsupported {
            instruction: format!("module {}", module.name),
            reason: e.to_string(),
        })?;
    let mut out = if grid.devices() > 1 {
        format!(
            "module attributes {{mhlo.num_partitions = {} : i32, mhlo.num_replicas = {} : i32}} {{\n",
            grid.partitions, grid.replicas
        )
    } else {
        String::from("module {\n")
    };
    out.push_str(&main);
    for f in &printer.functions {
        out.push_str(f);
    }
    out.push_str("}\n");
    Ok(out)
}

/// A value of the HLO program in the StableHLO text: an SSA value (one array) or a tuple of
/// values, which exists only while printing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Leaf(Leaf),
    Tuple(Vec<Value>),
}

/// An SSA value: its name (`%3`, `%5#1`, `%arg0`) and tensor type.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Leaf {
    name: String,
    ty: String,
}

impl Value {
    /// The leaves, depth-first, left to right.
    fn leaves(&self) -> Vec<&Leaf> {
        let mut out = Vec::new();
        fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Leaf>) {
            match v {
                Value::Leaf(l) => out.push(l),
                Value::Tuple(t) => t.iter().for_each(|x| walk(x, out)),
            }
        }
        walk(self, &mut out);
        out
    }

    /// Rebuilds a value of `shape` from its leaves in depth-first order (consumed from `leaves`).
    fn from_leaves(shape: &Shape, leaves: &mut impl Iterator<Item = Leaf>) -> Option<Value> {
        match shape {
            Shape::Tuple(t) => t
                .iter()
                .map(|s| Value::from_leaves(s, leaves))
                .collect::<Option<Vec<_>>>()
                .map(Value::Tuple),
            _ => leaves.next().map(Value::Leaf),
        }
    }
}

/// Module-wide state: the private functions written so far and their symbols.
struct ModulePrinter<'m> {
    module: &'m HloModule,
    /// Computation name → symbol of its function.
    symbols: HashMap<String, String>,
    /// Symbols in use.
    taken: HashSet<String>,
    /// Computations whose function is being written (a call cycle is an error, not a hang).
    in_progress: HashSet<String>,
    /// The text of each private function, in the order they were completed.
    functions: Vec<String>,
}

impl ModulePrinter<'_> {
    /// The symbol of the function of computation `name`, writing the function first if needed.
    fn function_symbol(&mut self, instr: &HloInstruction, name: &str) -> R<String> {
        if let Some(s) = self.symbols.get(name) {
            return Ok(s.clone());
        }
        let module = self.module;
        let comp = module
            .computation(name)
            .ok_or_else(|| unsupported(instr, format!("calls %{name}, which does not exist")))?;
        if !self.in_progress.insert(comp.name.clone()) {
            return Err(unsupported(
                instr,
                format!("%{} calls itself (directly or not)", comp.name),
            ));
        }
        let mut symbol = comp.name.clone();
        let mut k = 1;
        while self.taken.contains(&symbol) {
            symbol = format!("{}.{k}", comp.name);
            k += 1;
        }
        self.taken.insert(symbol.clone());
        let text = self.function(comp, &symbol, false)?;
        self.in_progress.remove(&comp.name);
        self.functions.push(text);
        self.symbols.insert(comp.name.clone(), symbol.clone());
        Ok(symbol)
    }

    /// `func.func public|private @symbol(args) -> (results) { ... }` for `comp`; tuple-shaped
    /// parameters of private functions become one argument per leaf.
    fn function(&mut self, comp: &HloComputation, symbol: &str, public: bool) -> R<String> {
        let mut e = Emitter::new(self);
        let params = parameters(comp)?;
        let mut args: Vec<Leaf> = Vec::new();
        let mut values = Vec::new();
        for p in &params {
            if public && types::is_dynamic(&p.shape) {
                return Err(unsupported(
                    p,
                    format!(
                        "the entry parameter has the dynamic shape {}; the worker protocol \
                         passes static arrays",
                        p.shape
                    ),
                ));
            }
            if public && !matches!(p.shape, Shape::Array(_)) {
                return Err(unsupported(
                    p,
                    format!(
                        "the entry parameter has shape {}; the worker protocol passes arrays",
                        p.shape
                    ),
                ));
            }
            let types = types::leaf_types(&p.shape).map_err(|r| unsupported(p, r))?;
            let leaves: Vec<Leaf> = types
                .into_iter()
                .map(|ty| {
                    let name = format!("%arg{}", args.len());
                    let l = Leaf { name, ty };
                    args.push(l.clone());
                    l
                })
                .collect();
            values.push(
                Value::from_leaves(&p.shape, &mut leaves.into_iter())
                    .ok_or_else(|| unsupported(p, "parameter shape and leaves disagree"))?,
            );
        }
        if public {
            let root = comp.root_instruction();
            if types::is_dynamic(&root.shape) {
                return Err(unsupported(
                    root,
                    format!(
                        "the entry result has the dynamic shape {}: its runtime size would not \
                         reach the worker, which returns the bound's elements",
                        root.shape
                    ),
                ));
            }
            // A token result (JAX returns the token of its ordered effects) is printed as
            // `!stablehlo.token`; it has no output in the worker protocol (docs/protocol.md).
        }
        let root = e.computation(comp, values)?;
        let results = root.leaves();
        e.terminator("func.return", &results);
        let mut out = String::new();
        let signature: Vec<String> = args
            .iter()
            .map(|a| format!("{}: {}", a.name, a.ty))
            .collect();
        let result_types: Vec<&str> = results.iter().map(|l| l.ty.as_str()).collect();
        let _ = writeln!(
            out,
            "  func.func {} {}({}) -> ({}) {{",
            if public { "public" } else { "private" },
            types::symbol(symbol),
            signature.join(", "),
            result_types.join(", ")
        );
        for line in &e.lines {
            out.push_str(&indent(line, "    "));
        }
        out.push_str("  }\n");
        Ok(out)
    }
}

/// The parameters of `comp` by number, checked to be numbered `0..n` once each.
fn parameters(comp: &HloComputation) -> R<Vec<&HloInstruction>> {
    let params = comp.parameters();
    for (k, p) in params.iter().enumerate() {
        if p.parameter_number != Some(k as i64) {
            return Err(unsupported(
                p,
                format!(
                    "the parameters of %{} are not numbered 0..{} once each",
                    comp.name,
                    params.len()
                ),
            ));
        }
    }
    Ok(params)
}

/// Prefixes every line of `text` with `prefix`; the result ends with a newline.
fn indent(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + prefix.len() * 4);
    for line in text.lines() {
        out.push_str(prefix);
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Which instructions the root or a side effect depends on (operands, transitively): the
/// instructions with a side effect ([`transfer::has_side_effect`]) are live whether or not the
/// root uses them.
fn live_instructions(comp: &HloComputation) -> Vec<bool> {
    let mut live = vec![false; comp.instructions.len()];
    let mut stack = vec![comp.root];
    stack.extend(
        (0..comp.instructions.len())
            .filter(|&i| transfer::has_side_effect(comp.instructions[i].opcode)),
    );
    while let Some(i) = stack.pop() {
        if i >= live.len() || live[i] {
            continue;
        }
        live[i] = true;
        stack.extend(comp.instructions[i].operands.iter().copied());
    }
    live
}

/// Writes the operations of one function body: SSA names, the current block's lines, regions.
struct Emitter<'p, 'm> {
    printer: &'p mut ModulePrinter<'m>,
    /// The next SSA number (`%N`), shared by every region of the function (MLIR forbids
    /// redefining a name visible from an enclosing region).
    next: usize,
    /// The operations of the block being written, one entry per operation (an operation with
    /// regions spans several lines).
    lines: Vec<String>,
}

impl<'p, 'm> Emitter<'p, 'm> {
    fn new(printer: &'p mut ModulePrinter<'m>) -> Self {
        Emitter {
            printer,
            next: 0,
            lines: Vec::new(),
        }
    }

    /// Writes the live instructions of `comp` with its parameters bound to `params` (by
    /// parameter number) and returns the value of its root.
    fn computation(&mut self, comp: &HloComputation, params: Vec<Value>) -> R<Value> {
        let live = live_instructions(comp);
        let mut env: Vec<Option<Value>> = vec![None; comp.instructions.len()];
        for (i, instr) in comp.instructions.iter().enumerate() {
            if !live[i] {
                continue;
            }
            let value = if instr.opcode == Opcode::Parameter {
                let n = instr.parameter_number.unwrap_or(-1);
                usize::try_from(n)
                    .ok()
                    .and_then(|n| params.get(n))
                    .cloned()
                    .ok_or_else(|| {
                        unsupported(
                            instr,
                            format!(
                                "parameter number {n} of %{} has no argument ({} given)",
                                comp.name,
                                params.len()
                            ),
                        )
                    })?
            } else {
                let mut ops = Vec::with_capacity(instr.operands.len());
                for &o in &instr.operands {
                    let v = env.get(o).and_then(Option::as_ref).ok_or_else(|| {
                        unsupported(instr, format!("operand #{o} is not defined before its use"))
                    })?;
                    ops.push(v);
                }
                self.instruction(comp, instr, &ops)?
            };
            env[i] = Some(value);
        }
        env.get_mut(comp.root)
            .and_then(Option::take)
            .ok_or_else(|| StablehloError::Unsupported {
                instruction: format!("computation %{}", comp.name),
                reason: format!("the root index {} names no instruction", comp.root),
            })
    }

    /// Writes one instruction (not a parameter) and returns its value.
    fn instruction(
        &mut self,
        comp: &HloComputation,
        instr: &HloInstruction,
        ops: &[&Value],
    ) -> R<Value> {
        use Opcode::*;
        let translated = matches!(
            instr.opcode,
            Constant
                | Tuple
                | GetTupleElement
                | Copy
                | Call
                | Fusion
                | While
                | Conditional
                | OptimizationBarrier
                | Broadcast
                | Reshape
                | Transpose
                | Slice
                | Concatenate
                | Pad
                | Iota
                | Reverse
                | GetDimensionSize
                | SetDimensionSize
                | DynamicSlice
                | DynamicUpdateSlice
                | Gather
                | Scatter
                | Dot
                | Convolution
                | Reduce
                | ReduceWindow
                | SelectAndScatter
                | Sort
                | Map
                | TopK
                | Compare
                | ReducePrecision
                | Fft
                | Cholesky
                | TriangularSolve
                | BatchNormTraining
                | BatchNormInference
                | BatchNormGrad
                | CustomCall
                | RngBitGenerator
                | Rng
                | AllReduce
                | AllGather
                | AllToAll
                | CollectivePermute
                | ReduceScatter
                | ReplicaId
                | PartitionId
                | AfterAll
                | Infeed
                | Outfeed
                | Send
                | SendDone
                | Recv
                | RecvDone
        ) || elementwise::stablehlo_name(instr.opcode).is_some();
        if !translated {
            return Err(unsupported(
                instr,
                format!("the printer has no StableHLO form for `{}`", instr.opcode),
            ));
        }
        check_attributes(instr)?;
        let at = At { comp, instr };
        match instr.opcode {
            Constant => control::constant(self, instr),
            Tuple | GetTupleElement | Copy | Call | Fusion | While | Conditional
            | OptimizationBarrier => control::emit(self, at, ops),
            Broadcast | Reshape | Transpose | Slice | Concatenate | Pad | Iota | Reverse
            | GetDimensionSize | SetDimensionSize => movement::emit(self, at, ops),
            DynamicSlice | DynamicUpdateSlice | Gather | Scatter => indexing::emit(self, at, ops),
            Dot | Convolution => contraction::emit(self, at, ops),
            Reduce | ReduceWindow | SelectAndScatter | Sort | Map | TopK => {
                regions::emit(self, at, ops)
            }
            Fft | Cholesky | TriangularSolve | BatchNormTraining | BatchNormInference
            | BatchNormGrad | CustomCall | RngBitGenerator | Rng => linalg::emit(self, at, ops),
            AllReduce | AllGather | AllToAll | CollectivePermute | ReduceScatter | ReplicaId
            | PartitionId => collective::emit(self, at, ops),
            AfterAll | Infeed | Outfeed | Send | SendDone | Recv | RecvDone => {
                transfer::emit(self, at, ops)
            }
            _ => elementwise::emit(self, at, ops),
        }
    }

    /// A fresh SSA number.
    fn fresh(&mut self) -> usize {
        let n = self.next;
        self.next += 1;
        n
    }

    /// Writes `%N = "name"(operands) <{attributes}> (regions) : (operand types) -> results` and
    /// returns the results' leaves (`%N`, or `%N#k` for several results).
    fn op(
        &mut self,
        name: &str,
        operands: &[&Leaf],
        attributes: &[(&str, String)],
        regions: &[String],
        results: &[String],
    ) -> Vec<Leaf> {
        self.op_with(name, operands, attributes, &[], regions, results)
    }

    /// [`Emitter::op`] with discardable attributes (`{mhlo.frontend_attributes = ...}`, after
    /// the regions) besides the properties `<{...}>`.
    fn op_with(
        &mut self,
        name: &str,
        operands: &[&Leaf],
        attributes: &[(&str, String)],
        discardable: &[(&str, String)],
        regions: &[String],
        results: &[String],
    ) -> Vec<Leaf> {
        let id = self.fresh();
        let mut line = String::new();
        match results.len() {
            0 => {}
            1 => {
                let _ = write!(line, "%{id} = ");
            }
            n => {
                let _ = write!(line, "%{id}:{n} = ");
            }
        }
        let names: Vec<&str> = operands.iter().map(|l| l.name.as_str()).collect();
        let _ = write!(line, "\"{name}\"({})", names.join(", "));
        if !attributes.is_empty() {
            let items: Vec<String> = attributes
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            let _ = write!(line, " <{{{}}}>", items.join(", "));
        }
        if !regions.is_empty() {
            let _ = write!(line, " ({})", regions.join(", "));
        }
        if !discardable.is_empty() {
            let items: Vec<String> = discardable
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            let _ = write!(line, " {{{}}}", items.join(", "));
        }
        let types: Vec<&str> = operands.iter().map(|l| l.ty.as_str()).collect();
        let _ = write!(line, " : ({}) -> ", types.join(", "));
        if results.len() == 1 {
            line.push_str(&results[0]);
        } else {
            let _ = write!(line, "({})", results.join(", "));
        }
        self.lines.push(line);
        match results.len() {
            1 => vec![Leaf {
                name: format!("%{id}"),
                ty: results[0].clone(),
            }],
            _ => results
                .iter()
                .enumerate()
                .map(|(k, ty)| Leaf {
                    name: format!("%{id}#{k}"),
                    ty: ty.clone(),
                })
                .collect(),
        }
    }

    /// [`Emitter::op`] with the results of `instr`'s shape, returned as a value of that shape.
    fn op_shaped(
        &mut self,
        instr: &HloInstruction,
        name: &str,
        operands: &[&Leaf],
        attributes: &[(&str, String)],
        regions: &[String],
    ) -> R<Value> {
        let results = types::leaf_types(&instr.shape).map_err(|r| unsupported(instr, r))?;
        let leaves = self.op(name, operands, attributes, regions, &results);
        Value::from_leaves(&instr.shape, &mut leaves.into_iter())
            .ok_or_else(|| unsupported(instr, "result shape and leaves disagree"))
    }

    /// Writes a terminator (`func.return`, `stablehlo.return`) of `values`.
    fn terminator(&mut self, name: &str, values: &[&Leaf]) {
        let names: Vec<&str> = values.iter().map(|l| l.name.as_str()).collect();
        let types: Vec<&str> = values.iter().map(|l| l.ty.as_str()).collect();
        self.lines.push(format!(
            "\"{name}\"({}) : ({}) -> ()",
            names.join(", "),
            types.join(", ")
        ));
    }

    /// The region `{ ^bb0(args): ... "stablehlo.return"(root leaves) }` of computation `name`
    /// called by `instr`. With `bind`, the parameters are these values from the enclosing region
    /// and the block has no arguments (`if`/`case` branches); otherwise each parameter leaf is a
    /// block argument.
    fn region(
        &mut self,
        instr: &HloInstruction,
        name: &str,
        bind: Option<Vec<Value>>,
    ) -> R<(String, Value)> {
        let module = self.printer.module;
        let comp = module
            .computation(name)
            .ok_or_else(|| unsupported(instr, format!("calls %{name}, which does not exist")))?;
        let outer = std::mem::take(&mut self.lines);
        let body = self.region_body(comp, bind);
        let lines = std::mem::replace(&mut self.lines, outer);
        let (header, root) = body?;
        let mut text = String::from("{\n");
        if let Some(h) = header {
            text.push_str(&h);
            text.push('\n');
        }
        for line in &lines {
            text.push_str(&indent(line, "  "));
        }
        text.push('}');
        Ok((text, root))
    }

    fn region_body(
        &mut self,
        comp: &HloComputation,
        bind: Option<Vec<Value>>,
    ) -> R<(Option<String>, Value)> {
        let (header, params) = match bind {
            Some(values) => (None, values),
            None => {
                let mut args = Vec::new();
                let mut values = Vec::new();
                for p in parameters(comp)? {
                    let types = types::leaf_types(&p.shape).map_err(|r| unsupported(p, r))?;
                    let leaves: Vec<Leaf> = types
                        .into_iter()
                        .map(|ty| {
                            let l = Leaf {
                                name: format!("%{}", self.fresh()),
                                ty,
                            };
                            args.push(format!("{}: {}", l.name, l.ty));
                            l
                        })
                        .collect();
                    values.push(
                        Value::from_leaves(&p.shape, &mut leaves.into_iter())
                            .ok_or_else(|| unsupported(p, "parameter shape and leaves disagree"))?,
                    );
                }
                (Some(format!("^bb0({}):", args.join(", "))), values)
            }
        };
        let root = self.computation(comp, params)?;
        self.terminator("stablehlo.return", &root.leaves());
        Ok((header, root))
    }
}

/// Attributes that annotate an instruction without changing what it computes.
const ANNOTATIONS: &[&str] = &[
    "metadata",
    "frontend_attributes",
    "backend_config",
    "sharding",
    "statistics",
    "operand_precision",
    "control-predecessors",
    "parameter_replication",
    "origin",
];

/// The attributes each opcode's translation reads.
fn translated_attributes(op: Opcode) -> &'static [&'static str] {
    use Opcode::*;
    match op {
        Compare => &["direction", "type"],
        ReducePrecision => &["exponent_bits", "mantissa_bits"],
        Broadcast | Transpose | Reverse | Concatenate | GetDimensionSize | SetDimensionSize => {
            &["dimensions"]
        }
        Reduce => &["dimensions", "to_apply"],
        Slice => &["slice"],
        Pad => &["padding"],
        Iota => &["iota_dimension"],
        DynamicSlice => &["dynamic_slice_sizes"],
        Gather => &[
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "index_vector_dim",
            "slice_sizes",
            "indices_are_sorted",
            "operand_batching_dims",
            "start_indices_batching_dims",
        ],
        Scatter => &[
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "unique_indices",
            "to_apply",
            "input_batching_dims",
            "scatter_indices_batching_dims",
        ],
        Dot => &[
            "lhs_batch_dims",
            "rhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_contracting_dims",
        ],
        Convolution => &[
            "window",
            "dim_labels",
            "feature_group_count",
            "batch_group_count",
        ],
        ReduceWindow => &["window", "to_apply"],
        SelectAndScatter => &["window", "select", "scatter"],
        Sort => &["dimensions", "is_stable", "to_apply"],
        Map => &["dimensions", "to_apply"],
        TopK => &["k", "largest"],
        Call => &["to_apply"],
        Fusion => &["calls", "kind"],
        While => &["condition", "body"],
        Conditional => &[
            "true_computation",
            "false_computation",
            "branch_computations",
        ],
        GetTupleElement => &["index"],
        Fft => &["fft_type", "fft_length"],
        RngBitGenerator => &["algorithm"],
        Rng => &["distribution"],
        AllReduce => &[
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
            "to_apply",
        ],
        ReduceScatter => &[
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
            "dimensions",
            "to_apply",
        ],
        AllGather => &[
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
            "dimensions",
        ],
        AllToAll => &["replica_groups", "channel_id", "dimensions"],
        CollectivePermute => &["source_target_pairs", "channel_id"],
        // `frontend_attributes` (an annotation elsewhere) carries a channel's device pairs.
        Send | Recv | SendDone | RecvDone => &["channel_id", "is_host_transfer"],
        Infeed => &["infeed_config"],
        Outfeed => &["outfeed_shape", "outfeed_config"],
        Cholesky => &["lower"],
        TriangularSolve => &["left_side", "lower", "unit_diagonal", "transpose_a"],
        BatchNormTraining | BatchNormInference | BatchNormGrad => &["epsilon", "feature_index"],
        // Layouts and aliasing are the target's own (docs/custom-calls.md): the printer writes
        // LAPACK's; aliasing does not change values.
        CustomCall => &[
            "custom_call_target",
            "api_version",
            "operand_layout_constraints",
            "output_to_operand_aliasing",
        ],
        _ => &[],
    }
}

/// Errors on an attribute that is neither translated for this opcode nor an annotation.
fn check_attributes(instr: &HloInstruction) -> R<()> {
    let known = translated_attributes(instr.opcode);
    for a in &instr.attributes {
        if !known.contains(&a.name.as_str()) && !ANNOTATIONS.contains(&a.name.as_str()) {
            return Err(unsupported(
                instr,
                format!(
                    "attribute `{a}` has no StableHLO translation here (dropping it could change \
                     the result)"
                ),
            ));
        }
    }
    Ok(())
}

/// An instruction with the computation that holds it (where its operands' shapes are).
#[derive(Clone, Copy)]
struct At<'a> {
    comp: &'a HloComputation,
    instr: &'a HloInstruction,
}

impl<'a> At<'a> {
    /// The HLO array shape of operand `k`.
    fn operand_shape(&self, k: usize) -> R<&'a ArrayShape> {
        let i = self.instr;
        let index = *i.operands.get(k).ok_or_else(|| {
            unsupported(
                i,
                format!(
                    "expected at least {} operands, found {}",
                    k + 1,
                    i.operands.len()
                ),
            )
        })?;
        let o = self
            .comp
            .instructions
            .get(index)
            .ok_or_else(|| unsupported(i, format!("operand #{index} does not exist")))?;
        types::array_shape(&o.shape).map_err(|r| unsupported(i, format!("operand {k}: {r}")))
    }

    /// The HLO array shape of the instruction.
    fn shape(&self) -> R<&'a ArrayShape> {
        types::array_shape(&self.instr.shape).map_err(|r| unsupported(self.instr, r))
    }

    /// The computation named by attribute `name` (`to_apply=%c`).
    fn called(&self, name: &str) -> R<&'a str> {
        match self.instr.attribute(name) {
            Some(super::ir::AttrValue::Computation(c)) => Ok(c),
            _ => Err(self.error(format!("missing `{name}=%computation`"))),
        }
    }

    /// The error for this instruction with `reason`.
    fn error(&self, reason: impl Into<String>) -> StablehloError {
        unsupported(self.instr, reason)
    }
}

/// The leaf of operand `k`, or an error when it is missing or a tuple.
fn operand<'v>(instr: &HloInstruction, ops: &[&'v Value], k: usize) -> R<&'v Leaf> {
    match ops.get(k) {
        Some(Value::Leaf(l)) => Ok(l),
        Some(Value::Tuple(_)) => Err(unsupported(
            instr,
            format!("operand {k} is a tuple where an array is expected"),
        )),
        None => Err(unsupported(
            instr,
            format!("expected at least {} operands, found {}", k + 1, ops.len()),
        )),
    }
}

/// The leaves of every operand, each required to be an array.
fn array_operands<'v>(instr: &HloInstruction, ops: &[&'v Value]) -> R<Vec<&'v Leaf>> {
    (0..ops.len()).map(|k| operand(instr, ops, k)).collect()
}

#[cfg(test)]
mod tests;
