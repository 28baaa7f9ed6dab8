//! STATE.md: where the project stands. The `key: value` lines between the title and the first
//! `## ` heading are zo's; everything else is kept byte for byte on every rewrite.

use super::Text;
use super::fields;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    Scalar(String),
    List(Vec<String>),
}

impl Value {
    pub fn as_list(&self) -> Vec<String> {
        match self {
            Value::List(v) => v.clone(),
            Value::Scalar(s) if s.is_empty() || s == "null" || s == "none" => vec![],
            Value::Scalar(s) => vec![s.clone()],
        }
    }
    pub fn as_str(&self) -> String {
        match self {
            Value::Scalar(s) => s.clone(),
            Value::List(v) => v.join(", "),
        }
    }
}

#[derive(Debug, Clone)]
struct KeyLines {
    key: String,
    value: Value,
    /// Line range [first, last) in `lines`, covering `- item` continuation lines.
    first: usize,
    last: usize,
}

#[derive(Debug, Clone, Default)]
pub struct State {
    text: Text,
    lines: Vec<String>,
    keys: Vec<KeyLines>,
    /// Index in `lines` of the first `## ` heading (or lines.len()).
    header_end: usize,
}

fn parse_key(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    let ok = !k.is_empty()
        && k.len() <= 64
        && k.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then(|| (k, v.trim()))
}

fn parse_inline(v: &str) -> Value {
    match v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        Some(inner) if inner.trim().is_empty() => Value::List(vec![]),
        Some(inner) => Value::List(inner.split(',').map(|s| s.trim().to_string()).collect()),
        None => Value::Scalar(v.to_string()),
    }
}

fn list_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    (line.len() > t.len() || t.starts_with("- ")).then_some(())?;
    t.strip_prefix("- ").map(str::trim)
}

/// STATE.md's free-text section on where the work stands.
pub const POSITION: &str = "Current Position";
/// How zo's own line in it starts.
pub const LATEST: &str = "Latest: ";
/// The template's first line of it (templates/STATE.md).
const INITIALISED: &str = "Just initialised.";

impl State {
    pub fn parse(text: Text) -> State {
        let lines: Vec<String> = text
            .as_str()
            .split_inclusive('\n')
            .map(str::to_string)
            .collect();
        let mut keys: Vec<KeyLines> = Vec::new();
        let mut header_end = lines.len();
        let mut i = 0;
        while i < lines.len() {
            let line = fields::strip_eol(&lines[i]);
            if fields::heading(line, 2).is_some_and(|(l, _)| l == 2) {
                header_end = i;
                break;
            }
            if let Some((k, v)) = parse_key(line) {
                let mut value = parse_inline(v);
                let mut j = i + 1;
                if v.is_empty() {
                    let mut items = Vec::new();
                    while j < lines.len() {
                        match list_item(fields::strip_eol(&lines[j])) {
                            Some(item) => items.push(item.to_string()),
                            None => break,
                        }
                        j += 1;
                    }
                    if !items.is_empty() {
                        value = Value::List(items);
                    }
                }
                keys.push(KeyLines {
                    key: k.to_string(),
                    value,
                    first: i,
                    last: j,
                });
                i = j;
                continue;
            }
            i += 1;
        }
        State {
            text,
            lines,
            keys,
            header_end,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.keys.iter().find(|k| k.key == key).map(|k| &k.value)
    }

    pub fn scalar(&self, key: &str) -> Option<String> {
        self.get(key).map(Value::as_str).filter(|s| !s.is_empty())
    }

    pub fn list(&self, key: &str) -> Vec<String> {
        self.get(key).map(Value::as_list).unwrap_or_default()
    }

    /// All `key: value` fields in file order.
    pub fn fields(&self) -> Vec<(&str, &Value)> {
        self.keys
            .iter()
            .map(|k| (k.key.as_str(), &k.value))
            .collect()
    }

    /// The sections after the fields, verbatim.
    pub fn sections(&self) -> String {
        self.lines[self.header_end..].concat()
    }

    /// A field as STATE.md holds it (snapshots render their STATE section with it too).
    pub fn render_value(key: &str, value: &Value) -> String {
        match value {
            Value::Scalar(s) => format!("{key}: {}\n", s.replace('\n', " ")),
            Value::List(items) if items.iter().all(|i| !i.contains([',', '[', ']', '\n'])) => {
                format!("{key}: [{}]\n", items.join(", "))
            }
            Value::List(items) => {
                let mut s = format!("{key}:\n");
                for i in items {
                    s.push_str(&format!("  - {}\n", i.replace('\n', " ")));
                }
                s
            }
        }
    }

    /// Set a field: its lines are replaced in place, a new key goes after the last one. Every
    /// other line stays byte for byte.
    pub fn set(&mut self, key: &str, value: Value) {
        let eol = if self.text.crlf { "\r\n" } else { "\n" };
        let rendered = Self::render_value(key, &value).replace('\n', eol);
        let new_lines: Vec<String> = rendered.split_inclusive(eol).map(str::to_string).collect();
        let (first, last) = match self.keys.iter().find(|k| k.key == key) {
            Some(k) => (k.first, k.last),
            None => {
                let at = self.keys.last().map(|k| k.last).unwrap_or_else(|| {
                    // After the title line, if there is one.
                    usize::from(self.lines.first().is_some_and(|l| l.starts_with("# ")))
                });
                if at > 0 && !self.lines[at - 1].ends_with('\n') {
                    self.lines[at - 1].push_str(eol);
                }
                (at, at)
            }
        };
        self.lines.splice(first..last, new_lines);
        let text = self.text.with_text(self.lines.concat());
        *self = State::parse(text);
    }

    /// The lines of `## {name}`: its heading's index and the end of its text (the next `## `
    /// heading or the end of the file).
    fn section_lines(&self, name: &str) -> Option<(usize, usize)> {
        let level2 = |l: &str| {
            fields::heading(fields::strip_eol(l), 2)
                .filter(|(level, _)| *level == 2)
                .map(|(_, h)| h.trim().to_string())
        };
        let at = (self.header_end..self.lines.len())
            .find(|&i| level2(&self.lines[i]).is_some_and(|h| h.eq_ignore_ascii_case(name)))?;
        let end = (at + 1..self.lines.len())
            .find(|&i| level2(&self.lines[i]).is_some())
            .unwrap_or(self.lines.len());
        Some((at, end))
    }

    /// The text under `## {name}` (up to the next `## ` heading), if the section exists.
    pub fn section(&self, name: &str) -> Option<String> {
        let (at, end) = self.section_lines(name)?;
        Some(self.lines[at + 1..end].concat())
    }

    /// `## Current Position` with zo's line (`Latest: …`, what a session's end or a snapshot
    /// says) first, in place of the one before it and of the template's "Just initialised"
    /// line; whatever a person wrote there stays below it.
    pub fn set_position(&mut self, latest: &str) {
        let old = self.section(POSITION).unwrap_or_default();
        let kept: Vec<&str> = old
            .lines()
            .enumerate()
            .filter(|(i, l)| !(l.starts_with(INITIALISED) || (*i == 0 && l.starts_with(LATEST))))
            .map(|(_, l)| l)
            .collect();
        let kept = kept.join("\n");
        let body = if kept.trim().is_empty() {
            format!("{LATEST}{latest}")
        } else {
            format!("{LATEST}{latest}\n{}", kept.trim_end())
        };
        self.set_section(POSITION, &body);
    }

    /// Replace the text under `## {name}` (up to the next `## ` heading) with `body`, or add
    /// the section at the end. The heading and every other line stay byte for byte.
    pub fn set_section(&mut self, name: &str, body: &str) {
        let eol = if self.text.crlf { "\r\n" } else { "\n" };
        let body: Vec<String> = body
            .trim_end()
            .split('\n')
            .map(|l| format!("{}{eol}", l.trim_end_matches('\r')))
            .collect();
        match self.section_lines(name) {
            Some((at, end)) => {
                // A blank line before the next section stays.
                let mut new = body;
                if end < self.lines.len() {
                    new.push(eol.to_string());
                }
                if !self.lines[at].ends_with('\n') {
                    self.lines[at].push_str(eol);
                }
                self.lines.splice(at + 1..end, new);
            }
            None => {
                if let Some(last) = self.lines.last_mut().filter(|l| !l.ends_with('\n')) {
                    last.push_str(eol);
                }
                if self.lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    self.lines.push(eol.to_string());
                }
                self.lines.push(format!("## {name}{eol}"));
                self.lines.extend(body);
            }
        }
        let text = self.text.with_text(self.lines.concat());
        *self = State::parse(text);
    }

    /// The file's bytes.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.text.bom {
            out.push('\u{feff}');
        }
        out.push_str(&self.lines.concat());
        out
    }
}

/// The STATE.md fields a session's end copied from it (`zo session end` sets `next_steps`,
/// `active_blockers` and `last_completed_subtask` from its Next, Blockers and last Shipped
/// item), read back from the session file: what a forget of that session must take out too.
pub fn session_values(session: &str) -> Vec<(&'static str, Value)> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in session.lines() {
        let l = line.trim_end_matches('\r');
        if let Some(h) = l.strip_prefix("## ") {
            sections.push((h.trim().to_ascii_lowercase(), Vec::new()));
        } else if let (Some((_, items)), Some(item)) = (sections.last_mut(), l.strip_prefix("- ")) {
            items.push(item.trim().to_string());
        }
    }
    let items = |name: &str| {
        sections
            .iter()
            .find(|(h, _)| h == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    if let Some(last) = items("shipped").pop() {
        out.push(("last_completed_subtask", Value::Scalar(last)));
    }
    for (section, key) in [("blockers", "active_blockers"), ("next", "next_steps")] {
        let v = items(section);
        if !v.is_empty() {
            out.push((key, Value::List(v)));
        }
    }
    // The `Latest:` line its end wrote into `## Current Position` starts with its title's
    // number and date (`# Session 001 — 2026-03-01`).
    let title = session
        .lines()
        .next()
        .unwrap_or("")
        .strip_prefix("# Session ")
        .and_then(|t| t.split_once(" — "));
    if let Some((n, date)) = title {
        out.push((
            POSITION_KEY,
            Value::Scalar(format!(
                "{LATEST}Session {} ended {}",
                n.trim(),
                date.trim()
            )),
        ));
    }
    out
}

/// `session_values`' name for the session's `Latest:` line in `## Current Position`.
const POSITION_KEY: &str = "current_position";

/// Clear the STATE.md fields that still hold exactly what a session wrote (`values`, from
/// `session_values`); a field changed since is someone else's and stays. Returns the
/// keys cleared.
pub fn clear_session_values(state: &mut State, values: &[(&'static str, Value)]) -> Vec<String> {
    let norm = |v: &[String]| {
        v.iter()
            .map(|s| s.replace('\n', " ").trim().to_string())
            .collect::<Vec<_>>()
    };
    let mut cleared = Vec::new();
    for (key, wrote) in values {
        if *key == POSITION_KEY {
            // zo's line, when it is this session's, goes; a person's lines stay.
            let Value::Scalar(prefix) = wrote else {
                continue;
            };
            let Some(body) = state.section(POSITION) else {
                continue;
            };
            if body
                .lines()
                .next()
                .is_some_and(|l| l.starts_with(&format!("{prefix} (")))
            {
                let rest: Vec<&str> = body.lines().skip(1).collect();
                state.set_section(POSITION, rest.join("\n").trim());
                cleared.push(POSITION.to_string());
            }
            continue;
        }
        let Some(now) = state.get(key) else { continue };
        let same = match (wrote, now) {
            (Value::Scalar(w), now) => {
                now.as_str().replace('\n', " ").trim() == w.replace('\n', " ").trim()
            }
            (Value::List(w), now) => norm(&now.as_list()) == norm(w),
        };
        if same {
            let empty = match wrote {
                Value::Scalar(_) => Value::Scalar("none".into()),
                Value::List(_) => Value::List(vec![]),
            };
            state.set(key, empty);
            cleared.push(key.to_string());
        }
    }
    cleared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_section_replaces_one_section_and_keeps_the_rest() {
        let mut s = State::parse(Text::new(CANON.into()));
        s.set_section("Current Position", "Session 3 ended: shipped the API.");
        assert_eq!(
            s.sections(),
            "## Current Position\nSession 3 ended: shipped the API.\n\n## Other\n- not: a key\n"
        );
        s.set_section("Other", "replaced");
        assert!(
            s.render().ends_with(
                "## Current Position\nSession 3 ended: shipped the API.\n\n## Other\nreplaced\n"
            ),
            "{}",
            s.render()
        );
        let mut bare = State::parse(Text::new("# STATE\nproject: x\n".into()));
        bare.set_section("Current Position", "new");
        assert_eq!(
            bare.render(),
            "# STATE\nproject: x\n\n## Current Position\nnew\n"
        );
        assert_eq!(bare.scalar("project").as_deref(), Some("x"));
    }

    const CANON: &str = "# STATE\nproject: my-delivery\nmode: build\nphase: phase_3\nactive_blockers: [GPU quota on the training host]\nnext_steps:\n  - run ablation B, carefully\n  - write report\n\n## Current Position\nFree text, kept.\n\n## Other\n- not: a key\n";

    #[test]
    fn reads_scalars_and_both_list_forms() {
        let s = State::parse(Text::new(CANON.into()));
        assert_eq!(s.scalar("phase").as_deref(), Some("phase_3"));
        assert_eq!(
            s.list("active_blockers"),
            vec!["GPU quota on the training host"]
        );
        assert_eq!(
            s.list("next_steps"),
            vec!["run ablation B, carefully", "write report"]
        );
        assert_eq!(s.render(), CANON);
    }

    #[test]
    fn set_keeps_sections_byte_for_byte() {
        let mut s = State::parse(Text::new(CANON.into()));
        s.set("phase", Value::Scalar("phase_4".into()));
        s.set("next_steps", Value::List(vec!["ship".into()]));
        s.set("git_head", Value::Scalar("4be1c0d".into()));
        let out = s.render();
        assert!(out.contains("phase: phase_4\n"));
        assert!(out.contains("next_steps: [ship]\ngit_head: 4be1c0d\n\n## Current Position"));
        assert!(out.ends_with("## Current Position\nFree text, kept.\n\n## Other\n- not: a key\n"));
    }
}
