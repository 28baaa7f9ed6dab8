//! `zo log`: list decisions, newest first.

use super::Ctx;
use crate::cli::LogArgs;
use crate::format::decision::DecisionLog;
use anyhow::Result;

/// One line for people: ID, date, type, title, and what became of it.
pub fn line(log: &DecisionLog, i: usize) -> String {
    let e = &log.entries[i];
    // One line per decision whatever its fields hold: a title continued on the next lines
    // (a hand edit) printed a line that read as another decision's.
    let one = crate::store::gate::frame::one_line;
    let mut s = format!("{}  {:<10}  {:<12}  {}", one(&e.id), e.date(), one(&e.kind), one(&e.title));
    if let Some(by) = log.superseded_by(i) {
        s.push_str(&format!("  [superseded by {}]", by.id));
    }
    if let Some(r) = e.refs.as_deref().filter(|_| e.is_outcome() || e.is_confirmation()) {
        s.push_str(&format!("  [for {r}]"));
    }
    // An agent reads this list too (its shell runs `zo log`): a title the directive rules flag
    // is marked, as `show` and `recall` mark the entry.
    if !crate::store::screened::flags(&e.title).is_empty() {
        s.push_str("  [not approved: reads as an instruction to an agent; zo show says why]");
    }
    // A tombstone's title already says "[forgotten]": not twice.
    if log.status(i) == "provisional" || (log.status(i) == "forgotten" && e.title != crate::format::fact::FORGOTTEN) {
        s.push_str(&format!("  [{}]", log.status(i)));
    }
    s.push('\n');
    s
}

pub fn run(ctx: &Ctx, a: LogArgs) -> Result<()> {
    let q = crate::ops::LogQuery { kind: a.kind, since: a.since, limit: a.limit, all: a.all, tag: a.tag };
    q.check()?;
    let memory = ctx.memory()?;
    let at = a.as_of.as_deref().map(|s| crate::store::asof::AsOf::parse(&memory, s)).transpose()?;
    // Now: the quick read, whose summary knows whether the log holds conflict markers.
    let (log, log_conflict) = match &at {
        None => memory.decisions_quick()?,
        Some(_) => (memory.decisions_as_of(at.as_ref())?, true),
    };
    for p in memory.conflict_markers_in(log_conflict) {
        ctx.note(p.to_string());
    }
    let mut r = crate::ops::log(&log, &q)?;
    // Before any output: a commit from before `zo init` has no log, not an empty one.
    let no_memory = at.as_ref().filter(|_| r.picked.is_empty()).and_then(|a| a.no_memory_then(&memory));
    r.as_of = at;
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if r.picked.is_empty() {
        ctx.note(no_memory.as_deref().unwrap_or("no decisions match"));
        return Ok(());
    }
    let text: String = r.picked.iter().map(|&i| line(&log, i)).collect();
    ctx.print(&text)
}
