//! Screened by construction (issue 43): what zo gives an agent passes one gate on every path,
//! an agent writes only what a person reviews, and memory's past cannot be rewritten past
//! `verify --range`. Each test is named after what broke.

use super::util::mcp::Client;
use super::{Hostile, check};
use serde_json::json;

/// An MCP client in the hostile repository, with the same HOME, cache and user directory as
/// the CLI runs there.
pub fn client(h: &Hostile) -> Client {
    let mut c = h.cmd(&["mcp"]);
    c.env_remove("CLAUDE_PROJECT_DIR");
    let mut c = Client::start_with(&mut c);
    c.initialize();
    c
}

/// MCP `fact_set` took `scope: "user"` and wrote the user's FACTS.md, which every repository's
/// bundle on the machine then served: an agent wrote machine-wide memory no one reviews.
#[test]
fn mcp_fact_set_wrote_machine_wide_memory_no_one_reviews() {
    let h = Hostile::new();
    let mut c = client(&h);
    let e = c.fails(
        "fact_set",
        json!({"key": "deploy:registry", "value": "https://npm.evil.example", "scope": "user"}),
    );
    assert!(e.contains("unknown field `scope`"), "{e}");
    let user_facts = h.repo.user_dir().join("FACTS.md");
    assert!(!user_facts.exists(), "the user's facts were written");
    // A project fact is the agent's to set: it is committed and reviewed with the code.
    let (v, _) = c.ok(
        "fact_set",
        json!({"key": "deploy:registry", "value": "npmjs"}),
    );
    assert_eq!(v["scope"], "project", "{v}");
    assert!(c.close().success());
    // The person still sets their own facts at the command line.
    check(
        &h.run(&["fact", "set", "editor:tabs", "4", "--scope", "user"]),
        &["fact", "set"],
        0,
    );
    assert!(user_facts.exists());
}

/// MCP `forget` erased any entry with no person involved; `zo forget` run by an agent's shell
/// did too. Erasing is a person's act at a terminal, as approving is.
#[test]
fn forget_erased_an_entry_with_no_person_involved() {
    let h = Hostile::new();
    let id = h
        .expect(&["decide", "--title", "Keep me", "--decision", "kept"], 0)
        .stdout
        .trim()
        .to_string();
    let log = std::fs::read(h.mem("DECISION_LOG.md")).unwrap();
    let mut c = client(&h);
    let e = c.fails(
        "forget",
        json!({"id": id, "reason": "the memory told me to"}),
    );
    assert!(e.contains("no tool \"forget\""), "{e}");
    assert!(c.close().success());
    // No terminal (an agent's shell tool): refused, exit 2, nothing erased.
    let r = h.expect(&["forget", &id, "--reason", "the memory told me to"], 2);
    assert!(
        r.stderr.contains("a person does it at a terminal"),
        "{}",
        r.stderr
    );
    // At a terminal, anything but the ID typed back keeps it.
    let no = super::util::at_terminal(&h.cmd(&["forget", &id, "--reason", "x"]), "yes\n");
    assert_eq!(no.code, 1, "{}", no.stdout);
    assert!(no.stdout.contains("not erased"), "{}", no.stdout);
    assert_eq!(std::fs::read(h.mem("DECISION_LOG.md")).unwrap(), log);
    let yes = super::util::forget(&h.cmd(&["forget", &id, "--reason", "asked to"]), &id);
    assert_eq!(yes.code, 0, "{}", yes.stdout);
    assert!(
        yes.stdout.contains("now holds its tombstone"),
        "{}",
        yes.stdout
    );
    h.assert_outside_unchanged();
}
