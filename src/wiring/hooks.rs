//! Git wiring that lives in the clone, not in the repository: the merge driver's config, the
//! `.gitattributes` lines that route memory files to it, and zo's blocks in git hooks.

use crate::store::fsio;
use crate::store::layout::{FileKind, Layout};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

pub const BEGIN: &str = "# >>> zo >>> (managed by `zo hooks`; remove with `zo hooks uninstall`)";
pub const END: &str = "# <<< zo <<<";
pub const HOOKS: [&str; 5] = [
    "post-merge",
    "post-checkout",
    "post-rewrite",
    "pre-commit",
    "pre-merge-commit",
];

fn zo_exe() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "zo".into())
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub const DRIVER_NAME: &str = "zo memory files: union of entries by ID";
const ATTRIBUTES_HEADER: &str =
    "# zo: merge memory files entry by entry (`zo setup` or `zo continue` registers the driver)";

/// The merge driver command git runs (`templates/merge-driver.sh`, on one line). It must
/// survive a moved or missing binary: `zo` on PATH first, then the binary that registered it.
/// When neither runs, a side that only appended to the ancestor's text (the usual case for the
/// append-only files) has its new entries added after the other side's; STATE.md keeps the
/// newer side; anything else is left to a hand merge with conflict markers and both sides'
/// text. Never git's line union: it interleaves entries that share lines.
pub fn driver_command() -> String {
    crate::templates::MERGE_DRIVER
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .replace("{zo}", &quote(&zo_exe()))
}

/// Where the routing lives: `.zo/.gitattributes`, which applies to `.zo/` and travels with it,
/// so committing `.zo/` is enough. The older layout has no `.zo/`: the root file, as before.
pub fn attributes_file(layout: &Layout) -> PathBuf {
    if layout.legacy {
        layout.root.join(".gitattributes")
    } else {
        layout.zo_dir.join(".gitattributes")
    }
}

/// The `.gitattributes` lines for this layout, relative to the file that holds them.
pub fn attribute_lines(layout: &Layout) -> Vec<String> {
    let base = attributes_file(layout);
    let m = layout
        .memory
        .strip_prefix(base.parent().unwrap_or(&layout.root))
        .unwrap_or(&layout.memory)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    routing_lines(&m)
}

/// `<memory>/<file> merge=zo` for every kind the driver merges.
fn routing_lines(memory: &str) -> Vec<String> {
    FileKind::ALL
        .iter()
        .map(|k| format!("{memory}/{} merge=zo", k.pattern()))
        .collect()
}

/// Add the missing routing lines, and move an older zo block out of the root `.gitattributes`
/// (only zo's own lines; the user's stay). True if it wrote.
pub fn ensure_attributes(layout: &Layout) -> Result<bool> {
    let lines = attribute_lines(layout);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let wrote = fsio::ensure_lines(&attributes_file(layout), ATTRIBUTES_HEADER, &lines)?;
    Ok(migrate_root_attributes(layout)? || wrote)
}

/// Remove the lines older versions of zo wrote into the root `.gitattributes`.
fn migrate_root_attributes(layout: &Layout) -> Result<bool> {
    if layout.legacy {
        return Ok(false);
    }
    let root = layout.root.join(".gitattributes");
    let Some(text) = fsio::read_text(&root)? else {
        return Ok(false);
    };
    let m = layout.rel(&layout.memory);
    let ours = routing_lines(&m);
    let kept: Vec<&str> = text
        .as_str()
        .split_inclusive('\n')
        .filter(|l| {
            let t = l.trim();
            !(t.starts_with("# zo: merge memory files entry by entry")
                || ours.iter().any(|o| o == t))
        })
        .collect();
    let kept = kept.concat();
    if kept == text.as_str() {
        return Ok(false);
    }
    if kept.trim().is_empty() {
        fsio::remove_file(&root)?;
    } else {
        fsio::write_atomic(&root, kept.as_bytes())?;
    }
    Ok(true)
}

/// Whether the routing is committed: "committed", "uncommitted" (in the work tree only, so
/// other clones do not get it) or "missing".
pub fn routing_state(layout: &Layout, repo: &crate::git::Repo) -> &'static str {
    let file = attributes_file(layout);
    let wanted = attribute_lines(layout);
    let has = |text: &str| wanted.iter().all(|w| text.lines().any(|l| l.trim() == w));
    let rel = layout.rel(&file);
    let committed = repo
        .file_at_head(Path::new(&rel))
        .ok()
        .flatten()
        .is_some_and(|b| has(&String::from_utf8_lossy(&b)));
    if committed {
        "committed"
    } else if fsio::read_string(&file).is_ok_and(|t| has(&t)) {
        "uncommitted"
    } else {
        "missing"
    }
}

/// The git attributes that change how memory files reach zo, for `files` (paths relative to
/// the repository's top) as the work tree has them, or as the tree of commit `source` has them:
/// each `(file, attribute, value)` that is not what zo's routing sets — a merge other than
/// zo's (`union` merges entries line by line, `binary` takes one side whole), a
/// working-tree-encoding (git writes the file in another encoding, which zo reads as no memory),
/// a filter (a program rewrites the file on checkout). A pull request's `.gitattributes` sets
/// them as easily as its memory files (SPEC §3a).
pub fn memory_attributes(
    root: &Path,
    source: Option<&str>,
    files: &[String],
) -> Vec<(String, &'static str, String)> {
    let mut args: Vec<String> = vec!["check-attr".into()];
    if let Some(s) = source {
        args.push(format!("--source={s}"));
    }
    args.extend(["merge", "working-tree-encoding", "filter", "--"].map(String::from));
    args.extend(files.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Ok(out) = crate::git::run(root, &args) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in out.lines() {
        let mut parts = line.rsplitn(3, ": ");
        let (Some(value), Some(attr), Some(file)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let attr: &'static str = match attr {
            "merge" => "merge",
            "working-tree-encoding" => "working-tree-encoding",
            "filter" => "filter",
            _ => continue,
        };
        let wrong = match attr {
            "merge" => value != "zo",
            _ => value != "unspecified",
        };
        if wrong {
            found.push((file.to_string(), attr, value.to_string()));
        }
    }
    found
}

/// Register the merge driver in this clone's git config (config does not travel with a clone).
pub fn register_driver(root: &Path) -> Result<()> {
    register(root, "--local")
}

/// The merge driver registered in this clone's own git config, wherever zo runs in it: a
/// teammate who never ran `zo setup` got conflicts in every memory file on the first pull.
/// Read from the config file itself (no process) when it is registered there; otherwise
/// registered with git, and true is returned (the caller says so, once: the next run finds it).
/// Best effort: a repository whose config cannot be read or written is left as it is.
pub fn ensure_local_driver(root: &Path) -> bool {
    let Some(config) = local_config_file(root) else {
        return false;
    };
    match crate::store::fsio::read_text(&config) {
        Ok(Some(t)) if has_driver(t.as_str()) => return false,
        Ok(_) => {}
        Err(_) => return false,
    }
    register_driver(root).is_ok()
}

/// Whether git config text sets `merge.zo.driver`: a `[merge "zo"]` section line (not in a
/// comment) followed, before the next section, by a `driver =` line.
fn has_driver(config: &str) -> bool {
    let mut inside = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line.replace(char::is_whitespace, "") == "[merge\"zo\"]";
        } else if inside
            && line.split_once('=').is_some_and(|(k, v)| {
                k.trim().eq_ignore_ascii_case("driver") && !v.trim().is_empty()
            })
        {
            return true;
        }
    }
    false
}

/// The git config file of the repository at `root` (`.git/config`, or the common directory's
/// for a worktree), when it is a plain file.
fn local_config_file(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot).ok()?;
    let git_dir = if meta.is_dir() {
        dot
    } else if meta.is_file() {
        let text = crate::store::fsio::read_text(&dot).ok()??;
        let dir = text
            .as_str()
            .trim()
            .strip_prefix("gitdir:")?
            .trim()
            .to_string();
        let dir = root.join(dir);
        match crate::store::fsio::read_text(&dir.join("commondir"))
            .ok()
            .flatten()
        {
            Some(c) => dir.join(c.as_str().trim()),
            None => dir,
        }
    } else {
        return None;
    };
    let config = git_dir.join("config");
    std::fs::symlink_metadata(&config)
        .is_ok_and(|m| m.is_file())
        .then_some(config)
}

/// What `zo resolve` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Resolve {
    pub files: Vec<Resolved>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Resolved {
    /// Relative to the repository.
    pub file: String,
    /// `resolved` (merged by the driver and staged) or `conflict` (still holds markers).
    pub status: &'static str,
}

/// Merge again, through zo's driver, every memory file a merge left in conflict (one made
/// before the driver was registered in this clone): `git checkout -m` recreates the merge,
/// which git now routes to the driver; a file that comes out clean is staged.
pub fn resolve(layout: &Layout) -> Result<Resolve> {
    let root = &layout.root;
    register_driver(root)?;
    let prefix = format!("{}/", layout.memory_rel());
    let unmerged = crate::git::run(
        root,
        &[
            "diff",
            "--name-only",
            "--diff-filter=U",
            "-z",
            "--",
            &prefix,
        ],
    )?;
    let mut files = Vec::new();
    for file in unmerged.split('\0').filter(|f| !f.is_empty()) {
        crate::git::run(root, &["checkout", "-m", "--", file])?;
        let text = crate::store::fsio::read_text(&root.join(file))?
            .map(|t| t.as_str().to_string())
            .unwrap_or_default();
        let clean = !crate::store::verify::may_hold_conflict_markers(text.as_bytes())
            || crate::store::verify::conflict_markers(file, &text).is_empty();
        if clean {
            crate::git::run(root, &["add", "--", file])?;
        }
        files.push(Resolved {
            file: file.to_string(),
            status: if clean { "resolved" } else { "conflict" },
        });
    }
    Ok(Resolve { files })
}

/// Register it in the user's global git config: every clone on this machine merges memory
/// entry by entry, even before `zo continue` (as `git lfs install` does for LFS).
pub fn register_global(root: &Path) -> Result<()> {
    register(root, "--global")
}

pub fn unregister_global(root: &Path) -> Result<()> {
    let _ = crate::git::run(
        root,
        &["config", "--global", "--remove-section", "merge.zo"],
    );
    Ok(())
}

fn register(root: &Path, scope: &str) -> Result<()> {
    let driver = driver_command();
    let current =
        crate::git::run(root, &["config", scope, "--get", "merge.zo.driver"]).unwrap_or_default();
    if current.trim_end_matches('\n') != driver {
        crate::git::run(root, &["config", scope, "merge.zo.name", DRIVER_NAME])?;
        crate::git::run(root, &["config", scope, "merge.zo.driver", &driver])?;
    }
    Ok(())
}

/// Where the driver is registered: "local", "global" or None.
pub fn driver_scope(root: &Path) -> Option<&'static str> {
    let has = |scope: &str| {
        crate::git::run(root, &["config", scope, "--get", "merge.zo.driver"])
            .is_ok_and(|s| s.contains("merge-driver"))
    };
    if has("--local") {
        Some("local")
    } else if has("--global") {
        Some("global")
    } else {
        None
    }
}

pub fn driver_registered(root: &Path) -> bool {
    driver_scope(root).is_some()
}

/// Where git runs this repository's hooks from, and whether that directory is the
/// repository's own (`.git/hooks`, or a `core.hooksPath` inside the work tree or the git
/// directory, as husky sets it) or shared: a `core.hooksPath` outside, usually global (hook
/// managers, git-secrets), whose hooks run in every repository that uses it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HooksPath {
    pub dir: String,
    /// `core.hooksPath` set, and outside this repository.
    pub shared: bool,
    /// Where `core.hooksPath` comes from (`global`, `local`, `system`…), when it is set.
    pub from: Option<String>,
}

/// This repository's hooks directory and whether it is shared (`HooksPath`).
pub fn hooks_path(root: &Path) -> Result<HooksPath> {
    let dir = hooks_dir(root)?;
    let set = crate::git::run(root, &["config", "--show-scope", "--get", "core.hooksPath"])
        .ok()
        .filter(|s| !s.trim().is_empty());
    let from = set
        .as_ref()
        .and_then(|s| s.split_whitespace().next())
        .map(str::to_string);
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let top = crate::git::run(root, &["rev-parse", "--show-toplevel"])
        .map(|t| canon(Path::new(t.trim())))
        .unwrap_or_else(|_| canon(root));
    let git_dir = crate::git::run(root, &["rev-parse", "--git-common-dir"]).map(|g| {
        let g = PathBuf::from(g.trim());
        canon(&if g.is_absolute() { g } else { root.join(g) })
    });
    let d = canon(&dir);
    let inside = d.starts_with(&top) || git_dir.as_ref().is_ok_and(|g| d.starts_with(g));
    Ok(HooksPath {
        dir: dir.display().to_string(),
        shared: set.is_some() && !inside,
        from,
    })
}

/// The hooks directory: `core.hooksPath` when set (relative to the work tree), else .git/hooks.
pub fn hooks_dir(root: &Path) -> Result<PathBuf> {
    if let Ok(p) = crate::git::run(root, &["config", "--get", "core.hooksPath"]) {
        let p = p.trim();
        if !p.is_empty() {
            let p = PathBuf::from(p);
            return Ok(if p.is_absolute() { p } else { root.join(p) });
        }
    }
    let git_dir = crate::git::run(root, &["rev-parse", "--git-common-dir"])
        .context("not a git repository")?;
    let g = PathBuf::from(git_dir.trim());
    Ok(if g.is_absolute() { g } else { root.join(g) }.join("hooks"))
}

/// zo's block in a git hook. It finds zo the way the user's shell would (`command -v zo`),
/// then the binary that installed it, so a moved or reinstalled zo keeps working; when neither
/// runs, the hook warns and lets git go on: a missing zo must never block a commit.
fn block(hook: &str) -> String {
    let fallback = quote(&zo_exe());
    let body = match hook {
        // Blocks a commit that edits or deletes existing entries, and a merge commit whose
        // result lost entries of either side (git runs pre-merge-commit for automatic merges).
        "pre-commit" | "pre-merge-commit" => "\"$zo\" -q verify --staged || exit 1".to_string(),
        // Rows are refreshed now (milliseconds); embeddings follow in the background. Never fails.
        _ => "\"$zo\" -q index refresh --rows-only >/dev/null 2>&1 || true\n( \"$zo\" -q index refresh >/dev/null 2>&1 & ) >/dev/null 2>&1 || true".to_string(),
    };
    let body = body.replace('\n', "\n  ");
    // Git runs hooks at the top of the work tree: where no zo memory is (a hook directory
    // another repository shares, a branch without .zo), the block does nothing, silently.
    format!(
        "{BEGIN}\n{FIND_ZO}{fallback}\nif [ ! -e .zo ] && [ ! -e memory/DECISION_LOG.md ]; then\n  :\nelif [ -x \"$zo\" ]; then\n  {body}\nelse\n  echo \"zo {hook} hook: zo is not on PATH (nor at {}); memory was not checked. Reinstall zo, or run zo hooks install\" >&2\nfi\n{END}\n",
        zo_exe().replace('"', "")
    )
}

/// The line of the block that finds zo (the fallback path follows it, quoted).
const FIND_ZO: &str = "zo=$(command -v zo 2>/dev/null); [ -x \"$zo\" ] || zo=";

/// The zo a hook block would run now: zo on PATH, else the block's fallback path, if either is
/// an executable file. None when the hook has no zo block.
fn hook_zo(text: &str) -> Option<Option<PathBuf>> {
    let mut lines = text.lines().skip_while(|l| l.trim_end() != BEGIN).skip(1);
    let first = lines.next()?;
    // Blocks older zo wrote run the installing binary by its path alone: `'/path/zo' verify …`.
    let older = !first.starts_with(FIND_ZO);
    let quoted = if older {
        first.split("' ").next().unwrap_or("")
    } else {
        &first[FIND_ZO.len()..]
    };
    let fallback = PathBuf::from(quoted.trim_matches('\'').replace("'\\''", "'"));
    let runs = crate::store::environment::executable(&fallback);
    if older {
        return Some(runs.then_some(fallback));
    }
    Some(crate::store::environment::on_path("zo").or_else(|| runs.then_some(fallback)))
}

/// The text without zo's block.
fn strip_block(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end();
        if l == BEGIN {
            inside = true;
            continue;
        }
        if inside {
            if l == END {
                inside = false;
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

#[derive(Debug, serde::Serialize)]
pub struct HookState {
    pub hook: String,
    pub path: String,
    pub installed: bool,
    pub other_content: bool,
    /// The zo the hook runs (PATH, else the binary that installed it); null when the hook is
    /// installed but neither runs: it then warns on every commit and checks nothing.
    pub zo: Option<String>,
}

pub fn install(root: &Path) -> Result<Vec<HookState>> {
    // A shared hooks directory runs its hooks in every repository that uses it: zo's hooks
    // there would run (and, before they learned to step aside, fail every commit) in
    // repositories zo knows nothing of. zo never writes there.
    let hp = hooks_path(root)?;
    if hp.shared {
        return Err(crate::error::Error::Failed(format!(
            "git runs this repository's hooks from {} (core.hooksPath, {} config), outside the repository: hooks there run in every repository that uses it, so zo does not install into it. Either give this repository its own hooks directory — `git config --local core.hooksPath .git/hooks`, then `zo hooks install` (your shared hooks then no longer run here; call them from .git/hooks if you need them) — or add zo's check to your shared pre-commit hook yourself, as a line that passes where there is no zo memory: `[ ! -e .zo ] || zo -q verify --staged || exit 1`",
            hp.dir,
            hp.from.as_deref().unwrap_or("git")
        ))
        .into());
    }
    let dir = hooks_dir(root)?;
    fsio::create_dir(&dir)?;
    for hook in HOOKS {
        let path = dir.join(hook);
        let existing = fsio::read_string(&path).ok();
        let text = match &existing {
            Some(t) => {
                let clean = strip_block(t);
                // Right after the shebang, so an `exit` later in the user's hook cannot skip it.
                match clean.split_once('\n') {
                    Some((first, rest)) if first.starts_with("#!") => {
                        format!("{first}\n{}{rest}", block(hook))
                    }
                    _ => format!("#!/bin/sh\n{}{clean}", block(hook)),
                }
            }
            None => format!("#!/bin/sh\n{}", block(hook)),
        };
        if existing.as_deref() != Some(text.as_str()) {
            fsio::write_atomic(&path, text.as_bytes())?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mut perm = std::fs::metadata(&path)?.permissions();
            perm.set_mode(perm.mode() | 0o755);
            std::fs::set_permissions(&path, perm)?;
        }
    }
    register_driver(root)?;
    status(root)
}

pub fn uninstall(root: &Path) -> Result<Vec<HookState>> {
    let dir = hooks_dir(root)?;
    for hook in HOOKS {
        let path = dir.join(hook);
        let Ok(text) = fsio::read_string(&path) else {
            continue;
        };
        let clean = strip_block(&text);
        if clean == text {
            continue;
        }
        if clean.trim() == "#!/bin/sh" || clean.trim().is_empty() {
            fsio::remove_file(&path)?;
        } else {
            fsio::write_atomic(&path, clean.as_bytes())?;
        }
    }
    status(root)
}

pub fn status(root: &Path) -> Result<Vec<HookState>> {
    let dir = hooks_dir(root)?;
    Ok(HOOKS
        .iter()
        .map(|h| {
            let path = dir.join(h);
            let text = fsio::read_string(&path).unwrap_or_default();
            HookState {
                hook: h.to_string(),
                path: path.display().to_string(),
                installed: text.lines().any(|l| l.trim_end() == BEGIN),
                other_content: !strip_block(&text).trim().is_empty()
                    && strip_block(&text).trim() != "#!/bin/sh",
                zo: hook_zo(&text).flatten().map(|p| p.display().to_string()),
            }
        })
        .collect())
}
