#!/usr/bin/env python3
"""Summary of mutation testing (issue 20; docs/mutants.md): kill rates per module of fast/src and
the surviving mutants, from one or more cargo-mutants outcomes.json files (the shards of one run).

Usage: scripts/mutants_summary.py [--wall-seconds S] OUTCOMES.json...

A mutant is viable when it builds; the kill rate of a module is (caught + timed out) / viable.
A survivor ("missed") is marked explained when the "Explained" section of docs/mutants.md names
it as `file: mutant` (the file and cargo-mutants' description, without line and column, which
move with edits).
Writes Markdown to stdout; exit 2 on a missing or malformed file.
"""
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "mutants.md"


def module_of(path):
    """fast/src/elementwise/unary.rs -> elementwise; fast/src/layout.rs -> layout.rs."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 else parts[-1]


def explained_keys():
    """The `file: mutant` keys of the "Explained" section of docs/mutants.md (closed and open
    holes are listed elsewhere: a survivor there is not explained)."""
    if not DOCS.exists():
        return set()
    text = DOCS.read_text()
    start = text.find("### Explained")
    if start < 0:
        return set()
    end = text.find("\n### ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    return set(re.findall(r"`(fast/src/[^`:]+: [^`]+)`", section))


def load(paths):
    outcomes = []
    for p in paths:
        try:
            data = json.loads(Path(p).read_text())
            outcomes.extend(data["outcomes"])
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"{p}: expected a cargo-mutants outcomes.json ({e})")
    return outcomes


def main(argv):
    wall = None
    if len(argv) >= 2 and argv[0] == "--wall-seconds":
        wall = float(argv[1])
        argv = argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        outcomes = load(argv)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    keys = explained_keys()
    counts = defaultdict(Counter)
    survivors = []
    test_seconds = []
    for o in outcomes:
        scenario = o.get("scenario")
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        m = scenario["Mutant"]
        module = module_of(m["file"])
        summary = o["summary"]
        counts[module][summary] += 1
        for phase in o.get("phase_results", []):
            if phase.get("phase") == "Test":
                test_seconds.append(phase.get("duration", 0.0))
        if summary == "MissedMutant":
            line = m["span"]["start"]["line"]
            col = m["span"]["start"]["column"]
            # `name` is `file:line:col: description`.
            description = m["name"].split(": ", 1)[-1]
            key = f"{m['file']}: {description}"
            survivors.append((m["file"], line, col, description, key in keys))
    print("# Mutation testing: kill rates\n")
    print(f"{sum(sum(c.values()) for c in counts.values())} mutants from {len(argv)} outcome file(s)"
          + (f", {wall / 60:.1f} min wall" if wall is not None else "")
          + (f", tests {sum(test_seconds) / max(len(test_seconds), 1):.1f} s per mutant on average"
             if test_seconds else "") + ".\n")
    print("| module | mutants | unviable | viable | caught | timeout | missed | explained | kill rate | kill rate, explained excluded |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    total = Counter()
    explained_by_module = Counter(module_of(f) for f, _, _, _, e in survivors if e)
    for module in sorted(counts):
        c = counts[module]
        total.update(c)
        row(module, c, explained_by_module[module])
    row("**all**", total, sum(explained_by_module.values()))
    print("\n## Survivors\n")
    if not survivors:
        print("None.")
    for f, line, col, name, explained in sorted(survivors):
        mark = "explained in docs/mutants.md" if explained else "**not explained**"
        print(f"- `{f}:{line}:{col}: {name}` — {mark}")
    return 0


def row(module, c, explained):
    viable = c["CaughtMutant"] + c["Timeout"] + c["MissedMutant"]
    killed = c["CaughtMutant"] + c["Timeout"]
    rate = f"{100 * killed / viable:.1f}%" if viable else "–"
    rest = viable - explained
    rate_x = f"{100 * killed / rest:.1f}%" if rest else "–"
    print(f"| {module} | {sum(c.values())} | {c['Unviable']} | {viable} | {c['CaughtMutant']} | "
          f"{c['Timeout']} | {c['MissedMutant']} | {explained} | {rate} | {rate_x} |")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
