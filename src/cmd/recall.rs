//! `zo recall QUERY`: the entries that answer a question, in full, best first
//! (`ops::request::recall`).

use super::Ctx;
use crate::cli::RecallArgs;
use crate::ops::request::recall::Recall;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: RecallArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let fail_if_unanswered = a.fail_if_unanswered;
    let request = Recall {
        query: a.query.join(" "),
        also: a.also,
        k: a.k,
        kind: Some(a.kind),
        decision_type: a.decision_type,
        mode: a.mode,
        min_tier: Some(a.min_tier),
        as_of: a.as_of,
        all: a.all,
        provisional: a.provisional,
        scope: a.scope,
        explain: a.explain,
        without_origins: !ctx.json,
        memory: a.memory,
    };
    let report = ctx.run(&memory, request)?;
    ctx.report(&report)?;
    if fail_if_unanswered && !report.answered {
        return Err(crate::error::Error::Failed(
            "not in memory (--fail-if-unanswered): no entry reached the standard tier".into(),
        )
        .into());
    }
    Ok(())
}
