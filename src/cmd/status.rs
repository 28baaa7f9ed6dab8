//! `zo status`: where the project stands, in one screen.

use super::Ctx;
use anyhow::Result;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let r = crate::ops::status(&memory)?;
    for w in &r.warnings {
        ctx.note(w);
    }
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    let layout = &memory.layout;
    let mut s = format!("project   {}\n", r.project);
    let mode = r.mode.as_ref().map(|m| format!(" (mode {m})")).unwrap_or_default();
    s.push_str(&format!("phase     {}{mode}\n", r.phase.as_deref().unwrap_or("-")));
    if let Some(t) = &r.updated {
        s.push_str(&format!("updated   {t}\n"));
    }
    let list = |name: &str, items: &[String], s: &mut String| {
        if items.is_empty() {
            s.push_str(&format!("{name:<9} none\n"));
        } else {
            for (i, b) in items.iter().enumerate() {
                s.push_str(&format!("{:<9} - {b}\n", if i == 0 { name } else { "" }));
            }
        }
    };
    list("blockers", &r.blockers, &mut s);
    list("next", &r.next_steps, &mut s);
    let c = &r.counts;
    use crate::ops::text::count;
    s.push_str(&format!(
        "memory    {}, {}, {}, {}  ({})\n",
        count(c.decisions, "decision", "decisions"),
        count(c.priors, "prior", "priors"),
        count(c.sessions, "session", "sessions"),
        count(c.snapshots, "snapshot", "snapshots"),
        r.memory
    ));
    if c.facts > 0 || c.provisional > 0 || c.stale > 0 {
        let mut parts = vec![count(c.facts, "fact", "facts")];
        if c.provisional > 0 {
            parts.push(format!("{} (marked in zo log; zo confirm ID)", count(c.provisional, "provisional decision", "provisional decisions")));
        }
        if c.stale > 0 {
            parts.push(format!("{} (zo stale)", count(c.stale, "stale decision", "stale decisions")));
        }
        s.push_str(&format!("          {}\n", parts.join(", ")));
    }
    if let Some(e) = &r.last_decision {
        s.push_str(&format!("last      {} {} {}\n", e.id, e.timestamp.get(..10).unwrap_or(&e.timestamp), e.title));
    }
    if let Some(sn) = &r.last_session {
        s.push_str(&format!("session   {sn}\n"));
    }
    if let Some(sn) = &r.last_snapshot {
        s.push_str(&format!("snapshot  {sn}\n"));
    }
    let ix = &r.index;
    s.push_str(&format!(
        "index     {}, {} recall\n",
        if !ix.built {
            "not built"
        } else if ix.fresh {
            "fresh"
        } else {
            "stale (refreshed by the next recall)"
        },
        ix.mode
    ));
    let zo_rel = crate::ops::zo_dir_rel(&memory);
    let g = &r.git;
    if g.repository {
        let state = match g.zo_dirty {
            Some(true) => format!("{zo_rel}/ has uncommitted changes"),
            Some(false) => format!("{zo_rel}/ committed"),
            None => "unknown".into(),
        };
        s.push_str(&format!("git       {} @ {}, {state}\n", g.branch.as_deref().unwrap_or("(detached)"), g.head.as_deref().unwrap_or("(no commits)")));
        let file = layout.show(&crate::wiring::hooks::attributes_file(layout));
        let routing = match g.merge_routing {
            Some("committed") => "routing committed".to_string(),
            Some("uncommitted") => format!("{file} NOT committed: other clones will merge memory line by line (zo checkpoint)"),
            _ => format!("{file} missing (zo continue)"),
        };
        let driver = match g.merge_driver {
            Some(scope) => format!("driver registered ({scope})"),
            None => "driver NOT registered on this machine (zo setup)".into(),
        };
        s.push_str(&format!("merge     {routing}; {driver}\n"));
    } else {
        s.push_str("git       not a git repository\n");
    }
    ctx.print(&s)
}
