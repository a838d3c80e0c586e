//! Window geometry shared by convolution, reduce-window and select-and-scatter (seed 004,
//! ConvWithGeneralPadding / ReduceWindow): base (lhs) dilation, low/high padding (negative cuts),
//! window (rhs) dilation, stride and reversal, per dimension.

use conformance_spec::hlo::{Window, WindowDimension};

/// One window dimension over an input dimension of `input` elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dim {
    pub(crate) w: WindowDimension,
    pub(crate) input: i64,
}

impl Dim {
    /// Checks the window's fields (sizes >= 1 except a size-0 window, strides and dilations
    /// >= 1). Errors name the offending field.
    pub(crate) fn new(w: &WindowDimension, input: i64) -> Result<Dim, String> {
        if w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1 {
            return Err(format!(
                "window dimension {w:?}: size must be >= 0, stride and dilations >= 1"
            ));
        }
        Ok(Dim { w: *w, input })
    }

    /// Size of the dilated, padded input (elements; may be below 0 after negative padding).
    fn padded(&self) -> i64 {
        let dilated = if self.input == 0 {
            0
        } else {
            (self.input - 1) * self.w.base_dilation + 1
        };
        self.w.padding_low + dilated + self.w.padding_high
    }

    /// Output size: floor((padded − dilated window) / stride) + 1, or 0 when the window does not
    /// fit (seed 004).
    pub(crate) fn output_size(&self) -> i64 {
        let extent = if self.w.size == 0 {
            0
        } else {
            (self.w.size - 1) * self.w.window_dilation + 1
        };
        let p = self.padded();
        if p < extent {
            0
        } else {
            (p - extent) / self.w.stride + 1
        }
    }

    /// The input index read by output position `o` at window position `k` (no reversal), or
    /// `None` for padding and base-dilation holes.
    #[inline]
    pub(crate) fn source(&self, o: i64, k: i64) -> Option<usize> {
        let p = o * self.w.stride + k * self.w.window_dilation - self.w.padding_low;
        if p < 0 || p % self.w.base_dilation != 0 {
            return None;
        }
        let i = p / self.w.base_dilation;
        (i < self.input).then_some(i as usize)
    }

    /// `source(o, k)` for every output position and window position: `table[o][k]`.
    pub(crate) fn table(&self) -> Vec<Vec<Option<usize>>> {
        (0..self.output_size())
            .map(|o| (0..self.w.size).map(|k| self.source(o, k)).collect())
            .collect()
    }
}

/// The window's dimensions over inputs of sizes `inputs` (one per window dimension). Errors: a
/// rank mismatch or a malformed dimension.
pub(crate) fn dims(window: &Window, inputs: &[i64]) -> Result<Vec<Dim>, String> {
    if window.dimensions.len() != inputs.len() {
        return Err(format!(
            "window of rank {} for {} dimensions",
            window.dimensions.len(),
            inputs.len()
        ));
    }
    window
        .dimensions
        .iter()
        .zip(inputs)
        .map(|(w, &i)| Dim::new(w, i))
        .collect()
}
