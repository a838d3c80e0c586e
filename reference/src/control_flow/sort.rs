//! `sort` (seed 004, Sort): N arrays of equal dimensions sorted together along one dimension by a
//! comparator computation of 2·N scalars, exactly: a stable merge sort that asks the comparator
//! (evaluated exactly) whether the right-hand tuple is less than the left-hand one. A stable
//! result is also one an unstable sort may give, so it serves both values of `is_stable`.

use super::computation_attr;
use super::scalar::ScalarFn;
use crate::interpreter::{array, invalid, Context};
use conformance_spec::hlo::{HloInstruction, HloModule};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::{BackendError, ElementType};

/// A sort comparator of a module, ready to evaluate on element bits (the reference's exact
/// evaluation; the harness's order-set oracle asks it about a backend's result).
pub struct Comparator<'m> {
    module: &'m HloModule,
    f: ScalarFn,
    operands: usize,
    /// Per operand: whether the comparator reads either of its two parameters.
    reads: Vec<bool>,
}

impl<'m> Comparator<'m> {
    /// The comparator `name` of `module` for operands of element types `operand_types` (it takes
    /// 2·N scalars: parameters 2k and 2k+1 of `operand_types[k]`) and returns `pred[]`.
    ///
    /// Errors: [`BackendError::Invalid`] when the computation is missing or has another
    /// signature.
    pub fn new(
        module: &'m HloModule,
        name: &str,
        operand_types: &[ElementType],
    ) -> Result<Comparator<'m>, BackendError> {
        let types: Vec<ElementType> = operand_types.iter().flat_map(|&t| [t, t]).collect();
        let ctx = Context {
            module,
            args: &[],
            depth: 0,
            device: conformance_spec::collective::Device::single(),
        };
        let f = ScalarFn::new(&ctx, name, &types)?;
        if f.result_type() != ElementType::Pred {
            return invalid(format!(
                "the comparator `{name}` returns {}, not pred[]",
                f.result_type()
            ));
        }
        // `ScalarFn::new` found the computation; a parameter is read when an instruction takes
        // it as an operand or it is the root.
        let computation = module.computation(name);
        let read = |number: usize| {
            computation.is_some_and(|c| {
                c.instructions.iter().enumerate().any(|(i, p)| {
                    p.parameter_number == Some(number as i64)
                        && (c.root == i || c.instructions.iter().any(|u| u.operands.contains(&i)))
                })
            })
        };
        Ok(Comparator {
            module,
            f,
            operands: operand_types.len(),
            reads: (0..operand_types.len())
                .map(|k| read(2 * k) || read(2 * k + 1))
                .collect(),
        })
    }

    /// Whether the comparator reads operand `k` (parameter `2k` or `2k+1`): an operand it does
    /// not read is carried along by the sort without deciding the order.
    pub fn reads(&self, k: usize) -> bool {
        self.reads.get(k).copied().unwrap_or(false)
    }

    /// The comparator's value for the tuples `lhs` and `rhs` (one element's bits per operand):
    /// true when `lhs` goes before `rhs`.
    ///
    /// Errors: the comparator's errors.
    pub fn less(&self, lhs: &[u128], rhs: &[u128]) -> Result<bool, BackendError> {
        let mut args = Vec::with_capacity(2 * self.operands);
        for k in 0..self.operands {
            args.push(lhs[k]);
            args.push(rhs[k]);
        }
        let ctx = Context {
            module: self.module,
            args: &[],
            depth: 0,
            device: conformance_spec::collective::Device::single(),
        };
        Ok(self.f.apply(&ctx, &args)? != 0)
    }
}

/// The multi-indices of every segment of an array of `dimensions` sorted along `dimension`: one
/// list per combination of the other indices (in row-major order), each in increasing position
/// along `dimension`.
pub fn segments(dimensions: &[i64], dimension: usize) -> Vec<Vec<Vec<i64>>> {
    let mut outer_dims = dimensions.to_vec();
    let n = outer_dims.get(dimension).copied().unwrap_or(0);
    if dimension < outer_dims.len() {
        outer_dims[dimension] = 1;
    }
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    index::for_each_index(&outer_dims, |outer| {
        out.push(
            (0..n)
                .map(|p| {
                    let mut i = outer.to_vec();
                    i[dimension] = p;
                    i
                })
                .collect(),
        );
    });
    out
}

/// The sorted dimension of a `sort` (`dimensions={d}`; the last when absent).
pub fn sort_dimension(instr: &HloInstruction, rank: usize) -> Result<usize, BackendError> {
    match instr.attr_ints("dimensions") {
        Some([d]) if (0..rank as i64).contains(d) => Ok(*d as usize),
        None if rank > 0 => Ok(rank - 1),
        _ => invalid(format!("sort: bad `dimensions` for rank {rank}")),
    }
}

/// The permutation a stable sort of `len` tuples makes: `order[p]` is the input position that
/// goes to position `p`. `less(i, j)` says whether tuple i goes before tuple j.
///
/// Errors: the first error of `less`.
pub fn stable_order(
    len: usize,
    less: &mut dyn FnMut(usize, usize) -> Result<bool, BackendError>,
) -> Result<Vec<usize>, BackendError> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut buffer = vec![0usize; len];
    let mut width = 1;
    while width < len {
        let mut start = 0;
        while start < len {
            let mid = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // Take from the right only when it is strictly less: equal tuples keep their order.
                if less(order[j], order[i])? {
                    buffer[k] = order[j];
                    j += 1;
                } else {
                    buffer[k] = order[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&order[i..mid]);
            k += mid - i;
            buffer[k..k + (end - j)].copy_from_slice(&order[j..end]);
            start = end;
        }
        std::mem::swap(&mut order, &mut buffer);
        width *= 2;
    }
    Ok(order)
}

/// `sort(operands...), dimensions={d}, is_stable, to_apply=comparator` (seed 004, Sort).
///
/// Errors: [`BackendError::Invalid`] for operands of different dimensions, a bad dimension or a
/// comparator of another signature; the comparator's errors.
pub(crate) fn sort(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let name = computation_attr(instr, "to_apply")?;
    let arrays: Vec<&ArrayLiteral> = (0..operands.len())
        .map(|i| array(instr, operands, i))
        .collect::<Result<_, _>>()?;
    let Some(first) = arrays.first() else {
        return invalid("sort takes at least one operand");
    };
    if arrays.iter().any(|a| a.dimensions() != first.dimensions()) {
        return invalid("sort: every operand must have the same dimensions");
    }
    let dims = first.dimensions().to_vec();
    let d = sort_dimension(instr, dims.len())?;
    let types: Vec<ElementType> = arrays.iter().map(|a| a.element_type()).collect();
    let comparator = Comparator::new(ctx.module, name, &types)?;
    let result_shapes: Vec<&Shape> = match &instr.shape {
        Shape::Tuple(parts) if arrays.len() > 1 => parts.iter().collect(),
        s => vec![s],
    };
    if result_shapes.len() != arrays.len() {
        return invalid(format!(
            "sort: {} operand(s) but the result has {} part(s)",
            arrays.len(),
            result_shapes.len()
        ));
    }
    let mut outs: Vec<ArrayLiteral> = result_shapes
        .iter()
        .zip(&arrays)
        .map(|(s, a)| match s.as_array() {
            Some(s) if s.dimensions == dims && s.element_type == a.element_type() => {
                Ok(ArrayLiteral::zeros(s.clone()))
            }
            _ => invalid(format!("sort: result part {s} does not match its operand")),
        })
        .collect::<Result<_, _>>()?;
    for segment in segments(&dims, d) {
        let tuples: Vec<Vec<u128>> = segment
            .iter()
            .map(|i| arrays.iter().map(|a| a.get_bits(i)).collect())
            .collect();
        let order = stable_order(tuples.len(), &mut |i, j| {
            comparator.less(&tuples[i], &tuples[j])
        })
        .map_err(|e| e.map_message(|m| format!("comparator `{name}`: {m}")))?;
        for (p, &from) in order.iter().enumerate() {
            for (k, out) in outs.iter_mut().enumerate() {
                out.set_bits(&segment[p], tuples[from][k]);
            }
        }
    }
    Ok(if arrays.len() == 1 {
        Literal::Array(outs.pop().expect("one operand"))
    } else {
        Literal::Tuple(outs.into_iter().map(Literal::Array).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_order_keeps_equal_keys_in_input_order() {
        let keys = [3, 1, 3, 0, 1, 3, 2];
        let order = stable_order(keys.len(), &mut |i, j| Ok(keys[i] < keys[j])).unwrap();
        assert_eq!(order, vec![3, 1, 4, 6, 0, 2, 5]);
        for n in 0..40usize {
            let keys: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % 5).collect();
            let order = stable_order(n, &mut |i, j| Ok(keys[i] < keys[j])).unwrap();
            let mut expected: Vec<usize> = (0..n).collect();
            expected.sort_by_key(|&i| keys[i]);
            assert_eq!(order, expected, "n = {n}");
        }
    }

    #[test]
    fn segments_follow_the_sorted_dimension() {
        let s = segments(&[2, 3], 0);
        assert_eq!(s.len(), 3);
        assert_eq!(s[1], vec![vec![0, 1], vec![1, 1]]);
        let s = segments(&[2, 3], 1);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1], vec![vec![1, 0], vec![1, 1], vec![1, 2]]);
        assert!(segments(&[2, 0], 1).is_empty());
    }
}
