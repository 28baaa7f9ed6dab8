//! One decision entry as read: where its heading puts the timestamp or title, its key
//! fields, and what its kind makes it (an outcome, a confirmation, a tombstone, provisional).

use super::scan::{KEY_FIELDS, Keys};
use super::{Body, Decision, DecisionLog, PROPOSING_KINDS, fields};
use crate::format::{Span, content_of, line_at, sha256_hex};
use std::cell::OnceCell;

/// `## Decision: …` (any case) at column 0.
pub fn is_heading(line: &str) -> bool {
    match fields::heading(line, 2) {
        Some((2, t)) => {
            // `get`, not `[..8]`: a hand-written heading may have a multi-byte letter there.
            t.get(..8)
                .is_some_and(|p| p.eq_ignore_ascii_case("decision"))
                && {
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
        .filter(|t| {
            !t.is_empty() && !t.eq_ignore_ascii_case("null") && !t.eq_ignore_ascii_case("none")
        })
        .map(str::to_string)
        .collect()
}

/// What follows `## Decision` on an entry's heading line: the timestamp, or in older logs the
/// title.
pub(super) fn heading_text(head: &str) -> &str {
    let text = fields::heading(head, 2).map(|(_, t)| t).unwrap_or("");
    text[8.min(text.len())..].trim_start_matches(':').trim()
}

/// A field's value on one line: its lines joined by a space.
pub(super) fn one_line(value: &str) -> String {
    if value.contains(['\n', '\r']) {
        value
            .split(['\n', '\r'])
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        value.to_string()
    }
}

impl Decision {
    pub(super) fn parse(text: &str, span: Span, keys: Option<Keys<'_>>) -> Decision {
        let raw = &text[span.start..span.end];
        let after = heading_text(line_at(raw, 0));
        match keys {
            Some((keys, separated)) => Decision::build(raw, span, after, keys, separated),
            None => {
                // The full parse is kept: it is what `DecisionLog::body` would compute later.
                let body = parse_full(raw, span.line);
                let d = Decision::build(
                    raw,
                    span,
                    after,
                    KEY_FIELDS.map(|k| body.get(k)),
                    body.separated,
                );
                let _ = d.body.set(Box::new(body));
                d
            }
        }
    }

    fn build(
        raw: &str,
        span: Span,
        after: &str,
        keys: [Option<&str>; 8],
        separated: bool,
    ) -> Decision {
        let [id, kind, title, ts, date, supersedes, refs, confidence] = keys;
        // `## Decision: <timestamp>` is canonical; `## Decision: <title>` with a Timestamp
        // field is the older form.
        let (timestamp, heading_title) = if crate::time::starts_with_date(after) {
            (after, None)
        } else {
            (ts.or(date).unwrap_or_default(), Some(after))
        };
        let title = title
            .or_else(|| heading_title.filter(|t| !t.is_empty()))
            .unwrap_or_default();
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
            confidence: confidence
                .and_then(|c| c.trim().parse::<f64>().ok())
                .filter(|c| c.is_finite()),
            separated,
            body: OnceCell::new(),
            piece: OnceCell::new(),
        }
    }

    /// The entry exactly as it stands in the file.
    pub fn raw<'a>(&'a self, log: &'a DecisionLog) -> &'a str {
        match &log.source {
            Some(source) => self
                .piece
                .get_or_init(|| source.read(self.span.start, self.span.end)),
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

    /// A `zo promote` record: the entry it refers to (a decision or a prior) was copied into a
    /// linked memory, which its `Decision` names (`team:PR-004`).
    pub fn is_promotion(&self) -> bool {
        self.kind.eq_ignore_ascii_case("PROMOTE")
    }

    /// Entries that refer to another one rather than stand as a decision of their own.
    pub fn is_annotation(&self) -> bool {
        self.is_outcome() || self.is_confirmation() || self.is_forgotten() || self.is_promotion()
    }

    /// Whether a decision of this kind and confidence would be written provisional.
    pub fn would_be_tentative(kind: &str, confidence: Option<f64>, threshold: f64) -> bool {
        confidence.is_some_and(|c| c < threshold)
            || PROPOSING_KINDS.iter().any(|k| kind.eq_ignore_ascii_case(k))
    }

    /// Provisional by itself: written below the promotion threshold, or of a kind that only
    /// proposes (PROPOSAL, IDEA). `zo confirm` lifts it.
    pub fn tentative(&self, threshold: f64) -> bool {
        !self.is_annotation()
            && Decision::would_be_tentative(&self.kind, self.confidence, threshold)
    }

    /// The date part of the timestamp (may be empty).
    pub fn date(&self) -> &str {
        if crate::time::starts_with_date(&self.timestamp) {
            &self.timestamp[..10]
        } else {
            ""
        }
    }
}

pub(super) fn parse_full(raw: &str, line: usize) -> Body {
    let mut lines = raw.split_inclusive('\n');
    lines.next();
    fields::parse_body(lines, line + 1, false)
}

/// Stable ID for an entry written without one: a hash of its own content.
pub fn derived_id(raw: &str) -> String {
    format!("D-{}", &sha256_hex(&content_of(raw))[..8])
}
