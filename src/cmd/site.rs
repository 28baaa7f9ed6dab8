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
        memory =
            crate::ops::request::open_link(&crate::store::links::load(&memory.layout), &name)?.1;
        let dir = a
            .dir
            .as_deref()
            .map(|d| std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf()))
            .unwrap_or_default();
        let dir = dir
            .canonicalize()
            .or_else(|_| {
                dir.parent().map_or(Ok(dir.clone()), |p| {
                    p.canonicalize()
                        .map(|p| p.join(dir.file_name().unwrap_or_default()))
                })
            })
            .unwrap_or(dir);
        if dir.starts_with(&memory.layout.root) {
            return Err(crate::error::Error::usage(format!(
                "{} is inside the linked repository {}: zo writes nothing there; choose a DIR outside it",
                dir.display(),
                memory.layout.root.display()
            ))
            .into());
        }
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
