//! `zo init`: create `.zo/` from `templates/` (`lifecycle::init`), or wire an agent.

use super::Ctx;
use crate::cli::InitArgs;
use crate::lifecycle::init::{Init, Initialised, init};
use anyhow::Result;

pub fn run(ctx: &Ctx, args: InitArgs) -> Result<()> {
    let remove = args.remove;
    let r = init(&Init {
        repo: ctx.repo.clone(),
        project: args.project,
        agent: args.agent.clone(),
        hooks: args.hooks,
        remove,
    })?;
    for n in &r.notes {
        ctx.note(n);
    }
    if ctx.json {
        return ctx.print_json(&serde_json::to_value(&r)?);
    }
    if let Some(st) = r.mcp_stanza {
        ctx.print(&format!(
            "MCP: give your client this server (command `zo`, args [\"mcp\"]):\n{st}\n"
        ))?;
    }
    let agent = args.agent.as_deref().unwrap_or("");
    if remove && !ctx.quiet {
        ctx.print(&removed(&r, agent))?;
    }
    if !r.made_memory && !remove && (!r.created.is_empty() || !r.updated.is_empty()) {
        if !ctx.quiet {
            ctx.print(&format!("wired zo for {agent}:\n{}", listed(&r)))?;
        }
        return Ok(());
    }
    if r.created.is_empty() {
        if !remove {
            let wired = args
                .agent
                .map(|a| format!(" and wired for {a}"))
                .unwrap_or_default();
            ctx.note(format!(
                ".zo is already initialised{wired}; nothing changed"
            ));
        }
    } else if !ctx.quiet {
        let next = "next: `zo decide --title … --decision …`, then `git add .zo && git commit` (or `zo checkpoint`)\n";
        ctx.print(&format!(
            "initialised zo memory for {:?} in {}\n{}{next}",
            r.project,
            r.zo_dir,
            listed(&r)
        ))?;
    }
    Ok(())
}

/// "  created X" and "  updated Y" lines.
fn listed(r: &Initialised) -> String {
    let created = r.created.iter().map(|c| format!("  created {c}\n"));
    created
        .chain(r.updated.iter().map(|u| format!("  updated {u}\n")))
        .collect()
}

/// What `--remove` took out, and what it left because another agent still relies on it.
fn removed(r: &Initialised, agent: &str) -> String {
    let mut s = if r.removed.is_empty() {
        format!("no wiring of zo for {agent} to remove\n")
    } else {
        format!("removed zo's wiring for {agent}:\n")
    };
    s.extend(r.removed.iter().map(|x| format!("  removed {x}\n")));
    s.extend(r.kept.iter().map(|k| format!("  kept {k}\n")));
    s
}
