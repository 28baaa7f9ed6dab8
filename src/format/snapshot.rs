//! Phase snapshots (SPEC §2): `snapshots/<phase>_<YYYY-MM-DDTHH-MM-SS>.md`, YAML front matter
//! (what it covers) then the STATE at that moment, the phase's decisions and a handoff. Rendered
//! and read back here; `lifecycle::snapshot` decides what goes in.

use crate::format::state::Value;

/// A snapshot's contents.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub phase: String,
    pub outcome: String,
    pub completed_at: String,
    /// The commit, or `null` outside git.
    pub git_head: String,
    pub decisions: Vec<String>,
    pub priors: Vec<String>,
    pub sessions: Vec<String>,
    /// Whole lines recording the secrets the writer let through (or STATE.md's, inherited),
    /// as the gate writes them.
    pub allowed: Vec<String>,
    /// STATE.md's fields at that moment.
    pub state: Vec<(String, Value)>,
    /// The phase's decisions: ID, title (shown: no character the gate refuses), and what
    /// superseded it.
    pub decision_lines: Vec<(String, String, Option<String>)>,
    pub handoff: String,
}

impl Snapshot {
    /// The file name for a snapshot of `phase` completed at `now`.
    pub fn file_name(&self) -> String {
        format!(
            "{}_{}.md",
            self.phase,
            self.completed_at.trim_end_matches('Z').replace(':', "-")
        )
    }

    /// The STATE section's lines, rendered as STATE.md renders its fields (one renderer).
    pub fn state_lines(&self) -> String {
        self.state
            .iter()
            .map(|(k, v)| crate::format::state::State::render_value(k, v))
            .collect()
    }

    pub fn render(&self) -> String {
        let list = |v: &[String]| format!("[{}]", v.join(", "));
        let allowed: String = self
            .allowed
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        let allowed = if allowed.is_empty() {
            allowed
        } else {
            format!("{allowed}\n")
        };
        let decisions: String = if self.decision_lines.is_empty() {
            "none\n".into()
        } else {
            let by = |b: &Option<String>| {
                b.as_ref()
                    .map(|b| format!(" (superseded by {b})"))
                    .unwrap_or_default()
            };
            self.decision_lines
                .iter()
                .map(|(id, title, b)| format!("- {id} — {title}{}\n", by(b)))
                .collect()
        };
        format!(
            "---\nschema_version: 1\nphase: {}\ngate_outcome: {}\ncompleted_at: {}\ngit_head: {}\ndecisions: {}\npriors: {}\nsessions: {}\n---\n\n\
             # Snapshot: {} → {}\n\n{allowed}## STATE\n{}\n## Decisions\n{decisions}\n## Handoff\n{}\n",
            self.phase,
            self.outcome,
            self.completed_at,
            self.git_head,
            list(&self.decisions),
            list(&self.priors),
            list(&self.sessions),
            self.phase,
            self.outcome,
            self.state_lines(),
            self.handoff.trim(),
        )
    }

    /// A front-matter list of a snapshot's text (what an earlier snapshot covered).
    pub fn front_list(text: &str, key: &str) -> Vec<String> {
        Self::front(text, key)
            .map(|v| {
                v.trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A front-matter scalar.
    pub fn front(text: &str, key: &str) -> Option<String> {
        let body = text.strip_prefix("---\n")?;
        let end = body.find("\n---\n")?;
        body[..end]
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
            .map(str::to_string)
    }

    /// What a snapshot's front matter says (the parts a later snapshot and the readers use).
    pub fn parse_front(text: &str) -> Snapshot {
        let one = |k: &str| Self::front(text, k).unwrap_or_default();
        Snapshot {
            phase: one("phase"),
            outcome: one("gate_outcome"),
            completed_at: one("completed_at"),
            git_head: one("git_head"),
            decisions: Self::front_list(text, "decisions"),
            priors: Self::front_list(text, "priors"),
            sessions: Self::front_list(text, "sessions"),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Snapshot {
        Snapshot {
            phase: "phase_2".into(),
            outcome: "passed".into(),
            completed_at: "2026-11-25T20:00:00Z".into(),
            git_head: "4be1c0d".into(),
            decisions: vec!["D-20261125-001".into(), "D-20261125-002".into()],
            priors: vec!["PR-003".into()],
            sessions: vec![],
            allowed: vec![],
            state: vec![
                ("phase".into(), Value::Scalar("phase_2".into())),
                (
                    "next_steps".into(),
                    Value::List(vec!["a, with a comma".into(), "b".into()]),
                ),
            ],
            decision_lines: vec![(
                "D-20261125-001".into(),
                "Use Postgres".into(),
                Some("D-20261125-002".into()),
            )],
            handoff: "Next steps:\n- a".into(),
        }
    }

    #[test]
    fn the_front_matter_reads_back_what_was_rendered() {
        let s = sample();
        let back = Snapshot::parse_front(&s.render());
        assert_eq!(
            (back.phase, back.outcome, back.completed_at, back.git_head),
            (
                s.phase.clone(),
                s.outcome.clone(),
                s.completed_at.clone(),
                s.git_head.clone()
            )
        );
        assert_eq!(
            (back.decisions, back.priors, back.sessions),
            (s.decisions, s.priors, s.sessions)
        );
    }

    /// The snapshot's STATE section listed `[a, with a comma, b]`: three items read back where
    /// two were written. It renders as STATE.md does, and reads back as STATE.md's fields.
    #[test]
    fn a_state_list_with_a_comma_reads_back_whole() {
        let text = sample().render();
        let section =
            &text[text.find("## STATE\n").unwrap() + 9..text.find("\n## Decisions").unwrap()];
        let state = crate::format::state::State::parse(crate::format::Text::new(format!(
            "# STATE\n{section}"
        )));
        assert_eq!(
            state.list("next_steps"),
            vec!["a, with a comma".to_string(), "b".to_string()]
        );
        assert_eq!(state.scalar("phase").as_deref(), Some("phase_2"));
    }

    #[test]
    fn a_front_matter_key_outside_the_front_matter_is_not_read() {
        let text = "---\nphase: p\n---\n\nphase: not this\n";
        assert_eq!(Snapshot::front(text, "phase").as_deref(), Some("p"));
        assert_eq!(Snapshot::front(text, "decisions"), None);
    }
}
