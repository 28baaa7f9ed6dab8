//! `zo review A..B`: renders `ops::review` (the same report `verify --range` gates on).

use super::Ctx;
use crate::cli::ReviewArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ReviewArgs) -> Result<()> {
    let r = crate::ops::review::review(&ctx.memory()?, &a.range)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.print(&r.render())
}
