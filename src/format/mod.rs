//! Parsers and renderers for the memory files, side by side. Each keeps the exact text it read
//! (`raw`), so whatever zo does not understand survives untouched; only new entries are rendered.
//!
//! - `fields` — the line grammar every file shares (`**Field:**` lines, headings, `---`,
//!   fences) and the escaping that lets any Markdown live in a field, read back byte for byte.
//! - `decision` — DECISION_LOG.md: `DecisionLog::parse`, statuses and supersession, and
//!   `NewDecision::render`; `decision/scan.rs` is the quick walk and the checks `decide` makes
//!   without a parse.
//! - `prior`, `fact`, `state`, `session` — PRIORS.md, FACTS.md, STATE.md and session files
//!   (`session::Rendered`, what a session's end writes).
//! - `snapshot` — phase snapshots: front matter, STATE (rendered as STATE.md renders it),
//!   decisions, handoff.
//! - here — `Text` (BOM and line ends remembered), the entry
//!   splitter, `tombstone` (what `zo forget` leaves in place of an entry of any kind), `Similar`.
//!
//! Invariants: parsing never fails (unknown text is kept; `zo verify` reports what does not
//! parse); every renderer's output parses back to what was rendered (round-trip tests here,
//! properties in `props`). This folder does no I/O and depends only on `time` and `named`.

pub mod decision;
pub mod fact;
pub mod fields;
pub mod prior;
pub mod session;
pub mod snapshot;
pub mod state;

/// What an entry is now: the one that holds (`active`), written below the promotion threshold
/// or as a proposal and not yet confirmed (`provisional`), replaced by a later one
/// (`superseded`), or erased (`forgotten`: its tombstone).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    #[default]
    Active,
    Provisional,
    Superseded,
    Forgotten,
}

crate::named!(Status { Active => "active", Provisional => "provisional", Superseded => "superseded", Forgotten => "forgotten" });

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

use sha2::{Digest, Sha256};

/// A file's text as read: BOM and line-end style remembered so appends match the file.
/// Always owned: a memory-mapped file that another process truncates kills the reader with
/// SIGBUS (seen 13 times in 30 on a large log), and a repository is not ours to trust.
#[derive(Debug, Clone, Default)]
pub struct Text {
    buf: String,
    pub bom: bool,
    pub crlf: bool,
}

impl Text {
    pub fn new(mut text: String) -> Text {
        let bom = text.starts_with('\u{feff}');
        if bom {
            text.drain(..3);
        }
        let crlf = detect_crlf(&text);
        Text {
            buf: text,
            bom,
            crlf,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.buf
    }

    /// The same file style (BOM, line ends) around other text.
    pub fn with_text(&self, text: String) -> Text {
        Text {
            buf: text,
            bom: self.bom,
            crlf: self.crlf,
        }
    }

    /// The file's bytes with `addition` (written with `\n`) appended in the file's own style.
    pub fn with_appended(&self, addition: &str) -> String {
        let text = self.as_str();
        let mut out = String::with_capacity(text.len() + addition.len() + 8);
        if self.bom {
            out.push('\u{feff}');
        }
        out.push_str(text);
        if self.crlf {
            out.push_str(&addition.replace('\n', "\r\n"));
        } else {
            out.push_str(addition);
        }
        out
    }

    /// The pieces of the file with `addition` appended, in the file's own style, without
    /// copying the existing text (see `fsio::write_atomic_parts`).
    pub fn appended_parts<'a>(&'a self, addition: &str) -> [std::borrow::Cow<'a, [u8]>; 3] {
        use std::borrow::Cow;
        let bom: &[u8] = if self.bom { "\u{feff}".as_bytes() } else { b"" };
        let add = if self.crlf {
            addition.replace('\n', "\r\n")
        } else {
            addition.to_string()
        };
        [
            Cow::Borrowed(bom),
            Cow::Borrowed(self.as_str().as_bytes()),
            Cow::Owned(add.into_bytes()),
        ]
    }

    /// What must go between the current text and a new entry: a line end, a blank line, and
    /// a `---` when the last entry was left without one.
    pub fn joint(&self, last_entry_separated: Option<bool>) -> &'static str {
        let t = self.as_str();
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

fn detect_crlf(text: &str) -> bool {
    text.find('\n')
        .is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// One entry's place in its file.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    /// 1-based line of the heading.
    pub line: usize,
}

/// Byte offsets of the lines that start with `prefix`, in order, found without walking every
/// line.
/// The one line a fact or prior entry is shown as in the bundle and lists (`- key = value`,
/// `- PR-001 title (root cause)`), from its text: fields a reader sees side by side, so the
/// directive rules read them together too (a command split between a fact's key and value
/// passed every check). None for other entries.
pub fn display_line(entry: &str) -> Option<String> {
    let mut lines = entry.lines();
    let head = lines.next()?.trim_end();
    let field = |name: &str| {
        entry.lines().find_map(|l| {
            fields::parse_field_line(l)
                .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_string())
        })
    };
    if let Some(key) = head.strip_prefix("## Fact: ") {
        return Some(format!(
            "- {} = {}",
            key.trim(),
            field("Value").unwrap_or_default()
        ));
    }
    let (id, title) = head
        .strip_prefix("## PR-")
        .and_then(|r| r.split_once(':'))?;
    Some(format!(
        "- PR-{id} {} ({})",
        title.trim(),
        field("Root cause category").unwrap_or_default()
    ))
}

/// A count with its noun in the right number: "1 outcome", "2 outcomes", "0 outcomes".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How far a decision's paths moved: "3 commits, 1 line".
pub fn moved(commits: usize, lines: u64) -> String {
    format!(
        "{}, {}",
        count(commits, "commit", "commits"),
        count(lines as usize, "line", "lines")
    )
}

pub fn line_starts<'a>(text: &'a str, prefix: &str) -> impl Iterator<Item = usize> + 'a {
    let bytes = text.as_bytes();
    let first = bytes.starts_with(prefix.as_bytes()).then_some(0);
    let after_newline = memchr::memmem::Finder::new(&format!("\n{prefix}")).into_owned();
    let mut from = 0;
    first.into_iter().chain(std::iter::from_fn(move || {
        let at = from + after_newline.find(&bytes[from..])? + 1;
        from = at;
        Some(at)
    }))
}

/// The line starting at byte `at`, without its line end.
pub fn line_at(text: &str, at: usize) -> &str {
    let end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1);
    fields::strip_eol(&text[at..end])
}

/// How far past a fenced heading the closing fence is looked for.
const FENCE_LOOKAHEAD: usize = 500;

/// Whether the heading line at byte `at` is text of a code block opened earlier in the entry
/// that starts at byte `entry`, rather than the start of a new entry. zo escapes such lines
/// when it writes, so only hand-written text gets here. A heading inside a fence is text when
/// the fence closes before any other entry heading and the end of the file: a hand-written
/// example of an entry inside a code block stays one entry. It always starts an entry when a
/// `---` line comes right before it (blank lines aside), or when the entry's fields had
/// already ended at a `---` outside a fence: that is where zo appends, so an entry zo writes
/// after a broken fence is always found.
/// A fence that never closes is broken, and the heading starts an entry, so a broken fence
/// never hides the entries after it. Both the key scan and `split_entries` decide with this
/// one function.
pub fn fenced_heading(
    text: &str,
    entry: usize,
    at: usize,
    is_heading: &dyn Fn(&str) -> bool,
) -> bool {
    let before = &text[entry..at];
    // Most entries hold no fence at all: nothing to replay.
    if memchr::memmem::find(before.as_bytes(), b"```").is_none()
        && memchr::memmem::find(before.as_bytes(), b"~~~").is_none()
    {
        return false;
    }
    if before
        .lines()
        .rev()
        .map(fields::strip_eol)
        .find(|l| !l.trim().is_empty())
        .is_some_and(fields::is_separator)
    {
        return false;
    }
    let mut fence = fields::Fence::default();
    for l in before.split_inclusive('\n').skip(1).map(fields::strip_eol) {
        if !fence.feed(l) && !fence.is_open() && fields::is_separator(l) {
            return false;
        }
    }
    if !fence.is_open() {
        return false;
    }
    for l in text[at..]
        .split_inclusive('\n')
        .skip(1)
        .take(FENCE_LOOKAHEAD)
        .map(fields::strip_eol)
    {
        // Any later heading ends the search, so text appended after the end (a new entry
        // always starts with a heading) never changes how the entries before it split.
        if is_heading(l) {
            return false;
        }
        fence.feed(l);
        if !fence.is_open() {
            return true;
        }
    }
    false
}

/// Split `text` at lines for which `is_heading` holds. Returns the entries' spans; the
/// preamble is everything before the first. A heading inside a code block of an entry is
/// text only as [`fenced_heading`] decides, so a broken fence never hides the entries after it.
pub fn split_entries(text: &str, is_heading: impl Fn(&str) -> bool) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut spans: Vec<Span> = Vec::new();
    let (mut line, mut counted) = (1, 0);
    // Only lines starting with `##` can be headings.
    for start in line_starts(text, "##") {
        if !is_heading(line_at(text, start)) {
            continue;
        }
        if spans
            .last()
            .is_some_and(|s| fenced_heading(text, s.start, start, &is_heading))
        {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &bytes[counted..start]).count();
        counted = start;
        if let Some(last) = spans.last_mut() {
            last.end = start;
        }
        spans.push(Span {
            start,
            end: text.len(),
            line,
        });
    }
    spans
}

/// An entry's content: the text up to its `---` separator, `\n` line ends, trailing space
/// trimmed. What hashes, derived IDs and the append-only check compare.
/// Whether `id` has the shape of an entry ID zo writes or reads (`D-7f3a9c2e`, `PR-046`,
/// `PR-h1a2b3c4d`, `F-…`): a prefix and up to 16 letters and digits. What a hand-written
/// `**ID:**` holds beyond that is not shown where zo names entries on lines of its own.
pub fn is_entry_id(id: &str) -> bool {
    let Some((prefix, rest)) = id.split_once('-') else {
        return false;
    };
    matches!(prefix, "D" | "PR" | "F")
        && (1..=16).contains(&rest.len())
        && rest.bytes().all(|b| b.is_ascii_alphanumeric())
}

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

/// Whether two texts are the same once case and runs of whitespace are ignored: duplicate
/// detection. Compares without allocating, since it runs against every entry of a large log.
pub fn same_folded(a: &str, b: &str) -> bool {
    fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
        s.split_whitespace().enumerate().flat_map(|(i, w)| {
            (i > 0)
                .then_some(' ')
                .into_iter()
                .chain(w.chars().flat_map(char::to_lowercase))
        })
    }
    folded(a).eq(folded(b))
}

/// An entry that looks like the one being written (the gate's near-duplicate check). Here
/// because a rendered decision carries the list back to its writer.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Similar {
    pub id: String,
    pub title: String,
    /// Word overlap of the two titles (Jaccard, 0 to 1).
    pub score: f64,
}

/// Hex SHA-256 of a string.
/// An entry's identity by what it says (provenance, SPEC §3a): its content (`content_of`), with
/// what zo changes in place taken out — a lesson's number, which a merge may renumber, and its
/// `Superseded by` line, which `prior supersede` sets — hashed (32 hex digits). Two entries
/// with one ID and different text have different keys; an edit gives a new one.
pub fn content_key(entry: &str) -> String {
    let content = content_of(entry);
    let text = prior::without_numbers(&prior::without_supersession(content.trim()));
    sha256_hex(&text)[..32].to_string()
}

pub fn sha256_hex(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The tombstone that replaces a forgotten entry of any kind: a heading and the fields that
/// are kept (ID, the links that hold other entries' status, when and why it was forgotten).
/// `zo verify` accepts a change from an entry to exactly its tombstone and nothing else.
pub fn tombstone(heading: &str, kept: &[(&str, &str)]) -> String {
    let mut out = format!("{heading}\n");
    for (name, value) in kept {
        if !value.trim().is_empty() {
            fields::render_field(&mut out, name, value.trim());
        }
    }
    out.push_str("\n---\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(text: &str) -> Vec<usize> {
        split_entries(text, |l| l.starts_with("## Decision"))
            .iter()
            .map(|s| s.line)
            .collect()
    }

    #[test]
    fn a_heading_in_a_closed_code_block_is_text_and_a_broken_fence_hides_nothing() {
        let e = "## Decision: t\n";
        // Closed before the entry ends: one entry.
        assert_eq!(
            heads(&format!(
                "{e}a\n```md\n{e}**ID:** x\n---\n```\nmore\n---\n\n{e}b\n"
            )),
            vec![1, 11]
        );
        // Never closed: every heading starts an entry.
        assert_eq!(
            heads(&format!("{e}a\n```\n---\n\n{e}b\n---\n\n{e}c\n")),
            vec![1, 6, 10]
        );
        // Closed only after the next heading: broken, so split.
        assert_eq!(
            heads(&format!("{e}a\n```\n---\n{e}b\n---\n\n{e}c\n```\n")),
            vec![1, 5, 9]
        );
        assert_eq!(
            heads(&format!("{e}a\n```\n{e}b\n{e}c\n```\n")),
            vec![1, 4, 6]
        );
        // Tildes, and a longer closing run.
        assert_eq!(heads(&format!("{e}~~~~\n{e}~~~~~\n---\n")), vec![1]);
        // The end of the file ends the entry: an unclosed fence there is broken.
        assert_eq!(heads(&format!("{e}```\n{e}x\n")), vec![1, 3]);
        // Where zo appends after a broken fence: after a `---`, or after the entry's fields
        // ended; the new entry's own code block does not hide it (found by proptest).
        assert_eq!(
            heads(&format!("{e}```\n---\n\n{e}x\n```\n```\n---\n")),
            vec![1, 5]
        );
        assert_eq!(
            heads(&format!("{e}a\n---\n```\n{e}x\n```\n```\n---\n")),
            vec![1, 5]
        );
    }

    #[test]
    fn folding_ignores_case_and_whitespace_runs_only() {
        assert!(same_folded(
            "Use  Hono\tfor the API ",
            "use hono FOR the\napi"
        ));
        assert!(same_folded("", "  "));
        assert!(!same_folded("Use Hono", "Use Honor"));
        assert!(!same_folded("a b", "ab"));
        assert!(same_folded("ÉTÉ Straße", "été straße"));
    }
}
