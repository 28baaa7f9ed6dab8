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
    /// `directive`, `consented-directive`, `characters`, `secret`, `forged-structure` or
    /// `history-edited`.
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

/// The flags of an entry's text as it ends the range.
fn flags_of(kind: Kind, change: &'static str, forgotten: bool, text: &str) -> Vec<Flag> {
    let mut out = Vec::new();
    if change == "removed" || (change == "changed" && kind != Kind::Whole && !forgotten) {
        out.push(Flag {
            kind: "history-edited",
            detail: format!("an entry was {change} by hand: memory is append-only (supersede it, or `zo forget` it)"),
            fails: true,
        });
    }
    if change == "removed" {
        return out;
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

pub fn review(memory: &Memory, range: &str) -> Result<Review> {
    let layout = &memory.layout;
    let repo = Repo::discover(&layout.root).context("zo review needs a git repository")?;
    let (base, to) = parse_range(&repo, range)?;
    // What the range did is measured from where it left its base (`git diff A...B`): a branch
    // behind main did not remove what main added since.
    let from = repo.merge_base(&base, &to).unwrap_or(base);
    let commits = repo.range(&from, &to)?;
    let mut files: Vec<(Kind, String)> = vec![
        (Kind::Decisions, layout.rel(&layout.decision_log())),
        (Kind::Priors, layout.rel(&layout.priors())),
        (Kind::Facts, layout.rel(&layout.facts())),
        (Kind::Whole, layout.rel(&layout.state())),
    ];
    for dir in [layout.sessions(), layout.snapshots()] {
        let rel = layout.rel(&dir);
        let mut names: Vec<String> = repo.names_at(&from, Path::new(&rel))?;
        names.extend(repo.names_at(&to, Path::new(&rel))?);
        names.sort();
        names.dedup();
        files.extend(
            names
                .into_iter()
                .map(|n| (Kind::Whole, format!("{rel}/{n}"))),
        );
    }
    let read = |c: &CommitRef, rel: &str| -> Result<Option<String>> {
        Ok(repo
            .file_at_ref(c, Path::new(rel))?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    let mut out = Vec::new();
    for (kind, rel) in files {
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        let (before, after) = (
            entries(kind, &name, read(&from, &rel)?),
            entries(kind, &name, read(&to, &rel)?),
        );
        if before == after {
            continue;
        }
        // Each commit's version, parsed once, for who brought what.
        let versions: Vec<(CommitRef, Entries)> = commits
            .iter()
            .map(|c| Ok((c.clone(), entries(kind, &name, read(c, &rel)?))))
            .collect::<Result<_>>()?;
        let ids: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
        for id in ids {
            let (change, title, text) = match (before.get(id), after.get(id)) {
                (None, Some((t, x))) => ("added", t, x),
                (Some(a), Some(b)) if a != b => ("changed", &b.0, &b.1),
                (Some((t, x)), None) => ("removed", t, x),
                _ => continue,
            };
            let end = after.get(id);
            let by = versions
                .iter()
                .find(|(_, v)| v.get(id) == end)
                .map(|(c, _)| c.clone());
            let forgotten = text.contains("**Forgotten:**");
            out.push(Reviewed {
                file: rel.clone(),
                id: id.clone(),
                title: title.clone(),
                change,
                by,
                flags: flags_of(kind, change, forgotten, text),
            });
        }
    }
    let ok = out.iter().all(|e| e.flags.iter().all(|f| !f.fails));
    Ok(Review {
        from,
        to,
        commits: commits.len(),
        entries: out,
        ok,
    })
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
