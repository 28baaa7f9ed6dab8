//! Reading the wiring back: whether Claude Code's settings already run zo's hooks (so the
//! plugin's step aside), and what `zo doctor` says of each agent wired in the project.

use super::settings::is_zo_command;
use super::{MCP_COMMAND, MCP_FILES};
use crate::store::fsio;
use serde_json::Value;
use std::path::Path;

/// Whether Claude Code settings run zo's own hook for `event` (`SessionStart`, …): the
/// project's `.claude/settings.json` or `.claude/settings.local.json` under any of `dirs`, or the
/// user's `~/.claude/settings.json` under `home`. The plugin's hooks (`zo hook claude --plugin`)
/// then do nothing: Claude Code runs a plugin's hook and a settings file's hook both, even with
/// the same command (it dedupes identical commands only among settings files), so without this
/// a project wired by `zo init --agent claude` would get every hook twice from the plugin. A
/// file that cannot be read or parsed counts as not running zo: the plugin's hook runs.
pub fn settings_run_hook(dirs: &[&Path], home: Option<&Path>, event: &str) -> bool {
    if event.is_empty() {
        return false;
    }
    let project = dirs
        .iter()
        .flat_map(|d| {
            [
                d.join(".claude/settings.json"),
                d.join(".claude/settings.local.json"),
            ]
        })
        .map(|f| (f, false));
    // The user's own file is trusted and often a link (stow, home-manager): followed.
    let files: Vec<(std::path::PathBuf, bool)> = project
        .chain(home.map(|h| (h.join(".claude/settings.json"), true)))
        .collect();
    files.iter().any(|(f, trusted)| {
        // Bounded, and never through a link in a project: its files are a clone's, untrusted.
        let file = if *trusted {
            std::fs::metadata(f)
                .is_ok_and(|m| m.is_file())
                .then(|| std::fs::File::open(f).ok())
                .flatten()
        } else {
            fsio::open_regular(f).ok().flatten()
        };
        let Some(file) = file else { return false };
        let Ok(bytes) = fsio::read_bounded(file, f, 1 << 20) else {
            return false;
        };
        let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
            return false;
        };
        v["hooks"][event].as_array().is_some_and(|groups| {
            groups
                .iter()
                .filter_map(|g| g["hooks"].as_array())
                .flatten()
                .any(|h| {
                    h["command"].as_str().map(str::trim).is_some_and(|c| {
                        // zo on PATH, or by its path (`/opt/bin/zo hook claude`).
                        (is_zo_command(c) || c.contains("/zo hook ") || c.contains("/zo -q hook "))
                            && !c.contains("--plugin")
                    })
                })
        })
    })
}

/// What `zo doctor` says of each agent wired in this project: the file, and whether the `zo`
/// it names runs here. (agent, file, problem or None).
pub fn check(root: &Path) -> Vec<(&'static str, &'static str, Option<String>)> {
    let mut out = Vec::new();
    let on_path = crate::store::environment::on_path(MCP_COMMAND);
    for (agent, file) in MCP_FILES {
        let Ok(text) = fsio::read_string(root.join(file)) else {
            continue;
        };
        let command = if file.ends_with(".toml") {
            text.parse::<toml_edit::DocumentMut>().ok().and_then(|d| {
                d.get("mcp_servers")
                    .and_then(|s| s.get("zo"))
                    .and_then(|z| z.get("command"))
                    .and_then(|c| c.as_str())
                    .map(str::to_string)
            })
        } else {
            // opencode lists the command and its arguments as one array (`mcp.zo.command`).
            serde_json::from_str::<Value>(&text).ok().and_then(|v| {
                let opencode = v["mcp"]["zo"]["command"][0].as_str();
                v["mcpServers"]["zo"]["command"]
                    .as_str()
                    .or(opencode)
                    .map(str::to_string)
            })
        };
        // These files are the agents' own settings, which most projects using the agent have
        // whether or not they use zo: only zo's entry in them is checked.
        let shared = matches!(*agent, "gemini" | "qwen" | "opencode" | "copilot");
        let problem = match command {
            None if shared => continue,
            None => Some(format!(
                "{file} has no zo server; fix: zo init --agent {agent}"
            )),
            Some(c) if c == MCP_COMMAND && on_path.is_none() => Some(format!(
                "{file} runs `zo`, which is not on PATH here; fix: cargo install --locked --path . (or put zo on PATH)"
            )),
            Some(c) if c != MCP_COMMAND && !Path::new(&c).is_file() => {
                Some(format!("{file} runs {c}, which does not exist"))
            }
            Some(_) => None,
        };
        out.push((*agent, *file, problem));
    }
    // The hook files: zo's hooks run `zo` from PATH too.
    for (agent, file, marker, companion) in [
        (
            "claude",
            ".claude/settings.json",
            "zo hook claude",
            ".mcp.json",
        ),
        (
            "cursor",
            ".cursor/hooks.json",
            "hook cursor",
            ".cursor/mcp.json",
        ),
        (
            "codex",
            ".codex/hooks.json",
            "hook codex",
            ".codex/config.toml",
        ),
        (
            "copilot",
            super::COPILOT_HOOKS_FILE,
            "hook copilot",
            ".github/mcp.json",
        ),
    ] {
        let Ok(text) = fsio::read_string(root.join(file)) else {
            continue;
        };
        let wired = text.contains(marker);
        let problem = if !wired {
            Some(format!(
                "{file} has no zo hooks; fix: zo init --agent {agent}"
            ))
        } else if on_path.is_none() {
            Some(format!(
                "{file} hooks run `zo`, which is not on PATH here; fix: cargo install --locked --path ."
            ))
        } else {
            None
        };
        if wired || root.join(companion).exists() {
            out.push((agent, file, problem));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::wire;
    use super::*;

    fn settings(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// The plugin's hook steps aside exactly where a settings file already runs zo's hook for
    /// the same event; everywhere else it is the one that runs.
    #[test]
    fn plugin_hooks_step_aside_only_where_settings_run_zo() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let (p, h) = (project.path(), home.path());
        assert!(
            !settings_run_hook(&[p], Some(h), "SessionStart"),
            "nothing wired: the plugin runs"
        );
        // What `zo init --agent claude` writes.
        wire(p, "claude", false).unwrap();
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        assert!(settings_run_hook(&[p], Some(h), "SessionEnd"));
        assert!(
            !settings_run_hook(&[p], Some(h), "UserPromptSubmit"),
            "an event settings do not run is the plugin's"
        );
        assert!(!settings_run_hook(&[p], Some(h), ""));
        wire(p, "claude", false).unwrap();
        wire(p, "claude", true).unwrap();
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        // The local settings file and the user's count too; a path to zo as well.
        let hook = |cmd: &str| {
            format!(
                r#"{{"hooks": {{"SessionStart": [{{"matcher": "", "hooks": [{{"type": "command", "command": "{cmd}"}}]}}]}}}}"#
            )
        };
        settings(
            p,
            ".claude/settings.local.json",
            &hook("/opt/bin/zo hook claude"),
        );
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        std::fs::remove_file(p.join(".claude/settings.local.json")).unwrap();
        settings(h, ".claude/settings.json", &hook("zo hook claude"));
        assert!(settings_run_hook(&[p], Some(h), "SessionStart"));
        assert!(!settings_run_hook(&[p], None, "SessionStart"));
        // The plugin's own command copied into settings, someone else's hook, broken JSON: the
        // plugin runs.
        settings(h, ".claude/settings.json", &hook("zo hook claude --plugin"));
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        settings(h, ".claude/settings.json", &hook("echo zo hook claude"));
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
        settings(h, ".claude/settings.json", "{ broken");
        assert!(!settings_run_hook(&[p], Some(h), "SessionStart"));
    }
}
