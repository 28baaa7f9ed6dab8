//! Bringing the rows up to date with the files: each source's stamp says whether it changed,
//! and only changed sources are read again. `purge` is the thorough kind, after `zo forget`.

use super::rows::{apply, decision_rows, fact_rows, prior_rows, session_rows};
use super::{Index, Refresh, vectors};
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::path::Path;

/// The source name of the user's facts (outside the repository).
const USER_FACTS: &str = "user:FACTS.md";

/// (inode, size, mtime ns) of a file: cheap to read, and every zo write (a rename) or in-place
/// edit changes it. Also the vector cache's stamp of the model files.
pub(crate) fn stamp(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => {
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&m);
            #[cfg(not(unix))]
            let ino = 0u64;
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{ino}:{}:{mtime}", m.len())
        }
        Err(_) => "missing".into(),
    }
}

impl Index {
    /// The sources and their stamps, as the files stand now.
    fn stamps(layout: &Layout, sessions: &[String]) -> Vec<(String, String)> {
        let mut v = vec![
            (
                layout.rel(&layout.decision_log()),
                stamp(&layout.decision_log()),
            ),
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
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have refreshed while we waited for the write lock.
        let indexed = indexed_stamps(&tx)?;
        let layout = &memory.layout;
        let (dsrc, psrc, fsrc) = (
            layout.rel(&layout.decision_log()),
            layout.rel(&layout.priors()),
            layout.rel(&layout.facts()),
        );
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
                fact_rows(
                    &memory.facts(crate::store::facts::Scope::Project)?,
                    crate::store::facts::Scope::Project,
                    threshold,
                )
            } else if source == USER_FACTS {
                fact_rows(
                    &memory
                        .facts(crate::store::facts::Scope::User)
                        .unwrap_or_default(),
                    crate::store::facts::Scope::User,
                    threshold,
                )
            } else {
                let name = source.rsplit('/').next().unwrap_or(source);
                session_rows(memory, name)?
            };
            apply(&tx, source, wants, &mut out)?;
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![format!("stamp:{source}"), st],
            )?;
        }
        // Sources that no longer exist (a deleted session file).
        let live: std::collections::HashSet<&String> = now.iter().map(|(s, _)| s).collect();
        for source in indexed.keys().filter(|s| !live.contains(s)) {
            apply(&tx, source, Vec::new(), &mut out)?;
            tx.execute(
                "DELETE FROM meta WHERE key = ?1",
                [format!("stamp:{source}")],
            )?;
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
            let mut stmt = self
                .conn
                .prepare("SELECT DISTINCT vhash, embed_text FROM entries")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        self.refresh(memory)?;
        let live: std::collections::HashSet<String> = {
            let mut stmt = self.conn.prepare("SELECT DISTINCT vhash FROM entries")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let gone: Vec<&str> = before
            .iter()
            .filter(|(h, _)| !live.contains(h))
            .map(|(_, t)| t.as_str())
            .collect();
        vectors::forget(&gone)
            .context("could not erase the entry's vectors from the machine's vector cache")?;
        self.conn.execute(
            "DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)",
            [],
        )?;
        self.conn
            .execute("INSERT INTO fts (fts) VALUES ('optimize')", [])?;
        self.conn.execute_batch("VACUUM")?;
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
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
