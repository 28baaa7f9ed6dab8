//! `zo hooks install|uninstall|status`.

use super::Ctx;
use crate::cli::HooksCommand;
use crate::wiring::hooks;
use anyhow::{Result, bail};
use serde_json::json;

pub fn run(ctx: &Ctx, c: HooksCommand) -> Result<()> {
    let memory = ctx.memory()?;
    let root = &memory.layout.root;
    if crate::git::Repo::discover(root).is_none() {
        bail!("{} is not a git repository", root.display());
    }
    let verb = match c {
        HooksCommand::Install => Some("installed zo's git hooks and merge routing"),
        HooksCommand::Uninstall => Some("removed zo's git hooks (your own commands in them stay)"),
        HooksCommand::Status => None,
    };
    let states = match c {
        HooksCommand::Install => {
            hooks::ensure_attributes(&memory.layout)?;
            hooks::install(root)?
        }
        HooksCommand::Uninstall => hooks::uninstall(root)?,
        HooksCommand::Status => hooks::status(root)?,
    };
    let driver = hooks::driver_registered(root);
    if ctx.json {
        let path = hooks::hooks_path(root).ok();
        ctx.print_json(&json!({ "hooks": states, "merge_driver": driver, "hooks_path": path }))?;
        return lost(&states);
    }
    let mut s: String = states
        .iter()
        .map(|h| {
            let lost = if h.installed && h.zo.is_none() {
                " (zo not found: on PATH nor where it was installed from; the hook warns and checks nothing; fix: zo hooks install)"
            } else {
                ""
            };
            format!("{:<14} {}{}{lost}\n", h.hook, if h.installed { "zo" } else { "-" }, if h.other_content { " (+ your own commands)" } else { "" })
        })
        .collect();
    s.push_str(&format!(
        "merge driver   {}\n",
        if driver {
            "registered"
        } else {
            "not registered (`zo continue` or `zo setup` registers it)"
        }
    ));
    if let Ok(hp) = hooks::hooks_path(root) {
        let shared = if hp.shared {
            " (core.hooksPath outside this repository: shared with every repository that uses it; zo does not install there)"
        } else {
            ""
        };
        s.push_str(&format!("hooks dir      {}{shared}\n", hp.dir));
    }
    if let Some(v) = verb {
        ctx.note(v);
    }
    ctx.print(&s)?;
    lost(&states)
}

/// A hook that is installed but cannot find zo checks nothing at every merge, checkout and
/// rebase: `status` (and `install`, should zo still not be found) fail so scripts see it.
fn lost(states: &[hooks::HookState]) -> Result<()> {
    let lost: Vec<&str> = states
        .iter()
        .filter(|h| h.installed && h.zo.is_none())
        .map(|h| h.hook.as_str())
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    Err(crate::error::Error::Failed(format!(
        "{} cannot find zo (fix: zo hooks install)",
        lost.join(", ")
    ))
    .into())
}

/// `zo resolve`: renders `wiring::hooks::resolve`.
pub fn resolve(ctx: &Ctx) -> Result<()> {
    let memory = ctx.memory()?;
    let r = hooks::resolve(&memory.layout)?;
    if ctx.json {
        ctx.print_json(&serde_json::to_value(&r)?)?;
    } else if r.files.is_empty() {
        ctx.note("no memory file is in conflict here");
    } else {
        let s: String = r
            .files
            .iter()
            .map(|f| format!("{:<9} {}\n", f.status, f.file))
            .collect();
        ctx.print(&s)?;
    }
    if r.files.iter().any(|f| f.status != "resolved") {
        return Err(crate::error::Error::Failed(
            "some memory files are still in conflict: merge them by hand (each entry once), then `git add` them".into(),
        )
        .into());
    }
    Ok(())
}
