//! One file per command; this module dispatches and holds what they share: where output goes.

mod checkpoint;
mod context;
mod decide;
mod doctor;
mod hooks;
mod index;
mod init;
mod log;
mod merge_driver;
mod outcome;
mod prior;
mod recall;
mod resume;
mod session;
mod snapshot;
mod show;
mod state;
mod status;
mod verify;

use crate::cli::{Cli, Command};
use crate::memory::Memory;
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
        Memory::open(self.repo.as_deref())
    }

    /// A note or warning for a person, on stderr; silenced by -q.
    pub fn note(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("zo: {}", msg.as_ref());
        }
    }

    /// Write the command's output to stdout in one go.
    pub fn print(&self, text: &str) -> Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// The `--json` document.
    pub fn print_json(&self, value: &serde_json::Value) -> Result<()> {
        let mut s = serde_json::to_string_pretty(value)?;
        s.push('\n');
        self.print(&s)
    }
}

pub fn run(cli: Cli) -> Result<()> {
    let ctx = Ctx { repo: cli.repo, json: cli.json, quiet: cli.quiet };
    match cli.command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Status => status::run(&ctx),
        Command::Continue => resume::run(&ctx),
        Command::Context(a) => context::run(&ctx, a),
        Command::Session(c) => session::run(&ctx, c),
        Command::Snapshot(a) => snapshot::run(&ctx, a),
        Command::State(c) => state::run(&ctx, c),
        Command::Decide(a) => decide::run(&ctx, a),
        Command::Outcome(a) => outcome::run(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Show(a) => show::run(&ctx, a),
        Command::Prior(c) => prior::run(&ctx, c),
        Command::Verify(a) => verify::run(&ctx, a),
        Command::Recall(a) => recall::run(&ctx, a),
        Command::Index(c) => index::run(&ctx, c),
        Command::Doctor => doctor::run(&ctx),
        Command::Hooks(c) => hooks::run(&ctx, c),
        Command::Checkpoint(a) => checkpoint::run(&ctx, a),
        Command::MergeDriver(a) => merge_driver::run(a),
    }
}

/// Read a file's text, or stdin for `-`, with errors that name it.
pub fn read_input(path: &std::path::Path) -> Result<String> {
    use anyhow::Context;
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("could not read stdin")?;
        crate::fsio::decode(std::path::Path::new("<stdin>"), bytes)
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
        crate::fsio::decode(path, bytes)
    }
}
