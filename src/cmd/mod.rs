//! The CLI front-end: one file per command (`zo decide` is `decide.rs`); this module dispatches
//! and holds what they share: where output goes (`Ctx`). The clap definitions are in `cli.rs`.
//!
//! Invariants: a command parses nothing itself and computes nothing the MCP server would need
//! too: it calls the library (`ops`, `Memory`, …) and renders the report as text or `--json`.
//! Text both front-ends show is in `ops::text`. Nothing in the library imports this module
//! (tests/architecture.rs); errors stay typed, and only `main` turns them into exit codes.

mod approve;
mod cache;
mod checkpoint;
mod completions;
mod confirm;
mod context;
mod r#continue;
mod decide;
mod doctor;
mod editor;
mod eval;
mod fact;
mod forget;
mod history;
mod hook;
mod hooks;
mod index;
mod init;
mod link;
mod log;
mod merge_driver;
mod migrate;
mod model;
mod outcome;
mod prior;
mod promote;
mod recall;
mod review;
mod session;
mod setup;
mod show;
mod site;
mod snapshot;
mod stale;
mod state;
mod status;
mod verify;

use crate::cli::{Cli, Command};
use crate::ops::request::{Env, Operation, Report, Searcher};

use crate::store::memory::Memory;
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;

/// What every command gets: the global flags.
pub struct Ctx {
    pub repo: Option<PathBuf>,
    pub json: bool,
    pub quiet: bool,
}

impl Ctx {
    pub fn memory(&self) -> Result<Memory> {
        let memory = Memory::open(self.repo.as_deref())?;
        // Merges work in every clone with no step per machine: the driver is registered in
        // this repository's own config the first time zo runs in it.
        if crate::wiring::hooks::ensure_local_driver(&memory.layout.root) {
            self.note(
                "registered zo's merge driver in this repository's git config (.git/config), so memory files merge entry by entry here",
            );
        }
        Ok(memory)
    }

    /// A note or warning for a person, on stderr; silenced by -q.
    pub fn note(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            say(&format!("zo: {}\n", msg.as_ref()));
        }
    }

    /// Write the command's output to stdout in one go, through the output gate
    /// (`store::shown`): whatever reads it — a terminal, an agent's shell tool, a script —
    /// is given no character memory may not hold and no directive unmarked. Output that
    /// cannot be written is an error (exit 1), except a pipe whose reader left (`zo log |
    /// head -1`), which `main` keeps quiet.
    pub fn print(&self, text: &str) -> Result<()> {
        self.emit(&crate::store::shown::text(text))
    }

    /// The `--json` document, through the output gate.
    pub fn print_json(&self, value: &serde_json::Value) -> Result<()> {
        self.emit(&crate::store::shown::json(value.clone()).pretty())
    }

    /// `print_json` on one line: a hook's reply, which its agent reads as one JSON document.
    pub fn print_json_line(&self, value: &serde_json::Value) -> Result<()> {
        self.emit(&crate::store::shown::json(value.clone()).line())
    }

    /// The one writer of stdout: it takes only what the output gate made.
    pub fn emit(&self, shown: &crate::store::shown::Shown) -> Result<()> {
        use anyhow::Context;
        if shown.is_empty() {
            return Ok(());
        }
        if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
            // EBADF: the process started with stdout closed (see `stdout_was_closed`).
            return Err(std::io::Error::from_raw_os_error(9)).context("could not write to stdout");
        }
        let mut out = std::io::stdout().lock();
        STDOUT_WRITTEN.store(true, std::sync::atomic::Ordering::Relaxed);
        out.write_all(shown.as_str().as_bytes())
            .context("could not write to stdout")?;
        out.flush().context("could not write to stdout")?;
        Ok(())
    }
}

/// Whether anything was written to stdout (an error under `--json` is its own document only
/// when the command printed none: `verify --json` exits 4 after its report).
static STDOUT_WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Report a command's error: its message on stderr, and under `--json` one JSON document on
/// stdout, `{"error": {"code", "kind", "message", "file", "line"}}`, when the command printed
/// none (scripts and agents read stdout). `code` is the exit code `main` decided.
pub fn report_error(err: &anyhow::Error, json: bool, code: i32) {
    say(&format!("zo: {err:#}\n"));
    if json {
        report_json_error(err, code);
    }
}

/// The `--json` document of an error (`report_error`), unless the command printed one.
pub fn report_json_error(err: &anyhow::Error, code: i32) {
    if STDOUT_WRITTEN.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let message = format!("{err:#}");
    let kind = match crate::error::kind(err) {
        Some(crate::error::Error::Usage(_)) => "usage",
        Some(crate::error::Error::NoMemory(_)) => "no-memory",
        Some(crate::error::Error::VerifyFailed(_)) => "verify-failed",
        Some(crate::error::Error::Failed(_)) | None => "failure",
    };
    let (file, line) = crate::error::place(&message);
    let value = serde_json::json!({
        "error": {"code": code, "kind": kind, "message": message, "file": file, "line": line}
    });
    let ctx = Ctx {
        repo: None,
        json: true,
        quiet: true,
    };
    let _ = ctx.print_json(&value);
}

impl Ctx {
    /// Run a library request as the CLI does: one process per question (the one-shot search
    /// path), notes on stderr.
    pub fn run<T: Operation>(&self, memory: &Memory, request: T) -> Result<T::Report> {
        let note = |m: &str| self.note(m);
        let mut env = Env {
            memory,
            search: Searcher::OneShot,
            note: &note,
            agent: None,
        };
        request.run(&mut env)
    }

    /// A report as the CLI shows it: its notes on stderr, then its JSON (`--json`) or its text.
    pub fn report<R: Report>(&self, r: &R) -> Result<()> {
        self.report_or(r, |r| r.text())
    }

    /// `report`, with other text for stdout: a write prints its new ID, for scripts.
    pub fn report_or<R: Report>(&self, r: &R, text: impl Fn(&R) -> String) -> Result<()> {
        for n in r.notes() {
            self.note(n);
        }
        // The JSON and the text are screened together: the entries the report shows on
        // purpose (its hits, the entry asked for) are marked, not withheld, in both.
        let value = serde_json::to_value(r)?;
        if self.json {
            return self.emit(&crate::store::shown::json_with(value, r.vouched()).pretty());
        }
        self.emit(&crate::store::shown::report_text(
            &value,
            &text(r),
            r.vouched(),
        ))
    }
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The process started with stdout closed (`zo log >&-`): output would go to the /dev/null
/// Rust's runtime put in its place, so `Ctx::print` reports it instead. Called by `main`.
pub fn stdout_was_closed() {
    STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Write to stderr, ignoring a closed stderr (`zo verify 2>&1 | head -1`): eprintln! would
/// panic there, and the exit code must stay the documented one. Through the output gate, as
/// stdout: an agent reads stderr too.
pub fn say(text: &str) {
    say_shown(&crate::store::shown::text(text));
}

/// `say` for what the output gate already made (an entry shown to the person asked about it).
pub fn say_shown(shown: &crate::store::shown::Shown) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(shown.as_str().as_bytes());
}

pub fn run(cli: Cli) -> Result<()> {
    let ctx = Ctx {
        repo: cli.repo,
        json: cli.json,
        quiet: cli.quiet,
    };
    crate::store::settings::check_env()?;
    crate::progress::enable(!ctx.quiet && !ctx.json);
    match cli.command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Status => status::run(&ctx),
        Command::Continue => r#continue::run(&ctx),
        Command::Context(a) => context::run(&ctx, a),
        Command::Session(c) => session::run(&ctx, c),
        Command::Snapshot(a) => snapshot::run(&ctx, a),
        Command::State(c) => state::run(&ctx, c),
        Command::Decide(a) => decide::run(&ctx, a),
        Command::Outcome(a) => outcome::run(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Show(a) => show::run(&ctx, a),
        Command::History(a) => history::run(&ctx, a),
        Command::Prior(c) => prior::run(&ctx, c),
        Command::Fact(c) => fact::run(&ctx, c),
        Command::Confirm(a) => confirm::run(&ctx, a),
        Command::Forget(a) => forget::run(&ctx, a),
        Command::Approve(a) => approve::run(&ctx, a),
        Command::Review(a) => review::run(&ctx, a),
        Command::Stale(a) => stale::run(&ctx, a),
        Command::Site(a) => site::run(&ctx, a),
        Command::Verify(a) => verify::run(&ctx, a),
        Command::Recall(a) => recall::run(&ctx, a),
        Command::Link(a) => link::link(&ctx, a),
        Command::Unlink { name } => link::unlink(&ctx, &name),
        Command::Links => link::list(&ctx),
        Command::Promote(a) => promote::run(&ctx, a),
        Command::Eval(a) => eval::run(&ctx, a),
        Command::Index(c) => index::run(&ctx, c),
        Command::Doctor => doctor::run(&ctx),
        Command::Hooks(c) => hooks::run(&ctx, c),
        Command::Resolve => hooks::resolve(&ctx),
        Command::Checkpoint(a) => checkpoint::run(&ctx, a),
        Command::Setup(a) => setup::run(&ctx, a),
        Command::Migrate(a) => migrate::run(&ctx, a),
        Command::Model(c) => model::run(&ctx, c),
        Command::Cache(c) => cache::run(&ctx, c),
        Command::Completions { shell } => completions::completions(&ctx, shell),
        Command::Man { dir } => completions::man(&ctx, dir.as_deref()),
        Command::Hook(a) => hook::run(&ctx, a),
        Command::Mcp => crate::mcp::serve(ctx.repo.clone()),
        Command::MergeDriver(a) => merge_driver::run(a),
    }
}

/// A usage error from the library with the CLI's word on where else the input can come from
/// (`--file`, a template in `$EDITOR`); any other error as it is.
pub fn usage_hint(e: anyhow::Error, hint: &str) -> anyhow::Error {
    match crate::error::kind(&e) {
        Some(crate::error::Error::Usage(why)) => {
            crate::error::Error::usage(format!("{why} ({hint})")).into()
        }
        _ => e,
    }
}

/// Read a file's text, or stdin for `-`, with errors that name it. An input the user named
/// that cannot be read is a usage error (exit 2). Bounded (`fsio::MAX_INPUT_BYTES`): `--file
/// /dev/zero` is refused instead of read without end. A FIFO (`--file <(jq …)`) is fine: the
/// user named it.
pub fn read_input(path: &std::path::Path) -> Result<String> {
    use crate::error::Error;
    use crate::store::fsio::{MAX_INPUT_BYTES, read_bounded};
    let (name, bytes) = if path.as_os_str() == "-" {
        let p = std::path::Path::new("<stdin>");
        (p, read_bounded(std::io::stdin().lock(), p, MAX_INPUT_BYTES))
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::usage(format!("could not read {}: {e}", path.display())))?;
        (path, read_bounded(file, path, MAX_INPUT_BYTES))
    };
    let bytes = bytes.map_err(|e| Error::usage(format!("{e:#}")))?;
    crate::store::fsio::decode(name, bytes).map_err(|e| Error::usage(format!("{e:#}")).into())
}

/// Parse `--file` JSON that must be one object of type `T`. The wrong shape (an array, a
/// string, a number) is named as such, with the keys expected; errors carry file:line:col.
pub fn parse_json_object<T: serde::de::DeserializeOwned>(
    name: &str,
    text: &str,
    what: &str,
    keys: &str,
) -> Result<T> {
    use crate::error::Error;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::usage(format!(
            "{name}:{}:{}: not valid JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let shape = match &value {
        serde_json::Value::Object(_) => None,
        serde_json::Value::Array(_) => Some("an array"),
        serde_json::Value::String(_) => Some("a string"),
        serde_json::Value::Number(_) => Some("a number"),
        serde_json::Value::Bool(_) => Some("a boolean"),
        serde_json::Value::Null => Some("null"),
    };
    if let Some(shape) = shape {
        return Err(Error::usage(format!(
            "{name}:1:1: expected {what} as one JSON object with the keys {keys}; got {shape}"
        ))
        .into());
    }
    if text.contains("\\u0000") {
        return Err(Error::usage(format!(
            "{name}: a value holds a NUL byte, which memory files cannot carry"
        ))
        .into());
    }
    serde_json::from_value(value)
        .map_err(|e| Error::usage(format!("{name}: not {what}: {e} (keys: {keys})")).into())
}
