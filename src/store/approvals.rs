//! Approvals of flagged entries (SPEC §3a, "Memory poisoning"): a person read an entry the
//! directive rules flag and vouches for it, on this machine. An approval names the entry's
//! exact text (its SHA-256, the text recall returns), so an edit voids it; it lives in the
//! user's own directory (`$ZO_USER_DIR`, `~/.config/zo`: `approved`), never in the repository,
//! as direnv keeps its `allow` list: nothing a commit holds can vouch for a commit. A write made
//! here with `--allow-directive` is approved here at once (the writer consented); a teammate
//! who pulls it sees it withheld until they approve it.

use crate::store::fsio;
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The approvals file, `approved` in the user's directory.
fn path() -> Option<PathBuf> {
    crate::store::facts::user_dir().map(|d| d.join("approved"))
}

/// The text's key in the file.
fn key(text: &str) -> String {
    crate::format::sha256_hex(text.trim_end())
}

/// The approved keys, read once per process (a bounded, link-refusing read of the user's file).
fn approved() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        let Some(p) = path() else {
            return HashSet::new();
        };
        let Ok(Some(text)) = fsio::read_text(&p) else {
            return HashSet::new();
        };
        text.as_str()
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|k| k.len() == 64)
            .map(str::to_string)
            .collect()
    })
}

/// Whether a person on this machine approved exactly this entry text.
pub fn is_approved(text: &str) -> bool {
    approved().contains(&key(text))
}

/// Record that the person approves `text` (entry `id`): one line, `<sha256> <id> <time>`,
/// appended through the one atomic write. Idempotent.
pub fn approve(id: &str, text: &str) -> Result<PathBuf> {
    let p = path().context("no user directory to keep approvals in: set ZO_USER_DIR or HOME")?;
    let k = key(text);
    let old = fsio::read_text(&p)
        .with_context(|| format!("could not read {}", p.display()))?
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    if old
        .lines()
        .any(|l| l.split_whitespace().next() == Some(k.as_str()))
    {
        return Ok(p);
    }
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    let line = format!(
        "{k} {} {}\n",
        id.replace(char::is_whitespace, "_"),
        crate::time::now()
    );
    fsio::write_atomic(&p, format!("{old}{line}").as_bytes())?;
    Ok(p)
}

/// What the directive rules flag in `text` when no person here approved it: the reasons an
/// entry is withheld from an agent's bundle (empty: it is not).
pub fn withheld(text: &str) -> Vec<crate::store::gate::directives::Flag> {
    let flags = crate::store::gate::directives::with_display(text, crate::store::screened::flags);
    if flags.is_empty() || is_approved(text) {
        return vec![];
    }
    flags
}
