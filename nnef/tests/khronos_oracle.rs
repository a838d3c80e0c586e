//! Differential test of our NNEF front end against the Khronos reference parser (PyPI `nnef`
//! 1.0.10, run by `scripts/nnef_oracle.py` in the project's venv; `bash scripts/setup-python.sh`
//! creates it).
//!
//! - `oracle_reproduces_recorded_khronos_shapes`: the oracle script, fed the 305 real graphs of
//!   corpus/external/nnef, reports exactly what `khronos-parser-shapes.json` recorded
//!   (graph, inputs, outputs, operations, shapes, dtypes): this validates the oracle itself.
//! - `generated_documents_agree_with_khronos`: ≥ 1,000 generated documents (valid by
//!   construction, and one-rule mutations of them, from fixed seeds) are printed, parsed and
//!   evaluated by our front end, and sent to the oracle in one run. Valid documents must be
//!   accepted by both with the same shape and data type for every tensor the graph body names;
//!   mutated ones must be rejected by both. Every disagreement is printed with the
//!   document and both verdicts (all of them go to the file `$NNEF_ORACLE_FAILURES` when
//!   that variable is set).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use conformance_nnef::ast::{Document, Expr, ExprKind};
use conformance_nnef::generate::{mutate, valid_document_with_shapes, Config, Rule, SplitMix64};
use conformance_nnef::graph::DataType;
use conformance_nnef::graph::Graph;
use conformance_nnef::printer::print_document;
use serde_json::{json, Value};

/// Valid documents generated; each also seeds mutations (one rule per document, cycling
/// through [`Rule::ALL`]).
const VALID_DOCUMENTS: u64 = 500;
/// Mutated documents generated per valid document.
const MUTATIONS_PER_DOCUMENT: usize = 2;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("nnef/ has a parent")
        .to_path_buf()
}

/// One verdict line of the oracle per request, in order.
fn run_oracle(requests: Vec<Value>) -> Vec<Value> {
    let root = repo_root();
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/setup-python.sh` (creates the venv with the Khronos NNEF parser)",
        python.display()
    );
    let mut child = Command::new(&python)
        .arg(root.join("scripts/nnef_oracle.py"))
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the oracle");
    let mut stdin = child.stdin.take().expect("oracle stdin");
    let count = requests.len();
    let writer = std::thread::spawn(move || {
        for request in requests {
            writeln!(stdin, "{request}").expect("write to the oracle");
        }
    });
    let stdout = BufReader::new(child.stdout.take().expect("oracle stdout"));
    let verdicts: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(&l.expect("oracle output")).expect("oracle JSON"))
        .collect();
    writer.join().expect("writer thread");
    let status = child.wait().expect("oracle exit");
    assert!(status.success(), "oracle exited with {status}");
    assert_eq!(verdicts.len(), count, "one verdict per document");
    verdicts
}

#[test]
fn oracle_reproduces_recorded_khronos_shapes() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/external/nnef"
    ));
    let recorded: BTreeMap<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("khronos-parser-shapes.json")).expect("recorded shapes"),
    )
    .expect("recorded JSON");
    let requests: Vec<Value> = recorded
        .keys()
        .map(|file| json!({"id": file, "text": std::fs::read_to_string(dir.join(file)).expect("graph file")}))
        .collect();
    assert_eq!(requests.len(), 305);
    let mut mismatches = Vec::new();
    for verdict in run_oracle(requests) {
        let file = verdict["id"].as_str().expect("id").to_string();
        let want = &recorded[&file];
        for key in ["graph", "inputs", "outputs", "ops", "shapes", "dtypes"] {
            if verdict[key] != want[key] {
                mismatches.push(format!(
                    "{file}: {key}: oracle {} recorded {}",
                    verdict[key], want[key]
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Where a generated document came from (enough to regenerate it).
#[derive(Debug, Clone)]
enum Origin {
    Valid { seed: u64 },
    Mutated { seed: u64, rule: Rule },
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Valid { seed } => write!(f, "valid document of seed {seed}"),
            Origin::Mutated { seed, rule } => {
                write!(
                    f,
                    "document of seed {seed} mutated to break {rule:?} ({})",
                    rule.source()
                )
            }
        }
    }
}

struct Case {
    origin: Origin,
    doc: Document,
    text: String,
    /// For valid documents: the data type and shape the generator expects for every tensor
    /// the graph body names.
    expected: BTreeMap<String, (DataType, Vec<usize>)>,
}

/// Identifiers the graph body binds, in order.
fn graph_names(doc: &Document) -> Vec<String> {
    fn bound(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Identifier(n) => out.push(n.clone()),
            ExprKind::Array(items) | ExprKind::Tuple(items) => {
                items.iter().for_each(|i| bound(i, out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    doc.graph.body.iter().for_each(|a| bound(&a.lhs, &mut out));
    out
}

/// Our verdict: parse the printed text, then evaluate.
fn ours(text: &str) -> Result<Graph, String> {
    let doc = conformance_nnef::parse_document(text).map_err(|e| format!("parse: {e}"))?;
    conformance_nnef::eval::evaluate(&doc).map_err(|e| format!("{:?}: {e}", e.kind))
}

/// Where our graph and the oracle's accepted verdict differ (empty when they agree).
fn compare_accepted(case: &Case, graph: &Graph, oracle: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    if oracle["graph"] != json!(graph.name) {
        diffs.push(format!(
            "graph name: ours {} khronos {}",
            graph.name, oracle["graph"]
        ));
    }
    if oracle["inputs"] != json!(graph.inputs) || oracle["outputs"] != json!(graph.outputs) {
        diffs.push(format!(
            "inputs/outputs: ours {:?} {:?} khronos {} {}",
            graph.inputs, graph.outputs, oracle["inputs"], oracle["outputs"]
        ));
    }
    if case.doc.fragments.is_empty() {
        let ops: Vec<&str> = graph.operations.iter().map(|o| o.name.as_str()).collect();
        if oracle["ops"] != json!(ops) {
            diffs.push(format!(
                "operations: ours {ops:?} khronos {}",
                oracle["ops"]
            ));
        }
    }
    for name in graph_names(&case.doc) {
        let theirs = (&oracle["shapes"][&name], &oracle["dtypes"][&name]);
        match graph.tensor(&name) {
            None => diffs.push(format!(
                "{name}: no tensor in our graph; khronos {} {}",
                theirs.0, theirs.1
            )),
            Some(t) => {
                if *theirs.0 != json!(t.shape) || *theirs.1 != json!(t.dtype.name()) {
                    diffs.push(format!(
                        "{name}: ours {:?} {} khronos {} {}",
                        t.shape,
                        t.dtype.name(),
                        theirs.0,
                        theirs.1
                    ));
                }
            }
        }
    }
    diffs
}

/// Where the shapes the generator expects differ from the Khronos parser's (a generator bug).
fn generator_disagreements(case: &Case, oracle: &Value) -> Vec<String> {
    if oracle["ok"] != json!(true) {
        return Vec::new();
    }
    let mut diffs = Vec::new();
    for (name, (dtype, shape)) in &case.expected {
        let theirs = (&oracle["shapes"][name], &oracle["dtypes"][name]);
        if *theirs.0 != json!(shape) || *theirs.1 != json!(dtype.name()) {
            diffs.push(format!(
                "generator expects {name}: {shape:?} {} khronos {} {}",
                dtype.name(),
                theirs.0,
                theirs.1
            ));
        }
    }
    diffs
}

fn generate_cases() -> Vec<Case> {
    let config = Config::default();
    let mut cases = Vec::new();
    let mut rule_cursor = 0;
    for seed in 0..VALID_DOCUMENTS {
        let mut rng = SplitMix64::new(seed);
        // Every fourth document draws its own swarm configuration.
        let (doc, expected) = if seed % 4 == 3 {
            let swarm = Config::swarm(&mut rng);
            valid_document_with_shapes(&mut rng, &swarm)
        } else {
            valid_document_with_shapes(&mut rng, &config)
        };
        let mut made = 0;
        let mut tried = 0;
        while made < MUTATIONS_PER_DOCUMENT && tried < Rule::ALL.len() {
            let rule = Rule::ALL[rule_cursor % Rule::ALL.len()];
            rule_cursor += 1;
            tried += 1;
            let mut mrng = SplitMix64::new(seed.wrapping_mul(0x9e37_79b9) ^ rule as u64);
            if let Some(mutated) = mutate(&doc, rule, &mut mrng) {
                let text = print_document(&mutated);
                cases.push(Case {
                    origin: Origin::Mutated { seed, rule },
                    doc: mutated,
                    text,
                    expected: BTreeMap::new(),
                });
                made += 1;
            }
        }
        let text = print_document(&doc);
        cases.push(Case {
            origin: Origin::Valid { seed },
            doc,
            text,
            expected,
        });
    }
    cases
}

#[test]
fn generated_documents_agree_with_khronos() {
    let cases = generate_cases();
    assert!(cases.len() >= 1000, "only {} documents", cases.len());
    let requests: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let lowered: Vec<&str> = c
                .doc
                .fragments
                .iter()
                .map(|f| f.declaration.name.as_str())
                .collect();
            json!({"id": i, "text": c.text, "lowered": lowered})
        })
        .collect();
    let verdicts = run_oracle(requests);

    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (case, verdict) in cases.iter().zip(&verdicts) {
        let khronos_ok = verdict["ok"].as_bool().unwrap_or(false);
        if verdict["crashed"].as_bool().unwrap_or(false) {
            // The parser's C++ core died on the document (its process is isolated): counted
            // as a rejection, and listed.
            let what = match &case.origin {
                Origin::Valid { .. } => "valid".to_string(),
                Origin::Mutated { rule, .. } => rule.name(),
            };
            *counts
                .entry(format!("khronos crashed on {what}"))
                .or_default() += 1;
        }
        let ours = ours(&case.text);
        let (kind, problem) = match &case.origin {
            Origin::Valid { .. } => {
                let key = format!(
                    "valid: khronos {} ours {}",
                    verdict_word(khronos_ok),
                    verdict_word(ours.is_ok())
                );
                let mut diffs = generator_disagreements(case, verdict);
                match (&ours, khronos_ok) {
                    (Ok(graph), true) => diffs.extend(compare_accepted(case, graph, verdict)),
                    _ => diffs.push("a valid document must be accepted by both".to_string()),
                }
                let problem = (!diffs.is_empty()).then(|| diffs.join("\n  "));
                (key, problem)
            }
            Origin::Mutated { rule, .. } => {
                let key = format!(
                    "{}: khronos {} ours {}",
                    rule.name(),
                    verdict_word(khronos_ok),
                    verdict_word(ours.is_ok())
                );
                let problem = match (ours.is_ok(), khronos_ok) {
                    (false, false) => None,
                    (true, _) => Some(format!(
                        "our front end accepts a document breaking {rule:?}"
                    )),
                    (false, true) => Some(format!(
                        "the Khronos parser accepts a document breaking {rule:?}"
                    )),
                };
                (key, problem)
            }
        };
        *counts.entry(kind).or_default() += 1;
        if let Some(problem) = problem {
            failures.push(format!(
                "--- {}: {problem}\nkhronos: {}\nours: {}\n{}",
                case.origin,
                verdict.get("error").cloned().unwrap_or(json!("accepted")),
                match &ours {
                    Ok(_) => "accepted".to_string(),
                    Err(e) => e.clone(),
                },
                case.text
            ));
        }
    }
    let mut summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v:5}  {k}")).collect();
    // Coverage: how often each operation occurs in the accepted documents (fragments lowered).
    let mut operations: BTreeMap<&str, usize> = BTreeMap::new();
    for verdict in &verdicts {
        for op in verdict["ops"].as_array().into_iter().flatten() {
            *operations.entry(op.as_str().unwrap_or("?")).or_default() += 1;
        }
    }
    summary.push(format!(
        "operations in accepted documents ({}): {}",
        operations.len(),
        operations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if let Some(path) = std::env::var_os("NNEF_ORACLE_FAILURES") {
        // Every disagreement, for study (the panic message shows the first few).
        std::fs::write(&path, failures.join("\n")).expect("write NNEF_ORACLE_FAILURES");
    }
    eprintln!("{} documents:\n{}", cases.len(), summary.join("\n"));
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(12).collect();
        panic!(
            "{} of {} documents disagree (first {} shown):\n{}\n\nsummary:\n{}",
            failures.len(),
            cases.len(),
            shown.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            summary.join("\n")
        );
    }
}

fn verdict_word(ok: bool) -> &'static str {
    if ok {
        "accepts"
    } else {
        "rejects"
    }
}

/// `Dialect::Khronos` (`nnef check --khronos`) refuses exactly the documents whose missing `;`
/// the Khronos parser refuses, at the same line:col; the default (seed 003) dialect accepts them.
#[test]
fn khronos_dialect_refuses_missing_semicolons_where_khronos_does() {
    use conformance_nnef::{parse_document_with, Dialect};
    let graph = |body: &str| format!("graph G( x ) -> ( y )\n{{\n{body}}}\n");
    let full = "    x = external(shape = [1]);\n    y = relu(x);\n";
    let documents = [
        format!("version 1.0\n{}", graph(full)),
        format!(
            "version 1.0;\nextension KHR_enable_operator_expressions\n{}",
            graph(full)
        ),
        format!(
            "version 1.0;\n{}",
            graph("    x = external(shape = [1])\n    y = relu(x);\n")
        ),
        format!(
            "version 1.0;\n{}",
            graph("    x = external(shape = [1]);\n    y = relu(x)\n")
        ),
        format!(
            "version 1.0;\nextension KHR_enable_fragment_definitions;\nfragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> )\n{}",
            graph(full)
        ),
        // Every `;` written: accepted by all three.
        format!("version 1.0;\n{}", graph(full)),
    ];
    let requests = documents
        .iter()
        .enumerate()
        .map(|(k, text)| json!({"id": k, "text": text}))
        .collect();
    let verdicts = run_oracle(requests);
    for (text, oracle) in documents.iter().zip(&verdicts) {
        conformance_nnef::parse_document(text)
            .unwrap_or_else(|e| panic!("seed 003 refuses {text:?}: {e}"));
        let ours = parse_document_with(text, Dialect::Khronos);
        let khronos_ok = oracle["ok"].as_bool().unwrap();
        match ours {
            Ok(_) => assert!(khronos_ok, "{text:?}: Khronos says {oracle}"),
            Err(e) => {
                let message = oracle["error"].as_str().unwrap_or_default();
                // After a fragment declaration Khronos asks for the `{` of a body (a document's
                // fragments are definitions there); elsewhere for the `;`.
                assert!(
                    !khronos_ok && message.contains("expected token"),
                    "{text:?}: ours {e}, Khronos {oracle}"
                );
                let at = format!("[{}:{}]", e.span.line, e.span.column);
                assert!(
                    message.contains(&at),
                    "{text:?}: ours at {at} ({e}), Khronos: {message}"
                );
            }
        }
    }
}
