//! Recall as of a past moment (`zo recall --as-of`): the index holds the memory of now, so the
//! hits are filtered against the memory of then and given the statuses they had then.
//!
//! What then means per kind: a decision is kept when the log of then holds it, with its status
//! of then (a decision superseded since is active again); a fact version when it held then (the
//! index keeps only versions that hold or are provisional now, so a value replaced since is not
//! found here: `zo fact get KEY --as-of` reads it); a session when it ended by then; a prior
//! when PRIORS.md held it at the commit, or for a date at the last commit at or before it
//! (priors carry no time of their own).

use crate::search::index::Filter;
use crate::search::recall::Hit;
use crate::store::asof::AsOf;
use crate::store::facts::{Scope, key_state};
use crate::store::memory::Memory;
use anyhow::Result;

/// The hits that were in the memory at `at`, as they stood then, best first as they came.
/// `filter` is the user's (the search itself asks for superseded entries too, since an entry
/// superseded now may have been active then).
pub fn recall_hits(
    memory: &Memory,
    hits: Vec<Hit>,
    at: &AsOf,
    filter: &Filter,
) -> Result<Vec<Hit>> {
    let log = memory.decisions_as_of(Some(at))?;
    let threshold = memory.threshold()?;
    let facts = [Scope::Project, Scope::User]
        .map(|s| (s, memory.scope_facts_as_of(s, Some(at)).unwrap_or_default()));
    let priors = memory.priors_as_of(at)?;
    let until = at.secs();
    let mut out = Vec::new();
    for mut h in hits {
        let keep = match h.row.kind.as_str() {
            "decision" => match log
                .find(&h.row.id)
                .ok()
                .filter(|&i| log.entries[i].id == h.row.id)
            {
                Some(i) => {
                    let status = log.status(i);
                    h.row.status = status.to_string();
                    h.row.superseded_by = log.superseded_by(i).map(|d| d.id.clone());
                    match status {
                        crate::format::Status::Active => true,
                        crate::format::Status::Provisional => filter.all || filter.provisional,
                        _ => filter.all,
                    }
                }
                None => false,
            },
            "fact" => facts.iter().any(|(_, f)| {
                f.find(&h.row.id).is_some_and(|i| {
                    let ks = key_state(f, &f.entries[i].key, threshold);
                    match ks.status(f, i) {
                        crate::format::Status::Active => true,
                        crate::format::Status::Provisional => filter.all || filter.provisional,
                        _ => filter.all,
                    }
                })
            }),
            "session" => {
                crate::time::parse_instant(&h.row.timestamp, false).is_some_and(|t| t <= until)
            }
            "prior" => priors.as_ref().is_some_and(|p| p.find(&h.row.id).is_some()),
            _ => false,
        };
        if keep {
            out.push(h);
        }
    }
    Ok(out)
}
