//! The decision log's derived summary (`.zo/memory/index.db-summary`, gitignored by
//! `memory/index.db-*`): every entry's span and key fields, so the hook path (`status`, `log`,
//! `show`, `context`) answers without reading or scanning a large log. The log stays the
//! truth: the summary is used only when proven to describe the file as it is now, and any
//! doubt (missing, torn, corrupt, another version, a different file) falls back to the full
//! read, which writes a new summary.
//!
//! Freshness: the summary records the file's stamp (device, inode, length, mtime and ctime to
//! the nanosecond), a keyed hash of its whole content, and when it was made. The stamp alone is
//! trusted only when the file had settled before the summary was made (both times older than
//! `SETTLE` then): file times tick coarsely (a few ms on Linux, up to 2 s elsewhere), so a
//! change made right after the summary could keep the same stamp; this is git's "racily clean"
//! problem and its answer. Otherwise (or when the stamp differs but the length does not) the
//! file's content is hashed and compared: equal text is served, and a settled file gets a
//! summary with its new stamp. An edit anywhere changes the hash (and usually the stamp), a
//! `git checkout` or `pull` replaces the file (a new inode), zo's own writes replace it by
//! rename.
//!
//! Trust: a repository is someone else's input, and it can commit a summary (`git add -f`) or
//! a same-length edit crafted to keep a checksum. So both hashes are keyed BLAKE3 with this
//! user's secret (`key`, 32 random bytes in the per-user cache, never in a repository): the
//! content hash cannot be matched by a crafted edit, and the summary's own MAC (over all of
//! it) proves it was written by zo for this user; a summary from anywhere else is none. Where
//! no key can be kept (no cache directory, not writable) there is no summary: the full read.
//!
//! - here — the stamp, and loading, extending and saving the summary.
//! - `key` — this user's key and the MACs made with it.
//! - `codec` — the summary's bytes: the header, the entries and their links.
//! - `file` — positioned, bounded reads of the log and the summary, and the log's keyed hash.
//! - `cache` — the summary bytes this process read or wrote last.

use crate::format::decision::DecisionLog;
use crate::store::fsio;
use crate::store::layout::Layout;
use anyhow::Result;
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

mod cache;
mod codec;
mod file;
mod key;

use cache::keep;
use codec::{body, entries, header, parse_header, put_header};
pub use file::read_whole;
use file::{FileSource, content_of, hash_through, read_span, read_summary};
pub use key::key;
use key::{Mac, seal};

/// The summary's file name, beside `index.db` (derived, gitignored, `Layout::is_derived`).
pub const FILE: &str = "index.db-summary";

/// How long a file's times must lie before the summary's for its stamp alone to prove it.
pub const SETTLE_NS: i128 = 3_000_000_000;

/// What identifies one version of the log file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl Stamp {
    #[cfg(unix)]
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
        }
    }

    #[cfg(not(unix))]
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        // Without ctime and inode the stamp proves little: every read checks the content.
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            len: m.len(),
            mtime_ns,
            ctime_ns: i128::MAX / 2,
            ..Default::default()
        }
    }

    /// Whether this stamp, recorded at `made_ns`, proves the content: the file's last change
    /// lies far enough before it that any later change gets other times.
    pub fn settled(&self, made_ns: i128) -> bool {
        self.mtime_ns.max(self.ctime_ns).saturating_add(SETTLE_NS) < made_ns
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

pub fn path(layout: &Layout) -> PathBuf {
    layout.derived_dir().join(FILE)
}

/// What the summary says about the log besides its entries.
#[derive(Clone, Copy)]
struct Header {
    stamp: Stamp,
    made_ns: i128,
    /// The keyed hash of the log file's whole content.
    content: Mac,
    bom: bool,
    names_paths: bool,
    conflict: bool,
}

/// A log restored from a fresh summary, and whether the log holds conflict markers.
pub struct Restored {
    pub log: DecisionLog,
    pub conflict: bool,
}

/// The log from its summary, when the summary is proven fresh, or proven to describe the file
/// as it was before something was appended (`grown`); None means "read the file". Never an
/// error: a summary that cannot be used is the same as none.
pub fn load(layout: &Layout) -> Option<Restored> {
    let Found {
        file,
        stamp,
        bytes,
        h,
        proven,
    } = found(layout)?;
    if !proven {
        return grown(layout, file, stamp, &bytes, h);
    }
    let (entries, links) = entries(
        body(&bytes),
        stamp.len.saturating_sub(if h.bom { 3 } else { 0 }),
    )?;
    if h.stamp != stamp || !h.stamp.settled(h.made_ns) {
        // Proven by content: record the new stamp so the next read needs no content check
        // (only once the file has settled; until then every read checks the content).
        let made = now_ns();
        if stamp.settled(made) {
            let mut out = bytes[..bytes.len() - 32].to_vec();
            put_header(
                &mut out,
                &Header {
                    stamp,
                    made_ns: made,
                    ..h
                },
            );
            if seal(&mut out).is_some() {
                let _ = write(layout, &out);
                keep(layout, out);
            }
        }
    }
    let source = Arc::new(FileSource {
        file,
        offset: if h.bom { 3 } else { 0 },
    });
    Some(Restored {
        log: DecisionLog::restored(entries, links, source, h.names_paths),
        conflict: h.conflict,
    })
}

/// The number of entries in the log, from a summary proven fresh (what a session's record
/// notes at its start, without restoring the entries).
pub fn count(layout: &Layout) -> Option<usize> {
    let Found {
        stamp, bytes, h, ..
    } = found(layout).filter(|f| f.proven)?;
    let body = body(&bytes);
    let n = u64::from_le_bytes(*body.first_chunk::<8>()?);
    // The same check `entries` makes of the count, and the spans' bound on the last entry.
    (n <= body.len() as u64 / 57 && stamp.len >= u64::from(h.bom) * 3).then_some(n as usize)
}

/// What else is derived from the log as it is now and costs too much to derive on the hook
/// path (the contradictions `status` counts and the bundle names): kept beside the summary as
/// `index.db-<name>`, sealed with this user's key and tied to the log's content hash, so a
/// blob made for another version of the log, or by anyone else, is none.
pub fn derived(layout: &Layout, name: &str) -> Option<Vec<u8>> {
    let content = found(layout).filter(|f| f.proven)?.h.content;
    let key = key::key()?;
    let bytes = read_summary(&derived_path(layout, name))?;
    let body = key::unseal_with(&bytes, key)?;
    (body.get(..32)? == content).then(|| body[32..].to_vec())
}

/// Keep `value`, derived from the log as the fresh summary describes it (see `derived`).
/// Ignored when there is no fresh summary or no key: the next reader derives it again.
pub fn keep_derived(layout: &Layout, name: &str, value: &[u8]) {
    let Some(content) = found(layout).filter(|f| f.proven).map(|f| f.h.content) else {
        return;
    };
    let mut out = content.to_vec();
    out.extend_from_slice(value);
    if seal(&mut out).is_some() && layout.memory.is_dir() {
        let _ = fsio::write_atomic_unsynced(&derived_path(layout, name), &out);
    }
}

/// The derived results kept this way (their names are the store's, so the list of derived
/// files git must not track is complete here): the contradictions of the log.
pub const CONTRADICTIONS: &str = "contradictions";

pub fn derived_path(layout: &Layout, name: &str) -> PathBuf {
    layout.derived_dir().join(format!("index.db-{name}"))
}

/// The open log file, its stamp, and the summary's bytes and header when the summary is whole
/// and this user's; `proven` when it describes the file as it is now.
struct Found {
    file: File,
    stamp: Stamp,
    bytes: Arc<Vec<u8>>,
    h: Header,
    proven: bool,
}

fn found(layout: &Layout) -> Option<Found> {
    let file = fsio::open_regular(&layout.decision_log()).ok()??;
    let stamp = Stamp::of(&file.metadata().ok()?);
    let spath = path(layout);
    let proves = |h: &Header| {
        (h.stamp == stamp && h.stamp.settled(h.made_ns))
            || (h.stamp.len == stamp.len && content_of(&file) == Some(h.content))
    };
    // Bytes kept from this process's own read (their MAC checked then) or write need no MAC
    // check again (a megabyte hashed per call): only their freshness is checked.
    if let Some(bytes) = cache::kept(&spath) {
        if let Some(h) = parse_header(&bytes).filter(|h| proves(h)) {
            return Some(Found {
                file,
                stamp,
                bytes,
                h,
                proven: true,
            });
        }
    }
    let bytes = Arc::new(read_summary(&spath)?);
    let (h, _) = header(&bytes)?;
    if !proves(&h) {
        return Some(Found {
            file,
            stamp,
            bytes,
            h,
            proven: false,
        });
    }
    cache::remember(spath, Arc::clone(&bytes));
    Some(Found {
        file,
        stamp,
        bytes,
        h,
        proven: true,
    })
}

/// The log restored from a summary of an earlier, shorter version of the file, when the file
/// only grew since: its first bytes still have the summary's hash (what zo's writers and a hand
/// append do; they never change what is there). Only the summary's last entry (which the
/// append may have continued) and what follows it are read and walked; the links are resolved
/// again, and a summary of the file as it is now is written. Anything else (shorter, an edit
/// before the end, a file changing while read) is None: the whole file is read.
fn grown(layout: &Layout, file: File, stamp: Stamp, bytes: &[u8], h: Header) -> Option<Restored> {
    let bom = if h.bom { 3 } else { 0 };
    if stamp.len <= h.stamp.len || stamp.len > fsio::MAX_FILE_BYTES {
        return None;
    }
    let (mut entries, _) = entries(body(bytes), h.stamp.len.checked_sub(bom)?)?;
    let last = entries.pop()?;
    // The tail: from the last entry's heading (a line start, so the walk begins as it would
    // over the whole) to the end.
    let from = bom + last.span.start as u64;
    let tail = read_span(&file, from, usize::try_from(stamp.len - from).ok()?);
    if tail.len() as u64 != stamp.len - from {
        return None;
    }
    // The summary's content hash over the old length proves the prefix; the same hasher run on
    // over the rest gives the hash of the file as it is now.
    let (mut hash, read) = hash_through(&file, from)?;
    if read != from {
        return None;
    }
    hash.update(&tail[..(h.stamp.len - from) as usize]);
    if *hash.finalize().as_bytes() != h.content {
        return None;
    }
    hash.update(&tail[(h.stamp.len - from) as usize..]);
    if Stamp::of(&file.metadata().ok()?) != stamp {
        return None;
    }
    let tail = String::from_utf8(tail).ok()?;
    let names_paths = h.names_paths || crate::format::decision::names_paths(&tail);
    let conflict = h.conflict || crate::store::verify::may_hold_conflict_markers(tail.as_bytes());
    let source = Arc::new(FileSource {
        file,
        offset: bom as usize,
    });
    let log = DecisionLog::extended(
        entries,
        &tail,
        last.span.start,
        last.span.line,
        source,
        names_paths,
    );
    let h = Header {
        stamp,
        made_ns: now_ns(),
        content: *hash.finalize().as_bytes(),
        bom: h.bom,
        names_paths,
        conflict,
    };
    write_summary(layout, &log, h);
    Some(Restored { log, conflict })
}

/// Write the summary of a log just read whole from a file with this stamp (the stamp taken
/// from the open file before and after the read, and equal), its content hash and whether it
/// may hold conflict markers. Failures are ignored: the summary is a cache.
pub fn save(layout: &Layout, log: &DecisionLog, stamp: Stamp, content: Mac, conflict: bool) {
    if !log.is_whole() {
        return;
    }
    let h = Header {
        stamp,
        made_ns: now_ns(),
        content,
        bom: log.text.bom,
        names_paths: log.may_name_paths(),
        conflict,
    };
    write_summary(layout, log, h);
}

/// Write the summary of `log`, whose file `h` describes.
fn write_summary(layout: &Layout, log: &DecisionLog, h: Header) {
    let mut out = codec::encode(log, &h);
    if seal(&mut out).is_some() {
        let _ = write(layout, &out);
        keep(layout, out);
    }
}

/// Renamed into place without fsync: the summary is derived, and one a crash leaves empty or
/// torn fails its MAC and is read as none (the next full read writes it again); the two fsyncs
/// cost more than the rest of writing it.
fn write(layout: &Layout, bytes: &[u8]) -> Result<()> {
    if !layout.memory.is_dir() {
        return Ok(());
    }
    fsio::write_atomic_unsynced(&path(layout), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamp alone proves the content only for a file whose last change (mtime or ctime)
    /// lies `SETTLE_NS` before the summary was made; a file changed just before could change
    /// again within the same clock tick without its times moving.
    #[test]
    fn stamp_proves_only_a_settled_file() {
        let s = |m: i128, c: i128| Stamp {
            mtime_ns: m,
            ctime_ns: c,
            ..Default::default()
        };
        let made = 100 * SETTLE_NS;
        assert!(s(made - SETTLE_NS - 1, made - SETTLE_NS - 1).settled(made));
        assert!(
            !s(made - SETTLE_NS, 0).settled(made),
            "exactly the margin is not enough"
        );
        assert!(
            !s(0, made - 1).settled(made),
            "a recent ctime (mtime set back by hand) is racy"
        );
        assert!(
            !s(made + 5, 0).settled(made),
            "a file from the future is racy"
        );
        assert!(!s(i128::MAX, i128::MAX).settled(made));
    }
}
