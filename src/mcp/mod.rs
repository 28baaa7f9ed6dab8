//! `zo mcp`: a Model Context Protocol server over stdio. Each tool is a thin adapter over the
//! library call the CLI makes, returning the CLI's `--json` shape as structured content plus a
//! short text rendering. Nothing heavy happens at start: the memory is opened per request (so
//! hand edits and pulls are seen, and no lock is held between requests), and the model is loaded
//! once, on the first call that needs it, then kept warm.
//!
//! The JSON-RPC loop is zo's own (`wire`), not an SDK's transport: the server must answer every
//! line a client can send — bad JSON, bad UTF-8, a line of any length — and an SDK's transport
//! drops what it cannot decode, leaving the client waiting forever. A server with tools only
//! needs four methods, answered one at a time in order, so no async runtime is involved.
//!
//! `tools` holds each tool's schema and its adapter over the library; `wire` the JSON-RPC loop.
//! Like `cmd/`, it only renders what the library returns (shared text in `ops::text`), and
//! nothing in the library imports it.

mod tools;
pub mod wire;

pub use tools::{TOOL_NAMES, check_args};

use crate::search::recall::Recaller;
use crate::store::shown::{self, Shown, ShownJson};
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use wire::{Incoming, RpcError};

/// What a request is answered with: zo's own value (the tool list, the server's info), or a
/// tool's result, which the output gate made.
enum Answer {
    Own(Value),
    Tool(ShownJson),
}

pub struct Server {
    repo: Option<PathBuf>,
    recaller: Mutex<Recaller>,
}

impl Server {
    /// The recaller. A call that panicked while holding it left it poisoned: it is replaced by
    /// a fresh one (the model loads again on the next call that needs it), so one failed call
    /// never fails every later one.
    pub(crate) fn recaller(&self) -> std::sync::MutexGuard<'_, Recaller> {
        match self.recaller.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                let mut guard = poisoned.into_inner();
                *guard = Recaller::new();
                self.recaller.clear_poison();
                guard
            }
        }
    }
}

const INSTRUCTIONS: &str = "zo is this project's memory, kept in its git repository. Call `context` at the start of \
work, `recall` before deciding anything that may have been decided before, `decide` when a choice is made, `prior_add` \
when a failure teaches a lesson, and `session_end` when the work ends.";

/// The MCP revisions this server speaks (tools with structured content), newest first. A
/// client asking for another gets the newest, and decides itself whether it can go on.
const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

impl Server {
    /// A request's answer: its result, or the JSON-RPC error it gets.
    fn answer(&self, method: &str, params: Option<Value>) -> Result<Answer, RpcError> {
        match method {
            "initialize" => self.initialize(params.as_ref()).map(Answer::Own),
            "ping" => Ok(Answer::Own(json!({}))),
            "tools/list" => Ok(Answer::Own(json!({ "tools": tools::listed() }))),
            "tools/call" => {
                let (name, args) = wire::call_params(params)?;
                Ok(Answer::Tool(self.call_tool(&name, args)))
            }
            other => Err(RpcError::new(
                wire::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        }
    }

    /// Initialises anywhere: a user-scope server (the Claude Code plugin) starts in every
    /// project, and failing here would show a broken server in each one without memory. The
    /// tools say "no zo memory in DIR" instead, and find the memory once `zo init` made it
    /// (the memory is opened per call), without a restart.
    fn initialize(&self, params: Option<&Value>) -> Result<Value, RpcError> {
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = PROTOCOL_VERSIONS
            .iter()
            .find(|v| Some(**v) == asked)
            .unwrap_or(&PROTOCOL_VERSIONS[0]);
        Ok(json!({
            "protocolVersion": version,
            "capabilities": { "tools": {} },
            "serverInfo": { "name": "zo", "version": env!("CARGO_PKG_VERSION") },
            "instructions": INSTRUCTIONS,
        }))
    }

    /// A tool's result. Its failures, panics included, are the tool's error (`isError`) with
    /// the CLI's message, which the agent reads; the server goes on. Made by the output gate
    /// (SPEC §3a): whatever a memory file holds, no invisible character and no unmarked
    /// directive reaches the model.
    fn call_tool(&self, name: &str, args: Value) -> ShownJson {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tools::call(self, name, args)
        }))
        .unwrap_or_else(|p| {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(anyhow::anyhow!(
                "internal error in {name}: {}",
                why.unwrap_or_else(|| "panic".into())
            ))
        });
        match outcome {
            Ok((json, text)) => shown::tool_result(Some(json), text, false),
            Err(e) => shown::tool_result(None, shown::text(&format!("zo: {e:#}")), true),
        }
    }

    /// The answer line for one incoming message, if it gets one.
    fn reply(&self, msg: Incoming) -> Option<Shown> {
        match msg {
            Incoming::Request { id, method, params } => {
                let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.answer(&method, params)
                }))
                .unwrap_or_else(|_| {
                    Err(RpcError::new(
                        wire::INTERNAL_ERROR,
                        format!("Internal error in {method}"),
                    ))
                });
                Some(match answer {
                    Ok(Answer::Own(r)) => shown::json(wire::result(id, r)).line(),
                    Ok(Answer::Tool(r)) => r.rpc_result(id),
                    Err(e) => shown::json(wire::error(id, &e)).line(),
                })
            }
            // notifications/initialized, notifications/cancelled (requests run one at a time,
            // so the one it names has been answered already), and anything else: no answer.
            Incoming::Notification { .. } | Incoming::Response => None,
            Incoming::Invalid { id, error } => Some(shown::json(wire::error(id, &error)).line()),
        }
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin (then exit 0). The project:
/// `--repo` / `ZO_REPO`, else `$CLAUDE_PROJECT_DIR` (Claude Code's project, whatever directory
/// it started the server in), else the process directory.
pub fn serve(repo: Option<PathBuf>) -> Result<()> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let repo = repo
        .or_else(|| env("ZO_REPO"))
        .or_else(|| env("CLAUDE_PROJECT_DIR").filter(|d| d.is_dir()));
    let server = Server {
        repo,
        recaller: Mutex::new(Recaller::new()),
    };
    let mut lines = wire::Lines::new(std::io::stdin().lock(), wire::MAX_LINE);
    let mut out = std::io::stdout().lock();
    while let Some(msg) = lines.next_message()? {
        if let Some(answer) = server.reply(msg) {
            out.write_all(answer.as_str().as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call that panicked holding the recaller poisoned its mutex, and every later recall (and
    /// `context` with a task) then failed until the server restarted.
    #[test]
    fn a_panic_inside_recall_failed_every_later_recall() {
        let server = std::sync::Arc::new(Server {
            repo: None,
            recaller: Mutex::new(Recaller::new()),
        });
        let s = server.clone();
        let crashed = std::thread::spawn(move || {
            let _guard = s.recaller();
            panic!("a call failed while it held the recaller");
        })
        .join();
        assert!(crashed.is_err());
        assert!(server.recaller.is_poisoned());
        drop(server.recaller());
        assert!(!server.recaller.is_poisoned(), "the next call recovered it");
        drop(server.recaller());
    }
}
