//! Syntax tree → IR: functions become computations, values become instructions.
//!
//! - `@main` (or the only public function) is the entry computation; the private functions it
//!   reaches through `func.call` become computations called by HLO `call`s (functions nothing
//!   calls are read and checked, and left out of the module).
//! - A function or region with one result has it as its root; with several, a `tuple` of them
//!   (as JAX's HLO dumps have it). An operation with several results is one tuple-shaped
//!   instruction; `%r#k` is a `get-tuple-element` of it, made where it is first used.
//! - Regions become computations: `to_apply`-style regions (reduce, sort, scatter, map, ...)
//!   take their block arguments as scalar parameters; `while` takes one tuple parameter (the loop
//!   state), `case`/`if` branches one tuple of the values they use from outside. Values a
//!   `while` or branch region uses from the enclosing code are passed in that tuple (for a loop,
//!   as extra state carried unchanged), constants excepted: they are copied into the region's
//!   computation; a `to_apply` region may only use constants from outside, as HLO computations
//!   cannot capture values.
//! - Instructions are named after the operation and the SSA value (`%3 = stablehlo.add` →
//!   `add.3`), unique in the module; [`super::StablehloSourceMap`] maps each back to its position.

use super::attrs::{Attr, Type};
use super::syntax::{Block, Func, Module, Op, Use};
use super::StablehloParseError;
use crate::hlo::builder::ComputationBuilder;
use crate::hlo::ir::{AttrValue, Attribute, HloComputation, HloModule, Opcode};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};
use std::collections::{HashMap, HashSet};

pub(crate) type LResult<T> = Result<T, StablehloParseError>;

/// Why operation `name` cannot be read: unknown, or without a translation to the IR.
pub(crate) fn no_translation(name: &str) -> String {
    let known_unsupported = [
        "stablehlo.collective_broadcast",
        "stablehlo.composite",
        "stablehlo.uniform_quantize",
        "stablehlo.uniform_dequantize",
        "stablehlo.dynamic_broadcast_in_dim",
        "stablehlo.dynamic_reshape",
        "stablehlo.dynamic_iota",
        "stablehlo.dynamic_pad",
        "stablehlo.dynamic_gather",
        "stablehlo.dynamic_conv",
        "stablehlo.real_dynamic_slice",
        "stablehlo.einsum",
        "stablehlo.unary_einsum",
        "stablehlo.torch_index_select",
        "stablehlo.trace",
    ];
    if known_unsupported.contains(&name) {
        format!("operation `{name}` has no translation to the IR here (it is not in the catalog)")
    } else if name.starts_with("chlo.") {
        format!(
            "operation `{name}` has no HLO opcode in the IR: the catalog has no entry with an \
             exact reference for it (the catalog has `chlo.top_k`, `square` of real values and the \
             functions acos, acosh, asin, asinh, atan, atanh, bessel_i1e, cosh, digamma, erf, \
             erf_inv, erfc, lgamma, next_after, polygamma, sinh, tan, zeta)"
        )
    } else {
        format!("unknown operation `{name}`")
    }
}

/// How a value of the text is held in the current computation.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    /// An instruction.
    Instr(usize),
    /// Element `index` of tuple-shaped instruction `tuple` (a `get-tuple-element` is made on
    /// first use, named `hint`).
    Element {
        tuple: usize,
        index: usize,
        hint: String,
    },
}

/// One computation being built.
pub(crate) struct Scope {
    pub name: String,
    pub b: ComputationBuilder,
    /// The final name of each instruction.
    names: Vec<String>,
    /// Value `(%name, result)` → its binding.
    env: HashMap<(String, usize), Binding>,
    /// `get-tuple-element`s made: (tuple, index) → instruction.
    gte: HashMap<(usize, usize), usize>,
}

impl Scope {
    pub fn new(name: String) -> Scope {
        Scope {
            b: ComputationBuilder::new(name.clone()),
            name,
            names: Vec::new(),
            env: HashMap::new(),
            gte: HashMap::new(),
        }
    }

    /// The shape of instruction `i`.
    pub fn shape(&self, i: usize) -> Shape {
        self.b.instructions()[i].shape.clone()
    }

    /// Binds a value of the text.
    pub fn bind(&mut self, key: (String, usize), b: Binding) {
        self.env.insert(key, b);
    }

    /// The computation with `root` as root and the final instruction names.
    fn finish(self, root: usize) -> HloComputation {
        let mut comp = self.b.build(root);
        for (i, n) in comp.instructions.iter_mut().zip(self.names) {
            i.name = n;
        }
        comp
    }
}

/// A lowered function: its computation, parameter shapes and result shapes.
#[derive(Clone, Debug)]
pub(crate) struct Callee {
    pub computation: String,
    pub params: Vec<Shape>,
    pub results: Vec<Shape>,
}

/// Where an instruction comes from: (computation, instruction, byte offset of the operation).
pub(crate) type Position = (String, String, usize);

/// Module-wide state.
pub(crate) struct Lowering<'a> {
    pub src: &'a str,
    funcs: &'a [Func],
    by_symbol: HashMap<&'a str, usize>,
    done: HashMap<String, Callee>,
    in_progress: HashSet<String>,
    /// Finished computations (callees and regions before their users).
    pub computations: Vec<HloComputation>,
    comp_names: HashSet<String>,
    instr_names: HashSet<String>,
    pub positions: Vec<Position>,
}

/// Replaces characters HLO names do not allow.
pub(crate) fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "v".into()
    } else {
        s
    }
}

/// `base`, or `base.N` for the first N that is not in `taken`; the result is added to `taken`.
fn unique(taken: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 1;
    while taken.contains(&name) {
        name = format!("{base}.{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// Lowers a parsed module.
pub(crate) fn lower_module(src: &str, m: &Module) -> LResult<(HloModule, Vec<Position>)> {
    let mut by_symbol = HashMap::new();
    for (k, f) in m.funcs.iter().enumerate() {
        if by_symbol.insert(f.name.as_str(), k).is_some() {
            return Err(StablehloParseError::at(
                src,
                f.pos,
                format!("function `@{}` is defined twice", f.name),
            ));
        }
    }
    let entry = match by_symbol.get("main") {
        Some(&k) => k,
        None => {
            let public: Vec<usize> = (0..m.funcs.len()).filter(|&k| m.funcs[k].public).collect();
            match public[..] {
                [k] => k,
                _ => {
                    return Err(StablehloParseError::at(
                        src,
                        0,
                        "expected a function `@main` (or exactly one public function) as the entry",
                    ))
                }
            }
        }
    };
    let mut l = Lowering {
        src,
        funcs: &m.funcs,
        by_symbol,
        done: HashMap::new(),
        in_progress: HashSet::new(),
        computations: Vec::new(),
        comp_names: HashSet::new(),
        instr_names: HashSet::new(),
        positions: Vec::new(),
    };
    let main = l.function(entry, m.funcs[entry].pos)?;
    // Functions nothing calls are still read (so their errors are reported), then left out.
    let kept = l.computations.len();
    for k in 0..m.funcs.len() {
        if !l.done.contains_key(&m.funcs[k].name) {
            l.function(k, m.funcs[k].pos)?;
        }
    }
    l.computations.truncate(kept);
    let entry_index = l
        .computations
        .iter()
        .position(|c| c.name == main.computation)
        .expect("the entry computation was built");
    let entry_comp = l.computations.remove(entry_index);
    let name = sanitize(m.name.as_deref().unwrap_or("main"));
    let mut module = HloModule::with_entry(&name, entry_comp, l.computations);
    let count = |n: Option<i128>, what: &str| -> LResult<usize> {
        match n {
            None => Ok(1),
            Some(n) if (1..=crate::collective::MAX_DEVICES as i128).contains(&n) => Ok(n as usize),
            Some(n) => Err(StablehloParseError::at(
                src,
                0,
                format!(
                    "`{what} = {n}`: expected 1 to {} devices",
                    crate::collective::MAX_DEVICES
                ),
            )),
        }
    };
    let grid = crate::collective::DeviceGrid {
        replicas: count(m.num_replicas, "mhlo.num_replicas")?,
        partitions: count(m.num_partitions, "mhlo.num_partitions")?,
    };
    if grid.devices() > crate::collective::MAX_DEVICES {
        return Err(StablehloParseError::at(
            src,
            0,
            format!(
                "{} replicas × {} partitions: more than {} devices",
                grid.replicas,
                grid.partitions,
                crate::collective::MAX_DEVICES
            ),
        ));
    }
    crate::collective::set_grid(&mut module, grid);
    Ok((module, l.positions))
}

impl<'a> Lowering<'a> {
    /// The error at byte offset `at`.
    pub fn err(&self, at: usize, message: impl Into<String>) -> StablehloParseError {
        StablehloParseError::at(self.src, at, message)
    }

    /// A fresh computation name based on `base`.
    pub fn computation_name(&mut self, base: &str) -> String {
        unique(&mut self.comp_names, &sanitize(base))
    }

    /// Adds a finished computation.
    pub fn push_computation(&mut self, s: Scope, root: usize) {
        let comp = s.finish(root);
        self.computations.push(comp);
    }

    /// The lowered function `@symbol`, lowering it first if needed.
    ///
    /// Errors: no such function, a call cycle, or any error inside it.
    pub fn callee(&mut self, symbol: &str, at: usize) -> LResult<Callee> {
        if let Some(c) = self.done.get(symbol) {
            return Ok(c.clone());
        }
        let k = *self
            .by_symbol
            .get(symbol)
            .ok_or_else(|| self.err(at, format!("call of `@{symbol}`, which is not defined")))?;
        self.function(k, at)
    }

    /// Lowers function `k`.
    fn function(&mut self, k: usize, at: usize) -> LResult<Callee> {
        let f: &'a Func = &self.funcs[k];
        if !self.in_progress.insert(f.name.clone()) {
            return Err(self.err(
                at,
                format!(
                    "`@{}` calls itself (directly or not): HLO has no recursion",
                    f.name
                ),
            ));
        }
        let name = self.computation_name(&f.name);
        let mut s = Scope::new(name.clone());
        let mut params = Vec::new();
        for a in &f.args {
            let shape = self.shape_of_type(&a.ty, a.pos)?;
            let p = self.parameter(&mut s, shape.clone(), &a.name, a.pos)?;
            s.bind((a.name.clone(), 0), Binding::Instr(p));
            params.push(shape);
        }
        let (values, ret) = self.block(&mut s, &f.body)?;
        let mut results = Vec::new();
        if values.len() != f.results.len() {
            return Err(self.err(
                ret.pos,
                format!(
                    "`@{}` declares {} result(s), its return gives {}",
                    f.name,
                    f.results.len(),
                    values.len()
                ),
            ));
        }
        for (k, (&v, ty)) in values.iter().zip(&f.results).enumerate() {
            let declared = self.shape_of_type(ty, f.pos)?;
            self.check_shape(
                &s.shape(v),
                &declared,
                ret.pos,
                &format!("result {k} of `@{}`", f.name),
            )?;
            results.push(declared);
        }
        let root = self.root(&mut s, &values, ret.pos)?;
        self.push_computation(s, root);
        self.in_progress.remove(&f.name);
        let callee = Callee {
            computation: name,
            params,
            results,
        };
        self.done.insert(f.name.clone(), callee.clone());
        Ok(callee)
    }

    /// The root of a computation returning `values`: the value itself, or a tuple of them.
    pub fn root(&mut self, s: &mut Scope, values: &[usize], at: usize) -> LResult<usize> {
        match values {
            [v] => Ok(*v),
            _ => self.tuple(s, values, "tuple", at),
        }
    }

    /// A `tuple` of `values`.
    pub fn tuple(
        &mut self,
        s: &mut Scope,
        values: &[usize],
        base: &str,
        at: usize,
    ) -> LResult<usize> {
        let shape = Shape::Tuple(values.iter().map(|&v| s.shape(v)).collect());
        self.add(
            s,
            Opcode::Tuple,
            shape,
            values.to_vec(),
            Vec::new(),
            base,
            at,
        )
    }

    /// Lowers the operations of `block` but its terminator, and returns the values the
    /// terminator (`func.return` / `stablehlo.return`) returns, with the terminator.
    ///
    /// Errors: a block without a terminator, or operations after it.
    pub fn block<'b>(&mut self, s: &mut Scope, block: &'b Block) -> LResult<(Vec<usize>, &'b Op)> {
        let Some((last, body)) = block.ops.split_last() else {
            return Err(self.err(block.pos, "a block without a terminator (`return`)"));
        };
        for op in body {
            if is_terminator(&op.name) {
                return Err(self.err(op.pos, format!("`{}` before the end of its block", op.name)));
            }
            self.op(s, op)?;
        }
        if !is_terminator(&last.name) {
            return Err(self.err(
                last.pos,
                format!(
                    "expected `return` at the end of the block, found `{}`",
                    last.name
                ),
            ));
        }
        self.check_attributes(last, &[])?;
        let values = self.operands(s, last)?;
        Ok((values, last))
    }

    /// Lowers one operation and binds its results.
    fn op(&mut self, s: &mut Scope, op: &Op) -> LResult<()> {
        let results = super::ops::lower(self, s, op)?;
        let n = op.result_count();
        if n != results.len() {
            return Err(self.err(
                op.pos,
                format!(
                    "`{}` has {} result(s), the text names {n}",
                    op.name,
                    results.len()
                ),
            ));
        }
        let mut it = results.into_iter();
        for (name, count) in &op.results {
            for k in 0..*count {
                let b = it.next().expect("counts checked");
                s.bind((name.clone(), k), b);
            }
        }
        Ok(())
    }

    /// The instruction holding value `u` (making its `get-tuple-element` if needed).
    ///
    /// Errors: an undefined value.
    pub fn value(&mut self, s: &mut Scope, u: &Use) -> LResult<usize> {
        let b =
            s.env.get(&u.key()).cloned().ok_or_else(|| {
                self.err(u.pos, format!("use of undefined value `{}`", u.describe()))
            })?;
        match b {
            Binding::Instr(i) => Ok(i),
            Binding::Element { tuple, index, hint } => {
                if let Some(&g) = s.gte.get(&(tuple, index)) {
                    return Ok(g);
                }
                let shape = match s.shape(tuple) {
                    Shape::Tuple(t) => t[index].clone(),
                    other => {
                        return Err(self.err(
                            u.pos,
                            format!("`{}` is not an element of a tuple ({other})", u.describe()),
                        ))
                    }
                };
                let attrs = vec![int_attr("index", index as i64)];
                let g = self.add(
                    s,
                    Opcode::GetTupleElement,
                    shape,
                    vec![tuple],
                    attrs,
                    &hint,
                    u.pos,
                )?;
                s.gte.insert((tuple, index), g);
                Ok(g)
            }
        }
    }

    /// The instructions of an operation's operands, checked against its operand types when the
    /// text gives them.
    pub fn operands(&mut self, s: &mut Scope, op: &Op) -> LResult<Vec<usize>> {
        let mut out = Vec::with_capacity(op.operands.len());
        for u in &op.operands {
            out.push(self.value(s, u)?);
        }
        if !op.operand_types.is_empty() {
            if op.operand_types.len() != out.len() {
                return Err(self.err(
                    op.pos,
                    format!(
                        "`{}` has {} operand(s) but {} operand type(s)",
                        op.name,
                        out.len(),
                        op.operand_types.len()
                    ),
                ));
            }
            for ((u, &v), ty) in op.operands.iter().zip(&out).zip(&op.operand_types) {
                let declared = self.shape_of_type(ty, u.pos)?;
                self.check_shape(
                    &s.shape(v),
                    &declared,
                    u.pos,
                    &format!("`{}`", u.describe()),
                )?;
            }
        }
        Ok(out)
    }

    /// Errors when `actual` and `declared` differ in anything but layout.
    pub fn check_shape(
        &self,
        actual: &Shape,
        declared: &Shape,
        at: usize,
        what: &str,
    ) -> LResult<()> {
        if same_logical_shape(actual, declared) {
            Ok(())
        } else {
            Err(self.err(
                at,
                format!("{what} has shape {actual}, the text declares {declared}"),
            ))
        }
    }

    /// The IR shape of a type: tensors (row-major), tokens, tuples of them.
    ///
    /// Errors: function types and other non-tensor types.
    pub fn shape_of_type(&self, ty: &Type, at: usize) -> LResult<Shape> {
        match ty {
            Type::Tensor(a) => Ok(Shape::Array(a.clone())),
            Type::Tuple(items) => items
                .iter()
                .map(|t| self.shape_of_type(t, at))
                .collect::<LResult<Vec<_>>>()
                .map(Shape::Tuple),
            Type::Token => Ok(Shape::Token),
            other => Err(self.err(
                at,
                format!("expected a tensor type, found `{}`", other.describe()),
            )),
        }
    }

    /// Result `k`'s declared shape.
    pub fn result_shape(&self, op: &Op, k: usize) -> LResult<Shape> {
        let ty = op.result_types.get(k).ok_or_else(|| {
            self.err(
                op.pos,
                format!("`{}` declares no type for result {k}", op.name),
            )
        })?;
        self.shape_of_type(ty, op.pos)
    }

    /// The declared result shape: the one result's, or a tuple of all of them.
    pub fn results_shape(&self, op: &Op) -> LResult<Shape> {
        match op.result_types.len() {
            1 => self.result_shape(op, 0),
            n => (0..n)
                .map(|k| self.result_shape(op, k))
                .collect::<LResult<Vec<_>>>()
                .map(Shape::Tuple),
        }
    }

    /// Adds an instruction named after `base` (see [`Lowering::instruction_name`]).
    ///
    /// Errors: the builder's (shape inference disagrees with the declared shape, bad operands).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        s: &mut Scope,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
        base: &str,
        at: usize,
    ) -> LResult<usize> {
        let i =
            s.b.add_instruction(opcode, shape, operands, attributes)
                .map_err(|e| self.err(at, format!("`{opcode}`: {e}")))?;
        self.name(s, i, base, at);
        Ok(i)
    }

    /// Adds parameter number `s.parameters` with `shape`, named `base`.
    pub fn parameter(
        &mut self,
        s: &mut Scope,
        shape: Shape,
        base: &str,
        at: usize,
    ) -> LResult<usize> {
        let i =
            s.b.parameter(shape)
                .map_err(|e| self.err(at, format!("parameter: {e}")))?;
        self.name(s, i, base, at);
        Ok(i)
    }

    /// Adds a constant named `base`.
    pub fn constant(&mut self, s: &mut Scope, literal: Literal, base: &str, at: usize) -> usize {
        let i = s.b.constant(literal);
        self.name(s, i, base, at);
        i
    }

    fn name(&mut self, s: &mut Scope, i: usize, base: &str, at: usize) {
        debug_assert_eq!(i, s.names.len());
        let n = unique(&mut self.instr_names, &sanitize(base));
        self.positions.push((s.name.clone(), n.clone(), at));
        s.names.push(n);
    }

    /// Errors on an attribute of `op` that is neither in `used` nor an annotation that does not
    /// change what the operation computes (`mhlo.*`, `jax.*`, `sdy.*`, `precision_config`, a
    /// default `result_accuracy`).
    pub fn check_attributes(&self, op: &Op, used: &[&str]) -> LResult<()> {
        for (name, value, at) in &op.attrs {
            if used.contains(&name.as_str()) || is_annotation(name, value) {
                continue;
            }
            return Err(self.err(
                *at,
                format!(
                    "attribute `{name}` of `{}` has no translation to the IR (dropping it could \
                     change the result)",
                    op.name
                ),
            ));
        }
        Ok(())
    }
}

/// True for `func.return`, `stablehlo.return` and friends.
fn is_terminator(name: &str) -> bool {
    matches!(
        name,
        "func.return" | "stablehlo.return" | "mhlo.return" | "chlo.return"
    )
}

/// Attributes that annotate without changing the result.
fn is_annotation(name: &str, value: &Attr) -> bool {
    if ["mhlo.", "jax.", "sdy.", "tf.", "xla.", "_"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return true;
    }
    match name {
        "precision_config" => true,
        "result_accuracy" => match value {
            Attr::Struct(_, fields) => {
                fields
                    .iter()
                    .any(|(k, v)| k == "mode" && matches!(v, Attr::Enum(_, m) if m == "DEFAULT"))
                    && fields.iter().all(|(k, v)| match (k.as_str(), v) {
                        ("atol" | "rtol", Attr::Float(f)) => {
                            f.parse::<f64>().is_ok_and(|x| x == 0.0)
                        }
                        ("ulps", Attr::Int(u)) => *u == 0,
                        _ => true,
                    })
            }
            _ => false,
        },
        _ => false,
    }
}

/// True when two shapes have the same element types and dimensions (layouts ignored).
pub(crate) fn same_logical_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => same_array(x, y),
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_logical_shape(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

fn same_array(x: &ArrayShape, y: &ArrayShape) -> bool {
    x.element_type == y.element_type
        && x.dimensions == y.dimensions
        && x.dynamic_dimensions == y.dynamic_dimensions
}

/// `name=N`.
pub(crate) fn int_attr(name: &str, v: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(v),
    }
}

/// `name={...}`.
pub(crate) fn ints_attr(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

/// An attribute with a value.
pub(crate) fn attr(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}
