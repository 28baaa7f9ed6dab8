//! `.zo/memory/index.db`: the derived index (SPEC §4). One row per decision, prior and session
//! file, an FTS5 table over them, and embeddings keyed by the hash of the text they embed.
//! The files are the truth: any doubt about this database (schema, model, corruption) is
//! answered by rebuilding it from them.
//!
//! This file owns the database (opening, locking, creating, rebuilding, refreshing, storing
//! vectors); `rows.rs` says what each entry's row should be; `query.rs` ranks.

use crate::search::embedding::{self, Embed};
use crate::store::fsio::Lock;
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod query;
mod rows;
pub mod vectors;
pub use query::{Brief, Filter, Vectors};
use rows::{apply, decision_rows, fact_rows, prior_rows, session_rows};
pub use vectors::VectorCache;

/// The source name of the user's facts (outside the repository).
const USER_FACTS: &str = "user:FACTS.md";

/// Bump when the schema or what goes into a row changes: the index is then rebuilt.
const SCHEMA_VERSION: &str = "3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    rowid INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    source TEXT NOT NULL,
    position INTEGER NOT NULL,
    line INTEGER NOT NULL,
    hash TEXT NOT NULL,
    vhash TEXT NOT NULL,
    title TEXT NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    status TEXT NOT NULL,
    superseded_by TEXT,
    text TEXT NOT NULL,
    embed_text TEXT NOT NULL,
    -- A copy of vectors.vec for this row's text, so semantic ranking is one table scan.
    vec BLOB
);
CREATE INDEX IF NOT EXISTS entries_source ON entries (source);
CREATE INDEX IF NOT EXISTS entries_vhash ON entries (vhash);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (title, body, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS vectors (vhash TEXT PRIMARY KEY, vec BLOB NOT NULL);
";

/// One indexed entry.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    #[serde(skip)]
    pub rowid: i64,
    pub kind: String,
    pub id: String,
    pub source: String,
    pub line: i64,
    pub title: String,
    #[serde(rename = "type")]
    pub kind_type: String,
    pub timestamp: String,
    pub status: String,
    pub superseded_by: Option<String>,
    pub text: String,
}

/// What a refresh did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Refresh {
    pub rebuilt: Option<String>,
    pub sources_changed: usize,
    pub inserted: usize,
    pub updated: usize,
    pub deleted: usize,
    /// Texts sent to the model.
    pub embedded: usize,
    /// Texts whose vectors came from the machine's vector cache (`index::vectors`).
    pub from_cache: usize,
}

pub struct Index {
    // Declared before the state so the connection closes before the lock is released (or the
    // new database's file removed).
    conn: Connection,
    pub path: PathBuf,
    state: State,
}

/// Which database an `Index` is.
enum State {
    /// `index.db`, with the index lock held shared.
    Live { _lock: Lock },
    /// In memory, nothing kept: why the real index could not be used.
    Temporary(String),
    /// A new database beside `index.db` (`Index::build`), deleted unless installed.
    Building(tempfile::TempPath),
}

fn is_corruption(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(e.sqlite_error_code(), Some(NotADatabase | DatabaseCorrupt | CannotOpen | SystemIoFailure))
}

/// The domain of the index's owner MAC (`store::trust`).
const OWNER_DOMAIN: &str = "zo index 1";

/// What the owner MAC covers: the build, and the file it lives in (device and inode). The
/// rows are not covered, so a MAC of the build alone let anyone holding one of this user's
/// indexes (one `git add -A` away from being committed) graft its `build` and `owner` onto
/// rows of their own. Any file git checks out, or a copy makes, is another inode: rebuilt.
fn owner_input(build: &str, path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let id = format!("{}:{}", std::os::unix::fs::MetadataExt::dev(&m), std::os::unix::fs::MetadataExt::ino(&m));
    #[cfg(not(unix))]
    let id = String::new();
    Some(format!("{build}\n{id}"))
}

/// Whether this user's zo built the database at `path`: its `owner` is the MAC of its `build`
/// in that file (`owner_input`).
fn ours(conn: &Connection, path: &Path) -> bool {
    let get = |k: &str| conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get::<_, String>(0)).ok();
    match (get("build"), get("owner")) {
        (Some(build), Some(owner)) => owner_input(&build, path).is_some_and(|input| crate::store::trust::sealed(OWNER_DOMAIN, input.as_bytes(), &owner)),
        _ => false,
    }
}

/// Sign the database at `path` as this user's (`ours`), for the file it is in now.
fn seal_owner(conn: &Connection, path: &Path) -> Result<()> {
    let build: String = conn.query_row("SELECT value FROM meta WHERE key = 'build'", [], |r| r.get(0))?;
    if let Some(owner) = owner_input(&build, path).and_then(|input| crate::store::trust::mac(OWNER_DOMAIN, input.as_bytes())) {
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('owner', ?1)", [owner])?;
    }
    Ok(())
}

/// The schema version a database says it has; None when it has no `meta` table or no version.
fn schema_version(conn: &Connection) -> Result<Option<String>> {
    let has_meta: bool = conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", [], |r| r.get::<_, i64>(0))? > 0;
    if !has_meta {
        return Ok(None);
    }
    Ok(conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).optional()?)
}

/// (inode, size, mtime ns) of a file: cheap to read, and every zo write (a rename) or in-place
/// edit changes it. Also the vector cache's stamp of the model files.
pub(crate) fn stamp(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => {
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&m);
            #[cfg(not(unix))]
            let ino = 0u64;
            let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
            format!("{ino}:{}:{mtime}", m.len())
        }
        Err(_) => "missing".into(),
    }
}

/// The files beside `index.db` that SQLite and zo make: the write-ahead log and its shared
/// memory, the rollback journal, and the index lock.
const SIDECARS: [&str; 4] = ["-wal", "-shm", "-journal", "-lock"];

/// Where a new database is built before it replaces `index.db`: `index.db-build-<pid>-<random>`.
/// Derived like the index (`Layout::is_derived`) and gitignored by `memory/index.db-*`.
const BUILD_PREFIX: &str = "index.db-build-";

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Refuse an index whose files are not ours. A repository is someone else's input: a committed
/// `index.db` (or `-wal`, `-shm`, `-journal`, `-lock`) that is a link would have SQLite write
/// through it, possibly outside the repository, and a FIFO there would hang every reader. zo
/// never follows, opens or removes such a file; the message names it.
fn check_files(layout: &Layout) -> Result<()> {
    let db = layout.index_db();
    for path in std::iter::once(db.clone()).chain(SIDECARS.iter().map(|s| with_suffix(&db, s))) {
        let Ok(m) = std::fs::symlink_metadata(&path) else { continue };
        let t = m.file_type();
        if t.is_file() {
            continue;
        }
        let what = if t.is_dir() { "a directory" } else { crate::store::fsio::special_kind(&t).unwrap_or("not a regular file") };
        bail!(
            "{} is {what}, where zo keeps its index (a derived file it rebuilds at will); zo neither follows nor removes it: move it away or remove it, then run again",
            layout.show(&path)
        );
    }
    Ok(())
}

/// Delete the database and its journals. Only with the exclusive index lock held, after
/// `check_files` (so none of them is a link or a directory).
fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(with_suffix(path, suffix));
    }
}

/// Builds left behind by a process that died (its pid is gone); only where that can be told.
fn remove_dead_builds(layout: &Layout) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&layout.memory) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(BUILD_PREFIX)) else { continue };
        let pid = rest.split('-').next().unwrap_or("");
        if pid.parse::<u32>().is_ok() && !proc.join(pid).exists() && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Copy `src` into `dst` in one write transaction (SQLite's backup API). In WAL mode readers
/// keep reading the snapshot they started with and see the new database when they start the
/// next one; writers wait only for the copy itself.
fn copy_into(src: &Connection, dst: &mut Connection) -> Result<()> {
    use rusqlite::backup::{Backup, StepResult};
    let backup = Backup::new(src, dst)?;
    let started = std::time::Instant::now();
    loop {
        match backup.step(-1)? {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            // The busy handler (30 s) has already waited; another writer kept the database.
            _ if started.elapsed() > std::time::Duration::from_secs(60) => bail!("another process kept the index busy for a minute"),
            _ => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
}

impl Index {
    /// Open (or create) the index. A database that is not ours, is corrupt, or has another
    /// schema is replaced by a new one (see `install`), with one line on stderr saying why.
    /// A link or special file where the index lives is refused (`check_files`); a memory
    /// directory zo cannot write gets a temporary in-memory index.
    ///
    /// Every process holds the index lock (`index.db-lock`) shared while it uses the database;
    /// only replacing a file SQLite cannot read takes it exclusive (see `install`), so nobody
    /// deletes the database while another process reads it.
    pub fn open(layout: &Layout, note: &dyn Fn(&str)) -> Result<(Index, Option<String>)> {
        let path = layout.index_db();
        let lock_path = layout.index_lock();
        check_files(layout)?;
        let lock = match Lock::index(&lock_path, false) {
            Ok(lock) => lock,
            Err(e) => {
                // A read-only checkout (or directory) cannot hold the index: search a temporary one.
                let denied = e
                    .chain()
                    .filter_map(|c| c.downcast_ref::<std::io::Error>())
                    .any(|io| matches!(io.kind(), std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem));
                if !denied {
                    return Err(e);
                }
                note(&format!("{} is read-only: searching a temporary index, lexically (nothing is saved)", layout.show(&layout.memory)));
                let why = "the memory directory is read-only";
                return Ok((Index::temporary(why)?, Some(why.into())));
            }
        };
        let why = match Index::current(&path) {
            Ok(conn) => return Ok((Index { conn, path, state: State::Live { _lock: lock } }, None)),
            Err(why) => why,
        };
        drop(lock);
        let (ix, replaced) = Index::build(layout)?.swap_in(layout, true)?;
        if !replaced {
            // Another process built it meanwhile.
            return Ok((ix, None));
        }
        match why.as_str() {
            "the index did not exist" => note(&format!("building {}: it did not exist", layout.show(&path))),
            _ => note(&format!("rebuilding {}: {why}", layout.show(&path))),
        }
        Ok((ix, Some(why)))
    }

    /// Build a new index from the files beside the old one and swap it in (for `index
    /// rebuild`, or after SQLite reported corruption). The old index answers readers until the
    /// swap. Returns the new index, open, and what the build did. Says so (`note`) once done.
    pub fn rebuild(memory: &Memory, why: &str, note: &dyn Fn(&str)) -> Result<(Index, Refresh)> {
        let layout = &memory.layout;
        let mut fresh = Index::build(layout)?;
        let mut r = fresh.refresh(memory)?;
        r.rebuilt = Some(why.to_string());
        let index = fresh.install(layout)?;
        note(&format!("rebuilt {}: {why}", layout.show(&layout.index_db())));
        Ok((index, r))
    }

    /// A new, empty index (schema and version, in one transaction) beside `index.db`, under a
    /// name of its own, with no lock: nothing else uses it. Fill it (`refresh`, `embed_missing`),
    /// then put it in place with `install`; dropped, it is deleted.
    ///
    /// It is built with a rollback journal, not WAL: a `-wal` belongs to a file name, not to a
    /// database, and a WAL-mode file renamed onto `index.db` would adopt the log of the
    /// database it replaced.
    pub fn build(layout: &Layout) -> Result<Index> {
        check_files(layout)?;
        remove_dead_builds(layout);
        let prefix = format!("{BUILD_PREFIX}{}-", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        let temp =
            builder.tempfile_in(&layout.memory).with_context(|| format!("could not create a new index in {}", layout.show(&layout.memory)))?.into_temp_path();
        let mut conn = Index::connect(&temp)?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(SCHEMA).with_context(|| format!("{} is not a usable index", temp.display()))?;
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION])?;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let build = format!("{}-{nanos}", std::process::id());
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('build', ?1)", [&build])?;
        // Signed by this user's zo (`store::trust`), for this file: an index.db a repository
        // committed, another machine made, or a copy is rebuilt rather than searched. Sealed
        // again for the file it ends up in (`swap_in`).
        seal_owner(&tx, &temp)?;
        tx.commit()?;
        Ok(Index { conn, path: temp.to_path_buf(), state: State::Building(temp) })
    }

    /// Put a database made by `build` in place of `index.db` and open it. (`swap_in` with
    /// `only_if_unusable` keeps a current index another process made meanwhile, discards this
    /// one, and says whether it replaced anything.)
    ///
    /// - `index.db` is a database SQLite can write: the new one is copied into it in one write
    ///   transaction (`copy_into`), under the shared lock like any writer. Readers are never
    ///   waited for and never lose their file; they see the old index or the new one.
    /// - Missing, or not a database (garbage, another page size): under the exclusive lock,
    ///   when no process has it open, the old file and its journals are removed and the new
    ///   file renamed onto `index.db`; it switches to WAL before anyone else can open it.
    pub fn install(self, layout: &Layout) -> Result<Index> {
        Ok(self.swap_in(layout, false)?.0)
    }

    fn swap_in(self, layout: &Layout, only_if_unusable: bool) -> Result<(Index, bool)> {
        let path = layout.index_db();
        let lock_path = layout.index_lock();
        let Index { conn: src, state, .. } = self;
        let State::Building(temp) = state else { bail!("only a new index can be installed") };
        check_files(layout)?;
        if path.exists() {
            let lock = Lock::index(&lock_path, false)?;
            if let Ok(mut dst) = Index::connect(&path) {
                if only_if_unusable && schema_version(&dst).ok().flatten().as_deref() == Some(SCHEMA_VERSION) && ours(&dst, &path) {
                    return Ok((Index { conn: dst, path, state: State::Live { _lock: lock } }, false));
                }
                // A database SQLite can read and write (another schema, or `index rebuild`).
                if copy_into(&src, &mut dst).is_ok() {
                    dst.pragma_update(None, "journal_mode", "WAL")?;
                    seal_owner(&dst, &path)?;
                    return Ok((Index { conn: dst, path, state: State::Live { _lock: lock } }, true));
                }
            }
        }
        drop(src);
        let mut replaced = true;
        {
            let _exclusive = Lock::index(&lock_path, true)?;
            if only_if_unusable && Index::current(&path).is_ok() {
                replaced = false;
            } else {
                check_files(layout)?;
                remove_db(&path);
                temp.persist(&path).map_err(|e| anyhow::anyhow!(e.error)).with_context(|| format!("could not replace {}", layout.show(&path)))?;
                Index::connect(&path)?.pragma_update(None, "journal_mode", "WAL")?;
            }
        }
        let lock = Lock::index(&lock_path, false)?;
        let conn = Index::connect(&path)?;
        Ok((Index { conn, path, state: State::Live { _lock: lock } }, replaced))
    }

    /// An in-memory index, gone when the process ends: for a checkout zo cannot write to, or an
    /// index it cannot use (`why`, said with the answers).
    pub fn temporary(why: &str) -> Result<Index> {
        let mut conn = Connection::open_in_memory()?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION])?;
        tx.commit()?;
        Ok(Index { conn, path: PathBuf::from(":memory:"), state: State::Temporary(why.to_string()) })
    }

    /// Whether this is a temporary in-memory index (nothing it computes is kept).
    pub fn is_temporary(&self) -> bool {
        matches!(self.state, State::Temporary(_))
    }

    /// Why this index is temporary, when it is.
    pub fn temporary_reason(&self) -> Option<&str> {
        match &self.state {
            State::Temporary(why) => Some(why),
            _ => None,
        }
    }

    /// Whether `index.db` is there and a regular file (a link or special file is not ours).
    pub fn exists(layout: &Layout) -> bool {
        std::fs::symlink_metadata(layout.index_db()).is_ok_and(|m| m.is_file())
    }

    /// Which build this database is (row ids are a build's own): changes when `install` swaps
    /// in a new one.
    pub fn build_id(&self) -> Result<Option<String>> {
        self.meta("build")
    }

    /// Run `f`'s reads in one read transaction: every query in it sees the same database, even
    /// if `index rebuild` swaps in a new one meanwhile (row ids are the new build's).
    pub fn snapshot<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.conn.execute_batch("BEGIN DEFERRED")?;
        let out = f();
        let _ = self.conn.execute_batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" });
        out
    }

    /// The database at `path` if it exists and has this schema (the common case: no writes);
    /// otherwise why not.
    fn current(path: &Path) -> std::result::Result<Connection, String> {
        if !path.exists() {
            return Err("the index did not exist".into());
        }
        match Index::connect(path).and_then(|c| Ok((schema_version(&c)?, c))) {
            Ok((Some(v), c)) if v == SCHEMA_VERSION => match ours(&c, path) {
                true => Ok(c),
                false => Err("it was not made by this user's zo (a committed or copied index is never searched)".into()),
            },
            Ok((v, _)) => Err(format!("index schema {} is not {SCHEMA_VERSION}", v.as_deref().unwrap_or("unknown"))),
            Err(e) => Err(format!("index unreadable ({e:#})")),
        }
    }

    /// Open a database file. Never through a link: SQLite resolves links in the database path
    /// unless told not to (and then writes the link's target); its own journals are opened
    /// with `O_NOFOLLOW` always. The repository root is canonical (`Layout`), so a link on the
    /// way can only be inside the repository.
    fn connect(path: &Path) -> Result<Connection> {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(path, flags).with_context(|| format!("could not open {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(conn)
    }

    fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [key, value])?;
        Ok(())
    }

    /// The sources and their stamps, as the files stand now.
    fn stamps(layout: &Layout, sessions: &[String]) -> Vec<(String, String)> {
        let mut v = vec![
            (layout.rel(&layout.decision_log()), stamp(&layout.decision_log())),
            (layout.rel(&layout.priors()), stamp(&layout.priors())),
            (layout.rel(&layout.facts()), stamp(&layout.facts())),
        ];
        // The user's facts apply in every repository, so every index holds them.
        if let Some(dir) = crate::store::facts::user_dir() {
            v.push((USER_FACTS.to_string(), stamp(&dir.join("FACTS.md"))));
        }
        for s in sessions {
            let p = layout.sessions().join(s);
            v.push((layout.rel(&p), stamp(&p)));
        }
        v
    }

    /// Whether every source's stamp matches what was indexed.
    pub fn is_fresh(&self, memory: &Memory) -> Result<bool> {
        let now = Index::stamps(&memory.layout, &memory.session_names()?);
        Ok(matches(&now, &indexed_stamps(&self.conn)?))
    }

    /// Bring the rows up to date with the files: only sources whose stamp changed are read,
    /// only rows whose content hash changed are rewritten, rows whose source is gone are
    /// deleted. Embeddings are not touched here (see `embed_missing`).
    pub fn refresh(&mut self, memory: &Memory) -> Result<Refresh> {
        let now = Index::stamps(&memory.layout, &memory.session_names()?);
        let mut out = Refresh::default();
        if matches(&now, &indexed_stamps(&self.conn)?) {
            return Ok(out);
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have refreshed while we waited for the write lock.
        let indexed = indexed_stamps(&tx)?;
        let layout = &memory.layout;
        let (dsrc, psrc, fsrc) = (layout.rel(&layout.decision_log()), layout.rel(&layout.priors()), layout.rel(&layout.facts()));
        let threshold = memory.threshold()?;
        for (source, st) in &now {
            if indexed.get(source) == Some(st) {
                continue;
            }
            out.sources_changed += 1;
            let wants = if *source == dsrc {
                decision_rows(&memory.decisions()?)
            } else if *source == psrc {
                prior_rows(&memory.priors()?)
            } else if *source == fsrc {
                fact_rows(&memory.facts(crate::store::facts::Scope::Project)?, crate::store::facts::Scope::Project, threshold)
            } else if source == USER_FACTS {
                fact_rows(&memory.facts(crate::store::facts::Scope::User).unwrap_or_default(), crate::store::facts::Scope::User, threshold)
            } else {
                let name = source.rsplit('/').next().unwrap_or(source);
                session_rows(memory, name)?
            };
            apply(&tx, source, wants, &mut out)?;
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![format!("stamp:{source}"), st])?;
        }
        // Sources that no longer exist (a deleted session file).
        let live: std::collections::HashSet<&String> = now.iter().map(|(s, _)| s).collect();
        for source in indexed.keys().filter(|s| !live.contains(s)) {
            apply(&tx, source, Vec::new(), &mut out)?;
            tx.execute("DELETE FROM meta WHERE key = ?1", [format!("stamp:{source}")])?;
        }
        tx.commit()?;
        Ok(out)
    }

    /// After `zo forget`: bring the rows to the files with SQLite's secure delete on (freed
    /// pages are zeroed), drop vectors no row uses, merge the full-text index's segments (a
    /// deleted row's terms live on in old segments until then), and rewrite the database and
    /// its write-ahead log so no free page or log frame keeps the erased text.
    ///
    /// The erased texts' vectors leave the machine's vector cache too (`vectors::forget`).
    pub fn purge(&mut self, memory: &Memory) -> Result<()> {
        self.conn.pragma_update(None, "secure_delete", "ON")?;
        let before: Vec<(String, String)> = {
            let mut stmt = self.conn.prepare("SELECT DISTINCT vhash, embed_text FROM entries")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        self.refresh(memory)?;
        let live: std::collections::HashSet<String> = {
            let mut stmt = self.conn.prepare("SELECT DISTINCT vhash FROM entries")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let gone: Vec<&str> = before.iter().filter(|(h, _)| !live.contains(h)).map(|(_, t)| t.as_str()).collect();
        vectors::forget(&gone).context("could not erase the entry's vectors from the machine's vector cache")?;
        self.conn.execute("DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)", [])?;
        self.conn.execute("INSERT INTO fts (fts) VALUES ('optimize')", [])?;
        self.conn.execute_batch("VACUUM")?;
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// How many distinct texts still need an embedding.
    pub fn pending_embeddings(&self) -> Result<usize> {
        Ok(self.conn.query_row("SELECT count(DISTINCT vhash) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors)", [], |r| r.get::<_, i64>(0))?
            as usize)
    }

    /// Record which model the vectors come from; a different one discards them.
    pub fn check_model(&self, note: &dyn Fn(&str)) -> Result<()> {
        let want = embedding::vectors_id();
        match self.meta("model")? {
            Some(m) if m == want => {}
            Some(m) => {
                note(&format!("re-embedding every entry: the index was built with {m}, the model is now {want}"));
                let tx = self.conn.unchecked_transaction()?;
                tx.execute("DELETE FROM vectors", [])?;
                tx.execute("UPDATE entries SET vec = NULL", [])?;
                tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1)", [&want])?;
                tx.commit()?;
            }
            None => self.set_meta("model", &want)?,
        }
        Ok(())
    }

    /// The texts that have no vector yet, one per distinct text.
    fn missing(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare("SELECT vhash, min(embed_text) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors) GROUP BY vhash")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Store vectors (index bytes) for text hashes, in one transaction.
    fn store(&mut self, got: &[(&str, &[u8])]) -> Result<()> {
        let tx = self.conn.transaction()?;
        for (h, bytes) in got {
            tx.execute("INSERT OR REPLACE INTO vectors (vhash, vec) VALUES (?1, ?2)", params![h, bytes])?;
            tx.execute("UPDATE entries SET vec = ?2 WHERE vhash = ?1", params![h, bytes])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Take every missing vector the machine's cache holds. Returns how many it gave. Call
    /// after `check_model` (a model change discards the index's vectors first).
    pub fn take_cached(&mut self, cache: &VectorCache) -> Result<usize> {
        let todo = self.missing()?;
        if todo.is_empty() {
            return Ok(0);
        }
        let texts: Vec<&str> = todo.iter().map(|(_, t)| t.as_str()).collect();
        let found = cache.get(&texts)?;
        let got: Vec<(&str, &[u8])> = todo.iter().zip(&found).filter_map(|((h, _), v)| v.as_deref().map(|v| (h.as_str(), v))).collect();
        self.store(&got)?;
        Ok(got.len())
    }

    /// Embed every row whose text has no vector yet: from the machine's vector cache when it
    /// holds the text (for this model), else by the model, and then into the cache. Returns
    /// how many texts were sent to the model. The cache never fails an index build: when it
    /// cannot be used, everything is embedded as before.
    pub fn embed_missing(&mut self, embedder: &mut dyn Embed) -> Result<usize> {
        self.embed_some(embedder, usize::MAX)
    }

    /// `embed_missing` for at most `max` texts: a background catch-up (the MCP server) embeds
    /// in small batches, so it can stop between two of them and holds the index only briefly.
    /// Returns how many texts were sent to the model; 0 when none was missing.
    pub fn embed_up_to(&mut self, embedder: &mut dyn Embed, max: usize) -> Result<usize> {
        self.embed_some(embedder, max)
    }

    fn embed_some(&mut self, embedder: &mut dyn Embed, max: usize) -> Result<usize> {
        let cache = embedder.paths().and_then(|p| VectorCache::open(p).ok());
        if let Some(c) = &cache {
            let _ = self.take_cached(c);
        }
        let mut todo = self.missing()?;
        todo.truncate(max);
        let bar = crate::progress::bar(todo.len(), "embedding");
        // Small chunks: the progress bar moves every few seconds, and an interrupted build keeps
        // what it embedded (here and in the cache).
        for chunk in todo.chunks(16) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
            let vecs = embedding::embed_entries(embedder, &texts)?;
            bar.inc(chunk.len() as u64);
            let bytes: Vec<Vec<u8>> = vecs.iter().map(|v| embedding::to_bytes(v)).collect();
            let got: Vec<(&str, &[u8])> = chunk.iter().zip(&bytes).map(|((h, _), b)| (h.as_str(), b.as_slice())).collect();
            self.store(&got)?;
            if let Some(c) = &cache {
                let _ = c.put(&texts.iter().copied().zip(bytes.iter().map(Vec::as_slice)).collect::<Vec<_>>());
            }
        }
        bar.finish_and_clear();
        self.conn.execute("DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)", [])?;
        Ok(todo.len())
    }

    pub fn counts(&self) -> Result<(usize, usize, usize)> {
        let n = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|v| v as usize);
        Ok((n("SELECT count(*) FROM entries")?, n("SELECT count(*) FROM entries WHERE vec IS NOT NULL")?, n("SELECT count(*) FROM vectors")?))
    }

    /// Run `f`; if SQLite says the database is corrupt, the caller should rebuild.
    pub fn corrupt(err: &anyhow::Error) -> bool {
        err.chain().any(|e| e.downcast_ref::<rusqlite::Error>().is_some_and(is_corruption))
    }
}

/// The stamps recorded at the last refresh, by source.
fn indexed_stamps(conn: &Connection) -> Result<HashMap<String, String>> {
    let mut stmt = conn.prepare("SELECT key, value FROM meta WHERE key LIKE 'stamp:%'")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut m = HashMap::new();
    for r in rows {
        let (k, v) = r?;
        m.insert(k["stamp:".len()..].to_string(), v);
    }
    Ok(m)
}

/// Whether the files' stamps are exactly the indexed ones.
fn matches(now: &[(String, String)], indexed: &HashMap<String, String>) -> bool {
    now.len() == indexed.len() && now.iter().all(|(s, st)| indexed.get(s) == Some(st))
}
