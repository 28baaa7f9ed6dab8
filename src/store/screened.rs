//! Texts the directive rules found clean, remembered per user (`screened` in the private cache
//! directory, beside the key): the hook path builds a bundle at every agent start, and scanning
//! the same entries each time cost milliseconds (compiling the rules alone is several). A text
//! is known by its BLAKE3 hash, with the rules' version, so an edit or a new rule set scans it
//! again; the file keeps the most recent 4,096 and is the user's own, never the repository's.

use crate::store::fsio;
use std::collections::HashSet;
use std::sync::Mutex;

/// Bump when the rules change: every text is screened again.
const VERSION: &str = "zo screened 2";

/// The most hashes kept.
const MAX: usize = 4096;

struct Cache {
    /// In file order, oldest first.
    order: Vec<String>,
    set: HashSet<String>,
    added: bool,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn path() -> Option<std::path::PathBuf> {
    crate::store::layout::vector_cache_dir().map(|d| d.join("screened"))
}

fn key(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

fn with<T>(f: impl FnOnce(&mut Cache) -> T) -> T {
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let cache = guard.get_or_insert_with(|| {
        let text = path()
            .and_then(|p| fsio::read_text(&p).ok().flatten())
            .map(|t| t.as_str().to_string())
            .unwrap_or_default();
        let mut lines = text.lines();
        let order: Vec<String> = if lines.next() == Some(VERSION) {
            lines
                .filter(|l| l.len() == 64)
                .map(str::to_string)
                .collect()
        } else {
            Vec::new()
        };
        let set = order.iter().cloned().collect();
        Cache {
            order,
            set,
            added: false,
        }
    });
    f(cache)
}

/// Whether `text` was found clean before (by this user's zo, with these rules).
pub fn is_clean(text: &str) -> bool {
    let k = key(text);
    with(|c| c.set.contains(&k))
}

/// Remember that `text` is clean (kept by `save`).
pub fn note_clean(text: &str) {
    let k = key(text);
    with(|c| {
        if c.set.insert(k.clone()) {
            c.order.push(k);
            c.added = true;
        }
    });
}

/// Write what was added (best effort, unsynced: losing it only means scanning again).
pub fn save() {
    let Some(p) = path() else { return };
    with(|c| {
        if !c.added {
            return;
        }
        let skip = c.order.len().saturating_sub(MAX);
        let mut out = String::with_capacity(16 + 65 * (c.order.len() - skip));
        out.push_str(VERSION);
        out.push('\n');
        for k in &c.order[skip..] {
            out.push_str(k);
            out.push('\n');
        }
        if let Some(dir) = p.parent() {
            if crate::store::layout::private_dir(dir).is_ok()
                && fsio::write_atomic_unsynced(&p, out.as_bytes()).is_ok()
            {
                c.added = false;
            }
        }
    });
}

/// A title as a list line shows it to whoever reads it (an agent, through MCP or its shell):
/// one line, or `instead` when the directive rules flag it.
pub fn title_or(title: &str, instead: &str) -> String {
    if flags(title).is_empty() {
        crate::store::gate::frame::one_line(title)
    } else {
        instead.to_string()
    }
}

/// The directive rules' flags of `text`, from what was seen clean before when it was.
pub fn flags(text: &str) -> Vec<crate::store::gate::directives::Flag> {
    if is_clean(text) {
        return vec![];
    }
    let flags = crate::store::gate::directives::scan(text);
    if flags.is_empty() {
        note_clean(text);
    }
    flags
}
