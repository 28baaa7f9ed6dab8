//! `zo prior add|list|show|supersede`: the post-mortem protocol.

use super::Ctx;
use crate::cli::PriorCommand;
use crate::memory::PriorInput;
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, c: PriorCommand) -> Result<()> {
    let memory = ctx.memory()?;
    let file = memory.layout.show(&memory.layout.priors());
    match c {
        PriorCommand::Add(a) => {
            let input = PriorInput {
                title: a.title,
                root_cause: a.root_cause,
                failure: a.failure,
                rules: a.rules,
                source: a.source.unwrap_or_default(),
                solution: a.solution.unwrap_or_default(),
            };
            let id = memory.add_prior(&input, a.allow_secret).with_context(|| format!("nothing was written to {file}"))?;
            if ctx.json {
                return ctx.print_json(&json!({ "id": id }));
            }
            ctx.print(&format!("{id}\n"))
        }
        PriorCommand::List => {
            let pf = memory.priors()?;
            if ctx.json {
                let list: Vec<_> = pf.entries.iter().map(summary).collect();
                return ctx.print_json(&json!({ "priors": list }));
            }
            let mut s = String::new();
            for p in &pf.entries {
                s.push_str(&format!("{}  {:<15}  {}", p.id, p.root_cause().unwrap_or("-"), p.title));
                if let Some(by) = p.superseded_by() {
                    s.push_str(&format!("  [superseded by {by}]"));
                }
                s.push('\n');
            }
            if s.is_empty() {
                ctx.note("no priors yet; add one with `zo prior add`");
            }
            ctx.print(&s)
        }
        PriorCommand::Show { id } => super::show::prior(ctx, &memory, &id),
        PriorCommand::Supersede { old, new } => {
            let (o, n) = memory.supersede_prior(&old, &new).with_context(|| format!("{file} was not changed"))?;
            if ctx.json {
                return ctx.print_json(&json!({ "id": o, "superseded_by": n }));
            }
            if !ctx.quiet {
                ctx.print(&format!("{o} superseded by {n}\n"))?;
            }
            Ok(())
        }
    }
}

/// A prior as `prior list --json` shows it (`show` adds its file and text).
pub fn summary(p: &crate::format::prior::Prior) -> serde_json::Value {
    json!({
        "id": p.id,
        "title": p.title,
        "root_cause": p.root_cause(),
        "superseded_by": p.superseded_by(),
        "rules": p.rules(),
        "line": p.span.line,
    })
}
