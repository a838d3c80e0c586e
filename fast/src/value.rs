//! Values flowing between instructions: arrays (borrowed arguments or shared results), scalars
//! broadcast without materialization, and tuples.

use crate::layout;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, BackendError, Literal};
use std::sync::Arc;

/// An array value: an argument borrowed from the caller, or a result shared between users.
#[derive(Clone, Debug)]
pub(crate) enum ArrayRef<'a> {
    Borrowed(&'a ArrayLiteral),
    Shared(Arc<ArrayLiteral>),
}

impl std::ops::Deref for ArrayRef<'_> {
    type Target = ArrayLiteral;
    fn deref(&self) -> &ArrayLiteral {
        match self {
            ArrayRef::Borrowed(a) => a,
            ArrayRef::Shared(a) => a,
        }
    }
}

/// The value of one instruction.
#[derive(Clone, Debug)]
pub(crate) enum Value<'a> {
    Array(ArrayRef<'a>),
    /// Every element of `shape` holds `bits` (a broadcast scalar, not materialized).
    Splat {
        shape: ArrayShape,
        bits: u128,
    },
    Tuple(Vec<Value<'a>>),
    Token,
}

impl<'a> Value<'a> {
    /// Borrows a caller's literal.
    pub(crate) fn borrow(literal: &'a Literal) -> Value<'a> {
        match literal {
            Literal::Array(a) => Value::Array(ArrayRef::Borrowed(a)),
            Literal::Tuple(t) => Value::Tuple(t.iter().map(Value::borrow).collect()),
            Literal::Token => Value::Token,
        }
    }

    pub(crate) fn owned(array: ArrayLiteral) -> Value<'a> {
        Value::Array(ArrayRef::Shared(Arc::new(array)))
    }

    /// The array shape of an array or splat value.
    pub(crate) fn array_shape(&self) -> Option<&ArrayShape> {
        match self {
            Value::Array(a) => Some(a.shape()),
            Value::Splat { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// Turns the value into a literal, materializing splats (padding filled per the layout).
    pub(crate) fn into_literal(self) -> Result<Literal, BackendError> {
        Ok(match self {
            Value::Array(ArrayRef::Borrowed(a)) => Literal::Array(a.clone()),
            Value::Array(ArrayRef::Shared(a)) => {
                Literal::Array(Arc::try_unwrap(a).unwrap_or_else(|a| (*a).clone()))
            }
            Value::Splat { shape, bits } => Literal::Array(layout::splat(shape, bits)?),
            Value::Tuple(t) => Literal::Tuple(
                t.into_iter()
                    .map(Value::into_literal)
                    .collect::<Result<_, _>>()?,
            ),
            Value::Token => Literal::Token,
        })
    }
}
