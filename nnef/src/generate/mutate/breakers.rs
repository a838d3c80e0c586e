//! The rules whose mutation takes more than a few lines.

use super::*;

impl<R: RngLike> Mutator<'_, R> {
    pub(super) fn duplicate_fragment_name(&mut self) -> Option<()> {
        if !self.doc.fragments.is_empty() && self.rng.chance(0.6) {
            let f = self.rng.index(self.doc.fragments.len());
            let copy = self.doc.fragments[f].clone();
            self.doc.fragments.insert(f + 1, copy);
            return Some(());
        }
        // Redefine a standard fragment.
        self.ensure_extensions();
        let s = TypeName::Scalar;
        let name = ["relu", "copy", "sigmoid"][self.rng.index(3)];
        self.doc.fragments.insert(
            0,
            Fragment {
                declaration: FragmentDeclaration {
                    name: name.to_string(),
                    generic: None,
                    parameters: vec![Parameter {
                        name: "x".into(),
                        ty: TypeSpec::Tensor(Some(s)),
                        default: None,
                        span: Span::default(),
                    }],
                    results: vec![ResultDecl {
                        name: "y".into(),
                        ty: TypeSpec::Tensor(Some(s)),
                        span: Span::default(),
                    }],
                    span: Span::default(),
                },
                body: Some(vec![assign(ident("y"), call("neg", vec![pos(ident("x"))]))]),
            },
        );
        Some(())
    }

    pub(super) fn missing_argument(&mut self) -> Option<()> {
        // Removable: a named argument of a parameter without default, or the last positional
        // argument when its parameter has no default and more arguments remain.
        let removable = |inv: &Invocation, params: &[ParamInfo]| -> Vec<usize> {
            let positional = inv
                .arguments
                .iter()
                .take_while(|a| a.name.is_none())
                .count();
            let mut out = Vec::new();
            for (i, a) in inv.arguments.iter().enumerate() {
                let param = match &a.name {
                    Some((n, _)) => params.iter().find(|p| p.name == *n),
                    None if i + 1 == positional => params.get(i),
                    None => None,
                };
                if param.is_some_and(|p| !p.default) && inv.arguments.len() >= 2 {
                    out.push(i);
                }
            }
            out
        };
        let site = self.site(|inv, params| !removable(inv, params).is_empty())?;
        let params = self.params_at(site)?;
        let inv = self.invocation_mut(site);
        let candidates = removable(inv, &params);
        let i = candidates[0];
        inv.arguments.remove(i);
        Some(())
    }

    pub(super) fn non_tensor_positional(&mut self) -> Option<()> {
        // The named argument of the attribute parameter whose index equals the number of
        // positional arguments: moved first among the named ones and unnamed, it lands on its
        // own parameter — given positionally.
        let target = |inv: &Invocation, params: &[ParamInfo]| -> Option<usize> {
            let positional = inv
                .arguments
                .iter()
                .take_while(|a| a.name.is_none())
                .count();
            let param = params.get(positional)?;
            if is_tensor_type(&param.ty) {
                return None;
            }
            inv.arguments
                .iter()
                .position(|a| a.name.as_ref().is_some_and(|(n, _)| *n == param.name))
        };
        let site = self.site(|inv, params| target(inv, params).is_some())?;
        let params = self.params_at(site)?;
        let inv = self.invocation_mut(site);
        let i = target(inv, &params)?;
        let positional = inv
            .arguments
            .iter()
            .take_while(|a| a.name.is_none())
            .count();
        let mut arg = inv.arguments.remove(i);
        arg.name = None;
        inv.arguments.insert(positional, arg);
        Some(())
    }

    pub(super) fn bad_left_side(&mut self, invocation: bool) -> Option<()> {
        let body = &self.doc.graph.body;
        let candidates: Vec<usize> = (0..body.len())
            .filter(|&i| {
                matches!(&body[i].rhs.kind, ExprKind::Invocation(inv) if !["external", "variable"].contains(&inv.name.as_str()))
                    && matches!(body[i].lhs.kind, ExprKind::Identifier(_))
            })
            .collect();
        let i = choose(&mut self.rng, &candidates)?;
        let ExprKind::Identifier(name) = self.doc.graph.body[i].lhs.kind.clone() else {
            return None;
        };
        let lhs = if invocation {
            call("copy", vec![pos(ident(&name))])
        } else {
            [int(1), real(2.0), string("a"), logical(true)][self.rng.index(4)].clone()
        };
        let rhs = self.doc.graph.body[i].rhs.clone();
        self.doc.graph.body.insert(i + 1, assign(lhs, rhs));
        Some(())
    }

    pub(super) fn use_before_definition(&mut self) -> Option<()> {
        let body = &self.doc.graph.body;
        let mut defined_at = std::collections::BTreeMap::new();
        let mut pairs = Vec::new();
        for (j, a) in body.iter().enumerate() {
            let mut used = Vec::new();
            used_names(&a.rhs, &mut used);
            for u in used {
                if let Some(&i) = defined_at.get(&u) {
                    pairs.push((i, j));
                }
            }
            let mut bound = Vec::new();
            bound_names(&a.lhs, &mut bound);
            for n in bound {
                defined_at.insert(n, j);
            }
        }
        let (i, j) = choose(&mut self.rng, &pairs)?;
        let moved = self.doc.graph.body.remove(j);
        self.doc.graph.body.insert(i, moved);
        Some(())
    }

    pub(super) fn argument_type_mismatch(&mut self) -> Option<()> {
        let wrong_at = |inv: &Invocation, params: &[ParamInfo]| -> Vec<usize> {
            let mut out = Vec::new();
            for (i, a) in inv.arguments.iter().enumerate() {
                let param = match &a.name {
                    Some((n, _)) => params.iter().find(|p| p.name == *n),
                    None => params.get(i),
                };
                if param.is_some_and(|p| wrong_literal(&p.ty).is_some()) {
                    out.push(i);
                }
            }
            out
        };
        let site = self.site(|inv, params| !wrong_at(inv, params).is_empty())?;
        let params = self.params_at(site)?;
        let inv = self.invocation_mut(site);
        let candidates = wrong_at(inv, &params);
        let i = candidates[candidates.len() - 1];
        let ty = match &inv.arguments[i].name {
            Some((n, _)) => params.iter().find(|p| p.name == *n)?.ty.clone(),
            None => params.get(i)?.ty.clone(),
        };
        inv.arguments[i].value = wrong_literal(&ty)?;
        Some(())
    }

    pub(super) fn logical_for_scalar(&mut self) -> Option<()> {
        let scalar_identifier_at = |inv: &Invocation, params: &[ParamInfo]| -> Option<usize> {
            (0..inv.arguments.len()).find(|&i| {
                inv.arguments[i].name.is_none()
                    && matches!(inv.arguments[i].value.kind, ExprKind::Identifier(_))
                    && params
                        .get(i)
                        .is_some_and(|p| p.ty == TypeSpec::Tensor(Some(TypeName::Scalar)))
            })
        };
        let mut sites = Vec::new();
        for (i, a) in self.doc.graph.body.iter().enumerate() {
            if let ExprKind::Invocation(inv) = &a.rhs.kind {
                if self
                    .params_of(&inv.name)
                    .is_some_and(|p| scalar_identifier_at(inv, &p).is_some())
                {
                    sites.push(i);
                }
            }
        }
        let at = choose(&mut self.rng, &sites)?;
        let params = self.params_at((Body::Graph, at))?;
        let bad = self.fresh_name("mask");
        let inv = self.invocation_mut((Body::Graph, at));
        let k = scalar_identifier_at(inv, &params)?;
        let original = std::mem::replace(&mut inv.arguments[k].value, ident(&bad));
        let mask = call("ne", vec![pos(original.clone()), pos(original)]);
        self.doc.graph.body.insert(at, assign(ident(&bad), mask));
        Some(())
    }

    pub(super) fn tuple_arity(&mut self) -> Option<()> {
        let extra = self.fresh_name("extra");
        let mut bodies = vec![Body::Graph];
        bodies.extend((0..self.doc.fragments.len()).map(Body::Fragment));
        let mut sites = Vec::new();
        for b in bodies {
            if let Some(body) = self.body(b) {
                sites.extend(
                    (0..body.len())
                        .filter(|&i| matches!(body[i].lhs.kind, ExprKind::Tuple(_)))
                        .map(|i| (b, i)),
                );
            }
        }
        if let Some((b, i)) = choose(&mut self.rng, &sites) {
            if let ExprKind::Tuple(items) = &mut self.body_mut(b)?[i].lhs.kind {
                items.push(ident(&extra));
                return Some(());
            }
        }
        let (i, x, _) = {
            let e = self.externals(true);
            choose(&mut self.rng, &e)?
        };
        let (mean, variance) = (self.fresh_name("mean"), self.fresh_name("variance"));
        let lhs = tuple(vec![ident(&mean), ident(&variance), ident(&extra)]);
        let rhs = call("moments", vec![pos(ident(&x)), named("axes", ints(&[0]))]);
        self.doc.graph.body.insert(i + 1, assign(lhs, rhs));
        Some(())
    }

    /// Rewrites one random sub-expression matching `pred` in the fragment bodies (adding the
    /// small fragment, which has a selection and a subscript, when none matches).
    pub(super) fn rewrite_nth_in_fragments(
        &mut self,
        pred: impl Fn(&Expr) -> bool,
        rewrite: impl Fn(&mut Expr),
    ) -> Option<()> {
        let mut count = self.count_in_fragments(&pred);
        if count == 0 {
            self.add_fragment();
            count = self.count_in_fragments(&pred);
        }
        if count == 0 {
            return None;
        }
        let target = self.rng.index(count);
        let mut seen = 0;
        for f in self.doc.fragments.iter_mut() {
            for a in f.body.iter_mut().flatten() {
                visit_mut(&mut a.rhs, &mut |e| {
                    if pred(e) {
                        if seen == target {
                            rewrite(e);
                        }
                        seen += 1;
                    }
                });
            }
        }
        Some(())
    }

    pub(super) fn count_in_fragments(&mut self, pred: &impl Fn(&Expr) -> bool) -> usize {
        let mut count = 0;
        for f in self.doc.fragments.iter_mut() {
            for a in f.body.iter_mut().flatten() {
                visit_mut(&mut a.rhs, &mut |e| {
                    if pred(e) {
                        count += 1
                    }
                });
            }
        }
        count
    }
}
