//! `zo history ID|KEY`: a decision's, prior's or fact key's whole life
//! (`ops::request::read::History`).

use super::Ctx;
use crate::cli::HistoryArgs;
use crate::ops::request::read::History;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: HistoryArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(&memory, History { id: a.id })?;
    ctx.report(&r)
}
