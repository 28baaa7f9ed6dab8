//! Provenance (SPEC §3a "Memory poisoning and provenance"): where an entry came from — written
//! by zo on this machine, in this repository, or arrived in a commit by an author (signed or
//! not). Everything here is keyed by what an entry says (`format::content_key`), never by its
//! ID alone: IDs are the repository's text, and a committed `PR-003` is not the `PR-003` this
//! user once wrote somewhere else.
//!
//! - `written` (in the user's private cache, never the repository): a line per entry zo wrote
//!   here — this repository's key (`repo_key`: its git directory on this machine) and the
//!   entry's content key. A commit cannot claim to be local; an edit of a local entry is no
//!   longer it.
//! - `seen/<repo key>`: what the memory held at the user's last session start here — HEAD, each
//!   file's length and the hash of those bytes, and every entry's content key — so the bundle
//!   can say what arrived since (new or changed entries, whatever their IDs) without reading
//!   git's history: a file that still starts with what was seen only grew, and only the
//!   entries after it are looked at.
//! - Who brought each arrival comes from git (the first commit of the range that holds its
//!   exact bytes), within a budget of bytes read: the hook must answer whatever arrived. The work done is
//!   kept (`seen/<repo key>.progress`), so a start killed by its agent's timeout is not
//!   repeated, and the bundle says in one line when the lookup stopped early.

use crate::format::decision::DecisionLog;
use crate::format::prior::PriorsFile;
use crate::git::{CommitRef, Repo};
use crate::store::fsio;
use crate::store::layout::Layout;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// An entry's origin as reports show it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Origin {
    /// Written by zo on this machine, in this repository, with exactly this text.
    pub here: bool,
    /// The first commit that holds it as it is now, with its author and whether it is signed
    /// (None: not committed, no git, or unknown).
    pub commit: Option<CommitRef>,
}

/// The format line of the `written` file; lines of an older format (bare IDs) are ignored.
const WRITTEN_VERSION: &str = "zo written 2";

/// The most lines `written` keeps: older ones go when it is rewritten.
const WRITTEN_MAX: usize = 50_000;

fn written_file() -> Option<PathBuf> {
    crate::store::layout::vector_cache_dir().map(|d| d.join("written"))
}

/// This repository on this machine: its common git directory (every worktree shares it), else
/// the memory's root. 16 hex digits of its path's hash.
pub fn repo_key(layout: &Layout) -> String {
    let place = crate::git::common_dir_fast(&layout.root).unwrap_or_else(|| layout.root.clone());
    crate::format::sha256_hex(&place.to_string_lossy())[..16].to_string()
}

/// `(repo key, content key)` of every entry written here, read once per process.
fn written() -> &'static Mutex<HashSet<(String, String)>> {
    static SET: OnceLock<Mutex<HashSet<(String, String)>>> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = HashSet::new();
        if let Some(p) = written_file() {
            if let Ok(Some(t)) = fsio::read_text(&p) {
                let mut lines = t.as_str().lines();
                if lines.next() == Some(WRITTEN_VERSION) {
                    for l in lines {
                        if let Some((r, k)) = l.split_once(' ') {
                            set.insert((r.to_string(), k.trim().to_string()));
                        }
                    }
                }
            }
        }
        Mutex::new(set)
    })
}

/// Whether zo on this machine wrote, in this repository, an entry with exactly this text.
pub fn written_here(layout: &Layout, text: &str) -> bool {
    is_written(&repo_key(layout), &crate::format::content_key(text))
}

fn is_written(repo: &str, key: &str) -> bool {
    written()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(&(repo.to_string(), key.to_string()))
}

/// Note that zo on this machine wrote `entry` (its text as written) in this repository. Best
/// effort: a write never fails over it. One line appended; the file is cut to its newest
/// lines when it has grown past `WRITTEN_MAX`.
pub fn note_written_here(layout: &Layout, entry: &str) {
    let Some(p) = written_file() else { return };
    let Some(dir) = p.parent() else { return };
    if crate::store::layout::private_dir(dir).is_err() {
        return;
    }
    let (repo, key) = (repo_key(layout), crate::format::content_key(entry));
    written()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert((repo.clone(), key.clone()));
    let old = fsio::read_text(&p)
        .ok()
        .flatten()
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    let mut lines: Vec<&str> = match old.split_once('\n') {
        Some((WRITTEN_VERSION, rest)) => rest.lines().collect(),
        _ => Vec::new(),
    };
    let line = format!("{repo} {key}");
    lines.push(&line);
    let skip = lines.len().saturating_sub(WRITTEN_MAX);
    let text = format!("{WRITTEN_VERSION}\n{}\n", lines[skip..].join("\n"));
    // Unsynced, as the session record: a crash loses at most the note, never memory.
    let _ = fsio::write_atomic_unsynced(&p, text.as_bytes());
}

/// The memory file an entry ID lives in, for the search of git's history.
fn file_of(layout: &Layout, id: &str) -> Option<PathBuf> {
    // A session or snapshot is its own file.
    if crate::store::memory::is_shown_name(id) && id.ends_with(".md") && !id.contains('/') {
        for dir in [layout.sessions(), layout.snapshots()] {
            if dir.join(id).is_file() {
                return Some(dir.join(id));
            }
        }
    }
    let up = id.to_ascii_uppercase();
    if up.starts_with("PR-") {
        Some(layout.priors())
    } else if up.starts_with("F-") {
        Some(layout.facts())
    } else if up.starts_with("D-") {
        Some(layout.decision_log())
    } else {
        None
    }
}

/// The origins of entries `(id, text)` at once: written here (by content), and the first
/// commit whose version of the entry's file holds the entry as it is now (its text, not only
/// its ID: an entry rewritten under an old ID is named by the commit that rewrote it).
pub fn origins(layout: &Layout, entries: &[(&str, &str)]) -> Vec<Origin> {
    let repo = Repo::discover(&layout.root);
    let repo_key = repo_key(layout);
    let mut walks: HashMap<PathBuf, HashMap<String, CommitRef>> = HashMap::new();
    entries
        .iter()
        .map(|(id, text)| {
            let body = crate::format::content_of(text);
            let commit = repo
                .as_ref()
                .zip(file_of(layout, id))
                .and_then(|(repo, file)| {
                    let wanted: Vec<(String, String)> = entries
                        .iter()
                        .filter(|(i, _)| file_of(layout, i).as_ref() == Some(&file))
                        .map(|(i, t)| (i.to_string(), crate::format::content_of(t)))
                        .collect();
                    let found = walks.entry(file.clone()).or_insert_with(|| {
                        // A lesson's number is given by the merge that brought it: the
                        // teammate who wrote it is named, not whoever merged it.
                        let same = if file == layout.priors()
                            || file.parent() == Some(layout.sessions().as_path())
                        {
                            crate::format::prior::without_numbers
                        } else {
                            str::to_string
                        };
                        repo.first_commits_with(Path::new(&layout.rel(&file)), &wanted, same)
                            .unwrap_or_default()
                    });
                    found.get(*id).cloned()
                });
            let record = file_of(layout, id).is_some_and(|f| {
                f.parent() == Some(layout.sessions().as_path())
                    || f.parent() == Some(layout.snapshots().as_path())
            });
            let key = if record {
                crate::format::content_key(&record_name(id))
            } else {
                crate::format::content_key(&body)
            };
            Origin {
                here: is_written(&repo_key, &key),
                commit,
            }
        })
        .collect()
}

/// Where the user's last session start here is remembered.
fn seen_file(layout: &Layout) -> Option<PathBuf> {
    crate::store::layout::vector_cache_dir().map(|d| d.join("seen").join(repo_key(layout)))
}

/// The format line of a `seen` file; an older one (a bare commit ID) reads as none.
const SEEN_VERSION: &str = "zo seen 2";

/// What the memory held at the user's last session start here.
#[derive(Debug, Clone, Default)]
struct Seen {
    head: String,
    /// Per file (its name in the memory directory): the length then and the hash of those
    /// bytes.
    files: HashMap<String, (usize, String)>,
    /// Every entry's content key then.
    keys: HashSet<String>,
}

impl Seen {
    fn read(layout: &Layout) -> Option<Seen> {
        let text = fsio::read_text(&seen_file(layout)?).ok()??;
        let mut lines = text.as_str().lines();
        if lines.next() != Some(SEEN_VERSION) {
            return None;
        }
        let mut seen = Seen::default();
        for l in lines {
            let mut w = l.split(' ');
            match (w.next(), w.next(), w.next(), w.next()) {
                (Some("head"), Some(h), None, None) => seen.head = h.to_string(),
                (Some("file"), Some(name), Some(len), Some(hash)) => {
                    seen.files
                        .insert(name.to_string(), (len.parse().ok()?, hash.to_string()));
                }
                (Some("key"), Some(k), None, None) => {
                    seen.keys.insert(k.to_string());
                }
                _ => {}
            }
        }
        crate::store::trust::is_commit_id(&seen.head).then_some(seen)
    }

    fn write(&self, layout: &Layout) {
        let Some(p) = seen_file(layout) else { return };
        let Some(dir) = p.parent() else { return };
        if crate::store::layout::private_dir(dir).is_err() {
            return;
        }
        let mut out = format!("{SEEN_VERSION}\nhead {}\n", self.head);
        for (name, (len, hash)) in &self.files {
            out.push_str(&format!("file {name} {len} {hash}\n"));
        }
        for k in &self.keys {
            out.push_str(&format!("key {k}\n"));
        }
        // Unsynced: it is on the hook path, and losing it only repeats an arrivals list.
        let _ = fsio::write_atomic_unsynced(&p, out.as_bytes());
    }
}

/// The HEAD of the user's last session start here, if one was remembered.
pub fn last_seen(layout: &Layout) -> Option<String> {
    Seen::read(layout).map(|s| s.head)
}

/// The seen state this process computed for HEAD while it looked for arrivals: what
/// `mark_seen` records, so the files are not read twice on the hook path.
static NEXT: Mutex<Option<(PathBuf, Seen)>> = Mutex::new(None);

/// One memory file now, as arrivals read it: its name in the memory directory, its bytes, and
/// its entries (ID, title, byte span, text).
pub struct FileNow {
    pub name: &'static str,
    pub bytes: String,
    pub entries: Vec<EntryNow>,
}

pub struct EntryNow {
    pub id: String,
    pub title: String,
    pub span: std::ops::Range<usize>,
    /// What kind of entry it is when not a decision or lesson of its own, in zo's words: an
    /// outcome, a confirmation or a promotion (of the entry `refs` names), a fact.
    pub kind: Option<&'static str>,
    /// The entry an annotation refers to.
    pub refs: Option<String>,
}

/// The decision log and the lessons as arrivals and `mark_seen` read them (entries in file
/// order). The log's text is read whole here: a summary-restored log holds none.
pub fn files_now(layout: &Layout, log: &DecisionLog, priors: &PriorsFile) -> Vec<FileNow> {
    let log_bytes = fsio::read_text(&layout.decision_log())
        .ok()
        .flatten()
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    // Annotations arrive too: an outcome pulled changes what the bundle says of a decision
    // ("Postgres was dropped"), a confirmation makes a provisional one active. Each is named
    // with the decision it refers to, by that decision's title.
    let decisions = log
        .entries
        .iter()
        .filter(|e| !e.is_forgotten() && e.span.end <= log_bytes.len())
        .map(|e| {
            let kind = if e.is_outcome() {
                Some("an outcome of")
            } else if e.is_confirmation() {
                Some("a confirmation of")
            } else if e.is_promotion() {
                Some("a promotion of")
            } else {
                None
            };
            let refs = kind.and(e.refs.as_deref()).and_then(|r| {
                crate::format::decision::referenced_ids(r)
                    .into_iter()
                    .next()
            });
            let title = refs
                .as_deref()
                .and_then(|r| log.find(r).ok())
                .map_or_else(|| e.title.clone(), |i| log.entries[i].title.clone());
            EntryNow {
                id: e.id.clone(),
                title,
                span: e.span.start..e.span.end,
                kind,
                refs,
            }
        })
        .collect();
    let lessons = priors
        .entries
        .iter()
        .map(|p| EntryNow {
            id: p.id.clone(),
            title: p.title.clone(),
            span: p.span.start..p.span.end,
            kind: None,
            refs: None,
        })
        .collect();
    let facts_file = fsio::read_text(&layout.facts())
        .ok()
        .flatten()
        .map(crate::format::fact::FactsFile::parse)
        .unwrap_or_default();
    let facts = facts_file
        .entries
        .iter()
        .filter(|f| !f.key.is_empty())
        .map(|f| EntryNow {
            id: f.id.clone(),
            title: f.key.clone(),
            span: f.span.start..f.span.end,
            kind: Some("a fact"),
            refs: None,
        })
        .collect();
    // Sessions and snapshots arrive by name: a file's text, once written, changes only by
    // zo's own erasure (review flags any other edit), and the bundle leads with the newest.
    let records = |dir: &Path, kind: &'static str, name: &'static str| {
        let names = crate::store::memory::record_names(dir);
        let mut bytes = String::new();
        let mut entries = Vec::new();
        for n in names {
            let line = record_name(&n);
            let start = bytes.len();
            bytes.push_str(&line);
            bytes.push('\n');
            entries.push(EntryNow {
                id: n.clone(),
                title: n.trim_end_matches(".md").to_string(),
                span: start..start + line.len(),
                kind: Some(kind),
                refs: None,
            });
        }
        FileNow {
            name,
            bytes,
            entries,
        }
    };
    vec![
        records(&layout.sessions(), "a session", "sessions/"),
        records(&layout.snapshots(), "a snapshot", "snapshots/"),
        FileNow {
            name: "FACTS.md",
            bytes: facts_file.text.as_str().to_string(),
            entries: facts,
        },
        FileNow {
            name: "DECISION_LOG.md",
            bytes: log_bytes,
            entries: decisions,
        },
        FileNow {
            name: "PRIORS.md",
            bytes: priors.text.as_str().to_string(),
            entries: lessons,
        },
    ]
}

/// How a session or snapshot is known to provenance: by its file name (the arrivals list,
/// and what this machine noted it wrote).
pub fn record_name(name: &str) -> String {
    format!("record {name}")
}

/// The hash of a file's bytes the seen state keeps.
fn bytes_hash(b: &[u8]) -> String {
    blake3::hash(b).to_hex()[..32].to_string()
}

/// The hash of the first `len` bytes (when there are that many) and of all of them, in one
/// pass.
fn hashes(b: &[u8], len: Option<usize>) -> (Option<String>, String) {
    let mut h = blake3::Hasher::new();
    let prefix = len.filter(|&l| l <= b.len()).map(|l| {
        h.update(&b[..l]);
        h.finalize().to_hex()[..32].to_string()
    });
    h.update(&b[len.filter(|&l| l <= b.len()).unwrap_or(0)..]);
    (prefix, h.finalize().to_hex()[..32].to_string())
}

/// An entry that arrived since the user's last session: pulled, not written here.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Arrival {
    pub id: String,
    pub title: String,
    /// `an outcome of`, `a confirmation of`, `a promotion of` (with `refs`), `a fact`; none
    /// for a decision or lesson.
    pub kind: Option<&'static str>,
    pub refs: Option<String>,
    /// The first commit since then that holds it as it is (None: not looked up, or not found).
    pub commit: Option<CommitRef>,
}

/// What arrived since the user's last session start here, and how far who brought it was
/// looked up.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Arrivals {
    pub entries: Vec<Arrival>,
    /// The HEAD of the last session start (short).
    pub since: String,
    /// Commits of the range searched for who brought each, and all there are.
    pub searched: usize,
    pub commits: usize,
}

impl Arrivals {
    /// The one line a bundle gives when the lookup of who brought them stopped early.
    pub fn unfinished(&self) -> Option<String> {
        let unknown = self.entries.iter().filter(|a| a.commit.is_none()).count();
        (self.searched < self.commits && unknown > 0).then(|| {
            format!(
                "who brought {} of these was not looked up: {} of {} commits searched, all a session start reads (`zo review {}..HEAD` names each)",
                crate::format::count(unknown, "entry", "entries"),
                self.searched,
                self.commits,
                self.since
            )
        })
    }
}

/// How much of git's history a session start reads to find who brought what arrived: a
/// session start must answer whatever arrived, and reading old versions of a large log is
/// what costs (inflating a 15 MB version takes tens of milliseconds). Counted in bytes, not
/// time, so a start does the same work on a loaded machine as on an idle one; the rest of
/// the range is searched by later starts, or named by `zo review`.
const LOOKUP_BYTES: usize = 8 << 20;

/// The most commits of a range ever searched for who brought what.
const MAX_SEARCHED: usize = 64;

/// What arrived since the user's last session start here: entries of `files` whose content
/// the memory did not hold then and this machine did not write here — new ones and ones
/// changed since, whatever their IDs — with the first commit that holds each, as far as the
/// time budget allows. None when nothing was seen here before, or HEAD has not moved (no git
/// is read then).
pub fn arrivals(layout: &Layout, files: impl FnOnce() -> Vec<FileNow>) -> Option<Arrivals> {
    let seen = Seen::read(layout)?;
    // The common case, HEAD where it was: answered from the ref files, no repository opened.
    let head = crate::git::head_id_fast(&layout.root)?;
    if head == seen.head {
        return None;
    }
    let files = files();
    let repo_key = repo_key(layout);
    let mut next = Seen {
        head: head.clone(),
        ..Seen::default()
    };
    // Candidates: a file that still starts with the bytes seen only grew (entries ending past
    // them are new or changed); any other is read whole.
    let mut arrived: Vec<(&FileNow, &EntryNow, String)> = Vec::new();
    for f in &files {
        let (prefix, whole) = hashes(f.bytes.as_bytes(), seen.files.get(f.name).map(|s| s.0));
        let grown = seen
            .files
            .get(f.name)
            .filter(|(_, hash)| prefix.as_deref() == Some(hash.as_str()));
        next.files
            .insert(f.name.to_string(), (f.bytes.len(), whole));
        // A file the seen state never recorded (an older zo read only the log and the
        // lessons) is taken as seen now: its entries are not news, and are reported from the
        // next start on.
        let baseline = !seen.files.contains_key(f.name);
        for e in &f.entries {
            if grown.is_some_and(|(len, _)| e.span.end <= *len) {
                continue;
            }
            if baseline {
                next.keys
                    .insert(crate::format::content_key(&f.bytes[e.span.clone()]));
                continue;
            }
            let key = crate::format::content_key(&f.bytes[e.span.clone()]);
            if !seen.keys.contains(&key) && !is_written(&repo_key, &key) {
                arrived.push((f, e, key.clone()));
            }
            next.keys.insert(key);
        }
    }
    // Keys of the entries that only grew are the seen ones (kept); a file read whole gave all.
    next.keys.extend(seen.keys.iter().cloned());
    *NEXT.lock().unwrap_or_else(|p| p.into_inner()) = Some((layout.root.clone(), next));
    if arrived.is_empty() {
        return None;
    }
    let repo = Repo::discover(&layout.root)?;
    let (from, to) = (
        repo.resolve_commit(&seen.head)?,
        repo.resolve_commit(&head)?,
    );
    let commits = repo.range(&from, &to).unwrap_or_default();
    let mut progress = Progress::read(layout, &seen.head, &head);
    let mut read = 0usize;
    let mut searched = progress.done.len();
    for c in commits.iter().take(MAX_SEARCHED).skip(searched) {
        if read >= LOOKUP_BYTES {
            break;
        }
        let open: Vec<&(&FileNow, &EntryNow, String)> = arrived
            .iter()
            .filter(|a| !progress.by.contains_key(&a.2))
            .collect();
        if open.is_empty() {
            break;
        }
        let mut blobs: HashMap<&str, Vec<u8>> = HashMap::new();
        for f in open.iter().map(|(f, _, _)| *f) {
            if !blobs.contains_key(f.name) {
                let rel = format!("{}/{}", layout.memory_rel(), f.name);
                let b = if let Some(dir) = rel.strip_suffix('/') {
                    // Sessions or snapshots: the names the commit's tree holds.
                    let names = repo.names_at(c, Path::new(dir)).unwrap_or_default();
                    names
                        .iter()
                        .map(|n| format!("{}\n", record_name(n)))
                        .collect::<String>()
                        .into_bytes()
                } else {
                    repo.file_at_ref(c, Path::new(&rel))
                        .ok()
                        .flatten()
                        .unwrap_or_default()
                };
                read += b.len();
                blobs.insert(f.name, b);
            }
        }
        let versions: HashMap<&str, Version> = files
            .iter()
            .filter_map(|f| {
                let b = blobs.get(f.name)?;
                Some((f.name, Version::new(b, f.bytes.as_bytes())))
            })
            .collect();
        for (f, e, key) in open {
            if versions
                .get(f.name)
                .is_some_and(|v| v.holds(f.bytes.as_bytes(), e.span.clone()))
            {
                progress.by.insert(key.clone(), c.id.clone());
            }
        }
        progress.done.push(c.id.clone());
        searched += 1;
        progress.write(layout, &seen.head, &head);
    }
    let refs: HashMap<&str, &CommitRef> = commits.iter().map(|c| (c.id.as_str(), c)).collect();
    Some(Arrivals {
        entries: arrived
            .iter()
            .map(|(_, e, key)| Arrival {
                id: e.id.clone(),
                title: e.title.clone(),
                kind: e.kind,
                refs: e.refs.clone(),
                commit: progress
                    .by
                    .get(key)
                    .and_then(|c| refs.get(c.as_str()))
                    .map(|c| (*c).clone()),
            })
            .collect(),
        since: from.short,
        searched: searched.min(commits.len()),
        commits: commits.len(),
    })
}

/// A version of a file as the lookup reads it: where it parts from the file now (an appended
/// log holds everything before), and where each `**ID:**` line after that is.
struct Version<'a> {
    blob: &'a [u8],
    common: usize,
    ids: HashMap<&'a [u8], Vec<usize>>,
    /// The version with its lesson numbers left out, for entries without an ID line (a
    /// lesson: its number is given by the merge that brought it), made on first use.
    unnumbered: std::cell::OnceCell<String>,
}

const ID_LINE: &[u8] = b"**ID:** ";

impl<'a> Version<'a> {
    fn new(blob: &'a [u8], now: &[u8]) -> Version<'a> {
        let common = blob
            .chunks(4096)
            .zip(now.chunks(4096))
            .take_while(|(a, b)| a == b)
            .count()
            * 4096;
        let common = common.min(blob.len()).min(now.len());
        let common = common
            + blob[common..]
                .iter()
                .zip(&now[common..])
                .take_while(|(a, b)| a == b)
                .count();
        // The entries past the common start, by ID (an entry that began before it is found
        // from its ID line too).
        let from = blob[..common].iter().rposition(|&b| b == b'#').unwrap_or(0);
        let mut ids: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for at in memchr::memmem::find_iter(&blob[from..], ID_LINE) {
            let at = from + at;
            let rest = &blob[at + ID_LINE.len()..];
            let end = rest
                .iter()
                .position(|b| b.is_ascii_whitespace())
                .unwrap_or(rest.len());
            ids.entry(&rest[..end]).or_default().push(at);
        }
        Version {
            blob,
            common,
            ids,
            unnumbered: std::cell::OnceCell::new(),
        }
    }

    /// Whether this version holds the entry at `span` of the file now, byte for byte.
    fn holds(&self, now: &[u8], span: std::ops::Range<usize>) -> bool {
        if span.end <= self.common {
            return true;
        }
        let entry = now[span].trim_ascii_end();
        let Some(off) = memchr::memmem::find(entry, ID_LINE) else {
            let unnumbered = self.unnumbered.get_or_init(|| {
                crate::format::prior::without_numbers(&String::from_utf8_lossy(self.blob))
            });
            let entry = crate::format::prior::without_numbers(&String::from_utf8_lossy(entry));
            return memchr::memmem::find(unnumbered.as_bytes(), entry.as_bytes()).is_some();
        };
        let rest = &entry[off + ID_LINE.len()..];
        let id = &rest[..rest
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(rest.len())];
        self.ids.get(id).is_some_and(|places| {
            places.iter().any(|&p| {
                p.checked_sub(off)
                    .and_then(|start| self.blob.get(start..start + entry.len()))
                    == Some(entry)
            })
        })
    }
}

/// The lookup of who brought what, kept between starts for one range (`since..head`).
#[derive(Default)]
struct Progress {
    /// Commits searched, oldest first.
    done: Vec<String>,
    /// Content key → the first commit found holding it.
    by: HashMap<String, String>,
}

impl Progress {
    fn path(layout: &Layout) -> Option<PathBuf> {
        seen_file(layout).map(|p| p.with_extension("progress"))
    }

    fn read(layout: &Layout, since: &str, head: &str) -> Progress {
        let mut out = Progress::default();
        let Some(text) = Progress::path(layout).and_then(|p| fsio::read_text(&p).ok().flatten())
        else {
            return out;
        };
        let mut lines = text.as_str().lines();
        if lines.next() != Some(&format!("zo arrivals {since} {head}")) {
            return out;
        }
        for l in lines {
            match l.split_once(' ') {
                Some(("done", c)) => out.done.push(c.to_string()),
                Some(("by", rest)) => {
                    if let Some((k, c)) = rest.split_once(' ') {
                        out.by.insert(k.to_string(), c.to_string());
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn write(&self, layout: &Layout, since: &str, head: &str) {
        let Some(p) = Progress::path(layout) else {
            return;
        };
        let mut out = format!("zo arrivals {since} {head}\n");
        for c in &self.done {
            out.push_str(&format!("done {c}\n"));
        }
        for (k, c) in &self.by {
            out.push_str(&format!("by {k} {c}\n"));
        }
        let _ = fsio::write_atomic_unsynced(&p, out.as_bytes());
    }
}

/// Remember HEAD, and what the memory holds, as where this session started (best effort): the
/// next start says what arrived since. What `arrivals` read is used when it read it for this
/// HEAD; else the files are read here (`files`).
pub fn mark_seen(layout: &Layout, head: &str, files: impl FnOnce() -> Vec<FileNow>) {
    let computed = NEXT
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .filter(|(root, s)| *root == layout.root && s.head == head)
        .map(|(_, s)| s);
    let seen = match computed {
        Some(s) => s,
        None => {
            if Seen::read(layout).is_some_and(|s| s.head == head) {
                return;
            }
            let mut s = Seen {
                head: head.to_string(),
                ..Seen::default()
            };
            for f in files() {
                s.keys.extend(
                    f.entries
                        .iter()
                        .map(|e| crate::format::content_key(&f.bytes[e.span.clone()])),
                );
                s.files.insert(
                    f.name.to_string(),
                    (f.bytes.len(), bytes_hash(f.bytes.as_bytes())),
                );
            }
            s
        }
    };
    seen.write(layout);
    if let Some(p) = Progress::path(layout) {
        let _ = std::fs::remove_file(p);
    }
}
