//! Loading the catalog: YAML text → checked [`Catalog`].
//!
//! The built-in catalog is embedded in the binary ([`BUILTIN_FILES`]), so the `conformance`
//! binary works from any directory; `load_dir` reads a directory of `*.yaml` files instead (for
//! editing the catalog without rebuilding).

use super::error::{CatalogError, Diagnostic};
use super::model::{resolve_element_types, FamilyFile, OpEntry};
use super::spans::FileLocator;
use super::validate;
use crate::element_type::ElementType;
use crate::hlo::{AttrValue, Attribute, Opcode};
use std::collections::HashMap;
use std::path::Path;

/// The catalog files compiled into the binary: (file name, contents), one per family. Later
/// families are added here.
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    (
        "elementwise.yaml",
        include_str!("../../ops/elementwise.yaml"),
    ),
    (
        "data_movement.yaml",
        include_str!("../../ops/data_movement.yaml"),
    ),
    (
        "contractions.yaml",
        include_str!("../../ops/contractions.yaml"),
    ),
    (
        "control_flow.yaml",
        include_str!("../../ops/control_flow.yaml"),
    ),
    ("chlo.yaml", include_str!("../../ops/chlo.yaml")),
    ("linalg.yaml", include_str!("../../ops/linalg.yaml")),
    ("lapack.yaml", include_str!("../../ops/lapack.yaml")),
    ("random.yaml", include_str!("../../ops/random.yaml")),
    ("collective.yaml", include_str!("../../ops/collective.yaml")),
    (
        "host_transfer.yaml",
        include_str!("../../ops/host_transfer.yaml"),
    ),
];

/// A 1-based place in a catalog file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// Every operation of every family, checked (see [`Catalog::from_sources`]).
#[derive(Clone, Debug)]
pub struct Catalog {
    /// (family, file name as given) per file, in load order.
    families: Vec<(String, String)>,
    ops: Vec<OpEntry>,
    /// Per op: index into `families`, and where its entry starts.
    op_family: Vec<usize>,
    op_location: Vec<SourceLocation>,
    by_id: HashMap<String, usize>,
    hash: String,
}

static SHARED: std::sync::OnceLock<Option<Catalog>> = std::sync::OnceLock::new();

thread_local! {
    /// Set while this thread loads the shared catalog (whose validation verifies the examples'
    /// HLO, which asks for the shared catalog again).
    static LOADING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The built-in catalog, loaded once per process and shared: the source shape inference and the
/// verifier read for which element types an operation takes. `None` when it fails to load (a
/// test checks it loads), and on the thread that is loading it.
pub fn shared() -> Option<&'static Catalog> {
    if LOADING.with(|l| l.get()) {
        return None;
    }
    SHARED
        .get_or_init(|| {
            LOADING.with(|l| l.set(true));
            let catalog = Catalog::builtin().ok();
            LOADING.with(|l| l.set(false));
            catalog
        })
        .as_ref()
}

impl Catalog {
    /// The catalog embedded in the binary ([`BUILTIN_FILES`]).
    ///
    /// Errors: as [`Catalog::from_sources`] (a test checks that the built-in catalog loads).
    pub fn builtin() -> Result<Catalog, CatalogError> {
        let files: Vec<(String, String)> = BUILTIN_FILES
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string()))
            .collect();
        Catalog::from_sources(&files)
    }

    /// Loads every `*.yaml` file of `dir` (not recursive), in file-name order.
    ///
    /// Errors: [`CatalogError::Io`] when the directory or a file cannot be read, or holds no
    /// `*.yaml` file; otherwise as [`Catalog::from_sources`], with paths as `dir/name.yaml`.
    pub fn load_dir(dir: &Path) -> Result<Catalog, CatalogError> {
        let io = |path: &Path, e: std::io::Error| CatalogError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
            let path = entry.map_err(|e| io(dir, e))?.path();
            if path.extension().is_some_and(|x| x == "yaml") && path.is_file() {
                paths.push(path);
            }
        }
        if paths.is_empty() {
            return Err(CatalogError::Io {
                path: dir.display().to_string(),
                message: "no *.yaml catalog file in this directory".into(),
            });
        }
        paths.sort();
        let mut files = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
            files.push((path.display().to_string(), text));
        }
        Catalog::from_sources(&files)
    }

    /// Parses and checks catalog files given as (path used in messages, YAML text).
    ///
    /// Each file is one family (`family` must equal the file stem). Checks: YAML syntax and the
    /// data model (unknown fields, missing fields, wrong types); then, over all files, everything
    /// listed in `validate` (ids unique across files, known opcodes, element types and classes,
    /// tolerance keys, masks, special values, fixed and generated attributes, examples).
    ///
    /// Errors: [`CatalogError::Yaml`] for the first file that does not parse;
    /// [`CatalogError::Invalid`] with every semantic problem found. Never panics on any input.
    pub fn from_sources(files: &[(String, String)]) -> Result<Catalog, CatalogError> {
        let mut parsed = Vec::with_capacity(files.len());
        for (path, text) in files {
            let family: FamilyFile =
                serde_saphyr::from_str(text).map_err(|e| yaml_error(path, text, &e))?;
            parsed.push(family);
        }
        let locators: Vec<FileLocator> = files.iter().map(|(_, t)| FileLocator::new(t)).collect();
        let mut diagnostics = Vec::new();
        let mut catalog = Catalog {
            families: Vec::new(),
            ops: Vec::new(),
            op_family: Vec::new(),
            op_location: Vec::new(),
            by_id: HashMap::new(),
            hash: source_hash(files),
        };
        for (k, ((path, _), family)) in files.iter().zip(parsed).enumerate() {
            let locator = &locators[k];
            validate::validate_file(path, &family, locator, &mut diagnostics);
            let family_index = catalog.families.len();
            catalog.families.push((family.family.clone(), path.clone()));
            for (i, op) in family.ops.into_iter().enumerate() {
                let (line, column) = locator.op_start(i, &op.id);
                let here = SourceLocation {
                    file: path.clone(),
                    line,
                    column,
                };
                if let Some(&first) = catalog.by_id.get(&op.id) {
                    let there: &SourceLocation = &catalog.op_location[first];
                    diagnostics.push(Diagnostic {
                        file: here.file.clone(),
                        line,
                        column,
                        message: format!(
                            "duplicate id `{}` (first defined at {}:{}:{}); ids are unique across the catalog",
                            op.id, there.file, there.line, there.column
                        ),
                    });
                } else {
                    catalog.by_id.insert(op.id.clone(), catalog.ops.len());
                }
                catalog.ops.push(op);
                catalog.op_family.push(family_index);
                catalog.op_location.push(here);
            }
        }
        if diagnostics.is_empty() {
            Ok(catalog)
        } else {
            diagnostics.sort_by(|a, b| {
                (files_index(files, &a.file), a.line, a.column).cmp(&(
                    files_index(files, &b.file),
                    b.line,
                    b.column,
                ))
            });
            Err(CatalogError::Invalid(diagnostics))
        }
    }

    /// Every entry, all families, in file order.
    pub fn ops(&self) -> &[OpEntry] {
        &self.ops
    }

    /// The entry with this id.
    pub fn op(&self, id: &str) -> Option<&OpEntry> {
        self.by_id.get(id).map(|&i| &self.ops[i])
    }

    /// The entry that describes an instruction: same opcode, every fixed attribute of the entry
    /// present with the same value (`direction=LT` picks `compare-LT`), and `operand_type` among
    /// the element types it accepts. `None` when no entry matches.
    pub fn entry_for(
        &self,
        opcode: &str,
        attributes: &[crate::hlo::Attribute],
        operand_type: ElementType,
    ) -> Option<&OpEntry> {
        self.ops.iter().find(|op| {
            op.opcode == opcode
                && op.attributes.iter().all(|(k, v)| {
                    if k == crate::custom_call::ROUTINE_ATTRIBUTE {
                        return attribute_text(attributes, k).as_deref() == Some(v.as_str());
                    }
                    attributes
                        .iter()
                        .any(|a| &a.name == k && a.value.to_string() == *v)
                })
                && self.element_types(op).contains(&operand_type)
        })
    }

    /// The family of the entry with this id.
    pub fn family_of(&self, id: &str) -> Option<&str> {
        self.by_id
            .get(id)
            .map(|&i| self.families[self.op_family[i]].0.as_str())
    }

    /// Where the entry with this id starts (its `id:` key).
    pub fn location_of(&self, id: &str) -> Option<&SourceLocation> {
        self.by_id.get(id).map(|&i| &self.op_location[i])
    }

    /// The family names, in load order.
    pub fn families(&self) -> Vec<&str> {
        self.families.iter().map(|(f, _)| f.as_str()).collect()
    }

    /// The entries of one family, in file order.
    pub fn ops_of_family<'a>(&'a self, family: &'a str) -> impl Iterator<Item = &'a OpEntry> + 'a {
        self.ops
            .iter()
            .zip(&self.op_family)
            .filter(move |(_, &f)| self.families[f].0 == family)
            .map(|(op, _)| op)
    }

    /// A stable digest of the catalog sources: FNV-1a 64 over each file's name (without
    /// directories) and text, in file-name order, as 16 lowercase hex digits. The built-in catalog
    /// and `load_dir` of the same files give the same digest.
    pub fn hash(&self) -> String {
        self.hash.clone()
    }

    /// The element types an entry accepts (of its first data operand), resolved from names and
    /// classes, in `ElementType::ALL` order. Empty only for an entry not checked by the loader.
    pub fn element_types(&self, op: &OpEntry) -> Vec<ElementType> {
        resolve_element_types(&op.element_types).unwrap_or_default()
    }

    /// The result element types of an entry for an operand of type `input`: the result rule
    /// applied to `input`; for `result: chosen` entries, the resolved `result_element_types`
    /// (every element type when absent). Empty when the rule does not apply to `input`.
    pub fn result_element_types(&self, op: &OpEntry, input: ElementType) -> Vec<ElementType> {
        validate::result_types(op, input)
    }
}

impl Catalog {
    /// Whether some entry takes `opcode` on a first data operand of type `operand` with result
    /// type `result`, given the instruction's `attributes` (an entry's fixed attributes must all
    /// be present with the same value, e.g. `direction`; an absent comparison `type` means the
    /// operand type's default). For a verifier's per-type legality check.
    pub fn accepts(
        &self,
        opcode: Opcode,
        attributes: &[Attribute],
        operand: ElementType,
        result: ElementType,
    ) -> bool {
        self.ops.iter().any(|op| {
            op.opcode == opcode.name()
                && op.attributes.iter().all(|(name, value)| {
                    attribute_text(attributes, name)
                        .or_else(|| (name == "type").then(|| default_comparison_type(operand)))
                        .is_some_and(|v| v == *value)
                })
                && (opcode != Opcode::Compare
                    || op.attributes.contains_key("type")
                    || attribute_text(attributes, "type")
                        .is_none_or(|t| t == default_comparison_type(operand)))
                && self.element_types(op).contains(&operand)
                && self.result_element_types(op, operand).contains(&result)
        })
    }
}

/// An attribute's value as HLO text writes it (integers, enumerators, raw text).
pub(crate) fn attribute_text(attributes: &[Attribute], name: &str) -> Option<String> {
    if name == crate::custom_call::ROUTINE_ATTRIBUTE {
        // Derived from the target: `lapack_dgetrf_ffi` has `lapack_routine=getrf`.
        return match &attributes
            .iter()
            .find(|a| a.name == "custom_call_target")?
            .value
        {
            AttrValue::Str(t) => crate::custom_call::parse_target(t).map(|(r, _)| r.name().into()),
            _ => None,
        };
    }
    let a = attributes.iter().find(|a| a.name == name)?;
    Some(match &a.value {
        AttrValue::Int(v) => v.to_string(),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Enum(s) | AttrValue::Raw(s) | AttrValue::Str(s) => s.clone(),
        _ => return None,
    })
}

/// XLA's default comparison type of an element type: FLOAT for floating types, SIGNED for signed
/// integers, UNSIGNED for unsigned integers and pred.
pub fn default_comparison_type(t: ElementType) -> String {
    if t.is_floating() {
        "FLOAT"
    } else if t.is_signed_integer() {
        "SIGNED"
    } else {
        "UNSIGNED"
    }
    .to_string()
}

fn files_index(files: &[(String, String)], file: &str) -> usize {
    files
        .iter()
        .position(|(p, _)| p == file)
        .unwrap_or(usize::MAX)
}

/// FNV-1a 64 over (file name, NUL, text, NUL) of each file, in file-name order.
fn source_hash(files: &[(String, String)]) -> String {
    let mut named: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| {
            let name = Path::new(p)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(p);
            (name, t.as_str())
        })
        .collect();
    named.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in named {
        for &b in name
            .as_bytes()
            .iter()
            .chain(&[0])
            .chain(text.as_bytes())
            .chain(&[0])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A YAML or data-model error as a located diagnostic. When the place lies inside an op entry,
/// the message names that entry (the YAML crate places a missing field at the end of its mapping).
fn yaml_error(path: &str, text: &str, e: &serde_saphyr::Error) -> CatalogError {
    let (line, column) = e
        .location()
        .map(|l| (l.line() as usize, l.column() as usize))
        .filter(|&(l, _)| l > 0)
        .unwrap_or((1, 1));
    let mut message = e.without_snippet().to_string();
    // The crate appends " at line L, column C"; the diagnostic carries the place itself.
    if let Some(cut) = message.rfind(" at line ") {
        if message[cut..].contains(", column ") {
            message.truncate(cut);
        }
    }
    if let Some((id, (op_line, op_column))) = enclosing_op(text, line) {
        message.push_str(&format!(" (in op `{id}` at {op_line}:{op_column})"));
    }
    CatalogError::Yaml(Diagnostic {
        file: path.to_string(),
        line,
        column: column.max(1),
        message,
    })
}

/// The id and position of the last `- id: <id>` line at or before `line`.
fn enclosing_op(text: &str, line: usize) -> Option<(String, (usize, usize))> {
    let mut found = None;
    for (n, l) in text.lines().enumerate().take(line) {
        let trimmed = l.trim_start();
        if let Some(rest) = trimmed.strip_prefix("- id:") {
            let id = rest
                .trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string();
            if !id.is_empty() {
                let column = l.len() - trimmed.len() + 3;
                found = Some((id, (n + 1, column)));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_follows_the_entries() {
        use ElementType::*;
        let c = Catalog::builtin().expect("builtin");
        let attr = |name: &str, v: &str| Attribute {
            name: name.into(),
            value: AttrValue::Enum(v.into()),
        };
        assert!(c.accepts(Opcode::Add, &[], Pred, Pred));
        assert!(!c.accepts(Opcode::Subtract, &[], Pred, Pred));
        assert!(c.accepts(Opcode::Abs, &[], C64, F32));
        assert!(!c.accepts(Opcode::Abs, &[], C64, C64));
        assert!(!c.accepts(Opcode::Sine, &[], S32, S32));
        assert!(c.accepts(Opcode::Convert, &[], S32, C64));
        assert!(!c.accepts(Opcode::Convert, &[], C64, F32));
        let lt = [attr("direction", "LT")];
        assert!(c.accepts(Opcode::Compare, &lt, U8, Pred));
        assert!(!c.accepts(Opcode::Compare, &lt, C64, Pred));
        let total = [attr("direction", "LT"), attr("type", "TOTALORDER")];
        assert!(c.accepts(Opcode::Compare, &total, F32, Pred));
        assert!(!c.accepts(Opcode::Compare, &total, S32, Pred));
        let eq_float = [attr("direction", "EQ"), attr("type", "FLOAT")];
        assert!(c.accepts(Opcode::Compare, &eq_float, C128, Pred));
        assert!(
            !c.accepts(Opcode::Compare, &[], F32, Pred),
            "compare needs a direction"
        );
        assert_eq!(default_comparison_type(Pred), "UNSIGNED");
    }

    #[test]
    fn hash_ignores_directories_and_order() {
        let a = vec![
            ("x/a.yaml".to_string(), "1".to_string()),
            ("x/b.yaml".to_string(), "2".to_string()),
        ];
        let b = vec![
            ("b.yaml".to_string(), "2".to_string()),
            ("a.yaml".to_string(), "1".to_string()),
        ];
        assert_eq!(source_hash(&a), source_hash(&b));
        let c = vec![("a.yaml".to_string(), "1 ".to_string())];
        assert_ne!(source_hash(&a), source_hash(&c));
        assert_eq!(source_hash(&a).len(), 16);
        // FNV-1a 64 of the empty input is its offset basis.
        assert_eq!(source_hash(&[]), "cbf29ce484222325");
    }
}
