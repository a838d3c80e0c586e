//! Fragment declarations (seed 003 §3.3.1 "declarations"): the standard library's and the
//! document's, each name once, each checked on its own.

use std::collections::HashMap;

use crate::ast::{Document, Expr, ExprKind, Fragment, FragmentDeclaration};
use crate::error::{NnefError, Result};
use crate::eval::typecheck::literal_type;
use crate::eval::types::Type;

/// `KHR_enable_fragment_definitions`: the document may define fragments.
pub const FRAGMENT_DEFINITIONS: &str = "KHR_enable_fragment_definitions";
/// `KHR_enable_operator_expressions`: the graph body may use compositional expressions.
pub const OPERATOR_EXPRESSIONS: &str = "KHR_enable_operator_expressions";

/// A declared fragment with its parameter and result types.
#[derive(Debug, Clone)]
pub struct Prototype<'a> {
    /// The fragment as written.
    pub fragment: &'a Fragment,
    /// Parameter types, in declaration order.
    pub parameter_types: Vec<Type>,
    /// Result types, in declaration order.
    pub result_types: Vec<Type>,
    /// True for the standard library's fragments.
    pub standard: bool,
}

impl Prototype<'_> {
    /// The declaration.
    pub fn declaration(&self) -> &FragmentDeclaration {
        &self.fragment.declaration
    }
    /// Index of the parameter `name`.
    pub fn parameter_index(&self, name: &str) -> Option<usize> {
        self.declaration()
            .parameters
            .iter()
            .position(|p| p.name == name)
    }
}

/// Every fragment visible to a document, by name.
#[derive(Debug, Clone, Default)]
pub struct Declarations<'a> {
    prototypes: HashMap<&'a str, Prototype<'a>>,
}

impl<'a> Declarations<'a> {
    /// The fragment `name`.
    pub fn get(&self, name: &str) -> Option<&Prototype<'a>> {
        self.prototypes.get(name)
    }

    /// Collects the standard library and the document's fragments.
    ///
    /// Errors (semantic, at the offending declaration): a document fragment without
    /// `extension KHR_enable_fragment_definitions`; a name declared twice; a parameter or
    /// result name used twice or for both; a default value whose type does not convert to the
    /// parameter's; a tensor parameter after an attribute parameter; results mixing tensor and
    /// attribute types; generic types in a fragment not declared `<?>` and vice versa.
    pub fn collect(standard: &'a [Fragment], document: &'a Document) -> Result<Declarations<'a>> {
        let mut declarations = Declarations::default();
        for fragment in standard {
            declarations.add(fragment, true)?;
        }
        let enabled = document
            .extensions
            .iter()
            .any(|(e, _)| e == FRAGMENT_DEFINITIONS);
        for fragment in &document.fragments {
            if !enabled {
                return Err(NnefError::semantic(
                    fragment.declaration.span,
                    format!(
                        "fragment definitions need `extension {FRAGMENT_DEFINITIONS};` after the version"
                    ),
                ));
            }
            declarations.add(fragment, false)?;
        }
        Ok(declarations)
    }

    fn add(&mut self, fragment: &'a Fragment, standard: bool) -> Result<()> {
        let decl = &fragment.declaration;
        if let Some(existing) = self.prototypes.get(decl.name.as_str()) {
            let where_ = if existing.standard {
                "in the standard library".to_string()
            } else {
                format!("at {}", existing.declaration().span)
            };
            return Err(NnefError::semantic(
                decl.span,
                format!("fragment '{}' is already declared {where_}", decl.name),
            ));
        }
        let prototype = check_declaration(fragment, standard)?;
        self.prototypes.insert(decl.name.as_str(), prototype);
        Ok(())
    }
}

fn check_declaration(fragment: &Fragment, standard: bool) -> Result<Prototype<'_>> {
    let decl = &fragment.declaration;
    let mut parameter_types = Vec::with_capacity(decl.parameters.len());
    let mut seen_attribute = false;
    for (i, p) in decl.parameters.iter().enumerate() {
        if decl.parameters[..i].iter().any(|q| q.name == p.name) {
            return Err(NnefError::semantic(
                p.span,
                format!(
                    "parameter '{}' of fragment '{}' is declared twice",
                    p.name, decl.name
                ),
            ));
        }
        let ty = Type::from_spec(&p.ty);
        if seen_attribute && !ty.is_attribute() {
            return Err(NnefError::semantic(
                p.span,
                format!(
                    "tensor parameter '{}' of fragment '{}' follows an attribute parameter: tensor parameters come first",
                    p.name, decl.name
                ),
            ));
        }
        seen_attribute |= ty.is_attribute();
        if let Some(default) = &p.default {
            check_literal(default)?;
            let default_type = literal_type(default)?;
            if !default_type.castable_to(&ty) {
                return Err(NnefError::semantic(
                    default.span,
                    format!(
                        "default value of parameter '{}' has type {default_type}, which does not convert to {ty}",
                        p.name
                    ),
                ));
            }
        }
        parameter_types.push(ty);
    }
    let mut result_types = Vec::with_capacity(decl.results.len());
    for (i, r) in decl.results.iter().enumerate() {
        if decl.results[..i].iter().any(|q| q.name == r.name) {
            return Err(NnefError::semantic(
                r.span,
                format!(
                    "result '{}' of fragment '{}' is declared twice",
                    r.name, decl.name
                ),
            ));
        }
        if decl.parameters.iter().any(|p| p.name == r.name) {
            return Err(NnefError::semantic(
                r.span,
                format!(
                    "'{}' is both a parameter and a result of fragment '{}'",
                    r.name, decl.name
                ),
            ));
        }
        result_types.push(Type::from_spec(&r.ty));
    }
    if let Some(first) = result_types.first() {
        let attribute = first.is_attribute();
        if let Some((r, _)) = decl
            .results
            .iter()
            .zip(&result_types)
            .find(|(_, t)| t.is_attribute() != attribute)
        {
            return Err(NnefError::semantic(
                r.span,
                format!(
                    "results of fragment '{}' must be all tensors or all attributes",
                    decl.name
                ),
            ));
        }
    }
    let generic_types = parameter_types
        .iter()
        .chain(&result_types)
        .any(Type::is_generic);
    match (decl.generic.is_some(), generic_types) {
        (false, true) => {
            return Err(NnefError::semantic(
                decl.span,
                format!(
                "fragment '{}' uses the generic type `?` but is not declared generic with `<?>`",
                decl.name
            ),
            ))
        }
        (true, false) => {
            return Err(NnefError::semantic(
                decl.span,
                format!(
                "fragment '{}' is declared generic with `<?>` but no parameter or result uses `?`",
                decl.name
            ),
            ))
        }
        _ => {}
    }
    Ok(Prototype {
        fragment,
        parameter_types,
        result_types,
        standard,
    })
}

/// Default values are literal expressions: literals, arrays and tuples of them, negated numbers.
fn check_literal(expr: &Expr) -> Result<()> {
    match &expr.kind {
        ExprKind::Integer(_) | ExprKind::Scalar(_) | ExprKind::Logical(_) | ExprKind::String(_) => {
            Ok(())
        }
        ExprKind::Array(items) | ExprKind::Tuple(items) => items.iter().try_for_each(check_literal),
        ExprKind::Unary(crate::ast::UnaryOp::Minus | crate::ast::UnaryOp::Plus, inner)
            if matches!(inner.kind, ExprKind::Integer(_) | ExprKind::Scalar(_)) =>
        {
            Ok(())
        }
        _ => Err(NnefError::semantic(
            expr.span,
            "a default value must be a literal expression (numbers, strings, logicals, arrays and tuples of them)",
        )),
    }
}
