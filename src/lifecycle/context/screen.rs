//! Screening what goes into the bundle: entries the directive rules flag and no person here
//! approved are withheld, and named (by an ID and title zo would write) in the Withheld section.

use crate::format::decision::DecisionLog;
use crate::store::gate::frame;
use crate::store::memory::Memory;

/// Entries the directive rules flag and no person here approved (`store::approvals`): kept out
/// of the bundle, named in its Withheld section by ID, title and rule, never by their text.
#[derive(Default)]
pub(super) struct Screen {
    withheld: Vec<String>,
    /// Texts passed because a person here approved them, not yet paired with the form the
    /// bundle shows them in (`shown`).
    pending: Vec<String>,
    /// Approved entries as the bundle shows them: the output gate keeps them
    /// (`store::shown::Vouch::ApprovedAs`) instead of withholding what the rules flag.
    pub(super) vouched: Vec<crate::store::shown::Vouch>,
}

impl Screen {
    /// Whether entry `id` (titled `title`, its text `text`) may go into the bundle; if not, it
    /// is listed as withheld.
    pub(super) fn pass(&mut self, id: &str, title: &str, text: &str) -> bool {
        let flags = crate::store::approvals::withheld(text);
        if flags.is_empty() {
            if crate::store::approvals::is_approved(text) {
                self.pending.push(text.to_string());
            }
            return true;
        }
        self.pending.clear();
        let why: Vec<String> = flags
            .iter()
            .map(|f| format!("{} (rule {})", f.what, f.rule))
            .collect();
        // The title is withheld when it is half of what is flagged: flagged only as shown (a
        // fact's key beside its value), or a directive that needs the title's line to read as
        // one (a command begun in the title and ended in the next field).
        let flagged = crate::store::screened::flags(text);
        let half = flagged.is_empty()
            || (!title.trim().is_empty()
                && crate::store::screened::flags(&text.replacen(title, "", 1)).len()
                    < flagged.len());
        let title = if half {
            "(its title is withheld too)".to_string()
        } else {
            shown_title(title, "(its title is withheld too)")
        };
        self.withheld
            .push(format!("- {} {title}: {}", shown_id(id), why.join("; ")));
        false
    }

    /// The entry (or entries) passed last is shown as `displayed`: where a person approved
    /// it, the output gate is told so.
    pub(super) fn shown(&mut self, displayed: &str) {
        self.shown_as(&[displayed]);
    }

    /// `shown`, for an entry the bundle may show in any of several forms (a lesson in full or
    /// compact, STATE whole or its fields alone).
    pub(super) fn shown_as(&mut self, forms: &[&str]) {
        for source in self.pending.drain(..) {
            for displayed in forms {
                self.vouched.push(crate::store::shown::Vouch::ApprovedAs {
                    source: source.clone(),
                    shown: displayed.trim().to_string(),
                });
            }
        }
    }

    /// The Withheld section's text, when anything was.
    pub(super) fn text(&self) -> Option<String> {
        (!self.withheld.is_empty()).then(|| self.withheld.join("\n"))
    }
}

/// An entry's ID where zo names an entry outside its quoted text (Withheld, Arrived): an ID zo
/// would not write is the repository's text, and is not shown.
pub(super) fn shown_id(id: &str) -> String {
    if crate::format::is_entry_id(id)
        || crate::store::memory::is_shown_name(id) && id.ends_with(".md")
        || id == "STATE"
    {
        frame::name(id).trim_matches('"').to_string()
    } else {
        "(an entry whose ID is not one zo writes)".into()
    }
}

/// A title (or any one-line name from the repository: a commit's author) quoted, or `instead`
/// when the directive rules flag it.
pub(super) fn shown_title(title: &str, instead: &str) -> String {
    if crate::store::screened::flags(title).is_empty() {
        frame::name(title)
    } else {
        instead.to_string()
    }
}

/// Whether decision `i` may go into the bundle (None: it is withheld), and whether its latest
/// outcome may go with it: each entry is screened (and approved) on its own text, as `zo
/// approve` names it. A withheld outcome does not take its decision with it (an outcome
/// anyone can append would hide any decision); the decision is shown, saying its outcome is
/// withheld.
pub(super) fn screen_decision(screen: &mut Screen, log: &DecisionLog, i: usize) -> Option<bool> {
    let e = &log.entries[i];
    // The outcome first: a flagged one clears what is pending, and the decision's approval
    // must outlive it.
    let outcome = log.latest_outcome_entry(i).is_none_or(|j| {
        screen.pass(
            &log.entries[j].id,
            &log.entries[j].title,
            &log.entries[j].content(log),
        )
    });
    screen
        .pass(&e.id, &e.title, &e.content(log))
        .then_some(outcome)
}

/// A project fact's entry text (as `zo show` and recall give it), for the directive rules;
/// its value when the entry cannot be found.
pub(super) fn fact_text(memory: &Memory, v: &crate::store::facts::FactView) -> String {
    // Key and value as the bundle shows them, side by side: a command split between them is
    // one command to whoever reads the line.
    if crate::store::screened::flags(&format!("- {} = {}", v.key, v.value)).is_empty() {
        return v.value.clone();
    }
    memory
        .facts(crate::store::facts::Scope::Project)
        .ok()
        .and_then(|f| f.find(&v.id).map(|i| f.entries[i].content(&f)))
        .unwrap_or_else(|| v.value.clone())
}
