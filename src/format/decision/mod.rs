//! DECISION_LOG.md: append-only decisions (SPEC §2). The model lives here: an entry as read
//! (`Decision`) and the whole log (`DecisionLog`), declared in this file so that the modules
//! below, which each hold one concept of it, share their private fields.
//!
//! - `entry` — one entry as read: its heading, its key fields, what its kind makes it.
//! - `log` — the whole log: parsing, the links between entries (supersession, outcomes,
//!   confirmations), lookups and statuses.
//! - `restore` — a log restored from its derived summary instead of parsed (`Source`, `Links`).
//! - `render` — what is written: `NewDecision` and the tombstone `zo forget` leaves.
//! - `scan` — the quick walk over the log and the checks `decide` makes without a parse.

use super::fields::{self, Body};
use super::{Span, Text};
use std::cell::OnceCell;
use std::collections::HashMap;

mod entry;
mod log;
mod render;
mod restore;
mod scan;
#[cfg(test)]
mod tests;

pub use entry::{derived_id, is_heading, referenced_ids};
use entry::{heading_text, parse_full};
pub use log::{FindError, names_paths, pair, supersede_cycles};
pub use render::{NewDecision, tombstone};
pub use restore::{Links, Source};
pub use scan::{last_separated, may_hold_title, mentions};

/// One decision entry as read. The fields every listing needs are read eagerly by a cheap
/// scan; the full field parse (`DecisionLog::body`) happens only for entries that are shown,
/// checked or compared, so a 10,000-entry log lists in milliseconds.
#[derive(Debug, Clone)]
pub struct Decision {
    pub span: Span,
    pub id: String,
    /// True when the entry has no `**ID:**` and `id` was derived from its text.
    pub id_derived: bool,
    pub timestamp: String,
    pub title: String,
    pub kind: String,
    pub supersedes: Option<String>,
    pub refs: Option<String>,
    /// The writer's confidence (`**Confidence:**`), when given.
    pub confidence: Option<f64>,
    /// Whether a `---` separator closed the entry.
    pub separated: bool,
    /// Boxed: most entries are never parsed in full, and 48 bytes less per entry is half a
    /// megabyte less to allocate and fault in for a 10,000-entry log on the hook path.
    body: OnceCell<Box<Body>>,
    /// The entry's text, read on first use, for a log restored from its summary (`Source`).
    piece: OnceCell<String>,
}

/// The whole log: the text, its entries, and the relations between them.
#[derive(Debug, Clone, Default)]
pub struct DecisionLog {
    pub text: Text,
    pub entries: Vec<Decision>,
    /// Entry by exact ID (the first of duplicates). Built by `link`; for a log restored with
    /// its links, only when something looks an ID up (the hook path mostly does not).
    by_id: OnceCell<HashMap<String, usize>>,
    superseded_by: HashMap<usize, usize>,
    /// Supersede cycles written by hand (A supersedes B supersedes A), each in chain order.
    /// Their members are not read as superseded: otherwise all of them would vanish.
    cycles: Vec<Vec<usize>>,
    /// Outcome entries for a decision, in file order.
    outcomes: HashMap<usize, Vec<usize>>,
    /// Decisions a CONFIRM entry refers to.
    confirmed: std::collections::HashSet<usize>,
    /// The promotion threshold (None: `DEFAULT_THRESHOLD`).
    threshold: Option<f64>,
    /// Set when the log was restored from its summary: `text` is then empty and each entry's
    /// text is read from here on first use.
    source: Option<std::sync::Arc<dyn Source>>,
    /// For a restored log: whether some line starts with `**Paths:**` (`may_name_paths`).
    names_paths: bool,
}

/// Decision types that propose rather than decide: provisional until confirmed.
pub const PROPOSING_KINDS: [&str; 2] = ["PROPOSAL", "IDEA"];

/// The decision types zo knows (SPEC §2); a project adds its own with `decision_types:` in
/// `.zo/config.yaml`, and a type its log already uses stays usable.
pub const TYPES: [&str; 20] = [
    "DECISION",
    "ARCHITECTURE",
    "DESIGN",
    "FEATURE",
    "BUGFIX",
    "PROCESS",
    "TOOLING",
    "TESTING",
    "DOCUMENTATION",
    "SECURITY",
    "PERFORMANCE",
    "DEPENDENCY",
    "CONVENTION",
    "SCOPE",
    "UX",
    "GATE",
    "MILESTONE",
    "ROADMAP",
    "PROPOSAL",
    "IDEA",
];

/// The promotion threshold when config does not set one.
pub const DEFAULT_THRESHOLD: f64 = 0.7;
