//! User-facing text that zo writes into projects, kept as files in `templates/`.

pub const CONFIG: &str = include_str!("../templates/config.yaml");
pub const GITIGNORE: &str = include_str!("../templates/gitignore");
pub const STATE: &str = include_str!("../templates/STATE.md");
pub const DECISION_LOG: &str = include_str!("../templates/DECISION_LOG.md");
pub const PRIORS: &str = include_str!("../templates/PRIORS.md");
pub const CLAUDE_RECALL: &str = include_str!("../templates/claude/recall.md");
/// The Claude Code hook entries zo adds to `.claude/settings.json`, by event.
pub const CLAUDE_HOOKS: &str = include_str!("../templates/claude/hooks.json");
