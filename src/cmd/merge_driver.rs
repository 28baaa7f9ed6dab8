//! `zo merge-driver BASE OURS THEIRS PATH` (hidden): what git runs for memory files, through
//! `.gitattributes` (`merge=zo`) and the `merge.zo.driver` config that `zo init` / `zo continue`
//! register. Writes the merge into OURS; exit 0 means merged cleanly.

use crate::cli::MergeDriverArgs;
use crate::fsio;
use crate::merge::{self, Kind};
use anyhow::{Context, Result};
use std::path::Path;

fn read(p: &Path) -> Result<String> {
    let bytes = std::fs::read(p).with_context(|| format!("could not read {}", p.display()))?;
    fsio::decode(p, bytes)
}

pub fn run(a: MergeDriverArgs) -> Result<()> {
    let texts = (read(&a.base), read(&a.ours), read(&a.theirs));
    let merged = match (texts, merge::kind_of(&a.path)) {
        ((Ok(b), Ok(o), Ok(t)), kind) => match kind {
            Kind::Decisions => Some(merge::decisions(&b, &o, &t)),
            Kind::Priors => Some(merge::priors(&b, &o, &t)),
            Kind::State => Some((merge::state(&o, &t), vec![])),
            Kind::Session => Some((merge::session(&b, &o, &t), vec![])),
            Kind::Other => None,
        },
        ((b, o, t), _) => {
            for e in [b.err(), o.err(), t.err()].into_iter().flatten() {
                eprintln!("zo merge-driver: {e:#}");
            }
            None
        }
    };
    match merged {
        Some((text, notes)) => {
            for n in notes {
                eprintln!("zo merge-driver: {}: {n}", a.path);
            }
            fsio::write_atomic(&a.ours, text.as_bytes())
        }
        None => {
            // Keep both sides' text rather than lose any: git's union merge.
            eprintln!("zo merge-driver: could not merge {} as memory; kept both sides' text (union merge), check it by hand", a.path);
            let out = std::process::Command::new("git")
                .args(["merge-file", "-p", "--union"])
                .arg(&a.ours)
                .arg(&a.base)
                .arg(&a.theirs)
                .output()
                .context("could not run git merge-file")?;
            fsio::write_atomic(&a.ours, &out.stdout)
        }
    }
}
