//! `zo hook claude`: what Claude Code's SessionStart and SessionEnd hooks run. Claude Code
//! sends the event as JSON on stdin (`hook_event_name`, and `source` for SessionStart:
//! startup, resume, clear or compact). A session starts only on startup or clear; on resume
//! and after a compaction the bundle is printed again and the open session keeps its baseline,
//! so nothing decided before the compaction drops out of the session record. SessionEnd writes
//! a session file only when something happened, and never loads the model (Claude Code kills
//! SessionEnd hooks after about 1.5 s).

use super::Ctx;
use crate::cli::HookArgs;
use crate::error::Error;
use crate::session::{self, Ending};
use anyhow::Result;

#[derive(serde::Deserialize, Default)]
struct Event {
    #[serde(default)]
    hook_event_name: String,
    #[serde(default)]
    source: Option<String>,
}

pub fn run(ctx: &Ctx, a: HookArgs) -> Result<()> {
    if a.agent != "claude" {
        return Err(Error::usage(format!("zo hook supports claude, not {:?}", a.agent)).into());
    }
    let input = super::read_input(std::path::Path::new("-"))?;
    let event: Event = if input.trim().is_empty() {
        Event::default()
    } else {
        serde_json::from_str(&input)
            .map_err(|e| Error::usage(format!("<stdin>:{}:{}: not a Claude Code hook event: {e}", e.line(), e.column())))?
    };
    let memory = ctx.memory()?;
    match event.hook_event_name.as_str() {
        "SessionEnd" => {
            let ending = Ending { agent: Some("claude".into()), ..Default::default() };
            if let Some(ended) = session::end(&memory, &ending, true)? {
                ctx.note(format!("{} written", ended.file));
            }
            Ok(())
        }
        "SessionStart" | "" => {
            let resumed = matches!(event.source.as_deref(), Some("resume" | "compact"));
            if !(resumed && session::current(&memory).is_some()) {
                session::start(&memory, Some("claude".into()), None)?;
            }
            let b = super::context::bundle(ctx, &memory, None, None)?;
            super::context::print(ctx, b)
        }
        // A hook must never break the agent's session: other events are not zo's business.
        other => {
            ctx.note(format!("zo hook claude: nothing to do for {other:?} (zo handles SessionStart and SessionEnd)"));
            Ok(())
        }
    }
}
