//! `zo log`: list decisions, newest first (`ops::request::read::Log`).

use super::Ctx;
use crate::cli::LogArgs;
use crate::ops::request::read::Log;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: LogArgs) -> Result<()> {
    let request = Log {
        decision_type: a.decision_type,
        since: a.since,
        tag: a.tag,
        limit: a.limit,
        as_of: a.as_of,
        all: a.all,
        plain: true,
        memory: a.memory,
    };
    let memory = ctx.memory()?;
    let r = ctx.run(&memory, request)?;
    ctx.report(&r)
}
