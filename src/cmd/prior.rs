//! `zo prior add|list|show|supersede`: the post-mortem protocol.

use super::Ctx;
use crate::cli::PriorCommand;
use crate::store::write::PriorInput;
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
            let (id, similar) = memory
                .add_prior(&input, crate::store::gate::Allow { secret: a.allow_secret, directive: a.allow_directive })
                .with_context(|| format!("nothing was written to {file}"))?;
            let r = crate::ops::PriorAdded { id, similar };
            for n in r.notes() {
                ctx.note(n);
            }
            if ctx.json {
                return ctx.print_json(&serde_json::to_value(&r)?);
            }
            ctx.print(&format!("{}\n", r.id))
        }
        PriorCommand::List => {
            let pf = memory.priors()?;
            if ctx.json {
                let list: Vec<_> = pf.entries.iter().map(crate::ops::prior_summary).collect();
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
        PriorCommand::Show { id } => {
            let id = if id.to_ascii_uppercase().starts_with("PR-") { id } else { format!("PR-{id}") };
            super::show::print(ctx, &crate::ops::show(&memory, &id)?)
        }
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
