//! Text both front-ends show: what the CLI prints and the MCP server returns as a tool's text
//! for the same report, rendered once here so neither front-end borrows from the other.

use crate::format::Status;
use crate::store::facts::FactView;

/// `key = value` lines (with the ID, scope and status when listing every version).
pub fn facts(list: &[FactView], all: bool) -> String {
    let mut s = String::new();
    for v in list {
        let value = v.value.replace('\n', "\n    ");
        if all {
            s.push_str(&format!(
                "{}  {} = {}  [{}, {}]\n",
                v.id,
                v.key,
                value,
                v.scope.name(),
                v.status
            ));
        } else if v.scope == crate::store::facts::Scope::User {
            s.push_str(&format!("{} = {}  [user]\n", v.key, value));
        } else {
            s.push_str(&format!("{} = {}\n", v.key, value));
        }
    }
    s
}

pub use crate::format::{count, moved};

/// What `ops::show` found, as text: zo's warning first when the directive rules flag the entry,
/// the entry's text (quoted `> ` for an agent, as every agent-facing output quotes memory:
/// SPEC §7), and for a decision its latest outcome and what superseded it. The CLI prints it,
/// the MCP server returns it.
pub fn show(v: &serde_json::Value, quoted: bool) -> String {
    let s = |k: &str| v[k].as_str().unwrap_or_default();
    let one = crate::store::gate::frame::one_line;
    let mut out = String::new();
    if let Some(m) = v.get("memory").and_then(|m| m.as_str()) {
        out.push_str(&format!("(from the linked memory {})\n", one(m)));
    }
    let text = s("text").trim_end();
    out.push_str(&if quoted {
        crate::store::gate::frame::quote(text)
    } else {
        text.to_string()
    });
    out.push('\n');
    if v["kind"] == "decision" {
        if v.get("outcome_entry_id").is_some() {
            out.push_str(&format!(
                "\nLatest outcome ({}, {}): {}\n",
                one(s("outcome_entry_id")),
                one(s("outcome_entry_timestamp")),
                one(s("outcome"))
            ));
        }
        if !v["superseded_by"].is_null() {
            out.push_str(&format!(
                "\nSuperseded by {} ({}): {}\n",
                one(s("superseded_by")),
                one(s("superseded_by_timestamp")),
                one(s("superseded_by_title"))
            ));
        }
    }
    out
}

/// `stale` when nothing is.
pub fn none_stale(checked: usize) -> String {
    if checked == 1 {
        "the one decision with paths is not stale".into()
    } else {
        format!("none of the {checked} decisions with paths is stale")
    }
}

/// What a session's end wrote: "sessions/….md written (1 decision, 0 priors)".
pub fn ended(file: &str, decisions: usize, priors: usize) -> String {
    format!(
        "{file} written ({}, {})",
        count(decisions, "decision", "decisions"),
        count(priors, "prior", "priors")
    )
}

/// What a list line shows for a title the directive rules flag.
const WITHHELD: &str = "(title withheld: it reads as an instruction to an agent; `show` marks it)";

/// One line of `log` per decision: ID, date, type, title, and what became of it. A title the
/// directive rules flag is not printed (the output gate would take the whole line, ID and all,
/// out); at a person's terminal (not `withhold`) the line also says it is not approved.
pub fn log_line(log: &crate::format::decision::DecisionLog, i: usize, withhold: bool) -> String {
    let e = &log.entries[i];
    // One line per decision whatever its fields hold: a title continued on the next lines
    // (a hand edit) printed a line that read as another decision's.
    let one = crate::store::gate::frame::one_line;
    let flagged = !crate::store::screened::flags(&e.title).is_empty();
    let title = crate::store::screened::title_or(&e.title, WITHHELD);
    let mut s = format!(
        "{}  {:<10}  {:<12}  {title}",
        one(&e.id),
        e.date(),
        one(&e.kind)
    );
    if let Some(by) = log.superseded_by(i) {
        s.push_str(&format!("  [superseded by {}]", by.id));
    }
    if let Some(r) = e
        .refs
        .as_deref()
        .filter(|_| e.is_outcome() || e.is_confirmation() || e.is_promotion())
    {
        s.push_str(&format!("  [for {r}]"));
    }
    // An agent reads this list too (its shell runs `zo log`): a title the directive rules flag
    // is marked, as `show` and `recall` mark the entry.
    if flagged && !withhold {
        s.push_str("  [not approved: reads as an instruction to an agent; zo show says why]");
    }
    // A tombstone's title already says "[forgotten]": not twice.
    let status = log.status(i);
    if status == Status::Provisional
        || (status == Status::Forgotten && e.title != crate::format::fact::FORGOTTEN)
    {
        s.push_str(&format!("  [{status}]"));
    }
    s.push('\n');
    s
}

/// `status` in one screen.
pub fn status(r: &crate::ops::StatusReport) -> String {
    let mut s = format!("project   {}\n", r.project);
    let mode = r
        .mode
        .as_ref()
        .map(|m| format!(" (mode {m})"))
        .unwrap_or_default();
    s.push_str(&format!(
        "phase     {}{mode}\n",
        r.phase.as_deref().unwrap_or("-")
    ));
    if let Some(t) = &r.updated {
        s.push_str(&format!("updated   {t}\n"));
    }
    let list = |name: &str, items: &[String], s: &mut String| {
        if items.is_empty() {
            s.push_str(&format!("{name:<9} none\n"));
        }
        for (i, b) in items.iter().enumerate() {
            s.push_str(&format!("{:<9} - {b}\n", if i == 0 { name } else { "" }));
        }
    };
    list("blockers", &r.blockers, &mut s);
    list("next", &r.next_steps, &mut s);
    s.push_str(&status_counts(r));
    if let Some(e) = &r.last_decision {
        let title = crate::store::screened::title_or(&e.title, WITHHELD);
        s.push_str(&format!(
            "last      {} {} {title}\n",
            e.id,
            e.timestamp.get(..10).unwrap_or(&e.timestamp)
        ));
    }
    if let Some(sn) = &r.last_session {
        s.push_str(&format!("session   {sn}\n"));
    }
    if let Some(sn) = &r.last_snapshot {
        s.push_str(&format!("snapshot  {sn}\n"));
    }
    let ix = &r.index;
    let fresh = if !ix.built {
        "not built"
    } else if ix.fresh {
        "fresh"
    } else {
        "stale (refreshed by the next recall)"
    };
    s.push_str(&format!("index     {fresh}, {} recall\n", ix.mode));
    s.push_str(&status_git(r));
    s
}

/// `status`'s memory lines: what it holds, and what wants attention.
fn status_counts(r: &crate::ops::StatusReport) -> String {
    let c = &r.counts;
    let mut s = format!(
        "memory    {}, {}, {}, {}  ({})\n",
        count(c.decisions, "decision", "decisions"),
        count(c.priors, "prior", "priors"),
        count(c.sessions, "session", "sessions"),
        count(c.snapshots, "snapshot", "snapshots"),
        r.memory
    );
    if c.facts > 0 || c.provisional > 0 || c.stale > 0 || c.contradictions > 0 {
        let mut parts = vec![count(c.facts, "fact", "facts")];
        if c.provisional > 0 {
            parts.push(format!(
                "{} (marked in zo log; zo confirm ID)",
                count(
                    c.provisional,
                    "provisional decision",
                    "provisional decisions"
                )
            ));
        }
        if c.stale > 0 {
            parts.push(format!(
                "{} (zo stale)",
                count(c.stale, "stale decision", "stale decisions")
            ));
        }
        if c.contradictions > 0 {
            parts.push(format!(
                "{} (zo verify names them)",
                count(
                    c.contradictions,
                    "pair of decisions that disagree",
                    "pairs of decisions that disagree"
                )
            ));
        }
        s.push_str(&format!("          {}\n", parts.join(", ")));
    }
    s
}

/// `status`'s git lines: branch, whether memory is committed, how merges are routed.
fn status_git(r: &crate::ops::StatusReport) -> String {
    let g = &r.git;
    if !g.repository {
        return "git       not a git repository\n".into();
    }
    let zo = &r.zo_dir;
    let state = match g.zo_dirty {
        Some(true) => format!("{zo}/ has uncommitted changes"),
        Some(false) => format!("{zo}/ committed"),
        None => "unknown".into(),
    };
    let mut s = format!(
        "git       {} @ {}, {state}\n",
        g.branch.as_deref().unwrap_or("(detached)"),
        g.head.as_deref().unwrap_or("(no commits)")
    );
    let file = &r.attributes_file;
    let routing = match g.merge_routing {
        Some("committed") => "routing committed".to_string(),
        Some("uncommitted") => format!(
            "{file} NOT committed: other clones will merge memory line by line (zo checkpoint)"
        ),
        _ => format!("{file} missing (zo continue)"),
    };
    let driver = match g.merge_driver {
        Some(scope) => format!("driver registered ({scope})"),
        None => "driver NOT registered on this machine (zo setup)".into(),
    };
    s.push_str(&format!("merge     {routing}; {driver}\n"));
    s
}

/// `stale`: each decision (the stale ones, or `all`) with its paths and how far they moved.
pub fn stale(r: &crate::lifecycle::stale::StaleReport, all: bool) -> String {
    let mut s = String::new();
    for d in r.decisions.iter().filter(|d| all || d.stale) {
        let since = d
            .since
            .as_deref()
            .map_or("its commit is not in this repository".to_string(), |c| {
                format!("since {c}")
            });
        let mark = if d.stale { "  [stale]" } else { "" };
        let title = crate::store::screened::title_or(&d.title, WITHHELD);
        s.push_str(&format!(
            "{}  {title}{mark}\n    {}: {} changed {since}\n",
            d.id,
            d.paths.join(", "),
            moved(d.commits, d.lines)
        ));
    }
    s
}
