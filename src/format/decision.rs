//! DECISION_LOG.md: append-only decisions (SPEC §2).

use super::fields::{self, Body};
use super::{Span, Text, content_of, sha256_hex, split_entries};
use std::cell::OnceCell;
use std::collections::HashMap;

/// One decision entry as read. The fields every listing needs are read eagerly by a cheap
/// scan; the full field parse (`DecisionLog::body`) happens only for entries that are shown,
/// checked or compared, so a 10,000-entry log lists in milliseconds.
#[derive(Debug, Clone)]
pub struct Decision {
    pub span: Span,
    pub id: String,
    /// True when the entry has no `**ID:**` and `id` was derived from its text.
    pub id_derived: bool,
    pub timestamp: String,
    pub title: String,
    pub kind: String,
    pub supersedes: Option<String>,
    pub refs: Option<String>,
    /// Whether a `---` separator closed the entry.
    pub separated: bool,
    body: OnceCell<Body>,
}

/// The whole log: the text, its entries, and the relations between them.
#[derive(Debug, Clone, Default)]
pub struct DecisionLog {
    pub text: Text,
    pub entries: Vec<Decision>,
    by_id: HashMap<String, usize>,
    superseded_by: HashMap<usize, usize>,
    /// Outcome entries for a decision, in file order.
    outcomes: HashMap<usize, Vec<usize>>,
}

/// `## Decision: …` (any case) at column 0.
pub fn is_heading(line: &str) -> bool {
    match fields::heading(line, 2) {
        Some((2, t)) => {
            t.len() >= 8 && t[..8].eq_ignore_ascii_case("decision") && {
                let rest = &t[8..];
                rest.is_empty() || rest.starts_with(':') || rest.starts_with(' ')
            }
        }
        _ => false,
    }
}

/// IDs named in a `Supersedes`/`Refs` value: `D-…` tokens, or a bare timestamp for logs that
/// refer to entries by their heading time.
pub fn referenced_ids(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace() || c == ';')
        .map(|t| t.trim_matches(|c: char| c == '`' || c == '(' || c == ')' || c == '.'))
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("null") && !t.eq_ignore_ascii_case("none"))
        .map(str::to_string)
        .collect()
}

/// The fields the cheap scan reads.
const KEY_FIELDS: [&str; 7] = ["ID", "Type", "Title", "Timestamp", "Date", "Supersedes", "Refs"];

/// Key fields read without walking every line: `\n**` hits are the only field candidates.
/// Exact when the entry has no code fence and every key field fits on its own line (the
/// canonical form); returns None otherwise, and the caller does the full parse.
fn scan_keys(raw: &str) -> Option<([Option<&str>; 7], bool)> {
    use memchr::memmem;
    use std::sync::OnceLock;
    static FINDERS: OnceLock<[memmem::Finder<'static>; 4]> = OnceLock::new();
    let [ticks, tildes, sep, field] = FINDERS.get_or_init(|| {
        [memmem::Finder::new("```"), memmem::Finder::new("~~~"), memmem::Finder::new("\n---"), memmem::Finder::new("\n**")]
    });
    let bytes = raw.as_bytes();
    if ticks.find(bytes).is_some() || tildes.find(bytes).is_some() {
        return None;
    }
    let line_at = |at: usize| -> &str {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(raw.len(), |i| at + i + 1);
        &raw[at..end]
    };
    let (mut end, mut separated) = (raw.len(), false);
    for pos in sep.find_iter(bytes) {
        if fields::is_separator(fields::strip_eol(line_at(pos + 1))) {
            (end, separated) = (pos + 1, true);
            break;
        }
    }
    let body = &raw[..end];
    let mut found: [Option<&str>; 7] = [None; 7];
    // After a key field's line, only blank lines may come before the next field line;
    // anything else makes its value multi-line.
    let mut open_key: Option<usize> = None;
    for pos in field.find_iter(&bytes[..end]) {
        let start = pos + 1;
        let line = line_at(start);
        let Some((name, rest)) = fields::parse_field_line(fields::strip_eol(line)) else { continue };
        if let Some(after) = open_key.take() {
            if !body[after..start].trim().is_empty() {
                return None;
            }
        }
        if let Some(k) = KEY_FIELDS.iter().position(|k| k.eq_ignore_ascii_case(name)) {
            if found[k].is_none() {
                if rest.trim().is_empty() {
                    return None;
                }
                found[k] = Some(rest.trim_end());
                open_key = Some(start + line.len());
            }
        }
    }
    if let Some(after) = open_key {
        if !body[after.min(end)..].trim().is_empty() {
            return None;
        }
    }
    Some((found, separated))
}

impl Decision {
    fn parse(text: &str, span: Span) -> Decision {
        let raw = &text[span.start..span.end];
        let head = fields::strip_eol(raw.split_inclusive('\n').next().unwrap_or(""));
        let head_text = fields::heading(head, 2).map(|(_, t)| t).unwrap_or("");
        let after = head_text[8.min(head_text.len())..].trim_start_matches(':').trim();
        let body = OnceCell::new();
        let (keys, separated): ([Option<String>; 7], bool) = match scan_keys(raw) {
            Some((found, separated)) => (found.map(|v| v.map(str::to_string)), separated),
            None => {
                let b = parse_full(raw, span.line);
                let keys = KEY_FIELDS.map(|k| b.get(k).map(str::to_string));
                let separated = b.separated;
                let _ = body.set(b);
                (keys, separated)
            }
        };
        let [id, kind, title, ts, date, supersedes, refs] = keys;
        // `## Decision: <timestamp>` is canonical; `## Decision: <title>` with a Timestamp
        // field is the older form.
        let (timestamp, heading_title) = if crate::time::starts_with_date(after) {
            (after.to_string(), None)
        } else {
            (ts.or(date).unwrap_or_default(), Some(after))
        };
        let title = title
            .or_else(|| heading_title.filter(|t| !t.is_empty()).map(str::to_string))
            .unwrap_or_default();
        let kind = kind.map(|k| k.trim().to_string()).unwrap_or_default();
        let (id, id_derived) = match id.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()) {
            Some(id) => (id, false),
            None => (derived_id(raw), true),
        };
        Decision { span, id, id_derived, timestamp, title, kind, supersedes, refs, separated, body }
    }

    /// The entry exactly as it stands in the file.
    pub fn raw<'a>(&self, log: &'a DecisionLog) -> &'a str {
        &log.text.as_str()[self.span.start..self.span.end]
    }

    /// The entry's text without its separator and trailing space: what recall returns.
    pub fn content(&self, log: &DecisionLog) -> String {
        content_of(self.raw(log))
    }

    pub fn is_outcome(&self) -> bool {
        self.kind.eq_ignore_ascii_case("OUTCOME")
    }

    /// The date part of the timestamp (may be empty).
    pub fn date(&self) -> &str {
        if crate::time::starts_with_date(&self.timestamp) { &self.timestamp[..10] } else { "" }
    }
}

fn parse_full(raw: &str, line: usize) -> Body {
    let mut lines = raw.split_inclusive('\n');
    lines.next();
    fields::parse_body(lines, line + 1, false)
}

/// Stable ID for an entry written without one: a hash of its own content.
pub fn derived_id(raw: &str) -> String {
    format!("D-{}", &sha256_hex(&content_of(raw))[..8])
}

impl DecisionLog {
    pub fn parse(text: Text) -> DecisionLog {
        let spans = split_entries(text.as_str(), is_heading);
        let entries: Vec<Decision> = spans.into_iter().map(|s| Decision::parse(text.as_str(), s)).collect();
        let mut log = DecisionLog { text, entries, ..Default::default() };
        log.link();
        log
    }

    fn link(&mut self) {
        for (i, e) in self.entries.iter().enumerate() {
            // First occurrence wins; `verify` reports duplicates.
            self.by_id.entry(e.id.clone()).or_insert(i);
        }
        // Older logs refer to entries by heading timestamp; let those resolve too.
        let mut by_ts: HashMap<&str, usize> = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            if !e.timestamp.is_empty() {
                by_ts.entry(e.timestamp.as_str()).or_insert(i);
            }
        }
        let resolve = |r: &str| self.by_id.get(r).or_else(|| by_ts.get(r)).copied();
        let mut superseded_by = HashMap::new();
        let mut outcomes: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(v) = &e.supersedes {
                for r in referenced_ids(v) {
                    if let Some(t) = resolve(&r) {
                        if t != i {
                            superseded_by.insert(t, i);
                        }
                    }
                }
            }
            if e.is_outcome() {
                if let Some(v) = &e.refs {
                    for r in referenced_ids(v) {
                        if let Some(t) = resolve(&r) {
                            outcomes.entry(t).or_default().push(i);
                        }
                    }
                }
            }
        }
        self.superseded_by = superseded_by;
        self.outcomes = outcomes;
    }

    /// Index of an entry by exact ID, by heading timestamp, or by a unique ID prefix (any case).
    pub fn find(&self, query: &str) -> Result<usize, FindError> {
        let q = query.trim();
        if let Some(&i) = self.by_id.get(q) {
            return Ok(i);
        }
        let ql = q.to_ascii_lowercase();
        let hits: Vec<usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.id.to_ascii_lowercase().starts_with(&ql) || e.timestamp == q)
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(FindError::NotFound),
            many => Err(FindError::Ambiguous(many.iter().map(|&i| self.entries[i].id.clone()).collect())),
        }
    }

    pub fn superseded_by(&self, i: usize) -> Option<&Decision> {
        self.superseded_by.get(&i).map(|&j| &self.entries[j])
    }

    /// The full fields of entry `i` (parsed on first use).
    pub fn body(&self, i: usize) -> &Body {
        let e = &self.entries[i];
        e.body.get_or_init(|| parse_full(e.raw(self), e.span.line))
    }

    pub fn field(&self, i: usize, name: &str) -> Option<&str> {
        self.body(i).get(name)
    }

    /// The latest OUTCOME entry for a decision, if any.
    pub fn latest_outcome_entry(&self, i: usize) -> Option<usize> {
        self.outcomes.get(&i).and_then(|v| v.last()).copied()
    }

    /// The decision's latest outcome: from the last OUTCOME entry, else its own field.
    pub fn latest_outcome(&self, i: usize) -> Option<&str> {
        self.latest_outcome_entry(i)
            .and_then(|o| self.field(o, "Outcome"))
            .or_else(|| self.field(i, "Outcome"))
    }

    pub fn status(&self, i: usize) -> &'static str {
        if self.superseded_by.contains_key(&i) { "superseded" } else { "active" }
    }

    /// Whether the last entry ended with a `---` (None when the log has no entries).
    pub fn last_separated(&self) -> Option<bool> {
        self.entries.last().map(|e| e.separated)
    }
}

#[derive(Debug)]
pub enum FindError {
    NotFound,
    Ambiguous(Vec<String>),
}

/// A decision about to be written. Values are already normalised and checked by the gate.
#[derive(Debug, Clone, Default)]
pub struct NewDecision {
    pub id: String,
    pub timestamp: String,
    pub kind: String,
    pub title: String,
    pub decision: String,
    pub rationale: String,
    pub alternatives: String,
    pub outcome: String,
    pub supersedes: String,
    pub refs: String,
    pub tags: String,
    pub session: String,
}

impl NewDecision {
    /// The fields in canonical order, skipping empty optional ones.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let mut v = vec![("ID", self.id.as_str()), ("Type", self.kind.as_str()), ("Title", self.title.as_str())];
        let optional = [
            ("Decision", &self.decision),
            ("Rationale", &self.rationale),
            ("Alternatives considered", &self.alternatives),
            ("Refs", &self.refs),
            ("Outcome", &self.outcome),
            ("Supersedes", &self.supersedes),
            ("Tags", &self.tags),
            ("Session", &self.session),
        ];
        v.extend(optional.into_iter().filter(|(_, s)| !s.is_empty()).map(|(k, s)| (k, s.as_str())));
        v
    }

    /// The canonical entry text, ending with its separator and a blank line.
    pub fn render(&self) -> String {
        let mut out = format!("## Decision: {}\n", self.timestamp);
        for (name, value) in self.fields() {
            fields::render_field(&mut out, name, value);
        }
        out.push_str("\n---\n\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> NewDecision {
        NewDecision {
            id: "D-7f3a9c2e".into(),
            timestamp: "2026-11-21T15:04:05Z".into(),
            kind: "ARCHITECTURE".into(),
            title: "Use Hono instead of Express for the API".into(),
            decision: "Hono.\n\n## Decision: 2020-01-01T00:00:00Z\n**Title:** injected\n---\n```\n**ID:** x\n```".into(),
            rationale: "Faster.".into(),
            alternatives: "(1) Express (2) Fastify".into(),
            outcome: "pending".into(),
            tags: "backend, api".into(),
            ..Default::default()
        }
    }

    #[test]
    fn canonical_entry_round_trips_byte_for_byte() {
        let new = sample();
        let text = format!("# DECISION_LOG\n\n{}", new.render());
        let log = DecisionLog::parse(Text::new(text.clone()));
        assert_eq!(log.entries.len(), 1);
        let e = &log.entries[0];
        assert_eq!(e.id, "D-7f3a9c2e");
        assert!(!e.id_derived);
        assert_eq!(log.field(0, "Decision"), Some(new.decision.as_str()));
        assert_eq!(e.title, new.title);
        let again = NewDecision {
            decision: log.field(0, "Decision").unwrap().into(),
            ..sample()
        };
        assert_eq!(again.render(), e.raw(&log));
    }

    #[test]
    fn older_forms_are_read() {
        let text = "\u{feff}# Log\r\n\r\n## Decision: Use Postgres\r\n**Timestamp**: 2025-01-02T03:04:05Z\r\n**Decision**: yes\r\n## Decision: 2025-02-01T00:00:00Z\r\n**Title:** Second\r\n";
        let log = DecisionLog::parse(Text::new(text.into()));
        assert!(log.text.bom && log.text.crlf);
        assert_eq!(log.entries.len(), 2);
        assert_eq!(log.entries[0].title, "Use Postgres");
        assert_eq!(log.entries[0].timestamp, "2025-01-02T03:04:05Z");
        assert_eq!(log.field(0, "Decision"), Some("yes"));
        assert!(log.entries[0].id_derived);
        assert_eq!(log.entries[1].title, "Second");
    }

    /// The cheap key scan must agree with the full parse wherever it answers.
    #[test]
    fn key_scan_agrees_with_full_parse() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![std::fs::read_to_string(root.join(".zo-example/memory/DECISION_LOG.md")).unwrap()];
        if let Ok(t) = std::fs::read_to_string(root.join("../shared/fixtures/zero-operators-memory/DECISION_LOG.md")) {
            texts.push(t);
        }
        texts.push("## Decision: 2026-01-01T00:00:00Z\n**Title:** two\nlines\n**ID:** D-1\n".into());
        texts.push("## Decision: 2026-01-01T00:00:00Z\n**Title:** t\n\n**Type:** X\n\nprose\n\n---\n**Refs:** after\n".into());
        let mut scanned = 0;
        for text in texts {
            let log = DecisionLog::parse(Text::new(text));
            for (i, e) in log.entries.iter().enumerate() {
                let raw = e.raw(&log);
                let full = parse_full(raw, e.span.line);
                if let Some((found, separated)) = scan_keys(raw) {
                    scanned += 1;
                    assert_eq!(separated, full.separated, "{raw}");
                    for (k, v) in KEY_FIELDS.iter().zip(found) {
                        assert_eq!(v, full.get(k), "{k} in {raw}");
                    }
                }
                assert_eq!(log.field(i, "Title").unwrap_or(""), full.get("Title").unwrap_or(""));
            }
        }
        assert!(scanned > 10);
    }

    #[test]
    fn supersedes_and_outcomes_link() {
        let mut a = sample();
        a.decision = "a".into();
        let mut b = sample();
        b.id = "D-00000002".into();
        b.supersedes = "D-7f3a9c2e".into();
        let o = NewDecision {
            id: "D-00000003".into(),
            timestamp: "2026-11-22T00:00:00Z".into(),
            kind: "OUTCOME".into(),
            title: "Outcome".into(),
            refs: "D-00000002".into(),
            outcome: "shipped".into(),
            ..Default::default()
        };
        let text = format!("{}{}{}", a.render(), b.render(), o.render());
        let log = DecisionLog::parse(Text::new(text));
        assert_eq!(log.status(0), "superseded");
        assert_eq!(log.superseded_by(0).unwrap().id, "D-00000002");
        assert_eq!(log.latest_outcome(1), Some("shipped"));
        assert_eq!(log.find("d-0000000").is_err(), true);
        assert_eq!(log.find("D-7f3a").unwrap(), 0);
    }
}
