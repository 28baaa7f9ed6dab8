//! Time travel: the memory as it stood at a past moment (`--as-of DATE|COMMIT`).
//!
//! A date (`YYYY-MM-DD`, the whole day, or an RFC 3339 time) keeps the entries whose own
//! timestamps are at or before it, and reads their relations from those entries alone: a
//! supersession, outcome or confirmation recorded later is not in the log then, so it does not
//! count. A commit (anything `git rev-parse` takes) reads the files as that commit holds them,
//! through gix, without touching the work tree.
//!
//! Invariants: the present files are never written; an entry without a readable timestamp is
//! not "at or before" any date, so it is left out of a dated view rather than guessed into it.

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
    Date { given: String, until: String, #[serde(skip)] secs: i64 },
    /// The files as this commit holds them.
    Commit { given: String, commit: CommitRef },
}

impl AsOf {
    /// A date, an RFC 3339 time, or a revision of the repository holding the memory; anything
    /// else is a usage error that says which forms are taken.
    pub fn parse(memory: &Memory, given: &str) -> Result<AsOf> {
        let given = given.trim();
        if let Some(secs) = crate::time::parse_instant(given, true) {
            return Ok(AsOf::Date { given: given.to_string(), until: crate::time::rfc3339(secs), secs });
        }
        if given.is_empty() || given.starts_with('-') {
            return Err(Error::usage(format!("--as-of takes a date (YYYY-MM-DD), an RFC 3339 time or a commit, not {given:?}")).into());
        }
        let Some(repo) = crate::git::Repo::discover(&memory.layout.root) else {
            return Err(Error::usage(format!("--as-of {given:?}: not a date, and there is no git repository to read a commit from")).into());
        };
        match repo.resolve_commit(given) {
            Some(commit) => Ok(AsOf::Commit { given: given.to_string(), commit }),
            None => Err(Error::usage(format!(
                "--as-of {given:?}: not a date (YYYY-MM-DD), an RFC 3339 time or a commit of this repository"
            ))
            .into()),
        }
    }

    /// Whether an entry written at `timestamp` was there at this moment (always, for a commit:
    /// the commit's files say what was there).
    pub fn holds(&self, timestamp: &str) -> bool {
        match self {
            AsOf::Date { secs, .. } => crate::time::parse_instant(timestamp, false).is_some_and(|t| t <= *secs),
            AsOf::Commit { .. } => true,
        }
    }

    /// The moment as a unix second: the date's, or the commit's time.
    pub fn secs(&self) -> i64 {
        match self {
            AsOf::Date { secs, .. } => *secs,
            AsOf::Commit { commit, .. } => crate::time::parse_instant(&commit.time, false).unwrap_or(i64::MAX),
        }
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
        let Some(repo) = crate::git::Repo::discover(&self.layout.root) else { return Ok(Text::default()) };
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
                Ok(DecisionLog::parse(self.text_at(commit, &self.layout.decision_log())?).with_threshold(self.threshold()?))
            }
            Some(at @ AsOf::Date { .. }) => {
                let log = self.decisions()?;
                Ok(DecisionLog::parse(kept(&log.text, log.entries.iter().map(|e| (e.span.start, e.span.end, at.holds(&e.timestamp)))))
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
            Some(AsOf::Commit { commit, .. }) => Ok(FactsFile::parse(self.text_at(commit, &self.layout.facts())?)),
            Some(at @ AsOf::Date { .. }) => {
                let f = self.facts(scope)?;
                Ok(FactsFile::parse(kept(&f.text, f.entries.iter().map(|e| (e.span.start, e.span.end, at.holds(e.set()))))))
            }
        }
    }
}

impl Memory {
    /// One scope's facts as they stood then (None: now; a missing user directory reads as no
    /// user facts). The user's file is in no repository, so at a commit it is read as of the
    /// commit's time.
    pub fn scope_facts_as_of(&self, scope: crate::store::facts::Scope, at: Option<&AsOf>) -> Result<FactsFile> {
        use crate::store::facts::Scope;
        match (scope, at) {
            (Scope::Project, _) => self.facts_as_of(at),
            (Scope::User, None) => Ok(self.user_facts()),
            (Scope::User, Some(at)) => {
                let f = self.user_facts();
                let until = at.secs();
                let holds = |set: &str| crate::time::parse_instant(set, false).is_some_and(|t| t <= until);
                Ok(FactsFile::parse(kept(&f.text, f.entries.iter().map(|e| (e.span.start, e.span.end, holds(e.set()))))))
            }
        }
    }
}

impl Memory {
    /// PRIORS.md as it stood at a commit; None for a date (priors carry no time of their own,
    /// so no date can say whether one was there).
    pub fn priors_as_of(&self, at: &AsOf) -> Result<Option<crate::format::prior::PriorsFile>> {
        match at {
            AsOf::Commit { commit, .. } => Ok(Some(crate::format::prior::PriorsFile::parse(self.text_at(commit, &self.layout.priors())?))),
            AsOf::Date { .. } => Ok(None),
        }
    }
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
