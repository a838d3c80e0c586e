//! Swarm configuration (Groce et al., "Swarm Testing", ISSTA 2012): each sweep enables a random
//! subset of operations, element types, layout features and value classes, so that features
//! which mask one another (NaN inputs hiding a rounding bug, padding hiding a layout bug) are
//! switched off in some sweeps. In the spirit of wasm-smith's `Config: Arbitrary`, a
//! configuration is itself drawn from a choice source — a seed for `conformance run --swarm`,
//! fuzzer bytes for the fuzz targets.

use super::rng::Rng;
use super::values::ValueClass;
use super::{Combo, GeneratorConfig};
use conformance_spec::catalog::Catalog;
use conformance_spec::element_type::ElementType;
use std::fmt;

/// The features one sweep enables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwarmConfig {
    /// Enabled catalog ids (among those the filters select); never empty.
    pub ops: Vec<String>,
    /// Enabled element types; never empty.
    pub element_types: Vec<ElementType>,
    pub permuted_layouts: bool,
    pub padding: bool,
    pub zero_sized: bool,
    /// Enabled value classes; never empty.
    pub values: Vec<ValueClass>,
    /// Some operands passed as constants ([`super::ConstantOperands::Some`]).
    pub constant_operands: bool,
    /// Entry roots wrapped in a tuple ([`super::GeneratorConfig::tuple_root`]).
    pub tuple_root: bool,
}

impl SwarmConfig {
    /// Draws a configuration over the combos a sweep's filters select: each operation, element
    /// type, layout feature and value class is enabled with probability ½ (at least one of each
    /// list stays enabled).
    pub fn draw(rng: &mut Rng, catalog: &Catalog, combos: &[Combo]) -> SwarmConfig {
        let mut ops: Vec<String> = Vec::new();
        let mut types: Vec<ElementType> = Vec::new();
        for c in combos {
            let id = &catalog.ops()[c.op_index].id;
            if !ops.contains(id) {
                ops.push(id.clone());
            }
            if !types.contains(&c.element_type) {
                types.push(c.element_type);
            }
        }
        types.sort();
        let ops = subset(rng, &ops);
        // Only the types the chosen operations accept can be drawn.
        let usable: Vec<ElementType> = types
            .into_iter()
            .filter(|t| {
                combos
                    .iter()
                    .any(|c| c.element_type == *t && ops.contains(&catalog.ops()[c.op_index].id))
            })
            .collect();
        SwarmConfig {
            ops,
            element_types: subset(rng, &usable),
            permuted_layouts: rng.chance(0.5),
            padding: rng.chance(0.5),
            zero_sized: rng.chance(0.5),
            values: subset(rng, &ValueClass::ALL),
            constant_operands: rng.chance(0.5),
            // Drawn last: the features above stay what they were for every seed.
            tuple_root: rng.chance(0.5),
        }
    }

    /// The configuration of `conformance run --swarm --seed S` (a pure function of the seed and the
    /// filtered combos).
    pub fn from_seed(seed: u64, catalog: &Catalog, combos: &[Combo]) -> SwarmConfig {
        SwarmConfig::draw(&mut Rng::new(seed ^ 0x5741_524d_5741_524d), catalog, combos)
    }

    /// Keeps the combos this configuration enables.
    pub fn restrict(&self, catalog: &Catalog, combos: &mut Vec<Combo>) {
        combos.retain(|c| {
            self.ops.contains(&catalog.ops()[c.op_index].id)
                && self.element_types.contains(&c.element_type)
        });
    }

    /// `base` with this configuration's layout features and value classes.
    pub fn apply(&self, base: &GeneratorConfig) -> GeneratorConfig {
        let mut config = base.clone();
        config.shapes.permuted_layouts &= self.permuted_layouts;
        config.shapes.padding &= self.padding;
        config.shapes.zero_sized &= self.zero_sized;
        config.values.retain(|v| self.values.contains(v));
        if config.values.is_empty() {
            config.values = self.values.clone();
        }
        if self.constant_operands && config.constant_operands == super::ConstantOperands::Off {
            config.constant_operands = super::ConstantOperands::Some;
        }
        config.tuple_root |= self.tuple_root;
        config.swarm = Some(self.clone());
        config
    }
}

/// A random non-empty subset (each item with probability ½; the first item when none was kept).
fn subset<T: Clone>(rng: &mut Rng, items: &[T]) -> Vec<T> {
    let mut out: Vec<T> = items.iter().filter(|_| rng.chance(0.5)).cloned().collect();
    if out.is_empty() {
        if let Some(first) = items.first() {
            out.push(first.clone());
        }
    }
    out
}

impl fmt::Display for SwarmConfig {
    /// `ops=add,exponential types=f32,bf16 layouts=permuted,padded,zero-sized values=special,tie`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let types: Vec<&str> = self.element_types.iter().map(|t| t.hlo_name()).collect();
        let mut layouts = Vec::new();
        if self.permuted_layouts {
            layouts.push("permuted");
        }
        if self.padding {
            layouts.push("padded");
        }
        if self.zero_sized {
            layouts.push("zero-sized");
        }
        if layouts.is_empty() {
            layouts.push("default");
        }
        let values: Vec<&str> = self.values.iter().map(|v| v.name()).collect();
        write!(
            f,
            "ops={} types={} layouts={} values={}{}{}",
            self.ops.join(","),
            types.join(","),
            layouts.join(","),
            values.join(","),
            if self.constant_operands {
                " constants=some"
            } else {
                ""
            },
            if self.tuple_root { " tuple_root" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{plan, Filters};

    #[test]
    fn swarms_are_deterministic_non_empty_subsets_and_differ_between_seeds() {
        let catalog = Catalog::builtin().unwrap();
        let combos = plan(&catalog, &Filters::default()).unwrap();
        let a = SwarmConfig::from_seed(1, &catalog, &combos);
        assert_eq!(a, SwarmConfig::from_seed(1, &catalog, &combos));
        let mut distinct = std::collections::HashSet::new();
        for seed in 0..20 {
            let s = SwarmConfig::from_seed(seed, &catalog, &combos);
            assert!(!s.ops.is_empty() && !s.element_types.is_empty() && !s.values.is_empty());
            let mut restricted = combos.clone();
            s.restrict(&catalog, &mut restricted);
            assert!(!restricted.is_empty(), "{s}");
            assert!(restricted.len() < combos.len());
            distinct.insert(s.to_string());
        }
        assert!(distinct.len() >= 19);
        // Applying it switches layout features and value classes off, never on (it can turn
        // constant operands and tuple roots on).
        let mut base = GeneratorConfig::default();
        base.shapes.padding = false;
        let c = a.apply(&base);
        assert!(!c.shapes.padding);
        assert!(c.values.iter().all(|v| a.values.contains(v)));
        assert_eq!(c.swarm.as_ref(), Some(&a));
    }
}
