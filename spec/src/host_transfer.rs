//! Tokens and host transfers: `after-all`, `infeed`, `outfeed`, `send` / `send-done`,
//! `recv` / `recv-done` (seed 004, AfterAll, Infeed, Send, Recv; XLA's Outfeed), and how a case
//! carries the values they move (docs/host-transfers.md).
//!
//! **Infeed queue.** A module that holds an `infeed` anywhere takes, on each device, its entry
//! parameters followed by that device's infeed queue: the values the device's infeeds read, in
//! the order they read them (seed 004, Infeed: "a total order among the infeeds"). An infeed of
//! the empty tuple reads nothing. An infeed that finds the queue empty is an invalid case (a
//! real device would wait for ever). Values left over are not an error.
//!
//! **Outfeed queue.** A module that holds an `outfeed` anywhere gives, on each device, the tuple
//! `(root, (outfeed values in the order written))` instead of its root alone, so outfeeds are
//! compared like results. Modules without feeds take and give exactly what they always did.
//!
//! **Channels.** `send` / `recv` pair devices of one module through `channel_id` and the pairs
//! of XLA's `_xla_send_recv_source_target_pairs` frontend attribute (`"{{0,1},{1,2}}"`, ids are
//! flattened device ids). Device `s`'s n-th `send` on a channel delivers to the n-th `recv` of
//! channel on every target `t` of a pair `{s,t}`; a send is buffered (it completes at once), a
//! `recv-done` waits for its value. A device that no pair targets receives zeros. A `recv-done`
//! whose value no device will send (a cycle in the schedule, seed 004 "channel scheduling") is a
//! deadlock verdict from the rendezvous, never a hang. Transfers to or from the host
//! (`is_host_transfer=true`) and channels without pairs are unsupported: their peer is outside
//! the case.

use crate::backend::BackendError;
use crate::collective::{split_arguments, Device, DeviceGrid};
use crate::hlo::ir::{AttrValue, HloInstruction, HloModule, Opcode};
use crate::literal::Literal;
use crate::shape::Shape;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

/// The frontend attribute naming the device pairs of a `send` / `recv` channel.
pub const SEND_RECV_PAIRS: &str = "_xla_send_recv_source_target_pairs";

/// What one device's transfers hold during a run.
#[derive(Default)]
struct FeedState {
    infeed: VecDeque<Literal>,
    /// Values read so far (for messages).
    read: usize,
    outfeed: Vec<Literal>,
    /// Per channel: how many sends and recvs this device has started.
    sends: BTreeMap<i64, u64>,
    recvs: BTreeMap<i64, u64>,
    /// Per channel, in order: the mailbox key of each started `recv` (`None`: no pair targets
    /// this device).
    pending: BTreeMap<i64, VecDeque<Option<String>>>,
}

/// One device's infeed queue, outfeed queue and channel state.
pub struct Feeds {
    state: Mutex<Option<FeedState>>,
}

/// The transfers of a device outside a run with feeds (sub-computations evaluated alone).
pub static NO_FEEDS: Feeds = Feeds::empty();

impl Feeds {
    /// No queues at all: every transfer is unsupported (see [`NO_FEEDS`]).
    pub const fn empty() -> Feeds {
        Feeds {
            state: Mutex::new(None),
        }
    }

    /// A device whose infeeds read `queue` in order.
    pub fn new(queue: Vec<Literal>) -> Feeds {
        Feeds {
            state: Mutex::new(Some(FeedState {
                infeed: queue.into(),
                ..FeedState::default()
            })),
        }
    }

    /// Runs `f` on the state. Errors: [`BackendError::Unsupported`] for [`NO_FEEDS`], the
    /// transfers of a computation evaluated on its own (a reducer, a comparator).
    fn with<T>(&self, f: impl FnOnce(&mut FeedState) -> T) -> Result<T, BackendError> {
        // Every update is a single step, so a poisoned lock is still consistent.
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_mut() {
            Some(st) => Ok(f(st)),
            None => Err(BackendError::Unsupported(
                "a token or feed operation in a computation evaluated on its own (a reducer or \
                 comparator) has no device queue"
                    .into(),
            )),
        }
    }

    /// The next infeed value, which must have `shape`'s element types and dimensions (the
    /// layout is the caller's to apply). An empty tuple shape reads nothing.
    ///
    /// Errors: [`BackendError::Invalid`] when the queue is empty or the value's shape differs.
    pub fn infeed(&self, device: usize, shape: &Shape) -> Result<Literal, BackendError> {
        if matches!(shape, Shape::Tuple(t) if t.is_empty()) {
            return Ok(Literal::Tuple(vec![]));
        }
        self.with(|st| {
            let Some(value) = st.infeed.pop_front() else {
                return Err(BackendError::Invalid(format!(
                    "infeed of {shape} on device {device}: the queue is empty after {} value(s) \
                     (a device would wait for ever; give the case more infeed values)",
                    st.read
                )));
            };
            if !shape.compatible(&value.shape()) {
                return Err(BackendError::Invalid(format!(
                    "infeed value {} of device {device} is {}, the infeed reads {shape}",
                    st.read,
                    value.shape()
                )));
            }
            st.read += 1;
            Ok(value)
        })?
    }

    /// Appends `value` to the outfeed queue.
    ///
    /// Errors: those of `with` (no queue).
    pub fn outfeed(&self, value: Literal) -> Result<(), BackendError> {
        self.with(|st| st.outfeed.push(value))
    }

    fn take_outfeed(&self) -> Result<Vec<Literal>, BackendError> {
        self.with(|st| std::mem::take(&mut st.outfeed))
    }
}

/// The data an `infeed`, `recv` or `recv-done` gives: the first part of its tuple shape.
///
/// Errors: [`BackendError::Invalid`] when the instruction's shape is not such a tuple.
pub fn data_shape(instr: &HloInstruction) -> Result<&Shape, BackendError> {
    match &instr.shape {
        Shape::Tuple(p) if !p.is_empty() => Ok(&p[0]),
        other => Err(BackendError::Invalid(format!(
            "{}: result shape {other} is not the tuple it gives",
            instr.opcode
        ))),
    }
}

/// Whether any computation of `module` holds an instruction of `opcode`.
pub fn module_has(module: &HloModule, opcode: Opcode) -> bool {
    module
        .computations
        .iter()
        .any(|c| c.instructions.iter().any(|i| i.opcode == opcode))
}

/// Whether `opcode` moves values through tokens, channels or feeds (this module's ops).
pub fn is_host_transfer(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::AfterAll
            | Opcode::Infeed
            | Opcode::Outfeed
            | Opcode::Send
            | Opcode::SendDone
            | Opcode::Recv
            | Opcode::RecvDone
    )
}

/// The shapes of one device's infeed queue as the entry computation's own infeeds read them, in
/// instruction order (a queue read inside loops or branches has a data-dependent length; give
/// such a module its inputs).
pub fn static_infeed_shapes(module: &HloModule) -> Vec<Shape> {
    module
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Infeed)
        .filter_map(|i| match &i.shape {
            Shape::Tuple(parts) => parts.first().cloned(),
            _ => None,
        })
        .filter(|s| !matches!(s, Shape::Tuple(t) if t.is_empty()))
        .collect()
}

/// The shape of one device's result when the outfeeds that run are the entry computation's own,
/// each once, in instruction order: the root's shape, or `(root, (outfeed data...))` for a
/// module holding an outfeed (see the module docs).
pub fn device_result_shape(module: &HloModule) -> Shape {
    let entry = module.entry_computation();
    let root = entry.root_instruction().shape.clone();
    if !module_has(module, Opcode::Outfeed) {
        return root;
    }
    let written = entry
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Outfeed)
        .filter_map(|i| {
            let data = *i.operands.first()?;
            Some(entry.instructions.get(data)?.shape.clone())
        })
        .collect();
    Shape::Tuple(vec![root, Shape::Tuple(written)])
}

/// Runs `run(device, parameters)` on every device of `module` (`crate::collective::run_devices`),
/// after splitting each device's arguments into its parameters and its infeed queue, and joins
/// each device's root with its outfeed queue when the module writes one (see the module docs).
///
/// Errors: those of `run` and of the grid; [`BackendError::Invalid`] for an argument count that
/// does not divide among the devices, or more arguments than parameters in a module without
/// `infeed`.
pub fn run_module<F>(module: &HloModule, args: &[Literal], run: F) -> Result<Literal, BackendError>
where
    F: Fn(Device<'_>, &[Literal]) -> Result<Literal, BackendError> + Sync,
{
    let grid = DeviceGrid::of(module)?;
    let per_device = split_arguments(grid, args)?;
    let params = module.entry_computation().parameters().len();
    let (reads, writes) = (
        module_has(module, Opcode::Infeed),
        module_has(module, Opcode::Outfeed),
    );
    let mut feeds = Vec::with_capacity(per_device.len());
    let mut parameters = Vec::with_capacity(per_device.len());
    for (d, a) in per_device.iter().enumerate() {
        if a.len() > params && !reads {
            return Err(BackendError::Invalid(format!(
                "device {d} has {} argument(s) for {params} parameter(s); only a module with \
                 `infeed` takes more (its infeed queue)",
                a.len()
            )));
        }
        let queue = a.get(params..).map(<[Literal]>::to_vec).unwrap_or_default();
        feeds.push(Feeds::new(queue));
        parameters.push(&a[..params.min(a.len())]);
    }
    crate::collective::run_devices_lending(grid, &feeds, &parameters, |device| {
        let root = run(device, parameters[device.id])?;
        Ok(if writes {
            Literal::Tuple(vec![root, Literal::Tuple(device.feeds.take_outfeed()?)])
        } else {
            root
        })
    })
}

/// The device pairs of a `send` / `recv` (flattened device ids), checked against the grid:
/// each device is a source at most once and a target at most once.
///
/// Errors: a host transfer or a channel without pairs (unsupported), malformed pairs or an id
/// outside the grid (invalid).
pub fn channel_pairs(
    instr: &HloInstruction,
    grid: DeviceGrid,
) -> Result<Vec<(usize, usize)>, BackendError> {
    if matches!(
        instr.attribute("is_host_transfer"),
        Some(AttrValue::Bool(true))
    ) {
        return Err(BackendError::Unsupported(format!(
            "`{}`: a transfer with the host (is_host_transfer=true) has its peer outside the case",
            instr.name
        )));
    }
    let text = match instr.attribute("frontend_attributes") {
        Some(AttrValue::Raw(t) | AttrValue::Str(t)) => {
            crate::custom_call::dictionary_entry(t.as_str(), SEND_RECV_PAIRS).map(str::to_string)
        }
        _ => None,
    };
    let Some(text) = text else {
        return Err(BackendError::Unsupported(format!(
            "`{}`: a channel without `{SEND_RECV_PAIRS}` pairs another program, outside the case",
            instr.name
        )));
    };
    let pairs = crate::collective::parse_nested(text.trim_matches('"'), SEND_RECV_PAIRS)
        .map_err(BackendError::Invalid)?;
    let n = grid.devices() as i64;
    let (mut sources, mut targets) = (vec![false; n as usize], vec![false; n as usize]);
    pairs
        .into_iter()
        .map(|p| match p.as_slice() {
            &[s, t] if (0..n).contains(&s) && (0..n).contains(&t) => {
                let (s, t) = (s as usize, t as usize);
                if std::mem::replace(&mut sources[s], true)
                    || std::mem::replace(&mut targets[t], true)
                {
                    return Err(BackendError::Invalid(format!(
                        "`{}`: {SEND_RECV_PAIRS}: device {s} is a source twice or {t} a target \
                         twice",
                        instr.name
                    )));
                }
                Ok((s, t))
            }
            other => Err(BackendError::Invalid(format!(
                "`{}`: {SEND_RECV_PAIRS}: pair {other:?} is not two device ids in 0..{n}",
                instr.name
            ))),
        })
        .collect()
}

fn channel(instr: &HloInstruction) -> Result<i64, BackendError> {
    match instr.attr_int("channel_id") {
        Some(c) => Ok(c),
        None => Err(BackendError::Invalid(format!(
            "`{}` needs `channel_id=N`",
            instr.name
        ))),
    }
}

fn mail_key(channel: i64, n: u64, from: usize, to: usize) -> String {
    format!("channel {channel} #{n}: device {from} -> device {to}")
}

/// `send` on `device`: delivers `value` to every target of the device's pairs (buffered; the
/// send completes at once).
///
/// Errors: those of [`channel_pairs`]; a missing `channel_id`.
pub fn send(
    device: Device<'_>,
    instr: &HloInstruction,
    value: Literal,
) -> Result<(), BackendError> {
    let c = channel(instr)?;
    let pairs = channel_pairs(instr, device.grid)?;
    let n = device.feeds.with(|st| {
        let n = st.sends.entry(c).or_insert(0);
        *n += 1;
        *n
    })?;
    let value = Arc::new(value);
    for (_, t) in pairs.iter().filter(|p| p.0 == device.id) {
        device.post(mail_key(c, n, device.id, *t), value.clone())?;
    }
    Ok(())
}

/// `recv` on `device`: registers the receive that the next `recv-done` of the channel completes.
///
/// Errors: those of [`channel_pairs`]; a missing `channel_id`.
pub fn recv(device: Device<'_>, instr: &HloInstruction) -> Result<(), BackendError> {
    let c = channel(instr)?;
    let pairs = channel_pairs(instr, device.grid)?;
    let source = pairs.iter().find(|p| p.1 == device.id).map(|p| p.0);
    device.feeds.with(|st| {
        let n = st.recvs.entry(c).or_insert(0);
        *n += 1;
        let key = source.map(|s| mail_key(c, *n, s, device.id));
        st.pending.entry(c).or_default().push_back(key);
    })?;
    Ok(())
}

/// `recv-done` on `device`: waits for the value of the channel's oldest unfinished `recv`
/// (`None`: no pair targets this device, its data is zeros).
///
/// Errors: a `recv-done` without a `recv`, or a value of another shape than the recv-done's
/// data (invalid); a deadlock or a failed sender ([`BackendError::Failure`], from the
/// rendezvous).
pub fn recv_done(
    device: Device<'_>,
    instr: &HloInstruction,
) -> Result<Option<Arc<Literal>>, BackendError> {
    let c = channel(instr)?;
    let key = device
        .feeds
        .with(|st| st.pending.get_mut(&c).and_then(VecDeque::pop_front))?;
    match key {
        None => Err(BackendError::Invalid(format!(
            "`{}`: recv-done on channel {c} of device {} without a started recv",
            instr.name, device.id
        ))),
        Some(None) => Ok(None),
        Some(Some(key)) => {
            let v = device.take(&key)?;
            match &instr.shape {
                Shape::Tuple(p) if p.first().is_some_and(|d| d.compatible(&v.shape())) => {
                    Ok(Some(v))
                }
                other => Err(BackendError::Invalid(format!(
                    "`{}`: the channel carries {}, the recv-done gives {other}",
                    instr.name,
                    v.shape()
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests;
