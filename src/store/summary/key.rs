//! This user's key for summaries and the MACs made with it: a summary (and the log's content
//! hash in it) proves itself only to the user whose zo wrote it.

use crate::store::fsio;

/// A keyed BLAKE3 hash (of the log's content, or the summary's MAC).
pub(super) type Mac = [u8; 32];

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
        let tmp = tempfile::Builder::new()
            .prefix(".summary.key.")
            .tempfile_in(&dir)
            .ok()?;
        std::io::Write::write_all(&mut tmp.as_file(), &k).ok()?;
        tmp.as_file().sync_all().ok()?;
        // tempfile makes it 0600. A hard link never replaces a key another process put there
        // first; a damaged key (a crash mid-write on an older zo) is replaced by rename.
        match std::fs::hard_link(tmp.path(), &path) {
            Ok(()) => Some(k),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                read().or_else(|| tmp.persist(&path).ok().map(|_| k))
            }
            Err(_) => None,
        }
    })
    .as_ref()
}

pub(super) fn keyed(key: &Mac) -> blake3::Hasher {
    blake3::Hasher::new_keyed(key)
}

/// Append the summary's MAC (this user's keyed BLAKE3 of everything before it).
pub(super) fn seal(out: &mut Vec<u8>) -> Option<()> {
    seal_with(out, key()?);
    Some(())
}

pub(super) fn seal_with(out: &mut Vec<u8>, key: &Mac) {
    let mac = keyed(key).update(out).finalize();
    out.extend_from_slice(mac.as_bytes());
}

/// What `seal_with` sealed, when its MAC holds with `key` (None: torn, or not this user's).
pub(super) fn unseal_with<'a>(bytes: &'a [u8], key: &Mac) -> Option<&'a [u8]> {
    let (sealed, mac) = bytes.split_at(bytes.len().checked_sub(32)?);
    // blake3::Hash compares in constant time.
    (keyed(key).update(sealed).finalize() == blake3::Hash::from(Mac::try_from(mac).ok()?))
        .then_some(sealed)
}
