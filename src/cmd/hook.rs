//! `zo hook claude|codex|cursor|gemini|qwen|copilot`: what Claude Code's, Codex's, Cursor's,
//! Gemini CLI's, Qwen Code's and Copilot CLI's hooks run (Codex and Qwen Code took Claude
//! Code's events and JSON, and so does Copilot CLI under PascalCase event names, though it
//! ignores a SessionStart hook's output and has no `stop_hook_active`;
//! Gemini CLI its groups and fields under its own event names: PreCompress for PreCompact,
//! AfterAgent for Stop; for Codex, Gemini and Qwen the SessionStart context goes in
//! `hookSpecificOutput.additionalContext`), with the event as JSON on stdin
//! (`hook_event_name`, `cwd`, `session_id`; `source` for SessionStart; `stop_hook_active` for
//! Stop). The plugin is installed per user, so these hooks run in every project: where there is
//! no zo memory they print nothing and exit 0 (`--verbose` says why, on stderr).
//!
//! - SessionStart: starts a session on startup or /clear; on resume and after a compaction the
//!   bundle is printed again, the open session keeps its baseline, and after a compaction the
//!   bundle opens with the session's progress saved by PreCompact.
//! - PreCompact: saves the session's progress so far (what it recorded, the files it changed).
//! - Stop: once per session, when the session changed files (tracked, or new untracked ones
//!   that are not ignored) but recorded nothing, asks
//!   the agent to record its decisions and lessons or say there were none (Claude Code's Stop
//!   protocol: `{"decision": "block", "reason": …}`; never when `stop_hook_active`). Off with
//!   `agents.stop_reminder: false` in .zo/config.yaml.
//! - SessionEnd: writes a session file only when something happened, and never loads the model
//!   (Claude Code kills SessionEnd hooks after about 1.5 s).
//!
//! Cursor has its own events and fields (`conversation_id`, `workspace_roots`; `status` and
//! `loop_count` for `stop`) and no session start or end that all its versions accept, so:
//! - beforeSubmitPrompt: the first prompt of a conversation opens its session record (ending the
//!   record of Cursor's previous conversation, written only if something happened); answers
//!   `{"continue": true}`.
//! - stop: the same once-per-session reminder, as Cursor's `{"followup_message": …}` (sent as
//!   the next user message), only when the loop completed and was not itself a follow-up
//!   (`loop_count` 0; zo's entry also sets `loop_limit: 1`).

use super::Ctx;
use crate::cli::HookArgs;
use crate::error::Error;
use crate::lifecycle::record;
use crate::lifecycle::session::{self, Ending};
use crate::store::memory::Memory;
use anyhow::Result;
use std::path::PathBuf;

/// Claude Code keeps hook output over about 10,000 characters in a file and shows the model a
/// 2 KB preview; the bundle stays under this by default (`agents.bundle_chars`).
pub const BUNDLE_CHARS: usize = 9000;

#[derive(Default)]
struct Event {
    hook_event_name: String,
    source: Option<String>,
    cwd: Option<PathBuf>,
    session_id: Option<String>,
    stop_hook_active: bool,
    /// Cursor's fields.
    conversation_id: Option<String>,
    workspace_roots: Vec<PathBuf>,
    status: Option<String>,
    loop_count: u64,
}

impl Event {
    /// Each field as the agent sent it when it has the expected type; a missing, null or
    /// mistyped field is its default. Agents add and change fields between versions, and a
    /// hook must not fail over one it does not use.
    fn from_json(v: &serde_json::Value) -> Event {
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        Event {
            // Missing: a start (a hook run by hand, an agent that sends no name). Present but
            // not a string: no event zo knows — taken for a start, it ended the open session.
            hook_event_name: match v.get("hook_event_name") {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(n) => n
                    .as_str()
                    .map_or_else(|| "(not a name)".to_string(), str::to_string),
            },
            source: s("source"),
            cwd: s("cwd").map(PathBuf::from),
            session_id: s("session_id"),
            stop_hook_active: v
                .get("stop_hook_active")
                .and_then(|x| x.as_bool())
                .unwrap_or(false),
            conversation_id: s("conversation_id"),
            workspace_roots: v
                .get("workspace_roots")
                .and_then(|x| x.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.as_str().map(PathBuf::from))
                        .collect()
                })
                .unwrap_or_default(),
            status: s("status"),
            loop_count: v
                .get("loop_count")
                .and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f.max(0.0) as u64)))
                .unwrap_or(0),
        }
    }
}

/// Where the project is: `--repo` / `ZO_REPO` when given, else the event's `cwd` (Cursor: the
/// first workspace root with zo memory) when it holds memory, else the project directory the
/// agent names (`$CLAUDE_PROJECT_DIR`, `$GEMINI_PROJECT_DIR`, `$QWEN_PROJECT_DIR`: the agent may
/// have `cd`'d out of the project, and the Stop reminder and the PreCompact save would be lost),
/// else the `cwd` as it is, else the process directory.
fn project_dir(ctx: &Ctx, event: &Event) -> (Option<PathBuf>, Result<Memory>) {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(given) = ctx.repo.clone().or_else(|| env("ZO_REPO")) {
        let opened = Memory::open(Some(&given));
        return (Some(given), opened);
    }
    // In order: the event's cwd (a multi-root Cursor workspace: each root), then the project
    // directories the agent names; the first that holds memory is opened once, and kept.
    let primary: Vec<PathBuf> = event
        .cwd
        .clone()
        .map_or_else(|| event.workspace_roots.clone(), |c| vec![c]);
    let named = [
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "QWEN_PROJECT_DIR",
    ]
    .into_iter()
    .filter_map(env);
    for dir in primary.iter().cloned().chain(named) {
        if dir.is_dir() {
            if let Ok(memory) = Memory::open(Some(&dir)) {
                return (Some(dir), Ok(memory));
            }
        }
    }
    let cwd = primary.into_iter().next().filter(|c| c.is_dir());
    let opened = Memory::open(cwd.as_deref());
    (cwd, opened)
}

pub fn run(ctx: &Ctx, a: HookArgs) -> Result<()> {
    let agent = a.agent.as_str();
    if !matches!(
        agent,
        "claude" | "codex" | "cursor" | "gemini" | "qwen" | "copilot"
    ) {
        return Err(Error::usage(format!(
            "zo hook supports claude, codex, cursor, gemini, qwen and copilot, not {agent:?}"
        ))
        .into());
    }
    // Exit 2 is "block" to Claude Code and Codex: a Stop hook failing with it would keep the
    // agent from stopping and feed it the message, and any committer could cause one with a
    // bad config value. Whatever goes wrong in a hook is a plain failure (exit 1): the agent
    // shows it to the person and goes on.
    handle(ctx, &a).map_err(|e| {
        Error::Failed(format!(
            "zo hook {agent} failed; the agent goes on without it: {e:#}"
        ))
        .into()
    })
}

/// The event on stdin, and why it could not be read (reported only where there is memory).
fn read_event() -> (Event, Option<String>) {
    match super::read_input(std::path::Path::new("-")) {
        Ok(input) if input.trim().is_empty() => (Event::default(), None),
        Ok(input) => match serde_json::from_str::<serde_json::Value>(&input) {
            Ok(v) if v.is_object() => (Event::from_json(&v), None),
            Ok(_) => (
                Event::default(),
                Some("<stdin>: not a hook event (a JSON object)".to_string()),
            ),
            Err(e) => (
                Event::default(),
                Some(format!(
                    "<stdin>:{}:{}: not a hook event: {e}",
                    e.line(),
                    e.column()
                )),
            ),
        },
        Err(e) => (Event::default(), Some(format!("{e:#}"))),
    }
}

/// Claude Code merges identical hooks from settings files but runs a plugin's copy as well
/// (anthropics/claude-code#76297): the plugin's hook steps aside where settings run zo.
fn plugin_steps_aside(
    project: Option<&std::path::Path>,
    event: &Event,
    opened: &Result<Memory>,
) -> bool {
    let cwd = std::env::current_dir().ok();
    let env_dir = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let root = opened.as_ref().ok().map(|m| m.layout.root.clone());
    let dirs: Vec<&std::path::Path> = [
        project,
        event.cwd.as_deref(),
        env_dir.as_deref(),
        root.as_deref(),
        cwd.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    crate::wiring::agents::settings_run_hook(&dirs, home.as_deref(), &event.hook_event_name)
}

fn handle(ctx: &Ctx, a: &HookArgs) -> Result<()> {
    let agent = a.agent.as_str();
    // An event that cannot be read is reported only where there is memory to act on: in any
    // other directory the hook stays silent whatever it was sent.
    let (event, unreadable) = read_event();
    let (project, opened) = project_dir(ctx, &event);
    if a.plugin && plugin_steps_aside(project.as_deref(), &event, &opened) {
        return Ok(());
    }
    let memory = match opened {
        Ok(m) => m,
        Err(e) if matches!(crate::error::kind(&e), Some(Error::NoMemory(_))) => {
            if a.verbose {
                super::say(&format!("zo: {e:#}\n"));
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    if let Some(why) = unreadable {
        anyhow::bail!("{why}");
    }
    match event.hook_event_name.as_str() {
        "SessionEnd" => session_end(ctx, &memory, &event, agent, a.verbose),
        "SessionStart" | "" => session_start(ctx, &memory, &event, agent),
        // Gemini CLI's name for it.
        "PreCompact" | "PreCompress" => record::save_progress(&memory),
        // Gemini CLI's AfterAgent: "deny" (alias "block") sends the reason as a new prompt.
        "Stop" | "AfterAgent" => match reminder(&memory, &event)? {
            Some(reason) => {
                ctx.print_json_line(&serde_json::json!({ "decision": "block", "reason": reason }))
            }
            None => Ok(()),
        },
        "beforeSubmitPrompt" if agent == "cursor" => {
            cursor_conversation(ctx, &memory, &event)?;
            ctx.print("{\"continue\":true}\n")
        }
        // Cursor's loop ended: remind only after a completed loop that was not itself a follow-up.
        "stop" if agent == "cursor" => match reminder(&memory, &event)? {
            Some(reason) => ctx.print_json_line(&serde_json::json!({ "followup_message": reason })),
            None => Ok(()),
        },
        // A hook must never break the agent's session: other events are not zo's business.
        other => {
            if a.verbose {
                super::say(&format!("zo hook {agent}: nothing to do for {other:?}\n"));
            }
            Ok(())
        }
    }
}

/// SessionEnd: the session's file, only when something happened. Another session's record (a
/// second window, another agent in this project) is not this one's to end.
fn session_end(
    ctx: &Ctx,
    memory: &Memory,
    event: &Event,
    agent: &str,
    verbose: bool,
) -> Result<()> {
    if let Some(rec) = record::current(memory) {
        if !same_session(&rec, event) {
            if verbose {
                super::say("zo: the open session record belongs to another session; left open\n");
            }
            return Ok(());
        }
    }
    let ending = Ending {
        agent: Some(agent.into()),
        ..Default::default()
    };
    if let Some(ended) = session::end(memory, &ending, true)? {
        ctx.note(format!("{} written", ended.file));
    }
    Ok(())
}

/// SessionStart: the bundle, as this agent reads it. Resuming (or compacting) the open session
/// keeps its record; any other start opens a new one, ending a record left open first
/// (`session::open`: one policy with the CLI and MCP), so what it wrote gets its session file.
fn session_start(ctx: &Ctx, memory: &Memory, event: &Event, agent: &str) -> Result<()> {
    let resumed = matches!(event.source.as_deref(), Some("resume" | "compact"));
    let open = record::current(memory).filter(|r| resumed && same_session(r, event));
    let starting = match open {
        Some(_) => None,
        // A record that cannot be opened (a memory file zo cannot read) does not keep the
        // agent from the rest of the memory: the bundle still comes, saying what was not read.
        None => match session::open(memory, Some(agent.into()), None, event.session_id.clone()) {
            Ok((starting, ended)) => {
                if let Some(ended) = ended {
                    ctx.note(format!("{} written for the session left open", ended.file));
                }
                Some(starting)
            }
            Err(e) => {
                ctx.note(format!("no session record was opened: {e:#}"));
                None
            }
        },
    };
    if agent == "copilot" {
        // Copilot CLI does not read a SessionStart hook's output (its AGENTS.md block sends
        // the agent to `context`): the hook opens the session's record, which the Stop
        // reminder and SessionEnd read, and prints nothing.
        return starting.map_or(Ok(()), |s| s.finish(memory).map(drop));
    }
    // The bundle is built while the record's `git status` runs; the record is written even
    // when the bundle fails.
    let b = super::context::bundle(ctx, memory, None, None);
    if let Some(s) = starting {
        s.finish(memory)?;
    }
    let mut b = b?;
    if event.source.as_deref() == Some("compact") {
        if let Some(p) = open.and_then(|r| r.progress) {
            b.insert_early("This session so far", p.markdown());
        }
    }
    b.fit_chars(bundle_chars(memory));
    if matches!(agent, "codex" | "gemini" | "qwen") {
        // Codex and Gemini CLI add a SessionStart hook's context only from this JSON (Codex's
        // output schema refuses other fields; Gemini shows plain stdout to the user only);
        // Qwen Code reads it as Claude Code does.
        let r = crate::ops::ContextReport::from(b);
        let out = serde_json::json!({ "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": r.markdown } });
        return ctx.emit(&crate::store::shown::json_with(out, r.bundle.vouched).line());
    }
    super::context::print(ctx, b)
}

/// `agents.bundle_chars` from config (checked when the config was read), else `BUNDLE_CHARS`.
fn bundle_chars(memory: &Memory) -> usize {
    memory
        .layout
        .config
        .u64(&["agents", "bundle_chars"])
        .map_or(BUNDLE_CHARS, |n| n as usize)
}

/// Whether the open record is the event's session: the same agent session ID, or either side
/// without one (a record started by hand, an event without an ID).
fn same_session(rec: &record::Record, event: &Event) -> bool {
    let theirs = event
        .session_id
        .as_deref()
        .or(event.conversation_id.as_deref());
    match (rec.session_id.as_deref(), theirs) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// Cursor's first prompt of a conversation opens its session record. A record Cursor opened
/// for another conversation is that conversation's session, ended now (a file only if
/// something happened); a record someone opened by hand (`zo session start`) or another agent
/// opened is left as it is and serves this conversation too.
fn cursor_conversation(ctx: &Ctx, memory: &Memory, event: &Event) -> Result<()> {
    let Some(id) = event.conversation_id.clone() else {
        return Ok(());
    };
    if let Some(rec) = record::current(memory) {
        if rec.session_id.as_deref() == Some(id.as_str()) || rec.agent.as_deref() != Some("cursor")
        {
            return Ok(());
        }
        let ending = Ending {
            agent: Some("cursor".into()),
            ..Default::default()
        };
        if let Some(ended) = session::end(memory, &ending, true)? {
            ctx.note(format!("{} written", ended.file));
        }
    }
    let mut rec = record::start(memory, Some("cursor".into()), None)?;
    rec.session_id = Some(id);
    record::save(memory, &rec)
}

/// The stop reminder, once per session: what to ask the agent when the session changed tracked
/// files but recorded nothing (None: nothing to ask). Marks the record as asked.
fn reminder(memory: &Memory, event: &Event) -> Result<Option<String>> {
    // Checked when the config was read (settings).
    let on = memory
        .layout
        .config
        .get(&["agents", "stop_reminder"])
        .and_then(|v| v.as_bool())
        != Some(false);
    if !on
        || event.stop_hook_active
        || event.loop_count > 0
        || event.status.as_deref().is_some_and(|s| s != "completed")
    {
        return Ok(None);
    }
    let Some(files) = record::claim_stop(memory, |rec| same_session(rec, event))? else {
        return Ok(None);
    };
    // A file name is anyone's text (a pulled commit names its files): each is quoted, with
    // every quote, newline and invisible character escaped, so none reads as zo's words.
    let shown: Vec<String> = files
        .iter()
        .take(8)
        .map(|f| crate::store::gate::frame::name(f))
        .collect();
    let more = files.len().saturating_sub(shown.len());
    let mut list = shown.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    // A folder of untracked files is one entry (`dir/`, as git status lists it).
    let folders = files.iter().filter(|f| f.ends_with('/')).count();
    let n = |k: usize, one: &str, many: &str| {
        if k == 1 {
            format!("1 {one}")
        } else {
            format!("{k} {many}")
        }
    };
    let count = match (files.len() - folders, folders) {
        (f, 0) => n(f, "file", "files"),
        (0, d) => n(d, "folder", "folders"),
        (f, d) => format!(
            "{} and {}",
            n(f, "file", "files"),
            n(d, "folder", "folders")
        ),
    };
    let reason = crate::templates::STOP_REMINDER
        .replace("{count}", &count)
        .replace("{files}", &list);
    Ok(Some(reason.trim_end().to_string()))
}
