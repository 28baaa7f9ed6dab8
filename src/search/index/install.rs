//! Building a new database beside `index.db` and putting it in place of the old one, and the
//! files zo refuses (links, special files) or cleans up (journals, dead builds) on the way.

use super::owner::{ours, seal_owner};
use super::{Index, SCHEMA, SCHEMA_VERSION, State};
use crate::store::fsio::Lock;
use crate::store::layout::Layout;
use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension};
use std::path::{Path, PathBuf};

/// The schema version a database says it has; None when it has no `meta` table or no version.
fn schema_version(conn: &Connection) -> Result<Option<String>> {
    let has_meta: bool = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |r| r.get::<_, i64>(0),
    )? > 0;
    if !has_meta {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()?)
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
pub(super) fn check_files(layout: &Layout) -> Result<()> {
    let db = layout.index_db();
    for path in std::iter::once(db.clone()).chain(SIDECARS.iter().map(|s| with_suffix(&db, s))) {
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let t = m.file_type();
        if t.is_file() {
            continue;
        }
        let what = if t.is_dir() {
            "a directory"
        } else {
            crate::store::fsio::special_kind(&t).unwrap_or("not a regular file")
        };
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
    let Ok(entries) = std::fs::read_dir(&layout.memory) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(BUILD_PREFIX)) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or("");
        if pid.parse::<u32>().is_ok()
            && !proc.join(pid).exists()
            && e.file_type().is_ok_and(|t| t.is_file())
        {
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
            _ if started.elapsed() > std::time::Duration::from_secs(60) => {
                bail!("another process kept the index busy for a minute")
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
}

impl Index {
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
        let temp = builder
            .tempfile_in(&layout.memory)
            .with_context(|| {
                format!(
                    "could not create a new index in {}",
                    layout.show(&layout.memory)
                )
            })?
            .into_temp_path();
        let mut conn = Index::connect(&temp)?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(SCHEMA)
            .with_context(|| format!("{} is not a usable index", temp.display()))?;
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)",
            [SCHEMA_VERSION],
        )?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let build = format!("{}-{nanos}", std::process::id());
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('build', ?1)",
            [&build],
        )?;
        // Signed by this user's zo (`store::trust`), for this file: an index.db a repository
        // committed, another machine made, or a copy is rebuilt rather than searched. Sealed
        // again for the file it ends up in (`swap_in`).
        seal_owner(&tx, &temp)?;
        tx.commit()?;
        Ok(Index {
            conn,
            path: temp.to_path_buf(),
            state: State::Building(temp),
        })
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

    pub(super) fn swap_in(self, layout: &Layout, only_if_unusable: bool) -> Result<(Index, bool)> {
        let path = layout.index_db();
        let lock_path = layout.index_lock();
        let Index {
            conn: src, state, ..
        } = self;
        let State::Building(temp) = state else {
            bail!("only a new index can be installed")
        };
        check_files(layout)?;
        if path.exists() {
            let lock = Lock::index(&lock_path, false)?;
            if let Ok(mut dst) = Index::connect(&path) {
                if only_if_unusable
                    && schema_version(&dst).ok().flatten().as_deref() == Some(SCHEMA_VERSION)
                    && ours(&dst, &path)
                {
                    return Ok((
                        Index {
                            conn: dst,
                            path,
                            state: State::Live { _lock: lock },
                        },
                        false,
                    ));
                }
                // A database SQLite can read and write (another schema, or `index rebuild`).
                if copy_into(&src, &mut dst).is_ok() {
                    dst.pragma_update(None, "journal_mode", "WAL")?;
                    seal_owner(&dst, &path)?;
                    return Ok((
                        Index {
                            conn: dst,
                            path,
                            state: State::Live { _lock: lock },
                        },
                        true,
                    ));
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
                temp.persist(&path)
                    .map_err(|e| anyhow::anyhow!(e.error))
                    .with_context(|| format!("could not replace {}", layout.show(&path)))?;
                Index::connect(&path)?.pragma_update(None, "journal_mode", "WAL")?;
            }
        }
        let lock = Lock::index(&lock_path, false)?;
        let conn = Index::connect(&path)?;
        Ok((
            Index {
                conn,
                path,
                state: State::Live { _lock: lock },
            },
            replaced,
        ))
    }

    /// The database at `path` if it exists and has this schema (the common case: no writes);
    /// otherwise why not.
    pub(super) fn current(path: &Path) -> std::result::Result<Connection, String> {
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
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(path, flags)
            .with_context(|| format!("could not open {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(conn)
    }
}
