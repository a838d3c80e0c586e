//! Shape shrinking for `rng-bit-generator` and `rng`, whose data shape is the root's own (no
//! operand carries it): candidates halve a dimension of the data (rounding up or down: odd and even
//! sizes choose different Threefry split dimensions), cut it to 1, or drop it. The state is
//! left to the generic value simplification.

use conformance_spec::hlo::{HloInstruction, Opcode};
use conformance_spec::shape::{ArrayShape, Shape};

/// The smaller roots of an `rng-bit-generator` root (same operands); empty for other roots.
pub(super) fn candidates(root: &HloInstruction) -> Vec<HloInstruction> {
    let (state, data) = match (root.opcode, &root.shape) {
        (Opcode::RngBitGenerator, s) => match s.tuple_shapes() {
            Some([state, Shape::Array(data)]) => (Some(state), data),
            _ => return vec![],
        },
        (Opcode::Rng, Shape::Array(data)) => (None, data),
        _ => return vec![],
    };
    let dims = &data.dimensions;
    let mut shapes: Vec<Vec<i64>> = Vec::new();
    for (d, &size) in dims.iter().enumerate() {
        for smaller in [1, size / 2, (size + 1) / 2, size - 1] {
            if (1..size).contains(&smaller) {
                let mut s = dims.clone();
                s[d] = smaller;
                shapes.push(s);
            }
        }
        let mut dropped = dims.clone();
        dropped.remove(d);
        shapes.push(dropped);
    }
    shapes.dedup();
    shapes
        .into_iter()
        .filter(|s| s != dims)
        .map(|s| {
            let mut r = root.clone();
            let layout = conformance_spec::Layout::default_for_rank(s.len());
            let data = Shape::Array(ArrayShape::new(data.element_type, s).with_layout(layout));
            r.shape = match state {
                Some(state) => Shape::Tuple(vec![state.clone(), data]),
                None => data,
            };
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::parse_module;

    #[test]
    fn data_dimensions_shrink_and_the_state_stays() {
        let m = parse_module(
            "HloModule m\nENTRY e {\n  s = u64[2]{0} parameter(0)\n  ROOT r = (u64[2]{0}, u32[5,4]{0,1}) rng-bit-generator(s), algorithm=rng_three_fry\n}\n",
        )
        .unwrap();
        let root = m.entry_computation().root_instruction();
        let c = candidates(root);
        let shapes: Vec<String> = c.iter().map(|r| r.shape.to_string()).collect();
        assert!(
            shapes.contains(&"(u64[2]{0}, u32[2,4]{1,0})".to_string()),
            "{shapes:?}"
        );
        assert!(
            shapes.contains(&"(u64[2]{0}, u32[4]{0})".to_string()),
            "{shapes:?}"
        );
        assert!(
            shapes.contains(&"(u64[2]{0}, u32[5,1]{1,0})".to_string()),
            "{shapes:?}"
        );
        assert!(c.iter().all(|r| r.operands == root.operands));
    }
}
