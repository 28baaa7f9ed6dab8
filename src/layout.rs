//! Where the memory lives (SPEC §1). The one place that knows file names and locations.

use crate::config::Config;
use crate::error::{Exit, code};
use anyhow::Result;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Layout {
    /// The directory holding `.zo/` (or, for the older layout, `memory/`).
    pub root: PathBuf,
    /// `<root>/.zo` (may not exist for the older layout).
    pub zo_dir: PathBuf,
    /// The memory directory: `.zo/memory`, `memory` or `memory/<project>`.
    pub memory: PathBuf,
    /// True for the older layout without `.zo/`.
    pub legacy: bool,
    pub config: Config,
}

impl Layout {
    /// Find the memory: `--repo DIR`, else `ZO_REPO`, else the current directory; from there
    /// walk up to the first `.zo/` (or older `memory/` layout).
    pub fn discover(repo: Option<&Path>) -> Result<Layout> {
        let start = match repo {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("ZO_REPO").filter(|v| !v.is_empty()) {
                Some(v) => PathBuf::from(v),
                None => std::env::current_dir()?,
            },
        };
        if !start.is_dir() {
            return Err(Exit::new(code::NO_MEMORY, format!("{} is not a directory", start.display())).into());
        }
        let start = start.canonicalize().unwrap_or(start);
        for dir in start.ancestors() {
            if dir.join(".zo").is_dir() {
                return Layout::at(dir);
            }
            if let Some(memory) = legacy_memory(dir) {
                let zo_dir = dir.join(".zo");
                return Ok(Layout { root: dir.to_path_buf(), zo_dir, memory, legacy: true, config: Config::default() });
            }
        }
        Err(Exit::new(
            code::NO_MEMORY,
            format!("no zo memory in {} or any parent directory; run `zo init` to create one", start.display()),
        )
        .into())
    }

    /// The `.zo/` layout rooted at `root` (whether or not it exists yet).
    pub fn at(root: &Path) -> Result<Layout> {
        let zo_dir = root.join(".zo");
        let config = Config::load(&zo_dir.join("config.yaml"))?;
        let memory = zo_dir.join(config.memory_root());
        Ok(Layout { root: root.to_path_buf(), zo_dir, memory, legacy: false, config })
    }

    pub fn decision_log(&self) -> PathBuf {
        self.memory.join("DECISION_LOG.md")
    }
    pub fn priors(&self) -> PathBuf {
        self.memory.join("PRIORS.md")
    }
    pub fn state(&self) -> PathBuf {
        self.memory.join("STATE.md")
    }
    pub fn sessions(&self) -> PathBuf {
        self.memory.join("sessions")
    }
    pub fn snapshots(&self) -> PathBuf {
        self.memory.join("snapshots")
    }
    pub fn config_file(&self) -> PathBuf {
        self.zo_dir.join("config.yaml")
    }
    pub fn local_file(&self) -> PathBuf {
        self.zo_dir.join("local.yaml")
    }

    /// A path as the user should see it: relative to the root when inside it.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).display().to_string()
    }

    /// The memory directory relative to the root, with `/` separators (for git).
    pub fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    pub fn project(&self) -> String {
        self.config.project().unwrap_or_else(|| {
            self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into())
        })
    }
}

/// The older layout: `memory/STATE.md`, or a single `memory/<project>/STATE.md`.
fn legacy_memory(dir: &Path) -> Option<PathBuf> {
    let memory = dir.join("memory");
    if !memory.is_dir() {
        return None;
    }
    if memory.join("STATE.md").is_file() || memory.join("DECISION_LOG.md").is_file() {
        return Some(memory);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&memory)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("STATE.md").is_file() || p.join("DECISION_LOG.md").is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}
