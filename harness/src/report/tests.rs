//! Merging, drill-down bookkeeping, escaping and writing of the report.

use super::*;
use crate::check::{BackendOutcome, Verdict};
use crate::compare::{Comparison, DiffClass, ElementDiff};
use crate::results::{CaseRecord, ResultLine, RunEnd, RunStart};
use std::sync::atomic::{AtomicUsize, Ordering};

fn temp_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "conformance-report-unit-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start(seed: u64, shard: Option<(u64, u64)>, ops: &[&str]) -> ResultLine {
    ResultLine::RunStart(RunStart {
        version: "0.1.0".into(),
        seed,
        shard,
        ops: ops.iter().map(|s| s.to_string()).collect(),
        dtypes: vec![],
        backends: vec!["reference".into(), "fast".into()],
        catalog_hash: "abc123".into(),
        budget: "cases:6".into(),
        swarm: None,
        graphs: false,
        inputs_per_module: 1,
        constant_operands: None,
        tuple_root: false,
        started_unix: 1_700_000_000,
        resumed: false,
    })
}

fn diff(class: DiffClass, ulps: Option<u64>) -> ElementDiff {
    ElementDiff {
        tuple_index: vec![],
        index: vec![1],
        element_type: "f32".into(),
        expected_bits: "0x3f800000".into(),
        got_bits: "0x3f800001".into(),
        expected: "1".into(),
        got: "1.0000001".into(),
        ulps,
        class,
        inputs: vec!["0.5".into(), "0.5".into()],
    }
}

fn comparison(max_ulps: u64, classes: &[(DiffClass, usize)]) -> Comparison {
    Comparison {
        compared: 4,
        masked: 1,
        max_ulps,
        classes: classes.iter().copied().collect(),
        diffs: classes
            .iter()
            .map(|&(c, _)| diff(c, (c == DiffClass::Ulp).then_some(max_ulps)))
            .collect(),
        bound_ratios: vec![],
        flushed_subnormals: 0,
        fused_multiply_adds: 0,
        statistics: vec![],
    }
}

fn case(
    index: u64,
    row: &str,
    dtype: &str,
    verdict: Verdict,
    cmp: Option<Comparison>,
) -> ResultLine {
    ResultLine::Case(CaseRecord {
        seed: 1,
        index,
        op: row.split("->").next().unwrap_or(row).into(),
        row: row.into(),
        dtype: dtype.into(),
        target: row.split_once("->").map(|(_, t)| t.to_string()),
        instruction: None,
        hlo: (verdict != Verdict::Pass)
            .then(|| "HloModule m\nENTRY e { ROOT r = f32[] constant(1) }".into()),
        replay: format!("conformance run --seed 1 --only-case {index}"),
        minimized: None,
        reference_micros: 5,
        reference_error: None,
        outcomes: vec![BackendOutcome {
            backend: "fast".into(),
            verdict,
            comparison: cmp,
            error: matches!(
                verdict,
                Verdict::Error | Verdict::Timeout | Verdict::Unsupported
            )
            .then(|| format!("{verdict:?} reason")),
            micros: 7,
        }],
    })
}

fn pass(index: u64, row: &str, dtype: &str, ulps: u64) -> ResultLine {
    case(
        index,
        row,
        dtype,
        Verdict::Pass,
        Some(comparison(ulps, &[])),
    )
}

fn write(dir: &Path, name: &str, lines: &[ResultLine]) -> PathBuf {
    let path = dir.join(name);
    let mut text = String::new();
    for l in lines {
        text.push_str(&serde_json::to_string(l).unwrap());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn end(cases: u64, secs: f64) -> ResultLine {
    ResultLine::RunEnd(RunEnd {
        cases,
        elapsed_secs: secs,
    })
}

/// Two shards of one sweep: cases 0, 2, 4 and 1, 3, 5.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let fail = || Some(comparison(9, &[(DiffClass::Ulp, 2)]));
    let a = write(
        dir,
        "shard-1.jsonl",
        &[
            start(1, Some((1, 2)), &[]),
            pass(0, "add", "f32", 0),
            case(2, "add", "f32", Verdict::Fail, fail()),
            pass(4, "add", "s32", 0),
            end(3, 1.5),
        ],
    );
    let b = write(
        dir,
        "shard-2.jsonl",
        &[
            start(1, Some((2, 2)), &[]),
            pass(1, "add", "f32", 1),
            case(3, "add", "f32", Verdict::Timeout, None),
            case(5, "convert->f32", "s32", Verdict::Unsupported, None),
            end(3, 0.5),
        ],
    );
    vec![a, b]
}

#[test]
fn two_shards_add_up_cell_by_cell() {
    let dir = temp_dir();
    let r = build_report(&shards(&dir), &[]).unwrap();
    assert_eq!(r.totals.cases, 6);
    assert_eq!(r.totals.duplicates, 0);
    let v = r.totals.verdicts;
    assert_eq!(
        (v.pass, v.fail, v.error, v.timeout, v.unsupported),
        (3, 1, 0, 1, 1)
    );
    assert_eq!(
        r.totals.masked_elements, 4,
        "one masked element per comparison"
    );
    assert_eq!((r.totals.ended_cases, r.totals.ended_secs), (6, 2.0));
    assert_eq!(r.pairs.len(), 1);
    let p = &r.pairs[0];
    assert_eq!(
        (p.reference.as_str(), p.backend.as_str()),
        ("reference", "fast")
    );
    assert_eq!(p.rows, ["add", "convert->f32"]);
    assert_eq!(p.dtypes, ["s32", "f32"], "ElementType::ALL order");
    let add_f32 = &p.cells[&("add".to_string(), "f32".to_string())];
    assert_eq!(add_f32.verdicts.total(), 4);
    assert_eq!(
        (
            add_f32.verdicts.pass,
            add_f32.verdicts.fail,
            add_f32.verdicts.timeout
        ),
        (2, 1, 1)
    );
    assert_eq!(add_f32.max_ulps, 9);
    assert_eq!(add_f32.max_ulps_passing, 1);
    assert_eq!(add_f32.fail_classes[&DiffClass::Ulp], 1);
    let listed: Vec<u64> = add_f32.failing.iter().map(|f| f.index).collect();
    assert_eq!(listed, [2, 3], "failing cases of both shards, by index");
    let conv = &p.cells[&("convert->f32".to_string(), "s32".to_string())];
    assert_eq!(conv.unsupported_reasons.values().sum::<u64>(), 1);
    // Histogram: 4 compared cases (3 pass + 1 fail); timeouts and unsupported have no comparison.
    assert_eq!(p.histogram.total(), 4);
    assert_eq!(p.histogram.ulp[0], 2);
    assert_eq!(p.histogram.ulp[1], 1);
    assert_eq!(p.histogram.ulp[model::ulp_bucket(9)], 1);
    assert_eq!(r.inputs.len(), 2);
    assert_eq!(
        r.inputs[0].runs[0].end,
        Some(RunEnd {
            cases: 3,
            elapsed_secs: 1.5
        })
    );
}

#[test]
fn duplicate_cases_count_once_but_other_filters_are_other_cases() {
    let dir = temp_dir();
    let files = shards(&dir);
    // The same file twice, and an overlapping file holding case 2 again.
    let overlap = write(
        &dir,
        "overlap.jsonl",
        &[
            start(1, None, &[]),
            case(
                2,
                "add",
                "f32",
                Verdict::Fail,
                Some(comparison(9, &[(DiffClass::Ulp, 2)])),
            ),
        ],
    );
    let inputs = vec![
        files[0].clone(),
        files[1].clone(),
        files[0].clone(),
        overlap,
    ];
    let r = build_report(&inputs, &[]).unwrap();
    assert_eq!(r.totals.cases, 6);
    assert_eq!(r.totals.duplicates, 4);
    assert_eq!(r.totals.verdicts.total(), 6);
    assert_eq!(r.inputs[2].duplicates, 3);
    assert_eq!(r.inputs[3].duplicates, 1);
    let add_f32 = &r.pairs[0].cells[&("add".to_string(), "f32".to_string())];
    assert_eq!(add_f32.verdicts.fail, 1);
    assert_eq!(add_f32.failing.len(), 2);

    // Same seed and index under other `--ops` filters: a different case.
    let other = write(
        &dir,
        "other.jsonl",
        &[start(1, None, &["add"]), pass(0, "add", "f32", 0)],
    );
    let r = build_report(&[files[0].clone(), other], &[]).unwrap();
    assert_eq!((r.totals.cases, r.totals.duplicates), (4, 0));

    // ... and under `--graphs` with the same filters: a graph case, not a repeat.
    let mut graphs = start(1, None, &[]);
    if let ResultLine::RunStart(s) = &mut graphs {
        s.graphs = true;
    }
    let graph_file = write(&dir, "graphs.jsonl", &[graphs, pass(0, "graph", "f32", 0)]);
    let r = build_report(&[files[0].clone(), graph_file], &[]).unwrap();
    assert_eq!((r.totals.cases, r.totals.duplicates), (4, 0));
}

#[test]
fn a_malformed_line_is_an_error_naming_file_and_line() {
    let dir = temp_dir();
    let good = serde_json::to_string(&pass(0, "add", "f32", 0)).unwrap();
    let path = dir.join("bad.jsonl");
    std::fs::write(
        &path,
        format!("{good}\n{{\"type\":\"case\",\"seed\":\n{good}\n"),
    )
    .unwrap();
    let e = build_report(std::slice::from_ref(&path), &[]).unwrap_err();
    assert!(matches!(e, ReportError::Results(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.starts_with(&format!("{}:2:", path.display())), "{msg}");

    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report/malformed.jsonl");
    let msg = build_report(std::slice::from_ref(&fixture), &[])
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with(&format!("{}:3:", fixture.display())),
        "{msg}"
    );

    let missing = dir.join("missing.jsonl");
    let msg = build_report(std::slice::from_ref(&missing), &[])
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with(&missing.display().to_string()), "{msg}");
    assert!(matches!(build_report(&[], &[]), Err(ReportError::NoInputs)));
}

#[test]
fn checked_in_shard_fixtures_merge() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report");
    let inputs = vec![
        data.join("shard-1-of-2.jsonl"),
        data.join("shard-2-of-2.jsonl"),
    ];
    let r = build_report(&inputs, &[]).unwrap();
    assert_eq!(r.totals.cases, 4);
    let v = r.totals.verdicts;
    assert_eq!((v.pass, v.fail, v.error), (2, 1, 1));
    assert_eq!(
        r.totals.reference_errors, 1,
        "the reference error is an error of the pair"
    );
    let cell = &r.pairs[0].cells[&("multiply".to_string(), "bf16".to_string())];
    assert_eq!(cell.dominant_class(), Some(DiffClass::Nan));
    assert_eq!(r.pairs[0].histogram.classes[&DiffClass::Nan], 1);
}

#[test]
fn a_cell_keeps_the_first_failing_cases_and_counts_the_rest() {
    let dir = temp_dir();
    let mut lines = vec![start(1, None, &[])];
    // Out of order, to check the cell keeps the lowest indices.
    for i in (0..75).rev() {
        lines.push(case(i, "add", "f16", Verdict::Error, None));
    }
    let r = build_report(&[write(&dir, "many.jsonl", &lines)], &[]).unwrap();
    let cell = &r.pairs[0].cells[&("add".to_string(), "f16".to_string())];
    assert_eq!(cell.verdicts.error, 75);
    let kept: Vec<u64> = cell.failing.iter().map(|f| f.index).collect();
    assert_eq!(kept, (0..MAX_CASES_PER_CELL as u64).collect::<Vec<_>>());
    assert_eq!(cell.failing_omitted, 75 - MAX_CASES_PER_CELL as u64);
    let page = render_html(&r);
    assert!(
        page.contains("… and 55 more failing cases"),
        "omitted count shown"
    );
}

#[test]
fn minimized_reproducers_are_read_when_present() {
    let dir = temp_dir();
    let yaml = dir.join("min.yaml");
    std::fs::write(&yaml, "op: add\nhlo: |\n  ROOT r = f32[] add(a, b) # <&>\n").unwrap();
    let mut with = case(
        0,
        "add",
        "f32",
        Verdict::Fail,
        Some(comparison(3, &[(DiffClass::Ulp, 1)])),
    );
    let mut without = case(
        1,
        "add",
        "f32",
        Verdict::Fail,
        Some(comparison(3, &[(DiffClass::Ulp, 1)])),
    );
    if let ResultLine::Case(c) = &mut with {
        c.minimized = Some("min.yaml".into()); // relative to the results file's directory
    }
    if let ResultLine::Case(c) = &mut without {
        c.minimized = Some("gone/nowhere.yaml".into());
    }
    let r = build_report(
        &[write(
            &dir,
            "m.jsonl",
            &[start(1, None, &[]), with, without],
        )],
        &[],
    )
    .unwrap();
    let cell = &r.pairs[0].cells[&("add".to_string(), "f32".to_string())];
    assert!(
        matches!(&cell.failing[0].minimized, Some(Minimized::File { text, .. }) if text.contains("# <&>"))
    );
    assert_eq!(
        cell.failing[1].minimized,
        Some(Minimized::Missing {
            path: "gone/nowhere.yaml".into()
        })
    );
    let page = render_html(&r);
    assert!(page.contains("# &lt;&amp;&gt;"));
    assert!(page.contains("<code>gone/nowhere.yaml</code> (not found"));
}

#[test]
fn the_page_escapes_every_text_from_the_results() {
    let dir = temp_dir();
    let mut line = case(0, "add", "f32", Verdict::Error, None);
    if let ResultLine::Case(c) = &mut line {
        c.hlo = Some("ROOT r = f32[2]{0} add(a, b) </pre><script>alert(1)</script> & \"q\"".into());
        c.replay = "conformance run --ops 'a<b' && echo".into();
        c.outcomes[0].error = Some("<img src=x onerror=alert(2)>".into());
    }
    let r = build_report(&[write(&dir, "x.jsonl", &[start(1, None, &[]), line])], &[]).unwrap();
    let page = render_html(&r);
    assert!(
        !page.contains("<script>alert"),
        "HLO text must not become markup"
    );
    assert!(!page.contains("<img"));
    assert!(page.contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"));
    assert!(page.contains("conformance run --ops &#39;a&lt;b&#39; &amp;&amp; echo"));
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "only the page's own script"
    );
}

#[test]
fn every_drill_link_has_its_section_and_cells_carry_their_counts() {
    let dir = temp_dir();
    let r = build_report(&shards(&dir), &[]).unwrap();
    let page = render_html(&r);
    let links: Vec<&str> = page
        .split("href=\"#cell-")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(
        links.len(),
        2,
        "add/f32 (fail, timeout) and convert->f32/s32 (unsupported)"
    );
    for l in &links {
        assert_eq!(page.matches(&format!("id=\"cell-{l}\"")).count(), 1, "{l}");
    }
    assert!(links.contains(&"add-f32-fast"));
    assert!(links.contains(&"convert-_3ef32-s32-fast"));
    assert!(page.contains(r#"class="cell fail c-ulp" data-row="add" data-dtype="f32" data-pass="2" data-total="4" data-fail="1" data-known="0" data-error="0" data-timeout="1""#));
    assert!(page.contains(r#"class="cell pass s0" data-row="add" data-dtype="s32""#));
    assert!(page.contains(r#"class="cell unsupported" data-row="convert-&gt;f32""#));
    assert!(
        page.contains("<td class=\"cell none\"></td>"),
        "convert->f32 has no f32 case"
    );
    assert!(page.contains("<code class=\"replay\">conformance run --seed 1 --only-case 2</code>"));
}

#[test]
fn write_report_creates_directories_and_reports_what_it_wrote() {
    let dir = temp_dir();
    let out = dir.join("reports/out/index.html");
    let stats = write_report(&shards(&dir), &out, &[]).unwrap();
    let page = std::fs::read_to_string(&out).unwrap();
    assert_eq!(stats.bytes, page.len());
    assert_eq!((stats.cases, stats.pairs, stats.failing_cells), (6, 1, 1));
    assert!(page.starts_with("<!DOCTYPE html>"));
    // A directory where the file should go cannot be written.
    let e = write_report(&shards(&dir), &dir, &[]).unwrap_err();
    assert!(matches!(e, ReportError::Write { .. }), "{e:?}");
}

#[test]
fn errors_of_sums_are_shown_against_their_bounds() {
    let dir = temp_dir();
    let with_ratios = |index: u64, ratios: Vec<u64>| {
        let mut c = comparison(3, &[]);
        c.bound_ratios = ratios;
        case(index, "dot", "f32", Verdict::Pass, Some(c))
    };
    let r = build_report(
        &[write(
            &dir,
            "sums.jsonl",
            &[
                start(1, None, &[]),
                with_ratios(0, vec![5, 1, 0, 2, 0, 0]),
                with_ratios(1, vec![1, 0, 0, 0, 2, 0]),
                pass(2, "add", "f32", 0),
            ],
        )],
        &[],
    )
    .unwrap();
    let p = &r.pairs[0];
    assert_eq!(p.bound_ratios.len(), 1, "only the row with bounds");
    assert_eq!(p.bound_ratios["dot"], vec![6, 1, 0, 2, 2, 0]);
    let page = render_html(&r);
    assert!(page.contains("Measured error / error bound"));
    assert!(page.contains("<td title=\"6 elements\">6 <small>(54.5%)</small></td>"));
}

#[test]
fn failures_an_accepted_deviation_explains_are_known_and_named_but_new_ones_come_first() {
    let dir = temp_dir();
    let known = vec![crate::known::KnownDeviation {
        backend: "fast".into(),
        op: "add".into(),
        kinds: vec![conformance_spec::element_type::TypeKind::Float],
        class: Some(DiffClass::Ulp),
        error: None,
        path: "corpus/regressions/add-fast-f16.yaml".into(),
    }];
    let ulp = || Some(comparison(9, &[(DiffClass::Ulp, 1)]));
    let nan = || Some(comparison(0, &[(DiffClass::Nan, 1)]));
    let mut lines = vec![start(1, None, &[])];
    // add f32: known failures only (same backend, op, kind and class); index 0 passes.
    lines.push(pass(0, "add", "f32", 0));
    for i in 1..=MAX_CASES_PER_CELL as u64 + 5 {
        lines.push(case(i, "add", "f32", Verdict::Fail, ulp()));
    }
    // add f64: known failures, then one with a class no file records, with the highest index.
    lines.push(case(100, "add", "f64", Verdict::Fail, ulp()));
    lines.push(case(101, "add", "f64", Verdict::Fail, nan()));
    // multiply f32: the same class on another operation is new.
    lines.push(case(102, "multiply", "f32", Verdict::Fail, ulp()));
    let path = write(&dir, "k.jsonl", &lines);
    let r = build_report(std::slice::from_ref(&path), &known).unwrap();
    let p = &r.pairs[0];
    let cell = |row: &str, d: &str| &p.cells[&(row.to_string(), d.to_string())];
    let only_known = cell("add", "f32");
    assert_eq!((only_known.known, only_known.unexplained()), (25, 0));
    assert!(only_known.failing[0].known == vec![known[0].path.clone()]);
    let mixed = cell("add", "f64");
    assert_eq!((mixed.known, mixed.unexplained()), (1, 1));
    // The new discrepancy is shown first although its index is higher.
    assert_eq!(mixed.failing[0].index, 101);
    assert!(mixed.failing[0].known.is_empty());
    assert_eq!(cell("multiply", "f32").known, 0);
    assert_eq!((p.known, r.totals.known), (26, 26));

    let page = render_html(&r);
    assert_eq!(super::html::cell_classes(only_known), "cell known");
    assert!(super::html::cell_classes(mixed).starts_with("cell fail"));
    assert!(
        page.contains("<span class=\"k\">K25</span>"),
        "counts of a known cell"
    );
    assert!(
        page.contains("<span class=\"k\">F1 K1</span>"),
        "counts of a mixed cell"
    );
    assert!(page.contains(
        "Accepted deviation, recorded in <code>corpus/regressions/add-fast-f16.yaml</code>"
    ));
    assert!(page.contains("<b>26</b> known"));
    assert!(page.contains("id=\"total-known\""));

    // Without the corpus the same failures are all new.
    let stats = write_report(std::slice::from_ref(&path), &dir.join("k.html"), &[]).unwrap();
    assert_eq!((stats.failing_cells, stats.known), (3, 0));
    let stats = write_report(std::slice::from_ref(&path), &dir.join("k.html"), &known).unwrap();
    assert_eq!((stats.failing_cells, stats.known), (2, 26));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn statistical_verdicts_show_their_tests_and_p_values_in_the_drill_down() {
    use crate::oracles::random::{PValue, StatTest};
    let dir = temp_dir();
    let mut cmp = comparison(0, &[(DiffClass::Statistical, 1)]);
    cmp.statistics = vec![
        StatTest {
            name: "bit frequencies".into(),
            statistic: "4096".into(),
            degrees_of_freedom: 32,
            p_value: PValue(0.0),
            threshold: PValue(1e-6),
        },
        StatTest {
            name: "byte values".into(),
            statistic: "250.5".into(),
            degrees_of_freedom: 255,
            p_value: PValue(0.56),
            threshold: PValue(1e-6),
        },
    ];
    let line = case(
        0,
        "rng-bit-generator-PHILOX",
        "u32",
        Verdict::Fail,
        Some(cmp),
    );
    let r = build_report(&[write(&dir, "s.jsonl", &[start(1, None, &[]), line])], &[]).unwrap();
    let page = render_html(&r);
    assert!(page.contains("<h5>Statistical tests</h5>"), "{page}");
    assert!(page.contains("<td>bit frequencies</td><td>4096</td><td>32</td><td>0.000e0</td><td>1e-6</td><td>rejected</td>"));
    assert!(page.contains("<td>byte values</td><td>250.5</td><td>255</td><td>5.600e-1</td><td>1e-6</td><td>passed</td>"));
    assert!(page.contains("statistical ×1"));
}

/// A failing case of several devices names its grid in the drill-down (docs/collectives.md).
#[test]
fn cases_of_several_devices_show_their_replica_count() {
    let dir = temp_dir();
    let mut line = case(
        0,
        "all-reduce",
        "f32",
        Verdict::Fail,
        Some(comparison(3, &[(DiffClass::Ulp, 1)])),
    );
    if let ResultLine::Case(c) = &mut line {
        c.hlo =
            Some("HloModule m, replica_count=4\nENTRY e { ROOT r = u32[] replica-id() }".into());
    }
    let single = case(
        1,
        "add",
        "f32",
        Verdict::Fail,
        Some(comparison(3, &[(DiffClass::Ulp, 1)])),
    );
    let r = build_report(
        &[write(&dir, "d.jsonl", &[start(1, None, &[]), line, single])],
        &[],
    )
    .unwrap();
    let page = render_html(&r);
    assert!(
        page.contains("4 replicas × 1 partition (tuple element k"),
        "{page}"
    );
    assert_eq!(
        page.matches("replicas × ").count(),
        1,
        "one-device cases name no grid"
    );
}
