//! Where things are in a catalog file: a second, lenient parse of the same YAML text into
//! `Spanned` shadows of the model, so that semantic errors point at the offending node.
//!
//! The model types stay plain (other crates read them); only the loader sees these. Every lookup
//! falls back to the enclosing node, then to the op's `- id:` line found by scanning the text,
//! then to the start of the file, so no diagnostic is ever without a place.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::fmt;

/// A 1-based (line, column) position.
pub(crate) type Pos = (usize, usize);

/// The position of a spanned node, if the parser recorded one.
pub(crate) fn pos_of<T>(s: &Spanned<T>) -> Option<Pos> {
    let line = s.referenced.line() as usize;
    let column = s.referenced.column() as usize;
    (line > 0).then_some((line, column.max(1)))
}

/// Keys of a mapping with their positions (values ignored).
#[derive(Debug, Default)]
pub(crate) struct KeySpans(pub Vec<Spanned<String>>);

impl<'de> Deserialize<'de> for KeySpans {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = KeySpans;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeySpans, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let _: IgnoredAny = map.next_value()?;
                    keys.push(key);
                }
                Ok(KeySpans(keys))
            }
        }
        d.deserialize_map(KeysVisitor)
    }
}

impl KeySpans {
    pub(crate) fn find(&self, key: &str) -> Option<Pos> {
        self.0.iter().find(|k| k.value == key).and_then(pos_of)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct FileSpans {
    #[serde(default)]
    pub family: Option<Spanned<String>>,
    #[serde(default)]
    pub ops: Vec<Spanned<OpSpans>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct OpSpans {
    #[serde(default)]
    pub id: Option<Spanned<String>>,
    #[serde(default)]
    pub opcode: Option<Spanned<String>>,
    #[serde(default)]
    pub builder: Option<Spanned<String>>,
    #[serde(default)]
    pub source: Option<Spanned<String>>,
    #[serde(default)]
    pub summary: Option<Spanned<String>>,
    #[serde(default)]
    pub signature: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub result: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub attributes: Option<Spanned<KeySpans>>,
    #[serde(default)]
    pub generated_attributes: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    pub element_types: Vec<Spanned<String>>,
    #[serde(default)]
    pub result_element_types: Vec<Spanned<String>>,
    #[serde(default)]
    pub special_values: Vec<Spanned<SpecialValueSpans>>,
    #[serde(default)]
    pub implementation_defined: Vec<Spanned<ImplementationDefinedSpans>>,
    #[serde(default)]
    pub tolerance: Option<Spanned<ToleranceSpans>>,
    #[serde(default)]
    pub examples: Vec<Spanned<ExampleSpans>>,
    #[serde(default)]
    pub unsupported: Option<Spanned<KeySpans>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SpecialValueSpans {
    #[serde(default)]
    pub inputs: Vec<Spanned<String>>,
    #[serde(default)]
    pub output: Option<Spanned<String>>,
    #[serde(default)]
    pub element_types: Vec<Spanned<String>>,
    #[serde(default)]
    pub output_type: Option<Spanned<String>>,
    #[serde(default)]
    pub attributes: Option<Spanned<KeySpans>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ImplementationDefinedSpans {
    #[serde(default)]
    pub mask: Option<Spanned<String>>,
    #[serde(default)]
    pub element_types: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToleranceSpans {
    #[serde(default)]
    pub ulp: Option<Spanned<KeySpans>>,
    #[serde(default)]
    pub rationale: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExampleSpans {
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub hlo: Option<Spanned<String>>,
    #[serde(default)]
    pub inputs: Vec<Spanned<String>>,
    #[serde(default)]
    pub expected: Option<Spanned<String>>,
}

/// Positions of one file's nodes, with the fallbacks described in the module docs.
pub(crate) struct FileLocator<'a> {
    text: &'a str,
    spans: Option<FileSpans>,
}

impl<'a> FileLocator<'a> {
    pub(crate) fn new(text: &'a str) -> FileLocator<'a> {
        let spans = serde_saphyr::from_str::<FileSpans>(text).ok();
        FileLocator { text, spans }
    }

    /// The `family:` value.
    pub(crate) fn family(&self) -> Pos {
        self.spans
            .as_ref()
            .and_then(|s| s.family.as_ref())
            .and_then(pos_of)
            .unwrap_or((1, 1))
    }

    /// The spans of op number `index` (file order), if the shadow parse succeeded.
    pub(crate) fn op(&self, index: usize) -> Option<&OpSpans> {
        self.spans.as_ref()?.ops.get(index).map(|s| &s.value)
    }

    /// The start of op number `index` whose id is `id`.
    pub(crate) fn op_start(&self, index: usize, id: &str) -> Pos {
        self.spans
            .as_ref()
            .and_then(|s| s.ops.get(index))
            .and_then(pos_of)
            .or_else(|| scan_for_id(self.text, id))
            .unwrap_or((1, 1))
    }

    /// Where the text of a string node's line `hlo_line`, column `hlo_column` (1-based, inside the
    /// string's content) is in the file: exact for block scalars (`|`) and single-line strings.
    pub(crate) fn inside_string(&self, node: Pos, hlo_line: usize, hlo_column: usize) -> Pos {
        let (line, column) = node;
        let quoted = self
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .and_then(|l| l.chars().nth(column.saturating_sub(1)))
            .is_some_and(|c| c == '"' || c == '\'');
        let first_column = column + usize::from(quoted);
        if hlo_line <= 1 {
            (line, first_column + hlo_column.saturating_sub(1))
        } else {
            (line + hlo_line - 1, column + hlo_column.saturating_sub(1))
        }
    }
}

/// The position of the `id` value of the op whose id is `id`, found by scanning for a line
/// `- id: <id>` (or `id: <id>`, quoted or not).
pub(crate) fn scan_for_id(text: &str, id: &str) -> Option<Pos> {
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let body = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
        if let Some(value) = body.strip_prefix("id:") {
            let v = value.trim().trim_matches(|c| c == '"' || c == '\'');
            if v == id {
                let column = line.len() - body.len() + 1;
                return Some((n + 1, column));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "family: f\nops:\n  - id: a\n    opcode: add\n    element_types: [f32, bogus]\n    tolerance:\n      ulp: {f32: 0, zzz: 1}\n    examples:\n      - name: e\n        hlo: |\n          HloModule m\n          ENTRY e {\n          }\n  - id: \"b\"\n    opcode: sub\n";

    #[test]
    fn finds_nodes() {
        let loc = FileLocator::new(TEXT);
        assert_eq!(loc.family(), (1, 9));
        let op = loc.op(0).unwrap();
        assert_eq!(pos_of(op.opcode.as_ref().unwrap()), Some((4, 13)));
        assert_eq!(pos_of(&op.element_types[1]), Some((5, 26)));
        let ulp = &op
            .tolerance
            .as_ref()
            .unwrap()
            .value
            .ulp
            .as_ref()
            .unwrap()
            .value;
        assert_eq!(ulp.find("zzz"), Some((7, 21)));
        let hlo = pos_of(op.examples[0].value.hlo.as_ref().unwrap()).unwrap();
        assert_eq!(hlo, (11, 11));
        assert_eq!(loc.inside_string(hlo, 2, 7), (12, 17));
        assert_eq!(loc.op_start(1, "b"), (14, 5));
    }

    #[test]
    fn scanning_finds_ids() {
        assert_eq!(scan_for_id(TEXT, "a"), Some((3, 5)));
        assert_eq!(scan_for_id(TEXT, "b"), Some((14, 5)));
        assert_eq!(scan_for_id(TEXT, "c"), None);
        // Without a parse, the op start falls back to the scan, then to 1:1.
        let broken = FileLocator {
            text: TEXT,
            spans: None,
        };
        assert_eq!(broken.op_start(0, "a"), (3, 5));
        assert_eq!(broken.op_start(0, "zz"), (1, 1));
    }
}
