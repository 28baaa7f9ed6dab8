//! `zo hook claude|codex`: what Claude Code's and Codex's hooks run (Codex took Claude Code's
//! events and JSON; its SessionStart context goes in `hookSpecificOutput.additionalContext`), with the event as JSON on stdin
//! (`hook_event_name`, `cwd`, `session_id`; `source` for SessionStart; `stop_hook_active` for
//! Stop). The plugin is installed per user, so these hooks run in every project: where there is
//! no zo memory they print nothing and exit 0 (`--verbose` says why, on stderr).
//!
//! - SessionStart: starts a session on startup or /clear; on resume and after a compaction the
//!   bundle is printed again, the open session keeps its baseline, and after a compaction the
//!   bundle opens with the session's progress saved by PreCompact.
//! - PreCompact: saves the session's progress so far (what it recorded, the files it changed).
//! - Stop: once per session, when the session changed tracked files but recorded nothing, asks
//!   the agent to record its decisions and lessons or say there were none (Claude Code's Stop
//!   protocol: `{"decision": "block", "reason": …}`; never when `stop_hook_active`). Off with
//!   `agents.stop_reminder: false` in .zo/config.yaml.
//! - SessionEnd: writes a session file only when something happened, and never loads the model
//!   (Claude Code kills SessionEnd hooks after about 1.5 s).

use super::Ctx;
use crate::cli::HookArgs;
use crate::error::Error;
use crate::store::memory::Memory;
use crate::lifecycle::record;
use crate::lifecycle::session::{self, Ending};
use anyhow::Result;
use std::path::PathBuf;

/// Claude Code keeps hook output over about 10,000 characters in a file and shows the model a
/// 2 KB preview; the bundle stays under this by default (`agents.bundle_chars`).
pub const BUNDLE_CHARS: usize = 9000;

#[derive(serde::Deserialize, Default)]
struct Event {
    #[serde(default)]
    hook_event_name: String,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    stop_hook_active: bool,
}

/// Where the project is: `--repo` / `ZO_REPO` when given, else the event's `cwd`, else
/// `$CLAUDE_PROJECT_DIR`, else the process directory.
fn project_dir(ctx: &Ctx, event: &Event) -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    ctx.repo.clone().or_else(|| env("ZO_REPO")).or_else(|| event.cwd.clone().filter(|c| c.is_dir())).or_else(|| env("CLAUDE_PROJECT_DIR"))
}

pub fn run(ctx: &Ctx, a: HookArgs) -> Result<()> {
    let agent = a.agent.as_str();
    if agent != "claude" && agent != "codex" {
        return Err(Error::usage(format!("zo hook supports claude and codex, not {agent:?}")).into());
    }
    let input = super::read_input(std::path::Path::new("-"))?;
    let event: Event = if input.trim().is_empty() {
        Event::default()
    } else {
        serde_json::from_str(&input)
            .map_err(|e| Error::usage(format!("<stdin>:{}:{}: not a Claude Code hook event: {e}", e.line(), e.column())))?
    };
    let project = project_dir(ctx, &event);
    // Claude Code merges identical hooks from settings files but runs a plugin's copy as well
    // (anthropics/claude-code#76297): the plugin's hook steps aside where settings run zo.
    if a.plugin {
        let cwd = std::env::current_dir().ok();
        let dirs: Vec<&std::path::Path> = [project.as_deref(), event.cwd.as_deref(), cwd.as_deref()].into_iter().flatten().collect();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if crate::wiring::agents::settings_run_hook(&dirs, home.as_deref(), &event.hook_event_name) {
            return Ok(());
        }
    }
    let memory = match Memory::open(project.as_deref()) {
        Ok(m) => m,
        Err(e) if matches!(crate::error::kind(&e), Some(Error::NoMemory(_))) => {
            if a.verbose {
                super::say(&format!("zo: {e:#}\n"));
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    match event.hook_event_name.as_str() {
        "SessionEnd" => {
            let ending = Ending { agent: Some(agent.into()), ..Default::default() };
            if let Some(ended) = session::end(&memory, &ending, true)? {
                ctx.note(format!("{} written", ended.file));
            }
            Ok(())
        }
        "SessionStart" | "" => {
            let resumed = matches!(event.source.as_deref(), Some("resume" | "compact"));
            let open = record::current(&memory).filter(|_| resumed);
            if open.is_none() {
                record::start_as(&memory, Some(agent.into()), None, event.session_id.clone())?;
            }
            let mut b = super::context::bundle(ctx, &memory, None, None)?;
            if event.source.as_deref() == Some("compact") {
                if let Some(p) = open.and_then(|r| r.progress) {
                    b.insert_early("This session so far", p.markdown());
                }
            }
            b.fit_chars(bundle_chars(&memory));
            if agent == "codex" {
                // Codex adds a SessionStart hook's context only from this JSON (its output
                // schema refuses other fields); plain stdout is not read.
                let r = crate::ops::ContextReport::from(b);
                let out = serde_json::json!({ "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": r.markdown } });
                return ctx.print(&format!("{out}\n"));
            }
            super::context::print(ctx, b)
        }
        "PreCompact" => {
            if let Some(mut rec) = record::current(&memory) {
                rec.progress = Some(record::progress(&memory, &rec)?);
                record::save(&memory, &rec)?;
            }
            Ok(())
        }
        "Stop" => stop(ctx, &memory, &event),
        // A hook must never break the agent's session: other events are not zo's business.
        other => {
            if a.verbose {
                super::say(&format!("zo hook {agent}: nothing to do for {other:?}\n"));
            }
            Ok(())
        }
    }
}

/// `agents.bundle_chars` from config (checked when the config was read), else `BUNDLE_CHARS`.
fn bundle_chars(memory: &Memory) -> usize {
    memory.layout.config.u64(&["agents", "bundle_chars"]).map_or(BUNDLE_CHARS, |n| n as usize)
}

/// The Stop hook: once per session, ask the agent to record what it decided.
fn stop(ctx: &Ctx, memory: &Memory, event: &Event) -> Result<()> {
    // Checked when the config was read (settings).
    let on = memory.layout.config.get(&["agents", "stop_reminder"]).and_then(|v| v.as_bool()) != Some(false);
    if !on || event.stop_hook_active {
        return Ok(());
    }
    let Some(mut rec) = record::current(memory) else { return Ok(()) };
    if rec.stop_asked || record::wrote_since(memory, &rec) {
        return Ok(());
    }
    let files = record::touched(memory, &rec);
    if files.is_empty() {
        return Ok(());
    }
    rec.stop_asked = true;
    record::save(memory, &rec)?;
    let shown: Vec<&str> = files.iter().take(8).map(String::as_str).collect();
    let more = files.len().saturating_sub(shown.len());
    let mut list = shown.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    let reason = crate::templates::STOP_REMINDER.replace("{n}", &files.len().to_string()).replace("{files}", &list);
    let out = serde_json::json!({ "decision": "block", "reason": reason.trim_end() });
    ctx.print(&format!("{out}\n"))
}
