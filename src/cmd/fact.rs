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
            let r = memory
                .fact_set(&input, crate::store::gate::Allow { secret: a.allow_secret, directive: a.allow_directive })
                .with_context(|| format!("nothing was written to {file}"))?;
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
        FactCommand::Get(a) => {
            let at = a.as_of.as_deref().map(|s| crate::store::asof::AsOf::parse(&memory, s)).transpose()?;
            get(ctx, &memory, a, at.as_ref())
        }
        FactCommand::List(a) => {
            let at = a.as_of.as_deref().map(|s| crate::store::asof::AsOf::parse(&memory, s)).transpose()?;
            let list = memory.fact_list_as_of(a.prefix.as_deref(), a.scope, a.all, at.as_ref())?;
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

fn get(ctx: &Ctx, memory: &crate::store::memory::Memory, a: crate::cli::FactGetArgs, at: Option<&crate::store::asof::AsOf>) -> Result<()> {
    match memory.fact_get_as_of(&a.key, a.scope, a.provisional, at)? {
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
            let hint =
                if memory.fact_get_as_of(&a.key, a.scope, true, at)?.is_some() { " (only a provisional value: see `zo fact get --provisional`)" } else { "" };
            let then = at.map(|at| format!(" as of {}", at.label())).unwrap_or_default();
            Err(Error::Failed(format!("no fact {}{then}{hint}", a.key)).into())
        }
    }
}
