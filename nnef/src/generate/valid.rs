//! Documents valid by construction: a flat graph of standard operations whose attributes are
//! chosen for the shapes tracked so far (NNEF 1.0.5 chapter 4 shape rules), and sometimes a
//! compositional document whose fragment definition the graph invokes.

use std::collections::BTreeMap;

use crate::ast::{Assignment, Document, Expr, GraphDefinition, TypeName};
use crate::graph::DataType;
use crate::Span;

use super::syntax::{
    assign, call, call_generic, extents, ident, int, logical, named, real, string,
};
use super::{fragments, Config, Family, RngLike};

/// A tensor the graph body has defined, with the shape and data type the standard's shape rules
/// give it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TensorInfo {
    pub name: String,
    pub dtype: DataType,
    pub shape: Vec<usize>,
}

/// The state of one document under construction.
pub(crate) struct Builder<'a, R: RngLike> {
    pub rng: &'a mut R,
    pub config: &'a Config,
    /// Every tensor defined so far, in definition order.
    pub tensors: Vec<TensorInfo>,
    /// The graph body so far.
    pub body: Vec<Assignment>,
    /// Names defined by `external`, in order (the graph's inputs).
    pub inputs: Vec<String>,
    /// Fragments defined by the document (compositional documents only).
    pub fragments: Vec<fragments::Defined>,
    counter: usize,
}

/// A document valid by construction (NNEF 1.0.5 flat syntax, or with probability
/// `config.compositional` the KHR fragment-definition and operator-expression extensions and one
/// or two fragment definitions that the graph invokes).
///
/// The graph has 1–3 externals (rank 1..=`config.max_rank`, extents 1..=`config.max_extent`,
/// mostly `scalar`, sometimes `logical` or `integer`), 1..=`config.max_operations` operations
/// of `config.families` (with `variable`s and `constant`s created as operands need them), and
/// 1–3 outputs. Both the Khronos reference parser and a conforming front end accept it.
pub fn valid_document(rng: &mut impl RngLike, config: &Config) -> Document {
    valid_document_with_shapes(rng, config).0
}

/// [`valid_document`] (the same document for the same choices), with the data type and shape
/// (extents, outermost first) that NNEF 1.0.5's shape rules give every tensor the graph body
/// names — what the generator tracked while choosing attributes.
pub fn valid_document_with_shapes(
    rng: &mut impl RngLike,
    config: &Config,
) -> (Document, BTreeMap<String, (DataType, Vec<usize>)>) {
    let mut b = Builder {
        rng,
        config,
        tensors: Vec::new(),
        body: Vec::new(),
        inputs: Vec::new(),
        fragments: Vec::new(),
        counter: 0,
    };
    let compositional = b.rng.chance(config.compositional);
    let externals = 1 + b.rng.index(3);
    for i in 0..externals {
        // The first external is always scalar, so that every family has an operand.
        let dtype = if i == 0 {
            DataType::Scalar
        } else {
            match b.rng.index(10) {
                0 => DataType::Logical,
                1 => DataType::Integer,
                _ => DataType::Scalar,
            }
        };
        let rank = b.rng.range(1, config.max_rank.max(1) as i64) as usize;
        let shape = b.random_shape(rank);
        b.external(dtype, &shape);
    }
    if compositional {
        fragments::define(&mut b);
    }
    let wanted = b.rng.range(1, config.max_operations.max(1) as i64) as usize;
    let mut done = 0;
    let mut attempts = 0;
    while done < wanted && attempts < 40 * wanted {
        attempts += 1;
        let ok = if !b.fragments.is_empty() && b.rng.chance(0.3) {
            fragments::invoke(&mut b)
        } else {
            let families = if config.families.is_empty() {
                &Family::ALL[..]
            } else {
                &config.families[..]
            };
            let family = families[b.rng.index(families.len())];
            b.try_family(family)
        };
        if ok {
            done += 1;
        }
    }
    if compositional
        && !b.fragments.is_empty()
        && !b.body.iter().any(|a| fragments::invokes_defined(&b, a))
    {
        fragments::invoke(&mut b);
        done += 1;
    }
    if done == 0 {
        // Always possible: the first external is scalar.
        let x = b.tensors[0].clone();
        b.op(
            "copy",
            vec![super::syntax::pos(ident(&x.name))],
            DataType::Scalar,
            x.shape,
        );
    }
    let outputs = b.choose_outputs();
    let extensions = if compositional {
        vec![
            (
                "KHR_enable_fragment_definitions".to_string(),
                Span::default(),
            ),
            (
                "KHR_enable_operator_expressions".to_string(),
                Span::default(),
            ),
        ]
    } else {
        Vec::new()
    };
    let name = ["G", "net", "main_graph", "model"][b.rng.index(4)].to_string();
    let shapes = b
        .tensors
        .iter()
        .map(|t| (t.name.clone(), (t.dtype, t.shape.clone())))
        .collect();
    let doc = Document {
        version: (1, 0),
        version_span: Span::default(),
        extensions,
        fragments: b.fragments.iter().map(|f| f.fragment.clone()).collect(),
        graph: GraphDefinition {
            name,
            inputs: b
                .inputs
                .iter()
                .map(|n| (n.clone(), Span::default()))
                .collect(),
            outputs: outputs.into_iter().map(|n| (n, Span::default())).collect(),
            body: b.body,
            span: Span::default(),
        },
    };
    (doc, shapes)
}

impl<R: RngLike> Builder<'_, R> {
    /// A new identifier `prefix<k>` (unique in the document; never a Khronos generated name).
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// `rank` extents in 1..=max_extent.
    pub fn random_shape(&mut self, rank: usize) -> Vec<usize> {
        (0..rank)
            .map(|_| self.rng.range(1, self.config.max_extent.max(1) as i64) as usize)
            .collect()
    }

    /// A random defined tensor satisfying `pred`.
    pub fn pick(&mut self, pred: impl Fn(&TensorInfo) -> bool) -> Option<TensorInfo> {
        let candidates: Vec<&TensorInfo> = self.tensors.iter().filter(|t| pred(t)).collect();
        if candidates.is_empty() {
            None
        } else {
            // Favour recent tensors, so that graphs grow deep rather than wide.
            let n = candidates.len();
            let i = if self.rng.chance(0.5) {
                n - 1 - self.rng.index(n.min(3))
            } else {
                self.rng.index(n)
            };
            Some(candidates[i].clone())
        }
    }

    /// A random defined scalar tensor with `min_rank <= rank <= max_rank`.
    pub fn pick_scalar(&mut self, min_rank: usize, max_rank: usize) -> Option<TensorInfo> {
        self.pick(|t| t.dtype == DataType::Scalar && (min_rank..=max_rank).contains(&t.shape.len()))
    }

    /// Records the tensor `name`.
    pub fn define(&mut self, name: &str, dtype: DataType, shape: Vec<usize>) {
        self.tensors.push(TensorInfo {
            name: name.to_string(),
            dtype,
            shape,
        });
    }

    /// `name = external<T>(shape = [...]);`, a graph input.
    pub fn external(&mut self, dtype: DataType, shape: &[usize]) -> String {
        let name = self.fresh("input");
        let args = vec![named("shape", extents(shape))];
        let rhs = match dtype {
            DataType::Scalar if self.rng.chance(0.5) => call("external", args),
            _ => call_generic("external", type_name(dtype), args),
        };
        self.body.push(assign(ident(&name), rhs));
        self.inputs.push(name.clone());
        self.define(&name, dtype, shape.to_vec());
        name
    }

    /// `name = variable(shape = [...], label = '...');` (scalar).
    pub fn variable(&mut self, shape: &[usize]) -> String {
        let name = self.fresh("v");
        let label = if self.rng.chance(0.5) {
            format!("weights/{name}")
        } else {
            name.clone()
        };
        let rhs = call(
            "variable",
            vec![
                named("shape", extents(shape)),
                named("label", string(&label)),
            ],
        );
        self.body.push(assign(ident(&name), rhs));
        self.define(&name, DataType::Scalar, shape.to_vec());
        name
    }

    /// `name = constant<T>(shape = [...], value = [...]);` with one value or one per element.
    pub fn constant(&mut self, dtype: DataType, shape: &[usize]) -> String {
        let name = self.fresh("c");
        let volume: usize = shape.iter().product();
        let count = if volume <= 6 && self.rng.chance(0.5) {
            volume
        } else {
            1
        };
        let values: Vec<Expr> = (0..count).map(|_| self.literal_of(dtype)).collect();
        let args = vec![
            named("shape", extents(shape)),
            named("value", super::syntax::array(values)),
        ];
        let rhs = match dtype {
            DataType::Scalar if self.rng.chance(0.5) => call("constant", args),
            _ => call_generic("constant", type_name(dtype), args),
        };
        self.body.push(assign(ident(&name), rhs));
        self.define(&name, dtype, shape.to_vec());
        name
    }

    /// A scalar tensor of exactly `shape`: an existing one, a new variable or a new constant.
    pub fn operand_of_shape(&mut self, shape: &[usize]) -> String {
        if self.rng.chance(0.3) {
            if let Some(t) = self.pick(|t| t.dtype == DataType::Scalar && t.shape == shape) {
                return t.name;
            }
        }
        if self.rng.chance(0.7) {
            self.variable(shape)
        } else {
            self.constant(DataType::Scalar, shape)
        }
    }

    /// A literal of the data type: small reals, integers, or truth values.
    pub fn literal_of(&mut self, dtype: DataType) -> Expr {
        match dtype {
            DataType::Scalar => real(self.real_value()),
            DataType::Integer => int(self.rng.range(-3, 5)),
            DataType::Logical => logical(self.rng.chance(0.5)),
        }
    }

    /// A small real: exactly representable in binary32, positive or negative.
    pub fn real_value(&mut self) -> f64 {
        const VALUES: [f64; 10] = [0.0, 1.0, 0.5, 2.0, -1.0, 0.25, 3.0, -0.5, 1e-5, 10.0];
        VALUES[self.rng.index(VALUES.len())]
    }

    /// Emits `t = rhs;` for an operation with one result and records the result tensor.
    pub fn op(
        &mut self,
        _fragment: &str,
        arguments: Vec<crate::ast::Argument>,
        dtype: DataType,
        shape: Vec<usize>,
    ) -> String {
        let rhs = call(_fragment, arguments);
        self.op_expr(rhs, dtype, shape)
    }

    /// Emits `t = rhs;` for any one-result right side and records the result tensor.
    pub fn op_expr(&mut self, rhs: Expr, dtype: DataType, shape: Vec<usize>) -> String {
        let name = self.fresh("t");
        self.body.push(assign(ident(&name), rhs));
        self.define(&name, dtype, shape);
        name
    }

    fn try_family(&mut self, family: Family) -> bool {
        match family {
            Family::Elementwise => self.try_elementwise(),
            Family::Reduction => self.try_reduction(),
            Family::Shape => self.try_shape_op(),
            Family::Window => self.try_window_op(),
            Family::Linear => self.try_linear(),
        }
    }

    /// 1–3 distinct outputs, never an input (the Khronos parser rejects a graph whose
    /// declaration names one identifier both as parameter and as result); the last defined
    /// tensor is always one.
    fn choose_outputs(&mut self) -> Vec<String> {
        let candidates: Vec<String> = self
            .tensors
            .iter()
            .map(|t| t.name.clone())
            .filter(|n| !self.inputs.contains(n))
            .collect();
        let Some(last) = candidates.last().cloned() else {
            return self.inputs[..1].to_vec();
        };
        let mut outputs = vec![last];
        let extra = self.rng.index(3);
        for _ in 0..extra {
            let name = candidates[self.rng.index(candidates.len())].clone();
            if !outputs.contains(&name) {
                outputs.push(name);
            }
        }
        outputs
    }
}

/// The NNEF type name of a tensor data type.
pub(crate) fn type_name(dtype: DataType) -> TypeName {
    match dtype {
        DataType::Scalar => TypeName::Scalar,
        DataType::Integer => TypeName::Integer,
        DataType::Logical => TypeName::Logical,
    }
}

/// The broadcast of two shapes aligned from the left (missing trailing extents are 1), or
/// `None` when some pair of extents differs and neither is 1 (NNEF 1.0.5 §4.3 binary operations).
pub(crate) fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let (x, y) = (
                a.get(i).copied().unwrap_or(1),
                b.get(i).copied().unwrap_or(1),
            );
            if x == y || y == 1 {
                Some(x)
            } else if x == 1 {
                Some(y)
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Config, SplitMix64};
    use crate::printer::print_document;

    #[test]
    fn broadcast_aligns_from_the_left() {
        assert_eq!(broadcast(&[1, 64, 5, 5], &[1, 64]), Some(vec![1, 64, 5, 5]));
        assert_eq!(broadcast(&[2, 1], &[1, 3, 4]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[2, 3], &[3]), None);
    }

    #[test]
    fn documents_are_deterministic_and_well_formed() {
        let config = Config::default();
        for seed in 0..200 {
            let a = valid_document(&mut SplitMix64::new(seed), &config);
            let b = valid_document(&mut SplitMix64::new(seed), &config);
            assert_eq!(a, b);
            let g = &a.graph;
            assert!(!g.inputs.is_empty() && !g.outputs.is_empty() && !g.body.is_empty());
            // Every identifier is assigned once, and before it is read.
            let mut defined = std::collections::BTreeSet::new();
            for assignment in &g.body {
                let mut used = Vec::new();
                super::super::syntax::used_names(&assignment.rhs, &mut used);
                for u in used {
                    assert!(
                        defined.contains(&u),
                        "seed {seed}: {u} read before definition"
                    );
                }
                let mut bound = Vec::new();
                super::super::syntax::bound_names(&assignment.lhs, &mut bound);
                for n in bound {
                    assert!(defined.insert(n.clone()), "seed {seed}: {n} assigned twice");
                }
            }
            for (o, _) in &g.outputs {
                assert!(defined.contains(o), "seed {seed}: output {o} undefined");
            }
            assert!(!print_document(&a).is_empty());
        }
    }

    #[test]
    fn all_zero_choices_give_a_small_document() {
        let doc = valid_document(
            &mut crate::generate::Choices::new(vec![]),
            &Config::default(),
        );
        assert_eq!(doc.graph.inputs.len(), 1);
        assert!(doc.graph.body.len() >= 2);
    }
}
