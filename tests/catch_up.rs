//! Never wait on embedding where a person or an agent waits (issue 24): `zo continue` in a fresh
//! clone with a cold vector cache embeds nothing and says how semantic recall catches up; lexical
//! recall works at once; the next semantic recall fills in; a SessionStart hook embeds nothing;
//! an MCP recall with entries waiting answers without embedding them and the server catches up
//! in the background; `index rebuild` keeps the old index answering until the swap.
//!
//! Texts sent to the model are counted by the machine's vector cache: every vector the model
//! computes goes into it (`zo cache status`'s `entries`), and each test has a cache of its own.

mod util;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use util::mcp::Client;
use util::{Machine, Repo, Run, git_in};

/// A fresh clone of the example memory (20 entries to embed), never indexed on this machine.
fn fresh_clone() -> (Repo, tempfile::TempDir, PathBuf) {
    let src = Repo::example();
    src.commit_all("memory");
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("clone");
    git_in(
        Path::new("/"),
        &[
            "clone",
            "-q",
            src.path().to_str().unwrap(),
            c.to_str().unwrap(),
        ],
    );
    (src, dir, c)
}

/// A question the example answers by meaning only: the semantic top two hold its record.
const BY_MEANING: &str = "stop two dispatchers reserving one berth at the same moment";

fn answers_by_meaning(hits: &Value) -> bool {
    let ids: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .take(2)
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    ids.contains(&"D-02e4fb86") || ids.contains(&"PR-001")
}

#[test]
fn continue_in_a_fresh_clone_embeds_nothing_and_semantic_recall_catches_up_at_the_next_query() {
    let m = Machine::new();
    let (_src, _dir, c) = fresh_clone();
    let out = m.run(&c, &["--json", "continue"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("20 entries await their embedding")
            && out.stderr.contains("lexical recall works now"),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.json()["semantic"]["pending_embeddings"],
        20,
        "{}",
        out.stdout
    );
    assert!(
        out.json()["semantic"]["catch_up"]
            .as_str()
            .unwrap()
            .contains("zo index refresh"),
        "{}",
        out.stdout
    );
    assert_eq!(m.entries(), 0, "continue sent texts to the model");
    assert_eq!(m.status(&c), (0, 20));

    // Lexical recall is ready at once, and embeds nothing.
    let lex = m.json(&c, &["recall", "--mode", "lexical", "berth reservation"]);
    assert!(!lex["results"].as_array().unwrap().is_empty(), "{lex}");
    assert_eq!(m.entries(), 0);

    // The next semantic query embeds what is missing, and answers by meaning.
    let sem = m.json(&c, &["recall", "--mode", "semantic", "-k", "2", BY_MEANING]);
    assert_eq!(sem["mode"], "semantic", "{sem}");
    assert!(answers_by_meaning(&sem["results"]), "{sem}");
    assert_eq!(m.status(&c), (20, 0));
    assert_eq!(m.entries(), 20);

    // Run again, continue has nothing left to say about embeddings.
    let again = m.run(&c, &["--json", "continue"]);
    assert!(!again.stderr.contains("await"), "{}", again.stderr);
    assert_eq!(again.json()["semantic"]["pending_embeddings"], 0);
}

#[test]
fn a_session_start_hook_in_a_fresh_clone_embeds_nothing() {
    let m = Machine::new();
    let (_src, _dir, c) = fresh_clone();
    let event = json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": c, "session_id": "s1"}).to_string();
    let mut child = m
        .cmd(&c, &["hook", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.as_bytes())
        .unwrap();
    let out = Run::from(child.wait_with_output().unwrap());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.trim().is_empty(), "the hook printed no bundle");
    assert_eq!(m.entries(), 0, "the hook sent texts to the model");
}

/// `zo mcp` with the machine's environment, spoken to over its stdin and stdout.
/// `zo mcp` on this machine, initialized.
fn server(m: &Machine, dir: &Path) -> Client {
    let mut c = Client::start_with(&mut m.cmd(dir, &["mcp"]));
    c.initialize();
    c
}

/// A recall tool call: (structured content, text).
fn recall(c: &mut Client, args: Value) -> (Value, String) {
    let r = c.request("tools/call", json!({"name": "recall", "arguments": args}));
    let res = &r["result"];
    let text = res["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(res["isError"] == false, "{r}");
    (res["structuredContent"].clone(), text)
}

#[test]
fn an_mcp_recall_with_entries_waiting_answers_without_embedding_them_and_the_server_catches_up() {
    let m = Machine::new();
    let (_src, _dir, c) = fresh_clone();
    let mut s = server(&m, &c);
    let (v, text) = recall(&mut s, json!({"query": BY_MEANING, "k": 2}));
    // Answered before any entry was embedded: hybrid, with all 20 marked as waiting.
    assert_eq!(v["mode"], "hybrid", "{v}");
    assert_eq!(v["pending_embeddings"], 20, "{v}");
    assert!(
        text.contains("semantic recall is catching up: 20 entries await their embedding"),
        "{text}"
    );
    assert!(
        !v["results"].as_array().unwrap().is_empty(),
        "lexical hits still come back: {v}"
    );

    // The server embeds them in the background; each later call says how many still wait,
    // until none does. Polled on the condition; the guard only catches a catch-up that never
    // ends (20 entries take seconds on the slowest machine, the guard is half an hour).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1800);
    let mut last = 20;
    let v = loop {
        let (v, _) = recall(
            &mut s,
            json!({"query": BY_MEANING, "k": 2, "mode": "semantic"}),
        );
        let waiting = v["pending_embeddings"].as_u64().unwrap_or(0);
        assert!(
            waiting <= last,
            "the count of waiting entries grew: {last} then {waiting}"
        );
        last = waiting;
        if waiting == 0 {
            break v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never caught up (hung): {waiting} waiting"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(answers_by_meaning(&v["results"]), "{v}");
    assert!(s.close().success());
    assert_eq!(m.status(&c), (20, 0));
    assert_eq!(m.entries(), 20, "each text was embedded once");
}

#[test]
fn an_mcp_server_closed_while_catching_up_exits_cleanly_and_leaves_a_whole_index() {
    let m = Machine::new();
    let (_src, _dir, c) = fresh_clone();
    let mut s = server(&m, &c);
    let (v, _) = recall(&mut s, json!({"query": "berth reservation"}));
    assert_eq!(v["pending_embeddings"], 20, "{v}");
    assert!(
        s.close().success(),
        "the server must exit cleanly while its catch-up runs"
    );
    // Whatever was embedded is whole; the rest is embedded by the next refresh.
    let (done, waiting) = m.status(&c);
    assert_eq!(done + waiting, 20);
    let r = m.json(&c, &["index", "refresh"]);
    assert_eq!(
        r["embedded"].as_u64().unwrap() + r["from_cache"].as_u64().unwrap(),
        waiting,
        "{r}"
    );
    assert_eq!(m.status(&c), (20, 0));
}

/// `index rebuild` builds beside the old index and swaps at the end: a semantic recall while
/// the rebuild embeds (cold cache) answers from the old index, embedding nothing itself.
#[test]
fn the_old_index_answers_while_index_rebuild_embeds() {
    let m = Machine::new();
    let (_src, _dir, c) = fresh_clone();
    assert_eq!(m.json(&c, &["index", "refresh"])["embedded"], 20);
    m.json(Path::new("/"), &["cache", "clear"]);
    let rebuild = m
        .cmd(&c, &["--json", "index", "rebuild"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut rebuild = rebuild;
    let mut overlapped = false;
    for _ in 0..3 {
        let r = m.run(
            &c,
            &[
                "--json", "recall", "--mode", "semantic", "-k", "2", BY_MEANING,
            ],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(answers_by_meaning(&r.json()["results"]), "{}", r.stdout);
        assert!(
            !r.stderr.contains("embedding"),
            "the reader embedded: {}",
            r.stderr
        );
        overlapped |= rebuild.try_wait().unwrap().is_none();
    }
    let out = Run::from(rebuild.wait_with_output().unwrap());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["embedded"], 20, "{}", out.stdout);
    assert!(
        overlapped,
        "the rebuild ended before any reader ran: nothing was tested"
    );
    assert_eq!(m.status(&c), (20, 0));
}

/// While a clone catches up, hybrid recall ranked an entry still waiting for its vector as the
/// least similar of all: an exact title match fell below entries that only resembled the
/// question, until the catch-up reached it. Its semantic part is now left out, and the words
/// alone place it.
#[test]
fn while_catching_up_an_exact_title_match_waiting_for_its_vector_fell_out_of_the_top() {
    let m = Machine::new();
    let src = Repo::example();
    // This machine has embedded the example's 20 entries (its vector cache holds them) …
    assert_eq!(m.refresh(src.path()), (20, 0));
    // … and then 6 decisions arrive that it never saw: more than a query embeds on its own.
    let titles = [
        "Rotate the signing keys every quarter",
        "Quarantine flaky integration suites nightly",
        "Pin the base image digest",
        "Cap upload size at the proxy",
        "Retry webhooks with jitter",
        "Drop the legacy CSV export",
    ];
    let ids: Vec<String> = titles
        .iter()
        .map(|t| {
            src.ok(&["decide", "--title", t, "--decision", "as titled"])
                .trim()
                .to_string()
        })
        .collect();
    src.commit_all("memory");
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("clone");
    git_in(
        Path::new("/"),
        &[
            "clone",
            "-q",
            src.path().to_str().unwrap(),
            c.to_str().unwrap(),
        ],
    );
    let mut s = server(&m, &c);
    let (v, _) = recall(
        &mut s,
        json!({"query": "quarantine flaky integration suites nightly", "k": 3}),
    );
    assert_eq!(v["mode"], "hybrid", "{v}");
    assert!(
        v["pending_embeddings"].as_u64().unwrap() > 0,
        "answered while entries still waited: {v}"
    );
    assert_eq!(v["results"][0]["id"], ids[1].as_str(), "{v}");
    assert!(s.close().success());
}
