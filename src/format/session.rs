//! sessions/session-NNN-YYYY-MM-DD.md: one summary per session. Read here; written by the
//! session commands.

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

/// `session-039-2026-06-11.md` → (39, "2026-06-11").
pub fn parse_file_name(name: &str) -> Option<(u32, String)> {
    let rest = name.strip_prefix("session-")?.strip_suffix(".md")?;
    let (num, date) = rest.split_once('-')?;
    let n = num.parse().ok()?;
    crate::time::starts_with_date(date).then(|| (n, date[..10].to_string()))
}

impl SessionFile {
    pub fn parse(file_name: &str, text: &str) -> SessionFile {
        let (number, date) = match parse_file_name(file_name) {
            Some((n, d)) => (Some(n), Some(d)),
            None => (None, None),
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
        SessionFile { file_name: file_name.to_string(), number, date, title, ended, sections }
    }

    /// The body of the first section whose heading starts with one of `names` (any case).
    pub fn section(&self, names: &[&str]) -> Option<&str> {
        self.sections
            .iter()
            .find(|(h, _)| names.iter().any(|n| h.to_ascii_lowercase().starts_with(n)))
            .map(|(_, b)| b.as_str())
    }
}
