//! `zo decide`: append a decision. Never waits on the model (there is none on this path).

use super::{Ctx, read_input};
use crate::cli::DecideArgs;
use crate::error::Exit;
use crate::memory::{DecisionInput, StringOrList};
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, a: DecideArgs) -> Result<()> {
    let mut input = match &a.file {
        Some(path) => {
            let text = read_input(path)?;
            let name = if path.as_os_str() == "-" { "<stdin>".to_string() } else { path.display().to_string() };
            serde_json::from_str::<DecisionInput>(&text).map_err(|e| {
                Exit::usage(format!("{name}:{}:{}: not a decision JSON object: {e}", e.line(), e.column()))
            })?
        }
        None => DecisionInput::default(),
    };
    // Flags override the file.
    if let Some(v) = a.kind {
        input.r#type = Some(v);
    }
    if let Some(v) = a.title {
        input.title = v;
    }
    if let Some(v) = a.decision {
        input.decision = v;
    }
    for (slot, v) in [
        (&mut input.rationale, a.rationale),
        (&mut input.alternatives, a.alternatives),
        (&mut input.outcome, a.outcome),
        (&mut input.supersedes, a.supersedes),
        (&mut input.session, a.session),
    ] {
        if v.is_some() {
            *slot = v;
        }
    }
    if let Some(t) = a.tags {
        input.tags = Some(StringOrList::One(t));
    }
    if a.file.is_none() && input.title.is_empty() && input.decision.is_empty() {
        return Err(Exit::usage("zo decide needs --title and --decision (or --file FILE); see `zo decide --help`").into());
    }
    let memory = ctx.memory()?;
    let new = memory
        .decide(&input, a.allow_secret)
        .with_context(|| format!("nothing was written to {}", memory.layout.show(&memory.layout.decision_log())))?;
    if ctx.json {
        return ctx.print_json(&json!({"id": new.id, "timestamp": new.timestamp, "title": new.title, "type": new.kind}));
    }
    ctx.print(&format!("{}\n", new.id))
}
