//! A backend in another process, spoken to through the worker protocol (docs/protocol.md).
//!
//! One long-lived worker per backend serves every case of a run, one request at a time. A worker
//! that crashes, hangs past the request limit or sends a malformed reply is stopped, the case is
//! recorded as a backend failure naming what happened (with the tail of the worker's standard
//! error), and the next case starts a fresh worker. Three failed handshakes in a row stop the
//! restarts for the rest of the run.

use super::wire::{
    self, Hello, LiteralHeader, ModuleTexts, Received, Reply, Request, WireError, PROTOCOL_VERSION,
};
use conformance_spec::backend::{Backend, BackendError, Capabilities, SubnormalMode};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::{HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Lines of a worker's standard error kept for failure messages.
const STDERR_LINES: usize = 40;
/// Handshakes that may fail in a row before the worker is no longer restarted.
const MAX_FAILED_HANDSHAKES: u32 = 3;

/// Time limits of a worker.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From start to hello.
    pub handshake: Duration,
    /// From request to reply.
    pub request: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            handshake: Duration::from_secs(120),
            request: Duration::from_secs(60),
        }
    }
}

/// A worker process: its input, a thread reading its replies, one keeping its standard error.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Result<Received, WireError>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Worker {
    fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if lines.is_empty() {
            String::new()
        } else {
            let tail: Vec<&str> = lines.iter().map(String::as_str).collect();
            format!("; its standard error ends with:\n{}", tail.join("\n"))
        }
    }

    /// Stops the process and describes how it ended.
    fn kill(mut self) -> String {
        let _ = self.child.kill();
        let status = self.child.wait();
        // The stderr thread drains what is left once the process is gone.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_tail();
        match status {
            Ok(s) => format!("{s}{tail}"),
            Err(e) => format!("(status unknown: {e}){tail}"),
        }
    }

    /// Waits briefly for a process that closed its output, and describes how it ended.
    fn exited(mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    std::thread::sleep(Duration::from_millis(20));
                    return format!("exited with {status}{}", self.stderr_tail());
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return format!("closed its output and was killed: {}", self.kill()),
            }
        }
    }
}

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    hello: Option<Hello>,
    failed_handshakes: u32,
    last_error: Option<String>,
    next_id: u64,
}

/// A backend served by a worker process (docs/protocol.md).
pub struct ProcessBackend {
    name: String,
    command: Vec<String>,
    limits: Limits,
    state: Mutex<State>,
    /// `execute_micros` of the last result (`u64::MAX` when it had none).
    last_micros: AtomicU64,
}

impl ProcessBackend {
    /// A backend named `name` (its name in `--backends` and reports) whose worker is `command`
    /// (program and arguments). The worker starts at the first request.
    pub fn new(name: &str, command: Vec<String>, limits: Limits) -> ProcessBackend {
        ProcessBackend {
            name: name.to_string(),
            command,
            limits,
            state: Mutex::new(State::default()),
            last_micros: AtomicU64::new(u64::MAX),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker's hello, starting it if needed.
    ///
    /// Errors: [`BackendError::Failure`] when the worker cannot be started or its handshake fails.
    pub fn hello(&self) -> Result<Hello, BackendError> {
        let mut state = self.lock();
        self.ensure_worker(&mut state)?;
        state
            .hello
            .clone()
            .ok_or_else(|| BackendError::Failure("no hello".into()))
    }

    fn failure(&self, what: String) -> BackendError {
        BackendError::Failure(format!("worker `{}` {what}", self.name))
    }

    /// Starts the worker and reads its hello unless one is running.
    fn ensure_worker(&self, state: &mut State) -> Result<(), BackendError> {
        if state.worker.is_some() {
            return Ok(());
        }
        if state.failed_handshakes >= MAX_FAILED_HANDSHAKES {
            return Err(self.failure(format!(
                "is not restarted after {MAX_FAILED_HANDSHAKES} failed starts; the last: {}",
                state.last_error.as_deref().unwrap_or("unknown")
            )));
        }
        match self.start() {
            Ok((worker, hello)) => {
                state.worker = Some(worker);
                state.hello = Some(hello);
                state.failed_handshakes = 0;
                Ok(())
            }
            Err(e) => {
                state.failed_handshakes += 1;
                state.last_error = Some(e.clone());
                Err(self.failure(e))
            }
        }
    }

    fn start(&self) -> Result<(Worker, Hello), String> {
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| "has an empty command".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not be started (`{}`): {e}", self.command.join(" ")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err("started without pipes".into());
        };
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            loop {
                let r = wire::read_reply(&mut out);
                let stop = r.is_err();
                if tx.send(r).is_err() || stop {
                    break;
                }
            }
        });
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut l = kept.lock().unwrap_or_else(|e| e.into_inner());
                if l.len() == STDERR_LINES {
                    l.pop_front();
                }
                l.push_back(line);
            }
        });
        let worker = Worker {
            child,
            stdin,
            replies,
            stderr: lines,
        };
        let hello = match worker.replies.recv_timeout(self.limits.handshake) {
            Ok(Ok(Received {
                reply: Reply::Hello(h),
                ..
            })) => h,
            Ok(Ok(other)) => {
                let ended = worker.kill();
                return Err(format!(
                    "sent {:?} before its hello (killed: {ended})",
                    kind_of(&other.reply)
                ));
            }
            Ok(Err(WireError::Closed { .. })) | Err(RecvTimeoutError::Disconnected) => {
                return Err(format!("ended before its hello: {}", worker.exited()));
            }
            Ok(Err(e)) => {
                let ended = worker.kill();
                return Err(format!("sent a malformed hello: {e} (killed: {ended})"));
            }
            Err(RecvTimeoutError::Timeout) => {
                let ended = worker.kill();
                return Err(format!(
                    "sent no hello within {:?} (killed: {ended})",
                    self.limits.handshake
                ));
            }
        };
        if !wire::ACCEPTED_PROTOCOLS.contains(&hello.protocol) {
            let ended = worker.kill();
            return Err(format!(
                "speaks protocol {}, this harness speaks {PROTOCOL_VERSION} (and accepts {:?}) (killed: {ended})",
                hello.protocol,
                wire::ACCEPTED_PROTOCOLS
            ));
        }
        Ok((worker, hello))
    }

    /// The capabilities of the hello (all opcodes and element types when the worker says `null`;
    /// unknown names are ignored).
    fn capabilities_of(hello: &Hello) -> Capabilities {
        let c = &hello.capabilities;
        Capabilities {
            opcodes: match &c.opcodes {
                None => Opcode::ALL.to_vec(),
                Some(names) => names.iter().filter_map(|n| Opcode::from_name(n)).collect(),
            },
            element_types: match &c.element_types {
                None => ElementType::ALL.to_vec(),
                Some(names) => names
                    .iter()
                    .filter_map(|n| ElementType::from_hlo_name(n))
                    .collect(),
            },
            any_layout: c.layouts == "any",
            subnormals: if c.subnormals == "flush" {
                SubnormalMode::Flush
            } else {
                SubnormalMode::Preserve
            },
            subnormals_flushed_in: c
                .subnormals_flushed_in
                .iter()
                .flatten()
                .filter_map(|n| ElementType::from_hlo_name(n))
                .collect(),
            rng_bit_layout: c.rng_bit_layout.clone(),
            // Version 1 has no modules of several devices.
            devices: match (hello.protocol, c.devices) {
                (1, _) | (_, None) => 1,
                (_, Some(n)) => usize::try_from(n).unwrap_or(usize::MAX).max(1),
            },
        }
    }

    /// Stops the worker politely: `shutdown`, then a kill after 5 s.
    pub fn shutdown(&self) {
        let mut state = self.lock();
        if let Some(mut w) = state.worker.take() {
            let _ = wire::write_request(&mut w.stdin, &Request::Shutdown, &[] as &[&[u8]]);
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = w.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            w.kill();
        }
    }

    /// The request's texts: every format the worker reads that prints for `module`.
    fn texts(hello: &Hello, module: &HloModule) -> Result<ModuleTexts, BackendError> {
        let mut texts = ModuleTexts::default();
        let mut why = Vec::new();
        for format in &hello.capabilities.module_formats {
            match format.as_str() {
                "hlo" => texts.hlo = Some(module.to_string()),
                "stablehlo" => match conformance_spec::hlo::stablehlo::print_stablehlo(module) {
                    Ok(t) => texts.stablehlo = Some(t),
                    Err(e) => why.push(format!("StableHLO: {e}")),
                },
                _ => {}
            }
        }
        if texts.hlo.is_none() && texts.stablehlo.is_none() {
            return Err(BackendError::Unsupported(if why.is_empty() {
                format!(
                    "the worker reads no module format this harness prints ({:?})",
                    hello.capabilities.module_formats
                )
            } else {
                why.join("; ")
            }));
        }
        Ok(texts)
    }
}

fn kind_of(reply: &Reply) -> &'static str {
    match reply {
        Reply::Hello(_) => "hello",
        Reply::Result { .. } => "result",
        Reply::Error { .. } => "error",
    }
}

/// The first opcode or element type of `module` outside `caps`, named.
fn outside(caps: &Capabilities, module: &HloModule) -> Option<String> {
    for c in &module.computations {
        for i in &c.instructions {
            if !caps.opcodes.contains(&i.opcode) {
                return Some(format!("opcode {}", i.opcode.name()));
            }
            if i.shape
                .array_leaves()
                .iter()
                .any(|a| a.dynamic_dimensions.iter().any(|&d| d))
            {
                return Some("a dynamic shape (bounded `<=` dimensions)".to_string());
            }
            if let Some(a) = i
                .shape
                .array_leaves()
                .into_iter()
                .find(|a| !caps.element_types.contains(&a.element_type))
            {
                return Some(format!("element type {}", a.element_type));
            }
        }
    }
    None
}

/// Rebuilds `shape` from leaf values (depth-first).
fn assemble(shape: &Shape, values: &mut impl Iterator<Item = ArrayLiteral>) -> Option<Literal> {
    match shape {
        Shape::Array(_) => values.next().map(Literal::Array),
        Shape::Tuple(parts) => parts
            .iter()
            .map(|p| assemble(p, values))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Tuple),
        // A token has no output (docs/protocol.md).
        Shape::Token => Some(Literal::Token),
    }
}

/// Why a reply's result cannot be the module's.
enum BadResult {
    /// The reply breaks the protocol (output count, data frames that do not decode): the
    /// stream cannot be trusted.
    Malformed(String),
    /// A well-formed result of other element types or dimensions than the module's: the
    /// backend's answer, the stream is fine.
    Unlike(String),
}

/// The result of a reply, in the root's shape and layout.
fn result_literal(
    root: &Shape,
    outputs: &[LiteralHeader],
    data: Vec<Vec<u8>>,
) -> Result<Literal, BadResult> {
    let expected = root.array_leaves();
    if outputs.len() != expected.len() {
        return Err(BadResult::Malformed(format!(
            "{} outputs for a root with {} leaves",
            outputs.len(),
            expected.len()
        )));
    }
    let mut values = Vec::with_capacity(outputs.len());
    for (k, ((h, d), want)) in outputs.iter().zip(data).zip(&expected).enumerate() {
        let got = wire::decode_literal(h, d)
            .map_err(|e| BadResult::Malformed(format!("output {k}: {e}")))?;
        if got.element_type() != want.element_type || got.dimensions() != want.dimensions {
            return Err(BadResult::Unlike(format!(
                "output {k} is {}{:?}, the root's leaf is {}{:?}",
                got.element_type(),
                got.dimensions(),
                want.element_type,
                want.dimensions
            )));
        }
        // Workers answer row-major; the root's layout is usually row-major too (no copy then).
        values.push(if got.shape().layout == want.layout {
            got
        } else {
            got.relayout(want.layout.clone())
        });
    }
    assemble(root, &mut values.into_iter())
        .ok_or_else(|| BadResult::Malformed("fewer outputs than the root has leaves".to_string()))
}

/// The result of a module that writes an outfeed: per device `(root, (outfeed values))`, from
/// each device's root outputs followed by its `counts[d]` outfeed values (docs/protocol.md); the
/// tuple of the devices' results for several devices.
fn result_with_outfeed(
    one_root: &Shape,
    devices: usize,
    outputs: &[LiteralHeader],
    data: Vec<Vec<u8>>,
    counts: Option<&[u64]>,
) -> Result<Literal, BadResult> {
    let Some(counts) = counts.filter(|c| c.len() == devices) else {
        return Err(BadResult::Malformed(format!(
            "a module that writes an outfeed needs `outfeed`: {devices} count(s), one per device"
        )));
    };
    let leaves = one_root.array_leaves().len();
    let total = counts.iter().try_fold(devices * leaves, |t, &k| {
        t.checked_add(usize::try_from(k).ok()?)
    });
    if total != Some(outputs.len()) {
        return Err(BadResult::Malformed(format!(
            "{} outputs for {devices} device(s) of {leaves} root output(s) and {counts:?} outfeed \
             value(s)",
            outputs.len()
        )));
    }
    let mut data = data.into_iter();
    let mut at = 0;
    let mut results = Vec::with_capacity(devices);
    for &k in counts {
        let root_data: Vec<Vec<u8>> = data.by_ref().take(leaves).collect();
        let root = result_literal(one_root, &outputs[at..at + leaves], root_data)?;
        at += leaves;
        let mut written = Vec::with_capacity(k as usize);
        for (j, d) in data.by_ref().take(k as usize).enumerate() {
            let value = wire::decode_literal(&outputs[at + j], d)
                .map_err(|e| BadResult::Malformed(format!("outfeed value {j}: {e}")))?;
            written.push(Literal::Array(value));
        }
        at += k as usize;
        results.push(Literal::Tuple(vec![root, Literal::Tuple(written)]));
    }
    Ok(if devices == 1 {
        results.remove(0)
    } else {
        Literal::Tuple(results)
    })
}

impl Backend for ProcessBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn last_execute_micros(&self) -> Option<u64> {
        match self.last_micros.load(Ordering::Relaxed) {
            u64::MAX => None,
            us => Some(us),
        }
    }

    /// From the worker's hello (the worker is started if needed); when it cannot start, nothing
    /// is claimed (every request then fails naming why).
    fn capabilities(&self) -> Capabilities {
        match self.hello() {
            Ok(h) => ProcessBackend::capabilities_of(&h),
            Err(_) => Capabilities {
                opcodes: vec![],
                element_types: vec![],
                any_layout: false,
                subnormals: SubnormalMode::Preserve,
                subnormals_flushed_in: vec![],
                rng_bit_layout: None,
                devices: 1,
            },
        }
    }

    /// Sends the module and arguments to the worker and waits for its reply (docs/protocol.md).
    ///
    /// Errors: [`BackendError::Unsupported`] for a module outside the worker's capabilities
    /// (not sent), one no format it reads can express, dynamic shapes, or the worker's
    /// `unsupported` reply; [`BackendError::Invalid`] for its `invalid` reply or a non-array
    /// argument; [`BackendError::Failure`] for its `failure` reply, a worker that cannot start,
    /// crashes, exceeds the request limit or replies malformed (the worker is then restarted for
    /// the next request).
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let mut state = self.lock();
        self.ensure_worker(&mut state)?;
        let hello = state
            .hello
            .clone()
            .ok_or_else(|| self.failure("has no hello".into()))?;
        if let Some(what) = outside(&ProcessBackend::capabilities_of(&hello), module) {
            return Err(BackendError::Unsupported(format!(
                "{what} is outside the capabilities of worker `{}`",
                self.name
            )));
        }
        let mut headers = Vec::with_capacity(args.len());
        let mut data = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            let a = a
                .as_array()
                .ok_or_else(|| BackendError::Invalid(format!("argument {k} is not an array")))?;
            if a.runtime_dimensions().is_some() {
                return Err(BackendError::Unsupported(
                    "dynamic shapes are not sent to workers".into(),
                ));
            }
            let (h, d) = wire::encode_literal(a);
            headers.push(h);
            data.push(d);
        }
        let grid = conformance_spec::collective::DeviceGrid::of(module)?;
        let capabilities = ProcessBackend::capabilities_of(&hello);
        if grid.devices() > capabilities.devices {
            return Err(BackendError::Unsupported(format!(
                "a module of {} devices; worker `{}` runs at most {} (protocol {})",
                grid.devices(),
                self.name,
                capabilities.devices,
                hello.protocol
            )));
        }
        let writes =
            conformance_spec::host_transfer::module_has(module, conformance_spec::Opcode::Outfeed);
        let texts = ProcessBackend::texts(&hello, module)?;
        let one = module.entry_computation().root_instruction().shape.clone();
        let root = if grid.devices() > 1 {
            Shape::Tuple(vec![one.clone(); grid.devices()])
        } else {
            one.clone()
        };
        state.next_id += 1;
        let id = state.next_id;
        let request = Request::Execute {
            id,
            module: &texts,
            inputs: headers,
            devices: (grid.devices() > 1).then_some(wire::DevicesHeader {
                replicas: grid.replicas as u64,
                partitions: grid.partitions as u64,
            }),
        };
        let worker = state
            .worker
            .as_mut()
            .ok_or_else(|| self.failure("is not running".into()))?;
        if wire::write_request(&mut worker.stdin, &request, &data).is_err() {
            let ended = state.worker.take().map(Worker::exited).unwrap_or_default();
            return Err(self.failure(format!("stopped reading requests: {ended}")));
        }
        let received = worker.replies.recv_timeout(self.limits.request);
        let malformed = |state: &mut State, why: String| {
            let ended = state.worker.take().map(Worker::kill).unwrap_or_default();
            self.failure(format!(
                "sent a malformed reply: {why} (restarted; {ended})"
            ))
        };
        match received {
            Err(RecvTimeoutError::Timeout) => {
                let ended = state.worker.take().map(Worker::kill).unwrap_or_default();
                Err(self.failure(format!(
                    "timed out after {:?} (killed: {ended})",
                    self.limits.request
                )))
            }
            Ok(Err(WireError::Closed { .. })) | Err(RecvTimeoutError::Disconnected) => {
                let ended = state.worker.take().map(Worker::exited).unwrap_or_default();
                Err(self.failure(format!("crashed: {ended}")))
            }
            Ok(Err(e)) => Err(malformed(&mut state, e.to_string())),
            Ok(Ok(Received { reply, data })) => match reply {
                Reply::Result { id: got, .. } | Reply::Error { id: got, .. } if got != id => {
                    Err(malformed(
                        &mut state,
                        format!("the reply to request {id} has id {got}"),
                    ))
                }
                Reply::Result {
                    outputs,
                    execute_micros,
                    outfeed,
                    ..
                } => {
                    self.last_micros
                        .store(execute_micros.unwrap_or(u64::MAX), Ordering::Relaxed);
                    // A well-framed result of other types or shapes than the module's is the
                    // backend's answer, not a broken stream: the worker keeps running.
                    let result = if writes {
                        result_with_outfeed(
                            &one,
                            grid.devices(),
                            &outputs,
                            data,
                            outfeed.as_deref(),
                        )
                    } else {
                        result_literal(&root, &outputs, data)
                    };
                    result.map_err(|bad| match bad {
                        BadResult::Malformed(why) => malformed(&mut state, why),
                        BadResult::Unlike(why) => {
                            self.failure(format!("returned a result unlike the module's: {why}"))
                        }
                    })
                }
                Reply::Error { kind, message, .. } => match kind.as_str() {
                    "unsupported" => Err(BackendError::Unsupported(message)),
                    "invalid" => Err(BackendError::Invalid(message)),
                    "failure" => Err(BackendError::Failure(message)),
                    other => Err(malformed(
                        &mut state,
                        format!("an error of unknown kind `{other}`"),
                    )),
                },
                Reply::Hello(_) => Err(malformed(&mut state, "a second hello".into())),
            },
        }
    }
}

impl Drop for ProcessBackend {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::parse_literal;

    fn array(text: &str) -> ArrayLiteral {
        parse_literal(text).unwrap().as_array().unwrap().clone()
    }

    /// Per device: the root's outputs, then as many outfeed values as the reply counts.
    #[test]
    fn outfeed_values_follow_each_devices_root() {
        let root = Shape::array(conformance_spec::ElementType::F32, vec![2]);
        let parts = [
            array("f32[2] {1, 2}"),
            array("s32[] 7"),
            array("s32[3] {1, 2, 3}"),
            array("f32[2] {3, 4}"),
        ];
        let (headers, data): (Vec<_>, Vec<Vec<u8>>) = parts
            .iter()
            .map(|p| {
                let (h, d) = wire::encode_literal(p);
                (h, d.into_owned())
            })
            .unzip();
        let got = result_with_outfeed(&root, 2, &headers, data.clone(), Some(&[2, 0]))
            .ok()
            .unwrap();
        let want = parse_literal(
            "((f32[2], (s32[], s32[3])), (f32[2], ())) (({1, 2}, (7, {1, 2, 3})), ({3, 4}, ()))",
        )
        .unwrap();
        assert!(got.logical_eq(&want), "{got}");
        // Counts missing, of another length, or not adding up: the reply is malformed.
        for counts in [
            None,
            Some(&[2][..]),
            Some(&[1, 0][..]),
            Some(&[u64::MAX, 1][..]),
        ] {
            assert!(matches!(
                result_with_outfeed(&root, 2, &headers, data.clone(), counts),
                Err(BadResult::Malformed(_))
            ));
        }
        // Counts that put an s32 where device 1's f32 root is: the backend's (wrong) answer.
        assert!(matches!(
            result_with_outfeed(&root, 2, &headers, data, Some(&[0, 2])),
            Err(BadResult::Unlike(_))
        ));
    }
}
