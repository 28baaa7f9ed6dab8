//! `zo fact set|get|list`: exact facts and preferences by key.

use super::Ctx;
use crate::cli::FactCommand;
use crate::error::Error;
use crate::store::facts::FactInput;
use anyhow::{Context, Result};
use serde_json::json;

pub fn run(ctx: &Ctx, c: FactCommand) -> Result<()> {
    let memory = ctx.memory()?;
    match c {
        FactCommand::Set(a) => {
            let input = FactInput { key: a.key, value: a.value, source: a.source, confidence: a.confidence, scope: a.scope };
            let scope = input.scope.unwrap_or(crate::store::facts::Scope::Project);
            let file = memory.facts_path(scope).map(|p| memory.layout.show(&p)).unwrap_or_default();
            let r = memory.fact_set(&input, a.allow_secret).with_context(|| format!("nothing was written to {file}"))?;
            if r.unchanged {
                ctx.note(format!("{} already holds this value ({}); nothing was written", r.fact.key, r.fact.id));
            } else if r.status == "provisional" {
                ctx.note(format!("{} is provisional: `zo fact get` keeps the confirmed value until `zo confirm {}`", r.fact.id, r.fact.id));
            }
            if ctx.json {
                return ctx.print_json(&serde_json::to_value(&r)?);
            }
            ctx.print(&format!("{}\n", r.fact.id))
        }
        FactCommand::Get(a) => match memory.fact_get(&a.key, a.scope, a.provisional)? {
            Some(v) => {
                if ctx.json {
                    return ctx.print_json(&serde_json::to_value(&v)?);
                }
                ctx.print(&format!("{}\n", v.value))
            }
            None => {
                if ctx.json {
                    ctx.print_json(&json!({ "key": a.key, "found": false }))?;
                }
                let hint = if memory.fact_get(&a.key, a.scope, true)?.is_some() { " (only a provisional value: see `zo fact get --provisional`)" } else { "" };
                Err(Error::Failed(format!("no fact {}{hint}", a.key)).into())
            }
        },
        FactCommand::List(a) => {
            let list = memory.fact_list(a.prefix.as_deref(), a.scope, a.all)?;
            if ctx.json {
                return ctx.print_json(&json!({ "facts": list }));
            }
            if list.is_empty() {
                ctx.note("no facts yet; set one with `zo fact set category:entity VALUE`");
            }
            ctx.print(&crate::ops::text::facts(&list, a.all))
        }
    }
}
