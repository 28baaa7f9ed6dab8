//! What is written to the log: a new decision rendered in canonical form, and the tombstone
//! `zo forget` leaves in place of an entry.

use super::{DecisionLog, fields};

/// Decision `i`'s tombstone: its heading time, ID and links kept, its text gone.
pub fn tombstone(log: &DecisionLog, i: usize, when: &str, reason: &str) -> String {
    let e = &log.entries[i];
    let heading = if e.timestamp.is_empty() {
        format!("## Decision: {}", crate::format::fact::FORGOTTEN)
    } else {
        format!("## Decision: {}", e.timestamp)
    };
    let links = |name: &str| log.field(i, name).unwrap_or("").to_string();
    let (supersedes, refs) = (links("Supersedes"), links("Refs"));
    crate::format::tombstone(
        &heading,
        &[
            ("ID", &e.id),
            ("Type", "FORGOTTEN"),
            ("Title", crate::format::fact::FORGOTTEN),
            ("Supersedes", &supersedes),
            ("Refs", &refs),
            ("Forgotten", when),
            ("Reason", reason),
        ],
    )
}

/// A decision about to be written. Values are already normalised and checked by the gate.
#[derive(Debug, Clone, Default)]
pub struct NewDecision {
    pub id: String,
    pub timestamp: String,
    pub kind: String,
    pub title: String,
    pub decision: String,
    pub rationale: String,
    pub alternatives: String,
    pub outcome: String,
    pub supersedes: String,
    pub refs: String,
    pub tags: String,
    pub session: String,
    pub confidence: String,
    pub paths: String,
    pub commit: String,
    /// The decision's status as written (provisional or active), for the report.
    pub status: crate::format::Status,
    /// Active decisions whose titles are nearly this one's (the write went ahead).
    pub similar: Vec<crate::format::Similar>,
    /// `sha256:…` of each secret written with --allow-secret (`gate::ALLOWED_FIELD` lines).
    pub allowed: Vec<String>,
}

impl NewDecision {
    /// The fields in canonical order, skipping empty optional ones.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let mut v = vec![
            ("ID", self.id.as_str()),
            ("Type", self.kind.as_str()),
            ("Title", self.title.as_str()),
        ];
        let optional = [
            ("Decision", &self.decision),
            ("Rationale", &self.rationale),
            ("Alternatives considered", &self.alternatives),
            ("Refs", &self.refs),
            ("Outcome", &self.outcome),
            ("Supersedes", &self.supersedes),
            ("Tags", &self.tags),
            ("Session", &self.session),
            ("Confidence", &self.confidence),
            ("Paths", &self.paths),
            ("Commit", &self.commit),
        ];
        v.extend(
            optional
                .into_iter()
                .filter(|(_, s)| !s.is_empty())
                .map(|(k, s)| (k, s.as_str())),
        );
        v
    }

    /// The canonical entry text, ending with its separator and a blank line.
    pub fn render(&self) -> String {
        let mut out = format!("## Decision: {}\n", self.timestamp);
        for (name, value) in self.fields() {
            fields::render_field(&mut out, name, value);
        }
        for h in &self.allowed {
            let (field, value) = fields::allowance_field(h);
            fields::render_field(&mut out, field, value);
        }
        out.push_str("\n---\n\n");
        out
    }
}
