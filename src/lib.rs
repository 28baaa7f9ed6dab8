//! zo: a project's memory in its own git repository. See ARCHITECTURE.md for the map.

// Nested `if let` reads as "find it, then check it" throughout; let chains are not clearer.
#![allow(clippy::collapsible_if)]

pub mod alloc;
pub mod cli;
pub mod cmd;
pub mod error;
#[cfg(feature = "test-support")]
pub mod fixtures;
pub mod format;
pub mod git;
pub mod lifecycle;
pub mod mcp;
pub mod named;
pub mod ops;
pub mod progress;
#[cfg(feature = "test-support")]
pub mod props;
pub mod search;
pub mod site;
pub mod store;
pub mod templates;
pub mod time;
pub mod wiring;
