//! `zo context [--task TEXT] [--budget N]`: the session-start bundle. Without --task it never
//! loads the model.

use super::Ctx;
use crate::lifecycle::context::Bundle;
use crate::store::memory::Memory;
use crate::search::recall::{self, Mode};
use anyhow::Result;

/// Build the bundle; for a task, rank older decisions with hybrid recall (lexical when no
/// model is installed).
pub fn bundle(ctx: &Ctx, memory: &Memory, task: Option<&str>, budget: Option<usize>) -> Result<Bundle> {
    let note = |m: &str| ctx.note(m);
    crate::ops::context(memory, task, budget, &mut |t, filter| Ok(recall::recall(memory, t, 10, filter, Mode::Hybrid, &note)?.at_least(recall::Tier::Standard).hits))
}

pub fn print(ctx: &Ctx, b: Bundle) -> Result<()> {
    let r = crate::ops::ContextReport::from(b);
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.print(&r.markdown)
}

pub fn run(ctx: &Ctx, a: crate::cli::ContextArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let b = bundle(ctx, &memory, a.task.as_deref(), a.budget)?;
    print(ctx, b)
}
