//! Minimizing cases whose root takes or gives tuples or calls computations (`while`,
//! `conditional`, `call`, `map`, multi-operand `sort`, `topk`): the element-wise path of the
//! minimizer needs array operands and an array result, these do not have them.
//!
//! Steps, each kept only when the disagreement survives it:
//! 1. **Cut**: the root over parameters holding the reference's values of its operands, tuples
//!    rebuilt from array parameters (so the entry is the root and at most the tuples it takes);
//! 2. **Layouts**: every parameter and the root's arrays back to the default layout;
//! 3. **Shapes**: each array leaf cut to a window (halves, then one element) along each
//!    dimension; the same dimensions are changed wherever they occur — other leaves, the called
//!    computations' shapes and constants (a loop body, a branch) — and the root's shape is
//!    inferred again; so loops, branches and mapped computations shrink with their data;
//! 4. **Values**: each leaf's elements to zero then one, by halves (a trip count or a branch
//!    index becomes 0 or 1 where the disagreement allows).

use super::Oracle;
use conformance_spec::hlo::{HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::layout::Layout;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// A root over its operand values (any shapes) and the computations it may call.
#[derive(Clone, Debug)]
pub(super) struct Structured {
    root: HloInstruction,
    operands: Vec<Literal>,
    called: Vec<HloComputation>,
}

impl Structured {
    pub(super) fn new(
        root: HloInstruction,
        operands: Vec<Literal>,
        called: Vec<HloComputation>,
    ) -> Structured {
        Structured {
            root,
            operands,
            called,
        }
    }

    /// The module: one parameter per array leaf of the operands (depth-first), `tuple`s
    /// rebuilding tuple operands, then the root; and its arguments.
    pub(super) fn build(&self) -> (HloModule, Vec<Literal>) {
        let (mut instructions, args, operands) = parameters_of(&self.operands);
        let mut root = self.root.clone();
        root.name = "r".into();
        root.operands = operands;
        instructions.push(root);
        let n = instructions.len() - 1;
        let mut all = self.called.clone();
        all.push(HloComputation {
            name: "main".into(),
            instructions,
            root: n,
        });
        let module = HloModule {
            name: "minimized".into(),
            header_attributes: vec![],
            entry: all.len() - 1,
            computations: all,
        };
        let module = conformance_spec::hlo::transform::with_root(&module, n);
        (module, args)
    }

    /// The array leaves of the operands, depth-first.
    fn leaves(&self) -> Vec<&ArrayLiteral> {
        self.operands
            .iter()
            .flat_map(|o| o.array_leaves())
            .collect()
    }

    /// Every array leaf replaced by `f(leaf)`.
    fn map_leaves(&self, f: &mut dyn FnMut(usize, &ArrayLiteral) -> ArrayLiteral) -> Structured {
        fn go(
            v: &Literal,
            k: &mut usize,
            f: &mut dyn FnMut(usize, &ArrayLiteral) -> ArrayLiteral,
        ) -> Literal {
            match v {
                Literal::Tuple(items) => {
                    Literal::Tuple(items.iter().map(|i| go(i, k, f)).collect())
                }
                Literal::Array(a) => {
                    let out = f(*k, a);
                    *k += 1;
                    Literal::Array(out)
                }
                Literal::Token => Literal::Token,
            }
        }
        let mut k = 0;
        let mut c = self.clone();
        c.operands = self.operands.iter().map(|o| go(o, &mut k, f)).collect();
        c
    }
}

/// Instructions that take `values` as arguments: one `parameter` per array leaf (depth-first,
/// named `pK`), and `tuple`s rebuilding each tuple value (a worker process takes arrays only,
/// docs/protocol.md); the arguments (the leaves), and the instruction giving each value.
pub fn parameters_of(values: &[Literal]) -> (Vec<HloInstruction>, Vec<Literal>, Vec<usize>) {
    fn plain(name: String, opcode: Opcode, shape: Shape, operands: Vec<usize>) -> HloInstruction {
        HloInstruction {
            name,
            opcode,
            shape,
            operands,
            parameter_number: None,
            literal: None,
            attributes: vec![],
        }
    }
    fn leaf(
        value: &Literal,
        instructions: &mut Vec<HloInstruction>,
        args: &mut Vec<Literal>,
    ) -> usize {
        match value {
            Literal::Tuple(items) => {
                let operands = items.iter().map(|v| leaf(v, instructions, args)).collect();
                let name = format!("t{}", instructions.len());
                instructions.push(plain(name, Opcode::Tuple, value.shape(), operands));
            }
            v => {
                let mut p = plain(
                    format!("p{}", args.len()),
                    Opcode::Parameter,
                    v.shape(),
                    vec![],
                );
                p.parameter_number = Some(args.len() as i64);
                args.push(v.clone());
                instructions.push(p);
            }
        }
        instructions.len() - 1
    }
    let mut instructions = Vec::new();
    let mut args = Vec::new();
    let operands = values
        .iter()
        .map(|v| leaf(v, &mut instructions, &mut args))
        .collect();
    (instructions, args, operands)
}

/// Runs the steps on `s` while `oracle` still fails; returns the smallest case found.
pub(super) fn minimize(oracle: &mut Oracle, mut s: Structured) -> Structured {
    let keep = |oracle: &mut Oracle, candidate: Structured, s: &mut Structured| {
        let (m, a) = candidate.build();
        let ok = oracle.fails(&m, &a);
        if ok {
            *s = candidate;
        }
        ok
    };
    // 2. Default layouts.
    let mut c = s.map_leaves(&mut |_, a| a.relayout(Layout::default_for_rank(a.shape().rank())));
    c.root.shape = default_layouts(&c.root.shape);
    keep(oracle, c, &mut s);
    // 3 and 4, again while either makes progress (simpler values can let shapes shrink).
    for _ in 0..4 {
        let before = s.build();
        shrink_shapes(oracle, &mut s, &keep);
        simplify_leaves(oracle, &mut s, &keep);
        if s.build() == before {
            break;
        }
    }
    s
}

type Keep<'k> = dyn Fn(&mut Oracle, Structured, &mut Structured) -> bool + 'k;

/// Step 3: each leaf cut to windows along each dimension, until nothing shrinks.
fn shrink_shapes(oracle: &mut Oracle, s: &mut Structured, keep: &Keep) {
    // 3. Shapes.
    loop {
        let mut progress = false;
        let leaves: Vec<Vec<i64>> = s.leaves().iter().map(|a| a.dimensions().to_vec()).collect();
        'leaves: for dims in leaves {
            for d in 0..dims.len() {
                let size = dims[d];
                let mut windows = vec![];
                if size >= 2 {
                    windows.push((0, size / 2));
                    windows.push((size / 2, size - size / 2));
                    windows.push((0, 1));
                    windows.push((size - 1, 1));
                }
                if size >= 3 {
                    // One element off either end (a pair in the middle of three).
                    windows.push((1, size - 1));
                    windows.push((0, size - 1));
                }
                for (start, len) in windows {
                    if let Some(c) = shrink(s, &dims, d, start, len) {
                        if keep(oracle, c, s) {
                            progress = true;
                            break 'leaves;
                        }
                    }
                }
            }
        }
        if !progress {
            break;
        }
    }
}

/// Step 4: each leaf's elements to 0 then 1, by halves.
fn simplify_leaves(oracle: &mut Oracle, s: &mut Structured, keep: &Keep) {
    // 4. Values.
    for value in [0u8, 1] {
        let n = s.leaves().len();
        for k in 0..n {
            let count = s.leaves()[k].shape().element_count();
            let mut chunk = count.max(1);
            loop {
                let mut start = 0;
                while start < count {
                    let c = s.map_leaves(&mut |j, a| {
                        if j != k {
                            return a.clone();
                        }
                        let mut a = a.clone();
                        let bits = super::simple_bits(a.element_type(), value);
                        let mut linear = 0usize;
                        let dims = a.dimensions().to_vec();
                        index::for_each_index(&dims, |i| {
                            if (start..start + chunk).contains(&linear) {
                                a.set_bits(i, bits);
                            }
                            linear += 1;
                        });
                        a
                    });
                    let changed = c
                        .leaves()
                        .iter()
                        .zip(s.leaves())
                        .any(|(x, y)| !x.logical_eq(y));
                    if changed {
                        keep(oracle, c, s);
                    }
                    start += chunk;
                }
                if chunk == 1 {
                    break;
                }
                chunk /= 2;
            }
        }
    }
}

/// Every array of `shape` with the default layout.
fn default_layouts(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(ArrayShape::new(a.element_type, a.dimensions.clone())),
        Shape::Tuple(parts) => Shape::Tuple(parts.iter().map(default_layouts).collect()),
        Shape::Token => Shape::Token,
    }
}

/// `s` with every array of dimensions `dims` cut to `[start, start + len)` along dimension `d`:
/// the operand leaves, the called computations' shapes and constants; the root's shape inferred
/// again (or its arrays of `dims` cut likewise when inference needs more). `None` when nothing
/// would change.
fn shrink(s: &Structured, dims: &[i64], d: usize, start: i64, len: i64) -> Option<Structured> {
    let mut new_dims = dims.to_vec();
    new_dims[d] = len;
    let mut starts = vec![0; dims.len()];
    starts[d] = start;
    let cut = |a: &ArrayLiteral| -> ArrayLiteral {
        if a.dimensions() != dims {
            return a.clone();
        }
        let shape = ArrayShape::new(a.element_type(), new_dims.clone());
        let mut out = ArrayLiteral::zeros(shape);
        index::for_each_index(&new_dims, |i| {
            let from: Vec<i64> = i.iter().zip(&starts).map(|(x, s)| x + s).collect();
            out.set_bits(i, a.get_bits(&from));
        });
        out.relayout(a.shape().layout.clone())
    };
    let mut c = s.map_leaves(&mut |_, a| cut(a));
    let resize = |shape: &Shape| -> Shape { resize_shape(shape, dims, &new_dims) };
    for comp in &mut c.called {
        for instr in &mut comp.instructions {
            instr.shape = resize(&instr.shape);
            if let Some(Literal::Array(a)) = &instr.literal {
                instr.literal = Some(Literal::Array(cut(a)));
            }
        }
    }
    c.root.shape = resize(&c.root.shape);
    // Roots whose result is not the operands' dimensions (topk, sort of other shapes): infer.
    let operand_shapes: Vec<Shape> = c.operands.iter().map(Literal::shape).collect();
    let refs: Vec<&Shape> = operand_shapes.iter().collect();
    let called_shapes: Vec<(Vec<Shape>, Shape)> =
        conformance_spec::shape_inference::called_in_order(&c.root)
            .iter()
            .filter_map(|n| {
                c.called
                    .iter()
                    .find(|k| k.name == n.trim_start_matches('%'))
            })
            .map(|k| (k.parameter_shapes(), k.root_instruction().shape.clone()))
            .collect();
    let mut context =
        conformance_spec::shape_inference::InferenceContext::from_declared(&c.root.shape);
    context.called = &called_shapes;
    if let Ok(inferred) = conformance_spec::shape_inference::infer_shape_in(
        c.root.opcode,
        &refs,
        &c.root.attributes,
        &context,
    ) {
        c.root.shape = inferred;
    }
    let same = c
        .leaves()
        .iter()
        .zip(s.leaves())
        .all(|(x, y)| x.dimensions() == y.dimensions());
    (!same).then_some(c)
}

/// `shape` with every array of dimensions `from` given dimensions `to` (layout kept, padding
/// dropped).
fn resize_shape(shape: &Shape, from: &[i64], to: &[i64]) -> Shape {
    match shape {
        Shape::Array(a) if a.dimensions == from => {
            let mut layout = a.layout.clone();
            layout.padded_dimensions.clear();
            Shape::Array(ArrayShape::new(a.element_type, to.to_vec()).with_layout(layout))
        }
        Shape::Tuple(parts) => {
            Shape::Tuple(parts.iter().map(|p| resize_shape(p, from, to)).collect())
        }
        other => other.clone(),
    }
}
