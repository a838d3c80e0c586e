//! Case generation from the catalog: plain library code, independent of any fuzzing engine.
//!
//! A sweep is a list of *combos* (catalog entry × element type, × target type for conversions);
//! case `i` of a sweep with seed `s` uses combo `i mod n` and a generator seeded from `(s, i)`, so
//! every case is a pure function of (seed, case index, catalog, generator config).

pub mod collective;
pub mod contraction;
pub mod control_flow;
pub mod elementwise;
pub mod graph;
pub mod host_transfer;
mod lapack;
pub mod linalg;
pub mod movement;
pub mod random_ops;
pub mod rng;
pub mod shapes;
pub mod swarm;
#[cfg(test)]
pub(crate) mod test_support;
pub mod values;

use conformance_spec::catalog::{resolve_element_types, Catalog, Signature};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::Literal;
use rng::Rng;
use shapes::ShapeConfig;
pub use swarm::SwarmConfig;
use values::ValueClass;

/// What a sweep may generate (shapes, layouts, value classes).
#[derive(Clone, Debug)]
pub struct GeneratorConfig {
    pub shapes: ShapeConfig,
    pub values: Vec<ValueClass>,
    /// The swarm configuration this config was narrowed by ([`SwarmConfig::apply`]), if any.
    pub swarm: Option<SwarmConfig>,
    /// Consecutive case indices that share one module and differ in their inputs
    /// ([`rng::Rng::for_member`]), so a compiler under test compiles once per group; 1: every
    /// case its own module.
    pub inputs_per_module: u64,
    /// Which operands a case passes as `constant` instructions in its module instead of
    /// parameters (a compiler may then evaluate the operation at compile time, through its
    /// constant folder rather than its kernels).
    pub constant_operands: ConstantOperands,
    /// Wrap each case's entry root in a one-element tuple, the form of a JAX function's entry
    /// computation (`conformance_spec::hlo::transform::root_in_tuple`): a compiler then
    /// returns its result through a tuple, and the harness localizes and minimizes through it.
    pub tuple_root: bool,
}

/// Operands passed as constants in the module ([`GeneratorConfig::constant_operands`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ConstantOperands {
    /// Every operand is a parameter.
    #[default]
    Off,
    /// Each case passes a random non-empty subset of its operands as constants.
    Some,
    /// Every operand of every case is a constant: the whole operation can be folded.
    All,
}

impl ConstantOperands {
    /// The name on the command line and in provenance records.
    pub fn name(self) -> &'static str {
        match self {
            ConstantOperands::Off => "off",
            ConstantOperands::Some => "some",
            ConstantOperands::All => "all",
        }
    }
}

impl Default for GeneratorConfig {
    fn default() -> GeneratorConfig {
        GeneratorConfig {
            shapes: ShapeConfig::default(),
            values: ValueClass::ALL.to_vec(),
            swarm: None,
            inputs_per_module: 1,
            constant_operands: ConstantOperands::Off,
            tuple_root: false,
        }
    }
}

impl GeneratorConfig {
    /// One line for provenance records: shape limits, layout features, value classes, swarm.
    pub fn describe(&self) -> String {
        let s = &self.shapes;
        let values: Vec<&str> = self.values.iter().map(|v| v.name()).collect();
        let mut text = format!(
            "max_rank={} max_dimension={} max_elements={} zero_sized={} permuted_layouts={} padding={} values={}",
            s.max_rank, s.max_dimension, s.max_elements, s.zero_sized, s.permuted_layouts, s.padding,
            values.join(",")
        );
        if let Some(w) = &self.swarm {
            text += &format!(" swarm=[{w}]");
        }
        if self.inputs_per_module > 1 {
            text += &format!(" inputs_per_module={}", self.inputs_per_module);
        }
        if self.constant_operands != ConstantOperands::Off {
            text += &format!(" constant_operands={}", self.constant_operands.name());
        }
        if self.tuple_root {
            text += " tuple_root";
        }
        text
    }
}

/// The combos of a sweep: [`plan`], narrowed by the generator's swarm configuration.
///
/// Errors: as [`plan`], or a swarm configuration that leaves nothing.
pub fn plan_sweep(
    catalog: &Catalog,
    filters: &Filters,
    config: &GeneratorConfig,
) -> Result<Vec<Combo>, String> {
    let mut combos = plan(catalog, filters)?;
    if let Some(s) = &config.swarm {
        s.restrict(catalog, &mut combos);
        if combos.is_empty() {
            return Err(format!("the swarm configuration selects nothing: {s}"));
        }
    }
    Ok(combos)
}

/// One cell of the sweep: a catalog entry on an element type (and a target type for conversions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combo {
    /// Index into `Catalog::ops()`.
    pub op_index: usize,
    pub element_type: ElementType,
    pub target_type: Option<ElementType>,
}

/// Which catalog entries and element types a sweep covers.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    /// Catalog ids or patterns with `*` (e.g. `compare-*`, `*exp*`); empty = every entry.
    pub ops: Vec<String>,
    /// Element type names or classes (`f32`, `float`, `integer`, ...); empty = every type.
    pub dtypes: Vec<String>,
}

/// Matches `text` against a pattern where `*` stands for any run of characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text.ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The combos of a sweep, in catalog order then element-type order.
///
/// Errors: a filter that names an unknown element type or class, or matches no catalog entry.
pub fn plan(catalog: &Catalog, filters: &Filters) -> Result<Vec<Combo>, String> {
    let allowed_types = if filters.dtypes.is_empty() {
        ElementType::ALL.to_vec()
    } else {
        resolve_element_types(&filters.dtypes).map_err(|bad| {
            format!("--dtypes: unknown element type or class `{bad}` (expected e.g. f32, bf16, s8, pred, float, integer, complex, f8, all)")
        })?
    };
    for pattern in &filters.ops {
        if !catalog.ops().iter().any(|op| glob_match(pattern, &op.id)) {
            return Err(format!(
                "--ops: `{pattern}` matches no catalog entry (see `conformance spec`)"
            ));
        }
    }
    let mut combos = Vec::new();
    for (op_index, op) in catalog.ops().iter().enumerate() {
        if !filters.ops.is_empty() && !filters.ops.iter().any(|p| glob_match(p, &op.id)) {
            continue;
        }
        let types = catalog.element_types(op);
        for &ty in types.iter().filter(|t| allowed_types.contains(t)) {
            if op.result == conformance_spec::catalog::ResultRule::SameOrAccumulation {
                // The operand's own type, then each wider accumulation type (mixed precision).
                for to in catalog.result_element_types(op, ty) {
                    combos.push(Combo {
                        op_index,
                        element_type: ty,
                        target_type: (to != ty).then_some(to),
                    });
                }
            } else if op.signature == Signature::Convert {
                for to in catalog.result_element_types(op, ty) {
                    combos.push(Combo {
                        op_index,
                        element_type: ty,
                        target_type: Some(to),
                    });
                }
            } else {
                combos.push(Combo {
                    op_index,
                    element_type: ty,
                    target_type: None,
                });
            }
        }
    }
    Ok(combos)
}

/// A generated case: a module and its arguments, with where it came from.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub index: u64,
    /// Catalog id of the operation under test.
    pub op_id: String,
    /// Summary row: the catalog id, plus `->target` for conversions.
    pub row: String,
    pub element_type: ElementType,
    pub target_type: Option<ElementType>,
    pub module: HloModule,
    pub args: Vec<Literal>,
}

/// Builds case `index` of the sweep `(seed, combos)`. With `config.inputs_per_module` = k > 1,
/// the k cases of a group `index / k` share their combination and (for generators whose
/// structure does not depend on the values drawn) their module.
///
/// Errors: the generator produced an invalid module (a bug, reported with the case's coordinates).
pub fn case(
    catalog: &Catalog,
    combos: &[Combo],
    config: &GeneratorConfig,
    seed: u64,
    index: u64,
) -> Result<Case, String> {
    let k = config.inputs_per_module.max(1);
    let combo = &combos[((index / k) % combos.len() as u64) as usize];
    let mut rng = Rng::for_member(seed, index, k);
    case_with(catalog, combo, config, &mut rng, seed, index)
}

/// Builds a case of `combo` from the choices of `rng` (any [`rng::Source`]: a sweep's PRNG,
/// a proptest choice sequence, fuzzer bytes); `seed` and `index` are recorded as given.
///
/// Errors: the generator produced an invalid module (a bug).
pub fn case_with(
    catalog: &Catalog,
    combo: &Combo,
    config: &GeneratorConfig,
    rng: &mut Rng,
    seed: u64,
    index: u64,
) -> Result<Case, String> {
    let op = &catalog.ops()[combo.op_index];
    let spec = elementwise::CaseSpec {
        op,
        element_type: combo.element_type,
        target_type: combo.target_type,
        shapes: &config.shapes,
        values: &config.values,
    };
    let built = if contraction::is_contraction(op.signature) {
        contraction::build(rng, &spec)
    } else if control_flow::is_control_flow(op.signature) {
        control_flow::build(rng, &spec)
    } else if linalg::is_linalg(op.signature) {
        linalg::build(rng, &spec)
    } else if random_ops::is_random(op.signature) {
        random_ops::build(rng, &spec)
    } else if collective::is_collective(op.signature) {
        collective::build(rng, &spec)
    } else if host_transfer::is_host_transfer(op.signature) {
        host_transfer::build(rng, &spec)
    } else if !op.signature.is_elementwise() {
        movement::build(rng, &spec)
    } else if op.opcode == Opcode::ReducePrecision.name() {
        elementwise::build_reduce_precision(rng, &spec)
    } else {
        elementwise::build(rng, &spec)
    }
    .map_err(|e| format!("generator error (seed {seed}, case {index}): {e}"))?;
    let built = with_constant_operands(built, config.constant_operands, rng)
        .map_err(|e| format!("generator error (seed {seed}, case {index}): {e}"))?;
    let row = match combo.target_type {
        Some(t) => format!("{}->{}", op.id, t),
        None => op.id.clone(),
    };
    Ok(Case {
        seed,
        index,
        op_id: op.id.clone(),
        row,
        element_type: combo.element_type,
        target_type: combo.target_type,
        module: with_tuple_root(built.module, config),
        args: built.args,
    })
}

/// `module` with its entry root wrapped in a one-element tuple when `config.tuple_root` asks
/// for JAX's entry form (a root that already is a tuple stays).
fn with_tuple_root(module: HloModule, config: &GeneratorConfig) -> HloModule {
    match config.tuple_root {
        true => conformance_spec::hlo::transform::root_in_tuple(&module).unwrap_or(module),
        false => module,
    }
}

/// `built` with some or all of its operands moved into the module as constants (`mode`; the
/// subset drawn from `rng`). Modules of several devices, cases whose arguments are not one per
/// parameter, and operands that are not arrays (tokens, tuples) keep their parameters.
///
/// Errors: the generator's arguments do not match its parameters (a bug).
fn with_constant_operands(
    built: elementwise::Built,
    mode: ConstantOperands,
    rng: &mut Rng,
) -> Result<elementwise::Built, String> {
    let several_devices = conformance_spec::collective::DeviceGrid::of(&built.module)
        .map_or(true, |g| g.devices() > 1);
    // Arguments that are not one per parameter (host transfers append each device's infeed
    // queue) keep their form too.
    let parameters = built
        .module
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Parameter)
        .count();
    if mode == ConstantOperands::Off
        || built.args.is_empty()
        || several_devices
        || built.args.len() != parameters
    {
        return Ok(built);
    }
    let arrays: Vec<bool> = built
        .args
        .iter()
        .map(|a| matches!(a, Literal::Array(_)))
        .collect();
    let mut which: Vec<bool> = match mode {
        ConstantOperands::All => arrays.clone(),
        _ => arrays.iter().map(|&a| a && rng.chance(0.5)).collect(),
    };
    if !which.iter().any(|&w| w) {
        // At least one constant: the first array operand.
        match arrays.iter().position(|&a| a) {
            Some(k) => which[k] = true,
            None => return Ok(built),
        }
    }
    let (module, args) = conformance_spec::hlo::transform::parameters_to_constants(
        &built.module,
        &built.args,
        &which,
    )?;
    Ok(elementwise::Built { module, args })
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::Shape;

    /// Element-wise, data-movement and contraction operations: the families whose f32 cases the
    /// generator tests evaluate on the reference in two forms and compare.
    fn simple_family(signature: Signature) -> bool {
        signature.is_elementwise()
            || contraction::is_contraction(signature)
            || !(control_flow::is_control_flow(signature)
                || linalg::is_linalg(signature)
                || random_ops::is_random(signature)
                || collective::is_collective(signature)
                || host_transfer::is_host_transfer(signature))
    }

    #[test]
    fn globs() {
        assert!(glob_match("add", "add"));
        assert!(!glob_match("add", "add2"));
        assert!(glob_match("compare-*", "compare-LT"));
        assert!(glob_match("*exp*", "exponential-minus-one"));
        assert!(glob_match("*", "anything"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(glob_match("a*b*c", "a-b-c"));
    }

    /// `--constant-operands all` moves every operand of every combination's case into its
    /// module (no generator error), and the module computes what the parameter form computes
    /// (checked on the reference for the f32 cases of element-wise, data-movement and
    /// contraction operations, whose modules have one device).
    #[test]
    fn constant_operands_compute_what_the_parameters_compute() {
        use conformance_spec::Backend;
        let catalog = Catalog::builtin().unwrap();
        let combos = plan(&catalog, &Filters::default()).unwrap();
        let all = GeneratorConfig {
            constant_operands: ConstantOperands::All,
            ..GeneratorConfig::default()
        };
        let reference = conformance_reference::Reference;
        let mut compared = 0;
        for (i, combo) in combos.iter().enumerate() {
            let plain = case(&catalog, &combos, &GeneratorConfig::default(), 5, i as u64).unwrap();
            let folded = case(&catalog, &combos, &all, 5, i as u64).unwrap();
            let op = &catalog.ops()[combo.op_index];
            let single_device = conformance_spec::collective::DeviceGrid::of(&plain.module)
                .is_ok_and(|g| g.devices() == 1);
            if !single_device || plain.args.iter().any(|a| !matches!(a, Literal::Array(_))) {
                continue;
            }
            if folded.module == plain.module {
                // Left alone (host transfers, whose arguments carry infeed queues).
                assert_eq!(folded.args, plain.args, "{}", op.id);
                continue;
            }
            assert!(folded.args.is_empty(), "{}: {:?}", op.id, folded.args);
            let family = simple_family(op.signature);
            if combo.element_type != ElementType::F32 || !family || plain.args.is_empty() {
                continue;
            }
            let want = reference.execute(&plain.module, &plain.args);
            let got = reference.execute(&folded.module, &[]);
            match (want, got) {
                (Ok(w), Ok(g)) => assert!(w.logical_eq(&g), "{}:\n{}", op.id, folded.module),
                (Err(_), Err(_)) => {}
                (w, g) => panic!("{}: {w:?} / {g:?}", op.id),
            }
            compared += 1;
        }
        assert!(compared > 100, "{compared}");
    }

    /// `--tuple-root` wraps every case's root and changes nothing else: for every combination
    /// of the catalog the module is the plain one plus a root `tuple` of the old root, with the
    /// same arguments; on the reference the f32 element-wise, data-movement and contraction
    /// cases compute the one-element tuple of the plain result.
    #[test]
    fn tuple_roots_wrap_what_the_plain_roots_compute() {
        use conformance_spec::Backend;
        let catalog = Catalog::builtin().unwrap();
        let combos = plan(&catalog, &Filters::default()).unwrap();
        let tupled = GeneratorConfig {
            tuple_root: true,
            ..GeneratorConfig::default()
        };
        let reference = conformance_reference::Reference;
        let (mut wrapped, mut compared) = (0, 0);
        for (i, combo) in combos.iter().enumerate() {
            let plain = case(&catalog, &combos, &GeneratorConfig::default(), 5, i as u64).unwrap();
            let t = case(&catalog, &combos, &tupled, 5, i as u64).unwrap();
            let op = &catalog.ops()[combo.op_index];
            assert_eq!(t.args, plain.args, "{}", op.id);
            let (pe, te) = (
                plain.module.entry_computation(),
                t.module.entry_computation(),
            );
            let root = te.root_instruction();
            if matches!(pe.root_instruction().shape, Shape::Tuple(_)) {
                assert_eq!(t.module, plain.module, "{}: a tuple root stays", op.id);
                continue;
            }
            assert_eq!(root.opcode, Opcode::Tuple, "{}", op.id);
            assert_eq!(root.operands, [pe.root], "{}", op.id);
            assert_eq!(
                root.shape,
                Shape::Tuple(vec![pe.root_instruction().shape.clone()]),
                "{}",
                op.id
            );
            assert_eq!(
                te.instructions[..te.instructions.len() - 1],
                pe.instructions[..]
            );
            wrapped += 1;
            let single_device = conformance_spec::collective::DeviceGrid::of(&plain.module)
                .is_ok_and(|g| g.devices() == 1);
            let family = simple_family(op.signature);
            if combo.element_type != ElementType::F32 || !family || !single_device {
                continue;
            }
            match (
                reference.execute(&plain.module, &plain.args),
                reference.execute(&t.module, &t.args),
            ) {
                (Ok(w), Ok(g)) => {
                    assert!(
                        Literal::Tuple(vec![w]).logical_eq(&g),
                        "{}:\n{}",
                        op.id,
                        t.module
                    )
                }
                (Err(_), Err(_)) => {}
                (w, g) => panic!("{}: {w:?} / {g:?}", op.id),
            }
            compared += 1;
        }
        assert!(
            wrapped > 1000 && compared > 100,
            "{wrapped} wrapped, {compared} compared"
        );
    }

    /// Cases of one group share their module and differ in their inputs: for every combination
    /// of the catalog, group 0 of a sweep with 8 inputs per module. A generator whose module
    /// depends on the values it draws breaks the sharing (today `while`, whose trip bound is a
    /// constant drawn as a value: 20 of 2985 groups); ops without inputs (iota, constants,
    /// replica-id) or whose inputs are all indices drawn with the structure keep their inputs.
    #[test]
    fn the_cases_of_a_module_group_share_the_module_and_not_the_inputs() {
        let catalog = Catalog::builtin().unwrap();
        let combos = plan(&catalog, &Filters::default()).unwrap();
        let config = GeneratorConfig {
            inputs_per_module: 8,
            ..GeneratorConfig::default()
        };
        let (mut shared, mut other_inputs, mut split) = (0, 0, Vec::new());
        for g in 0..combos.len() as u64 {
            let cases: Vec<Case> = (8 * g..8 * g + 8)
                .map(|i| case(&catalog, &combos, &config, 3, i).unwrap())
                .collect();
            assert!(
                cases.iter().all(|c| c.row == cases[0].row),
                "one combination per group"
            );
            let text = cases[0].module.to_string();
            if cases.iter().all(|c| c.module.to_string() == text) {
                shared += 1;
                if cases.iter().any(|c| c.args != cases[0].args) {
                    other_inputs += 1;
                }
            } else {
                split.push(format!("{} {}", cases[0].row, cases[0].element_type));
            }
        }
        let total = combos.len();
        eprintln!("{shared} of {total} groups share their module; {other_inputs} vary their inputs; split: {split:?}");
        assert!(shared * 100 >= total * 95, "{shared} of {total}: {split:?}");
        assert!(
            other_inputs * 100 >= shared * 85,
            "{other_inputs} of {shared}"
        );
        assert!(split.iter().all(|s| s.starts_with("while ")), "{split:?}");
    }
}
