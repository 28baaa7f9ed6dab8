//! `zo context [--task TEXT] [--budget N]`: the session-start bundle. Without --task it never
//! loads the model.

use super::Ctx;
use crate::context::{self, Bundle};
use crate::index::Filter;
use crate::memory::Memory;
use crate::recall::{self, Mode};
use anyhow::Result;
use serde_json::json;

/// Build the bundle; for a task, rank older decisions with hybrid recall (lexical when no
/// model is installed).
pub fn bundle(ctx: &Ctx, memory: &Memory, task: Option<&str>, budget: Option<usize>) -> Result<Bundle> {
    let budget = budget
        .or_else(|| memory.layout.config.u64(&["context", "budget_tokens"]).map(|v| v as usize))
        .unwrap_or(4000);
    let matches = match task.filter(|t| !t.trim().is_empty()) {
        Some(t) => {
            let note = |m: &str| ctx.note(m);
            let filter = Filter { kind: Some("decision".into()), ..Default::default() };
            let (_, hits) = recall::recall(memory, t, 10, &filter, Mode::Hybrid, &note)?;
            let log = memory.decisions()?;
            let idx: Vec<usize> = hits.iter().filter_map(|h| log.find(&h.row.id).ok()).collect();
            Some((t, idx))
        }
        None => None,
    };
    context::build(memory, budget, matches)
}

pub fn print(ctx: &Ctx, b: &Bundle) -> Result<()> {
    if ctx.json {
        let mut v = serde_json::to_value(b)?;
        v["markdown"] = json!(b.markdown());
        return ctx.print_json(&v);
    }
    ctx.print(&b.markdown())
}

pub fn run(ctx: &Ctx, a: crate::cli::ContextArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let b = bundle(ctx, &memory, a.task.as_deref(), a.budget)?;
    print(ctx, &b)
}
