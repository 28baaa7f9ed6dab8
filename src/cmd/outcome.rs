//! `zo outcome ID TEXT`: append an OUTCOME entry that refers to a decision.

use super::{Ctx, read_input};
use crate::cli::OutcomeArgs;
use anyhow::{Context, Result};

pub fn run(ctx: &Ctx, a: OutcomeArgs) -> Result<()> {
    let text = if a.text == "-" { read_input(std::path::Path::new("-"))? } else { a.text };
    let memory = ctx.memory()?;
    let new = memory
        .outcome(&a.id, &text, crate::store::gate::Allow { secret: a.allow_secret, directive: a.allow_directive })
        .with_context(|| format!("nothing was written to {}", memory.layout.show(&memory.layout.decision_log())))?;
    let r = crate::ops::OutcomeRecorded::from(new);
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.print(&format!("{}\n", r.id))
}
