//! `zo context [--task TEXT] [--budget N] [--as-of DATE|COMMIT]`: the session-start bundle
//! (`ops::request::context`). Without --task it never loads the model.

use super::Ctx;
use crate::lifecycle::context::Bundle;
use crate::ops::request::{Env, Searcher, context};
use crate::store::memory::Memory;
use anyhow::Result;

/// The bundle now, for the hook (which shapes it further for its agent).
pub fn bundle(
    ctx: &Ctx,
    memory: &Memory,
    task: Option<&str>,
    budget: Option<usize>,
) -> Result<Bundle> {
    let note = |m: &str| ctx.note(m);
    context::bundle(
        &mut Env {
            memory,
            search: Searcher::OneShot,
            note: &note,
            agent: None,
        },
        task,
        budget,
        None,
    )
}

pub fn print(ctx: &Ctx, b: Bundle) -> Result<()> {
    ctx.report(&crate::ops::ContextReport::from(b))
}

pub fn run(ctx: &Ctx, a: crate::cli::ContextArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(
        &memory,
        context::Context {
            task: a.task,
            budget: a.budget,
            as_of: a.as_of,
        },
    )?;
    ctx.report(&r)
}
