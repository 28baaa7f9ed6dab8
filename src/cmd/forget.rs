//! `zo forget ID --reason …`: erase an entry, leaving a tombstone.

use super::Ctx;
use crate::cli::ForgetArgs;
use anyhow::{Context, Result};

pub fn run(ctx: &Ctx, a: ForgetArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = memory.forget_to(&a.id, &a.reason, a.replace_text.as_deref()).context("nothing was erased")?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    let mut s = format!("{} forgotten: {}:{} now holds its tombstone", r.erasure.id, r.erasure.file, r.erasure.line);
    s.push_str(if r.index_purged { "; its index rows and vectors are purged\n" } else { "\n" });
    if !r.state_cleared.is_empty() {
        s.push_str(&format!("STATE.md no longer holds its text: {} cleared\n", r.state_cleared.join(", ")));
    }
    if r.in_history {
        s.push_str("\nGit history still holds the text (it is in the last commit). To purge it:\n");
        for c in &r.purge {
            s.push_str(&format!("  {c}\n"));
        }
    } else {
        s.push_str("The text was not in the last commit; if an older commit or a stash holds it, purge it with git filter-repo.\n");
    }
    ctx.print(&s)
}
