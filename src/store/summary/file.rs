//! Positioned, bounded reads of the log file and the summary, and the keyed hash of the log's
//! content: what proves a summary fresh, and what a restored log reads its entries' text with.

use super::Stamp;
use super::key::{Mac, key, keyed};
use crate::format::decision::Source;
use crate::store::fsio;
use std::fs::File;
use std::path::Path;

/// The most a summary may be (a 1 GiB log of tiny entries stays well below).
const MAX_BYTES: u64 = 256 << 20;

/// The keyed hasher fed the file's first `len` bytes (fewer at its end or a read error), and
/// how many it was fed: positioned reads in 256 KiB pieces (BLAKE3 hashes a large piece on
/// every SIMD lane), so the file's own cursor stays where it is and no buffer the size of the
/// log is allocated. None without a key.
pub(super) fn hash_through(file: &File, len: u64) -> Option<(blake3::Hasher, u64)> {
    let mut h = keyed(key()?);
    let mut buf = vec![0u8; 256 << 10];
    let mut at = 0u64;
    while at < len {
        let want = buf
            .len()
            .min(usize::try_from(len - at).unwrap_or(usize::MAX));
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
pub(super) fn read_span(file: &File, at: u64, len: usize) -> Vec<u8> {
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
pub(super) fn read_summary(path: &Path) -> Option<Vec<u8>> {
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

/// The keyed hash of a file's whole content, read from the open file in pieces (None when a
/// read fails before its end, or without a key).
pub(super) fn content_of(file: &File) -> Option<Mac> {
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

/// Reads an entry's text from the log file the summary was proven against (still open, so a
/// file replaced since by rename is not mixed in).
#[derive(Debug)]
pub(super) struct FileSource {
    pub(super) file: File,
    pub(super) offset: usize,
}

impl Source for FileSource {
    fn read(&self, start: usize, end: usize) -> String {
        let buf = read_span(&self.file, (self.offset + start) as u64, end - start);
        String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
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
