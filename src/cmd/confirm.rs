//! `zo confirm ID [--compatible-with ID]`: promote a provisional decision or fact, or record two
//! decisions as holding together (`ops::request::write::Confirm`).

use super::Ctx;
use crate::cli::ConfirmArgs;
use crate::ops::request::write::Confirm;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ConfirmArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = ctx.run(
        &memory,
        Confirm {
            id: a.id,
            compatible_with: a.compatible_with,
        },
    )?;
    ctx.report_or(&r, |r| format!("{}\n", r.id))
}
