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

use crate::format::Span;
use crate::format::decision::{Decision, DecisionLog, Links, Source};
use crate::store::fsio;
use crate::store::layout::Layout;
use anyhow::Result;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The summary's file name, beside `index.db` (derived, gitignored, `Layout::is_derived`).
pub const FILE: &str = "index.db-summary";

// 2: the links between entries are recorded too (`Links`), so a restored log resolves none.
// 3: keyed BLAKE3 for the content and the summary itself, in place of CRC-32s.
const MAGIC: &[u8] = b"zo decision summary 3\n";

/// A keyed BLAKE3 hash (of the log's content, or the summary's MAC).
type Mac = [u8; 32];

/// This user's key for summaries, `summary.key` in the machine's vector cache directory (made
/// on first use: 32 random bytes, mode 0600, put in place with a hard link so two first users
/// agree on one key). None when there is no such directory and it cannot be made: then no
/// summary is read or made.
pub fn key() -> Option<&'static Mac> {
    static KEY: std::sync::OnceLock<Option<Mac>> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let dir = crate::store::layout::vector_cache_dir()?;
        crate::store::layout::private_dir(&dir).ok()?;
        let path = dir.join("summary.key");
        // Never through a link or from a FIFO: the key is 32 bytes of a regular file or none.
        let read = || {
            use std::io::Read;
            let f = fsio::open_regular(&path).ok()??;
            let mut b = Vec::with_capacity(33);
            (f.metadata().ok()?.len() == 32).then_some(())?;
            f.take(33).read_to_end(&mut b).ok()?;
            Mac::try_from(b.as_slice()).ok()
        };
        if let Some(k) = read() {
            return Some(k);
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return None;
        }
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).ok()?;
        let tmp = tempfile::Builder::new().prefix(".summary.key.").tempfile_in(&dir).ok()?;
        std::io::Write::write_all(&mut tmp.as_file(), &k).ok()?;
        tmp.as_file().sync_all().ok()?;
        // tempfile makes it 0600. A hard link never replaces a key another process put there
        // first; a damaged key (a crash mid-write on an older zo) is replaced by rename.
        match std::fs::hard_link(tmp.path(), &path) {
            Ok(()) => Some(k),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read().or_else(|| tmp.persist(&path).ok().map(|_| k)),
            Err(_) => None,
        }
    })
    .as_ref()
}

fn keyed(key: &Mac) -> blake3::Hasher {
    blake3::Hasher::new_keyed(key)
}

/// How long a file's times must lie before the summary's for its stamp alone to prove it.
pub const SETTLE_NS: i128 = 3_000_000_000;

/// The most a summary may be (a 1 GiB log of tiny entries stays well below).
const MAX_BYTES: u64 = 256 << 20;

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
        let mtime_ns = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i128);
        Stamp { len: m.len(), mtime_ns, ctime_ns: i128::MAX / 2, ..Default::default() }
    }

    /// Whether this stamp, recorded at `made_ns`, proves the content: the file's last change
    /// lies far enough before it that any later change gets other times.
    pub fn settled(&self, made_ns: i128) -> bool {
        self.mtime_ns.max(self.ctime_ns).saturating_add(SETTLE_NS) < made_ns
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

pub fn path(layout: &Layout) -> PathBuf {
    layout.memory.join(FILE)
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
    let Found { file, stamp, bytes, h, proven } = found(layout)?;
    if !proven {
        return grown(layout, file, stamp, &bytes, h);
    }
    let (entries, links) = entries(body(&bytes), stamp.len.saturating_sub(if h.bom { 3 } else { 0 }))?;
    if h.stamp != stamp || !h.stamp.settled(h.made_ns) {
        // Proven by content: record the new stamp so the next read needs no content check
        // (only once the file has settled; until then every read checks the content).
        let made = now_ns();
        if stamp.settled(made) {
            let mut out = bytes[..bytes.len() - 32].to_vec();
            put_header(&mut out, &Header { stamp, made_ns: made, ..h });
            if seal(&mut out).is_some() {
                let _ = write(layout, &out);
                keep(layout, out);
            }
        }
    }
    let source = Arc::new(FileSource { file, offset: if h.bom { 3 } else { 0 } });
    Some(Restored { log: DecisionLog::restored(entries, links, source, h.names_paths), conflict: h.conflict })
}

/// The number of entries in the log, from a summary proven fresh (what a session's record
/// notes at its start, without restoring the entries).
pub fn count(layout: &Layout) -> Option<usize> {
    let Found { stamp, bytes, h, .. } = found(layout).filter(|f| f.proven)?;
    let body = body(&bytes);
    let n = u64::from_le_bytes(*body.first_chunk::<8>()?);
    // The same check `entries` makes of the count, and the spans' bound on the last entry.
    (n <= body.len() as u64 / 57 && stamp.len >= u64::from(h.bom) * 3).then_some(n as usize)
}

/// The summary bytes this process read last, and from where. The SessionStart hook reads the
/// summary twice (the session record's count, then the bundle), `zo mcp` on every call. Bytes
/// kept here are served only when proven against the log as it is now, exactly like bytes just
/// read, so whatever happened to the file since, they describe the log or are not used.
static LAST: std::sync::Mutex<Option<(PathBuf, Arc<Vec<u8>>)>> = std::sync::Mutex::new(None);

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
    let proves = |h: &Header| (h.stamp == stamp && h.stamp.settled(h.made_ns)) || (h.stamp.len == stamp.len && content_of(&file) == Some(h.content));
    // Bytes kept from this process's own read (their MAC checked then) or write need no MAC
    // check again (a megabyte hashed per call): only their freshness is checked.
    let kept = LAST.lock().ok().and_then(|l| l.as_ref().filter(|(p, _)| *p == spath).map(|(_, b)| Arc::clone(b)));
    if let Some(bytes) = kept {
        if let Some(h) = parse_header(&bytes).filter(|h| proves(h)) {
            return Some(Found { file, stamp, bytes, h, proven: true });
        }
    }
    let bytes = Arc::new(read_summary(&spath)?);
    let (h, _) = header(&bytes)?;
    if !proves(&h) {
        return Some(Found { file, stamp, bytes, h, proven: false });
    }
    if let Ok(mut l) = LAST.lock() {
        *l = Some((spath, Arc::clone(&bytes)));
    }
    Some(Found { file, stamp, bytes, h, proven: true })
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
    let source = Arc::new(FileSource { file, offset: bom as usize });
    let log = DecisionLog::extended(entries, &tail, last.span.start, last.span.line, source, names_paths);
    let h = Header { stamp, made_ns: now_ns(), content: *hash.finalize().as_bytes(), bom: h.bom, names_paths, conflict };
    write_summary(layout, &log, h);
    Some(Restored { log, conflict })
}

/// The keyed hasher fed the file's first `len` bytes (fewer at its end or a read error), and
/// how many it was fed: positioned reads in 256 KiB pieces (BLAKE3 hashes a large piece on
/// every SIMD lane), so the file's own cursor stays where it is and no buffer the size of the
/// log is allocated. None without a key.
fn hash_through(file: &File, len: u64) -> Option<(blake3::Hasher, u64)> {
    let mut h = keyed(key()?);
    let mut buf = vec![0u8; 256 << 10];
    let mut at = 0u64;
    while at < len {
        let want = buf.len().min(usize::try_from(len - at).unwrap_or(usize::MAX));
        match read_at(file, &mut buf[..want], at) {
            Some(0) | None => break,
            Some(n) => {
                h.update(&buf[..n]);
                at += n as u64;
            }
        }
    }
    Some((h, at))
}

/// Up to `len` bytes of the file from `at` (fewer at its end or on a read error).
fn read_span(file: &File, at: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    let mut got = 0;
    while got < buf.len() {
        match read_at(file, &mut buf[got..], at + got as u64) {
            Some(0) | None => break,
            Some(n) => got += n,
        }
    }
    buf.truncate(got);
    buf
}

/// The summary's bytes (confined and bounded like every read in the repository), read into a
/// buffer of the file's size: growing one by doubling copied and faulted in twice the memory.
fn read_summary(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = fsio::open_regular(path).ok()??;
    let len = file.metadata().ok()?.len();
    if len > MAX_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    (&file).take(MAX_BYTES + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_BYTES).then_some(bytes)
}

/// Write the summary of a log just read whole from a file with this stamp (the stamp taken
/// from the open file before and after the read, and equal), its content hash and whether it
/// may hold conflict markers. Failures are ignored: the summary is a cache.
pub fn save(layout: &Layout, log: &DecisionLog, stamp: Stamp, content: Mac, conflict: bool) {
    if !log.is_whole() {
        return;
    }
    let h = Header { stamp, made_ns: now_ns(), content, bom: log.text.bom, names_paths: log.may_name_paths(), conflict };
    write_summary(layout, log, h);
}

/// Write the summary of `log`, whose file `h` describes.
fn write_summary(layout: &Layout, log: &DecisionLog, h: Header) {
    let mut out = Vec::with_capacity(64 + log.entries.len() * 160);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0u8; HEADER_LEN]);
    out.extend_from_slice(&(log.entries.len() as u64).to_le_bytes());
    for e in &log.entries {
        for n in [e.span.start as u64, e.span.end as u64, e.span.line as u64] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(u8::from(e.id_derived) | u8::from(e.separated) << 1 | u8::from(e.confidence.is_some()) << 2);
        out.extend_from_slice(&e.confidence.unwrap_or(0.0).to_bits().to_le_bytes());
        for s in [Some(&e.id), Some(&e.timestamp), Some(&e.title), Some(&e.kind), e.supersedes.as_ref(), e.refs.as_ref()] {
            match s {
                Some(s) => {
                    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                }
                None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
            }
        }
    }
    let links = log.links();
    let index = |out: &mut Vec<u8>, i: usize| out.extend_from_slice(&(i as u32).to_le_bytes());
    out.extend_from_slice(&(links.superseded_by.len() as u32).to_le_bytes());
    for &(t, by) in &links.superseded_by {
        index(&mut out, t);
        index(&mut out, by);
    }
    out.extend_from_slice(&(links.outcomes.len() as u32).to_le_bytes());
    for &(t, o) in &links.outcomes {
        index(&mut out, t);
        index(&mut out, o);
    }
    out.extend_from_slice(&(links.confirmed.len() as u32).to_le_bytes());
    for &t in &links.confirmed {
        index(&mut out, t);
    }
    out.extend_from_slice(&(links.cycles.len() as u32).to_le_bytes());
    for c in &links.cycles {
        out.extend_from_slice(&(c.len() as u32).to_le_bytes());
        for &i in c {
            index(&mut out, i);
        }
    }
    put_header(&mut out, &h);
    if seal(&mut out).is_some() {
        let _ = write(layout, &out);
        keep(layout, out);
    }
}

/// Append the summary's MAC (this user's keyed BLAKE3 of everything before it).
fn seal(out: &mut Vec<u8>) -> Option<()> {
    seal_with(out, key()?);
    Some(())
}

fn seal_with(out: &mut Vec<u8>, key: &Mac) {
    let mac = keyed(key).update(out).finalize();
    out.extend_from_slice(mac.as_bytes());
}

/// Keep a summary just written as the one this process read last (`LAST`): the next read in
/// this process then needs neither the file nor, once settled, a content check.
fn keep(layout: &Layout, bytes: Vec<u8>) {
    if let Ok(mut l) = LAST.lock() {
        *l = Some((path(layout), Arc::new(bytes)));
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

/// The keyed hash of a file's whole content, read from the open file in pieces (None when a
/// read fails before its end, or without a key).
fn content_of(file: &File) -> Option<Mac> {
    let len = file.metadata().ok()?.len();
    let (h, read) = hash_through(file, len)?;
    // Read to the length it had; a file that grew meanwhile is caught by its stamp.
    (read == len).then(|| *h.finalize().as_bytes())
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> Option<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at).ok()
}

#[cfg(not(unix))]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> Option<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at).ok()
}

/// After the magic: dev, ino, len (u64), mtime, ctime, made (i128), the content's hash (32
/// bytes), flags (u8).
const HEADER_LEN: usize = 8 * 3 + 16 * 3 + 32 + 1;

/// Write the header into a summary's bytes (after the magic; before it is sealed).
fn put_header(out: &mut [u8], h: &Header) {
    let out = &mut out[MAGIC.len()..];
    let mut w = Vec::with_capacity(HEADER_LEN);
    for n in [h.stamp.dev, h.stamp.ino, h.stamp.len] {
        w.extend_from_slice(&n.to_le_bytes());
    }
    for n in [h.stamp.mtime_ns, h.stamp.ctime_ns, h.made_ns] {
        w.extend_from_slice(&n.to_le_bytes());
    }
    w.extend_from_slice(&h.content);
    w.push(u8::from(h.bom) | u8::from(h.names_paths) << 1 | u8::from(h.conflict) << 2);
    out[..HEADER_LEN].copy_from_slice(&w);
}

/// The header and the entries' bytes, when the summary is whole and this user's zo wrote it
/// (its MAC holds with this user's key).
fn header(bytes: &[u8]) -> Option<(Header, &[u8])> {
    header_with(bytes, key()?)
}

fn header_with<'a>(bytes: &'a [u8], key: &Mac) -> Option<(Header, &'a [u8])> {
    let h = parse_header(bytes)?;
    let (sealed, mac) = bytes.split_at(bytes.len() - 32);
    // blake3::Hash compares in constant time.
    if keyed(key).update(sealed).finalize() != blake3::Hash::from(Mac::try_from(mac).ok()?) {
        return None;
    }
    Some((h, body(bytes)))
}

/// The header of a summary long enough to be one, its MAC not checked (`header_with` does).
fn parse_header(bytes: &[u8]) -> Option<Header> {
    let rest = bytes.strip_prefix(MAGIC)?;
    if rest.len() < HEADER_LEN + 8 + 32 {
        return None;
    }
    let mut r = Reader(&rest[..HEADER_LEN]);
    let stamp = Stamp { dev: r.u64()?, ino: r.u64()?, len: r.u64()?, mtime_ns: r.i128()?, ctime_ns: r.i128()? };
    let made_ns = r.i128()?;
    let content = r.take::<32>()?;
    let flags = r.u8()?;
    Some(Header { stamp, made_ns, content, bom: flags & 1 != 0, names_paths: flags & 2 != 0, conflict: flags & 4 != 0 })
}

/// The entries' bytes of a summary `parse_header` accepted: between the header and the MAC.
fn body(bytes: &[u8]) -> &[u8] {
    &bytes[MAGIC.len() + HEADER_LEN..bytes.len() - 32]
}

/// The entries, checked against the text's length (spans in order, inside the text), and the
/// links between them (every index an entry's).
fn entries(body: &[u8], text_len: u64) -> Option<(Vec<Decision>, Links)> {
    let mut r = Reader(body);
    let n = r.u64()?;
    // Each entry takes at least 57 bytes here: a count beyond that is a corrupt file.
    if n > body.len() as u64 / 57 {
        return None;
    }
    let mut out = Vec::with_capacity(n as usize);
    let mut last_end = 0u64;
    for _ in 0..n {
        let (start, end, line) = (r.u64()?, r.u64()?, r.u64()?);
        if start < last_end || end < start || end > text_len {
            return None;
        }
        last_end = end;
        let flags = r.u8()?;
        let confidence = f64::from_bits(r.u64()?);
        let [id, timestamp, title, kind] = [r.str()??, r.str()??, r.str()??, r.str()??];
        let (supersedes, refs) = (r.str()?, r.str()?);
        let span = Span { start: start as usize, end: end as usize, line: line as usize };
        out.push(Decision::restored(
            span,
            id,
            flags & 1 != 0,
            timestamp,
            title,
            kind,
            supersedes,
            refs,
            (flags & 4 != 0).then_some(confidence),
            flags & 2 != 0,
        ));
    }
    let n = out.len();
    let superseded_by = read_pairs(&mut r, n)?;
    let outcomes = read_pairs(&mut r, n)?;
    let confirmed = read_list(&mut r, n)?;
    let cycles = (0..count_of(&mut r)?).map(|_| read_list(&mut r, n)).collect::<Option<Vec<_>>>()?;
    r.0.is_empty().then_some((out, Links { superseded_by, outcomes, confirmed, cycles }))
}

/// A list's length, bounded by the bytes left (each item takes at least 4): a corrupt length
/// cannot make a huge allocation.
fn count_of(r: &mut Reader) -> Option<usize> {
    let len = r.u32()? as usize;
    (len <= r.0.len() / 4).then_some(len)
}

/// An entry index, which must name one of the `n` entries.
fn index_of(r: &mut Reader, n: usize) -> Option<usize> {
    r.u32().map(|i| i as usize).filter(|&i| i < n)
}

fn read_list(r: &mut Reader, n: usize) -> Option<Vec<usize>> {
    (0..count_of(r)?).map(|_| index_of(r, n)).collect()
}

fn read_pairs(r: &mut Reader, n: usize) -> Option<Vec<(usize, usize)>> {
    (0..count_of(r)?).map(|_| Some((index_of(r, n)?, index_of(r, n)?))).collect()
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (a, b) = self.0.split_first_chunk::<N>()?;
        self.0 = b;
        Some(*a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn i128(&mut self) -> Option<i128> {
        self.take().map(i128::from_le_bytes)
    }
    /// A string, or None inside for an absent one; None outside for a corrupt file.
    fn str(&mut self) -> Option<Option<String>> {
        let n = self.u32()?;
        if n == u32::MAX {
            return Some(None);
        }
        let n = n as usize;
        if n > self.0.len() {
            return None;
        }
        let (s, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(Some(simdutf8::basic::from_utf8(s).ok()?.to_string()))
    }
}

/// Reads an entry's text from the log file the summary was proven against (still open, so a
/// file replaced since by rename is not mixed in).
#[derive(Debug)]
struct FileSource {
    file: File,
    offset: usize,
}

impl Source for FileSource {
    fn read(&self, start: usize, end: usize) -> String {
        let buf = read_span(&self.file, (self.offset + start) as u64, end - start);
        String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Read the log whole from one open file, with the stamp it had before and after (equal, or
/// None: it changed while read) and its keyed hash (None without a key): what `save` needs.
/// None when it is not plain UTF-8 or cannot be read (the caller reads it the ordinary way and
/// reports).
pub fn read_whole(path: &Path) -> Option<(crate::format::Text, Stamp, Option<Mac>)> {
    let file = fsio::open_regular(path).ok()??;
    let before = Stamp::of(&file.metadata().ok()?);
    if before.len > fsio::MAX_FILE_BYTES {
        return None;
    }
    let bytes = fsio::read_sized(&file, path, before.len).ok()?;
    let after = Stamp::of(&file.metadata().ok()?);
    if before != after || bytes.len() as u64 != after.len {
        return None;
    }
    let content = key().map(|k| *keyed(k).update(&bytes).finalize().as_bytes());
    simdutf8::basic::from_utf8(&bytes).ok()?;
    // SAFETY: just validated as UTF-8.
    let text = unsafe { String::from_utf8_unchecked(bytes) };
    Some((crate::format::Text::new(text), after, content))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamp alone proves the content only for a file whose last change (mtime or ctime)
    /// lies `SETTLE_NS` before the summary was made; a file changed just before could change
    /// again within the same clock tick without its times moving.
    #[test]
    fn stamp_proves_only_a_settled_file() {
        let s = |m: i128, c: i128| Stamp { mtime_ns: m, ctime_ns: c, ..Default::default() };
        let made = 100 * SETTLE_NS;
        assert!(s(made - SETTLE_NS - 1, made - SETTLE_NS - 1).settled(made));
        assert!(!s(made - SETTLE_NS, 0).settled(made), "exactly the margin is not enough");
        assert!(!s(0, made - 1).settled(made), "a recent ctime (mtime set back by hand) is racy");
        assert!(!s(made + 5, 0).settled(made), "a file from the future is racy");
        assert!(!s(i128::MAX, i128::MAX).settled(made));
    }

    #[test]
    fn header_round_trips_and_rejects_a_torn_or_foreign_summary() {
        let h = Header {
            stamp: Stamp { dev: 1, ino: 2, len: 3, mtime_ns: -4, ctime_ns: 5 },
            made_ns: 6,
            content: [7; 32],
            bom: true,
            names_paths: false,
            conflict: true,
        };
        let key = [9u8; 32];
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[0u8; HEADER_LEN]);
        out.extend_from_slice(&0u64.to_le_bytes());
        // No entries, so no links: four empty lists.
        out.extend_from_slice(&[0u8; 16]);
        put_header(&mut out, &h);
        seal_with(&mut out, &key);
        let (back, body) = header_with(&out, &key).unwrap();
        assert_eq!((back.stamp, back.made_ns, back.content, back.bom, back.names_paths, back.conflict), (h.stamp, 6, [7; 32], true, false, true));
        let (restored, links) = entries(body, 0).unwrap();
        assert_eq!((restored.len(), links), (0, Links::default()));
        for cut in 0..out.len() {
            assert!(header_with(&out[..cut], &key).is_none_or(|(_, b)| entries(b, 0).is_none()), "cut at {cut}");
        }
        // Another user's (or a repository's) summary: another key, or any byte changed.
        assert!(header_with(&out, &[8u8; 32]).is_none());
        for at in [MAGIC.len() + 40, MAGIC.len() + HEADER_LEN - 2, out.len() - 1] {
            let mut bad = out.clone();
            bad[at] ^= 1;
            assert!(header_with(&bad, &key).is_none(), "a byte changed at {at}");
        }
    }
}
