//! `zo link PATH --name NAME [--user]`, `zo unlink NAME`, `zo links`: the linked memories
//! (`store::links`, `ops::links`).

use super::Ctx;
use crate::cli::LinkArgs;
use anyhow::Result;

pub fn link(ctx: &Ctx, a: LinkArgs) -> Result<()> {
    let memory = ctx.memory()?;
    if !a.user && !memory.layout.legacy {
        // local.yaml must stay out of commits: the link is this machine's.
        if let Err(e) = crate::lifecycle::init::ensure_gitignore(&memory.layout) {
            ctx.note(format!("could not update .zo/.gitignore: {e:#}"));
        }
    }
    let r = crate::store::links::add(&memory.layout, &a.name, &a.path, a.user)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if let Some(old) = &r.replaced {
        ctx.note(format!(
            "{} led to {}; it now leads to {}",
            r.link.name,
            old.display(),
            r.link.path.display()
        ));
    }
    ctx.note(format!(
        "linked {} → {} (in {})",
        r.link.name,
        r.link.path.display(),
        r.file.display()
    ));
    Ok(())
}

pub fn unlink(ctx: &Ctx, name: &str) -> Result<()> {
    let memory = ctx.memory()?;
    let l = crate::store::links::remove(&memory.layout, name)?;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&l)?);
    }
    ctx.note(format!(
        "unlinked {} ({} is left as it is)",
        l.name,
        l.path.display()
    ));
    // The same name in the user's file takes over from a local one.
    if let Some(still) = crate::store::links::load(&memory.layout).find(name) {
        let from = match still.source {
            crate::store::links::Source::User => "your links.yaml (every project)",
            crate::store::links::Source::Local => ".zo/local.yaml",
        };
        ctx.note(format!(
            "{name} is still linked, to {}, from {from}: `zo unlink {name}` again removes that one",
            still.path.display()
        ));
    }
    Ok(())
}

pub fn list(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let r = crate::ops::links::report(&memory);
    for p in r.problems() {
        ctx.note(p);
    }
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if r.links.is_empty() {
        ctx.note("no memory is linked: `zo link PATH --name NAME`");
    }
    ctx.print(&r.text())
}
