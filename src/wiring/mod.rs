//! Wiring: what zo writes outside its memory so git and coding agents call it.
//!
//! - `hooks` — the clone's and the machine's git wiring: the merge driver command, where the
//!   routing lives (`.zo/.gitattributes`) and whether it is committed, local and global
//!   registration, the git hook blocks.
//! - `agents` — wiring for coding agents (`init --agent claude|codex|cursor|generic [--remove]`):
//!   the marked CLAUDE.md / AGENTS.md block, Claude Code's, Codex's and Cursor's hooks and MCP
//!   files, `/zo-recall`. What those hooks run is the CLI's `zo hook` (`cmd/hook.rs`: it reads
//!   the event on stdin); git's hooks run `zo hooks` (`cmd/hooks.rs`) over `hooks` here.
//!
//! Invariants: every change is merged with what is there, marked as zo's, idempotent and
//! removable; the text written comes from `templates/`.

pub mod agents;
pub mod hooks;
