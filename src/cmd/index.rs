//! `zo index status|refresh|rebuild`: inspect or rebuild the derived index.

use super::Ctx;
use crate::cli::IndexCommand;
use crate::search::embedding;
use crate::search::index::{Index, vectors};
use crate::search::recall;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx, c: IndexCommand) -> Result<()> {
    let memory = ctx.memory()?;
    let note = |m: &str| ctx.note(m);
    if matches!(c, IndexCommand::Status) {
        let h = crate::ops::index_health(&memory);
        if let Some(e) = &h.error {
            anyhow::bail!("{} could not be read: {e}; fix: zo index rebuild", h.path);
        }
        if ctx.json {
            return ctx.print_json(&serde_json::to_value(&h)?);
        }
        return ctx.print(&format!(
            "index     {} ({})\nentries   {} ({} embedded, {} waiting for an embedding)\nmode      {}\n",
            h.path,
            if !h.built {
                "not built"
            } else if h.fresh {
                "fresh"
            } else {
                "stale: refreshed by the next read"
            },
            h.entries,
            h.embedded,
            h.pending_embeddings,
            h.mode
        ));
    }
    let started = std::time::Instant::now();
    let mut mode = "lexical";
    let (index, r) = if matches!(c, IndexCommand::Rebuild) {
        // Built and embedded beside the old index, which answers readers until the swap; never
        // waits for them to leave (`Index::install`). Asked for, so no line on stderr; the JSON
        // still says why.
        let mut fresh = Index::build(&memory.layout)?;
        let mut r = fresh.refresh(&memory)?;
        r.from_cache = vectors::fill(&mut fresh, &memory.layout.config, &note)?;
        if fresh.pending_embeddings()? > 0 {
            if let Some(mut e) = recall::embedder(&memory, &note) {
                r.embedded = recall::embed_pending(&mut fresh, &mut e, &note)?;
                mode = "hybrid";
            }
        } else if embedding::locate(&memory.layout.config).paths().is_ok() {
            mode = "hybrid";
        }
        r.rebuilt = Some("asked for by `zo index rebuild`".into());
        (fresh.install(&memory.layout)?, r)
    } else {
        let (mut index, mut r) = recall::open_fresh(&memory, &note)?;
        let rows_only = matches!(c, IndexCommand::Refresh { rows_only: true });
        if !rows_only {
            r.from_cache = vectors::fill(&mut index, &memory.layout.config, &note)?;
        }
        if rows_only {
        } else if index.pending_embeddings()? > 0 {
            if let Some(mut e) = recall::embedder(&memory, &note) {
                r.embedded = recall::embed_pending(&mut index, &mut e, &note)?;
                mode = "hybrid";
            }
        } else if embedding::locate(&memory.layout.config).paths().is_ok() {
            mode = "hybrid";
        }
        (index, r)
    };
    let (entries, embedded, _) = index.counts()?;
    let secs = started.elapsed().as_secs_f64();
    if ctx.json {
        return ctx.print_json(&json!({
            "mode": mode, "entries": entries, "embedded_total": embedded, "inserted": r.inserted,
            "updated": r.updated, "deleted": r.deleted, "embedded": r.embedded, "from_cache": r.from_cache, "rebuilt": r.rebuilt,
            "seconds": secs,
        }));
    }
    if !ctx.quiet {
        ctx.print(&format!(
            "{entries} entries ({} new, {} changed, {} removed), {} embedded now, {} from the vector cache, {embedded} with embeddings; {mode} mode; {secs:.2}s\n",
            r.inserted, r.updated, r.deleted, r.embedded, r.from_cache
        ))?;
    }
    Ok(())
}
