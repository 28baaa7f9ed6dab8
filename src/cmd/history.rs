//! `zo history ID|KEY`: a decision's, prior's or fact key's whole life (rendered from
//! `ops::history`).

use super::Ctx;
use crate::cli::HistoryArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: HistoryArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let h = crate::ops::history::life(&memory, &a.id)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&h)?);
    }
    ctx.print(&h.render())
}
