//! The agents' own settings files zo merges its part into: the hooks files (Claude Code's
//! `.claude/settings.json`, Cursor's and Codex's hooks), the MCP server lists (`.mcp.json`,
//! `.cursor/mcp.json`) and Codex's `.codex/config.toml`. Everything else in them is kept.

use super::{MCP_COMMAND, Staged};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::path::Path;

/// Whether a hook command is one of zo's (this version's or an older one's).
pub(super) fn is_zo_command(c: &str) -> bool {
    [
        "zo hook ",
        "zo -q hook ",
        "zo session start --agent claude",
        "zo -q session end --agent claude",
    ]
    .iter()
    .any(|p| c.starts_with(p))
}

/// How an agent's hooks file lists the commands of an event: Claude Code and Codex in matcher
/// groups (`[{"matcher": "", "hooks": [{"command": …}]}]`), Cursor flat (`[{"command": …}]`,
/// beside a `"version": 1` that zo adds and takes away with its last hook).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Shape {
    Groups,
    Flat,
}

/// Merge zo's hook entries (`template`: event → entry) into an agent's hooks file (Claude
/// Code's `.claude/settings.json`, Codex's and Cursor's hooks files), or take them out: zo's
/// older entries are replaced, everything else is kept. None if nothing changed, else whether
/// the whole file was created or (left empty by the removal) deleted.
pub(super) fn edit_hooks(
    st: &mut Staged,
    root: &Path,
    file: &str,
    template: &str,
    shape: Shape,
    remove: bool,
) -> Result<Option<bool>> {
    let path = root.join(file);
    let Some((mut settings, existed)) = read_json(st, &path, remove)? else {
        return Ok(None);
    };
    let before = settings.clone();
    let wanted: Value = serde_json::from_str(template).context("zo's hooks template")?;
    let obj = settings.as_object_mut().ok_or_else(|| {
        anyhow!(
            "{} is not a JSON object; nothing was changed",
            path.display()
        )
    })?;
    if shape == Shape::Flat && !remove {
        obj.entry("version").or_insert(json!(1));
    }
    let hooks = obj.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| {
        anyhow!(
            "`hooks` in {} is not an object; nothing was changed",
            path.display()
        )
    })?;
    for (event, entry) in wanted.as_object().expect("template is an object") {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let list = list.as_array_mut().ok_or_else(|| {
            anyhow!(
                "`hooks.{event}` in {} is not a list; nothing was changed",
                path.display()
            )
        })?;
        if !remove && list.iter().any(|m| m == entry) {
            continue;
        }
        // Copilot CLI names the command `bash`.
        let zo_command = |h: &Value| {
            h["command"]
                .as_str()
                .or(h["bash"].as_str())
                .is_some_and(is_zo_command)
        };
        match shape {
            Shape::Flat => list.retain(|h| !zo_command(h)),
            Shape::Groups => {
                // Drop zo's commands from every matcher group; drop groups left empty by that.
                for m in list.iter_mut() {
                    if let Some(hs) = m.get_mut("hooks").and_then(Value::as_array_mut) {
                        hs.retain(|h| !zo_command(h));
                    }
                }
                list.retain(|m| m["hooks"].as_array().is_none_or(|hs| !hs.is_empty()));
            }
        }
        if !remove {
            list.push(entry.clone());
        }
    }
    if remove {
        hooks.retain(|_, v| v.as_array().is_none_or(|l| !l.is_empty()));
        if hooks.is_empty() {
            obj.remove("hooks");
            if shape == Shape::Flat && obj.len() == 1 && obj.get("version") == Some(&json!(1)) {
                obj.remove("version");
            }
        }
    }
    save_json(st, &path, &settings, &before, existed, remove)
}

/// The `zo` server in a client's `mcpServers` JSON (Claude Code's `.mcp.json`, Cursor's
/// `.cursor/mcp.json`), merged with the servers already there. None if nothing changed, else
/// whether the whole file was created or deleted.
pub(super) fn mcp_json(
    st: &mut Staged,
    root: &Path,
    file: &str,
    remove: bool,
) -> Result<Option<bool>> {
    let path = root.join(file);
    let Some((mut v, existed)) = read_json(st, &path, remove)? else {
        return Ok(None);
    };
    let before = v.clone();
    let obj = v.as_object_mut().ok_or_else(|| {
        anyhow!(
            "{} is not a JSON object; nothing was changed",
            path.display()
        )
    })?;
    let servers = obj.entry("mcpServers").or_insert_with(|| json!({}));
    let servers = servers.as_object_mut().ok_or_else(|| {
        anyhow!(
            "`mcpServers` in {} is not an object; nothing was changed",
            path.display()
        )
    })?;
    if remove {
        servers.remove("zo");
        if servers.is_empty() {
            obj.remove("mcpServers");
        }
    } else {
        servers
            .entry("zo")
            .or_insert_with(|| json!({"command": MCP_COMMAND, "args": ["mcp"]}));
    }
    save_json(st, &path, &v, &before, existed, remove)
}

/// opencode's `zo` server in the project's `opencode.json` (`mcp.zo`: a local command list),
/// merged with what is there. None if nothing changed, else whether the whole file was created
/// or deleted.
pub(super) fn opencode_json(st: &mut Staged, root: &Path, remove: bool) -> Result<Option<bool>> {
    let path = root.join("opencode.json");
    let Some((mut v, existed)) = read_json(st, &path, remove)? else {
        return Ok(None);
    };
    let before = v.clone();
    let obj = v.as_object_mut().ok_or_else(|| {
        anyhow!(
            "{} is not a JSON object; nothing was changed",
            path.display()
        )
    })?;
    if !existed && !remove {
        obj.insert("$schema".into(), json!("https://opencode.ai/config.json"));
    }
    let servers = obj.entry("mcp").or_insert_with(|| json!({}));
    let servers = servers.as_object_mut().ok_or_else(|| {
        anyhow!(
            "`mcp` in {} is not an object; nothing was changed",
            path.display()
        )
    })?;
    if remove {
        servers.remove("zo");
        if servers.is_empty() {
            obj.remove("mcp");
        }
        // What zo added with the file, and nothing else left: the file goes.
        if obj.len() == 1 && obj.get("$schema") == Some(&json!("https://opencode.ai/config.json")) {
            obj.remove("$schema");
        }
    } else {
        servers.entry("zo").or_insert_with(
            || json!({"type": "local", "command": [MCP_COMMAND, "mcp"], "enabled": true}),
        );
    }
    save_json(st, &path, &v, &before, existed, remove)
}

/// Write a client's JSON file back after zo changed `value` (from `before`): nothing when
/// unchanged (None); removed when a removal left it an empty object (Some(true)); else
/// written, Some(whether it was created).
fn save_json(
    st: &mut Staged,
    path: &Path,
    value: &Value,
    before: &Value,
    existed: bool,
    remove: bool,
) -> Result<Option<bool>> {
    if value == before {
        return Ok(None);
    }
    if remove && value.as_object().is_some_and(|o| o.is_empty()) {
        st.delete(path);
        return Ok(Some(true));
    }
    let mut out = serde_json::to_string_pretty(value)?;
    out.push('\n');
    st.write(path, out);
    Ok(Some(!existed))
}

/// Codex's `zo` server in the project's `.codex/config.toml` (`[mcp_servers.zo]`), added (or
/// taken out, with its sub-tables such as `[mcp_servers.zo.env]`) by editing the parsed file,
/// so the rest keeps its formatting and comments and a server written in any TOML form
/// (`zo = {…}`, `[mcp_servers."zo"]`) is found. Broken TOML is an error naming the file and
/// line, and nothing changes. None if nothing changed, else whether the whole file was created
/// or deleted.
pub(super) fn codex_config(st: &mut Staged, root: &Path, remove: bool) -> Result<Option<bool>> {
    let path = root.join(".codex/config.toml");
    let text = st.read(&path)?.unwrap_or_default();
    let mut doc = parse_toml(&path, &text)?;
    let has = doc
        .get("mcp_servers")
        .and_then(|t| t.as_table_like())
        .is_some_and(|t| t.contains_key("zo"));
    match (has, remove) {
        (false, false) => {
            let servers = doc.entry("mcp_servers").or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            });
            let Some(servers) = servers.as_table_like_mut() else {
                bail!(
                    "{}: `mcp_servers` is not a table; nothing was changed",
                    path.display()
                )
            };
            let mut zo = toml_edit::Table::new();
            zo.insert("command", toml_edit::value(MCP_COMMAND));
            let mut args = toml_edit::Array::new();
            args.push("mcp");
            zo.insert("args", toml_edit::value(args));
            servers.insert("zo", toml_edit::Item::Table(zo));
        }
        (true, true) => {
            let servers = doc["mcp_servers"]
                .as_table_like_mut()
                .expect("checked above");
            servers.remove("zo");
            if servers.is_empty() {
                doc.remove("mcp_servers");
            }
        }
        _ => return Ok(None),
    }
    let new = doc.to_string();
    if new.trim().is_empty() {
        st.delete(&path);
        return Ok(Some(true));
    }
    // A table zo appends gets a blank line before it, as a person would write it.
    let new = if text.is_empty() {
        new.trim_start().to_string()
    } else {
        new.replace("\n\n\n[", "\n\n[")
    };
    st.write(&path, new);
    Ok(Some(text.is_empty()))
}

/// A TOML document, or an error naming the file and line.
fn parse_toml(path: &Path, text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        let line = e.span().map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        anyhow!(
            "{}:{line}: not valid TOML ({}); fix it and run again, nothing was changed",
            path.display(),
            e.message()
        )
    })
}

/// A client's JSON settings file: its value (`{}` when missing or empty) and whether the file
/// exists, None when there is nothing to remove from; broken JSON is an error naming
/// file:line:col, and nothing changes.
fn read_json(st: &Staged, path: &Path, remove: bool) -> Result<Option<(Value, bool)>> {
    let text = st.read(path)?;
    let existed = text.is_some();
    match text.filter(|t| !t.trim().is_empty()) {
        Some(t) => serde_json::from_str(&t)
            .map(|v| Some((v, existed)))
            .map_err(|e| {
                anyhow!(
                    "{}:{}:{}: not valid JSON ({e}); fix it and run again, nothing was changed",
                    path.display(),
                    e.line(),
                    e.column()
                )
            }),
        None if remove => Ok(None),
        None => Ok(Some((json!({}), existed))),
    }
}
