//! Tokens and host transfers judged and minimized by the harness (docs/host-transfers.md):
//! planted bugs in a backend's transfers (outfeeds written in reverse order, an infeed queue
//! read from its end, a send delivered to the source instead of the target) are found by a
//! sweep of the generator and minimized to a couple of transfers and replicas.

#[path = "common/planted.rs"]
mod planted;

use conformance_fast::Fast;
use conformance_spec::collective::{groups_text, DeviceGrid};
use conformance_spec::hlo::{AttrValue, Opcode};
use conformance_spec::host_transfer::{channel_pairs, module_has, SEND_RECV_PAIRS};
use conformance_spec::{Backend, BackendError, Capabilities, HloModule, Literal};

type Bug = fn(&HloModule, &[Literal]) -> Result<Literal, BackendError>;

/// Fast, with a planted bug.
struct Planted {
    bug: Bug,
}

impl Backend for Planted {
    fn name(&self) -> &str {
        "planted"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        (self.bug)(module, args)
    }
}

/// Each device's outfeed values in reverse order.
fn reversed_outfeeds(module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
    let out = Fast::new().execute(module, args)?;
    if !module_has(module, Opcode::Outfeed) {
        return Ok(out);
    }
    let reverse = |device: Literal| match device {
        Literal::Tuple(mut p) if p.len() == 2 => {
            if let Literal::Tuple(o) = &mut p[1] {
                o.reverse();
            }
            Literal::Tuple(p)
        }
        other => other,
    };
    let devices = DeviceGrid::of(module)?.devices();
    Ok(match out {
        Literal::Tuple(d) if devices > 1 => Literal::Tuple(d.into_iter().map(reverse).collect()),
        one => reverse(one),
    })
}

/// Each device's infeed queue read from its end.
fn queue_from_the_end(module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
    let devices = DeviceGrid::of(module)?.devices();
    let params = module.entry_computation().parameters().len();
    let per = args.len() / devices.max(1);
    let mut changed = Vec::with_capacity(args.len());
    for d in args.chunks(per.max(1)) {
        changed.extend(d[..params.min(d.len())].iter().cloned());
        changed.extend(d[params.min(d.len())..].iter().rev().cloned());
    }
    Fast::new().execute(module, &changed)
}

/// Every channel's pairs turned around (the value goes back to its source).
fn sends_to_source(module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
    let mut m = module.clone();
    let grid = DeviceGrid::of(module)?;
    let e = m.entry;
    for instr in &mut m.computations[e].instructions {
        if !matches!(instr.opcode, Opcode::Send | Opcode::Recv) {
            continue;
        }
        let pairs = channel_pairs(instr, grid)?;
        let swapped: Vec<Vec<i64>> = pairs
            .iter()
            .map(|&(s, t)| vec![t as i64, s as i64])
            .collect();
        for a in &mut instr.attributes {
            if a.name == "frontend_attributes" {
                a.value = AttrValue::Raw(format!(
                    "{{{SEND_RECV_PAIRS}=\"{}\"}}",
                    groups_text(&swapped)
                ));
            }
        }
    }
    Fast::new().execute(&m, args)
}

fn count(module: &HloModule, op: Opcode) -> usize {
    module
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| i.opcode == op)
        .count()
}

#[test]
fn outfeeds_in_reverse_order_are_found_and_minimized() {
    let (module, _) = planted::found_and_minimized(
        "outfeed",
        13,
        &Planted {
            bug: reversed_outfeeds,
        },
    );
    // Two outfeeds on one device show an order.
    assert_eq!(count(&module, Opcode::Outfeed), 2, "{module}");
    assert_eq!(DeviceGrid::of(&module).unwrap().devices(), 1, "{module}");
}

#[test]
fn a_queue_read_from_its_end_is_found_and_minimized() {
    let (module, args) = planted::found_and_minimized(
        "infeed",
        13,
        &Planted {
            bug: queue_from_the_end,
        },
    );
    // One infeed and a queue of two (the second value is what the bug reads), or two infeeds.
    assert!(
        (1..=2).contains(&count(&module, Opcode::Infeed)),
        "{module}"
    );
    assert_eq!(DeviceGrid::of(&module).unwrap().devices(), 1, "{module}");
    let params = module.entry_computation().parameters().len();
    assert_eq!(args.len(), params + 2, "{module}");
}

#[test]
fn a_send_to_the_source_is_found_and_minimized() {
    let (module, _) = planted::found_and_minimized(
        "send",
        13,
        &Planted {
            bug: sends_to_source,
        },
    );
    assert_eq!(DeviceGrid::of(&module).unwrap().devices(), 2, "{module}");
}
