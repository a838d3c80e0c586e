//! The minimizer: shrinks a disagreeing case while the same disagreement persists (the same
//! backend, verdict and class of difference), and writes it to the corpus.
//!
//! Steps, each kept only when the disagreement survives it:
//! 1. **Cut**: the root's operands become parameters holding the reference's values of them, so
//!    every instruction but the root is dropped (a graph reduces to its instruction at fault once
//!    localization made that the root).
//! 2. **Layouts**: every layout back to the default (no permutation, no padding).
//! 3. **One element**: for element-wise roots, the failing element alone as a scalar case; if
//!    the disagreement needs more (a layout or position bug), each dimension is shrunk around the
//!    failing element instead.
//! 4. **Values**: every other element set to zero (then to one), by halves (delta debugging);
//!    for every root, data movement included.
//! 5. **Narrower type**: f64 → f32 → bf16/f16, c128 → c64, s64 → s32 → s16 → s8 (u likewise),
//!    values rounded, where the operation accepts the type.
//!
//! Collectives go through [`collective`]: the replica count, the groups and pairs shrink with
//! the operands, every device's arguments alike.
//!
//! Roots that take or give tuples or call computations (control flow, sort, topk), and the
//! numerical family (fft, cholesky, triangular-solve, batch norm, whose operands' shapes are
//! tied), go through [`structured`] instead: the cut keeps tuples, and shapes shrink together with the called
//! computations (a loop's trip count and a branch index shrink as values).

mod collective;
mod host_transfer;
mod linalg;
mod random_ops;
pub mod structured;

use crate::check::{check, BackendOutcome, Verdict};
use crate::compare::DiffClass;
use crate::corpus::{CorpusCase, CorpusInput, Provenance as CorpusProvenance};
use crate::executor::Stage;
use crate::results::CaseRecord;
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::layout::Layout;
use conformance_spec::literal::{complex_bits, complex_parts, ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::Backend;
use std::path::{Path, PathBuf};

pub use crate::corpus::Provenance;

/// The disagreement to preserve: which backend (index into the backends, ≥ 1), its verdict and,
/// for `fail`, a class of difference it must still show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub backend: usize,
    pub verdict: Verdict,
    pub class: Option<DiffClass>,
}

/// A minimized case.
#[derive(Clone, Debug)]
pub struct Minimized {
    pub module: HloModule,
    pub args: Vec<Literal>,
    /// Cases tried (each a run on the reference and the backend).
    pub attempts: usize,
}

impl Minimized {
    /// Instructions of the entry computation that are not parameters.
    pub fn instruction_count(&self) -> usize {
        self.module
            .entry_computation()
            .instructions
            .iter()
            .filter(|i| i.opcode != Opcode::Parameter)
            .count()
    }

    /// Elements over all inputs.
    pub fn element_count(&self) -> usize {
        self.args
            .iter()
            .filter_map(Literal::as_array)
            .map(|a| a.shape().element_count())
            .sum()
    }
}

/// The first disagreement of `record` that no accepted deviation of `known` explains
/// ([`crate::known::explaining`] class by class), as a target: its backend, verdict and first
/// unexplained class; [`target_of`] when every disagreement is explained.
pub fn new_target_of(
    record: &CaseRecord,
    known: &[crate::known::KnownDeviation],
) -> Option<Target> {
    let new = record
        .outcomes
        .iter()
        .enumerate()
        .find_map(|(k, o)| match o.verdict {
            Verdict::Fail => {
                let cmp = o.comparison.as_ref()?;
                cmp.classes.keys().copied().find_map(|class| {
                    let single = BackendOutcome {
                        comparison: Some(crate::compare::Comparison {
                            classes: [(class, 1)].into_iter().collect(),
                            ..crate::compare::Comparison::default()
                        }),
                        ..o.clone()
                    };
                    crate::known::explaining(known, &record.op, &record.dtype, &single)
                        .is_empty()
                        .then_some(Target {
                            backend: k + 1,
                            verdict: o.verdict,
                            class: Some(class),
                        })
                })
            }
            Verdict::Error | Verdict::Timeout => {
                crate::known::explaining(known, &record.op, &record.dtype, o)
                    .is_empty()
                    .then_some(Target {
                        backend: k + 1,
                        verdict: o.verdict,
                        class: None,
                    })
            }
            _ => None,
        });
    new.or_else(|| target_of(record))
}

/// The first disagreement of `record` as a target: its first failing backend, verdict, and the
/// first class of difference.
pub fn target_of(record: &CaseRecord) -> Option<Target> {
    record.outcomes.iter().enumerate().find_map(|(k, o)| {
        matches!(o.verdict, Verdict::Fail | Verdict::Error | Verdict::Timeout).then(|| Target {
            backend: k + 1,
            verdict: o.verdict,
            class: o
                .comparison
                .as_ref()
                .and_then(|c| c.classes.keys().next().copied()),
        })
    })
}

struct Oracle<'a> {
    op: &'a OpEntry,
    backends: Vec<&'a dyn Backend>,
    target: Target,
    attempts: usize,
    /// Parameters folded back into constants before every check (the mask of
    /// [`conformance_spec::hlo::transform::parameters_to_constants`]): a case whose operands
    /// are constants is shrunk through its arguments but always checked with constants.
    fold: Option<Vec<bool>>,
}

impl Oracle<'_> {
    /// The case as the backends see it: `fold`'s parameters back into constants (`None` when
    /// they no longer fold: a candidate that changed the parameters).
    fn as_checked(
        &self,
        module: &HloModule,
        args: &[Literal],
    ) -> Option<(HloModule, Vec<Literal>)> {
        match &self.fold {
            None => Some((module.clone(), args.to_vec())),
            Some(mask) => {
                conformance_spec::hlo::transform::parameters_to_constants(module, args, mask).ok()
            }
        }
    }

    /// True when the case still shows the target disagreement.
    fn fails(&mut self, module: &HloModule, args: &[Literal]) -> bool {
        self.attempts += 1;
        if conformance_spec::shape_inference::verify_module(module).is_err() {
            return false;
        }
        let Some((module, args)) = self.as_checked(module, args) else {
            return false;
        };
        let (module, args) = (&module, args.as_slice());
        // Control flow is judged as the sweep judges it (trip by trip, see
        // `graph::check_operation`).
        let outcome = match conformance_spec::catalog::shared() {
            Some(catalog) => {
                crate::graph::check_operation(
                    catalog,
                    self.op,
                    module,
                    args,
                    &self.backends,
                    &Stage::default(),
                )
                .0
            }
            None => check(self.op, module, args, &self.backends, &Stage::default()),
        };
        if outcome.reference_error.is_some() {
            return false;
        }
        let Some(o) = outcome.outcomes.first() else {
            return false;
        };
        o.verdict == self.target.verdict
            && self.target.class.is_none_or(|c| {
                o.comparison
                    .as_ref()
                    .is_some_and(|cmp| cmp.classes.contains_key(&c))
            })
    }

    /// The first element index (row-major) that shows the target class, on the current case.
    fn failing_index(&self, module: &HloModule, args: &[Literal]) -> Option<Vec<i64>> {
        let (module, args) = self.as_checked(module, args)?;
        let outcome = check(self.op, &module, &args, &self.backends, &Stage::default());
        let c = outcome.outcomes.first()?.comparison.as_ref()?;
        c.diffs
            .iter()
            .find(|d| self.target.class.is_none_or(|t| d.class == t) && d.tuple_index.is_empty())
            .map(|d| d.index.clone())
    }
}

/// An element-wise case: a root over parameters whose shapes equal the result's (or scalars).
#[derive(Clone, Debug)]
struct Flat {
    root: HloInstruction,
    operands: Vec<ArrayLiteral>,
    /// Computations the root may call (from the original module).
    called: Vec<HloComputation>,
}

impl Flat {
    fn result(&self) -> &ArrayShape {
        self.root
            .shape
            .as_array()
            .expect("flat cases have array results")
    }

    fn build(&self) -> (HloModule, Vec<Literal>) {
        single_op_module_in(&self.root, &self.operands, &self.called)
    }

    /// True when every operand is a scalar or has the result's dimensions.
    fn is_elementwise(&self) -> bool {
        let dims = &self.result().dimensions;
        self.operands
            .iter()
            .all(|a| a.shape().is_scalar() || a.dimensions() == dims.as_slice())
    }
}

/// A module of one instruction (a copy of `root`, its operands replaced by parameters) and its
/// arguments (`operands`, whose shapes the parameters take). `root` must not call computations:
/// see [`single_op_module_in`].
pub fn single_op_module(
    root: &HloInstruction,
    operands: &[ArrayLiteral],
) -> (HloModule, Vec<Literal>) {
    single_op_module_in(root, operands, &[])
}

/// The non-entry computations of `module`: what an instruction cut out of its entry may call.
pub fn called_computations(module: &HloModule) -> Vec<HloComputation> {
    module
        .computations
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != module.entry)
        .map(|(_, c)| c.clone())
        .collect()
}

/// As [`single_op_module`], with the computations `root` calls (scatter's update computation,
/// ...) taken from `computations` (those it does not reach are left out).
pub fn single_op_module_in(
    root: &HloInstruction,
    operands: &[ArrayLiteral],
    computations: &[HloComputation],
) -> (HloModule, Vec<Literal>) {
    let operands: Vec<Literal> = operands.iter().cloned().map(Literal::Array).collect();
    single_op_module_of(root, &operands, computations)
}

/// As [`single_op_module_in`], for operands of any shape (tuples: a `while`'s state, a
/// conditional's branch operands), tuple operands rebuilt from array parameters
/// ([`structured::parameters_of`]).
pub fn single_op_module_of(
    root: &HloInstruction,
    operands: &[Literal],
    computations: &[HloComputation],
) -> (HloModule, Vec<Literal>) {
    structured::Structured::new(root.clone(), operands.to_vec(), computations.to_vec()).build()
}

/// Minimizes `module`/`args` while `target` persists. `backends[0]` is the reference;
/// `backends[target.backend]` the backend under test.
///
/// Errors: the case does not show the target disagreement to begin with.
pub fn minimize(
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    target: Target,
) -> Result<Minimized, String> {
    // Operands passed as constants (`--constant-operands`) are shrunk like arguments and folded
    // back into the module for every check, so the case stays one a compiler can fold.
    use conformance_spec::hlo::transform::{parameters_to_constants, root_constants_to_parameters};
    if let Some((lifted, values, mask)) = root_constants_to_parameters(module) {
        let mut all = args.to_vec();
        all.extend(values);
        if let Ok(m) = minimize_with(op, &lifted, &all, backends, target, Some(mask.clone())) {
            if let Ok((module, args)) = parameters_to_constants(&m.module, &m.args, &mask) {
                return Ok(Minimized {
                    module,
                    args,
                    attempts: m.attempts,
                });
            }
        }
    }
    minimize_with(op, module, args, backends, target, None)
}

/// [`minimize`] with the oracle folding `fold`'s parameters into constants before each check.
fn minimize_with(
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    target: Target,
    fold: Option<Vec<bool>>,
) -> Result<Minimized, String> {
    let under_test = *backends
        .get(target.backend)
        .ok_or("the target backend is not among the backends")?;
    let mut oracle = Oracle {
        op,
        backends: vec![backends[0], under_test],
        target,
        attempts: 0,
        fold,
    };
    if !oracle.fails(module, args) {
        return Err("the case does not show the disagreement".into());
    }
    let (mut best_module, mut best_args) = (module.clone(), args.to_vec());
    let root = module.entry_computation().root_instruction();
    // Token and transfer cases are edited as whole modules ([`host_transfer`]).
    if host_transfer::applies(module) {
        if let Some((module, args)) = host_transfer::minimize(&mut oracle, module, args) {
            return Ok(Minimized {
                module,
                args,
                attempts: oracle.attempts,
            });
        }
    }
    // Collectives shrink over their devices too ([`collective`]).
    if collective::is_collective(root.opcode) {
        if let Some((module, args)) = collective::minimize(&mut oracle, module, args) {
            return Ok(Minimized {
                module,
                args,
                attempts: oracle.attempts,
            });
        }
    }
    if matches!(
        root.opcode,
        Opcode::While
            | Opcode::Conditional
            | Opcode::Call
            | Opcode::Fusion
            | Opcode::Map
            | Opcode::Sort
            | Opcode::TopK
            | Opcode::OptimizationBarrier
            | Opcode::RngBitGenerator
            | Opcode::Rng
    ) || linalg::is_linalg(root.opcode)
    {
        if let Some(operands) = root_values(module, args, backends[0]) {
            let s =
                structured::Structured::new(root.clone(), operands, called_computations(module));
            let (m, a) = s.build();
            if oracle.fails(&m, &a) {
                let (module, args) = structured::minimize(&mut oracle, s).build();
                return Ok(Minimized {
                    module,
                    args,
                    attempts: oracle.attempts,
                });
            }
        }
    }
    // 1. Cut: the root over parameters holding the reference's operand values.
    let mut flat = None;
    if let Some(operands) = crate::check::root_operands(module, args, backends[0]) {
        let root = module.entry_computation().root_instruction().clone();
        if root.shape.as_array().is_some() {
            let f = Flat {
                root,
                operands,
                called: called_computations(module),
            };
            let (m, a) = f.build();
            if oracle.fails(&m, &a) {
                (best_module, best_args) = (m, a);
                flat = Some(f);
            }
        }
    }
    let Some(mut flat) = flat else {
        return Ok(Minimized {
            module: best_module,
            args: best_args,
            attempts: oracle.attempts,
        });
    };
    let mut keep = |oracle: &mut Oracle, candidate: &Flat, flat: &mut Flat| {
        let (m, a) = candidate.build();
        let ok = oracle.fails(&m, &a);
        if ok {
            *flat = candidate.clone();
        }
        ok
    };
    // 2. Default layouts everywhere.
    let mut c = flat.clone();
    for a in &mut c.operands {
        *a = a.relayout(Layout::default_for_rank(a.shape().rank()));
    }
    if let Some(r) = c.root.shape.as_array_mut() {
        r.layout = Layout::default_for_rank(r.rank());
    }
    keep(&mut oracle, &c, &mut flat);
    if flat.is_elementwise() {
        // 3. The failing element alone, else shrink dimensions around it.
        let (m, a) = flat.build();
        if let Some(idx) = oracle.failing_index(&m, &a) {
            let scalar = restrict(&flat, &idx, &vec![1; idx.len()], true);
            if !keep(&mut oracle, &scalar, &mut flat) {
                shrink_dimensions(&mut oracle, &mut flat, idx, &mut keep);
            }
        }
    }
    // 4. Other elements to zero, then one (for data movement too: index operands set to 0 or 1
    // stay valid, the oracle keeps only what preserves the disagreement).
    simplify_values(&mut oracle, &mut flat, &mut keep);
    // 5. Narrower element types.
    for ty in narrower_types(flat.operands.first().map(|a| a.element_type())) {
        if let Some(c) = narrow(&flat, ty, op) {
            keep(&mut oracle, &c, &mut flat);
        }
    }
    let (module, args) = flat.build();
    Ok(Minimized {
        module,
        args,
        attempts: oracle.attempts,
    })
}

type Keep<'k> = dyn FnMut(&mut Oracle, &Flat, &mut Flat) -> bool + 'k;

/// Shrinks each dimension to a window around `idx`: size 1, then halves, until nothing shrinks.
fn shrink_dimensions(oracle: &mut Oracle, flat: &mut Flat, mut idx: Vec<i64>, keep: &mut Keep) {
    loop {
        let mut progress = false;
        for d in 0..idx.len() {
            let dims = flat.result().dimensions.clone();
            let size = dims[d];
            let mut candidates = vec![(idx[d], 1)];
            let mut half = size / 2;
            while half >= 2 {
                candidates.push(((idx[d] - half / 2).clamp(0, size - half), half));
                half /= 2;
            }
            for (start, len) in candidates {
                if len >= size {
                    continue;
                }
                let mut starts = vec![0; dims.len()];
                let mut sizes = dims.clone();
                starts[d] = start;
                sizes[d] = len;
                let c = restrict_window(flat, &starts, &sizes);
                if keep(oracle, &c, flat) {
                    idx[d] -= start;
                    progress = true;
                    break;
                }
            }
        }
        if !progress {
            return;
        }
    }
}

/// Sets elements to 0 then 1 (of their type), the failing position left alone, by halves.
fn simplify_values(oracle: &mut Oracle, flat: &mut Flat, keep: &mut Keep) {
    for value in [0u8, 1] {
        for k in 0..flat.operands.len() {
            let n = flat.operands[k].shape().element_count();
            let mut chunk = n.max(1);
            while chunk >= 1 {
                let mut start = 0;
                while start < n {
                    let mut c = flat.clone();
                    let a = &mut c.operands[k];
                    let ty = a.element_type();
                    let bits = simple_bits(ty, value);
                    let mut changed = false;
                    let mut linear = 0usize;
                    let dims = a.dimensions().to_vec();
                    index::for_each_index(&dims, |i| {
                        if (start..start + chunk).contains(&linear) && a.get_bits(i) != bits {
                            a.set_bits(i, bits);
                            changed = true;
                        }
                        linear += 1;
                    });
                    if changed {
                        keep(oracle, &c, flat);
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

/// The reference's values of the root's operands (any shapes), `None` when one fails.
fn root_values(
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Option<Vec<Literal>> {
    let root = module.entry_computation().root_instruction();
    root.operands
        .iter()
        .map(|&o| {
            let mut sub = module.clone();
            sub.computations[module.entry].root = o;
            reference.execute(&sub, args).ok()
        })
        .collect()
}

/// The bits of 0 or 1 in `ty`.
fn simple_bits(ty: ElementType, value: u8) -> u128 {
    if value == 0 {
        return 0;
    }
    match ty.float_format() {
        Some(f) if ty.is_complex() => complex_bits(f, f.encode(1.0), 0),
        Some(f) => f.encode(1.0) as u128,
        None => 1,
    }
}

/// The case restricted to the window `starts..starts+sizes` (as a scalar when `scalar`).
fn restrict(flat: &Flat, starts: &[i64], sizes: &[i64], scalar: bool) -> Flat {
    let mut c = restrict_window(flat, starts, sizes);
    if scalar {
        for a in &mut c.operands {
            let bits = a.get_bits(&vec![0; a.shape().rank()]);
            *a = ArrayLiteral::scalar_bits(a.element_type(), bits);
        }
        if let Some(r) = c.root.shape.as_array_mut() {
            *r = ArrayShape::scalar(r.element_type);
        }
    }
    c
}

fn restrict_window(flat: &Flat, starts: &[i64], sizes: &[i64]) -> Flat {
    let mut c = flat.clone();
    for a in &mut c.operands {
        if a.shape().is_scalar() {
            continue;
        }
        *a = window(a, starts, sizes);
    }
    if let Some(r) = c.root.shape.as_array_mut() {
        r.dimensions = sizes.to_vec();
        r.dynamic_dimensions = vec![false; sizes.len()];
        r.layout = shrink_layout(&r.layout, &flat.result().dimensions, sizes);
    }
    c
}

/// Keeps a layout's order and padding amounts for new dimension sizes.
fn shrink_layout(layout: &Layout, old: &[i64], new: &[i64]) -> Layout {
    let mut l = layout.clone();
    if !l.padded_dimensions.is_empty() {
        l.padded_dimensions = l
            .padded_dimensions
            .iter()
            .zip(old.iter().zip(new))
            .map(|(&p, (&o, &n))| n + (p - o))
            .collect();
    }
    l
}

fn window(a: &ArrayLiteral, starts: &[i64], sizes: &[i64]) -> ArrayLiteral {
    let layout = shrink_layout(&a.shape().layout, a.dimensions(), sizes);
    let shape = ArrayShape::new(a.element_type(), sizes.to_vec()).with_layout(layout);
    let mut bits = Vec::with_capacity(shape.element_count());
    index::for_each_index(sizes, |i| {
        let src: Vec<i64> = i.iter().zip(starts).map(|(x, s)| x + s).collect();
        bits.push(a.get_bits(&src));
    });
    ArrayLiteral::from_bits(shape, &bits).expect("window of a valid literal")
}

/// Narrower types to try for `ty`, most narrow last.
fn narrower_types(ty: Option<ElementType>) -> Vec<ElementType> {
    use ElementType::*;
    match ty {
        Some(F64) => vec![F32, Bf16, F16],
        Some(F32) => vec![Bf16, F16],
        Some(C128) => vec![C64],
        Some(S64) => vec![S32, S16, S8],
        Some(S32) => vec![S16, S8],
        Some(S16) => vec![S8],
        Some(U64) => vec![U32, U16, U8],
        Some(U32) => vec![U16, U8],
        Some(U16) => vec![U8],
        _ => vec![],
    }
}

/// The case in element type `to` (operands of the case's type converted, the result too when it
/// had that type), or `None` when the op does not accept `to` or a value does not fit.
fn narrow(flat: &Flat, to: ElementType, op: &OpEntry) -> Option<Flat> {
    let from = flat.operands.first()?.element_type();
    let accepted = conformance_spec::catalog::resolve_element_types(&op.element_types).ok()?;
    if !accepted.contains(&to) {
        return None;
    }
    let mut c = flat.clone();
    for a in &mut c.operands {
        if a.element_type() != from {
            continue;
        }
        let shape = a.shape().clone().with_element_type(to);
        let bits: Option<Vec<u128>> = a
            .logical_bits()
            .into_iter()
            .map(|b| convert_bits(from, to, b))
            .collect();
        *a = ArrayLiteral::from_bits(shape, &bits?).ok()?;
    }
    if let Some(r) = c.root.shape.as_array_mut() {
        if r.element_type == from {
            r.element_type = to;
        }
    }
    Some(c)
}

fn convert_bits(from: ElementType, to: ElementType, bits: u128) -> Option<u128> {
    match (from.float_format(), to.float_format()) {
        (Some(f), Some(t)) if from.is_complex() => {
            let (re, im) = complex_parts(f, bits);
            Some(complex_bits(
                t,
                t.encode(f.decode(re)),
                t.encode(f.decode(im)),
            ))
        }
        (Some(f), Some(t)) => Some(t.encode(f.decode(bits as u64)) as u128),
        _ => {
            let v = from.integer_from_bits(bits as u64)?;
            to.integer_to_bits(v).map(|b| b as u128)
        }
    }
}

/// Minimizes the case of `record` (its first disagreement that no accepted deviation of `known`
/// explains, [`new_target_of`]) and writes it to `dir`.
///
/// Errors: the record shows no disagreement, the catalog lacks its op, minimization found the
/// case no longer failing, or the file cannot be written.
#[allow(clippy::too_many_arguments)]
pub fn minimize_and_save(
    catalog: &Catalog,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    record: &CaseRecord,
    known: &[crate::known::KnownDeviation],
    provenance: Provenance,
    dir: &Path,
) -> Result<PathBuf, String> {
    let target = new_target_of(record, known).ok_or("the case shows no disagreement")?;
    let op = catalog
        .op(&record.op)
        .ok_or_else(|| format!("no catalog entry `{}`", record.op))?;
    let m = minimize(op, module, args, backends, target)?;
    corpus_case(record, target, &m, provenance, backends).save(dir)
}

/// The corpus file of a minimized case.
pub fn corpus_case(
    record: &CaseRecord,
    target: Target,
    m: &Minimized,
    provenance: CorpusProvenance,
    backends: &[&dyn Backend],
) -> CorpusCase {
    // The element type that names the root's catalog entry (the generated data of an
    // rng-bit-generator, not its u64 state), else the first argument's.
    let root = m.module.entry_computation().root_instruction();
    let dtype = crate::graph::instruction_element_type(&m.module, root)
        .or_else(|| {
            m.args
                .first()
                .and_then(Literal::as_array)
                .map(|a| a.element_type())
        })
        .map_or(record.dtype.clone(), |t| t.to_string());
    CorpusCase {
        op: record.op.clone(),
        dtype,
        backend: backends
            .get(target.backend)
            .map_or(String::new(), |b| b.name().to_string()),
        verdict: target.verdict,
        class: target.class,
        // Set by hand when the deviation is accepted: the part of the message that names it.
        error: None,
        accepted: false,
        note: None,
        hlo: m.module.to_string(),
        inputs: m
            .args
            .iter()
            .filter_map(Literal::as_array)
            .map(CorpusInput::from_array)
            .collect(),
        provenance,
    }
}
