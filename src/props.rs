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
    let _ = crate::store::verify::decisions("log", &log);
    let again = DecisionLog::parse(Text::new(t));
    assert_eq!(
        log.entries.iter().map(|e| &e.id).collect::<Vec<_>>(),
        again.entries.iter().map(|e| &e.id).collect::<Vec<_>>()
    );
}

/// A decision zo writes reads back with every field as given (normalised), appended to any log
/// that parses: render → parse is the identity on fields, and the entries before it survive.
pub fn decision_round_trip(
    prefix: &[u8],
    title: &str,
    decision: &str,
    rationale: &str,
    alternatives: &str,
) {
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
    let joint = if base.as_str().is_empty() {
        ""
    } else {
        base.joint(before.last_separated())
    };
    let written = base.with_appended(&format!("{joint}{}", new.render()));
    let log = DecisionLog::parse(Text::new(written));
    let Ok(i) = log.find("D-0123abcd") else {
        // Only a log that already holds that ID can hide it; the fuzzer may write one.
        assert!(
            before.find("D-0123abcd").is_ok()
                || before
                    .entries
                    .iter()
                    .any(|e| e.id.starts_with("D-0123abcd")),
            "the new entry was lost"
        );
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
        assert_eq!(
            log.field(i, "Alternatives considered").unwrap_or(""),
            new.alternatives
        );
    }
    assert_eq!(i + 1, log.entries.len(), "the new entry is the last one");
}

/// Any text reads as priors without panicking.
pub fn priors(bytes: &[u8]) {
    let pf = PriorsFile::parse(Text::new(text(bytes)));
    for p in &pf.entries {
        let _ = (p.rules(), p.root_cause(), p.superseded_by(), p.content(&pf));
    }
    let _ = crate::store::verify::priors("priors", &pf);
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
    assert!(
        starts.windows(2).all(|w| w[0] < w[1])
            && starts
                .iter()
                .all(|&s| s <= t.len() && t.is_char_boundary(s))
    );
    let _ = session::parse_file_name(&t);
    let _ = session::title_number(&t);
}

/// config.yaml: any text is a config or an error naming the file, never a panic.
pub fn config(bytes: &[u8]) {
    let _ = crate::store::config::Config::parse(std::path::Path::new("config.yaml"), &text(bytes));
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
                decision: if t.trim().is_empty() {
                    "d".into()
                } else {
                    normalize_value(t)
                },
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
    let m = crate::git::merge::decisions(&b, &o, &t);
    assert_eq!(m.conflicts, 0, "appends alone never conflict:\n{}", m.text);
    assert!(crate::git::merge::lost("decisions", &o, &t, &m.text).is_empty());
    let merged = m.text;
    let log = DecisionLog::parse(Text::new(merged.clone()));
    let ids: Vec<&str> = log.entries.iter().map(|e| e.id.as_str()).collect();
    let unique: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len(), "an entry appears twice:\n{merged}");
    assert_eq!(
        ids.len(),
        base.len() + ours.len() + theirs.len(),
        "an entry was lost:\n{merged}"
    );
    assert!(
        crate::store::verify::decisions("merged", &log).is_empty(),
        "the merge is not a valid log:\n{merged}"
    );
    let other = crate::git::merge::decisions(&b, &t, &o).text;
    let other_ids: HashSet<String> = DecisionLog::parse(Text::new(other))
        .entries
        .iter()
        .map(|e| e.id.clone())
        .collect();
    assert_eq!(
        other_ids,
        unique.iter().map(|s| s.to_string()).collect::<HashSet<_>>()
    );
}

/// The merge driver's three-way input of arbitrary text never panics, for every file kind.
pub fn merge_any(base: &[u8], ours: &[u8], theirs: &[u8]) {
    let (b, o, t) = (text(base), text(ours), text(theirs));
    for (kind, m) in [
        ("decisions", crate::git::merge::decisions(&b, &o, &t)),
        ("priors", crate::git::merge::priors(&b, &o, &t)),
        ("facts", crate::git::merge::facts(&b, &o, &t)),
    ] {
        let _ = crate::git::merge::lost(kind, &o, &t, &m.text);
    }
    let _ = crate::git::merge::state(&o, &t);
    let _ = crate::git::merge::session(&b, &o, &t);
    // Nothing either side did is lost: the side that did not only append is kept whole (its
    // own edits included, as git's three-way merge keeps them), and what the appending side
    // added follows it.
    if let Some(m) = crate::git::merge::append_only(base, ours, theirs) {
        let keeps = |whole: &[u8], appender: &[u8]| {
            appender.starts_with(base)
                && m.starts_with(whole)
                && m.ends_with(&appender[base.len()..])
                && m.len() == whole.len() + appender.len() - base.len()
        };
        assert!(
            keeps(ours, theirs) || keeps(theirs, ours),
            "the append-only merge lost what a side added"
        );
    }
}

/// An MCP request of any bytes: decoded or refused, never a panic; tool arguments likewise.
pub fn mcp_request(bytes: &[u8]) {
    if let crate::mcp::wire::Incoming::Request { method, params, .. } =
        crate::mcp::wire::parse(bytes)
        && method == "tools/call"
        && let Ok((name, args)) = crate::mcp::wire::call_params(params)
    {
        let _ = crate::mcp::check_args(&name, args);
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) {
        for tool in crate::mcp::TOOL_NAMES {
            let _ = crate::mcp::check_args(tool, v.clone());
        }
    }
}

/// Any bytes on the MCP server's stdin, read in small chunks with a small cap: no panic; every
/// non-blank line yields exactly one outcome and a line over the cap its length; no more than
/// the cap is ever held; every answer is one line of JSON-RPC with the code and id it must have.
pub fn mcp_line(bytes: &[u8]) {
    use crate::mcp::wire::{self, Incoming, Line};
    use serde_json::Value;
    const CAP: usize = 256;
    let mut lines = wire::Lines::new(std::io::BufReader::with_capacity(7, bytes), CAP);
    let mut outcomes = 0;
    while let Some(line) = lines.next_line().expect("a slice reads without error") {
        outcomes += 1;
        let incoming = match line {
            Line::Text(t) => {
                assert!(
                    t.len() <= CAP && !t.contains(&b'\n'),
                    "a line of {} bytes",
                    t.len()
                );
                assert!(
                    t.iter().any(|b| !b.is_ascii_whitespace()),
                    "a blank line was returned"
                );
                wire::parse(t)
            }
            Line::TooLong(n) => {
                assert!(n > CAP as u64, "{n} bytes called too long");
                wire::too_long(n, CAP)
            }
        };
        assert!(lines.held() <= CAP, "{} bytes held", lines.held());
        let answer = match incoming {
            Incoming::Request { id, method, params } => {
                assert!(id.is_string() || id.is_number(), "{id}");
                match (method.as_str(), wire::call_params(params)) {
                    ("tools/call", Err(e)) => Some(wire::error(id, &e)),
                    _ => Some(wire::result(id, Value::Null)),
                }
            }
            Incoming::Notification { .. } | Incoming::Response => None,
            Incoming::Invalid { id, error } => {
                assert!(
                    [wire::PARSE_ERROR, wire::INVALID_REQUEST].contains(&error.code),
                    "{error:?}"
                );
                assert!(id.is_null() || id.is_string() || id.is_number(), "{id}");
                Some(wire::error(id, &error))
            }
        };
        if let Some(a) = answer {
            let out = wire::line(&a);
            assert!(
                out.ends_with(b"\n") && !out[..out.len() - 1].contains(&b'\n'),
                "an answer of more than one line"
            );
            let back: Value = serde_json::from_slice(&out).expect("the answer is JSON");
            assert_eq!(back["jsonrpc"], "2.0");
        }
    }
    let blank = |l: &[u8]| l.iter().all(|b| b.is_ascii_whitespace());
    let expected = bytes.split(|b| *b == b'\n').filter(|l| !blank(l)).count();
    assert_eq!(outcomes, expected, "one outcome per non-blank line");
    assert!(
        lines
            .next_line()
            .expect("a slice reads without error")
            .is_none(),
        "the end stays the end"
    );
}

/// Any text reads as FACTS.md without panicking; a version zo writes reads back with its key
/// and value as given, appended to any text; the integrity checks run.
pub fn facts(prefix: &[u8], value: &str) {
    use crate::format::fact::{FactsFile, NewFact};
    let before = FactsFile::parse(Text::new(text(prefix)));
    let _ = crate::store::verify::facts("FACTS.md", &before);
    let _ = crate::store::facts::forks(&before, 0.7);
    let value = normalize_value(value);
    if value.trim().is_empty() {
        return;
    }
    let new = NewFact {
        id: "F-0123abcd".into(),
        key: "stack:web".into(),
        value: value.clone(),
        set: "2026-01-01T00:00:00.000Z".into(),
        ..Default::default()
    };
    let base = before.text.clone();
    let joint = if base.as_str().is_empty() {
        ""
    } else {
        base.joint(before.last_separated())
    };
    let after = FactsFile::parse(Text::new(
        base.with_appended(&format!("{joint}{}", new.render())),
    ));
    let Some(i) = after.find("F-0123abcd") else {
        assert!(
            before.find("F-0123abcd").is_some(),
            "the new version was lost"
        );
        return;
    };
    if before.find("F-0123abcd").is_none() {
        assert_eq!(
            (after.entries[i].key.as_str(), after.entries[i].value()),
            ("stack:web", value.as_str())
        );
        assert_eq!(
            after.entries.len(),
            before.entries.len() + 1,
            "appending changed how earlier versions split"
        );
    }
}

/// The facts merge keeps every version of both sides, and a version forgotten on one side is
/// a tombstone in the result whatever the other side holds.
pub fn facts_merge(base: &[String], ours: &[String], theirs: &[String], forget_ours: bool) {
    use crate::format::fact::{FactsFile, NewFact, tombstone};
    let render = |vals: &[String], tag: &str| -> String {
        vals.iter()
            .enumerate()
            .map(|(i, v)| {
                NewFact {
                    id: format!("F-{tag}{i:07}"),
                    key: format!("k:{}", i % 2),
                    value: if v.trim().is_empty() {
                        "x".into()
                    } else {
                        normalize_value(v)
                    },
                    set: format!("2026-01-01T00:00:0{}.000Z", i % 10),
                    ..Default::default()
                }
                .render()
            })
            .collect()
    };
    let b = render(base, "b");
    let (mut o, t) = (
        format!("{b}{}", render(ours, "o")),
        format!("{b}{}", render(theirs, "t")),
    );
    let mut gone = None;
    if forget_ours && !base.is_empty() {
        let f = FactsFile::parse(Text::new(o.clone()));
        let e = &f.entries[0];
        gone = Some(e.id.clone());
        o = format!(
            "{}{}{}",
            &o[..e.span.start],
            tombstone(e, "2026-02-02T00:00:00Z", "r"),
            &o[e.span.end..]
        );
    }
    for (x, y) in [(&o, &t), (&t, &o)] {
        let merged = crate::git::merge::facts(&b, x, y).text;
        let m = FactsFile::parse(Text::new(merged));
        let ids: HashSet<String> = m.entries.iter().map(|e| e.id.clone()).collect();
        for side in [x, y] {
            for e in FactsFile::parse(Text::new(side.clone())).entries {
                assert!(ids.contains(&e.id), "{} lost", e.id);
            }
        }
        assert_eq!(ids.len(), m.entries.len(), "an ID twice");
        if let Some(id) = &gone {
            assert!(
                m.entries[m.find(id).unwrap()].is_forgotten(),
                "{id} resurrected"
            );
        }
    }
}

/// The write gate on arbitrary fields: the first byte says whether secrets are allowed, the
/// rest is up to eight fields split at 0xFF (never in UTF-8). It never panics; a refusal names
/// one of the fields; what it accepts holds no control character (newline, tab and CRLF
/// aside); allowances are hashes, and only with --allow-secret; scanning and the verify-side
/// filter never panic on the joined text.
pub fn gate(bytes: &[u8]) {
    const NAMES: [&str; 8] = [
        "Title",
        "Decision",
        "Rationale",
        "Outcome",
        "Reason",
        "Agent",
        "Phase",
        "Handoff",
    ];
    let allow = bytes.first().is_some_and(|b| b & 1 == 1);
    let values: Vec<String> = bytes
        .get(1..)
        .unwrap_or_default()
        .split(|&b| b == 0xff)
        .take(NAMES.len())
        .map(text)
        .collect();
    let fields: Vec<(&str, &str)> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (NAMES[i], v.as_str()))
        .collect();
    match crate::store::gate::check_fields(&fields, allow) {
        Err(e) => {
            let m = e.to_string();
            assert!(
                fields
                    .iter()
                    .any(|(n, _)| m.contains(&format!("the {n} field"))),
                "a refusal that names no field: {m}"
            );
        }
        Ok(allowed) => {
            for (n, v) in &fields {
                assert!(
                    crate::store::gate::first_control(v).is_none(),
                    "{n} accepted with a control character: {v:?}"
                );
            }
            assert!(
                allow || allowed.is_empty(),
                "allowances without --allow-secret"
            );
            for a in &allowed {
                assert!(
                    a.hash.len() == 71 && a.hash.starts_with("sha256:"),
                    "{}",
                    a.hash
                );
            }
        }
    }
    let joined = values.join("\n");
    let found = crate::store::gate::find_secrets(&joined);
    let n = found.len();
    let left =
        crate::store::gate::unallowed(&joined, found, std::slice::from_ref(&(0..joined.len())));
    assert!(left.len() <= n);
    let shown = crate::store::gate::visible(&joined);
    assert!(
        crate::store::gate::first_control(&shown).is_none(),
        "visible() left a control character"
    );
}

/// The timestamp parser (`time`): any text — a `--as-of`, a session file's `**Started:**` —
/// never panics it, and a time it returns comes from text that starts with a real date.
pub fn timestamp(bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    for end_of_day in [false, true] {
        if let Some(t) = crate::time::parse_instant(&s, end_of_day) {
            assert!(crate::time::starts_with_date(s.trim()), "{s:?} gave {t}");
            assert!(crate::time::is_date(&s.trim()[..10]), "{s:?}");
        }
    }
    let _ = crate::time::age_days(&s);
    let _ = crate::time::is_date(&s);
}

/// The agent-facing renderer (`gate::frame`, the bundle): whatever the memory text, section
/// names and project name, every line of the bundle that is not quoted is one of zo's own, and
/// no control or invisible character is in it.
pub fn agent_render(bytes: &[u8]) {
    let parts: Vec<String> = bytes.split(|&b| b == 0xff).map(text).collect();
    let get = |i: usize| parts.get(i).cloned().unwrap_or_default();
    let quoted = crate::store::gate::frame::quote(&get(0));
    assert!(
        quoted.is_empty() || quoted.split('\n').all(|l| l.starts_with('>')),
        "{quoted:?}"
    );
    assert!(
        crate::store::gate::first_control(&quoted).is_none(),
        "{quoted:?}"
    );
    let name = crate::store::gate::frame::name(&get(1));
    assert!(
        !name.contains('\n') && crate::store::gate::first_control(&name).is_none(),
        "{name:?}"
    );
    let sections: Vec<crate::lifecycle::context::Section> = parts
        .iter()
        .skip(2)
        .collect::<Vec<_>>()
        .chunks(2)
        .map(|c| crate::lifecycle::context::Section {
            name: c[0].clone(),
            text: c.get(1).map(|t| (*t).clone()).unwrap_or_default(),
        })
        .collect();
    let names: Vec<String> = sections
        .iter()
        .map(|s| format!("## {}", crate::store::gate::frame::one_line(&s.name)))
        .collect();
    let b = crate::lifecycle::context::Bundle {
        project: get(1),
        budget: 4000,
        tokens: 0,
        sections,
        left_out: Default::default(),
        footer: "Left out: nothing.".into(),
        as_of: None,
        unreadable: vec![],
        vouched: vec![],
    };
    let md = b.markdown();
    assert!(crate::store::gate::first_control(&md).is_none(), "{md:?}");
    let frame = crate::templates::AGENT_FRAME.trim_end();
    for line in md.lines().filter(|l| !l.is_empty() && !l.starts_with('>')) {
        let own = line.starts_with("# Context: ")
            || line == frame
            || line == "Left out: nothing."
            || names.iter().any(|n| n == line);
        assert!(own, "a line no part of zo wrote: {line:?}\n{md}");
    }
}

/// The directive rules (`gate::directives`): any text never panics them, each finding's line
/// is a line of the text, and invisible characters inserted into the text hide nothing.
pub fn directives(bytes: &[u8]) {
    let s = text(bytes);
    let flags = crate::store::gate::directives::scan(&s);
    let lines = s.split('\n').count();
    for f in &flags {
        assert!(f.line >= 1 && f.line <= lines, "line {} of {lines}", f.line);
    }
    // Joiners and selectors are allowed beside some characters: a zero-width space beside one
    // would make it forbidden, and removed, which changes the text rather than hiding it.
    if s.chars()
        .any(|c| matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE0E}' | '\u{FE0F}'))
    {
        return;
    }
    let hidden: String = s.chars().flat_map(|c| [c, '\u{200B}']).collect();
    let again: Vec<&str> = crate::store::gate::directives::scan(&hidden)
        .iter()
        .map(|f| f.rule)
        .collect();
    for f in &flags {
        assert!(
            again.contains(&f.rule),
            "a zero-width space hid rule {}: {s:?}",
            f.rule
        );
    }
}
