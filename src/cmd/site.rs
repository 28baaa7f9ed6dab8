//! `zo site [DIR]`: build the static site (`site::build`) and say where it is.

use super::Ctx;
use crate::cli::SiteArgs;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: SiteArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let r = crate::site::build(&memory, a.dir.as_deref())?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    for s in &r.skipped {
        ctx.note(format!("no page for {s}"));
    }
    ctx.print(&format!(
        "site: {} pages in {} ({} decisions, {} lessons, {} facts, {} sessions) in {:.0} ms\nopen {}\n",
        r.pages, r.dir, r.decisions, r.priors, r.facts, r.sessions, r.elapsed_ms, r.index
    ))
}
