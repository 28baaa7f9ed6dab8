//! Time travel: the memory as it stood at a past moment (`--as-of DATE|COMMIT`).
//!
//! A date (`YYYY-MM-DD`, the whole day, or an RFC 3339 time) keeps the entries whose own
//! timestamps are at or before it, and reads their relations from those entries alone: a
//! supersession, outcome or confirmation recorded later is not in the log then, so it does not
//! count. A commit (anything `git rev-parse` takes) reads the files as that commit holds them,
//! through gix, without touching the work tree.
//!
//! STATE.md and PRIORS.md carry no time of their own: at a date they are read at the last
//! commit at or before it (`untimed_commit`); sessions and snapshots by the times their names
//! carry, or at a commit as its tree holds them.
//!
//! Invariants: the present files are never written; an entry without a readable timestamp is
//! not "at or before" any date, so it is left out of a dated view rather than guessed into it;
//! an entry forgotten now reads as its tombstone at any moment, a commit's text included.

use crate::error::Error;
use crate::format::Text;
use crate::format::decision::DecisionLog;
use crate::format::fact::FactsFile;
use crate::git::CommitRef;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// A past moment to read the memory at.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AsOf {
    /// Everything written at or before this unix second (`given` as the user wrote it).
    Date {
        given: String,
        until: String,
        #[serde(skip)]
        secs: i64,
    },
    /// The files as this commit holds them.
    Commit { given: String, commit: CommitRef },
}

impl AsOf {
    /// A date, an RFC 3339 time, or a revision of the repository holding the memory; anything
    /// else is a usage error that says which forms are taken.
    pub fn parse(memory: &Memory, given: &str) -> Result<AsOf> {
        let given = given.trim();
        if let Some(secs) = crate::time::parse_instant(given, true) {
            // The day's first second, not its last: today is not in the future.
            let from = crate::time::parse_instant(given, false).unwrap_or(secs);
            let now = crate::time::parse_instant(&crate::time::now(), false).unwrap_or(i64::MAX);
            if from > now {
                return Err(
                    Error::usage(format!("--as-of {given:?} is in the future (now is {}): the memory holds nothing from then", crate::time::now())).into()
                );
            }
            return Ok(AsOf::Date {
                given: given.to_string(),
                until: crate::time::rfc3339(secs),
                secs,
            });
        }
        if given.is_empty() || given.starts_with('-') {
            return Err(Error::usage(format!(
                "--as-of takes a date (YYYY-MM-DD), an RFC 3339 time or a commit, not {given:?}"
            ))
            .into());
        }
        let Some(repo) = crate::git::Repo::discover(&memory.layout.root) else {
            return Err(Error::usage(format!("--as-of {given:?}: not a date, and there is no git repository to read a commit from")).into());
        };
        match repo.resolve_commit(given) {
            Some(commit) => Ok(AsOf::Commit { given: given.to_string(), commit }),
            None => Err(Error::usage(format!("--as-of {given:?}: not a date (YYYY-MM-DD), an RFC 3339 time or a commit of this repository")).into()),
        }
    }

    /// Whether an entry written at `timestamp` was there at this moment (always, for a commit:
    /// the commit's files say what was there).
    pub fn holds(&self, timestamp: &str) -> bool {
        match self {
            AsOf::Date { secs, .. } => {
                crate::time::parse_instant(timestamp, false).is_some_and(|t| t <= *secs)
            }
            AsOf::Commit { .. } => true,
        }
    }

    /// The moment as a unix second: the date's, or the commit's time.
    pub fn secs(&self) -> i64 {
        match self {
            AsOf::Date { secs, .. } => *secs,
            AsOf::Commit { commit, .. } => {
                crate::time::parse_instant(&commit.time, false).unwrap_or(i64::MAX)
            }
        }
    }

    /// For a commit whose tree holds no memory directory (made before `zo init`, or another
    /// project's): "commit 1a2b3c4 holds no zo memory (no .zo/memory in its tree)".
    pub fn no_memory_then(&self, memory: &Memory) -> Option<String> {
        let AsOf::Commit { commit, .. } = self else {
            return None;
        };
        let repo = crate::git::Repo::discover(&memory.layout.root)?;
        let dir = memory.layout.rel(&memory.layout.memory);
        let held = repo.names_at(commit, Path::new(&dir)).ok()?;
        held.is_empty().then(|| {
            format!(
                "commit {} holds no zo memory (no {dir} in its tree)",
                commit.short
            )
        })
    }

    /// How reports name the moment: the date as given, or the commit's short id.
    pub fn label(&self) -> String {
        match self {
            AsOf::Date { given, .. } => given.clone(),
            AsOf::Commit { commit, .. } => commit.short.clone(),
        }
    }
}

impl Memory {
    /// A memory file's text at a commit (empty when the commit does not hold it).
    fn text_at(&self, commit: &CommitRef, path: &Path) -> Result<Text> {
        let Some(repo) = crate::git::Repo::discover(&self.layout.root) else {
            return Ok(Text::default());
        };
        let rel = self.layout.rel(path);
        Ok(match repo.file_at_ref(commit, Path::new(&rel))? {
            Some(bytes) => Text::new(String::from_utf8_lossy(&bytes).into_owned()),
            None => Text::default(),
        })
    }

    /// The decision log as it stood then (None: now).
    pub fn decisions_as_of(&self, at: Option<&AsOf>) -> Result<DecisionLog> {
        match at {
            None => Ok(self.decisions_quick()?.0),
            Some(AsOf::Commit { commit, .. }) => {
                let then = DecisionLog::parse(self.text_at(commit, &self.layout.decision_log())?);
                let now = self.decisions()?;
                let gone = forgotten(
                    now.entries
                        .iter()
                        .filter(|e| e.is_forgotten() && !e.id_derived)
                        .map(|e| (e.id.as_str(), &now.text.as_str()[e.span.start..e.span.end])),
                );
                let text = scrubbed(
                    &then.text,
                    then.entries
                        .iter()
                        .map(|e| (e.span.start, e.span.end, e.id.as_str())),
                    &gone,
                );
                Ok(DecisionLog::parse(text).with_threshold(self.threshold()?))
            }
            Some(at @ AsOf::Date { .. }) => {
                let log = self.decisions()?;
                Ok(DecisionLog::parse(kept(
                    &log.text,
                    log.entries
                        .iter()
                        .map(|e| (e.span.start, e.span.end, at.holds(&e.timestamp))),
                ))
                .with_threshold(self.threshold()?))
            }
        }
    }

    /// The project's facts as they stood then (None: now). A dated view keeps the versions
    /// set at or before the date, so the latest of those is the one that held.
    pub fn facts_as_of(&self, at: Option<&AsOf>) -> Result<FactsFile> {
        let scope = crate::store::facts::Scope::Project;
        match at {
            None => self.facts(scope),
            Some(AsOf::Commit { commit, .. }) => {
                let then = FactsFile::parse(self.text_at(commit, &self.layout.facts())?);
                let now = self.facts(scope)?;
                let gone = forgotten(
                    now.entries
                        .iter()
                        .filter(|e| e.is_forgotten())
                        .map(|e| (e.id.as_str(), e.raw(&now))),
                );
                Ok(FactsFile::parse(scrubbed(
                    &then.text,
                    then.entries
                        .iter()
                        .map(|e| (e.span.start, e.span.end, e.id.as_str())),
                    &gone,
                )))
            }
            Some(at @ AsOf::Date { .. }) => {
                let f = self.facts(scope)?;
                Ok(FactsFile::parse(kept(
                    &f.text,
                    f.entries
                        .iter()
                        .map(|e| (e.span.start, e.span.end, at.holds(e.set()))),
                )))
            }
        }
    }
}

impl Memory {
    /// One scope's facts as they stood then (None: now; a missing user directory reads as no
    /// user facts). The user's file is in no repository, so at a commit it is read as of the
    /// commit's time.
    pub fn scope_facts_as_of(
        &self,
        scope: crate::store::facts::Scope,
        at: Option<&AsOf>,
    ) -> Result<FactsFile> {
        use crate::store::facts::Scope;
        match (scope, at) {
            (Scope::Project, _) => self.facts_as_of(at),
            (Scope::User, None) => Ok(self.user_facts()),
            (Scope::User, Some(at)) => {
                let f = self.user_facts();
                let until = at.secs();
                let holds =
                    |set: &str| crate::time::parse_instant(set, false).is_some_and(|t| t <= until);
                Ok(FactsFile::parse(kept(
                    &f.text,
                    f.entries
                        .iter()
                        .map(|e| (e.span.start, e.span.end, holds(e.set()))),
                )))
            }
        }
    }
}

impl Memory {
    /// The commit whose files stand for the files that carry no time of their own (STATE.md,
    /// PRIORS.md) at this moment: the commit itself, or for a date the last commit at or
    /// before it. None outside git or before the first commit: nothing can say what they held.
    pub fn untimed_commit(&self, at: &AsOf) -> Result<Option<CommitRef>> {
        match at {
            AsOf::Commit { commit, .. } => Ok(Some(commit.clone())),
            AsOf::Date { secs, .. } => match crate::git::Repo::discover(&self.layout.root) {
                Some(repo) => repo.last_commit_until(*secs),
                None => Ok(None),
            },
        }
    }

    /// PRIORS.md as it stood then: read at the commit `untimed_commit` names (priors carry no
    /// time of their own); None when there is none.
    pub fn priors_as_of(&self, at: &AsOf) -> Result<Option<crate::format::prior::PriorsFile>> {
        use crate::format::prior::PriorsFile;
        let Some(c) = self.untimed_commit(at)? else {
            return Ok(None);
        };
        let then = PriorsFile::parse(self.text_at(&c, &self.layout.priors())?);
        let now = self.priors()?;
        let gone = forgotten(
            now.entries
                .iter()
                .filter(|p| p.is_forgotten())
                .map(|p| (p.id.as_str(), p.raw(&now))),
        );
        Ok(Some(PriorsFile::parse(scrubbed(
            &then.text,
            then.entries
                .iter()
                .map(|p| (p.span.start, p.span.end, p.id.as_str())),
            &gone,
        ))))
    }

    /// STATE.md's text as it stood then, at the commit `untimed_commit` names (None: no such
    /// commit, or it held no STATE.md). What a session forgotten since copied into its fields
    /// is cleared as `zo forget` clears it now: looking back never undoes a forget.
    pub fn state_text_as_of(&self, at: &AsOf) -> Result<Option<String>> {
        let Some(c) = self.untimed_commit(at)? else {
            return Ok(None);
        };
        let text = self.text_at(&c, &self.layout.state())?;
        if text.as_str().is_empty() {
            return Ok(None);
        }
        let mut state = crate::format::state::State::parse(text);
        let sessions = self.layout.sessions();
        for name in self.session_names()? {
            let now = crate::store::fsio::read_text(&sessions.join(&name))
                .ok()
                .flatten();
            if !now.is_some_and(|t| crate::format::session::is_forgotten(t.as_str())) {
                continue;
            }
            // Its text then (the commit still holds it until history is purged).
            let then = self.text_at(&c, &sessions.join(&name))?;
            let values = crate::format::state::session_values(then.as_str());
            crate::format::state::clear_session_values(&mut state, &values);
        }
        Ok(Some(state.render()))
    }

    /// The session (or snapshot, `snapshots`) file names there were then, oldest first: at a
    /// commit, those its tree holds; at a date, those whose names say they ended (were taken)
    /// at or before it.
    pub fn names_as_of(&self, at: &AsOf, snapshots: bool) -> Result<Vec<String>> {
        let dir = if snapshots {
            self.layout.snapshots()
        } else {
            self.layout.sessions()
        };
        let mut names = match at {
            AsOf::Commit { commit, .. } => match crate::git::Repo::discover(&self.layout.root) {
                Some(repo) => repo
                    .names_at(commit, Path::new(&self.layout.rel(&dir)))?
                    .into_iter()
                    .filter(|n| n.ends_with(".md"))
                    .collect(),
                None => Vec::new(),
            },
            AsOf::Date { secs, .. } => {
                let all = if snapshots {
                    self.snapshot_names()?
                } else {
                    self.session_names()?
                };
                all.into_iter()
                    .filter(|n| name_time(n, snapshots).is_some_and(|t| t <= *secs))
                    .collect()
            }
        };
        names.sort_by_key(|n| crate::format::session::sort_key(n));
        Ok(names)
    }

    /// A session (or snapshot) file's text then: at a commit, as the commit holds it.
    pub fn dir_text_as_of(&self, at: &AsOf, name: &str, snapshots: bool) -> Result<String> {
        let dir = if snapshots {
            self.layout.snapshots()
        } else {
            self.layout.sessions()
        };
        let now = || {
            crate::store::fsio::read_text(&dir.join(name))
                .ok()
                .flatten()
                .map(|t| t.as_str().to_string())
        };
        match at {
            // A session forgotten since stays forgotten.
            AsOf::Commit { .. }
                if !snapshots
                    && now().is_some_and(|t| crate::format::session::is_forgotten(&t)) =>
            {
                Ok(now().unwrap_or_default())
            }
            AsOf::Commit { commit, .. } => {
                Ok(self.text_at(commit, &dir.join(name))?.as_str().to_string())
            }
            AsOf::Date { .. } => Ok(crate::store::fsio::read_text(&dir.join(name))
                .ok()
                .flatten()
                .map(|t| t.as_str().to_string())
                .unwrap_or_default()),
        }
    }
}

/// The time a session or snapshot file's name carries: a session's end
/// (`session-2026-03-01T10-00-00-123Z-ab12cd.md`; an older `session-NNN-DATE.md` counts from its
/// day's start), a snapshot's taking (`phase_2026-03-01T10-00-00.md`).
fn name_time(name: &str, snapshot: bool) -> Option<i64> {
    if snapshot {
        let stem = name.strip_suffix(".md")?;
        let t = stem.get(stem.len().checked_sub(19)?..)?;
        let (day, clock) = t.split_once('T')?;
        return crate::time::parse_instant(&format!("{day}T{}Z", clock.replace('-', ":")), false);
    }
    let n = crate::format::session::parse_file_name(name)?;
    let clock = n
        .time
        .as_deref()
        .and_then(|t| t.get(..8))
        .map(|t| t.replace('-', ":"));
    match clock {
        Some(c) => crate::time::parse_instant(&format!("{}T{c}Z", n.date), false),
        None => crate::time::parse_instant(&n.date, false),
    }
}

/// The entries forgotten now, by ID (any case): their tombstones' text.
fn forgotten<'a>(
    entries: impl Iterator<Item = (&'a str, &'a str)>,
) -> std::collections::HashMap<String, String> {
    entries
        .filter(|(id, _)| !id.is_empty())
        .map(|(id, raw)| (id.to_ascii_lowercase(), raw.to_string()))
        .collect()
}

/// A file read at a commit with every entry forgotten since replaced by its tombstone of now:
/// looking back never undoes a forget. Git history keeps the erased text until someone purges
/// it (`zo forget` prints how); zo does not show it again.
fn scrubbed<'a>(
    text: &Text,
    spans: impl Iterator<Item = (usize, usize, &'a str)>,
    gone: &std::collections::HashMap<String, String>,
) -> Text {
    if gone.is_empty() {
        return text.clone();
    }
    let s = text.as_str();
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (start, end, id) in spans {
        if let Some(tomb) = gone.get(&id.to_ascii_lowercase()) {
            out.push_str(&s[at..start]);
            out.push_str(tomb);
            at = end;
        }
    }
    out.push_str(&s[at..]);
    text.with_text(out)
}

/// The text with only the kept entries (and whatever precedes the first entry): the file as
/// it would read had nothing later been appended.
fn kept(text: &Text, spans: impl Iterator<Item = (usize, usize, bool)>) -> Text {
    let s = text.as_str();
    let mut out = String::with_capacity(s.len());
    let mut first = true;
    for (start, end, keep) in spans {
        if first {
            out.push_str(&s[..start]);
            first = false;
        }
        if keep {
            out.push_str(&s[start..end]);
        }
    }
    if first {
        out.push_str(s);
    }
    text.with_text(out)
}
