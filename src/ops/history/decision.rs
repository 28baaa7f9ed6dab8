//! A decision's life: written (when, in which session, by which agent, in which commit), its
//! outcomes and confirmations, what it superseded and what superseded it, and a forget.

use super::{Forget, commit_text, session_listing, written_line};
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
    pub status: crate::format::Status,
    pub written: Written,
    /// OUTCOME entries that refer to it, oldest first.
    pub outcomes: Vec<Event>,
    /// CONFIRM entries that refer to it, oldest first.
    pub confirmations: Vec<Event>,
    /// PROMOTE entries that refer to it: copies in linked memories (`zo promote`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub promoted: Vec<Promotion>,
    /// The decisions it superseded.
    pub supersedes: Vec<Event>,
    pub superseded_by: Option<Event>,
    pub forgotten: Option<Forget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub timestamp: String,
    /// Written by zo on this machine (`store::provenance`), as opposed to pulled.
    pub here: bool,
    /// The session file that lists it, if one does.
    pub session: Option<String>,
    /// The agent that session names, when it names one.
    pub agent: Option<String>,
    /// The earliest commit whose version of the log holds it (None: not committed, or no git,
    /// or unknown in a shallow clone).
    pub commit: Option<CommitRef>,
    /// In a shallow clone, when the entry is already in the oldest commit here: the first
    /// commit is unknown, and this says where history stops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<String>,
}

/// Another entry in this one's life.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub id: String,
    /// When it happened in this life: the other entry's time, except in `supersedes`, where
    /// it is this entry's (the supersession was recorded with it).
    pub timestamp: String,
    pub title: String,
    /// The outcome's text, for an OUTCOME.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// A copy of the entry in a linked memory, as the PROMOTE entry `id` records it.
#[derive(Debug, Clone, Serialize)]
pub struct Promotion {
    pub id: String,
    pub timestamp: String,
    /// The copy, as recorded: `team:PR-004`.
    pub to: String,
    /// Where the copy is now, when a merge in the linked memory renumbered it (another lesson
    /// holds the recorded number since).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
}

impl Promotion {
    /// Its line in a history.
    pub fn line(&self) -> String {
        let now = self
            .now
            .as_deref()
            .map(|n| format!(" (now {n}: a merge there renumbered it)"))
            .unwrap_or_default();
        format!(
            "  promoted    {}  {}  to {}{now}\n",
            self.timestamp, self.id, self.to
        )
    }
}

/// The promotion PROMOTE entry `j` records (`promoted to team:PR-004 (blake3:…)`), with where
/// its copy is now when that moved.
pub fn promotion_of(memory: &Memory, log: &DecisionLog, j: usize) -> Promotion {
    let text = log.field(j, "Decision").unwrap_or_default().trim();
    let rest = text.trim_start_matches("promoted to ");
    let (to, hash) = match rest.split_once(" (") {
        Some((to, h)) => (to.to_string(), Some(h.trim_end_matches(')').to_string())),
        None => (rest.to_string(), None),
    };
    let now = hash
        .and_then(|h| crate::ops::promote::copy_now(memory, &to, &h))
        .filter(|n| *n != to);
    Promotion {
        id: log.entries[j].id.clone(),
        timestamp: log.entries[j].timestamp.clone(),
        to,
        now,
    }
}

/// The PROMOTE entries of `log` (`memory`'s) that refer to the entry `is_me` accepts, oldest
/// first.
pub(in crate::ops) fn promotions(
    memory: &Memory,
    log: &DecisionLog,
    is_me: impl Fn(&str) -> bool,
) -> Vec<Promotion> {
    (0..log.entries.len())
        .filter(|&j| {
            log.entries[j].is_promotion()
                && log.entries[j]
                    .refs
                    .as_deref()
                    .is_some_and(|r| referenced_ids(r).iter().any(|id| is_me(id)))
        })
        .map(|j| promotion_of(memory, log, j))
        .collect()
}

/// An event of an entry's life: the log entry `j` (with its outcome when `outcome`).
pub(in crate::ops) fn event(log: &DecisionLog, j: usize, outcome: bool) -> Event {
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
    let i = log
        .find(id)
        .map_err(|e| crate::store::memory::find_error(e, id, &file))?;
    let e = &log.entries[i];
    let resolves_to_me = |v: &str| {
        referenced_ids(v)
            .iter()
            .any(|r| log.find(r).ok() == Some(i))
    };
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
                // Dated when the supersession was recorded (this entry's time), so the life
                // reads in time order; the superseded entry's own time is on its page.
                supersedes.push(Event {
                    timestamp: e.timestamp.clone(),
                    ..event(&log, j, false)
                });
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
    let (commit, shallow) = match crate::git::Repo::discover(&memory.layout.root) {
        // The ID line, not the bare ID: an OUTCOME's Refs names the ID only after it exists.
        Some(repo) if !e.id_derived => repo.shallow_cut(repo.first_commit_holding(
            Path::new(&memory.layout.rel(&memory.layout.decision_log())),
            &format!("**ID:** {}", e.id),
        )?),
        _ => (None, None),
    };
    Ok(History {
        id: e.id.clone(),
        kind: e.kind.clone(),
        title: e.title.clone(),
        status: log.status(i),
        written: Written {
            timestamp: e.timestamp.clone(),
            here: crate::store::provenance::written_here(&memory.layout, &e.content(&log)),
            session,
            agent,
            commit,
            shallow,
        },
        promoted: promotions(memory, &log, |r| log.find(r).ok() == Some(i)),
        outcomes,
        confirmations,
        supersedes,
        superseded_by,
        forgotten,
    })
}

/// The session whose `## Decisions` list names `id`, and the agent it names (`-` is none).
fn session_of(memory: &Memory, id: &str) -> Result<(Option<String>, Option<String>)> {
    Ok(session_listing(memory, &["decisions"], id)?
        .map_or((None, None), |l| (Some(l.file), l.agent)))
}

impl History {
    /// The life as people read it, one line per event, oldest first.
    pub fn render(&self) -> String {
        // A tombstone's title is "[forgotten]" already: its status is not said twice.
        let status = if self.status == crate::format::Status::Forgotten
            && self.title == crate::format::fact::FORGOTTEN
        {
            String::new()
        } else {
            format!("  [{}]", self.status)
        };
        // An agent reads this too: a title the directive rules flag is marked, as `show` marks it.
        let flagged = if crate::store::screened::flags(&self.title).is_empty() {
            ""
        } else {
            "  [not approved: reads as an instruction to an agent]"
        };
        // The title itself is not printed then: the output gate would take the line out whole.
        let title = crate::store::screened::title_or(&self.title, "(title withheld)");
        let mut s = format!("{}  {}  {title}{status}{flagged}\n", self.id, self.kind);
        let w = &self.written;
        s.push_str(&written_line(
            &w.timestamp,
            w.session.as_deref(),
            None,
            w.agent.as_deref(),
            commit_text(w.commit.as_ref(), w.shallow.as_deref()),
        ));
        for e in &self.supersedes {
            s.push_str(&format!(
                "  supersedes  {}  {}  {}\n",
                e.id, e.timestamp, e.title
            ));
        }
        for e in &self.confirmations {
            s.push_str(&format!("  confirmed   {}  {}\n", e.timestamp, e.id));
        }
        for e in &self.outcomes {
            s.push_str(&format!(
                "  outcome     {}  {}  {}\n",
                e.timestamp,
                e.id,
                e.outcome.as_deref().unwrap_or("")
            ));
        }
        for p in &self.promoted {
            s.push_str(&p.line());
        }
        if let Some(e) = &self.superseded_by {
            s.push_str(&format!(
                "  superseded  {}  by {}  {}\n",
                e.timestamp, e.id, e.title
            ));
        }
        if let Some(f) = &self.forgotten {
            s.push_str(&format!(
                "  forgotten   {}  reason: {}\n",
                f.forgotten, f.reason
            ));
        }
        s
    }
}
