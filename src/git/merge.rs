//! The merge driver (SPEC §6): git hands it the common ancestor, ours and theirs of a memory
//! file, and it writes the merge into ours. Decisions and priors: the union of entries by ID,
//! nothing lost, nothing duplicated; STATE.md: the newer wins and the other side's blockers and
//! next steps are kept; colliding session files: both sessions kept. Whatever it cannot parse
//! falls back to git's union merge, which keeps both sides' text.

use crate::format::Text;
use crate::format::decision::DecisionLog;
use crate::format::fact::FactsFile;
use crate::format::prior::{self, PriorsFile};
use crate::format::state::{State, Value};
use std::collections::{HashMap, HashSet};

/// A merge's outcome: the text, what to tell the person, and how many conflicts it holds
/// (each between conflict markers; the driver then fails, so git stops and a person chooses).
#[derive(Debug, Clone, Default)]
pub struct Merged {
    pub text: String,
    pub notes: Vec<String>,
    pub conflicts: usize,
}

/// Join entry texts so that each is separated by `---`, keeping every byte of each entry.
fn join_entries(preamble: &str, entries: &[(String, bool)]) -> String {
    let mut t = Text::new(preamble.to_string());
    let mut last: Option<bool> = None;
    for (raw, separated) in entries {
        let joint = t.joint(last);
        let s = format!("{}{joint}{raw}", t.as_str());
        t = Text::new(s);
        last = Some(*separated);
    }
    t.as_str().to_string()
}

/// An entry as the union merge sees it.
struct Item {
    id: String,
    /// Where an added entry goes: its timestamp (ties by ID).
    order: String,
    raw: String,
    separated: bool,
    /// A tombstone (`zo forget`): it wins over the entry's text on the other side, so a merge
    /// never brings erased text back.
    forgotten: bool,
}

/// An entry's text split where its `---` separator ends: the entry, and what follows it before
/// the next entry's heading — text written by hand that is no entry (notes, a pasted block),
/// which a merge must keep as much as the entries.
fn split_tail(raw: &str) -> (&str, &str) {
    let mut fence = crate::format::fields::Fence::default();
    let mut at = 0;
    for (i, line) in raw.split_inclusive('\n').enumerate() {
        let l = crate::format::fields::strip_eol(line);
        let in_fence = fence.feed(l);
        at += line.len();
        if i > 0 && !in_fence && crate::format::fields::is_separator(l) {
            return raw.split_at(at);
        }
    }
    (raw, "")
}

/// Three versions of one text: the one both sides agree on, else the side that changed it;
/// None when both changed it differently.
fn three_way<'a>(base: &str, ours: &'a str, theirs: &'a str) -> Option<&'a str> {
    if ours == theirs || theirs == base {
        Some(ours)
    } else if ours == base {
        Some(theirs)
    } else {
        None
    }
}

/// Hand-written text after an entry, merged: as `three_way`, and when both sides wrote
/// something else, both — ours, then what theirs has that ours does not — so nothing either
/// side wrote is lost.
fn merge_tails(base: &str, ours: &str, theirs: &str) -> String {
    if let Some(t) = three_way(base, ours, theirs) {
        return t.to_string();
    }
    let extra = theirs.strip_prefix(base).unwrap_or(theirs);
    if ours.contains(extra.trim()) {
        return ours.to_string();
    }
    format!("{}\n\n{}", ours.trim_end(), extra.trim_start_matches('\n'))
}

/// A note for each entry of the merge followed by text that is no entry and that ours did not
/// hold: kept, and said.
fn stray_notes(out: &[(String, bool)], ours: &str, id_of: impl Fn(&str) -> String) -> Vec<String> {
    out.iter()
        .filter_map(|(raw, _)| {
            let tail = split_tail(raw).1.trim();
            (!tail.is_empty() && !ours.contains(tail)).then(|| {
                format!(
                    "kept text that is no entry, after {} ({} lines from the other side): zo verify names it",
                    id_of(raw),
                    tail.lines().count()
                )
            })
        })
        .collect()
}

/// Both sides' versions of one entry, between conflict markers: a person chooses.
fn conflict(ours: &str, theirs: &str) -> String {
    format!(
        "<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n\n",
        ours.trim_end(),
        theirs.trim_end()
    )
}

/// The merge of one entry both sides hold (`base`: the ancestor's, when it had it). A tombstone
/// wins; a side that left it as it was takes the other's; text after the entry is kept from
/// both; the entry itself changed differently on both sides is a conflict, never a silent
/// choice.
fn merge_entry(
    base: Option<&Item>,
    o: &Item,
    t: &Item,
    notes: &mut Vec<String>,
    conflicts: &mut usize,
) -> (String, bool) {
    if o.forgotten {
        return (o.raw.clone(), o.separated);
    }
    if t.forgotten {
        return (t.raw.clone(), t.separated);
    }
    let b = base.map_or("", |b| b.raw.as_str());
    if let Some(raw) = three_way(b, &o.raw, &t.raw) {
        let separated = if raw == o.raw {
            o.separated
        } else {
            t.separated
        };
        return (raw.to_string(), separated);
    }
    let ((bh, bt), (oh, ot), (th, tt)) = (split_tail(b), split_tail(&o.raw), split_tail(&t.raw));
    match three_way(bh, oh, th) {
        Some(head) => {
            let tail = merge_tails(bt, ot, tt);
            if tail != ot && tail != tt {
                notes.push(format!(
                    "{}: both sides wrote text after it that is no entry; both are kept (zo verify names it)",
                    o.id
                ));
            }
            let separated = if head == oh { o.separated } else { t.separated };
            (format!("{head}{tail}"), separated)
        }
        None => {
            *conflicts += 1;
            notes.push(format!(
                "{} differs on the two sides; both are between conflict markers: keep the one that holds (or both, under two IDs), then `zo verify`",
                o.id
            ));
            (conflict(&o.raw, &t.raw), true)
        }
    }
}

/// Union by ID. Entries of the ancestor come first, in its order; then the entries either side
/// added, in timestamp order (ties by ID), so both sides of a merge converge.
fn union(
    base: &[Item],
    ours: &[Item],
    theirs: &[Item],
    notes: &mut Vec<String>,
    conflicts: &mut usize,
) -> Vec<(String, bool)> {
    let by_id = |v: &[Item]| -> HashMap<String, usize> {
        v.iter()
            .enumerate()
            .rev()
            .map(|(i, e)| (e.id.clone(), i))
            .collect()
    };
    let (oi, ti) = (by_id(ours), by_id(theirs));
    let entry = |e: &Item| (e.raw.clone(), e.separated);
    let mut seen = HashSet::new();
    let mut out: Vec<(String, bool)> = Vec::new();
    for e in base {
        if !seen.insert(e.id.clone()) {
            continue;
        }
        let (o, t) = (
            oi.get(&e.id).map(|&i| &ours[i]),
            ti.get(&e.id).map(|&i| &theirs[i]),
        );
        let pick = match (o, t) {
            (Some(o), Some(t)) => merge_entry(Some(e), o, t, notes, conflicts),
            // Removed on one side only (history edited: `zo verify` names it): the other
            // side's text is kept, so nothing either side holds is lost.
            (Some(x), None) | (None, Some(x)) => entry(x),
            // Deleted on both sides: both agree it goes; the ancestor must not bring it back.
            (None, None) => continue,
        };
        out.push(pick);
    }
    let mut added: Vec<(&str, &str, (String, bool))> = Vec::new();
    for e in ours.iter().chain(theirs) {
        if seen.insert(e.id.clone()) {
            let merged = match (oi.get(&e.id), ti.get(&e.id)) {
                (Some(&i), Some(&j)) => merge_entry(None, &ours[i], &theirs[j], notes, conflicts),
                _ => entry(e),
            };
            added.push((&e.order, &e.id, merged));
        }
    }
    added.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    out.extend(added.into_iter().map(|(_, _, m)| m));
    out
}

/// A file's text before its first entry (`first`: where that entry starts), all of it when
/// it has none: what the preamble merge compares.
fn preamble_of(text: &str, first: Option<usize>) -> String {
    text[..first.unwrap_or(text.len())].to_string()
}

/// A file's text before its first entry, merged three ways; when both sides changed it
/// differently, both between conflict markers.
fn preamble(base: &str, ours: &str, theirs: &str, conflicts: &mut usize) -> String {
    match three_way(base, ours, theirs) {
        Some(p) => p.to_string(),
        None => {
            *conflicts += 1;
            conflict(ours, theirs)
        }
    }
}

/// Union of decisions by ID (see `union`).
pub fn decisions(base: &str, ours: &str, theirs: &str) -> Merged {
    let (b, o, t) = (
        DecisionLog::parse(Text::new(base.into())),
        DecisionLog::parse(Text::new(ours.into())),
        DecisionLog::parse(Text::new(theirs.into())),
    );
    let items = |log: &DecisionLog| -> Vec<Item> {
        log.entries
            .iter()
            .map(|e| Item {
                id: e.id.clone(),
                order: e.timestamp.clone(),
                raw: e.raw(log).to_string(),
                separated: e.separated,
                forgotten: e.is_forgotten(),
            })
            .collect()
    };
    let head = |log: &DecisionLog| {
        preamble_of(log.text.as_str(), log.entries.first().map(|e| e.span.start))
    };
    let (mut notes, mut conflicts) = (Vec::new(), 0);
    let out = union(
        &items(&b),
        &items(&o),
        &items(&t),
        &mut notes,
        &mut conflicts,
    );
    notes.extend(stray_notes(&out, ours, |raw| {
        DecisionLog::parse(Text::new(raw.to_string()))
            .entries
            .first()
            .map_or_else(String::new, |e| e.id.clone())
    }));
    let pre = preamble(&head(&b), &head(&o), &head(&t), &mut conflicts);
    Merged {
        text: join_entries(&pre, &out),
        notes,
        conflicts,
    }
}

/// Union of fact versions by ID (see `union`): the same key set on both sides keeps both
/// versions, and the later one holds; `zo verify` names the pair.
pub fn facts(base: &str, ours: &str, theirs: &str) -> Merged {
    let (b, o, t) = (
        FactsFile::parse(Text::new(base.into())),
        FactsFile::parse(Text::new(ours.into())),
        FactsFile::parse(Text::new(theirs.into())),
    );
    let items = |f: &FactsFile| -> Vec<Item> {
        f.entries
            .iter()
            .map(|e| Item {
                id: if e.id.is_empty() {
                    crate::format::sha256_hex(&e.content(f))
                } else {
                    e.id.clone()
                },
                order: e.set().to_string(),
                raw: e.raw(f).to_string(),
                separated: e.body.separated,
                forgotten: e.is_forgotten(),
            })
            .collect()
    };
    let (mut notes, mut conflicts) = (Vec::new(), 0);
    let out = union(
        &items(&b),
        &items(&o),
        &items(&t),
        &mut notes,
        &mut conflicts,
    );
    let (ko, kt): (HashSet<&str>, HashSet<&str>) = (
        o.keys().into_iter().collect(),
        t.keys().into_iter().collect(),
    );
    let kb: HashSet<String> = b.entries.iter().map(|e| e.id.clone()).collect();
    for key in ko.intersection(&kt) {
        let new_on = |f: &FactsFile| {
            f.versions(key)
                .iter()
                .any(|&i| !kb.contains(&f.entries[i].id))
        };
        if new_on(&o) && new_on(&t) {
            notes.push(format!("{key} was set on both sides; both versions are kept and the later one holds (zo verify names them)"));
        }
    }
    let head =
        |f: &FactsFile| preamble_of(f.text.as_str(), f.entries.first().map(|e| e.span.start));
    let pre = preamble(&head(&b), &head(&o), &head(&t), &mut conflicts);
    Merged {
        text: join_entries(&pre, &out),
        notes,
        conflicts,
    }
}

/// Union of priors by ID. Two different priors that got the same number on two machines: theirs
/// is renumbered to the next free number, and references to it in their entries follow.
pub fn priors(base: &str, ours: &str, theirs: &str) -> Merged {
    let (b, o, t) = (
        PriorsFile::parse(Text::new(base.into())),
        PriorsFile::parse(Text::new(ours.into())),
        PriorsFile::parse(Text::new(theirs.into())),
    );
    let (mut notes, mut conflicts) = (Vec::new(), 0);
    let content = |f: &PriorsFile, i: usize| f.entries[i].content_without_supersession(f);
    let base_ids: HashSet<&str> = b.entries.iter().map(|p| p.id.as_str()).collect();
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    // Old priors: a tombstone wins; a side that left one as it was takes the other's; one
    // that only `Superseded by` tells apart, the side that set it; edited differently on both
    // sides, a conflict.
    for p in &b.entries {
        if !seen.insert(p.id.clone()) {
            continue;
        }
        let oi = o.find(&p.id);
        let ti = t.find(&p.id);
        let pick: String = match (oi, ti) {
            (Some(i), _) if o.entries[i].is_forgotten() => o.entries[i].raw(&o).to_string(),
            (_, Some(j)) if t.entries[j].is_forgotten() => t.entries[j].raw(&t).to_string(),
            (Some(i), Some(j)) => {
                let (or, tr) = (o.entries[i].raw(&o), t.entries[j].raw(&t));
                match three_way(p.raw(&b), or, tr) {
                    Some(r) => r.to_string(),
                    None if content(&o, i) == content(&t, j) => {
                        if o.entries[i].superseded_by().is_none() {
                            tr.to_string()
                        } else {
                            or.to_string()
                        }
                    }
                    None => {
                        conflicts += 1;
                        notes.push(format!(
                            "{} was edited differently on the two sides; both are between conflict markers: keep the one that holds, then `zo verify`",
                            p.id
                        ));
                        conflict(or, tr)
                    }
                }
            }
            (Some(i), None) => o.entries[i].raw(&o).to_string(),
            (None, Some(j)) => t.entries[j].raw(&t).to_string(),
            // Deleted on both sides: not brought back from the ancestor.
            (None, None) => continue,
        };
        out.push((pick, true));
    }
    let mut next = o.next_number().max(t.next_number()).max(b.next_number());
    let ours_new: Vec<usize> = (0..o.entries.len())
        .filter(|&i| !base_ids.contains(o.entries[i].id.as_str()))
        .collect();
    for &i in &ours_new {
        seen.insert(o.entries[i].id.clone());
        out.push((
            o.entries[i].raw(&o).to_string(),
            o.entries[i].body.separated,
        ));
    }
    let mut renames: Vec<(String, String)> = Vec::new();
    let theirs_new: Vec<usize> = (0..t.entries.len())
        .filter(|&j| !base_ids.contains(t.entries[j].id.as_str()))
        .collect();
    for &j in &theirs_new {
        let p = &t.entries[j];
        if let Some(i) = o.find(&p.id).filter(|_| seen.contains(&p.id)) {
            if content(&o, i) == content(&t, j) {
                continue; // the same prior on both sides
            }
            if let Some(n) = p.number {
                let new_id = prior::format_id(next);
                notes.push(format!(
                    "{} was added on both sides; theirs is now {new_id}",
                    p.id
                ));
                renames.push((prior::format_id(n), new_id));
                next += 1;
            }
        }
        seen.insert(p.id.clone());
        out.push((p.raw(&t).to_string(), p.body.separated));
    }
    // Apply renumbering to their new entries (the heading and any reference).
    if !renames.is_empty() {
        let start = b.entries.len() + ours_new.len();
        for (raw, _) in out.iter_mut().skip(start) {
            for (old, new) in &renames {
                *raw = replace_id(raw, old, new);
            }
        }
    }
    let head =
        |f: &PriorsFile| preamble_of(f.text.as_str(), f.entries.first().map(|e| e.span.start));
    let pre = preamble(&head(&b), &head(&o), &head(&t), &mut conflicts);
    Merged {
        text: join_entries(&pre, &out),
        notes,
        conflicts,
    }
}

/// What a merge would lose: each entry of either side (and the text written after it) must be
/// in the merged text, unless the other side erased it (a tombstone) or it was renumbered (a
/// lesson's number). Checked on every merge, so whatever the rules above miss fails the merge
/// instead of dropping text: the driver then leaves both sides between conflict markers.
pub fn lost(kind: &str, ours: &str, theirs: &str, merged: &str) -> Vec<String> {
    let numbers = |s: &str| crate::format::prior::without_numbers(&s.replace("\r\n", "\n"));
    let merged = numbers(merged);
    let spans = |text: &str| -> Vec<(String, String, bool)> {
        let t = Text::new(text.to_string());
        match kind {
            "decisions" => {
                let log = DecisionLog::parse(t);
                log.entries
                    .iter()
                    .map(|e| (e.id.clone(), e.raw(&log).to_string(), e.is_forgotten()))
                    .collect()
            }
            "facts" => {
                let f = FactsFile::parse(t);
                f.entries
                    .iter()
                    .map(|e| (e.id.clone(), e.raw(&f).to_string(), e.is_forgotten()))
                    .collect()
            }
            _ => {
                let f = PriorsFile::parse(t);
                f.entries
                    .iter()
                    .map(|e| (e.id.clone(), e.raw(&f).to_string(), e.is_forgotten()))
                    .collect()
            }
        }
    };
    let (o, t) = (spans(ours), spans(theirs));
    let erased = |id: &str, other: &[(String, String, bool)]| {
        !id.is_empty() && other.iter().any(|(i, _, f)| *f && i == id)
    };
    let mut out = Vec::new();
    for (side, mine, other) in [("ours", &o, &t), ("theirs", &t, &o)] {
        for (id, raw, _) in mine.iter() {
            if erased(id, other) {
                continue;
            }
            let (head, tail) = split_tail(raw);
            for piece in [head, tail] {
                let piece = numbers(piece);
                if !piece.trim().is_empty() && !merged.contains(piece.trim()) {
                    out.push(format!("{side}'s {id}"));
                    break;
                }
            }
        }
    }
    out
}

/// Replace a prior ID as a whole word (`PR-046` but not `PR-0460`).
fn replace_id(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(old) {
        let after = &rest[i + old.len()..];
        out.push_str(&rest[..i]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// STATE.md: the side with the newer `timestamp` wins; blockers and next steps only the other
/// side had are appended to the winner's lists. On a tie the text that sorts last wins, so
/// both clones merging the same two sides agree (the local side won, and each clone kept its
/// own phase).
pub fn state(ours: &str, theirs: &str) -> String {
    let (o, t) = (
        State::parse(Text::new(ours.into())),
        State::parse(Text::new(theirs.into())),
    );
    let ts = |s: &State| s.scalar("timestamp").unwrap_or_default();
    let theirs_win = match ts(&t).cmp(&ts(&o)) {
        std::cmp::Ordering::Equal => theirs > ours,
        later => later == std::cmp::Ordering::Greater,
    };
    let (mut win, lose) = if theirs_win { (t, o) } else { (o, t) };
    for key in ["active_blockers", "next_steps"] {
        let mut items = win.list(key);
        let extra: Vec<String> = lose
            .list(key)
            .into_iter()
            .filter(|i| !items.contains(i))
            .collect();
        if !extra.is_empty() {
            items.extend(extra);
            win.set(key, Value::List(items));
        }
    }
    win.render()
}

/// A session file changed on both sides. Session names no longer collide across clones, so
/// this is an older name written on two machines (keep both sessions, ours first; `zo continue`
/// splits them), or one file edited on both sides (keep ours and append what theirs added).
pub fn session(base: &str, ours: &str, theirs: &str) -> String {
    // A session `zo forget` emptied stays empty whatever the other side did.
    if crate::format::session::is_forgotten(theirs) && !crate::format::session::is_forgotten(ours) {
        return theirs.to_string();
    }
    if crate::format::session::is_forgotten(ours)
        || ours.trim() == theirs.trim()
        || theirs.trim() == base.trim()
    {
        return ours.to_string();
    }
    if ours.trim() == base.trim() {
        return theirs.to_string();
    }
    if !base.trim().is_empty() {
        if let Some(added) = theirs.strip_prefix(base.trim_end()) {
            return format!("{}\n{}", ours.trim_end(), added.trim_start_matches('\n'));
        }
    }
    format!("{}\n\n{}", ours.trim_end(), theirs)
}

/// The merge of a file one side only appended to: the other side's text, then what the
/// appending side added after the ancestor's. None when neither side only appended. Exact for
/// the append-only files, whatever their content; the driver's fallback (and the shell's, in
/// `templates/merge-driver.sh`) when the text cannot be read as memory.
pub fn append_only(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Vec<u8>> {
    if let Some(tail) = theirs.strip_prefix(base) {
        return Some([ours, tail].concat());
    }
    ours.strip_prefix(base).map(|tail| [theirs, tail].concat())
}

#[cfg(test)]
mod tests {
    /// Two clones ending sessions in the same second: each merge kept its own side's phase, so
    /// the clones disagreed after both merged.
    #[test]
    fn a_tie_on_the_timestamp_kept_each_clones_own_phase() {
        let a = "# STATE\nphase: building\ntimestamp: 2026-11-25T17:15:01Z\nnext_steps: [ship a]\n";
        let b = "# STATE\nphase: testing\ntimestamp: 2026-11-25T17:15:01Z\nnext_steps: [ship b]\n";
        let (on_a, on_b) = (super::state(a, b), super::state(b, a));
        let phase = |t: &str| State::parse(Text::new(t.into())).scalar("phase");
        assert_eq!(phase(&on_a), phase(&on_b), "{on_a}\n{on_b}");
        // A later timestamp still wins, whichever side it is on.
        let later = b.replace("17:15:01", "17:16:00");
        assert_eq!(phase(&super::state(a, &later)).as_deref(), Some("testing"));
        assert_eq!(phase(&super::state(&later, a)).as_deref(), Some("testing"));
    }

    use super::*;

    #[test]
    fn append_only_keeps_both_sides_additions_whole() {
        let base = b"head\n---\n";
        assert_eq!(
            append_only(base, b"head\n---\nA\n---\n", b"head\n---\nB\n---\n").unwrap(),
            b"head\n---\nA\n---\nB\n---\n"
        );
        // Ours was reordered (a zo merge), theirs only appended: theirs' additions follow ours.
        assert_eq!(
            append_only(b"x\n", b"y\nx\n", b"x\nz\n").unwrap(),
            b"y\nx\nz\n"
        );
        // Theirs reordered, ours only appended.
        assert_eq!(
            append_only(b"x\n", b"x\nz\n", b"y\nx\n").unwrap(),
            b"y\nx\nz\n"
        );
        // Neither side only appended.
        assert!(append_only(b"x\n", b"y\n", b"z\n").is_none());
    }
}
