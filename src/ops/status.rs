//! Where the project stands (`zo status`), and the index's health, computed in one place for
//! `status`, `doctor` and `index status`.

use crate::search::index::Index;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct IndexHealth {
    pub path: String,
    pub built: bool,
    pub fresh: bool,
    /// `hybrid` when a model is installed, else `lexical`.
    pub mode: &'static str,
    pub entries: usize,
    pub embedded: usize,
    pub pending_embeddings: usize,
    pub model: Option<std::path::PathBuf>,
    pub runtime: Option<std::path::PathBuf>,
    /// Why the index could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The index's health, without building or changing it.
pub fn index_health(memory: &Memory) -> IndexHealth {
    let layout = &memory.layout;
    let path = layout.index_db();
    let search = crate::search::embedding::locate(&layout.config);
    let mut h = IndexHealth {
        path: layout.show(&path),
        built: path.exists(),
        fresh: false,
        mode: if search.paths().is_ok() {
            "hybrid"
        } else {
            "lexical"
        },
        entries: 0,
        embedded: 0,
        pending_embeddings: 0,
        model: search.model_dir.clone(),
        runtime: search.runtime.clone(),
        error: None,
    };
    if h.built {
        let read = Index::open(layout, &|_| {})
            .and_then(|(ix, _)| Ok((ix.is_fresh(memory)?, ix.counts()?, ix.pending_embeddings()?)));
        match read {
            Ok((fresh, (n, e, _), p)) => {
                (h.fresh, h.entries, h.embedded, h.pending_embeddings) = (fresh, n, e, p)
            }
            Err(e) => h.error = Some(format!("{e:#}")),
        }
    }
    h
}

/// What `status` shows of the index (mode, built, fresh), without counting its rows: the
/// counts read every row of a large index.
pub fn index_state(memory: &Memory) -> IndexState {
    let layout = &memory.layout;
    let path = layout.index_db();
    let mode = if crate::search::embedding::locate(&layout.config)
        .paths()
        .is_ok()
    {
        "hybrid"
    } else {
        "lexical"
    };
    let built = path.exists();
    let fresh = built
        && Index::open(layout, &|_| {})
            .and_then(|(ix, _)| ix.is_fresh(memory))
            .unwrap_or(false);
    IndexState { mode, fresh, built }
}

#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    pub decisions: usize,
    pub outcomes: usize,
    /// Decisions waiting for `zo confirm`.
    pub provisional: usize,
    /// Active decisions whose governed paths changed a lot since (`zo stale`).
    pub stale: usize,
    /// Keys with a value that holds (project and user).
    pub facts: usize,
    pub priors: usize,
    pub sessions: usize,
    pub snapshots: usize,
    /// Pairs of active decisions on one subject with different choices (`zo verify` names them).
    pub contradictions: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct LastDecision {
    pub id: String,
    pub timestamp: String,
    pub title: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct IndexState {
    pub mode: &'static str,
    pub fresh: bool,
    pub built: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct GitState {
    pub repository: bool,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub zo_dirty: Option<bool>,
    /// `committed`, `uncommitted` or `missing`.
    pub merge_routing: Option<&'static str>,
    /// `local`, `global` or null.
    pub merge_driver: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub project: String,
    pub phase: Option<String>,
    pub mode: Option<String>,
    pub updated: Option<String>,
    pub blockers: Vec<String>,
    pub next_steps: Vec<String>,
    pub counts: Counts,
    pub last_decision: Option<LastDecision>,
    pub last_session: Option<String>,
    pub last_snapshot: Option<String>,
    pub memory: String,
    pub legacy_layout: bool,
    pub index: IndexState,
    pub git: GitState,
    /// Notes for a person (an unreadable STATE.md, git trouble); not part of the JSON.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// `.zo` relative to the root, and `.gitattributes` as shown to a person: for the text.
    #[serde(skip)]
    pub zo_dir: String,
    #[serde(skip)]
    pub attributes_file: String,
}

pub fn status(memory: &Memory) -> Result<StatusReport> {
    let layout = &memory.layout;
    // A memory file zo cannot read (a bad byte, no permission) is a warning naming it: the
    // rest of the status still comes (its counts are then of what was read).
    let mut warnings: Vec<String> = Vec::new();
    let mut unread = |e: anyhow::Error| warnings.push(format!("not read: {e:#}"));
    let (log, log_conflict) = memory.decisions_quick().unwrap_or_else(|e| {
        unread(e);
        Default::default()
    });
    let priors = memory.priors().unwrap_or_else(|e| {
        unread(e);
        Default::default()
    });
    let facts = memory
        .fact_list(None, None, false)
        .map(|f| f.len())
        .unwrap_or_else(|e| {
            unread(e);
            0
        });
    warnings.extend(
        memory
            .conflict_markers_in(log_conflict)
            .iter()
            .map(|p| p.to_string()),
    );
    let (state, warning) = memory.state();
    warnings.extend(warning);
    let sessions = memory.session_names()?;
    let snapshots = memory.snapshot_names()?;
    let decisions = log.decision_count();
    let last = log.entries.iter().rev().find(|e| !e.is_annotation());
    let repo = crate::git::Repo::discover(&layout.root);
    let head = repo.as_ref().map(|r| r.head());
    let zo_rel = zo_dir_rel(memory);
    let zo_dirty = repo
        .as_ref()
        .map(|r| r.is_dirty_under(&zo_rel))
        .transpose()
        .unwrap_or_else(|e| {
            warnings.push(format!(
                "could not tell whether {zo_rel}/ has uncommitted changes: {e:#}"
            ));
            None
        });
    let health = index_state(memory);
    Ok(StatusReport {
        project: state.scalar("project").unwrap_or_else(|| layout.project()),
        phase: state.scalar("phase"),
        mode: state.scalar("mode"),
        updated: state.scalar("timestamp"),
        blockers: state.list("active_blockers"),
        next_steps: state.list("next_steps"),
        counts: Counts {
            decisions,
            outcomes: log.entries.iter().filter(|e| e.is_outcome()).count(),
            provisional: (0..log.entries.len())
                .filter(|&i| log.status(i) == crate::format::Status::Provisional)
                .count(),
            stale: crate::lifecycle::stale::stale_ids(memory, &log)?.len(),
            facts,
            priors: priors.entries.len(),
            sessions: sessions.len(),
            snapshots: snapshots.len(),
            contradictions: crate::lifecycle::contradictions::cached(layout, &log).len(),
        },
        last_decision: last.map(|e| LastDecision {
            id: e.id.clone(),
            timestamp: e.timestamp.clone(),
            title: e.title.clone(),
        }),
        last_session: sessions.last().cloned(),
        last_snapshot: snapshots.last().cloned(),
        memory: layout.show(&layout.memory),
        legacy_layout: layout.legacy,
        index: health,
        git: GitState {
            repository: repo.is_some(),
            branch: head.as_ref().and_then(|h| h.branch.clone()),
            head: head.as_ref().and_then(|h| h.head.clone()),
            zo_dirty,
            merge_routing: repo
                .as_ref()
                .map(|r| crate::wiring::hooks::routing_state(layout, r)),
            // Registered in .git/config (what `zo init` does) is read without starting git;
            // anything else asks git itself (global scope, GIT_CONFIG_GLOBAL, includes).
            merge_driver: repo
                .as_ref()
                .and_then(|r| match r.local_config("merge.zo.driver") {
                    Some(v) if v.contains("merge-driver") => Some("local"),
                    _ => crate::wiring::hooks::driver_scope(&layout.root),
                }),
        },
        warnings,
        attributes_file: layout.show(&crate::wiring::hooks::attributes_file(layout)),
        zo_dir: zo_rel,
    })
}

/// `.zo` (or the older layout's memory directory), relative to the root.
pub fn zo_dir_rel(memory: &Memory) -> String {
    let l = &memory.layout;
    if l.legacy {
        l.rel(&l.memory)
    } else {
        l.rel(&l.zo_dir)
    }
}
