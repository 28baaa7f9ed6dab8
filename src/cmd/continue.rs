//! `zo continue`: resume on this machine. Finds the memory (either layout), re-detects the
//! environment into `.zo/local.yaml`, makes sure `.zo/.gitignore` covers local and derived
//! files, splits session files an older merge combined, brings the index's rows up to date
//! (vectors from the machine's cache; nothing is embedded here), and prints the resume brief.
//! Running it twice changes nothing the second time.

use super::Ctx;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    if !layout.legacy {
        if let Err(e) = crate::lifecycle::init::ensure_gitignore(layout) {
            ctx.note(format!("could not update .zo/.gitignore: {e:#}"));
        }
        if let Err(e) = crate::lifecycle::init::write_local(layout) {
            ctx.note(format!(
                "could not write {}: {e:#}",
                layout.show(&layout.local_file())
            ));
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
        ctx.note(format!(
            "{file} held {} sessions (merged by an older zo); split into {}",
            new.len() + 1,
            new.join(", ")
        ));
    }
    let note = |m: &str| ctx.note(m);
    let mut waiting = 0;
    match crate::search::recall::open_fresh(&memory, &note) {
        Ok((mut index, _)) => {
            // Vectors this machine computed for another checkout first: often all of them.
            crate::search::index::vectors::fill(&mut index, &layout.config, &note)?;
            // The rest is not embedded here, where a person or an agent waits (a memory this
            // machine never saw took about a minute on two cores). No background process is
            // started either: it would race the next recall for the same texts on the same
            // cores, outlive the checkout it serves, and have no one to tell when it fails. The
            // next semantic query embeds them (with progress on a terminal), the MCP server in a
            // thread of its own, `zo index refresh` at once.
            if crate::search::embedding::locate(&layout.config)
                .paths()
                .is_ok()
            {
                waiting = index.pending_embeddings()?;
            }
        }
        Err(e) => ctx.note(format!("the index could not be built: {e:#}")),
    }
    if waiting > 0 {
        ctx.note(catching_up(waiting));
    }
    // The linked memories: missing, moved, not git repositories, behind their upstream; and
    // those the project expects that are not linked here.
    let links = crate::ops::links::report(&memory);
    for p in links.problems() {
        ctx.note(p);
    }
    let b = super::context::bundle(ctx, &memory, None, None)?;
    if ctx.json {
        let mut v = serde_json::to_value(crate::ops::ContextReport::from(b))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("links".into(), serde_json::to_value(&links)?);
            o.insert("semantic".into(), serde_json::json!({ "pending_embeddings": waiting, "catch_up": (waiting > 0).then(|| catching_up(waiting)) }));
        }
        return ctx.print_json(&v);
    }
    super::context::print(ctx, b)
}

/// The one line that says semantic recall is not complete yet, and how it catches up.
fn catching_up(n: usize) -> String {
    format!(
        "{n} entries await their embedding: lexical recall works now; semantic recall catches up at the next semantic `zo recall` (or in the MCP server, in the background), or now with `zo index refresh`"
    )
}
