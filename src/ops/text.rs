//! Text both front-ends show: what the CLI prints and the MCP server returns as a tool's text
//! for the same report, rendered once here so neither front-end borrows from the other.

use crate::store::facts::FactView;

/// `key = value` lines (with the ID, scope and status when listing every version).
pub fn facts(list: &[FactView], all: bool) -> String {
    let mut s = String::new();
    for v in list {
        let value = v.value.replace('\n', "\n    ");
        if all {
            s.push_str(&format!("{}  {} = {}  [{}, {}]\n", v.id, v.key, value, v.scope.name(), v.status));
        } else if v.scope == crate::store::facts::Scope::User {
            s.push_str(&format!("{} = {}  [user]\n", v.key, value));
        } else {
            s.push_str(&format!("{} = {}\n", v.key, value));
        }
    }
    s
}

pub use crate::format::count;

/// How far a decision's paths moved: "3 commits, 1 line".
pub fn moved(commits: usize, lines: u64) -> String {
    format!("{}, {}", count(commits, "commit", "commits"), count(lines as usize, "line", "lines"))
}

/// `stale` when nothing is.
pub fn none_stale(checked: usize) -> String {
    if checked == 1 { "the one decision with paths is not stale".into() } else { format!("none of the {checked} decisions with paths is stale") }
}

/// What a session's end wrote: "sessions/….md written (1 decision, 0 priors)".
pub fn ended(file: &str, decisions: usize, priors: usize) -> String {
    format!("{file} written ({}, {})", count(decisions, "decision", "decisions"), count(priors, "prior", "priors"))
}
