//! Git wiring that lives in the clone, not in the repository: the merge driver's config, the
//! `.gitattributes` lines that route memory files to it, and zo's blocks in git hooks.

use crate::fsio;
use crate::layout::Layout;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

pub const BEGIN: &str = "# >>> zo >>> (managed by `zo hooks`; remove with `zo hooks uninstall`)";
pub const END: &str = "# <<< zo <<<";
pub const HOOKS: [&str; 4] = ["post-merge", "post-checkout", "post-rewrite", "pre-commit"];

fn zo_exe() -> String {
    std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "zo".into())
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The `.gitattributes` lines for this layout.
pub fn attribute_lines(layout: &Layout) -> Vec<String> {
    let m = layout.rel(&layout.memory);
    ["DECISION_LOG.md", "PRIORS.md", "STATE.md", "sessions/*.md"].iter().map(|f| format!("{m}/{f} merge=zo")).collect()
}

/// Add the missing `.gitattributes` lines. True if it wrote.
pub fn ensure_attributes(layout: &Layout) -> Result<bool> {
    let lines = attribute_lines(layout);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    fsio::ensure_lines(
        &layout.root.join(".gitattributes"),
        "# zo: merge memory files entry by entry (`zo continue` registers the driver)",
        &lines,
    )
}

/// Register the merge driver in this clone's git config (config does not travel with a clone).
pub fn register_driver(root: &Path) -> Result<()> {
    let driver = format!("{} merge-driver %O %A %B %P", quote(&zo_exe()));
    let current = crate::git::run(root, &["config", "--local", "--get", "merge.zo.driver"]).unwrap_or_default();
    if current.trim() != driver {
        crate::git::run(root, &["config", "--local", "merge.zo.name", "zo memory files: union of entries by ID"])?;
        crate::git::run(root, &["config", "--local", "merge.zo.driver", &driver])?;
    }
    Ok(())
}

pub fn driver_registered(root: &Path) -> bool {
    crate::git::run(root, &["config", "--get", "merge.zo.driver"]).is_ok_and(|s| s.contains("merge-driver"))
}

/// The hooks directory: `core.hooksPath` when set (relative to the work tree), else .git/hooks.
pub fn hooks_dir(root: &Path) -> Result<PathBuf> {
    if let Ok(p) = crate::git::run(root, &["config", "--get", "core.hooksPath"]) {
        let p = p.trim();
        if !p.is_empty() {
            let p = PathBuf::from(p);
            return Ok(if p.is_absolute() { p } else { root.join(p) });
        }
    }
    let git_dir = crate::git::run(root, &["rev-parse", "--git-common-dir"]).context("not a git repository")?;
    let g = PathBuf::from(git_dir.trim());
    Ok(if g.is_absolute() { g } else { root.join(g) }.join("hooks"))
}

fn block(hook: &str) -> String {
    let zo = quote(&zo_exe());
    let body = match hook {
        // Blocks a commit that edits or deletes existing entries.
        "pre-commit" => format!("{zo} verify --staged || exit 1"),
        // Rows are refreshed now (milliseconds); embeddings follow in the background. Never fails.
        _ => format!("{zo} -q index refresh --rows-only >/dev/null 2>&1 || true\n( {zo} -q index refresh >/dev/null 2>&1 & ) >/dev/null 2>&1 || true"),
    };
    format!("{BEGIN}\n{body}\n{END}\n")
}

/// The text without zo's block.
fn strip_block(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end();
        if l == BEGIN {
            inside = true;
            continue;
        }
        if inside {
            if l == END {
                inside = false;
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

#[derive(Debug, serde::Serialize)]
pub struct HookState {
    pub hook: String,
    pub path: String,
    pub installed: bool,
    pub other_content: bool,
}

pub fn install(root: &Path) -> Result<Vec<HookState>> {
    let dir = hooks_dir(root)?;
    fsio::create_dir(&dir)?;
    for hook in HOOKS {
        let path = dir.join(hook);
        let existing = std::fs::read_to_string(&path).ok();
        let text = match &existing {
            Some(t) => {
                let clean = strip_block(t);
                // Right after the shebang, so an `exit` later in the user's hook cannot skip it.
                match clean.split_once('\n') {
                    Some((first, rest)) if first.starts_with("#!") => format!("{first}\n{}{rest}", block(hook)),
                    _ => format!("#!/bin/sh\n{}{clean}", block(hook)),
                }
            }
            None => format!("#!/bin/sh\n{}", block(hook)),
        };
        if existing.as_deref() != Some(text.as_str()) {
            fsio::write_atomic(&path, text.as_bytes())?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mut perm = std::fs::metadata(&path)?.permissions();
            perm.set_mode(perm.mode() | 0o755);
            std::fs::set_permissions(&path, perm)?;
        }
    }
    register_driver(root)?;
    status(root)
}

pub fn uninstall(root: &Path) -> Result<Vec<HookState>> {
    let dir = hooks_dir(root)?;
    for hook in HOOKS {
        let path = dir.join(hook);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let clean = strip_block(&text);
        if clean == text {
            continue;
        }
        if clean.trim() == "#!/bin/sh" || clean.trim().is_empty() {
            std::fs::remove_file(&path).with_context(|| format!("could not remove {}", path.display()))?;
        } else {
            fsio::write_atomic(&path, clean.as_bytes())?;
        }
    }
    status(root)
}

pub fn status(root: &Path) -> Result<Vec<HookState>> {
    let dir = hooks_dir(root)?;
    Ok(HOOKS
        .iter()
        .map(|h| {
            let path = dir.join(h);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            HookState {
                hook: h.to_string(),
                path: path.display().to_string(),
                installed: text.lines().any(|l| l.trim_end() == BEGIN),
                other_content: !strip_block(&text).trim().is_empty() && strip_block(&text).trim() != "#!/bin/sh",
            }
        })
        .collect())
}
