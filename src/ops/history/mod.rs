//! `zo history ID`: an entry's whole life, from the files and git's history of them. One file
//! per kind of entry: `decision.rs` (written when, in which session, by which agent, in which
//! commit; its outcomes and confirmations, what it superseded and what superseded it, and a
//! forget), `prior.rs` and `fact.rs` (every version of a key). A forgotten entry shows the
//! tombstone (when, why), never the erased text. Here: `life()`, which picks the kind, and
//! what the lives share (the forget, the "written" line, the session that lists an entry).

use crate::git::CommitRef;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;

mod decision;
mod fact;
mod prior;

pub(super) use decision::event;
pub use decision::{Event, History, Promotion, Written, history, promotion_of};
pub use fact::{FactHistory, FactVersion, fact_history};
pub use prior::{PriorEvent, PriorHistory, PriorWritten, prior_history};

/// The "written" line of a life: when, in which session (ended when), by which agent, the commit.
fn written_line(
    when: &str,
    session: Option<&str>,
    ended: Option<&str>,
    agent: Option<&str>,
    commit: String,
) -> String {
    let mut line = format!("  written     {when}");
    if let Some(sess) = session {
        line.push_str(&format!("  in {sess}"));
        if let Some(e) = ended {
            line.push_str(&format!(" (ended {e})"));
        }
    }
    if let Some(a) = agent {
        line.push_str(&format!("  by {a}"));
    }
    line.push_str(&format!("  {commit}\n"));
    line
}

/// How a text report names the first commit that holds an entry.
pub(crate) fn commit_text(commit: Option<&CommitRef>, shallow: Option<&str>) -> String {
    match (commit, shallow) {
        (Some(c), _) => format!(
            "commit {} ({}, {}, {})",
            c.short,
            c.time,
            c.subject,
            c.by().split_once(" by ").map_or("", |x| x.1)
        ),
        (None, Some(note)) => format!("first commit unknown ({note})"),
        (None, None) => "not in any commit".into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Forget {
    pub forgotten: String,
    pub reason: String,
}

/// Any entry's life, as `zo history` prints it: a decision's, a prior's, or a fact key's.
/// Serialized as the report itself (a decision's is `History` unchanged); priors and facts say
/// which they are in `entry`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Life {
    Decision(History),
    Prior(PriorHistory),
    Fact(FactHistory),
}

impl Life {
    pub fn render(&self) -> String {
        match self {
            Life::Decision(h) => h.render(),
            Life::Prior(h) => h.render(),
            Life::Fact(h) => h.render(),
        }
    }
}

/// The life of whatever `id` names: `PR-…` a prior; `F-…` a fact version (its key's whole
/// life); `category:entity` a fact key; anything else a decision (an ID, a unique prefix or
/// its heading timestamp, which also holds colons).
pub fn life(memory: &Memory, id: &str) -> Result<Life> {
    let q = id.trim();
    let upper = q.to_ascii_uppercase();
    if upper.starts_with("PR-") {
        return Ok(Life::Prior(prior_history(memory, q)?));
    }
    if upper.starts_with("F-")
        || (q.contains(':')
            && !crate::time::starts_with_date(q)
            && crate::format::fact::check_key(q).is_ok())
    {
        return Ok(Life::Fact(fact_history(memory, q)?));
    }
    Ok(Life::Decision(history(memory, q)?))
}

/// A session file that lists an entry: its name, its end, its agent.
struct Listing {
    file: String,
    ended: Option<String>,
    agent: Option<String>,
}

/// The session whose `## <section>` list names `id`.
fn session_listing(memory: &Memory, section: &[&str], id: &str) -> Result<Option<Listing>> {
    for s in memory.sessions()? {
        let listed = s.section(section).is_some_and(|b| {
            b.lines()
                .filter_map(crate::format::session::parse_listed)
                .any(|(l, _, _)| l == id)
        });
        if listed {
            let agent = session_agent(memory, &s.file_name)?;
            return Ok(Some(Listing {
                file: s.file_name,
                ended: s.ended,
                agent,
            }));
        }
    }
    Ok(None)
}

/// The `**Agent:**` a session file's header names (`-` is none).
fn session_agent(memory: &Memory, name: &str) -> Result<Option<String>> {
    let text = memory.session_text(name)?;
    Ok(text
        .as_str()
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .find_map(|l| {
            crate::format::fields::parse_field_line(l)
                .filter(|(k, _)| *k == "Agent")
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|a| !a.is_empty() && a != "-"))
}
