//! The rendezvous through which device threads exchange values, and the runner that starts one
//! thread per device (see the parent module's docs).

use crate::backend::BackendError;
use crate::collective::{join_results, DeviceGrid};
use crate::host_transfer::{Feeds, NO_FEEDS};
use crate::literal::{ArrayLiteral, Literal};
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex};

/// One device's view of a run: its id, the grid, and the rendezvous it shares.
#[derive(Clone, Copy)]
pub struct Device<'r> {
    pub id: usize,
    pub grid: DeviceGrid,
    /// Shared by the run's devices; `None` for a computation evaluated on its own
    /// ([`Device::single`]).
    rendezvous: Option<&'r Rendezvous>,
    /// The device's infeed and outfeed queues and channel state (`crate::host_transfer`).
    pub feeds: &'r Feeds,
    /// Every device's parameters, by device id (empty when the run lends none).
    parameters: &'r [&'r [Literal]],
}

impl<'r> Device<'r> {
    /// Device 0 of a one-device grid, for a computation evaluated on its own (a comparator, a
    /// reducer): its only group is itself, and it has no queues or channels.
    pub fn single() -> Device<'r> {
        Device {
            id: 0,
            grid: DeviceGrid::SINGLE,
            rendezvous: None,
            feeds: &NO_FEEDS,
            parameters: &[],
        }
    }

    /// Device `id` of `grid`, meeting the others at `rendezvous`; `parameters[d]` are device
    /// `d`'s parameters (empty: none can be lent).
    pub fn new(
        id: usize,
        grid: DeviceGrid,
        rendezvous: &'r Rendezvous,
        feeds: &'r Feeds,
        parameters: &'r [&'r [Literal]],
    ) -> Device<'r> {
        Device {
            id,
            grid,
            rendezvous: Some(rendezvous),
            feeds,
            parameters,
        }
    }

    /// The [`Lent::Parameter`] naming `array` when it is one of this device's parameters itself
    /// (the same object, not an equal copy) and the run lends parameters.
    pub fn as_parameter(&self, array: &ArrayLiteral) -> Option<Lent> {
        let own = self.parameters.get(self.id)?;
        own.iter()
            .position(|p| matches!(p, Literal::Array(a) if std::ptr::eq(a, array)))
            .map(Lent::Parameter)
    }

    /// The array `lent` by device `lender` (see [`Device::lend`]).
    ///
    /// Errors: [`BackendError::Failure`] for a parameter the run does not hold or that is not
    /// an array.
    pub fn lent<'a>(&self, lender: usize, lent: &'a Lent) -> Result<&'a ArrayLiteral, BackendError>
    where
        'r: 'a,
    {
        match lent {
            Lent::Shared(a) => Ok(a),
            Lent::Parameter(p) => match self.parameters.get(lender).and_then(|ps| ps.get(*p)) {
                Some(Literal::Array(a)) => Ok(a),
                _ => Err(BackendError::Failure(format!(
                    "device {lender} lent its parameter {p}, which the run does not hold as an array"
                ))),
            },
        }
    }

    /// The rendezvous, or the error of a device evaluated on its own.
    fn meeting(&self, group: &[usize]) -> Result<&'r Rendezvous, BackendError> {
        self.rendezvous.ok_or_else(|| {
            BackendError::Unsupported(format!(
                "a computation evaluated on its own has no other devices to meet (group {group:?})"
            ))
        })
    }

    /// [`Rendezvous::exchange`] for this device. A device evaluated on its own
    /// ([`Device::single`]) exchanges with itself only.
    ///
    /// Errors: those of [`Rendezvous::exchange`]; [`BackendError::Unsupported`] for a group
    /// of others on a device evaluated on its own.
    pub fn exchange(
        &self,
        site: &str,
        group: &[usize],
        value: Literal,
    ) -> Result<Vec<Arc<Literal>>, BackendError> {
        match self.rendezvous {
            None if group == [self.id] => Ok(vec![Arc::new(value)]),
            _ => self.meeting(group)?.exchange(self.id, site, group, value),
        }
    }

    /// [`Rendezvous::lend`] for this device (see [`Device::exchange`]).
    ///
    /// Errors: those of [`Rendezvous::lend`] and [`Device::exchange`].
    pub fn lend(
        &self,
        site: &str,
        group: &[usize],
        arrays: Vec<Lent>,
    ) -> Result<Vec<Arc<[Lent]>>, BackendError> {
        match self.rendezvous {
            None if group == [self.id] => Ok(vec![arrays.into()]),
            _ => self.meeting(group)?.lend(self.id, site, group, arrays),
        }
    }

    /// [`Rendezvous::post`] for this device.
    ///
    /// Errors: [`BackendError::Unsupported`] on a device evaluated on its own.
    pub fn post(&self, key: String, value: Arc<Literal>) -> Result<(), BackendError> {
        self.meeting(&[])?.post(key, value);
        Ok(())
    }

    /// [`Rendezvous::take`] for this device.
    ///
    /// Errors: those of [`Rendezvous::take`]; [`BackendError::Unsupported`] on a device
    /// evaluated on its own.
    pub fn take(&self, key: &str) -> Result<Arc<Literal>, BackendError> {
        self.meeting(&[])?.take(self.id, key)
    }
}

/// An array a device shares at [`Rendezvous::lend`] without copying it: one of the lender's
/// own parameters (which every device of the run can read, [`Device::lent`]) or an array
/// shared by reference count.
#[derive(Clone, Debug)]
pub enum Lent {
    /// The lender's parameter of this number, as the run received it.
    Parameter(usize),
    Shared(Arc<ArrayLiteral>),
}

/// What one device deposits at one exchange.
#[derive(Clone)]
enum Deposit {
    /// [`Rendezvous::exchange`]: a value moved in.
    Value(Arc<Literal>),
    /// [`Rendezvous::lend`]: arrays lent for the run.
    Lent(Arc<[Lent]>),
}

/// Values deposited for one exchange, by position in its group.
struct Slot {
    group: Vec<usize>,
    values: Vec<Option<Deposit>>,
    /// Devices that have taken the full set.
    taken: usize,
}

struct State {
    /// Exchanges in progress, by key (`site#occurrence@group`).
    slots: BTreeMap<String, Slot>,
    /// How many times each device has reached each site.
    occurrences: BTreeMap<(usize, String), u64>,
    /// Per device: the key it waits for.
    waiting: BTreeMap<usize, String>,
    finished: Vec<usize>,
    /// Set once the run cannot go on (a deadlock, or a device that failed mid-exchange).
    broken: Option<String>,
    /// Values sent through channels and not yet received, by key (`crate::host_transfer`).
    mail: BTreeMap<String, Arc<Literal>>,
}

/// Where device threads meet to exchange values (see the module docs): moved in
/// ([`Rendezvous::exchange`]) or lent ([`Rendezvous::lend`]), and shared out either way.
pub struct Rendezvous {
    devices: usize,
    state: Mutex<State>,
    changed: Condvar,
}

impl Rendezvous {
    /// A rendezvous for `devices` devices.
    pub const fn new(devices: usize) -> Rendezvous {
        Rendezvous {
            devices,
            state: Mutex::new(State {
                slots: BTreeMap::new(),
                occurrences: BTreeMap::new(),
                waiting: BTreeMap::new(),
                finished: Vec::new(),
                broken: None,
                mail: BTreeMap::new(),
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A device thread that panicked leaves the state consistent (every update is a
        // single assignment), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Deposits `value` for device `device` at `site` (an instruction: the n-th time a device
    /// reaches a site meets the n-th time its group's other devices reach it) and returns the
    /// values of `group` (devices, in group order), once all have deposited theirs. The values
    /// are shared, not copied.
    ///
    /// Errors: [`BackendError::Failure`] naming a deadlock when every device still running
    /// waits and none can deposit what another waits for, or when a device of the group
    /// failed or finished without reaching the site; [`BackendError::Invalid`] when the
    /// devices of one exchange disagree on its group.
    pub fn exchange(
        &self,
        device: usize,
        site: &str,
        group: &[usize],
        value: Literal,
    ) -> Result<Vec<Arc<Literal>>, BackendError> {
        self.meet(device, site, group, Deposit::Value(Arc::new(value)))?
            .into_iter()
            .map(|d| match d {
                Deposit::Value(v) => Ok(v),
                Deposit::Lent(_) => Err(mixed(site)),
            })
            .collect()
    }

    /// [`Rendezvous::exchange`] for arrays lent rather than moved: each member's `arrays`, in
    /// group order, with no copy (a parameter by its number, which the receivers read from the
    /// run's arguments through [`Device::lent`]; other arrays shared by reference count). A
    /// site is either exchanged or lent by every member.
    ///
    /// Errors: those of [`Rendezvous::exchange`]; [`BackendError::Failure`] when another
    /// member exchanged a value at this site.
    pub fn lend(
        &self,
        device: usize,
        site: &str,
        group: &[usize],
        arrays: Vec<Lent>,
    ) -> Result<Vec<Arc<[Lent]>>, BackendError> {
        self.meet(device, site, group, Deposit::Lent(arrays.into()))?
            .into_iter()
            .map(|d| match d {
                Deposit::Lent(v) => Ok(v),
                Deposit::Value(_) => Err(mixed(site)),
            })
            .collect()
    }

    /// Deposits `value` and waits for the group's deposits (see [`Rendezvous::exchange`]).
    fn meet(
        &self,
        device: usize,
        site: &str,
        group: &[usize],
        value: Deposit,
    ) -> Result<Vec<Deposit>, BackendError> {
        let mut guard = self.lock();
        let key = {
            let st = &mut *guard;
            let n = st
                .occurrences
                .entry((device, site.to_string()))
                .or_insert(0);
            *n += 1;
            // Each group of a site exchanges on its own.
            format!("{site}#{n}@{group:?}")
        };
        let position = group.iter().position(|&g| g == device).ok_or_else(|| {
            BackendError::Invalid(format!("device {device} is not in its own group {group:?}"))
        })?;
        {
            let st = &mut *guard;
            let slot = st.slots.entry(key.clone()).or_insert_with(|| Slot {
                group: group.to_vec(),
                values: vec![None; group.len()],
                taken: 0,
            });
            if slot.group != group {
                let msg = format!(
                    "`{site}`: device {device} names group {group:?}, another device {:?}",
                    slot.group
                );
                st.broken.get_or_insert(msg.clone());
                self.changed.notify_all();
                return Err(BackendError::Invalid(msg));
            }
            slot.values[position] = Some(value);
        }
        self.changed.notify_all();
        loop {
            let st = &mut *guard;
            let Some(slot) = st.slots.get_mut(&key) else {
                return Err(BackendError::Failure(format!(
                    "`{site}`: the exchange was removed before device {device} took it"
                )));
            };
            if slot.values.iter().all(Option::is_some) {
                let values: Vec<Deposit> = slot.values.iter().flatten().cloned().collect();
                slot.taken += 1;
                if slot.taken == slot.group.len() {
                    st.slots.remove(&key);
                }
                st.waiting.remove(&device);
                return Ok(values);
            }
            if let Some(why) = &st.broken {
                return Err(BackendError::Failure(why.clone()));
            }
            st.waiting.insert(device, key.clone());
            if let Some(why) = self.deadlock(st) {
                st.broken = Some(why.clone());
                self.changed.notify_all();
                return Err(BackendError::Failure(why));
            }
            guard = self.changed.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Leaves `value` under `key` for the device that will [`Rendezvous::take`] it (a buffered
    /// send: it does not wait).
    pub fn post(&self, key: String, value: Arc<Literal>) {
        let mut guard = self.lock();
        guard.mail.insert(key, value);
        self.changed.notify_all();
    }

    /// Waits for the value posted under `key` and removes it.
    ///
    /// Errors: [`BackendError::Failure`] naming a deadlock when every device still running
    /// waits and no one will post it, or when the run broke down elsewhere.
    pub fn take(&self, device: usize, key: &str) -> Result<Arc<Literal>, BackendError> {
        let mut guard = self.lock();
        loop {
            let st = &mut *guard;
            if let Some(v) = st.mail.remove(key) {
                st.waiting.remove(&device);
                return Ok(v);
            }
            if let Some(why) = &st.broken {
                return Err(BackendError::Failure(why.clone()));
            }
            st.waiting.insert(device, format!("{MAIL}{key}"));
            if let Some(why) = self.deadlock(st) {
                st.broken = Some(why.clone());
                self.changed.notify_all();
                return Err(BackendError::Failure(why));
            }
            guard = self.changed.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Records that `device` has finished (returned or failed) and wakes the others, which may
    /// now be deadlocked.
    pub fn finish(&self, device: usize) {
        let mut guard = self.lock();
        let st = &mut *guard;
        st.finished.push(device);
        st.waiting.remove(&device);
        self.changed.notify_all();
    }

    /// A deadlock message when every running device waits for an incomplete exchange.
    fn deadlock(&self, st: &State) -> Option<String> {
        if st.waiting.len() + st.finished.len() < self.devices {
            return None;
        }
        let stuck: Vec<String> = st
            .waiting
            .iter()
            .filter_map(|(d, key)| {
                if let Some(mail) = key.strip_prefix(MAIL) {
                    return (!st.mail.contains_key(mail))
                        .then(|| format!("device {d} waits at recv-done for {mail}"));
                }
                let slot = st.slots.get(key)?;
                if slot.values.iter().all(Option::is_some) {
                    return None;
                }
                let missing: Vec<usize> = slot
                    .group
                    .iter()
                    .zip(&slot.values)
                    .filter(|(_, v)| v.is_none())
                    .map(|(g, _)| *g)
                    .collect();
                Some(format!(
                    "device {d} waits at `{key}` for devices {missing:?}"
                ))
            })
            .collect();
        // Some waiting device's exchange is complete: it will run on.
        if stuck.len() < st.waiting.len() {
            return None;
        }
        Some(format!(
            "deadlock: {} (devices {:?} have finished)",
            stuck.join("; "),
            st.finished
        ))
    }
}

/// The error of a site where some members exchanged values and others lent arrays.
fn mixed(site: &str) -> BackendError {
    BackendError::Failure(format!(
        "`{site}`: the members of one exchange both moved values and lent arrays"
    ))
}

/// Marks a waiting key as a channel value rather than an exchange.
const MAIL: &str = "mail:";

/// Stack of each device thread: the interpreters recurse through called computations.
const DEVICE_STACK_BYTES: usize = 256 << 20;

/// Runs `run(device)` for every device of `grid`, each on its own thread (on the caller's
/// thread for one device), and joins the results in device order.
///
/// Errors: the first device error in device order, preferring an error of a device's own over
/// the deadlock or failure it caused in others; [`BackendError::Failure`] when a device thread
/// panics.
pub fn run_devices<F>(grid: DeviceGrid, run: F) -> Result<Literal, BackendError>
where
    F: Fn(Device<'_>) -> Result<Literal, BackendError> + Sync,
{
    run_devices_with(grid, &[], run)
}

/// [`run_devices`] with each device's transfers (`feeds[d]` for device `d`; an empty slice:
/// empty queues of the devices' own).
///
/// Errors: those of [`run_devices`].
pub fn run_devices_with<F>(
    grid: DeviceGrid,
    feeds: &[Feeds],
    run: F,
) -> Result<Literal, BackendError>
where
    F: Fn(Device<'_>) -> Result<Literal, BackendError> + Sync,
{
    run_devices_lending(grid, feeds, &[], run)
}

/// [`run_devices_with`] where `parameters[d]` are device `d`'s parameters, which the devices may
/// lend each other without copying them ([`Device::lend`], [`Lent::Parameter`]).
///
/// Errors: those of [`run_devices`].
pub fn run_devices_lending<F>(
    grid: DeviceGrid,
    feeds: &[Feeds],
    parameters: &[&[Literal]],
    run: F,
) -> Result<Literal, BackendError>
where
    F: Fn(Device<'_>) -> Result<Literal, BackendError> + Sync,
{
    let own: Vec<Feeds> = if feeds.is_empty() {
        (0..grid.devices()).map(|_| Feeds::new(vec![])).collect()
    } else {
        vec![]
    };
    let feeds_of = |id: usize| feeds.get(id).or(own.get(id)).unwrap_or(&NO_FEEDS);
    if grid.devices() == 1 {
        let rendezvous = Rendezvous::new(1);
        return run(Device::new(0, grid, &rendezvous, feeds_of(0), parameters));
    }
    let rendezvous = Rendezvous::new(grid.devices());
    let results: Vec<Result<Literal, BackendError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..grid.devices())
            .map(|id| {
                let (run, rendezvous, feeds) = (&run, &rendezvous, feeds_of(id));
                std::thread::Builder::new()
                    .name(format!("device-{id}"))
                    .stack_size(DEVICE_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run(Device::new(id, grid, rendezvous, feeds, parameters))
                        }));
                        rendezvous.finish(id);
                        out.unwrap_or_else(|_| {
                            Err(BackendError::Failure(format!("device {id} panicked")))
                        })
                    })
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(id, h)| match h {
                Ok(h) => h.join().unwrap_or_else(|_| {
                    Err(BackendError::Failure(format!("device {id} panicked")))
                }),
                Err(e) => Err(BackendError::Failure(format!(
                    "could not start device {id}: {e}"
                ))),
            })
            .collect()
    });
    let secondary = |e: &BackendError| matches!(e, BackendError::Failure(m) if m.starts_with("deadlock") || m.starts_with("device "));
    if let Some(e) = results
        .iter()
        .filter_map(|r| r.as_ref().err())
        .find(|e| !secondary(e))
        .or_else(|| results.iter().find_map(|r| r.as_ref().err()))
    {
        return Err(e.clone());
    }
    Ok(join_results(results.into_iter().flatten().collect()))
}
