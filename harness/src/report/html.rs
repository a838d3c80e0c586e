//! The page: header (totals, runs, inputs), legend, and per backend pair the pass matrix, the ULP
//! histogram and the drill-down sections. Every piece of text from the results goes through
//! [`escape`].

use super::drill::drill_section;
use super::model::{Cell, PairReport, Report, Totals};
use super::style::{CSS, JS};
use super::svg::{histogram_svg, NON_ULP_CLASSES};
use std::fmt::Write;

/// Escapes text for HTML element content and quoted attribute values (`&`, `<`, `>`, `"`, `'`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Makes a name usable in an `id` and a URL fragment: ASCII letters, digits, `.` and `-` stay;
/// every other byte becomes `_` and two lowercase hex digits (`convert->f32` → `convert-_3ef32`).
/// Injective, so distinct names give distinct ids.
pub fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'-' {
            out.push(b as char);
        } else {
            let _ = write!(out, "_{b:02x}");
        }
    }
    out
}

/// The id of a cell's drill-down section: `cell-<row>-<dtype>-<pair>` (each part [`slug`]ged;
/// `pair` is the backend name, or `<backend>-vs-<reference>` when the backend is compared with
/// more than one reference).
pub fn cell_id(row: &str, dtype: &str, pair_slug: &str) -> String {
    format!("cell-{}-{}-{}", slug(row), slug(dtype), pair_slug)
}

/// A date and time in UTC (`2024-05-01 12:34:56 UTC`) from seconds since the Unix epoch.
pub fn utc_time(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The status class of a cell (see [`super::style::CSS`]): `known` when its only failures are
/// explained by accepted deviations.
pub fn cell_status(c: &Cell) -> &'static str {
    let v = &c.verdicts;
    if v.fail > c.known {
        "fail"
    } else if v.error > 0 {
        "error"
    } else if v.timeout > 0 {
        "timeout"
    } else if c.known > 0 {
        "known"
    } else if v.pass > 0 {
        "pass"
    } else if v.unsupported > 0 {
        "unsupported"
    } else {
        "none"
    }
}

/// The shade of a passing cell, `0..=4`, from its passing cases' max ULPs and the budget:
/// 0 exact; with a budget `b > 0`: ≤ b/4 → 1, ≤ b/2 → 2, ≤ b → 3, more (a conditioning
/// allowance) → 4; with a zero budget any ULP → 4; with no known budget: 1 ULP → 1, ≤ 4 → 2,
/// more → 3.
pub fn pass_shade(max_ulps: u64, budget: Option<u64>) -> u8 {
    match (max_ulps, budget) {
        (0, _) => 0,
        (_, Some(0)) => 4,
        (m, Some(b)) if m.saturating_mul(4) <= b => 1,
        (m, Some(b)) if m.saturating_mul(2) <= b => 2,
        (m, Some(b)) if m <= b => 3,
        (_, Some(_)) => 4,
        (1, None) => 1,
        (m, None) if m <= 4 => 2,
        (_, None) => 3,
    }
}

/// Renders the whole report as one self-contained HTML page (inline CSS, SVG and script).
pub fn render(report: &Report) -> String {
    let mut s = String::with_capacity(64 * 1024);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str("<title>Conformance report</title>\n<style>");
    s.push_str(CSS);
    s.push_str("</style>\n</head>\n<body>\n");
    let _ = writeln!(
        s,
        "<header><h1>Conformance report</h1><p class=\"muted\">{} cases from {} results file{} · conformance {}</p></header>",
        report.totals.cases,
        report.inputs.len(),
        if report.inputs.len() == 1 { "" } else { "s" },
        escape(env!("CARGO_PKG_VERSION"))
    );
    totals(&mut s, &report.totals);
    runs(&mut s, report);
    legend(&mut s);
    super::families::render(&mut s, report);
    if report.pairs.is_empty() {
        s.push_str("<p id=\"no-pairs\">No backend verdicts in the inputs.</p>\n");
    } else {
        s.push_str("<nav class=\"pairs\">Backend pairs: ");
        for (k, p) in report.pairs.iter().enumerate() {
            let _ = write!(
                s,
                "<a href=\"#pair-{}\">{} vs {}</a>",
                pair_slug(report, k),
                escape(&p.backend),
                escape(&p.reference)
            );
        }
        s.push_str("</nav>\n");
    }
    for (k, p) in report.pairs.iter().enumerate() {
        pair_section(&mut s, p, &pair_slug(report, k));
    }
    s.push_str("<script>");
    s.push_str(JS);
    s.push_str("</script>\n</body>\n</html>\n");
    s
}

/// The slug of pair `k`: its backend, plus `-vs-<reference>` when another pair has the same
/// backend.
pub fn pair_slug(report: &Report, k: usize) -> String {
    let p = &report.pairs[k];
    let shared = report
        .pairs
        .iter()
        .filter(|q| q.backend == p.backend)
        .count()
        > 1;
    if shared {
        format!("{}-vs-{}", slug(&p.backend), slug(&p.reference))
    } else {
        slug(&p.backend)
    }
}

fn stat(s: &mut String, id: &str, class: &str, n: impl std::fmt::Display, label: &str) {
    let _ = write!(
        s,
        "<div class=\"stat {class}\" id=\"{id}\"><span class=\"n\">{n}</span>{}</div>",
        escape(label)
    );
}

fn totals(s: &mut String, t: &Totals) {
    s.push_str("<section id=\"summary\"><h2>Totals</h2><div class=\"stats\">");
    stat(s, "total-cases", "cases", t.cases, "cases");
    let v = &t.verdicts;
    stat(s, "total-pass", "pass", v.pass, "pass");
    stat(s, "total-fail", "fail", v.fail - t.known, "new fail");
    if t.known > 0 {
        stat(s, "total-known", "known", t.known, "known fail");
    }
    stat(s, "total-error", "error", v.error, "error");
    stat(s, "total-timeout", "timeout", v.timeout, "timeout");
    stat(
        s,
        "total-unsupported",
        "unsupported",
        v.unsupported,
        "unsupported",
    );
    stat(
        s,
        "total-masked",
        "masked",
        t.masked_elements,
        "masked elements",
    );
    if t.ended_secs > 0.0 {
        let rate = t.ended_cases as f64 / t.ended_secs;
        stat(s, "total-rate", "rate", format!("{rate:.1}"), "cases / s");
    }
    s.push_str("</div>");
    let _ = write!(
        s,
        "<p class=\"muted\">Verdicts count each case once per compared backend ({} in all).",
        v.total()
    );
    if t.known > 0 {
        let _ = write!(
            s,
            " {} failures are known: accepted deviations recorded in the corpus explain every \
             difference they show.",
            t.known
        );
    }
    if t.reference_errors > 0 {
        let _ = write!(
            s,
            " <span id=\"reference-errors\">{} cases failed on the reference itself</span> (counted as errors).",
            t.reference_errors
        );
    }
    if t.duplicates > 0 {
        let _ = write!(
            s,
            " <span id=\"duplicates\">{} duplicate case line(s)</span> (same seed, filters and case index as a line read before) ignored.",
            t.duplicates
        );
    }
    s.push_str("</p></section>\n");
}

fn runs(s: &mut String, report: &Report) {
    let n_runs: usize = report.inputs.iter().map(|f| f.runs.len()).sum();
    let _ = write!(
        s,
        "<section id=\"runs\"><details{}><summary><h2>Runs</h2> <span class=\"muted\">{n_runs} run{} in {} file{}</span></summary><table class=\"runs\"><thead><tr>",
        if n_runs <= 4 { " open" } else { "" },
        if n_runs == 1 { "" } else { "s" },
        report.inputs.len(),
        if report.inputs.len() == 1 { "" } else { "s" }
    );
    for h in [
        "file", "seed", "shard", "ops", "dtypes", "backends", "catalog", "budget", "swarm",
        "started", "resumed", "duration", "cases", "cases/s",
    ] {
        let _ = write!(s, "<th>{h}</th>");
    }
    s.push_str("</tr></thead><tbody>");
    for f in &report.inputs {
        let name = escape(&f.path.display().to_string());
        for r in &f.runs {
            s.push_str("<tr class=\"run\">");
            let _ = write!(s, "<td>{name}</td>");
            match &r.start {
                Some(st) => {
                    let shard = st
                        .shard
                        .map_or("—".to_string(), |(k, n)| format!("{k}/{n}"));
                    let list = |v: &[String]| {
                        if v.is_empty() {
                            "all".to_string()
                        } else {
                            escape(&v.join(", "))
                        }
                    };
                    let short: String = st.catalog_hash.chars().take(12).collect();
                    let _ = write!(
                        s,
                        "<td>{}</td><td class=\"shard\">{shard}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"hash\" title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                        st.seed,
                        list(&st.ops),
                        list(&st.dtypes),
                        escape(&st.backends.join(", ")),
                        escape(&st.catalog_hash),
                        escape(&short),
                        escape(&st.budget),
                        st.swarm.as_deref().map_or("—".to_string(), escape),
                        utc_time(st.started_unix),
                        if st.resumed { "yes" } else { "no" }
                    );
                }
                None => s.push_str("<td colspan=\"10\" class=\"muted\">(no run-start line)</td>"),
            }
            match &r.end {
                Some(e) => {
                    let rate = if e.elapsed_secs > 0.0 {
                        format!("{:.1}", e.cases as f64 / e.elapsed_secs)
                    } else {
                        "—".to_string()
                    };
                    let _ = write!(
                        s,
                        "<td>{:.1} s</td><td>{}</td><td>{rate}</td>",
                        e.elapsed_secs, e.cases
                    );
                }
                None => s.push_str(
                    "<td class=\"muted\">unfinished</td><td class=\"muted\">—</td><td class=\"muted\">—</td>",
                ),
            }
            s.push_str("</tr>");
        }
    }
    s.push_str("</tbody></table></details>");
    s.push_str("<h3>Input files</h3><ul class=\"inputs\" id=\"inputs\">");
    for f in &report.inputs {
        let _ = write!(
            s,
            "<li>{} — {} case lines",
            escape(&f.path.display().to_string()),
            f.cases
        );
        if f.duplicates > 0 {
            let _ = write!(s, ", {} already read (duplicates)", f.duplicates);
        }
        for w in &f.warnings {
            let _ = write!(
                s,
                "<br><span class=\"warning\">warning: {}</span>",
                escape(w)
            );
        }
        s.push_str("</li>");
    }
    s.push_str("</ul></section>\n");
}

fn legend(s: &mut String) {
    s.push_str("<section id=\"legend\"><h2>Legend</h2><div class=\"legend\">");
    let items: [(&str, &str); 11] = [
        ("pass s0", "all pass, bit-exact"),
        ("pass s1", "all pass, ≤ ¼ of the ULP budget"),
        ("pass s2", "≤ ½ budget"),
        ("pass s3", "≤ budget"),
        ("pass s4", "beyond the budget by a conditioning allowance"),
        ("known", "every failure an accepted deviation of the corpus"),
        ("error", "backend error (or reference failure)"),
        ("timeout", "timeout"),
        ("unsupported", "unsupported"),
        ("none", "no case"),
        ("c-ulp", "fail: ULP distance over budget"),
    ];
    for (sw, text) in items {
        let sw = sw.split(' ').next_back().unwrap_or("");
        let _ = write!(
            s,
            "<span class=\"item\"><span class=\"sw {sw}\"></span>{}</span>",
            escape(text)
        );
    }
    for c in NON_ULP_CLASSES {
        let _ = write!(
            s,
            "<span class=\"item\"><span class=\"sw c-{}\"></span>fail: {}</span>",
            c.name(),
            c.name()
        );
    }
    s.push_str("</div><p class=\"muted\">A cell shows passing/total cases on that backend, then the \
        counts of new failures (F), failures explained by accepted deviations of the corpus (K), \
        errors (E), timeouts (T) and unsupported cases (U). A failing cell is coloured by the \
        difference class most of its failing cases show. Follow a cell to its failing cases.</p></section>\n");
}

fn counts_text(c: &Cell) -> String {
    let v = &c.verdicts;
    let mut k = Vec::new();
    for (letter, n) in [
        ("F", v.fail - c.known),
        ("K", c.known),
        ("E", v.error),
        ("T", v.timeout),
        ("U", v.unsupported),
    ] {
        if n > 0 {
            k.push(format!("{letter}{n}"));
        }
    }
    k.join(" ")
}

/// The `class` attribute of a cell's `<td>`.
pub fn cell_classes(c: &Cell) -> String {
    let status = cell_status(c);
    match status {
        "pass" => format!(
            "cell pass s{}",
            pass_shade(c.max_ulps_passing, c.budget_ulps)
        ),
        "fail" => match c.dominant_class() {
            Some(class) => format!("cell fail c-{}", class.name()),
            None => "cell fail".to_string(),
        },
        other => format!("cell {other}"),
    }
}

fn cell_title(row: &str, dtype: &str, c: &Cell) -> String {
    let v = &c.verdicts;
    let mut t = format!(
        "{row} {dtype}: {} of {} pass; fail {}, error {}, timeout {}, unsupported {}; max {} ULPs",
        v.pass,
        v.total(),
        v.fail,
        v.error,
        v.timeout,
        v.unsupported,
        c.max_ulps
    );
    if let Some(b) = c.budget_ulps {
        let _ = write!(t, " (budget {b})");
    }
    if c.masked_elements > 0 {
        let _ = write!(t, "; {} masked elements", c.masked_elements);
    }
    for (class, n) in &c.fail_classes {
        let _ = write!(t, "; {class}: {n} cases");
    }
    if c.known > 0 {
        let _ = write!(
            t,
            "; {} of the failures are accepted deviations of the corpus",
            c.known
        );
    }
    t
}

/// True when a cell has a drill-down section (failing or unsupported cases).
pub fn has_drill(c: &Cell) -> bool {
    c.verdicts.failing() > 0 || c.verdicts.unsupported > 0
}

fn pair_section(s: &mut String, p: &PairReport, pslug: &str) {
    let v = &p.verdicts;
    let _ = write!(
        s,
        "<section class=\"pair\" id=\"pair-{pslug}\" data-backend=\"{}\" data-reference=\"{}\"><h2>{} vs {}</h2>",
        escape(&p.backend),
        escape(&p.reference),
        escape(&p.backend),
        escape(&p.reference)
    );
    let _ = write!(
        s,
        "<p class=\"pair-totals\">{} verdicts: <b>{}</b> pass, <b>{}</b> fail{}, <b>{}</b> error, <b>{}</b> timeout, <b>{}</b> unsupported; {} masked elements.\
         <label class=\"filter\"><input type=\"checkbox\" class=\"only-failing\"> only rows with failures</label></p>",
        v.total(),
        v.pass,
        v.fail,
        if p.known > 0 {
            format!(" (<b>{}</b> known: accepted deviations of the corpus)", p.known)
        } else {
            String::new()
        },
        v.error,
        v.timeout,
        v.unsupported,
        p.masked_elements
    );
    if p.flushed_subnormals > 0 {
        let _ = write!(
            s,
            "<p class=\"pair-totals\"><b>{} flushes subnormals</b>: {} elements in {} cases \
             agree only with subnormal inputs read as zero or subnormal results flushed to zero; \
             they are set aside, and the rest of those results is checked as usual.</p>",
            escape(&p.backend),
            p.flushed_subnormals,
            p.flushing_cases
        );
    }
    if p.fused_multiply_adds > 0 {
        let _ = write!(
            s,
            "<p class=\"pair-totals\"><b>{} contracts multiply-add</b>: {} elements in {} cases \
             of an add or subtract fed by a multiply agree only as the once-rounded x·y ± z; they \
             are set aside, and the rest of those results is checked as usual.</p>",
            escape(&p.backend),
            p.fused_multiply_adds,
            p.fusing_cases
        );
    }
    let _ = write!(
        s,
        "<div class=\"matrix-wrap\"><table class=\"matrix\" id=\"matrix-{pslug}\"><thead><tr><th>op</th>"
    );
    for d in &p.dtypes {
        let _ = write!(s, "<th>{}</th>", escape(d));
    }
    s.push_str("</tr></thead><tbody>");
    for row in &p.rows {
        let clean = p.dtypes.iter().all(|d| {
            p.cells
                .get(&(row.clone(), d.clone()))
                .is_none_or(|c| c.verdicts.failing() == 0)
        });
        let _ = write!(
            s,
            "<tr{}><th>{}</th>",
            if clean { " class=\"clean\"" } else { "" },
            escape(row)
        );
        for d in &p.dtypes {
            match p.cells.get(&(row.clone(), d.clone())) {
                None => s.push_str("<td class=\"cell none\"></td>"),
                Some(c) => matrix_cell(s, row, d, c, pslug),
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s.push_str("<h3>Per-case maximum ULP distance</h3>");
    s.push_str(&histogram_svg(
        &p.histogram,
        &format!("{} vs {}", p.backend, p.reference),
    ));
    bound_ratio_table(s, p);
    for row in &p.rows {
        for d in &p.dtypes {
            if let Some(c) = p.cells.get(&(row.clone(), d.clone())) {
                if has_drill(c) {
                    drill_section(s, p, row, d, c, pslug);
                }
            }
        }
    }
    s.push_str("</section>\n");
}

/// Where the errors of sums fall relative to their bounds (γ(n)·Σ|terms|), per row: counts and
/// shares of compared elements per bucket of |got − exact| / bound. Nothing when no row has one.
fn bound_ratio_table(s: &mut String, p: &PairReport) {
    if p.bound_ratios.is_empty() {
        return;
    }
    s.push_str("<h3>Measured error / error bound (sums)</h3><table class=\"bounds\"><thead><tr><th>op</th>");
    for label in crate::compare::BOUND_RATIO_BUCKETS {
        let _ = write!(s, "<th>{}</th>", escape(label));
    }
    s.push_str("</tr></thead><tbody>");
    for (row, counts) in &p.bound_ratios {
        let total: u64 = counts.iter().sum::<u64>().max(1);
        let _ = write!(s, "<tr><th>{}</th>", escape(row));
        for &n in counts {
            let _ = write!(
                s,
                "<td title=\"{n} elements\">{n} <small>({:.1}%)</small></td>",
                100.0 * n as f64 / total as f64
            );
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
}

fn matrix_cell(s: &mut String, row: &str, dtype: &str, c: &Cell, pslug: &str) {
    let v = &c.verdicts;
    let _ = write!(
        s,
        "<td class=\"{}\" data-row=\"{}\" data-dtype=\"{}\" data-pass=\"{}\" data-total=\"{}\" data-fail=\"{}\" data-known=\"{}\" data-error=\"{}\" data-timeout=\"{}\" data-unsupported=\"{}\" data-max-ulps=\"{}\" title=\"{}\">",
        cell_classes(c),
        escape(row),
        escape(dtype),
        v.pass,
        v.total(),
        v.fail,
        c.known,
        v.error,
        v.timeout,
        v.unsupported,
        c.max_ulps,
        escape(&cell_title(row, dtype, c))
    );
    let inner = format!(
        "<span class=\"counts\">{}/{}</span><span class=\"k\">{}</span>",
        v.pass,
        v.total(),
        counts_text(c)
    );
    if has_drill(c) {
        let _ = write!(s, "<a href=\"#{}\">{inner}</a>", cell_id(row, dtype, pslug));
    } else {
        s.push_str(&inner);
    }
    s.push_str("</td>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"ROOT r = f32[2]{0} compare(a, b), direction=LT <&> "x" 'y'"#),
            "ROOT r = f32[2]{0} compare(a, b), direction=LT &lt;&amp;&gt; &quot;x&quot; &#39;y&#39;"
        );
        assert_eq!(escape("</script><b>"), "&lt;/script&gt;&lt;b&gt;");
        assert_eq!(escape("ünïcode ≥2^20"), "ünïcode ≥2^20");
    }

    #[test]
    fn slugs_are_safe_and_injective() {
        assert_eq!(slug("convert->f32"), "convert-_3ef32");
        assert_eq!(slug("compare-LT"), "compare-LT");
        assert_eq!(slug("a b\"<"), "a_20b_22_3c");
        assert_ne!(slug("a_3e"), slug("a>"));
        for name in ["x y", "q\"", "<b>", "é"] {
            assert!(slug(name)
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)));
        }
        assert_eq!(
            cell_id("convert->s8", "f32", "fast"),
            "cell-convert-_3es8-f32-fast"
        );
    }

    #[test]
    fn utc_time_matches_known_dates() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_time(1_700_000_000), "2023-11-14 22:13:20 UTC");
    }

    #[test]
    fn pass_shades_follow_the_fraction_of_the_budget() {
        assert_eq!(pass_shade(0, Some(4)), 0);
        assert_eq!(pass_shade(1, Some(4)), 1);
        assert_eq!(pass_shade(2, Some(4)), 2);
        assert_eq!(pass_shade(4, Some(4)), 3);
        assert_eq!(pass_shade(5, Some(4)), 4);
        assert_eq!(pass_shade(1, Some(0)), 4);
        assert_eq!(pass_shade(1, None), 1);
        assert_eq!(pass_shade(3, None), 2);
        assert_eq!(pass_shade(100, None), 3);
    }
}
