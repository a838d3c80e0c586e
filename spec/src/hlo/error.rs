//! The error type of HLO text parsing.

/// An error in HLO text, at a 1-based `line` and `column` (columns count characters, not bytes).
///
/// Displays as `line:col: message`; messages say what was expected and what was found, e.g.
/// "expected `=` after instruction name, found `(`".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct HloParseError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl HloParseError {
    /// An error at a byte offset of `src` (clamped to the text; rounded down to a character boundary).
    pub fn at(src: &str, offset: usize, message: impl Into<String>) -> HloParseError {
        let (line, column) = line_col(src, offset);
        HloParseError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// The 1-based (line, column) of a byte offset; columns count characters.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_in_characters() {
        let src = "ab\ncdé f\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 2), (1, 3));
        assert_eq!(line_col(src, 3), (2, 1));
        // 'é' is two bytes: the space after it is the 4th character of line 2.
        assert_eq!(line_col(src, 7), (2, 4));
        assert_eq!(line_col(src, 6), (2, 3)); // inside 'é': rounded down
        assert_eq!(line_col(src, 1000), (3, 1));
        let e = HloParseError::at(src, 3, "boom");
        assert_eq!(e.to_string(), "2:1: boom");
    }
}
