//! `zo setup [--undo]`: once per machine, register zo's merge driver in the user's global git
//! config, so every clone on this machine merges memory entry by entry, even before anyone runs
//! `zo continue` there (git config does not travel with a clone).

use super::Ctx;
use crate::cli::SetupArgs;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx, a: SetupArgs) -> Result<()> {
    let here = std::env::current_dir()?;
    if a.undo {
        crate::wiring::hooks::unregister_global(&here)?;
    } else {
        crate::wiring::hooks::register_global(&here)?;
    }
    if ctx.json {
        return ctx.print_json(&json!({ "merge_driver": if a.undo { "removed" } else { "global" } }));
    }
    if !ctx.quiet {
        let mut text = String::from(if a.undo {
            "removed zo's merge driver from your global git config\n"
        } else {
            "registered zo's merge driver in your global git config (every clone on this machine)\n"
        });
        // Only when it is missing: the model is found like every command finds it.
        if !a.undo && crate::search::embedding::locate(&crate::store::config::Config::default()).paths().is_err() {
            text.push_str(&format!("semantic recall also needs the model: {}\n", crate::search::embedding::INSTALL_HINT));
        }
        ctx.print(&text)?;
    }
    Ok(())
}
