//! `zo verify`: integrity of the memory files, against the bases that matter (HEAD; during a
//! merge also MERGE_HEAD; after one each of HEAD's parents; with `history`, every commit's
//! parents). The checks themselves are in `crate::store::verify`.

use crate::format::Text;
use crate::format::decision::DecisionLog;
use crate::format::fact::FactsFile;
use crate::format::prior::PriorsFile;
use crate::store::fsio;
use crate::store::memory::Memory;
use crate::store::verify::{self, Problem};
use anyhow::Result;
use std::path::Path;

/// An unreadable version as a problem: at the bad byte's line when it is invalid UTF-8.
fn problem(label: &str, what: &str, e: &anyhow::Error) -> Problem {
    let (line, message) = match e.downcast_ref::<fsio::BadUtf8>() {
        Some(b) => (b.line, b.what()),
        None => (1, format!("{e:#}")),
    };
    let message = if what.is_empty() {
        message
    } else {
        format!("{what}: {message}")
    };
    Problem {
        file: label.to_string(),
        line,
        message,
    }
}

/// Read a file for checking: unreadable text is itself a problem, not a crash.
fn load(path: &Path, label: &str, problems: &mut Vec<Problem>) -> Option<Text> {
    fsio::read_text(path)
        .map_err(|e| problems.push(problem(label, "", &e)))
        .ok()
        .map(Option::unwrap_or_default)
}

fn at_head(
    repo: &crate::git::Repo,
    rel: &str,
    label: &str,
    problems: &mut Vec<Problem>,
) -> Option<Text> {
    match repo.file_at_head(Path::new(rel)) {
        Ok(bytes) => text_of(bytes, label, "HEAD's version", problems),
        Err(e) => {
            problems.push(problem(label, "", &e));
            None
        }
    }
}

fn at_commit(
    repo: &crate::git::Repo,
    commit: gix::ObjectId,
    rel: &str,
    label: &str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<Text> {
    match repo.file_at(commit, Path::new(rel)) {
        Ok(bytes) => text_of(bytes, label, what, problems),
        Err(e) => {
            problems.push(problem(label, "", &e));
            None
        }
    }
}

/// Each entry of a memory file kind as (first line, byte range); a file without entries
/// (STATE.md, a session, a snapshot) is one entry. What an allowance or consent covers.
fn entry_spans(kind: &str, text: &Text) -> Vec<(usize, std::ops::Range<usize>)> {
    match kind {
        "decisions" => DecisionLog::parse(text.clone())
            .entries
            .iter()
            .map(|e| (e.span.line, e.span.start..e.span.end))
            .collect(),
        "priors" => PriorsFile::parse(text.clone())
            .entries
            .iter()
            .map(|e| (e.span.line, e.span.start..e.span.end))
            .collect(),
        "facts" => FactsFile::parse(text.clone())
            .entries
            .iter()
            .map(|e| (e.span.line, e.span.start..e.span.end))
            .collect(),
        _ => vec![(1, 0..text.as_str().len())],
    }
}

/// Lines that look like secrets, as problems with the way out. A secret written with
/// --allow-secret is accepted in its own entry (which records its hash) and nowhere else; a
/// file without entries (STATE.md, a session, a snapshot) is one entry.
fn secrets(label: &str, kind: &str, text: &Text, problems: &mut Vec<Problem>) {
    let found = crate::store::gate::find_secrets(text.as_str());
    if found.is_empty() {
        return;
    }
    let spans: Vec<std::ops::Range<usize>> = entry_spans(kind, text)
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    for f in crate::store::gate::unallowed(text.as_str(), found, &spans) {
        problems.push(Problem {
            file: label.to_string(),
            line: f.line,
            message: format!(
                "this line looks like it holds {} (rule {}): rotate the secret, remove the line by hand (git commit's no-verify option lets that one edit past the hook), and purge it from git history (e.g. git filter-repo --replace-text)",
                f.what, f.rule
            ),
        });
    }
}

/// Characters memory may not hold (`gate::chars`), one problem per line that holds one: text
/// written by hand never went through the write gate. A BOM at the very start of a file is an
/// editor's and passes (every reader drops it).
fn characters(label: &str, text: &Text, problems: &mut Vec<Problem>) {
    let t = text.as_str();
    let t = t.strip_prefix('\u{feff}').unwrap_or(t);
    if crate::store::gate::first_control(t).is_none() {
        return;
    }
    for (n, line) in t.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some((_, c)) = crate::store::gate::first_control(line) {
            let what = if crate::store::gate::chars::is_control(c) {
                "a control character"
            } else {
                "an invisible or deceptive character"
            };
            problems.push(Problem {
                file: label.to_string(),
                line: n + 1,
                message: format!(
                    "holds {what} ({}): a person cannot see it and an agent reads it; remove it by hand (SPEC §3, Characters)",
                    crate::store::gate::chars::describe(c)
                ),
            });
        }
    }
}

/// Dangerous directives (`gate::directives`) in text written by hand, one problem per rule and
/// entry, at the line it starts; an entry's `**Allowed directive:**` lines (the writer's
/// consent, recorded by `--allow-directive`) or this user's approval cover it. A file without
/// entries is one entry (STATE.md's consent is its `allowed_directives` list).
fn directives(label: &str, kind: &str, text: &Text, problems: &mut Vec<Problem>) {
    use crate::store::gate::directives as d;
    // The whole file first (one pass; most files hold nothing): a fact's or prior's fields are
    // also read as they are shown, side by side, which the file's text does not hold.
    if kind == "decisions" && d::scan(text.as_str()).is_empty() {
        return;
    }
    let spans = entry_spans(kind, text);
    // Text before the first entry (a file's preamble) is nobody's entry, but people and
    // agents read the file: nothing can approve it, so any finding there is a problem.
    let preamble = spans.first().map_or(text.as_str().len(), |(_, s)| s.start);
    let mut found = vec![(1, d::scan(&text.as_str()[..preamble]))];
    for (line, span) in spans {
        let entry = &text.as_str()[span];
        let flags = d::unallowed(entry);
        if !flags.is_empty()
            && !crate::store::approvals::is_approved(&crate::format::content_of(entry))
        {
            found.push((line, flags));
        }
    }
    for (line, flags) in found {
        for f in flags {
            problems.push(Problem {
                file: label.to_string(),
                line: line + f.line - 1,
                message: format!(
                    "reads as an instruction to an agent — {} (rule {}): remove it; if it is meant, the writer records consent with a line `{} {}` in the entry (each teammate's bundle still withholds it until they approve it: `zo approve ID`)",
                    f.what,
                    f.rule,
                    d::ALLOWED_FIELD,
                    f.rule
                ),
            });
        }
    }
}

/// Text of a memory file that reads like part of an entry but that zo reads as none: field
/// lines outside every entry (a heading lost, cut off or mistyped: `head -c` left a log whose
/// first entry had no heading, and verify said ok), and a `## ` heading inside an entry that
/// is no heading zo reads (`## Decison:`: its fields are taken for the entry above's). Nothing
/// such text says reaches anyone, so it is reported where it is.
pub(crate) fn unread(label: &str, kind: &str, text: &Text, problems: &mut Vec<Problem>) {
    if !matches!(kind, "decisions" | "priors" | "facts") {
        return;
    }
    let t = text.as_str();
    let spans = entry_spans(kind, text);
    let line_at = |at: usize| t[..at].matches('\n').count() + 1;
    let mut gaps = Vec::new();
    let mut at = 0;
    for (_, s) in &spans {
        if s.start > at {
            gaps.push(at..s.start);
        }
        at = at.max(s.end);
    }
    if at < t.len() {
        gaps.push(at..t.len());
    }
    for g in gaps {
        let first = line_at(g.start);
        let mut fence = crate::format::fields::Fence::default();
        let found = t[g]
            .lines()
            .enumerate()
            .find(|(_, l)| !fence.feed(l) && crate::format::fields::parse_field_line(l).is_some());
        if let Some((n, _)) = found {
            problems.push(Problem {
                file: label.to_string(),
                line: first + n,
                message: "field lines outside any entry: its heading is missing, cut off or mistyped, so zo reads none of it (give it back its heading, e.g. `## Decision: <time>`)".into(),
            });
        }
    }
    for (line, s) in spans {
        let mut fence = crate::format::fields::Fence::default();
        for (n, l) in t[s].lines().enumerate().skip(1) {
            if !fence.feed(l) && l.starts_with("## ") {
                problems.push(Problem {
                    file: label.to_string(),
                    line: line + n,
                    message: "a heading zo does not read, inside the entry above (a mistyped entry heading? its fields are taken for the entry above's): correct it".into(),
                });
            }
        }
    }
}

/// What text written by hand is checked for, that zo's writers refuse: characters, secrets,
/// dangerous directives, times in the future.
fn hand_written(label: &str, kind: &str, text: &Text, problems: &mut Vec<Problem>) {
    unread(label, kind, text, problems);
    characters(label, text, problems);
    secrets(label, kind, text, problems);
    directives(label, kind, text, problems);
    future_dated(label, kind, text, problems);
}

/// Entries, and session and snapshot files, dated beyond now (`time::is_future`): no writer
/// dates anything ahead of its clock, and such a date would otherwise be taken for the latest
/// (a session's Next served at every start, a fact version holding forever).
fn future_dated(label: &str, kind: &str, text: &Text, problems: &mut Vec<Problem>) {
    let mut found: Vec<(usize, String)> = Vec::new();
    match kind {
        "decisions" => {
            let log = DecisionLog::parse(text.clone());
            found.extend(
                log.entries
                    .iter()
                    .filter(|e| crate::time::is_future(&e.timestamp))
                    .map(|e| (e.span.line, e.timestamp.clone())),
            );
        }
        "facts" => {
            let f = FactsFile::parse(text.clone());
            found.extend(
                f.entries
                    .iter()
                    .filter(|e| crate::time::is_future(e.set()))
                    .map(|e| (e.span.line, e.set().to_string())),
            );
        }
        "other" => {
            let name = label.rsplit('/').next().unwrap_or(label);
            if let Some(t) =
                crate::format::session::name_time(name).filter(|t| crate::time::is_future(t))
            {
                found.push((1, t));
            }
        }
        _ => {}
    }
    for (line, at) in found {
        problems.push(Problem {
            file: label.to_string(),
            line,
            message: format!(
                "dated {at}, beyond now: zo dates what it writes by the clock, so this was written by hand or on a machine whose clock is wrong, and zo never takes it for the latest; correct the date"
            ),
        });
    }
}

/// Structure and append-only checks of one version against a base version.
fn check(
    label: &str,
    kind: &str,
    current: Option<&Text>,
    base: Option<&Text>,
    base_name: &str,
    problems: &mut Vec<Problem>,
) -> usize {
    let Some(cur) = current else { return 0 };
    let markers = verify::conflict_markers(label, cur.as_str());
    if !markers.is_empty() {
        // Entries between markers would only be reported again as edited or broken.
        problems.extend(markers);
        return 0;
    }
    if kind == "facts" {
        let f = FactsFile::parse(cur.clone());
        problems.extend(verify::facts(label, &f));
        if let Some(b) = base {
            problems.extend(verify::facts_append_only(
                label,
                base_name,
                &FactsFile::parse(b.clone()),
                &f,
            ));
        }
        return f.entries.len();
    }
    if kind == "decisions" {
        let log = DecisionLog::parse(cur.clone());
        problems.extend(verify::decisions(label, &log));
        if let Some(b) = base {
            problems.extend(verify::decisions_append_only(
                label,
                base_name,
                &DecisionLog::parse(b.clone()),
                &log,
            ));
        }
        log.decision_count()
    } else {
        let pf = PriorsFile::parse(cur.clone());
        problems.extend(verify::priors(label, &pf));
        if let Some(b) = base {
            problems.extend(verify::priors_append_only(
                label,
                base_name,
                &PriorsFile::parse(b.clone()),
                &pf,
            ));
        }
        pf.entries.len()
    }
}

fn text_of(
    bytes: Option<Vec<u8>>,
    label: &str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<Text> {
    fsio::decode(Path::new(label), bytes?)
        .map(Text::new)
        .map_err(|e| problems.push(problem(label, what, &e)))
        .ok()
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub decisions: usize,
    pub priors: usize,
    /// `HEAD`, `HEAD and MERGE_HEAD`, `parents` (history) or null (no git).
    pub against: Option<&'static str>,
    pub commits_checked: usize,
    pub facts: usize,
    pub problems: Vec<Problem>,
    /// The same fact key set on two clones, merged: the later version holds. Not a problem;
    /// named so someone can decide (setting the key again settles it).
    pub forks: Vec<crate::store::facts::Fork>,
    /// Entries `zo forget` replaced by tombstones (listed by `--history`).
    pub erasures: Vec<crate::lifecycle::forget::Erasure>,
    /// Active decisions on one subject with different choices (a merge of two clones that each
    /// decided). Not a problem: named so someone settles it (supersede one).
    pub contradictions: Vec<crate::lifecycle::contradictions::Contradiction>,
}

/// One memory file as `verify` checks it.
struct File<'a> {
    kind: &'a str,
    path: &'a Path,
    rel: String,
    label: String,
    /// Its name in the memory directory (`DECISION_LOG.md`).
    name: String,
}

impl File<'_> {
    /// Where this file is at a commit: in the memory directory that commit keeps
    /// (`layout::memory_dir_at`: its own config's `memory_root`, or the older layout). A base
    /// is read where it keeps its memory, so memory moved since is compared across the move
    /// (SPEC §3a: what memory is, is part of what is checked), never taken for a memory with no
    /// past.
    fn rel_at(&self, repo: &crate::git::Repo, commit: gix::ObjectId) -> String {
        match crate::store::layout::memory_dir_at(repo, commit) {
            Ok(Some(dir)) => format!("{dir}/{}", self.name),
            _ => self.rel.clone(),
        }
    }
}

pub fn verify(memory: &Memory, staged: bool, history: bool) -> Result<VerifyReport> {
    let layout = &memory.layout;
    let files = [
        ("decisions", layout.decision_log()),
        ("priors", layout.priors()),
        ("facts", layout.facts()),
    ];
    let repo = crate::git::Repo::discover(&layout.root);
    let mut problems = Vec::new();
    let mut counts = [0usize; 3];
    let mut against = None;
    // Commits that changed any memory file, each counted once (a commit that changed the
    // decisions and the priors was counted twice).
    let mut commits = std::collections::HashSet::new();
    for (n, (kind, path)) in files.iter().enumerate() {
        let f = File {
            kind,
            path,
            rel: layout.rel(path),
            label: layout.show(path),
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        if history {
            let Some(repo) = &repo else {
                anyhow::bail!("--history needs a git repository")
            };
            counts[n] = check_history(repo, &f, &mut commits, &mut problems)?;
            against = Some("parents");
            continue;
        }
        if let Some(count) = check_now(
            &layout.root,
            repo.as_ref(),
            staged,
            &f,
            &mut against,
            &mut problems,
        )? {
            counts[n] = count;
        }
    }
    // Text written by hand never went through the write gate: every other memory file kind
    // too (STATE.md, sessions, snapshots), as staged for the pre-commit hook.
    if !history {
        other_files(memory, repo.as_ref(), staged, &mut problems)?;
    }
    if !history && !staged {
        problems.extend(strangers(layout));
    }
    if !history {
        problems.extend(derived_tracked(layout));
        problems.extend(unshown_names(layout));
    }
    let forks = crate::store::facts::forks(
        &memory
            .facts(crate::store::facts::Scope::Project)
            .unwrap_or_default(),
        memory.threshold()?,
    );
    let erasures = memory.erasures().unwrap_or_default();
    // A note for a person, not a check: not on the pre-commit hook's path (`--staged`).
    // A log that cannot be read is a problem reported above, not an error here.
    let contradictions = if history || staged {
        Vec::new()
    } else {
        memory
            .decisions()
            .map(|l| crate::lifecycle::contradictions::find(&l))
            .unwrap_or_default()
    };
    Ok(VerifyReport {
        ok: problems.is_empty(),
        decisions: counts[0],
        priors: counts[1],
        facts: counts[2],
        against,
        commits_checked: commits.len(),
        problems,
        forks,
        contradictions,
        erasures,
    })
}

/// `--history`: every commit that changed the file, checked against each of its parents (each
/// commit noted in `commits`). Returns how many entries the file holds now.
fn check_history(
    repo: &crate::git::Repo,
    f: &File,
    commits: &mut std::collections::HashSet<String>,
    problems: &mut Vec<Problem>,
) -> Result<usize> {
    // Checking a partial history would read its first commit as the start of the log
    // (or fail on a missing parent): say what is missing and how to get it.
    if let Some(note) = repo.shallow_note() {
        anyhow::bail!("{note}; verify --history needs the whole history: git fetch --unshallow");
    }
    let locate = |commit: gix::ObjectId| std::path::PathBuf::from(f.rel_at(repo, commit));
    for change in repo.history_moving(&locate)? {
        commits.insert(change.short.clone());
        let before = problems.len();
        let this = text_of(change.this, &f.label, "commit", problems);
        for parent in change.parents {
            let base = text_of(parent, &f.label, "parent", problems);
            check(
                &f.label,
                f.kind,
                this.as_ref(),
                base.as_ref(),
                "its parent",
                problems,
            );
        }
        for p in &mut problems[before..] {
            p.message = format!(
                "commit {} ({}): {}",
                change.short, change.subject, p.message
            );
        }
        problems.dedup_by(|x, y| x.message == y.message && x.line == y.line);
    }
    Ok(fsio::read_text(f.path)
        .ok()
        .flatten()
        .map_or(0, |t| match f.kind {
            "decisions" => DecisionLog::parse(t).decision_count(),
            "facts" => FactsFile::parse(t).entries.len(),
            _ => PriorsFile::parse(t).entries.len(),
        }))
}

/// The file as it is now (or as staged) against HEAD, and against the other side of a merge
/// in progress or just made. Returns how many entries it holds; None when a merge left it
/// unresolved (then nothing else is checked).
fn check_now(
    root: &Path,
    repo: Option<&crate::git::Repo>,
    staged: bool,
    f: &File,
    against: &mut Option<&'static str>,
    problems: &mut Vec<Problem>,
) -> Result<Option<usize>> {
    let current = if staged {
        let Some(repo) = repo else {
            anyhow::bail!("--staged needs a git repository")
        };
        text_of(
            repo.file_staged(Path::new(&f.rel))?,
            &f.label,
            "staged version",
            problems,
        )
    } else {
        load(f.path, &f.label, problems)
    };
    let base = match repo {
        Some(repo) => {
            let head = repo
                .head_full()
                .and_then(|h| gix::ObjectId::from_hex(h.as_bytes()).ok());
            let rel = head.map_or_else(|| f.rel.clone(), |h| f.rel_at(repo, h));
            at_head(repo, &rel, &f.label, problems)
        }
        None => None,
    };
    if base.is_some() {
        *against = Some("HEAD");
    }
    if !check_merges(root, repo, staged, f, current.as_ref(), against, problems) {
        return Ok(None);
    }
    let count = check(
        &f.label,
        f.kind,
        current.as_ref(),
        base.as_ref(),
        "HEAD",
        problems,
    );
    if let Some(cur) = &current {
        hand_written(&f.label, f.kind, cur, problems);
    }
    // Structure problems are found by both checks of a merge; report each once.
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert((p.file.clone(), p.line, p.message.clone())));
    Ok(Some(count))
}

/// A merge must keep every entry of both parents: during one, ours (HEAD) and theirs
/// (MERGE_HEAD); after one (HEAD is a merge commit), each of HEAD's parents, so a pull
/// that lost entries is caught by the next `zo verify`. Unresolved files are reported as
/// such, not checked half-done.
/// False when a merge in progress has left the file unresolved.
fn check_merges(
    root: &Path,
    repo: Option<&crate::git::Repo>,
    staged: bool,
    f: &File,
    current: Option<&Text>,
    against: &mut Option<&'static str>,
    problems: &mut Vec<Problem>,
) -> bool {
    let merging = repo.and_then(|r| r.merge_head().map(|m| (r, m)));
    if merging.is_none() && !staged {
        if let Some(repo) = repo {
            for (parent, short) in repo.head_merge_parents() {
                let version = at_commit(
                    repo,
                    parent,
                    &f.rel_at(repo, parent),
                    &f.label,
                    "a parent's version",
                    problems,
                );
                if version.is_some() {
                    check(
                        &f.label,
                        f.kind,
                        current,
                        version.as_ref(),
                        &format!("merge parent {short}"),
                        problems,
                    );
                }
            }
        }
    }
    if let Some((repo, theirs)) = merging {
        *against = Some("HEAD and MERGE_HEAD");
        if crate::git::run(root, &["ls-files", "-u", "--", &f.rel])
            .is_ok_and(|o| !o.trim().is_empty())
        {
            problems.push(Problem {
                file: f.label.clone(),
                line: 1,
                message: "a merge is in progress and this file is not resolved yet: keep every entry of both sides, \
                          `git add` it, then run `zo verify` again"
                    .into(),
            });
            return false;
        }
        let other = at_commit(
            repo,
            theirs,
            &f.rel_at(repo, theirs),
            &f.label,
            "MERGE_HEAD's version",
            problems,
        );
        if other.is_some() {
            check(
                &f.label,
                f.kind,
                current,
                other.as_ref(),
                "MERGE_HEAD (the branch being merged)",
                problems,
            );
        }
    }
    true
}

/// Text written by hand never went through the write gate: every other memory file kind
/// too (STATE.md, sessions, snapshots), as staged for the pre-commit hook.
fn other_files(
    memory: &Memory,
    repo: Option<&crate::git::Repo>,
    staged: bool,
    problems: &mut Vec<Problem>,
) -> Result<()> {
    let layout = &memory.layout;
    let mut others = vec![layout.state()];
    if staged {
        let Some(repo) = repo else {
            anyhow::bail!("--staged needs a git repository")
        };
        let dirs = [
            layout.rel(&layout.sessions()),
            layout.rel(&layout.snapshots()),
        ];
        let listed = crate::git::run(
            &layout.root,
            &["ls-files", "--cached", "--", &dirs[0], &dirs[1]],
        )
        .unwrap_or_default();
        others.extend(
            listed
                .lines()
                .filter(|l| l.ends_with(".md"))
                .map(|l| layout.root.join(l)),
        );
        for path in others {
            let label = layout.show(&path);
            if let Some(t) = text_of(
                repo.file_staged(Path::new(&layout.rel(&path)))?,
                &label,
                "staged version",
                problems,
            ) {
                hand_written(&label, "other", &t, problems);
            }
        }
    } else {
        others.extend(
            memory
                .session_names()?
                .iter()
                .map(|n| layout.sessions().join(n)),
        );
        others.extend(
            memory
                .snapshot_names()?
                .iter()
                .map(|n| layout.snapshots().join(n)),
        );
        for path in others {
            if let Ok(Some(t)) = fsio::read_text(&path) {
                hand_written(&layout.show(&path), "other", &t, problems);
            }
        }
    }
    Ok(())
}

/// Session and snapshot files whose names zo does not read (a newline, a tab or a character
/// the gate refuses: the name would be printed on lines of zo's own).
fn unshown_names(layout: &crate::store::layout::Layout) -> Vec<Problem> {
    [layout.sessions(), layout.snapshots()]
        .iter()
        .flat_map(|dir| fsio::list_files(dir, ".md").unwrap_or_default().into_iter().map(move |n| (dir.clone(), n)))
        .filter(|(_, n)| !crate::store::memory::is_shown_name(n))
        .map(|(dir, n)| Problem {
            file: format!("{}/{}", layout.show(&dir), crate::store::gate::frame::name(&n)),
            line: 1,
            message: "its name holds a newline, a tab or an invisible character, so zo does not read it: rename it".into(),
        })
        .collect()
}

/// Derived files git tracks (`store::trust`): zo never reads them, and committed they would
/// travel to every clone. Each is a problem with the command that untracks it.
pub fn derived_tracked(layout: &crate::store::layout::Layout) -> Vec<Problem> {
    crate::store::trust::tracked(layout)
        .into_iter()
        .map(|rel| Problem {
            file: rel.clone(),
            line: 1,
            message: format!(
                "is derived by zo on each machine and must not be committed; zo ignores the committed copy: git rm --cached -- {}",
                crate::store::gate::frame::name(&rel)
            ),
        })
        .collect()
}

/// Links and special files in the memory (`.zo/`, or the older `memory/`): zo never follows or
/// reads them (SPEC "Threat model"), so they are named as problems, with what each is.
pub fn strangers(layout: &crate::store::layout::Layout) -> Vec<Problem> {
    let dir = if layout.legacy {
        &layout.memory
    } else {
        &layout.zo_dir
    };
    fsio::strangers(dir)
        .into_iter()
        .map(|(path, kind)| Problem {
            file: layout.show(&path),
            line: 1,
            message: format!("is {kind}; zo never follows links or reads special files in a repository: replace it with a real file or remove it"),
        })
        .collect()
}
