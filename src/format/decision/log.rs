//! The whole log: parsing it, resolving the links between its entries (supersession,
//! outcomes, confirmations, hand-written cycles), finding entries and reading their statuses.

use super::fields::Body;
use super::scan::scan;
use super::{DEFAULT_THRESHOLD, Decision, DecisionLog, parse_full, referenced_ids};
use crate::format::Text;
use std::cell::OnceCell;
use std::collections::HashMap;

/// The cycles of a "superseded by" graph (`next[i]`: the entry that supersedes entry `i`),
/// each in chain order from its first entry in the file. One pass, so a hostile chain of any
/// length costs linear time.
pub fn supersede_cycles(next: &[Option<usize>]) -> Vec<Vec<usize>> {
    // 0: not seen; 1: on the current walk; 2: done.
    let mut state = vec![0u8; next.len()];
    let mut cycles = Vec::new();
    for start in 0..next.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at.filter(|&i| i < next.len() && state[i] == 0) {
            state[i] = 1;
            path.push(i);
            at = next[i];
        }
        if let Some(i) = at.filter(|&i| i < next.len() && state[i] == 1) {
            let from = path.iter().position(|&p| p == i).unwrap_or(0);
            let mut cycle = path[from..].to_vec();
            let first = cycle
                .iter()
                .enumerate()
                .min_by_key(|(_, i)| **i)
                .map_or(0, |(k, _)| k);
            cycle.rotate_left(first);
            cycles.push(cycle);
        }
        for i in path {
            state[i] = 2;
        }
    }
    cycles
}

#[derive(Debug)]
pub enum FindError {
    NotFound,
    Ambiguous(Vec<String>),
}

impl DecisionLog {
    pub fn parse(text: Text) -> DecisionLog {
        let entries: Vec<Decision> = scan(text.as_str())
            .into_iter()
            .map(|(span, keys)| Decision::parse(text.as_str(), span, keys))
            .collect();
        let mut log = DecisionLog {
            text,
            entries,
            ..Default::default()
        };
        log.link();
        log
    }

    fn by_id(&self) -> &HashMap<String, usize> {
        self.by_id.get_or_init(|| by_id_of(&self.entries))
    }

    /// Whether the text was read in full (false for a log restored from its summary, whose
    /// `text` is empty).
    pub fn is_whole(&self) -> bool {
        self.source.is_none()
    }

    /// Whether any line may start with `**Paths:**` (so `zo stale` has something to measure).
    pub fn may_name_paths(&self) -> bool {
        match self.source {
            Some(_) => self.names_paths,
            None => names_paths(self.text.as_str()),
        }
    }

    pub(super) fn link(&mut self) {
        let by_id = by_id_of(&self.entries);
        // Older logs refer to entries by heading timestamp; that map is built only when some
        // reference is not an ID (most logs never need it).
        let mut by_ts: Option<HashMap<&str, usize>> = None;
        let mut resolve = |r: &str| -> Option<usize> {
            if let Some(&i) = by_id.get(r) {
                return Some(i);
            }
            let map = by_ts.get_or_insert_with(|| {
                let mut m = HashMap::new();
                for (i, e) in self.entries.iter().enumerate() {
                    if !e.timestamp.is_empty() {
                        m.entry(e.timestamp.as_str()).or_insert(i);
                    }
                }
                m
            });
            map.get(r).copied()
        };
        let mut superseded_by = HashMap::new();
        let mut outcomes: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut confirmed = std::collections::HashSet::new();
        for (i, e) in self.entries.iter().enumerate() {
            if e.is_outcome() || e.is_confirmation() {
                if let Some(v) = &e.refs {
                    for r in referenced_ids(v) {
                        if let Some(t) = resolve(&r) {
                            if e.is_outcome() {
                                outcomes.entry(t).or_default().push(i);
                            } else {
                                confirmed.insert(t);
                            }
                        }
                    }
                }
            }
        }
        // Only a decision of its own retires another: an outcome, a confirmation or a
        // promotion record that carries `Supersedes` is shown as none, so it would hide a
        // decision behind a line no reader sees; a provisional one retires it once confirmed.
        let threshold = self.threshold();
        for (i, e) in self.entries.iter().enumerate() {
            let Some(v) = &e.supersedes else { continue };
            if e.is_outcome() || e.is_confirmation() || e.is_promotion() {
                continue;
            }
            if e.tentative(threshold) && !confirmed.contains(&i) {
                continue;
            }
            for r in referenced_ids(v) {
                if let Some(t) = resolve(&r) {
                    if t != i {
                        superseded_by.insert(t, i);
                    }
                }
            }
        }
        let n = self.entries.len();
        let cycles = supersede_cycles(
            &(0..n)
                .map(|i| superseded_by.get(&i).copied())
                .collect::<Vec<_>>(),
        );
        for i in cycles.iter().flatten() {
            superseded_by.remove(i);
        }
        self.superseded_by = superseded_by;
        self.by_id = OnceCell::from(by_id);
        self.cycles = cycles;
        self.outcomes = outcomes;
        self.confirmed = confirmed;
    }

    /// Index of an entry by exact ID, by heading timestamp, or by a unique ID prefix (any case).
    pub fn find(&self, query: &str) -> Result<usize, FindError> {
        let q = query.trim();
        if let Some(&i) = self.by_id().get(q) {
            return Ok(i);
        }
        let ql = q.to_ascii_lowercase();
        let hits: Vec<usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.id.to_ascii_lowercase().starts_with(&ql) || e.timestamp == q)
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(FindError::NotFound),
            many => Err(FindError::Ambiguous(
                many.iter().map(|&i| self.entries[i].id.clone()).collect(),
            )),
        }
    }

    /// Whether an entry has exactly this ID (a hash lookup: new IDs are checked against it).
    pub fn has_id(&self, id: &str) -> bool {
        self.by_id().contains_key(id)
    }

    /// Supersede cycles (entry indexes in chain order), for `verify` to report.
    pub fn cycles(&self) -> &[Vec<usize>] {
        &self.cycles
    }

    pub fn superseded_by(&self, i: usize) -> Option<&Decision> {
        self.superseded_by.get(&i).map(|&j| &self.entries[j])
    }

    /// The full fields of entry `i` (parsed on first use).
    pub fn body(&self, i: usize) -> &Body {
        let e = &self.entries[i];
        e.body
            .get_or_init(|| Box::new(parse_full(e.raw(self), e.span.line)))
    }

    pub fn field(&self, i: usize, name: &str) -> Option<&str> {
        self.body(i).get(name)
    }

    /// The latest OUTCOME entry for a decision, if any.
    pub fn latest_outcome_entry(&self, i: usize) -> Option<usize> {
        self.outcomes.get(&i).and_then(|v| v.last()).copied()
    }

    /// The decision's latest outcome: from the last OUTCOME entry, else its own field.
    pub fn latest_outcome(&self, i: usize) -> Option<&str> {
        self.latest_outcome_entry(i)
            .and_then(|o| self.field(o, "Outcome"))
            .or_else(|| self.field(i, "Outcome"))
    }

    /// `forgotten` (a tombstone), `superseded`, `provisional` (tentative and not confirmed) or
    /// `active`.
    pub fn status(&self, i: usize) -> crate::format::Status {
        let e = &self.entries[i];
        if e.is_forgotten() {
            crate::format::Status::Forgotten
        } else if self.superseded_by.contains_key(&i) {
            crate::format::Status::Superseded
        } else if e.tentative(self.threshold()) && !self.confirmed.contains(&i) {
            crate::format::Status::Provisional
        } else {
            crate::format::Status::Active
        }
    }

    /// The pairs of decisions recorded as holding together: a confirmation that refers to
    /// both (`zo confirm A --compatible-with B`), each pair in ID order. Contradictions
    /// (`lifecycle::contradictions`) leave them out.
    pub fn compatible_pairs(&self) -> std::collections::HashSet<(String, String)> {
        let mut out = std::collections::HashSet::new();
        for e in self.entries.iter().filter(|e| e.is_confirmation()) {
            let ids: Vec<String> = e.refs.as_deref().map(referenced_ids).unwrap_or_default();
            for (n, a) in ids.iter().enumerate() {
                for b in &ids[n + 1..] {
                    out.insert(pair(a, b));
                }
            }
        }
        out
    }

    /// Whether decisions `a` and `b` (their IDs) are recorded as holding together.
    pub fn recorded_compatible(&self, a: &str, b: &str) -> bool {
        self.compatible_pairs().contains(&pair(a, b))
    }

    /// How many decisions the log holds: its entries less the annotations (outcomes,
    /// confirmations, forgettings, promotions), which say something of a decision.
    pub fn decision_count(&self) -> usize {
        self.entries.iter().filter(|e| !e.is_annotation()).count()
    }

    pub fn threshold(&self) -> f64 {
        self.threshold.unwrap_or(DEFAULT_THRESHOLD)
    }

    /// Read statuses against this promotion threshold (config's `promotion.threshold`).
    pub fn with_threshold(mut self, t: f64) -> DecisionLog {
        self.threshold = Some(t);
        self
    }

    /// Whether the last entry ended with a `---` (None when the log has no entries).
    pub fn last_separated(&self) -> Option<bool> {
        self.entries.last().map(|e| e.separated)
    }
}

/// Two decisions' IDs in one order: the key of a pair, whichever way it was named.
pub fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Whether some line of a decision log's text starts with `**Paths:**` (one search for line
/// starts): only then can a decision name paths for `zo stale` to measure.
pub fn names_paths(text: &str) -> bool {
    crate::format::line_starts(text, "**Paths:**")
        .next()
        .is_some()
}

/// Entry by exact ID, the first of duplicates (`verify` reports them).
fn by_id_of(entries: &[Decision]) -> HashMap<String, usize> {
    // Sized once: growing the map by doubling rehashed every ID several times.
    let mut by_id = HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        by_id.entry(e.id.clone()).or_insert(i);
    }
    by_id
}
