//! The loader never panics: random text, and random mutations of valid catalog files, give
//! `Ok` or a located `Err`.

use conformance_spec::catalog::{Catalog, CatalogError, BUILTIN_FILES};
use proptest::prelude::*;

fn load(text: &str) -> Result<Catalog, CatalogError> {
    Catalog::from_sources(&[("ops/elementwise.yaml".to_string(), text.to_string())])
}

/// Every error but an I/O one has a place inside the text (or 1:1 for an empty one).
fn check(text: &str) {
    if let Err(e) = load(text) {
        let lines = text.lines().count().max(1) + 1;
        for d in e.diagnostics() {
            assert!(
                d.line >= 1 && d.line <= lines,
                "{d} (text has {lines} lines)"
            );
            assert!(d.column >= 1, "{d}");
        }
        assert!(!matches!(e, CatalogError::Io { .. }));
    }
}

/// The first op of the built-in file, as a small valid family of its own.
fn small_valid() -> String {
    let text = BUILTIN_FILES[0].1;
    let start = text.find("  - id: abs\n").expect("abs entry");
    let end = text[start + 1..]
        .find("\n  - id: ")
        .map(|i| start + 1 + i)
        .expect("next entry");
    format!(
        "family: elementwise\nsource: \"seed 004\"\nops:\n{}\n",
        &text[start..end]
    )
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, String),
    Truncate(usize),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fragment = prop_oneof![
        Just(":".to_string()),
        Just("- ".to_string()),
        Just("\n".to_string()),
        Just("\t".to_string()),
        Just("{".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just("&a ".to_string()),
        Just("*a".to_string()),
        Just("<<: *a\n".to_string()),
        Just("!!binary ".to_string()),
        Just("nan".to_string()),
        Just("-0".to_string()),
        Just("(".to_string()),
        Just("ROOT".to_string()),
        Just("parameter(7)".to_string()),
        Just("\u{00e9}\u{1f600}".to_string()),
        "[ -~]{0,12}",
    ];
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), fragment.clone()).prop_map(|(a, s)| Mutation::Insert(a, s)),
        (any::<usize>(), fragment).prop_map(|(a, s)| Mutation::Replace(a, s)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

/// Applies a mutation at character boundaries.
fn apply(text: &str, m: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len().max(1);
    let s = |v: &[char]| v.iter().collect::<String>();
    match m {
        Mutation::Delete(at, len) => {
            let a = at % n;
            let b = (a + len).min(chars.len());
            s(&chars[..a.min(chars.len())]) + &s(&chars[b..])
        }
        Mutation::Insert(at, frag) => {
            let a = (at % n).min(chars.len());
            s(&chars[..a]) + frag + &s(&chars[a..])
        }
        Mutation::Replace(at, frag) => {
            let a = (at % n).min(chars.len());
            let b = (a + frag.chars().count()).min(chars.len());
            s(&chars[..a]) + frag + &s(&chars[b..])
        }
        Mutation::Truncate(at) => s(&chars[..(at % n).min(chars.len())]),
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let (a, b) = (a % lines.len(), b % lines.len());
                lines.swap(a, b);
            }
            lines.join("\n")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,300}") {
        check(&text);
    }

    #[test]
    fn random_yaml_like_text_never_panics(text in "[a-z_:\\-\\[\\]{}\"'|>&*!#%@, \n0-9.]{0,400}") {
        check(&text);
    }

    #[test]
    fn mutated_small_family_never_panics(ms in prop::collection::vec(mutation(), 1..4)) {
        let mut text = small_valid();
        for m in &ms {
            text = apply(&text, m);
        }
        check(&text);
    }
}

proptest! {
    // The whole built-in file: fewer cases, it is large.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_builtin_file_never_panics(m in mutation()) {
        check(&apply(BUILTIN_FILES[0].1, &m));
    }
}

#[test]
fn the_small_family_is_valid() {
    let text = small_valid();
    load(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
}

#[test]
fn empty_and_degenerate_inputs() {
    for text in [
        "",
        "\n",
        "---",
        "family:",
        "ops: []",
        "family: elementwise\nsource: x\nops: []\n",
        "[1, 2]",
        "~",
    ] {
        let e = load(text).expect_err(text);
        assert!(e.first().is_some(), "{text:?}: {e}");
    }
    // No files at all is an empty catalog.
    let c = Catalog::from_sources(&[]).expect("no files");
    assert!(c.ops().is_empty() && c.families().is_empty());
}
