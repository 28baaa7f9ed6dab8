//! `zo approve ID`: vouch, on this machine, for an entry the directive rules flag. A person
//! does it at a terminal: the entry is shown and its ID typed back. An agent's shell tool has no
//! terminal, so an entry (or a page the agent read) telling it to run `zo approve` gets a
//! refusal, not an approval; the rules flag such text too (`disable-protections`).

use super::Ctx;
use crate::cli::ApproveArgs;
use crate::error::Error;
use anyhow::Result;
use std::io::{BufRead, IsTerminal};

pub fn run(ctx: &Ctx, a: ApproveArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let p = crate::ops::approve::pending(&memory, &a.id)?;
    // Approved here already, as it reads now: nothing to ask (approving again changes nothing).
    if p.approved {
        let r = crate::ops::approve::approve(p)?;
        if ctx.json {
            return ctx.print_json(&serde_json::to_value(&r)?);
        }
        ctx.note(format!(
            "{} was approved here already, as it reads now (kept in {}): nothing to do",
            r.id, r.file
        ));
        return ctx.print(&format!("{}\n", r.id));
    }
    if !std::io::stdin().is_terminal() {
        return Err(Error::usage(format!(
            "approving asks the person at a terminal, and stdin is not one: a person approves it there with `zo approve ID` (the ID: {}). An agent cannot approve what memory asks it to do.",
            p.id
        ))
        .into());
    }
    let rules: Vec<String> = p
        .flags
        .iter()
        .map(|f| format!("{} (rule {}, line {})", f.what, f.rule, f.line))
        .collect();
    // The entry is shown to the person who asked for it: marked by the output gate, as recall
    // and show mark it.
    let asked = crate::store::shown::Vouch::Asked {
        id: p.id.clone(),
        text: p.text.clone(),
    };
    let question = format!(
        "{}\n\n{} reads as an instruction to an agent: {}.\nApproved, agents on this machine get it in their bundle and recall without a warning.\nType {} to approve it, anything else to leave it withheld: ",
        crate::store::gate::frame::quote(&p.text),
        p.id,
        rules.join("; "),
        p.id
    );
    super::say_shown(&crate::store::shown::text_with(&question, vec![asked]));
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    if line.trim() != p.id {
        return Err(Error::Failed(format!("{} was not approved; it stays withheld", p.id)).into());
    }
    let r = crate::ops::approve::approve(p)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    ctx.note(format!("{} approved (kept in {})", r.id, r.file));
    ctx.print(&format!("{}\n", r.id))
}
