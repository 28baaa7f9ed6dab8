//! Wiring for coding agents (`zo init --agent NAME [--remove]`): files in the project that tell
//! an agent when to use its memory and run zo at session start and end. Every change is merged
//! with what is there, marked as zo's, idempotent, and removable.
//!
//! Here: `wire` for each agent, staging its edits so that all or none are written, and Claude
//! Code's `/zo-recall` command. `block.rs` is zo's marked block in CLAUDE.md and AGENTS.md,
//! `settings.rs` the agents' own JSON and TOML settings (hooks, MCP servers), `check.rs` what
//! `zo doctor` and the plugin's hooks read back, `user.rs` the user's own Claude Code settings
//! (`zo setup --agent claude`).

use crate::store::fsio;
use crate::templates;
use anyhow::{Result, bail};
use std::path::Path;

mod block;
mod check;
mod settings;
mod user;

use block::block;
pub use check::{check, settings_run_hook};
use settings::{Shape, codex_config, edit_hooks, mcp_json, opencode_json};
pub use user::approve_claude_server;

pub const AGENTS: &[&str] = &[
    "claude", "cursor", "codex", "gemini", "qwen", "opencode", "copilot", "generic",
];

/// The MCP server entry every client gets: `zo mcp`, found on PATH.
pub const MCP_COMMAND: &str = "zo";
/// The stanza for clients zo does not write config for.
pub const MCP_STANZA: &str =
    "{\"mcpServers\": {\"zo\": {\"command\": \"zo\", \"args\": [\"mcp\"]}}}";

/// The project files that wire an MCP client to zo, by agent.
pub const MCP_FILES: &[(&str, &str)] = &[
    ("claude", ".mcp.json"),
    ("cursor", ".cursor/mcp.json"),
    ("codex", ".codex/config.toml"),
    ("gemini", ".gemini/settings.json"),
    ("qwen", ".qwen/settings.json"),
    ("opencode", "opencode.json"),
    ("copilot", ".github/mcp.json"),
];
/// Copilot CLI's hooks (it runs those of every JSON file in `.github/hooks/`).
pub const COPILOT_HOOKS_FILE: &str = ".github/hooks/zo.json";
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
        "claude" => claude(&mut st, root, remove, &mut ch)?,
        "gemini" | "qwen" => settings_agent(&mut st, root, agent, remove, &mut ch)?,
        "cursor" | "codex" | "opencode" | "copilot" | "generic" => {
            agents_md_agent(&mut st, root, agent, remove, &mut ch)?
        }
        other => bail!("unknown agent {other:?}; supported: {}", AGENTS.join(", ")),
    }
    Ok(ch)
}

/// Claude Code: its hooks, the project's `.mcp.json`, `/zo-recall` and the CLAUDE.md block.
fn claude(st: &mut Staged, root: &Path, remove: bool, ch: &mut Changes) -> Result<()> {
    let agent = "claude";
    // A CLAUDE.md that is a link to AGENTS.md beside it (a common way to give every agent one
    // file): zo's block goes into AGENTS.md, shared, naming claude too.
    if claude_md_links_to_agents_md(root) {
        block(st, root, "AGENTS.md", agent, SHARED_NOTE, remove, ch)?;
    } else {
        let note = "Claude Code's SessionEnd hook records a bare session if you do not";
        block(st, root, "CLAUDE.md", agent, note, remove, ch)?;
    }
    if let Some(gone) = edit_hooks(
        st,
        root,
        ".claude/settings.json",
        templates::CLAUDE_HOOKS,
        Shape::Groups,
        remove,
    )? {
        ch.file(remove, gone, ".claude/settings.json", "zo's hooks");
    }
    if let Some(gone) = mcp_json(st, root, ".mcp.json", remove)? {
        ch.file(remove, gone, ".mcp.json", "zo's server");
    }
    let old = root.join(OLD_SLASH_COMMAND);
    let old_ours = fsio::read_string(&old).is_ok_and(|t| t.contains("zo recall \"$ARGUMENTS\""));
    if old_ours {
        st.delete(&old);
        ch.removed.push(OLD_SLASH_COMMAND.into());
    }
    let cmd = root.join(SLASH_COMMAND);
    // Read like every other file here: a link, a FIFO, a directory or a non-directory on the
    // way is an error now, before anything is written.
    let current = st.read(&cmd)?;
    if remove {
        if current.as_deref().is_some_and(is_our_recall) {
            st.delete(&cmd);
            ch.removed.push(SLASH_COMMAND.into());
        }
    } else if current.is_none()
        || current
            .as_deref()
            .is_some_and(|t| t != templates::CLAUDE_RECALL && is_our_recall(t))
    {
        // Missing, or an older zo's copy: (re)written. A user's own edit is left alone.
        st.write(&cmd, templates::CLAUDE_RECALL.to_string());
        if current.is_some() {
            ch.updated.push(SLASH_COMMAND.into())
        } else {
            ch.added.push(SLASH_COMMAND.into())
        }
    }
    std::mem::take(st).apply()?;
    if old_ours {
        // Its directory goes too when that left it empty.
        let _ = fsio::remove_dir(old.parent().expect("has a parent"));
    }
    if remove {
        remove_empty_dirs(root, &[".claude/commands", ".claude"], ch);
    }
    Ok(())
}

/// Gemini CLI and Qwen Code: one settings file holds the server and the hooks (in each one's
/// event names); the block goes in the context file each reads first, as CLAUDE.md's.
fn settings_agent(
    st: &mut Staged,
    root: &Path,
    agent: &str,
    remove: bool,
    ch: &mut Changes,
) -> Result<()> {
    let (dir, hooks, file) = if agent == "gemini" {
        (".gemini", templates::GEMINI_HOOKS, "GEMINI.md")
    } else {
        (".qwen", templates::QWEN_HOOKS, "QWEN.md")
    };
    let settings = format!("{dir}/settings.json");
    let server = mcp_json(st, root, &settings, remove)?;
    let hooked = edit_hooks(st, root, &settings, hooks, Shape::Groups, remove)?;
    if server.is_some() || hooked.is_some() {
        // Whole: the first edit created the file, or the second left it empty.
        ch.file(
            remove,
            server == Some(true) || hooked == Some(true),
            &settings,
            "zo's server and hooks",
        );
    }
    block(
        st,
        root,
        file,
        agent,
        "its SessionEnd hook records a bare session if you do not",
        remove,
        ch,
    )?;
    std::mem::take(st).apply()?;
    if remove {
        remove_empty_dirs(root, &[dir], ch);
    }
    Ok(())
}

/// The agents that share the AGENTS.md block, each with its own server (and hooks) file.
fn agents_md_agent(
    st: &mut Staged,
    root: &Path,
    agent: &str,
    remove: bool,
    ch: &mut Changes,
) -> Result<()> {
    // The server's file goes first, so that the block's users are counted without it.
    let server = match agent {
        "cursor" => mcp_json(st, root, ".cursor/mcp.json", remove)?
            .map(|g| (g, ".cursor/mcp.json", "zo's server")),
        "codex" => {
            codex_config(st, root, remove)?.map(|g| (g, ".codex/config.toml", "[mcp_servers.zo]"))
        }
        "opencode" => opencode_json(st, root, remove)?.map(|g| (g, "opencode.json", "mcp.zo")),
        "copilot" => mcp_json(st, root, ".github/mcp.json", remove)?
            .map(|g| (g, ".github/mcp.json", "zo's server")),
        _ => None,
    };
    if let Some((gone, file, what)) = server {
        ch.file(remove, gone, file, what);
    }
    // Cursor's flat hook list; Codex took Claude Code's format (event → matcher groups);
    // Copilot CLI loads every `.github/hooks/*.json` (a flat list): zo's is a file of its own.
    let hooks = match agent {
        "cursor" => Some((".cursor/hooks.json", templates::CURSOR_HOOKS, Shape::Flat)),
        "codex" => Some((".codex/hooks.json", templates::CODEX_HOOKS, Shape::Groups)),
        "copilot" => Some((COPILOT_HOOKS_FILE, templates::COPILOT_HOOKS, Shape::Flat)),
        _ => None,
    };
    if let Some((file, template, shape)) = hooks {
        if let Some(gone) = edit_hooks(st, root, file, template, shape, remove)? {
            ch.file(remove, gone, file, "zo's hooks");
        }
    }
    block(st, root, "AGENTS.md", agent, SHARED_NOTE, remove, ch)?;
    std::mem::take(st).apply()?;
    if remove {
        remove_empty_dirs(root, &[".cursor", ".codex", ".github/hooks", ".github"], ch);
    }
    Ok(())
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
        && std::fs::read_link(&path)
            .is_ok_and(|t| t == Path::new("AGENTS.md") || t == Path::new("./AGENTS.md"))
}

/// Remove each of `dirs` (relative to `root`, innermost first) if it is an empty directory:
/// what zo created for its own files and emptied again. A directory with anything in it stays.
fn remove_empty_dirs(root: &Path, dirs: &[&str], ch: &mut Changes) {
    for d in dirs {
        let path = root.join(d);
        let empty = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
            && std::fs::read_dir(&path).is_ok_and(|mut it| it.next().is_none());
        if empty && fsio::remove_dir(&path).is_ok() {
            ch.removed.push(format!("{d}/"));
        }
    }
}

/// Whether a `/zo-recall` command file is zo's (this version's, or an older one's that differs
/// only in the frontmatter's quoting), so `--remove` may delete it and `init` may update it.
fn is_our_recall(text: &str) -> bool {
    let plain = |s: &str| s.replace('"', "");
    [templates::CLAUDE_RECALL, RECALL_BEFORE_ALSO]
        .iter()
        .any(|ours| text == *ours || plain(text) == plain(ours))
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
