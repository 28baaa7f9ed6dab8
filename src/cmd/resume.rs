//! `zo continue`: resume on this machine. Finds the memory (either layout), re-detects the
//! environment into `.zo/local.yaml`, makes sure `.zo/.gitignore` covers local and derived
//! files, splits session files an older merge combined, brings the index up to date, and prints
//! the resume brief. Running it twice changes nothing the second time.

use super::Ctx;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    if !layout.legacy {
        if let Err(e) = super::init::ensure_gitignore(layout) {
            ctx.note(format!("could not update .zo/.gitignore: {e:#}"));
        }
        if let Err(e) = super::init::write_local(layout) {
            ctx.note(format!("could not write {}: {e:#}", layout.show(&layout.local_file())));
        }
    }
    if crate::git::Repo::discover(&layout.root).is_some() {
        if let Err(e) = crate::wiring::hooks::ensure_attributes(layout) {
            ctx.note(format!("could not write the merge routing: {e:#}"));
        }
        if let Err(e) = crate::wiring::hooks::register_driver(&layout.root) {
            ctx.note(format!("could not register the merge driver: {e:#}"));
        }
        if layout.config.get(&["hooks"]).and_then(|v| v.as_bool()) == Some(true) {
            if let Err(e) = crate::wiring::hooks::install(&layout.root) {
                ctx.note(format!("could not install git hooks: {e:#}"));
            }
        }
    }
    for p in memory.conflict_markers() {
        ctx.note(p.to_string());
    }
    for (file, new) in crate::lifecycle::session::split_merged(&memory)? {
        ctx.note(format!("{file} held {} sessions (merged by an older zo); split into {}", new.len() + 1, new.join(", ")));
    }
    let note = |m: &str| ctx.note(m);
    match crate::search::recall::open_fresh(&memory, &note) {
        Ok((mut index, _)) => {
            // Vectors this machine computed for another checkout first: often all of them.
            crate::search::index::vectors::fill(&mut index, &layout.config, &note)?;
            if index.pending_embeddings()? > 0 {
                if let Some(mut e) = crate::search::recall::embedder(&memory, &note) {
                    crate::search::recall::embed_pending(&mut index, &mut e, &note)?;
                }
            }
        }
        Err(e) => ctx.note(format!("the index could not be built: {e:#}")),
    }
    let b = super::context::bundle(ctx, &memory, None, None)?;
    super::context::print(ctx, b)
}

