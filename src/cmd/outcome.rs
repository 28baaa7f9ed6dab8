//! `zo outcome ID TEXT`: append an OUTCOME entry that refers to a decision.

use super::{Ctx, read_input};
use crate::cli::OutcomeArgs;
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, a: OutcomeArgs) -> Result<()> {
    let text = if a.text == "-" { read_input(std::path::Path::new("-"))? } else { a.text };
    let memory = ctx.memory()?;
    let new = memory
        .outcome(&a.id, &text, a.allow_secret)
        .with_context(|| format!("nothing was written to {}", memory.layout.show(&memory.layout.decision_log())))?;
    if ctx.json {
        return ctx.print_json(&json!({"id": new.id, "timestamp": new.timestamp, "refs": new.refs}));
    }
    ctx.print(&format!("{}\n", new.id))
}
