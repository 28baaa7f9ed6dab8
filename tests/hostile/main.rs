//! The hostile-repository suite (issue 20, SPEC "Threat model"): every case builds a repository
//! as an attacker would commit it, runs the real binary there with a test-side timeout, and
//! checks the exit code, the message, and that nothing outside the repository's `.zo/` changed.
//! One module per concern; each test is named after the case it proves.

#[path = "../util/mod.rs"]
mod util;

mod fs;
mod gate;
mod honest;
mod index;
mod mcp;
mod poison;
mod screen;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use util::{Repo, Run};

/// How long any one zo run may take before the test calls it a hang: a guard against a test
/// that never ends, not a speed limit (every run takes milliseconds; ten minutes is a hang on
/// any machine, however loaded).
pub const HANG: Duration = Duration::from_secs(600);

/// A repository to attack, plus a directory outside it that must never change: it stands for
/// the user's HOME (`~/precious`, `~/.aws/credentials`) and is the process's HOME and TMPDIR.
pub struct Hostile {
    pub repo: Repo,
    pub outside: tempfile::TempDir,
    before: BTreeMap<PathBuf, Vec<u8>>,
}

impl Hostile {
    /// `zo init` done, a commit made, and the outside directory seeded with files an attacker
    /// would like to read or overwrite.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Hostile {
        let repo = Repo::init();
        repo.commit_all("memory");
        let outside = tempfile::Builder::new()
            .prefix("zo-outside-")
            .tempdir()
            .unwrap();
        std::fs::write(outside.path().join("precious"), "do not touch\n").unwrap();
        std::fs::create_dir_all(outside.path().join(".aws")).unwrap();
        std::fs::write(
            outside.path().join(".aws/credentials"),
            "[default]\naws_secret_access_key = outside-secret-value\n",
        )
        .unwrap();
        std::fs::create_dir_all(outside.path().join("tmp")).unwrap();
        let mut h = Hostile {
            repo,
            outside,
            before: BTreeMap::new(),
        };
        h.before = h.snapshot_outside();
        h
    }

    pub fn root(&self) -> &Path {
        self.repo.path()
    }
    pub fn out(&self, rel: &str) -> PathBuf {
        self.outside.path().join(rel)
    }
    pub fn mem(&self, rel: &str) -> PathBuf {
        self.root().join(".zo/memory").join(rel)
    }

    /// Take a new baseline of the outside directory (after a test set up more files there).
    pub fn rebase_outside(&mut self) {
        self.before = self.snapshot_outside();
    }

    fn snapshot_outside(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.outside.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                let t = e.file_type().unwrap();
                if t.is_dir() {
                    stack.push(p.clone());
                    out.insert(p, b"<dir>".to_vec());
                } else if t.is_file() {
                    out.insert(p.clone(), std::fs::read(&p).unwrap());
                } else {
                    out.insert(p, b"<special>".to_vec());
                }
            }
        }
        out
    }

    /// Nothing outside the repository was created, changed or removed.
    pub fn assert_outside_unchanged(&self) {
        let now = self.snapshot_outside();
        for (p, v) in &self.before {
            match now.get(p) {
                None => panic!("{} was removed", p.display()),
                Some(n) if n != v => panic!(
                    "{} was changed: {:?}",
                    p.display(),
                    String::from_utf8_lossy(n)
                ),
                _ => {}
            }
        }
        for p in now.keys() {
            assert!(
                self.before.contains_key(p),
                "{} was created outside the repository",
                p.display()
            );
        }
    }

    /// The command for `zo ARGS` in the repository, HOME and TMPDIR outside it. zo's own
    /// per-user state (its cache with the key, the user's facts and approvals) is named
    /// directly, in the repository user's home (`util::home_for`): what changes outside is then
    /// only what an attack changed.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.repo.cmd(args);
        let home = self.repo.home();
        c.env("HOME", self.outside.path())
            .env("TMPDIR", self.out("tmp"))
            .env("XDG_CACHE_HOME", self.out(".cache-zo-test"))
            .env("XDG_CONFIG_HOME", self.out(".config-zo-test"))
            .env("ZO_CACHE", home.join(".cache/zo"))
            .env("ZO_USER_DIR", home.join(".config/zo"))
            .env_remove("ZO_MODEL_DIR")
            .env_remove("ORT_DYLIB_PATH");
        c
    }

    /// Run `zo ARGS` with `stdin`, failing the test if it does not end within `HANG`.
    pub fn run_in(&self, args: &[&str], stdin: &[u8]) -> Run {
        timed(self.cmd(args), stdin)
    }
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(args, b"")
    }

    /// Run and assert the exit code, that no panic reached the user, and that the outside
    /// directory is untouched. Returns the run for more checks on its message.
    pub fn expect(&self, args: &[&str], code: i32) -> Run {
        let r = self.run(args);
        check(&r, args, code);
        self.assert_outside_unchanged();
        r
    }
}

/// Assert an exit code and no panic.
pub fn check(r: &Run, args: &[&str], code: i32) {
    assert_eq!(
        r.code, code,
        "zo {args:?}: expected exit {code}\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    assert!(
        !r.stderr.contains("panicked") && !r.stderr.contains("RUST_BACKTRACE"),
        "panic: {}",
        r.stderr
    );
}

/// Run a command to its end with `stdin`, or kill it after `HANG` and fail: a hang is a bug.
/// The wait happens on a thread so the test waits on a channel with a deadline, not a sleep.
pub fn timed(mut cmd: Command, stdin: &[u8]) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => Run::from(out.unwrap()),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!(
                "zo {:?} hung: no exit within {HANG:?}",
                cmd.get_args().collect::<Vec<_>>()
            );
        }
    }
}

/// The SPEC's threat model names a test for each guarantee: each named test exists here, so
/// the table cannot promise what nothing proves.
#[test]
fn every_test_the_threat_model_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("docs/SPEC.md")).unwrap();
    let start = spec
        .find("## 3a. Threat model")
        .expect("SPEC has a threat model section");
    let section = &spec[start
        ..spec[start..]
            .find("\n## 4.")
            .map_or(spec.len(), |e| start + e)];
    let mut named = 0;
    // `git::` names a test of tests/git.rs (provenance needs two clones), `links::` one of
    // tests/links.rs (linked memories need several repositories).
    for module in [
        "fs", "index", "gate", "honest", "mcp", "poison", "screen", "git", "links",
    ] {
        let file = if module == "git" || module == "links" {
            format!("tests/{module}.rs")
        } else {
            format!("tests/hostile/{module}.rs")
        };
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        for piece in section.split(&format!("`{module}::")).skip(1) {
            let name = &piece[..piece.find('`').unwrap()];
            if name == "*" {
                continue;
            }
            assert!(
                source.contains(&format!("fn {name}(")),
                "SPEC names {module}::{name}, which its test file lacks"
            );
            named += 1;
        }
    }
    assert!(named >= 40, "only {named} tests named");
}
