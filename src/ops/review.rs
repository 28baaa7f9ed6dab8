//! `zo review A..B` and `zo verify --range A..B` (SPEC §3a, "Review like code"): the memory
//! entries a range of commits adds, changes or removes — decisions, priors, fact versions,
//! STATE.md, sessions and snapshots — each with the commit and author that brought it and what
//! it is flagged for: a dangerous directive, an invisible character, a secret, a line that
//! forges zo's structure, an edit or removal of history. A reviewer reads it beside the code
//! diff; CI runs `verify --range` on a pull request and fails on a flag that fails.

use crate::format::Text;
use crate::format::decision::DecisionLog;
use crate::format::fact::FactsFile;
use crate::format::prior::PriorsFile;
use crate::git::{CommitRef, Repo};
use crate::store::gate::{self, directives};
use crate::store::memory::Memory;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Review {
    /// Where the range's branch left its base (the merge base of A and B).
    pub from: CommitRef,
    pub to: CommitRef,
    /// Commits in the range (`git log A..B`).
    pub commits: usize,
    pub entries: Vec<Reviewed>,
    /// No flag that fails (`Flag::fails`).
    pub ok: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Reviewed {
    /// The memory file, relative to the repository.
    pub file: String,
    /// The entry's ID, or the file's name for STATE.md, sessions and snapshots.
    pub id: String,
    pub title: String,
    /// `added`, `changed` or `removed`.
    pub change: &'static str,
    /// The first commit of the range that holds the entry as it ends (for a removal: that
    /// no longer holds it), its author, and whether it is signed.
    pub by: Option<CommitRef>,
    pub flags: Vec<Flag>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Flag {
    /// `directive`, `consented-directive`, `characters`, `secret`, `forged-structure`,
    /// `history-edited`, `erased` (a tombstone replaced an entry), `memory-moved`,
    /// `memory-elsewhere`, `future-dated`, `attributes`, `retires-later`, `born-forgotten`; notes (`fails: false`): `retires`,
    /// `supersedes-ignored`, `backdated`.
    pub kind: &'static str,
    pub detail: String,
    /// Whether `verify --range` fails on it: every flag does, a directive whose entry records
    /// consent too (the consent is text a pull request can write).
    pub fails: bool,
}

/// One memory file's entries at a commit: ID → (title, text).
type Entries = BTreeMap<String, (String, String)>;

/// The kinds of file a review reads, with how each splits into entries.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Decisions,
    Priors,
    Facts,
    Whole,
}

fn entries(kind: Kind, name: &str, text: Option<String>) -> Entries {
    let Some(text) = text else {
        return Entries::new();
    };
    let t = Text::new(text);
    match kind {
        Kind::Decisions => {
            let log = DecisionLog::parse(t);
            log.entries
                .iter()
                .map(|e| (e.id.clone(), (e.title.clone(), e.content(&log))))
                .collect()
        }
        Kind::Priors => {
            let f = PriorsFile::parse(t);
            f.entries
                .iter()
                .map(|e| (e.id.clone(), (e.title.clone(), e.content(&f))))
                .collect()
        }
        Kind::Facts => {
            let f = FactsFile::parse(t);
            f.entries
                .iter()
                .map(|e| (e.id.clone(), (e.key.clone(), e.content(&f))))
                .collect()
        }
        Kind::Whole => {
            Entries::from([(name.to_string(), (name.to_string(), t.as_str().to_string()))])
        }
    }
}

/// The one decision an entry's text (as review keeps it) holds.
fn decision_of(text: &str) -> Option<crate::format::decision::Decision> {
    DecisionLog::parse(Text::new(text.to_string()))
        .entries
        .into_iter()
        .next()
}

/// The time an entry carries (a decision's heading, a fact's `Set`) or a session's or
/// snapshot's file name does.
fn dated(kind: Kind, name: &str, text: &str) -> Option<String> {
    match kind {
        Kind::Decisions => decision_of(text).map(|e| e.timestamp),
        Kind::Facts => FactsFile::parse(Text::new(text.to_string()))
            .entries
            .first()
            .map(|e| e.set().to_string()),
        Kind::Priors => None,
        Kind::Whole => crate::format::session::name_time(name),
    }
}

/// Whether an entry's text (or a whole file's) is a tombstone `zo forget` leaves.
fn is_tombstone(text: &str) -> bool {
    // As the readers take one: a `Forgotten` field, or a decision typed FORGOTTEN whatever
    // its other fields (a hand-written one with an ordinary title retired a decision unseen).
    text.lines().any(|l| {
        matches!(crate::format::fields::parse_field_line(l), Some((n, v))
            if n.eq_ignore_ascii_case("Forgotten")
                || (n.eq_ignore_ascii_case("Type") && v.trim().eq_ignore_ascii_case("FORGOTTEN")))
    }) || crate::format::session::is_forgotten(text)
}

/// `A..B` as two commits.
fn parse_range(repo: &Repo, range: &str) -> Result<(CommitRef, CommitRef)> {
    let Some((a, b)) = range.split_once("..") else {
        bail!(crate::error::Error::usage(format!(
            "{range:?} is not a range: give it as A..B (e.g. origin/main..HEAD)"
        )));
    };
    let b = b.strip_prefix('.').unwrap_or(b);
    let resolve = |s: &str| {
        let s = if s.is_empty() { "HEAD" } else { s };
        repo.resolve_commit(s)
            .ok_or_else(|| crate::error::Error::usage(format!("{s:?} names no commit here")))
    };
    Ok((resolve(a)?, resolve(b)?))
}

/// The flags of an entry's text as it ends the range. `erased`: the title of what a
/// tombstone in the range replaced, when the change is one.
fn flags_of(
    kind: Kind,
    name: &str,
    change: &'static str,
    erased: Option<&str>,
    text: &str,
) -> Vec<Flag> {
    let mut out = Vec::new();
    // An erasure is a rewrite of memory's past too, and a tombstone is text anyone can write:
    // the reviewer is told what it erased, and the range fails until a maintainer merges it
    // knowingly (SPEC §3a). `zo forget`'s own tombstone is flagged the same: review cannot
    // tell who wrote it.
    if let Some(title) = erased {
        out.push(Flag {
            kind: "erased",
            detail: format!(
                "replaces {} with a tombstone: an entry erased from memory (by `zo forget`, or by hand: review cannot tell)",
                crate::store::gate::frame::name(title)
            ),
            fails: true,
        });
        return out;
    }
    // A tombstone where nothing stood erased nothing: written by hand to retire what it names
    // (`Supersedes`, a lesson's `Superseded by`) while it shows nothing of its own.
    if change == "added" && is_tombstone(text) {
        out.push(Flag {
            kind: "born-forgotten",
            detail: "a tombstone added where no entry stood: `zo forget` only ever replaces an entry, so this one was written by hand (what it names under Supersedes is retired by nothing)".into(),
            fails: true,
        });
    }
    if change == "removed" || (change == "changed" && kind != Kind::Whole) {
        out.push(Flag {
            kind: "history-edited",
            detail: format!("an entry was {change} by hand: memory is append-only (supersede it, or `zo forget` it)"),
            fails: true,
        });
    }
    if change == "removed" {
        return out;
    }
    if let Some(at) = dated(kind, name, text).filter(|t| crate::time::is_future(t)) {
        out.push(Flag {
            kind: "future-dated",
            detail: format!(
                "dated {at}, beyond now: no writer dates ahead of its clock, and zo never takes it for the latest"
            ),
            fails: true,
        });
    }
    if let Some((_, c)) = gate::first_control(text) {
        out.push(Flag {
            kind: "characters",
            detail: format!("holds {}", gate::chars::describe(c)),
            fails: true,
        });
    }
    for f in gate::unallowed_secrets(text, std::slice::from_ref(&(0..text.len()))) {
        out.push(Flag {
            kind: "secret",
            detail: format!(
                "looks like {} at its line {} (rule {})",
                f.what, f.line, f.rule
            ),
            fails: true,
        });
    }
    // A consent line is text anyone can write in a pull request: it is shown, and it fails the
    // range all the same — a maintainer who accepts the entry merges it knowingly.
    let consented = directives::allowed_in(text);
    for f in directives::scan(text) {
        let ok = consented.iter().any(|r| r == f.rule);
        out.push(Flag {
            kind: if ok { "consented-directive" } else { "directive" },
            detail: format!(
                "reads as an instruction to an agent — {} at its line {} (rule {}){}",
                f.what,
                f.line,
                f.rule,
                if ok { "; it records the writer's consent (**Allowed directive:**), which anyone can write" } else { "" }
            ),
            fails: true,
        });
    }
    // zo's writers escape a field line that starts with `#`; a decision or fact holding one
    // was written by hand, and prints like a heading wherever Markdown is read.
    if matches!(kind, Kind::Decisions | Kind::Facts | Kind::Priors) {
        let forged = text.lines().skip(1).position(|l| {
            let l = l.trim_start();
            match kind {
                Kind::Priors => l.starts_with("## ") || l.starts_with("# "),
                _ => l.starts_with('#'),
            }
        });
        if let Some(n) = forged {
            out.push(Flag {
                kind: "forged-structure",
                detail: format!(
                    "line {} of the entry is a heading zo's writers never write inside an entry",
                    n + 2
                ),
                fails: true,
            });
        }
    }
    out
}

/// Whether a session's or snapshot's change is one zo makes: line for line the same but for
/// lesson numbers (a merge renumbered them) or a listed entry's title replaced by
/// `[forgotten]` (`zo forget` of that entry).
fn record_edit_allowed(old: &str, new: &str) -> bool {
    use crate::format::prior::without_numbers;
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| {
        x == y
            || without_numbers(x) == without_numbers(y)
            || matches!(
                (
                    crate::format::session::parse_listed(x),
                    crate::format::session::parse_listed(y)
                ),
                (Some((i, _, _)), Some((j, t, _))) if i == j && t == crate::format::fact::FORGOTTEN
            )
    })
}

/// When a lesson's text changed only in its `Superseded by` line, from none to a lesson the
/// range ends with: that lesson, named by ID and title.
fn superseded_only(old: &str, new: &str, after: &Entries) -> Option<String> {
    use crate::format::prior::without_supersession;
    if without_supersession(old) != without_supersession(new) {
        return None;
    }
    let field = |t: &str| {
        PriorsFile::parse(Text::new(t.to_string()))
            .entries
            .first()
            .and_then(|p| p.superseded_by().map(str::to_string))
    };
    if field(old).is_some() {
        return None;
    }
    let by = field(new)?;
    let (title, text) = after.get(&by)?;
    // Retired by a tombstone is retired by nothing: what `zo prior supersede` refuses.
    if is_tombstone(text) {
        return None;
    }
    Some(format!("{by} {}", gate::frame::name(title)))
}

/// How long before the commit that brings it a decision may be dated and still be taken as
/// written for it (a branch that waited, a rebase): a week.
const BACKDATE_DAYS: i64 = 7;

/// What a decision in the range does to others and to time, as the reviewer must be told it:
/// which entries it retires (`Supersedes`: from the merge on, the agent is given it instead —
/// a note), `Supersedes` on an annotation that zo does not follow (a note), a date well before
/// the commit that brought it (as-of reads take it as memory of that time — a note), and a
/// decision that retires one dated after it, which no writer writes (a flag).
fn retiring(text: &str, after: &Entries, by: Option<&CommitRef>) -> Vec<Flag> {
    let Some(e) = decision_of(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let at = crate::time::parse_instant(&e.timestamp, false);
    if let (Some(at), Some(c)) = (
        at,
        by.and_then(|c| crate::time::parse_instant(&c.time, false)),
    ) && c - at > BACKDATE_DAYS * 86_400
    {
        out.push(Flag {
            kind: "backdated",
            detail: format!(
                "dated {}, {} days before the commit that brought it: `--as-of` reads take it as memory of that time",
                e.timestamp,
                (c - at) / 86_400
            ),
            fails: false,
        });
    }
    // A confirmation makes a provisional decision active, and with it what that one retires.
    if e.is_confirmation() {
        for id in e
            .refs
            .as_deref()
            .map(crate::format::decision::referenced_ids)
            .unwrap_or_default()
        {
            let Some((title, text)) = after.get(&id) else {
                continue;
            };
            let retired: Vec<String> = decision_of(text)
                .and_then(|c| c.supersedes)
                .as_deref()
                .map(crate::format::decision::referenced_ids)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|r| {
                    after
                        .get(&r)
                        .map(|(t, _)| format!("{r} {}", crate::store::gate::frame::name(t)))
                })
                .collect();
            out.push(Flag {
                kind: "confirms",
                detail: format!(
                    "confirms {id} {}: it becomes active{}",
                    crate::store::gate::frame::name(title),
                    if retired.is_empty() {
                        String::new()
                    } else {
                        format!(", and retires {}", retired.join(", "))
                    }
                ),
                fails: false,
            });
        }
    }
    let Some(v) = e.supersedes.as_deref() else {
        return out;
    };
    let ids = crate::format::decision::referenced_ids(v);
    if e.is_annotation() && !e.is_forgotten() {
        out.push(Flag {
            kind: "supersedes-ignored",
            detail: format!(
                "a {} entry names {} under Supersedes: only a decision retires another, so zo ignores it",
                e.kind,
                ids.join(", ")
            ),
            fails: false,
        });
        return out;
    }
    for id in ids {
        let Some((title, old)) = after.get(&id) else {
            continue;
        };
        let old_at = decision_of(old).and_then(|o| crate::time::parse_instant(&o.timestamp, false));
        let earlier = matches!((at, old_at), (Some(a), Some(o)) if a < o);
        out.push(Flag {
            kind: if earlier { "retires-later" } else { "retires" },
            detail: if earlier {
                format!(
                    "retires {id} {}, which is dated after it: no writer supersedes a later decision with an earlier one",
                    crate::store::gate::frame::name(title)
                )
            } else {
                format!(
                    "retires {id} {}: once merged, the agent is given this entry instead",
                    crate::store::gate::frame::name(title)
                )
            },
            fails: earlier,
        });
    }
    out
}

/// Where a commit keeps its memory, relative to the repository's top: what its own
/// `.zo/config.yaml` names (`memory_root`), or the older layout's fixed place. Err: a value zo
/// would refuse to read from, in zo's words.
fn memory_at(repo: &Repo, c: &CommitRef) -> Result<Option<String>, String> {
    let id = gix::ObjectId::from_hex(c.id.as_bytes()).map_err(|e| format!("{e}"))?;
    crate::store::layout::memory_dir_at(repo, id).map_err(|e| format!("{e:#}"))
}

/// The memory files a review compares, as (kind, path inside the memory directory): the four
/// files, and every session and snapshot either side holds.
fn files_of(repo: &Repo, sides: [(&CommitRef, &str); 2]) -> Result<Vec<(Kind, String)>> {
    let mut files: Vec<(Kind, String)> = vec![
        (Kind::Decisions, "DECISION_LOG.md".into()),
        (Kind::Priors, "PRIORS.md".into()),
        (Kind::Facts, "FACTS.md".into()),
        (Kind::Whole, "STATE.md".into()),
    ];
    for dir in ["sessions", "snapshots"] {
        let mut names: Vec<String> = Vec::new();
        for (c, root) in sides {
            names.extend(repo.names_at(c, Path::new(&format!("{root}/{dir}")))?);
        }
        names.sort();
        names.dedup();
        files.extend(
            names
                .into_iter()
                .map(|n| (Kind::Whole, format!("{dir}/{n}"))),
        );
    }
    Ok(files)
}

pub fn review(memory: &Memory, range: &str) -> Result<Review> {
    let layout = &memory.layout;
    let repo = Repo::discover(&layout.root).context("zo review needs a git repository")?;
    let (base, to) = parse_range(&repo, range)?;
    // What the range did is measured from where it left its base (`git diff A...B`): a branch
    // behind main did not remove what main added since.
    let from = repo.merge_base(&base, &to).unwrap_or(base);
    let commits = repo.range(&from, &to)?;
    // What memory is, is part of what is reviewed: each side is read where its own config
    // keeps it, so a range that moves `memory_root` is compared across the move (an entry
    // rewritten in the new place is an edit of history, as it would be in the old).
    // A side that holds no memory (before `zo init`, or after a range removed it) is read in
    // the other side's place, where it holds nothing.
    let here = layout.memory_rel();
    let before = memory_at(&repo, &from).ok().flatten();
    let after = memory_at(&repo, &to);
    let after_known = after.clone().ok().flatten();
    let before_dir = before
        .clone()
        .or_else(|| after_known.clone())
        .unwrap_or_else(|| here.clone());
    let after_root = after_known.clone().unwrap_or_else(|| before_dir.clone());
    let dirs: Vec<String> = commits
        .iter()
        .map(|c| {
            memory_at(&repo, c)
                .ok()
                .flatten()
                .unwrap_or_else(|| before_dir.clone())
        })
        .collect();
    let read = |c: &CommitRef, rel: &str| -> Result<Option<String>> {
        Ok(repo
            .file_at_ref(c, Path::new(rel))?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    let mut out = Vec::new();
    for (kind, file) in files_of(&repo, [(&from, &before_dir), (&to, &after_root)])? {
        let name = file.rsplit('/').next().unwrap_or(&file).to_string();
        let (old_rel, new_rel) = (
            format!("{before_dir}/{file}"),
            format!("{after_root}/{file}"),
        );
        let (before, after) = (
            entries(kind, &name, read(&from, &old_rel)?),
            entries(kind, &name, read(&to, &new_rel)?),
        );
        if before == after {
            continue;
        }
        // Each commit's version, parsed once, for who brought what.
        let versions: Vec<(CommitRef, Entries)> = commits
            .iter()
            .zip(&dirs)
            .map(|(c, dir)| {
                Ok((
                    c.clone(),
                    entries(kind, &name, read(c, &format!("{dir}/{file}"))?),
                ))
            })
            .collect::<Result<_>>()?;
        let ids: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
        for id in ids {
            let (change, title, text) = match (before.get(id), after.get(id)) {
                (None, Some((t, x))) => ("added", t, x),
                (Some(a), Some(b)) if a != b => ("changed", &b.0, &b.1),
                (Some((t, x)), None) => ("removed", t, x),
                _ => continue,
            };
            // A tombstone where the base held text: what it erased, named from the base.
            let erased = before
                .get(id)
                .filter(|(_, x)| change == "changed" && !is_tombstone(x) && is_tombstone(text))
                .map(|(t, _)| t.as_str());
            let end = after.get(id);
            let by = versions
                .iter()
                .find(|(_, v)| v.get(id) == end)
                .map(|(c, _)| c.clone());
            let rel = if change == "removed" {
                &old_rel
            } else {
                &new_rel
            };
            let mut flags = flags_of(kind, &name, change, erased, text);
            // A session or snapshot is a record of its time: once written, zo changes it only
            // to erase (a tombstone, or a forgotten entry's title in its lists) and a merge only
            // to renumber the lessons it lists. Any other edit rewrites what a past session
            // says (its Next and Handoff lead the bundle).
            if let (Kind::Whole, Some((_, old))) = (kind, before.get(id))
                && change == "changed"
                && erased.is_none()
                && name != "STATE.md"
                && !is_tombstone(text)
                && !record_edit_allowed(old, text)
            {
                flags.push(Flag {
                    kind: "history-edited",
                    detail: "a past session's or snapshot's text was changed by hand: zo changes one only to erase (`zo forget`)".into(),
                    fails: true,
                });
            }
            // `zo prior supersede` writes the one line a lesson's life changes by: that edit
            // alone, naming a lesson the range ends with, is a note, not an edit of history.
            if let (Kind::Priors, Some((_, old))) = (kind, before.get(id))
                && change == "changed"
                && let Some(by) = superseded_only(old, text, &after)
            {
                flags.retain(|f| f.kind != "history-edited");
                flags.push(Flag {
                    kind: "superseded",
                    detail: format!("marked superseded by {by} (what `zo prior supersede` writes)"),
                    fails: false,
                });
            }
            if kind == Kind::Decisions && change != "removed" {
                flags.extend(retiring(text, &after, by.as_ref()));
            }
            out.push(Reviewed {
                file: rel.clone(),
                id: id.clone(),
                title: title.clone(),
                change,
                by,
                flags,
            });
        }
    }
    if before.is_some() && after.as_ref().map(Option::as_deref) != Ok(before.as_deref()) {
        let after = after.map(|a| a.unwrap_or_else(|| "(no memory)".into()));
        out.insert(0, moved(&before_dir, &after, &out, &commits, &dirs));
    }
    out.extend(config_changes(&repo, &from, &to, &commits));
    out.extend(elsewhere(&repo, &from, &to, &commits)?);
    out.extend(attributes(layout, &from, &to, &before_dir, &after_root));
    let ok = out.iter().all(|e| e.flags.iter().all(|f| !f.fails));
    Ok(Review {
        from,
        to,
        commits: commits.len(),
        entries: out,
        ok,
    })
}

/// The settings a range changes in `.zo/config.yaml`, one note each: they decide how memory
/// is read (`promotion.threshold` makes provisional decisions active, `links` adds memories to
/// the bundle), with no entry changed. `memory_root` is reviewed as a move (`memory-moved`).
fn config_changes(
    repo: &Repo,
    from: &CommitRef,
    to: &CommitRef,
    commits: &[CommitRef],
) -> Vec<Reviewed> {
    let rel = Path::new(".zo/config.yaml");
    let read = |c: &CommitRef| -> Option<String> {
        let b = repo.file_at_ref(c, rel).ok().flatten()?;
        Some(String::from_utf8_lossy(&b).into_owned())
    };
    let (before, after) = (read(from), read(to));
    if before == after {
        return Vec::new();
    }
    let leaves = |t: &Option<String>| {
        t.as_deref()
            .and_then(|t| crate::store::config::Config::parse(rel, t).ok())
            .map(|c| c.leaves())
            .unwrap_or_default()
    };
    let (old, new) = (leaves(&before), leaves(&after));
    let by = commits.iter().find(|c| read(c) == after).cloned();
    let short = |v: Option<&String>| -> String {
        v.map_or_else(
            || "(unset)".to_string(),
            |v| {
                let one: String = v.replace('\n', " ").chars().take(60).collect();
                gate::frame::name(&one)
            },
        )
    };
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .filter(|k| old.get(*k) != new.get(*k) && *k != "memory_root")
        .map(|k| Reviewed {
            file: ".zo/config.yaml".into(),
            id: k.clone(),
            title: k.clone(),
            change: "changed",
            by: by.clone(),
            flags: vec![Flag {
                kind: "config",
                detail: format!(
                    "{k}: {} → {}: a setting of how memory is read, with no entry changed",
                    short(old.get(k)),
                    short(new.get(k))
                ),
                fails: false,
            }],
        })
        .collect()
}

/// Git attributes the range sets on the memory files that change how they reach zo (a merge
/// other than zo's, a working-tree encoding, a filter: `wiring::hooks::memory_attributes`):
/// a `.gitattributes` line in a pull request hides every entry from each clone that checks it
/// out, or merges memory without zo, while the memory files themselves are untouched.
fn attributes(
    layout: &crate::store::layout::Layout,
    from: &CommitRef,
    to: &CommitRef,
    before_dir: &str,
    after_dir: &str,
) -> Vec<Reviewed> {
    let names = ["DECISION_LOG.md", "PRIORS.md", "FACTS.md", "STATE.md"];
    let files = |dir: &str| -> Vec<String> { names.iter().map(|n| format!("{dir}/{n}")).collect() };
    let name = |f: &str| f.rsplit('/').next().unwrap_or(f).to_string();
    let before: Vec<(String, &str, String)> =
        crate::wiring::hooks::memory_attributes(&layout.root, Some(&from.id), &files(before_dir))
            .into_iter()
            .map(|(f, a, v)| (name(&f), a, v))
            .collect();
    crate::wiring::hooks::memory_attributes(&layout.root, Some(&to.id), &files(after_dir))
        .into_iter()
        .filter(|(f, a, v)| !before.contains(&(name(f), *a, v.clone())))
        .map(|(file, attr, value)| Reviewed {
            id: format!("{attr}={value}"),
            title: format!("{attr} {value}"),
            change: "changed",
            by: None,
            flags: vec![Flag {
                kind: "attributes",
                detail: match attr {
                    // Nothing routes the file (a moved memory whose routing was not moved with
                    // it): git's line merge stops at conflicts rather than losing silently.
                    "merge" if value == "unspecified" => format!(
                        "nothing routes {file} to zo's merge driver: git merges it line by line and stops at conflicts; fix: `zo hooks install` writes the routing"
                    ),
                    "merge" => format!(
                        "git would merge {file} with `{value}`, not zo's driver: entries merged line by line or one side taken whole, nothing said"
                    ),
                    "working-tree-encoding" => format!(
                        "git would check {file} out as {value}: zo reads it as holding no memory, in every clone"
                    ),
                    _ => format!("git would run the filter `{value}` on {file} at checkout: another program rewrites memory"),
                },
                fails: !(attr == "merge" && value == "unspecified"),
            }],
            file,
        })
        .collect()
}

/// Memories below the top that the range adds or changes (`sub/.zo`): zo run in that folder —
/// an agent's shell there — finds it before the top's, so what it holds is read as memory too.
/// A new one fails the range; a change to one already there is a note (review it there).
fn elsewhere(
    repo: &Repo,
    from: &CommitRef,
    to: &CommitRef,
    commits: &[CommitRef],
) -> Result<Vec<Reviewed>> {
    let before: BTreeMap<String, String> = repo.nested_dirs_at(from, ".zo")?.into_iter().collect();
    let mut out = Vec::new();
    for (dir, tree) in repo.nested_dirs_at(to, ".zo")? {
        let change = match before.get(&dir) {
            Some(t) if *t == tree => continue,
            Some(_) => "changed",
            None => "added",
        };
        let by = commits
            .iter()
            .find(|c| {
                repo.nested_dirs_at(c, ".zo")
                    .is_ok_and(|v| v.iter().any(|(d, t)| *d == dir && *t == tree))
            })
            .cloned();
        let added = change == "added";
        out.push(Reviewed {
            file: dir.clone(),
            id: dir.clone(),
            title: dir.clone(),
            change,
            by,
            flags: vec![Flag {
                kind: "memory-elsewhere",
                detail: if added {
                    format!("a new memory in {dir}: zo run in that folder reads it instead of the top's, and this review covers the top's only (review it with `zo review` run there)")
                } else {
                    format!("the memory in {dir} changed: review it with `zo review` run in that folder")
                },
                fails: added,
            }],
        });
    }
    Ok(out)
}

/// The review's line for a range that moves the memory (`memory_root` changed, or set to a
/// place zo refuses): reported always; it fails when any entry carried across is not
/// byte-identical to the one it replaces (an edit or removal of history, flagged on the entry
/// too) or when zo would refuse the new place.
fn moved(
    before: &str,
    after: &Result<String, String>,
    entries: &[Reviewed],
    commits: &[CommitRef],
    dirs: &[String],
) -> Reviewed {
    let carried = entries.iter().all(|e| e.change == "added");
    let (title, detail, fails) = match after {
        Ok(after) => (
            format!("{before} → {after}"),
            if carried {
                format!(
                    "memory_root moved the memory from {before} to {after}: every file zo reads is now there; every entry of {before} was carried across unchanged"
                )
            } else {
                format!(
                    "memory_root moved the memory from {before} to {after}, and entries carried across differ from the ones they replace: history rewritten in the new place (see the entries flagged below)"
                )
            },
            !carried,
        ),
        Err(why) => (
            format!("{before} → (refused)"),
            format!("memory_root names a place zo refuses to read memory from: {why}"),
            true,
        ),
    };
    let by = match after {
        Ok(after) => commits
            .iter()
            .zip(dirs)
            .find(|(_, d)| *d == after)
            .map(|(c, _)| c.clone()),
        Err(_) => commits.last().cloned(),
    };
    Reviewed {
        file: crate::store::layout::CONFIG_REL.into(),
        id: "memory_root".into(),
        title,
        change: "changed",
        by,
        flags: vec![Flag {
            kind: "memory-moved",
            detail,
            fails,
        }],
    }
}

impl Review {
    /// The review as a person reads it: one block per entry, its change, who brought it, and
    /// each flag; titles and names quoted (`gate::frame`).
    pub fn render(&self) -> String {
        let mut s = format!(
            "memory changes in {}..{} ({}):\n",
            self.from.short,
            self.to.short,
            crate::ops::text::count(self.commits, "commit", "commits")
        );
        if self.entries.is_empty() {
            s.push_str("  none\n");
        }
        for e in &self.entries {
            let by =
                e.by.as_ref()
                    .map_or_else(|| "commit unknown".into(), CommitRef::by);
            s.push_str(&format!(
                "\n{} {} {} in {} ({by})\n",
                e.change,
                e.id,
                gate::frame::name(&e.title),
                e.file
            ));
            for f in &e.flags {
                s.push_str(&format!(
                    "  {} {}: {}\n",
                    if f.fails { "FLAG" } else { "note" },
                    f.kind,
                    f.detail
                ));
            }
        }
        s
    }
}
