//! `zo session start|end|list|show` (`ops::request::context::SessionStart`,
//! `ops::request::write::SessionEnd`).

use super::{Ctx, read_input};
use crate::cli::{SessionCommand, SessionEndArgs};
use crate::ops::request::Report;
use crate::ops::request::context::SessionStart;
use crate::ops::request::write::SessionEnd;
use anyhow::Result;
use serde_json::json;

fn ending(a: SessionEndArgs) -> Result<SessionEnd> {
    let mut e = match &a.file {
        Some(p) => {
            let text = read_input(p)?;
            let name = if p.as_os_str() == "-" {
                "<stdin>".to_string()
            } else {
                p.display().to_string()
            };
            super::parse_json_object::<SessionEnd>(
                &name,
                &text,
                "a session ending",
                "summary, shipped, next, blockers, phase, subtask, agent",
            )?
        }
        None => SessionEnd::default(),
    };
    if a.summary.is_some() {
        e.summary = a.summary;
    }
    if a.phase.is_some() {
        e.phase = a.phase;
    }
    if a.subtask.is_some() {
        e.subtask = a.subtask;
    }
    if a.agent.is_some() {
        e.agent = a.agent;
    }
    e.allow_secret = a.allow_secret;
    e.allow_directive = a.allow_directive;
    for (slot, v) in [
        (&mut e.shipped, a.shipped),
        (&mut e.next, a.next),
        (&mut e.blockers, a.blockers),
    ] {
        if !v.is_empty() {
            *slot = v;
        }
    }
    Ok(e)
}

pub fn run(ctx: &Ctx, c: SessionCommand) -> Result<()> {
    let memory = ctx.memory()?;
    match c {
        SessionCommand::Start(a) => {
            let r = ctx.run(
                &memory,
                SessionStart {
                    task: a.task,
                    agent: a.agent,
                    budget: a.budget,
                },
            )?;
            ctx.report(&r)
        }
        SessionCommand::List => list(ctx, &memory),
        SessionCommand::Show { name } => {
            super::show::print(ctx, crate::ops::show_session(&memory, &name)?)
        }
        SessionCommand::End(a) => {
            let ended = ctx.run(&memory, ending(a)?)?;
            // Quiet: the exit code says it; --json still prints the record.
            ctx.report_or(&ended, |r| {
                if ctx.quiet {
                    String::new()
                } else {
                    format!("{}\n", r.text())
                }
            })
        }
    }
}

/// `zo session list`: every session file, oldest first.
fn list(ctx: &Ctx, memory: &crate::store::memory::Memory) -> Result<()> {
    let sessions = crate::ops::sessions(memory)?;
    if ctx.json {
        return ctx.print_json(&json!({ "sessions": sessions }));
    }
    if sessions.is_empty() {
        ctx.note("no sessions yet; `zo session end --summary …` records one");
    }
    let s: String = sessions
        .iter()
        .map(|s| format!("{}  {}\n", s.name, s.title))
        .collect();
    ctx.print(&s)
}
