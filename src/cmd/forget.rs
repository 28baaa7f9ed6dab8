//! `zo forget ID --reason …`: erase an entry, leaving a tombstone (`ops::request::write::Forget`).
//! Erasing memory is a person's act at a terminal, as approving is (SPEC §3a): the entry is
//! named and its ID typed back. An agent's shell tool has no terminal, so memory (or a page the
//! agent read) telling it to erase an entry gets a refusal, not an erasure; and no MCP tool
//! erases.

use super::Ctx;
use crate::cli::ForgetArgs;
use crate::error::Error;
use crate::ops::request::write::Forget;
use anyhow::Result;
use std::io::{BufRead, IsTerminal};

pub fn run(ctx: &Ctx, a: ForgetArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let (id, kind) = memory
        .forget_preview(&a.id, &a.reason, a.replace_text.as_deref())
        .map_err(|e| e.context("nothing was erased"))?;
    if !std::io::stdin().is_terminal() {
        return Err(Forget::not_at_terminal(&id));
    }
    super::say(&format!(
        "This erases the {kind} {id}: its entry becomes a tombstone, and zo keeps no copy of its text.\nType {id} to erase it, anything else to keep it: "
    ));
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    if line.trim() != id {
        return Err(Error::Failed(format!("{id} was not erased; it stays as it was")).into());
    }
    let r = ctx.run(
        &memory,
        Forget {
            id,
            reason: a.reason,
            replace_text: a.replace_text,
        },
    )?;
    ctx.report(&r)
}
