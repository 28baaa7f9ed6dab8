//! `zo session start|end|list|show`.

use super::{Ctx, read_input};
use crate::cli::{SessionCommand, SessionEndArgs};
use crate::lifecycle::session::{self, Ending};
use crate::ops::text::ended as ended_text;
use anyhow::Result;
use serde_json::json;

fn ending(a: SessionEndArgs) -> Result<Ending> {
    let mut e = match &a.file {
        Some(p) => {
            let text = read_input(p)?;
            let name = if p.as_os_str() == "-" { "<stdin>".to_string() } else { p.display().to_string() };
            super::parse_json_object::<Ending>(&name, &text, "a session ending", "summary, shipped, next, blockers, phase, subtask, agent")?
        }
        None => Ending::default(),
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
    for (slot, v) in [(&mut e.shipped, a.shipped), (&mut e.next, a.next), (&mut e.blockers, a.blockers)] {
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
            let (starting, ended) = session::open(&memory, a.agent.clone(), a.task.clone(), None)?;
            if let Some(e) = &ended {
                ctx.note(format!("the session left open was ended first: {}", ended_text(&e.file, e.decisions.len(), e.priors.len())));
            }
            // The bundle is built before the record is written, so it says what arrived since
            // the last session.
            let b = super::context::bundle(ctx, &memory, a.task.as_deref(), a.budget);
            starting.finish(&memory)?;
            super::context::print(ctx, b?)
        }
        SessionCommand::List => list(ctx, &memory),
        SessionCommand::Show { name } => super::show::print(ctx, &crate::ops::show_session(&memory, &name)?),
        SessionCommand::End(a) => {
            let ended = session::end(&memory, &ending(a)?, false)?.expect("written unless skip_if_empty");
            // Bring the index's rows up to date; embeddings wait for the next semantic reader.
            if let Err(e) = crate::search::recall::open_fresh(&memory, &|_| {}) {
                ctx.note(format!("the index was not refreshed: {e:#}"));
            }
            if ctx.json {
                return ctx.print_json(&serde_json::to_value(&ended)?);
            }
            if !ctx.quiet {
                ctx.print(&format!("{}; STATE.md updated\n", ended_text(&ended.file, ended.decisions.len(), ended.priors.len())))?;
            }
            Ok(())
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
    let s: String = sessions.iter().map(|s| format!("{}  {}\n", s.name, s.title)).collect();
    ctx.print(&s)
}
