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

/// A count with its noun in the right number: "1 outcome", "2 outcomes", "0 outcomes".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
