//! `zo migrate [--apply]`: move the older layout (`memory/STATE.md`, or `memory/<project>/…`,
//! at the repository root) into `.zo/memory/`, with `git mv` for tracked files so history
//! follows them. A dry run unless `--apply`; running it again finds nothing to do.

use super::Ctx;
use crate::cli::{InitArgs, MigrateArgs};
use crate::store::layout::Layout;
use anyhow::{Context, Result, bail};
use serde_json::json;

pub fn run(ctx: &Ctx, a: MigrateArgs) -> Result<()> {
    let layout = Layout::discover(ctx.repo.as_deref())?;
    if !layout.legacy {
        if ctx.json {
            return ctx.print_json(&json!({ "moves": [], "applied": false, "note": "already in the .zo/ layout" }));
        }
        ctx.note(format!("{} is already in the .zo/ layout; nothing to migrate", layout.show(&layout.memory)));
        return Ok(());
    }
    let root = layout.root.clone();
    let target = root.join(".zo/memory");
    let new = Layout { memory: target.clone(), ..layout.clone() };
    if new.decision_log().exists() || new.state().exists() {
        bail!("{} already holds memory; move {} by hand", layout.show(&target), layout.show(&layout.memory));
    }
    // memory/<project>/ names the project; memory/ alone takes the directory's name.
    let project = if layout.memory != root.join("memory") { layout.memory.file_name().map(|n| n.to_string_lossy().into_owned()) } else { None };
    let repo = crate::git::Repo::discover(&root);
    let tracked = |rel: &str| repo.is_some() && crate::git::run(&root, &["ls-files", "--error-unmatch", "--", rel]).is_ok();
    let mut moves = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&layout.memory)
        .with_context(|| format!("could not list {}", layout.show(&layout.memory)))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // Derived and local files are rebuilt, not moved.
        .filter(|n| !Layout::is_derived(n))
        .collect();
    names.sort();
    for n in &names {
        let from = layout.rel(&layout.memory.join(n));
        let to = layout.rel(&target.join(n));
        moves.push((from.clone(), to, tracked(&from)));
    }
    if a.apply {
        crate::store::fsio::create_dir(&target)?;
        for (from, to, git) in &moves {
            if *git {
                crate::git::run(&root, &["mv", "--", from, to])?;
            } else {
                std::fs::rename(root.join(from), root.join(to)).with_context(|| format!("could not move {from} to {to}"))?;
            }
        }
        for n in std::fs::read_dir(&layout.memory).into_iter().flatten().flatten() {
            let name = n.file_name().to_string_lossy().into_owned();
            if Layout::is_derived(&name) {
                let _ = std::fs::remove_file(n.path());
            }
        }
        let _ = std::fs::remove_dir(&layout.memory);
        let _ = std::fs::remove_dir(root.join("memory"));
        let quiet = super::Ctx { repo: Some(root.clone()), json: false, quiet: true };
        super::init::run(&quiet, InitArgs { project, agent: None, hooks: false, remove: false })?;
    }
    if ctx.json {
        let v: Vec<_> = moves.iter().map(|(f, t, g)| json!({"from": f, "to": t, "git_mv": g})).collect();
        return ctx.print_json(&json!({ "moves": v, "applied": a.apply }));
    }
    let mut s = String::new();
    for (from, to, git) in &moves {
        s.push_str(&format!("{} {from} -> {to}{}\n", if a.apply { "moved" } else { "would move" }, if *git { " (git mv)" } else { "" }));
    }
    if a.apply {
        s.push_str("created .zo/config.yaml, .zo/.gitignore and .zo/.gitattributes; review and commit: git add .zo && git commit\n");
    } else {
        s.push_str("dry run: nothing changed; run `zo migrate --apply` to do it\n");
    }
    ctx.print(&s)
}
