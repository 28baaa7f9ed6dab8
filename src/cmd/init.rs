//! `zo init`: create `.zo/` from `templates/`. Idempotent: creates only what is missing and
//! never overwrites memory.

use super::Ctx;
use crate::cli::InitArgs;
use crate::store::config::{self, Config};
use crate::store::fsio;
use crate::store::layout::Layout;
use crate::templates;
use anyhow::{Result, bail};
use serde_json::json;
use std::path::{Path, PathBuf};

fn choose_root(ctx: &Ctx) -> Result<PathBuf> {
    if let Some(r) = &ctx.repo {
        if !r.is_dir() {
            bail!("{} is not a directory", r.display());
        }
        return Ok(r.canonicalize()?);
    }
    if let Some(r) = std::env::var_os("ZO_REPO").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(r).canonicalize()?);
    }
    let cwd = std::env::current_dir()?;
    if let Ok(l) = Layout::discover(Some(&cwd)) {
        if !l.legacy {
            return Ok(l.root);
        }
    }
    // Inside a git repository the memory belongs at its top.
    Ok(crate::git::Repo::discover(&cwd).and_then(|r| r.workdir().map(Path::to_path_buf)).unwrap_or(cwd))
}

/// Write `content` to `path` unless it exists; record it in `created`.
fn create(layout: &Layout, path: &Path, content: &str, created: &mut Vec<String>) -> Result<()> {
    if !path.exists() {
        fsio::write_atomic(path, content.as_bytes())?;
        created.push(layout.show(path));
    }
    Ok(())
}

pub fn run(ctx: &Ctx, args: InitArgs) -> Result<()> {
    let root = choose_root(ctx)?;
    if let Ok(l) = Layout::discover(Some(&root)) {
        if l.legacy && l.root == root {
            bail!("{} already holds zo memory in the older layout ({}); zo reads it as it is", root.display(), l.show(&l.memory));
        }
    }
    // Confines the root before anything is created in it (a `.zo` link is refused).
    let _ = Layout::at(&root)?;
    let zo_dir = root.join(".zo");
    fsio::create_dir(&zo_dir)?;
    let mut created = Vec::new();
    let project = args.project.clone().unwrap_or_else(|| root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into()));
    let project_yaml = serde_json::to_string(&project)?; // a JSON string is valid YAML
    let pre = Layout::at(&root)?;
    create(&pre, &pre.config_file(), &templates::CONFIG.replace("{project}", &project_yaml), &mut created)?;
    let layout = Layout::at(&root)?;
    let project = layout.project();
    if args.project.as_ref().is_some_and(|p| *p != project) {
        ctx.note(format!("{} already names the project {project:?}; left unchanged", layout.show(&layout.config_file())));
    }

    for dir in [layout.memory.clone(), layout.sessions(), layout.snapshots()] {
        if !dir.is_dir() {
            fsio::create_dir(&dir)?;
            created.push(format!("{}/", layout.show(&dir)));
        }
    }
    let state = templates::STATE.replace("{project}", &project).replace("{timestamp}", &crate::time::now());
    create(&layout, &layout.state(), &state, &mut created)?;
    create(&layout, &layout.decision_log(), templates::DECISION_LOG, &mut created)?;
    create(&layout, &layout.priors(), templates::PRIORS, &mut created)?;

    if ensure_gitignore(&layout)? {
        created.push(layout.show(&zo_dir.join(".gitignore")));
    }

    if !layout.local_file().exists() {
        write_local(&layout)?;
        created.push(layout.show(&layout.local_file()));
    }

    // Git wiring: the merge driver for memory files, and hooks when asked.
    if crate::git::Repo::discover(&root).is_some() {
        if crate::wiring::hooks::ensure_attributes(&layout)? {
            created.push(layout.show(&crate::wiring::hooks::attributes_file(&layout)));
        }
        crate::wiring::hooks::register_driver(&root)?;
        if args.hooks {
            crate::wiring::hooks::install(&root)?;
            if layout.config.get(&["hooks"]).is_none() {
                let cfg = layout.config_file();
                let mut text = std::fs::read_to_string(&cfg).unwrap_or_default();
                if !text.ends_with('\n') && !text.is_empty() {
                    text.push('\n');
                }
                text.push_str("hooks: true        # `zo continue` installs zo's git hooks on every clone\n");
                fsio::write_atomic(&cfg, text.as_bytes())?;
            }
            created.push("git hooks".into());
        }
    } else if args.hooks {
        bail!("--hooks needs a git repository; run `git init` first");
    }

    let mut stanza = None;
    // What creating the memory made, before the agent's files are added to the list.
    let made_memory = !created.is_empty();
    let mut wiring = crate::wiring::agents::Changes::default();
    if let Some(agent) = &args.agent {
        wiring = crate::wiring::agents::wire(&root, agent, args.remove)?;
        created.append(&mut wiring.added);
        if agent == "generic" && !args.remove {
            stanza = Some(crate::wiring::agents::MCP_STANZA);
        }
    }

    if ctx.json {
        return ctx.print_json(&json!({
            "root": root.display().to_string(),
            "project": project,
            "memory": layout.show(&layout.memory),
            "created": created,
            "updated": wiring.updated,
            "removed": wiring.removed,
            "kept": wiring.kept,
            "mcp_stanza": stanza,
        }));
    }
    if let Some(st) = stanza {
        ctx.print(&format!("MCP: give your client this server (command `zo`, args [\"mcp\"]):\n{st}\n"))?;
    }
    if args.remove && !ctx.quiet {
        // What `--remove` took out, and what it left because another agent still relies on it.
        let agent = args.agent.as_deref().unwrap_or("");
        let mut s = if wiring.removed.is_empty() { format!("no wiring of zo for {agent} to remove\n") } else { format!("removed zo's wiring for {agent}:\n") };
        for r in &wiring.removed {
            s.push_str(&format!("  removed {r}\n"));
        }
        for k in &wiring.kept {
            s.push_str(&format!("  kept {k}\n"));
        }
        ctx.print(&s)?;
    }
    if !made_memory && !args.remove && (!created.is_empty() || !wiring.updated.is_empty()) {
        if !ctx.quiet {
            let mut s = format!("wired zo for {}:\n", args.agent.as_deref().unwrap_or(""));
            for c in &created {
                s.push_str(&format!("  created {c}\n"));
            }
            for u in &wiring.updated {
                s.push_str(&format!("  updated {u}\n"));
            }
            ctx.print(&s)?;
        }
        return Ok(());
    }
    if created.is_empty() {
        if args.remove {
            return Ok(());
        }
        match &args.agent {
            Some(agent) => ctx.note(format!("{} is already initialised and wired for {agent}; nothing changed", layout.show(&zo_dir))),
            None => ctx.note(format!("{} is already initialised; nothing changed", layout.show(&zo_dir))),
        }
    } else if !ctx.quiet {
        let mut s = format!("initialised zo memory for {project:?} in {}\n", zo_dir.display());
        for c in &created {
            s.push_str(&format!("  created {c}\n"));
        }
        for u in &wiring.updated {
            s.push_str(&format!("  updated {u}\n"));
        }
        s.push_str("next: `zo decide --title … --decision …`, then `git add .zo && git commit` (or `zo checkpoint`)\n");
        ctx.print(&s)?;
    }
    Ok(())
}

/// Detect this machine into `local.yaml`, keeping keys a person added (e.g. data_paths).
/// When nothing but the detection time would change, the file is left alone.
pub fn write_local(layout: &Layout) -> Result<()> {
    let old = Config::load(&layout.local_file()).unwrap_or_default();
    let mut local = old.clone();
    let env = config::to_value(&crate::store::environment::detect())?;
    if let config::Value::Mapping(m) = env {
        for (k, v) in m {
            local.map.insert(k, v);
        }
    }
    if local.get(&["data_paths"]).is_none() {
        local.set("data_paths", config::Value::Null);
    }
    let mut same = local.clone();
    if let Some(t) = old.get(&["detected_at"]) {
        same.set("detected_at", t.clone());
    }
    if layout.local_file().exists() && same.map == old.map {
        return Ok(());
    }
    let text = format!("# Detected by zo on this machine; not committed.\n{}", local.to_yaml()?);
    fsio::write_atomic(&layout.local_file(), text.as_bytes())
}

/// Add the `.zo/.gitignore` lines that are missing, keeping the user's. True if it wrote.
pub fn ensure_gitignore(layout: &Layout) -> Result<bool> {
    let mut lines = templates::GITIGNORE.lines();
    let header = lines.next().unwrap_or("");
    let entries: Vec<&str> = lines.filter(|l| !l.starts_with('#')).collect();
    fsio::ensure_lines(&layout.zo_dir.join(".gitignore"), header, &entries)
}
