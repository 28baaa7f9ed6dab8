//! Parsers and renderers for the memory files, side by side. Each keeps the exact text it read
//! (`raw`), so whatever zo does not understand survives untouched; only new entries are rendered.

pub mod decision;
pub mod fields;
pub mod prior;
pub mod session;
pub mod state;

use sha2::{Digest, Sha256};

/// A file's text as read: BOM and line-end style remembered so appends match the file.
#[derive(Debug, Clone, Default)]
pub struct Text {
    pub text: String,
    pub bom: bool,
    pub crlf: bool,
}

impl Text {
    pub fn new(mut text: String) -> Text {
        let bom = text.starts_with('\u{feff}');
        if bom {
            text.drain(..3);
        }
        let crlf = text.find('\n').is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r');
        Text { text, bom, crlf }
    }

    /// The file's bytes with `addition` (written with `\n`) appended in the file's own style.
    pub fn with_appended(&self, addition: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + addition.len() + 8);
        if self.bom {
            out.push('\u{feff}');
        }
        out.push_str(&self.text);
        if self.crlf {
            out.push_str(&addition.replace('\n', "\r\n"));
        } else {
            out.push_str(addition);
        }
        out
    }

    /// What must go between the current text and a new entry: a line end, a blank line, and
    /// a `---` when the last entry was left without one.
    pub fn joint(&self, last_entry_separated: Option<bool>) -> &'static str {
        let t = self.text.as_str();
        let ends_nl = t.is_empty() || t.ends_with('\n');
        let ends_blank = t.is_empty() || t.ends_with("\n\n") || t.ends_with("\n\r\n");
        match (last_entry_separated, ends_nl, ends_blank) {
            (Some(false), true, true) => "---\n\n",
            (Some(false), true, false) => "\n---\n\n",
            (Some(false), false, _) => "\n\n---\n\n",
            (_, _, true) => "",
            (_, true, false) => "\n",
            (_, false, _) => "\n\n",
        }
    }
}

/// One entry's place in its file.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    /// 1-based line of the heading.
    pub line: usize,
}

/// Split `text` at lines for which `is_heading` holds. Returns the entries' spans; the
/// preamble is everything before the first. Headings are recognised even inside code fences
/// so a broken fence never hides the entries after it (zo escapes such lines when it writes).
pub fn split_entries(text: &str, is_heading: impl Fn(&str) -> bool) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if line.starts_with("##") && is_heading(fields::strip_eol(line)) {
            if let Some(last) = spans.last_mut() {
                last.end = offset;
            }
            spans.push(Span { start: offset, end: text.len(), line: i + 1 });
        }
        offset += line.len();
    }
    spans
}

/// An entry's content: the text up to its `---` separator, `\n` line ends, trailing space
/// trimmed. What hashes, derived IDs and the append-only check compare.
pub fn content_of(raw: &str) -> String {
    let mut fence = fields::Fence::default();
    let mut end = raw.len();
    let mut offset = 0;
    for (i, line) in raw.split_inclusive('\n').enumerate() {
        let l = fields::strip_eol(line);
        let in_fence = fence.feed(l);
        if i > 0 && !in_fence && fields::is_separator(l) {
            end = offset;
            break;
        }
        offset += line.len();
    }
    raw[..end].replace("\r\n", "\n").trim_end().to_string()
}

/// Hex SHA-256 of a string.
pub fn sha256_hex(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
