//! `zo show ID`: any entry in full (`ops::request::read::Show`). A decision with its latest
//! outcome and what superseded it; a prior (`PR-…`); a session (its file name, a prefix of it,
//! or `last`).

use super::Ctx;
use crate::cli::ShowArgs;
use crate::ops::request::read::{Show, Shown};
use anyhow::Result;

pub fn run(ctx: &Ctx, a: ShowArgs) -> Result<()> {
    let memory = ctx.memory()?;
    // Provenance walks git's history: only for the JSON, never on the text hook path.
    let r = ctx.run(
        &memory,
        Show {
            id: a.id,
            as_of: a.as_of,
            plain: !ctx.json,
        },
    )?;
    ctx.report(&r)
}

/// Print what `ops::show` found (`zo prior show`, `zo session show`).
pub fn print(ctx: &Ctx, v: serde_json::Value) -> Result<()> {
    ctx.report(&Shown {
        entry: v,
        quoted: false,
    })
}
