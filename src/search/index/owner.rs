//! The owner's signature on an index: which user's zo built the database, and in which file.
//! A committed, copied or foreign index fails it and is rebuilt rather than searched.

use anyhow::Result;
use rusqlite::Connection;
use std::path::Path;

/// The domain of the index's owner MAC (`store::trust`).
const OWNER_DOMAIN: &str = "zo index 1";

/// What the owner MAC covers: the build, and the file it lives in (device and inode). The
/// rows are not covered, so a MAC of the build alone let anyone holding one of this user's
/// indexes (one `git add -A` away from being committed) graft its `build` and `owner` onto
/// rows of their own. Any file git checks out, or a copy makes, is another inode: rebuilt.
fn owner_input(build: &str, path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let id = format!(
        "{}:{}",
        std::os::unix::fs::MetadataExt::dev(&m),
        std::os::unix::fs::MetadataExt::ino(&m)
    );
    #[cfg(not(unix))]
    let id = String::new();
    Some(format!("{build}\n{id}"))
}

/// Whether this user's zo built the database at `path`: its `owner` is the MAC of its `build`
/// in that file (`owner_input`).
pub(super) fn ours(conn: &Connection, path: &Path) -> bool {
    let get = |k: &str| {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| {
            r.get::<_, String>(0)
        })
        .ok()
    };
    match (get("build"), get("owner")) {
        (Some(build), Some(owner)) => owner_input(&build, path).is_some_and(|input| {
            crate::store::trust::sealed(OWNER_DOMAIN, input.as_bytes(), &owner)
        }),
        _ => false,
    }
}

/// Sign the database at `path` as this user's (`ours`), for the file it is in now.
pub(super) fn seal_owner(conn: &Connection, path: &Path) -> Result<()> {
    let build: String = conn.query_row("SELECT value FROM meta WHERE key = 'build'", [], |r| {
        r.get(0)
    })?;
    if let Some(owner) = owner_input(&build, path)
        .and_then(|input| crate::store::trust::mac(OWNER_DOMAIN, input.as_bytes()))
    {
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('owner', ?1)",
            [owner],
        )?;
    }
    Ok(())
}
