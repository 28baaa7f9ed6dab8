//! Linked memories (SPEC §1b): other zo memories, each in its own git repository (a team's or a
//! person's), attached to this project so that recall and the bundle span them, and `promote`
//! can copy a lesson into one.
//!
//! Trust: a path on this machine comes only from the user's own configuration — `links:` in
//! `.zo/local.yaml` while git does not track that file, or `links.yaml` in the user's zo
//! directory (every project on this machine). The project's committed `config.yaml` may only
//! *name* the memories it expects (`links: [team]`, or `links: {team: where to get it}`), so a
//! teammate's `zo continue` can say which to link: a committed file never makes zo read a
//! directory of its choosing, whatever it holds.
//!
//! A linked memory is opened like any other (`Layout::at`: its own config, its files confined,
//! its own lock, index and summary); nothing of it is copied into the project.

use crate::error::Error;
use crate::store::config::{Config, Value};
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Names that mean something else where a memory is named (`--memory project|all`).
const RESERVED: [&str; 3] = ["project", "all", "session"];

/// The longest link name.
const MAX_NAME: usize = 32;

/// The file in the user's zo directory that links memories into every project.
const USER_FILE: &str = "links.yaml";

/// Where a link was configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `.zo/local.yaml`: this project on this machine.
    Local,
    /// `links.yaml` in the user's zo directory: every project on this machine.
    User,
}

/// One linked memory: its name and where it is on this machine.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Link {
    pub name: String,
    pub path: PathBuf,
    pub source: Source,
}

/// A memory the project's committed config names as expected (never a path zo follows).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Expected {
    pub name: String,
    /// Where to get it, as the config says (text for a person; zo never reads it as a path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The project's links as configured here, the names its config expects, and what was not
/// followed and why.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Links {
    pub links: Vec<Link>,
    pub expected: Vec<Expected>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Links {
    pub fn find(&self, name: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.name == name)
    }

    /// The expected names no link here answers.
    pub fn unlinked(&self) -> impl Iterator<Item = &Expected> {
        self.expected
            .iter()
            .filter(|e| self.find(&e.name).is_none())
    }
}

/// Whether `name` may name a linked memory: a lowercase letter or digit, then letters, digits,
/// `-` or `_`, at most 32; not `project`, `all` or `session`.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !ok {
        return Err(Error::usage(format!(
            "{:?} cannot name a linked memory: use lowercase letters, digits, - and _, starting with a letter or digit, at most {MAX_NAME}, such as `team`",
            crate::store::gate::visible(name)
        ))
        .into());
    }
    if RESERVED.contains(&name) {
        return Err(Error::usage(format!("{name:?} cannot name a linked memory: project, all and session mean something else where a memory is named")).into());
    }
    Ok(())
}

/// The user's links file (`links.yaml` in the user's zo directory).
pub fn user_file() -> Option<PathBuf> {
    crate::store::facts::user_dir().map(|d| d.join(USER_FILE))
}

/// Whether git tracks `.zo/local.yaml`: then it is the repository's text, not the user's, and
/// its links are not followed.
fn local_tracked(layout: &Layout) -> bool {
    let Some(repo) = crate::git::Repo::discover(&layout.root) else {
        return false;
    };
    // Named as git's index names it: relative to the work tree's top. When that cannot be
    // said, the file is taken for the repository's (its links are not followed).
    let top = repo.workdir().and_then(|w| w.canonicalize().ok());
    // In git's index, or in HEAD's tree (an index missing or unreadable is no proof).
    match top.as_deref().and_then(|t| {
        layout
            .local_file()
            .strip_prefix(t)
            .ok()
            .map(Path::to_path_buf)
    }) {
        Some(rel) => repo.is_tracked(&rel) || repo.file_at_head(&rel).map_or(true, |f| f.is_some()),
        None => true,
    }
}

/// The links of the project at `layout`: `.zo/local.yaml`'s (unless git tracks it), then the
/// user's for names not taken; and the names `config.yaml` expects. Never fails: a link that
/// cannot be read is a note, and recall goes on without it.
pub fn load(layout: &Layout) -> Links {
    let (expected, bad) = expected(layout);
    let mut out = Links {
        expected,
        ..Links::default()
    };
    for bad in bad {
        out.notes.push(format!(
            "{}:{}: links names {:?}, which cannot name a linked memory (a name such as `team`, or `team: where to get it`)",
            layout.show(&layout.config_file()),
            layout.config.line_of(&["links"]),
            crate::store::gate::visible(&bad)
        ));
    }
    let local = layout.local_file();
    // Only a file that says `links` costs a look at git's index.
    if std::fs::symlink_metadata(&local).is_ok() {
        match Config::load(&local) {
            Ok(c) if c.get(&["links"]).is_some() => {
                if local_tracked(layout) {
                    out.notes.push(format!(
                        "{} is tracked by git, so its links are the repository's, not yours: none is followed (untrack it with `git rm --cached {}`, or link with `zo link --user`)",
                        layout.show(&local),
                        layout.rel(&local)
                    ));
                } else {
                    read_into(&mut out, &c, &local, Source::Local, layout);
                }
            }
            Ok(_) => {}
            Err(e) => out
                .notes
                .push(format!("links in {} not read: {e:#}", layout.show(&local))),
        }
    }
    if let Some(file) = user_file().filter(|f| f.is_file()) {
        match Config::load(&file) {
            Ok(c) => read_into(&mut out, &c, &file, Source::User, layout),
            Err(e) => out
                .notes
                .push(format!("links in {} not read: {e:#}", file.display())),
        }
    }
    out
}

/// The `links` mapping of one file (`links:` in local.yaml; the whole of the user's file).
fn read_into(out: &mut Links, c: &Config, file: &Path, source: Source, layout: &Layout) {
    let map = match source {
        Source::Local => c.get(&["links"]).and_then(Value::as_mapping).cloned(),
        Source::User => Some(c.map.clone()),
    };
    let Some(map) = map else {
        out.notes.push(format!(
            "{}:{}: links must be a mapping of `name: path` lines",
            file.display(),
            c.line_of(&["links"])
        ));
        return;
    };
    for (k, v) in map {
        let (Some(name), Some(path)) = (k.as_str(), v.as_str()) else {
            out.notes.push(format!(
                "{}: a link must be `name: /path/to/repository`, not {}",
                file.display(),
                crate::store::config::show(&k)
            ));
            continue;
        };
        if let Err(e) = check_name(name) {
            out.notes.push(format!("{}: {e:#}", file.display()));
            continue;
        }
        if out.find(name).is_some() {
            continue;
        }
        let path = expand(path);
        if !path.is_absolute() {
            out.notes.push(format!(
                "{}: link {name}: {} is not an absolute path; not followed",
                file.display(),
                path.display()
            ));
            continue;
        }
        if path.canonicalize().is_ok_and(|p| p == layout.root) {
            out.notes.push(format!(
                "{}: link {name} is this project itself; not followed",
                file.display()
            ));
            continue;
        }
        out.links.push(Link {
            name: name.to_string(),
            path,
            source,
        });
    }
}

/// `~/x` is the user's home.
fn expand(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The names the project's committed config expects (`links: [team]` or `links: {team: hint}`),
/// and those it gives that cannot name a linked memory (said by `links` and `continue`, never
/// followed).
fn expected(layout: &Layout) -> (Vec<Expected>, Vec<String>) {
    let hint = |v: &Value| {
        v.as_str().map(|s| {
            crate::store::gate::visible(&s.replace(['\r', '\n', '\t'], " "))
                .chars()
                .take(200)
                .collect::<String>()
        })
    };
    let name = |v: &Value| {
        v.as_str()
            .map_or_else(|| crate::store::config::show(v), str::to_string)
    };
    let given: Vec<Expected> = match layout.config.get(&["links"]) {
        Some(Value::Sequence(names)) => names
            .iter()
            .map(|n| Expected {
                name: name(n),
                hint: None,
            })
            .collect(),
        Some(Value::Mapping(m)) => m
            .iter()
            .map(|(k, v)| Expected {
                name: name(k),
                hint: hint(v),
            })
            .collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![Expected {
            name: name(other),
            hint: None,
        }],
    };
    let (good, bad): (Vec<Expected>, Vec<Expected>) =
        given.into_iter().partition(|e| check_name(&e.name).is_ok());
    (good, bad.into_iter().map(|e| e.name).collect())
}

/// Open a linked memory: the top of a repository (or directory) holding a real `.zo/` whose
/// memory directory exists. Errors say what is wrong with the link, by name.
pub fn open(link: &Link) -> Result<Memory> {
    let p = &link.path;
    if !p.exists() {
        anyhow::bail!(
            "linked memory {}: {} does not exist (moved? `zo link NEW_PATH --name {}`, or `zo unlink {}`)",
            link.name,
            p.display(),
            link.name,
            link.name
        );
    }
    open_at(p).map_err(|e| anyhow::anyhow!("linked memory {}: {e:#}", link.name))
}

/// The memory whose repository's top is `path`.
fn open_at(path: &Path) -> Result<Memory> {
    if !path.is_dir() {
        anyhow::bail!("{} is not a directory", path.display());
    }
    let zo = path.join(".zo");
    if std::fs::symlink_metadata(&zo).is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!(
            "{} is a symbolic link; zo opens a memory only in a real .zo directory",
            zo.display()
        );
    }
    if !std::fs::symlink_metadata(&zo).is_ok_and(|m| m.is_dir()) {
        anyhow::bail!(
            "{} holds no zo memory (no .zo/ directory there): run `zo init` in it, or name the top of the repository that holds it",
            path.display()
        );
    }
    let layout = Layout::at(path)?.read_only()?;
    if !layout.memory.is_dir() {
        anyhow::bail!(
            "{} holds no zo memory ({} is missing): run `zo init` in it",
            path.display(),
            layout.show(&layout.memory)
        );
    }
    Ok(Memory { layout })
}

/// A link as `zo links` and `zo continue` report it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LinkState {
    #[serde(flatten)]
    pub link: Link,
    /// It opens as a zo memory.
    pub reachable: bool,
    /// Why it does not, or what is off (not a git repository, behind its upstream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Its repository's HEAD (7 digits) and branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Commits its upstream (as last fetched) has that its HEAD has not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind: Option<usize>,
}

/// Look at a link: does it open, is it a git repository, is it behind its upstream.
pub fn state(link: &Link) -> LinkState {
    let mut s = LinkState {
        link: link.clone(),
        reachable: false,
        problem: None,
        head: None,
        branch: None,
        behind: None,
    };
    let memory = match open(link) {
        Ok(m) => m,
        Err(e) => {
            s.problem = Some(format!("{e:#}"));
            return s;
        }
    };
    s.reachable = true;
    match crate::git::Repo::discover(&memory.layout.root).filter(|r| {
        r.workdir()
            .is_some_and(|w| w.canonicalize().ok().as_deref() == Some(memory.layout.root.as_path()))
    }) {
        None => {
            s.problem = Some(format!(
                "{} is not the top of a git repository: its memory travels with no one (`git init` there)",
                link.path.display()
            ))
        }
        Some(repo) => {
            let head = repo.head();
            s.head = head.head;
            s.branch = head.branch;
            s.behind = repo.behind_upstream();
            if let Some(n) = s.behind.filter(|&n| n > 0) {
                s.problem = Some(format!(
                    "{} is {} behind its upstream: `git -C {} pull`",
                    link.name,
                    crate::format::count(n, "commit", "commits"),
                    link.path.display()
                ));
            }
        }
    }
    s
}

/// The file a link goes into, and what is in it now.
fn file_for(layout: &Layout, user: bool) -> Result<(PathBuf, Config)> {
    let file = if user {
        let f = user_file()
            .ok_or_else(|| anyhow::anyhow!("no user directory (set HOME or ZO_USER_DIR)"))?;
        crate::store::layout::private_dir(f.parent().unwrap_or(Path::new(".")))?;
        f
    } else {
        if local_tracked(layout) {
            return Err(Error::usage(format!(
                "{} is tracked by git: a link there would be the repository's, and zo does not follow those. Untrack it (`git rm --cached {}`) or link for every project with --user",
                layout.show(&layout.local_file()),
                layout.rel(&layout.local_file())
            ))
            .into());
        }
        layout.local_file()
    };
    let config = Config::load(&file)?;
    Ok((file, config))
}

fn write(file: &Path, config: &Config, user: bool) -> Result<()> {
    let head = if user {
        "# Memories zo links into every project on this machine (`zo link --user`).\n"
    } else {
        "# Detected by zo on this machine; not committed.\n"
    };
    // An empty mapping is no `{}` line.
    let body = if config.map.is_empty() {
        String::new()
    } else {
        config.to_yaml()?
    };
    crate::store::fsio::write_atomic(file, format!("{head}{body}").as_bytes())
}

/// What `zo link` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Linked {
    #[serde(flatten)]
    pub link: Link,
    /// The path the name led to before, when it was linked already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<PathBuf>,
    /// The file the link was written to.
    pub file: PathBuf,
}

/// Link the memory at `path` under `name`: into `.zo/local.yaml`, or with `user` into the
/// user's links file. The path must open as a zo memory, and not be this project.
pub fn add(layout: &Layout, name: &str, path: &Path, user: bool) -> Result<Linked> {
    check_name(name)?;
    // `~/x` as local.yaml reads it (a quoted `~` reaches zo as it is).
    let expanded = path.to_str().map(expand);
    let path = expanded.as_deref().unwrap_or(path);
    let given = path;
    let path = path
        .canonicalize()
        .map_err(|e| Error::usage(format!("{}: {e}", given.display())))?;
    if path == layout.root {
        return Err(Error::usage(format!(
            "{} is this project: link another repository's memory",
            given.display()
        ))
        .into());
    }
    open_at(&path).map_err(|e| Error::usage(format!("{e:#}")))?;
    // Twice under two names, every entry of it would come back twice.
    if let Some(other) = load(layout)
        .links
        .iter()
        .find(|l| l.name != name && l.path.canonicalize().is_ok_and(|p| p == path))
    {
        return Err(Error::usage(format!(
            "{} is linked already, as {}: `zo unlink {}` first to rename it",
            path.display(),
            other.name,
            other.name
        ))
        .into());
    }
    let (file, mut config) = file_for(layout, user)?;
    let key = Value::String(name.to_string());
    let value = Value::String(path.to_string_lossy().into_owned());
    let replaced = if user {
        config
            .map
            .insert(key, value)
            .and_then(|v| v.as_str().map(PathBuf::from))
    } else {
        let mut links = config
            .get(&["links"])
            .and_then(Value::as_mapping)
            .cloned()
            .unwrap_or_default();
        let old = links
            .insert(key, value)
            .and_then(|v| v.as_str().map(PathBuf::from));
        config.set("links", Value::Mapping(links));
        old
    };
    write(&file, &config, user)?;
    let source = if user { Source::User } else { Source::Local };
    Ok(Linked {
        link: Link {
            name: name.to_string(),
            path,
            source,
        },
        replaced: replaced.filter(|p| p != given),
        file,
    })
}

/// Remove the link `name` from wherever it is configured (local first). Errors when none is.
pub fn remove(layout: &Layout, name: &str) -> Result<Link> {
    let links = load(layout);
    let Some(link) = links.find(name).cloned() else {
        let known: Vec<&str> = links.links.iter().map(|l| l.name.as_str()).collect();
        let known = if known.is_empty() {
            "none is linked".to_string()
        } else {
            format!("linked: {}", known.join(", "))
        };
        return Err(Error::usage(format!("no linked memory {name:?} ({known})")).into());
    };
    let user = link.source == Source::User;
    let (file, mut config) = file_for(layout, user)?;
    let key = Value::String(name.to_string());
    if user {
        config.map.remove(&key);
    } else if let Some(mut m) = config.get(&["links"]).and_then(Value::as_mapping).cloned() {
        m.remove(&key);
        if m.is_empty() {
            config.map.remove("links");
        } else {
            config.set("links", Value::Mapping(m));
        }
    }
    write(&file, &config, user)?;
    Ok(link)
}

/// `NAME:ID` where NAME is one of the project's links: that memory, opened, and the ID in it.
pub fn qualified(layout: &Layout, id: &str) -> Result<Option<(String, Memory, String)>> {
    let Some((name, rest)) = id.split_once(':') else {
        return Ok(None);
    };
    if check_name(name).is_err() {
        return Ok(None);
    }
    let links = load(layout);
    let Some(link) = links.find(name) else {
        return Ok(None);
    };
    Ok(Some((name.to_string(), open(link)?, rest.to_string())))
}
