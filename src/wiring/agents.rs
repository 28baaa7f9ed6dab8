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

/// The project files that wire an MCP client to zo, by agent.
pub const MCP_FILES: &[(&str, &str)] = &[("claude", ".mcp.json"), ("cursor", ".cursor/mcp.json"), ("codex", ".codex/config.toml")];
const BEGIN: &str = "<!-- zo:begin";
const END: &str = "<!-- zo:end -->";
const SLASH_COMMAND: &str = ".claude/commands/zo-recall.md";
/// What older versions wrote: `/memory` is a Claude Code built-in, and subdirectory commands
/// are not invoked as `/memory:recall`, so that command never ran.
const OLD_SLASH_COMMAND: &str = ".claude/commands/memory/recall.md";

/// What `wire` did: files (or zo's part of a file) added, removed, and zo wiring left in place
/// because another agent still relies on it (with why).
#[derive(Debug, Default)]
pub struct Changes {
    /// Files zo created.
    pub added: Vec<String>,
    /// Files that were there and zo added its part to (or brought its part up to date).
    pub updated: Vec<String>,
    pub removed: Vec<String>,
    pub kept: Vec<String>,
}

impl Changes {
    /// A file zo wrote into (`whole`: created, or deleted) or took its part `what` out of.
    fn file(&mut self, remove: bool, whole: bool, file: &str, what: &str) {
        match (remove, whole) {
            (false, true) => self.added.push(file.to_string()),
            (false, false) => self.updated.push(format!("{file} ({what})")),
            (true, true) => self.removed.push(file.to_string()),
            (true, false) => self.removed.push(format!("{file} ({what})")),
        }
    }
}

/// Add (or with `remove`, take out) zo's wiring for `agent`.
pub fn wire(root: &Path, agent: &str, remove: bool) -> Result<Changes> {
    let mut ch = Changes::default();
    // Every file is read, checked and edited here first; only when all are good is anything
    // written (a broken one is an error naming it, and no file has been touched).
    let mut st = Staged::default();
    match agent {
        "claude" => {
            // A CLAUDE.md that is a link to AGENTS.md beside it (a common way to give every
            // agent one file): zo's block goes into AGENTS.md, shared, naming claude too.
            if claude_md_links_to_agents_md(root) {
                block(&mut st, root, "AGENTS.md", agent, SHARED_NOTE, remove, &mut ch)?;
            } else {
                let note = "Claude Code's SessionEnd hook records a bare session if you do not";
                block(&mut st, root, "CLAUDE.md", agent, note, remove, &mut ch)?;
            }
            if let Some(gone) = edit_hooks(&mut st, root, ".claude/settings.json", templates::CLAUDE_HOOKS, Shape::Groups, remove)? {
                ch.file(remove, gone, ".claude/settings.json", "zo's hooks");
            }
            if let Some(gone) = mcp_json(&mut st, root, ".mcp.json", remove)? {
                ch.file(remove, gone, ".mcp.json", "zo's server");
            }
            let old = root.join(OLD_SLASH_COMMAND);
            let old_ours = fsio::read_string(&old).is_ok_and(|t| t.contains("zo recall \"$ARGUMENTS\""));
            if old_ours {
                st.delete(&old);
                ch.removed.push(OLD_SLASH_COMMAND.into());
            }
            let cmd = root.join(SLASH_COMMAND);
            // Read like every other file here: a link, a FIFO, a directory or a non-directory
            // on the way is an error now, before anything is written.
            let current = st.read(&cmd)?;
            if remove {
                if current.as_deref().is_some_and(is_our_recall) {
                    st.delete(&cmd);
                    ch.removed.push(SLASH_COMMAND.into());
                }
            } else if current.is_none() || current.as_deref().is_some_and(|t| t != templates::CLAUDE_RECALL && is_our_recall(t)) {
                // Missing, or an older zo's copy: (re)written. A user's own edit is left alone.
                st.write(&cmd, templates::CLAUDE_RECALL.to_string());
                if current.is_some() { ch.updated.push(SLASH_COMMAND.into()) } else { ch.added.push(SLASH_COMMAND.into()) }
            }
            st.apply()?;
            if old_ours {
                // Its directory goes too when that left it empty.
                let _ = fsio::remove_dir(old.parent().expect("has a parent"));
            }
            if remove {
                remove_empty_dirs(root, &[".claude/commands", ".claude"], &mut ch);
            }
        }
        "cursor" | "codex" | "generic" => {
            let note = SHARED_NOTE;
            // The MCP file goes first, so that the block's users are counted without it.
            if agent == "cursor" {
                if let Some(gone) = mcp_json(&mut st, root, ".cursor/mcp.json", remove)? {
                    ch.file(remove, gone, ".cursor/mcp.json", "zo's server");
                }
                if let Some(gone) = edit_hooks(&mut st, root, ".cursor/hooks.json", templates::CURSOR_HOOKS, Shape::Flat, remove)? {
                    ch.file(remove, gone, ".cursor/hooks.json", "zo's hooks");
                }
            }
            if agent == "codex" {
                if let Some(gone) = codex_config(&mut st, root, remove)? {
                    ch.file(remove, gone, ".codex/config.toml", "[mcp_servers.zo]");
                }
                // Codex took Claude Code's hook format: event → matcher groups → commands.
                if let Some(gone) = edit_hooks(&mut st, root, ".codex/hooks.json", templates::CODEX_HOOKS, Shape::Groups, remove)? {
                    ch.file(remove, gone, ".codex/hooks.json", "zo's hooks");
                }
            }
            block(&mut st, root, "AGENTS.md", agent, note, remove, &mut ch)?;
            st.apply()?;
            if remove {
                remove_empty_dirs(root, &[".cursor", ".codex"], &mut ch);
            }
        }
        other => bail!("unknown agent {other:?}; supported: {}", AGENTS.join(", ")),
    }
    Ok(ch)
}

/// The files `wire` changes, staged: each new text (or None: delete) by path, in order. Reads
/// during the same `wire` see what is staged, so a later step counts what an earlier one did
/// (the AGENTS.md block's users, without a server just taken out).
#[derive(Default)]
struct Staged {
    files: Vec<(std::path::PathBuf, Option<String>)>,
}

impl Staged {
    fn write(&mut self, path: &Path, text: String) {
        self.files.retain(|(p, _)| p != path);
        self.files.push((path.to_path_buf(), Some(text)));
    }

    fn delete(&mut self, path: &Path) {
        self.files.retain(|(p, _)| p != path);
        self.files.push((path.to_path_buf(), None));
    }

    /// The text at `path` as `wire` will leave it: staged, else read (confined: a link, a FIFO
    /// or a huge file is refused by name, never read as missing).
    fn read(&self, path: &Path) -> Result<Option<String>> {
        match self.files.iter().find(|(p, _)| p == path) {
            Some((_, staged)) => Ok(staged.clone()),
            None => Ok(fsio::read_text(path)?.map(|t| t.as_str().to_string())),
        }
    }

    /// Write and delete what is staged, creating directories as needed.
    fn apply(self) -> Result<()> {
        for (path, text) in self.files {
            match text {
                Some(text) => {
                    fsio::create_dir(path.parent().expect("a file in a directory"))?;
                    fsio::write_atomic(&path, text.as_bytes())?;
                }
                None => fsio::remove_file(&path)?,
            }
        }
        Ok(())
    }
}

/// How the block in AGENTS.md, which several agents share, says sessions end.
const SHARED_NOTE: &str = "or have your tool's session-end hook run it";

/// Whether `CLAUDE.md` is a symbolic link to `AGENTS.md` in the same directory. Only the link's
/// own text is read (the link is never followed): any other target is refused as every link in
/// a repository is, when the block is written.
fn claude_md_links_to_agents_md(root: &Path) -> bool {
    let path = root.join("CLAUDE.md");
    std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink())
        && std::fs::read_link(&path).is_ok_and(|t| t == Path::new("AGENTS.md") || t == Path::new("./AGENTS.md"))
}

/// Remove each of `dirs` (relative to `root`, innermost first) if it is an empty directory:
/// what zo created for its own files and emptied again. A directory with anything in it stays.
fn remove_empty_dirs(root: &Path, dirs: &[&str], ch: &mut Changes) {
    for d in dirs {
        let path = root.join(d);
        let empty = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) && std::fs::read_dir(&path).is_ok_and(|mut it| it.next().is_none());
        if empty && fsio::remove_dir(&path).is_ok() {
            ch.removed.push(format!("{d}/"));
        }
    }
}

/// Whether a `/zo-recall` command file is zo's (this version's, or an older one's that differs
/// only in the frontmatter's quoting), so `--remove` may delete it and `init` may update it.
fn is_our_recall(text: &str) -> bool {
    let plain = |s: &str| s.replace('"', "");
    [templates::CLAUDE_RECALL, RECALL_BEFORE_ALSO].iter().any(|ours| text == *ours || plain(text) == plain(ours))
}

/// `/zo-recall` as zo wrote it before it taught `--also` (issue 23): still zo's, so updated.
pub const RECALL_BEFORE_ALSO: &str = r#"---
description: "Recall from the project's memory (zo): the decisions, lessons and sessions that answer a question"
argument-hint: <question in plain language>
allowed-tools: Bash(zo recall:*)
---
Look up the question below in the project's memory with zo.

<question>
$ARGUMENTS
</question>

Run `zo recall` with that question as one single-quoted shell argument, writing each `'` inside
it as `'\''` (for example `zo recall 'why did we pick Postgres?'`). Never put the question in
double quotes: `$` and backquotes in it must stay text.

Answer from the entries it prints and cite their IDs (D-…, PR-…). If they do not answer the
question, say so; `zo recall -k 10 '…'`, `zo log` and `zo show ID` show more.
"#;

/// The agents a block's opening line names: `zo init --agent codex|cursor` (this version), or
/// an older block's `zo init --agent cursor --remove`.
fn block_agents(text: &str) -> Vec<String> {
    let Some(start) = text.find(BEGIN) else { return Vec::new() };
    let line = text[start..].lines().next().unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    for (i, _) in line.match_indices("--agent ") {
        let rest = &line[i + "--agent ".len()..];
        let word: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '|').collect();
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
    if read(".cursor/mcp.json").and_then(|t| serde_json::from_str::<Value>(&t).ok()).is_some_and(|v| v["mcpServers"]["zo"].is_object()) {
        out.push("cursor");
    }
    if read(".codex/config.toml").is_some_and(|t| codex_has_zo(&t)) {
        out.push("codex");
    }
    out
}

/// Whether a `.codex/config.toml` names a `zo` server, in any TOML form.
fn codex_has_zo(text: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| d.get("mcp_servers").and_then(|s| s.as_table_like()).map(|s| s.contains_key("zo")))
        .unwrap_or(false)
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

/// Put zo's block into (or take it out of) a Markdown file agents read. AGENTS.md is shared
/// by cursor, codex and generic: the block's opening line lists the agents wired to it, and
/// `remove` takes the block out only when no other agent is left (it then names the rest).
fn block(st: &mut Staged, root: &Path, file: &str, agent: &str, note: &str, remove: bool, ch: &mut Changes) -> Result<()> {
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
    let had_block = old.as_deref().is_some_and(|t| t.contains(BEGIN));
    let new = match old.as_deref() {
        _ if agents.is_empty() => old.as_deref().map(without_block).unwrap_or_default(),
        // Nothing of zo's to keep up to date where an agent only removes its name.
        _ if remove && !had_block => old.clone().unwrap_or_default(),
        old => {
            let block = templates::AGENT_BLOCK.replace("{agent}", &agents.join("|")).replace("{session_note}", note);
            with_block(old.unwrap_or(""), &block)
        }
    };
    if remove && !agents.is_empty() && had_block {
        ch.kept.push(format!("{file} (zo's block: {} still use{} it)", agents.join(", "), if agents.len() == 1 { "s" } else { "" }));
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
    if let Some(start) = text.find(BEGIN) {
        let end = text[start..].find(END).map_or(text.len(), |e| start + e + END.len());
        let end = if text[end..].starts_with('\n') { end + 1 } else { end };
        let block = if end == text.len() || block.ends_with('\n') { block.to_string() } else { format!("{block}\n") };
        return format!("{}{block}{}", &text[..start], &text[end..]);
    }
    if text.trim().is_empty() { block.to_string() } else { format!("{}\n\n{block}", text.trim_end_matches('\n')) }
}

/// Whether a hook command is one of zo's (this version's or an older one's).
fn is_zo_command(c: &str) -> bool {
    ["zo hook ", "zo -q hook ", "zo session start --agent claude", "zo -q session end --agent claude"].iter().any(|p| c.starts_with(p))
}

/// How an agent's hooks file lists the commands of an event: Claude Code and Codex in matcher
/// groups (`[{"matcher": "", "hooks": [{"command": …}]}]`), Cursor flat (`[{"command": …}]`,
/// beside a `"version": 1` that zo adds and takes away with its last hook).
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Groups,
    Flat,
}

/// Merge zo's hook entries (`template`: event → entry) into an agent's hooks file (Claude
/// Code's `.claude/settings.json`, Codex's and Cursor's hooks files), or take them out: zo's
/// older entries are replaced, everything else is kept. None if nothing changed, else whether
/// the whole file was created or (left empty by the removal) deleted.
fn edit_hooks(st: &mut Staged, root: &Path, file: &str, template: &str, shape: Shape, remove: bool) -> Result<Option<bool>> {
    let path = root.join(file);
    let Some((mut settings, existed)) = read_json(st, &path, remove)? else { return Ok(None) };
    let before = settings.clone();
    let wanted: Value = serde_json::from_str(template).context("zo's hooks template")?;
    let obj = settings.as_object_mut().ok_or_else(|| anyhow!("{} is not a JSON object; nothing was changed", path.display()))?;
    if shape == Shape::Flat && !remove {
        obj.entry("version").or_insert(json!(1));
    }
    let hooks = obj.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| anyhow!("`hooks` in {} is not an object; nothing was changed", path.display()))?;
    for (event, entry) in wanted.as_object().expect("template is an object") {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let list = list.as_array_mut().ok_or_else(|| anyhow!("`hooks.{event}` in {} is not a list; nothing was changed", path.display()))?;
        if !remove && list.iter().any(|m| m == entry) {
            continue;
        }
        let zo_command = |h: &Value| h["command"].as_str().is_some_and(is_zo_command);
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
fn mcp_json(st: &mut Staged, root: &Path, file: &str, remove: bool) -> Result<Option<bool>> {
    let path = root.join(file);
    let Some((mut v, existed)) = read_json(st, &path, remove)? else { return Ok(None) };
    let before = v.clone();
    let obj = v.as_object_mut().ok_or_else(|| anyhow!("{} is not a JSON object; nothing was changed", path.display()))?;
    let servers = obj.entry("mcpServers").or_insert_with(|| json!({}));
    let servers = servers.as_object_mut().ok_or_else(|| anyhow!("`mcpServers` in {} is not an object; nothing was changed", path.display()))?;
    if remove {
        servers.remove("zo");
        if servers.is_empty() {
            obj.remove("mcpServers");
        }
    } else {
        servers.entry("zo").or_insert_with(|| json!({"command": MCP_COMMAND, "args": ["mcp"]}));
    }
    save_json(st, &path, &v, &before, existed, remove)
}

/// Write a client's JSON file back after zo changed `value` (from `before`): nothing when
/// unchanged (None); removed when a removal left it an empty object (Some(true)); else
/// written, Some(whether it was created).
fn save_json(st: &mut Staged, path: &Path, value: &Value, before: &Value, existed: bool, remove: bool) -> Result<Option<bool>> {
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
fn codex_config(st: &mut Staged, root: &Path, remove: bool) -> Result<Option<bool>> {
    let path = root.join(".codex/config.toml");
    let text = st.read(&path)?.unwrap_or_default();
    let mut doc = parse_toml(&path, &text)?;
    let has = doc.get("mcp_servers").and_then(|t| t.as_table_like()).is_some_and(|t| t.contains_key("zo"));
    match (has, remove) {
        (false, false) => {
            let servers = doc.entry("mcp_servers").or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            });
            let Some(servers) = servers.as_table_like_mut() else { bail!("{}: `mcp_servers` is not a table; nothing was changed", path.display()) };
            let mut zo = toml_edit::Table::new();
            zo.insert("command", toml_edit::value(MCP_COMMAND));
            let mut args = toml_edit::Array::new();
            args.push("mcp");
            zo.insert("args", toml_edit::value(args));
            servers.insert("zo", toml_edit::Item::Table(zo));
        }
        (true, true) => {
            let servers = doc["mcp_servers"].as_table_like_mut().expect("checked above");
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
    let new = if text.is_empty() { new.trim_start().to_string() } else { new.replace("\n\n\n[", "\n\n[") };
    st.write(&path, new);
    Ok(Some(text.is_empty()))
}

/// A TOML document, or an error naming the file and line.
fn parse_toml(path: &Path, text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        let line = e.span().map_or(1, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        anyhow!("{}:{line}: not valid TOML ({}); fix it and run again, nothing was changed", path.display(), e.message())
    })
}

/// Whether Claude Code settings run zo's own hook for `event` (`SessionStart`, …): the
/// project's `.claude/settings.json` or `.claude/settings.local.json` under any of `dirs`, or the
/// user's `~/.claude/settings.json` under `home`. The plugin's hooks (`zo hook claude --plugin`)
/// then do nothing: Claude Code runs a plugin's hook and a settings file's hook both, even with
/// the same command (it dedupes identical commands only among settings files), so without this
/// a project wired by `zo init --agent claude` would get every hook twice from the plugin. A
/// file that cannot be read or parsed counts as not running zo: the plugin's hook runs.
pub fn settings_run_hook(dirs: &[&Path], home: Option<&Path>, event: &str) -> bool {
    if event.is_empty() {
        return false;
    }
    let project = dirs.iter().flat_map(|d| [d.join(".claude/settings.json"), d.join(".claude/settings.local.json")]).map(|f| (f, false));
    // The user's own file is trusted and often a link (stow, home-manager): followed.
    let files: Vec<(std::path::PathBuf, bool)> = project.chain(home.map(|h| (h.join(".claude/settings.json"), true))).collect();
    files.iter().any(|(f, trusted)| {
        // Bounded, and never through a link in a project: its files are a clone's, untrusted.
        let file = if *trusted {
            std::fs::metadata(f).is_ok_and(|m| m.is_file()).then(|| std::fs::File::open(f).ok()).flatten()
        } else {
            fsio::open_regular(f).ok().flatten()
        };
        let Some(file) = file else { return false };
        let Ok(bytes) = fsio::read_bounded(file, f, 1 << 20) else { return false };
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else { return false };
        v["hooks"][event].as_array().is_some_and(|groups| {
            groups.iter().filter_map(|g| g["hooks"].as_array()).flatten().any(|h| {
                h["command"].as_str().map(str::trim).is_some_and(|c| {
                    // zo on PATH, or by its path (`/opt/bin/zo hook claude`).
                    (is_zo_command(c) || c.contains("/zo hook ") || c.contains("/zo -q hook ")) && !c.contains("--plugin")
                })
            })
        })
    })
}

/// What `zo doctor` says of each agent wired in this project: the file, and whether the `zo`
/// it names runs here. (agent, file, problem or None).
pub fn check(root: &Path) -> Vec<(&'static str, &'static str, Option<String>)> {
    let mut out = Vec::new();
    let on_path = crate::store::environment::on_path(MCP_COMMAND);
    for (agent, file) in MCP_FILES {
        let Ok(text) = fsio::read_string(root.join(file)) else { continue };
        let command = if file.ends_with(".toml") {
            text.parse::<toml_edit::DocumentMut>()
                .ok()
                .and_then(|d| d.get("mcp_servers").and_then(|s| s.get("zo")).and_then(|z| z.get("command")).and_then(|c| c.as_str()).map(str::to_string))
        } else {
            serde_json::from_str::<Value>(&text).ok().and_then(|v| v["mcpServers"]["zo"]["command"].as_str().map(str::to_string))
        };
        let problem = match command {
            None => Some(format!("{file} has no zo server; fix: zo init --agent {agent}")),
            Some(c) if c == MCP_COMMAND && on_path.is_none() => {
                Some(format!("{file} runs `zo`, which is not on PATH here; fix: cargo install --locked --path . (or put zo on PATH)"))
            }
            Some(c) if c != MCP_COMMAND && !Path::new(&c).is_file() => Some(format!("{file} runs {c}, which does not exist")),
            Some(_) => None,
        };
        out.push((*agent, *file, problem));
    }
    // The hook files: zo's hooks run `zo` from PATH too.
    for (agent, file, marker, companion) in [
        ("claude", ".claude/settings.json", "zo hook claude", ".mcp.json"),
        ("cursor", ".cursor/hooks.json", "hook cursor", ".cursor/mcp.json"),
        ("codex", ".codex/hooks.json", "hook codex", ".codex/config.toml"),
    ] {
        let Ok(text) = fsio::read_string(root.join(file)) else { continue };
        let wired = text.contains(marker);
        let problem = if !wired {
            Some(format!("{file} has no zo hooks; fix: zo init --agent {agent}"))
        } else if on_path.is_none() {
            Some(format!("{file} hooks run `zo`, which is not on PATH here; fix: cargo install --locked --path ."))
        } else {
            None
        };
        if wired || root.join(companion).exists() {
            out.push((agent, file, problem));
        }
    }
    out
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
            .map_err(|e| anyhow!("{}:{}:{}: not valid JSON ({e}); fix it and run again, nothing was changed", path.display(), e.line(), e.column())),
        None if remove => Ok(None),
        None => Ok(Some((json!({}), existed))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// The plugin's hook steps aside exactly where a settings file already runs zo's hook for
    /// the same event; everywhere else it is the one that runs.
    #[test]
    fn plugin_hooks_step_aside_only_where_settings_run_zo() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let (p, h) = (project.path(), home.path());
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"), "nothing wired: the plugin runs");
        // What `zo init --agent claude` writes.
        wire(p, "claude", false).unwrap();
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        assert!(settings_run_hook(&[p], Some(h), "SessionEnd"));
        assert!(!settings_run_hook(&[p], Some(h), "UserPromptSubmit"), "an event settings do not run is the plugin's");
        assert!(!settings_run_hook(&[p], Some(h), ""));
        wire(p, "claude", false).unwrap();
        wire(p, "claude", true).unwrap();
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        // The local settings file and the user's count too; a path to zo as well.
        let hook = |cmd: &str| format!(r#"{{"hooks": {{"SessionStart": [{{"matcher": "", "hooks": [{{"type": "command", "command": "{cmd}"}}]}}]}}}}"#);
        settings(p, ".claude/settings.local.json", &hook("/opt/bin/zo hook claude"));
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        std::fs::remove_file(p.join(".claude/settings.local.json")).unwrap();
        settings(h, ".claude/settings.json", &hook("zo hook claude"));
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        assert!(!settings_run_hook(&[p], None, "SessionStart"));
        // The plugin's own command copied into settings, someone else's hook, broken JSON: the
        // plugin runs.
        settings(h, ".claude/settings.json", &hook("zo hook claude --plugin"));
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        settings(h, ".claude/settings.json", &hook("echo zo hook claude"));
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        settings(h, ".claude/settings.json", "{ broken");
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
    }
}
