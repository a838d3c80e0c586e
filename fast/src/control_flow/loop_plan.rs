//! Compiled loops: a `while` (seed 004, While) whose state and temporaries are small arrays runs
//! as a flat list of steps over preallocated slots instead of through the interpreter.
//!
//! Interpreting a small body costs far more than its arithmetic: each instruction allocates its
//! result, builds operand lists and checks shapes, every trip. A [`Plan`] does that work once:
//! - every array value of the condition and the body gets a *slot*, a buffer of its physical
//!   elements allocated once; tuples and `get-tuple-element`s are only renamings of slots;
//! - instructions that do not depend on the loop state (constants, broadcasts of constants, iotas,
//!   …; pure families only) are evaluated once, before the first trip, by the interpreter;
//! - element-wise instructions covered by [`super::loop_kernels`] run as kernels over the slots;
//!   any other instruction (a dot, a gather, a nested loop, an `exp`, …) is an *escape*: its operands
//!   are handed to the interpreter's evaluation of that one instruction and its result copied
//!   back into its slots, so a plan runs any body with the interpreter's semantics;
//! - the body's results become the next state by swapping buffers, not by copying.
//!
//! A plan is built only when every slot is unpadded, static (no dynamic dimensions), not a token
//! and at most [`MAX_SLOT_ELEMENTS`] physical elements: larger arrays gain nothing from it (their
//! kernels dominate, and the interpreter updates a uniquely owned state buffer in place where an
//! escape would copy it). Otherwise, or when the loop's shapes do not fit together as the plan
//! needs (differing layouts between the state, the condition's parameter and the body's root),
//! [`Plan::build`] returns `None` and the loop runs through the interpreter; the results are the
//! same bits either way (tested in `control_flow::tests`).

use super::loop_kernels::{kernel, Kernel, Operand};
use crate::layout;
use crate::op_context::EvalFn;
use crate::parallel::Exec;
use crate::value::Value;
use conformance_spec::backend::max_while_iterations;
use conformance_spec::hlo::{HloComputation, HloInstruction};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::slices_equal;
use conformance_spec::{index, ArrayShape, BackendError, ElementType, Opcode, Shape};

#[cfg(test)]
thread_local! {
    /// Compiled loops run on this thread (tests check that the loops meant to compile do).
    pub(super) static PLANS_RUN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Largest slot a plan accepts, in physical elements.
pub(super) const MAX_SLOT_ELEMENTS: usize = 1 << 12;

/// A buffer of one array value of a compiled loop: the value's shape (unpadded) and its physical
/// elements, stored in `u64` words so that every element type up to 8 bytes is aligned.
pub(crate) struct Slot<'a> {
    shape: &'a ArrayShape,
    pub(super) data: Vec<u64>,
}

/// Physical elements of an unpadded shape.
fn elements(shape: &ArrayShape) -> usize {
    if shape.layout.is_padded() {
        index::physical_element_count(shape)
    } else {
        shape.element_count()
    }
}

impl<'a> Slot<'a> {
    fn new(shape: &'a ArrayShape) -> Slot<'a> {
        let bytes = elements(shape) * shape.element_type.byte_width();
        Slot {
            shape,
            data: vec![0; bytes.div_ceil(8)],
        }
    }

    fn byte_len(&self) -> usize {
        elements(self.shape) * self.shape.element_type.byte_width()
    }

    fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.data)[..self.byte_len()]
    }

    /// The slot's value as an array the interpreter can read (a copy).
    fn value<'v>(&self) -> Result<Value<'v>, BackendError> {
        ArrayLiteral::from_physical_bytes(self.shape.clone(), self.bytes().to_vec())
            .map(Value::owned)
            .map_err(|e| BackendError::Failure(format!("compiled loop slot: {e}")))
    }

    /// Copies an array value into the slot, changing its layout when it differs. Errors:
    /// [`BackendError::Invalid`] for a value of other dimensions or element type, a tuple or a
    /// token; [`BackendError::Failure`] for a value with runtime sizes (excluded when planning).
    fn store(&mut self, value: &Value<'_>) -> Result<(), BackendError> {
        let len = self.byte_len();
        let dst = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.data)[..len];
        match value {
            Value::Array(a) if a.shape().compatible(self.shape) => {
                if a.runtime_sizes().is_some() {
                    return Err(BackendError::Failure(
                        "a compiled loop met a value with runtime sizes".into(),
                    ));
                }
                if !a.shape().layout.is_padded() && same(a.shape(), self.shape) {
                    dst.copy_from_slice(a.data());
                } else {
                    dst.copy_from_slice(&layout::relayout_bytes(a, self.shape, false));
                }
                Ok(())
            }
            Value::Splat { shape, bits } if shape.compatible(self.shape) => {
                let w = self.shape.element_type.byte_width();
                let pattern = &bits.to_le_bytes()[..w];
                for e in dst.chunks_exact_mut(w) {
                    e.copy_from_slice(pattern);
                }
                Ok(())
            }
            v => Err(BackendError::Invalid(format!(
                "a value of shape {:?} where {} is declared",
                v.array_shape().map(ToString::to_string),
                self.shape
            ))),
        }
    }
}

/// A value of the loop: an array in a slot, or a tuple of values.
#[derive(Clone, Debug)]
enum Node {
    Leaf(usize),
    Tuple(Vec<Node>),
}

impl Node {
    fn leaves(&self, out: &mut Vec<usize>) {
        match self {
            Node::Leaf(s) => out.push(*s),
            Node::Tuple(t) => t.iter().for_each(|n| n.leaves(out)),
        }
    }
}

/// One instruction of a trip.
enum Step<'a> {
    /// Computes slot `out`.
    Kernel { kernel: Kernel, out: usize },
    /// Evaluated by the interpreter on copies of its operand slots.
    Escape {
        instr: &'a HloInstruction,
        comp: &'a HloComputation,
        operands: Vec<Node>,
        result: Node,
    },
}

/// How a state slot gets its next value after a trip of the body.
#[derive(Clone, Copy, Debug)]
enum Move {
    /// `to ← from` by copying (the source stays readable).
    Copy { from: usize, to: usize },
    /// `to ↔ from` (the source, a slot the next trip rewrites before reading it, gets the old
    /// buffer).
    Swap { from: usize, to: usize },
}

/// A compiled `while`: the slots, the steps of the condition and of the body, and the state
/// update between trips.
pub(super) struct Plan<'a> {
    slots: Vec<Slot<'a>>,
    cond: Vec<Step<'a>>,
    body: Vec<Step<'a>>,
    state: Node,
    cond_root: usize,
    /// Run in order after each trip of the body: copies, then swaps.
    moves: Vec<Move>,
}

/// True for the opcodes a plan may evaluate once before the first trip when their operands do not
/// depend on the loop state: those without effects whose result depends only on their operands.
fn hoistable(op: Opcode) -> bool {
    op == Opcode::Constant
        || op == Opcode::Tuple
        || op == Opcode::GetTupleElement
        || crate::elementwise::is_elementwise(op)
        || crate::data_movement::is_data_movement(op)
        || crate::contraction::is_contraction(op)
}

/// The shapes a slot may have.
fn fits(shape: &ArrayShape) -> bool {
    !shape.layout.is_padded()
        && !shape.dynamic_dimensions.iter().any(|&d| d)
        && shape.validate().is_ok()
        && elements(shape) <= MAX_SLOT_ELEMENTS
}

/// Same element type, dimensions and physical layout (both unpadded).
fn same(a: &ArrayShape, b: &ArrayShape) -> bool {
    a.element_type == b.element_type
        && a.same_dimensions(b)
        && (slices_equal(&a.layout.minor_to_major, &b.layout.minor_to_major)
            || layout::same_physical_layout(a, b))
}

/// True when the node's slots have the physical shapes of `shape`.
fn node_matches(slots: &[Slot<'_>], node: &Node, shape: &Shape) -> bool {
    match (node, shape) {
        (Node::Leaf(s), Shape::Array(a)) => same(slots[*s].shape, a),
        (Node::Tuple(t), Shape::Tuple(ss)) => {
            t.len() == ss.len() && t.iter().zip(ss).all(|(n, s)| node_matches(slots, n, s))
        }
        _ => false,
    }
}

/// Plan construction: the slots so far and the interpreter's evaluation for hoisting.
struct Builder<'c, 'a> {
    slots: Vec<Slot<'a>>,
    eval: EvalFn<'c, 'a>,
}

impl<'a> Builder<'_, 'a> {
    /// New slots for every array of `shape`; `None` when one does not fit.
    fn alloc(&mut self, shape: &'a Shape) -> Option<Node> {
        match shape {
            Shape::Array(a) if fits(a) => {
                self.slots.push(Slot::new(a));
                Some(Node::Leaf(self.slots.len() - 1))
            }
            Shape::Tuple(t) => Some(Node::Tuple(
                t.iter().map(|s| self.alloc(s)).collect::<Option<_>>()?,
            )),
            _ => None,
        }
    }

    /// Compiles `comp` with its parameter bound to `param`: appends the steps that depend on the
    /// parameter to `steps`, runs the others once now (constants are copied into their slots, the
    /// rest run as kernels or escapes), and returns the root's node. `None` when the computation
    /// does not fit a plan or an instruction run now fails (the interpreter then reports it where
    /// it would).
    fn computation(
        &mut self,
        comp: &'a HloComputation,
        param: &Node,
        steps: &mut Vec<Step<'a>>,
    ) -> Option<Node> {
        let n = comp.instructions.len();
        let mut nodes: Vec<Option<Node>> = vec![None; n];
        let mut variant = vec![false; n];
        for (i, instr) in comp.instructions.iter().enumerate() {
            if instr.operands.iter().any(|&o| o >= i) {
                return None;
            }
            variant[i] = instr.opcode == Opcode::Parameter
                || !hoistable(instr.opcode)
                || instr.operands.iter().any(|&o| variant[o]);
            let operands: Vec<Node> = instr
                .operands
                .iter()
                .map(|&o| nodes[o].clone())
                .collect::<Option<_>>()?;
            let node = match instr.opcode {
                Opcode::Parameter => {
                    (instr.parameter_number == Some(0) && operands.is_empty()).then_some(())?;
                    param.clone()
                }
                Opcode::GetTupleElement => match operands.as_slice() {
                    [Node::Tuple(t)] => usize::try_from(instr.attr_int("index")?)
                        .ok()
                        .and_then(|k| t.get(k).cloned())?,
                    _ => return None,
                },
                Opcode::Tuple => Node::Tuple(operands),
                Opcode::Copy
                    if matches!((operands.as_slice(), &instr.shape),
                        ([Node::Leaf(s)], Shape::Array(a)) if same(self.slots[*s].shape, a)) =>
                {
                    operands.into_iter().next()?
                }
                Opcode::Constant if operands.is_empty() => {
                    let node = self.alloc(&instr.shape)?;
                    store(
                        &mut self.slots,
                        &node,
                        &Value::borrow(instr.literal.as_ref()?),
                    )
                    .ok()?;
                    node
                }
                _ => {
                    let result = self.alloc(&instr.shape)?;
                    let step = self.step(instr, comp, operands, &result);
                    if variant[i] {
                        steps.push(step);
                    } else {
                        run_steps(&mut self.slots, std::slice::from_ref(&step), self.eval).ok()?;
                    }
                    result
                }
            };
            if !node_matches(&self.slots, &node, &instr.shape) {
                return None;
            }
            nodes[i] = Some(node);
        }
        nodes.get_mut(comp.root)?.take()
    }

    /// The step computing `instr` into `result`: a kernel when [`kernel`] covers it, else an
    /// escape to the interpreter.
    fn step(
        &self,
        instr: &'a HloInstruction,
        comp: &'a HloComputation,
        operands: Vec<Node>,
        result: &Node,
    ) -> Step<'a> {
        if let (Node::Leaf(out), Shape::Array(shape)) = (result, &instr.shape) {
            let leaves: Option<Vec<Operand<'_>>> = operands
                .iter()
                .map(|o| match o {
                    Node::Leaf(s) => Some((*s, self.slots[*s].shape)),
                    Node::Tuple(_) => None,
                })
                .collect();
            if let Some(kernel) = leaves.and_then(|l| kernel(instr, &l, *out, shape)) {
                return Step::Kernel { kernel, out: *out };
            }
        }
        Step::Escape {
            instr,
            comp,
            operands,
            result: result.clone(),
        }
    }
}

/// Copies a value into the slots of `node` (leaf by leaf).
fn store(slots: &mut [Slot<'_>], node: &Node, value: &Value<'_>) -> Result<(), BackendError> {
    match (node, value) {
        (Node::Leaf(s), v) => slots[*s].store(v),
        (Node::Tuple(ns), Value::Tuple(vs)) if ns.len() == vs.len() => {
            ns.iter().zip(vs).try_for_each(|(n, v)| store(slots, n, v))
        }
        _ => Err(BackendError::Invalid(
            "a value whose tuple structure differs from the declared shape".into(),
        )),
    }
}

impl<'a> Plan<'a> {
    /// Compiles a `while` (its condition `cond` and body `body`, each of one parameter) for an
    /// initial state `init`; `eval` is the interpreter's evaluation of one instruction. `None` when the loop does not fit a plan (see the module
    /// docs); the caller then interprets it.
    pub(super) fn build(
        exec: Exec,
        eval: EvalFn<'_, 'a>,
        cond: &'a HloComputation,
        body: &'a HloComputation,
        init: &Value<'a>,
    ) -> Option<Plan<'a>> {
        if !exec.compiled_loops {
            return None;
        }
        let param_shape = &body.parameters().first()?.shape;
        let mut b = Builder {
            slots: Vec::new(),
            eval,
        };
        let state = b.alloc(param_shape)?;
        store(&mut b.slots, &state, init).ok()?;
        if !node_matches(&b.slots, &state, &cond.parameters().first()?.shape) {
            return None;
        }
        let mut cond_steps = Vec::new();
        let cond_root = match b.computation(cond, &state, &mut cond_steps)? {
            Node::Leaf(s) if *b.slots[s].shape == ArrayShape::scalar(ElementType::Pred) => s,
            _ => return None,
        };
        let mut body_steps = Vec::new();
        let root = b.computation(body, &state, &mut body_steps)?;
        if !node_matches(&b.slots, &root, param_shape) {
            return None;
        }
        let moves = moves(&state, &root, &body_steps, &mut b.slots)?;
        Some(Plan {
            slots: b.slots,
            cond: cond_steps,
            body: body_steps,
            state,
            cond_root,
            moves,
        })
    }

    /// Runs the loop to its end and returns the final state. Errors:
    /// [`BackendError::NonTerminating`] after [`max_while_iterations`] trips with the condition
    /// still true; the errors of escaped instructions, naming the instruction and computation.
    pub(super) fn run(
        mut self,
        eval: EvalFn<'_, 'a>,
        name: &str,
    ) -> Result<Value<'a>, BackendError> {
        #[cfg(test)]
        PLANS_RUN.with(|c| c.set(c.get() + 1));
        let limit = max_while_iterations();
        let mut trips: u64 = 0;
        loop {
            run_steps(&mut self.slots, &self.cond, eval)?;
            if self.slots[self.cond_root].data[0] & 0xff == 0 {
                break;
            }
            if trips >= limit {
                return Err(BackendError::NonTerminating(format!(
                    "while `{name}`: the condition still holds after {limit} trips of the body \
                     (the limit of max_while_iterations)"
                )));
            }
            run_steps(&mut self.slots, &self.body, eval)?;
            for m in &self.moves {
                match *m {
                    Move::Copy { from, to } => {
                        let (src, dst) = pair(&mut self.slots, from, to);
                        dst.data.copy_from_slice(&src.data);
                    }
                    Move::Swap { from, to } => {
                        let (src, dst) = pair(&mut self.slots, from, to);
                        std::mem::swap(&mut src.data, &mut dst.data);
                    }
                }
            }
            trips += 1;
        }
        value_of(&self.slots, &self.state)
    }
}

fn value_of<'a>(slots: &[Slot<'_>], node: &Node) -> Result<Value<'a>, BackendError> {
    Ok(match node {
        Node::Leaf(s) => slots[*s].value()?,
        Node::Tuple(t) => Value::Tuple(
            t.iter()
                .map(|n| value_of(slots, n))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// Two distinct slots, mutably.
fn pair<'s, 'a>(
    slots: &'s mut [Slot<'a>],
    a: usize,
    b: usize,
) -> (&'s mut Slot<'a>, &'s mut Slot<'a>) {
    if a < b {
        let (x, y) = slots.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = slots.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

fn run_steps<'a>(
    slots: &mut [Slot<'a>],
    steps: &[Step<'a>],
    eval: EvalFn<'_, 'a>,
) -> Result<(), BackendError> {
    for step in steps {
        match step {
            Step::Kernel { kernel, .. } => kernel(slots),
            Step::Escape { .. } => escape(slots, step, eval)?,
        }
    }
    Ok(())
}

/// An escape step: the interpreter's evaluation of one instruction, its result copied back into
/// the slots. Kept out of [`run_steps`] so that a trip of kernels only does not pay for this
/// path's stack frame.
#[inline(never)]
fn escape<'a>(
    slots: &mut [Slot<'a>],
    step: &Step<'a>,
    eval: EvalFn<'_, 'a>,
) -> Result<(), BackendError> {
    let Step::Escape {
        instr,
        comp,
        operands,
        result,
    } = step
    else {
        return Ok(());
    };
    let context = |e: BackendError| {
        e.map_message(|m| format!("{m} (instruction `{}` in `{}`)", instr.name, comp.name))
    };
    let args = operands
        .iter()
        .map(|o| value_of(slots, o))
        .collect::<Result<Vec<_>, _>>()?;
    let value = eval(instr, args).map_err(context)?;
    store(slots, result, &value).map_err(context)
}

/// The state update after a trip: state leaf k takes the body root's leaf k. A root leaf that is
/// itself a state slot (passed through, maybe permuted) is first copied to a scratch slot, since
/// the update overwrites state slots; a slot the body computes is swapped in (its first use) or
/// copied (further uses, hoisted constants). Copies run before swaps, so a swapped slot is read
/// before it changes. `None` when the root and the state have different numbers of arrays.
fn moves(
    state: &Node,
    root: &Node,
    body: &[Step<'_>],
    slots: &mut Vec<Slot<'_>>,
) -> Option<Vec<Move>> {
    let (mut dst, mut src) = (Vec::new(), Vec::new());
    state.leaves(&mut dst);
    root.leaves(&mut src);
    if dst.len() != src.len() {
        return None;
    }
    // Slots the body writes every trip (few: a list is enough).
    let mut fresh = Vec::new();
    for s in body {
        match s {
            Step::Escape { result, .. } => result.leaves(&mut fresh),
            Step::Kernel { out, .. } => fresh.push(*out),
        }
    }
    let (mut stash, mut copies, mut swaps) = (Vec::new(), Vec::new(), Vec::new());
    let mut swapped = Vec::new();
    for (&to, &from) in dst.iter().zip(&src) {
        if from == to {
            continue;
        }
        if dst.contains(&from) {
            slots.push(Slot::new(slots[from].shape));
            let scratch = slots.len() - 1;
            stash.push(Move::Copy { from, to: scratch });
            swaps.push(Move::Swap { from: scratch, to });
        } else if fresh.contains(&from) && !swapped.contains(&from) {
            swapped.push(from);
            swaps.push(Move::Swap { from, to });
        } else {
            copies.push(Move::Copy { from, to });
        }
    }
    stash.extend(copies);
    stash.extend(swaps);
    Some(stash)
}
