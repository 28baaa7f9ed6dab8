//! Exit codes and the one error type that carries one. Everything else is `anyhow`, with
//! context added where the failure happens so the user sees what and where.

use std::fmt;

/// Exit codes are part of the contract (SPEC §3): scripts and hooks branch on them.
pub mod code {
    pub const OK: i32 = 0;
    pub const FAILURE: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const NO_MEMORY: i32 = 3;
    pub const VERIFY_FAILED: i32 = 4;
}

/// An error that must end the process with a specific exit code.
#[derive(Debug)]
pub struct Exit {
    pub code: i32,
    pub message: String,
}

impl Exit {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Exit { code, message: message.into() }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Exit::new(code::USAGE, message)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The exit code an error chain asks for (the first `Exit` in it), else 1.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    err.chain()
        .find_map(|e| e.downcast_ref::<Exit>().map(|x| x.code))
        .unwrap_or(code::FAILURE)
}
