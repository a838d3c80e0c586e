//! `conformance report` in a real browser: results files built by hand (two shards and an
//! overlapping file; failing cases with element diffs in two cells, a timeout, an error, an
//! unsupported cell), the page written to a temporary directory, then loaded by headless Chromium
//! (`--dump-dom`), and the DOM *after the page's script ran* checked: totals, the matrix cells'
//! counts and colour classes, drill-down links pointing at existing sections, the histogram's
//! bars, and the script's additions (copy buttons, the selected cell for a `#cell-…` URL).
//!
//! Needs the `chromium` binary (override with `$CHROMIUM`): `scripts/setup.sh` installs it. Without
//! it this test fails, on purpose. `REPORT_CHROMIUM_KEEP=1` keeps the page (its path is printed).

use conformance::check::{BackendOutcome, Verdict};
use conformance::compare::{Comparison, DiffClass, ElementDiff};
use conformance::known::KnownDeviation;
use conformance::report::write_report;
use conformance::results::{CaseRecord, ResultLine, RunEnd, RunStart};
use conformance_spec::element_type::TypeKind;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- fixtures

fn start(shard: u64) -> ResultLine {
    ResultLine::RunStart(RunStart {
        version: "0.1.0".into(),
        seed: 11,
        shard: Some((shard, 2)),
        ops: vec![],
        dtypes: vec![],
        backends: vec!["reference".into(), "fast".into()],
        catalog_hash: "feedfacecafebeef0123".into(),
        budget: "cases:10".into(),
        swarm: None,
        graphs: false,
        inputs_per_module: 1,
        constant_operands: None,
        tuple_root: false,
        started_unix: 1_700_000_000,
        resumed: shard == 2,
    })
}

fn diff(i: i64, class: DiffClass, ulps: Option<u64>, ty: &str) -> ElementDiff {
    ElementDiff {
        tuple_index: vec![],
        index: vec![i],
        element_type: ty.into(),
        expected_bits: "0x3f800000".into(),
        got_bits: "0x3f800028".into(),
        expected: "1".into(),
        got: "1.0000048".into(),
        ulps,
        class,
        inputs: vec!["0.25".into(), "0.75".into()],
    }
}

fn cmp(
    max_ulps: u64,
    masked: usize,
    classes: &[(DiffClass, usize)],
    diffs: Vec<ElementDiff>,
) -> Comparison {
    Comparison {
        compared: 8,
        masked,
        max_ulps,
        classes: classes.iter().copied().collect(),
        diffs,
        bound_ratios: vec![],
        flushed_subnormals: 0,
        fused_multiply_adds: 0,
        statistics: vec![],
    }
}

const HLO: &str = "HloModule m\n\nENTRY e {\n  a = f32[8]{0} parameter(0)\n  b = f32[8]{0} parameter(1)\n  ROOT r = f32[8]{0} add(a, b), metadata={op_name=\"a<b&c\"}\n}\n";

fn case(
    index: u64,
    row: &str,
    dtype: &str,
    verdict: Verdict,
    comparison: Option<Comparison>,
    error: Option<&str>,
) -> ResultLine {
    ResultLine::Case(CaseRecord {
        seed: 11,
        index,
        op: row.split("->").next().unwrap_or(row).into(),
        row: row.into(),
        dtype: dtype.into(),
        target: row.split_once("->").map(|(_, t)| t.into()),
        instruction: None,
        hlo: (verdict != Verdict::Pass).then(|| HLO.to_string()),
        replay: format!("conformance run --seed 11 --backends reference,fast --only-case {index}"),
        minimized: None,
        reference_micros: 3,
        reference_error: None,
        outcomes: vec![BackendOutcome {
            backend: "fast".into(),
            verdict,
            comparison,
            error: error.map(str::to_string),
            micros: 9,
        }],
    })
}

fn pass(index: u64, row: &str, dtype: &str, ulps: u64) -> ResultLine {
    case(
        index,
        row,
        dtype,
        Verdict::Pass,
        Some(cmp(ulps, 0, &[], vec![])),
        None,
    )
}

fn add_f32_fail() -> ResultLine {
    let diffs = (0..3)
        .map(|i| diff(i, DiffClass::Ulp, Some(40 - i as u64), "f32"))
        .collect();
    case(
        2,
        "add",
        "f32",
        Verdict::Fail,
        Some(cmp(40, 2, &[(DiffClass::Ulp, 3)], diffs)),
        None,
    )
}

fn write(dir: &Path, name: &str, lines: &[ResultLine]) -> PathBuf {
    let text: String = lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap() + "\n")
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Two shards of one sweep plus a file overlapping shard 1 (case 2 again: counted once).
fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let nan = cmp(
        0,
        0,
        &[(DiffClass::Nan, 1)],
        vec![diff(5, DiffClass::Nan, None, "bf16")],
    );
    let shard1 = write(
        dir,
        "results-1.jsonl",
        &[
            start(1),
            pass(0, "add", "f32", 0),
            add_f32_fail(),
            case(4, "multiply", "bf16", Verdict::Fail, Some(nan), None),
            pass(6, "add", "s32", 0),
            ResultLine::RunEnd(RunEnd {
                cases: 4,
                elapsed_secs: 2.0,
            }),
        ],
    );
    let shard2 = write(
        dir,
        "results-2.jsonl",
        &[
            start(2),
            case(
                1,
                "add",
                "f32",
                Verdict::Timeout,
                None,
                Some("timed out after 10 s"),
            ),
            case(
                3,
                "convert->f32",
                "s32",
                Verdict::Unsupported,
                None,
                Some("fast: no s32 -> f32 <conversion>"),
            ),
            pass(5, "multiply", "bf16", 1),
            pass(7, "add", "f32", 2),
            case(
                9,
                "multiply",
                "f32",
                Verdict::Error,
                None,
                Some("backend failure: boom & <crash>"),
            ),
            ResultLine::RunEnd(RunEnd {
                cases: 5,
                elapsed_secs: 3.0,
            }),
        ],
    );
    let overlap = write(dir, "results-overlap.jsonl", &[start(1), add_f32_fail()]);
    vec![shard1, shard2, overlap]
}

// ---------------------------------------------------------------- browser

fn chromium() -> String {
    let candidates: Vec<String> = match std::env::var_os("CHROMIUM") {
        Some(c) => vec![c.to_string_lossy().into_owned()],
        None => ["chromium", "chromium-browser", "google-chrome"]
            .map(String::from)
            .to_vec(),
    };
    for c in &candidates {
        let found = Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if found {
            return c.clone();
        }
    }
    panic!(
        "no chromium binary found (tried {}): run scripts/setup.sh, which installs it, then \
         re-run this test (or set $CHROMIUM to a Chromium or Chrome binary)",
        candidates.join(", ")
    );
}

/// Runs headless Chromium on `url` and returns the serialized DOM after the page's scripts ran.
fn dump_dom(url: &str, profile: &Path) -> String {
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let mut stderr = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for chromium") {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let dom = reader.join().unwrap().expect("chromium output is UTF-8");
    let err = err_reader.join().unwrap();
    assert!(
        status.success(),
        "chromium failed ({status}) on {url}:\n{err}"
    );
    assert!(
        dom.contains("</html>"),
        "no DOM from chromium on {url}:\n{err}"
    );
    dom
}

fn file_url(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap();
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

// ---------------------------------------------------------------- a small DOM reader

/// A start tag of the serialized DOM: name, attributes (entities decoded), byte range.
#[derive(Debug, Clone)]
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
    end: usize,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_whitespace().any(|k| k == class))
    }
}

fn decode(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

fn tags(html: &str) -> Vec<Tag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let start = i + off;
        i = start + 1;
        if i >= b.len() || !b[i].is_ascii_alphabetic() {
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
            j += 1;
        }
        let name = html[i..j].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j >= b.len() || b[j] == b'>' || b[j] == b'/' {
                break;
            }
            let k = j;
            while j < b.len() && !b" =>/".contains(&b[j]) && !b[j].is_ascii_whitespace() {
                j += 1;
            }
            let key = html[k..j].to_string();
            let mut value = String::new();
            if j < b.len() && b[j] == b'=' {
                let q = b[j + 1];
                let v0 = j + 2;
                let v1 = v0 + html[v0..].find(q as char).expect("closing quote");
                value = decode(&html[v0..v1]);
                j = v1 + 1;
            }
            attrs.push((key, value));
        }
        let end = j + html[j..].find('>').expect("tag end") + 1;
        i = end;
        if name == "script" || name == "style" {
            i += html[i..].find("</").unwrap_or(0);
        }
        out.push(Tag { name, attrs, end });
    }
    out
}

/// The text inside the element whose start tag is `t` (tags stripped, entities decoded).
fn text_of(html: &str, t: &Tag) -> String {
    let (open, close) = (format!("<{}", t.name), format!("</{}>", t.name));
    let mut depth = 1;
    let mut i = t.end;
    let end = loop {
        let c = html[i..].find(&close).expect("closing tag") + i;
        let nested = html[i..c].matches(&open).count();
        depth += nested;
        depth -= 1;
        if depth == 0 {
            break c;
        }
        i = c + close.len();
    };
    let mut text = String::new();
    let mut in_tag = false;
    for ch in html[t.end..end].chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    decode(&text)
}

fn by_id<'a>(all: &'a [Tag], id: &str) -> Vec<&'a Tag> {
    all.iter().filter(|t| t.attr("id") == Some(id)).collect()
}

// ---------------------------------------------------------------- the test

#[test]
fn the_report_renders_in_chromium_with_the_right_cells_links_and_bars() {
    let dir = std::env::temp_dir().join(format!(
        "conformance-report-chromium-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = fixtures(&dir);
    let out = dir.join("reports/out/index.html");
    // An accepted deviation of the corpus explains the NaN of multiply bf16 (same backend,
    // operation, kind of element type and class): that cell is known, not failing.
    let known = [KnownDeviation {
        backend: "fast".into(),
        op: "multiply".into(),
        kinds: vec![TypeKind::Float],
        class: Some(DiffClass::Nan),
        error: None,
        path: "corpus/regressions/multiply-fast-nan.yaml".into(),
    }];
    let stats = write_report(&inputs, &out, &known).expect("report written");
    assert_eq!(
        (stats.cases, stats.pairs, stats.failing_cells, stats.known),
        (9, 1, 2, 1)
    );

    let dom = dump_dom(&file_url(&out), &dir.join("profile"));
    let all = tags(&dom);
    let body = all.iter().find(|t| t.name == "body").expect("a body");
    assert_eq!(body.attr("data-js"), Some("ready"), "the page's script ran");

    // Totals: 9 distinct cases (case 2 of the overlapping file counted once).
    let total = |id: &str| {
        let t = by_id(&all, id);
        assert_eq!(t.len(), 1, "one #{id}");
        let n = all
            .iter()
            .find(|s| s.name == "span" && s.has_class("n") && s.end > t[0].end)
            .unwrap();
        text_of(&dom, n)
    };
    assert_eq!(total("total-cases"), "9");
    assert_eq!(total("total-pass"), "4");
    assert_eq!(total("total-fail"), "1", "new failures");
    assert_eq!(total("total-known"), "1");
    assert_eq!(total("total-error"), "1");
    assert_eq!(total("total-timeout"), "1");
    assert_eq!(total("total-unsupported"), "1");
    assert_eq!(total("total-masked"), "2");
    assert_eq!(total("total-rate"), "1.8", "9 cases in 5 s");
    assert!(text_of(&dom, by_id(&all, "duplicates")[0]).starts_with("1 duplicate"));
    let shards: Vec<String> = all
        .iter()
        .filter(|t| t.has_class("shard"))
        .map(|t| text_of(&dom, t))
        .collect();
    assert_eq!(
        shards,
        ["1/2", "2/2", "1/2"],
        "one row per run, in input order"
    );

    // The matrix: (row, dtype) → (class, pass, total, fail, error, timeout, unsupported, text).
    let expected: [(&str, &str, &str, &str, &str); 5] = [
        ("add", "f32", "cell fail c-ulp", "2/4", "F1 T1"),
        ("add", "s32", "cell pass s0", "1/1", ""),
        ("multiply", "bf16", "cell known", "1/2", "K1"),
        ("multiply", "f32", "cell error", "0/1", "E1"),
        ("convert->f32", "s32", "cell unsupported", "0/1", "U1"),
    ];
    let cells: Vec<&Tag> = all
        .iter()
        .filter(|t| t.name == "td" && t.has_class("cell"))
        .collect();
    let data_cells: Vec<&&Tag> = cells
        .iter()
        .filter(|t| t.attr("data-row").is_some())
        .collect();
    assert_eq!(data_cells.len(), expected.len());
    // 3 rows × 3 element types (s32, bf16, f32): the other 4 cells are blank.
    assert_eq!(cells.iter().filter(|t| t.has_class("none")).count(), 4);
    let heads: Vec<String> = all
        .iter()
        .filter(|t| t.name == "th")
        .map(|t| text_of(&dom, t))
        .skip_while(|h| h != "op")
        .take(4)
        .collect();
    assert_eq!(
        heads,
        ["op", "s32", "bf16", "f32"],
        "columns in ElementType::ALL order"
    );
    for (row, dtype, class, counts, letters) in expected {
        let td = data_cells
            .iter()
            .find(|t| t.attr("data-row") == Some(row) && t.attr("data-dtype") == Some(dtype))
            .unwrap_or_else(|| panic!("no cell {row} {dtype}"));
        assert_eq!(
            td.attr("class").map(|c| c.replace(" clickable", "")),
            Some(class.to_string()),
            "{row} {dtype}"
        );
        let text = text_of(&dom, td);
        assert_eq!(text, format!("{counts}{letters}"), "{row} {dtype}");
        let (p, t) = counts.split_once('/').unwrap();
        assert_eq!(
            (td.attr("data-pass"), td.attr("data-total")),
            (Some(p), Some(t))
        );
    }

    // Drill-down links: every cell with a non-passing case links to an existing section.
    let links: Vec<String> = all
        .iter()
        .filter(|t| t.name == "a" && t.attr("href").is_some_and(|h| h.starts_with("#cell-")))
        .map(|t| t.attr("href").unwrap()[1..].to_string())
        .collect();
    assert_eq!(links.len(), 4, "{links:?}");
    assert!(links.contains(&"cell-add-f32-fast".to_string()));
    assert!(links.contains(&"cell-convert-_3ef32-s32-fast".to_string()));
    for id in &links {
        let targets = by_id(&all, id);
        assert_eq!(targets.len(), 1, "#{id} exists once");
        assert!(
            targets[0].name == "section" && targets[0].has_class("drill"),
            "#{id}"
        );
    }
    let section = |id: &str| text_of(&dom, by_id(&all, id)[0]);
    let add = section("cell-add-f32-fast");
    assert!(
        add.contains("case 1 (seed 11)") && add.contains("case 2 (seed 11)"),
        "{add}"
    );
    assert!(add.contains("timed out after 10 s"));
    assert!(
        add.contains("metadata={op_name=\"a<b&c\"}"),
        "HLO shown as text, escaped in the source"
    );
    assert!(add.contains("conformance run --seed 11 --backends reference,fast --only-case 2"));
    assert!(section("cell-multiply-f32-fast").contains("backend failure: boom & <crash>"));
    assert!(section("cell-multiply-bf16-fast")
        .contains("Accepted deviation, recorded in corpus/regressions/multiply-fast-nan.yaml."));
    assert!(section("cell-convert-_3ef32-s32-fast").contains("fast: no s32 -> f32 <conversion>"));
    let cases = all
        .iter()
        .filter(|t| t.name == "article" && t.has_class("case"))
        .count();
    assert_eq!(cases, 4, "add/f32: 2, multiply/bf16: 1, multiply/f32: 1");
    let diff_rows: Vec<&Tag> = all
        .iter()
        .filter(|t| t.name == "tr" && t.has_class("diff"))
        .collect();
    assert_eq!(diff_rows.len(), 4, "3 ULP diffs and 1 NaN diff");
    let first = text_of(&dom, diff_rows[0]);
    assert_eq!(first, "[0]0.25, 0.7511.000004840ulp");
    let replays = all
        .iter()
        .filter(|t| t.name == "code" && t.has_class("replay"))
        .count();
    let copies = all
        .iter()
        .filter(|t| t.name == "button" && t.has_class("copy"))
        .count();
    assert_eq!(
        (replays, copies),
        (4, 4),
        "the script adds a copy button per replay command"
    );
    assert!(all
        .iter()
        .any(|t| t.name == "td" && t.has_class("clickable")));

    // Histogram: cases 0 and 6 at 0 ULPs, 5 at 1, 7 at 2, case 2 at 40 (2^5..2^6-1), case 4 NaN.
    let svgs: Vec<&Tag> = all
        .iter()
        .filter(|t| t.name == "svg" && t.has_class("histogram"))
        .collect();
    assert_eq!(svgs.len(), 1);
    let bars: Vec<(String, String)> = all
        .iter()
        .filter(|t| t.name == "rect" && t.has_class("bar"))
        .map(|t| {
            (
                t.attr("data-bucket").unwrap().to_string(),
                t.attr("data-count").unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("0", "2"),
        ("1", "1"),
        ("2–3", "1"),
        ("2^5", "1"),
        ("nan", "1"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(bars, want);
    let labels = all
        .iter()
        .filter(|t| t.name == "text" && t.has_class("xlabel"))
        .count();
    assert_eq!(
        labels,
        22 + 8,
        "every ULP bucket and non-ULP class is labelled"
    );

    // Following a cell's link selects it (script) and targets its section (CSS :target).
    let dom = dump_dom(
        &format!("{}#cell-multiply-bf16-fast", file_url(&out)),
        &dir.join("profile2"),
    );
    let all = tags(&dom);
    let selected: Vec<&Tag> = all
        .iter()
        .filter(|t| t.name == "td" && t.has_class("selected"))
        .collect();
    assert_eq!(selected.len(), 1);
    assert_eq!(
        (selected[0].attr("data-row"), selected[0].attr("data-dtype")),
        (Some("multiply"), Some("bf16"))
    );
    if std::env::var_os("REPORT_CHROMIUM_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("kept {}", out.display());
    }
}

/// A case of a several-backend sweep: one outcome per (backend, verdict).
fn multi(index: u64, row: &str, dtype: &str, outcomes: &[(&str, Verdict)]) -> ResultLine {
    let ResultLine::Case(mut c) = pass(index, row, dtype, 0) else {
        unreachable!()
    };
    c.outcomes = outcomes
        .iter()
        .map(|&(backend, verdict)| BackendOutcome {
            backend: backend.into(),
            verdict,
            comparison: matches!(verdict, Verdict::Pass | Verdict::Fail).then(|| {
                if verdict == Verdict::Pass {
                    cmp(0, 0, &[], vec![])
                } else {
                    cmp(
                        3,
                        0,
                        &[(DiffClass::Ulp, 1)],
                        vec![diff(0, DiffClass::Ulp, Some(3), dtype)],
                    )
                }
            }),
            error: (verdict == Verdict::Unsupported).then(|| "unsupported: f64".to_string()),
            micros: 5,
        })
        .collect();
    if outcomes.iter().any(|(_, v)| *v != Verdict::Pass) {
        c.hlo = Some(HLO.to_string());
    }
    ResultLine::Case(c)
}

#[test]
fn a_report_of_four_backends_renders_their_pairs_and_the_family_table() {
    use Verdict::{Fail, Pass, Unsupported};
    let dir = std::env::temp_dir().join(format!("conformance-report-four-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ResultLine::RunStart(mut s) = start(1) else {
        unreachable!()
    };
    s.shard = None;
    s.backends = ["reference", "fast", "xla", "iree", "stablehlo-interpreter"]
        .map(String::from)
        .to_vec();
    let backends = ["fast", "xla", "iree", "stablehlo-interpreter"];
    let all_pass: Vec<(&str, Verdict)> = backends.iter().map(|b| (*b, Pass)).collect();
    let results = write(
        &dir,
        "four.jsonl",
        &[
            ResultLine::RunStart(s),
            multi(0, "add", "f32", &all_pass),
            multi(
                1,
                "exponential",
                "f32",
                &[
                    ("fast", Pass),
                    ("xla", Fail),
                    ("iree", Fail),
                    ("stablehlo-interpreter", Pass),
                ],
            ),
            multi(
                2,
                "add",
                "f64",
                &[
                    ("fast", Pass),
                    ("xla", Pass),
                    ("iree", Unsupported),
                    ("stablehlo-interpreter", Pass),
                ],
            ),
            multi(3, "transpose", "s32", &all_pass),
            ResultLine::RunEnd(RunEnd {
                cases: 4,
                elapsed_secs: 1.0,
            }),
        ],
    );
    // XLA's exponential failure is an accepted deviation; IREE's is not.
    let known = [KnownDeviation {
        backend: "xla".into(),
        op: "exponential".into(),
        kinds: vec![TypeKind::Float],
        class: Some(DiffClass::Ulp),
        error: None,
        path: "corpus/regressions/exponential-f32-xla-x.yaml".into(),
    }];
    let out = dir.join("four.html");
    let stats = write_report(&[results], &out, &known).expect("report written");
    assert_eq!((stats.cases, stats.pairs, stats.known), (4, 4, 1));

    let dom = dump_dom(&file_url(&out), &dir.join("profile"));
    let all = tags(&dom);
    let pairs: Vec<&str> = all
        .iter()
        .filter(|t| t.name == "section" && t.has_class("pair"))
        .filter_map(|t| t.attr("data-backend"))
        .collect();
    assert_eq!(pairs, backends, "one matrix per backend, in run order");
    assert_eq!(by_id(&all, "families").len(), 1, "the family table");
    let at = all
        .iter()
        .position(|t| t.attr("id") == Some("families"))
        .unwrap();
    let heads: Vec<String> = all[at..]
        .iter()
        .take_while(|t| t.name != "tbody")
        .filter(|t| t.name == "th")
        .map(|t| text_of(&dom, t))
        .collect();
    assert_eq!(heads.len(), 3, "{heads:?}");
    assert_eq!(heads[0], "backend");
    assert!(
        heads.contains(&"elementwise".to_string()) && heads.contains(&"data_movement".to_string())
    );
    let rows: Vec<usize> = (at..all.len())
        .filter(|&k| all[k].name == "tr" && all[k].attr("data-backend").is_some())
        .collect();
    let counts = |backend: &str, family: &str| -> [String; 4] {
        let row = *rows
            .iter()
            .find(|&&k| all[k].attr("data-backend") == Some(backend))
            .unwrap_or_else(|| panic!("no row for {backend}"));
        let td = all[row + 1..]
            .iter()
            .take_while(|t| t.name != "tr")
            .find(|t| t.name == "td" && t.attr("data-family") == Some(family))
            .unwrap_or_else(|| panic!("no {family} cell for {backend}"));
        ["data-pass", "data-fail", "data-known", "data-unsupported"]
            .map(|a| td.attr(a).unwrap_or("-").to_string())
    };
    assert_eq!(rows.len(), 4);
    assert_eq!(counts("fast", "elementwise"), ["3", "0", "0", "0"]);
    assert_eq!(counts("xla", "elementwise"), ["2", "0", "1", "0"]);
    assert_eq!(counts("iree", "elementwise"), ["1", "1", "0", "1"]);
    assert_eq!(
        counts("stablehlo-interpreter", "elementwise"),
        ["3", "0", "0", "0"]
    );
    assert_eq!(counts("iree", "data_movement"), ["1", "0", "0", "0"]);
    if std::env::var_os("REPORT_CHROMIUM_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
