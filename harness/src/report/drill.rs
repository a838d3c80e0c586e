//! A cell's drill-down section: its failing cases (differing elements, HLO, minimized
//! reproducer, replay command) and the reasons given for unsupported cases.

use super::html::{cell_id, escape};
use super::model::{Cell, FailingCase, Minimized, PairReport};
use std::fmt::Write;

/// Writes the `<section class="drill" id="cell-…">` of one cell.
pub fn drill_section(
    s: &mut String,
    p: &PairReport,
    row: &str,
    dtype: &str,
    c: &Cell,
    pair_slug: &str,
) {
    let id = cell_id(row, dtype, pair_slug);
    let v = &c.verdicts;
    let _ = write!(
        s,
        "<section class=\"drill\" id=\"{id}\"><h3>{} · {} — {} vs {}</h3>",
        escape(row),
        escape(dtype),
        escape(&p.backend),
        escape(&p.reference)
    );
    let _ = write!(
        s,
        "<p class=\"cellsum\">{} of {} cases pass; {} fail, {} error, {} timeout, {} unsupported. Largest distance {} ULPs",
        v.pass,
        v.total(),
        v.fail,
        v.error,
        v.timeout,
        v.unsupported,
        c.max_ulps
    );
    if let Some(b) = c.budget_ulps {
        let _ = write!(s, " (catalog budget {b})");
    }
    s.push('.');
    if c.masked_elements > 0 {
        let _ = write!(
            s,
            " {} implementation-defined elements masked.",
            c.masked_elements
        );
    }
    if c.known > 0 {
        let _ = write!(
            s,
            " {} of the {} failures are accepted deviations of the corpus (marked known below).",
            c.known, v.fail
        );
    }
    if !c.fail_classes.is_empty() {
        s.push_str(" Failing cases by class: ");
        let parts: Vec<String> = c
            .fail_classes
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        s.push_str(&escape(&parts.join(", ")));
        s.push('.');
    }
    s.push_str("</p>");
    if !c.unsupported_reasons.is_empty() {
        s.push_str("<h5>Unsupported</h5><ul class=\"unsupported-reasons\">");
        for (reason, n) in &c.unsupported_reasons {
            let _ = write!(s, "<li>{} ({n} cases)</li>", escape(reason));
        }
        s.push_str("</ul>");
    }
    for f in &c.failing {
        failing_case(s, &id, f);
    }
    if c.failing_omitted > 0 {
        let _ = write!(
            s,
            "<p class=\"omitted\">… and {} more failing cases (the first {} by case index are shown).</p>",
            c.failing_omitted,
            c.failing.len()
        );
    }
    let _ = write!(
        s,
        "<p><a href=\"#matrix-{pair_slug}\">back to the matrix</a></p></section>"
    );
}

fn failing_case(s: &mut String, cell: &str, f: &FailingCase) {
    let verdict = f.verdict.name();
    let (known_class, label) = if f.known.is_empty() {
        ("", verdict)
    } else {
        (" known", "known")
    };
    let _ = write!(
        s,
        "<article class=\"case verdict-{verdict}{known_class}\" id=\"{cell}-case-{}-{}\" data-index=\"{}\"><h4><span class=\"verdict\">{label}</span>case {} (seed {})",
        f.seed, f.index, f.index, f.index, f.seed
    );
    if let Some(cmp) = &f.comparison {
        let classes: Vec<String> = cmp
            .classes
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect();
        if !classes.is_empty() {
            let _ = write!(s, ": {}", escape(&classes.join(", ")));
        }
        let _ = write!(
            s,
            "; max {} ULPs; {} compared, {} masked",
            cmp.max_ulps, cmp.compared, cmp.masked
        );
    }
    if let Some((replicas, partitions)) = f.devices() {
        let _ = write!(
            s,
            "; {replicas} replica{} × {partitions} partition{} (tuple element k of the result is device k's)",
            if replicas == 1 { "" } else { "s" },
            if partitions == 1 { "" } else { "s" }
        );
    }
    let _ = write!(s, "; {} µs</h4>", f.micros);
    if !f.known.is_empty() {
        let files: Vec<String> = f
            .known
            .iter()
            .map(|p| format!("<code>{}</code>", escape(&p.display().to_string())))
            .collect();
        let _ = write!(
            s,
            "<p class=\"known-by\">Accepted deviation, recorded in {}.</p>",
            files.join(", ")
        );
    }
    if let Some(e) = &f.error {
        let _ = write!(s, "<pre class=\"error\">{}</pre>", escape(e));
    }
    if let Some(cmp) = f.comparison.as_ref().filter(|c| !c.diffs.is_empty()) {
        s.push_str("<h5>Differing elements</h5><table class=\"diffs\"><thead><tr><th>index</th><th>inputs</th><th>expected</th><th>got</th><th>ULPs</th><th>class</th></tr></thead><tbody>");
        for d in &cmp.diffs {
            let mut index = String::new();
            if !d.tuple_index.is_empty() {
                let path: Vec<String> = d.tuple_index.iter().map(|i| i.to_string()).collect();
                let _ = write!(index, "{{{}}} ", path.join(","));
            }
            let idx: Vec<String> = d.index.iter().map(|i| i.to_string()).collect();
            let _ = write!(index, "[{}]", idx.join(","));
            let _ = write!(
                s,
                "<tr class=\"diff\"><td>{}</td><td>{}</td><td title=\"{}\">{}</td><td title=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
                escape(&index),
                escape(&d.inputs.join(", ")),
                escape(&d.expected_bits),
                escape(&d.expected),
                escape(&d.got_bits),
                escape(&d.got),
                d.ulps.map_or("—".to_string(), |u| u.to_string()),
                escape(d.class.name())
            );
        }
        s.push_str("</tbody></table>");
        let differing: usize = cmp.classes.values().sum();
        if differing > cmp.diffs.len() {
            let _ = write!(
                s,
                "<p class=\"muted\">{} more differing elements not recorded.</p>",
                differing - cmp.diffs.len()
            );
        }
    }
    if let Some(cmp) = f.comparison.as_ref().filter(|c| !c.statistics.is_empty()) {
        // Random numbers judged by χ² tests (crate::oracles::random): each test's p-value.
        s.push_str("<h5>Statistical tests</h5><table class=\"statistics\"><thead><tr><th>test</th><th>χ²</th><th>degrees of freedom</th><th>p-value</th><th>rejected below</th><th>verdict</th></tr></thead><tbody>");
        for t in &cmp.statistics {
            let _ = write!(
                s,
                "<tr class=\"statistic\"><td>{}</td><td>{}</td><td>{}</td><td>{:.3e}</td><td>{:.0e}</td><td>{}</td></tr>",
                escape(&t.name),
                escape(&t.statistic),
                t.degrees_of_freedom,
                t.p_value.0,
                t.threshold.0,
                if t.rejects() { "rejected" } else { "passed" }
            );
        }
        s.push_str("</tbody></table>");
    }
    if let Some(hlo) = &f.hlo {
        let _ = write!(s, "<h5>HLO</h5><pre class=\"hlo\">{}</pre>", escape(hlo));
    }
    match &f.minimized {
        Some(Minimized::File { path, text }) => {
            let _ = write!(
                s,
                "<h5>Minimized reproducer ({})</h5><pre class=\"minimized\">{}</pre>",
                escape(path),
                escape(text)
            );
        }
        Some(Minimized::Missing { path }) => {
            let _ = write!(
                s,
                "<h5>Minimized reproducer</h5><p class=\"minimized-missing\"><code>{}</code> (not found when the report was built)</p>",
                escape(path)
            );
        }
        None => {}
    }
    if !f.replay.is_empty() {
        let _ = write!(
            s,
            "<h5>Replay</h5><div class=\"replay-block\"><pre><code class=\"replay\">{}</code></pre></div>",
            escape(&f.replay)
        );
    }
    s.push_str("</article>");
}
