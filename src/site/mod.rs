//! `zo site [DIR]`: the memory as a static site people can browse — a timeline of decisions
//! with a page per ID, each entry's life (`ops::history`) and supersession chain, lessons by
//! root cause, facts with their versions, sessions and snapshots, stale decisions, and search
//! in the page. Plain HTML, one CSS file, one script file; no server, no network; relative
//! links only, so it opens from `file://` and from any static host (SPEC §5, `zo site`).
//!
//! Owns: reading the memory for the pages (`build`, through `store::Memory` and the parsers
//! only), the pages (`pages`), safe rendering (`html`: every piece of memory text is escaped
//! or sanitised Markdown, and a Content-Security-Policy lets only `site.js` run), the two
//! pictures (`svg`), and where the site goes (`target`).
//!
//! Invariants: a directory is replaced only when it is empty or holds the marker of an earlier
//! site (`MARKER`); the new site is built beside it and swapped in, so a crash leaves the old
//! site or the new one; the default `.zo/site` inside the repository is checked like every
//! `.zo` path (no link is written through). Page file names come only from IDs of zo's syntax.

mod html;
mod pages;
mod svg;
mod target;

use crate::store::memory::Memory;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The file that marks a directory as a site zo built (and may therefore replace).
pub const MARKER: &str = ".zo-site";

/// The `--json` shape (SPEC §5, `zo site`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Where the site is, as the user should see it.
    pub dir: String,
    /// The front page's path, to open in a browser.
    pub index: String,
    /// HTML pages written.
    pub pages: usize,
    pub decisions: usize,
    pub priors: usize,
    pub facts: usize,
    pub sessions: usize,
    pub snapshots: usize,
    /// Entries without a page, and why (an ID that cannot name a file, a duplicate ID).
    pub skipped: Vec<String>,
    pub elapsed_ms: f64,
}

/// Where the site goes when no DIR is given: `.zo/site`, derived like the index (gitignored).
pub fn default_dir(memory: &Memory) -> PathBuf {
    memory.layout.zo_dir.join("site")
}

/// Whether an ID may name a page file: zo's `D-` IDs (and the derived ones), nothing with a
/// path separator, a dot or anything a file system or URL would read differently.
pub fn id_is_file_safe(id: &str) -> bool {
    id.len() <= 66
        && id.strip_prefix("D-").is_some_and(|r| {
            !r.is_empty()
                && r.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Build the site into `dir` (default `default_dir`).
pub fn build(memory: &Memory, dir: Option<&Path>) -> Result<Report> {
    let started = Instant::now();
    let dir = match dir {
        Some(d) => absolute(d)?,
        None => default_dir(memory),
    };
    // The repository root itself shows as "" relative to the root: name it whole then.
    let shown = |p: &Path| {
        Some(memory.layout.show(p))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| p.display().to_string())
    };
    // Inside `.zo/` only the default: elsewhere there the site would land in the memory (or
    // next to the index) and be committed, indexed or merged as memory.
    // A link on the way is refused first, naming it (exit 1), as for every `.zo` path.
    if let Some(parent) = dir.parent() {
        crate::store::fsio::check_path(parent)?;
    }
    let zo = memory.layout.zo_dir.as_path();
    if dir != default_dir(memory)
        && (dir.starts_with(zo) || resolved(&dir).starts_with(resolved(zo)))
        && resolved(&dir) != resolved(&default_dir(memory))
    {
        return Err(crate::error::Error::usage(format!(
            "{} is inside {}: zo site writes there only into its default {}; choose a DIR outside it",
            shown(&dir),
            shown(zo),
            shown(&default_dir(memory))
        ))
        .into());
    }
    // Refused before any reading: a directory the user would lose, a link on the way.
    target::check(&dir, &shown(&dir))?;
    let (src, skipped) = read(memory)?;
    let mut files: Vec<(String, String)> = vec![
        ("index.html".into(), pages::index(&src)),
        ("decisions.html".into(), pages::timeline(&src)),
        ("lessons.html".into(), pages::lessons(&src)),
        ("facts.html".into(), pages::facts(&src)),
        ("sessions.html".into(), pages::sessions(&src)),
        ("stale.html".into(), pages::stale(&src)),
        ("search.html".into(), pages::search(&src)),
    ];
    for (i, f) in src.files.iter().enumerate() {
        if let Some(f) = f {
            files.push((format!("d/{f}"), pages::entry(&src, i)));
        }
    }
    let pages = files.len();
    files.push(("style.css".into(), crate::templates::SITE_CSS.into()));
    files.push(("site.js".into(), crate::templates::SITE_JS.into()));
    files.push((
        MARKER.into(),
        "This directory was built by `zo site`; zo replaces it on the next build.\n".into(),
    ));
    target::write(&dir, &shown(&dir), &files)?;
    Ok(Report {
        dir: shown(&dir),
        index: shown(&dir.join("index.html")),
        pages,
        decisions: src.decisions().count(),
        priors: src.priors.entries.len(),
        facts: src.facts.keys().len(),
        sessions: src.sessions.len(),
        snapshots: src.snapshots.len(),
        skipped,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// A DIR the user typed, made absolute from the current directory and `..` resolved by name,
/// so that the confinement check sees it (it matches paths by their repository root).
fn absolute(dir: &Path) -> Result<PathBuf> {
    use std::path::Component;
    let joined = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()?.join(dir)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A path with its longest existing ancestor resolved through links (the rest kept as
/// written), so that `.zo` reached by another spelling is still `.zo`.
fn resolved(p: &Path) -> PathBuf {
    let mut head = p.to_path_buf();
    let mut tail = Vec::new();
    loop {
        if let Ok(c) = head.canonicalize() {
            return tail
                .into_iter()
                .rev()
                .fold(c, |acc: PathBuf, n: std::ffi::OsString| acc.join(n));
        }
        match (
            head.file_name().map(|n| n.to_os_string()),
            head.parent().map(Path::to_path_buf),
        ) {
            (Some(n), Some(parent)) => {
                tail.push(n);
                head = parent;
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// The memory, read once for every page.
fn read(memory: &Memory) -> Result<(pages::Source, Vec<String>)> {
    let log = memory.decisions()?;
    let mut skipped = Vec::new();
    let mut taken = std::collections::HashSet::new();
    let files: Vec<Option<String>> = log
        .entries
        .iter()
        .map(|e| {
            if !id_is_file_safe(&e.id) {
                skipped.push(format!(
                    "{:?} at line {}: not an ID zo names a page after",
                    e.id, e.span.line
                ));
                None
            } else if !taken.insert(e.id.to_ascii_lowercase()) {
                // Case-folded: two pages must not be one file on a case-insensitive disk.
                skipped.push(format!(
                    "{} at line {}: a second entry with this ID",
                    e.id, e.span.line
                ));
                None
            } else {
                Some(format!("{}.html", e.id))
            }
        })
        .collect();
    let lives = lives(memory, &log, &files)?;
    let (state, _) = memory.state();
    let sessions = memory
        .sessions()?
        .into_iter()
        .map(|s| {
            let forgotten = memory
                .session_text(&s.file_name)
                .is_ok_and(|t| crate::format::session::is_forgotten(t.as_str()));
            (s, forgotten)
        })
        .collect();
    let mut snapshots = Vec::new();
    for name in memory.snapshot_names()? {
        let path = memory.layout.snapshots().join(&name);
        let text = crate::store::fsio::read_text(&path)
            .with_context(|| format!("could not read {}", memory.layout.show(&path)))?;
        snapshots.push((
            name,
            text.map(|t| t.as_str().to_string()).unwrap_or_default(),
        ));
    }
    let stale = crate::lifecycle::stale::stale_ids(memory, &log)?;
    let superseders = pages::superseders(&log);
    let src = pages::Source {
        project: memory.layout.project(),
        superseders,
        files,
        lives,
        log,
        priors: memory.priors()?,
        facts: memory.facts(crate::store::facts::Scope::Project)?,
        fact_threshold: memory.threshold()?,
        sessions,
        snapshots,
        state,
        stale,
    };
    Ok((src, skipped))
}

/// Each entry's life, as `zo history` tells it: the one place the site asks for it.
/// `ops::lives::all` is `ops::history` for every entry at once (one parse of the log, one walk
/// of git history, instead of one each per entry); a test holds the two to the same answers.
fn lives(
    memory: &Memory,
    log: &crate::format::decision::DecisionLog,
    files: &[Option<String>],
) -> Result<Vec<Option<crate::ops::history::History>>> {
    let mut all = crate::ops::lives::all(memory, log)?;
    for (life, file) in all.iter_mut().zip(files) {
        if file.is_none() {
            *life = None;
        }
    }
    Ok(all)
}
