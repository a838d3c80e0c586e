//! Errors of the catalog loader: every one names `file:line:col` (1-based) and what was expected.

use std::fmt;

/// One problem at a place in a catalog file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file as given to the loader (a path, or a name such as `elementwise.yaml`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// Why a catalog could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// A file or directory could not be read (`load_dir`). There is no line in this case.
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// The text is not YAML, or not the shape of a catalog file: syntax errors, unknown fields
    /// (`deny_unknown_fields`), missing fields, values of the wrong type, duplicate keys.
    #[error("{0}")]
    Yaml(Diagnostic),
    /// The file is well-formed but its content is wrong (unknown opcode, mask or element type,
    /// duplicate id, special value of the wrong arity, example that does not parse, ...): every
    /// problem found, in file order. Never empty.
    #[error("{}", join_lines(.0))]
    Invalid(Vec<Diagnostic>),
}

fn join_lines(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(Diagnostic::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl CatalogError {
    /// Every located problem (none for `Io`).
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        match self {
            CatalogError::Io { .. } => vec![],
            CatalogError::Yaml(d) => vec![d],
            CatalogError::Invalid(ds) => ds.iter().collect(),
        }
    }

    /// The first located problem (none for `Io`).
    pub fn first(&self) -> Option<&Diagnostic> {
        self.diagnostics().into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_file_line_column() {
        let d = Diagnostic {
            file: "ops/x.yaml".into(),
            line: 3,
            column: 7,
            message: "unknown opcode `frob`".into(),
        };
        assert_eq!(d.to_string(), "ops/x.yaml:3:7: unknown opcode `frob`");
        let e = CatalogError::Invalid(vec![d.clone(), d.clone()]);
        assert_eq!(
            e.to_string(),
            "ops/x.yaml:3:7: unknown opcode `frob`\nops/x.yaml:3:7: unknown opcode `frob`"
        );
        assert_eq!(e.first(), Some(&d));
        assert_eq!(CatalogError::Yaml(d.clone()).diagnostics(), vec![&d]);
        let io = CatalogError::Io {
            path: "ops".into(),
            message: "not found".into(),
        };
        assert!(io.first().is_none());
        assert_eq!(io.to_string(), "ops: not found");
    }
}
