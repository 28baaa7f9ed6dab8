//! FACTS.md: exact facts and preferences, looked up by key (SPEC §2). Append-only like the
//! decision log: setting a key again appends a new version; the latest version of a key (by its
//! `Set` time, then ID) holds, so two clones that set one key converge after a merge.

use super::fields::{self, Body};
use super::{Span, Text, content_of, split_entries};

/// The title a forgotten entry's heading carries instead of its key or title.
pub const FORGOTTEN: &str = "[forgotten]";

#[derive(Debug, Clone)]
pub struct Fact {
    pub span: Span,
    pub id: String,
    /// Empty for a forgotten version (its key is erased with its value).
    pub key: String,
    pub body: Body,
}

#[derive(Debug, Clone, Default)]
pub struct FactsFile {
    pub text: Text,
    pub entries: Vec<Fact>,
}

/// `## Fact: key` at column 0.
pub fn is_heading(line: &str) -> bool {
    matches!(fields::heading(line, 2), Some((2, t)) if t.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("fact:")))
}

/// A key is `category:entity`: a category of letters, digits, `_`, `-` or `.`, a colon, and an
/// entity on one line. Returns the reason when it is not.
pub fn check_key(key: &str) -> Result<(), String> {
    let Some((cat, entity)) = key.split_once(':') else {
        return Err(format!(
            "the key {key:?} has no category: write it as category:entity (e.g. stack:web-framework)"
        ));
    };
    if cat.is_empty()
        || !cat
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(format!(
            "the key {key:?} needs a one-word category before the colon (letters, digits, _ - .)"
        ));
    }
    if entity.trim().is_empty() || entity.contains(['\n', '\r']) || entity.trim() != entity {
        return Err(format!(
            "the key {key:?} needs an entity after the colon, on one line, without surrounding spaces"
        ));
    }
    Ok(())
}

impl Fact {
    fn parse(text: &str, span: Span) -> Fact {
        let raw = &text[span.start..span.end];
        let mut lines = raw.split_inclusive('\n');
        let head = fields::strip_eol(lines.next().unwrap_or(""));
        let key = fields::heading(head, 2)
            .map(|(_, t)| t[5..].trim())
            .unwrap_or("");
        let body = fields::parse_body(lines, span.line + 1, false);
        let id = body.get("ID").map(str::trim).unwrap_or("").to_string();
        let key = if key == FORGOTTEN && body.get("Forgotten").is_some() {
            String::new()
        } else {
            key.to_string()
        };
        Fact {
            span,
            id,
            key,
            body,
        }
    }

    pub fn raw<'a>(&self, file: &'a FactsFile) -> &'a str {
        &file.text.as_str()[self.span.start..self.span.end]
    }

    pub fn content(&self, file: &FactsFile) -> String {
        content_of(self.raw(file))
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.body.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    pub fn value(&self) -> &str {
        self.body.get("Value").unwrap_or("")
    }

    pub fn set(&self) -> &str {
        self.field("Set").unwrap_or("")
    }

    pub fn is_forgotten(&self) -> bool {
        self.key.is_empty() && self.body.get("Forgotten").is_some()
    }

    /// The confidence the writer gave (1 when none was given, or it does not read as a number).
    pub fn confidence(&self) -> f64 {
        self.field("Confidence")
            .and_then(|c| c.parse::<f64>().ok())
            .filter(|c| c.is_finite())
            .unwrap_or(1.0)
    }
}

impl FactsFile {
    pub fn parse(text: Text) -> FactsFile {
        let spans = split_entries(text.as_str(), is_heading);
        let entries = spans
            .into_iter()
            .map(|s| Fact::parse(text.as_str(), s))
            .collect();
        FactsFile { text, entries }
    }

    pub fn find(&self, id: &str) -> Option<usize> {
        let q = id.trim();
        self.entries
            .iter()
            .position(|f| f.id.eq_ignore_ascii_case(q))
    }

    pub fn last_separated(&self) -> Option<bool> {
        self.entries.last().map(|e| e.body.separated)
    }

    /// The versions of `key` (compared without regard to ASCII case), oldest first by `Set`
    /// time then ID: the last one holds.
    pub fn versions(&self, key: &str) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].key.eq_ignore_ascii_case(key.trim()))
            .collect();
        // A version `Set` in the future is never the latest (it would hold forever): it sorts
        // first, as if it were the oldest (`verify` names it).
        let key = |i: usize| {
            let e = &self.entries[i];
            (!crate::time::is_future(e.set()), e.set(), &e.id)
        };
        v.sort_by(|&a, &b| key(a).cmp(&key(b)));
        v
    }

    /// Every key, in order of first appearance.
    pub fn keys(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.entries
            .iter()
            .filter(|f| !f.key.is_empty() && seen.insert(f.key.to_ascii_lowercase()))
            .map(|f| f.key.as_str())
            .collect()
    }
}

/// A fact version about to be written.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct NewFact {
    pub id: String,
    pub key: String,
    pub value: String,
    pub set: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// As given (`None`: not given, which reads as 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The version of the key this one replaces, when there was one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub supersedes: String,
    /// The provisional version this one confirms (`zo confirm`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub confirms: String,
    /// `sha256:…` of each secret written with --allow-secret (`gate::ALLOWED_FIELD` lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
}

impl NewFact {
    pub fn render(&self) -> String {
        let mut out = format!("## Fact: {}\n", self.key);
        fields::render_field(&mut out, "ID", &self.id);
        fields::render_field(&mut out, "Value", &self.value);
        fields::render_field(&mut out, "Set", &self.set);
        if !self.source.is_empty() {
            fields::render_field(&mut out, "Source", &self.source);
        }
        if let Some(c) = self.confidence {
            fields::render_field(&mut out, "Confidence", &format_confidence(c));
        }
        if !self.supersedes.is_empty() {
            fields::render_field(&mut out, "Supersedes", &self.supersedes);
        }
        if !self.confirms.is_empty() {
            fields::render_field(&mut out, "Confirms", &self.confirms);
        }
        for h in &self.allowed {
            let (field, value) = fields::allowance_field(h);
            fields::render_field(&mut out, field, value);
        }
        out.push_str("\n---\n\n");
        out
    }
}

/// `0.5`, `1`: the shortest form that reads back as the same number.
pub fn format_confidence(c: f64) -> String {
    let s = format!("{c}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A forgotten fact version's tombstone: the ID, when and why.
pub fn tombstone(f: &Fact, when: &str, reason: &str) -> String {
    super::tombstone(
        &format!("## Fact: {FORGOTTEN}"),
        &[("ID", &f.id), ("Forgotten", when), ("Reason", reason)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_fact_round_trips() {
        let f = NewFact {
            id: "F-0a1b2c3d".into(),
            key: "stack:web-framework".into(),
            value: "Hono, not Express.\n\n```\n## Fact: not a heading\n```".into(),
            set: "2026-11-23T14:00:00Z".into(),
            source: "session 12".into(),
            confidence: Some(0.5),
            supersedes: "F-00000001".into(),
            confirms: String::new(),
            allowed: vec![],
        };
        let text = f.render();
        let file = FactsFile::parse(Text::new(text.clone()));
        assert_eq!(file.entries.len(), 1);
        let e = &file.entries[0];
        assert_eq!(
            (e.id.as_str(), e.key.as_str(), e.value(), e.set()),
            (
                "F-0a1b2c3d",
                "stack:web-framework",
                f.value.as_str(),
                "2026-11-23T14:00:00Z"
            )
        );
        assert_eq!(e.confidence(), 0.5);
        assert_eq!(e.field("Supersedes"), Some("F-00000001"));
        assert_eq!(e.raw(&file), text);
        assert!(!e.is_forgotten());
    }

    #[test]
    fn latest_version_by_set_time_holds_and_tombstones_have_no_key() {
        let v = |id: &str, set: &str, value: &str| {
            NewFact {
                id: id.into(),
                key: "fmt:dates".into(),
                value: value.into(),
                set: set.into(),
                ..Default::default()
            }
            .render()
        };
        let text = format!(
            "# Facts\n\n{}{}{}{}",
            v("F-2", "2026-11-23T10:00:00Z", "DD/MM/YYYY"),
            v("F-1", "2026-11-22T10:00:00Z", "MM/DD"),
            super::super::tombstone(
                "## Fact: [forgotten]",
                &[
                    ("ID", "F-3"),
                    ("Forgotten", "2026-11-23T11:00:00Z"),
                    ("Reason", "leaked")
                ]
            ),
            v("F-4", "2026-11-23T10:00:00Z", "ISO")
        );
        let file = FactsFile::parse(Text::new(text));
        assert_eq!(file.entries.len(), 4);
        let order: Vec<&str> = file
            .versions("FMT:dates")
            .iter()
            .map(|&i| file.entries[i].id.as_str())
            .collect();
        assert_eq!(order, ["F-1", "F-2", "F-4"]);
        assert!(file.entries[2].is_forgotten());
        assert_eq!(file.keys(), ["fmt:dates"]);
    }

    #[test]
    fn keys_are_category_and_entity() {
        assert!(check_key("stack:web").is_ok());
        assert!(check_key("pref:date format").is_ok());
        for bad in [
            "web",
            ":web",
            "my stack:web",
            "stack:",
            "stack: web",
            "stack:a\nb",
        ] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
    }
}
