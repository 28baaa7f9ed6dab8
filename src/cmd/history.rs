//! `zo history ID`: a decision's whole life (rendered from `ops::history`).

use super::Ctx;
use crate::cli::HistoryArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: HistoryArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let h = crate::ops::history::history(&memory, &a.id)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&h)?);
    }
    ctx.print(&h.render())
}
