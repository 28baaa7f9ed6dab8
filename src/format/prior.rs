//! PRIORS.md: lessons, each tied to the failure that taught it (SPEC §2).

use super::fields::{self, Body};
use super::{Span, Text, content_of, sha256_hex, split_entries};

pub const ROOT_CAUSES: [&str; 5] = [
    "missing_rule",
    "incomplete_rule",
    "ignored_rule",
    "novel_case",
    "regression",
];

#[derive(Debug, Clone)]
pub struct Prior {
    pub span: Span,
    /// `PR-046`, or `PR-h<hash>` for the older `## Prior: <category>` form, which has no number.
    pub id: String,
    pub number: Option<u32>,
    pub title: String,
    pub body: Body,
    /// The category from a `## Prior: <category>` heading.
    pub category: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct PriorsFile {
    pub text: Text,
    pub entries: Vec<Prior>,
}

/// `## PR-NNN: title` or `## Prior: category` at column 0.
pub fn is_heading(line: &str) -> bool {
    match fields::heading(line, 2) {
        Some((2, t)) => {
            parse_number(t).is_some()
                || t.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("prior:"))
        }
        _ => false,
    }
}

/// `PR-046: title` → (46, "title").
fn parse_number(heading: &str) -> Option<(u32, &str)> {
    let rest = heading.strip_prefix("PR-")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n = rest[..digits].parse().ok()?;
    let title = rest[digits..].trim_start_matches(':').trim();
    Some((n, title))
}

pub fn format_id(n: u32) -> String {
    format!("PR-{n:03}")
}

impl Prior {
    fn parse(text: &str, span: Span) -> Prior {
        let raw = &text[span.start..span.end];
        let mut lines = raw.split_inclusive('\n');
        let head = fields::strip_eol(lines.next().unwrap_or(""));
        let head_text = fields::heading(head, 2).map(|(_, t)| t).unwrap_or("");
        let body = fields::parse_body(lines, span.line + 1, true);
        match parse_number(head_text) {
            Some((n, title)) => Prior {
                span,
                id: format_id(n),
                number: Some(n),
                title: title.to_string(),
                body,
                category: None,
            },
            None => {
                let category = head_text.get(6..).unwrap_or("").trim().to_string();
                let statement = body.get("Statement").unwrap_or("");
                let title = statement
                    .lines()
                    .next()
                    .unwrap_or(&category)
                    .chars()
                    .take(120)
                    .collect();
                let mut p = Prior {
                    span,
                    id: String::new(),
                    number: None,
                    title,
                    body,
                    category: Some(category),
                };
                // Hash without the supersession line so `prior supersede` keeps the ID; a
                // tombstone carries the ID of the prior it replaced.
                p.id = match p.body.get("ID").map(str::trim).filter(|v| !v.is_empty()) {
                    Some(id) => id.to_string(),
                    None => format!(
                        "PR-h{}",
                        &sha256_hex(&without_supersession(&content_of(raw)))[..8]
                    ),
                };
                if p.is_forgotten() {
                    p.title = super::fact::FORGOTTEN.to_string();
                }
                p
            }
        }
    }

    /// A tombstone left by `zo forget`.
    pub fn is_forgotten(&self) -> bool {
        self.body.get("Forgotten").is_some()
            && self.body.get("Reason").is_some()
            && self.rules_section().is_none()
    }

    fn rules_section(&self) -> Option<&fields::Section> {
        self.body
            .sections
            .iter()
            .find(|s| s.heading.eq_ignore_ascii_case("rules"))
    }

    /// This prior's tombstone: its number (or ID) and supersession kept, its text gone.
    pub fn tombstone(&self, when: &str, reason: &str) -> String {
        let by = self.field("Superseded by").unwrap_or("").trim().to_string();
        match self.number {
            Some(n) => super::tombstone(
                &format!("## {}: {}", format_id(n), super::fact::FORGOTTEN),
                &[
                    ("Superseded by", &by),
                    ("Forgotten", when),
                    ("Reason", reason),
                ],
            ),
            None => super::tombstone(
                &format!("## Prior: {}", super::fact::FORGOTTEN),
                &[
                    ("ID", &self.id),
                    ("Superseded by", &by),
                    ("Forgotten", when),
                    ("Reason", reason),
                ],
            ),
        }
    }

    pub fn raw<'a>(&self, file: &'a PriorsFile) -> &'a str {
        &file.text.as_str()[self.span.start..self.span.end]
    }

    pub fn content(&self, file: &PriorsFile) -> String {
        content_of(self.raw(file))
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.body.get(name)
    }

    pub fn root_cause(&self) -> Option<&str> {
        self.field("Root cause category")
            .or(self.category.as_deref())
    }

    /// The `### Verified Solution` section's text, unless empty.
    pub fn solution(&self) -> Option<String> {
        self.body
            .sections
            .iter()
            .find(|s| s.heading.eq_ignore_ascii_case("Verified Solution"))
            .map(|s| s.body.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// `Superseded by` (or `Superseded By`), unless null.
    pub fn superseded_by(&self) -> Option<&str> {
        self.field("Superseded by").map(str::trim).filter(|v| {
            !v.is_empty() && !v.eq_ignore_ascii_case("null") && !v.eq_ignore_ascii_case("none")
        })
    }

    /// The rules, one string each, from the `### Rules` section's numbered list.
    pub fn rules(&self) -> Vec<String> {
        let Some(sec) = self.rules_section() else {
            return self
                .field("Statement")
                .map(|s| vec![s.to_string()])
                .unwrap_or_default();
        };
        // Rules are list items: the first line after `N. `, the rest indented three spaces.
        // zo escaped each rule before indenting it, so undo that on the de-indented lines.
        let mut rules: Vec<String> = Vec::new();
        let mut fence = fields::Fence::default();
        for line in sec.body.lines() {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            let (text, new_rule) = if digits > 0 && line[digits..].starts_with(". ") {
                fence.reset();
                (&line[digits + 2..], true)
            } else {
                (line.strip_prefix("   ").unwrap_or(line), false)
            };
            let in_fence = fence.feed(text);
            let text = fields::unescape_line(text, in_fence);
            match rules.last_mut() {
                Some(last) if !new_rule => {
                    last.push('\n');
                    last.push_str(text);
                }
                _ if new_rule => rules.push(text.to_string()),
                _ => {}
            }
        }
        for r in &mut rules {
            *r = r.trim_end().to_string();
        }
        rules
    }

    /// The content with any `Superseded by` line taken out: `zo prior supersede` may set that
    /// one field, and the append-only check compares everything else.
    pub fn content_without_supersession(&self, file: &PriorsFile) -> String {
        without_supersession(&self.content(file))
    }

    /// What names this prior whatever its number: a hash of its text with every prior number
    /// taken out (and `Superseded by`, which `prior supersede` may set). The merge driver
    /// renumbers a prior that got the same number on two clones, references included; that
    /// changes only numbers, so not this. Session files record it beside the ID they list.
    pub fn fingerprint(&self, file: &PriorsFile) -> String {
        sha256_hex(&without_numbers(&self.content_without_supersession(file)))[..12].to_string()
    }
}

/// `PR-046` → `PR-` everywhere in `text`.
pub(crate) fn without_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("PR-") {
        out.push_str(&rest[..i + 3]);
        rest = rest[i + 3..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

pub(crate) fn without_supersession(content: &str) -> String {
    content.lines().filter(|l| !matches!(fields::parse_field_line(l), Some((n, _)) if n.eq_ignore_ascii_case("Superseded by"))).collect::<Vec<_>>().join("\n")
}

impl PriorsFile {
    pub fn parse(text: Text) -> PriorsFile {
        let spans = split_entries(text.as_str(), is_heading);
        let entries = spans
            .into_iter()
            .map(|s| Prior::parse(text.as_str(), s))
            .collect();
        PriorsFile { text, entries }
    }

    pub fn find(&self, id: &str) -> Option<usize> {
        let q = id.trim();
        self.entries
            .iter()
            .position(|p| p.id.eq_ignore_ascii_case(q))
            .or_else(|| {
                // `46`, `PR-46` and `PR-046` all name PR-046.
                let n: u32 = q
                    .trim_start_matches("PR-")
                    .trim_start_matches("pr-")
                    .parse()
                    .ok()?;
                self.entries.iter().position(|p| p.number == Some(n))
            })
    }

    /// Supersede cycles written by hand (PR-1 superseded by PR-2 superseded by PR-1), each in
    /// chain order. Their members are read as holding (`superseded`), or all would vanish.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let by_id: std::collections::HashMap<String, usize> = self
            .entries
            .iter()
            .enumerate()
            .rev()
            .map(|(i, p)| (p.id.to_ascii_lowercase(), i))
            .collect();
        let next: Vec<Option<usize>> = self
            .entries
            .iter()
            .map(|p| {
                p.superseded_by().and_then(|id| {
                    by_id
                        .get(&id.to_ascii_lowercase())
                        .copied()
                        .or_else(|| self.find(id))
                })
            })
            .collect();
        super::decision::supersede_cycles(&next)
    }

    /// Which priors are superseded: a `Superseded by` outside a cycle.
    pub fn superseded(&self) -> Vec<bool> {
        let mut out: Vec<bool> = self
            .entries
            .iter()
            .map(|p| p.superseded_by().is_some())
            .collect();
        for i in self.cycles().into_iter().flatten() {
            out[i] = false;
        }
        out
    }

    pub fn next_number(&self) -> u32 {
        self.entries
            .iter()
            .filter_map(|p| p.number)
            .max()
            .unwrap_or(0)
            + 1
    }

    pub fn last_separated(&self) -> Option<bool> {
        self.entries.last().map(|e| e.body.separated)
    }
}

/// A prior about to be written.
#[derive(Debug, Clone, Default)]
pub struct NewPrior {
    pub number: u32,
    pub title: String,
    pub source: String,
    pub root_cause: String,
    pub failure: String,
    pub rules: Vec<String>,
    pub solution: String,
    /// `sha256:…` of each secret written with --allow-secret (`gate::ALLOWED_FIELD` lines).
    pub allowed: Vec<String>,
}

impl NewPrior {
    pub fn render(&self) -> String {
        let mut out = format!("## {}: {}\n", format_id(self.number), self.title);
        if !self.source.is_empty() {
            fields::render_field(&mut out, "Source", &self.source);
        }
        fields::render_field(&mut out, "Root cause category", &self.root_cause);
        fields::render_field(&mut out, "Failure", &self.failure);
        fields::render_field(&mut out, "Superseded by", "null");
        for h in &self.allowed {
            let (field, value) = fields::allowance_field(h);
            fields::render_field(&mut out, field, value);
        }
        out.push_str("\n### Rules\n");
        for (i, rule) in self.rules.iter().enumerate() {
            let escaped = fields::escape_value(rule);
            let mut lines = escaped.split('\n');
            out.push_str(&format!("{}. {}\n", i + 1, lines.next().unwrap_or("")));
            for l in lines {
                if !l.is_empty() {
                    out.push_str("   ");
                }
                out.push_str(l);
                out.push('\n');
            }
        }
        if !self.solution.is_empty() {
            out.push_str("\n### Verified Solution\n");
            out.push_str(&fields::escape_value(&self.solution));
            out.push('\n');
        }
        out.push_str("\n---\n\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_prior_round_trips() {
        let p = NewPrior {
            number: 46,
            title: "Never redirect stderr of an interactive TUI".into(),
            source: "session-041 (2026-11-21), launcher debugging".into(),
            root_cause: "missing_rule".into(),
            failure: "the agent pane stayed blank".into(),
            rules: vec![
                "**Keep stderr on the terminal for TUIs.** Always.".into(),
                "Second rule".into(),
            ],
            solution: "Run it in tmux.\n\n```\ntmux new-window\n```".into(),
            allowed: vec![],
        };
        let text = p.render();
        let f = PriorsFile::parse(Text::new(text.clone()));
        assert_eq!(f.entries.len(), 1);
        let e = &f.entries[0];
        assert_eq!(e.id, "PR-046");
        assert_eq!(e.title, p.title);
        assert_eq!(e.root_cause(), Some("missing_rule"));
        assert_eq!(e.superseded_by(), None);
        assert_eq!(e.rules(), p.rules);
        let solution = e
            .body
            .sections
            .iter()
            .find(|s| s.heading == "Verified Solution")
            .unwrap();
        assert_eq!(solution.body, p.solution);
        assert_eq!(e.raw(&f), text);
    }

    #[test]
    fn fingerprint_survives_renumbering_only() {
        let p = NewPrior {
            number: 1,
            title: "A lesson".into(),
            root_cause: "novel_case".into(),
            failure: "see PR-001".into(),
            rules: vec!["r".into()],
            ..Default::default()
        };
        let fp = |text: &str| {
            let f = PriorsFile::parse(Text::new(text.to_string()));
            f.entries[0].fingerprint(&f)
        };
        let text = p.render();
        let renumbered = text.replace("PR-001", "PR-012");
        assert_eq!(fp(&text), fp(&renumbered));
        assert_eq!(
            fp(&text),
            fp(&text.replace("**Superseded by:** null", "**Superseded by:** PR-002"))
        );
        assert_ne!(fp(&text), fp(&text.replace("A lesson", "Another lesson")));
    }

    #[test]
    fn older_form_is_read() {
        let text = "## Prior: domain\n**Statement**: Use bincount on MPS.\n**Evidence**: tolist garbage\n**Confidence**: high\n**Superseded By**: null\n";
        let f = PriorsFile::parse(Text::new(text.into()));
        assert_eq!(f.entries.len(), 1);
        assert!(f.entries[0].id.starts_with("PR-h"));
        assert_eq!(f.entries[0].title, "Use bincount on MPS.");
        assert_eq!(f.entries[0].root_cause(), Some("domain"));
        assert_eq!(f.entries[0].superseded_by(), None);
    }
}
