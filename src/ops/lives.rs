//! Every decision's life at once, for `zo site`: what `history::history` tells for one entry,
//! computed in one pass over the log, one over the sessions and one walk of git history.
//! `history` reads all three again for each entry it is asked about, which for a site of
//! 1,000 decisions is 1,000 parses of the log and 1,000 walks of history (seconds, growing
//! with the square of the log). The two must agree: `tests/site.rs`
//! (`lives_agree_with_history_for_every_entry`) compares them on every entry.

use super::history::{Event, Forget, History, Written, event};
use crate::format::decision::{DecisionLog, referenced_ids};
use crate::store::memory::Memory;
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;

/// The life of every entry of `log` (the memory's decision log), by index; None where
/// `history` would fail (an ID that names several entries).
pub fn all(memory: &Memory, log: &DecisionLog) -> Result<Vec<Option<History>>> {
    let n = log.entries.len();
    // OUTCOME and CONFIRM entries, by the entry they refer to, in file order.
    let (mut outcomes, mut confirmations): (Vec<Vec<usize>>, Vec<Vec<usize>>) =
        (vec![Vec::new(); n], vec![Vec::new(); n]);
    for (j, o) in log.entries.iter().enumerate() {
        let into = if o.is_outcome() {
            &mut outcomes
        } else if o.is_confirmation() {
            &mut confirmations
        } else {
            continue;
        };
        let Some(refs) = o.refs.as_deref() else {
            continue;
        };
        let mut targets: Vec<usize> = referenced_ids(refs)
            .iter()
            .filter_map(|r| log.find(r).ok())
            .filter(|&t| t != j)
            .collect();
        targets.sort_unstable();
        targets.dedup();
        for t in targets {
            into[t].push(j);
        }
    }
    // PROMOTE entries, by the decision they refer to (few: a map, not a vector per entry).
    let mut promoted: HashMap<usize, Vec<super::history::Promotion>> = HashMap::new();
    for (j, o) in log
        .entries
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_promotion())
    {
        for t in o
            .refs
            .as_deref()
            .map(referenced_ids)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| log.find(r).ok())
            .filter(|&t| t != j)
        {
            promoted
                .entry(t)
                .or_default()
                .push(super::history::promotion_of(memory, log, j));
        }
    }
    let sessions = sessions_listing(memory)?;
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let commits = match &repo {
        Some(repo) => repo.first_commits_holding(
            Path::new(&memory.layout.rel(&memory.layout.decision_log())),
            "**ID:** ",
        )?,
        None => HashMap::new(),
    };
    // Read once (`Repo::shallow_cut` reads it for each answer).
    let boundary = repo
        .as_ref()
        .and_then(|r| Some((r.shallow_boundary()?, r.shallow_note()?)));
    let mut out = Vec::with_capacity(n);
    for (i, e) in log.entries.iter().enumerate() {
        if log.find(&e.id).ok() != Some(i) {
            out.push(None);
            continue;
        }
        let mut supersedes = Vec::new();
        if let Some(v) = &e.supersedes {
            for r in referenced_ids(v) {
                if let Some(j) = log.find(&r).ok().filter(|&j| j != i) {
                    // As `history`: dated when the supersession was recorded (this entry's time).
                    supersedes.push(Event {
                        timestamp: e.timestamp.clone(),
                        ..event(log, j, false)
                    });
                }
            }
        }
        let superseded_by = log
            .superseded_by(i)
            .map(|b| event(log, log.find(&b.id).unwrap_or(i), false));
        let forgotten = e.is_forgotten().then(|| Forget {
            forgotten: log.field(i, "Forgotten").unwrap_or_default().to_string(),
            reason: log.field(i, "Reason").unwrap_or_default().to_string(),
        });
        let (session, agent) = sessions.get(e.id.as_str()).cloned().unwrap_or_default();
        let found = if e.id_derived {
            None
        } else {
            commits.get(&e.id).cloned()
        };
        // As `history`: in a shallow clone, an entry already in the oldest commit here has an
        // unknown first commit.
        let (commit, shallow) = match (&found, &boundary) {
            (Some(c), Some((ids, note))) if ids.contains(&c.id) => (None, Some(note.clone())),
            _ => (found, None),
        };
        out.push(Some(History {
            id: e.id.clone(),
            kind: e.kind.clone(),
            title: e.title.clone(),
            status: log.status(i),
            written: Written {
                timestamp: e.timestamp.clone(),
                here: crate::store::provenance::written_here(&memory.layout, &e.content(log)),
                session,
                agent,
                commit,
                shallow,
            },
            outcomes: outcomes[i].iter().map(|&j| event(log, j, true)).collect(),
            confirmations: confirmations[i]
                .iter()
                .map(|&j| event(log, j, false))
                .collect(),
            promoted: promoted.get(&i).cloned().unwrap_or_default(),
            supersedes,
            superseded_by,
            forgotten,
        }));
    }
    Ok(out)
}

/// (session file, agent) as `Written` holds them.
type Listing = (Option<String>, Option<String>);

/// For each ID a session's `## Decisions` lists: the first such session (oldest first) and the
/// agent it names (`-` is none).
fn sessions_listing(memory: &Memory) -> Result<HashMap<String, Listing>> {
    let mut out: HashMap<String, Listing> = HashMap::new();
    for s in memory.sessions()? {
        let Some(listed) = s.section(&["decisions"]) else {
            continue;
        };
        let ids: Vec<String> = listed
            .lines()
            .filter_map(crate::format::session::parse_listed)
            .map(|(l, _, _)| l.to_string())
            .filter(|l| !out.contains_key(l))
            .collect();
        if ids.is_empty() {
            continue;
        }
        let text = memory.session_text(&s.file_name)?;
        let agent = text
            .as_str()
            .lines()
            .take_while(|l| !l.starts_with("## "))
            .find_map(|l| {
                crate::format::fields::parse_field_line(l)
                    .filter(|(k, _)| *k == "Agent")
                    .map(|(_, v)| v.trim().to_string())
            })
            .filter(|a| !a.is_empty() && a != "-");
        for id in ids {
            out.entry(id)
                .or_insert_with(|| (Some(s.file_name.clone()), agent.clone()));
        }
    }
    Ok(out)
}
