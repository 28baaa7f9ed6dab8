//! Wiring zo into agent clients (`zo init --agent NAME [--remove]`) and the Claude Code plugin
//! in this repository: what several agents share, what `--remove` takes out and says, and a
//! plugin manifest that Claude Code loads.

mod util;
use serde_json::Value;
use util::Repo;

fn list(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Cursor and Codex share AGENTS.md: removing Cursor deleted the block Codex still relied on.
#[test]
fn removing_cursor_keeps_the_agents_md_block_codex_still_uses() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "cursor"]);
    r.ok(&["init", "--agent", "codex"]);
    let out = r.ok(&["init", "--agent", "cursor", "--remove"]);
    let md = r.read("AGENTS.md");
    assert!(
        md.contains("<!-- zo:begin") && md.contains("zo recall '"),
        "{md}"
    );
    assert!(
        md.contains("--agent codex`") && !md.contains("cursor"),
        "the block names who still uses it: {md}"
    );
    assert!(
        out.contains("kept AGENTS.md") && out.contains("codex"),
        "{out}"
    );
    assert!(
        !r.path().join(".cursor").exists(),
        "no empty .cursor/ left behind"
    );
    assert!(r.path().join(".codex/config.toml").is_file());
    // The last agent takes the block with it.
    r.ok(&["init", "--agent", "codex", "--remove"]);
    assert!(!r.path().join("AGENTS.md").exists());
    assert!(!r.path().join(".codex").exists());
}

/// Generic has no file of its own: the block's list is all that says it is wired.
#[test]
fn removing_codex_keeps_the_block_for_a_generic_agent() {
    let r = Repo::init();
    r.write("AGENTS.md", "# Rules\n\nBe kind.\n");
    r.ok(&["init", "--agent", "generic"]);
    r.ok(&["init", "--agent", "codex"]);
    r.ok(&["init", "--agent", "codex", "--remove"]);
    let md = r.read("AGENTS.md");
    assert!(
        md.starts_with("# Rules\n\nBe kind.\n\n<!-- zo:begin") && md.contains("--agent generic`"),
        "{md}"
    );
    r.ok(&["init", "--agent", "generic", "--remove"]);
    assert_eq!(
        r.read("AGENTS.md"),
        "# Rules\n\nBe kind.\n",
        "the person's text stays, byte for byte"
    );
}

/// A block written by an older zo names one agent; the agents whose MCP wiring is still there
/// keep it.
#[test]
fn an_older_block_stays_while_another_agent_is_wired() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "codex"]);
    r.ok(&["init", "--agent", "cursor"]);
    let md = r.read("AGENTS.md");
    let start = md.find("<!-- zo:begin").unwrap();
    let line_end = start + md[start..].find('\n').unwrap();
    let old = "<!-- zo:begin (added by `zo init --agent`; `zo init --agent cursor --remove` takes it out) -->";
    r.write(
        "AGENTS.md",
        &format!("{}{old}{}", &md[..start], &md[line_end..]),
    );
    r.ok(&["init", "--agent", "cursor", "--remove"]);
    assert!(
        r.read("AGENTS.md").contains("<!-- zo:begin"),
        "Codex still relies on it"
    );
}

/// `--remove` reported its deletions as "created".
#[test]
fn remove_says_what_it_removed_in_text_and_json() {
    let r = Repo::init();
    r.write(
        ".mcp.json",
        r#"{"mcpServers": {"other": {"command": "other-server"}}}"#,
    );
    r.ok(&["init", "--agent", "claude"]);
    r.ok(&["init", "--agent", "cursor"]);
    let j = r.json(&["init", "--agent", "cursor", "--remove"]);
    assert_eq!(list(&j["created"]), Vec::<String>::new(), "{j}");
    let removed = list(&j["removed"]);
    for f in [".cursor/mcp.json", "AGENTS.md", ".cursor/"] {
        assert!(removed.contains(&f.to_string()), "{f} not in {removed:?}");
    }
    let out = r.ok(&["init", "--agent", "claude", "--remove"]);
    assert!(!out.contains("created"), "{out}");
    for line in [
        "removed CLAUDE.md",
        "removed .mcp.json (zo's server)",
        "removed .claude/commands/zo-recall.md",
        "removed .claude/settings.json",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    let m: Value = serde_json::from_str(&r.read(".mcp.json")).unwrap();
    assert!(
        m["mcpServers"].get("zo").is_none() && m["mcpServers"]["other"].is_object(),
        "{m}"
    );
    // What was only zo's is gone, directories included; nothing of the person's went.
    assert!(!r.path().join(".claude").exists());
    // Nothing left to remove is said, not an error.
    let again = r.json(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(list(&again["removed"]), Vec::<String>::new());
    assert!(
        r.ok(&["init", "--agent", "claude", "--remove"])
            .contains("no wiring of zo for claude to remove")
    );
}

/// A directory zo wrote into that holds the person's files too is left, with their files.
#[test]
fn remove_keeps_a_directory_that_holds_other_files() {
    let r = Repo::init();
    r.write(".cursor/rules.md", "mine\n");
    r.write(".claude/settings.json", r#"{"model": "opus"}"#);
    r.ok(&["init", "--agent", "cursor"]);
    r.ok(&["init", "--agent", "claude"]);
    r.ok(&["init", "--agent", "cursor", "--remove"]);
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(r.read(".cursor/rules.md"), "mine\n");
    assert!(!r.path().join(".cursor/mcp.json").exists());
    let s: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(s, serde_json::json!({"model": "opus"}));
    assert!(!r.path().join(".claude/commands").exists());
}

/// Adding an agent rewrites the block where it stands: text a person put after it stays after it.
#[test]
fn adding_an_agent_keeps_the_block_in_place() {
    let r = Repo::init();
    r.write("AGENTS.md", "# Top\n");
    r.ok(&["init", "--agent", "codex"]);
    let with_tail = format!("{}\n## Below, by hand\n", r.read("AGENTS.md"));
    r.write("AGENTS.md", &with_tail);
    r.ok(&["init", "--agent", "cursor"]);
    let md = r.read("AGENTS.md");
    assert!(
        md.starts_with("# Top\n\n<!-- zo:begin (added by `zo init --agent codex|cursor`"),
        "{md}"
    );
    assert!(
        md.ends_with("<!-- zo:end -->\n\n## Below, by hand\n"),
        "{md}"
    );
    // Idempotent.
    r.ok(&["init", "--agent", "cursor"]);
    assert_eq!(r.read("AGENTS.md"), md);
}

/// The plugin manifest named `./hooks/hooks.json`, which Claude Code loads by convention: it
/// refused the plugin ("Duplicate hooks file detected") and dropped its hooks.
#[test]
fn the_plugin_manifest_does_not_name_the_conventional_hooks_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("claude-plugin/.claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    let hooks = &plugin["hooks"];
    assert!(
        hooks.is_null() || !hooks.to_string().contains("hooks/hooks.json"),
        "{plugin}"
    );
    assert!(
        root.join("claude-plugin/hooks/hooks.json").is_file(),
        "the hooks are in the conventional place"
    );
}

/// `/zo-recall`'s frontmatter had an unquoted `: ` in its description: the YAML did not parse
/// (`claude plugin validate` failed) and Claude Code dropped every field of it.
#[test]
fn the_recall_command_frontmatter_is_valid_yaml() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "claude-plugin/commands/zo-recall.md",
        "templates/claude/zo-recall.md",
    ] {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        let front = text
            .strip_prefix("---\n")
            .and_then(|t| t.split_once("\n---\n"))
            .map(|(f, _)| f)
            .expect("frontmatter");
        let v: serde_yaml::Value =
            serde_yaml::from_str(front).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(
            v["description"]
                .as_str()
                .is_some_and(|d| d.contains("(zo):")),
            "{f}: {v:?}"
        );
        assert_eq!(
            v["allowed-tools"].as_str(),
            Some("Bash(zo recall:*)"),
            "{f}"
        );
    }
}

/// An older zo's `/zo-recall` (the unquoted frontmatter) is updated by `init` and still removed
/// by `--remove`; a person's own edit of it is left alone.
#[test]
fn an_older_recall_command_is_updated_and_removable() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "claude"]);
    let current = r.read(".claude/commands/zo-recall.md");
    let older = current
        .replacen("description: \"", "description: ", 1)
        .replacen("question\"\n", "question\n", 1);
    assert_ne!(older, current);
    r.write(".claude/commands/zo-recall.md", &older);
    r.ok(&["init", "--agent", "claude"]);
    assert_eq!(r.read(".claude/commands/zo-recall.md"), current);
    r.write(".claude/commands/zo-recall.md", &older);
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert!(!r.path().join(".claude/commands/zo-recall.md").exists());
    r.ok(&["init", "--agent", "claude"]);
    r.write(".claude/commands/zo-recall.md", "my own\n");
    r.ok(&["init", "--agent", "claude"]);
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert_eq!(r.read(".claude/commands/zo-recall.md"), "my own\n");
}

/// `/zo-recall` as written before it taught `--also` is still zo's: `init` brings it up to date
/// (else agents set up earlier would never learn to pass phrasings) and `--remove` removes it.
#[test]
fn the_recall_command_from_before_phrasings_is_updated() {
    let r = Repo::init();
    r.ok(&["init", "--agent", "claude"]);
    let current = r.read(".claude/commands/zo-recall.md");
    assert!(current.contains("--also"), "{current}");
    r.write(
        ".claude/commands/zo-recall.md",
        zo::wiring::agents::RECALL_BEFORE_ALSO,
    );
    r.ok(&["init", "--agent", "claude"]);
    assert_eq!(r.read(".claude/commands/zo-recall.md"), current);
    r.write(
        ".claude/commands/zo-recall.md",
        zo::wiring::agents::RECALL_BEFORE_ALSO,
    );
    r.ok(&["init", "--agent", "claude", "--remove"]);
    assert!(!r.path().join(".claude/commands/zo-recall.md").exists());
}

/// Many projects give every agent one file with `ln -s AGENTS.md CLAUDE.md`. `init --agent
/// claude` refused that link (as it refuses every link), so Claude Code could not be wired at
/// all: now the block goes into AGENTS.md, shared, and the link stays a link. A link anywhere
/// else is still refused, with nothing written.
#[test]
fn a_claude_md_linked_to_agents_md_was_refused() {
    let r = Repo::init();
    r.write("AGENTS.md", "# Rules\n\nBe kind.\n");
    std::os::unix::fs::symlink("AGENTS.md", r.path().join("CLAUDE.md")).unwrap();
    r.ok(&["init", "--agent", "claude"]);
    assert!(
        std::fs::symlink_metadata(r.path().join("CLAUDE.md"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let md = r.read("AGENTS.md");
    assert!(
        md.starts_with("# Rules\n\nBe kind.\n\n<!-- zo:begin") && md.contains("--agent claude`"),
        "{md}"
    );
    assert!(
        r.path().join(".claude/settings.json").is_file() && r.path().join(".mcp.json").is_file()
    );
    // Codex shares it; removing Claude keeps it for Codex; the last takes it away.
    r.ok(&["init", "--agent", "codex"]);
    assert!(
        r.read("AGENTS.md").contains("--agent claude|codex`"),
        "{}",
        r.read("AGENTS.md")
    );
    r.ok(&["init", "--agent", "claude", "--remove"]);
    let md = r.read("AGENTS.md");
    assert!(
        md.contains("--agent codex`") && !md.contains("claude"),
        "{md}"
    );
    r.ok(&["init", "--agent", "codex", "--remove"]);
    assert_eq!(
        r.read("AGENTS.md"),
        "# Rules\n\nBe kind.\n",
        "the person's text stays, byte for byte"
    );
    assert!(
        std::fs::symlink_metadata(r.path().join("CLAUDE.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A CLAUDE.md linked elsewhere (even to a file in the repository) is refused.
    let r = Repo::init();
    r.write("docs/agents.md", "# Rules\n");
    std::os::unix::fs::symlink("docs/agents.md", r.path().join("CLAUDE.md")).unwrap();
    let out = r.run(&["init", "--agent", "claude"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("CLAUDE.md") && out.stderr.contains("symbolic link"),
        "{}",
        out.stderr
    );
    assert_eq!(r.read("docs/agents.md"), "# Rules\n");
    assert!(
        !r.path().join(".claude").exists() && !r.path().join(".mcp.json").exists(),
        "nothing written"
    );
}

/// The `/zo-recall` command was read leniently and written last: a link at `.claude/commands`
/// (or at the command, or a file where the directory goes) was refused only after CLAUDE.md,
/// `.mcp.json` and `.claude/settings.json` had been written. Now nothing is written.
#[test]
fn a_link_at_claude_commands_was_refused_after_other_files_were_written() {
    let elsewhere = tempfile::tempdir().unwrap();
    let setups: [&dyn Fn(&Repo); 3] = [
        &|r| {
            std::os::unix::fs::symlink(elsewhere.path(), r.path().join(".claude/commands")).unwrap()
        },
        &|r| {
            std::fs::create_dir(r.path().join(".claude/commands")).unwrap();
            std::os::unix::fs::symlink(
                elsewhere.path().join("x.md"),
                r.path().join(".claude/commands/zo-recall.md"),
            )
            .unwrap();
        },
        &|r| std::fs::write(r.path().join(".claude/commands"), "a file").unwrap(),
    ];
    for (i, setup) in setups.iter().enumerate() {
        let r = Repo::init();
        std::fs::create_dir(r.path().join(".claude")).unwrap();
        setup(&r);
        let out = r.run(&["init", "--agent", "claude"]);
        assert_eq!(out.code, 1, "case {i}: {}", out.stderr);
        for f in ["CLAUDE.md", ".mcp.json", ".claude/settings.json"] {
            assert!(
                !r.path().join(f).exists(),
                "case {i}: {f} was written before the refusal"
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );
}
