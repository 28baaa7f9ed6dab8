//! `zo show ID`: any entry in full (rendered from `ops::show`). A decision with its latest
//! outcome and what superseded it; a prior (`PR-…`); a session (its file name, a prefix of it,
//! or `last`).

use super::Ctx;
use crate::cli::ShowArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ShowArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let at = a.as_of.as_deref().map(|s| crate::store::asof::AsOf::parse(&memory, s)).transpose()?;
    let v = crate::ops::show_as_of(&memory, &a.id, at.as_ref())?;
    // Provenance walks git's history: only for the JSON, never on the text hook path.
    let v = if ctx.json && at.is_none() { crate::ops::entries::with_origin(&memory, v)? } else { v };
    print(ctx, &v)
}

/// Print what `ops::show` found: the JSON as it is, or its text (`ops::text::show`).
pub fn print(ctx: &Ctx, v: &serde_json::Value) -> Result<()> {
    if ctx.json {
        return ctx.print_json(v);
    }
    ctx.print(&crate::ops::text::show(v, false))
}
