//! Dynamic values (seed 004, SetDimensionSize and GetDimensionSize): a parameter given runtime
//! sizes in one or two dimensions (sometimes set twice), then up to four data-movement or
//! element-wise steps on the dynamic value, then the value itself, its size, or both in a tuple.
//! The steps are drawn so that they are valid for the runtime sizes drawn: the sizes are known
//! while the case is built, and each step's logical result comes from the catalog's rules
//! ([`conformance_spec::dynamic_dimensions::logical_form`]), the same rules the backends run.
//! Result dimensions whose runtime size differs from the bound are marked `<=` in HLO text.

use super::{array, ints, Gen};
use conformance_spec::dynamic_dimensions::{logical_form, OperandSizes};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{AttrValue, Attribute, HloInstruction, Opcode, PaddingDim, SliceDim};
use conformance_spec::shape::{ArrayShape, Shape};

/// A value being built: its instruction, static bound and runtime sizes.
struct Dynamic {
    id: usize,
    bound: Vec<i64>,
    logical: Vec<i64>,
}

/// Builds the case; `size_root`: the root is a `get-dimension-size` (the GetDimensionSize
/// entry), else the value, or a tuple of the value and one of its sizes.
pub(super) fn chain(g: &mut Gen, ty: ElementType, size_root: bool) -> Result<usize, String> {
    let dims = g.dims(1);
    let x = g.data(ty, &dims)?;
    let mut v = Dynamic {
        id: x,
        logical: dims.clone(),
        bound: dims,
    };
    for _ in 0..1 + g.rng.below(3) {
        v = set_size(g, ty, v)?;
    }
    for _ in 0..g.rng.below(5) {
        v = step(g, ty, v)?;
    }
    let size_of = |g: &mut Gen, v: &Dynamic| -> Result<usize, String> {
        let d = g.rng.below(v.bound.len().max(1) as u64) as i64;
        g.add(
            Opcode::GetDimensionSize,
            array(ElementType::S32, &[]),
            vec![v.id],
            vec![ints("dimensions", &[d])],
        )
    };
    if v.bound.is_empty() {
        return Ok(v.id);
    }
    if size_root {
        return size_of(g, &v);
    }
    if g.rng.chance(0.7) {
        return Ok(v.id);
    }
    let s = size_of(g, &v)?;
    let shapes = vec![
        g.b.shape(v.id).map_err(|e| e.to_string())?.clone(),
        array(ElementType::S32, &[]),
    ];
    g.add(Opcode::Tuple, Shape::Tuple(shapes), vec![v.id, s], vec![])
}

/// `set-dimension-size` of a random dimension to a random size in `[0, bound]`.
fn set_size(g: &mut Gen, ty: ElementType, v: Dynamic) -> Result<Dynamic, String> {
    if v.bound.is_empty() {
        return Ok(v);
    }
    let d = g.rng.below(v.bound.len() as u64) as usize;
    let size = g.rng.range_i64(0, v.bound[d]);
    let s = g.index_param(ElementType::S32, &[], &[size as i128])?;
    let mut logical = v.logical.clone();
    logical[d] = size;
    let mut shape = marked(ty, &v.bound, &logical);
    shape.dynamic_dimensions[d] = true;
    let id = g.add(
        Opcode::SetDimensionSize,
        Shape::Array(shape),
        vec![v.id, s],
        vec![ints("dimensions", &[d as i64])],
    )?;
    Ok(Dynamic {
        id,
        bound: v.bound,
        logical,
    })
}

/// The bound shape with `<=` on the dimensions whose runtime size is below the bound.
fn marked(ty: ElementType, bound: &[i64], logical: &[i64]) -> ArrayShape {
    let mut s = ArrayShape::new(ty, bound.to_vec());
    for (d, flag) in s.dynamic_dimensions.iter_mut().enumerate() {
        *flag = logical[d] < bound[d];
    }
    s
}

/// One step on `v`: transpose, reverse, copy, broadcast, concatenate with itself, pad, slice,
/// flatten, dynamic-slice, or select against a static array.
fn step(g: &mut Gen, ty: ElementType, v: Dynamic) -> Result<Dynamic, String> {
    let rank = v.bound.len();
    if rank == 0 {
        return Ok(v);
    }
    let mut extra = Vec::new(); // further operands after v
    let (opcode, bound, attributes): (Opcode, Vec<i64>, Vec<Attribute>) = match g.rng.below(10) {
        0 => {
            let perm = g.rng.permutation(rank);
            let bound = perm.iter().map(|&p| v.bound[p as usize]).collect();
            (Opcode::Transpose, bound, vec![ints("dimensions", &perm)])
        }
        1 => {
            let dims: Vec<i64> = (0..rank as i64).filter(|_| g.rng.chance(0.5)).collect();
            (
                Opcode::Reverse,
                v.bound.clone(),
                vec![ints("dimensions", &dims)],
            )
        }
        2 => (Opcode::Copy, v.bound.clone(), vec![]),
        3 if rank < 4 => {
            let mut bound = vec![g.rng.range_i64(1, 3)];
            bound.extend(&v.bound);
            let mapping: Vec<i64> = (1..=rank as i64).collect();
            (Opcode::Broadcast, bound, vec![ints("dimensions", &mapping)])
        }
        4 => {
            extra.push(v.id);
            let d = g.rng.below(rank as u64) as usize;
            let mut bound = v.bound.clone();
            bound[d] *= 2;
            (
                Opcode::Concatenate,
                bound,
                vec![ints("dimensions", &[d as i64])],
            )
        }
        5 => {
            let z = g.data(ty, &[])?;
            extra.push(z);
            let config: Vec<PaddingDim> = (0..rank)
                .map(|_| PaddingDim {
                    low: g.rng.range_i64(0, 2),
                    high: g.rng.range_i64(0, 2),
                    interior: g.rng.range_i64(0, 1),
                })
                .collect();
            let bound = v
                .bound
                .iter()
                .zip(&config)
                .map(|(&n, p)| p.low + p.high + n + (n - 1).max(0) * p.interior)
                .collect();
            let attr = Attribute {
                name: "padding".into(),
                value: AttrValue::Padding(config),
            };
            (Opcode::Pad, bound, vec![attr])
        }
        6 => {
            let dims: Vec<SliceDim> = v
                .bound
                .iter()
                .map(|&n| {
                    let start = g.rng.range_i64(0, n);
                    let limit = g.rng.range_i64(start, n);
                    SliceDim {
                        start,
                        limit,
                        stride: g.rng.range_i64(1, 3),
                    }
                })
                .collect();
            let bound = dims
                .iter()
                .map(|s| (s.limit - s.start + s.stride - 1) / s.stride)
                .collect();
            let attr = Attribute {
                name: "slice".into(),
                value: AttrValue::Slice(dims),
            };
            (Opcode::Slice, bound, vec![attr])
        }
        7 => (Opcode::Reshape, vec![v.bound.iter().product()], vec![]),
        8 if v.logical.iter().all(|&n| n > 0) => {
            // Per dimension the whole bound (the runtime size follows) or a window that fits
            // the runtime size; start indices anywhere (clamped against the runtime size).
            let sizes: Vec<i64> = v
                .bound
                .iter()
                .zip(&v.logical)
                .map(|(&b, &n)| {
                    if g.rng.chance(0.4) {
                        b
                    } else {
                        g.rng.range_i64(1, n)
                    }
                })
                .collect();
            let index_type = g.index_type();
            for (&n, &s) in v.logical.iter().zip(&sizes) {
                let start = g.start_index(n, s.min(n));
                let i = g.index_param(index_type, &[], &[start])?;
                extra.push(i);
            }
            (
                Opcode::DynamicSlice,
                sizes.clone(),
                vec![ints("dynamic_slice_sizes", &sizes)],
            )
        }
        _ => {
            // select(mask, v, static): the static operand's bound meets v's runtime sizes.
            let mask = g.data(ElementType::Pred, &v.bound)?;
            let other = g.data(ty, &v.bound)?;
            let bound = v.bound.clone();
            return add_step(
                g,
                ty,
                &v,
                Opcode::Select,
                bound,
                vec![mask, VALUE, other],
                vec![],
            );
        }
    };
    let mut operands = vec![VALUE];
    operands.extend(extra);
    add_step(g, ty, &v, opcode, bound, operands, attributes)
}

/// Stands for the dynamic value among a step's operands.
const VALUE: usize = usize::MAX;

/// Adds the step `opcode(operands)` (with [`VALUE`] for `v`) of result bound `bound`: its runtime
/// sizes come from the catalog's rules, and its declared shape is marked accordingly.
fn add_step(
    g: &mut Gen,
    ty: ElementType,
    v: &Dynamic,
    opcode: Opcode,
    bound: Vec<i64>,
    operands: Vec<usize>,
    attributes: Vec<Attribute>,
) -> Result<Dynamic, String> {
    let operands: Vec<usize> = operands
        .into_iter()
        .map(|o| if o == VALUE { v.id } else { o })
        .collect();
    let shapes: Vec<ArrayShape> = operands
        .iter()
        .map(|&o| match g.b.shape(o) {
            Ok(Shape::Array(a)) => Ok(a.clone()),
            _ => Err(format!("operand #{o} is not an array")),
        })
        .collect::<Result<_, _>>()?;
    let sizes: Vec<OperandSizes> = operands
        .iter()
        .zip(&shapes)
        .map(|(&o, b)| OperandSizes {
            bound: b,
            logical: if o == v.id { &v.logical } else { &b.dimensions },
        })
        .collect();
    let probe = HloInstruction {
        name: "step".into(),
        opcode,
        shape: Shape::Array(ArrayShape::new(ty, bound.clone())),
        operands: vec![],
        parameter_number: None,
        literal: None,
        attributes: attributes.clone(),
    };
    let form = logical_form(&probe, &sizes).map_err(|e| format!("{opcode}: {e}"))?;
    let logical = form
        .instruction
        .shape
        .as_array()
        .ok_or("the logical result is not an array")?
        .dimensions
        .clone();
    let id = g.add(
        opcode,
        Shape::Array(marked(ty, &bound, &logical)),
        operands,
        attributes,
    )?;
    Ok(Dynamic { id, bound, logical })
}

#[cfg(test)]
mod tests {
    use super::super::build;
    use crate::generate::elementwise::CaseSpec;
    use crate::generate::rng::Rng;
    use crate::generate::shapes::ShapeConfig;
    use crate::generate::values::ValueClass;
    use conformance_spec::catalog::Catalog;
    use conformance_spec::hlo::Opcode;
    use conformance_spec::literal::Literal;
    use std::collections::BTreeSet;

    /// The chains reach every step, and their results are mostly dynamic values whose runtime
    /// sizes the reference reports.
    #[test]
    fn chains_carry_runtime_sizes_through_every_step() {
        let catalog = Catalog::builtin().unwrap();
        let op = catalog.op("set-dimension-size").unwrap();
        let reference = crate::backends::by_name("reference").unwrap();
        let shapes = ShapeConfig::default();
        let (mut dynamic, mut total) = (0, 0);
        let mut seen = BTreeSet::new();
        for seed in 0..300u64 {
            let spec = CaseSpec {
                op,
                element_type: conformance_spec::ElementType::F32,
                target_type: None,
                shapes: &shapes,
                values: &ValueClass::ALL,
            };
            let case = build(&mut Rng::new(seed), &spec).unwrap();
            for i in &case.module.entry_computation().instructions {
                seen.insert(i.opcode);
            }
            let out = reference.execute(&case.module, &case.args).unwrap();
            let root = match &out {
                Literal::Tuple(items) => &items[0],
                other => other,
            };
            total += 1;
            dynamic += usize::from(root.as_array().unwrap().runtime_dimensions().is_some());
        }
        for op in [
            Opcode::Transpose,
            Opcode::Reverse,
            Opcode::Copy,
            Opcode::Broadcast,
            Opcode::Concatenate,
            Opcode::Pad,
            Opcode::Slice,
            Opcode::Reshape,
            Opcode::DynamicSlice,
            Opcode::Select,
            Opcode::Tuple,
            Opcode::GetDimensionSize,
        ] {
            assert!(seen.contains(&op), "{op} never generated");
        }
        assert!(
            dynamic * 2 > total,
            "only {dynamic} of {total} results are dynamic"
        );
    }
}
