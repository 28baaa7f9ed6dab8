//! `zo confirm ID`: promote a provisional decision or fact.

use super::Ctx;
use crate::cli::ConfirmArgs;
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, a: ConfirmArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let (confirmed, written, file) = if a.id.trim().to_ascii_uppercase().starts_with("F-") {
        let file = memory.layout.show(&memory.layout.facts());
        let r = memory.confirm_fact(&a.id).with_context(|| format!("nothing was written to {file}"))?;
        let r = r.ok_or_else(|| anyhow::anyhow!("no fact version {} in {file} or the user's facts", a.id))?;
        (r.fact.confirms.clone(), r.fact.id.clone(), file)
    } else {
        let file = memory.layout.show(&memory.layout.decision_log());
        let r = memory.confirm_decision(&a.id).with_context(|| format!("nothing was written to {file}"))?;
        (r.refs.clone(), r.id.clone(), file)
    };
    if ctx.json {
        return ctx.print_json(&json!({ "confirmed": confirmed, "id": written, "file": file }));
    }
    ctx.note(format!("{confirmed} is confirmed: it is in the bundle and default recall now"));
    ctx.print(&format!("{written}\n"))
}
