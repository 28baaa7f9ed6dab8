//! `zo site [DIR]`: build the static site (`site::build`) and say where it is.

use super::Ctx;
use crate::cli::SiteArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: SiteArgs) -> Result<()> {
    let mut memory = ctx.memory()?;
    if let Some(name) = a.memory.filter(|n| n != "project") {
        if a.dir.is_none() {
            return Err(crate::error::Error::usage(format!(
                "site --memory {name} needs a DIR to write into: zo writes nothing into a linked repository but through `zo promote`"
            ))
            .into());
        }
        memory = crate::ops::request::open_link(&crate::store::links::load(&memory.layout), &name)?.1;
    }
    let r = crate::site::build(&memory, a.dir.as_deref())?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    for s in &r.skipped {
        ctx.note(format!("no page for {s}"));
    }
    use crate::ops::text::count;
    ctx.print(&format!(
        "site: {} in {} ({}, {}, {}, {}) in {:.0} ms\nopen {}\n",
        count(r.pages, "page", "pages"),
        r.dir,
        count(r.decisions, "decision", "decisions"),
        count(r.priors, "lesson", "lessons"),
        count(r.facts, "fact", "facts"),
        count(r.sessions, "session", "sessions"),
        r.elapsed_ms,
        r.index
    ))
}
