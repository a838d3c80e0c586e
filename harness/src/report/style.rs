//! The page's inline stylesheet and script (the report is one self-contained file: no network,
//! no external assets).
//!
//! Without the script the page still works: a cell's link targets its drill-down section, which
//! the `:target` rule shows. The script adds conveniences only: a whole cell is clickable, the
//! selected cell is outlined, replay commands get a copy button, and rows whose cells all pass can
//! be hidden. It marks `<body data-js="ready">` when it has run.

/// Inline CSS. Cell classes: `none` (no case), `unsupported`, `pass` with a shade `s0`..`s4`
/// (max ULPs of the passing cases: exact, ≤¼ budget, ≤½, ≤ budget, beyond the budget by a
/// per-element conditioning allowance), `fail` with the dominant class `c-<class>`, `known`
/// (every failure an accepted deviation), `error`, `timeout`.
pub const CSS: &str = r#"
:root { --fg: #1d1d1f; --muted: #5f6368; --line: #d0d4d9; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--fg); margin: 0 24px 48px; }
header h1 { margin: 16px 0 4px; font-size: 22px; }
h2 { margin: 28px 0 8px; font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 4px 0 8px; }
h4 { font-size: 14px; margin: 0 0 6px; }
h5 { font-size: 12px; margin: 10px 0 2px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.muted { color: var(--muted); }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px;
  overflow: auto; max-height: 320px; margin: 0; white-space: pre; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.stat { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 92px; }
.stat .n { display: block; font-size: 20px; font-weight: 600; }
.stat.fail .n, .stat.error .n { color: #c62828; }
.stat.timeout .n { color: #b26a00; }
.stat.pass .n { color: #2e7d32; }
table { border-collapse: collapse; }
table.runs td, table.runs th, table.diffs td, table.diffs th { border: 1px solid var(--line);
  padding: 2px 6px; text-align: left; vertical-align: top; }
table.runs th, table.diffs th { background: #f1f3f4; font-weight: 600; }
table.runs td.hash { font-family: ui-monospace, monospace; }
table.families td, table.families th { border: 1px solid var(--line); padding: 3px 8px;
  font: 12px ui-monospace, monospace; text-align: right; }
table.families thead th { background: #f1f3f4; font-weight: 600; }
table.families tbody th { text-align: left; }
table.families .f { color: #b3261e; font-weight: 600; }
table.families .k { color: #8a5a00; }
.matrix-wrap { overflow-x: auto; }
table.matrix th, table.matrix td { border: 1px solid #fff; }
table.matrix thead th { font: 600 12px ui-monospace, monospace; padding: 2px 4px; background: #f1f3f4; }
table.matrix tbody th { font: 12px ui-monospace, monospace; text-align: right; padding: 0 8px;
  white-space: nowrap; background: #f8f9fa; }
td.cell { width: 64px; min-width: 64px; height: 38px; text-align: center; font-size: 11px;
  line-height: 1.2; padding: 1px 2px; }
td.cell a { color: inherit; text-decoration: none; display: block; }
td.cell .counts { font-weight: 600; display: block; }
td.cell .k { display: block; }
td.cell.none { background: #fff; outline: 1px dashed #eceff1; outline-offset: -1px; }
td.cell.unsupported { background: #bdbdbd; color: #333; }
td.cell.pass.s0 { background: #2e7d32; color: #fff; }
td.cell.pass.s1 { background: #4caf50; color: #fff; }
td.cell.pass.s2 { background: #81c784; }
td.cell.pass.s3 { background: #c5e1a5; }
td.cell.pass.s4 { background: #e6ee9c; }
td.cell.fail, .sw.fail { background: #e53935; color: #fff; }
td.cell.fail.c-ulp, .sw.c-ulp { background: #e53935; color: #fff; }
td.cell.fail.c-nan, .sw.c-nan { background: #8e24aa; color: #fff; }
td.cell.fail.c-zero-sign, .sw.c-zero-sign { background: #ff7043; color: #fff; }
td.cell.fail.c-subnormal-flush, .sw.c-subnormal-flush { background: #ec407a; color: #fff; }
td.cell.fail.c-exact, .sw.c-exact { background: #b71c1c; color: #fff; }
td.cell.fail.c-shape, .sw.c-shape { background: #6d4c41; color: #fff; }
td.cell.fail.c-overflow, .sw.c-overflow { background: #c2185b; color: #fff; }
td.cell.error, .sw.error { background: repeating-linear-gradient(45deg, #4a0000 0 6px, #6d1010 6px 12px); color: #fff; }
td.cell.timeout, .sw.timeout { background: #ffb300; color: #222; }
td.cell.known, .sw.known { background: repeating-linear-gradient(45deg, #90a4ae 0 6px, #b0bec5 6px 12px); color: #222; }
.sw.none { background: #fff; outline: 1px dashed #b0bec5; outline-offset: -1px; }
.sw.unsupported { background: #bdbdbd; }
.sw.s0 { background: #2e7d32; } .sw.s1 { background: #4caf50; } .sw.s2 { background: #81c784; }
.sw.s3 { background: #c5e1a5; } .sw.s4 { background: #e6ee9c; }
td.cell.clickable { cursor: pointer; }
td.cell.selected { outline: 3px solid #1a73e8; outline-offset: -3px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 6px 0; font-size: 12px; }
.legend span.item { display: inline-flex; align-items: center; gap: 5px; }
.sw { display: inline-block; width: 18px; height: 14px; border-radius: 2px; border: 1px solid rgba(0,0,0,.15); }
.drill { display: none; border: 1px solid var(--line); border-left: 4px solid #1a73e8;
  border-radius: 4px; padding: 10px 14px; margin: 14px 0; }
.drill:target { display: block; }
@media print { .drill { display: block; } }
.case { border-top: 1px solid var(--line); padding: 10px 0; }
.case h4 .verdict { text-transform: uppercase; font-size: 11px; padding: 1px 6px; border-radius: 3px;
  color: #fff; background: #e53935; margin-right: 6px; }
.case.verdict-error h4 .verdict { background: #6d1010; }
.case.verdict-timeout h4 .verdict { background: #ffb300; color: #222; }
.case.known h4 .verdict { background: #78909c; }
.case .known-by { margin: 4px 0; font-size: 13px; }
.replay-block { position: relative; }
.replay-block pre { padding-right: 64px; white-space: pre-wrap; word-break: break-all; }
button.copy { position: absolute; right: 6px; top: 4px; font-size: 11px; }
.filter { display: none; margin-left: 12px; font-size: 12px; }
body[data-js="ready"] .filter { display: inline; }
body.only-failing tr.clean { display: none; }
svg.histogram { display: block; margin: 8px 0; }
svg.histogram .bar.ulp { fill: #5c6bc0; }
svg.histogram .bar.class { fill: #e53935; }
svg.histogram .axis { stroke: #555; }
svg.histogram text { font: 10px system-ui, sans-serif; fill: #333; }
svg.histogram text.count { font-size: 9px; }
svg.histogram text.xtitle, svg.histogram text.ylabel { font-size: 11px; fill: #555; }
nav.pairs a { margin-right: 12px; }
#runs summary { cursor: pointer; }
#runs summary h2 { display: inline-block; border: 0; margin: 20px 0 6px; }
ul.inputs { margin: 4px 0; padding-left: 20px; font: 12px ui-monospace, monospace; }
"#;

/// Inline script (see the module documentation). Contains no `</script>`.
pub const JS: &str = r#"
(function () {
  function selectedCell() {
    document.querySelectorAll('td.cell.selected').forEach(function (td) {
      td.classList.remove('selected');
    });
    if (!location.hash) return;
    document.querySelectorAll('td.cell a').forEach(function (a) {
      if (a.hash === location.hash) a.parentNode.classList.add('selected');
    });
  }
  document.querySelectorAll('td.cell').forEach(function (td) {
    var a = td.querySelector('a');
    if (!a) return;
    td.classList.add('clickable');
    td.addEventListener('click', function (e) {
      if (e.target.closest('a') !== a) location.hash = a.hash;
    });
  });
  window.addEventListener('hashchange', selectedCell);
  selectedCell();
  document.querySelectorAll('code.replay').forEach(function (code) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'copy';
    b.textContent = 'copy';
    b.addEventListener('click', function () {
      var text = code.textContent;
      function fallback() {
        var r = document.createRange();
        r.selectNodeContents(code);
        var s = window.getSelection();
        s.removeAllRanges();
        s.addRange(r);
        try { document.execCommand('copy'); b.textContent = 'copied'; } catch (e) { b.textContent = 'select + copy'; }
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { b.textContent = 'copied'; }, fallback);
      } else {
        fallback();
      }
    });
    code.closest('.replay-block').appendChild(b);
  });
  document.querySelectorAll('input.only-failing').forEach(function (box) {
    box.addEventListener('change', function () {
      document.body.classList.toggle('only-failing', box.checked);
      document.querySelectorAll('input.only-failing').forEach(function (o) { o.checked = box.checked; });
    });
  });
  document.body.setAttribute('data-js', 'ready');
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_assets_cannot_close_their_elements_early() {
        assert!(!JS.to_ascii_lowercase().contains("</script"));
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
        // Self-contained: no external resource.
        for s in [CSS, JS] {
            assert!(
                !s.contains("url("),
                "external or data URL in an inline asset"
            );
            assert!(!s.contains("http://") && !s.contains("https://"));
            assert!(!s.contains("@import"));
        }
    }
}
