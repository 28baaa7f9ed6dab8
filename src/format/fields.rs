//! The line grammar shared by every memory file: `**Field:** value` lines, headings, `---`
//! separators and code fences, plus the escaping that lets any Markdown live inside a field.
//!
//! Why line-based and not a Markdown parser: a field line is inline text inside a paragraph
//! (`**Type:** X\n**Title:** Y` is one paragraph to CommonMark), and `---` under a text line is
//! a setext heading there. The files' own grammar is about lines, so we read lines, tracking
//! fences the way CommonMark does so hand-written code blocks never split an entry.
//!
//! Escaping: when zo writes a value, any line that would read back as structure (a field line,
//! a level 1–3 heading, a `---` separator, a fence left open) gets one leading backslash, and
//! so does any such line that already starts with backslashes. Reading strips exactly one. The
//! mapping is a bijection, so every value reads back byte for byte.

/// A line without its `\n` / `\r\n`.
pub fn strip_eol(line: &str) -> &str {
    let l = line.strip_suffix('\n').unwrap_or(line);
    l.strip_suffix('\r').unwrap_or(l)
}

/// `**Name:** rest` or `**Name**: rest` at column 0 → (name, rest after one space).
pub fn parse_field_line(line: &str) -> Option<(&str, &str)> {
    let body = line.strip_prefix("**")?;
    let close = body.find("**")?;
    let inner = &body[..close];
    let after = &body[close + 2..];
    let (name, rest) = if let Some(name) = inner.strip_suffix(':') {
        (name, after)
    } else {
        (inner, after.strip_prefix(':')?)
    };
    let name = name.trim_end();
    if name.is_empty() || name.starts_with(' ') || name.len() > 80 {
        return None;
    }
    Some((name, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// ATX heading of level 1..=max at column 0: `## Title` → Some((2, "Title")).
pub fn heading(line: &str, max: usize) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > max {
        return None;
    }
    let rest = &line[level..];
    if rest.is_empty() {
        return Some((level, ""));
    }
    if rest.starts_with(' ') || rest.starts_with('\t') {
        return Some((level, rest.trim()));
    }
    None
}

/// `---` (three or more dashes) alone at column 0: the entry separator.
pub fn is_separator(line: &str) -> bool {
    let t = line.trim_end();
    t.len() >= 3 && t.bytes().all(|b| b == b'-')
}

/// Whether a line opens or closes a code fence.
pub fn is_fence(line: &str) -> bool {
    fence_marker(line).is_some()
}

/// A fence delimiter (≤ 3 spaces, then ``` or ~~~): (char, run length, info string).
fn fence_marker(line: &str) -> Option<(u8, usize, &str)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == ch).count();
    if n < 3 {
        return None;
    }
    let info = &rest[n..];
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some((ch, n, info))
}

/// CommonMark fence state, fed one line at a time.
#[derive(Default, Clone, Copy)]
pub struct Fence {
    open: Option<(u8, usize)>,
}

impl Fence {
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Feed a line; returns whether it was inside a fence *before* this line.
    pub fn feed(&mut self, line: &str) -> bool {
        let was_open = self.open.is_some();
        match (self.open, fence_marker(line)) {
            (Some((ch, n)), Some((c, m, info))) if c == ch && m >= n && info.trim().is_empty() => {
                self.open = None
            }
            (None, Some((c, m, _))) => self.open = Some((c, m)),
            // A value written by hand to open a fence on its field line (`**Decision:** ```sql`):
            // the person means the block, and its closing line closes it. Read otherwise, that
            // line opened a fence that swallowed the entry's `---`, and a merge put a stray
            // separator inside the entry. zo's own writer never starts a value there.
            (None, None) => {
                if let Some((c, m, _)) =
                    parse_field_line(line).and_then(|(_, value)| fence_marker(value.trim_start()))
                {
                    self.open = Some((c, m));
                }
            }
            _ => {}
        }
        was_open
    }

    pub fn reset(&mut self) {
        self.open = None;
    }
}

/// Lines that mean structure outside a fence.
fn is_structural(line: &str) -> bool {
    parse_field_line(line).is_some() || heading(line, 3).is_some() || is_separator(line)
}

fn strip_backslashes(line: &str) -> &str {
    line.trim_start_matches('\\')
}

/// Whether a line (ignoring leading backslashes) is one the escape could have produced.
fn escapable(line: &str, in_fence: bool) -> bool {
    let s = strip_backslashes(line);
    if in_fence {
        // Inside a fence only headings matter: entry headings are recognised even there, so
        // a broken fence can never swallow the entries after it.
        heading(s, 3).is_some()
    } else {
        is_structural(s) || fence_marker(s).is_some()
    }
}

/// Escape a value for writing (see the module doc). `value` uses `\n` line ends.
pub fn escape_value(value: &str) -> String {
    let lines: Vec<&str> = value.split('\n').collect();
    // Fences left open would swallow the fields after this one: escape their opening lines
    // until the value is balanced.
    let mut forced = vec![false; lines.len()];
    loop {
        let mut fence = Fence::default();
        let mut opener = None;
        for (i, l) in lines.iter().enumerate() {
            if forced[i] {
                continue;
            }
            let was = fence.feed(l);
            if !was && fence.is_open() {
                opener = Some(i);
            }
        }
        match (fence.is_open(), opener) {
            (true, Some(i)) => forced[i] = true,
            _ => break,
        }
    }
    let mut fence = Fence::default();
    let mut out = String::with_capacity(value.len() + 16);
    for (i, l) in lines.iter().enumerate() {
        let in_fence = if forced[i] {
            fence.is_open()
        } else {
            fence.feed(l)
        };
        let needs = escapable(l, in_fence)
            && (l.starts_with('\\')
                || forced[i]
                || if in_fence {
                    heading(l, 3).is_some()
                } else {
                    is_structural(l)
                });
        if i > 0 {
            out.push('\n');
        }
        if needs {
            out.push('\\');
        }
        out.push_str(l);
    }
    out
}

/// Undo `escape_value` on one written line, given the fence state before it.
pub fn unescape_line(line: &str, in_fence: bool) -> &str {
    if line.starts_with('\\') && escapable(line, in_fence) {
        &line[1..]
    } else {
        line
    }
}

/// Whether a value can start on its field line (`**Name:** value`); otherwise it starts on
/// the next line so its first line gets the same treatment as the rest.
pub fn fits_on_field_line(value: &str) -> bool {
    let first = value.split('\n').next().unwrap_or("");
    !first.is_empty()
        && !first.starts_with(char::is_whitespace)
        && !first.starts_with('\\')
        && !escapable(first, false)
}

/// Normalise a value the way the reader will see it: `\n` line ends (a lone `\r` is one too,
/// or `\r\r\n` would keep a `\r\n` the reader takes for a line end), no leading blank lines,
/// no trailing whitespace.
pub fn normalize_value(value: &str) -> String {
    let v = value.replace("\r\n", "\n").replace('\r', "\n");
    let mut start = 0;
    for line in v.split_inclusive('\n') {
        if line.trim().is_empty() {
            start += line.len();
        } else {
            break;
        }
    }
    v[start..].trim_end().to_string()
}

/// Render one field the canonical way, with a trailing `\n`.
pub fn render_field(out: &mut String, name: &str, value: &str) {
    out.push_str("**");
    out.push_str(name);
    out.push_str(":**");
    if fits_on_field_line(value) {
        out.push(' ');
    } else {
        out.push('\n');
    }
    out.push_str(&escape_value(value));
    out.push('\n');
}

/// A field as read: its name as written, its value, and its 1-based line.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub value: String,
    pub line: usize,
}

/// A `### ` section inside an entry (priors' Rules and Verified Solution).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub heading: String,
    pub body: String,
    pub line: usize,
}

/// The parsed body of an entry: its fields and `###` sections. Prose outside them stays in the
/// entry's raw text only.
#[derive(Debug, Clone, Default)]
pub struct Body {
    pub fields: Vec<Field>,
    pub sections: Vec<Section>,
    /// Whether a `---` separator closed the entry.
    pub separated: bool,
}

impl Body {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
            .map(|f| f.value.as_str())
    }
}

enum Slot {
    None,
    Field(String, usize, String),
    Section(String, usize, String),
}

/// Parse the lines of an entry after its heading. `first_line` is the 1-based number of the
/// first of `lines`. With `sections`, `### ` headings open sections (priors); otherwise they
/// are content.
pub fn parse_body<'a>(
    lines: impl Iterator<Item = &'a str>,
    first_line: usize,
    sections: bool,
) -> Body {
    let mut body = Body::default();
    let mut fence = Fence::default();
    let mut slot = Slot::None;
    let mut first_of_value = false;

    fn close(body: &mut Body, slot: &mut Slot) {
        match std::mem::replace(slot, Slot::None) {
            Slot::None => {}
            Slot::Field(name, line, value) => body.fields.push(Field {
                name,
                value: normalize_value(&value),
                line,
            }),
            Slot::Section(heading, line, text) => body.sections.push(Section {
                heading,
                body: normalize_value(&text),
                line,
            }),
        }
    }

    for (i, raw) in lines.enumerate() {
        let line = strip_eol(raw);
        let n = first_line + i;
        if body.separated {
            break;
        }
        let in_fence = fence.feed(line);
        if !in_fence {
            if let Some((name, rest)) = parse_field_line(line) {
                if !matches!(slot, Slot::Section(..)) {
                    close(&mut body, &mut slot);
                    slot = Slot::Field(name.to_string(), n, rest.to_string());
                    first_of_value = !rest.trim().is_empty();
                    continue;
                }
            }
            if is_separator(line) {
                close(&mut body, &mut slot);
                body.separated = true;
                continue;
            }
            if sections {
                if let Some((3, title)) = heading(line, 3) {
                    close(&mut body, &mut slot);
                    slot = Slot::Section(title.to_string(), n, String::new());
                    continue;
                }
            }
        }
        let text = unescape_line(line, in_fence);
        match &mut slot {
            Slot::None => {}
            Slot::Field(_, _, v) | Slot::Section(_, _, v) => {
                if first_of_value || !v.is_empty() {
                    v.push('\n');
                }
                first_of_value = false;
                v.push_str(text);
            }
        }
    }
    close(&mut body, &mut slot);
    body
}

/// How an allowance the gate granted is recorded in an entry: a directive rule
/// (`directive:<rule>`) as `**Allowed directive:** <rule>`, a secret's hash as `**Allowed
/// secret:** sha256:…` (SPEC §3). (field name, value)
pub fn allowance_field(recorded: &str) -> (&'static str, &str) {
    match recorded.strip_prefix(DIRECTIVE_PREFIX) {
        Some(rule) => ("Allowed directive", rule),
        None => ("Allowed secret", recorded),
    }
}

/// How a directive allowance is kept among an entry's allowances.
pub const DIRECTIVE_PREFIX: &str = "directive:";

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &str) -> String {
        let mut s = String::new();
        render_field(&mut s, "Decision", v);
        let body = parse_body(s.split_inclusive('\n'), 1, false);
        assert_eq!(body.fields.len(), 1, "split into several fields: {s:?}");
        body.fields[0].value.clone()
    }

    #[test]
    fn field_lines_both_colon_styles() {
        assert_eq!(
            parse_field_line("**Title:** Use Hono"),
            Some(("Title", "Use Hono"))
        );
        assert_eq!(
            parse_field_line("**Timestamp**: 2026"),
            Some(("Timestamp", "2026"))
        );
        assert_eq!(parse_field_line("**Keep stderr.** text"), None);
        assert_eq!(parse_field_line("  **Title:** x"), None);
    }

    #[test]
    fn structural_lines_in_values_read_back_unchanged() {
        for v in [
            "## Decision: 2026-01-01T00:00:00Z\n**Title:** fake\n---\nafter",
            "text\n\n```\n## Decision: inside\n**ID:** D-00000000\n---\n```\nmore",
            "```\nunclosed fence\n**Outcome:** not a field",
            "\\**Title:** already escaped\n\\\\---\n\\```",
            "~~~\n```\n~~~\n```",
            "# H1\n### H3\n#### H4 stays",
            "    indented code first\n---",
            "```rust\nfn main() {}\n```",
        ] {
            assert_eq!(roundtrip(v), v);
        }
    }

    #[test]
    fn hand_written_fences_hide_structure() {
        let text = "**Decision:** see\n```\n**Title:** x\n---\n```\n**Outcome:** ok\n";
        let body = parse_body(text.split_inclusive('\n'), 1, false);
        assert_eq!(body.fields.len(), 2);
        assert_eq!(body.fields[0].value, "see\n```\n**Title:** x\n---\n```");
    }
}
