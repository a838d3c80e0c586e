//! Every data-movement operation against a naive implementation written here (logical multi-index
//! loops over row-major bit vectors), under random layouts with padding, for elements of 1, 2, 4
//! and 16 bytes; results are compared byte for byte with the literal the naive values give in the
//! declared layout (so padding positions are checked too), sequentially and split across threads.

use super::plan::{self, Plan};
use super::transpose;
use crate::test_rng::Rng;
use crate::value::{ArrayData, Value};
use crate::Fast;
use conformance_spec::hlo::{
    AttrValue, Attribute, HloComputation, HloInstruction, PaddingDim, SliceDim,
};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{
    ArrayShape, Backend, ElementType, HloModule, Layout, Literal, Opcode, PaddingValue, Shape,
};

const TYPES: [ElementType; 5] = [
    ElementType::Pred,
    ElementType::S8,
    ElementType::F16,
    ElementType::F32,
    ElementType::C128,
];

/// A random layout for `dims`: any dimension order, padded half of the time.
fn random_layout(rng: &mut Rng, dims: &[i64]) -> Layout {
    let mut m2m: Vec<i64> = (0..dims.len() as i64).collect();
    for i in (1..m2m.len()).rev() {
        m2m.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let layout = Layout::new(m2m);
    if rng.below(2) == 0 && !dims.is_empty() {
        let padded = dims.iter().map(|&d| d + rng.range(0, 2)).collect();
        let value = [
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Highest,
        ][rng.below(4) as usize];
        layout.with_padding(padded, value)
    } else {
        layout
    }
}

fn shape(rng: &mut Rng, ty: ElementType, dims: &[i64]) -> ArrayShape {
    ArrayShape::new(ty, dims.to_vec()).with_layout(random_layout(rng, dims))
}

fn random_bits(rng: &mut Rng, ty: ElementType, n: usize) -> Vec<u128> {
    (0..n)
        .map(|_| {
            if ty.is_pred() {
                rng.below(2) as u128
            } else {
                let b = (rng.next() as u128) << 64 | rng.next() as u128;
                let w = ty.bit_width();
                if w == 128 {
                    b
                } else {
                    b & ((1u128 << w) - 1)
                }
            }
        })
        .collect()
}

fn count(dims: &[i64]) -> usize {
    dims.iter().product::<i64>() as usize
}

/// Row-major linear index of a multi-index.
fn rm(dims: &[i64], idx: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

fn for_each(dims: &[i64], f: impl FnMut(&[i64])) {
    conformance_spec::index::for_each_index(dims, f)
}

fn ints(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

fn int(name: &str, v: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(v),
    }
}

fn instr(
    name: &str,
    opcode: Opcode,
    shape: Shape,
    operands: Vec<usize>,
    attributes: Vec<Attribute>,
) -> HloInstruction {
    HloInstruction {
        name: name.into(),
        opcode,
        shape,
        operands,
        parameter_number: None,
        literal: None,
        attributes,
    }
}

fn param(k: usize, s: Shape) -> HloInstruction {
    let mut p = instr(&format!("p{k}"), Opcode::Parameter, s, vec![], vec![]);
    p.parameter_number = Some(k as i64);
    p
}

/// `ROOT r = result op(p0, ...)`, with extra computations (called ones) before the entry.
fn module(
    op: Opcode,
    operands: &[ArrayShape],
    result: Shape,
    attributes: Vec<Attribute>,
    mut called: Vec<HloComputation>,
) -> HloModule {
    let mut v: Vec<HloInstruction> = operands
        .iter()
        .enumerate()
        .map(|(i, s)| param(i, Shape::Array(s.clone())))
        .collect();
    v.push(instr(
        "r",
        op,
        result,
        (0..operands.len()).collect(),
        attributes,
    ));
    let root = v.len() - 1;
    let entry = called.len();
    called.push(HloComputation {
        name: "main".into(),
        instructions: v,
        root,
    });
    HloModule {
        name: "t".into(),
        header_attributes: vec![],
        computations: called,
        entry,
    }
}

/// Runs the module sequentially, across threads, and on tiny tasks with scalar tiles; each must
/// equal `expected` byte for byte.
fn check(m: &HloModule, args: &[Literal], expected: &Literal, what: &str) {
    for fast in [
        Fast::sequential(),
        Fast::with_parallel_threshold(1),
        Fast::new()
            .with_split_tasks()
            .with_isa(crate::kernels::Isa::Scalar),
    ] {
        let got = fast
            .execute(m, args)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            &got,
            expected,
            "{what} (threshold {})",
            fast.parallel_threshold()
        );
    }
}

fn lit(s: &ArrayShape, bits: &[u128]) -> ArrayLiteral {
    ArrayLiteral::from_bits(s.clone(), bits).expect("bits fit")
}

/// Runs the root instruction of `m`'s entry on operand values, through [`crate::data_movement::evaluate`].
fn eval_direct<'a>(m: &'a HloModule, operands: Vec<Value<'a>>) -> Value<'a> {
    let comp = m.entry_computation();
    let instr = comp.root_instruction();
    let call =
        |_: &'a HloComputation,
         _: Vec<Value<'a>>|
         -> Result<Value<'a>, conformance_spec::BackendError> { unreachable!("no calls") };
    let eval = |_: &'a conformance_spec::hlo::HloInstruction,
                _: Vec<Value<'a>>|
     -> Result<Value<'a>, conformance_spec::BackendError> {
        unreachable!("no evaluations")
    };
    crate::data_movement::evaluate(crate::data_movement::Ctx {
        module: m,
        instr,
        operands,
        exec: crate::parallel::Exec::new(usize::MAX),
        call: &call,
        eval: &eval,
        device: conformance_spec::collective::Device::single(),
    })
    .expect("evaluates")
}

mod copies;
mod indexing;
