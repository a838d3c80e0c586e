//! Cases of tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv; XLA's Outfeed),
//! valid by construction (`conformance_spec::host_transfer`): a chain of side effects threaded
//! through one token, joined now and then by `after-all`; infeeds of random shapes and layouts
//! (now and then an empty tuple, which reads nothing) with each device's queue after its
//! parameters, in the infeed's layout (seed 004, Infeed); outfeeds of parameters; `send`/`recv` between 1 to 6
//! replicas on one or two channels, each a random partial matching of devices (self-pairs
//! included), receives made before or after the matching sends in the text. The values read,
//! written and received are the results, so every move is checked exactly.

use super::collective::pairs;
use super::elementwise::{Built, CaseSpec};
use super::movement::{int, Gen};
use super::rng::Rng;
use conformance_spec::catalog::Signature;
use conformance_spec::collective::{groups_text, set_grid, DeviceGrid};
use conformance_spec::hlo::{AttrValue, Attribute, Opcode};
use conformance_spec::host_transfer::SEND_RECV_PAIRS;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::ElementType;

/// True for the family's signatures.
pub fn is_host_transfer(signature: Signature) -> bool {
    matches!(
        signature,
        Signature::AfterAll
            | Signature::Infeed
            | Signature::Outfeed
            | Signature::Send
            | Signature::Recv
    )
}

/// A random array of `ty`: its shape with a random layout and the values.
fn array(g: &mut Gen, ty: ElementType) -> Result<(ArrayShape, ArrayLiteral), String> {
    let dims = g.dims(0);
    let layout = g.layout(&dims);
    let shape = ArrayShape::new(ty, dims).with_layout(layout);
    let lit = g.values(&shape)?;
    Ok((shape, lit))
}

fn gte(g: &mut Gen, tuple: usize, shape: Shape, k: i64) -> Result<usize, String> {
    g.b.add_instruction(
        Opcode::GetTupleElement,
        shape,
        vec![tuple],
        vec![int("index", k)],
    )
    .map_err(|e| format!("get-tuple-element: {e}"))
}

/// The current token, now and then passed through an `after-all` that joins it with earlier
/// tokens of the chain (all of them its predecessors, so the order stays total) or with none.
fn maybe_join(g: &mut Gen, token: usize, earlier: &[usize]) -> Result<usize, String> {
    if !g.rng.chance(0.4) {
        return Ok(token);
    }
    let mut operands = vec![token];
    for &t in earlier {
        if g.rng.chance(0.5) {
            operands.push(t);
        }
    }
    if g.rng.chance(0.5) {
        operands.reverse();
    }
    g.b.add_instruction(Opcode::AfterAll, Shape::Token, operands, vec![])
        .map_err(|e| format!("after-all: {e}"))
}

/// Builds one case of a token or transfer entry.
///
/// Errors: a generator bug (an invalid module), or a signature outside the family.
pub fn build(source: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let signature = spec.op.signature;
    if !is_host_transfer(signature) {
        return Err(format!("{}: not a token or transfer entry", spec.op.id));
    }
    let ty = spec.element_type;
    let mut g = Gen::new(source, spec);
    if matches!(signature, Signature::Send | Signature::Recv) {
        return channels(g, ty);
    }
    let devices = if g.rng.chance(0.6) {
        1
    } else {
        2 + g.rng.below(3) as usize
    };
    // The parameters (the same shapes on every device, each device its own values).
    let nparams = 1 + g.rng.below(2) as usize;
    let mut params = Vec::new();
    let mut per_device: Vec<Vec<Literal>> = vec![Vec::new(); devices];
    let mut param_shapes = Vec::new();
    for _ in 0..nparams {
        let (shape, lit) = array(&mut g, ty)?;
        per_device[0].push(lit.into());
        for d in per_device.iter_mut().skip(1) {
            d.push(g.values(&shape)?.into());
        }
        params.push(
            g.b.parameter(Shape::Array(shape.clone()))
                .map_err(|e| e.to_string())?,
        );
        param_shapes.push(shape);
    }
    let mut token =
        g.b.add_instruction(Opcode::AfterAll, Shape::Token, vec![], vec![])
            .map_err(|e| format!("after-all: {e}"))?;
    let mut tokens = vec![token];
    let mut results: Vec<(usize, Shape)> = Vec::new();
    let steps = 1 + g.rng.below(4) as usize;
    let mut queue: Vec<Vec<Literal>> = vec![Vec::new(); devices];
    let (want_in, want_out) = match signature {
        Signature::Infeed => (true, g.rng.chance(0.3)),
        Signature::Outfeed => (g.rng.chance(0.3), true),
        _ => (g.rng.chance(0.7), true),
    };
    for step in 0..steps {
        token = maybe_join(&mut g, token, &tokens)?;
        let infeed_now = want_in && (!want_out || step % 2 == 0 || g.rng.chance(0.5));
        if infeed_now {
            // An infeed: the data of one array (or, now and then, the empty tuple: no read).
            let empty = g.rng.chance(0.1);
            let data_shape = if empty {
                Shape::Tuple(vec![])
            } else {
                let (shape, lit) = array(&mut g, ty)?;
                queue[0].push(lit.into());
                for q in queue.iter_mut().skip(1) {
                    q.push(g.values(&shape)?.into());
                }
                // Seed 004, Infeed: the declared layout must be the layout of the data sent.
                Shape::Array(shape)
            };
            let fed =
                g.b.add_instruction(
                    Opcode::Infeed,
                    Shape::Tuple(vec![data_shape.clone(), Shape::Token]),
                    vec![token],
                    vec![Attribute {
                        name: "infeed_config".into(),
                        value: AttrValue::Str(String::new()),
                    }],
                )
                .map_err(|e| format!("infeed: {e}"))?;
            if !empty {
                let v = gte(&mut g, fed, data_shape.clone(), 0)?;
                results.push((v, data_shape));
            }
            token = gte(&mut g, fed, Shape::Token, 1)?;
        } else {
            // An outfeed of a parameter or of a value read before.
            let choice = g.rng.below((params.len() + results.len()) as u64) as usize;
            let (data, shape) = if choice < params.len() {
                (params[choice], Shape::Array(param_shapes[choice].clone()))
            } else {
                results[choice - params.len()].clone()
            };
            token =
                g.b.add_instruction(
                    Opcode::Outfeed,
                    Shape::Token,
                    vec![data, token],
                    vec![Attribute {
                        name: "outfeed_shape".into(),
                        value: AttrValue::Raw(shape.to_string()),
                    }],
                )
                .map_err(|e| format!("outfeed: {e}"))?;
        }
        tokens.push(token);
    }
    if signature == Signature::AfterAll {
        // A join of the chain's tokens that orders a last outfeed after all of them.
        let mut operands = vec![token];
        operands.extend(tokens.iter().filter(|&&t| t != token));
        let joined =
            g.b.add_instruction(Opcode::AfterAll, Shape::Token, operands, vec![])
                .map_err(|e| format!("after-all: {e}"))?;
        let k = g.rng.below(params.len() as u64) as usize;
        g.b.add_instruction(
            Opcode::Outfeed,
            Shape::Token,
            vec![params[k], joined],
            vec![Attribute {
                name: "outfeed_shape".into(),
                value: AttrValue::Raw(param_shapes[k].to_string()),
            }],
        )
        .map_err(|e| format!("outfeed: {e}"))?;
    }
    // The root: the values read and the parameters, as a tuple.
    let mut leaves: Vec<usize> = results.iter().map(|r| r.0).collect();
    let mut shapes: Vec<Shape> = results.iter().map(|r| r.1.clone()).collect();
    leaves.extend(&params);
    shapes.extend(param_shapes.into_iter().map(Shape::Array));
    let root =
        g.b.add_instruction(Opcode::Tuple, Shape::Tuple(shapes), leaves, vec![])
            .map_err(|e| format!("tuple: {e}"))?;
    g.args = per_device
        .into_iter()
        .zip(queue)
        .flat_map(|(p, q)| p.into_iter().chain(q))
        .collect();
    finish(g, root, devices)
}

/// `send`/`recv` on 1 to 6 replicas: one or two channels, each with its own pairs, one or two
/// rounds per channel; the root holds every value received.
fn channels(mut g: Gen, ty: ElementType) -> Result<Built, String> {
    let devices = 1 + g.rng.below(6) as usize;
    let (shape, lit0) = array(&mut g, ty)?;
    let x =
        g.b.parameter(Shape::Array(shape.clone()))
            .map_err(|e| e.to_string())?;
    let mut args: Vec<Literal> = vec![lit0.into()];
    for _ in 1..devices {
        args.push(g.values(&shape)?.into());
    }
    let data = Shape::Array(shape);
    let u32_scalar = Shape::array(ElementType::U32, vec![]);
    let context = Shape::Tuple(vec![data.clone(), u32_scalar, Shape::Token]);
    let t0 =
        g.b.add_instruction(Opcode::AfterAll, Shape::Token, vec![], vec![])
            .map_err(|e| format!("after-all: {e}"))?;
    let mut received = Vec::new();
    let mut done_tokens = Vec::new();
    let nchannels = 1 + g.rng.below(2) as i64;
    for c in 0..nchannels {
        let channel_id = 1 + c + g.rng.below(3) as i64 * 2;
        let pair_text = groups_text(&pairs(g.rng, devices));
        let attrs = || {
            vec![
                int("channel_id", channel_id),
                Attribute {
                    name: "frontend_attributes".into(),
                    value: AttrValue::Raw(format!("{{{SEND_RECV_PAIRS}=\"{pair_text}\"}}")),
                },
            ]
        };
        let rounds = 1 + g.rng.below(2);
        for _ in 0..rounds {
            // The receive is posted before or after the send in the text; a send is buffered,
            // so either order completes.
            let recv_first = g.rng.chance(0.5);
            let mut recv = None;
            if recv_first {
                recv = Some(
                    g.b.add_instruction(Opcode::Recv, context.clone(), vec![t0], attrs())
                        .map_err(|e| format!("recv: {e}"))?,
                );
            }
            let send =
                g.b.add_instruction(Opcode::Send, context.clone(), vec![x, t0], attrs())
                    .map_err(|e| format!("send: {e}"))?;
            let recv = match recv {
                Some(r) => r,
                None => {
                    g.b.add_instruction(Opcode::Recv, context.clone(), vec![t0], attrs())
                        .map_err(|e| format!("recv: {e}"))?
                }
            };
            let done =
                g.b.add_instruction(
                    Opcode::RecvDone,
                    Shape::Tuple(vec![data.clone(), Shape::Token]),
                    vec![recv],
                    vec![int("channel_id", channel_id)],
                )
                .map_err(|e| format!("recv-done: {e}"))?;
            let sd =
                g.b.add_instruction(
                    Opcode::SendDone,
                    Shape::Token,
                    vec![send],
                    vec![int("channel_id", channel_id)],
                )
                .map_err(|e| format!("send-done: {e}"))?;
            done_tokens.push(sd);
            received.push(gte(&mut g, done, data.clone(), 0)?);
        }
    }
    let shapes = vec![data; received.len()];
    let root =
        g.b.add_instruction(Opcode::Tuple, Shape::Tuple(shapes), received, vec![])
            .map_err(|e| format!("tuple: {e}"))?;
    g.args = args;
    finish(g, root, devices)
}

/// The module on `devices` replicas, verified.
fn finish(g: Gen, root: usize, devices: usize) -> Result<Built, String> {
    let mut built = g.into_built(root)?;
    set_grid(
        &mut built.module,
        DeviceGrid {
            replicas: devices,
            partitions: 1,
        },
    );
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{plan, Filters, GeneratorConfig};

    /// Every entry of the family, on every element type it lists, builds valid modules that
    /// the reference runs.
    #[test]
    fn every_entry_builds_valid_cases() {
        let built = crate::generate::test_support::build_every_entry(
            |op| is_host_transfer(op.signature),
            4,
            build,
        );
        assert!(built > 200, "only {built} transfer cases built");
    }

    /// Generated cases run on the reference and fast and the harness's check passes fast;
    /// the sweep reaches several devices and every opcode.
    #[test]
    fn generated_cases_run_and_agree() {
        let catalog = conformance_spec::catalog::shared().expect("catalog");
        let config = GeneratorConfig::default();
        let filters = Filters {
            ops: ["after-all", "infeed", "outfeed", "send", "recv"]
                .map(String::from)
                .to_vec(),
            dtypes: vec![],
        };
        let all = plan(catalog, &filters).unwrap();
        let reference = conformance_reference::Reference;
        let fast = conformance_fast::Fast::new();
        let mut opcodes = std::collections::BTreeSet::new();
        let mut devices = std::collections::BTreeSet::new();
        for index in 0..300u64 {
            let case = crate::generate::case(catalog, &all, &config, 5, index).unwrap();
            devices.insert(DeviceGrid::of(&case.module).unwrap().devices());
            for i in &case.module.entry_computation().instructions {
                opcodes.insert(i.opcode);
            }
            let op = catalog.op(&case.op_id).unwrap();
            let outcome = crate::check::check(
                op,
                &case.module,
                &case.args,
                &[&reference, &fast],
                &crate::executor::Stage::default(),
            );
            assert!(
                outcome.reference_error.is_none(),
                "{}\n{outcome:?}",
                case.module
            );
            let o = &outcome.outcomes[0];
            assert_eq!(
                o.verdict,
                crate::check::Verdict::Pass,
                "{}\n{o:?}",
                case.module
            );
        }
        for op in [
            Opcode::AfterAll,
            Opcode::Infeed,
            Opcode::Outfeed,
            Opcode::Send,
            Opcode::SendDone,
            Opcode::Recv,
            Opcode::RecvDone,
        ] {
            assert!(opcodes.contains(&op), "{op} never generated");
        }
        assert!(devices.len() >= 4, "{devices:?}");
    }
}
