//! Values flowing between instructions: arrays (borrowed arguments or shared results, possibly
//! viewed under another shape without copying), scalars broadcast without materialization, and
//! tuples.

use crate::layout;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, BackendError, ElementType, Literal};
use std::sync::Arc;

/// Read access to an array's shape and physical bytes (literals and array values alike).
pub(crate) trait ArrayData {
    fn shape(&self) -> &ArrayShape;
    fn data(&self) -> &[u8];
    fn element_type(&self) -> ElementType {
        self.shape().element_type
    }
    fn dimensions(&self) -> &[i64] {
        &self.shape().dimensions
    }
}

impl ArrayData for ArrayLiteral {
    fn shape(&self) -> &ArrayShape {
        ArrayLiteral::shape(self)
    }
    fn data(&self) -> &[u8] {
        ArrayLiteral::data(self)
    }
}

impl ArrayData for ArrayRef<'_> {
    fn shape(&self) -> &ArrayShape {
        ArrayRef::shape(self)
    }
    fn data(&self) -> &[u8] {
        ArrayRef::data(self)
    }
}

/// Where an array's bytes live: an argument borrowed from the caller, or a result shared between
/// users.
#[derive(Clone, Debug)]
pub(crate) enum Storage<'a> {
    Borrowed(&'a ArrayLiteral),
    Shared(Arc<ArrayLiteral>),
}

/// An array value: a storage buffer seen under its own shape or, for a bitcast (a reshape or
/// transpose that keeps every element at its physical position, seed 004 Reshape/Transpose), under
/// another shape of the same physical size. `runtime_sizes` holds the sizes set by
/// `set-dimension-size` (seed 004, SetDimensionSize), one per dimension.
#[derive(Clone, Debug)]
pub(crate) struct ArrayRef<'a> {
    storage: Storage<'a>,
    view: Option<Arc<ArrayShape>>,
    runtime_sizes: Option<Arc<[i64]>>,
}

impl<'a> ArrayRef<'a> {
    /// The array's bytes seen under `shape`, which must have the storage's physical byte size
    /// (checked: `None` otherwise).
    pub(crate) fn view_as(&self, shape: ArrayShape) -> Option<ArrayRef<'a>> {
        let bytes = conformance_spec::index::physical_element_count(&shape)
            * shape.element_type.byte_width();
        (bytes == self.data().len()).then(|| ArrayRef {
            storage: self.storage.clone(),
            view: Some(Arc::new(shape)),
            runtime_sizes: None,
        })
    }

    /// The same array seen under `shape` (same physical bytes) with runtime dimension sizes
    /// `sizes` (elements, one per dimension, each at most its bound: checked by the callers);
    /// sizes equal to the bounds make the value static (seed 004, SetDimensionSize).
    pub(crate) fn with_runtime_sizes(&self, shape: ArrayShape, sizes: Vec<i64>) -> ArrayRef<'a> {
        let mut a = self.clone();
        a.runtime_sizes = (sizes != shape.dimensions).then(|| sizes.into());
        if a.shape() != &shape {
            a.view = Some(Arc::new(shape));
        }
        a
    }

    /// The runtime sizes recorded by `set-dimension-size`, if any (one per dimension).
    pub(crate) fn runtime_sizes(&self) -> Option<&[i64]> {
        self.runtime_sizes.as_deref()
    }

    /// The sizes of the logical array: the runtime sizes when set, else the static ones.
    pub(crate) fn logical_dimensions(&self) -> &[i64] {
        match &self.runtime_sizes {
            Some(s) => s,
            None => self.dimensions(),
        }
    }

    pub(crate) fn shape(&self) -> &ArrayShape {
        match &self.view {
            Some(s) => s,
            None => self.literal().shape(),
        }
    }

    /// The storage literal (its shape is the storage's, which a view may differ from).
    fn literal(&self) -> &ArrayLiteral {
        match &self.storage {
            Storage::Borrowed(a) => a,
            Storage::Shared(a) => a,
        }
    }

    /// The storage when this value is exactly its literal (no view, no runtime sizes): what
    /// can be lent to other devices without a copy.
    pub(crate) fn plain_storage(&self) -> Option<&Storage<'a>> {
        (self.view.is_none() && self.runtime_sizes.is_none()).then_some(&self.storage)
    }

    /// The physical bytes (in the order of [`ArrayRef::shape`]'s layout).
    pub(crate) fn data(&self) -> &[u8] {
        self.literal().data()
    }

    pub(crate) fn element_type(&self) -> ElementType {
        self.shape().element_type
    }

    pub(crate) fn dimensions(&self) -> &[i64] {
        &self.shape().dimensions
    }

    /// Raw bits of the element at physical position `linear` (elements, padding included).
    pub(crate) fn get_bits_linear(&self, linear: usize) -> u128 {
        let w = self.element_type().byte_width();
        let mut b = [0u8; 16];
        b[..w].copy_from_slice(&self.data()[linear * w..(linear + 1) * w]);
        u128::from_le_bytes(b)
    }

    /// Raw bits of the element at a multi-index (one in-range entry per dimension).
    pub(crate) fn get_bits(&self, index: &[i64]) -> u128 {
        self.get_bits_linear(conformance_spec::index::multi_index_to_linear(
            self.shape(),
            index,
        ))
    }

    /// The array as a literal of its shape, runtime sizes included (the buffer is moved when
    /// uniquely owned, else copied).
    pub(crate) fn into_array_literal(self) -> ArrayLiteral {
        let lit = match self.storage {
            Storage::Borrowed(a) => a.clone(),
            Storage::Shared(a) => Arc::try_unwrap(a).unwrap_or_else(|a| (*a).clone()),
        };
        let lit = match self.view {
            None => lit,
            Some(shape) => {
                let (_, data) = lit.into_parts();
                ArrayLiteral::from_physical_bytes((*shape).clone(), data)
                    .expect("a view has its storage's physical size")
            }
        };
        match self.runtime_sizes {
            None => lit,
            Some(sizes) => lit
                .with_runtime_dimensions(&sizes)
                .expect("runtime sizes are checked against the bounds when set"),
        }
    }

    /// The buffer, when this value is its only owner and sees it under its own shape (for
    /// in-place updates).
    pub(crate) fn try_into_unique(self) -> Result<ArrayLiteral, ArrayRef<'a>> {
        match self.storage {
            Storage::Shared(a) if self.view.is_none() => match Arc::try_unwrap(a) {
                Ok(lit) => Ok(lit),
                Err(a) => Err(ArrayRef {
                    storage: Storage::Shared(a),
                    view: None,
                    runtime_sizes: self.runtime_sizes,
                }),
            },
            storage => Err(ArrayRef {
                storage,
                view: self.view,
                runtime_sizes: self.runtime_sizes,
            }),
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
            Literal::Array(a) => Value::borrow_array(a),
            Literal::Tuple(t) => Value::Tuple(t.iter().map(Value::borrow).collect()),
            Literal::Token => Value::Token,
        }
    }

    /// Borrows an array (no copy).
    pub(crate) fn borrow_array(array: &'a ArrayLiteral) -> Value<'a> {
        Value::Array(ArrayRef {
            storage: Storage::Borrowed(array),
            view: None,
            runtime_sizes: array.runtime_dimensions().map(Arc::from),
        })
    }

    pub(crate) fn owned(array: ArrayLiteral) -> Value<'a> {
        Value::Array(ArrayRef {
            storage: Storage::Shared(Arc::new(array)),
            view: None,
            runtime_sizes: None,
        })
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
            Value::Array(a) => Literal::Array(a.into_array_literal()),
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
