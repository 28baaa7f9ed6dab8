//! `zo forget ID --reason …`: erase an entry that should never have been written (a secret,
//! personal data). The entry's text is replaced in place by a tombstone (ID, date and reason
//! kept, and the links other entries' status depends on); its index rows and vectors are
//! purged in the same operation and the database is rewritten so no free page keeps the text.
//! `zo verify` accepts exactly that change, and the merge driver keeps the tombstone over the
//! other side's text. Git history still holds the text: the report says so and how to purge it.

use crate::format::decision::{self, DecisionLog};
use crate::format::fact::{self, FactsFile};
use crate::format::fields::normalize_value;
use crate::format::prior::PriorsFile;
use crate::format::{Span, Text, content_of};
use crate::store::facts::Scope;
use crate::store::fsio;
use crate::store::memory::{Memory, find_error};
use anyhow::{Result, anyhow, bail};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, serde::Serialize)]
pub struct Forgotten {
    /// What was erased, where, when and why.
    #[serde(flatten)]
    pub erasure: Erasure,
    /// Whether the index was purged (false when this memory has no index yet).
    pub index_purged: bool,
    /// The STATE.md fields cleared because they held the forgotten session's text.
    pub state_cleared: Vec<String>,
    /// Session and snapshot files whose lists named the entry with its title: the title is
    /// `[forgotten]` there now.
    pub listings_cleared: Vec<String>,
    /// Whether the erased text is in the last commit: then git history holds it.
    pub in_history: bool,
    /// The `git filter-repo --replace-text` file listing the erased lines (mode 0600), when
    /// the text is in history and `--replace-text FILE` asked for it.
    pub replacements: Option<String>,
    /// The commands that purge it from history, in order.
    pub purge: Vec<String>,
}

/// The last step of the purge plan a person runs after rewriting history: what the directive
/// rules flag in memory text, and `zo forget`'s own words here (its report names it, so the
/// output gate reads it as zo's: `store::shown::Vouch::Own`).
pub const PUSH_ALL: &str = "git push --force --all && git push --force --tags";

/// An erasure found in the memory files (`zo verify --history` lists them).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Erasure {
    pub id: String,
    /// decision | prior | fact | session
    pub kind: &'static str,
    pub file: String,
    pub line: usize,
    pub forgotten: String,
    pub reason: String,
}

/// The entry to erase: where its text is and what replaces it.
struct Target {
    kind: &'static str,
    path: PathBuf,
    text: Text,
    span: Span,
    id: String,
    tombstone: String,
}

impl Memory {
    pub fn forget(&self, id: &str, reason: &str) -> Result<Forgotten> {
        self.forget_to(id, reason, None)
    }

    /// Forget, and when the text is in history write `git filter-repo`'s replacements file at
    /// `replace_text` (asked for by name: it is a copy of the erased text, so zo never leaves
    /// one anywhere by itself). The path is checked before anything is erased.
    pub fn forget_to(
        &self,
        id: &str,
        reason: &str,
        replace_text: Option<&Path>,
    ) -> Result<Forgotten> {
        let (reason, scope) = self.forget_checks(id, reason, replace_text)?;
        let when = crate::time::now();
        let _lock = if scope == Scope::User {
            self.fact_lock(Scope::User)?
        } else {
            self.lock()?
        };
        let t = self.target(id, &when, &reason, scope)?;
        let raw = &t.text.as_str()[t.span.start..t.span.end];
        let erased = content_of(raw);
        let whole = t.text.as_str();
        let edited = format!(
            "{}{}{}",
            &whole[..t.span.start],
            t.tombstone,
            &whole[t.span.end..]
        );
        let out = t.text.with_text(edited).with_appended("");
        // A session's end copied its Next, Blockers and last Shipped item into STATE.md: those
        // copies go too (only fields still equal to what it wrote), first, so a failure leaves
        // the session whole and the forget can be run again.
        let state_cleared = if t.kind == "session" {
            self.scrub_state_of(whole)?
        } else {
            Vec::new()
        };
        // Sessions and snapshots list the decisions and priors they covered with their titles:
        // a copy of the erased text, gone too (SPEC: zo keeps no copy anywhere).
        let listed = if matches!(t.kind, "decision" | "prior") {
            self.scrub_listings(&t.id)?
        } else {
            Vec::new()
        };
        fsio::write_atomic(&t.path, out.as_bytes())?;
        drop(_lock);

        // User facts are indexed in every repository's index; this one is purged now, the
        // others the next time they refresh (their rows go; their databases are not vacuumed).
        // A link or special file at `index.db` is not ours: nothing of ours to purge there.
        let index_purged = if crate::search::index::Index::exists(&self.layout) {
            let (mut ix, _) = crate::search::index::Index::open(&self.layout, &|_| {})?;
            ix.purge(self)?;
            true
        } else {
            false
        };
        let rel = self.layout.rel(&t.path);
        let repo = (scope == Scope::Project)
            .then(|| crate::git::Repo::discover(&self.layout.root))
            .flatten();
        let at_head = |rel: &str, text: &str| {
            repo.as_ref()
                .and_then(|r| r.file_at_head(Path::new(rel)).ok().flatten())
                .is_some_and(|bytes| {
                    String::from_utf8_lossy(&bytes)
                        .replace("\r\n", "\n")
                        .contains(text)
                })
        };
        let in_history =
            at_head(&rel, erased.trim()) || listed.iter().any(|(rel, title)| at_head(rel, title));
        let (replacements, purge) = if in_history {
            purge_plan(&t.id, &erased, &rel, replace_text)?
        } else {
            (None, vec![])
        };
        Ok(Forgotten {
            erasure: Erasure {
                id: t.id,
                kind: t.kind,
                file: self.layout.show(&t.path),
                line: t.span.line,
                forgotten: when,
                reason,
            },
            index_purged,
            state_cleared,
            listings_cleared: listed.into_iter().map(|(rel, _)| rel).collect(),
            in_history,
            replacements,
            purge,
        })
    }

    /// What `forget_to` checks before it takes the lock: the replacements file, the reason (one
    /// line, through the gate) and which scope a fact version is in.
    fn forget_checks(
        &self,
        id: &str,
        reason: &str,
        replace_text: Option<&Path>,
    ) -> Result<(String, Scope)> {
        if let Some(p) = replace_text {
            self.check_replace_text(p)?;
        }
        let reason = normalize_value(reason);
        crate::store::gate::require("the reason (--reason)", &reason)?;
        // A tombstone must never keep what it replaces: no --allow-secret here.
        crate::store::gate::check_fields(&[("Reason", &reason)], false)?;
        if reason.contains('\n') {
            bail!("refused: the reason must be one line");
        }
        let scope = if id.trim().to_ascii_uppercase().starts_with("F-")
            && self.facts(Scope::Project)?.find(id).is_none()
        {
            Scope::User
        } else {
            Scope::Project
        };
        Ok((reason, scope))
    }

    /// What `forget_to` would erase, found and checked as it does, nothing written: the entry's
    /// ID and kind, for the person who confirms it at a terminal (`cmd/forget.rs`).
    pub fn forget_preview(
        &self,
        id: &str,
        reason: &str,
        replace_text: Option<&Path>,
    ) -> Result<(String, &'static str)> {
        let (reason, scope) = self.forget_checks(id, reason, replace_text)?;
        let t = self.target(id, &crate::time::now(), &reason, scope)?;
        Ok((t.id, t.kind))
    }

    /// Replace the title of `id` in every session's and snapshot's list (`- ID — title …`) by
    /// `[forgotten]` (the caller holds the lock). Returns each file changed (relative to the
    /// root) with the title it held.
    fn scrub_listings(&self, id: &str) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        let files = self
            .session_names()?
            .into_iter()
            .map(|n| self.layout.sessions().join(n));
        let files = files.chain(
            self.snapshot_names()?
                .into_iter()
                .map(|n| self.layout.snapshots().join(n)),
        );
        for path in files.collect::<Vec<_>>() {
            let Some(text) = fsio::read_text(&path)? else {
                continue;
            };
            let mut title = None;
            let scrubbed: String = text
                .as_str()
                .split_inclusive('\n')
                .map(|line| match crate::format::session::parse_listed(line) {
                    Some((listed, t, _))
                        if listed.eq_ignore_ascii_case(id)
                            && !t.is_empty()
                            && t != fact::FORGOTTEN =>
                    {
                        // The title ends where a snapshot's "(superseded by …)" or a session's
                        // marker begins: only the title is replaced.
                        let at = line.find(t).unwrap_or(0);
                        title.get_or_insert_with(|| t.to_string());
                        format!(
                            "{}{}{}",
                            &line[..at],
                            fact::FORGOTTEN,
                            &line[at + t.len()..]
                        )
                    }
                    _ => line.to_string(),
                })
                .collect();
            if let Some(t) = title {
                fsio::write_atomic(&path, text.with_text(scrubbed).with_appended("").as_bytes())?;
                out.push((self.layout.rel(&path), t));
            }
        }
        Ok(out)
    }

    /// Clear STATE.md's fields that hold what this session text wrote there (the caller holds
    /// the lock; the write is atomic like every other STATE.md write).
    fn scrub_state_of(&self, session: &str) -> Result<Vec<String>> {
        let values = crate::format::state::session_values(session);
        let path = self.layout.state();
        let Some(text) = fsio::read_text(&path)? else {
            return Ok(Vec::new());
        };
        let mut state = crate::format::state::State::parse(text);
        let cleared = crate::format::state::clear_session_values(&mut state, &values);
        if !cleared.is_empty() {
            fsio::write_atomic(&path, state.render().as_bytes())?;
        }
        Ok(cleared)
    }

    /// A replacements file may not exist yet (never overwrite a file of the user's) and may not
    /// be under `.zo/` (it would be committed with the memory).
    fn check_replace_text(&self, p: &Path) -> Result<()> {
        use crate::error::Error;
        if p.symlink_metadata().is_ok() {
            return Err(Error::usage(format!(
                "--replace-text {}: the file exists; name a new file",
                p.display()
            ))
            .into());
        }
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::env::current_dir()?,
        };
        let parent = parent.canonicalize().map_err(|e| {
            Error::usage(format!(
                "--replace-text {}: {}: {e}",
                p.display(),
                parent.display()
            ))
        })?;
        let zo = self
            .layout
            .zo_dir
            .canonicalize()
            .unwrap_or_else(|_| self.layout.zo_dir.clone());
        if parent.starts_with(&zo) {
            return Err(Error::usage(format!("--replace-text {}: not inside .zo/ (it holds the erased text and would be committed)", p.display())).into());
        }
        Ok(())
    }

    fn target(&self, id: &str, when: &str, reason: &str, scope: Scope) -> Result<Target> {
        let q = id.trim();
        let upper = q.to_ascii_uppercase();
        let already = |id: &str| anyhow!("{id} is already forgotten");
        if upper.starts_with("F-") {
            let path = self.facts_path(scope)?;
            let file = FactsFile::parse(fsio::read_text(&path)?.unwrap_or_default());
            let i = file.find(q).ok_or_else(|| {
                anyhow!(
                    "no fact version {q} in {} or the user's facts",
                    self.layout.show(&self.layout.facts())
                )
            })?;
            let f = &file.entries[i];
            if f.is_forgotten() {
                return Err(already(&f.id));
            }
            let tombstone = fact::tombstone(f, when, reason);
            return Ok(Target {
                kind: "fact",
                id: f.id.clone(),
                span: f.span,
                tombstone,
                path,
                text: file.text.clone(),
            });
        }
        if q.starts_with("session") || q.ends_with(".md") {
            let names = self.session_names()?;
            let name = names
                .iter()
                .find(|n| *n == q || n.trim_end_matches(".md") == q)
                .ok_or_else(|| {
                    anyhow!(
                        "no session {q} in {} (`zo session list` shows them)",
                        self.layout.show(&self.layout.sessions())
                    )
                })?;
            let path = self.layout.sessions().join(name);
            let text = fsio::read_text(&path)?.unwrap_or_default();
            if crate::format::session::is_forgotten(text.as_str()) {
                return Err(already(name));
            }
            let span = Span {
                start: 0,
                end: text.as_str().len(),
                line: 1,
            };
            let tombstone = crate::format::session::tombstone(when, reason);
            return Ok(Target {
                kind: "session",
                id: name.trim_end_matches(".md").to_string(),
                span,
                tombstone,
                path,
                text,
            });
        }
        if upper.starts_with("PR-") {
            let path = self.layout.priors();
            let file = PriorsFile::parse(fsio::read_text(&path)?.unwrap_or_default());
            let i = file
                .find(q)
                .ok_or_else(|| anyhow!("no prior {q} in {}", self.layout.show(&path)))?;
            let p = &file.entries[i];
            if p.is_forgotten() {
                return Err(already(&p.id));
            }
            let tombstone = p.tombstone(when, reason);
            return Ok(Target {
                kind: "prior",
                id: p.id.clone(),
                span: p.span,
                tombstone,
                path,
                text: file.text.clone(),
            });
        }
        let path = self.layout.decision_log();
        let log = DecisionLog::parse(fsio::read_text(&path)?.unwrap_or_default());
        let i = log
            .find(q)
            .map_err(|e| find_error(e, q, &self.layout.show(&path)))?;
        let e = &log.entries[i];
        if e.is_forgotten() {
            return Err(already(&e.id));
        }
        let tombstone = decision::tombstone(&log, i, when, reason);
        Ok(Target {
            kind: "decision",
            id: e.id.clone(),
            span: e.span,
            tombstone,
            path,
            text: log.text.clone(),
        })
    }

    /// Every tombstone in the memory files.
    pub fn erasures(&self) -> Result<Vec<Erasure>> {
        let mut out = Vec::new();
        let mut push = |id: &str, kind, path: &Path, line, body: &crate::format::fields::Body| {
            out.push(Erasure {
                id: id.to_string(),
                kind,
                file: self.layout.show(path),
                line,
                forgotten: body.get("Forgotten").unwrap_or("").trim().to_string(),
                reason: body.get("Reason").unwrap_or("").trim().to_string(),
            })
        };
        let log = self.decisions()?;
        for (i, e) in log
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_forgotten())
        {
            push(
                &e.id,
                "decision",
                &self.layout.decision_log(),
                e.span.line,
                log.body(i),
            );
        }
        for p in self.priors()?.entries.iter().filter(|p| p.is_forgotten()) {
            push(&p.id, "prior", &self.layout.priors(), p.span.line, &p.body);
        }
        for f in self
            .facts(Scope::Project)?
            .entries
            .iter()
            .filter(|f| f.is_forgotten())
        {
            push(&f.id, "fact", &self.layout.facts(), f.span.line, &f.body);
        }
        for name in self.session_names()? {
            let text = self.session_text(&name)?;
            if crate::format::session::is_forgotten(text.as_str()) {
                let body = crate::format::fields::parse_body(
                    text.as_str().split_inclusive('\n').skip(1),
                    2,
                    false,
                );
                push(
                    name.trim_end_matches(".md"),
                    "session",
                    &self.layout.sessions().join(&name),
                    1,
                    &body,
                );
            }
        }
        Ok(out)
    }
}

/// The lines for `git filter-repo --replace-text` (each erased line of eight characters or
/// more, replaced by `[forgotten <ID>]`), written to `to` only when asked (0600, a new file),
/// and the commands to run. `rel` is the memory file, whose text at HEAD still holds the entry.
fn purge_plan(
    id: &str,
    erased: &str,
    rel: &str,
    to: Option<&Path>,
) -> Result<(Option<String>, Vec<String>)> {
    let mut lines: Vec<String> = Vec::new();
    // Fields whose values are structure (IDs, types, times, commits), not what was erased:
    // replacing `DECISION` or `pending` throughout history would damage every other entry.
    const STRUCTURE: [&str; 11] = [
        "ID",
        "Type",
        "Timestamp",
        "Date",
        "Set",
        "Supersedes",
        "Refs",
        "Confidence",
        "Commit",
        "Session",
        "Superseded by",
    ];
    for l in erased.lines().skip(1) {
        // Field lines: the value only (the field names are in every entry).
        let field = crate::format::fields::parse_field_line(l);
        if field.is_some_and(|(n, v)| {
            STRUCTURE.iter().any(|s| s.eq_ignore_ascii_case(n)) || v.trim() == "pending"
        }) {
            continue;
        }
        let value = field.map_or(l, |(_, v)| v).trim();
        if value.chars().count() >= 8
            && !value.contains("==>")
            && !lines.iter().any(|x| x == value)
            && !value.starts_with(id)
        {
            lines.push(value.to_string());
        }
    }
    if lines.is_empty() {
        return Ok((None, vec![]));
    }
    let after = [
        PUSH_ALL.to_string(),
        "# every other clone: clone again (or fetch and reset hard); rotate any secret that leaked"
            .to_string(),
    ];
    let Some(path) = to else {
        // No copy of the erased text is written unless asked: say how to get one.
        let mut plan = vec![format!(
            "git filter-repo --replace-text FILE    # rewrites every commit (pip install git-filter-repo); FILE holds one line `literal:<erased text>==>[forgotten {id}]` per erased line (the entry is still in `git show HEAD:{rel}`: copy its lines from there); zo writes FILE itself when `--replace-text FILE` is given with the forget, before the entry is erased"
        )];
        plan.extend(after);
        return Ok((None, plan));
    };
    let body: String = lines
        .iter()
        .map(|l| format!("literal:{l}==>[forgotten {id}]\n"))
        .collect();
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path).map_err(|e| {
        anyhow!(
            "could not write the replacements file {}: {e}",
            path.display()
        )
    })?;
    std::io::Write::write_all(&mut f, body.as_bytes()).map_err(|e| {
        anyhow!(
            "could not write the replacements file {}: {e}",
            path.display()
        )
    })?;
    let p = path.display().to_string();
    let mut plan = vec![format!(
        "git filter-repo --replace-text {p}    # rewrites every commit (pip install git-filter-repo); review the file first"
    )];
    plan.extend(after);
    plan.push(format!("rm {p}"));
    Ok((Some(p), plan))
}
