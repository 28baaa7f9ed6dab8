//! The rows: what each entry of the memory files should look like in the index (its text,
//! what is embedded, its status), and bringing the stored rows to that.

use super::Refresh;
use crate::format::Status;
use crate::format::decision::DecisionLog;
use crate::format::sha256_hex;
use crate::store::memory::Memory;
use anyhow::Result;
use rusqlite::params;
use std::collections::HashMap;

/// A row as it should be, computed from the files.
pub(super) struct Want {
    kind: &'static str,
    id: String,
    line: usize,
    title: String,
    subtype: String,
    timestamp: String,
    status: String,
    superseded_by: Option<String>,
    text: String,
    embed_text: String,
}

pub(super) fn apply(
    tx: &rusqlite::Transaction,
    source: &str,
    wants: Vec<Want>,
    out: &mut Refresh,
) -> Result<()> {
    let existing: HashMap<String, (i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, rowid, hash FROM entries WHERE source = ?1")?;
        let rows = stmt.query_map([source], |r| {
            Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?)))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut seen = std::collections::HashSet::new();
    for (pos, w) in wants.into_iter().enumerate() {
        if !seen.insert(w.id.clone()) {
            continue; // duplicate IDs: `zo verify` reports them; index the first
        }
        let hash = sha256_hex(&format!(
            "{}\0{}\0{}\0{}\0{pos}\0{}",
            w.text,
            w.status,
            w.superseded_by.as_deref().unwrap_or(""),
            w.subtype,
            w.line
        ));
        let vhash = sha256_hex(&w.embed_text);
        match existing.get(&w.id) {
            Some((_, h)) if *h == hash => continue,
            Some((rowid, _)) => {
                tx.execute("DELETE FROM fts WHERE rowid = ?1", [rowid])?;
                tx.execute(
                    "UPDATE entries SET position=?2, line=?3, hash=?4, vhash=?5, title=?6, type=?7, timestamp=?8, status=?9, superseded_by=?10, text=?11, embed_text=?12 WHERE rowid=?1",
                    params![rowid, pos as i64, w.line as i64, hash, vhash, w.title, w.subtype, w.timestamp, w.status, w.superseded_by, w.text, w.embed_text],
                )?;
                tx.execute(
                    "INSERT INTO fts (rowid, title, body) VALUES (?1, ?2, ?3)",
                    params![rowid, w.title, searchable(&w.text)],
                )?;
                tx.execute("UPDATE entries SET vec = (SELECT vec FROM vectors WHERE vhash = ?2) WHERE rowid = ?1", params![rowid, vhash])?;
                out.updated += 1;
            }
            None => {
                tx.execute(
                    "INSERT INTO entries (kind, id, source, position, line, hash, vhash, title, type, timestamp, status, superseded_by, text, embed_text) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
                    params![w.kind, w.id, source, pos as i64, w.line as i64, hash, vhash, w.title, w.subtype, w.timestamp, w.status, w.superseded_by, w.text, w.embed_text],
                )?;
                let rowid = tx.last_insert_rowid();
                tx.execute(
                    "INSERT INTO fts (rowid, title, body) VALUES (?1, ?2, ?3)",
                    params![rowid, w.title, searchable(&w.text)],
                )?;
                tx.execute("UPDATE entries SET vec = (SELECT vec FROM vectors WHERE vhash = ?2) WHERE rowid = ?1", params![rowid, vhash])?;
                out.inserted += 1;
            }
        }
    }
    for (id, (rowid, _)) in existing {
        if !seen.contains(&id) {
            tx.execute("DELETE FROM fts WHERE rowid = ?1", [rowid])?;
            tx.execute("DELETE FROM entries WHERE rowid = ?1", [rowid])?;
            out.deleted += 1;
        }
    }
    Ok(())
}

/// Decisions: the full entry is returned, with its latest outcome; the title, decision and
/// latest outcome are what is embedded. OUTCOME entries live inside the decision they refer to.
pub(super) fn decision_rows(log: &DecisionLog) -> Vec<Want> {
    let mut v = Vec::new();
    for (i, e) in log.entries.iter().enumerate() {
        if e.is_annotation() {
            continue;
        }
        let mut text = e.content(log);
        if let Some(j) = log.latest_outcome_entry(i) {
            text.push_str("\n\n");
            text.push_str(&log.entries[j].content(log));
        }
        let outcome = log.latest_outcome(i).unwrap_or("");
        // What answers questions, most telling first: the model reads up to its window.
        let field = |name: &str| log.field(i, name).unwrap_or("").trim();
        let embed_text = [
            e.title.as_str(),
            field("Decision"),
            field("Rationale"),
            field("Alternatives considered"),
            if outcome == "pending" { "" } else { outcome },
        ]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
        v.push(Want {
            kind: "decision",
            id: e.id.clone(),
            line: e.span.line,
            title: e.title.clone(),
            subtype: e.kind.clone(),
            timestamp: e.timestamp.clone(),
            status: log.status(i).to_string(),
            superseded_by: log.superseded_by(i).map(|d| d.id.clone()),
            embed_text,
            text,
        });
    }
    v
}

pub(super) fn prior_rows(pf: &crate::format::prior::PriorsFile) -> Vec<Want> {
    let superseded = pf.superseded();
    pf.entries
        .iter()
        .zip(superseded)
        .map(|(p, superseded)| {
            let rules = p.rules().join("\n");
            Want {
                kind: "prior",
                id: p.id.clone(),
                line: p.span.line,
                title: p.title.clone(),
                subtype: p.root_cause().unwrap_or("").to_string(),
                timestamp: String::new(),
                status: if superseded {
                    Status::Superseded
                } else {
                    Status::Active
                }
                .name()
                .into(),
                superseded_by: p.superseded_by().filter(|_| superseded).map(str::to_string),
                embed_text: format!(
                    "{}\n{}\n{}",
                    p.title,
                    p.field("Failure").unwrap_or(""),
                    rules
                )
                .trim()
                .to_string(),
                text: p.content(pf),
            }
        })
        .collect()
}

pub(super) fn session_rows(memory: &Memory, name: &str) -> Result<Vec<Want>> {
    let text = memory.session_text(name)?;
    if crate::format::session::is_forgotten(text.as_str()) {
        return Ok(vec![]); // nothing to recall: `zo forget` emptied it
    }
    let s = crate::format::session::SessionFile::parse(name, text.as_str());
    let body: String = s
        .sections
        .iter()
        .map(|(h, b)| format!("{h}\n{b}\n"))
        .collect();
    Ok(vec![Want {
        kind: "session",
        id: name.trim_end_matches(".md").to_string(),
        line: 1,
        title: if s.title.is_empty() {
            name.to_string()
        } else {
            s.title.clone()
        },
        subtype: String::new(),
        timestamp: s.date.clone().unwrap_or_default(),
        status: Status::Active.name().into(),
        superseded_by: None,
        embed_text: format!("{}\n{}", s.title, body)
            .chars()
            .take(4000)
            .collect(),
        text: text.as_str().trim_end().to_string(),
    }])
}

/// Facts: the version of each key that holds, and provisional ones (status says which). The
/// key is the title (so a key lookup is a title match) and `type` carries the scope.
pub(super) fn fact_rows(
    file: &crate::format::fact::FactsFile,
    scope: crate::store::facts::Scope,
    threshold: f64,
) -> Vec<Want> {
    let mut v = Vec::new();
    for key in file.keys() {
        let ks = crate::store::facts::key_state(file, key, threshold);
        for &i in &ks.versions {
            let status = ks.status(file, i);
            if !matches!(
                status,
                crate::format::Status::Active | crate::format::Status::Provisional
            ) {
                continue;
            }
            let f = &file.entries[i];
            let mut text = format!("{}: {}", f.key, f.value());
            if let Some(src) = f.field("Source") {
                text.push_str(&format!("\n(source: {src})"));
            }
            v.push(Want {
                kind: "fact",
                id: f.id.clone(),
                line: f.span.line,
                title: f.key.clone(),
                subtype: scope.name().to_string(),
                timestamp: f.set().to_string(),
                status: status.to_string(),
                superseded_by: None,
                embed_text: format!("{}\n{}", f.key.replace([':', '-', '_'], " "), f.value()),
                text,
            });
        }
    }
    v
}

/// An entry's text as the word index holds it: without its timestamps (a heading's
/// `2026-11-17T17:17:41Z` is no word of the entry — `postgres 17` is not answered by an entry
/// written at 17:17 or on the 17th); a date written in prose stays.
fn searchable(text: &str) -> std::borrow::Cow<'_, str> {
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}(?:[:-]\d{2}(?:[.-]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
        )
        .expect("a valid pattern")
    });
    TIME.replace_all(text, "")
}

#[cfg(test)]
mod tests {
    /// `zo recall "orders in postgres 17"` said nothing of "17" when the entries were written
    /// at 17:17: the heading's time was indexed as words.
    #[test]
    fn an_entry_written_at_17_17_held_the_word_17() {
        let t =
            "## Decision: 2026-11-17T17:17:41Z\n**ID:** D-1\n**Set:** 2026-11-17T17:17:41.123Z\n";
        let s = super::searchable(t);
        assert!(!s.contains("17"), "{s}");
        let prose = "**Decision:** freeze on 2026-12-17";
        assert_eq!(super::searchable(prose), prose);
    }
}
