//! The library's typed errors: what went wrong, never how to exit. `main` maps each kind to
//! the exit code SPEC §3 promises. Everything else is `anyhow`, with context added where the
//! failure happens so the user sees what and where (file and line where there is one).

/// Exit codes are part of the contract (SPEC §3): scripts and hooks branch on them.
pub mod code {
    pub const OK: i32 = 0;
    pub const FAILURE: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const NO_MEMORY: i32 = 3;
    pub const VERIFY_FAILED: i32 = 4;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags, or input the user named that cannot be used (a `--file` that is missing or
    /// not the JSON expected).
    #[error("{0}")]
    Usage(String),
    /// No memory where zo looked.
    #[error("{0}")]
    NoMemory(String),
    /// `zo verify` found problems (each already reported with its file and line).
    #[error("{0}")]
    VerifyFailed(String),
    /// A check or command failed as a whole, after reporting why.
    #[error("{0}")]
    Failed(String),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }
}

/// The first typed error in a chain, if any (`main` decides the exit code from it).
pub fn kind(err: &anyhow::Error) -> Option<&Error> {
    err.chain().find_map(|e| e.downcast_ref::<Error>())
}
