//! `zo completions SHELL` and `zo man`: generated from the clap definitions, so they can never
//! disagree with the commands.

use super::Ctx;
use anyhow::Result;
use clap::CommandFactory;

/// The script a shell sources to complete zo: it asks zo itself at each TAB (`COMPLETE=SHELL
/// zo -- …`, answered in `main` before anything else runs), so IDs from the memory complete
/// too (`ids`).
pub fn completions(ctx: &Ctx, shell: clap_complete::Shell) -> Result<()> {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let Some(completer) = shells.completer(&name) else {
        return Err(crate::error::Error::usage(format!(
            "no completions for {name}; zo completes bash, elvish, fish, powershell and zsh"
        ))
        .into());
    };
    let mut out = Vec::new();
    completer.write_registration("COMPLETE", "zo", "zo", "zo", &mut out)?;
    ctx.print(&String::from_utf8_lossy(&out))
}

/// zo(1) on stdout, or with a directory every page the main one names: zo(1) lists its
/// commands as zo-init(1) and so on, so those pages exist too.
pub fn man(ctx: &Ctx, dir: Option<&std::path::Path>) -> Result<()> {
    // clap's own `help` subcommands (`zo help`, `zo cache help`) are no pages: each command's
    // page has its help, and 99 pages of `zo-cache-help-help` were noise. Off before the build,
    // so no page names one (only the pages; `zo help` still works).
    let mut cmd = no_help_below(crate::cli::Cli::command());
    cmd.build();
    let Some(dir) = dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        return ctx.print(&String::from_utf8_lossy(&out));
    };
    // Made when missing, as `mkdir -p` would; a path that is there and not a directory is not
    // replaced.
    if !dir.is_dir() {
        std::fs::create_dir_all(dir).map_err(|e| {
            crate::error::Error::usage(format!(
                "{} is not a directory and could not be made one: {e}",
                dir.display()
            ))
        })?;
    }
    let mut written = Vec::new();
    let mut page = |name: String, c: clap::Command| -> Result<()> {
        let mut out = Vec::new();
        clap_mangen::Man::new(c).render(&mut out)?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, out)
            .map_err(|e| anyhow::anyhow!("could not write {}: {e}", path.display()))?;
        written.push(path.display().to_string());
        Ok(())
    };
    // Every command at every depth: zo-prior(1) names its commands as zo-prior-add(1), so
    // `man zo-prior-add` finds a page too.
    let mut todo: Vec<(String, clap::Command)> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| (format!("zo-{}", s.get_name()), s.clone()))
        .collect();
    while let Some((name, sub)) = todo.pop() {
        todo.extend(
            sub.get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(|s| (format!("{name}-{}", s.get_name()), s.clone())),
        );
        // clap names are &'static str; a page per command, once per process.
        let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
        page(name, sub.name(leaked).version(env!("CARGO_PKG_VERSION")))?;
    }
    page("zo".into(), cmd.clone())?;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({ "pages": written }));
    }
    ctx.note(format!(
        "wrote {} man pages into {}",
        written.len(),
        dir.display()
    ));
    Ok(())
}

/// A command and those below it without clap's `help` subcommand.
fn no_help_below(c: clap::Command) -> clap::Command {
    let names: Vec<String> = c
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut c = c.disable_help_subcommand(true);
    for n in names {
        c = c.mut_subcommand(n, no_help_below);
    }
    c
}
