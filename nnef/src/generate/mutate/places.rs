//! Where mutations apply: bodies, invocation sites and their parameters, names, externals,
//! and the small fragment added when a document has none.

use std::collections::BTreeSet;

use super::*;

impl<R: RngLike> Mutator<'_, R> {
    pub(super) fn body(&self, b: Body) -> Option<&Vec<Assignment>> {
        match b {
            Body::Graph => Some(&self.doc.graph.body),
            Body::Fragment(f) => self.doc.fragments[f].body.as_ref(),
        }
    }

    pub(super) fn body_mut(&mut self, b: Body) -> Option<&mut Vec<Assignment>> {
        match b {
            Body::Graph => Some(&mut self.doc.graph.body),
            Body::Fragment(f) => self.doc.fragments[f].body.as_mut(),
        }
    }

    /// The formal parameters of fragment `name` (the document's own, else the standard one's).
    pub(super) fn params_of(&self, name: &str) -> Option<Vec<ParamInfo>> {
        if let Some(f) = self
            .doc
            .fragments
            .iter()
            .find(|f| f.declaration.name == name)
        {
            return Some(
                f.declaration
                    .parameters
                    .iter()
                    .map(|p| ParamInfo {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        default: p.default.is_some(),
                    })
                    .collect(),
            );
        }
        let sig = signature(name)?;
        Some(
            sig.params
                .iter()
                .map(|p| ParamInfo {
                    name: p.name.to_string(),
                    ty: p.type_spec(),
                    default: p.default,
                })
                .collect(),
        )
    }

    pub(super) fn params_at(&self, site: (Body, usize)) -> Option<Vec<ParamInfo>> {
        let ExprKind::Invocation(inv) = &self.body(site.0)?[site.1].rhs.kind else {
            return None;
        };
        self.params_of(&inv.name)
    }

    /// A random assignment (graph or fragment body) whose right side is an invocation of a
    /// fragment with known parameters satisfying `pred`.
    pub(super) fn site(
        &mut self,
        pred: impl Fn(&Invocation, &[ParamInfo]) -> bool,
    ) -> Option<(Body, usize)> {
        let mut bodies = vec![Body::Graph];
        bodies.extend((0..self.doc.fragments.len()).map(Body::Fragment));
        let mut sites = Vec::new();
        for b in bodies {
            let Some(body) = self.body(b) else { continue };
            for (i, a) in body.iter().enumerate() {
                if let ExprKind::Invocation(inv) = &a.rhs.kind {
                    if let Some(params) = self.params_of(&inv.name) {
                        if pred(inv, &params) {
                            sites.push((b, i));
                        }
                    }
                }
            }
        }
        choose(&mut self.rng, &sites)
    }

    pub(super) fn invocation_mut(&mut self, site: (Body, usize)) -> &mut Invocation {
        let body = self.body_mut(site.0).expect("site bodies exist");
        match &mut body[site.1].rhs.kind {
            ExprKind::Invocation(inv) => inv,
            _ => unreachable!("sites are invocations"),
        }
    }

    /// Every identifier the document uses or binds, and every fragment name.
    pub(super) fn names(&self) -> BTreeSet<String> {
        let mut names = Vec::new();
        let mut bodies: Vec<&Vec<Assignment>> = vec![&self.doc.graph.body];
        for f in &self.doc.fragments {
            names.push(f.declaration.name.clone());
            names.extend(f.declaration.parameters.iter().map(|p| p.name.clone()));
            names.extend(f.declaration.results.iter().map(|r| r.name.clone()));
            bodies.extend(f.body.iter());
        }
        for body in bodies {
            for a in body {
                bound_names(&a.lhs, &mut names);
                used_names(&a.rhs, &mut names);
            }
        }
        names.into_iter().collect()
    }

    /// `base`, or `base2`, `base3`, ... — the first not used in the document.
    pub(super) fn fresh_name(&self, base: &str) -> String {
        let names = self.names();
        (1..)
            .map(|k| {
                if k == 1 {
                    base.to_string()
                } else {
                    format!("{base}{k}")
                }
            })
            .find(|n| !names.contains(n))
            .unwrap_or_default()
    }

    /// Graph-body externals: (assignment index, name, shape); scalar ones only if `scalar`.
    pub(super) fn externals(&self, scalar: bool) -> Vec<(usize, String, Vec<usize>)> {
        let mut out = Vec::new();
        for (i, a) in self.doc.graph.body.iter().enumerate() {
            let (ExprKind::Identifier(name), ExprKind::Invocation(inv)) =
                (&a.lhs.kind, &a.rhs.kind)
            else {
                continue;
            };
            if inv.name != "external"
                || (scalar && !matches!(inv.generic, None | Some(TypeName::Scalar)))
            {
                continue;
            }
            let shape = inv
                .arguments
                .iter()
                .find(|a| a.name.as_ref().is_some_and(|(n, _)| n == "shape"));
            let Some(ExprKind::Array(items)) = shape.map(|a| &a.value.kind) else {
                continue;
            };
            let shape: Option<Vec<usize>> = items
                .iter()
                .map(|e| match e.kind {
                    ExprKind::Integer(v) if v >= 1 => Some(v as usize),
                    _ => None,
                })
                .collect();
            if let Some(shape) = shape {
                out.push((i, name.clone(), shape));
            }
        }
        out
    }

    /// Names bound by single-identifier assignments of the graph body.
    pub(super) fn graph_tensors(&self) -> Vec<String> {
        self.doc
            .graph
            .body
            .iter()
            .filter_map(|a| match &a.lhs.kind {
                ExprKind::Identifier(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    }

    pub(super) fn append_variable(&mut self, shape: &[usize]) -> String {
        let v = self.fresh_name("bad_weights");
        let rhs = call(
            "variable",
            vec![named("shape", extents(shape)), named("label", string(&v))],
        );
        self.doc.graph.body.push(assign(ident(&v), rhs));
        v
    }

    pub(super) fn append_op(&mut self, op: &str, args: Vec<crate::ast::Argument>) {
        let t = self.fresh_name("bad_result");
        self.doc.graph.body.push(assign(ident(&t), call(op, args)));
    }

    /// The index of a fragment with a body to mutate: one of the document's, or a small one
    /// added (with the KHR extensions and an invocation from the graph) when it has none.
    pub(super) fn fragment_index(&mut self) -> usize {
        let with_body: Vec<usize> = (0..self.doc.fragments.len())
            .filter(|&f| self.doc.fragments[f].body.is_some())
            .collect();
        match choose(&mut self.rng, &with_body) {
            Some(f) => f,
            None => self.add_fragment(),
        }
    }

    pub(super) fn ensure_extensions(&mut self) {
        for ext in [
            "KHR_enable_fragment_definitions",
            "KHR_enable_operator_expressions",
        ] {
            if !self.doc.extensions.iter().any(|(e, _)| e == ext) {
                self.doc.extensions.push((ext.to_string(), Span::default()));
            }
        }
    }

    /// Adds (with the KHR extensions) the fragment
    /// `tiny( x: tensor<scalar>, alpha: scalar = 1.0, sizes: integer[] = [1], flag: logical = true )
    /// -> ( y: tensor<scalar> ) { y = mul(x, alpha * scalar(sizes[0])) if flag else x; }`
    /// and invokes it on a scalar external; returns its index.
    pub(super) fn add_fragment(&mut self) -> usize {
        self.ensure_extensions();
        let name = self.fresh_name("tiny");
        let s = TypeName::Scalar;
        let param = |name: &str, ty: TypeSpec, default: Option<Expr>| Parameter {
            name: name.into(),
            ty,
            default,
            span: Span::default(),
        };
        let factor = binary(
            BinaryOp::Mul,
            ident("alpha"),
            builtin(Builtin::Scalar, index(ident("sizes"), int(0))),
        );
        let scaled = call("mul", vec![pos(ident("x")), pos(factor)]);
        self.doc.fragments.push(Fragment {
            declaration: FragmentDeclaration {
                name: name.clone(),
                generic: None,
                parameters: vec![
                    param("x", TypeSpec::Tensor(Some(s)), None),
                    param("alpha", TypeSpec::Primitive(s), Some(real(1.0))),
                    param(
                        "sizes",
                        TypeSpec::Array(Box::new(TypeSpec::Primitive(TypeName::Integer))),
                        Some(ints(&[1])),
                    ),
                    param(
                        "flag",
                        TypeSpec::Primitive(TypeName::Logical),
                        Some(logical(true)),
                    ),
                ],
                results: vec![ResultDecl {
                    name: "y".into(),
                    ty: TypeSpec::Tensor(Some(s)),
                    span: Span::default(),
                }],
                span: Span::default(),
            },
            body: Some(vec![assign(
                ident("y"),
                select(ident("flag"), scaled, ident("x")),
            )]),
        });
        if let Some((i, x, _)) = self.externals(true).first().cloned() {
            let out = self.fresh_name("tiny_out");
            self.doc.graph.body.insert(
                i + 1,
                assign(ident(&out), call(&name, vec![pos(ident(&x))])),
            );
        }
        self.doc.fragments.len() - 1
    }
}
