//! Wiring for coding agents (`zo init --agent NAME [--remove]`): files in the project that tell
//! an agent when to use its memory and run zo at session start and end. Every change is merged
//! with what is there, marked as zo's, idempotent, and removable.

use crate::store::fsio;
use crate::templates;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::path::Path;

pub const AGENTS: &[&str] = &["claude", "cursor", "codex", "generic"];

/// The MCP server entry every client gets: `zo mcp`, found on PATH.
pub const MCP_COMMAND: &str = "zo";
/// The stanza for clients zo does not write config for.
pub const MCP_STANZA: &str = "{\"mcpServers\": {\"zo\": {\"command\": \"zo\", \"args\": [\"mcp\"]}}}";
const CODEX_TABLE: &str = "[mcp_servers.zo]\ncommand = \"zo\"\nargs = [\"mcp\"]\n";

/// The project files that wire an MCP client to zo, by agent.
pub const MCP_FILES: &[(&str, &str)] = &[("claude", ".mcp.json"), ("cursor", ".cursor/mcp.json"), ("codex", ".codex/config.toml")];
const BEGIN: &str = "<!-- zo:begin";
const END: &str = "<!-- zo:end -->";
const SLASH_COMMAND: &str = ".claude/commands/zo-recall.md";
/// What older versions wrote: `/memory` is a Claude Code built-in, and subdirectory commands
/// are not invoked as `/memory:recall`, so that command never ran.
const OLD_SLASH_COMMAND: &str = ".claude/commands/memory/recall.md";

/// Add (or with `remove`, take out) zo's wiring for `agent`. Returns the files changed.
pub fn wire(root: &Path, agent: &str, remove: bool) -> Result<Vec<String>> {
    let mut changed = Vec::new();
    match agent {
        "claude" => {
            let note = "Claude Code's SessionEnd hook records a bare session if you do not";
            if block(root, "CLAUDE.md", agent, note, remove)? {
                changed.push("CLAUDE.md".into());
            }
            if claude_settings(root, remove)? {
                changed.push(".claude/settings.json".into());
            }
            if mcp_json(root, ".mcp.json", remove)? {
                changed.push(".mcp.json".into());
            }
            let old = root.join(OLD_SLASH_COMMAND);
            if std::fs::read_to_string(&old).is_ok_and(|t| t.contains("zo recall \"$ARGUMENTS\"")) {
                std::fs::remove_file(&old).with_context(|| format!("could not remove {}", old.display()))?;
                let _ = std::fs::remove_dir(old.parent().expect("has a parent"));
                changed.push(OLD_SLASH_COMMAND.into());
            }
            let cmd = root.join(SLASH_COMMAND);
            if remove {
                if std::fs::read_to_string(&cmd).is_ok_and(|t| t == templates::CLAUDE_RECALL) {
                    std::fs::remove_file(&cmd).with_context(|| format!("could not remove {}", cmd.display()))?;
                    changed.push(SLASH_COMMAND.into());
                }
            } else if !cmd.exists() {
                fsio::create_dir(cmd.parent().expect("has a parent"))?;
                fsio::write_atomic(&cmd, templates::CLAUDE_RECALL.as_bytes())?;
                changed.push(SLASH_COMMAND.into());
            }
        }
        "cursor" | "codex" | "generic" => {
            let note = "or have your tool's session-end hook run it";
            if block(root, "AGENTS.md", agent, note, remove)? {
                changed.push("AGENTS.md".into());
            }
            if agent == "cursor" && mcp_json(root, ".cursor/mcp.json", remove)? {
                changed.push(".cursor/mcp.json".into());
            }
            if agent == "codex" && codex_config(root, remove)? {
                changed.push(".codex/config.toml".into());
            }
        }
        other => bail!("unknown agent {other:?}; supported: {}", AGENTS.join(", ")),
    }
    Ok(changed)
}

/// The text without zo's marked block (and the blank line that preceded it).
fn without_block(text: &str) -> String {
    let Some(start) = text.find(BEGIN) else { return text.to_string() };
    let end = text[start..].find(END).map_or(text.len(), |e| start + e + END.len());
    let end = if text[end..].starts_with('\n') { end + 1 } else { end };
    let head = text[..start].trim_end_matches('\n');
    let tail = &text[end..];
    match (head.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_string(),
        (false, true) => format!("{head}\n"),
        (false, false) => format!("{head}\n\n{tail}"),
    }
}

/// Put zo's block into (or take it out of) a Markdown file the agent reads. True if it wrote.
fn block(root: &Path, file: &str, agent: &str, note: &str, remove: bool) -> Result<bool> {
    let path = root.join(file);
    let old = fsio::read_text(&path)?.map(|t| t.as_str().to_string());
    let base = old.as_deref().map(without_block).unwrap_or_default();
    let new = if remove {
        base
    } else {
        let block = templates::AGENT_BLOCK.replace("{agent}", agent).replace("{session_note}", note);
        if base.trim().is_empty() { block } else { format!("{}\n\n{block}", base.trim_end_matches('\n')) }
    };
    if old.as_deref().unwrap_or("") == new {
        return Ok(false);
    }
    if new.trim().is_empty() {
        std::fs::remove_file(&path).with_context(|| format!("could not remove {}", path.display()))?;
    } else {
        fsio::write_atomic(&path, new.as_bytes())?;
    }
    Ok(true)
}

/// Whether a hook command is one of zo's (this version's or an older one's).
fn is_zo_command(c: &str) -> bool {
    ["zo hook ", "zo -q hook ", "zo session start --agent claude", "zo -q session end --agent claude"].iter().any(|p| c.starts_with(p))
}

/// SessionStart/SessionEnd hooks in `.claude/settings.json`, merged with what is there: older
/// zo entries are replaced, everything else is kept. True if it wrote.
fn claude_settings(root: &Path, remove: bool) -> Result<bool> {
    let path = root.join(".claude/settings.json");
    let Some(mut settings) = read_json(&path, remove)? else { return Ok(false) };
    let before = settings.clone();
    let wanted: Value = serde_json::from_str(templates::CLAUDE_HOOKS).context("templates/claude/hooks.json")?;
    let obj = settings.as_object_mut().ok_or_else(|| anyhow!("{} is not a JSON object", path.display()))?;
    let hooks = obj.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| anyhow!("`hooks` in {} is not an object", path.display()))?;
    for (event, entry) in wanted.as_object().expect("template is an object") {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let list = list.as_array_mut().ok_or_else(|| anyhow!("`hooks.{event}` in {} is not a list", path.display()))?;
        if !remove && list.iter().any(|m| m == entry) {
            continue;
        }
        // Drop zo's commands from every matcher group; drop groups left empty by that.
        for m in list.iter_mut() {
            if let Some(hs) = m.get_mut("hooks").and_then(Value::as_array_mut) {
                hs.retain(|h| !h["command"].as_str().is_some_and(is_zo_command));
            }
        }
        list.retain(|m| m["hooks"].as_array().is_none_or(|hs| !hs.is_empty()));
        if !remove {
            list.push(entry.clone());
        }
    }
    if remove {
        hooks.retain(|_, v| v.as_array().is_none_or(|l| !l.is_empty()));
        if hooks.is_empty() {
            obj.remove("hooks");
        }
    }
    if settings == before {
        return Ok(false);
    }
    fsio::create_dir(&root.join(".claude"))?;
    let mut out = serde_json::to_string_pretty(&settings)?;
    out.push('\n');
    fsio::write_atomic(&path, out.as_bytes())?;
    Ok(true)
}

/// The `zo` server in a client's `mcpServers` JSON (Claude Code's `.mcp.json`, Cursor's
/// `.cursor/mcp.json`), merged with the servers already there. True if it wrote.
fn mcp_json(root: &Path, file: &str, remove: bool) -> Result<bool> {
    let path = root.join(file);
    let Some(mut v) = read_json(&path, remove)? else { return Ok(false) };
    let before = v.clone();
    let obj = v.as_object_mut().ok_or_else(|| anyhow!("{} is not a JSON object", path.display()))?;
    let servers = obj.entry("mcpServers").or_insert_with(|| json!({}));
    let servers = servers.as_object_mut().ok_or_else(|| anyhow!("`mcpServers` in {} is not an object", path.display()))?;
    if remove {
        servers.remove("zo");
        if servers.is_empty() {
            obj.remove("mcpServers");
        }
    } else {
        servers.entry("zo").or_insert_with(|| json!({"command": MCP_COMMAND, "args": ["mcp"]}));
    }
    if v == before {
        return Ok(false);
    }
    if remove && v.as_object().is_some_and(|o| o.is_empty()) {
        std::fs::remove_file(&path).with_context(|| format!("could not remove {}", path.display()))?;
        return Ok(true);
    }
    fsio::create_dir(path.parent().expect("has a parent"))?;
    let mut out = serde_json::to_string_pretty(&v)?;
    out.push('\n');
    fsio::write_atomic(&path, out.as_bytes())?;
    Ok(true)
}

/// Codex's `[mcp_servers.zo]` table in the project's `.codex/config.toml`, appended (or taken
/// out) without touching the rest of the file. True if it wrote.
fn codex_config(root: &Path, remove: bool) -> Result<bool> {
    let path = root.join(".codex/config.toml");
    let text = fsio::read_text(&path)?.map(|t| t.as_str().to_string()).unwrap_or_default();
    let has = text.lines().any(|l| l.trim() == "[mcp_servers.zo]");
    let new = match (has, remove) {
        (false, false) => {
            let sep = if text.is_empty() || text.ends_with("\n\n") {
                ""
            } else if text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{text}{sep}{CODEX_TABLE}")
        }
        (true, true) => {
            // The table runs to the next table header.
            let mut out = String::new();
            let mut inside = false;
            for line in text.split_inclusive('\n') {
                let t = line.trim();
                if t == "[mcp_servers.zo]" {
                    inside = true;
                    continue;
                }
                if inside && t.starts_with('[') {
                    inside = false;
                }
                if !inside {
                    out.push_str(line);
                }
            }
            out.trim_end().to_string() + if out.trim().is_empty() { "" } else { "\n" }
        }
        _ => return Ok(false),
    };
    if new.trim().is_empty() {
        std::fs::remove_file(&path).with_context(|| format!("could not remove {}", path.display()))?;
    } else {
        fsio::create_dir(path.parent().expect("has a parent"))?;
        fsio::write_atomic(&path, new.as_bytes())?;
    }
    Ok(true)
}

/// What `zo doctor` says of each agent wired in this project: the file, and whether the `zo`
/// it names runs here. (agent, file, problem or None).
pub fn check(root: &Path) -> Vec<(&'static str, &'static str, Option<String>)> {
    let mut out = Vec::new();
    let on_path = which(MCP_COMMAND);
    for (agent, file) in MCP_FILES {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else { continue };
        let command = if file.ends_with(".toml") {
            text.lines().any(|l| l.trim() == "[mcp_servers.zo]").then(|| MCP_COMMAND.to_string())
        } else {
            serde_json::from_str::<Value>(&text).ok().and_then(|v| v["mcpServers"]["zo"]["command"].as_str().map(str::to_string))
        };
        let problem = match command {
            None => Some(format!("{file} has no zo server; fix: zo init --agent {agent}")),
            Some(c) if c == MCP_COMMAND && on_path.is_none() => {
                Some(format!("{file} runs `zo`, which is not on PATH here; fix: cargo install --path . (or put zo on PATH)"))
            }
            Some(c) if c != MCP_COMMAND && !Path::new(&c).is_file() => Some(format!("{file} runs {c}, which does not exist")),
            Some(_) => None,
        };
        out.push((*agent, *file, problem));
    }
    if let Ok(text) = std::fs::read_to_string(root.join(".claude/settings.json")) {
        let wired = text.contains("zo hook claude");
        let problem = if !wired {
            Some(".claude/settings.json has no zo hooks; fix: zo init --agent claude".to_string())
        } else if on_path.is_none() {
            Some(".claude/settings.json hooks run `zo`, which is not on PATH here; fix: cargo install --path .".to_string())
        } else {
            None
        };
        if wired || root.join(".mcp.json").exists() {
            out.push(("claude", ".claude/settings.json", problem));
        }
    }
    out
}

/// The first `name` on PATH.
fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|f| f.is_file()))
}

/// A client's JSON settings file: its value, `{}` when missing or empty, None when there is
/// nothing to remove from; broken JSON is an error naming file:line:col, and nothing changes.
fn read_json(path: &Path, remove: bool) -> Result<Option<Value>> {
    match std::fs::read_to_string(path).ok().filter(|t| !t.trim().is_empty()) {
        Some(t) => serde_json::from_str(&t).map(Some).map_err(|e| {
            anyhow!("{}:{}:{}: not valid JSON ({e}); fix it and run again, nothing was changed", path.display(), e.line(), e.column())
        }),
        None if remove => Ok(None),
        None => Ok(Some(json!({}))),
    }
}
