//! `zo stale`: decisions rot when the code they govern moves on. A decision made with
//! `--paths` records the commit it was made at; here each active one is measured against HEAD
//! (commits that touched its paths, lines changed under them, read with gix) and flagged when
//! either passes a threshold.

use crate::format::decision::DecisionLog;
use crate::store::memory::Memory;
use anyhow::Result;
use std::collections::HashMap;

/// Flag a decision when this many commits touched its paths since …
pub const COMMITS: usize = 5;
/// … or this many lines under them changed.
pub const LINES: u64 = 200;

#[derive(Debug, Clone, serde::Serialize)]
pub struct StaleEntry {
    pub id: String,
    pub title: String,
    pub paths: Vec<String>,
    /// The commit it was made at (short), None when that commit is not in this repository.
    pub since: Option<String>,
    pub commits: usize,
    pub lines: u64,
    pub stale: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct StaleReport {
    /// Active decisions that name paths.
    pub checked: usize,
    pub stale: usize,
    pub decisions: Vec<StaleEntry>,
}

/// The stale active decisions by ID, measured with the default thresholds; cheap when no
/// decision names paths (the common case: no git is read).
pub fn stale_ids(memory: &Memory, log: &DecisionLog) -> Result<HashMap<String, StaleEntry>> {
    if !log.may_name_paths() {
        return Ok(Default::default());
    }
    Ok(measure(memory, log, COMMITS, LINES)?
        .decisions
        .into_iter()
        .filter(|d| d.stale)
        .map(|d| (d.id.clone(), d))
        .collect())
}

pub use crate::format::decision::names_paths;

/// Every active decision with paths, measured. `commits` / `lines`: the thresholds.
pub fn stale(memory: &Memory, commits: usize, lines: u64) -> Result<StaleReport> {
    measure(memory, &memory.decisions()?, commits, lines)
}

fn measure(memory: &Memory, log: &DecisionLog, commits: usize, lines: u64) -> Result<StaleReport> {
    let repo = crate::git::Repo::discover(&memory.layout.root);
    let mut out = Vec::new();
    for i in 0..log.entries.len() {
        let e = &log.entries[i];
        if e.is_annotation() || log.status(i) != crate::format::Status::Active {
            continue;
        }
        let Some(paths) = log.field(i, "Paths") else {
            continue;
        };
        let paths: Vec<String> = paths
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let commit = log.field(i, "Commit").unwrap_or("").trim();
        let moved = match (&repo, commit.is_empty()) {
            (Some(r), false) => r.changes_since(commit, &paths)?,
            _ => None,
        };
        let (c, l) = moved.as_ref().map_or((0, 0), |m| (m.commits, m.lines));
        out.push(StaleEntry {
            id: e.id.clone(),
            title: e.title.clone(),
            paths,
            since: moved.map(|m| m.since_short),
            commits: c,
            lines: l,
            stale: c >= commits || l >= lines,
        });
    }
    Ok(StaleReport {
        checked: out.len(),
        stale: out.iter().filter(|s| s.stale).count(),
        decisions: out,
    })
}
