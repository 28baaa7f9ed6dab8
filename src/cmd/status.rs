//! `zo status`: where the project stands, in one screen.

use super::Ctx;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let layout = &memory.layout;
    let (state, warning) = memory.state();
    if let Some(w) = warning {
        ctx.note(w);
    }
    let log = memory.decisions()?;
    let priors = memory.priors()?;
    let sessions = memory.session_names()?;
    let snapshots = memory.snapshot_names()?;
    let project = state.scalar("project").unwrap_or_else(|| layout.project());
    let phase = state.scalar("phase");
    let blockers = state.list("active_blockers");
    let next = state.list("next_steps");
    let decisions = log.entries.iter().filter(|e| !e.is_outcome()).count();
    let last_decision = log.entries.iter().rev().find(|e| !e.is_outcome());

    let repo = crate::git::Repo::discover(&layout.root);
    let head = repo.as_ref().map(|r| r.head());
    let zo_rel = if layout.legacy { layout.rel(&layout.memory) } else { layout.rel(&layout.zo_dir) };
    let dirty = repo.as_ref().map(|r| r.is_dirty_under(&zo_rel)).transpose().unwrap_or_else(|e| {
        ctx.note(format!("could not tell whether {zo_rel}/ has uncommitted changes: {e:#}"));
        None
    });

    let routing = repo.as_ref().map(|r| crate::hooks::routing_state(layout, r));
    let driver = repo.as_ref().and_then(|_| crate::hooks::driver_scope(&layout.root));
    let index_path = layout.index_db();
    let index_built = index_path.exists();
    let index_fresh = index_built
        && crate::index::Index::open(layout, &|_| {}).and_then(|(ix, _)| ix.is_fresh(&memory)).unwrap_or(false);
    let index_mode = if crate::embedding::locate(&layout.config).paths().is_ok() { "hybrid" } else { "lexical" };
    if ctx.json {
        return ctx.print_json(&json!({
            "project": project,
            "phase": phase,
            "mode": state.scalar("mode"),
            "updated": state.scalar("timestamp"),
            "blockers": blockers,
            "next_steps": next,
            "counts": {
                "decisions": decisions,
                "outcomes": log.entries.len() - decisions,
                "priors": priors.entries.len(),
                "sessions": sessions.len(),
                "snapshots": snapshots.len(),
            },
            "last_decision": last_decision.map(|e| json!({"id": e.id, "timestamp": e.timestamp, "title": e.title})),
            "last_session": sessions.last(),
            "last_snapshot": snapshots.last(),
            "memory": layout.show(&layout.memory),
            "legacy_layout": layout.legacy,
            "index": { "mode": index_mode, "fresh": index_fresh, "built": index_built },
            "git": {
                "repository": repo.is_some(),
                "branch": head.as_ref().and_then(|h| h.branch.clone()),
                "head": head.as_ref().and_then(|h| h.head.clone()),
                "zo_dirty": dirty,
                "merge_routing": routing,
                "merge_driver": driver,
            },
        }));
    }
    let mut s = format!("project   {project}\n");
    let mode = state.scalar("mode").map(|m| format!(" (mode {m})")).unwrap_or_default();
    s.push_str(&format!("phase     {}{mode}\n", phase.as_deref().unwrap_or("-")));
    if let Some(t) = state.scalar("timestamp") {
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
    list("blockers", &blockers, &mut s);
    list("next", &next, &mut s);
    s.push_str(&format!(
        "memory    {decisions} decisions, {} priors, {} sessions, {} snapshots  ({})\n",
        priors.entries.len(),
        sessions.len(),
        snapshots.len(),
        layout.show(&layout.memory)
    ));
    if let Some(e) = last_decision {
        s.push_str(&format!("last      {} {} {}\n", e.id, e.date(), e.title));
    }
    if let Some(sn) = sessions.last() {
        s.push_str(&format!("session   {sn}\n"));
    }
    if let Some(sn) = snapshots.last() {
        s.push_str(&format!("snapshot  {sn}\n"));
    }
    s.push_str(&format!(
        "index     {}, {index_mode} recall\n",
        if !index_built { "not built" } else if index_fresh { "fresh" } else { "stale (refreshed by the next recall)" }
    ));
    match (&head, dirty) {
        (Some(h), d) => {
            let state = match d {
                Some(true) => format!("{zo_rel}/ has uncommitted changes"),
                Some(false) => format!("{zo_rel}/ committed"),
                None => "unknown".into(),
            };
            s.push_str(&format!(
                "git       {} @ {}, {state}\n",
                h.branch.as_deref().unwrap_or("(detached)"),
                h.head.as_deref().unwrap_or("(no commits)")
            ));
        }
        (None, _) => s.push_str("git       not a git repository\n"),
    }
    if let Some(routing) = routing {
        let file = layout.show(&crate::hooks::attributes_file(layout));
        let r = match routing {
            "committed" => "routing committed".to_string(),
            "uncommitted" => format!("{file} NOT committed: other clones will merge memory line by line (zo checkpoint)"),
            _ => format!("{file} missing (zo continue)"),
        };
        let d = match driver {
            Some(scope) => format!("driver registered ({scope})"),
            None => "driver NOT registered on this machine (zo setup)".into(),
        };
        s.push_str(&format!("merge     {r}; {d}\n"));
    }
    ctx.print(&s)
}
