//! Unit tests of the numerical family's shape inference (fft, cholesky, triangular-solve,
//! batch norm), with the shapes of XLA's `ShapeInference`.

use super::*;
use crate::hlo::ir::AttrValue;
use ElementType::{C128, C64, F32, F64, S32};

fn a(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

fn attr(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn fft(ty: &str, lengths: &[i64]) -> Vec<Attribute> {
    vec![
        attr("fft_type", AttrValue::Enum(ty.into())),
        attr("fft_length", AttrValue::Ints(lengths.to_vec())),
    ]
}

fn err(r: Result<Shape, ShapeInferenceError>) -> String {
    match r {
        Ok(s) => panic!("expected an error, got `{s}`"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn fft_shapes_follow_the_fft_type() {
    let c = a(C64, &[3, 4, 8]);
    assert_eq!(
        infer_shape(Opcode::Fft, &[&c], &fft("FFT", &[8])),
        Ok(c.clone())
    );
    assert_eq!(
        infer_shape(Opcode::Fft, &[&c], &fft("IFFT", &[4, 8])),
        Ok(c.clone())
    );
    let r = a(F64, &[3, 4, 8]);
    assert_eq!(
        infer_shape(Opcode::Fft, &[&r], &fft("RFFT", &[4, 8])),
        Ok(a(C128, &[3, 4, 5]))
    );
    let h = a(C64, &[3, 4, 5]);
    assert_eq!(
        infer_shape(Opcode::Fft, &[&h], &fft("IRFFT", &[4, 8])),
        Ok(a(F32, &[3, 4, 8]))
    );
    assert_eq!(
        infer_shape(Opcode::Fft, &[&h], &fft("IRFFT", &[4, 9])),
        Ok(a(F32, &[3, 4, 9]))
    );
    // Length 0: an empty transform.
    let z = a(F32, &[2, 0]);
    assert_eq!(
        infer_shape(Opcode::Fft, &[&z], &fft("RFFT", &[0])),
        Ok(a(C64, &[2, 0]))
    );
}

#[test]
fn fft_rejects_wrong_types_lengths_and_ranks() {
    let c = a(C64, &[4, 8]);
    assert!(err(infer_shape(Opcode::Fft, &[&c], &fft("RFFT", &[8]))).contains("f32 or f64"));
    assert!(err(infer_shape(
        Opcode::Fft,
        &[&a(F32, &[8])],
        &fft("FFT", &[8])
    ))
    .contains("complex"));
    assert!(err(infer_shape(Opcode::Fft, &[&c], &fft("FFT", &[4])))
        .contains("dimension 1 of the operand is 8"));
    assert!(err(infer_shape(Opcode::Fft, &[&c], &fft("FFT", &[1, 4, 8]))).contains("rank-2"));
    assert!(err(infer_shape(Opcode::Fft, &[&c], &fft("FFT", &[]))).contains("1 to 3"));
    assert!(err(infer_shape(Opcode::Fft, &[&c], &fft("IRFFT", &[4, 8]))).contains("n/2+1"));
    assert!(err(infer_shape(
        Opcode::Fft,
        &[&c],
        &[attr("fft_length", AttrValue::Ints(vec![8]))]
    ))
    .contains("fft_type"));
}

#[test]
fn cholesky_takes_square_float_matrices() {
    let m = a(F32, &[2, 3, 3]);
    let lower = [attr("lower", AttrValue::Bool(true))];
    assert_eq!(infer_shape(Opcode::Cholesky, &[&m], &lower), Ok(m.clone()));
    assert!(err(infer_shape(Opcode::Cholesky, &[&a(F32, &[3, 4])], &lower)).contains("square"));
    assert!(err(infer_shape(Opcode::Cholesky, &[&a(F32, &[3])], &lower)).contains("rank 2"));
    assert!(
        err(infer_shape(Opcode::Cholesky, &[&a(S32, &[3, 3])], &lower))
            .contains("floating-point or complex")
    );
}

#[test]
fn triangular_solve_checks_sides_and_batches() {
    let m = a(C64, &[2, 3, 3]);
    let left = |v: bool| {
        vec![
            attr("left_side", AttrValue::Bool(v)),
            attr("lower", AttrValue::Bool(true)),
            attr("transpose_a", AttrValue::Enum("ADJOINT".into())),
        ]
    };
    let b = a(C64, &[2, 3, 5]);
    assert_eq!(
        infer_shape(Opcode::TriangularSolve, &[&m, &b], &left(true)),
        Ok(b.clone())
    );
    let b2 = a(C64, &[2, 5, 3]);
    assert_eq!(
        infer_shape(Opcode::TriangularSolve, &[&m, &b2], &left(false)),
        Ok(b2.clone())
    );
    assert!(err(infer_shape(
        Opcode::TriangularSolve,
        &[&m, &b2],
        &left(true)
    ))
    .contains("rows"));
    assert!(err(infer_shape(
        Opcode::TriangularSolve,
        &[&m, &a(C64, &[1, 3, 5])],
        &left(true)
    ))
    .contains("batch"));
    assert!(err(infer_shape(
        Opcode::TriangularSolve,
        &[&m, &a(C128, &[2, 3, 5])],
        &left(true)
    ))
    .contains("element type"));
}

#[test]
fn batch_norm_results_are_tuples_over_the_feature_dimension() {
    let x = a(F32, &[2, 4, 3, 3]);
    let v = a(F32, &[4]);
    let attrs = [
        attr("epsilon", AttrValue::Raw("0.001".into())),
        attr("feature_index", AttrValue::Int(1)),
    ];
    let tuple = Shape::Tuple(vec![x.clone(), v.clone(), v.clone()]);
    assert_eq!(
        infer_shape(Opcode::BatchNormTraining, &[&x, &v, &v], &attrs),
        Ok(tuple.clone())
    );
    assert_eq!(
        infer_shape(Opcode::BatchNormInference, &[&x, &v, &v, &v, &v], &attrs),
        Ok(x.clone())
    );
    assert_eq!(
        infer_shape(Opcode::BatchNormGrad, &[&x, &v, &v, &v, &x], &attrs),
        Ok(tuple)
    );
    let w = a(F32, &[3]);
    assert!(err(infer_shape(
        Opcode::BatchNormTraining,
        &[&x, &w, &v],
        &attrs
    ))
    .contains("[4]"));
    let bad = [
        attr("epsilon", AttrValue::Raw("0.001".into())),
        attr("feature_index", AttrValue::Int(4)),
    ];
    assert!(
        err(infer_shape(Opcode::BatchNormTraining, &[&x, &v, &v], &bad))
            .contains("feature_index=4")
    );
    assert!(err(infer_shape(
        Opcode::BatchNormTraining,
        &[&x, &v, &v],
        &attrs[1..]
    ))
    .contains("epsilon"));
}
