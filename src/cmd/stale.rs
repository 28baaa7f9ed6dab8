//! `zo stale`: active decisions whose governed paths moved on (`ops::request::read::Stale`).

use super::Ctx;
use crate::cli::StaleArgs;
use crate::ops::request::read::Stale;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: StaleArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(
        &memory,
        Stale {
            commits: Some(a.commits),
            lines: Some(a.lines as u64),
            all: a.all,
        },
    )?;
    ctx.report(&r)
}
