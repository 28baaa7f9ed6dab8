//! `zo approve ID`: vouch, on this machine, for an entry the directive rules flag.

use super::Ctx;
use crate::cli::ApproveArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ApproveArgs) -> Result<()> {
    let r = crate::ops::approve::approve(&ctx.memory()?, &a.id)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    let rules: Vec<String> = r.flags.iter().map(|f| format!("{} (rule {}, line {})", f.what, f.rule, f.line)).collect();
    ctx.note(format!(
        "{} {}: {}; agents on this machine now get it in their bundle (kept in {})",
        r.id,
        if r.new { "approved" } else { "was approved already" },
        rules.join("; "),
        r.file
    ));
    ctx.print(&format!("{}\n", r.id))
}
