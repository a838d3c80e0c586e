//! Loading an NNEF graph with its data (NNEF 1.0.5 §5.1 "Container Organization").
//!
//! A graph comes as one of:
//! - a single `.nnef` document (no data: variables get generated values, see
//!   [`crate::weights`]);
//! - a folder holding `graph.nnef`, optionally `graph.quant`, and one `<label>.dat` per variable
//!   (a label `conv1/filter` is the file `conv1/filter.dat`);
//! - a tar archive of such a folder, gzip-compressed or not (`.tgz`, `.tar.gz`, `.tar`), with
//!   the files at the top or under a single top-level directory.
//!
//! Every file whose name ends in `.dat` under the graph's folder is read as a tensor file and
//! keyed by its label. Files with further extensions after `.dat` (other versions of the data,
//! §5.1) and other files (vendor data) are ignored, as are the `._*` and `__MACOSX` entries that
//! macOS archivers add.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use conformance_spec::literal::Literal;

use crate::ast::ExprKind;
use crate::dat::{read_tensor, write_tensor, Quantization, TensorFile};
use crate::error::{NnefError, Span};
use crate::graph::{Tensor, Value};
use crate::weights::{generate, WeightRole};

/// The name of the graph description in a container.
pub const GRAPH_FILE: &str = "graph.nnef";
/// The name of the optional quantization file in a container.
pub const QUANT_FILE: &str = "graph.quant";

/// How a graph was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// A single `.nnef` document.
    Document,
    /// A folder with `graph.nnef`.
    Folder,
    /// A tar archive (gzip-compressed or not).
    Archive,
}

/// A graph description with its quantization text and variable data, as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphSource {
    /// The path given to [`load`] (the document, the folder or the archive).
    pub path: PathBuf,
    /// How the graph was stored.
    pub kind: SourceKind,
    /// The text of the graph description (`graph.nnef`).
    pub text: String,
    /// The text of `graph.quant`, when present.
    pub quantization: Option<String>,
    /// The tensor files by variable label (the path under the graph's folder without `.dat`,
    /// components separated by `/`).
    pub variables: BTreeMap<String, TensorFile>,
}

/// An error while loading or writing a graph, naming the file it is about.
///
/// Displays as `file: message`, or `file:line:col: message` when the error has a position.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct LoadError {
    /// The file (for archive members: `archive.tgz:member/path`).
    pub file: String,
    /// What went wrong (kind [`crate::ErrorKind::Data`] for I/O and format errors).
    pub error: NnefError,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.error.span.line == 0 {
            write!(f, "{}: {}", self.file, self.error.message)
        } else {
            f.write_str(&self.error.in_file(&self.file))
        }
    }
}

impl LoadError {
    /// An error about `file`.
    pub fn new(file: impl Into<String>, error: NnefError) -> LoadError {
        LoadError {
            file: file.into(),
            error,
        }
    }

    /// A data error about `file` without a position (line 0), with `message`.
    pub fn message(file: impl Into<String>, message: impl Into<String>) -> LoadError {
        LoadError::new(file, NnefError::data(Span::default(), message))
    }

    fn io(file: &Path, action: &str, e: std::io::Error) -> LoadError {
        LoadError::message(file.display().to_string(), format!("cannot {action}: {e}"))
    }
}

/// A quantization entry of `graph.quant`: the fragment name and its named attributes (the
/// shape of [`crate::graph::Tensor::quantization`]).
pub type QuantizationEntry = (String, BTreeMap<String, Value>);

/// Loads a graph from `path`: a `.nnef` document, a folder, or a tar archive (see the module
/// documentation). Anything that is not a folder and whose name does not end in `.nnef` is read
/// as an archive.
///
/// Errors ([`LoadError`], naming the file): unreadable files, no `graph.nnef` in a folder or
/// archive, text that is not UTF-8, a malformed archive or archive member path (absolute, or
/// with `..`), and any malformed `.dat` file (see [`crate::dat::read_tensor`]).
pub fn load(path: &Path) -> Result<GraphSource, LoadError> {
    let metadata = std::fs::metadata(path).map_err(|e| LoadError::io(path, "read", e))?;
    if metadata.is_dir() {
        return load_folder(path);
    }
    let bytes = std::fs::read(path).map_err(|e| LoadError::io(path, "read", e))?;
    let name = path.display().to_string();
    if path.extension().is_some_and(|e| e == "nnef") {
        return Ok(GraphSource {
            path: path.to_path_buf(),
            kind: SourceKind::Document,
            text: utf8(&name, bytes)?,
            quantization: None,
            variables: BTreeMap::new(),
        });
    }
    let mut source = load_archive_bytes(&bytes, &name)?;
    source.path = path.to_path_buf();
    Ok(source)
}

/// The text of `bytes`, or an error naming the offset (from 0) of the first byte that is not
/// UTF-8, with its line and column: `FILE: not UTF-8 at byte N (0xBB, line L column C)`, as the
/// harness reports other text files.
fn utf8(file: &str, bytes: Vec<u8>) -> Result<String, LoadError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or("");
        let line = valid.matches('\n').count() + 1;
        let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        LoadError::message(
            file,
            format!(
                "not UTF-8 at byte {at} (0x{:02x}, line {line} column {column}): expected UTF-8 text",
                e.as_bytes()[at]
            ),
        )
    })
}

/// True for entries macOS archivers add beside real files (`._name`, `__MACOSX/`).
fn is_platform_litter(components: &[String]) -> bool {
    components
        .iter()
        .any(|c| c == "__MACOSX" || c.starts_with("._"))
}

/// Builds a source from the files of a graph folder: `files` maps paths relative to the folder
/// (components joined by `/`) to their contents.
fn assemble(
    path: &Path,
    kind: SourceKind,
    display: &dyn Fn(&str) -> String,
    mut files: BTreeMap<String, Vec<u8>>,
) -> Result<GraphSource, LoadError> {
    let text = files
        .remove(GRAPH_FILE)
        .ok_or_else(|| LoadError::message(display(""), format!("no {GRAPH_FILE} found")))?;
    let text = utf8(&display(GRAPH_FILE), text)?;
    let quantization = match files.remove(QUANT_FILE) {
        Some(q) => Some(utf8(&display(QUANT_FILE), q)?),
        None => None,
    };
    let mut variables = BTreeMap::new();
    for (name, bytes) in files {
        if let Some(label) = name.strip_suffix(".dat") {
            let file = read_tensor(&bytes).map_err(|e| LoadError::new(display(&name), e))?;
            variables.insert(label.to_string(), file);
        }
    }
    Ok(GraphSource {
        path: path.to_path_buf(),
        kind,
        text,
        quantization,
        variables,
    })
}

fn load_folder(dir: &Path) -> Result<GraphSource, LoadError> {
    let mut files = BTreeMap::new();
    collect_folder(dir, &mut Vec::new(), &mut files)?;
    let display = |name: &str| {
        if name.is_empty() {
            dir.display().to_string()
        } else {
            dir.join(name).display().to_string()
        }
    };
    assemble(dir, SourceKind::Folder, &display, files)
}

/// Reads `graph.nnef`, `graph.quant` and every `*.dat` under `dir` (recursively; symbolic links
/// to files are followed, links to folders are not, so cycles are impossible).
fn collect_folder(
    dir: &Path,
    prefix: &mut Vec<String>,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<(), LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::io(dir, "list the folder", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| LoadError::io(dir, "list the folder", e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue; // not a valid label or a file NNEF names
        };
        let file_type = entry
            .file_type()
            .map_err(|e| LoadError::io(&path, "inspect", e))?;
        prefix.push(name);
        if is_platform_litter(prefix) {
            prefix.pop();
            continue;
        }
        if file_type.is_dir() {
            collect_folder(&path, prefix, files)?;
        } else {
            let relative = prefix.join("/");
            let wanted =
                relative == GRAPH_FILE || relative == QUANT_FILE || relative.ends_with(".dat");
            if wanted && path.is_file() {
                let bytes = std::fs::read(&path).map_err(|e| LoadError::io(&path, "read", e))?;
                files.insert(relative, bytes);
            }
        }
        prefix.pop();
    }
    Ok(())
}

/// Loads a graph from the bytes of a tar archive, gzip-compressed (detected by its magic bytes
/// `1f 8b`) or not; `name` names the archive in errors. `graph.nnef` must be at the top of the
/// archive or under its single top-level directory.
///
/// Errors: as [`load`].
pub fn load_archive_bytes(bytes: &[u8], name: &str) -> Result<GraphSource, LoadError> {
    let reader: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(bytes))
    } else {
        Box::new(bytes)
    };
    let bad = |e: std::io::Error| {
        LoadError::message(name, format!("not a readable tar or tar.gz archive: {e}"))
    };
    let mut archive = tar::Archive::new(reader);
    let mut members: BTreeMap<Vec<String>, Vec<u8>> = BTreeMap::new();
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        if !entry.header().entry_type().is_file() {
            continue; // folders, links and special files carry no graph data
        }
        let raw = entry.path().map_err(bad)?.into_owned();
        let components = member_components(&raw).ok_or_else(|| {
            LoadError::message(
                format!("{name}:{}", raw.display()),
                "unsafe or non-UTF-8 member path",
            )
        })?;
        if components.is_empty() || is_platform_litter(&components) {
            continue;
        }
        let mut contents = Vec::new();
        entry.read_to_end(&mut contents).map_err(bad)?;
        members.insert(components, contents);
    }
    let root = archive_root(&members).ok_or_else(|| {
        LoadError::message(
            name,
            format!(
                "no {GRAPH_FILE} at the top of the archive or under a single top-level directory"
            ),
        )
    })?;
    let files: BTreeMap<String, Vec<u8>> = members
        .into_iter()
        .filter(|(c, _)| c.len() > root.len() && c[..root.len()] == root[..])
        .map(|(c, bytes)| (c[root.len()..].join("/"), bytes))
        .collect();
    let prefix: String = root.iter().map(|c| format!("{c}/")).collect();
    let display = |member: &str| format!("{name}:{prefix}{member}");
    assemble(Path::new(name), SourceKind::Archive, &display, files)
}

/// The normal components of an archive member path (`./` dropped), or `None` for a path that
/// is absolute, climbs with `..`, or is not UTF-8.
fn member_components(path: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(c) => out.push(c.to_str()?.to_string()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The folder of the archive that holds `graph.nnef`: the top (empty) or the single top-level
/// directory.
fn archive_root(members: &BTreeMap<Vec<String>, Vec<u8>>) -> Option<Vec<String>> {
    if members.contains_key(&vec![GRAPH_FILE.to_string()]) {
        return Some(Vec::new());
    }
    let mut tops = members.keys().filter(|c| c.len() > 1).map(|c| &c[0]);
    let top = tops.next()?.clone();
    if tops.any(|t| *t != top) {
        return None;
    }
    let root = vec![top];
    members
        .contains_key(&vec![root[0].clone(), GRAPH_FILE.to_string()])
        .then_some(root)
}

/// The relative path of a label's `.dat` file, or `None` for a label that cannot name a file
/// inside the folder (empty, absolute, with empty, `.` or `..` components, or a backslash).
fn label_path(label: &str) -> Option<PathBuf> {
    if label.contains('\\') {
        return None;
    }
    let parts: Vec<&str> = label.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return None;
    }
    let mut path: PathBuf = parts.iter().collect();
    let file = format!("{}.dat", parts[parts.len() - 1]);
    path.set_file_name(file);
    Some(path)
}

/// Writes `source` as a graph folder at `dir` (created if missing): `graph.nnef`,
/// `graph.quant` when present, and `<label>.dat` for every variable (sub-folders created).
///
/// Errors ([`LoadError`] naming the file): a label that cannot name a file in the folder, a
/// tensor file that fails validation, or an I/O error.
pub fn write_folder(source: &GraphSource, dir: &Path) -> Result<(), LoadError> {
    for (relative, bytes) in folder_files(source, &dir.display().to_string())? {
        let path = dir.join(&relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| LoadError::io(parent, "create the folder", e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| LoadError::io(&path, "write", e))?;
    }
    Ok(())
}

/// Writes `source` as a gzip-compressed tar archive at `path` with the files at its top (as
/// [`write_folder`] lays them out). Entries have mode 0644 and time 0, so the archive depends
/// only on the source.
///
/// Errors: as [`write_folder`].
pub fn write_archive(source: &GraphSource, path: &Path) -> Result<(), LoadError> {
    let name = path.display().to_string();
    let files = folder_files(source, &name)?;
    let fail = |e: std::io::Error| LoadError::io(path, "write", e);
    let file = std::fs::File::create(path).map_err(fail)?;
    let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    for (relative, bytes) in files {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        let member = relative
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect::<Vec<_>>()
            .join("/");
        builder
            .append_data(&mut header, member, bytes.as_slice())
            .map_err(fail)?;
    }
    builder.into_inner().map_err(fail)?.finish().map_err(fail)?;
    Ok(())
}

/// The files of a graph folder: relative path and contents.
fn folder_files(source: &GraphSource, name: &str) -> Result<Vec<(PathBuf, Vec<u8>)>, LoadError> {
    let mut files = vec![(PathBuf::from(GRAPH_FILE), source.text.clone().into_bytes())];
    if let Some(q) = &source.quantization {
        files.push((PathBuf::from(QUANT_FILE), q.clone().into_bytes()));
    }
    for (label, tensor) in &source.variables {
        let relative = label_path(label).ok_or_else(|| {
            LoadError::message(
                name,
                format!("variable label '{label}' cannot name a file in the folder"),
            )
        })?;
        let bytes =
            write_tensor(tensor).map_err(|e| LoadError::new(format!("{name}/{label}.dat"), e))?;
        files.push((relative, bytes));
    }
    Ok(files)
}

/// Parses `graph.quant` text (NNEF 1.0.5 §5.3) into tensor name → (fragment, attributes).
/// Attribute values must be literal constants: numbers (with an optional sign), logicals,
/// strings, and (nested) arrays or tuples of them.
///
/// Errors ([`NnefError`] with the line:col in the text): syntax errors (from
/// [`crate::parser::parse_quantization`]), a positional argument, an argument given twice, a
/// tensor named twice, or a value that is not a literal constant.
pub fn parse_quantization_entries(
    text: &str,
) -> Result<BTreeMap<String, QuantizationEntry>, NnefError> {
    let mut out = BTreeMap::new();
    for (tensor, invocation, span) in crate::parser::parse_quantization(text)? {
        let mut attributes = BTreeMap::new();
        for argument in &invocation.arguments {
            let Some((name, name_span)) = &argument.name else {
                return Err(NnefError::data(
                    argument.value.span,
                    format!(
                        "arguments of `{}` in graph.quant must be named",
                        invocation.name
                    ),
                ));
            };
            let value = constant(&argument.value)?;
            if attributes.insert(name.clone(), value).is_some() {
                return Err(NnefError::data(
                    *name_span,
                    format!("argument `{name}` given twice"),
                ));
            }
        }
        if out
            .insert(tensor.clone(), (invocation.name.clone(), attributes))
            .is_some()
        {
            return Err(NnefError::data(
                span,
                format!("tensor \"{tensor}\" is quantized twice"),
            ));
        }
    }
    Ok(out)
}

/// The value of a literal constant expression.
fn constant(expr: &crate::ast::Expr) -> Result<Value, NnefError> {
    use crate::ast::UnaryOp;
    Ok(match &expr.kind {
        ExprKind::Integer(i) => Value::Integer(*i),
        ExprKind::Scalar(x) => Value::Scalar(*x),
        ExprKind::Logical(b) => Value::Logical(*b),
        ExprKind::String(s) => Value::String(s.clone()),
        ExprKind::Array(items) => {
            Value::Array(items.iter().map(constant).collect::<Result<_, _>>()?)
        }
        ExprKind::Tuple(items) => {
            Value::Tuple(items.iter().map(constant).collect::<Result<_, _>>()?)
        }
        ExprKind::Unary(op @ (UnaryOp::Minus | UnaryOp::Plus), inner) => {
            let negate = *op == UnaryOp::Minus;
            match constant(inner)? {
                Value::Integer(i) if negate => {
                    Value::Integer(i.checked_neg().ok_or_else(|| {
                        NnefError::data(expr.span, "integer overflow in negation")
                    })?)
                }
                Value::Scalar(x) if negate => Value::Scalar(-x),
                v @ (Value::Integer(_) | Value::Scalar(_)) => v,
                _ => {
                    return Err(NnefError::data(
                        expr.span,
                        "a sign applies only to a number",
                    ))
                }
            }
        }
        ExprKind::Unary(_, inner) => match constant(inner)? {
            Value::Logical(b) => Value::Logical(!b),
            _ => return Err(NnefError::data(expr.span, "`!` applies only to a logical")),
        },
        _ => return Err(NnefError::data(
            expr.span,
            "graph.quant attributes must be literal constants (numbers, logicals, strings, arrays)",
        )),
    })
}

impl GraphSource {
    /// The entries of `graph.quant` (empty when there is none); see
    /// [`parse_quantization_entries`].
    ///
    /// Errors: those of [`parse_quantization_entries`], naming `graph.quant`.
    pub fn quantization_entries(&self) -> Result<BTreeMap<String, QuantizationEntry>, LoadError> {
        match &self.quantization {
            None => Ok(BTreeMap::new()),
            Some(text) => parse_quantization_entries(text)
                .map_err(|e| LoadError::new(self.file_name(QUANT_FILE), e)),
        }
    }

    /// Attaches the `graph.quant` entries to the tensors of `graph` ([`crate::graph::Tensor::quantization`]).
    ///
    /// Errors (naming `graph.quant`): those of [`GraphSource::quantization_entries`]; an entry for a
    /// tensor the graph does not have; an entry whose fragment is not a standard quantization
    /// fragment (`linear_quantize`, `logarithmic_quantize`, `min_max_linear_quantize`,
    /// `zero_point_linear_quantize`).
    pub fn apply_quantization(&self, graph: &mut crate::graph::Graph) -> Result<(), LoadError> {
        const FRAGMENTS: [&str; 4] = [
            "linear_quantize",
            "logarithmic_quantize",
            "min_max_linear_quantize",
            "zero_point_linear_quantize",
        ];
        for (tensor, (fragment, attributes)) in self.quantization_entries()? {
            if !FRAGMENTS.contains(&fragment.as_str()) {
                return Err(LoadError::message(
                    self.file_name(QUANT_FILE),
                    format!("'{tensor}': '{fragment}' is not a quantization fragment (expected one of {})", FRAGMENTS.join(", ")),
                ));
            }
            let Some(t) = graph.tensors.get_mut(&tensor) else {
                return Err(LoadError::message(
                    self.file_name(QUANT_FILE),
                    format!("'{tensor}' is not a tensor of graph '{}'", graph.name),
                ));
            };
            t.quantization = Some((fragment, attributes));
        }
        Ok(())
    }

    /// How errors name a file of this source.
    fn file_name(&self, relative: &str) -> String {
        match self.kind {
            SourceKind::Document => self.path.display().to_string(),
            SourceKind::Folder => self.path.join(relative).display().to_string(),
            SourceKind::Archive => format!("{}:{relative}", self.path.display()),
        }
    }

    /// The value of the variable `tensor` with label `label`: its `.dat` file when the source
    /// has one, otherwise [`crate::weights::generate`]`(label, shape, dtype, role, seed)`.
    ///
    /// A `.dat` file must hold the tensor's shape (up to trailing extents of 1) and an item type
    /// of its data type (§5.2.1); quantized items are dequantized to f32 with the tensor's
    /// `graph.quant` entry ([`Tensor::quantization`]) or, failing that, the deprecated range in
    /// the file header.
    ///
    /// Errors ([`LoadError`] naming the `.dat` file): a shape or type mismatch, a quantized file
    /// without quantization, or a quantization that cannot be applied.
    pub fn variable_value(
        &self,
        label: &str,
        tensor: &Tensor,
        role: WeightRole,
        seed: u64,
    ) -> Result<Literal, LoadError> {
        let Some(file) = self.variables.get(label) else {
            return Ok(generate(label, &tensor.shape, tensor.dtype, role, seed));
        };
        let name = self.file_name(&format!("{label}.dat"));
        let fail = |e: NnefError| LoadError::new(name.clone(), e);
        let quantized = matches!(
            file.item_type,
            crate::dat::ItemType::QuantizedSigned | crate::dat::ItemType::QuantizedUnsigned
        );
        if !quantized {
            return file
                .to_literal_with_shape(tensor.dtype, &tensor.shape)
                .map_err(fail);
        }
        if tensor.dtype != crate::graph::DataType::Scalar {
            return Err(LoadError::message(
                name,
                format!(
                    "quantized items cannot hold a tensor of type {} (NNEF 1.0.5 §5.2.1)",
                    tensor.dtype.name()
                ),
            ));
        }
        if !crate::dat::same_shape(&file.shape, &tensor.shape) {
            return Err(LoadError::message(
                name,
                format!(
                    "the file holds a tensor of shape {:?}, the graph declares {:?}",
                    file.shape, tensor.shape
                ),
            ));
        }
        let quantization = match (&tensor.quantization, file.legacy_quantization_range()) {
            (Some((fragment, attributes)), _) => {
                Quantization::from_attributes(fragment, attributes).map_err(fail)?
            }
            (None, Some((min, max))) => Quantization::Legacy { min, max },
            (None, None) => {
                return Err(LoadError::message(
                    name,
                    format!(
                        "quantized items but no quantization for tensor `{}` in graph.quant",
                        tensor.name
                    ),
                ))
            }
        };
        let literal = file.dequantize(&quantization).map_err(fail)?;
        crate::dat::reshape(literal, &tensor.shape).map_err(fail)
    }
}
