//! Reading the text files the CLI takes (HLO, corpus and catalog YAML, results files): one
//! helper, so that every command says the same thing about a file that cannot be read or is not
//! UTF-8 — `FILE: not UTF-8 at byte N` names the offset of the first invalid byte.

use std::path::Path;

/// Reads `path` as UTF-8 text.
///
/// Errors (as a message naming the file): `FILE: cannot read: REASON` when the file cannot be
/// read, `FILE: not UTF-8 at byte N (...)` when its bytes are not UTF-8, N being the offset of
/// the first invalid byte (counted from 0).
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    decode_text(&path.display().to_string(), bytes)
}

/// Decodes `bytes` read from the file `name` as UTF-8.
///
/// Errors: `NAME: not UTF-8 at byte N (...)`, N being the offset of the first invalid byte.
pub fn decode_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let byte = e.as_bytes()[at];
        let (line, column) = line_column(&e.as_bytes()[..at]);
        format!(
            "{name}: not UTF-8 at byte {at} (0x{byte:02x}, line {line} column {column}): expected UTF-8 text"
        )
    })
}

/// 1-based line and column (in characters) just after the valid UTF-8 prefix `valid`.
fn line_column(valid: &[u8]) -> (usize, usize) {
    // `valid` is the prefix `Utf8Error::valid_up_to` vouches for.
    let text = std::str::from_utf8(valid).unwrap_or("");
    let line = text.matches('\n').count() + 1;
    let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_offset_line_and_column_of_the_first_invalid_byte() {
        let e = decode_text("m.hlo", b"HloModule m\nENTRY \xffmain".to_vec()).unwrap_err();
        assert_eq!(
            e,
            "m.hlo: not UTF-8 at byte 18 (0xff, line 2 column 7): expected UTF-8 text"
        );
        // A truncated multi-byte sequence: the offset is where it starts.
        let e = decode_text("x", "é".as_bytes()[..1].to_vec()).unwrap_err();
        assert!(e.starts_with("x: not UTF-8 at byte 0 (0xc3"), "{e}");
        assert_eq!(decode_text("x", "ok é".into()).unwrap(), "ok é");
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = read_text(Path::new("/no/such/file.hlo")).unwrap_err();
        assert!(e.starts_with("/no/such/file.hlo: cannot read:"), "{e}");
    }
}
