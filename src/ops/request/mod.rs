//! One request per operation both front-ends offer (cargo's `ops`: the CLI's `cmd/` and the
//! MCP server's `mcp/` only translate). A request is a plain struct: the MCP server decodes a
//! tool's JSON arguments straight into it and advertises its JSON Schema (derived from the same
//! type by `schemars`, so what a tool accepts and what it says it accepts cannot drift); the CLI
//! fills it from clap's arguments. `run` validates (usage errors, exit 2, one wording for both),
//! applies the defaults from the memory's settings and the policy (as-of widening, which
//! session record a start ends), and returns a `Report`: the `--json` document and the text
//! both front-ends show.
//!
//! - `recall` — `Recall`; `context` — `Context` (the bundle) and `SessionStart`.
//! - `write` — `Decide`, `Outcome`, `Confirm`, `Forget`, `PriorAdd`, `SessionEnd`.
//! - `facts` — `FactGet`, `FactSet`, `FactList`.
//! - `read` — `Show`, `Log`, `History`, `Status`, `Stale`.
//!
//! How to add an operation: a struct deriving `Deserialize` (deny unknown fields) and
//! `JsonSchema`, a doc comment on each field (the tool's parameter description), fields only the
//! command line may set marked `#[serde(skip)]`; `impl Operation` with its name, one-line
//! description and hints; a report implementing `Report`. Then one line in `mcp/tools.rs`'s
//! list and a translator in `cmd/`.

pub mod context;
pub mod facts;
pub mod read;
pub mod recall;
pub mod write;

use crate::search::index::Filter;
use crate::search::recall::{Mode, Recalled, Recaller};
use crate::store::asof::AsOf;
use crate::store::memory::Memory;
use anyhow::Result;
use serde::Serialize;

/// How an operation searches: the one-shot path (the model loads beside the index refresh; the
/// CLI, one process per question) or a server's kept model (`Recaller`).
pub enum Searcher<'a> {
    OneShot,
    Kept(&'a mut Recaller),
}

impl Searcher<'_> {
    /// The same searcher for a nested request (a linked memory's).
    pub fn reborrow(&mut self) -> Searcher<'_> {
        match self {
            Searcher::OneShot => Searcher::OneShot,
            Searcher::Kept(r) => Searcher::Kept(r),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn recall_with(
        &mut self,
        memory: &Memory,
        query: &str,
        also: &[String],
        k: usize,
        filter: &Filter,
        mode: Mode,
        note: &dyn Fn(&str),
    ) -> Result<Recalled> {
        match self {
            Searcher::OneShot => {
                crate::search::recall::recall_with(memory, query, also, k, filter, mode, note)
            }
            Searcher::Kept(r) => r.recall_with(memory, query, also, k, filter, mode, note),
        }
    }

    /// `recall_with` over several memories (`search::recall::recall_across`): one answer per
    /// memory; the first memory's error is the call's.
    #[allow(clippy::too_many_arguments)]
    pub fn recall_across(
        &mut self,
        memories: &[&Memory],
        query: &str,
        also: &[String],
        k: usize,
        filter: &Filter,
        mode: Mode,
        note: &dyn Fn(&str),
    ) -> Result<Vec<Result<Recalled>>> {
        match self {
            Searcher::OneShot => {
                crate::search::recall::recall_across(memories, query, also, k, filter, mode, note)
            }
            Searcher::Kept(r) => crate::search::recall::each_memory(memories, note, |m, note| {
                r.recall_with(m, query, also, k, filter, mode, note)
            }),
        }
    }
}

/// What an operation runs against: the memory, how to search it, and where its notes go (the
/// CLI's stderr; the text of an MCP result).
pub struct Env<'a> {
    pub memory: &'a Memory,
    pub search: Searcher<'a>,
    pub note: &'a dyn Fn(&str),
    /// Who a session record names when the caller does not say (`mcp` for the server).
    pub agent: Option<&'static str>,
}

/// What a client may assume of a tool (MCP's tool annotations).
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    /// It changes nothing.
    pub read_only: bool,
    /// It erases or rewrites what was there (only meaningful when not read-only).
    pub destructive: bool,
    /// Calling it twice with the same arguments does no more than once.
    pub idempotent: bool,
}

/// Reads: change nothing (the index they refresh is derived).
pub const READS: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
};
/// Appends: each call adds an entry.
pub const APPENDS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
};

/// An operation: decoded from a tool's arguments or built from the command line, run against a
/// memory, answered with a report.
pub trait Operation: serde::de::DeserializeOwned + schemars::JsonSchema {
    /// The MCP tool's name.
    const NAME: &'static str;
    /// When to call it, in one or two sentences (the tool's description).
    const ABOUT: &'static str;
    const HINTS: Hints;
    /// Fields the request refuses to go without although its type has a default for them (a
    /// `--file` JSON may leave them to flags): the schema lists them as required too.
    const REQUIRED: &'static [&'static str] = &[];
    type Report: Report;
    fn run(self, env: &mut Env) -> Result<Self::Report>;
}

/// An operation's answer: its JSON (`Serialize`), its text, and notes beside it.
pub trait Report: Serialize {
    /// The text a person or an agent reads (the CLI prints it unless the command prints IDs for
    /// scripts; the MCP server returns it).
    fn text(&self) -> String;
    /// Lines said beside the answer: the CLI's stderr notes, appended to an MCP result.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Entries the report shows on purpose beyond those its JSON marks (`store::shown`): the
    /// gate keeps them (the bundle's approved entries) instead of withholding them.
    fn vouched(&self) -> Vec<crate::store::shown::Vouch> {
        Vec::new()
    }
    /// Whether the notes come before the text where both are shown together (recall's "not in
    /// memory" must be read before the nearest entries).
    fn notes_first(&self) -> bool {
        false
    }
    /// The shape of its JSON where an agent acts on a field (recall's `answered`): MCP's
    /// `outputSchema`. The other reports' JSON is there all the same, but every tool's shape
    /// would take `tools/list` past 8 KB, paid on each session, for fields the text says.
    fn shape() -> Option<schemars::Schema>
    where
        Self: Sized,
    {
        None
    }
}

/// A report's schema as it is serialized: a field skipped when empty is not required.
pub fn shape_of<R: schemars::JsonSchema>() -> Option<schemars::Schema> {
    Some(
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<R>(),
    )
}

/// The linked memory `name` names (`--memory NAME`, `NAME:ID`), opened; a name that is not
/// linked is a usage error that lists those that are.
pub fn open_link(links: &crate::store::links::Links, name: &str) -> Result<(String, Memory)> {
    let Some(link) = links.find(name) else {
        let known: Vec<&str> = links.links.iter().map(|l| l.name.as_str()).collect();
        let known = if known.is_empty() {
            "no memory is linked: `zo link PATH --name NAME`".to_string()
        } else {
            format!("linked: {}", known.join(", "))
        };
        return Err(crate::error::Error::usage(format!(
            "no linked memory {:?} ({known})",
            crate::store::gate::visible(name)
        ))
        .into());
    };
    Ok((link.name.clone(), crate::store::links::open(link)?))
}

/// `as_of` as every operation reads it: a date, an RFC 3339 time or a commit.
pub fn as_of(memory: &Memory, given: Option<&str>) -> Result<Option<AsOf>> {
    given.map(|s| AsOf::parse(memory, s)).transpose()
}
