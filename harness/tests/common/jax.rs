//! A client of `scripts/stablehlo_compile.py`: XLA's CPU backend through jaxlib, compiling and
//! running StableHLO texts in one Python process (shared by the integration tests that check
//! printed StableHLO against the real compiler). Not every test uses every function.
#![allow(dead_code)]

use conformance_spec::element_type::ElementType;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness crate is inside the workspace")
        .to_path_buf()
}

/// Sends every payload to `scripts/stablehlo_compile.py` and returns one reply per payload, in
/// order. When the compiler process dies on a payload (XLA aborts on some inputs), that payload's
/// reply is `{"ok": false, "error": "the compiler process died ..."}` and a new process takes
/// the rest. Panics (failing the test) when Python or jax is missing.
pub fn compile_all(payloads: Vec<Vec<u8>>) -> Vec<serde_json::Value> {
    let mut replies = Vec::with_capacity(payloads.len());
    let mut deaths = 0;
    while replies.len() < payloads.len() {
        let rest = payloads[replies.len()..].to_vec();
        let (got, status, stderr) = run_compiler(rest);
        let answered = got.len();
        replies.extend(got);
        if replies.len() < payloads.len() {
            assert!(
                status.code() != Some(3) && !(answered == 0 && deaths == 0 && status.success()),
                "scripts/stablehlo_compile.py failed ({status}); if jax cannot be imported, run \
                 scripts/setup-python.sh.\n{stderr}"
            );
            deaths += 1;
            assert!(
                deaths <= 20,
                "the compiler process died {deaths} times:\n{stderr}"
            );
            let tail: Vec<&str> = stderr.lines().take(3).collect();
            replies.push(serde_json::json!({
                "ok": false,
                "error": format!("the compiler process died ({status}): {}", tail.join(" | ")),
            }));
        }
    }
    replies
}

/// One compiler process over `payloads`: its replies (possibly fewer than the payloads when it
/// died), its exit status and its standard error.
pub fn run_compiler(
    payloads: Vec<Vec<u8>>,
) -> (Vec<serde_json::Value>, std::process::ExitStatus, String) {
    let root = workspace();
    let python = root.join(".venv/bin/python");
    let script = root.join("scripts/stablehlo_compile.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {} ({e}): run scripts/setup-python.sh to create the Python \
                 environment with jax",
                python.display()
            )
        });
    let mut stdin = child.stdin.take().expect("piped stdin");
    let n = payloads.len();
    // Write from a thread: the replies come back while the requests are still being sent. A
    // write error means the process died; the replies say how far it got.
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        for p in payloads {
            stdin.write_all(&(p.len() as u64).to_le_bytes())?;
            stdin.write_all(&p)?;
        }
        stdin.flush()
    });
    let mut stderr_pipe = child.stderr.take().expect("piped stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr_pipe, &mut text);
        text
    });
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut replies = Vec::with_capacity(n);
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        replies.push(
            serde_json::from_str::<serde_json::Value>(&line)
                .unwrap_or_else(|e| panic!("malformed reply {line:?}: {e}")),
        );
        if replies.len() == n {
            break;
        }
    }
    let _ = writer.join();
    let status = child.wait().expect("waiting for the compiler");
    let stderr = stderr_reader.join().unwrap_or_default();
    // Keep the interesting part: XLA's fatal message, not the import warnings.
    let stderr = stderr
        .lines()
        .filter(|l| !l.contains("WARNING") && !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (replies, status, stderr)
}

pub fn hex(bytes: impl IntoIterator<Item = u8>) -> String {
    bytes.into_iter().map(|b| format!("{b:02x}")).collect()
}

/// The request that compiles `text` and runs it on `args` (arrays, row-major bytes).
pub fn execute_request(text: &str, args: &[Literal]) -> Vec<u8> {
    let inputs: Vec<serde_json::Value> = args
        .iter()
        .map(|a| {
            let a = a.as_array().expect("array arguments");
            let w = a.element_type().byte_width();
            serde_json::json!({
                "element_type": a.element_type().hlo_name(),
                "dimensions": a.dimensions(),
                "data": hex(a.logical_bits().iter().flat_map(|b| b.to_le_bytes()[..w].to_vec())),
            })
        })
        .collect();
    serde_json::json!({"module": text, "inputs": inputs})
        .to_string()
        .into_bytes()
}

/// The literal of a reply's output.
pub fn output_literal(o: &serde_json::Value) -> ArrayLiteral {
    let ty = ElementType::from_hlo_name(o["element_type"].as_str().expect("element_type"))
        .expect("known element type");
    let dims: Vec<i64> = o["dimensions"]
        .as_array()
        .expect("dimensions")
        .iter()
        .map(|d| d.as_i64().expect("dimension"))
        .collect();
    let data = o["data"].as_str().expect("data");
    let bytes: Vec<u8> = (0..data.len() / 2)
        .map(|i| u8::from_str_radix(&data[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let w = ty.byte_width();
    let bits: Vec<u128> = bytes
        .chunks(w)
        .map(|c| {
            let mut b = [0u8; 16];
            b[..w].copy_from_slice(c);
            u128::from_le_bytes(b)
        })
        .collect();
    ArrayLiteral::from_bits(ArrayShape::new(ty, dims), &bits).expect("output size")
}

/// Rebuilds a value of `shape` from the leaves (depth-first).
pub fn rebuild(shape: &Shape, leaves: &mut impl Iterator<Item = ArrayLiteral>) -> Option<Literal> {
    match shape {
        Shape::Tuple(t) => t
            .iter()
            .map(|s| rebuild(s, leaves))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Tuple),
        // A token result has no output.
        Shape::Token => Some(Literal::Token),
        _ => leaves.next().map(Literal::Array),
    }
}
