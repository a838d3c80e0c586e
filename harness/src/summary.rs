//! The text summary of `conformance run`: an op × element type table per compared backend, the
//! totals, one line per backend (cases, verdicts, known deviations by class, time and cases per
//! second), and the first failures with their replay commands.

use crate::check::Verdict;
use crate::run::{replay_command, CellStats, RunOptions, RunSummary};
use std::io::Write;

/// The compared backends that ran a case (a backend that is not installed was left out of the
/// sweep with one line, and has no cell).
fn ran<'a>(summary: &'a RunSummary, options: &'a RunOptions) -> impl Iterator<Item = &'a String> {
    options
        .backends
        .iter()
        .skip(1)
        .filter(|b| summary.cells.keys().any(|(_, _, c)| c == *b))
}

/// One line per compared backend: its cases, verdicts (known deviations by class), the time
/// spent in it and its cases per second of that time.
fn print_backend_totals(
    summary: &RunSummary,
    options: &RunOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "per backend: cases, pass, new failures, known deviations (by class), new errors, \
         timeouts, unsupported; seconds spent in the backend and its cases per second of them"
    )?;
    for backend in ran(summary, options) {
        let t = summary
            .cells
            .iter()
            .filter(|((_, _, b), _)| b == backend)
            .fold(CellStats::default(), |mut t, (_, c)| {
                t.cases += c.cases;
                t.pass += c.pass;
                t.fail += c.fail;
                t.error += c.error;
                t.timeout += c.timeout;
                t.unsupported += c.unsupported;
                t.known += c.known;
                t.known_errors += c.known_errors;
                t.micros += c.micros;
                t
            });
        let classes: Vec<String> = summary
            .known_by_class
            .iter()
            .filter(|((b, _), _)| b == backend)
            .map(|((_, class), n)| format!("{class} {n}"))
            .collect();
        let seconds = t.micros as f64 / 1e6;
        writeln!(
            out,
            "  {backend}: {} cases, {} pass, {} fail, {} known{}, {} error, {} timeout, {} \
             unsupported; {seconds:.1} s, {:.0} cases/s",
            t.cases,
            t.pass,
            t.fail - (t.known - t.known_errors),
            t.known,
            if classes.is_empty() {
                String::new()
            } else {
                format!(" ({})", classes.join(", "))
            },
            t.error - t.known_errors,
            t.timeout,
            t.unsupported,
            t.cases as f64 / seconds.max(1e-9)
        )?;
    }
    Ok(())
}

/// Prints the op × element type table for each compared backend, then the first failures.
pub fn print_summary(
    summary: &RunSummary,
    options: &RunOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut dtypes: Vec<String> = Vec::new();
    for t in conformance_spec::ElementType::ALL {
        if summary.cells.keys().any(|(_, d, _)| d == t.hlo_name()) {
            dtypes.push(t.to_string());
        }
    }
    for backend in ran(summary, options) {
        writeln!(out, "\n{} vs {}: cells show passing cases, `F<n>` failures, `K<n>` failures or errors that are accepted deviations of the corpus, `E<n>` errors, `T<n>` timeouts, `U` unsupported, `.` no case", backend, options.backends[0])?;
        let width = summary
            .row_order
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(4)
            .max(4);
        write!(out, "{:width$}", "op")?;
        for d in &dtypes {
            write!(out, " {d:>7}")?;
        }
        writeln!(out)?;
        for row in &summary.row_order {
            let cells: Vec<Option<&CellStats>> = dtypes
                .iter()
                .map(|d| {
                    summary
                        .cells
                        .get(&(row.clone(), d.clone(), backend.clone()))
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                continue;
            }
            write!(out, "{row:width$}")?;
            for c in cells {
                let text = match c {
                    None => ".".to_string(),
                    Some(c) if c.fail > c.known - c.known_errors => {
                        format!("F{}", c.fail - (c.known - c.known_errors))
                    }
                    Some(c) if c.error > c.known_errors => format!("E{}", c.error - c.known_errors),
                    Some(c) if c.timeout > 0 => format!("T{}", c.timeout),
                    Some(c) if c.known > 0 => format!("K{}", c.known),
                    Some(c) if c.pass == 0 && c.unsupported > 0 => "U".to_string(),
                    Some(c) => c.pass.to_string(),
                };
                write!(out, " {text:>7}")?;
            }
            writeln!(out)?;
        }
    }
    let totals = summary
        .cells
        .values()
        .fold(CellStats::default(), |mut t, c| {
            t.cases += c.cases;
            t.pass += c.pass;
            t.fail += c.fail;
            t.error += c.error;
            t.unsupported += c.unsupported;
            t.timeout += c.timeout;
            t.masked_elements += c.masked_elements;
            t.known += c.known;
            t.known_errors += c.known_errors;
            t
        });
    writeln!(
        out,
        "\n{} cases in {:.1}s (seed {}): {} comparisons, {} pass, {} fail, {} error, {} timeout, {} unsupported; {} elements masked (implementation-defined, or undetermined at working precision)",
        summary.cases,
        summary.elapsed.as_secs_f64(),
        options.seed,
        totals.cases,
        totals.pass,
        totals.fail,
        totals.error,
        totals.timeout,
        totals.unsupported,
        totals.masked_elements
    )?;
    if totals.known > 0 {
        // `known` counts failures and errors alike; `known_errors` says how many are errors.
        let known_fail = totals.known - totals.known_errors;
        writeln!(
            out,
            "{} of the {} failures and {} of the {} errors are accepted deviations recorded in \
             {} (failures: same backend, operation, kind of element type and class of \
             difference; errors: same backend, operation and message); {} failures and {} \
             errors unexplained",
            known_fail,
            totals.fail,
            totals.known_errors,
            totals.error,
            options.corpus_dir.display(),
            totals.fail.saturating_sub(known_fail),
            totals.error.saturating_sub(totals.known_errors)
        )?;
    }
    for backend in ran(summary, options) {
        let (elements, cases) = summary
            .cells
            .iter()
            .filter(|((_, _, b), _)| b == backend)
            .fold((0, 0), |(e, n), (_, c)| {
                (e + c.flushed_subnormals, n + c.flushing_cases)
            });
        if elements > 0 {
            writeln!(
                out,
                "{backend} flushes subnormals: {elements} elements in {cases} cases agree only \
                 with subnormal inputs read as zero or subnormal results flushed to zero (set \
                 aside; the rest of those results checked as usual)"
            )?;
        }
        let (fused, fusing) = summary
            .cells
            .iter()
            .filter(|((_, _, b), _)| b == backend)
            .fold((0, 0), |(e, n), (_, c)| {
                (e + c.fused_multiply_adds, n + c.fusing_cases)
            });
        if fused > 0 {
            writeln!(
                out,
                "{backend} contracts multiply-add: {fused} elements in {fusing} cases of an add \
                 or subtract fed by a multiply agree only as the once-rounded x·y ± z (set aside; \
                 the rest of those results checked as usual)"
            )?;
        }
    }
    print_backend_totals(summary, options, out)?;
    for e in summary.internal_errors.iter().take(20) {
        writeln!(out, "internal error: {e}")?;
    }
    for r in summary.failures.iter().take(10) {
        for o in r
            .outcomes
            .iter()
            .filter(|o| matches!(o.verdict, Verdict::Fail | Verdict::Error | Verdict::Timeout))
        {
            writeln!(
                out,
                "\nFAIL {} {} on {} (seed {}, case {}); replay: {}",
                r.row,
                r.dtype,
                o.backend,
                r.seed,
                r.index,
                replay_command(options, r.index)
            )?;
            if let Some(e) = &o.error {
                writeln!(out, "  error: {e}")?;
            }
            if let Some(c) = &o.comparison {
                for d in c.diffs.iter().take(5) {
                    writeln!(out, "  {d}")?;
                }
                // Statistical verdicts (random numbers): each rejecting test and its p-value.
                for t in c.statistics.iter().filter(|t| t.rejects()) {
                    writeln!(
                        out,
                        "  {} rejects: statistic {} (df {}), p = {:.3e} < {:.0e}",
                        t.name, t.statistic, t.degrees_of_freedom, t.p_value.0, t.threshold.0
                    )?;
                }
            }
            if let Some(h) = &r.hlo {
                for line in h.lines().take(12) {
                    writeln!(out, "  | {line}")?;
                }
            }
        }
    }
    if let Some(p) = &options.results {
        writeln!(out, "results: {}", p.display())?;
    }
    Ok(())
}
