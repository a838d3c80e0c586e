//! Where a convolution's zeros meet non-finite kernel values.
//!
//! Seed 004 (Conv) describes padding and base-dilation holes two ways: its text says they are
//! zeros inserted into the input ("equivalent to inserting zeros"; the holes "mean 0 for
//! convolution"), so a kernel value of ±inf or NaN there contributes 0·inf = NaN; its pseudo-code
//! sums only the positions inside the base area, so those products do not exist. Where they meet,
//! both readings are allowed (the harness's `Allowance::OrNan`); everywhere else the result is
//! the same under both.

use conformance_spec::element_type::FloatClass;
use conformance_spec::hlo::{ConvolutionDimensionNumbers, HloInstruction, Opcode, Window};
use conformance_spec::index;
use conformance_spec::literal::{complex_parts, ArrayLiteral};

/// True when the window inserts zeros into the input: positive padding or base dilation.
pub fn has_zeros(window: &Window) -> bool {
    window
        .dimensions
        .iter()
        .any(|d| d.padding_low > 0 || d.padding_high > 0 || d.base_dilation > 1)
}

/// Per element of the result of the `convolution` `root` (logical row-major order), true when
/// some kernel position holding a non-finite value (in any input feature) meets padding or a
/// base-dilation hole of the input for that element. `None` when `root` is not a convolution, its
/// attributes do not read, or its window has neither padding nor base dilation; `kernel` is the
/// root's operand 1, `input_spatial` the input's spatial sizes (in spatial-dimension order).
pub fn zeros_meet_non_finite(
    root: &HloInstruction,
    kernel: &ArrayLiteral,
    input_spatial: &[i64],
) -> Option<Vec<bool>> {
    if root.opcode != Opcode::Convolution {
        return None;
    }
    let window = Window::from_instruction(root).ok()?;
    let numbers = ConvolutionDimensionNumbers::from_instruction(root).ok()?;
    if !has_zeros(&window) || input_spatial.len() != window.dimensions.len() {
        return None;
    }
    let f = kernel.element_type().float_format()?;
    let complex = kernel.element_type().is_complex();
    let non_finite = |bits: u128| {
        let parts = if complex {
            let (re, im) = complex_parts(f, bits);
            vec![re, im]
        } else {
            vec![bits as u64]
        };
        parts
            .into_iter()
            .any(|p| matches!(f.classify(p), FloatClass::Nan | FloatClass::Infinite))
    };
    // The kernel positions (output feature, spatial taps) holding a non-finite value.
    let mut bad: Vec<(i64, Vec<i64>)> = Vec::new();
    index::for_each_index(kernel.dimensions(), |idx| {
        if non_finite(kernel.get_bits(idx)) {
            let o = idx[numbers.kernel_output_feature_dimension as usize];
            let taps = numbers
                .kernel_spatial_dimensions
                .iter()
                .map(|&d| idx[d as usize])
                .collect();
            bad.push((o, taps));
        }
    });
    let out = root.shape.as_array()?;
    let mut result = Vec::with_capacity(out.element_count());
    index::for_each_index(&out.dimensions, |idx| {
        let o = idx[numbers.output_feature_dimension as usize];
        let meets = bad.iter().any(|(ko, taps)| {
            *ko == o
                && window.dimensions.iter().enumerate().any(|(k, d)| {
                    let s = idx[numbers.output_spatial_dimensions[k] as usize];
                    let tap = if d.window_reversal {
                        d.size - 1 - taps[k]
                    } else {
                        taps[k]
                    };
                    // The position in the padded, dilated input.
                    let p = s * d.stride + tap * d.window_dilation - d.padding_low;
                    let dilated = (input_spatial[k] - 1).max(0) * d.base_dilation + 1;
                    p < 0 || p >= dilated || p % d.base_dilation != 0 || input_spatial[k] == 0
                })
        });
        result.push(meets);
    });
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    #[test]
    fn only_outputs_whose_taps_meet_padding_are_marked() {
        // 1-D, kernel {inf, 1}, pad 1_1: output 0 puts the inf tap on the low padding; the last
        // output's second tap (1, finite) meets the high padding: not marked.
        let m = parse_module(
            "HloModule m\nENTRY e {\n  x = f32[1,1,3] parameter(0)\n  k = f32[1,1,2] parameter(1)\n  ROOT r = f32[1,1,4] convolution(x, k), window={size=2 pad=1_1}, dim_labels=bf0_oi0->bf0\n}\n",
        )
        .unwrap();
        let root = m.entry_computation().root_instruction();
        let kernel = parse_literal("f32[1,1,2] {{{inf, 1}}}").unwrap();
        let marks = zeros_meet_non_finite(root, kernel.as_array().unwrap(), &[3]).unwrap();
        assert_eq!(marks, vec![true, false, false, false]);
        // Reversed window: the inf tap is now the second one, meeting the high padding last.
        let m = parse_module(
            "HloModule m\nENTRY e {\n  x = f32[1,1,3] parameter(0)\n  k = f32[1,1,2] parameter(1)\n  ROOT r = f32[1,1,4] convolution(x, k), window={size=2 pad=1_1 rhs_reversal=1}, dim_labels=bf0_oi0->bf0\n}\n",
        )
        .unwrap();
        let root = m.entry_computation().root_instruction();
        let marks = zeros_meet_non_finite(root, kernel.as_array().unwrap(), &[3]).unwrap();
        assert_eq!(marks, vec![false, false, false, true]);
        // Base dilation 2: the holes at odd positions.
        let m = parse_module(
            "HloModule m\nENTRY e {\n  x = f32[1,1,3] parameter(0)\n  k = f32[1,1,2] parameter(1)\n  ROOT r = f32[1,1,4] convolution(x, k), window={size=2 lhs_dilate=2}, dim_labels=bf0_oi0->bf0\n}\n",
        )
        .unwrap();
        let root = m.entry_computation().root_instruction();
        let marks = zeros_meet_non_finite(root, kernel.as_array().unwrap(), &[3]).unwrap();
        assert_eq!(marks, vec![false, true, false, true]);
    }
}
