//! Minimizing cases whose root takes or gives tuples or calls computations (`while`,
//! `conditional`, `call`, `map`, multi-operand `sort`, `topk`): the element-wise path of the
//! minimizer needs array operands and an array result, these do not have them.
//!
//! Steps, each kept only when the disagreement survives it:
//! 1. **Cut**: the root over parameters holding the reference's values of its operands, tuples
//!    rebuilt from array parameters (so the entry is the root and at most the tuples it takes);
//! 2. **Layouts**: every parameter and the root's arrays back to the default layout;
//! 3. **Shapes**: the numerical family's tied shapes first ([`super::linalg`]: matrix orders,
//!    transform lengths, feature counts); then each array leaf cut to a window (halves, then one element) along each
//!    dimension; the same dimensions are changed wherever they occur — other leaves, the called
//!    computations' shapes and constants (a loop body, a branch) — and the root's shape is
//!    inferred again; so loops, branches and mapped computations shrink with their data;
//! 4. **Values**: each leaf's elements to zero then one, by halves (a trip count or a branch
//!    index becomes 0 or 1 where the disagreement allows);
//! 5. **Computations**: a `conditional` with a branch index drops branches (and their operands)
//!    one at a time, and a `sort` each operand its comparator does not read (the comparator's
//!    two parameters of it removed, the others renumbered); computations no longer called are
//!    dropped. Done first: fewer branches and operands make the other steps cheaper.

use super::Oracle;
use conformance_spec::hlo::{AttrValue, HloComputation, HloInstruction, HloModule, Opcode};
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
    // 5 (fewer branches and operands make the rest cheaper), then 3 and 4, again while either
    // makes progress (simpler values can let shapes shrink).
    shrink_computations(oracle, &mut s, &keep);
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
        // Shapes tied together by the operation (the numerical family) first.
        for c in super::linalg::candidates(&s.root, &s.operands) {
            let candidate = Structured {
                root: c.0,
                operands: c.1,
                called: s.called.clone(),
            };
            if keep(oracle, candidate, s) {
                progress = true;
                break;
            }
        }
        // The data shape of a random-number root (its own, not its operands').
        if !progress {
            for root in super::random_ops::candidates(&s.root) {
                let candidate = Structured {
                    root,
                    operands: s.operands.clone(),
                    called: s.called.clone(),
                };
                if keep(oracle, candidate, s) {
                    progress = true;
                    break;
                }
            }
        }
        if progress {
            continue;
        }
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

/// Step 5: branches of an indexed `conditional` and unread `sort` operands dropped one at a
/// time, each kept while the disagreement survives, until none can go.
fn shrink_computations(oracle: &mut Oracle, s: &mut Structured, keep: &Keep) {
    loop {
        let mut progress = false;
        for c in fewer_branches(s).into_iter().chain(fewer_sort_operands(s)) {
            if keep(oracle, c, s) {
                progress = true;
                break;
            }
        }
        if !progress {
            break;
        }
    }
}

/// `s` without the called computations that nothing calls any more (the root's, and theirs).
fn without_uncalled(mut s: Structured) -> Structured {
    let mut live: Vec<String> = called_names(&s.root);
    let mut k = 0;
    while k < live.len() {
        if let Some(c) = s.called.iter().find(|c| c.name == live[k]) {
            for i in &c.instructions {
                for n in called_names(i) {
                    if !live.contains(&n) {
                        live.push(n);
                    }
                }
            }
        }
        k += 1;
    }
    s.called.retain(|c| live.contains(&c.name));
    s
}

/// The computations an instruction names in its attributes (without `%`).
fn called_names(i: &HloInstruction) -> Vec<String> {
    i.called_computations()
        .into_iter()
        .map(|n| n.trim_start_matches('%').to_string())
        .collect()
}

/// For a `conditional` with `branch_computations` of more than one branch: one candidate per
/// branch, the conditional without that branch and its operand (the branch an index runs may
/// then change, as the out-of-range rule picks the last branch).
fn fewer_branches(s: &Structured) -> Vec<Structured> {
    let Some(AttrValue::Computations(branches)) = s.root.attribute("branch_computations") else {
        return vec![];
    };
    if s.root.opcode != Opcode::Conditional
        || branches.len() < 2
        || s.operands.len() != branches.len() + 1
    {
        return vec![];
    }
    (0..branches.len())
        .map(|b| {
            let mut c = s.clone();
            let mut rest = branches.clone();
            rest.remove(b);
            for a in &mut c.root.attributes {
                if a.name == "branch_computations" {
                    a.value = AttrValue::Computations(rest.clone());
                }
            }
            c.operands.remove(b + 1);
            without_uncalled(c)
        })
        .collect()
}

/// For a `sort` of more than one operand: one candidate per operand whose two comparator
/// parameters (2k and 2k + 1) the comparator does not use, the operand, its result and those
/// parameters removed.
fn fewer_sort_operands(s: &Structured) -> Vec<Structured> {
    let n = s.operands.len();
    let Some(AttrValue::Computation(name)) = s.root.attribute("to_apply") else {
        return vec![];
    };
    let name = name.trim_start_matches('%');
    let Some(cmp) = s.called.iter().find(|c| c.name == name) else {
        return vec![];
    };
    let Shape::Tuple(results) = &s.root.shape else {
        return vec![];
    };
    if s.root.opcode != Opcode::Sort || n < 2 || results.len() != n {
        return vec![];
    }
    let used = |p: i64| {
        let is_p =
            |i: &HloInstruction| i.opcode == Opcode::Parameter && i.parameter_number == Some(p);
        cmp.instructions.get(cmp.root).is_some_and(is_p)
            || cmp.instructions.iter().any(|i| {
                i.operands.iter().any(|&o| {
                    cmp.instructions[o].opcode == Opcode::Parameter
                        && cmp.instructions[o].parameter_number == Some(p)
                })
            })
    };
    (0..n)
        .filter(|&k| !used(2 * k as i64) && !used(2 * k as i64 + 1))
        .map(|k| {
            let mut c = s.clone();
            c.operands.remove(k);
            let mut rest = results.clone();
            rest.remove(k);
            c.root.shape = if rest.len() == 1 {
                rest.pop().expect("one result")
            } else {
                Shape::Tuple(rest)
            };
            let comparator = c
                .called
                .iter_mut()
                .find(|x| x.name == name)
                .expect("found above");
            *comparator = without_parameters(comparator, 2 * k as i64);
            c
        })
        .collect()
}

/// `comp` without parameters `first` and `first + 1` (unused), later ones renumbered down by 2.
fn without_parameters(comp: &HloComputation, first: i64) -> HloComputation {
    let drop: Vec<usize> = comp
        .instructions
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            i.opcode == Opcode::Parameter
                && matches!(i.parameter_number, Some(p) if p == first || p == first + 1)
        })
        .map(|(k, _)| k)
        .collect();
    let new_index = |old: usize| old - drop.iter().filter(|&&d| d < old).count();
    let instructions = comp
        .instructions
        .iter()
        .enumerate()
        .filter(|(k, _)| !drop.contains(k))
        .map(|(_, i)| {
            let mut i = i.clone();
            i.operands = i.operands.iter().map(|&o| new_index(o)).collect();
            if let Some(p) = i.parameter_number.filter(|&p| p > first + 1) {
                i.parameter_number = Some(p - 2);
            }
            i
        })
        .collect();
    HloComputation {
        name: comp.name.clone(),
        instructions,
        root: new_index(comp.root),
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

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::parse_module;
    use conformance_spec::Backend;

    /// The root of `text`'s entry over argument values, as the minimizer holds it.
    fn structured(text: &str, args: Vec<Literal>) -> Structured {
        let m = parse_module(text).unwrap();
        let entry = m.entry_computation();
        let called = m
            .computations
            .iter()
            .filter(|c| c.name != entry.name)
            .cloned()
            .collect();
        Structured::new(entry.root_instruction().clone(), args, called)
    }

    fn lit(t: &str) -> Literal {
        conformance_spec::hlo::parse_literal(t).unwrap()
    }

    fn run(s: &Structured) -> Literal {
        let (m, a) = s.build();
        conformance_spec::shape_inference::verify_module(&m).unwrap();
        conformance_reference::Reference.execute(&m, &a).unwrap()
    }

    #[test]
    fn unread_sort_operands_are_dropped_with_their_comparator_parameters() {
        let s = structured(
            "HloModule s\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n  e = u8[] parameter(4)\n  f = u8[] parameter(5)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n  k = f32[4] parameter(0)\n  v = s32[4] parameter(1)\n  w = u8[4] parameter(2)\n  ROOT r = (f32[4], s32[4], u8[4]) sort(k, v, w), dimensions={0}, to_apply=cmp\n}\n",
            vec![lit("f32[4] {3, 1, 2, 0}"), lit("s32[4] {0, 1, 2, 3}"), lit("u8[4] {9, 8, 7, 6}")],
        );
        let candidates = fewer_sort_operands(&s);
        assert_eq!(
            candidates.len(),
            2,
            "the key is read, the two payloads are not"
        );
        assert_eq!(
            run(&candidates[0]),
            lit("(f32[4] {0, 1, 2, 3}, u8[4] {6, 8, 7, 9})")
        );
        assert_eq!(
            run(&candidates[1]),
            lit("(f32[4] {0, 1, 2, 3}, s32[4] {3, 1, 2, 0})")
        );
        // Down to the key alone: an array result.
        let once = &fewer_sort_operands(&candidates[0])[0];
        assert_eq!(run(once), lit("f32[4] {0, 1, 2, 3}"));
        assert!(fewer_sort_operands(once).is_empty());
    }

    #[test]
    fn branches_are_dropped_with_their_operands_and_computations() {
        let s = structured(
            "HloModule c\nb0 {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\nb1 {\n  x = f32[2] parameter(0)\n  ROOT a = f32[2] abs(x)\n}\nb2 {\n  x = f32[2] parameter(0)\n  ROOT c = f32[2] copy(x)\n}\nENTRY e {\n  i = s32[] parameter(0)\n  x = f32[2] parameter(1)\n  y = f32[2] parameter(2)\n  z = f32[2] parameter(3)\n  ROOT r = f32[2] conditional(i, x, y, z), branch_computations={b0, b1, b2}\n}\n",
            vec![lit("s32[] 7"), lit("f32[2] {1, -2}"), lit("f32[2] {-3, 4}"), lit("f32[2] {5, -6}")],
        );
        // Index 7 is out of range: the last branch runs.
        assert_eq!(run(&s), lit("f32[2] {5, -6}"));
        let candidates = fewer_branches(&s);
        assert_eq!(candidates.len(), 3);
        // Without b2, b1 is last: abs of its own operand.
        assert_eq!(run(&candidates[2]), lit("f32[2] {3, 4}"));
        assert_eq!(candidates[2].called.len(), 2);
        let single = &fewer_branches(&candidates[2])[1];
        assert_eq!(run(single), lit("f32[2] {-1, 2}"));
        assert!(fewer_branches(single).is_empty());
    }
}
