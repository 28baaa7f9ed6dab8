//! `zo merge-driver BASE OURS THEIRS PATH` (hidden): what git runs for memory files, through
//! `.gitattributes` (`merge=zo`) and the `merge.zo.driver` config that `zo init` / `zo continue`
//! register. Writes the merge into OURS; exit 0 means merged cleanly.

use super::say;
use crate::cli::MergeDriverArgs;
use crate::error::Error;
use crate::git::merge;
use crate::store::fsio;
use crate::store::layout::FileKind;
use anyhow::{Context, Result};
use std::path::Path;

fn read(p: &Path) -> Result<String> {
    let bytes = std::fs::read(p).with_context(|| format!("could not read {}", p.display()))?;
    fsio::decode(p, bytes)
}

pub fn run(a: MergeDriverArgs) -> Result<()> {
    let texts = (read(&a.base), read(&a.ours), read(&a.theirs));
    let kind = FileKind::of_memory(&a.path);
    let plain = |text: String| merge::Merged {
        text,
        ..Default::default()
    };
    let merged = match (texts, kind) {
        ((Ok(b), Ok(o), Ok(t)), kind) => match kind {
            Some(FileKind::Decisions) => {
                // Two clones that decided one subject differently: both entries are kept, and
                // said.
                let mut m = merge::decisions(&b, &o, &t);
                m.notes.extend(
                    crate::lifecycle::contradictions::introduced(&o, &m.text)
                        .iter()
                        .map(|c| format!("{} (zo verify names it)", c.describe())),
                );
                Some(checked(m, "decisions", &o, &t))
            }
            Some(FileKind::Priors) => Some(checked(merge::priors(&b, &o, &t), "priors", &o, &t)),
            Some(FileKind::State) => Some(Some(plain(merge::state(&o, &t)))),
            Some(FileKind::Session) => Some(Some(plain(merge::session(&b, &o, &t)))),
            Some(FileKind::Facts) => Some(checked(merge::facts(&b, &o, &t), "facts", &o, &t)),
            None => None,
        },
        ((b, o, t), _) => {
            for e in [b.err(), o.err(), t.err()].into_iter().flatten() {
                say(&format!("zo merge-driver: {e:#}\n"));
            }
            None
        }
    };
    if let Some(m) = merged.flatten() {
        for n in &m.notes {
            say(&format!("zo merge-driver: {}: {n}\n", a.path));
        }
        fsio::write_atomic(&a.ours, m.text.as_bytes())?;
        if m.conflicts > 0 {
            return Err(Error::Failed(format!(
                "{}: {} between conflict markers, the rest merged: keep what holds, then `git add` it and `zo verify`",
                a.path,
                crate::format::count(m.conflicts, "entry differs on the two sides and is", "entries differ on the two sides and are")
            ))
            .into());
        }
        return Ok(());
    }
    // Not readable as memory. One side only appended: keep both sides' text, theirs' additions
    // after ours. Otherwise a conflict with both sides between markers, for a person to
    // resolve. Never git's line union: it interleaves entries that share lines.
    let bytes =
        |p: &Path| std::fs::read(p).with_context(|| format!("could not read {}", p.display()));
    let (b, o, t) = (bytes(&a.base)?, bytes(&a.ours)?, bytes(&a.theirs)?);
    // A path outside the memory (an attribute routed it here by mistake) is git's own merge:
    // its text merge, conflict markers and exit status, nothing of zo's.
    if kind.is_none() && FileKind::of_memory(&a.path).is_none() {
        if git_merge_file(&a)?.success() {
            return Ok(());
        }
        return Err(Error::Failed(format!(
            "{}: not a memory file, so git's own merge ran; it left conflict markers",
            a.path
        ))
        .into());
    }
    if let Some(m) = merge::append_only(&b, &o, &t) {
        say(&format!(
            "zo merge-driver: could not read {} as memory; kept both sides' text (each side's additions in turn), check it with zo verify\n",
            a.path
        ));
        return fsio::write_atomic(&a.ours, &m);
    }
    let out = git_merge_file(&a)?;
    if out.success() {
        return Ok(());
    }
    Err(Error::Failed(format!(
        "could not merge {} as memory; both sides' text is in it between conflict markers: keep every entry of both, then `zo verify`",
        a.path
    ))
    .into())
}

/// The merge, unless it would lose an entry of either side or text written after one
/// (`merge::lost`): then None, and the driver falls back to both sides between conflict
/// markers. A merge never drops text silently, whatever the rules miss.
fn checked(m: merge::Merged, kind: &str, ours: &str, theirs: &str) -> Option<merge::Merged> {
    let lost = merge::lost(kind, ours, theirs, &m.text);
    if lost.is_empty() {
        return Some(m);
    }
    say(&format!(
        "zo merge-driver: merging entry by entry would lose {}; both sides are kept whole instead\n",
        lost.join(", ")
    ));
    None
}

/// git's own three-way text merge into OURS (git names the three files: temporary paths of
/// its own, passed after `--`).
fn git_merge_file(a: &MergeDriverArgs) -> Result<std::process::ExitStatus> {
    std::process::Command::new("git")
        .args([
            "merge-file",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
            "--",
        ])
        .arg(&a.ours)
        .arg(&a.base)
        .arg(&a.theirs)
        .status()
        .context("could not run git merge-file")
}
