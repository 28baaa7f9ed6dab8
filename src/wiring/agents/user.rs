//! The user's own settings, which `zo setup --agent claude` edits once per machine (shown, and
//! undone with `--undo`): Claude Code (2.1.332 and later) starts a project's `.mcp.json` server
//! only once the folder is trusted or the server is named in `enabledMcpjsonServers` of the
//! user's `~/.claude/settings.json`; naming `zo` there works on the newest release and on the
//! older ones (which also read it), for every project wired with `zo init --agent claude`.

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Add `zo` to (or with `undo`, take it out of) `enabledMcpjsonServers` in the user's Claude
/// Code settings under `home`. Everything else in the file is kept. Returns the file when it
/// changed. The file is the user's own and often a link (stow, home-manager): the link's
/// target is written, in place of the link's being replaced by a copy.
pub fn approve_claude_server(home: &Path, undo: bool) -> Result<Option<PathBuf>> {
    let file = home.join(".claude/settings.json");
    let target = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
    // Read as zo reads every file: a FIFO, a directory or a huge file is refused by name (a
    // FIFO here hung `zo setup`), a missing one is empty.
    let text = crate::store::fsio::read_text(&target)?
        .map(|t| t.as_str().to_string())
        .unwrap_or_default();
    let mode = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let mut v: Value = if text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(&text).map_err(|e| {
            anyhow!(
                "{}:{}:{}: not valid JSON ({e}); fix it and run again, nothing was changed",
                file.display(),
                e.line(),
                e.column()
            )
        })?
    };
    let before = v.clone();
    let obj = v.as_object_mut().ok_or_else(|| {
        anyhow!(
            "{} is not a JSON object; nothing was changed",
            file.display()
        )
    })?;
    let list = obj
        .entry("enabledMcpjsonServers")
        .or_insert_with(|| json!([]));
    let list = list.as_array_mut().ok_or_else(|| {
        anyhow!(
            "`enabledMcpjsonServers` in {} is not a list; nothing was changed",
            file.display()
        )
    })?;
    if undo {
        list.retain(|s| s != "zo");
        if list.is_empty() {
            obj.remove("enabledMcpjsonServers");
        }
    } else if !list.iter().any(|s| s == "zo") {
        list.push(json!("zo"));
    }
    if v == before {
        return Ok(None);
    }
    let mut out = serde_json::to_string_pretty(&v)?;
    out.push('\n');
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    // Atomic: a crash leaves the old file or the new, never half of one.
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("could not write {}", file.display()))?;
    std::io::Write::write_all(&mut tmp, out.as_bytes())?;
    // The file keeps its mode (a temporary file is 0600; the user's was often 0644).
    let perms = mode.unwrap_or_else(|| std::os::unix::fs::PermissionsExt::from_mode(0o644));
    tmp.as_file()
        .set_permissions(perms)
        .with_context(|| format!("could not write {}", file.display()))?;
    tmp.persist(&target)
        .map_err(|e| anyhow!("could not write {}: {}", file.display(), e.error))?;
    Ok(Some(file))
}
