//! The type system of seed 003 §3.3.2 (NNEF 1.0.5 names): primitive attribute types, tensors
//! with a data type, arrays and tuples, and the implicit conversions between them.

use std::fmt;

use crate::ast::{TypeName, TypeSpec};
use crate::graph::DataType;

/// A type. `Array(None)` is the type of the empty array `[]`, castable to every array type;
/// `Tensor(None)` is an unbound tensor (graph parameters, `tensor<>` parameters).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `integer`, `scalar`, `logical`, `string` or the generic `?`.
    Primitive(TypeName),
    /// `tensor<T>`.
    Tensor(Option<TypeName>),
    /// `T[]`.
    Array(Option<Box<Type>>),
    /// `(T1, T2, ...)`.
    Tuple(Vec<Type>),
}

impl Type {
    /// The type a type specification denotes.
    pub fn from_spec(spec: &TypeSpec) -> Type {
        match spec {
            TypeSpec::Primitive(name) => Type::Primitive(*name),
            TypeSpec::Tensor(name) => Type::Tensor(*name),
            TypeSpec::Array(item) => Type::Array(Some(Box::new(Type::from_spec(item)))),
            TypeSpec::Tuple(items) => Type::Tuple(items.iter().map(Type::from_spec).collect()),
        }
    }

    /// `integer`, `scalar`, `logical` or `string`.
    pub fn primitive(name: TypeName) -> Type {
        Type::Primitive(name)
    }

    /// An array of `item`.
    pub fn array(item: Type) -> Type {
        Type::Array(Some(Box::new(item)))
    }

    /// True when no tensor occurs in the type (an attribute, known when the graph is built).
    pub fn is_attribute(&self) -> bool {
        match self {
            Type::Primitive(_) => true,
            Type::Tensor(_) => false,
            Type::Array(item) => item.as_ref().is_none_or(|t| t.is_attribute()),
            Type::Tuple(items) => items.iter().all(Type::is_attribute),
        }
    }

    /// True when a tensor occurs in the type.
    pub fn has_tensor(&self) -> bool {
        match self {
            Type::Primitive(_) => false,
            Type::Tensor(_) => true,
            Type::Array(item) => item.as_ref().is_some_and(|t| t.has_tensor()),
            Type::Tuple(items) => items.iter().any(Type::has_tensor),
        }
    }

    /// True when the generic type `?` occurs in the type.
    pub fn is_generic(&self) -> bool {
        match self {
            Type::Primitive(name) | Type::Tensor(Some(name)) => *name == TypeName::Generic,
            Type::Tensor(None) => false,
            Type::Array(item) => item.as_ref().is_some_and(|t| t.is_generic()),
            Type::Tuple(items) => items.iter().any(Type::is_generic),
        }
    }

    /// Whether a value of this type may stand where `target` is expected (seed 003 §3.3.2,
    /// "type conversions"): equal types; a primitive to a tensor of that data type; arrays and
    /// tuples item by item; the empty array to any array; any tensor to an unbound tensor.
    /// Integers do not convert to scalars.
    pub fn castable_to(&self, target: &Type) -> bool {
        match (self, target) {
            (Type::Primitive(a), Type::Primitive(b)) => a == b || *b == TypeName::Generic,
            (Type::Tensor(a), Type::Tensor(b)) => match (a, b) {
                (_, None) => true,
                (Some(a), Some(b)) => a == b || *b == TypeName::Generic,
                (None, Some(_)) => false,
            },
            (Type::Array(a), Type::Array(b)) => match (a, b) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(a), Some(b)) => a.castable_to(b),
            },
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.castable_to(y))
            }
            (Type::Primitive(a), Type::Tensor(b)) => match b {
                None => true,
                Some(b) => a == b || *b == TypeName::Generic,
            },
            _ => false,
        }
    }

    /// The type both convert to, if any (array items, branches of a select).
    pub fn common(a: &Type, b: &Type) -> Option<Type> {
        if a.castable_to(b) {
            Some(b.clone())
        } else if b.castable_to(a) {
            Some(a.clone())
        } else {
            None
        }
    }

    /// This type with the generic `?` replaced by `data_type`.
    pub fn bind(&self, data_type: TypeName) -> Type {
        match self {
            Type::Primitive(TypeName::Generic) => Type::Primitive(data_type),
            Type::Tensor(Some(TypeName::Generic)) => Type::Tensor(Some(data_type)),
            Type::Array(Some(item)) => Type::array(item.bind(data_type)),
            Type::Tuple(items) => Type::Tuple(items.iter().map(|t| t.bind(data_type)).collect()),
            other => other.clone(),
        }
    }

    /// Deduces the generic type from an argument of type `arg` given for a parameter of type
    /// `self`: `Err((first, second))` when two arguments disagree.
    pub fn deduce(
        &self,
        arg: &Type,
        found: &mut Option<TypeName>,
    ) -> Result<(), (TypeName, TypeName)> {
        let mut set = |name: TypeName| match found {
            None => {
                *found = Some(name);
                Ok(())
            }
            Some(f) if *f == name => Ok(()),
            Some(f) => Err((*f, name)),
        };
        match (self, arg) {
            (Type::Primitive(TypeName::Generic), Type::Primitive(a)) => set(*a),
            (Type::Tensor(Some(TypeName::Generic)), Type::Tensor(Some(a))) => set(*a),
            (Type::Tensor(Some(TypeName::Generic)), Type::Primitive(a)) => set(*a),
            (Type::Array(Some(p)), Type::Array(Some(a))) => p.deduce(a, found),
            (Type::Tuple(p), Type::Tuple(a)) if p.len() == a.len() => {
                for (p, a) in p.iter().zip(a) {
                    p.deduce(a, found)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The NNEF spelling of a type name.
pub fn type_name(name: TypeName) -> &'static str {
    match name {
        TypeName::Integer => "integer",
        TypeName::Scalar => "scalar",
        TypeName::Logical => "logical",
        TypeName::String => "string",
        TypeName::Generic => "?",
    }
}

/// The tensor data type of a primitive type name (`string` and `?` have none).
pub fn data_type(name: TypeName) -> Option<DataType> {
    match name {
        TypeName::Integer => Some(DataType::Integer),
        TypeName::Scalar => Some(DataType::Scalar),
        TypeName::Logical => Some(DataType::Logical),
        TypeName::String | TypeName::Generic => None,
    }
}

/// The primitive type name of a tensor data type.
pub fn type_name_of(dtype: DataType) -> TypeName {
    match dtype {
        DataType::Integer => TypeName::Integer,
        DataType::Scalar => TypeName::Scalar,
        DataType::Logical => TypeName::Logical,
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Primitive(name) => f.write_str(type_name(*name)),
            Type::Tensor(None) => f.write_str("tensor<>"),
            Type::Tensor(Some(name)) => write!(f, "tensor<{}>", type_name(*name)),
            Type::Array(None) => f.write_str("[]"),
            Type::Array(Some(item)) => write!(f, "{item}[]"),
            Type::Tuple(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: TypeName) -> Type {
        Type::Primitive(n)
    }

    #[test]
    fn implicit_conversions_follow_seed_003() {
        use TypeName::*;
        // A scalar value may stand for a scalar tensor, a logical for a logical tensor.
        assert!(p(Scalar).castable_to(&Type::Tensor(Some(Scalar))));
        assert!(p(Logical).castable_to(&Type::Tensor(Some(Logical))));
        assert!(!p(Scalar).castable_to(&Type::Tensor(Some(Logical))));
        // Integers are not scalars.
        assert!(!p(Integer).castable_to(&p(Scalar)));
        // Arrays convert item by item; the empty array converts to any array.
        assert!(Type::array(p(Scalar)).castable_to(&Type::array(Type::Tensor(Some(Scalar)))));
        assert!(Type::Array(None).castable_to(&Type::array(p(Integer))));
        assert!(!Type::array(p(Integer)).castable_to(&p(Integer)));
        // Tuples need the same arity.
        let t2 = Type::Tuple(vec![p(Integer), p(Scalar)]);
        assert!(t2.castable_to(&t2.clone()));
        assert!(!t2.castable_to(&Type::Tuple(vec![p(Integer)])));
        // Any tensor to an unbound tensor, not the other way.
        assert!(Type::Tensor(Some(Scalar)).castable_to(&Type::Tensor(None)));
        assert!(!Type::Tensor(None).castable_to(&Type::Tensor(Some(Scalar))));
    }

    #[test]
    fn generic_types_bind_and_deduce() {
        use TypeName::*;
        let generic = Type::Tensor(Some(Generic));
        assert_eq!(generic.bind(Logical), Type::Tensor(Some(Logical)));
        let mut found = None;
        generic
            .deduce(&Type::Tensor(Some(Integer)), &mut found)
            .unwrap();
        assert_eq!(found, Some(Integer));
        assert_eq!(
            generic.deduce(&p(Scalar), &mut found),
            Err((Integer, Scalar))
        );
        assert_eq!(Type::array(generic).to_string(), "tensor<?>[]");
    }
}
