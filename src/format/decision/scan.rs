//! The quick walk over a decision log: where each entry starts and ends and its key fields,
//! reading only the lines that can matter, and the checks `decide` makes without parsing the
//! log at all (`may_hold_title`, `mentions`, `last_separated`). The full field parse is
//! `entry`'s; unit tests in `tests.rs` hold this walk to it.

use super::{Span, fields, heading_text, is_heading, parse_full};
use crate::format::{line_at, line_starts, same_folded};

/// The fields the cheap scan reads.
pub(super) const KEY_FIELDS: [&str; 8] = [
    "ID",
    "Type",
    "Title",
    "Timestamp",
    "Date",
    "Supersedes",
    "Refs",
    "Confidence",
];

/// The key fields of one entry as the quick walk read them, and whether a `---` closed it.
pub(super) type Keys<'a> = ([Option<&'a str>; 8], bool);

/// An entry while the walk is inside it.
struct Open<'a> {
    span: Span,
    keys: Keys<'a>,
    exact: bool,
    /// The last field line was a key field: until the next field line only blank lines may
    /// follow, or the value runs over several lines.
    open_key: bool,
    fence: fields::Fence,
}

/// One walk over the lines of the whole log: where each entry starts and ends, its line, and
/// its key fields. Only lines starting with `#`, `*`, `-`, a space, a backtick or a tilde are
/// looked at (and, right after a key field, any line). It reads fields exactly as the full
/// parse does (field lines inside code fences are text, the first `---` outside a fence ends
/// the fields); an entry's keys are None where the quick reading could be wrong (a key whose
/// value runs over several lines), and the caller parses that entry in full.
pub(super) fn scan(text: &str) -> Vec<(Span, Option<Keys<'_>>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut cur: Option<Open> = None;
    fn close<'a>(cur: Option<Open<'a>>, end: usize, out: &mut Vec<(Span, Option<Keys<'a>>)>) {
        if let Some(mut o) = cur {
            o.span.end = end;
            out.push((o.span, o.exact.then_some(o.keys)));
        }
    }
    let (mut at, mut line_no) = (0usize, 1usize);
    let newlines = memchr::memchr_iter(b'\n', bytes)
        .map(|i| i + 1)
        .chain((bytes.last() != Some(&b'\n')).then_some(bytes.len()));
    for next in newlines {
        let (start, n) = (at, line_no);
        (at, line_no) = (next, line_no + 1);
        if start >= next {
            continue;
        }
        let first = bytes[start];
        if first == b'#' {
            let line = fields::strip_eol(&text[start..next]);
            if is_heading(line)
                && !cur.as_ref().is_some_and(|o| {
                    crate::format::fenced_heading(text, o.span.start, start, &is_heading)
                })
            {
                close(cur.take(), start, &mut out);
                let span = Span {
                    start,
                    end: text.len(),
                    line: n,
                };
                cur = Some(Open {
                    span,
                    keys: ([None; 8], false),
                    exact: true,
                    open_key: false,
                    fence: Default::default(),
                });
                continue;
            }
        }
        let Some(o) = cur.as_mut() else { continue };
        if !o.exact
            || o.keys.1
            || !(o.open_key || matches!(first, b'*' | b'-' | b' ' | b'`' | b'~' | b'#'))
        {
            continue;
        }
        let line = fields::strip_eol(&text[start..next]);
        // Field lines too: a value written by hand to open a fence on its field line opens
        // one (`fields::Fence::feed`), as the full parse reads it.
        let in_fence = if matches!(first, b' ' | b'`' | b'~' | b'*') {
            o.fence.feed(line)
        } else {
            o.fence.is_open()
        };
        if !in_fence {
            if first == b'*' {
                if let Some((name, rest)) = fields::parse_field_line(line) {
                    o.open_key = false;
                    if let Some(k) = KEY_FIELDS.iter().position(|k| k.eq_ignore_ascii_case(name)) {
                        if o.keys.0[k].is_none() {
                            if rest.trim().is_empty() {
                                o.exact = false;
                            }
                            o.keys.0[k] = Some(rest.trim_end());
                            o.open_key = true;
                        }
                    }
                    continue;
                }
            }
            if first == b'-' && fields::is_separator(line) {
                o.keys.1 = true;
                continue;
            }
        }
        if o.open_key && !line.trim().is_empty() {
            o.exact = false;
        }
    }
    close(cur.take(), text.len(), &mut out);
    out
}

/// Whether some entry could have this title (compared as the duplicate check compares), without
/// parsing the log: `decide` then parses a large log only when a duplicate is possible. A
/// title lives on a `**Title:**` line or, in older logs, in the heading; both are found by one
/// search for line starts. A title whose value runs on over further lines counts as a maybe;
/// a `**Title:**` line inside a fence (not a title) can only make it say yes too often.
pub fn may_hold_title(text: &str, title: &str) -> bool {
    if title.trim().is_empty() {
        return true; // the gate refuses empty titles; do not guess about them here
    }
    let bytes = text.as_bytes();
    for at in line_starts(text, "**") {
        if !bytes
            .get(at + 2..at + 7)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"title"))
        {
            continue;
        }
        let line = line_at(text, at);
        let Some((name, rest)) = fields::parse_field_line(line) else {
            continue;
        };
        if name.eq_ignore_ascii_case("Title")
            && (same_folded(rest, title) || !value_ends_with_line(text, at + line.len()))
        {
            return true;
        }
    }
    line_starts(text, "##").any(|at| {
        let line = line_at(text, at);
        is_heading(line) && same_folded(heading_text(line), title)
    })
}

/// Whether a field value whose first line ends at byte `end` stops there: the next line that
/// is not blank is a field line, a `---`, an entry heading, or there is none.
fn value_ends_with_line(text: &str, end: usize) -> bool {
    // The first piece is the rest of the value's own line: its line end.
    let next = text[end..]
        .split_inclusive('\n')
        .skip(1)
        .map(fields::strip_eol)
        .find(|l| !l.trim().is_empty());
    next.is_none_or(|l| {
        fields::parse_field_line(l).is_some() || fields::is_separator(l) || is_heading(l)
    })
}

/// Whether `id` appears anywhere in the log: how `decide` checks a new random ID without
/// parsing (stricter than needed; an ID derived from an entry's text is not in it, and a
/// 32-bit collision with one of those is as likely as one between two clones).
pub fn mentions(text: &str, id: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), id.as_bytes()).is_some()
}

/// Whether the log's last entry closed with a `---` (None when it has no entries), reading
/// only that entry.
pub fn last_separated(text: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    let at_start = bytes.starts_with(b"##").then_some(0);
    let start = memchr::memmem::rfind_iter(bytes, b"\n##")
        .map(|p| p + 1)
        .chain(at_start)
        .find(|&p| is_heading(line_at(text, p)))?;
    let (span, keys) = scan(&text[start..]).into_iter().next()?;
    Some(match keys {
        Some((_, separated)) => separated,
        None => parse_full(&text[start..], span.line).separated,
    })
}
