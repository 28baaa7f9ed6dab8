//! `zo context [--task TEXT] [--budget N] [--as-of DATE|COMMIT]`: the session-start bundle. Without --task it never
//! loads the model.

use super::Ctx;
use crate::lifecycle::context::Bundle;
use crate::search::recall::{self, Mode};
use crate::store::asof::AsOf;
use crate::store::memory::Memory;
use anyhow::Result;

/// Build the bundle; for a task, rank older decisions with hybrid recall (lexical when no
/// model is installed).
pub fn bundle(ctx: &Ctx, memory: &Memory, task: Option<&str>, budget: Option<usize>) -> Result<Bundle> {
    bundle_as_of(ctx, memory, task, budget, None)
}

/// The bundle as the memory held it at `at` (None: now).
pub fn bundle_as_of(ctx: &Ctx, memory: &Memory, task: Option<&str>, budget: Option<usize>, at: Option<&AsOf>) -> Result<Bundle> {
    let note = |m: &str| ctx.note(m);
    // As of then, decisions superseded since are searched too, so ask for more.
    let k = if at.is_some() { 40 } else { 10 };
    crate::ops::context_as_of(memory, task, budget, at, &mut |t, filter| {
        Ok(recall::recall(memory, t, k, filter, Mode::Hybrid, &note)?.at_least(recall::Tier::Standard).hits)
    })
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
    let at = a.as_of.as_deref().map(|s| AsOf::parse(&memory, s)).transpose()?;
    let b = bundle_as_of(ctx, &memory, a.task.as_deref(), a.budget, at.as_ref())?;
    print(ctx, b)
}
