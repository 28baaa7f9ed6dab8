//! `zo confirm ID`: promote a provisional decision or fact.

use super::Ctx;
use crate::cli::ConfirmArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ConfirmArgs) -> Result<()> {
    let r = ctx.memory()?.confirm(&a.id)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if r.unchanged {
        ctx.note(format!("{} is active already; nothing to confirm", r.confirmed));
    } else {
        ctx.note(format!("{} is confirmed: it is in the bundle and default recall now", r.confirmed));
    }
    ctx.print(&format!("{}\n", r.id))
}
