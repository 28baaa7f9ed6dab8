//! `zo show ID`: any entry in full. A decision with its latest outcome and what superseded it;
//! a prior (`PR-…`); a session (its file name, a prefix of it, or `last`).

use super::Ctx;
use crate::cli::ShowArgs;
use crate::format::session::SessionFile;
use crate::memory::Memory;
use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};

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
    if a.id.to_ascii_uppercase().starts_with("PR-") {
        return prior(ctx, &memory, &a.id);
    }
    if a.id.starts_with("session") || a.id == "last" {
        return session(ctx, &memory, &a.id);
    }
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

/// `zo show PR-001`, `zo prior show PR-001`.
pub fn prior(ctx: &Ctx, memory: &Memory, id: &str) -> Result<()> {
    let pf = memory.priors()?;
    let file = memory.layout.show(&memory.layout.priors());
    let i = pf.find(id).ok_or_else(|| anyhow!("no prior {id} in {file}"))?;
    let p = &pf.entries[i];
    let text = p.content(&pf);
    if ctx.json {
        let mut v = super::prior::summary(p);
        v["file"] = file.into();
        v["text"] = text.into();
        return ctx.print_json(&v);
    }
    ctx.print(&format!("{}\n", text.trim_end()))
}

/// `zo show session-…`, `zo session show NAME|last`.
pub fn session(ctx: &Ctx, memory: &Memory, name: &str) -> Result<()> {
    let names = memory.session_names()?;
    let dir = memory.layout.show(&memory.layout.sessions());
    let found: Vec<&String> = if name == "last" {
        names.last().into_iter().collect()
    } else {
        let exact: Vec<&String> = names.iter().filter(|n| *n == name || n.trim_end_matches(".md") == name).collect();
        if exact.is_empty() { names.iter().filter(|n| n.starts_with(name)).collect() } else { exact }
    };
    let n = match found.as_slice() {
        [one] => *one,
        [] => bail!("no session {name} in {dir} (`zo session list` shows them)"),
        many => bail!("{name} matches several sessions: {}", many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
    };
    let path = memory.layout.sessions().join(n);
    let text = crate::fsio::read_text(&path)?.unwrap_or_default();
    if ctx.json {
        let s = SessionFile::parse(n, text.as_str());
        return ctx.print_json(&json!({
            "name": n,
            "file": memory.layout.show(&path),
            "number": s.number,
            "date": s.date,
            "title": s.title,
            "ended": s.ended,
            "sections": s.sections.iter().map(|(h, b)| json!({"heading": h, "text": b})).collect::<Vec<_>>(),
            "text": text.as_str(),
        }));
    }
    ctx.print(&format!("{}\n", text.as_str().trim_end()))
}
