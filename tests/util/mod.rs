//! Test harness in the style of ripgrep's `tests/util.rs`: every test gets its own temporary
//! git repository and runs the real `zo` binary there.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod mcp;

pub const ZO: &str = env!("CARGO_BIN_EXE_zo");

/// Variables of the developer's environment no test process sees (issue 31): zo's own, git's
/// (a suite run from a git hook has GIT_DIR set), XDG's, and the agents' (`zo mcp` prefers
/// `CLAUDE_PROJECT_DIR`).
fn foreign(name: &str) -> bool {
    const PREFIXES: [&str; 10] = [
        "ZO_", "GIT_", "XDG_", "CLAUDE", "CODEX", "CURSOR", "GEMINI", "QWEN", "OPENCODE", "COPILOT",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || name == "ORT_DYLIB_PATH"
        || name == "EDITOR"
        || name == "VISUAL"
        || name == "COMPLETE"
}

/// The one command builder every helper uses (issue 31: a suite that passes wherever zo is
/// used). `program` runs as a user whose home is `home`: HOME and the XDG directories there
/// (so zo's key, vector cache and user facts are this test's), a global git config of its own
/// (`GIT_CONFIG_GLOBAL`: an identity, `init.defaultBranch main`, no hooks path, no merge
/// driver) and no system config, a PATH whose first `zo` is the binary under test, and none of
/// the developer's zo, git, XDG or agent variables. A test names any other setting itself.
pub fn user_command(program: &str, home: &Path) -> Command {
    let bin = home.join("bin");
    if !bin.join("zo").exists() {
        std::fs::create_dir_all(&bin).unwrap();
        let _ = std::os::unix::fs::symlink(ZO, bin.join("zo"));
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::fs::create_dir_all(home.join(".cache")).unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = zo test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[advice]\n\tdetachedHead = false\n",
        )
        .unwrap();
    }
    let mut c = Command::new(program);
    for (k, _) in std::env::vars_os() {
        if foreign(&k.to_string_lossy()) {
            c.env_remove(k);
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    // The model and ONNX Runtime this machine has (read-only), named directly: a test HOME has
    // none, and a semantic test without the model must fail, not fall back.
    if let Some(p) = model() {
        c.env("ZO_MODEL_DIR", &p.model_dir)
            .env("ORT_DYLIB_PATH", &p.runtime);
    }
    c.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .env("ORT_DISABLE_TELEMETRY", "1")
        .env("ZO_LOCK_TIMEOUT", "60");
    c
}

/// Run `cmd` with a terminal for its stdin, stdout and stderr (util-linux `script`, which
/// every Debian has), `typed` sent as the person's keystrokes: what `zo approve` needs. The
/// output is the terminal's, both streams together, with the typed line echoed.
pub fn at_terminal(cmd: &Command, typed: &str) -> Run {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    let line: Vec<String> = std::iter::once(quote(cmd.get_program()))
        .chain(cmd.get_args().map(quote))
        .collect();
    let mut c = Command::new("script");
    c.args(["-qec", &line.join(" "), "/dev/null"]);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    let mut child = c
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), typed.as_bytes()).unwrap();
    Run::from(child.wait_with_output().unwrap())
}

/// `zo forget` as a person runs it (SPEC §3a: erasing memory is a person's act at a
/// terminal): `cmd` at a terminal, `id` typed back when it asks. The run's output is what the
/// command printed after the typed line (both streams, as a terminal shows them), CRLF as LF.
pub fn forget(cmd: &Command, id: &str) -> Run {
    let r = at_terminal(cmd, &format!("{id}\n"));
    let out = r.stdout.replace("\r\n", "\n");
    let after = match out.rsplit_once("anything else to keep it: ") {
        Some((_, rest)) => rest.to_string(),
        None => out,
    };
    Run {
        code: r.code,
        stdout: after.clone(),
        stderr: after,
    }
}

/// The JSON document in a terminal's output (notes and prompts around it left out).
pub fn json_in(out: &str) -> serde_json::Value {
    let at = out
        .find("\n{")
        .map(|i| i + 1)
        .or_else(|| out.starts_with('{').then_some(0))
        .unwrap_or_else(|| panic!("no JSON in: {out}"));
    serde_json::Deserializer::from_str(&out[at..])
        .into_iter::<serde_json::Value>()
        .next()
        .unwrap_or_else(|| panic!("no JSON in: {out}"))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// The embedding model and runtime as this machine has them (the developer's or CI's cache),
/// found once from the test process's own environment.
pub fn model() -> Option<&'static zo::search::embedding::Paths> {
    static PATHS: std::sync::OnceLock<Option<zo::search::embedding::Paths>> =
        std::sync::OnceLock::new();
    PATHS
        .get_or_init(|| {
            zo::search::embedding::locate(&zo::store::config::Config::default())
                .paths()
                .ok()
        })
        .as_ref()
}

/// PATH without any directory that holds a `zo`: for scenarios where zo must be missing, or
/// only where the test puts it.
pub fn path_without_zo() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("zo").exists())
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The home of the user who works in `dir`: `.git/zo-home` in a checkout (each clone is
/// another machine's user, as it was), else one scratch home under cargo's target/tmp for
/// commands run outside any repository (`git init`, `git clone`).
pub fn home_for(dir: &Path) -> PathBuf {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.join(".git").is_dir() {
            return d.join(".git").join("zo-home");
        }
        at = d.parent().filter(|p| {
            p.starts_with(std::env::temp_dir()) || p.starts_with(env!("CARGO_TARGET_TMPDIR"))
        });
    }
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("home-outside-repositories")
}

/// `zo` run in `dir` as the user who works there (`user_command`).
pub fn zo_command(dir: impl AsRef<Path>) -> Command {
    let dir = dir.as_ref();
    let mut c = user_command(ZO, &home_for(dir));
    c.current_dir(dir);
    c
}

/// `zo` run as the scratch user, for commands that work in no repository (`zo man`).
pub fn zo_anywhere() -> Command {
    user_command(
        ZO,
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("home-outside-repositories"),
    )
}

/// `git` run as the scratch user, outside any repository (`git clone`, `git init DIR`).
pub fn git_anywhere() -> Command {
    user_command(
        "git",
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("home-outside-repositories"),
    )
}

/// `git` run in `dir` as the user who works there: its hooks run zo as that user too.
pub fn git_command(dir: impl AsRef<Path>) -> Command {
    let dir = dir.as_ref();
    let mut c = user_command("git", &home_for(dir));
    c.current_dir(dir);
    c
}

/// Test data kept in the repository (sources and licences in tests/fixtures/README.md).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Real memory written by hand by another team.
pub fn fixture() -> PathBuf {
    fixtures().join("zero-operators-memory")
}

pub struct Repo {
    pub dir: tempfile::TempDir,
}

/// The outcome of one `zo` run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

impl Repo {
    /// An empty git repository.
    pub fn new() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("zo-test-")
            .tempdir()
            .unwrap();
        let r = Repo { dir };
        r.git(&["init", "-q", "-b", "main"]);
        r.git(&["config", "user.email", "test@example.com"]);
        r.git(&["config", "user.name", "zo test"]);
        r.git(&["config", "commit.gpgsign", "false"]);
        r
    }

    /// A git repository with `zo init --project test` done.
    pub fn init() -> Repo {
        let r = Repo::new();
        r.ok(&["init", "--project", "test"]);
        r
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = zo_command(self.path());
        c.args(args);
        c
    }

    /// This repository's user's home (`home_for`): their zo config (user facts, approvals)
    /// and cache (key, vectors) are under it.
    pub fn home(&self) -> PathBuf {
        home_for(self.path())
    }

    /// Where zo keeps this user's user-scope facts and approvals.
    pub fn user_dir(&self) -> PathBuf {
        self.home().join(".config/zo")
    }

    /// This user's vector cache directory (and the key that signs derived files).
    pub fn vector_dir(&self) -> PathBuf {
        self.home().join(".cache/zo/vectors")
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.cmd(args).stdin(Stdio::null()).output().unwrap())
    }

    pub fn run_stdin(&self, args: &[&str], input: &str) -> Run {
        let mut child = self
            .cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    }

    /// Run and assert exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let r = self.run(args);
        assert_eq!(
            r.code, 0,
            "zo {args:?} failed\nstdout: {}\nstderr: {}",
            r.stdout, r.stderr
        );
        r.stdout
    }

    /// Run with --json and assert exit 0.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let r = self.run(&a);
        assert_eq!(r.code, 0, "zo {a:?} failed\nstderr: {}", r.stderr);
        r.json()
    }

    /// Run and assert the exit code; returns stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let r = self.run(args);
        assert_eq!(
            r.code, code,
            "zo {args:?}: expected exit {code}\nstdout: {}\nstderr: {}",
            r.stdout, r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "panic: {}", r.stderr);
        r.stderr
    }

    pub fn decide(&self, title: &str, decision: &str) -> String {
        self.ok(&["decide", "--title", title, "--decision", decision])
            .trim()
            .to_string()
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn write(&self, rel: &str, content: &str) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = git_command(self.path()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }

    pub fn log_path(&self) -> &'static str {
        ".zo/memory/DECISION_LOG.md"
    }

    /// IDs in the log, oldest first.
    pub fn ids(&self) -> Vec<String> {
        let v = self.json(&["log", "--all"]);
        let mut ids: Vec<String> = v["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_string())
            .collect();
        ids.reverse();
        ids
    }
}

/// A canonical decision entry, for building large logs without running zo N times.
pub fn canonical_entry(i: usize, title: &str, decision: &str) -> String {
    format!(
        "## Decision: 2026-01-01T00:00:00Z\n**ID:** D-{i:08x}\n**Type:** ARCHITECTURE\n**Title:** {title}\n**Decision:** {decision}\n**Outcome:** pending\n\n---\n\n"
    )
}

impl Repo {
    /// A git repository holding the bundled `.zo-example/` memory as its `.zo/`.
    pub fn example() -> Repo {
        let r = Repo::new();
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(".zo-example"),
            &r.path().join(".zo"),
        );
        // As `zo init` leaves a repository: the merge driver registered in its config (a first
        // zo command would say it registers it).
        r.ok(&["-q", "hooks", "status"]);
        r
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            // Contents only: a read-only source must not make the copy read-only.
            std::fs::write(dest, std::fs::read(e.path()).unwrap()).unwrap();
        }
    }
}

/// Semantic tests use the real model. A missing model fails them (never a silent skip): the
/// test command installs it first (scripts/install-model).
pub fn require_model() {
    let search = zo::search::embedding::locate(&zo::store::config::Config::default());
    if let Err(why) = search.paths() {
        panic!("these tests need the real embedding model: {why}");
    }
}

/// Copy an executable to run it from elsewhere. The copy is made by `cp`, not in this process:
/// a file this process has open for writing can be inherited by a child another test thread
/// forks at that moment, and running the copy then fails with "Text file busy" (ETXTBSY).
pub fn copy_executable(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp {} {}", from.display(), to.display());
}

/// A bare remote and clones of it in one temp dir: the multi-machine scenarios.
pub struct World {
    _dir: tempfile::TempDir,
    pub remote: PathBuf,
    pub root: PathBuf,
}

/// Run git in `dir`; asserts success, returns stdout.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run zo in a clone (its user facts under its .git); returns the whole run.
pub fn zo_in(dir: &Path, args: &[&str]) -> Run {
    let out = zo_command(dir).args(args).output().unwrap();
    Run::from(out)
}

/// Run zo in a clone and assert exit 0; returns stdout.
pub fn zo_ok(dir: &Path, args: &[&str]) -> String {
    let r = zo_in(dir, args);
    assert_eq!(
        r.code, 0,
        "zo {args:?}\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    r.stdout
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let remote = root.join("remote.git");
        git_in(
            &root,
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                remote.to_str().unwrap(),
            ],
        );
        World {
            _dir: dir,
            remote,
            root,
        }
    }

    /// A clone with its own identity, merging (not rebasing) on pull unless told.
    pub fn clone(&self, name: &str) -> PathBuf {
        let p = self.root.join(name);
        git_in(
            &self.root,
            &[
                "clone",
                "-q",
                self.remote.to_str().unwrap(),
                p.to_str().unwrap(),
            ],
        );
        git_in(
            &p,
            &["config", "user.email", &format!("{name}@example.com")],
        );
        git_in(&p, &["config", "user.name", name]);
        git_in(&p, &["config", "pull.rebase", "false"]);
        git_in(&p, &["config", "commit.gpgsign", "false"]);
        p
    }
}

/// `git add -A && git commit`.
pub fn commit_in(dir: &Path, msg: &str) {
    git_in(dir, &["add", "-A"]);
    git_in(dir, &["commit", "-q", "-m", msg]);
}

/// xorshift64: reproducible pseudo-random choices from a printed seed (no crate needed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One machine for the embedding tests (tests/cache.rs, tests/catch_up.rs): a vector cache of
/// its own (`ZO_CACHE`, cold), and the real model named directly, never the person's cache.
pub struct Machine {
    pub cache: tempfile::TempDir,
    pub paths: zo::search::embedding::Paths,
}

impl Machine {
    pub fn new() -> Machine {
        require_model();
        let paths = zo::search::embedding::locate(&zo::store::config::Config::default())
            .paths()
            .unwrap();
        Machine {
            cache: tempfile::tempdir().unwrap(),
            paths,
        }
    }

    pub fn cmd(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = zo_command(dir);
        c.args(args)
            .env("ZO_CACHE", self.cache.path())
            .env("ZO_MODEL_DIR", &self.paths.model_dir)
            .env("ORT_DYLIB_PATH", &self.paths.runtime)
            .env("ZO_USER_DIR", self.cache.path().join("user"))
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, dir: &Path, args: &[&str]) -> Run {
        Run::from(self.cmd(dir, args).output().unwrap())
    }

    pub fn json(&self, dir: &Path, args: &[&str]) -> serde_json::Value {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let r = self.run(dir, &a);
        assert_eq!(
            r.code, 0,
            "zo {a:?}\nstdout: {}\nstderr: {}",
            r.stdout, r.stderr
        );
        r.json()
    }

    pub fn db(&self) -> PathBuf {
        self.cache.path().join("vectors/vectors.db")
    }

    /// (texts sent to the model, vectors taken from the cache) of an `index refresh`.
    pub fn refresh(&self, dir: &Path) -> (u64, u64) {
        let v = self.json(dir, &["index", "refresh"]);
        assert_eq!(v["mode"], "hybrid", "{v}");
        (
            v["embedded"].as_u64().unwrap(),
            v["from_cache"].as_u64().unwrap(),
        )
    }

    /// (entries with a vector, entries waiting for one) in a checkout's index.
    pub fn status(&self, dir: &Path) -> (u64, u64) {
        let st = self.json(dir, &["index", "status"]);
        (
            st["embedded"].as_u64().unwrap(),
            st["pending_embeddings"].as_u64().unwrap(),
        )
    }

    /// How many texts this machine's model has embedded so far (every vector goes to the cache).
    pub fn entries(&self) -> u64 {
        self.json(Path::new("/"), &["cache", "status"])["entries"]
            .as_u64()
            .unwrap()
    }
}
