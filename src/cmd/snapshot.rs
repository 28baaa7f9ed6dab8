//! `zo snapshot --phase ID [--outcome proceed]`.

use super::Ctx;
use crate::cli::SnapshotArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: SnapshotArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let w = crate::lifecycle::snapshot::write(
        &memory,
        &a.phase,
        &a.outcome,
        a.handoff.as_deref(),
        crate::store::gate::Allow {
            secret: a.allow_secret,
            directive: a.allow_directive,
        },
    )?;
    if !w.withheld.is_empty() {
        ctx.note(format!(
            "STATE.md's {} read as an instruction to an agent: the snapshot holds them withheld (`zo verify` names them)",
            w.withheld.join(", ")
        ));
    }
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&w)?);
    }
    if !ctx.quiet {
        ctx.print(&format!(
            "{} written ({})\n",
            w.file,
            crate::ops::text::count(w.decisions.len(), "decision", "decisions")
        ))?;
    }
    Ok(())
}
