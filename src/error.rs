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

/// The file and line a message names first, as zo writes them (`path:12: what`, or `path: what`
/// for a whole file): for `--json` errors. None where it names none.
pub fn place(message: &str) -> (Option<String>, Option<usize>) {
    for (i, _) in message.match_indices(':') {
        let path = &message[..i];
        // A place is the message's first word: no spaces before it, and a file's look.
        if path.is_empty() || path.contains(' ') || !(path.contains('/') || path.contains('.')) {
            break;
        }
        let rest = &message[i + 1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with(':') {
            return (Some(path.to_string()), digits.parse().ok());
        }
        if rest.starts_with(' ') {
            return (Some(path.to_string()), None);
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_names_its_place() {
        assert_eq!(
            super::place(".zo/memory/DECISION_LOG.md:12: bad"),
            (Some(".zo/memory/DECISION_LOG.md".into()), Some(12))
        );
        assert_eq!(
            super::place(".zo/config.yaml: invalid"),
            (Some(".zo/config.yaml".into()), None)
        );
        assert_eq!(super::place("no decision D-1: not found"), (None, None));
        assert_eq!(super::place("refused: x"), (None, None));
    }
}
