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
        return Err(crate::error::Error::usage(format!("no completions for {name}; zo completes bash, elvish, fish, powershell and zsh")).into());
    };
    let mut out = Vec::new();
    completer.write_registration("COMPLETE", "zo", "zo", "zo", &mut out)?;
    ctx.print(&String::from_utf8_lossy(&out))
}

/// The most candidates offered: a shell lists them all, and a long log has thousands.
const MOST: usize = 200;

/// `zo show <TAB>` and the other commands that take an entry: the IDs of the memory the shell
/// is in (decisions, newest first, priors, fact versions, sessions and snapshots), each with its
/// title. The shell asks zo (`COMPLETE=bash zo -- zo show D-`, what `zo completions SHELL`
/// registers); the answer comes from the hook path's quick read, never the model.
pub fn ids(current: &std::ffi::OsStr) -> Vec<clap_complete::engine::CompletionCandidate> {
    use clap_complete::engine::CompletionCandidate;
    let Some(prefix) = current.to_str() else { return vec![] };
    let Ok(memory) = crate::store::memory::Memory::open(None) else { return vec![] };
    let mut out: Vec<(String, String)> = Vec::new();
    if let Ok((log, _)) = memory.decisions_quick() {
        out.extend(log.entries.iter().rev().filter(|e| !e.is_annotation()).map(|e| (e.id.clone(), e.title.clone())));
    }
    if let Ok(p) = memory.priors() {
        out.extend(p.entries.iter().map(|p| (p.id.clone(), p.title.clone())));
    }
    if let Ok(f) = memory.facts(crate::store::facts::Scope::Project) {
        out.extend(f.entries.iter().filter(|e| !e.id.is_empty()).map(|e| (e.id.clone(), e.key.clone())));
    }
    out.extend(memory.session_names().unwrap_or_default().into_iter().map(|n| (n, "session".to_string())));
    out.extend(memory.snapshot_names().unwrap_or_default().into_iter().map(|n| (n, "snapshot".to_string())));
    out.into_iter()
        .filter(|(id, _)| id.starts_with(prefix) && crate::store::gate::first_control(id).is_none())
        .take(MOST)
        // The title as help, one line and without escapes (a shell prints it as it is).
        .map(|(id, title)| CompletionCandidate::new(id).help(Some(crate::store::gate::frame::one_line(&title).chars().take(60).collect::<String>().into())))
        .collect()
}

/// zo(1) on stdout, or with a directory every page the main one names: zo(1) lists its
/// commands as zo-init(1) and so on, so those pages exist too.
pub fn man(ctx: &Ctx, dir: Option<&std::path::Path>) -> Result<()> {
    let mut cmd = crate::cli::Cli::command();
    // Built, so clap's own `help` command (which zo.1 names too) is among the subcommands.
    cmd.build();
    let Some(dir) = dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        return ctx.print(&String::from_utf8_lossy(&out));
    };
    if !dir.is_dir() {
        return Err(crate::error::Error::usage(format!("{} is not a directory (mkdir -p it first)", dir.display())).into());
    }
    let mut written = Vec::new();
    let mut page = |name: String, c: clap::Command| -> Result<()> {
        let mut out = Vec::new();
        clap_mangen::Man::new(c).render(&mut out)?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, out).map_err(|e| anyhow::anyhow!("could not write {}: {e}", path.display()))?;
        written.push(path.display().to_string());
        Ok(())
    };
    // Every command at every depth: zo-prior(1) names its commands as zo-prior-add(1), so
    // `man zo-prior-add` finds a page too.
    let mut todo: Vec<(String, clap::Command)> =
        cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| (format!("zo-{}", s.get_name()), s.clone())).collect();
    while let Some((name, sub)) = todo.pop() {
        todo.extend(sub.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| (format!("{name}-{}", s.get_name()), s.clone())));
        // clap names are &'static str; a page per command, once per process.
        let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
        page(name, sub.name(leaked).version(env!("CARGO_PKG_VERSION")))?;
    }
    page("zo".into(), cmd.clone())?;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({ "pages": written }));
    }
    ctx.note(format!("wrote {} man pages into {}", written.len(), dir.display()));
    Ok(())
}
