//! `zo forget ID --reason …`: erase an entry, leaving a tombstone (`ops::request::write::Forget`).

use super::Ctx;
use crate::cli::ForgetArgs;
use crate::ops::request::write::Forget;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ForgetArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(
        &memory,
        Forget {
            id: a.id,
            reason: a.reason,
            replace_text: a.replace_text,
        },
    )?;
    ctx.report(&r)
}
