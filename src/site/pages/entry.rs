//! One decision's page: its header and notes, its fields and sections, its life (from
//! `ops::history`) and the supersession chain it is part of.

use super::{Source, badge, date, esc, md, page, status_badge, svg};
use crate::format::Status;
use crate::format::decision::referenced_ids;
use crate::ops::history::History;

/// Fields the entry page shows in its header rather than in the field list.
const HEADER_FIELDS: [&str; 4] = ["ID", "Type", "Title", "Tags"];

/// One entry's page: its fields, its life, its supersession chain.
pub fn entry(src: &Source, i: usize) -> String {
    let e = &src.log.entries[i];
    let title = if e.is_forgotten() {
        "[forgotten]".to_string()
    } else {
        e.title.clone()
    };
    let mut b = header(src, i, &title);
    b.push_str(&fields(src, i));
    if let Some(h) = &src.lives[i] {
        b.push_str(&life(src, h));
    }
    b.push_str(&chain(src, i));
    page(
        "../",
        "decisions.html",
        &src.project,
        &format!("{} {}", e.id, title),
        &b,
    )
}

/// The page's head: where it is, the title and badges, and the notes on its status and
/// staleness a reader needs before its text.
fn header(src: &Source, i: usize, title: &str) -> String {
    let log = &src.log;
    let e = &log.entries[i];
    let status = log.status(i);
    let mut b = format!(
        "<p class=\"crumbs\"><a href=\"../decisions.html\">Decisions</a> / <span class=\"id\">{}</span></p>",
        esc(&e.id)
    );
    b.push_str(&format!(
        "<h1>{}</h1><p class=\"meta\">{} {} <span class=\"date\">{}</span>",
        esc(title),
        badge("type", &e.kind),
        status_badge(status),
        esc(&e.timestamp)
    ));
    for t in src.tags(i) {
        b.push(' ');
        b.push_str(&badge("tag", &t));
    }
    b.push_str("</p>");
    match status {
        Status::Forgotten => b.push_str("<p class=\"note forgotten\">This entry was erased with <code>zo forget</code>. Only its tombstone is kept: when and why, never the erased text.</p>"),
        Status::Provisional => b.push_str("<p class=\"note provisional\">Provisional: proposed or written below the promotion threshold, not yet confirmed (<code>zo confirm ID</code>).</p>"),
        Status::Superseded => {
            // Every entry that names this one in its Supersedes (two may, written on two
            // branches), not only the one the status is read from.
            let mut by: Vec<usize> = src.superseders[i].clone();
            if by.is_empty() {
                by.extend(log.superseded_by(i).and_then(|d| log.find(&d.id).ok()));
            }
            let links: Vec<String> = by.iter().map(|&j| &log.entries[j]).map(|d| src.link_id("../", &d.id, &format!("{} — {}", d.id, d.title))).collect();
            if !links.is_empty() {
                b.push_str(&format!("<p class=\"note superseded\">Superseded by {}.</p>", links.join(" and by ")));
            }
        }
        _ => {}
    }
    if let Some(s) = src.stale.get(&e.id) {
        b.push_str(&format!(
            "<p class=\"note stale\">Stale: the paths it governs moved on since {} — {} changed under <code>{}</code>.</p>",
            esc(s.since.as_deref().unwrap_or("its commit")),
            crate::ops::text::moved(s.commits, s.lines),
            esc(&s.paths.join(", "))
        ));
    }
    b
}

/// The entry's fields (but those its header shows) and its own sections.
fn fields(src: &Source, i: usize) -> String {
    let log = &src.log;
    let e = &log.entries[i];
    let body = log.body(i);
    let mut b = String::from("<dl class=\"fields\">");
    for f in body
        .fields
        .iter()
        .filter(|f| !HEADER_FIELDS.iter().any(|h| f.name.eq_ignore_ascii_case(h)))
    {
        let value = match f.name.as_str() {
            "Supersedes" | "Refs" => {
                let links: Vec<String> = referenced_ids(&f.value)
                    .iter()
                    .map(|r| src.link_id("../", r, r))
                    .collect();
                if links.is_empty() {
                    esc(&f.value)
                } else {
                    links.join(", ")
                }
            }
            // The decision's own field says "pending" until an OUTCOME entry records one:
            // show the recorded outcome, and where it was recorded.
            "Outcome" if !e.is_outcome() && log.latest_outcome_entry(i).is_some() => {
                let o = log.latest_outcome_entry(i).unwrap_or(i);
                let note = format!(
                    "<span class=\"muted\">(recorded in {})</span>",
                    src.link_id("../", &log.entries[o].id, &log.entries[o].id)
                );
                // Inside the outcome's last paragraph, so it reads as one line with it.
                let text = md(log.latest_outcome(i).unwrap_or(""));
                match text.trim_end().strip_suffix("</p>") {
                    Some(head) => format!("{head} {note}</p>"),
                    None => format!("{text} {note}"),
                }
            }
            _ => md(&f.value),
        };
        b.push_str(&format!("<dt>{}</dt><dd>{value}</dd>", esc(&f.name)));
    }
    b.push_str("</dl>");
    for s in &body.sections {
        b.push_str(&format!(
            "<section><h2>{}</h2>{}</section>",
            esc(&s.heading),
            md(&s.body)
        ));
    }
    b
}

/// The supersession chain the entry is part of, drawn, when there is one.
fn chain(src: &Source, i: usize) -> String {
    let chain = chain_of(src, i);
    if chain.len() <= 1 {
        return String::new();
    }
    let mut b = String::new();
    // Only the window's links are drawn, so only they are made (titles, outcomes).
    // A window around this entry: a long chain drawn whole would open on its oldest end,
    // the current entry scrolled far out of sight. Three boxes fit the page's width.
    const SIDE: usize = 1;
    let at = chain.iter().position(|&j| j == i).unwrap_or(0);
    let from = at
        .saturating_sub(SIDE)
        .min(chain.len().saturating_sub(2 * SIDE + 1));
    let to = (from + 2 * SIDE + 1).min(chain.len());
    let links: Vec<svg::Link> = chain[from..to]
        .iter()
        .map(|&j| chain_link(src, j, j == i))
        .collect();
    b.push_str("<section><h2>Supersession chain</h2>");
    b.push_str(&svg::chain(&links, from, chain.len() - to));
    b.push_str("</section>");
    b
}

/// The life from `ops::history`, oldest event first.
fn life(src: &Source, h: &History) -> String {
    let mut b = String::from("<section><h2>Life</h2><ol class=\"life\">");
    let w = &h.written;
    let mut line = format!(
        "<li><span class=\"date\">{}</span> written",
        esc(&w.timestamp)
    );
    if let Some(s) = &w.session {
        line.push_str(&format!(" in session <code>{}</code>", esc(s)));
    }
    if let Some(a) = &w.agent {
        line.push_str(&format!(" by <strong>{}</strong>", esc(a)));
    }
    match &w.commit {
        Some(c) => line.push_str(&format!(
            ", first committed in <code>{}</code> ({}, “{}”)",
            esc(&c.short),
            esc(&c.time),
            esc(&c.subject)
        )),
        None => match &w.shallow {
            Some(note) => line.push_str(&format!(", first commit unknown ({})", esc(note))),
            None => line.push_str(", in no commit yet"),
        },
    }
    line.push_str("</li>");
    b.push_str(&line);
    for e in &h.supersedes {
        b.push_str(&format!(
            "<li><span class=\"date\">{}</span> supersedes {}</li>",
            esc(&e.timestamp),
            src.link_id("../", &e.id, &format!("{} — {}", e.id, e.title))
        ));
    }
    for e in &h.confirmations {
        b.push_str(&format!(
            "<li><span class=\"date\">{}</span> confirmed ({})</li>",
            esc(&e.timestamp),
            src.link_id("../", &e.id, &e.id)
        ));
    }
    for e in &h.outcomes {
        b.push_str(&format!(
            "<li><span class=\"date\">{}</span> outcome ({}): {}</li>",
            esc(&e.timestamp),
            src.link_id("../", &e.id, &e.id),
            md(e.outcome.as_deref().unwrap_or(""))
        ));
    }
    if let Some(e) = &h.superseded_by {
        b.push_str(&format!(
            "<li><span class=\"date\">{}</span> superseded by {}</li>",
            esc(&e.timestamp),
            src.link_id("../", &e.id, &format!("{} — {}", e.id, e.title))
        ));
    }
    if let Some(f) = &h.forgotten {
        b.push_str(&format!(
            "<li><span class=\"date\">{}</span> forgotten: {}</li>",
            esc(&f.forgotten),
            esc(&f.reason)
        ));
    }
    b.push_str("</ol></section>");
    b
}

/// The chain entry `i` is part of, oldest first: back through `Supersedes` (its first ID that
/// names an entry), forward through "superseded by". Bounded and cycle-safe.
fn chain_of(src: &Source, i: usize) -> Vec<usize> {
    const MAX: usize = 40;
    let log = &src.log;
    let mut seen = std::collections::HashSet::from([i]);
    let mut back = Vec::new();
    let mut at = i;
    while back.len() < MAX {
        let prev = log.entries[at]
            .supersedes
            .as_deref()
            .and_then(|v| referenced_ids(v).iter().find_map(|r| log.find(r).ok()));
        match prev {
            Some(p) if seen.insert(p) => {
                back.push(p);
                at = p;
            }
            _ => break,
        }
    }
    back.reverse();
    back.push(i);
    let mut at = i;
    while back.len() < 2 * MAX {
        match log.superseded_by(at).and_then(|d| log.find(&d.id).ok()) {
            Some(n) if seen.insert(n) => {
                back.push(n);
                at = n;
            }
            _ => break,
        }
    }
    back
}

/// Entry `j` as a box of a drawn chain.
fn chain_link(src: &Source, j: usize, current: bool) -> svg::Link {
    let log = &src.log;
    let e = &log.entries[j];
    svg::Link {
        href: src.files[j].clone(),
        id: e.id.clone(),
        date: date(&e.timestamp).to_string(),
        title: if e.is_forgotten() {
            "[forgotten]".into()
        } else {
            e.title.clone()
        },
        outcome: if e.is_forgotten() {
            None
        } else {
            log.latest_outcome(j).map(str::to_string)
        },
        current,
    }
}
