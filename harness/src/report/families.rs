//! The side-by-side table of a report: one row per backend compared with its reference, one
//! column group per op family of the catalog (`spec/ops/<family>.yaml`), each cell the backend's
//! pass, fail, known and unsupported counts on that family's operations. It is the first thing a
//! reader of a several-backend report sees: where each implementation stands, family by family.

use super::html::escape;
use super::model::Report;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// The counts of one backend on one op family.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FamilyCounts {
    pub pass: u64,
    /// Fail, error and timeout verdicts no accepted deviation explains.
    pub fail: u64,
    /// Failures and errors explained by accepted deviations of the corpus.
    pub known: u64,
    pub unsupported: u64,
}

/// One row of the table: a (reference, backend) pair and its counts per family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyRow {
    pub backend: String,
    pub reference: String,
    /// Family name → counts (families without a case are absent).
    pub families: BTreeMap<String, FamilyCounts>,
}

/// The family of each catalog op id (`None` without the catalog: every row is then "other").
fn family_of_ops() -> HashMap<String, String> {
    let Some(catalog) = conformance_spec::catalog::shared() else {
        return HashMap::new();
    };
    let mut map = HashMap::new();
    for family in catalog.families() {
        for op in catalog.ops_of_family(family) {
            map.insert(op.id.clone(), family.to_string());
        }
    }
    map
}

/// The family columns, in catalog order, of the families any row has counts for (then others).
pub fn columns(rows: &[FamilyRow]) -> Vec<String> {
    let order: Vec<String> = conformance_spec::catalog::shared()
        .map(|c| c.families().iter().map(|f| f.to_string()).collect())
        .unwrap_or_default();
    let mut cols: Vec<String> = order
        .into_iter()
        .filter(|f| rows.iter().any(|r| r.families.contains_key(f)))
        .collect();
    for r in rows {
        for f in r.families.keys() {
            if !cols.contains(f) {
                cols.push(f.clone());
            }
        }
    }
    cols
}

/// The table of `report`: one row per backend pair, in the report's order.
pub fn table(report: &Report) -> Vec<FamilyRow> {
    let family = family_of_ops();
    report
        .pairs
        .iter()
        .map(|p| {
            let mut families: BTreeMap<String, FamilyCounts> = BTreeMap::new();
            for ((row, _dtype), cell) in &p.cells {
                let op = row.split("->").next().unwrap_or(row);
                let name = family.get(op).cloned().unwrap_or_else(|| "other".into());
                let c = families.entry(name).or_default();
                c.pass += cell.verdicts.pass;
                c.fail += cell.unexplained();
                c.known += cell.known;
                c.unsupported += cell.verdicts.unsupported;
            }
            FamilyRow {
                backend: p.backend.clone(),
                reference: p.reference.clone(),
                families,
            }
        })
        .collect()
}

/// Writes the table as an HTML section (`#families`), nothing for a report without pairs.
pub fn render(s: &mut String, report: &Report) {
    let rows = table(report);
    if rows.is_empty() {
        return;
    }
    let cols = columns(&rows);
    s.push_str(
        "<section id=\"families\"><h2>Backends by op family</h2>\
         <p class=\"muted\">Cases per backend and op family: pass · <span class=\"f\">fail</span> \
         (fail, error or timeout no accepted deviation explains) · <span class=\"k\">known</span> \
         (accepted deviations of the corpus) · unsupported.</p>\
         <table class=\"families\"><thead><tr><th>backend</th>",
    );
    for c in &cols {
        let _ = write!(s, "<th>{}</th>", escape(c));
    }
    s.push_str("</tr></thead><tbody>\n");
    for r in &rows {
        let _ = write!(
            s,
            "<tr data-backend=\"{}\"><th>{} <span class=\"muted\">vs {}</span></th>",
            escape(&r.backend),
            escape(&r.backend),
            escape(&r.reference)
        );
        for c in &cols {
            match r.families.get(c) {
                Some(n) => {
                    let _ = write!(
                        s,
                        "<td data-family=\"{}\" data-pass=\"{}\" data-fail=\"{}\" data-known=\"{}\" data-unsupported=\"{}\">{} · <span class=\"f\">{}</span> · <span class=\"k\">{}</span> · {}</td>",
                        escape(c),
                        n.pass,
                        n.fail,
                        n.known,
                        n.unsupported,
                        n.pass,
                        n.fail,
                        n.known,
                        n.unsupported
                    );
                }
                None => {
                    let _ = write!(s, "<td data-family=\"{}\">·</td>", escape(c));
                }
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table></section>\n");
}
