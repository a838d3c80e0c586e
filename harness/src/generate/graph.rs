//! Multi-operation cases: DAGs of 2–20 element-wise instructions whose shapes stay consistent
//! by construction (every value has the graph's dimensions; conversions change the element type,
//! comparisons make predicates that selects consume).
//!
//! Each instruction is drawn from the sweep's combos (so filters and swarm configurations apply),
//! its operands from the values already defined (biased to the most recent, so graphs are deep
//! rather than wide), and every intermediate result gets a random layout: a backend that fuses,
//! reuses buffers or converts layouts between instructions is exercised where single operations
//! cannot reach.

use super::elementwise::{compare_attributes, module_name};
use super::rng::Rng;
use super::shapes;
use super::values::{self, ValueHints};
use super::{Case, Combo, GeneratorConfig};
use conformance_spec::catalog::{Catalog, Signature};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// Fewest and most non-parameter instructions of a graph.
pub const MIN_INSTRUCTIONS: usize = 2;
pub const MAX_INSTRUCTIONS: usize = 20;

/// The entries a graph can chain: element-wise ones (reduce-precision and bitcast-convert are
/// left to single-operation cases: their attributes or operand shapes do not chain simply).
fn chainable(combo: &Combo, catalog: &Catalog) -> bool {
    let op = &catalog.ops()[combo.op_index];
    op.signature.is_elementwise()
        && op.opcode != Opcode::BitcastConvert.name()
        && op.opcode != Opcode::ReducePrecision.name()
}

/// Why no graph was built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// The selected operations (or the choices drawn) cannot form a graph of
    /// [`MIN_INSTRUCTIONS`]: not a bug, the selection is too narrow.
    #[error("{0}")]
    Unchainable(String),
    /// The generator built something invalid: a bug of this project.
    #[error("{0}")]
    Bug(String),
}

fn bug(e: impl ToString) -> GraphError {
    GraphError::Bug(e.to_string())
}

/// Builds graph case `index` of a sweep from the choices of `rng`: the row is `graph`, the
/// element type that of the first parameter.
///
/// Errors: [`GraphError::Unchainable`] when the combos cannot form a graph,
/// [`GraphError::Bug`] when the generator built an invalid module.
pub fn build_case(
    catalog: &Catalog,
    combos: &[Combo],
    config: &GeneratorConfig,
    rng: &mut Rng,
    seed: u64,
    index: u64,
) -> Result<Case, GraphError> {
    let usable: Vec<&Combo> = combos.iter().filter(|c| chainable(c, catalog)).collect();
    if usable.is_empty() {
        return Err(GraphError::Unchainable(
            "no selected operation can be chained into a graph".into(),
        ));
    }
    // The first instruction reads only parameters of one type: no select (it needs a predicate).
    let starters: Vec<&Combo> = usable
        .iter()
        .copied()
        .filter(|c| catalog.ops()[c.op_index].signature != Signature::Select)
        .collect();
    if starters.is_empty() {
        return Err(GraphError::Unchainable(
            "only select is selected: a graph needs something to start with".into(),
        ));
    }
    let first = *rng.pick(&starters);
    let ty = first.element_type;
    let dims = shapes::dimensions(rng, &config.shapes);
    let mut b = ComputationBuilder::new("main");
    let mut args: Vec<Literal> = Vec::new();
    // Defined values: (instruction, element type).
    let mut defined: Vec<(usize, ElementType)> = Vec::new();
    let parameters = 1 + rng.below(3) as usize;
    for _ in 0..parameters {
        let p = parameter(&mut b, rng, config, ty, &dims, &mut args)?;
        defined.push((p, ty));
    }
    let count =
        MIN_INSTRUCTIONS + rng.below((MAX_INSTRUCTIONS - MIN_INSTRUCTIONS + 1) as u64) as usize;
    let mut root = None;
    let mut attempts = 0;
    let mut built = 0;
    while built < count && attempts < count * 20 {
        attempts += 1;
        // Only combos whose operands are available: their element type is defined (and, for
        // select, a predicate too).
        let has = |t: ElementType| defined.iter().any(|(_, dt)| *dt == t);
        let eligible: Vec<&Combo> = usable
            .iter()
            .copied()
            .filter(|c| {
                has(c.element_type)
                    && (catalog.ops()[c.op_index].signature != Signature::Select
                        || has(ElementType::Pred))
            })
            .collect();
        let combo = if built == 0 {
            first
        } else {
            *rng.pick(&eligible)
        };
        let op = &catalog.ops()[combo.op_index];
        let Some(opcode) = Opcode::from_name(&op.opcode) else {
            continue;
        };
        // An operand of the combo's element type, biased to the most recent.
        let of_type = |rng: &mut Rng, t: ElementType, defined: &[(usize, ElementType)]| {
            let candidates: Vec<usize> = defined
                .iter()
                .filter(|(_, dt)| *dt == t)
                .map(|(i, _)| *i)
                .collect();
            if candidates.is_empty() {
                return None;
            }
            let n = candidates.len() as u64;
            // Zero choices pick the most recent value.
            let back = rng.below(n).min(rng.below(n));
            Some(candidates[(n - 1 - back) as usize])
        };
        let t = combo.element_type;
        let made = match op.signature {
            Signature::Unary => match of_type(rng, t, &defined) {
                Some(x) => b.unary(opcode, x).ok(),
                None => None,
            },
            Signature::Binary => match (of_type(rng, t, &defined), of_type(rng, t, &defined)) {
                (Some(x), Some(y)) if opcode == Opcode::Compare => {
                    let (direction, kind) = compare_attributes(op);
                    b.compare(x, y, direction, kind).ok()
                }
                (Some(x), Some(y)) => b.binary(opcode, x, y).ok(),
                _ => None,
            },
            Signature::Select => {
                let p = of_type(rng, ElementType::Pred, &defined);
                match (p, of_type(rng, t, &defined), of_type(rng, t, &defined)) {
                    (Some(p), Some(x), Some(y)) => b.select(p, x, y).ok(),
                    _ => None,
                }
            }
            Signature::Clamp => match (
                of_type(rng, t, &defined),
                of_type(rng, t, &defined),
                of_type(rng, t, &defined),
            ) {
                (Some(lo), Some(x), Some(hi)) => b.clamp(lo, x, hi).ok(),
                _ => None,
            },
            Signature::Convert => match (combo.target_type, of_type(rng, t, &defined)) {
                (Some(to), Some(x)) => b.convert(x, to).ok(),
                _ => None,
            },
            // Not chainable (see `chainable`).
            _ => None,
        };
        let Some(i) = made else { continue };
        let shape = b.shape(i).map_err(bug)?.clone();
        let Some(array) = shape.as_array() else {
            return Err(bug(format!("graph: `{}` made a non-array", op.id)));
        };
        let layout = shapes::layout(rng, &array.dimensions, &config.shapes);
        b.set_layout(i, layout).map_err(bug)?;
        defined.push((i, array.element_type));
        root = Some(i);
        built += 1;
    }
    let root =
        root.ok_or_else(|| GraphError::Unchainable("graph: no instruction could be built".into()))?;
    if built < MIN_INSTRUCTIONS {
        return Err(GraphError::Unchainable(format!(
            "graph: only {built} instruction(s) could be chained"
        )));
    }
    let computation = b.build(root);
    let module = super::with_tuple_root(
        HloModule::with_entry(&module_name(&format!("graph_{index}")), computation, vec![]),
        config,
    );
    conformance_spec::shape_inference::verify_module(&module).map_err(|e| {
        bug(format!(
            "graph generator built an invalid module (seed {seed}, case {index}): {e}"
        ))
    })?;
    Ok(Case {
        seed,
        index,
        op_id: "graph".into(),
        row: "graph".into(),
        element_type: ty,
        target_type: None,
        module,
        args,
    })
}

fn parameter(
    b: &mut ComputationBuilder,
    rng: &mut Rng,
    config: &GeneratorConfig,
    ty: ElementType,
    dims: &[i64],
    args: &mut Vec<Literal>,
) -> Result<usize, GraphError> {
    let layout = shapes::layout(rng, dims, &config.shapes);
    let shape = ArrayShape::new(ty, dims.to_vec()).with_layout(layout);
    let bits: Vec<u128> = (0..shape.element_count())
        .map(|_| values::element(rng, ty, &ValueHints::default(), &config.values))
        .collect();
    let lit = ArrayLiteral::from_bits(shape.clone(), &bits).map_err(bug)?;
    args.push(lit.into());
    b.parameter(Shape::Array(shape)).map_err(bug)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{plan, Filters};

    #[test]
    fn graphs_are_valid_deep_and_varied() {
        let catalog = Catalog::builtin().unwrap();
        let combos = plan(&catalog, &Filters::default()).unwrap();
        let config = GeneratorConfig::default();
        let mut sizes = Vec::new();
        let mut opcodes = std::collections::HashSet::new();
        for i in 0..200 {
            let mut rng = Rng::for_case(3, i);
            let case = build_case(&catalog, &combos, &config, &mut rng, 3, i).unwrap();
            let entry = case.module.entry_computation();
            let n = entry
                .instructions
                .iter()
                .filter(|i| i.opcode != Opcode::Parameter)
                .count();
            assert!((MIN_INSTRUCTIONS..=MAX_INSTRUCTIONS).contains(&n), "{n}");
            assert_eq!(
                case.args.len(),
                case.module.entry_computation().parameters().len()
            );
            sizes.push(n);
            for ins in &entry.instructions {
                opcodes.insert(ins.opcode);
            }
        }
        assert!(sizes.iter().any(|&n| n >= 10), "{sizes:?}");
        assert!(opcodes.len() >= 20, "{}", opcodes.len());
    }
}
