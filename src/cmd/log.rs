//! `zo log`: list decisions, newest first.

use super::Ctx;
use crate::cli::LogArgs;
use crate::error::Error;
use crate::format::decision::DecisionLog;
use anyhow::Result;
use serde_json::{Value, json};

/// The stable summary of one decision (SPEC "Machine output").
pub fn summary(log: &DecisionLog, i: usize) -> Value {
    let e = &log.entries[i];
    json!({
        "id": e.id,
        "timestamp": e.timestamp,
        "type": e.kind,
        "title": e.title,
        "status": log.status(i),
        "superseded_by": log.superseded_by(i).map(|s| s.id.clone()),
        "outcome": log.latest_outcome(i),
        "line": e.span.line,
    })
}

/// One line for people: ID, date, type, title, and what became of it.
pub fn line(log: &DecisionLog, i: usize) -> String {
    let e = &log.entries[i];
    let mut s = format!("{}  {:<10}  {:<12}  {}", e.id, e.date(), e.kind, e.title);
    if let Some(by) = log.superseded_by(i) {
        s.push_str(&format!("  [superseded by {}]", by.id));
    }
    if let Some(r) = e.refs.as_deref().filter(|_| e.is_outcome()) {
        s.push_str(&format!("  [for {r}]"));
    }
    s.push('\n');
    s
}

pub fn run(ctx: &Ctx, a: LogArgs) -> Result<()> {
    if let Some(since) = &a.since {
        if !crate::time::is_date(since) {
            return Err(Error::usage(format!("--since takes a date as YYYY-MM-DD, not {since:?}")).into());
        }
    }
    let memory = ctx.memory()?;
    let log = memory.decisions()?;
    let want_outcomes = a.all || a.kind.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("OUTCOME"));
    let mut picked: Vec<usize> = (0..log.entries.len())
        .rev()
        .filter(|&i| {
            let e = &log.entries[i];
            (want_outcomes || !e.is_outcome())
                && a.kind.as_deref().is_none_or(|k| e.kind.eq_ignore_ascii_case(k))
                && a.since.as_deref().is_none_or(|d| e.timestamp.as_str() >= d)
        })
        .collect();
    if let Some(n) = a.limit {
        picked.truncate(n);
    }
    if ctx.json {
        let list: Vec<Value> = picked.iter().map(|&i| summary(&log, i)).collect();
        return ctx.print_json(&json!({ "decisions": list }));
    }
    if picked.is_empty() {
        ctx.note("no decisions match");
        return Ok(());
    }
    let text: String = picked.iter().map(|&i| line(&log, i)).collect();
    ctx.print(&text)
}
