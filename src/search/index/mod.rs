//! `.zo/memory/index.db`: the derived index (SPEC §4). One row per decision, prior and session
//! file, an FTS5 table over them, and embeddings keyed by the hash of the text they embed.
//! The files are the truth: any doubt about this database (schema, model, corruption) is
//! answered by rebuilding it from them.
//!
//! This file owns the handle on the database (opening, locking, a temporary one, metadata);
//! `install.rs` builds a new database and puts it in place of the old; `owner.rs` signs it as
//! this user's; `refresh.rs` brings the rows up to date with the files; `embed.rs` stores
//! vectors; `rows.rs` says what each entry's row should be; `query.rs` ranks; `vectors.rs` is
//! the machine's vector cache.

use crate::store::fsio::Lock;
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};
use std::path::PathBuf;

mod embed;
mod install;
mod owner;
mod query;
mod refresh;
mod rows;
pub mod vectors;
use install::check_files;
pub use query::{Brief, Filter, STOPWORDS, Texts, Vectors};
pub(crate) use refresh::stamp;
pub use vectors::VectorCache;

/// Bump when the schema or what goes into a row changes: the index is then rebuilt.
const SCHEMA_VERSION: &str = "4";
/// FTS5's tokenizer for entries, and for any text judged as entries are (`Texts`); the schema
/// names it (a test holds them equal).
const TOKENIZER: &str = "porter unicode61";

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
    /// The type within its kind (JSON `type`): a decision's type, a prior's root cause, a
    /// fact's scope.
    #[serde(rename = "type")]
    pub subtype: String,
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
    matches!(
        e.sqlite_error_code(),
        Some(NotADatabase | DatabaseCorrupt | CannotOpen | SystemIoFailure)
    )
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
                    .any(|io| {
                        matches!(
                            io.kind(),
                            std::io::ErrorKind::PermissionDenied
                                | std::io::ErrorKind::ReadOnlyFilesystem
                        )
                    });
                if !denied {
                    return Err(e);
                }
                note(&format!(
                    "{} is read-only: searching a temporary index, lexically (nothing is saved)",
                    layout.show(&layout.memory)
                ));
                let why = "the memory directory is read-only";
                return Ok((Index::temporary(why)?, Some(why.into())));
            }
        };
        let why = match Index::current(&path) {
            Ok(conn) => {
                return Ok((
                    Index {
                        conn,
                        path,
                        state: State::Live { _lock: lock },
                    },
                    None,
                ));
            }
            Err(why) => why,
        };
        drop(lock);
        let (ix, replaced) = Index::build(layout)?.swap_in(layout, true)?;
        if !replaced {
            // Another process built it meanwhile.
            return Ok((ix, None));
        }
        match why.as_str() {
            "the index did not exist" => note(&format!(
                "building {}: it did not exist",
                layout.show(&path)
            )),
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
        note(&format!(
            "rebuilt {}: {why}",
            layout.show(&layout.index_db())
        ));
        Ok((index, r))
    }

    /// An in-memory index, gone when the process ends: for a checkout zo cannot write to, or an
    /// index it cannot use (`why`, said with the answers).
    pub fn temporary(why: &str) -> Result<Index> {
        let mut conn = Connection::open_in_memory()?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)",
            [SCHEMA_VERSION],
        )?;
        tx.commit()?;
        Ok(Index {
            conn,
            path: PathBuf::from(":memory:"),
            state: State::Temporary(why.to_string()),
        })
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
        let _ = self
            .conn
            .execute_batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" });
        out
    }

    fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            [key, value],
        )?;
        Ok(())
    }

    pub fn counts(&self) -> Result<(usize, usize, usize)> {
        let n = |sql: &str| {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|v| v as usize)
        };
        Ok((
            n("SELECT count(*) FROM entries")?,
            n("SELECT count(*) FROM entries WHERE vec IS NOT NULL")?,
            n("SELECT count(*) FROM vectors")?,
        ))
    }

    /// Run `f`; if SQLite says the database is corrupt, the caller should rebuild.
    pub fn corrupt(err: &anyhow::Error) -> bool {
        err.chain().any(|e| {
            e.downcast_ref::<rusqlite::Error>()
                .is_some_and(is_corruption)
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_uses_the_tokenizer_texts_are_judged_with() {
        assert!(super::SCHEMA.contains(&format!("tokenize = '{}'", super::TOKENIZER)));
    }
}
