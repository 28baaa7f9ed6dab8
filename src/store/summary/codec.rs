//! The summary's bytes: the magic, the header (the log file's stamp and content hash), every
//! entry's span and key fields, and the links between entries, little-endian, sealed by a MAC.
//! Reading checks every length and index, so a corrupt summary is none rather than a panic.

use super::key::{Mac, key, unseal_with};
use super::{Header, Stamp};
use crate::format::Span;
use crate::format::decision::{Decision, DecisionLog, Links};

// 2: the links between entries are recorded too (`Links`), so a restored log resolves none.
// 3: keyed BLAKE3 for the content and the summary itself, in place of CRC-32s.
const MAGIC: &[u8] = b"zo decision summary 4\n";

/// The summary's bytes for `log` and the header `h`, not yet sealed.
pub(super) fn encode(log: &DecisionLog, h: &Header) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + log.entries.len() * 160);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0u8; HEADER_LEN]);
    out.extend_from_slice(&(log.entries.len() as u64).to_le_bytes());
    for e in &log.entries {
        for n in [e.span.start as u64, e.span.end as u64, e.span.line as u64] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(
            u8::from(e.id_derived)
                | u8::from(e.separated) << 1
                | u8::from(e.confidence.is_some()) << 2,
        );
        out.extend_from_slice(&e.confidence.unwrap_or(0.0).to_bits().to_le_bytes());
        for s in [
            Some(&e.id),
            Some(&e.timestamp),
            Some(&e.title),
            Some(&e.kind),
            e.supersedes.as_ref(),
            e.refs.as_ref(),
        ] {
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
    put_header(&mut out, h);
    out
}

/// After the magic: dev, ino, len (u64), mtime, ctime, made (i128), the content's hash (32
/// bytes), flags (u8).
const HEADER_LEN: usize = 8 * 3 + 16 * 3 + 32 + 1;

/// Write the header into a summary's bytes (after the magic; before it is sealed).
pub(super) fn put_header(out: &mut [u8], h: &Header) {
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
pub(super) fn header(bytes: &[u8]) -> Option<(Header, &[u8])> {
    header_with(bytes, key()?)
}

pub(super) fn header_with<'a>(bytes: &'a [u8], key: &Mac) -> Option<(Header, &'a [u8])> {
    let h = parse_header(bytes)?;
    unseal_with(bytes, key)?;
    Some((h, body(bytes)))
}

/// The header of a summary long enough to be one, its MAC not checked (`header_with` does).
pub(super) fn parse_header(bytes: &[u8]) -> Option<Header> {
    let rest = bytes.strip_prefix(MAGIC)?;
    if rest.len() < HEADER_LEN + 8 + 32 {
        return None;
    }
    let mut r = Reader(&rest[..HEADER_LEN]);
    let stamp = Stamp {
        dev: r.u64()?,
        ino: r.u64()?,
        len: r.u64()?,
        mtime_ns: r.i128()?,
        ctime_ns: r.i128()?,
    };
    let made_ns = r.i128()?;
    let content = r.take::<32>()?;
    let flags = r.u8()?;
    Some(Header {
        stamp,
        made_ns,
        content,
        bom: flags & 1 != 0,
        names_paths: flags & 2 != 0,
        conflict: flags & 4 != 0,
    })
}

/// The entries' bytes of a summary `parse_header` accepted: between the header and the MAC.
pub(super) fn body(bytes: &[u8]) -> &[u8] {
    &bytes[MAGIC.len() + HEADER_LEN..bytes.len() - 32]
}

/// The entries, checked against the text's length (spans in order, inside the text), and the
/// links between them (every index an entry's).
pub(super) fn entries(body: &[u8], text_len: u64) -> Option<(Vec<Decision>, Links)> {
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
        let span = Span {
            start: start as usize,
            end: end as usize,
            line: line as usize,
        };
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
    let cycles = (0..count_of(&mut r)?)
        .map(|_| read_list(&mut r, n))
        .collect::<Option<Vec<_>>>()?;
    r.0.is_empty().then_some((
        out,
        Links {
            superseded_by,
            outcomes,
            confirmed,
            cycles,
        },
    ))
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
    (0..count_of(r)?)
        .map(|_| Some((index_of(r, n)?, index_of(r, n)?)))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::super::key::seal_with;
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_a_torn_or_foreign_summary() {
        let h = Header {
            stamp: Stamp {
                dev: 1,
                ino: 2,
                len: 3,
                mtime_ns: -4,
                ctime_ns: 5,
            },
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
        assert_eq!(
            (
                back.stamp,
                back.made_ns,
                back.content,
                back.bom,
                back.names_paths,
                back.conflict
            ),
            (h.stamp, 6, [7; 32], true, false, true)
        );
        let (restored, links) = entries(body, 0).unwrap();
        assert_eq!((restored.len(), links), (0, Links::default()));
        for cut in 0..out.len() {
            assert!(
                header_with(&out[..cut], &key).is_none_or(|(_, b)| entries(b, 0).is_none()),
                "cut at {cut}"
            );
        }
        // Another user's (or a repository's) summary: another key, or any byte changed.
        assert!(header_with(&out, &[8u8; 32]).is_none());
        for at in [
            MAGIC.len() + 40,
            MAGIC.len() + HEADER_LEN - 2,
            out.len() - 1,
        ] {
            let mut bad = out.clone();
            bad[at] ^= 1;
            assert!(header_with(&bad, &key).is_none(), "a byte changed at {at}");
        }
    }
}
