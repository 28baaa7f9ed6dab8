//! `zo doctor`: what works and what does not, and the one command that fixes each. A check
//! that fails means zo cannot do its job (the CLI exits 1); a warning means it works, less well.

use crate::error::Error;
use crate::search::embedding;
use crate::store::layout::Layout;
use crate::store::memory::Memory;
use serde::Serialize;
use std::path::Path;

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Ok,
    Warn,
    Fail,
}

const OK: Level = Level::Ok;
const WARN: Level = Level::Warn;
const FAIL: Level = Level::Fail;

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub check: &'static str,
    /// False only for a failure.
    pub ok: bool,
    /// `ok`, `warn` or `fail`.
    pub level: &'static str,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    pub ok: bool,
    pub checks: Vec<Check>,
    /// The memory was not found at all (the CLI exits 3).
    #[serde(skip)]
    pub no_memory: bool,
}

fn report(checks: Vec<(&'static str, Level, String)>, no_memory: bool) -> DoctorReport {
    let word = |l: Level| match l {
        Level::Ok => "ok",
        Level::Warn => "warn",
        Level::Fail => "fail",
    };
    DoctorReport {
        ok: checks.iter().all(|c| c.1 != FAIL),
        checks: checks
            .into_iter()
            .map(|(check, l, detail)| Check {
                check,
                ok: l != FAIL,
                level: word(l),
                detail,
            })
            .collect(),
        no_memory,
    }
}

/// The checks made so far, in report order: (check, level, detail).
type Checks = Vec<(&'static str, Level, String)>;

/// Check the memory found from `repo` (as every command finds it) and this machine.
pub fn doctor(repo: Option<&Path>) -> DoctorReport {
    let mut checks: Checks = Vec::new();
    let memory = match Memory::open(repo) {
        Ok(m) => m,
        Err(e) => {
            let no_memory = matches!(crate::error::kind(&e), Some(Error::NoMemory(_)));
            checks.push(("layout", FAIL, format!("{e:#}")));
            // Outside a repository (or in a broken one) the machine is still worth checking.
            machine(&crate::store::config::Config::default(), &mut checks);
            return report(checks, no_memory);
        }
    };
    let l = &memory.layout;
    layout_and_config(l, &mut checks);
    links(l, &mut checks);
    readable(&memory, &mut checks);
    derived_files(&memory, &mut checks);
    machine(&l.config, &mut checks);
    index(&memory, &mut checks);
    git(l, &mut checks);
    agents(l, &mut checks);
    report(checks, false)
}

/// Where the memory is, and the config keys a repository may not set.
fn layout_and_config(l: &Layout, checks: &mut Checks) {
    checks.push((
        "layout",
        OK,
        format!(
            "{} ({})",
            l.show(&l.memory),
            if l.legacy {
                "older memory/ layout"
            } else {
                ".zo/ layout"
            }
        ),
    ));
    let ignored = embedding::ignored_paths(&l.config);
    if ignored.is_empty() {
        checks.push(("config", OK, format!("project {:?}", l.project())));
    } else {
        checks.push((
            "config",
            WARN,
            format!(
                "{} in {} ignored: a repository cannot choose the model or the library zo loads; set ZO_MODEL_DIR / ORT_DYLIB_PATH in your environment instead",
                ignored.iter().map(|k| format!("index.{k}")).collect::<Vec<_>>().join(", "),
                l.show(&l.config_file())
            ),
        ));
    }
}

/// Links and special files in the memory, which zo neither reads nor writes through.
fn links(l: &Layout, checks: &mut Checks) {
    let strangers = crate::ops::verify::strangers(l);
    if strangers.is_empty() {
        checks.push((
            "symlinks",
            OK,
            "no symbolic links or special files in the memory".into(),
        ));
    } else {
        let list: Vec<String> = strangers
            .iter()
            .map(|p| format!("{} ({})", p.file, p.message))
            .collect();
        checks.push(("symlinks", FAIL, format!("zo will not read or write through these: {}; fix: replace each with a real file or remove it", list.join("; "))));
    }
}

/// Every memory file reads as text (a bad byte made every command fail while doctor said all
/// was well): each one that does not is named, with zo's message and its fix.
fn readable(memory: &Memory, checks: &mut Checks) {
    let l = &memory.layout;
    // Each file read once: whether it reads as text, and for the three files of entries,
    // text that reads like an entry but is none (a heading cut off or mistyped), hidden from
    // every reader, so doctor fails on it as verify does.
    let mut files = vec![
        (l.state(), None),
        (l.decision_log(), Some("decisions")),
        (l.priors(), Some("priors")),
        (l.facts(), Some("facts")),
    ];
    for (dir, names) in [
        (l.sessions(), memory.session_names()),
        (l.snapshots(), memory.snapshot_names()),
    ] {
        files.extend(
            names
                .unwrap_or_default()
                .into_iter()
                .map(|n| (dir.join(n), None)),
        );
    }
    let mut bad: Vec<String> = Vec::new();
    for (path, kind) in files {
        match crate::store::fsio::read_text(&path) {
            Err(e) => bad.push(format!("{e:#}")),
            Ok(Some(text)) => {
                if let Some(kind) = kind {
                    let mut problems = Vec::new();
                    crate::ops::verify::unread(&l.show(&path), kind, &text, &mut problems);
                    bad.extend(problems.iter().map(|p| p.to_string()));
                }
            }
            Ok(None) => {}
        }
    }
    if bad.is_empty() {
        checks.push((
            "memory files",
            OK,
            "every memory file reads as text, every entry with its heading".into(),
        ));
    } else {
        checks.push((
            "memory files",
            FAIL,
            format!(
                "{}; the agent's bundle gives the rest of the memory meanwhile",
                bad.join("; ")
            ),
        ));
    }
}

/// Derived files are this machine's (SPEC §3a): one git tracks, or a session record this
/// user's zo did not write, is ignored; say so and how to clear it.
fn derived_files(memory: &Memory, checks: &mut Checks) {
    let l = &memory.layout;
    let tracked = crate::store::trust::tracked(l);
    let foreign_record = crate::lifecycle::record::untrusted(memory);
    if tracked.is_empty() && !foreign_record {
        checks.push((
            "derived files",
            OK,
            "none tracked by git; each was made by this user's zo".into(),
        ));
    } else {
        let mut parts: Vec<String> = Vec::new();
        if !tracked.is_empty() {
            let list: Vec<String> = tracked
                .iter()
                .map(|t| crate::store::gate::frame::name(t))
                .collect();
            parts.push(format!(
                "git tracks {} (zo ignores them; fix: git rm --cached -- {})",
                list.join(", "),
                tracked.join(" ")
            ));
        }
        if foreign_record {
            parts.push(format!(
                "{} was not written by this user's zo and is ignored (fix: rm {})",
                l.show(&l.session_record()),
                l.show(&l.session_record())
            ));
        }
        checks.push(("derived files", WARN, parts.join("; ")));
    }
}

/// The index: whether it reads, how much is embedded, whether it is fresh.
fn index(memory: &Memory, checks: &mut Checks) {
    let h = crate::ops::index_health(memory);
    match (&h.error, h.built) {
        (Some(e), _) => checks.push(("index", FAIL, format!("{e}; fix: zo index rebuild"))),
        (None, true) => checks.push((
            "index",
            OK,
            format!(
                "{} entries, {} embedded, {} pending; {}",
                h.entries,
                h.embedded,
                h.pending_embeddings,
                if h.fresh {
                    "fresh"
                } else {
                    "stale (refreshed by the next read)"
                }
            ),
        )),
        (None, false) => checks.push((
            "index",
            OK,
            "not built yet; the first `zo recall` or `zo index refresh` builds it".into(),
        )),
    }
}

/// Git: the repository, zo's merge routing and driver, and zo's git hooks.
fn git(l: &Layout, checks: &mut Checks) {
    match crate::git::Repo::discover(&l.root) {
        None => checks.push((
            "git",
            WARN,
            "not a git repository, so memory does not travel; fix: git init".into(),
        )),
        Some(repo) => {
            checks.push(("git", OK, "repository found".into()));
            merge(l, &repo, checks);
            git_hooks(l, checks);
        }
    }
}

/// Whether merges of memory files reach zo: the routing (committed, so every clone has it) and
/// the driver registered on this machine.
fn merge(l: &Layout, repo: &crate::git::Repo, checks: &mut Checks) {
    let file = l.show(&crate::wiring::hooks::attributes_file(l));
    match crate::wiring::hooks::routing_state(l, repo) {
        "committed" => checks.push(("merge routing", OK, format!("{file} is committed; every clone routes memory files to zo"))),
        "uncommitted" => checks.push((
            "merge routing",
            WARN,
            format!("{file} is not committed, so other clones merge memory line by line; fix: zo checkpoint (or git add .zo && git commit)"),
        )),
        _ => checks.push(("merge routing", FAIL, format!("{file} lacks zo's merge lines; fix: zo continue"))),
    }
    // Attributes set elsewhere win over zo's lines for the files they match.
    let files: Vec<String> = [l.decision_log(), l.priors(), l.facts(), l.state()]
        .iter()
        .map(|p| l.rel(p))
        .collect();
    for (f, attr, value) in crate::wiring::hooks::memory_attributes(&l.root, None, &files) {
        if attr == "merge" && value == "unspecified" {
            continue; // said above: the routing is missing
        }
        checks.push((
            "merge routing",
            FAIL,
            format!(
                "{f} has the git attribute {attr}={value}, which wins over zo's routing (a merge without zo, or the file checked out as other bytes); fix: remove it from the .gitattributes that sets it (`git check-attr -a -- {f}`)"
            ),
        ));
    }
    match crate::wiring::hooks::driver_scope(&l.root) {
        Some(scope) => checks.push(("merge driver", OK, format!("registered ({scope} git config)"))),
        None => checks.push((
            "merge driver",
            WARN,
            "not registered on this machine, so git merges memory files line by line; fix: zo setup (every clone here) or zo continue (this clone)".into(),
        )),
    }
}

/// zo's git hooks: installed ones that cannot find zo, a hooks path that keeps them from
/// running, and hooks the config asks for that are not installed.
fn git_hooks(l: &Layout, checks: &mut Checks) {
    let lost: Vec<String> = crate::wiring::hooks::status(&l.root)
        .unwrap_or_default()
        .into_iter()
        .filter(|h| h.installed && h.zo.is_none())
        .map(|h| h.hook)
        .collect();
    if !lost.is_empty() {
        checks.push((
            "git hooks",
            FAIL,
            format!("{} cannot find zo (not on PATH, and the binary that installed them is gone): they check nothing; fix: zo hooks install", lost.join(", ")),
        ));
    }
    shared_hooks(l, checks);
    if l.config.get(&["hooks"]).and_then(|v| v.as_bool()) == Some(true)
        && !crate::wiring::hooks::status(&l.root).is_ok_and(|h| h.iter().all(|h| h.installed))
    {
        checks.push((
            "git hooks",
            WARN,
            "config asks for zo's git hooks but they are not installed; fix: zo hooks install"
                .into(),
        ));
    }
}

/// A hooks directory outside the repository is shared by every repository that uses
/// it; zo's hooks in .git/hooks never run while core.hooksPath points elsewhere.
fn shared_hooks(l: &Layout, checks: &mut Checks) {
    if let Ok(hp) = crate::wiring::hooks::hooks_path(&l.root) {
        // Said as a problem only where zo's hooks are wanted (`hooks: true`); anywhere
        // else it is how this machine is set up, said once as information.
        if hp.shared {
            let wanted = l.config.get(&["hooks"]).and_then(|v| v.as_bool()) == Some(true);
            checks.push((
                "git hooks",
                if wanted { WARN } else { OK },
                format!(
                    "core.hooksPath ({} config) is {}, outside this repository: hooks there run in every repository, so zo's are not installed there; {}: git config --local core.hooksPath .git/hooks && zo hooks install (your shared hooks then no longer run here), or add `[ ! -e .zo ] || zo -q verify --staged || exit 1` to the shared pre-commit hook",
                    hp.from.as_deref().unwrap_or("git"),
                    hp.dir,
                    if wanted { "fix" } else { "to have zo's hooks" }
                ),
            ));
        }
        let own = crate::git::Repo::discover(&l.root)
            .and_then(|_| crate::git::run(&l.root, &["rev-parse", "--git-common-dir"]).ok());
        if let Some(g) = own {
            let g = std::path::PathBuf::from(g.trim());
            let own = if g.is_absolute() { g } else { l.root.join(g) }.join("hooks");
            let stranded = crate::wiring::hooks::HOOKS.iter().any(|h| {
                crate::store::fsio::read_string(own.join(h))
                    .is_ok_and(|t| t.contains(crate::wiring::hooks::BEGIN))
            });
            if stranded && std::fs::canonicalize(&own).ok() != std::fs::canonicalize(&hp.dir).ok() {
                checks.push((
                    "git hooks",
                    WARN,
                    format!("zo's hooks in {} never run: git runs hooks from {} (core.hooksPath); fix: zo hooks uninstall, then unset core.hooksPath or call them from there", own.display(), hp.dir),
                ));
            }
        }
    }
}

/// Each agent wired in the project, and whether the `zo` it names runs here.
fn agents(l: &Layout, checks: &mut Checks) {
    for (agent, file, problem) in crate::wiring::agents::check(&l.root) {
        // Every wired agent by name (the check's label is static text).
        let name = match agent {
            "claude" => "agent claude",
            "cursor" => "agent cursor",
            "codex" => "agent codex",
            "gemini" => "agent gemini",
            "qwen" => "agent qwen",
            "opencode" => "agent opencode",
            "copilot" => "agent copilot",
            _ => "agent",
        };
        match problem {
            None => checks.push((name, OK, format!("{file} runs zo"))),
            Some(p) => checks.push((name, WARN, p)),
        }
    }
}

fn join(p: &[std::path::PathBuf]) -> String {
    p.iter()
        .map(|x| x.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// This machine: git, the model, ONNX Runtime, and whether the model loads.
fn machine(config: &crate::store::config::Config, checks: &mut Checks) {
    match std::process::Command::new("git").arg("--version").output() {
        Ok(o) if o.status.success() => checks.push((
            "git",
            OK,
            String::from_utf8_lossy(&o.stdout).trim().to_string(),
        )),
        _ => checks.push((
            "git",
            FAIL,
            "git does not run here; zo reads and merges memory through git: install git".into(),
        )),
    }
    // Agent hooks, MCP configs and git hooks all run `zo` from PATH.
    match crate::store::environment::on_path("zo") {
        Some(p) => checks.push(("zo on PATH", OK, p.display().to_string())),
        None => checks.push((
            "zo on PATH",
            WARN,
            "no `zo` on PATH: agent hooks, MCP configs and git hooks run it from there; fix: cargo install --locked --path . (from zo's source)".into(),
        )),
    }
    let search = embedding::locate(config);
    match (&search.model_dir, search.disabled) {
        (_, true) => checks.push((
            "model",
            OK,
            "semantic search is off (index.embedding: off); recall is lexical".into(),
        )),
        (Some(d), _) => checks.push((
            "model",
            OK,
            format!("{} in {}", embedding::MODEL_NAME, d.display()),
        )),
        (None, _) => checks.push((
            "model",
            WARN,
            format!(
                "not found, recall is lexical only (looked in {}); fix: {}",
                join(&search.model_candidates),
                embedding::INSTALL_HINT
            ),
        )),
    }
    if !search.disabled {
        match &search.runtime {
            Some(r) => checks.push(("runtime", OK, format!("ONNX Runtime at {}", r.display()))),
            None => checks.push((
                "runtime",
                WARN,
                format!(
                    "no ONNX Runtime library (looked for {}); fix: {}",
                    join(&search.runtime_candidates),
                    embedding::INSTALL_HINT
                ),
            )),
        }
    }
    if let Ok(paths) = search.paths() {
        let t = std::time::Instant::now();
        match embedding::Embedder::load(&paths) {
            Ok(_) => checks.push((
                "embeddings",
                OK,
                format!("model loads in {:.2}s", t.elapsed().as_secs_f64()),
            )),
            Err(e) => checks.push((
                "embeddings",
                FAIL,
                format!("{e:#}; fix: {}", embedding::INSTALL_HINT),
            )),
        }
    }
}
