//! The properties every parser and the merge must hold, as functions that panic when one does
//! not: the fuzz targets (`fuzz/`) call them with arbitrary input for millions of runs, and
//! `tests/properties.rs` calls them with proptest's inputs in every test run.
#![doc(hidden)]

use crate::format::Text;
use crate::format::decision::{DecisionLog, NewDecision};
use crate::format::fields::normalize_value;
use crate::format::prior::PriorsFile;
use crate::format::session::{self, SessionFile};
use crate::format::state::State;
use std::collections::HashSet;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Any text reads as a decision log without panicking, every entry's fields and the
/// integrity checks included; parsing the same text twice gives the same entries.
pub fn decision_log(bytes: &[u8]) {
    let t = text(bytes);
    let log = DecisionLog::parse(Text::new(t.clone()));
    for i in 0..log.entries.len() {
        let _ = log.body(i);
        let _ = (log.status(i), log.latest_outcome(i), log.superseded_by(i));
    }
    let _ = crate::verify::decisions("log", &log);
    let again = DecisionLog::parse(Text::new(t));
    assert_eq!(log.entries.iter().map(|e| &e.id).collect::<Vec<_>>(), again.entries.iter().map(|e| &e.id).collect::<Vec<_>>());
}

/// A decision zo writes reads back with every field as given (normalised), appended to any log
/// that parses: render → parse is the identity on fields, and the entries before it survive.
pub fn decision_round_trip(prefix: &[u8], title: &str, decision: &str, rationale: &str, alternatives: &str) {
    let title = normalize_value(title);
    let decision = normalize_value(decision);
    // What the gate lets through: a one-line title, a decision with text.
    if title.trim().is_empty() || title.contains('\n') || decision.trim().is_empty() {
        return;
    }
    let before = DecisionLog::parse(Text::new(text(prefix)));
    let new = NewDecision {
        id: "D-0123abcd".into(),
        timestamp: "2026-01-01T00:00:00Z".into(),
        kind: "ARCHITECTURE".into(),
        title: title.clone(),
        decision: decision.clone(),
        rationale: normalize_value(rationale),
        alternatives: normalize_value(alternatives),
        outcome: "pending".into(),
        ..Default::default()
    };
    // Appended the way `Memory::decide` appends.
    let base = before.text.clone();
    let joint = if base.as_str().is_empty() { "" } else { base.joint(before.last_separated()) };
    let written = base.with_appended(&format!("{joint}{}", new.render()));
    let log = DecisionLog::parse(Text::new(written));
    let Ok(i) = log.find("D-0123abcd") else {
        // Only a log that already holds that ID can hide it; the fuzzer may write one.
        assert!(before.find("D-0123abcd").is_ok() || before.entries.iter().any(|e| e.id.starts_with("D-0123abcd")), "the new entry was lost");
        return;
    };
    if before.find("D-0123abcd").is_ok() {
        return;
    }
    assert_eq!(log.entries[i].title, title);
    assert_eq!(log.field(i, "Decision").unwrap_or(""), decision);
    if !new.rationale.is_empty() {
        assert_eq!(log.field(i, "Rationale").unwrap_or(""), new.rationale);
    }
    if !new.alternatives.is_empty() {
        assert_eq!(log.field(i, "Alternatives considered").unwrap_or(""), new.alternatives);
    }
    assert_eq!(i + 1, log.entries.len(), "the new entry is the last one");
}

/// Any text reads as priors without panicking.
pub fn priors(bytes: &[u8]) {
    let pf = PriorsFile::parse(Text::new(text(bytes)));
    for p in &pf.entries {
        let _ = (p.rules(), p.root_cause(), p.superseded_by(), p.content(&pf));
    }
    let _ = crate::verify::priors("priors", &pf);
}

/// STATE.md: parse → render → parse → render is stable, and every line after the fields is kept.
pub fn state(bytes: &[u8]) {
    let once = State::parse(Text::new(text(bytes))).render();
    let twice = State::parse(Text::new(once.clone())).render();
    assert_eq!(once, twice, "rendering STATE.md is not stable");
}

/// Session files: parsing and the splitter never panic, and the split pieces cover the text.
pub fn session(bytes: &[u8]) {
    let t = text(bytes);
    let s = SessionFile::parse("session-2026-01-01T00-00-00-000Z-abcdef.md", &t);
    let _ = s.section(&["next"]);
    let starts = session::session_starts(&t);
    assert!(starts.windows(2).all(|w| w[0] < w[1]) && starts.iter().all(|&s| s <= t.len() && t.is_char_boundary(s)));
    let _ = session::parse_file_name(&t);
    let _ = session::title_number(&t);
}

/// config.yaml: any text is a config or an error naming the file, never a panic.
pub fn config(bytes: &[u8]) {
    let _ = crate::config::Config::parse(std::path::Path::new("config.yaml"), &text(bytes));
}

/// Canonical entries for merge properties: `n` entries with IDs from `tag`.
pub fn entries(tag: u8, titles: &[String]) -> String {
    titles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            NewDecision {
                id: format!("D-{tag:02x}{i:06x}"),
                timestamp: format!("2026-01-{:02}T00:00:00Z", 1 + (i % 28)),
                kind: "DECISION".into(),
                title: format!("{} {tag}-{i}", normalize_value(t).replace('\n', " ")),
                decision: if t.trim().is_empty() { "d".into() } else { normalize_value(t) },
                outcome: "pending".into(),
                ..Default::default()
            }
            .render()
        })
        .collect()
}

/// The merge of two logs that each appended to a common ancestor is a valid log holding every
/// entry of both, once; merging the other way round holds the same entries.
pub fn merge(base: &[String], ours: &[String], theirs: &[String]) {
    let head = "# DECISION_LOG\n\n---\n\n";
    let b = format!("{head}{}", entries(0xb0, base));
    let o = format!("{b}{}", entries(0xa0, ours));
    let t = format!("{b}{}", entries(0xc0, theirs));
    let (merged, _) = crate::merge::decisions(&b, &o, &t);
    let log = DecisionLog::parse(Text::new(merged.clone()));
    let ids: Vec<&str> = log.entries.iter().map(|e| e.id.as_str()).collect();
    let unique: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len(), "an entry appears twice:\n{merged}");
    assert_eq!(ids.len(), base.len() + ours.len() + theirs.len(), "an entry was lost:\n{merged}");
    assert!(crate::verify::decisions("merged", &log).is_empty(), "the merge is not a valid log:\n{merged}");
    let (other, _) = crate::merge::decisions(&b, &t, &o);
    let other_ids: HashSet<String> = DecisionLog::parse(Text::new(other)).entries.iter().map(|e| e.id.clone()).collect();
    assert_eq!(other_ids, unique.iter().map(|s| s.to_string()).collect::<HashSet<_>>());
}

/// The merge driver's three-way input of arbitrary text never panics, for every file kind.
pub fn merge_any(base: &[u8], ours: &[u8], theirs: &[u8]) {
    let (b, o, t) = (text(base), text(ours), text(theirs));
    let _ = crate::merge::decisions(&b, &o, &t);
    let _ = crate::merge::priors(&b, &o, &t);
    let _ = crate::merge::state(&o, &t);
    let _ = crate::merge::session(&b, &o, &t);
    // Nothing either side did is lost: the side that did not only append is kept whole (its
    // own edits included, as git's three-way merge keeps them), and what the appending side
    // added follows it.
    if let Some(m) = crate::merge::append_only(base, ours, theirs) {
        let keeps = |whole: &[u8], appender: &[u8]| appender.starts_with(base) && m.starts_with(whole) && m.ends_with(&appender[base.len()..]) && m.len() == whole.len() + appender.len() - base.len();
        assert!(keeps(ours, theirs) || keeps(theirs, ours), "the append-only merge lost what a side added");
    }
}

/// An MCP request of any bytes: decoded or refused, never a panic; tool arguments likewise.
pub fn mcp_request(bytes: &[u8]) {
    let _ = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) {
        for tool in crate::mcp::TOOL_NAMES {
            let _ = crate::mcp::check_args(tool, v.clone());
        }
    }
}
