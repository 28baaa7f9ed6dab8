//! The memory's lifecycle over time: what a session starts with and leaves behind, what ages
//! and what is taken back.
//!
//! - `init` — a memory created where it belongs (`zo init`: templates, git wiring, an agent's
//!   wiring) and the older layout migrated into `.zo/memory/` (`zo migrate`).
//! - `record` — the open-session record: its baseline, what zo's writers wrote, progress saved
//!   before a compaction, the once-per-session stop reminder.
//! - `session` — `start` leaves the open-session record, `end` (its baseline: the open record, else
//!   the last session file) and the repair of files an older merge filled with two sessions.
//! - `context` — the token-budgeted bundle an agent starts with (and, for a task, recall).
//! - `snapshot` — phase snapshots of STATE and the recent decisions.
//! - `stale` — active decisions whose `Paths` changed since their `Commit` (`stale`,
//!   `stale_ids` for status, recall hits and the bundle; no git read when no decision names paths).
//! - `contradictions` — active decisions on one subject with different choices (`verify`, the
//!   merge driver; `cached` for status and the bundle).
//! - `forget` — `Memory::forget`: an entry replaced by its tombstone under the lock, the index purged, the
//!   history plan, and the erasures `verify --history` accepts.
//!
//! Invariants: every file is written through `store` (lock, gate, atomic write); a forgotten
//! entry leaves exactly `format::tombstone` in place, which verify compares against.

pub mod context;
pub mod contradictions;
pub mod forget;
pub mod init;
pub mod record;
pub mod session;
pub mod snapshot;
pub mod stale;
