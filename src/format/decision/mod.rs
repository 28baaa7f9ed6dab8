//! DECISION_LOG.md: append-only decisions (SPEC §2).

use super::fields::{self, Body};
use super::{Span, Text, content_of, line_at, sha256_hex};
use std::cell::OnceCell;
use std::collections::HashMap;

mod scan;

use scan::{KEY_FIELDS, Keys, scan};
pub use scan::{last_separated, may_hold_title, mentions};

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
    /// The writer's confidence (`**Confidence:**`), when given.
    pub confidence: Option<f64>,
    /// Whether a `---` separator closed the entry.
    pub separated: bool,
    /// Boxed: most entries are never parsed in full, and 48 bytes less per entry is half a
    /// megabyte less to allocate and fault in for a 10,000-entry log on the hook path.
    body: OnceCell<Box<Body>>,
    /// The entry's text, read on first use, for a log restored from its summary (`Source`).
    piece: OnceCell<String>,
}

/// Where a log restored from its derived summary reads an entry's text on first use (the
/// store reads the span from the file the summary was proven fresh against): the hook path
/// reads only the entries it shows. A span that cannot be read gives empty text.
pub trait Source: std::fmt::Debug + Send + Sync {
    fn read(&self, start: usize, end: usize) -> String;
}

/// The whole log: the text, its entries, and the relations between them.
#[derive(Debug, Clone, Default)]
pub struct DecisionLog {
    pub text: Text,
    pub entries: Vec<Decision>,
    /// Entry by exact ID (the first of duplicates). Built by `link`; for a log restored with
    /// its links, only when something looks an ID up (the hook path mostly does not).
    by_id: OnceCell<HashMap<String, usize>>,
    superseded_by: HashMap<usize, usize>,
    /// Supersede cycles written by hand (A supersedes B supersedes A), each in chain order.
    /// Their members are not read as superseded: otherwise all of them would vanish.
    cycles: Vec<Vec<usize>>,
    /// Outcome entries for a decision, in file order.
    outcomes: HashMap<usize, Vec<usize>>,
    /// Decisions a CONFIRM entry refers to.
    confirmed: std::collections::HashSet<usize>,
    /// The promotion threshold (None: `DEFAULT_THRESHOLD`).
    threshold: Option<f64>,
    /// Set when the log was restored from its summary: `text` is then empty and each entry's
    /// text is read from here on first use.
    source: Option<std::sync::Arc<dyn Source>>,
    /// For a restored log: whether some line starts with `**Paths:**` (`may_name_paths`).
    names_paths: bool,
}

/// The cycles of a "superseded by" graph (`next[i]`: the entry that supersedes entry `i`),
/// each in chain order from its first entry in the file. One pass, so a hostile chain of any
/// length costs linear time.
pub fn supersede_cycles(next: &[Option<usize>]) -> Vec<Vec<usize>> {
    // 0: not seen; 1: on the current walk; 2: done.
    let mut state = vec![0u8; next.len()];
    let mut cycles = Vec::new();
    for start in 0..next.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at.filter(|&i| i < next.len() && state[i] == 0) {
            state[i] = 1;
            path.push(i);
            at = next[i];
        }
        if let Some(i) = at.filter(|&i| i < next.len() && state[i] == 1) {
            let from = path.iter().position(|&p| p == i).unwrap_or(0);
            let mut cycle = path[from..].to_vec();
            let first = cycle.iter().enumerate().min_by_key(|(_, i)| **i).map_or(0, |(k, _)| k);
            cycle.rotate_left(first);
            cycles.push(cycle);
        }
        for i in path {
            state[i] = 2;
        }
    }
    cycles
}

/// `## Decision: …` (any case) at column 0.
pub fn is_heading(line: &str) -> bool {
    match fields::heading(line, 2) {
        Some((2, t)) => {
            // `get`, not `[..8]`: a hand-written heading may have a multi-byte letter there.
            t.get(..8).is_some_and(|p| p.eq_ignore_ascii_case("decision")) && {
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

/// Decision types that propose rather than decide: provisional until confirmed.
pub const PROPOSING_KINDS: [&str; 2] = ["PROPOSAL", "IDEA"];

/// The promotion threshold when config does not set one.
pub const DEFAULT_THRESHOLD: f64 = 0.7;

/// What follows `## Decision` on an entry's heading line: the timestamp, or in older logs the
/// title.
fn heading_text(head: &str) -> &str {
    let text = fields::heading(head, 2).map(|(_, t)| t).unwrap_or("");
    text[8.min(text.len())..].trim_start_matches(':').trim()
}

/// A field's value on one line: its lines joined by a space.
fn one_line(value: &str) -> String {
    if value.contains(['\n', '\r']) {
        value.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
    } else {
        value.to_string()
    }
}

impl Decision {
    fn parse(text: &str, span: Span, keys: Option<Keys<'_>>) -> Decision {
        let raw = &text[span.start..span.end];
        let after = heading_text(line_at(raw, 0));
        match keys {
            Some((keys, separated)) => Decision::build(raw, span, after, keys, separated),
            None => {
                // The full parse is kept: it is what `DecisionLog::body` would compute later.
                let body = parse_full(raw, span.line);
                let d = Decision::build(raw, span, after, KEY_FIELDS.map(|k| body.get(k)), body.separated);
                let _ = d.body.set(Box::new(body));
                d
            }
        }
    }

    fn build(raw: &str, span: Span, after: &str, keys: [Option<&str>; 8], separated: bool) -> Decision {
        let [id, kind, title, ts, date, supersedes, refs, confidence] = keys;
        // `## Decision: <timestamp>` is canonical; `## Decision: <title>` with a Timestamp
        // field is the older form.
        let (timestamp, heading_title) = if crate::time::starts_with_date(after) { (after, None) } else { (ts.or(date).unwrap_or_default(), Some(after)) };
        let title = title.or_else(|| heading_title.filter(|t| !t.is_empty())).unwrap_or_default();
        let (id, id_derived) = match id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => (id.to_string(), false),
            None => (derived_id(raw), true),
        };
        Decision {
            span,
            id,
            id_derived,
            timestamp: timestamp.to_string(),
            // A title or type is one line wherever it is shown (log, history, the site, MCP): a
            // value a hand edit ran on over further lines printed lines of its own, read as
            // other decisions' rows or zo's footer.
            title: one_line(title),
            kind: one_line(kind.map(str::trim).unwrap_or_default()),
            supersedes: supersedes.map(str::to_string),
            refs: refs.map(str::to_string),
            confidence: confidence.and_then(|c| c.trim().parse::<f64>().ok()).filter(|c| c.is_finite()),
            separated,
            body: OnceCell::new(),
            piece: OnceCell::new(),
        }
    }

    /// An entry as its key fields were recorded in the log's summary (the text is read later).
    #[allow(clippy::too_many_arguments)]
    pub fn restored(
        span: Span,
        id: String,
        id_derived: bool,
        timestamp: String,
        title: String,
        kind: String,
        supersedes: Option<String>,
        refs: Option<String>,
        confidence: Option<f64>,
        separated: bool,
    ) -> Decision {
        Decision { span, id, id_derived, timestamp, title, kind, supersedes, refs, confidence, separated, body: OnceCell::new(), piece: OnceCell::new() }
    }

    /// The entry exactly as it stands in the file.
    pub fn raw<'a>(&'a self, log: &'a DecisionLog) -> &'a str {
        match &log.source {
            Some(source) => self.piece.get_or_init(|| source.read(self.span.start, self.span.end)),
            None => &log.text.as_str()[self.span.start..self.span.end],
        }
    }

    /// The entry's text without its separator and trailing space: what recall returns.
    pub fn content(&self, log: &DecisionLog) -> String {
        content_of(self.raw(log))
    }

    pub fn is_outcome(&self) -> bool {
        self.kind.eq_ignore_ascii_case("OUTCOME")
    }

    /// A `zo confirm` entry: it promotes the provisional decision it refers to.
    pub fn is_confirmation(&self) -> bool {
        self.kind.eq_ignore_ascii_case("CONFIRM")
    }

    /// A tombstone left by `zo forget`.
    pub fn is_forgotten(&self) -> bool {
        self.kind.eq_ignore_ascii_case("FORGOTTEN")
    }

    /// Entries that refer to another one rather than stand as a decision of their own.
    pub fn is_annotation(&self) -> bool {
        self.is_outcome() || self.is_confirmation() || self.is_forgotten()
    }

    /// Whether a decision of this kind and confidence would be written provisional.
    pub fn would_be_tentative(kind: &str, confidence: Option<f64>, threshold: f64) -> bool {
        confidence.is_some_and(|c| c < threshold) || PROPOSING_KINDS.iter().any(|k| kind.eq_ignore_ascii_case(k))
    }

    /// Provisional by itself: written below the promotion threshold, or of a kind that only
    /// proposes (PROPOSAL, IDEA). `zo confirm` lifts it.
    pub fn tentative(&self, threshold: f64) -> bool {
        !self.is_annotation() && Decision::would_be_tentative(&self.kind, self.confidence, threshold)
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

/// Decision `i`'s tombstone: its heading time, ID and links kept, its text gone.
pub fn tombstone(log: &DecisionLog, i: usize, when: &str, reason: &str) -> String {
    let e = &log.entries[i];
    let heading = if e.timestamp.is_empty() { format!("## Decision: {}", super::fact::FORGOTTEN) } else { format!("## Decision: {}", e.timestamp) };
    let links = |name: &str| log.field(i, name).unwrap_or("").to_string();
    let (supersedes, refs) = (links("Supersedes"), links("Refs"));
    super::tombstone(
        &heading,
        &[
            ("ID", &e.id),
            ("Type", "FORGOTTEN"),
            ("Title", super::fact::FORGOTTEN),
            ("Supersedes", &supersedes),
            ("Refs", &refs),
            ("Forgotten", when),
            ("Reason", reason),
        ],
    )
}

impl DecisionLog {
    pub fn parse(text: Text) -> DecisionLog {
        let entries: Vec<Decision> = scan(text.as_str()).into_iter().map(|(span, keys)| Decision::parse(text.as_str(), span, keys)).collect();
        let mut log = DecisionLog { text, entries, ..Default::default() };
        log.link();
        log
    }

    /// A log restored from its summary: the entries' key fields and the links between them
    /// as `parse` resolved them when the summary was written (`links`), each entry's text read
    /// from `source` when first needed.
    pub fn restored(entries: Vec<Decision>, links: Links, source: std::sync::Arc<dyn Source>, names_paths: bool) -> DecisionLog {
        let mut outcomes: HashMap<usize, Vec<usize>> = HashMap::new();
        for (t, o) in links.outcomes {
            outcomes.entry(t).or_default().push(o);
        }
        DecisionLog {
            entries,
            superseded_by: links.superseded_by.into_iter().collect(),
            cycles: links.cycles,
            outcomes,
            confirmed: links.confirmed.into_iter().collect(),
            source: Some(source),
            names_paths,
            ..Default::default()
        }
    }

    /// A log restored from an older summary of a file that has since grown: `entries` are the
    /// summary's entries before its last one, and `tail` the file's text from where that last
    /// entry started (byte `at` of the text, on line `line`) to its new end. The tail is read as
    /// `parse` reads the whole (the walk needs no state from before an entry's heading), and
    /// the links are resolved again over every entry. What zo's writers do (append) costs a
    /// walk over what they appended, not over the log.
    pub fn extended(mut entries: Vec<Decision>, tail: &str, at: usize, line: usize, source: std::sync::Arc<dyn Source>, names_paths: bool) -> DecisionLog {
        for (span, keys) in scan(tail) {
            // Sliced from the tail, numbered in the whole file; then placed in the whole text.
            let mut d = Decision::parse(tail, Span { line: span.line + line - 1, ..span }, keys);
            let _ = d.piece.set(tail[span.start..span.end].to_string());
            d.span.start += at;
            d.span.end += at;
            entries.push(d);
        }
        let mut log = DecisionLog { entries, source: Some(source), names_paths, ..Default::default() };
        log.link();
        log
    }

    /// The links between entries as `parse` resolved them, for the summary to record (each
    /// list sorted, so equal logs give equal summaries).
    pub fn links(&self) -> Links {
        let mut superseded_by: Vec<(usize, usize)> = self.superseded_by.iter().map(|(&t, &i)| (t, i)).collect();
        superseded_by.sort_unstable();
        let mut outcomes: Vec<(usize, usize)> = self.outcomes.iter().flat_map(|(&t, v)| v.iter().map(move |&o| (t, o))).collect();
        // By target, each target's outcomes in file order (as `link` pushed them).
        outcomes.sort_unstable();
        let mut confirmed: Vec<usize> = self.confirmed.iter().copied().collect();
        confirmed.sort_unstable();
        Links { superseded_by, outcomes, confirmed, cycles: self.cycles.clone() }
    }

    fn by_id(&self) -> &HashMap<String, usize> {
        self.by_id.get_or_init(|| by_id_of(&self.entries))
    }

    /// Whether the text was read in full (false for a log restored from its summary, whose
    /// `text` is empty).
    pub fn is_whole(&self) -> bool {
        self.source.is_none()
    }

    /// Whether any line may start with `**Paths:**` (so `zo stale` has something to measure).
    pub fn may_name_paths(&self) -> bool {
        match self.source {
            Some(_) => self.names_paths,
            None => names_paths(self.text.as_str()),
        }
    }

    fn link(&mut self) {
        let by_id = by_id_of(&self.entries);
        // Older logs refer to entries by heading timestamp; that map is built only when some
        // reference is not an ID (most logs never need it).
        let mut by_ts: Option<HashMap<&str, usize>> = None;
        let mut resolve = |r: &str| -> Option<usize> {
            if let Some(&i) = by_id.get(r) {
                return Some(i);
            }
            let map = by_ts.get_or_insert_with(|| {
                let mut m = HashMap::new();
                for (i, e) in self.entries.iter().enumerate() {
                    if !e.timestamp.is_empty() {
                        m.entry(e.timestamp.as_str()).or_insert(i);
                    }
                }
                m
            });
            map.get(r).copied()
        };
        let mut superseded_by = HashMap::new();
        let mut outcomes: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut confirmed = std::collections::HashSet::new();
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
            if e.is_outcome() || e.is_confirmation() {
                if let Some(v) = &e.refs {
                    for r in referenced_ids(v) {
                        if let Some(t) = resolve(&r) {
                            if e.is_outcome() {
                                outcomes.entry(t).or_default().push(i);
                            } else {
                                confirmed.insert(t);
                            }
                        }
                    }
                }
            }
        }
        let n = self.entries.len();
        let cycles = supersede_cycles(&(0..n).map(|i| superseded_by.get(&i).copied()).collect::<Vec<_>>());
        for i in cycles.iter().flatten() {
            superseded_by.remove(i);
        }
        self.superseded_by = superseded_by;
        self.by_id = OnceCell::from(by_id);
        self.cycles = cycles;
        self.outcomes = outcomes;
        self.confirmed = confirmed;
    }

    /// Index of an entry by exact ID, by heading timestamp, or by a unique ID prefix (any case).
    pub fn find(&self, query: &str) -> Result<usize, FindError> {
        let q = query.trim();
        if let Some(&i) = self.by_id().get(q) {
            return Ok(i);
        }
        let ql = q.to_ascii_lowercase();
        let hits: Vec<usize> =
            self.entries.iter().enumerate().filter(|(_, e)| e.id.to_ascii_lowercase().starts_with(&ql) || e.timestamp == q).map(|(i, _)| i).collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(FindError::NotFound),
            many => Err(FindError::Ambiguous(many.iter().map(|&i| self.entries[i].id.clone()).collect())),
        }
    }

    /// Whether an entry has exactly this ID (a hash lookup: new IDs are checked against it).
    pub fn has_id(&self, id: &str) -> bool {
        self.by_id().contains_key(id)
    }

    /// Supersede cycles (entry indexes in chain order), for `verify` to report.
    pub fn cycles(&self) -> &[Vec<usize>] {
        &self.cycles
    }

    pub fn superseded_by(&self, i: usize) -> Option<&Decision> {
        self.superseded_by.get(&i).map(|&j| &self.entries[j])
    }

    /// The full fields of entry `i` (parsed on first use).
    pub fn body(&self, i: usize) -> &Body {
        let e = &self.entries[i];
        e.body.get_or_init(|| Box::new(parse_full(e.raw(self), e.span.line)))
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
        self.latest_outcome_entry(i).and_then(|o| self.field(o, "Outcome")).or_else(|| self.field(i, "Outcome"))
    }

    /// `forgotten` (a tombstone), `superseded`, `provisional` (tentative and not confirmed) or
    /// `active`.
    pub fn status(&self, i: usize) -> &'static str {
        let e = &self.entries[i];
        if e.is_forgotten() {
            "forgotten"
        } else if self.superseded_by.contains_key(&i) {
            "superseded"
        } else if e.tentative(self.threshold()) && !self.confirmed.contains(&i) {
            "provisional"
        } else {
            "active"
        }
    }

    pub fn threshold(&self) -> f64 {
        self.threshold.unwrap_or(DEFAULT_THRESHOLD)
    }

    /// Read statuses against this promotion threshold (config's `promotion.threshold`).
    pub fn with_threshold(mut self, t: f64) -> DecisionLog {
        self.threshold = Some(t);
        self
    }

    /// Whether the last entry ended with a `---` (None when the log has no entries).
    pub fn last_separated(&self) -> Option<bool> {
        self.entries.last().map(|e| e.separated)
    }
}

/// Whether some line of a decision log's text starts with `**Paths:**` (one search for line
/// starts): only then can a decision name paths for `zo stale` to measure.
pub fn names_paths(text: &str) -> bool {
    super::line_starts(text, "**Paths:**").next().is_some()
}

/// Entry by exact ID, the first of duplicates (`verify` reports them).
fn by_id_of(entries: &[Decision]) -> HashMap<String, usize> {
    // Sized once: growing the map by doubling rehashed every ID several times.
    let mut by_id = HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        by_id.entry(e.id.clone()).or_insert(i);
    }
    by_id
}

/// What `parse` resolves between entries, as plain lists: a log's summary records them so a
/// log restored from it need not resolve every reference again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    /// (superseded entry, the entry superseding it); cycle members are not in it.
    pub superseded_by: Vec<(usize, usize)>,
    /// (decision, an OUTCOME entry for it), each decision's outcomes in file order.
    pub outcomes: Vec<(usize, usize)>,
    /// Decisions a CONFIRM entry refers to.
    pub confirmed: Vec<usize>,
    /// Supersede cycles, each in chain order.
    pub cycles: Vec<Vec<usize>>,
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
    pub confidence: String,
    pub paths: String,
    pub commit: String,
    /// The decision's status as written (provisional or active), for the report.
    pub status: &'static str,
    /// Active decisions whose titles are nearly this one's (the write went ahead).
    pub similar: Vec<crate::format::Similar>,
    /// `sha256:…` of each secret written with --allow-secret (`gate::ALLOWED_FIELD` lines).
    pub allowed: Vec<String>,
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
            ("Confidence", &self.confidence),
            ("Paths", &self.paths),
            ("Commit", &self.commit),
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
        for h in &self.allowed {
            let (field, value) = fields::allowance_field(h);
            fields::render_field(&mut out, field, value);
        }
        out.push_str("\n---\n\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::split_entries;

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
        let again = NewDecision { decision: log.field(0, "Decision").unwrap().into(), ..sample() };
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

    /// The quick walk must agree with the full parse wherever it answers, and find the same
    /// entries as `split_entries`.
    #[test]
    fn key_scan_agrees_with_full_parse() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![std::fs::read_to_string(root.join(".zo-example/memory/DECISION_LOG.md")).unwrap()];
        texts.push(std::fs::read_to_string(root.join("tests/fixtures/zero-operators-memory/DECISION_LOG.md")).unwrap());
        // Real decision records (with fences, lists, headings and rules in their text), written
        // the way `zo decide` writes them.
        {
            let corpus = std::fs::read_to_string(root.join("tests/fixtures/adr-corpus.jsonl")).unwrap();
            let mut log = String::new();
            for (i, line) in corpus.lines().enumerate() {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                let d = NewDecision {
                    id: format!("D-{i:08x}"),
                    timestamp: "2026-01-01T00:00:00Z".into(),
                    kind: "ARCHITECTURE".into(),
                    title: r["title"].as_str().unwrap().into(),
                    decision: r["body"].as_str().unwrap().into(),
                    rationale: "from the corpus".into(),
                    ..Default::default()
                };
                log.push_str(&d.render());
            }
            texts.push(log);
        }
        let e = "## Decision: 2026-01-01T00:00:00Z\n";
        // (text, whether the walk should answer for its first entry)
        let cases: Vec<(String, Option<bool>)> = vec![
            (format!("{e}**Title:** two\nlines\n**ID:** D-1\n"), Some(false)),
            // Prose after a key field belongs to its value.
            (format!("{e}**Title:** t\n\n**Type:** X\n\nprose\n\n---\n**Refs:** after\n"), Some(false)),
            (format!("{e}**Title:** t\n\n**Decision:** X\n\nprose\n\n---\n**Refs:** after\n"), Some(true)),
            // Backticks inside a line are no fence.
            (format!("{e}**ID:** D-2\n**Title:** uses ``` inline\n\n**Decision:** a ```b``` c\n---\n"), Some(true)),
            // A field line or a `---` inside a fence is text; the keys after the fence count.
            (format!("{e}**ID:** D-3\n**Decision:** x\n   ~~~\n**Type:** in a fence\n---\n   ~~~\n**Type:** real\n---\n"), Some(true)),
            (format!("{e}**Decision:** x\n```sh\n**Refs:** no\n```\n**Refs:** D-9\n"), Some(true)),
            // An unclosed fence runs to the end of the entry, but not into the next one.
            (format!("{e}**Decision:** x\n```\n**ID:** hidden\n{e}**ID:** D-4\n"), Some(true)),
            // A hand-written entry inside a closed code block is text of the entry around it.
            (format!("{e}**ID:** D-7\n**Decision:** like this:\n```md\n{e}**ID:** D-8\n---\n```\n**Type:** real\n---\n\n{e}**ID:** D-9\n"), Some(true)),
            // A key whose value starts on the next line, or runs into a fence.
            (format!("{e}**Title:**\n  t\n"), Some(false)),
            (format!("{e}**Title:** t\n```\ncode\n```\n"), Some(false)),
            (format!("{e}\r\n**ID:** D-5\r\n**Title:** crlf\r\n---\r\n"), Some(true)),
            ("no heading at all\n**ID:** D-6\n".into(), None),
        ];
        texts.extend(cases.iter().map(|(t, _)| t.clone()));
        let mut scanned = 0;
        for text in &texts {
            let walked = scan(text);
            let spans = split_entries(text, is_heading);
            assert_eq!(
                walked.iter().map(|(s, _)| (s.start, s.end, s.line)).collect::<Vec<_>>(),
                spans.iter().map(|s| (s.start, s.end, s.line)).collect::<Vec<_>>()
            );
            let log = DecisionLog::parse(Text::new(text.clone()));
            for (i, (span, keys)) in walked.iter().enumerate() {
                let raw = &text[span.start..span.end];
                let full = parse_full(raw, span.line);
                if let Some((found, separated)) = keys {
                    scanned += 1;
                    assert_eq!(*separated, full.separated, "{raw}");
                    for (k, v) in KEY_FIELDS.iter().zip(found) {
                        assert_eq!(*v, full.get(k), "{k} in {raw}");
                    }
                }
                assert_eq!(log.field(i, "Title").unwrap_or(""), full.get("Title").unwrap_or(""));
                // The title is the field on one line (`one_line`).
                assert_eq!(log.entries[i].title, full.get("Title").map(one_line).unwrap_or_else(|| log.entries[i].title.clone()));
            }
        }
        for (text, answers) in &cases {
            assert_eq!(scan(text).first().map(|(_, k)| k.is_some()), *answers, "{text}");
        }
        // What `decide` reads without parsing agrees with the parsed log, and every title of
        // every entry is found by the quick search, under any change of case or spacing.
        for text in &texts {
            let log = DecisionLog::parse(Text::new(text.clone()));
            assert_eq!(last_separated(text), log.last_separated(), "{text}");
            for e in &log.entries {
                assert!(may_hold_title(text, &e.title), "{:?}", e.title);
                let shouted: String = e.title.split_whitespace().map(|w| w.to_uppercase()).collect::<Vec<_>>().join("  \t");
                assert!(may_hold_title(text, &shouted), "{shouted:?}");
                assert!(mentions(text, &e.id) || e.id_derived);
            }
        }
        assert!(scanned > 10);
    }

    #[test]
    fn quick_title_search_finds_titles_and_only_whole_ones() {
        let mut d = sample();
        d.title = "Bench decision 17".into();
        d.decision = "## a heading\n**Title:** not this".into();
        let text = d.render();
        assert!(may_hold_title(&text, "bench   DECISION 17"));
        assert!(!may_hold_title(&text, "bench decision 1"), "a prefix is another title");
        assert!(!may_hold_title(&text, "decision 17 bench"));
        // A title that runs over lines, the second escaped because it looks like a heading.
        let multi = "## Decision: 2026-01-01T00:00:00Z\n**Title:** first part\n\\## second part\n---\n";
        let log = DecisionLog::parse(Text::new(multi.into()));
        assert_eq!(log.entries[0].title, "first part ## second part", "one line wherever it is shown");
        assert!(may_hold_title(multi, "first part ## second part"));
        // The older form: the title in the heading.
        assert!(may_hold_title("## Decision: Use Postgres\n**Date:** 2024-01-01\n", "use postgres"));
        assert!(!may_hold_title("", "anything"));
        // A title that starts on the line after its field name.
        assert!(may_hold_title("## Decision: 2026-01-01T00:00:00Z\n**Title:**\nlater\n", "other"));
        assert_eq!(last_separated(""), None);
        assert_eq!(last_separated("# DECISION_LOG\n\n---\n"), None);
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
        assert!(log.find("d-0000000").is_err());
        assert_eq!(log.find("D-7f3a").unwrap(), 0);
    }
}
