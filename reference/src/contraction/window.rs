//! Window index math shared by convolution, reduce-window and select-and-scatter (seed 004,
//! ConvWithGeneralPadding and ReduceWindow; issue 5's shared decisions).
//!
//! Per dimension, the base of `n` elements is dilated (`base_dilation − 1` holes between
//! neighbours: `(n − 1)·base_dilation + 1` positions), then padded (`padding_low` /
//! `padding_high` positions; negative values cut). A window of `size` elements dilated by
//! `window_dilation` spans `(size − 1)·window_dilation + 1` positions and is placed every `stride`
//! positions, so there are `floor((padded − dilated window) / stride) + 1` window positions
//! (0 when the window does not fit). Window element `k` at output position `o` sits at padded
//! position `o·stride + k·window_dilation`; it reads base element `(p − padding_low) /
//! base_dilation` when that is an integer inside the base, and is padding or a hole otherwise.

use super::invalid;
use conformance_spec::hlo::contraction_numbers::{Window, WindowDimension};
use conformance_spec::BackendError;

/// Positions spanned by `size` elements dilated by `dilation` (0 for no elements).
pub fn dilated(size: i64, dilation: i64) -> i64 {
    if size <= 0 {
        0
    } else {
        (size - 1).saturating_mul(dilation).saturating_add(1)
    }
}

/// The number of window positions along a dimension of `input` base elements (see the module
/// docs).
pub fn output_size(input: i64, w: &WindowDimension) -> i64 {
    let padded = dilated(input, w.base_dilation)
        .saturating_add(w.padding_low)
        .saturating_add(w.padding_high);
    let span = dilated(w.size, w.window_dilation);
    if padded < span {
        0
    } else {
        (padded - span) / w.stride + 1
    }
}

/// The base element read by window element `k` at output position `o`, or `None` for padding or
/// a base-dilation hole (see the module docs).
pub fn base_index(o: i64, k: i64, w: &WindowDimension, input: i64) -> Option<i64> {
    let p = o
        .saturating_mul(w.stride)
        .saturating_add(k.saturating_mul(w.window_dilation))
        .saturating_sub(w.padding_low);
    if p < 0 || p >= dilated(input, w.base_dilation) || p % w.base_dilation != 0 {
        None
    } else {
        Some(p / w.base_dilation)
    }
}

/// Reads `window=` of an instruction and checks it has `rank` dimensions with sizes, strides and
/// dilations of at least 1 and (unless `reversal_allowed`) no reversal.
///
/// Errors: [`BackendError::Invalid`] naming `op` and the dimension at fault.
pub fn read_window(
    op: &str,
    instr: &conformance_spec::hlo::ir::HloInstruction,
    rank: usize,
    reversal_allowed: bool,
) -> Result<Window, BackendError> {
    let window =
        Window::from_instruction(instr).map_err(|e| BackendError::Invalid(format!("{op}: {e}")))?;
    if window.dimensions.len() != rank {
        return invalid(format!(
            "{op}: the window has {} dimensions, expected {rank}",
            window.dimensions.len()
        ));
    }
    for (d, w) in window.dimensions.iter().enumerate() {
        let bad = if w.size < 1 {
            Some("size")
        } else if w.stride < 1 {
            Some("stride")
        } else if w.window_dilation < 1 {
            Some("window dilation (rhs_dilate)")
        } else if w.base_dilation < 1 {
            Some("base dilation (lhs_dilate)")
        } else {
            None
        };
        if let Some(what) = bad {
            return invalid(format!(
                "{op}: window dimension {d} has {what} below 1 ({w:?})"
            ));
        }
        if w.window_reversal && !reversal_allowed {
            return invalid(format!(
                "{op}: window dimension {d} is reversed; only convolution reverses windows"
            ));
        }
    }
    Ok(window)
}

/// Per dimension of the window: for every output position `o` (in `0..out[d]`) and window
/// element `k`, the base index read or `None` (`table[d][o][k]`).
pub fn base_index_table(
    window: &Window,
    inputs: &[i64],
    outputs: &[i64],
) -> Vec<Vec<Vec<Option<i64>>>> {
    window
        .dimensions
        .iter()
        .zip(inputs.iter().zip(outputs))
        .map(|(w, (&input, &out))| {
            (0..out)
                .map(|o| (0..w.size).map(|k| base_index(o, k, w, input)).collect())
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wd(size: i64, stride: i64, lo: i64, hi: i64, wdil: i64, bdil: i64) -> WindowDimension {
        WindowDimension {
            size,
            stride,
            padding_low: lo,
            padding_high: hi,
            window_dilation: wdil,
            base_dilation: bdil,
            window_reversal: false,
        }
    }

    #[test]
    fn output_sizes_follow_the_formula() {
        // Seed 004, ReduceWindow: 5 elements, size 3, stride 2, VALID → 2; SAME (pad 1_1) → 3.
        assert_eq!(output_size(5, &wd(3, 2, 0, 0, 1, 1)), 2);
        assert_eq!(output_size(5, &wd(3, 2, 1, 1, 1, 1)), 3);
        // Dilations: base 4 dilated by 2 = 7 positions; window 2 dilated by 3 = 4 → 4 positions.
        assert_eq!(output_size(4, &wd(2, 1, 0, 0, 3, 2)), 4);
        // Negative padding cuts; a window that does not fit gives 0.
        assert_eq!(output_size(5, &wd(2, 1, -1, -1, 1, 1)), 2);
        assert_eq!(output_size(2, &wd(3, 1, 0, 0, 1, 1)), 0);
    }

    #[test]
    fn base_indices_skip_padding_and_holes() {
        let w = wd(3, 1, 1, 1, 1, 2); // base 3 → 5 positions, padded to 7
        let got: Vec<Option<i64>> = (0..3).map(|k| base_index(0, k, &w, 3)).collect();
        assert_eq!(got, vec![None, Some(0), None]);
        let got: Vec<Option<i64>> = (0..3).map(|k| base_index(4, k, &w, 3)).collect();
        assert_eq!(got, vec![None, Some(2), None]);
        // Negative low padding shifts the window into the base.
        let w = wd(2, 2, -1, 0, 1, 1);
        assert_eq!(base_index(0, 0, &w, 5), Some(1));
        assert_eq!(base_index(1, 1, &w, 5), Some(4));
    }
}
