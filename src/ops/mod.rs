//! What the commands compute, as plain `Serialize` reports (the `--json` shapes). The CLI
//! (`cmd/`) and the MCP server (`mcp/`) only render them, as cargo's `commands/` render its
//! `ops/`. Writes go through `Memory`; reads of the index through `recall` and `index`.
//!
//! - `status` — `status()` and index health, one computation for `status`, `doctor` and
//!   `index status`; `doctor` — the checks of `zo doctor`.
//! - `verify` — `verify()`: which bases to check the files against (HEAD; during a merge also
//!   MERGE_HEAD; after a merge commit each parent) and the report.
//! - `entries` — log, show of any entry kind, the write reports (`Decided`, `PriorAdded`, …),
//!   recall and context reports.
//! - `asof` — recall's hits as of a past moment (`zo recall --as-of`).
//! - `history` — `history()`: a decision's whole life (`zo history`); `life()` any entry's,
//!   a prior's or a fact key's (every version) included.
//! - `request` — one request type per operation both front-ends offer (`Recall`, `Decide`,
//!   …): validation, defaults and policy, run into the report both render; the MCP tools'
//!   schemas are derived from these types.
//! - `text` — the text both front-ends show for a report (never in one front-end).
//! - `approve` — `approve()`: a person vouches for an entry the directive rules flag.
//! - `review` — `review()`: the memory entries a range of commits changed, with author and flags
//!   (`zo review`, `zo verify --range`).
//! - `lives` — `all()`: every decision's `history` at once, in one pass (`zo site`).
//! - `links` — `zo links` and what `zo continue` says of the linked memories; `promote` —
//!   `zo promote`: a lesson copied into a linked memory through the confidentiality gate.
//!
//! Invariants: nothing here parses arguments, prints or knows which front-end called it.

pub mod approve;
pub mod asof;
pub mod doctor;
pub mod entries;
pub mod history;
pub mod links;
pub mod lives;
pub mod promote;
pub mod request;
pub mod review;
pub mod status;
pub mod text;
pub mod verify;

pub use doctor::{DoctorReport, doctor};
pub use entries::*;
pub use status::*;
pub use verify::{VerifyReport, verify};
