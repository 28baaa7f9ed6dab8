//! `.zo/memory/index.db`: the derived index (SPEC §4). One row per decision, prior and session
//! file, an FTS5 table over them, and embeddings keyed by the hash of the text they embed.
//! The files are the truth: any doubt about this database (schema, model, corruption) is
//! answered by rebuilding it from them.
//!
//! This file owns the database (opening, locking, creating, rebuilding, refreshing, storing
//! vectors); `rows.rs` says what each entry's row should be; `query.rs` ranks.

use crate::embedding::{self, Embed};
use crate::fsio::Lock;
use crate::layout::Layout;
use crate::memory::Memory;
use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod query;
mod rows;
pub use query::{Brief, Filter, Vectors};
use rows::{apply, decision_rows, fact_rows, prior_rows, session_rows};

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
    pub embedded: usize,
}

pub struct Index {
    // Declared before the lock so the connection closes before the lock is released.
    conn: Connection,
    pub path: PathBuf,
    /// None for a temporary in-memory index (a read-only checkout).
    _lock: Option<Lock>,
}


fn is_corruption(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(e.sqlite_error_code(), Some(NotADatabase | DatabaseCorrupt | CannotOpen | SystemIoFailure))
}

/// The schema version a database says it has; None when it has no `meta` table or no version.
fn schema_version(conn: &Connection) -> Result<Option<String>> {
    let has_meta: bool =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", [], |r| r.get::<_, i64>(0))? > 0;
    if !has_meta {
        return Ok(None);
    }
    Ok(conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).optional()?)
}

/// Delete the database and its WAL files. Only with the exclusive index lock held.
fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// (inode, size, mtime ns) of a file: cheap to read, and every zo write (a rename) or in-place
/// edit changes it.
fn stamp(path: &Path) -> String {
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

impl Index {
    /// Open (or create) the index. A database that is not ours, is corrupt, or has another
    /// schema is deleted and rebuilt, with one line on stderr saying why.
    ///
    /// Every process holds the index lock (`index.db-lock`) shared while it uses the database,
    /// and creating or deleting it takes the lock exclusive: a process that found the file
    /// missing or unusable re-checks under the exclusive lock, so two first readers build it
    /// once, and nobody deletes it while another process reads it.
    pub fn open(layout: &Layout, note: &dyn Fn(&str)) -> Result<(Index, Option<String>)> {
        Index::open_or_rebuild(layout, None, note)
    }

    /// Delete and recreate the index (for `index rebuild`, or after SQLite reported
    /// corruption), then open it.
    pub fn rebuild(layout: &Layout, why: &str, note: &dyn Fn(&str)) -> Result<(Index, Option<String>)> {
        Index::open_or_rebuild(layout, Some(why), note)
    }

    fn open_or_rebuild(layout: &Layout, force: Option<&str>, note: &dyn Fn(&str)) -> Result<(Index, Option<String>)> {
        let path = layout.index_db();
        let lock_path = layout.index_lock();
        if path.is_dir() {
            anyhow::bail!(
                "{} is a directory, where zo keeps its index (a derived file it rebuilds at will); move it away or remove it, then run again",
                layout.show(&path)
            );
        }
        // A read-only checkout (or directory) cannot hold the index: search a temporary one.
        let writable = std::fs::OpenOptions::new().create(true).append(true).open(&lock_path);
        if let Err(e) = writable {
            if matches!(e.kind(), std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem) {
                note(&format!("{} is read-only: searching a temporary index, lexically (nothing is saved)", layout.show(&layout.memory)));
                return Ok((Index::temporary()?, Some("the memory directory is read-only".into())));
            }
        }
        let mut rebuilt = None;
        if force.is_none() {
            let lock = Lock::index(&lock_path, false)?;
            if let Some(ix) = Index::connect_if_current(&path, lock) {
                return Ok((ix, None));
            }
        }
        {
            let _exclusive = Lock::index(&lock_path, true)?;
            // Looked at again under the exclusive lock: another process may have built it.
            enum Todo {
                Nothing,
                Build,
                Rebuild(String),
            }
            let todo = match force {
                Some(why) => Todo::Rebuild(why.to_string()),
                None if !path.exists() => Todo::Build,
                None => match Index::connect(&path).and_then(|c| schema_version(&c)) {
                    Ok(Some(v)) if v == SCHEMA_VERSION => Todo::Nothing,
                    Ok(v) => Todo::Rebuild(format!("index schema {} is not {SCHEMA_VERSION}", v.as_deref().unwrap_or("unknown"))),
                    Err(e) => Todo::Rebuild(format!("index unreadable ({e:#})")),
                },
            };
            match todo {
                Todo::Nothing => {}
                Todo::Build => {
                    note(&format!("building {}: it did not exist", layout.show(&path)));
                    Index::create(&path)?;
                    rebuilt = Some("the index did not exist".to_string());
                }
                Todo::Rebuild(why) => {
                    note(&format!("rebuilding {}: {why}", layout.show(&path)));
                    remove_db(&path);
                    Index::create(&path)?;
                    rebuilt = Some(why);
                }
            }
        }
        let lock = Lock::index(&lock_path, false)?;
        let conn = Index::connect(&path)?;
        Ok((Index { conn, path, _lock: Some(lock) }, rebuilt))
    }

    /// An in-memory index for a checkout zo cannot write to; gone when the process ends.
    fn temporary() -> Result<Index> {
        let mut conn = Connection::open_in_memory()?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION])?;
        tx.commit()?;
        Ok(Index { conn, path: PathBuf::from(":memory:"), _lock: None })
    }

    /// Whether this is a temporary in-memory index (nothing it computes is kept).
    pub fn is_temporary(&self) -> bool {
        self._lock.is_none()
    }

    /// The database at `path` if it exists and has this schema (the common case: no writes).
    fn connect_if_current(path: &Path, lock: Lock) -> Option<Index> {
        if !path.exists() {
            return None;
        }
        let conn = Index::connect(path).ok()?;
        let current = schema_version(&conn).ok()?.as_deref() == Some(SCHEMA_VERSION);
        current.then(|| Index { conn, path: path.to_path_buf(), _lock: Some(lock) })
    }

    /// A new database with the schema and its version, written in one transaction so that no
    /// reader ever sees the tables without the version. Called with the exclusive lock held.
    fn create(path: &Path) -> Result<()> {
        let mut conn = Index::connect(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(SCHEMA).with_context(|| format!("{} is not a usable index", path.display()))?;
        tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION])?;
        tx.commit()?;
        Ok(())
    }

    fn connect(path: &Path) -> Result<Connection> {
        let conn = Connection::open(path).with_context(|| format!("could not open {}", path.display()))?;
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
        if let Some(dir) = crate::facts::user_dir() {
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
                fact_rows(&memory.facts(crate::facts::Scope::Project)?, crate::facts::Scope::Project, threshold)
            } else if source == USER_FACTS {
                fact_rows(&memory.facts(crate::facts::Scope::User).unwrap_or_default(), crate::facts::Scope::User, threshold)
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
    pub fn purge(&mut self, memory: &Memory) -> Result<()> {
        self.conn.pragma_update(None, "secure_delete", "ON")?;
        self.refresh(memory)?;
        self.conn.execute("DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)", [])?;
        self.conn.execute("INSERT INTO fts (fts) VALUES ('optimize')", [])?;
        self.conn.execute_batch("VACUUM")?;
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// How many distinct texts still need an embedding.
    pub fn pending_embeddings(&self) -> Result<usize> {
        Ok(self.conn.query_row(
            "SELECT count(DISTINCT vhash) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors)",
            [],
            |r| r.get::<_, i64>(0),
        )? as usize)
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

    /// Embed every row whose text has no vector yet. Returns how many texts were embedded.
    pub fn embed_missing(&mut self, embedder: &mut dyn Embed) -> Result<usize> {
        let todo: Vec<(String, String)> = {
            let mut stmt = self.conn.prepare(
                "SELECT vhash, min(embed_text) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors) GROUP BY vhash",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let bar = crate::progress::bar(todo.len(), "embedding");
        // Small chunks: the progress bar moves every few seconds, and an interrupted build keeps
        // what it embedded.
        for chunk in todo.chunks(16) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
            let vecs = embedding::embed_entries(embedder, &texts)?;
            bar.inc(chunk.len() as u64);
            let tx = self.conn.transaction()?;
            for ((h, _), v) in chunk.iter().zip(vecs) {
                let bytes = embedding::to_bytes(&v);
                tx.execute("INSERT OR REPLACE INTO vectors (vhash, vec) VALUES (?1, ?2)", params![h, bytes])?;
                tx.execute("UPDATE entries SET vec = ?2 WHERE vhash = ?1", params![h, bytes])?;
            }
            tx.commit()?;
        }
        bar.finish_and_clear();
        self.conn.execute("DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)", [])?;
        Ok(todo.len())
    }

    pub fn counts(&self) -> Result<(usize, usize, usize)> {
        let n = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|v| v as usize);
        Ok((
            n("SELECT count(*) FROM entries")?,
            n("SELECT count(*) FROM entries WHERE vec IS NOT NULL")?,
            n("SELECT count(*) FROM vectors")?,
        ))
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
