//! A log restored from its derived summary rather than parsed: the entries' key fields and
//! the links between them as recorded, each entry's text read from the file on first use.

use super::scan::scan;
use super::{Decision, DecisionLog};
use crate::format::Span;
use std::cell::OnceCell;
use std::collections::HashMap;

/// Where a log restored from its derived summary reads an entry's text on first use (the
/// store reads the span from the file the summary was proven fresh against): the hook path
/// reads only the entries it shows. A span that cannot be read gives empty text.
pub trait Source: std::fmt::Debug + Send + Sync {
    fn read(&self, start: usize, end: usize) -> String;
}

/// What `parse` resolves between entries, as plain lists: a log's summary records them so a
/// log restored from it need not resolve every reference again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    /// (superseded entry, the entry superseding it); cycle members are not in it.
    pub superseded_by: Vec<(usize, usize)>,
    /// (decision, an OUTCOME entry for it), each decision's outcomes in file order.
    pub outcomes: Vec<(usize, usize)>,
    /// Decisions a CONFIRM entry refers to.
    pub confirmed: Vec<usize>,
    /// Supersede cycles, each in chain order.
    pub cycles: Vec<Vec<usize>>,
}

impl Decision {
    /// An entry as its key fields were recorded in the log's summary (the text is read later).
    #[allow(clippy::too_many_arguments)]
    pub fn restored(
        span: Span,
        id: String,
        id_derived: bool,
        timestamp: String,
        title: String,
        kind: String,
        supersedes: Option<String>,
        refs: Option<String>,
        confidence: Option<f64>,
        separated: bool,
    ) -> Decision {
        Decision {
            span,
            id,
            id_derived,
            timestamp,
            title,
            kind,
            supersedes,
            refs,
            confidence,
            separated,
            body: OnceCell::new(),
            piece: OnceCell::new(),
        }
    }
}

impl DecisionLog {
    /// A log restored from its summary: the entries' key fields and the links between them
    /// as `parse` resolved them when the summary was written (`links`), each entry's text read
    /// from `source` when first needed.
    pub fn restored(
        entries: Vec<Decision>,
        links: Links,
        source: std::sync::Arc<dyn Source>,
        names_paths: bool,
    ) -> DecisionLog {
        let mut outcomes: HashMap<usize, Vec<usize>> = HashMap::new();
        for (t, o) in links.outcomes {
            outcomes.entry(t).or_default().push(o);
        }
        DecisionLog {
            entries,
            superseded_by: links.superseded_by.into_iter().collect(),
            cycles: links.cycles,
            outcomes,
            confirmed: links.confirmed.into_iter().collect(),
            source: Some(source),
            names_paths,
            ..Default::default()
        }
    }

    /// A log restored from an older summary of a file that has since grown: `entries` are the
    /// summary's entries before its last one, and `tail` the file's text from where that last
    /// entry started (byte `at` of the text, on line `line`) to its new end. The tail is read as
    /// `parse` reads the whole (the walk needs no state from before an entry's heading), and
    /// the links are resolved again over every entry. What zo's writers do (append) costs a
    /// walk over what they appended, not over the log.
    pub fn extended(
        mut entries: Vec<Decision>,
        tail: &str,
        at: usize,
        line: usize,
        source: std::sync::Arc<dyn Source>,
        names_paths: bool,
    ) -> DecisionLog {
        for (span, keys) in scan(tail) {
            // Sliced from the tail, numbered in the whole file; then placed in the whole text.
            let mut d = Decision::parse(
                tail,
                Span {
                    line: span.line + line - 1,
                    ..span
                },
                keys,
            );
            let _ = d.piece.set(tail[span.start..span.end].to_string());
            d.span.start += at;
            d.span.end += at;
            entries.push(d);
        }
        let mut log = DecisionLog {
            entries,
            source: Some(source),
            names_paths,
            ..Default::default()
        };
        log.link();
        log
    }

    /// The links between entries as `parse` resolved them, for the summary to record (each
    /// list sorted, so equal logs give equal summaries).
    pub fn links(&self) -> Links {
        let mut superseded_by: Vec<(usize, usize)> =
            self.superseded_by.iter().map(|(&t, &i)| (t, i)).collect();
        superseded_by.sort_unstable();
        let mut outcomes: Vec<(usize, usize)> = self
            .outcomes
            .iter()
            .flat_map(|(&t, v)| v.iter().map(move |&o| (t, o)))
            .collect();
        // By target, each target's outcomes in file order (as `link` pushed them).
        outcomes.sort_unstable();
        let mut confirmed: Vec<usize> = self.confirmed.iter().copied().collect();
        confirmed.sort_unstable();
        Links {
            superseded_by,
            outcomes,
            confirmed,
            cycles: self.cycles.clone(),
        }
    }
}
