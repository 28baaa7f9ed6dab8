//! `zo setup [--undo]`: once per machine, register zo's merge driver in the user's global git
//! config, so every clone on this machine merges memory entry by entry, even before anyone runs
//! `zo continue` there (git config does not travel with a clone).

use super::Ctx;
use crate::cli::SetupArgs;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx, a: SetupArgs) -> Result<()> {
    if a.agent.is_some() {
        return approve(ctx, a.undo);
    }
    let here = std::env::current_dir()?;
    if a.undo {
        crate::wiring::hooks::unregister_global(&here)?;
    } else {
        crate::wiring::hooks::register_global(&here)?;
    }
    if ctx.json {
        return ctx
            .print_json(&json!({ "merge_driver": if a.undo { "removed" } else { "global" } }));
    }
    if !ctx.quiet {
        let mut text = String::from(if a.undo {
            "removed zo's merge driver from your global git config; each repository zo ran in has it in its own config too (zo registers it there): `git config --local --remove-section merge.zo` in one takes it out\n"
        } else {
            "registered zo's merge driver in your global git config (every clone on this machine)\n"
        });
        // Only when it is missing: the model is found like every command finds it.
        if !a.undo
            && crate::search::embedding::locate(&crate::store::config::Config::default())
                .paths()
                .is_err()
        {
            text.push_str(&format!(
                "semantic recall also needs the model: {}\n",
                crate::search::embedding::INSTALL_HINT
            ));
        }
        ctx.print(&text)?;
    }
    Ok(())
}

/// `zo setup --agent claude [--undo]`: zo's project server approved in the user's Claude Code
/// settings (shown; `--undo` takes it out).
fn approve(ctx: &Ctx, undo: bool) -> Result<()> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    let home = home.ok_or_else(|| {
        crate::error::Error::usage("HOME is not set: there are no user settings to change")
    })?;
    let changed = crate::wiring::agents::approve_claude_server(&home, undo)?;
    let file = home.join(".claude/settings.json").display().to_string();
    if ctx.json {
        // What the file says now, whether or not this run changed it.
        return ctx
            .print_json(&json!({ "file": file, "changed": changed.is_some(), "approved": !undo }));
    }
    if !ctx.quiet {
        let said = match (changed.is_some(), undo) {
            (true, false) => format!(
                "added \"zo\" to enabledMcpjsonServers in {file}: Claude Code starts the zo server of every project wired with `zo init --agent claude`; undo: zo setup --agent claude --undo\n"
            ),
            (true, true) => format!("took \"zo\" out of enabledMcpjsonServers in {file}\n"),
            (false, false) => format!("{file} approves zo already; nothing changed\n"),
            (false, true) => format!("{file} does not approve zo; nothing changed\n"),
        };
        ctx.print(&said)?;
    }
    Ok(())
}
