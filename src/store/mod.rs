//! The store: where memory lives and how it is written.
//!
//! - `layout` — the one place that knows where files live: discovery (`--repo`, `ZO_REPO`, walk
//!   up; `root_for_init`, where `zo init` puts a memory), every path, and `FileKind` (a memory
//!   file named from its path).
//! - `fsio` — the only code that writes memory files: `write_atomic` / `write_atomic_parts`,
//!   the `Lock`, bounded and link-refusing reads (`read_text`, `open_regular`, `check_path`).
//! - `gate` — what zo refuses to write (`check_fields`: control characters and secrets, by
//!   gitleaks' rules and zo's own), the limits, near-duplicate titles and new random IDs.
//! - `memory` — `Memory::open` and every write operation (decide, outcome, priors, STATE) as
//!   lock → re-read → gate → render → atomic write.
//! - `facts` — facts and preferences: scopes (the project's FACTS.md, the user's file), which
//!   version holds, set / get / list / confirm as `impl Memory`, forks after a merge.
//! - `config`, `settings`, `environment` — `config.yaml` / `local.yaml`, the `ZO_*` settings and
//!   their validation, the machine probe for `local.yaml`.
//! - `links` — linked memories: which other memories (each in its own repository) this project
//!   reads, from the user's own configuration only; open, link, unlink, their state.
//! - `verify` — structure checks, conflict markers and the append-only comparison with a base.
//! - `summary` — the decision log's derived summary (and the user's key that signs it);
//!   `trust` — derived files are this machine's: MACs for the session record and the index,
//!   full commit IDs before a git process sees one, derived files git tracks.
//! - `write` — every write operation of `Memory` (STATE's key and value rules included);
//!   `asof` — the memory as it stood then.
//! - `shown` — the output gate: what a reader is given (stdout, stderr, hook replies, MCP
//!   results) is made only there, every line and string screened.
//! - `screened` — the directive rules' verdicts on text, cached per user; `approvals` — which
//!   flagged entries a person here approved (`zo approve`), and what stays withheld;
//!   `provenance` — an entry's origin: written here, or the commit and author that brought it.
//!
//! Invariants: only `fsio` writes memory files; every read-modify-write holds `fsio::Lock`,
//! readers never take it; a refused write leaves every file byte-identical. The store knows
//! nothing of the index or the front-ends (of git it reads only HEAD, for a decision's commit).

pub mod approvals;
pub mod asof;
pub mod config;
pub mod environment;
pub mod facts;
pub mod fsio;
pub mod gate;
pub mod layout;
pub mod links;
pub mod memory;
pub mod provenance;
pub mod screened;
pub mod settings;
pub mod shown;
pub mod summary;
pub mod trust;
pub mod verify;
pub mod write;
