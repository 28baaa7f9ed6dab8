//! The summary bytes this process read or wrote last, so a second read in the same process
//! (the SessionStart hook, `zo mcp`) hashes and reads no more than it must.

use super::path;
use crate::store::layout::Layout;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The summary bytes this process read last, and from where. The SessionStart hook reads the
/// summary twice (the session record's count, then the bundle), `zo mcp` on every call. Bytes
/// kept here are served only when proven against the log as it is now, exactly like bytes just
/// read, so whatever happened to the file since, they describe the log or are not used.
static LAST: std::sync::Mutex<Option<(PathBuf, Arc<Vec<u8>>)>> = std::sync::Mutex::new(None);

/// The bytes kept for the summary at `spath`, if the last ones read or written were its.
pub(super) fn kept(spath: &Path) -> Option<Arc<Vec<u8>>> {
    LAST.lock().ok().and_then(|l| {
        l.as_ref()
            .filter(|(p, _)| *p == spath)
            .map(|(_, b)| Arc::clone(b))
    })
}

/// Keep bytes just read from `spath`, their MAC checked.
pub(super) fn remember(spath: PathBuf, bytes: Arc<Vec<u8>>) {
    if let Ok(mut l) = LAST.lock() {
        *l = Some((spath, bytes));
    }
}

/// Keep a summary just written as the one this process read last (`LAST`): the next read in
/// this process then needs neither the file nor, once settled, a content check.
pub(super) fn keep(layout: &Layout, bytes: Vec<u8>) {
    if let Ok(mut l) = LAST.lock() {
        *l = Some((path(layout), Arc::new(bytes)));
    }
}
