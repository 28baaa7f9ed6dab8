//! zo's marked block in the Markdown files agents read (CLAUDE.md, AGENTS.md): written in place
//! of an older one, and shared in AGENTS.md by the agents its opening line names.

use super::{AGENTS, Changes, Staged};
use crate::templates;
use anyhow::Result;
use serde_json::Value;
use std::path::Path;

const BEGIN: &str = "<!-- zo:begin";
const END: &str = "<!-- zo:end -->";

/// Where zo's block is: from a line opening with the begin marker to the end marker's line,
/// that line's newline included. A marker inside a line, or a begin without its end, is
/// someone's text (a note about zo's markers), never a block: taking it for one lost the
/// rest of the file on `--remove`.
fn find_block(text: &str) -> Option<(usize, usize)> {
    let at_line_start = |i: usize| i == 0 || text.as_bytes()[i - 1] == b'\n';
    let start = text
        .match_indices(BEGIN)
        .map(|(i, _)| i)
        .find(|&i| at_line_start(i))?;
    let end = text[start..]
        .match_indices(END)
        .map(|(i, _)| start + i)
        .find(|&i| at_line_start(i))?
        + END.len();
    Some((
        start,
        if text[end..].starts_with('\n') {
            end + 1
        } else {
            end
        },
    ))
}

/// The agents a block's opening line names: `zo init --agent codex|cursor` (this version), or
/// an older block's `zo init --agent cursor --remove`.
fn block_agents(text: &str) -> Vec<String> {
    let Some((start, _)) = find_block(text) else {
        return Vec::new();
    };
    let line = text[start..].lines().next().unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    for (i, _) in line.match_indices("--agent ") {
        let rest = &line[i + "--agent ".len()..];
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '|')
            .collect();
        for a in word.split('|').filter(|a| AGENTS.contains(a)) {
            if !out.iter().any(|o| o == a) {
                out.push(a.to_string());
            }
        }
    }
    out
}

/// Agents sharing AGENTS.md whose own MCP wiring is in the project: they rely on the block
/// even when an older block did not list them.
fn wired_elsewhere(st: &Staged, root: &Path) -> Vec<&'static str> {
    let mut out = Vec::new();
    let read = |f: &str| st.read(&root.join(f)).ok().flatten();
    if read(".cursor/mcp.json")
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v["mcpServers"]["zo"].is_object())
    {
        out.push("cursor");
    }
    if read(".codex/config.toml").is_some_and(|t| codex_has_zo(&t)) {
        out.push("codex");
    }
    if read("opencode.json")
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v["mcp"]["zo"].is_object())
    {
        out.push("opencode");
    }
    if read(".github/mcp.json")
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v["mcpServers"]["zo"].is_object())
    {
        out.push("copilot");
    }
    out
}

/// Whether a `.codex/config.toml` names a `zo` server, in any TOML form.
fn codex_has_zo(text: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| {
            d.get("mcp_servers")
                .and_then(|s| s.as_table_like())
                .map(|s| s.contains_key("zo"))
        })
        .unwrap_or(false)
}

/// The text without zo's marked block (and the blank line that preceded it).
fn without_block(text: &str) -> String {
    let Some((start, end)) = find_block(text) else {
        return text.to_string();
    };
    let head = text[..start].trim_end_matches('\n');
    let tail = &text[end..];
    match (head.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_string(),
        (false, true) => format!("{head}\n"),
        (false, false) => format!("{head}\n\n{tail}"),
    }
}

/// Put zo's block into (or take it out of) a Markdown file agents read. AGENTS.md is shared
/// by cursor, codex, opencode, copilot and generic: the block's opening line lists the agents wired to it, and
/// `remove` takes the block out only when no other agent is left (it then names the rest).
pub(super) fn block(
    st: &mut Staged,
    root: &Path,
    file: &str,
    agent: &str,
    note: &str,
    remove: bool,
    ch: &mut Changes,
) -> Result<()> {
    let path = root.join(file);
    let old = st.read(&path)?;
    let mut agents = old.as_deref().map(block_agents).unwrap_or_default();
    if file == "AGENTS.md" {
        for a in wired_elsewhere(st, root) {
            if !agents.iter().any(|x| x == a) {
                agents.push(a.to_string());
            }
        }
    }
    agents.retain(|a| a != agent);
    if !remove {
        agents.push(agent.to_string());
    }
    agents.sort();
    let had_block = old.as_deref().is_some_and(|t| find_block(t).is_some());
    let new = match old.as_deref() {
        _ if agents.is_empty() => old.as_deref().map(without_block).unwrap_or_default(),
        // Nothing of zo's to keep up to date where an agent only removes its name.
        _ if remove && !had_block => old.clone().unwrap_or_default(),
        old => {
            let block = templates::AGENT_BLOCK
                .replace("{agent}", &agents.join("|"))
                .replace("{session_note}", note);
            with_block(old.unwrap_or(""), &block)
        }
    };
    if remove && !agents.is_empty() && had_block {
        ch.kept.push(format!(
            "{file} (zo's block: {} still use{} it)",
            agents.join(", "),
            if agents.len() == 1 { "s" } else { "" }
        ));
    }
    if old.as_deref().unwrap_or("") == new {
        return Ok(());
    }
    if new.trim().is_empty() {
        st.delete(&path);
        ch.removed.push(file.to_string());
    } else {
        st.write(&path, new);
        if remove && agents.is_empty() {
            ch.removed.push(format!("{file} (zo's block)"));
        } else if !remove && old.is_some() {
            ch.updated.push(format!("{file} (zo's block)"));
        } else if !remove {
            ch.added.push(file.to_string());
        }
    }
    Ok(())
}

/// The text with zo's block in place of the old one (where it was), or appended.
fn with_block(text: &str, block: &str) -> String {
    if let Some((start, end)) = find_block(text) {
        let block = if end == text.len() || block.ends_with('\n') {
            block.to_string()
        } else {
            format!("{block}\n")
        };
        return format!("{}{block}{}", &text[..start], &text[end..]);
    }
    if text.trim().is_empty() {
        block.to_string()
    } else {
        format!("{}\n\n{block}", text.trim_end_matches('\n'))
    }
}
