//! Unit tests of the decision log: round trips, older forms, the quick walk held to the full
//! parse, links.

use super::entry::one_line;
use super::scan::{KEY_FIELDS, scan};
use super::*;
use crate::format::split_entries;

fn sample() -> NewDecision {
    NewDecision {
        id: "D-7f3a9c2e".into(),
        timestamp: "2026-11-21T15:04:05Z".into(),
        kind: "ARCHITECTURE".into(),
        title: "Use Hono instead of Express for the API".into(),
        decision: "Hono.\n\n## Decision: 2020-01-01T00:00:00Z\n**Title:** injected\n---\n```\n**ID:** x\n```".into(),
        rationale: "Faster.".into(),
        alternatives: "(1) Express (2) Fastify".into(),
        outcome: "pending".into(),
        tags: "backend, api".into(),
        ..Default::default()
    }
}

#[test]
fn canonical_entry_round_trips_byte_for_byte() {
    let new = sample();
    let text = format!("# DECISION_LOG\n\n{}", new.render());
    let log = DecisionLog::parse(Text::new(text.clone()));
    assert_eq!(log.entries.len(), 1);
    let e = &log.entries[0];
    assert_eq!(e.id, "D-7f3a9c2e");
    assert!(!e.id_derived);
    assert_eq!(log.field(0, "Decision"), Some(new.decision.as_str()));
    assert_eq!(e.title, new.title);
    let again = NewDecision {
        decision: log.field(0, "Decision").unwrap().into(),
        ..sample()
    };
    assert_eq!(again.render(), e.raw(&log));
}

#[test]
fn older_forms_are_read() {
    let text = "\u{feff}# Log\r\n\r\n## Decision: Use Postgres\r\n**Timestamp**: 2025-01-02T03:04:05Z\r\n**Decision**: yes\r\n## Decision: 2025-02-01T00:00:00Z\r\n**Title:** Second\r\n";
    let log = DecisionLog::parse(Text::new(text.into()));
    assert!(log.text.bom && log.text.crlf);
    assert_eq!(log.entries.len(), 2);
    assert_eq!(log.entries[0].title, "Use Postgres");
    assert_eq!(log.entries[0].timestamp, "2025-01-02T03:04:05Z");
    assert_eq!(log.field(0, "Decision"), Some("yes"));
    assert!(log.entries[0].id_derived);
    assert_eq!(log.entries[1].title, "Second");
}

/// Real logs: the example memory, a fixture memory, and real decision records (with fences,
/// lists, headings and rules in their text) written the way `zo decide` writes them.
fn real_logs() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts =
        vec![std::fs::read_to_string(root.join(".zo-example/memory/DECISION_LOG.md")).unwrap()];
    texts.push(
        std::fs::read_to_string(root.join("tests/fixtures/zero-operators-memory/DECISION_LOG.md"))
            .unwrap(),
    );
    let corpus = std::fs::read_to_string(root.join("tests/fixtures/adr-corpus.jsonl")).unwrap();
    let mut log = String::new();
    for (i, line) in corpus.lines().enumerate() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let d = NewDecision {
            id: format!("D-{i:08x}"),
            timestamp: "2026-01-01T00:00:00Z".into(),
            kind: "ARCHITECTURE".into(),
            title: r["title"].as_str().unwrap().into(),
            decision: r["body"].as_str().unwrap().into(),
            rationale: "from the corpus".into(),
            ..Default::default()
        };
        log.push_str(&d.render());
    }
    texts.push(log);
    texts
}

/// Hand-made entries at the edges of the quick walk: (text, whether the walk should answer
/// for its first entry).
fn edge_cases() -> Vec<(String, Option<bool>)> {
    let e = "## Decision: 2026-01-01T00:00:00Z\n";
    vec![
        (
            format!("{e}**Title:** two\nlines\n**ID:** D-1\n"),
            Some(false),
        ),
        // Prose after a key field belongs to its value.
        (
            format!("{e}**Title:** t\n\n**Type:** X\n\nprose\n\n---\n**Refs:** after\n"),
            Some(false),
        ),
        (
            format!("{e}**Title:** t\n\n**Decision:** X\n\nprose\n\n---\n**Refs:** after\n"),
            Some(true),
        ),
        // Backticks inside a line are no fence.
        (
            format!(
                "{e}**ID:** D-2\n**Title:** uses ``` inline\n\n**Decision:** a ```b``` c\n---\n"
            ),
            Some(true),
        ),
        // A field line or a `---` inside a fence is text; the keys after the fence count.
        (
            format!(
                "{e}**ID:** D-3\n**Decision:** x\n   ~~~\n**Type:** in a fence\n---\n   ~~~\n**Type:** real\n---\n"
            ),
            Some(true),
        ),
        (
            format!("{e}**Decision:** x\n```sh\n**Refs:** no\n```\n**Refs:** D-9\n"),
            Some(true),
        ),
        // An unclosed fence runs to the end of the entry, but not into the next one.
        (
            format!("{e}**Decision:** x\n```\n**ID:** hidden\n{e}**ID:** D-4\n"),
            Some(true),
        ),
        // A hand-written entry inside a closed code block is text of the entry around it.
        (
            format!(
                "{e}**ID:** D-7\n**Decision:** like this:\n```md\n{e}**ID:** D-8\n---\n```\n**Type:** real\n---\n\n{e}**ID:** D-9\n"
            ),
            Some(true),
        ),
        // A key whose value starts on the next line, or runs into a fence.
        (format!("{e}**Title:**\n  t\n"), Some(false)),
        (format!("{e}**Title:** t\n```\ncode\n```\n"), Some(false)),
        (
            format!("{e}\r\n**ID:** D-5\r\n**Title:** crlf\r\n---\r\n"),
            Some(true),
        ),
        ("no heading at all\n**ID:** D-6\n".into(), None),
    ]
}

/// Every text the quick walk is held to: the real logs, then the edge cases.
fn all_logs() -> Vec<String> {
    let mut texts = real_logs();
    texts.extend(edge_cases().into_iter().map(|(t, _)| t));
    texts
}

/// The quick walk must agree with the full parse wherever it answers, and find the same
/// entries as `split_entries`.
#[test]
fn key_scan_agrees_with_full_parse() {
    let mut scanned = 0;
    for text in &all_logs() {
        let walked = scan(text);
        let spans = split_entries(text, is_heading);
        assert_eq!(
            walked
                .iter()
                .map(|(s, _)| (s.start, s.end, s.line))
                .collect::<Vec<_>>(),
            spans
                .iter()
                .map(|s| (s.start, s.end, s.line))
                .collect::<Vec<_>>()
        );
        let log = DecisionLog::parse(Text::new(text.clone()));
        for (i, (span, keys)) in walked.iter().enumerate() {
            let raw = &text[span.start..span.end];
            let full = parse_full(raw, span.line);
            if let Some((found, separated)) = keys {
                scanned += 1;
                assert_eq!(*separated, full.separated, "{raw}");
                for (k, v) in KEY_FIELDS.iter().zip(found) {
                    assert_eq!(*v, full.get(k), "{k} in {raw}");
                }
            }
            assert_eq!(
                log.field(i, "Title").unwrap_or(""),
                full.get("Title").unwrap_or("")
            );
            // The title is the field on one line (`one_line`).
            assert_eq!(
                log.entries[i].title,
                full.get("Title")
                    .map(one_line)
                    .unwrap_or_else(|| log.entries[i].title.clone())
            );
        }
    }
    assert!(scanned > 10);
}

#[test]
fn key_scan_answers_only_where_it_reads_right() {
    for (text, answers) in &edge_cases() {
        assert_eq!(
            scan(text).first().map(|(_, k)| k.is_some()),
            *answers,
            "{text}"
        );
    }
}

/// What `decide` reads without parsing agrees with the parsed log, and every title of every
/// entry is found by the quick search, under any change of case or spacing.
#[test]
fn checks_without_a_parse_agree_with_the_parsed_log() {
    for text in &all_logs() {
        let log = DecisionLog::parse(Text::new(text.clone()));
        assert_eq!(last_separated(text), log.last_separated(), "{text}");
        for e in &log.entries {
            assert!(may_hold_title(text, &e.title), "{:?}", e.title);
            let shouted: String = e
                .title
                .split_whitespace()
                .map(|w| w.to_uppercase())
                .collect::<Vec<_>>()
                .join("  \t");
            assert!(may_hold_title(text, &shouted), "{shouted:?}");
            assert!(mentions(text, &e.id) || e.id_derived);
        }
    }
}

#[test]
fn quick_title_search_finds_titles_and_only_whole_ones() {
    let mut d = sample();
    d.title = "Bench decision 17".into();
    d.decision = "## a heading\n**Title:** not this".into();
    let text = d.render();
    assert!(may_hold_title(&text, "bench   DECISION 17"));
    assert!(
        !may_hold_title(&text, "bench decision 1"),
        "a prefix is another title"
    );
    assert!(!may_hold_title(&text, "decision 17 bench"));
    // A title that runs over lines, the second escaped because it looks like a heading.
    let multi = "## Decision: 2026-01-01T00:00:00Z\n**Title:** first part\n\\## second part\n---\n";
    let log = DecisionLog::parse(Text::new(multi.into()));
    assert_eq!(
        log.entries[0].title, "first part ## second part",
        "one line wherever it is shown"
    );
    assert!(may_hold_title(multi, "first part ## second part"));
    // The older form: the title in the heading.
    assert!(may_hold_title(
        "## Decision: Use Postgres\n**Date:** 2024-01-01\n",
        "use postgres"
    ));
    assert!(!may_hold_title("", "anything"));
    // A title that starts on the line after its field name.
    assert!(may_hold_title(
        "## Decision: 2026-01-01T00:00:00Z\n**Title:**\nlater\n",
        "other"
    ));
    assert_eq!(last_separated(""), None);
    assert_eq!(last_separated("# DECISION_LOG\n\n---\n"), None);
}

#[test]
fn supersedes_and_outcomes_link() {
    let mut a = sample();
    a.decision = "a".into();
    let mut b = sample();
    b.id = "D-00000002".into();
    b.supersedes = "D-7f3a9c2e".into();
    let o = NewDecision {
        id: "D-00000003".into(),
        timestamp: "2026-11-22T00:00:00Z".into(),
        kind: "OUTCOME".into(),
        title: "Outcome".into(),
        refs: "D-00000002".into(),
        outcome: "shipped".into(),
        ..Default::default()
    };
    let text = format!("{}{}{}", a.render(), b.render(), o.render());
    let log = DecisionLog::parse(Text::new(text));
    assert_eq!(log.status(0), crate::format::Status::Superseded);
    assert_eq!(log.superseded_by(0).unwrap().id, "D-00000002");
    assert_eq!(log.latest_outcome(1), Some("shipped"));
    assert!(log.find("d-0000000").is_err());
    assert_eq!(log.find("D-7f3a").unwrap(), 0);
}
