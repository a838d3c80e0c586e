//! From a parsed document to a [`Graph`]: the semantic rules of seed 003 §3.3, checked
//! statically on every body ([`typecheck`], [`declarations`]), then evaluation with shape
//! propagation ([`evaluate`]).

pub mod declarations;
pub mod evaluate;
pub mod operators;
pub mod typecheck;
pub mod types;

use std::collections::HashSet;

use crate::ast::{Assignment, Document, Expr, ExprKind};
use crate::error::{NnefError, Result};
use crate::graph::Graph;
use declarations::{Declarations, FRAGMENT_DEFINITIONS, OPERATOR_EXPRESSIONS};
use typecheck::{check_body, BodyRules, Scope};
use types::Type;

/// Extensions this front end implements.
pub const KNOWN_EXTENSIONS: [&str; 2] = [FRAGMENT_DEFINITIONS, OPERATOR_EXPRESSIONS];

/// Checks `document` against every rule of seed 003 §3.3 and evaluates it: the graph's
/// operations with every argument evaluated, compound fragments expanded, and the shape and
/// data type of every tensor (§3.3.4).
///
/// Errors: the first rule broken, at its line:col ([`crate::ErrorKind::Semantic`] for §3.3.1–3,
/// [`crate::ErrorKind::Shape`] for shape propagation and argument validity).
pub fn evaluate(document: &Document) -> Result<Graph> {
    let declarations = check(document)?;
    let graph = &document.graph;
    let mut evaluator = evaluate::Evaluator::new(&declarations, &graph.name);
    let mut env = evaluate::Env::new();
    for assignment in &graph.body {
        evaluator.graph_assignment(assignment, &mut env)?;
    }
    let mut result = evaluator.graph;
    result.inputs = graph.inputs.iter().map(|(n, _)| n.clone()).collect();
    result.outputs = Vec::with_capacity(graph.outputs.len());
    for (name, span) in &graph.outputs {
        match env.get(name).and_then(|v| v.as_tensor()) {
            Some(t) if result.tensors.contains_key(t) => result.outputs.push(t.to_string()),
            _ => {
                return Err(NnefError::semantic(
                    *span,
                    format!("graph output '{name}' is not a tensor of the graph"),
                ))
            }
        }
    }
    Ok(result)
}

/// The static checks alone (no evaluation): version, extensions, declarations, every fragment
/// body and the graph body. Returns the declarations the document sees.
///
/// Errors: as [`evaluate`], semantic ones only.
pub fn check(document: &Document) -> Result<Declarations<'_>> {
    if document.version.0 != 1 {
        return Err(NnefError::semantic(
            document.version_span,
            format!(
                "unsupported NNEF version {}.{}: this front end reads version 1.x",
                document.version.0, document.version.1
            ),
        ));
    }
    let mut seen = HashSet::new();
    for (ext, span) in &document.extensions {
        if !KNOWN_EXTENSIONS.contains(&ext.as_str()) {
            return Err(NnefError::semantic(
                *span,
                format!(
                    "unsupported extension '{ext}' (known: {})",
                    KNOWN_EXTENSIONS.join(", ")
                ),
            ));
        }
        if !seen.insert(ext) {
            return Err(NnefError::semantic(
                *span,
                format!("extension '{ext}' is enabled twice"),
            ));
        }
    }
    let declarations = Declarations::collect(crate::stdlib::standard_fragments(), document)?;
    for fragment in &document.fragments {
        if let Some(body) = &fragment.body {
            check_fragment_body(&declarations, fragment, body)?;
        }
    }
    check_graph(&declarations, document)?;
    Ok(declarations)
}

/// Checks a fragment body: parameters read-only, results assigned exactly once with a type that
/// converts to the declared one, no `external`/`variable`/`update`.
pub fn check_fragment_body(
    declarations: &Declarations<'_>,
    fragment: &crate::ast::Fragment,
    body: &[Assignment],
) -> Result<()> {
    let decl = &fragment.declaration;
    let scope: Scope = decl
        .parameters
        .iter()
        .map(|p| (p.name.clone(), Type::from_spec(&p.ty)))
        .collect();
    let parameters: Vec<String> = decl.parameters.iter().map(|p| p.name.clone()).collect();
    let rules = BodyRules {
        graph: false,
        operators: true,
    };
    let scope = check_body(declarations, rules, body, scope, &parameters)?;
    for r in &decl.results {
        let declared = Type::from_spec(&r.ty);
        match scope.get(&r.name) {
            None => {
                return Err(NnefError::semantic(
                    r.span,
                    format!("result '{}' of fragment '{}' is never assigned", r.name, decl.name),
                ))
            }
            Some(t) if !t.castable_to(&declared) => {
                return Err(NnefError::semantic(
                    r.span,
                    format!(
                        "result '{}' of fragment '{}' is declared {declared} but assigned a value of type {t}",
                        r.name, decl.name
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn check_graph(declarations: &Declarations<'_>, document: &Document) -> Result<()> {
    let graph = &document.graph;
    for (list, what) in [(&graph.inputs, "input"), (&graph.outputs, "output")] {
        for (i, (name, span)) in list.iter().enumerate() {
            if list[..i].iter().any(|(n, _)| n == name) {
                return Err(NnefError::semantic(
                    *span,
                    format!("graph {what} '{name}' is listed twice"),
                ));
            }
        }
    }
    if let Some((name, span)) = graph
        .outputs
        .iter()
        .find(|(o, _)| graph.inputs.iter().any(|(i, _)| i == o))
    {
        return Err(NnefError::semantic(
            *span,
            format!("'{name}' is both an input and an output of the graph: parameter and result names are unique"),
        ));
    }
    let operators = document
        .extensions
        .iter()
        .any(|(e, _)| e == OPERATOR_EXPRESSIONS);
    // Graph inputs are defined by `external`, and only they are.
    for assignment in &graph.body {
        check_externals(&assignment.lhs, &assignment.rhs, graph)?;
    }
    let rules = BodyRules {
        graph: true,
        operators,
    };
    let scope = check_body(declarations, rules, &graph.body, Scope::new(), &[])?;
    let end = crate::error::Span::new(
        graph.body.last().map_or(graph.span.line, |a| a.span.line),
        graph
            .body
            .last()
            .map_or(graph.span.column, |a| a.span.column),
    );
    for (name, span) in &graph.inputs {
        if !scope.contains_key(name) {
            return Err(NnefError::semantic(
                *span,
                format!(
                    "graph input '{name}' is never defined: each input is assigned by `external`"
                ),
            ));
        }
    }
    for (name, span) in &graph.outputs {
        if !scope.contains_key(name) {
            let at = if span.line > 0 { *span } else { end };
            return Err(NnefError::semantic(
                at,
                format!("graph output '{name}' is never assigned"),
            ));
        }
    }
    Ok(())
}

fn check_externals(lhs: &Expr, rhs: &Expr, graph: &crate::ast::GraphDefinition) -> Result<()> {
    let is_input = |n: &str| graph.inputs.iter().any(|(i, _)| i == n);
    match (&lhs.kind, &rhs.kind) {
        (ExprKind::Array(l), ExprKind::Array(r)) | (ExprKind::Tuple(l), ExprKind::Tuple(r))
            if l.len() == r.len() =>
        {
            l.iter()
                .zip(r)
                .try_for_each(|(l, r)| check_externals(l, r, graph))
        }
        (ExprKind::Identifier(name), ExprKind::Invocation(inv)) => {
            if inv.name == "external" && !is_input(name) {
                return Err(NnefError::semantic(
                    lhs.span,
                    format!("'{name}' is assigned by `external` but is not a graph input"),
                ));
            }
            if inv.name != "external" && is_input(name) {
                return Err(NnefError::semantic(
                    lhs.span,
                    format!(
                        "graph input '{name}' must be assigned by `external`, not '{}'",
                        inv.name
                    ),
                ));
            }
            Ok(())
        }
        _ => {
            let mut names = Vec::new();
            lvalue_names(lhs, &mut names);
            match names.into_iter().find(|n| is_input(n)) {
                Some(name) => Err(NnefError::semantic(
                    lhs.span,
                    format!("graph input '{name}' must be assigned by `external`"),
                )),
                None => Ok(()),
            }
        }
    }
}

fn lvalue_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Identifier(n) => out.push(n.clone()),
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|i| lvalue_names(i, out))
        }
        _ => {}
    }
}
