//! `zo outcome ID TEXT`: append an OUTCOME entry that refers to a decision
//! (`ops::request::write::Outcome`).

use super::{Ctx, read_input};
use crate::cli::OutcomeArgs;
use crate::ops::request::write::Outcome;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: OutcomeArgs) -> Result<()> {
    let text = if a.text == "-" {
        read_input(std::path::Path::new("-"))?
    } else {
        a.text
    };
    let memory = ctx.memory()?;
    let allow = crate::store::gate::Allow {
        secret: a.allow_secret,
        directive: a.allow_directive,
    };
    let r = ctx.run(
        &memory,
        Outcome {
            id: a.id,
            text,
            allow,
        },
    )?;
    ctx.report_or(&r, |r| format!("{}\n", r.id))
}
