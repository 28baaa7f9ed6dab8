//! The open session's record (`.zo/memory/.session`, local and gitignored): when the session
//! started, what the files held then, the work tree's state then, what zo's writers wrote
//! during it, and its progress at the agent's last compaction. `session start` (and an agent's
//! SessionStart hook) opens it; `session end` reads and removes it; hooks read it at every turn,
//! so what they need is cheap (file sizes, one `git diff`).

use super::session::{Listed, baseline};
use crate::store::fsio;
use crate::store::gate;
use crate::store::memory::Memory;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Record {
    pub started: String,
    pub agent: Option<String>,
    pub task: Option<String>,
    /// Entries in DECISION_LOG.md / PRIORS.md when the session started: the logs are
    /// append-only, so what comes after is what this session (or a pull during it) added.
    pub decisions: usize,
    pub priors: usize,
    /// The agent's own session ID, when a hook started it.
    #[serde(default)]
    pub session_id: Option<String>,
    /// HEAD when the session started, and the tracked files already changed then (path →
    /// git blob ID), so "files this session touched" leaves out work it found in progress.
    #[serde(default)]
    pub head: Option<String>,
    #[serde(default)]
    pub dirty: std::collections::BTreeMap<String, String>,
    /// Untracked files (not ignored) present then, with their size and mtime; a directory
    /// holding only untracked files is one entry (`dir/`, git's `--directory`): a session that
    /// only creates new files has changed the project too. None in a record from an older zo
    /// (every untracked file would otherwise look new), or when there were more than
    /// `MAX_UNTRACKED` (a build folder nobody ignored): then untracked files are not counted.
    #[serde(default)]
    pub untracked: Option<std::collections::BTreeMap<String, String>>,
    /// Sizes of DECISION_LOG.md, PRIORS.md and FACTS.md at the start: a cheap "did this session
    /// write anything" for a hook that runs at every turn (the files only grow).
    #[serde(default)]
    pub sizes: [u64; 3],
    /// IDs of the decisions and priors written while this record was open (zo's writers add
    /// them): the session's file lists exactly these. None in a record from an older zo.
    #[serde(default)]
    pub written: Option<Vec<String>>,
    /// The Stop hook asked the agent to record its decisions once already.
    #[serde(default)]
    pub stop_asked: bool,
    /// What the session had done when the agent's context was last compacted.
    #[serde(default)]
    pub progress: Option<Progress>,
}

/// The domain of the record's MAC (`store::trust::seal_json`; the file's `mac` key): a record a
/// repository committed, or another machine wrote, has none that holds and is ignored.
pub const MAC_DOMAIN: &str = crate::store::trust::SESSION_RECORD;

/// A session's progress so far, saved before the agent compacts its context so the context
/// after it starts from what was done.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Progress {
    pub at: String,
    pub decisions: Vec<Listed>,
    pub priors: Vec<Listed>,
    pub files: Vec<String>,
}

impl Progress {
    /// As the context bundle shows it.
    pub fn markdown(&self) -> String {
        // IDs and titles are memory text: one line each, and a title the directive rules flag
        // is not repeated here (the bundle lists it as withheld).
        let title = |t: &str| {
            if crate::store::screened::flags(t).is_empty() {
                crate::store::gate::frame::one_line(t)
            } else {
                "its title is withheld: the rules flag it".into()
            }
        };
        let list = |v: &[Listed]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter()
                    .map(|l| {
                        format!(
                            "{} ({})",
                            crate::store::gate::frame::one_line(&l.id),
                            title(&l.title)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let files = if self.files.is_empty() {
            "none".to_string()
        } else {
            // File names are anyone's text: quoted, one line each (`gate::frame::name`).
            let mut f = self
                .files
                .iter()
                .take(30)
                .map(|f| crate::store::gate::frame::name(f))
                .collect::<Vec<_>>()
                .join(", ");
            if self.files.len() > 30 {
                f.push_str(&format!(" and {} more", self.files.len() - 30));
            }
            f
        };
        format!(
            "Saved at {} before the context was compacted.\n- Decisions recorded: {}\n- Priors recorded: {}\n- Files changed: {files}",
            self.at,
            list(&self.decisions),
            list(&self.priors)
        )
    }
}

pub(super) fn record_path(memory: &Memory) -> std::path::PathBuf {
    memory.layout.session_record()
}

/// The open session's record, when there is one this user's zo wrote (its MAC holds). A
/// record git tracks, or that came from anywhere else, is no record: its fields would go into
/// git's arguments and the agent's context.
pub fn current(memory: &Memory) -> Option<Record> {
    let text = fsio::read_text(&record_path(memory)).ok()??;
    let mut v: serde_json::Value = serde_json::from_str(text.as_str()).ok()?;
    if !crate::store::trust::unseal_json(MAC_DOMAIN, &mut v) {
        return None;
    }
    serde_json::from_value(v).ok()
}

/// Whether a record file is there that `current` does not trust (for `doctor` and `verify`).
pub fn untrusted(memory: &Memory) -> bool {
    std::fs::symlink_metadata(record_path(memory)).is_ok() && current(memory).is_none()
}

/// Open a session record. Starting again replaces an open record (the previous session
/// never ended; its decisions are still in the log).
pub fn start(memory: &Memory, agent: Option<String>, task: Option<String>) -> Result<Record> {
    start_as(memory, agent, task, None)
}

/// `start`, with the agent's own session ID recorded in the same write (a hook starts
/// sessions on every agent start: one durable write, not two).
pub fn start_as(
    memory: &Memory,
    agent: Option<String>,
    task: Option<String>,
    session_id: Option<String>,
) -> Result<Record> {
    begin_as(memory, agent, task, session_id)?.finish(memory)
}

/// A session record being started: its work-tree baseline's `git diff` runs until `finish`,
/// which writes the record, so the caller can do other work meanwhile (the SessionStart hook
/// builds its bundle).
pub struct Starting {
    rec: Record,
    baseline: Baseline,
}

/// The first half of `start_as`: everything but the work tree's state, whose `git diff` is
/// started here and read by `Starting::finish`.
pub fn begin_as(
    memory: &Memory,
    agent: Option<String>,
    task: Option<String>,
    session_id: Option<String>,
) -> Result<Starting> {
    // The task becomes the session file's "Attempted" when the end says nothing: gate it now.
    // zo's own agent names (what its hooks pass) hold no secret: checking them alone built the
    // secret scanner, about a millisecond of every agent start.
    let own = |a: &&String| matches!(a.as_str(), "claude" | "codex" | "cursor");
    let fields: Vec<(&str, &str)> = agent
        .iter()
        .filter(|a| !own(a))
        .map(|a| ("Agent", a.as_str()))
        .chain(task.iter().map(|t| ("Task", t.as_str())))
        .collect();
    if !fields.is_empty() {
        gate::check_fields(&fields, false).context("no session was started")?;
    }
    let baseline = Baseline::start(&memory.layout.root);
    let rec = Record {
        started: crate::time::now(),
        agent,
        task,
        decisions: memory.decision_count()?,
        priors: memory.priors()?.entries.len(),
        sizes: sizes(memory),
        written: Some(Vec::new()),
        session_id,
        ..Default::default()
    };
    Ok(Starting { rec, baseline })
}

impl Starting {
    /// Read the work tree's state and write the record.
    pub fn finish(self, memory: &Memory) -> Result<Record> {
        let (head, dirty, untracked) = self.baseline.finish(&memory.layout.root);
        let rec = Record {
            head,
            dirty,
            untracked,
            ..self.rec
        };
        save(memory, &rec)?;
        // The next bundle says what arrived since this start (`store::provenance`).
        if let Some(h) = &rec.head {
            crate::store::provenance::mark_seen(&memory.layout, h, || {
                let log = memory.decisions_quick().map(|(l, _)| l).unwrap_or_default();
                let priors = memory.priors().unwrap_or_default();
                crate::store::provenance::files_now(&memory.layout, &log, &priors)
            });
        }
        Ok(rec)
    }
}

/// Write the open session's record. Renamed into place but not fsynced: it is local and
/// rewritten at every agent start and write, and a crash loses at most the record (the session
/// then ends from what the log says, or not at all), never memory; two fsyncs here were
/// milliseconds of every SessionStart hook.
pub fn save(memory: &Memory, rec: &Record) -> Result<()> {
    let mut v = serde_json::to_value(rec)?;
    if !crate::store::trust::seal_json(MAC_DOMAIN, &mut v) {
        anyhow::bail!(
            "no session record was written: zo has no key to sign it with (its cache directory, see `zo doctor`, cannot be made)"
        );
    }
    fsio::write_atomic_unsynced(
        &record_path(memory),
        serde_json::to_string_pretty(&v)?.as_bytes(),
    )
}

/// Sizes of the append-only files (0 when missing).
pub fn sizes(memory: &Memory) -> [u64; 3] {
    let l = &memory.layout;
    let size = |p: std::path::PathBuf| std::fs::symlink_metadata(p).map_or(0, |m| m.len());
    [size(l.decision_log()), size(l.priors()), size(l.facts())]
}

/// Whether anything was appended to the decisions, priors or facts since the record's start.
pub fn wrote_since(memory: &Memory, rec: &Record) -> bool {
    sizes(memory) != rec.sizes
}

/// The Stop reminder's turn: whether to ask the open session's agent to record its decisions
/// now, and the files it changed (None: not this time). Once per session, only when it changed
/// files (`touched`) and wrote nothing. Checked and marked under the memory lock: an agent that
/// fires several Stop hooks at once is asked once, not by each. `ours` says whether the open
/// record is the asking session's: another session's (a second window started since) is not
/// its to claim — that session's own Stop asks, for its own work.
pub fn claim_stop(memory: &Memory, ours: impl Fn(&Record) -> bool) -> Result<Option<Vec<String>>> {
    let _lock = memory.lock()?;
    let Some(mut rec) = current(memory) else {
        return Ok(None);
    };
    if !ours(&rec) || rec.stop_asked || wrote_since(memory, &rec) {
        return Ok(None);
    }
    let files = touched(memory, &rec);
    if files.is_empty() {
        return Ok(None);
    }
    rec.stop_asked = true;
    save(memory, &rec)?;
    Ok(Some(files))
}

/// HEAD, the tracked files changed in the work tree now (path → blob ID) and the untracked
/// ones (path → size and mtime), outside `.zo/`, in two halves: HEAD read and one `git status`
/// started, then its output read and the changed files hashed.
struct Baseline {
    head: Option<String>,
    /// The memory root's path in the work tree (`packages/app/`, empty at the top): `git
    /// status` names paths from the top, the baseline from the root.
    prefix: String,
    status: Option<std::process::Child>,
}

/// A git process whose NUL-separated output is read later (None: git could not be started).
fn spawn_git(root: &std::path::Path, args: &[&str]) -> Option<std::process::Child> {
    std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()
}

/// The paths a git process printed, NUL-separated; none when it failed (an empty baseline).
fn paths_of(child: Option<std::process::Child>) -> Vec<String> {
    child
        .and_then(|c| c.wait_with_output().ok())
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split('\0')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl Baseline {
    fn start(root: &std::path::Path) -> Baseline {
        // HEAD from its files (opening the repository with gix is most of a millisecond of
        // every agent start), from gix when they are not as expected.
        let (head, prefix) = match crate::git::head_id_fast(root) {
            Some(h) => (Some(h), String::new()),
            None => {
                let repo = crate::git::Repo::discover(root);
                let top = repo
                    .as_ref()
                    .and_then(|r| r.workdir())
                    .and_then(|w| w.canonicalize().ok());
                let rel = top.and_then(|t| {
                    root.canonicalize()
                        .ok()?
                        .strip_prefix(t)
                        .ok()
                        .map(|p| p.to_string_lossy().into_owned())
                });
                (
                    repo.and_then(|r| r.head_full()),
                    rel.filter(|r| !r.is_empty())
                        .map(|r| format!("{r}/"))
                        .unwrap_or_default(),
                )
            }
        };
        let head = head.filter(|h| crate::store::trust::is_commit_id(h));
        let status = head.as_ref().and_then(|_| spawn_git(root, &STATUS_ARGS));
        Baseline {
            head,
            prefix,
            status,
        }
    }

    #[allow(clippy::type_complexity)]
    fn finish(
        self,
        root: &std::path::Path,
    ) -> (
        Option<String>,
        std::collections::BTreeMap<String, String>,
        Option<std::collections::BTreeMap<String, String>>,
    ) {
        let Some(head) = self.head else {
            return (None, Default::default(), None);
        };
        let (changed, others) = status_paths(self.status, &self.prefix);
        let dirty = hashes(root, &changed);
        let untracked = (others.len() <= MAX_UNTRACKED).then(|| signatures(root, &others));
        (Some(head), dirty, untracked)
    }
}

/// `commit` is a full commit ID (`trust::is_commit_id`, checked by every caller), and
/// `--end-of-options` ends git's options before it whatever it holds.
fn diff_args(commit: &str) -> [&str; 10] {
    [
        "diff",
        "--name-only",
        "--relative",
        "-z",
        "--no-renames",
        "--end-of-options",
        commit,
        "--",
        ".",
        ":(exclude).zo",
    ]
}

/// Untracked files that are not ignored, outside `.zo/`; a directory holding only such files
/// is listed once (`dir/`) and not walked, and an empty one not at all, as `git status` shows
/// them (the start's baseline is read from `STATUS_ARGS`, and the two must list alike).
const OTHERS_ARGS: [&str; 9] = [
    "ls-files",
    "-z",
    "--others",
    "--exclude-standard",
    "--directory",
    "--no-empty-directory",
    "--",
    ".",
    ":(exclude).zo",
];

/// At a session's start, one process for both halves of the baseline: tracked files that
/// differ from HEAD (staged or not) and the untracked ones as `OTHERS_ARGS` lists them. One
/// `git status` costs about two thirds of the CPU of a `git diff` and a `git ls-files`, which on
/// a two-core machine compete with the hook itself. `--no-optional-locks`: no index refresh is
/// written by a command that only looks.
const STATUS_ARGS: [&str; 9] = [
    "--no-optional-locks",
    "status",
    "--porcelain=v1",
    "-z",
    "--no-renames",
    "--untracked-files=normal",
    "--",
    ".",
    ":(exclude).zo",
];

/// The changed and the untracked paths of a `git status --porcelain=v1 -z` (`XY path` each,
/// from the top of the work tree; `??` untracked), from the memory root (`prefix` removed);
/// none when git failed (an empty baseline).
fn status_paths(child: Option<std::process::Child>, prefix: &str) -> (Vec<String>, Vec<String>) {
    let (mut changed, mut others) = (Vec::new(), Vec::new());
    for item in paths_of(child) {
        let (Some(code), Some(path)) = (
            item.get(..2),
            item.get(3..).and_then(|p| p.strip_prefix(prefix)),
        ) else {
            continue;
        };
        if path.is_empty() {
            continue;
        }
        match code {
            "??" => others.push(path.to_string()),
            "!!" => {}
            _ => changed.push(path.to_string()),
        }
    }
    (changed, others)
}

/// The most untracked entries a session record keeps: each costs a stat at every agent start
/// and a line in the record (300,000 made a 13 MB record and a one-second SessionStart).
const MAX_UNTRACKED: usize = 5_000;

/// Size and mtime of work-tree files, as a cheap "changed since" for untracked files (hashing
/// every untracked file at every agent start could read large build leftovers).
fn signatures(
    root: &std::path::Path,
    paths: &[String],
) -> std::collections::BTreeMap<String, String> {
    paths
        .iter()
        .filter_map(|p| {
            let m = std::fs::symlink_metadata(root.join(p)).ok()?;
            let mtime = m
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            Some((p.clone(), format!("{}:{mtime}", m.len())))
        })
        .collect()
}

/// Tracked files that differ from `commit` in the work tree (committed since or not), outside
/// `.zo/`.
fn changed_since(root: &std::path::Path, commit: &str) -> Vec<String> {
    paths_of(spawn_git(root, &diff_args(commit)))
}

/// Blob IDs of work-tree files (a deleted file is "deleted").
fn hashes(root: &std::path::Path, paths: &[String]) -> std::collections::BTreeMap<String, String> {
    if paths.is_empty() {
        return Default::default();
    }
    let mut args = vec!["hash-object", "--"];
    let present: Vec<&String> = paths.iter().filter(|p| root.join(p).is_file()).collect();
    args.extend(present.iter().map(|p| p.as_str()));
    let ids: Vec<String> = if present.is_empty() {
        vec![]
    } else {
        crate::git::run(root, &args)
            .map(|o| o.lines().map(str::to_string).collect())
            .unwrap_or_default()
    };
    let mut out: std::collections::BTreeMap<String, String> = paths
        .iter()
        .map(|p| (p.clone(), "deleted".to_string()))
        .collect();
    for (p, id) in present.iter().zip(ids) {
        out.insert((*p).clone(), id);
    }
    out
}

/// Files this session changed: tracked files that differ from HEAD at its start, less those
/// already changed then and not changed since, and untracked files that are new or changed
/// since its start.
pub fn touched(memory: &Memory, rec: &Record) -> Vec<String> {
    let root = &memory.layout.root;
    let Some(head) = rec
        .head
        .as_ref()
        .filter(|h| crate::store::trust::is_commit_id(h))
    else {
        return vec![];
    };
    // Both git processes run at once.
    let others = rec
        .untracked
        .as_ref()
        .map(|_| spawn_git(root, &OTHERS_ARGS));
    let changed = changed_since(root, head);
    let was_dirty: Vec<String> = changed
        .iter()
        .filter(|p| rec.dirty.contains_key(*p))
        .cloned()
        .collect();
    let now = hashes(root, &was_dirty);
    let mut files: Vec<String> = changed
        .into_iter()
        .filter(|p| {
            rec.dirty
                .get(p)
                .is_none_or(|before| now.get(p) != Some(before))
        })
        .collect();
    if let (Some(before), Some(others)) = (&rec.untracked, others) {
        let others = paths_of(others);
        if others.len() <= MAX_UNTRACKED {
            let now = signatures(root, &others);
            // New or changed since the start, and those the session deleted.
            let gone: Vec<String> = before
                .keys()
                .filter(|p| !now.contains_key(*p))
                .cloned()
                .collect();
            files.extend(
                now.into_iter()
                    .filter(|(p, sig)| before.get(p) != Some(sig))
                    .map(|(p, _)| p),
            );
            files.extend(gone);
        }
    }
    // An untracked file the session committed is in both lists.
    files.sort();
    files.dedup();
    files
}

/// What the open session has recorded and changed so far (for the agent's PreCompact hook).
/// Before an agent compacts its context: the open session's progress so far, kept in its
/// record for the bundle after the compaction. Nothing without an open session.
pub fn save_progress(memory: &Memory) -> Result<()> {
    if let Some(mut rec) = current(memory) {
        rec.progress = Some(progress(memory, &rec)?);
        save(memory, &rec)?;
    }
    Ok(())
}

pub fn progress(memory: &Memory, rec: &Record) -> Result<Progress> {
    let log = memory.decisions()?;
    let priors = memory.priors()?;
    let (from_d, from_p) = baseline(memory, Some(rec), &log, &priors)?;
    // What zo's writers wrote in this session, when the record kept it: entries a pull brought
    // in after the start are not this session's work (as `session::end` decides).
    let ours = |id: &str| {
        rec.written
            .as_ref()
            .is_none_or(|w| w.iter().any(|x| x == id))
    };
    Ok(Progress {
        at: crate::time::now(),
        decisions: log.entries[from_d..]
            .iter()
            .filter(|e| !e.is_annotation() && ours(&e.id))
            .map(|e| Listed {
                id: e.id.clone(),
                title: e.title.clone(),
            })
            .collect(),
        priors: priors.entries[from_p..]
            .iter()
            .filter(|p| ours(&p.id))
            .map(|p| Listed {
                id: p.id.clone(),
                title: p.title.clone(),
            })
            .collect(),
        files: touched(memory, rec),
    })
}
