//! What the commands compute, as plain `Serialize` reports (the `--json` shapes). The CLI
//! (`cmd/`) and the MCP server (`mcp/`) only render them, as cargo's `commands/` render its
//! `ops/`. Writes go through `Memory`; reads of the index through `recall` and `index`.

pub mod doctor;
pub mod entries;
pub mod status;
pub mod verify;

pub use doctor::{DoctorReport, doctor};
pub use entries::*;
pub use status::*;
pub use verify::{VerifyReport, verify};
