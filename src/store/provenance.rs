//! Provenance (SPEC §3a "Memory poisoning and provenance"): where an entry came from — written
//! by zo on this machine, or arrived in a commit by an author (signed or not). What this
//! machine wrote is kept in the user's private cache directory (`written`: one ID a line), never
//! in the repository, so a commit cannot claim to be local; the commit and author come from
//! git's history (`git::Repo::first_commits_holding`). `seen` keeps, per repository, the HEAD
//! the user's last session started at, so the bundle can say what arrived since and from whom.

use crate::git::{CommitRef, Repo};
use crate::store::fsio;
use crate::store::layout::Layout;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

/// An entry's origin as reports show it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Origin {
    /// Written by zo on this machine.
    pub here: bool,
    /// The first commit that holds it, with its author and whether it is signed (None: not
    /// committed, no git, or unknown).
    pub commit: Option<CommitRef>,
}

fn written_file() -> Option<PathBuf> {
    crate::store::layout::vector_cache_dir().map(|d| d.join("written"))
}

fn written() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        let Some(p) = written_file() else {
            return HashSet::new();
        };
        let Ok(Some(t)) = fsio::read_text(&p) else {
            return HashSet::new();
        };
        t.as_str()
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    })
}

/// Whether zo on this machine wrote entry `id`.
pub fn written_here(id: &str) -> bool {
    written().contains(id)
}

/// Note that zo on this machine wrote `id` (best effort: a write never fails over it).
pub fn note_written_here(id: &str) {
    let Some(p) = written_file() else { return };
    let Some(dir) = p.parent() else { return };
    if crate::store::layout::private_dir(dir).is_err() {
        return;
    }
    let old = fsio::read_text(&p)
        .ok()
        .flatten()
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    // Unsynced, as the session record: a crash loses at most the note, never memory, and an
    // fsync here would be milliseconds of every write.
    let _ = fsio::write_atomic_unsynced(&p, format!("{old}{id}\n").as_bytes());
}

/// The memory file an entry ID lives in, and the token that marks it there (`**ID:** D-…`,
/// `## PR-…:`), for the search of git's history.
fn file_and_prefix(layout: &Layout, id: &str) -> Option<(PathBuf, &'static str)> {
    let up = id.to_ascii_uppercase();
    if up.starts_with("PR-") {
        Some((layout.priors(), "## "))
    } else if up.starts_with("F-") {
        Some((layout.facts(), "**ID:** "))
    } else if up.starts_with("D-") {
        Some((layout.decision_log(), "**ID:** "))
    } else {
        None
    }
}

/// The origins of `ids` at once: one walk of each file's history.
pub fn origins(layout: &Layout, ids: &[&str]) -> Vec<Origin> {
    let repo = Repo::discover(&layout.root);
    let mut walks: std::collections::HashMap<
        PathBuf,
        std::collections::HashMap<String, CommitRef>,
    > = Default::default();
    ids.iter()
        .map(|id| {
            let commit = repo.as_ref().zip(file_and_prefix(layout, id)).and_then(
                |(repo, (file, prefix))| {
                    let found = walks.entry(file.clone()).or_insert_with(|| {
                        repo.first_commits_holding(std::path::Path::new(&layout.rel(&file)), prefix)
                            .unwrap_or_default()
                    });
                    found
                        .get(*id)
                        .or_else(|| found.get(&format!("{id}:")))
                        .cloned()
                },
            );
            Origin {
                here: written_here(id),
                commit,
            }
        })
        .collect()
}

/// Where the HEAD of the user's last session start in this repository is kept.
fn seen_file(layout: &Layout) -> Option<PathBuf> {
    let key = crate::format::sha256_hex(&layout.root.to_string_lossy());
    crate::store::layout::vector_cache_dir().map(|d| d.join("seen").join(&key[..16]))
}

/// The HEAD the user's last session started at here, if one did.
pub fn last_seen(layout: &Layout) -> Option<String> {
    let p = seen_file(layout)?;
    let t = fsio::read_text(&p).ok()??;
    let h = t.as_str().trim().to_string();
    crate::store::trust::is_commit_id(&h).then_some(h)
}

/// Remember HEAD as where this session started (best effort).
pub fn mark_seen(layout: &Layout, head: &str) {
    let Some(p) = seen_file(layout) else { return };
    let Some(dir) = p.parent() else { return };
    // HEAD where it was (most starts): nothing to write.
    if last_seen(layout).is_some_and(|h| h == head) {
        return;
    }
    if crate::store::layout::private_dir(dir).is_ok() {
        // Unsynced: it is on the hook path, and losing it only repeats an arrivals list.
        let _ = fsio::write_atomic_unsynced(&p, format!("{head}\n").as_bytes());
    }
}

/// An entry that arrived since the user's last session: pulled, not written here.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Arrival {
    pub id: String,
    pub title: String,
    /// The first commit since then that holds it (None when the range is too long to search).
    pub commit: Option<CommitRef>,
}

/// The most commits whose versions are searched for who brought each arrival: a longer range
/// (a first pull after months) names the entries without their commits.
const MAX_SEARCHED: usize = 64;

/// The entries of the decision log and priors that HEAD holds, the commit `since` did not, and
/// this machine did not write: what arrived since, by whom. `entries` are (ID, title) of the
/// current files, in file order. Empty when `since` is HEAD (the common case: no git work).
pub fn arrivals(layout: &Layout, since: &str, entries: &[(&str, &str)]) -> Vec<Arrival> {
    // The common case, HEAD where it was: answered from the ref files, no repository opened.
    if crate::git::head_id_fast(&layout.root).is_some_and(|h| h == since) {
        return vec![];
    }
    let Some(repo) = Repo::discover(&layout.root) else {
        return vec![];
    };
    let Some(head) = repo.head_full() else {
        return vec![];
    };
    if head == since {
        return vec![];
    }
    let (Some(from), Some(to)) = (repo.resolve_commit(since), repo.resolve_commit(&head)) else {
        return vec![];
    };
    let files = [layout.decision_log(), layout.priors(), layout.facts()];
    let rel = |f: &PathBuf| layout.rel(f);
    let then: Vec<Vec<u8>> = files
        .iter()
        .map(|f| {
            repo.file_at_ref(&from, std::path::Path::new(&rel(f)))
                .ok()
                .flatten()
                .unwrap_or_default()
        })
        .collect();
    let held_then = |id: &str| {
        then.iter()
            .any(|b| memchr::memmem::find(b, id.as_bytes()).is_some())
    };
    let new: Vec<(&str, &str)> = entries
        .iter()
        .filter(|(id, _)| !written_here(id) && !held_then(id))
        .copied()
        .collect();
    if new.is_empty() {
        return vec![];
    }
    let commits = repo.range(&from, &to).unwrap_or_default();
    let searched = commits.len() <= MAX_SEARCHED;
    let mut versions: Vec<(CommitRef, Vec<Vec<u8>>)> = Vec::new();
    if searched {
        for c in &commits {
            let blobs = files
                .iter()
                .map(|f| {
                    repo.file_at_ref(c, std::path::Path::new(&rel(f)))
                        .ok()
                        .flatten()
                        .unwrap_or_default()
                })
                .collect();
            versions.push((c.clone(), blobs));
        }
    }
    new.into_iter()
        .map(|(id, title)| {
            let commit = versions
                .iter()
                .find(|(_, blobs)| {
                    blobs
                        .iter()
                        .any(|b| memchr::memmem::find(b, id.as_bytes()).is_some())
                })
                .map(|(c, _)| c.clone());
            Arrival {
                id: id.to_string(),
                title: title.to_string(),
                commit,
            }
        })
        .collect()
}
