//! Where the memory lives (SPEC §1). The one place that knows file names and locations.

use crate::error::Error;
use crate::store::config::Config;
use anyhow::Result;
use std::path::{Path, PathBuf};

const INDEX_DB: &str = "index.db";

/// The memory files a user can name, and how each is recognised by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Decisions,
    Priors,
    State,
    Session,
    Facts,
}

impl FileKind {
    /// Every kind the merge driver handles, in the order `.gitattributes` lists them.
    pub const ALL: [FileKind; 5] = [
        FileKind::Decisions,
        FileKind::Priors,
        FileKind::State,
        FileKind::Session,
        FileKind::Facts,
    ];

    /// The file's name, or (sessions) its pattern, relative to the memory directory.
    pub fn pattern(self) -> &'static str {
        match self {
            FileKind::Decisions => "DECISION_LOG.md",
            FileKind::Priors => "PRIORS.md",
            FileKind::State => "STATE.md",
            FileKind::Session => "sessions/*.md",
            FileKind::Facts => "FACTS.md",
        }
    }

    /// Which kind of memory file a path is as git names it to the merge driver (relative to the
    /// repository's top, `/`-separated), if it is one: inside a `.zo/memory/` folder (at the top
    /// or in a subfolder, as `zo init` made it there), or the older `memory/` at the top. A file
    /// named STATE.md, or under a `sessions/` folder, anywhere else is not memory.
    pub fn of_memory(path: &str) -> Option<FileKind> {
        let kind = FileKind::of(path)?;
        let dir = match kind {
            FileKind::Session => path.rsplitn(3, '/').nth(2)?,
            _ => path.rsplit_once('/')?.0,
        };
        (dir == "memory" || dir == ".zo/memory" || dir.ends_with("/.zo/memory")).then_some(kind)
    }

    /// Which kind a path is (`/`-separated, any prefix, as git names it), if any.
    pub fn of(path: &str) -> Option<FileKind> {
        let mut parts = path.rsplit('/');
        let name = parts.next().unwrap_or(path);
        match name {
            "DECISION_LOG.md" => Some(FileKind::Decisions),
            "PRIORS.md" => Some(FileKind::Priors),
            "STATE.md" => Some(FileKind::State),
            "FACTS.md" => Some(FileKind::Facts),
            n if parts.next() == Some("sessions") && n.ends_with(".md") => Some(FileKind::Session),
            _ => None,
        }
    }
}

/// The per-user cache (the model, ONNX Runtime, the vector cache, the summaries' key):
/// `$ZO_CACHE`, else `$XDG_CACHE_HOME/zo`, else `~/.cache/zo`. The user's own, trusted.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("ZO_CACHE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d).join("zo"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/zo"))
}

/// Make `dir` (mode 0700: what zo keeps there is derived from private text, or a secret) when
/// it is missing, and check it is a directory, never a link or a file: the directory above is
/// the user's own (it may well be a link they made), but zo does not write through a link it
/// did not create.
pub fn private_dir(dir: &Path) -> Result<()> {
    if std::fs::symlink_metadata(dir).is_err() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir)
            .map_err(|e| anyhow::anyhow!("could not create {}: {e}", dir.display()))?;
    }
    let m = std::fs::symlink_metadata(dir)
        .map_err(|e| anyhow::anyhow!("could not read {}: {e}", dir.display()))?;
    if !m.file_type().is_dir() {
        anyhow::bail!(
            "{} is not a directory zo made (a link or a file); zo does not write through it: remove it",
            dir.display()
        );
    }
    Ok(())
}

/// The machine's vector cache directory: `ZO_VECTOR_CACHE`, else `<cache_dir>/vectors`. It
/// also keeps the key that signs this user's decision-log summaries (`summary::key`).
pub fn vector_cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("ZO_VECTOR_CACHE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d));
    }
    cache_dir().map(|c| c.join("vectors"))
}

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
    /// Where the derived files (index, summaries) live when not beside the memory: a linked
    /// memory is another repository's, read here only (SPEC §1b), so what this user derives
    /// from it (their facts are indexed in every memory's index) stays in their cache.
    pub derived: Option<PathBuf>,
}

/// A `.zo` found above where the walk started, owned by another user: refused with
/// its name. One in the start directory itself is the user's to have asked for.
fn foreign(dir: &Path, zo: &Path, meta: &std::fs::Metadata, start: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid has no preconditions and cannot fail.
    let me = unsafe { libc::getuid() };
    if dir != start && meta.uid() != me {
        return Err(Error::NoMemory(format!(
            "{} belongs to another user (uid {}); zo does not use a memory above this directory that is not yours. Run zo where the memory is, or `zo init` here",
            zo.display(),
            meta.uid()
        ))
        .into());
    }
    Ok(())
}

impl Layout {
    /// Find the memory: `--repo DIR`, else `ZO_REPO`, else the current directory; from there
    /// walk up to the first `.zo/` (or older `memory/` layout), never above the top of the git
    /// repository the walk starts in (a nested repository, a submodule, is a project of its
    /// own), and never into a `.zo` above the start that another user owns: anyone who can make
    /// `/tmp/.zo` would otherwise choose what every directory below it without a memory of its
    /// own reads and writes (git's `safe.directory` guards the same way).
    pub fn discover(repo: Option<&Path>) -> Result<Layout> {
        let start = match repo {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("ZO_REPO").filter(|v| !v.is_empty()) {
                Some(v) => PathBuf::from(v),
                None => std::env::current_dir()?,
            },
        };
        if !start.is_dir() {
            return Err(Error::NoMemory(format!("{} is not a directory", start.display())).into());
        }
        let start = start.canonicalize().unwrap_or(start);
        for dir in start.ancestors() {
            let zo = dir.join(".zo");
            match std::fs::symlink_metadata(&zo) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(anyhow::Error::new(crate::store::fsio::Refused {
                        path: zo,
                        why: "is a symbolic link; zo keeps memory only in a real .zo directory inside the repository (a link could lead anywhere on this machine). Replace the link with the directory".into(),
                    }));
                }
                Ok(m) if m.is_dir() => {
                    foreign(dir, &zo, &m, &start)?;
                    return Layout::at(dir);
                }
                _ => {}
            }
            if let Some(memory) = legacy_memory(dir) {
                let zo_dir = dir.join(".zo");
                return Ok(Layout {
                    root: dir.to_path_buf(),
                    zo_dir,
                    memory,
                    legacy: true,
                    config: Config::default(),
                    derived: None,
                });
            }
            if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
                break;
            }
        }
        Err(Error::NoMemory(format!(
            "no zo memory in {} or any parent directory; run `zo init` to create one",
            start.display()
        ))
        .into())
    }

    /// Where `zo init` puts a memory: `--repo DIR`, else `ZO_REPO`, else the memory the current
    /// directory is in (not an older layout's), else the top of its git repository, else the
    /// directory itself. The one place besides `discover` that decides where memory lives.
    pub fn root_for_init(repo: Option<&Path>) -> Result<PathBuf> {
        if let Some(r) = repo {
            if !r.is_dir() {
                anyhow::bail!("{} is not a directory", r.display());
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
        Ok(crate::git::Repo::discover(&cwd)
            .and_then(|r| r.workdir().map(Path::to_path_buf))
            .unwrap_or(cwd))
    }

    /// The `.zo/` layout rooted at `root` (whether or not it exists yet).
    /// Everything below `root` is confined from here on (`fsio::confine`): no link is followed
    /// and only regular files are read.
    pub fn at(root: &Path) -> Result<Layout> {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        crate::store::fsio::confine(&root);
        let zo_dir = root.join(".zo");
        let config_file = zo_dir.join("config.yaml");
        let config = Config::load(&config_file)?;
        let memory = zo_dir.join(memory_root(&config, &config_file)?);
        // Every command goes through the memory directory: a link on the way is refused here,
        // once, with its name, before anything (the index too) opens a file under it.
        crate::store::fsio::check_path(&memory)?;
        Ok(Layout {
            root,
            zo_dir,
            memory,
            legacy: false,
            config,
            derived: None,
        })
    }

    pub fn decision_log(&self) -> PathBuf {
        self.memory.join(FileKind::Decisions.pattern())
    }
    pub fn priors(&self) -> PathBuf {
        self.memory.join(FileKind::Priors.pattern())
    }
    pub fn facts(&self) -> PathBuf {
        self.memory.join(FileKind::Facts.pattern())
    }
    pub fn state(&self) -> PathBuf {
        self.memory.join(FileKind::State.pattern())
    }
    pub fn sessions(&self) -> PathBuf {
        self.memory.join("sessions")
    }
    pub fn snapshots(&self) -> PathBuf {
        self.memory.join("snapshots")
    }
    /// The directory of the derived files: the memory directory, or this user's cache for a
    /// linked memory (`derived`).
    pub fn derived_dir(&self) -> &Path {
        self.derived.as_deref().unwrap_or(&self.memory)
    }
    /// The derived index (gitignored, rebuilt at will).
    pub fn index_db(&self) -> PathBuf {
        self.derived_dir().join(INDEX_DB)
    }
    /// Held shared by every process using the index, exclusive while creating or deleting it.
    pub fn index_lock(&self) -> PathBuf {
        self.derived_dir().join(format!("{INDEX_DB}-lock"))
    }
    /// This layout, its derived files kept in this user's cache (`<cache>/linked/<hash of the
    /// memory's path>`), never beside its memory: how a linked memory is read.
    pub fn read_only(mut self) -> Result<Layout> {
        let dir = vector_cache_dir()
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "no cache directory for a linked memory's index: set ZO_CACHE or HOME"
                )
            })?
            .join("linked")
            .join(&crate::format::sha256_hex(&self.memory.to_string_lossy())[..16]);
        private_dir(&dir)?;
        self.derived = Some(dir);
        Ok(self)
    }
    /// The open session's record (local, gitignored).
    pub fn session_record(&self) -> PathBuf {
        self.memory.join(".session")
    }
    /// Whether a file in the memory directory is derived or local (never moved or committed).
    pub fn is_derived(name: &str) -> bool {
        name.starts_with(INDEX_DB)
            || name == ".lock"
            || name == ".session"
            || name.ends_with(".zo-tmp")
    }
    pub fn config_file(&self) -> PathBuf {
        self.zo_dir.join("config.yaml")
    }
    pub fn local_file(&self) -> PathBuf {
        self.zo_dir.join("local.yaml")
    }

    /// A path as the user should see it: relative to the root when inside it.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// The memory directory relative to the root, with `/` separators (for git).
    /// The memory directory relative to the repository's top (`.zo/memory`).
    pub fn memory_rel(&self) -> String {
        self.rel(&self.memory)
    }

    pub fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The project's name (config, else the folder's): one line, every character the gate
    /// refuses shown as an escape — it is printed on lines of zo's own.
    pub fn project(&self) -> String {
        let name = self.config.project().unwrap_or_else(|| {
            self.root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "project".into())
        });
        crate::store::gate::visible(&name.replace(['\r', '\n', '\t'], " ")).into_owned()
    }
}

/// The config file's path relative to the repository's top, where a commit's tree holds it.
pub const CONFIG_REL: &str = ".zo/config.yaml";

/// The memory directory a version of `.zo/config.yaml` names (None: the file is not there),
/// relative to the repository's top and `/`-separated: `.zo/<memory_root>`. What memory is
/// at a commit is part of what is reviewed (SPEC §3a): a pull request that moves it moves
/// every file zo reads. A value zo would refuse to read from is the error it would give.
pub fn memory_dir_in(config: Option<&[u8]>) -> Result<String> {
    let file = Path::new(CONFIG_REL);
    let config = match config {
        None => Config::default(),
        Some(bytes) => Config::parse(file, &String::from_utf8_lossy(bytes))?,
    };
    let root = memory_root(&config, file)?;
    let parts: Vec<String> = root
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(format!(".zo/{}", parts.join("/")))
}

/// Where a commit keeps its memory, relative to the repository's top, as `Layout::discover`
/// finds it at the top of that commit's tree: `.zo/<memory_root>` (its own config's), or the
/// older layout's `memory/` (or `memory/<project>/`); None when the commit holds none. A
/// `.zo` that is no directory, or a `memory_root` zo would refuse, is the error zo would give.
/// What memory is at each commit is part of what is reviewed (SPEC §3a).
pub fn memory_dir_at(repo: &crate::git::Repo, commit: gix::ObjectId) -> Result<Option<String>> {
    use crate::git::TreeKind;
    match repo.kind_at(commit, Path::new(".zo"))? {
        Some(TreeKind::Dir) => {
            let config = repo.file_at(commit, Path::new(CONFIG_REL))?;
            return memory_dir_in(config.as_deref()).map(Some);
        }
        Some(_) => anyhow::bail!(
            ".zo is not a directory there: zo keeps memory only in a real .zo directory"
        ),
        None => {}
    }
    let holds = |dir: &str| -> Result<bool> {
        Ok(["STATE.md", "DECISION_LOG.md"].iter().any(|f| {
            matches!(
                repo.kind_at(commit, Path::new(&format!("{dir}/{f}"))),
                Ok(Some(TreeKind::File))
            )
        }))
    };
    if repo.kind_at(commit, Path::new("memory"))? != Some(TreeKind::Dir) {
        return Ok(None);
    }
    if holds("memory")? {
        return Ok(Some("memory".into()));
    }
    for d in repo.dirs_at(commit, Path::new("memory"))? {
        let dir = format!("memory/{d}");
        if holds(&dir)? {
            return Ok(Some(dir));
        }
    }
    Ok(None)
}

/// `memory_root` from config.yaml: a relative path of plain names, so the memory stays inside
/// `.zo/` (`../../out` or `/tmp/x` would send every write out of the repository). Anything
/// else is a usage error naming the file and line.
fn memory_root(config: &Config, file: &Path) -> Result<PathBuf> {
    // Not a string at all (`[1, 2]`, a mapping) is as wrong as a path that leaves `.zo/`.
    let value = match config.get(&["memory_root"]) {
        None => config.memory_root(),
        Some(crate::store::config::Value::String(s)) => s.clone(),
        Some(other) => crate::store::config::show(other),
    };
    let path = Path::new(&value);
    let plain = !value.trim().is_empty()
        && !value.chars().any(char::is_control)
        && matches!(
            config.get(&["memory_root"]),
            None | Some(crate::store::config::Value::String(_))
        )
        && path.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
    if !plain || path.components().all(|c| c == std::path::Component::CurDir) {
        let line = config.line_of(&["memory_root"]);
        return Err(Error::usage(format!(
            "{}:{line}: memory_root must be a relative path inside .zo/ such as `memory`, not {value:?}: zo keeps memory inside the repository",
            file.display()
        ))
        .into());
    }
    Ok(path.to_path_buf())
}

/// A real (not linked) directory / regular file: the older layout is found the same way the
/// new one is, never through a link.
fn real_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}
fn real_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

/// The older layout: `memory/STATE.md`, or a single `memory/<project>/STATE.md`.
fn legacy_memory(dir: &Path) -> Option<PathBuf> {
    let memory = dir.join("memory");
    if !real_dir(&memory) {
        return None;
    }
    if real_file(&memory.join("STATE.md")) || real_file(&memory.join("DECISION_LOG.md")) {
        crate::store::fsio::confine(dir);
        return Some(memory);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&memory)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            real_dir(p) && (real_file(&p.join("STATE.md")) || real_file(&p.join("DECISION_LOG.md")))
        })
        .collect();
    if !found.is_empty() {
        crate::store::fsio::confine(dir);
    }
    found.sort();
    found.into_iter().next()
}
