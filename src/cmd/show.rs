//! `zo show ID`: one decision in full, with its latest outcome and what superseded it.

use super::Ctx;
use crate::cli::ShowArgs;
use anyhow::Result;
use serde_json::Value;

/// snake_case key for a field name: "Alternatives considered" → "alternatives_considered".
fn key(name: &str) -> String {
    let mut k = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            k.extend(c.to_lowercase());
        } else if !k.ends_with('_') {
            k.push('_');
        }
    }
    k.trim_matches('_').to_string()
}

pub fn run(ctx: &Ctx, a: ShowArgs) -> Result<()> {
    let memory = ctx.memory()?;
    let log = memory.decisions()?;
    let file = memory.layout.show(&memory.layout.decision_log());
    let i = log.find(&a.id).map_err(|e| crate::memory::find_error(e, &a.id, &file))?;
    let e = &log.entries[i];
    let text = e.content(&log);
    let outcome_entry = log.latest_outcome_entry(i).map(|j| (&log.entries[j], j));
    if ctx.json {
        let mut v = super::log::summary(&log, i);
        let obj = v.as_object_mut().expect("summary is an object");
        for f in &log.body(i).fields {
            obj.entry(key(&f.name)).or_insert_with(|| Value::String(f.value.clone()));
        }
        obj.insert("file".into(), file.into());
        obj.insert("text".into(), text.into());
        if let Some((o, _)) = outcome_entry {
            obj.insert("outcome_entry".into(), o.content(&log).into());
        }
        return ctx.print_json(&v);
    }
    let mut s = text;
    s.push('\n');
    if let Some((o, j)) = outcome_entry {
        s.push_str(&format!("\nLatest outcome ({}, {}): {}\n", o.id, o.timestamp, log.field(j, "Outcome").unwrap_or("")));
    }
    if let Some(by) = log.superseded_by(i) {
        s.push_str(&format!("\nSuperseded by {} ({}): {}\n", by.id, by.timestamp, by.title));
    }
    ctx.print(&s)
}
