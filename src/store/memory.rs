//! The memory of one project: finding it and loading each file kind. Its writes, through the
//! lock, the gate and the atomic write, are in `write` (and `facts`); nothing else writes
//! memory files.

use crate::format::Text;
use crate::format::decision::{DecisionLog, FindError};
use crate::format::prior::PriorsFile;
use crate::format::session::SessionFile;
use crate::format::state::State;
use crate::store::fsio::{self, Lock};
use crate::store::gate::Limits;
use crate::store::layout::Layout;
use anyhow::{Context, Result, anyhow, bail};
use std::path::Path;

pub struct Memory {
    pub layout: Layout,
}

/// The message for an ID that names no decision, or several.
pub fn find_error(e: FindError, id: &str, file: &str) -> anyhow::Error {
    match e {
        FindError::NotFound => anyhow!("no decision {id} in {file}"),
        FindError::Ambiguous(ids) => anyhow!("{id} matches several decisions: {}", ids.join(", ")),
    }
}

impl Memory {
    pub fn open(repo: Option<&Path>) -> Result<Memory> {
        Ok(Memory {
            layout: Layout::discover(repo)?,
        })
    }

    pub(super) fn read(&self, path: &Path) -> Result<Text> {
        Ok(fsio::read_text(path)?.unwrap_or_default())
    }

    /// The decision log, its statuses read against the configured promotion threshold.
    pub fn decisions(&self) -> Result<DecisionLog> {
        Ok(DecisionLog::parse(self.read(&self.layout.decision_log())?)
            .with_threshold(self.threshold()?))
    }

    /// The decision log for the hook path (`status`, `log`, `show`, `context`): restored from
    /// its derived summary when that is proven fresh (each entry's text then read only when
    /// shown), else read whole, which writes a new summary. Writers use `decisions`: they need
    /// the text itself. Also whether the log holds conflict markers.
    pub fn decisions_quick(&self) -> Result<(DecisionLog, bool)> {
        let threshold = self.threshold()?;
        if let Some(r) = crate::store::summary::load(&self.layout) {
            return Ok((r.log.with_threshold(threshold), r.conflict));
        }
        let conflicted = |log: &DecisionLog| {
            crate::store::verify::may_hold_conflict_markers(log.text.as_str().as_bytes())
        };
        let Some((text, stamp, content)) =
            crate::store::summary::read_whole(&self.layout.decision_log())
        else {
            let log = self.decisions()?;
            let conflict = conflicted(&log);
            return Ok((log, conflict));
        };
        let log = DecisionLog::parse(text);
        // Searched once: the summary records it too.
        let conflict = conflicted(&log);
        if let Some(content) = content {
            crate::store::summary::save(&self.layout, &log, stamp, content, conflict);
        }
        Ok((log.with_threshold(threshold), conflict))
    }

    /// How many entries the decision log holds (the summary's count when it is fresh).
    pub fn decision_count(&self) -> Result<usize> {
        match crate::store::summary::count(&self.layout) {
            Some(n) => Ok(n),
            None => Ok(self.decisions_quick()?.0.entries.len()),
        }
    }

    pub fn priors(&self) -> Result<PriorsFile> {
        Ok(PriorsFile::parse(self.read(&self.layout.priors())?))
    }

    /// STATE.md; a missing or unreadable one reads as defaults with a warning (never fatal).
    pub fn state(&self) -> (State, Option<String>) {
        let path = self.layout.state();
        match fsio::read_text(&path) {
            Ok(Some(t)) => (State::parse(t), None),
            Ok(None) => (
                State::default(),
                Some(format!(
                    "{} is missing; using defaults",
                    self.layout.show(&path)
                )),
            ),
            Err(e) => (State::default(), Some(format!("{e:#}; using defaults"))),
        }
    }

    /// Unresolved merge conflict markers in the memory files (a merge made without zo's driver),
    /// so that every command that reads them can name them with the fix.
    pub fn conflict_markers(&self) -> Vec<crate::store::verify::Problem> {
        self.conflict_markers_in(true)
    }

    /// `conflict_markers`, the decision log searched only when `log` (its summary knows
    /// whether it holds any: `decisions_quick`).
    pub fn conflict_markers_in(&self, log: bool) -> Vec<crate::store::verify::Problem> {
        let mut out = Vec::new();
        let paths = [
            self.layout.decision_log(),
            self.layout.priors(),
            self.layout.state(),
        ];
        for path in paths.into_iter().skip(usize::from(!log)) {
            let Ok(Some(text)) = fsio::read_text(&path) else {
                continue;
            };
            if crate::store::verify::may_hold_conflict_markers(text.as_str().as_bytes()) {
                out.extend(crate::store::verify::conflict_markers(
                    &self.layout.show(&path),
                    text.as_str(),
                ));
            }
        }
        out
    }

    /// Session files, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionFile>> {
        let mut out = Vec::new();
        for name in self.session_names()? {
            let text = self.session_text(&name)?;
            out.push(SessionFile::parse(&name, text.as_str()));
        }
        Ok(out)
    }

    /// One session file's text. Sessions are read, never rewritten, so a file with invalid
    /// UTF-8 (a bad hand edit) is read with the bad bytes replaced rather than failing every
    /// command that lists sessions; `zo verify` is where such bytes are reported.
    pub fn session_text(&self, name: &str) -> Result<Text> {
        let path = self.layout.sessions().join(name);
        match fsio::read_text(&path) {
            Ok(t) => Ok(t.unwrap_or_default()),
            Err(e) if e.downcast_ref::<fsio::BadUtf8>().is_some() => {
                let file = fsio::open_regular(&path)?
                    .with_context(|| format!("{} vanished while read", path.display()))?;
                let bytes = fsio::read_bounded(file, &path, fsio::MAX_FILE_BYTES)?;
                Ok(Text::new(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Err(e) => Err(e),
        }
    }

    /// Session file names, oldest first, without reading them.
    pub fn session_names(&self) -> Result<Vec<String>> {
        list_md(&self.layout.sessions())
    }

    pub fn snapshot_names(&self) -> Result<Vec<String>> {
        list_md(&self.layout.snapshots())
    }

    /// The write gate's limits from config; a value that is not a positive whole number is an
    /// error naming the file and line, not a silent default.
    pub fn limits(&self) -> Result<Limits> {
        Limits::from_config(&self.layout.config, &self.layout.config_file())
    }

    pub(crate) fn lock(&self) -> Result<Lock> {
        if !self.layout.memory.is_dir() {
            bail!(
                "{} does not exist; run `zo init`",
                self.layout.show(&self.layout.memory)
            );
        }
        Lock::acquire(&self.layout.memory)
    }
}

/// The session or snapshot file names in `dir` as zo lists them (`list_md`); none when it
/// cannot be read (provenance is best effort).
pub fn record_names(dir: &Path) -> Vec<String> {
    list_md(dir).unwrap_or_default()
}

/// `*.md` file names in a directory, sorted; a missing directory is empty. Links and special
/// files are left out (`fsio::list_files`).
fn list_md(dir: &Path) -> Result<Vec<String>> {
    let mut names = fsio::list_files(dir, ".md")?;
    // A name is shown to agents and people (a section title, a recall hit, a list): one with a
    // newline, a tab or a character the gate refuses is not memory zo reads (`verify` names
    // it), so no file name can forge a line of zo's.
    names.retain(|n| is_shown_name(n));
    names.sort_by_key(|n| crate::format::session::sort_key(n));
    Ok(names)
}

/// Whether a session or snapshot file name can be shown as it is: one line, no tab, no
/// character the gate refuses.
pub fn is_shown_name(name: &str) -> bool {
    !name.contains(['\n', '\t']) && crate::store::gate::first_control(name).is_none()
}
