//! The file formats: the real-world fixture loads without loss, canonical files round-trip,
//! and any Markdown can live in a field.

mod util;
use std::path::Path;
use util::Repo;
use zo::format::Text;
use zo::format::decision::{DecisionLog, NewDecision};
use zo::format::prior::PriorsFile;

/// The fixture in the older layout (`memory/<project>/`), as the other team keeps it.
fn fixture_repo() -> Repo {
    let r = Repo::new();
    util::copy_dir(&util::fixture(), &r.path().join("memory/zo-platform"));
    r
}

#[test]
fn zero_operators_fixture_loads_without_loss() {
    let r = fixture_repo();
    let status = r.json(&["status"]);
    assert_eq!(status["counts"]["decisions"], 106);
    assert_eq!(status["counts"]["priors"], 45);
    assert_eq!(status["counts"]["sessions"], 15);
    assert_eq!(status["legacy_layout"], true);
    assert_eq!(status["project"], "zero-operators-build");
    assert_eq!(status["phase"], "complete");
    assert_eq!(status["mode"], "maintain");
    let state = r.json(&["state", "show"]);
    assert_eq!(state["fields"]["iteration"], "1");
    assert_eq!(state["fields"]["status"], "complete");

    let log = r.json(&["log"]);
    let list = log["decisions"].as_array().unwrap();
    assert_eq!(list.len(), 106);
    let ids: std::collections::HashSet<&str> =
        list.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 106, "derived IDs are unique");

    // The first decision, field by field.
    let first = list.last().unwrap();
    assert_eq!(first["timestamp"], "2026-04-09T16:00:00Z");
    let shown = r.json(&["show", first["id"].as_str().unwrap()]);
    assert_eq!(shown["type"], "ARCHITECTURE");
    assert_eq!(shown["title"], "Orchestration approach — Hybrid");
    assert!(
        shown["rationale"]
            .as_str()
            .unwrap()
            .starts_with("Native agent teams provide the best communication model")
    );
    assert_eq!(shown["outcome"], "Documented in build plan v2.0 as RD1.");
    // An entry with blank lines between its fields and an extra bold field.
    let surrogate = r.json(&["show", "2026-06-04T00:00:00Z"]);
    assert_eq!(surrogate["type"], "FEATURE + ARCHITECTURE");
    assert!(
        surrogate["decision"]
            .as_str()
            .unwrap()
            .starts_with("Add a *surrogate session* capability")
    );
    assert!(
        surrogate["safety_hardenings_priors_pr_045"]
            .as_str()
            .unwrap()
            .starts_with("a report session NEVER")
    );
    assert!(
        surrogate["outcome"]
            .as_str()
            .unwrap()
            .starts_with("+28 tests")
    );

    // Nothing lost: each entry's full text is in the file verbatim, and together they hold
    // every line of the log after its preamble.
    let file = std::fs::read_to_string(util::fixture().join("DECISION_LOG.md")).unwrap();
    let mut covered = 0;
    for d in list {
        let text = r.json(&["show", d["id"].as_str().unwrap()])["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(file.contains(&text), "entry {} not verbatim", d["id"]);
        covered += text
            .lines()
            .filter(|l| !l.trim().is_empty() && l.trim() != "---")
            .count();
    }
    let body_lines = file[file.find("## Decision").unwrap()..]
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "---")
        .count();
    assert_eq!(covered, body_lines);

    let priors = r.json(&["prior", "list"]);
    let plist = priors["priors"].as_array().unwrap();
    assert_eq!(plist.len(), 45);
    let pr1 = plist.iter().find(|p| p["id"] == "PR-001").unwrap();
    assert_eq!(pr1["root_cause"], "missing_rule");
    assert_eq!(pr1["title"], "Claude CLI Interactive Mode Constraints");
    assert_eq!(pr1["rules"].as_array().unwrap().len(), 5);
    assert!(
        pr1["rules"][2]
            .as_str()
            .unwrap()
            .starts_with("**Claude Code renders its TUI to stderr.**")
    );
    assert!(
        plist.iter().any(|p| p["id"] == "PR-034"),
        "out-of-order numbers load"
    );
    let mut nums: Vec<u64> = plist
        .iter()
        .map(|p| p["id"].as_str().unwrap()[3..].parse().unwrap())
        .collect();
    nums.sort();
    assert_eq!(nums, (1..=45).collect::<Vec<u64>>());

    r.ok(&["verify"]);
}

#[test]
fn fixture_sessions_parse() {
    let r = fixture_repo();
    let mem = zo::store::memory::Memory {
        layout: zo::store::layout::Layout::discover(Some(r.path())).unwrap(),
    };
    let sessions = mem.sessions().unwrap();
    assert_eq!(sessions.len(), 15);
    assert_eq!(sessions[0].number, Some(9));
    assert_eq!(sessions[14].number, Some(39));
    assert_eq!(sessions[14].date.as_deref(), Some("2026-06-11"));
    assert_eq!(sessions[14].title, "Session 039 — 2026-06-11");
    assert!(
        sessions[14]
            .section(&["next"])
            .unwrap()
            .starts_with("Unchanged — Batch D / E")
    );
}

#[test]
fn appending_to_the_fixture_keeps_every_old_byte() {
    let r = fixture_repo();
    r.commit_all("fixture");
    let before = r.read("memory/zo-platform/DECISION_LOG.md");
    let id = r.decide("Appended by zo", "to a hand-written log");
    let after = r.read("memory/zo-platform/DECISION_LOG.md");
    assert!(after.starts_with(before.trim_end()), "old text changed");
    assert_eq!(r.json(&["log"])["decisions"].as_array().unwrap().len(), 107);
    assert_eq!(r.json(&["show", &id])["decision"], "to a hand-written log");
    r.ok(&["verify"]);
}

#[test]
fn example_memory_round_trips_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(".zo-example/memory");
    let text = std::fs::read_to_string(root.join("DECISION_LOG.md")).unwrap();
    let log = DecisionLog::parse(Text::new(text.clone()));
    assert!(log.entries.len() >= 12);
    for (i, e) in log.entries.iter().enumerate() {
        let f = |n: &str| log.field(i, n).unwrap_or("").to_string();
        let again = NewDecision {
            id: e.id.clone(),
            timestamp: e.timestamp.clone(),
            kind: e.kind.clone(),
            title: e.title.clone(),
            decision: f("Decision"),
            rationale: f("Rationale"),
            alternatives: f("Alternatives considered"),
            outcome: f("Outcome"),
            supersedes: f("Supersedes"),
            refs: f("Refs"),
            tags: f("Tags"),
            session: f("Session"),
            confidence: f("Confidence"),
            paths: f("Paths"),
            commit: f("Commit"),
            ..Default::default()
        };
        assert_eq!(
            again.render(),
            e.raw(&log),
            "entry {} does not round-trip",
            e.id
        );
    }
    let priors = PriorsFile::parse(Text::new(
        std::fs::read_to_string(root.join("PRIORS.md")).unwrap(),
    ));
    assert_eq!(priors.entries.len(), 3);
    for p in &priors.entries {
        let again = zo::format::prior::NewPrior {
            number: p.number.unwrap(),
            title: p.title.clone(),
            source: p.field("Source").unwrap_or("").into(),
            root_cause: p.root_cause().unwrap().into(),
            failure: p.field("Failure").unwrap().into(),
            rules: p.rules(),
            solution: p
                .body
                .sections
                .iter()
                .find(|s| s.heading == "Verified Solution")
                .map(|s| s.body.clone())
                .unwrap_or_default(),
            allowed: vec![],
        };
        assert_eq!(
            again.render(),
            p.raw(&priors),
            "{} does not round-trip",
            p.id
        );
    }
}

const TRICKY: &str = "Intro paragraph.\n\n## Decision: 2020-01-01T00:00:00Z\n**ID:** D-deadbeef\n**Title:** not a title\n---\n\n```markdown\n## Decision: inside a fence\n**Outcome:** inside a fence\n---\n```\n\n~~~\nunclosed tilde fence\n**Rationale:** still text";

#[test]
fn any_markdown_in_a_field_reads_back_unchanged() {
    let r = Repo::init();
    r.write(
        "d.json",
        &serde_json::json!({
            "title": "Tricky content",
            "decision": TRICKY,
            "rationale": "```\nunclosed at the end",
            "alternatives": "\\**Title:** already escaped\n\\---\n### A subheading\n#### deeper",
            "outcome": "    indented code as the first line\n---",
        })
        .to_string(),
    );
    let id = r.ok(&["decide", "--file", "d.json"]).trim().to_string();
    let after = r.decide("Next entry", "must stay separate");
    let j = r.json(&["show", &id]);
    assert_eq!(j["decision"], TRICKY);
    assert_eq!(j["rationale"], "```\nunclosed at the end");
    assert_eq!(
        j["alternatives_considered"],
        "\\**Title:** already escaped\n\\---\n### A subheading\n#### deeper"
    );
    assert_eq!(j["outcome"], "    indented code as the first line\n---");
    assert_eq!(j["title"], "Tricky content");
    assert!(j.get("id").is_some() && j["id"] == id.as_str());
    let all = r.json(&["log", "--all"]);
    assert_eq!(
        all["decisions"].as_array().unwrap().len(),
        2,
        "the content split an entry"
    );
    assert_eq!(r.json(&["show", &after])["decision"], "must stay separate");
    r.ok(&["verify"]);
}

#[test]
fn any_markdown_in_a_prior_reads_back_unchanged() {
    let r = Repo::init();
    let rule = "Multi-line rule\n## PR-999: fake heading\n---";
    r.ok(&[
        "prior",
        "add",
        "--title",
        "Tricky prior",
        "--root-cause",
        "novel_case",
        "--failure",
        TRICKY,
        "--rule",
        rule,
        "--solution",
        "### Rules\n```\n---\n",
    ]);
    r.ok(&[
        "prior",
        "add",
        "--title",
        "After",
        "--root-cause",
        "novel_case",
        "--failure",
        "f",
        "--rule",
        "r",
    ]);
    let path = r.path().join(".zo/memory/PRIORS.md");
    let pf = PriorsFile::parse(Text::new(std::fs::read_to_string(path).unwrap()));
    assert_eq!(pf.entries.len(), 2);
    let p = &pf.entries[0];
    assert_eq!(p.field("Failure"), Some(TRICKY));
    assert_eq!(p.rules(), vec![rule.to_string()]);
    let sol = p
        .body
        .sections
        .iter()
        .find(|s| s.heading == "Verified Solution")
        .unwrap();
    assert_eq!(sol.body, "### Rules\n```\n---");
    r.ok(&["verify"]);
}

#[test]
fn older_forms_crlf_and_bom_are_read_and_appends_match_the_file() {
    let r = Repo::init();
    let old = "\u{feff}# Decisions\r\n\r\n## Decision: Use Postgres\r\n**Timestamp**: 2025-01-02T03:04:05Z\r\n**Type**: ARCHITECTURE\r\n**Decision**: Postgres 16\r\n**Rationale**: JSONB\r\n\r\n## Decision: 2025-02-01T00:00:00Z\r\n**Title:** Second, no separators\r\n**Decision:** yes\r\n";
    r.write(r.log_path(), old);
    r.commit_all("old log");
    let j = r.json(&["log"]);
    let list = j["decisions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["title"], "Use Postgres");
    assert_eq!(list[1]["timestamp"], "2025-01-02T03:04:05Z");
    assert_eq!(list[1]["type"], "ARCHITECTURE");
    assert_eq!(
        r.json(&["show", list[1]["id"].as_str().unwrap()])["rationale"],
        "JSONB"
    );
    let id = r.decide("Third", "appended");
    let bytes = std::fs::read(r.path().join(r.log_path())).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.starts_with(old.trim_end()), "old bytes changed");
    assert!(text.starts_with('\u{feff}'));
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "appended entry must use CRLF like the file"
    );
    assert_eq!(r.json(&["show", &id])["decision"], "appended");
    r.ok(&["verify"]);
}

#[test]
fn lifecycle_fields_and_tombstones_round_trip() {
    let d = NewDecision {
        id: "D-0000aaaa".into(),
        timestamp: "2026-11-23T10:00:00Z".into(),
        kind: "DECISION".into(),
        title: "Routes are flat".into(),
        decision: "no nesting".into(),
        outcome: "pending".into(),
        confidence: "0.4".into(),
        paths: "src/api, docs/readme.txt".into(),
        commit: "0123456789abcdef0123456789abcdef01234567".into(),
        ..Default::default()
    };
    let confirm = NewDecision {
        id: "D-0000bbbb".into(),
        timestamp: "2026-11-23T11:00:00Z".into(),
        kind: "CONFIRM".into(),
        title: "Confirm: Routes are flat".into(),
        refs: "D-0000aaaa".into(),
        ..Default::default()
    };
    let text = d.render();
    let log = DecisionLog::parse(Text::new(text.clone()));
    assert_eq!(log.entries[0].raw(&log), text);
    assert_eq!(log.entries[0].confidence, Some(0.4));
    assert_eq!(
        (log.field(0, "Paths"), log.field(0, "Commit")),
        (Some("src/api, docs/readme.txt"), Some(d.commit.as_str()))
    );
    assert_eq!(log.status(0).name(), "provisional");
    assert_eq!(
        log.clone().with_threshold(0.3).status(0).name(),
        "active",
        "status is read against the threshold"
    );
    let both = DecisionLog::parse(Text::new(format!("{text}{}", confirm.render())));
    assert_eq!(
        both.status(0).name(),
        "active",
        "a CONFIRM entry promotes it"
    );
    // The tombstone: ID, heading time and links kept; parsed as forgotten; nothing else.
    let stone = zo::format::decision::tombstone(&both, 0, "2026-11-24T00:00:00Z", "held a secret");
    let after = DecisionLog::parse(Text::new(format!("{stone}{}", confirm.render())));
    assert!(after.entries[0].is_forgotten());
    assert_eq!(
        (
            after.entries[0].id.as_str(),
            after.entries[0].timestamp.as_str()
        ),
        ("D-0000aaaa", "2026-11-23T10:00:00Z")
    );
    assert_eq!(after.status(0).name(), "forgotten");
    assert!(
        !stone.contains("no nesting")
            && !stone.contains("src/api")
            && stone.contains("**Reason:** held a secret"),
        "{stone}"
    );
    let prior = zo::format::prior::NewPrior {
        number: 7,
        title: "t".into(),
        root_cause: "novel_case".into(),
        failure: "Jane".into(),
        rules: vec!["r".into()],
        ..Default::default()
    }
    .render();
    let pf = PriorsFile::parse(Text::new(prior));
    let ps = pf.entries[0].tombstone("2026-11-24T00:00:00Z", "a name");
    let pf2 = PriorsFile::parse(Text::new(ps.clone()));
    assert_eq!(
        (pf2.entries[0].id.as_str(), pf2.entries[0].is_forgotten()),
        ("PR-007", true)
    );
    assert!(!ps.contains("Jane"), "{ps}");
}
