//! The machine's vector cache (`zo cache`): every vector this machine computed, keyed by the
//! model's identity and the exact text embedded, shared by every clone and worktree. An index
//! build takes its vectors from here and embeds only texts this machine has never seen, so a
//! second checkout of a memory costs a table copy, not a minute of embedding.
//!
//! One SQLite file, `<cache>/vectors/vectors.db` (`ZO_VECTOR_CACHE` names the directory;
//! else `$ZO_CACHE/vectors`, `$XDG_CACHE_HOME/zo/vectors`, `~/.cache/zo/vectors`). SQLite
//! rather than a file per entry: its transactions already make every write atomic under
//! concurrent writers and crashes (WAL, a busy timeout), least-recently-used pruning is one
//! indexed query, and 100,000 entries are one file rather than 100,000 inodes. Each entry also
//! carries a checksum of its key and vector, so an entry damaged on disk (or by hand) is never
//! used: it reads as missing, is embedded again and replaced.
//!
//! Like the index, it is derived: deleting it costs only time. Nothing in it leaves the
//! machine, and it never decides an answer: any error with it is the same as an empty cache.

use crate::search::embedding::{self, Paths};
use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bump when the key or what a row holds changes: older rows are dropped.
const VERSION: &str = "1";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- The model's identity by the stamps of its files, so it is hashed once per install.
CREATE TABLE IF NOT EXISTS models (stamp TEXT PRIMARY KEY, digest BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    rowid INTEGER PRIMARY KEY,
    -- sha256(model identity, text)
    key BLOB NOT NULL UNIQUE,
    vec BLOB NOT NULL,
    -- sha256(key, vec): a damaged row is never used
    sum BLOB NOT NULL,
    -- unix seconds of the last use, for pruning the least recently used
    used INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
";

/// What a row costs besides its vector (key, checksum, time, SQLite's own bytes), for the bound.
const ROW_OVERHEAD: u64 = 100;

/// The default size bound: 1 GiB, about 330,000 entries of the current model.
pub const DEFAULT_MAX_BYTES: u64 = crate::store::settings::CACHE_MAX_DEFAULT;

const DB: &str = "vectors.db";

pub use crate::store::layout::vector_cache_dir as dir;

/// The size bound (`ZO_CACHE_MAX`, checked with every other variable in `settings`).
pub fn max_bytes() -> Result<u64> {
    crate::store::settings::cache_max()
}

pub use crate::store::settings::parse_size;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// The cache's directory and files must be ours: a directory and regular files, never links.
/// The cache directory above is the user's own (it may well be a link they made); zo creates
/// `vectors/` itself and does not write through a link it did not create.
fn check(dir: &Path) -> Result<()> {
    crate::store::layout::private_dir(dir).context("the vector cache is not used")?;
    let db = dir.join(DB);
    for path in std::iter::once(db.clone()).chain(
        ["-wal", "-shm", "-journal"]
            .iter()
            .map(|s| with_suffix(&db, s)),
    ) {
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !m.file_type().is_file() {
            bail!(
                "{} is not a regular file (a link?); zo does not write through it: remove it to use the vector cache",
                path.display()
            );
        }
    }
    Ok(())
}

fn connect(db: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let conn = Connection::open_with_flags(db, flags)
        .with_context(|| format!("could not open {}", db.display()))?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    // Before the first table: a pruned cache can give its pages back (`incremental_vacuum`).
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let tx = rusqlite::Transaction::new_unchecked(&conn, rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch(SCHEMA)?;
    let version: Option<String> = tx
        .query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
            r.get(0)
        })
        .optional()?;
    if version.as_deref() != Some(VERSION) {
        tx.execute_batch("DELETE FROM vectors; DELETE FROM models;")?;
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?1)",
            [VERSION],
        )?;
    }
    tx.commit()?;
    Ok(conn)
}

fn is_corruption(e: &anyhow::Error) -> bool {
    use rusqlite::ErrorCode::*;
    e.chain().any(|c| {
        c.downcast_ref::<rusqlite::Error>()
            .is_some_and(|e| matches!(e.sqlite_error_code(), Some(NotADatabase | DatabaseCorrupt)))
    })
}

/// Open (creating) the cache database in `dir`. A file SQLite calls corrupt or not a database
/// is removed and made again: it is a cache, and the checks above made sure it is a regular
/// file in a directory zo made.
fn open_db(dir: &Path) -> Result<Connection> {
    // Made 0700 when missing: the vectors are derived from private text, the user's alone.
    check(dir)?;
    let db = dir.join(DB);
    match connect(&db) {
        Ok(c) => Ok(c),
        Err(e) if is_corruption(&e) => {
            for s in ["", "-wal", "-shm", "-journal"] {
                let _ = std::fs::remove_file(with_suffix(&db, s));
            }
            check(dir)?;
            connect(&db)
        }
        Err(e) => Err(e),
    }
}

/// The cache, opened for one model.
pub struct VectorCache {
    conn: Connection,
    model: [u8; 32],
    max_bytes: u64,
}

impl VectorCache {
    /// Open the machine's cache for the model at `paths` (its identity is the hash of its
    /// files and of how zo embeds with it; hashed once per install and remembered by the files'
    /// stamps).
    pub fn open(paths: &Paths) -> Result<VectorCache> {
        let dir = dir().context("no cache directory (neither ZO_VECTOR_CACHE, ZO_CACHE, XDG_CACHE_HOME nor HOME is set)")?;
        let conn = open_db(&dir)?;
        let model = model_identity(&conn, &paths.model_dir)?;
        Ok(VectorCache {
            conn,
            model,
            max_bytes: max_bytes()?,
        })
    }

    fn key(&self, text: &str) -> [u8; 32] {
        key_of(&self.model, text)
    }

    /// The stored vectors (as the index stores them: little-endian f32 bytes) for `texts`, None
    /// where there is none or the entry fails its checksum. Marks the found ones used.
    pub fn get(&self, texts: &[&str]) -> Result<Vec<Option<Vec<u8>>>> {
        let now = now();
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Deferred,
        )?;
        let mut out = Vec::with_capacity(texts.len());
        let mut hits = Vec::new();
        {
            let mut get =
                tx.prepare_cached("SELECT rowid, vec, sum, used FROM vectors WHERE key = ?1")?;
            for text in texts {
                let key = self.key(text);
                let row: Option<(i64, Vec<u8>, Vec<u8>, i64)> = get
                    .query_row([&key[..]], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })
                    .optional()?;
                match row {
                    Some((rowid, vec, sum, used))
                        if sum == checksum(&key, &vec)
                            && vec.len() == embedding::DIM * embedding::VECTORS_PER_ENTRY * 4 =>
                    {
                        // Marking use costs a write; once an hour per entry is precise enough.
                        if now - used > 3600 {
                            hits.push(rowid);
                        }
                        out.push(Some(vec));
                    }
                    _ => out.push(None),
                }
            }
        }
        tx.commit()?;
        if !hits.is_empty() {
            let tx = rusqlite::Transaction::new_unchecked(
                &self.conn,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            {
                let mut touch =
                    tx.prepare_cached("UPDATE vectors SET used = ?2 WHERE rowid = ?1")?;
                for rowid in hits {
                    touch.execute(params![rowid, now])?;
                }
            }
            tx.commit()?;
        }
        Ok(out)
    }

    /// Store vectors for texts (replacing a damaged entry with the same key), in one
    /// transaction, then prune to the bound if it is exceeded.
    pub fn put(&self, items: &[(&str, &[u8])]) -> Result<()> {
        let now = now();
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO vectors (key, vec, sum, used) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (text, vec) in items {
                let key = self.key(text);
                put.execute(params![&key[..], vec, &checksum(&key, vec)[..], now])?;
            }
        }
        tx.commit()?;
        let (entries, bytes) = usage(&self.conn)?;
        if bytes > self.max_bytes && entries > 0 {
            prune_conn(&self.conn, self.max_bytes)?;
        }
        Ok(())
    }
}

/// Erase the vectors of `texts` (entries `zo forget` erased) for every model this cache has
/// known, with SQLite's secure delete and the log truncated, so no page keeps them. Creates
/// nothing: no cache, nothing to erase.
pub fn forget(texts: &[&str]) -> Result<usize> {
    let Some(dir) = dir() else { return Ok(0) };
    if texts.is_empty() || std::fs::symlink_metadata(dir.join(DB)).is_err() {
        return Ok(0);
    }
    let conn = open_db(&dir)?;
    conn.pragma_update(None, "secure_delete", "ON")?;
    let models: Vec<Vec<u8>> = {
        let mut stmt = conn.prepare("SELECT DISTINCT digest FROM models")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let tx = rusqlite::Transaction::new_unchecked(&conn, rusqlite::TransactionBehavior::Immediate)?;
    let mut removed = 0;
    {
        let mut del = tx.prepare("DELETE FROM vectors WHERE key = ?1")?;
        for model in &models {
            for text in texts {
                removed += del.execute([&key_of(model, text)[..]])?;
            }
        }
    }
    tx.commit()?;
    if removed > 0 {
        conn.execute_batch("PRAGMA incremental_vacuum")?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    }
    Ok(removed)
}

/// Give `index` every missing vector the machine's cache holds for the installed model, before
/// anything loads the model: a checkout of a memory this machine has seen needs no model load
/// at all. Returns how many it took; without a model, or when the cache cannot be used (said
/// once through `note`), 0.
pub fn fill(
    index: &mut super::Index,
    config: &crate::store::config::Config,
    note: &dyn Fn(&str),
) -> Result<usize> {
    let Ok(paths) = embedding::locate(config).paths() else {
        return Ok(0);
    };
    if index.is_temporary() {
        return Ok(0);
    }
    index.check_model(note)?;
    if index.pending_embeddings()? == 0 {
        return Ok(0);
    }
    match VectorCache::open(&paths).and_then(|c| index.take_cached(&c)) {
        Ok(n) => Ok(n),
        Err(e) => {
            note(&format!(
                "the vector cache could not be used ({e:#}); embedding without it"
            ));
            Ok(0)
        }
    }
}

/// An entry's key: sha256 of the model's identity and the exact text.
fn key_of(model: &[u8], text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(model);
    h.update(text.as_bytes());
    h.finalize().into()
}

fn checksum(key: &[u8], vec: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(key);
    h.update(vec);
    h.finalize().into()
}

/// (inode, size, mtime) of each model file, in one string: a new install changes it.
fn model_stamp(model_dir: &Path) -> String {
    let mut s = String::new();
    for f in embedding::MODEL_FILES {
        let p = model_dir.join(f);
        let canon = std::fs::canonicalize(&p).unwrap_or(p);
        s.push_str(&format!("{}:{};", canon.display(), super::stamp(&canon)));
    }
    s
}

/// What the vectors depend on: the model's files (weights and tokenizer) and how zo embeds
/// with them (`embedding::vectors_id`: dimension, opening and whole window, MAX_TOKENS).
fn model_identity(conn: &Connection, model_dir: &Path) -> Result<[u8; 32]> {
    let stamp = format!("{}|{}", embedding::vectors_id(), model_stamp(model_dir));
    let known: Option<Vec<u8>> = conn
        .query_row(
            "SELECT digest FROM models WHERE stamp = ?1",
            [&stamp],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(d) = known.and_then(|d| <[u8; 32]>::try_from(d.as_slice()).ok()) {
        return Ok(d);
    }
    let mut h = Sha256::new();
    h.update(embedding::vectors_id().as_bytes());
    for f in embedding::MODEL_FILES {
        let p = model_dir.join(f);
        let mut file =
            std::fs::File::open(&p).with_context(|| format!("could not read {}", p.display()))?;
        h.update(f.as_bytes());
        h.update([0]);
        std::io::copy(&mut file, &mut h)
            .with_context(|| format!("could not read {}", p.display()))?;
    }
    let digest: [u8; 32] = h.finalize().into();
    conn.execute(
        "INSERT OR REPLACE INTO models (stamp, digest) VALUES (?1, ?2)",
        params![stamp, &digest[..]],
    )?;
    Ok(digest)
}

/// (entries, bytes counted against the bound).
fn usage(conn: &Connection) -> Result<(u64, u64)> {
    let (n, b): (i64, i64) = conn.query_row(
        "SELECT count(*), coalesce(sum(length(vec)), 0) FROM vectors",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((n as u64, b as u64 + n as u64 * ROW_OVERHEAD))
}

/// What `zo cache status` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Status {
    pub path: String,
    pub exists: bool,
    pub entries: u64,
    /// Bytes counted against the bound (vectors and their keys).
    pub bytes: u64,
    /// The database file and its write-ahead log on disk.
    pub file_bytes: u64,
    pub max_bytes: u64,
    /// The last use of the least recently used entry (unix seconds).
    pub oldest_use: Option<i64>,
    pub newest_use: Option<i64>,
}

/// What `zo cache prune` and `zo cache clear` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pruned {
    pub path: String,
    pub removed: u64,
    pub entries: u64,
    pub bytes: u64,
    pub max_bytes: u64,
}

fn cache_dir() -> Result<PathBuf> {
    dir().context(
        "no cache directory (neither ZO_VECTOR_CACHE, ZO_CACHE, XDG_CACHE_HOME nor HOME is set)",
    )
}

fn file_bytes(dir: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::symlink_metadata(with_suffix(&dir.join(DB), s)).ok())
        .map(|m| m.len())
        .sum()
}

/// The cache's size and age; creates nothing.
pub fn status() -> Result<Status> {
    let dir = cache_dir()?;
    let db = dir.join(DB);
    let max_bytes = max_bytes()?;
    let mut s = Status {
        path: db.display().to_string(),
        exists: false,
        entries: 0,
        bytes: 0,
        file_bytes: 0,
        max_bytes,
        oldest_use: None,
        newest_use: None,
    };
    if std::fs::symlink_metadata(&db).is_err() {
        return Ok(s);
    }
    let conn = open_db(&dir)?;
    s.exists = true;
    (s.entries, s.bytes) = usage(&conn)?;
    (s.oldest_use, s.newest_use) =
        conn.query_row("SELECT min(used), max(used) FROM vectors", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    s.file_bytes = file_bytes(&dir);
    Ok(s)
}

/// Remove the least recently used entries until the cache is within `max` bytes.
pub fn prune(max: u64) -> Result<Pruned> {
    let dir = cache_dir()?;
    let db = dir.join(DB);
    if std::fs::symlink_metadata(&db).is_err() {
        return Ok(Pruned {
            path: db.display().to_string(),
            removed: 0,
            entries: 0,
            bytes: 0,
            max_bytes: max,
        });
    }
    let conn = open_db(&dir)?;
    let removed = prune_conn(&conn, max)?;
    let (entries, bytes) = usage(&conn)?;
    Ok(Pruned {
        path: db.display().to_string(),
        removed,
        entries,
        bytes,
        max_bytes: max,
    })
}

/// Remove every entry (the report names the configured bound, not the 0 it pruned to).
pub fn clear() -> Result<Pruned> {
    Ok(Pruned {
        max_bytes: max_bytes()?,
        ..prune(0)?
    })
}

fn prune_conn(conn: &Connection, max: u64) -> Result<u64> {
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let (entries, bytes) = usage(&tx)?;
    let mut removed = 0;
    if bytes > max && entries > 0 {
        // Rows are nearly all one size: remove the oldest share that brings it under the bound.
        let per = bytes.div_ceil(entries).max(1);
        let excess = (bytes - max).div_ceil(per).min(entries);
        removed = tx.execute("DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY used, rowid LIMIT ?1)", [excess as i64])? as u64;
    }
    tx.commit()?;
    if removed > 0 {
        // Give the freed pages back to the file system: the vacuum frees a page per step, so it
        // is stepped to the end (run once, it freed one page and the file kept its size), and
        // in WAL mode the file shrinks only when the log is checkpointed into it.
        let mut vacuum = conn.prepare("PRAGMA incremental_vacuum")?;
        let mut rows = vacuum.query([])?;
        while rows.next()?.is_some() {}
        drop(rows);
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1234"), Some(1234));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_size("500k"), Some(500 << 10));
        assert_eq!(parse_size("0"), Some(0));
        for bad in ["", "G", "-1", "1.5G", "lots", "99999999999999999999T"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
