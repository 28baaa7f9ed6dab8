//! `zo state show|set`: STATE.md's fields.

use super::Ctx;
use crate::cli::{StateCommand, StateSetArgs};
use crate::error::Error;
use crate::format::state::{State, Value};
use anyhow::{Context, Result};
use serde_json::json;

fn fields_json(state: &State) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (k, v) in state.fields() {
        m.insert(k.to_string(), serde_json::to_value(v).unwrap_or_default());
    }
    serde_json::Value::Object(m)
}

fn show(ctx: &Ctx, state: &State) -> Result<()> {
    if ctx.json {
        return ctx.print_json(&json!({ "fields": fields_json(state) }));
    }
    let mut s = String::new();
    for (k, v) in state.fields() {
        match v {
            Value::Scalar(x) => s.push_str(&format!("{k}: {x}\n")),
            Value::List(items) if items.is_empty() => s.push_str(&format!("{k}: []\n")),
            Value::List(items) => {
                s.push_str(&format!("{k}:\n"));
                for i in items {
                    s.push_str(&format!("  - {i}\n"));
                }
            }
        }
    }
    ctx.print(&s)
}

fn set(ctx: &Ctx, a: StateSetArgs) -> Result<()> {
    let mut updates: Vec<(String, Value)> = Vec::new();
    for (key, v) in [
        ("phase", a.phase),
        ("mode", a.mode),
        ("last_completed_subtask", a.subtask),
    ] {
        if let Some(v) = v {
            updates.push((key.into(), Value::Scalar(v)));
        }
    }
    if !a.blockers.is_empty() || a.clear_blockers {
        updates.push(("active_blockers".into(), Value::List(a.blockers)));
    }
    if !a.next.is_empty() || a.clear_next {
        updates.push(("next_steps".into(), Value::List(a.next)));
    }
    for kv in a.set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Error::usage(format!("--set takes KEY=VALUE, not {kv:?}")).into());
        };
        // The library checks the key and the value (`Memory::set_state`).
        updates.push((k.trim().into(), Value::Scalar(v.trim().into())));
    }
    if updates.is_empty() {
        return Err(Error::usage("nothing to set; see `zo state set --help`").into());
    }
    // STATE.md is committed like the logs: the library's gate checks every key and value.
    updates.push(("timestamp".into(), Value::Scalar(crate::time::now())));
    let memory = ctx.memory()?;
    let state = memory
        .set_state(
            updates,
            &[],
            crate::store::gate::Allow {
                secret: a.allow_secret,
                directive: a.allow_directive,
            },
        )
        .context("STATE.md was not changed")?;
    if ctx.json || !ctx.quiet {
        show(ctx, &state)?;
    }
    Ok(())
}

pub fn run(ctx: &Ctx, c: StateCommand) -> Result<()> {
    match c {
        StateCommand::Show => {
            let memory = ctx.memory()?;
            let (state, warning) = memory.state();
            if let Some(w) = warning {
                ctx.note(w);
            }
            show(ctx, &state)
        }
        StateCommand::Set(a) => set(ctx, a),
    }
}
