//! sessions/session-<time>-<suffix>.md (older: session-NNN-YYYY-MM-DD.md): one summary per
//! session. Read here; written by the session commands.

use super::fields;

#[derive(Debug, Clone)]
pub struct SessionFile {
    pub file_name: String,
    pub number: Option<u32>,
    pub date: Option<String>,
    pub title: String,
    /// The `**Ended:**` field, when there is one.
    pub ended: Option<String>,
    /// `## ` sections: heading and body, in order.
    pub sections: Vec<(String, String)>,
}

/// What a session file's name says. New names carry the end time and a random suffix
/// (`session-2026-11-23T08-30-05-123Z-3fa9c1.md`), so two clones can never write the same name;
/// older names carry a number (`session-039-2026-06-11.md`) and are read as they are.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SessionName {
    pub date: String,
    /// `08-30-05-123` for new names.
    pub time: Option<String>,
    /// The number in an older name.
    pub number: Option<u32>,
}

pub fn parse_file_name(name: &str) -> Option<SessionName> {
    let rest = name.strip_prefix("session-")?.strip_suffix(".md")?;
    if crate::time::starts_with_date(rest) {
        let time = rest
            .get(10..)
            .and_then(|t| t.strip_prefix('T'))
            .and_then(|t| t.split_once('Z'))
            .map(|(t, _)| t.to_string());
        return Some(SessionName {
            date: rest[..10].to_string(),
            time,
            number: None,
        });
    }
    let (num, date) = rest.split_once('-')?;
    let n = num.parse().ok()?;
    crate::time::starts_with_date(date).then(|| SessionName {
        date: date[..10].to_string(),
        time: None,
        number: Some(n),
    })
}

/// The name of a session ended at `now` (RFC 3339 UTC, e.g. with milliseconds): time-ordered,
/// and unique across clones by its random suffix, so no merge ever has to combine two sessions.
pub fn new_file_name(now: &str, suffix: &str) -> String {
    format!("session-{}-{suffix}.md", now.replace([':', '.'], "-"))
}

/// Time order for any mix of session or snapshot names: by the time the name carries
/// (`name_time`; older session names, which have a date alone, first on their day), then
/// number; names that carry no time sort by name, first. A name dated in the future
/// (`time::is_future`) sorts before all: whatever picks the last one as the latest never picks
/// it (a planted `session-2099-…` owned "Next" forever). Snapshots go by their time, not their
/// phase's name: `phase_zz_2020-…` is older than `phase_3_2026-…` (it had owned the handoff).
pub fn sort_key(name: &str) -> (bool, Option<String>, Option<SessionName>, String) {
    let at = name_time(name);
    let future = at.as_deref().is_some_and(crate::time::is_future);
    (!future, at, parse_file_name(name), name.to_string())
}

/// The time a session's or snapshot's file name carries, as RFC 3339 (a date alone for an
/// older session name): `session-2026-11-23T08-30-05-123Z-3fa9c1.md` →
/// `2026-11-23T08:30:05Z`, `phase_1_2026-10-13T16-05-00.md` → `2026-10-13T16:05:00Z`.
pub fn name_time(name: &str) -> Option<String> {
    if let Some(n) = parse_file_name(name) {
        return Some(match n.time {
            Some(t) if t.len() >= 8 => format!("{}T{}:{}:{}Z", n.date, &t[..2], &t[3..5], &t[6..8]),
            _ => n.date,
        });
    }
    // A snapshot: `<phase>_<YYYY-MM-DDTHH-MM-SS>.md`.
    let stem = name.strip_suffix(".md")?;
    let at = stem.len().checked_sub(19)?;
    let t = stem.get(at..)?;
    let b = t.as_bytes();
    (crate::time::starts_with_date(t) && b[10] == b'T' && b[13] == b'-' && b[16] == b'-')
        .then(|| format!("{}T{}:{}:{}Z", &t[..10], &t[11..13], &t[14..16], &t[17..19]))
}

/// The number in a `# Session NNN …` title line.
pub fn title_number(text: &str) -> Option<u32> {
    let first = text.trim_start_matches('\u{feff}').lines().next()?;
    let rest = first.strip_prefix("# Session ")?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Where each session of a file starts: top-level `# Session` headings outside code fences.
/// One offset for a normal file; more when an older merge put two sessions in one file.
pub fn session_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut fence = fields::Fence::default();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let l = fields::strip_eol(line);
        if !fence.feed(l) && l.starts_with("# Session ") {
            out.push(at);
        }
        at += line.len();
    }
    out
}

impl SessionFile {
    pub fn parse(file_name: &str, text: &str) -> SessionFile {
        let (number, date) = match parse_file_name(file_name) {
            Some(n) => (n.number.or_else(|| title_number(text)), Some(n.date)),
            None => (title_number(text), None),
        };
        let mut title = String::new();
        let mut ended = None;
        let mut sections: Vec<(String, String)> = Vec::new();
        let mut fence = fields::Fence::default();
        for line in text.split_inclusive('\n') {
            let l = fields::strip_eol(line);
            let in_fence = fence.feed(l);
            match fields::heading(l, 2) {
                Some((1, t)) if !in_fence && title.is_empty() => title = t.to_string(),
                Some((2, t)) if !in_fence => sections.push((t.to_string(), String::new())),
                _ => {
                    if sections.is_empty() && !in_fence {
                        if let Some(("Ended", v)) = fields::parse_field_line(l) {
                            ended = Some(v.trim().to_string());
                        }
                    }
                    if let Some((_, body)) = sections.last_mut() {
                        body.push_str(l);
                        body.push('\n');
                    }
                }
            }
        }
        for (_, b) in &mut sections {
            *b = fields::normalize_value(b);
        }
        SessionFile {
            file_name: file_name.to_string(),
            number,
            date,
            title,
            ended,
            sections,
        }
    }

    /// The body of the first section whose heading starts with one of `names` (any case).
    pub fn section(&self, names: &[&str]) -> Option<&str> {
        self.sections
            .iter()
            .find(|(h, _)| names.iter().any(|n| h.to_ascii_lowercase().starts_with(n)))
            .map(|(_, b)| b.as_str())
    }
}

/// What a session's end writes, every text already shown as the caller wants it (the gate's
/// `visible` applied to what came from the logs and the machine).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub number: u32,
    /// When it ended (RFC 3339); its date heads the title.
    pub ended: String,
    pub started: String,
    pub machine: String,
    pub phase: String,
    pub agent: String,
    /// The gate's lines for secrets let through (`allowance_lines`), or empty.
    pub allowances: String,
    pub attempted: String,
    pub shipped: Vec<String>,
    /// `(ID, title)`.
    pub decisions: Vec<(String, String)>,
    /// `(ID, title, prior_marker)`: a merge may renumber the prior, the marker still finds it.
    pub priors: Vec<(String, String, String)>,
    pub blockers: Vec<String>,
    pub next: Vec<String>,
}

impl Rendered {
    pub fn render(&self) -> String {
        let one = |s: &str| s.replace('\n', " ");
        let bullets = |v: &[String]| {
            if v.is_empty() {
                "none".into()
            } else {
                v.iter()
                    .map(|i| format!("- {}", one(i)))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        };
        let decisions = if self.decisions.is_empty() {
            "none".to_string()
        } else {
            self.decisions
                .iter()
                .map(|(id, t)| format!("- {id} — {t}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let priors = if self.priors.is_empty() {
            "none".to_string()
        } else {
            self.priors
                .iter()
                .map(|(id, t, m)| format!("- {id} — {t} {m}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "# Session {:03} — {}\n\n**Started:** {}\n**Ended:** {}\n**Machine:** {}\n**Phase:** {}\n**Agent:** {}\n{}\n\
             ## Attempted\n{}\n\n## Shipped\n{}\n\n## Decisions\n{decisions}\n\n## Priors\n{priors}\n\n## Blockers\n{}\n\n## Next\n{}\n",
            self.number,
            self.ended.get(..10).unwrap_or(&self.ended),
            self.started,
            self.ended,
            self.machine,
            one(&self.phase),
            one(&self.agent),
            self.allowances,
            fields::escape_value(&fields::normalize_value(&self.attempted)),
            bullets(&self.shipped),
            bullets(&self.blockers),
            bullets(&self.next),
        )
    }
}

/// What a session file's `## Priors` line carries after the title: the prior's fingerprint
/// (`Prior::fingerprint`). A merge may renumber a prior after the session listed it; readers
/// find the prior by this, so a session always names the lesson it wrote. An HTML comment, so
/// rendered Markdown shows only `- PR-001 — title`.
pub fn prior_marker(fingerprint: &str) -> String {
    format!("<!-- zo:prior {fingerprint} -->")
}

/// A line of a session's list, `- ID — title` with an optional `prior_marker` after the title:
/// (ID, title, fingerprint). Older lists may hold the ID alone.
pub fn parse_listed(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let rest = fields::strip_eol(line)
        .trim()
        .strip_prefix("- ")?
        .trim_start();
    let (id, title) = match rest.split_once(" — ") {
        Some((id, title)) if !id.contains(char::is_whitespace) => (id, title),
        _ => (rest.split_whitespace().next()?, ""),
    };
    let marked = title
        .strip_suffix(" -->")
        .and_then(|t| t.rsplit_once(" <!-- zo:prior "));
    Some(match marked {
        Some((title, fp)) if !fp.is_empty() && fp.bytes().all(|b| b.is_ascii_hexdigit()) => {
            (id, title, Some(fp))
        }
        _ => (id, title, None),
    })
}

/// The heading of a session file `zo forget` emptied.
pub const FORGOTTEN_HEADING: &str = "# Session: [forgotten]";

/// A forgotten session file: its heading, when and why; the session's text is gone.
pub fn tombstone(when: &str, reason: &str) -> String {
    super::tombstone(
        FORGOTTEN_HEADING,
        &[("Forgotten", when), ("Reason", reason)],
    )
}

/// Whether a session file's text is a tombstone.
pub fn is_forgotten(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .starts_with(FORGOTTEN_HEADING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_session_parses_back() {
        let r = Rendered {
            number: 7,
            ended: "2026-11-25T20:00:00Z".into(),
            started: "2026-11-25T19:00:00Z".into(),
            machine: "host".into(),
            phase: "phase_1".into(),
            agent: "claude".into(),
            attempted: "Ship the thing\n\n## not a heading".into(),
            shipped: vec!["a".into()],
            decisions: vec![("D-20261125-001".into(), "Use Postgres".into())],
            priors: vec![(
                "PR-001".into(),
                "Pin the toolchain".into(),
                prior_marker("abc"),
            )],
            next: vec!["b".into(), "c".into()],
            ..Default::default()
        };
        let f = SessionFile::parse("2026-11-25T20-00-00_abcd.md", &r.render());
        assert_eq!(f.title, "Session 007 — 2026-11-25");
        assert_eq!(f.ended.as_deref(), Some("2026-11-25T20:00:00Z"));
        // A heading in the text is escaped: it starts no section of its own.
        assert_eq!(f.sections.len(), 6, "{:?}", f.sections);
        assert!(
            f.section(&["attempted"])
                .unwrap()
                .starts_with("Ship the thing\n")
        );
        assert_eq!(
            f.section(&["decisions"]),
            Some("- D-20261125-001 — Use Postgres")
        );
        let (id, title, marker) = parse_listed(f.section(&["priors"]).unwrap()).unwrap();
        assert_eq!(
            (id, title, marker),
            ("PR-001", "Pin the toolchain", Some("abc"))
        );
        assert_eq!(f.section(&["next"]), Some("- b\n- c"));
        assert_eq!(f.section(&["blockers"]), Some("none"));
    }

    #[test]
    fn listed_lines_parse_with_and_without_a_marker() {
        assert_eq!(
            parse_listed("- PR-001 — A lesson <!-- zo:prior 0a1b2c3d4e5f -->\n"),
            Some(("PR-001", "A lesson", Some("0a1b2c3d4e5f")))
        );
        assert_eq!(
            parse_listed("- PR-001 — A lesson"),
            Some(("PR-001", "A lesson", None))
        );
        assert_eq!(parse_listed("- PR-001"), Some(("PR-001", "", None)));
        // A title that only looks like a marker keeps its text.
        assert_eq!(
            parse_listed("- PR-001 — x <!-- zo:prior not hex -->"),
            Some(("PR-001", "x <!-- zo:prior not hex -->", None))
        );
        assert_eq!(parse_listed("none"), None);
    }
}
