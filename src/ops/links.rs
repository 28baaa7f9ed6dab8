//! `zo links` and what `zo continue` says of the links: each linked memory's path, whether it
//! opens, its HEAD, whether it is behind its upstream; the memories the project's config
//! expects that are not linked here; what was configured and not followed, and why.

use crate::store::links::{self, LinkState, Links};
use crate::store::memory::Memory;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct LinksReport {
    pub links: Vec<LinkState>,
    /// Named by the project's config.yaml, not linked on this machine.
    pub expected: Vec<links::Expected>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Every link's state, and the expected names not linked.
pub fn report(memory: &Memory) -> LinksReport {
    let l: Links = links::load(&memory.layout);
    let expected = l.unlinked().cloned().collect();
    LinksReport {
        links: l.links.iter().map(links::state).collect(),
        expected,
        notes: l.notes,
    }
}

impl LinksReport {
    /// One line per link (name, reachable or why not, HEAD, path), then what is expected.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in &self.links {
            let head = match (&l.head, &l.branch) {
                (Some(h), Some(b)) => format!("{b} {h}"),
                (Some(h), None) => h.clone(),
                _ => "-".into(),
            };
            let state = if l.reachable {
                "reachable"
            } else {
                "unreachable"
            };
            let from = match l.link.source {
                links::Source::Local => "local",
                links::Source::User => "user",
            };
            s.push_str(&format!(
                "{}\t{state}\t{head}\t{}\t({from})\n",
                l.link.name,
                l.link.path.display()
            ));
        }
        s
    }

    /// What a person should hear: unreachable or lagging links, expected memories not linked.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self.notes.clone();
        out.extend(self.links.iter().filter_map(|l| l.problem.clone()));
        for e in &self.expected {
            let hint = e
                .hint
                .as_deref()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            out.push(format!("this project expects the linked memory {}{hint}: get that repository, then `zo link PATH --name {}`", e.name, e.name));
        }
        out
    }
}
