//! Every result scatter's semantics allow when indices repeat (seed 004, Scatter: "the order in
//! which updates are applied is non-deterministic"): for each output element that several update
//! elements reach, the set of values that applying them in *some* order produces, as an
//! [`Allowance::AnyOf`].
//!
//! The reference gives the steps (which update element reaches which output element) and
//! evaluates the update computation; the orders are explored over subsets (the value after
//! applying a subset S of the updates, for every order of S, is the update computation applied to
//! a value of S∖{u} and update u), so k colliding updates cost 2^k·k evaluations per distinct
//! intermediate value rather than k!. Elements reached by more than [`MAX_COLLISIONS`] updates,
//! or whose orders give more than [`MAX_VALUES`] distinct intermediate values, are masked: the
//! semantics leave them too open to enumerate.

use crate::check::root_operands;
use crate::compare::Allowance;
use conformance_reference::data_movement::scatter::{apply_update_computation, scatter_schedule};
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Most updates to one element whose orders are enumerated.
pub const MAX_COLLISIONS: usize = 6;
/// Most distinct values of one subset of updates kept before the element is masked.
pub const MAX_VALUES: usize = 64;

/// Per output leaf (N for a variadic scatter), per element in row-major order: how it is
/// compared. Empty when the root is not a scatter, no two updates reach one element, or the
/// reference cannot give the steps (then the reference's own order is the only one accepted).
pub fn allowances(
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Vec<Vec<Allowance>> {
    let root = module.entry_computation().root_instruction();
    if root.opcode != Opcode::Scatter {
        return vec![];
    }
    let Some(values) = root_operands(module, args, reference) else {
        return vec![];
    };
    let n = (values.len().saturating_sub(1)) / 2;
    if n == 0 || values.len() != 2 * n + 1 {
        return vec![];
    }
    let literals: Vec<Literal> = values.iter().cloned().map(Literal::Array).collect();
    let refs: Vec<&Literal> = literals.iter().collect();
    let Ok(steps) = scatter_schedule(module, root, &refs) else {
        return vec![];
    };
    let mut reaching: BTreeMap<Vec<i64>, Vec<Vec<i64>>> = BTreeMap::new();
    for s in steps {
        reaching
            .entry(s.operand_index)
            .or_default()
            .push(s.update_index);
    }
    if reaching.values().all(|u| u.len() < 2) {
        return vec![];
    }
    let Some(callee) = root.called_computations().first().map(|c| c.to_string()) else {
        return vec![];
    };
    let (operands, updates) = (&values[..n], &values[n + 1..]);
    let dims = operands[0].dimensions().to_vec();
    let count: i64 = dims.iter().product();
    let mut out = vec![vec![Allowance::Budget; count as usize]; n];
    let mut apply = Apply {
        module,
        callee: &callee,
        memo: HashMap::new(),
    };
    for (at, reached_by) in reaching.iter().filter(|(_, u)| u.len() >= 2) {
        let position = row_major(&dims, at);
        let initial: Vec<u128> = operands.iter().map(|a| a.get_bits(at)).collect();
        let update_values: Vec<Vec<u128>> = reached_by
            .iter()
            .map(|u| updates.iter().map(|a| a.get_bits(u)).collect())
            .collect();
        let finals = if reached_by.len() > MAX_COLLISIONS {
            None
        } else {
            every_order(&mut apply, operands, &initial, &update_values)
        };
        for (j, leaf) in out.iter_mut().enumerate() {
            leaf[position] = match &finals {
                None => Allowance::Masked,
                Some(f) => {
                    let alternatives: BTreeSet<u128> = f.iter().map(|v| v[j]).collect();
                    Allowance::AnyOf(alternatives.into_iter().collect::<Vec<_>>().into())
                }
            };
        }
    }
    out
}

/// Position of multi-index `idx` in row-major order over `dims`.
fn row_major(dims: &[i64], idx: &[i64]) -> usize {
    dims.iter().zip(idx).fold(0i64, |acc, (&d, &i)| acc * d + i) as usize
}

/// One evaluation of the update computation: (current values, update values) → new values
/// (`None` when the evaluation failed), as bit patterns, one per operand.
type Memo = HashMap<(Vec<u128>, Vec<u128>), Option<Vec<u128>>>;

/// The update computation evaluated by the reference, memoized on its scalar arguments.
struct Apply<'m> {
    module: &'m HloModule,
    callee: &'m str,
    memo: Memo,
}

impl Apply<'_> {
    fn call(
        &mut self,
        operands: &[ArrayLiteral],
        current: &[u128],
        update: &[u128],
    ) -> Option<Vec<u128>> {
        let key = (current.to_vec(), update.to_vec());
        if let Some(v) = self.memo.get(&key) {
            return v.clone();
        }
        let scalar = |k: usize, bits: u128| {
            Literal::Array(ArrayLiteral::scalar_bits(operands[k].element_type(), bits))
        };
        let cur: Vec<Literal> = current
            .iter()
            .enumerate()
            .map(|(k, &b)| scalar(k, b))
            .collect();
        let upd: Vec<Literal> = update
            .iter()
            .enumerate()
            .map(|(k, &b)| scalar(k, b))
            .collect();
        let result = apply_update_computation(self.module, self.callee, &cur, &upd)
            .ok()
            .and_then(|r| {
                r.iter()
                    .map(|l| l.as_array().map(|a| a.get_bits(&[])))
                    .collect::<Option<Vec<u128>>>()
            });
        self.memo.insert(key, result.clone());
        result
    }
}

/// The values (one per operand) that applying all `updates` to `initial`, in every order, gives;
/// `None` when an evaluation fails or the values multiply past [`MAX_VALUES`].
fn every_order(
    apply: &mut Apply,
    operands: &[ArrayLiteral],
    initial: &[u128],
    updates: &[Vec<u128>],
) -> Option<BTreeSet<Vec<u128>>> {
    let k = updates.len();
    let mut reachable: Vec<BTreeSet<Vec<u128>>> = vec![BTreeSet::new(); 1 << k];
    reachable[0].insert(initial.to_vec());
    // Subsets in order of increasing value visit every subset after all of its subsets.
    for set in 1usize..1 << k {
        let mut values = BTreeSet::new();
        for (u, update) in updates.iter().enumerate() {
            if set & (1 << u) == 0 {
                continue;
            }
            let before: Vec<Vec<u128>> = reachable[set & !(1 << u)].iter().cloned().collect();
            for v in before {
                values.insert(apply.call(operands, &v, update)?);
                if values.len() > MAX_VALUES {
                    return None;
                }
            }
        }
        reachable[set] = values;
    }
    reachable.pop()
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    fn scatter_module(ty: &str, combiner: &str) -> HloModule {
        parse_module(&format!(
            "HloModule s\n\nupdate {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {combiner}\n}}\n\nENTRY main {{\n  x = {ty}[3] parameter(0)\n  i = s32[4,1] parameter(1)\n  u = {ty}[4] parameter(2)\n  ROOT s = {ty}[3] scatter(x, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=update\n}}\n"
        ))
        .unwrap()
    }

    /// Three f32 additions to one element: the sums in different orders round differently, and
    /// every one of them is accepted; an element reached once keeps the plain budget.
    #[test]
    fn float_additions_in_every_order() {
        let module = scatter_module("f32", "add(a, b)");
        let args = [
            parse_literal("f32[3] {0, 1, 0}").unwrap(),
            parse_literal("s32[4,1] {{0}, {0}, {0}, {2}}").unwrap(),
            parse_literal("f32[4] {1e8, 1, -1e8, 5}").unwrap(),
        ];
        let reference = crate::backends::by_name("reference").unwrap();
        let a = allowances(&module, &args, reference.as_ref());
        assert_eq!(a.len(), 1);
        assert_eq!(a[0][1], Allowance::Budget);
        assert_eq!(a[0][2], Allowance::Budget);
        let Allowance::AnyOf(values) = &a[0][0] else {
            panic!("{:?}", a[0][0]);
        };
        let got: BTreeSet<u32> = values.iter().map(|&b| b as u32).collect();
        // 1e8 + 1 rounds to 1e8 in f32; the orders give 0 ((1e8+1)-1e8), 1 (1e8-1e8+1).
        let want: BTreeSet<u32> = [0.0f32, 1.0].iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want);
    }

    /// Replace (`ROOT r = b`): the last update wins, so each colliding update's value is allowed.
    #[test]
    fn replace_allows_each_update() {
        let module = scatter_module("s32", "copy(b)");
        let args = [
            parse_literal("s32[3] {7, 7, 7}").unwrap(),
            parse_literal("s32[4,1] {{1}, {1}, {1}, {5}}").unwrap(),
            parse_literal("s32[4] {10, 20, 30, 40}").unwrap(),
        ];
        let reference = crate::backends::by_name("reference").unwrap();
        let a = allowances(&module, &args, reference.as_ref());
        let Allowance::AnyOf(values) = &a[0][1] else {
            panic!("{:?}", a[0][1]);
        };
        assert_eq!(values.to_vec(), vec![10, 20, 30]);
        // Index 5 is out of bounds: skipped, nothing reaches element 2.
        assert_eq!(a[0][2], Allowance::Budget);
    }
}
