//! Dot (XlaBuilder's rank-1/2 forms), DotGeneral (batch, contracting and free dimensions in any
//! position) and ConvGeneralDilated (1–3 spatial dimensions, every window attribute, feature or
//! batch groups, random `dim_labels`).

use super::add_inferred;
use crate::generate::movement::{int, Gen};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{
    ConvolutionDimensionNumbers, DotDimensionNumbers, Opcode, Window, WindowDimension,
};

/// The result element type: the sweep's target (mixed precision) or the operand's.
fn result_type(g: &Gen, ty: ElementType) -> ElementType {
    g.spec.target_type.unwrap_or(ty)
}

/// XlaBuilder's Dot: vector·vector, matrix·vector or matrix·matrix; `k` may be 0 (an empty sum).
pub(super) fn dot(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let k = g.rng.range_i64(0, 12);
    let (m, n) = (g.rng.range_i64(1, 6), g.rng.range_i64(1, 6));
    let (lhs, rhs): (Vec<i64>, Vec<i64>) = match g.rng.below(4) {
        0 => (vec![k], vec![k]),
        1 => (vec![m, k], vec![k]),
        2 => (vec![k], vec![k, n]),
        _ => (vec![m, k], vec![k, n]),
    };
    let numbers = DotDimensionNumbers::for_dot(lhs.len());
    dot_of(g, ty, &lhs, &rhs, &numbers)
}

/// A `dot` of two data parameters of these dimensions, with the sweep's result type.
fn dot_of(
    g: &mut Gen,
    ty: ElementType,
    lhs: &[i64],
    rhs: &[i64],
    numbers: &DotDimensionNumbers,
) -> Result<usize, String> {
    let a = g.data(ty, lhs)?;
    let b = g.data(ty, rhs)?;
    let out = result_type(g, ty);
    add_inferred(
        g,
        Opcode::Dot,
        vec![a, b],
        numbers.to_attributes(),
        Some(out),
        None,
    )
}

/// DotGeneral: 0–2 batch, 0–2 contracting and 0–2 free dimensions per operand, each operand's
/// dimensions in a random order.
pub(super) fn dot_general(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let nb = g.rng.below(3) as usize;
    let nc = g.rng.below(3) as usize;
    let (nl, nr) = (g.rng.below(3) as usize, g.rng.below(3) as usize);
    let size = |g: &mut Gen| g.rng.range_i64(1, 4);
    let batch: Vec<i64> = (0..nb).map(|_| size(g)).collect();
    let contract: Vec<i64> = (0..nc).map(|_| g.rng.range_i64(0, 5)).collect();
    let lfree: Vec<i64> = (0..nl).map(|_| size(g)).collect();
    let rfree: Vec<i64> = (0..nr).map(|_| size(g)).collect();
    // Roles: (kind, index) with kind 0 batch, 1 contracting, 2 free; placed at random positions.
    let place = |g: &mut Gen, free: &[i64]| -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let mut roles: Vec<(u8, usize)> = (0..nb).map(|i| (0, i)).collect();
        roles.extend((0..nc).map(|i| (1, i)));
        roles.extend((0..free.len()).map(|i| (2, i)));
        let perm = g.rng.permutation(roles.len());
        let placed: Vec<(u8, usize)> = perm.iter().map(|&p| roles[p as usize]).collect();
        let dims = placed
            .iter()
            .map(|&(kind, i)| match kind {
                0 => batch[i],
                1 => contract[i],
                _ => free[i],
            })
            .collect();
        let position = |kind: u8, i: usize| {
            placed
                .iter()
                .position(|&r| r == (kind, i))
                .map_or(0, |p| p as i64)
        };
        let b = (0..nb).map(|i| position(0, i)).collect();
        let c = (0..nc).map(|i| position(1, i)).collect();
        (dims, b, c)
    };
    let (ldims, lb, lc) = place(g, &lfree);
    let (rdims, rb, rc) = place(g, &rfree);
    let numbers = DotDimensionNumbers {
        lhs_batch_dimensions: lb,
        rhs_batch_dimensions: rb,
        lhs_contracting_dimensions: lc,
        rhs_contracting_dimensions: rc,
    };
    dot_of(g, ty, &ldims, &rdims, &numbers)
}

/// ConvGeneralDilated: 1–3 spatial dimensions (3 rarely), strides, padding (negative too), lhs
/// and rhs dilation, window reversal, a feature or a batch group count, random `dim_labels`.
///
/// A third of the cases are convolutions as frameworks write them ([`Conventional`]): 2-D (or 1-D),
/// NCHW or NHWC `dim_labels`, stride 1 or 2, no dilation or reversal, VALID or SAME padding, no
/// groups, operands mostly row-major — the configurations a backend gives its fast paths, which the random draws above almost
/// never combine (mutation testing found fast's NCHW path unreached, docs/mutants.md).
pub(super) fn convolution(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let conventional = g.rng.chance(0.35).then(|| {
        if g.rng.chance(0.5) {
            Conventional::Nchw
        } else {
            Conventional::Nhwc
        }
    });
    let spatial = match (conventional, g.rng.below(10)) {
        (Some(_), 0..=1) => 1,
        (Some(_), _) => 2,
        (None, 0..=4) => 1,
        (None, 5..=8) => 2,
        (None, _) => 3,
    };
    let (mut feature_groups, mut batch_groups) = (1i64, 1i64);
    match g.rng.below(4) {
        _ if conventional.is_some() => {}
        0 => feature_groups = g.rng.range_i64(2, 3),
        1 => batch_groups = g.rng.range_i64(2, 3),
        _ => {}
    }
    let batch = g.rng.range_i64(1, 2) * batch_groups;
    let in_per_group = g.rng.range_i64(1, 3);
    let out_per_group = g.rng.range_i64(1, 3);
    let in_features = in_per_group * feature_groups;
    let out_features = out_per_group * feature_groups * batch_groups;
    let max_input = if spatial == 3 { 4 } else { 7 };
    let mut window = Window::default();
    let mut input_spatial = Vec::with_capacity(spatial);
    for _ in 0..spatial {
        let n = g.rng.range_i64(1, max_input);
        let mut d = WindowDimension::new(g.rng.range_i64(1, 3));
        if conventional.is_some() {
            d.stride = if g.rng.chance(0.75) { 1 } else { 2 };
            if g.rng.chance(0.5) {
                // SAME: the window's overhang split, the extra element high.
                d.padding_low = (d.size - 1) / 2;
                d.padding_high = d.size - 1 - d.padding_low;
            }
        } else {
            d.stride = g.rng.range_i64(1, 3);
            if g.rng.chance(0.3) {
                d.base_dilation = 2;
            }
            if g.rng.chance(0.3) {
                d.window_dilation = 2;
            }
            d.window_reversal = g.rng.chance(0.2);
            d.padding_low = g.rng.range_i64(-1, 2);
            d.padding_high = g.rng.range_i64(-1, 2);
        }
        // The padded, dilated input must hold the dilated window at least once.
        let dilated_input = (n - 1) * d.base_dilation + 1;
        let dilated_window = (d.size - 1) * d.window_dilation + 1;
        let short = dilated_window - (dilated_input + d.padding_low + d.padding_high);
        if short > 0 {
            d.padding_high += short;
        }
        input_spatial.push(n);
        window.dimensions.push(d);
    }
    // dim_labels: a random order of each operand's dimensions.
    let rank = spatial as i64 + 2;
    let order = |g: &mut Gen| g.rng.permutation(rank as usize);
    let (lp, kp, op) = match conventional {
        None => (order(g), order(g), order(g)),
        Some(c) => c.labels(rank),
    };
    // Each permutation lists the role at each position (0 batch or output feature, 1 feature or
    // input feature, 2.. spatial k - 2); a role's dimension number is its position.
    let position =
        |perm: &[i64], role: i64| perm.iter().position(|&r| r == role).unwrap_or(0) as i64;
    let numbers = ConvolutionDimensionNumbers {
        input_batch_dimension: position(&lp, 0),
        input_feature_dimension: position(&lp, 1),
        input_spatial_dimensions: (2..rank).map(|r| position(&lp, r)).collect(),
        kernel_output_feature_dimension: position(&kp, 0),
        kernel_input_feature_dimension: position(&kp, 1),
        kernel_spatial_dimensions: (2..rank).map(|r| position(&kp, r)).collect(),
        output_batch_dimension: position(&op, 0),
        output_feature_dimension: position(&op, 1),
        output_spatial_dimensions: (2..rank).map(|r| position(&op, r)).collect(),
    };
    let mut lhs = vec![0i64; rank as usize];
    lhs[numbers.input_batch_dimension as usize] = batch;
    lhs[numbers.input_feature_dimension as usize] = in_features;
    let mut rhs = vec![0i64; rank as usize];
    rhs[numbers.kernel_output_feature_dimension as usize] = out_features;
    rhs[numbers.kernel_input_feature_dimension as usize] = in_per_group;
    for (k, d) in window.dimensions.iter().enumerate() {
        lhs[numbers.input_spatial_dimensions[k] as usize] = input_spatial[k];
        rhs[numbers.kernel_spatial_dimensions[k] as usize] = d.size;
    }
    // Framework convolutions keep their arrays row-major, most of the time here.
    let row_major = conventional.is_some() && g.rng.chance(0.7);
    let (x, w) = if row_major {
        (g.data_row_major(ty, &lhs)?, g.data_row_major(ty, &rhs)?)
    } else {
        (g.data(ty, &lhs)?, g.data(ty, &rhs)?)
    };
    let mut attributes = vec![window.to_attribute(), numbers.to_attribute()];
    if feature_groups > 1 {
        attributes.push(int("feature_group_count", feature_groups));
    }
    if batch_groups > 1 {
        attributes.push(int("batch_group_count", batch_groups));
    }
    let out = result_type(g, ty);
    add_inferred(
        g,
        Opcode::Convolution,
        vec![x, w],
        attributes,
        Some(out),
        None,
    )
}

/// The two `dim_labels` of framework convolutions ([`convolution`]).
#[derive(Clone, Copy, Debug)]
enum Conventional {
    /// `bf01_oi01->bf01` (PyTorch, ONNX).
    Nchw,
    /// `b01f_01io->b01f` (TensorFlow, JAX's default).
    Nhwc,
}

impl Conventional {
    /// The role at each position of the input, kernel and output (0 batch or output feature, 1
    /// feature or input feature, 2.. spatial), as [`convolution`]'s random permutations.
    fn labels(self, rank: i64) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let spatial: Vec<i64> = (2..rank).collect();
        match self {
            Conventional::Nchw => {
                let all: Vec<i64> = (0..rank).collect();
                (all.clone(), all.clone(), all)
            }
            Conventional::Nhwc => {
                let nhwc: Vec<i64> = [0].into_iter().chain(spatial.clone()).chain([1]).collect();
                let hwio: Vec<i64> = spatial.into_iter().chain([1, 0]).collect();
                (nhwc.clone(), hwio, nhwc)
            }
        }
    }
}
