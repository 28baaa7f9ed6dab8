//! A prior's life: the session that lists it, the first commit that holds it, the priors it
//! superseded and the one that superseded it, and a forget.

use super::{Forget, commit_text, session_listing, written_line};
use crate::git::CommitRef;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// `zo history PR-…`: a prior's life. Priors carry no time of their own: when one was written
/// is told by the session that lists it (its end) and the first commit that holds it.
#[derive(Debug, Clone, Serialize)]
pub struct PriorHistory {
    /// `prior`.
    pub entry: &'static str,
    pub id: String,
    pub title: String,
    pub root_cause: Option<String>,
    /// `active`, `superseded` or `forgotten`.
    pub status: crate::format::Status,
    pub written: PriorWritten,
    /// PROMOTE entries of the decision log that refer to it: copies in linked memories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub promoted: Vec<super::decision::Promotion>,
    /// The priors whose `Superseded by` names this one.
    pub supersedes: Vec<PriorEvent>,
    pub superseded_by: Option<PriorEvent>,
    pub forgotten: Option<Forget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PriorWritten {
    /// The session file whose `## Priors` list names it, if one does.
    pub session: Option<String>,
    /// That session's end (`**Ended:**`).
    pub session_ended: Option<String>,
    pub agent: Option<String>,
    /// The earliest commit reachable from HEAD whose PRIORS.md holds its heading.
    pub commit: Option<CommitRef>,
    /// As `Written::shallow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<String>,
}

/// Another prior in this one's life, with the commit that first held it (a supersession is
/// written with the new prior).
#[derive(Debug, Clone, Serialize)]
pub struct PriorEvent {
    pub id: String,
    pub title: String,
    pub commit: Option<CommitRef>,
}

/// The life of prior `id` (`PR-046`, `PR-46`, or an older layout's `PR-h…`).
pub fn prior_history(memory: &Memory, id: &str) -> Result<PriorHistory> {
    let priors = memory.priors()?;
    let file = memory.layout.show(&memory.layout.priors());
    let Some(i) = priors.find(id) else {
        return Err(anyhow::anyhow!("no prior {id} in {file}"));
    };
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let rel = memory.layout.rel(&memory.layout.priors());
    let commit_of =
        |p: &crate::format::prior::Prior| -> Result<(Option<CommitRef>, Option<String>)> {
            // The heading keeps the number through a forget; an older prior's only stable text
            // is an `**ID:**` line (its tombstone's).
            let needle = match p.number {
                Some(n) => format!("## {}:", crate::format::prior::format_id(n)),
                None => format!("**ID:** {}", p.id),
            };
            match &repo {
                Some(r) => Ok(r.shallow_cut(r.first_commit_holding(Path::new(&rel), &needle)?)),
                None => Ok((None, None)),
            }
        };
    let ev = |j: usize| -> Result<PriorEvent> {
        let p = &priors.entries[j];
        Ok(PriorEvent {
            id: p.id.clone(),
            title: p.title.clone(),
            commit: commit_of(p)?.0,
        })
    };
    let p = &priors.entries[i];
    let superseded = priors.superseded();
    let mut supersedes = Vec::new();
    for (j, o) in priors.entries.iter().enumerate() {
        if j != i && o.superseded_by().and_then(|b| priors.find(b)) == Some(i) {
            supersedes.push(ev(j)?);
        }
    }
    let superseded_by = match p
        .superseded_by()
        .and_then(|b| priors.find(b))
        .filter(|&j| j != i)
    {
        Some(j) => Some(ev(j)?),
        None => None,
    };
    let forgotten = p.is_forgotten().then(|| Forget {
        forgotten: p.field("Forgotten").unwrap_or_default().trim().to_string(),
        reason: p.field("Reason").unwrap_or_default().trim().to_string(),
    });
    use crate::format::Status;
    let status = if forgotten.is_some() {
        Status::Forgotten
    } else if superseded[i] {
        Status::Superseded
    } else {
        Status::Active
    };
    let (session, session_ended, agent) = match session_listing(memory, &["priors"], &p.id)? {
        Some(l) => (Some(l.file), l.ended, l.agent),
        None => (None, None, None),
    };
    Ok(PriorHistory {
        entry: "prior",
        id: p.id.clone(),
        title: p.title.clone(),
        root_cause: if forgotten.is_some() {
            None
        } else {
            p.root_cause().map(str::to_string)
        },
        status,
        written: {
            let (commit, shallow) = commit_of(p)?;
            PriorWritten {
                session,
                session_ended,
                agent,
                commit,
                shallow,
            }
        },
        promoted: super::decision::promotions(memory, &memory.decisions()?, |r| {
            r.eq_ignore_ascii_case(&p.id)
        }),
        supersedes,
        superseded_by,
        forgotten,
    })
}

impl PriorHistory {
    pub fn render(&self) -> String {
        let mut s = format!("{}  prior  {}  [{}]\n", self.id, self.title, self.status);
        if let Some(rc) = &self.root_cause {
            s.push_str(&format!("  root cause  {rc}\n"));
        }
        let w = &self.written;
        let when = "(priors carry no time of their own)";
        s.push_str(&written_line(
            when,
            w.session.as_deref(),
            w.session_ended.as_deref(),
            w.agent.as_deref(),
            commit_text(w.commit.as_ref(), w.shallow.as_deref()),
        ));
        for e in &self.supersedes {
            s.push_str(&format!("  supersedes  {}  {}\n", e.id, e.title));
        }
        for p in &self.promoted {
            s.push_str(&p.line());
        }
        if let Some(e) = &self.superseded_by {
            let when = e
                .commit
                .as_ref()
                .map(|c| format!("  (commit {}, {})", c.short, c.time))
                .unwrap_or_default();
            s.push_str(&format!("  superseded  by {}  {}{when}\n", e.id, e.title));
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
