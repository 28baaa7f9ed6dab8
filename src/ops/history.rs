//! `zo history ID`: a decision's whole life, from the files and git's history of them —
//! written (when, in which session, by which agent, in which commit), its outcomes and
//! confirmations, what it superseded and what superseded it, and a forget. A forgotten entry
//! shows the tombstone (when, why), never the erased text.

use crate::format::decision::{DecisionLog, referenced_ids};
use crate::git::CommitRef;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// The `--json` shape (SPEC §5, `zo history`).
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: &'static str,
    pub written: Written,
    /// OUTCOME entries that refer to it, oldest first.
    pub outcomes: Vec<Event>,
    /// CONFIRM entries that refer to it, oldest first.
    pub confirmations: Vec<Event>,
    /// The decisions it superseded.
    pub supersedes: Vec<Event>,
    pub superseded_by: Option<Event>,
    pub forgotten: Option<Forget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub timestamp: String,
    /// The session file that lists it, if one does.
    pub session: Option<String>,
    /// The agent that session names, when it names one.
    pub agent: Option<String>,
    /// The earliest commit whose version of the log holds it (None: not committed, or no git).
    pub commit: Option<CommitRef>,
}

/// Another entry in this one's life.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub id: String,
    pub timestamp: String,
    pub title: String,
    /// The outcome's text, for an OUTCOME.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Forget {
    pub forgotten: String,
    pub reason: String,
}

fn event(log: &DecisionLog, j: usize, outcome: bool) -> Event {
    let e = &log.entries[j];
    Event {
        id: e.id.clone(),
        timestamp: e.timestamp.clone(),
        title: e.title.clone(),
        outcome: outcome.then(|| log.field(j, "Outcome").unwrap_or_default().to_string()),
    }
}

/// The life of decision `id` (an ID, a unique prefix, or its heading timestamp).
pub fn history(memory: &Memory, id: &str) -> Result<History> {
    let log = memory.decisions()?;
    let file = memory.layout.show(&memory.layout.decision_log());
    let i = log.find(id).map_err(|e| crate::store::memory::find_error(e, id, &file))?;
    let e = &log.entries[i];
    let resolves_to_me = |v: &str| referenced_ids(v).iter().any(|r| log.find(r).ok() == Some(i));
    let (mut outcomes, mut confirmations, mut supersedes) = (Vec::new(), Vec::new(), Vec::new());
    for (j, o) in log.entries.iter().enumerate() {
        if j == i {
            continue;
        }
        if o.is_outcome() && o.refs.as_deref().is_some_and(resolves_to_me) {
            outcomes.push(event(&log, j, true));
        } else if o.is_confirmation() && o.refs.as_deref().is_some_and(resolves_to_me) {
            confirmations.push(event(&log, j, false));
        }
    }
    if let Some(v) = &e.supersedes {
        for r in referenced_ids(v) {
            if let Some(j) = log.find(&r).ok().filter(|&j| j != i) {
                supersedes.push(event(&log, j, false));
            }
        }
    }
    let superseded_by = log.superseded_by(i).map(|b| {
        let j = log.find(&b.id).unwrap_or(i);
        event(&log, j, false)
    });
    let forgotten = e.is_forgotten().then(|| Forget {
        forgotten: log.field(i, "Forgotten").unwrap_or_default().to_string(),
        reason: log.field(i, "Reason").unwrap_or_default().to_string(),
    });
    let (session, agent) = session_of(memory, &e.id)?;
    let commit = match crate::git::Repo::discover(&memory.layout.root) {
        // The ID line, not the bare ID: an OUTCOME's Refs names the ID only after it exists.
        Some(repo) if !e.id_derived => {
            repo.first_commit_holding(Path::new(&memory.layout.rel(&memory.layout.decision_log())), &format!("**ID:** {}", e.id))?
        }
        _ => None,
    };
    Ok(History {
        id: e.id.clone(),
        kind: e.kind.clone(),
        title: e.title.clone(),
        status: log.status(i),
        written: Written { timestamp: e.timestamp.clone(), session, agent, commit },
        outcomes,
        confirmations,
        supersedes,
        superseded_by,
        forgotten,
    })
}

/// The session whose `## Decisions` list names `id`, and the agent it names (`-` is none).
fn session_of(memory: &Memory, id: &str) -> Result<(Option<String>, Option<String>)> {
    for s in memory.sessions()? {
        let listed = s
            .section(&["decisions"])
            .is_some_and(|b| b.lines().filter_map(crate::format::session::parse_listed).any(|(l, _, _)| l == id));
        if !listed {
            continue;
        }
        let text = memory.session_text(&s.file_name)?;
        let agent = text
            .as_str()
            .lines()
            .take_while(|l| !l.starts_with("## "))
            .find_map(|l| crate::format::fields::parse_field_line(l).filter(|(k, _)| *k == "Agent").map(|(_, v)| v.trim().to_string()))
            .filter(|a| !a.is_empty() && a != "-");
        return Ok((Some(s.file_name), agent));
    }
    Ok((None, None))
}

impl History {
    /// The life as people read it, one line per event, oldest first.
    pub fn render(&self) -> String {
        let mut s = format!("{}  {}  {}  [{}]\n", self.id, self.kind, self.title, self.status);
        let w = &self.written;
        let mut line = format!("  written     {}", w.timestamp);
        if let Some(sess) = &w.session {
            line.push_str(&format!("  in {sess}"));
        }
        if let Some(a) = &w.agent {
            line.push_str(&format!("  by {a}"));
        }
        match &w.commit {
            Some(c) => line.push_str(&format!("  commit {} ({}, {})", c.short, c.time, c.subject)),
            None => line.push_str("  not in any commit"),
        }
        s.push_str(&line);
        s.push('\n');
        for e in &self.supersedes {
            s.push_str(&format!("  supersedes  {}  {}  {}\n", e.id, e.timestamp, e.title));
        }
        for e in &self.confirmations {
            s.push_str(&format!("  confirmed   {}  {}\n", e.timestamp, e.id));
        }
        for e in &self.outcomes {
            s.push_str(&format!("  outcome     {}  {}  {}\n", e.timestamp, e.id, e.outcome.as_deref().unwrap_or("")));
        }
        if let Some(e) = &self.superseded_by {
            s.push_str(&format!("  superseded  {}  by {}  {}\n", e.timestamp, e.id, e.title));
        }
        if let Some(f) = &self.forgotten {
            s.push_str(&format!("  forgotten   {}  reason: {}\n", f.forgotten, f.reason));
        }
        s
    }
}
