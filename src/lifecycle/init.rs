//! `init`: create `.zo/` from `templates/`. Idempotent: creates only what is missing and never
//! overwrites memory. Every file goes through `fsio` (no link followed, atomic), the memory
//! files under the memory lock. `migrate`: the older layout moved into `.zo/memory/`.

use crate::store::config::{self, Config};
use crate::store::fsio;
use crate::store::layout::Layout;
use crate::templates;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What `zo init` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct Init {
    /// `--repo`: where (else `Layout::root_for_init`).
    pub repo: Option<PathBuf>,
    pub project: Option<String>,
    /// Wire (or with `remove`, unwire) this agent.
    pub agent: Option<String>,
    pub hooks: bool,
    pub remove: bool,
}

/// What it did.
#[derive(Debug, Clone, Serialize)]
pub struct Initialised {
    pub root: String,
    pub project: String,
    pub memory: String,
    pub created: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
    pub kept: Vec<String>,
    pub mcp_stanza: Option<&'static str>,
    /// Whether the memory itself was created or completed (not only an agent's files).
    #[serde(skip)]
    pub made_memory: bool,
    /// `.zo/` as shown to a person.
    #[serde(skip)]
    pub zo_dir: String,
    /// Said beside the report (a project name that was not changed).
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// Write `content` to `path` unless it exists; record it in `created`.
fn create(layout: &Layout, path: &Path, content: &str, created: &mut Vec<String>) -> Result<()> {
    if !path.exists() {
        fsio::write_atomic(path, content.as_bytes())?;
        created.push(layout.show(path));
    }
    Ok(())
}

pub fn init(req: &Init) -> Result<Initialised> {
    // Checked before anything is made: a misspelt agent, or a removal, never creates memory.
    if let Some(agent) = req
        .agent
        .as_deref()
        .filter(|a| !crate::wiring::agents::AGENTS.contains(a))
    {
        return Err(crate::error::Error::usage(format!(
            "unknown agent {agent:?}; supported: {}",
            crate::wiring::agents::AGENTS.join(", ")
        ))
        .into());
    }
    let root = Layout::root_for_init(req.repo.as_deref())?;
    let (layout, mut created, notes) = if req.remove {
        if req.agent.is_none() {
            return Err(crate::error::Error::usage(
                "--remove takes out an agent's wiring: name it with --agent",
            )
            .into());
        }
        (Layout::at(&root)?, Vec::new(), Vec::new())
    } else {
        if let Ok(l) = Layout::discover(Some(&root)) {
            if l.legacy && l.root == root {
                bail!(
                    "{} already holds zo memory in the older layout ({}); zo reads it as it is",
                    root.display(),
                    l.show(&l.memory)
                );
            }
        }
        let (layout, mut created, notes) = create_memory(&root, req.project.as_deref())?;
        wire_git(&layout, req.hooks, &mut created)?;
        (layout, created, notes)
    };
    // What creating the memory made, before the agent's files are added to the list.
    let made_memory = !created.is_empty();
    let mut wiring = crate::wiring::agents::Changes::default();
    let mut mcp_stanza = None;
    if let Some(agent) = &req.agent {
        wiring = crate::wiring::agents::wire(&root, agent, req.remove)?;
        created.append(&mut wiring.added);
        if agent == "generic" && !req.remove {
            mcp_stanza = Some(crate::wiring::agents::MCP_STANZA);
        }
    }
    Ok(Initialised {
        root: root.display().to_string(),
        project: layout.project(),
        memory: layout.show(&layout.memory),
        created,
        updated: wiring.updated,
        removed: wiring.removed,
        kept: wiring.kept,
        mcp_stanza,
        made_memory,
        zo_dir: layout.zo_dir.display().to_string(),
        notes,
    })
}

/// `.zo/`, its config, the memory files and folders, `.gitignore` and `local.yaml`: what is
/// missing. Returns the layout, what was created and notes.
fn create_memory(root: &Path, project: Option<&str>) -> Result<(Layout, Vec<String>, Vec<String>)> {
    // Confines the root before anything is created in it (a `.zo` link is refused).
    let pre = Layout::at(root)?;
    fsio::create_dir(&pre.zo_dir)?;
    let mut created = Vec::new();
    let name = project.map(str::to_string).unwrap_or_else(|| {
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".into())
    });
    let name_yaml = serde_json::to_string(&name)?; // a JSON string is valid YAML
    create(
        &pre,
        &pre.config_file(),
        &templates::CONFIG.replace("{project}", &name_yaml),
        &mut created,
    )?;
    let layout = Layout::at(root)?;
    let named = layout.project();
    let mut notes = Vec::new();
    // Memory travels by git: outside a repository it is kept, and goes nowhere.
    if crate::git::Repo::discover(root).is_none() {
        notes.push(format!(
            "{} is not in a git repository: memory is shared by committing .zo/ with the code; run `git init`, then `zo hooks install` to register the merge driver",
            root.display()
        ));
    }
    if project.is_some_and(|p| p != named) {
        notes.push(format!(
            "{} already names the project {named:?}; left unchanged",
            layout.show(&layout.config_file())
        ));
    }
    for dir in [layout.memory.clone(), layout.sessions(), layout.snapshots()] {
        if !dir.is_dir() {
            fsio::create_dir(&dir)?;
            created.push(format!("{}/", layout.show(&dir)));
        }
    }
    {
        // Another zo writing meanwhile (a hook in a second window) sees whole files or none.
        let _lock = fsio::Lock::acquire(&layout.memory)?;
        let state = templates::STATE
            .replace("{project}", &named)
            .replace("{timestamp}", &crate::time::now());
        create(&layout, &layout.state(), &state, &mut created)?;
        create(
            &layout,
            &layout.decision_log(),
            templates::DECISION_LOG,
            &mut created,
        )?;
        create(&layout, &layout.priors(), templates::PRIORS, &mut created)?;
        create(&layout, &layout.facts(), templates::FACTS, &mut created)?;
    }
    if ensure_gitignore(&layout)? {
        created.push(layout.show(&layout.zo_dir.join(".gitignore")));
    }
    if !layout.local_file().exists() {
        write_local(&layout)?;
        created.push(layout.show(&layout.local_file()));
    }
    Ok((layout, created, notes))
}

/// Git wiring: the merge driver for memory files, and hooks when asked.
fn wire_git(layout: &Layout, hooks: bool, created: &mut Vec<String>) -> Result<()> {
    let root = &layout.root;
    if crate::git::Repo::discover(root).is_none() {
        if hooks {
            bail!("--hooks needs a git repository; run `git init` first");
        }
        return Ok(());
    }
    if crate::wiring::hooks::ensure_attributes(layout)? {
        created.push(layout.show(&crate::wiring::hooks::attributes_file(layout)));
    }
    crate::wiring::hooks::register_driver(root)?;
    if hooks {
        crate::wiring::hooks::install(root)?;
        if layout.config.get(&["hooks"]).is_none() {
            let cfg = layout.config_file();
            let mut text = fsio::read_string(&cfg).unwrap_or_default();
            if !text.ends_with('\n') && !text.is_empty() {
                text.push('\n');
            }
            text.push_str(
                "hooks: true        # `zo continue` installs zo's git hooks on every clone\n",
            );
            fsio::write_atomic(&cfg, text.as_bytes())?;
        }
        created.push("git hooks".into());
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
    let text = format!(
        "# Detected by zo on this machine; not committed.\n{}",
        local.to_yaml()?
    );
    fsio::write_atomic(&layout.local_file(), text.as_bytes())
}

/// Add the `.zo/.gitignore` lines that are missing, keeping the user's. True if it wrote.
pub fn ensure_gitignore(layout: &Layout) -> Result<bool> {
    let mut lines = templates::GITIGNORE.lines();
    let header = lines.next().unwrap_or("");
    let entries: Vec<&str> = lines.filter(|l| !l.starts_with('#')).collect();
    fsio::ensure_lines(&layout.zo_dir.join(".gitignore"), header, &entries)
}

/// One file of the older layout and where it goes.
#[derive(Debug, Clone, Serialize)]
pub struct Move {
    pub from: String,
    pub to: String,
    /// Tracked by git: moved with `git mv`, so history follows it.
    pub git_mv: bool,
}

/// What `zo migrate` found (and, applied, did).
#[derive(Debug, Clone, Serialize)]
pub struct Migration {
    pub moves: Vec<Move>,
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Move the older layout (`memory/STATE.md`, or `memory/<project>/…`) into `.zo/memory/`; a
/// plan only unless `apply`. Running it again finds nothing to do.
pub fn migrate(repo: Option<&Path>, apply: bool) -> Result<Migration> {
    let layout = Layout::discover(repo)?;
    if !layout.legacy {
        let note = format!(
            "{} is already in the .zo/ layout; nothing to migrate",
            layout.show(&layout.memory)
        );
        return Ok(Migration {
            moves: vec![],
            applied: false,
            note: Some(note),
        });
    }
    let root = layout.root.clone();
    let target = root.join(".zo/memory");
    let new = Layout {
        memory: target.clone(),
        ..layout.clone()
    };
    if new.decision_log().exists() || new.state().exists() {
        bail!(
            "{} already holds memory; move {} by hand",
            layout.show(&target),
            layout.show(&layout.memory)
        );
    }
    let root_memory = root.join("memory");
    if layout.memory != root_memory {
        // memory/<project>/: one project is migrated; others beside it would be left behind.
        let others: Vec<String> = std::fs::read_dir(&root_memory)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                e.path() != layout.memory
                    && (e.path().join("DECISION_LOG.md").exists()
                        || e.path().join("STATE.md").exists())
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !others.is_empty() {
            bail!(
                "memory/ holds more than one project ({} besides {}); zo migrates one memory per repository: move the others out first",
                others.join(", "),
                layout.show(&layout.memory)
            );
        }
    }
    let moves = plan(&layout, &target)?;
    if apply {
        apply_moves(&layout, &target, &moves)?;
        // memory/<project>/ names the project; memory/ alone takes the directory's name.
        let project = if layout.memory != root.join("memory") {
            layout
                .memory
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        } else {
            None
        };
        init(&Init {
            repo: Some(root),
            project,
            ..Default::default()
        })?;
    }
    Ok(Migration {
        moves,
        applied: apply,
        note: None,
    })
}

/// Every file of the older memory directory but derived ones, with its new place.
fn plan(layout: &Layout, target: &Path) -> Result<Vec<Move>> {
    let root = &layout.root;
    let repo = crate::git::Repo::discover(root);
    let tracked = |rel: &str| {
        repo.is_some() && crate::git::run(root, &["ls-files", "--error-unmatch", "--", rel]).is_ok()
    };
    let mut names: Vec<String> = Vec::new();
    for e in std::fs::read_dir(&layout.memory)
        .with_context(|| format!("could not list {}", layout.show(&layout.memory)))?
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        // Derived and local files are rebuilt, not moved.
        if Layout::is_derived(&name) {
            continue;
        }
        // What every command refuses to read is refused here, before anything moves: a link
        // (it could lead anywhere), a FIFO or a device.
        let t = e
            .file_type()
            .with_context(|| format!("could not read {}", layout.show(&e.path())))?;
        if !(t.is_file() || t.is_dir()) {
            let what = fsio::special_kind(&t).unwrap_or("a symbolic link");
            bail!(
                "{} is {what}; zo moves only files and folders: replace it, then migrate (nothing was moved)",
                layout.show(&e.path())
            );
        }
        names.push(name);
    }
    names.sort();
    Ok(names
        .iter()
        .map(|n| {
            let from = layout.rel(&layout.memory.join(n));
            Move {
                git_mv: tracked(&from),
                to: layout.rel(&target.join(n)),
                from,
            }
        })
        .collect())
}

/// Move the files (`git mv` for tracked ones), under the memory lock of the old place, then
/// remove what is derived and the emptied directories.
fn apply_moves(layout: &Layout, target: &Path, moves: &[Move]) -> Result<()> {
    let root = &layout.root;
    {
        // The lock first: `.zo/memory` made before a lock that times out would hide the old
        // memory from every command (the new layout is found first).
        let _lock = fsio::Lock::acquire(&layout.memory)?;
        fsio::create_dir(target)?;
        for m in moves {
            if m.git_mv {
                crate::git::run(root, &["mv", "--", &m.from, &m.to])?;
            } else {
                fsio::rename(&root.join(&m.from), &root.join(&m.to))
                    .with_context(|| format!("could not move {} to {}", m.from, m.to))?;
            }
        }
    }
    for n in std::fs::read_dir(&layout.memory)
        .into_iter()
        .flatten()
        .flatten()
    {
        if Layout::is_derived(&n.file_name().to_string_lossy()) {
            let _ = fsio::remove_file(&n.path());
        }
    }
    let _ = fsio::remove_dir(&layout.memory);
    let _ = fsio::remove_dir(&root.join("memory"));
    Ok(())
}
