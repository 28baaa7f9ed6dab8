//! The pages, from memory already read (`Source`): each function returns one page's HTML.
//! Every piece of memory text goes through `html::esc` or `html::md`. One decision's page is
//! in `entry.rs`.

use super::html::{esc, json_block, md, page};
use super::svg;
use crate::format::Status;
use crate::format::decision::{DecisionLog, referenced_ids};
use crate::format::fact::FactsFile;
use crate::format::prior::{PriorsFile, ROOT_CAUSES};
use crate::format::session::SessionFile;
use crate::format::state::State;
use crate::lifecycle::stale::StaleEntry;
use crate::named::Named;
use crate::ops::history::History;
use crate::ops::text::count;
use std::collections::HashMap;

mod entry;

pub use entry::entry;

/// Everything the pages are made of, read once.
pub struct Source {
    pub project: String,
    pub log: DecisionLog,
    /// Per entry of `log`: its page's file name under `d/`, when its ID may name a file.
    pub files: Vec<Option<String>>,
    /// Per entry of `log`: its life (`ops::history`), when it could be read.
    pub lives: Vec<Option<History>>,
    pub priors: PriorsFile,
    pub facts: FactsFile,
    pub fact_threshold: f64,
    pub sessions: Vec<(SessionFile, bool)>,
    /// (file name, text) of each phase snapshot, oldest first.
    pub snapshots: Vec<(String, String)>,
    pub state: State,
    pub stale: HashMap<String, StaleEntry>,
    /// Per entry of `log`: the entries that name it in their Supersedes, in file order (two
    /// may, written on two branches). Built once: asked per page, a scan of the log for each
    /// superseded entry made a long chain's site quadratic.
    pub superseders: Vec<Vec<usize>>,
}

/// `Source::superseders` for `log`.
pub fn superseders(log: &DecisionLog) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); log.entries.len()];
    for (j, d) in log.entries.iter().enumerate() {
        let Some(v) = d.supersedes.as_deref() else {
            continue;
        };
        let mut named: Vec<usize> = referenced_ids(v)
            .iter()
            .filter_map(|r| log.find(r).ok())
            .filter(|&i| i != j)
            .collect();
        named.sort_unstable();
        named.dedup();
        for i in named {
            out[i].push(j);
        }
    }
    out
}

impl Source {
    /// The link to entry `i`'s page from a page `root` deep.
    fn href(&self, root: &str, i: usize) -> Option<String> {
        self.files[i].as_ref().map(|f| format!("{root}d/{f}"))
    }

    /// A link to the entry an ID names, or the ID as text when it names none with a page.
    fn link_id(&self, root: &str, id: &str, label: &str) -> String {
        match self.log.find(id).ok().and_then(|j| self.href(root, j)) {
            Some(h) => format!("<a href=\"{}\">{}</a>", esc(&h), esc(label)),
            None => esc(label),
        }
    }

    /// The entries a timeline shows: all of them, as `zo log --all` lists them (OUTCOMEs and
    /// CONFIRMs also show on the page of the decision they refer to); tombstones marked.
    pub fn shown(&self) -> impl Iterator<Item = usize> + '_ {
        0..self.log.entries.len()
    }

    /// The entries that are decisions of their own (not an OUTCOME or CONFIRM of another).
    pub fn decisions(&self) -> impl Iterator<Item = usize> + '_ {
        self.shown().filter(|&i| {
            !self.log.entries[i].is_outcome()
                && !self.log.entries[i].is_confirmation()
                && !self.log.entries[i].is_promotion()
        })
    }

    fn tags(&self, i: usize) -> Vec<String> {
        self.log
            .field(i, "Tags")
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn date(ts: &str) -> &str {
    ts.get(..10)
        .filter(|d| crate::time::starts_with_date(d))
        .unwrap_or(ts)
}

fn badge(class: &str, text: &str) -> String {
    format!("<span class=\"badge {}\">{}</span>", esc(class), esc(text))
}

fn status_badge(status: Status) -> String {
    badge(&format!("st-{status}"), status.name())
}

/// The front page: counts, where the project stands, the chart, the latest decisions.
pub fn index(src: &Source) -> String {
    let shown: Vec<usize> = src.decisions().collect();
    let count = |s: Status| shown.iter().filter(|&&i| src.log.status(i) == s).count();
    let mut b = format!("<h1>{}</h1>", esc(&src.project));
    if let Some(phase) = src.state.scalar("phase").filter(|p| !p.is_empty()) {
        b.push_str(&format!(
            "<p class=\"lead\">Phase <strong>{}</strong>",
            esc(&phase)
        ));
        if let Some(t) = src.state.scalar("timestamp").filter(|p| !p.is_empty()) {
            b.push_str(&format!(" <span class=\"muted\">as of {}</span>", esc(&t)));
        }
        b.push_str("</p>");
    }
    b.push_str("<div class=\"cards\">");
    let cards = [
        ("decisions.html", shown.len(), "decisions"),
        ("decisions.html", count(Status::Active), "active"),
        ("decisions.html", count(Status::Provisional), "provisional"),
        ("decisions.html", count(Status::Superseded), "superseded"),
        ("lessons.html", src.priors.entries.len(), "lessons"),
        ("facts.html", src.facts.keys().len(), "facts"),
        ("sessions.html", src.sessions.len(), "sessions"),
        ("stale.html", src.stale.len(), "stale"),
    ];
    for (href, n, label) in cards {
        b.push_str(&format!(
            "<a class=\"card\" href=\"{href}\"><span class=\"n\">{n}</span><span>{label}</span></a>"
        ));
    }
    b.push_str("</div>");
    let blockers = src.state.list("active_blockers");
    let next = src.state.list("next_steps");
    if !blockers.is_empty() || !next.is_empty() {
        b.push_str("<div class=\"two\">");
        for (title, items) in [("Blockers", &blockers), ("Next steps", &next)] {
            if items.is_empty() {
                continue;
            }
            b.push_str(&format!("<section><h2>{title}</h2><ul>"));
            for it in items {
                b.push_str(&format!("<li>{}</li>", esc(it)));
            }
            b.push_str("</ul></section>");
        }
        b.push_str("</div>");
    }
    b.push_str("<section><h2>Decisions per month</h2>");
    let dated: Vec<(String, String)> = shown
        .iter()
        .filter(|&&i| !src.log.entries[i].is_forgotten())
        .filter_map(|&i| {
            let e = &src.log.entries[i];
            crate::time::starts_with_date(&e.timestamp)
                .then(|| (e.timestamp[..7].to_string(), e.kind.to_ascii_uppercase()))
        })
        .collect();
    b.push_str(&svg::month_chart(&dated));
    b.push_str("</section><section><h2>Latest decisions</h2>");
    let mut latest: Vec<usize> = src.shown().collect();
    latest.sort_by(|&a, &c| {
        src.log.entries[c]
            .timestamp
            .cmp(&src.log.entries[a].timestamp)
            .then(c.cmp(&a))
    });
    latest.truncate(8);
    b.push_str(&rows(src, "", &latest));
    b.push_str("<p><a href=\"decisions.html\">All decisions →</a></p></section>");
    page("", "index.html", &src.project, "Overview", &b)
}

/// A table of decision rows (timeline, front page).
fn rows(src: &Source, root: &str, list: &[usize]) -> String {
    let mut b = String::from(
        "<table class=\"timeline\"><thead><tr><th>Date</th><th>Type</th><th>Decision</th><th>Status</th><th>Outcome</th><th>Tags</th></tr></thead><tbody>",
    );
    for &i in list {
        let e = &src.log.entries[i];
        let status = src.log.status(i);
        let title = if e.title.is_empty() {
            e.id.as_str()
        } else {
            e.title.as_str()
        };
        let name = match src.href(root, i) {
            Some(h) => format!("<a href=\"{}\">{}</a>", esc(&h), esc(title)),
            None => esc(title),
        };
        let stale = if src.stale.contains_key(&e.id) {
            badge("st-stale", "stale")
        } else {
            String::new()
        };
        let outcome = if e.is_forgotten() {
            String::new()
        } else {
            src.log
                .latest_outcome(i)
                .map(outcome_cell)
                .unwrap_or_default()
        };
        let tags: Vec<String> = src.tags(i).iter().map(|t| badge("tag", t)).collect();
        b.push_str(&format!(
            "<tr class=\"row st-{status}\"><td class=\"date\">{}</td><td>{}</td><td class=\"title\">{name} <span class=\"id\">{}</span></td><td>{}{stale}</td><td>{outcome}</td><td>{}</td></tr>",
            esc(date(&e.timestamp)),
            badge("type", &e.kind),
            esc(&e.id),
            status_badge(status),
            tags.join(" ")
        ));
    }
    b.push_str("</tbody></table>");
    b
}

/// An outcome in a row: "pending" (what `decide` writes when none is known yet) muted.
fn outcome_cell(o: &str) -> String {
    if o.trim().eq_ignore_ascii_case("pending") {
        "<span class=\"muted\">pending</span>".into()
    } else {
        esc(&svg::clip(o, 90))
    }
}

/// Every decision, newest first, by month.
pub fn timeline(src: &Source) -> String {
    let mut list: Vec<usize> = src.shown().collect();
    list.sort_by(|&a, &c| {
        src.log.entries[c]
            .timestamp
            .cmp(&src.log.entries[a].timestamp)
            .then(c.cmp(&a))
    });
    let mut b = format!(
        "<h1>Decisions</h1><p class=\"muted\">{} and {}, newest first. Filter them on the <a href=\"search.html\">search page</a>.</p>",
        count(src.decisions().count(), "decision", "decisions"),
        count(
            list.len() - src.decisions().count(),
            "outcome or confirmation",
            "outcomes or confirmations"
        )
    );
    let mut k = 0;
    while k < list.len() {
        let month = src.log.entries[list[k]]
            .timestamp
            .get(..7)
            .unwrap_or("")
            .to_string();
        let end = list[k..]
            .iter()
            .position(|&i| src.log.entries[i].timestamp.get(..7).unwrap_or("") != month)
            .map_or(list.len(), |n| k + n);
        let label = if month.is_empty() {
            "Undated"
        } else {
            month.as_str()
        };
        b.push_str(&format!("<h2 class=\"month\">{}</h2>", esc(label)));
        b.push_str(&rows(src, "", &list[k..end]));
        k = end;
    }
    page("", "decisions.html", &src.project, "Decisions", &b)
}

/// Lessons grouped by root cause, each with the failure that taught it.
pub fn lessons(src: &Source) -> String {
    let mut b = String::from(
        "<h1>Lessons</h1><p class=\"muted\">Each lesson is tied to the failure that taught it, grouped by root cause.</p>",
    );
    let mut groups: Vec<(String, Vec<usize>)> = ROOT_CAUSES
        .iter()
        .map(|c| (c.to_string(), Vec::new()))
        .collect();
    for (k, p) in src.priors.entries.iter().enumerate() {
        let cause = p
            .root_cause()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .unwrap_or("unclassified")
            .to_string();
        match groups.iter_mut().find(|g| g.0 == cause) {
            Some(g) => g.1.push(k),
            None => groups.push((cause, vec![k])),
        }
    }
    if src.priors.entries.is_empty() {
        b.push_str("<p>No lessons recorded yet (<code>zo prior add</code>).</p>");
    }
    let superseded = src.priors.superseded();
    for (cause, list) in groups.iter().filter(|g| !g.1.is_empty()) {
        b.push_str(&format!(
            "<section><h2>{} <span class=\"muted\">{}</span></h2>",
            esc(&cause.replace('_', " ")),
            list.len()
        ));
        for &k in list {
            let p = &src.priors.entries[k];
            let mut marks = String::new();
            if p.is_forgotten() {
                marks.push_str(&status_badge(Status::Forgotten));
            } else if superseded.get(k).copied().unwrap_or(false) {
                marks.push_str(&status_badge(Status::Superseded));
            }
            b.push_str(&format!("<article class=\"entry\" id=\"{}\"><h3><span class=\"id\">{}</span> {} {marks}</h3>", esc(&p.id), esc(&p.id), esc(&p.title)));
            b.push_str("<dl class=\"fields\">");
            // The group names the root cause; a "Superseded by: null" says nothing.
            let said = |f: &&crate::format::fields::Field| {
                let null_link =
                    f.name.eq_ignore_ascii_case("Superseded by") && p.superseded_by().is_none();
                !(f.name.eq_ignore_ascii_case("Root cause category") || null_link)
            };
            for f in p.body.fields.iter().filter(said) {
                b.push_str(&format!(
                    "<dt>{}</dt><dd>{}</dd>",
                    esc(&f.name),
                    md(&f.value)
                ));
            }
            b.push_str("</dl>");
            for s in &p.body.sections {
                b.push_str(&format!("<h4>{}</h4>{}", esc(&s.heading), md(&s.body)));
            }
            b.push_str("</article>");
        }
        b.push_str("</section>");
    }
    page("", "lessons.html", &src.project, "Lessons", &b)
}

/// Facts by key, every version, the one that holds marked.
pub fn facts(src: &Source) -> String {
    let mut b = String::from(
        "<h1>Facts</h1><p class=\"muted\">Exact facts by key; every version is kept, the latest holds.</p>",
    );
    let keys = src.facts.keys();
    if keys.is_empty() {
        b.push_str("<p>No facts recorded yet (<code>zo fact set KEY VALUE</code>).</p>");
    }
    for key in keys {
        b.push_str(&format!("<section class=\"entry\" id=\"{}\"><h2><code>{}</code></h2><table class=\"versions\"><thead><tr><th>Set</th><th>Value</th><th>Status</th><th>Source</th></tr></thead><tbody>", esc(&format!("fact-{key}")), esc(key)));
        for &i in src.facts.versions(key).iter().rev() {
            let f = &src.facts.entries[i];
            let status = crate::store::facts::status(&src.facts, i, src.fact_threshold);
            let value = if f.is_forgotten() {
                "<em>[forgotten]</em>".to_string()
            } else {
                md(f.value())
            };
            b.push_str(&format!(
                "<tr class=\"st-{}\"><td class=\"date\">{}</td><td>{value}</td><td>{}</td><td>{}</td></tr>",
                status,
                esc(f.set()),
                status_badge(status),
                esc(f.field("Source").unwrap_or(""))
            ));
        }
        b.push_str("</tbody></table></section>");
    }
    page("", "facts.html", &src.project, "Facts", &b)
}

/// Sessions and phase snapshots, oldest first.
pub fn sessions(src: &Source) -> String {
    let mut b = String::from("<h1>Sessions</h1>");
    if src.sessions.is_empty() {
        b.push_str("<p>No sessions recorded yet.</p>");
    }
    for (s, forgotten) in &src.sessions {
        b.push_str(&format!(
            "<article class=\"entry\" id=\"{}\"><h2>{}",
            esc(&s.file_name),
            esc(if *forgotten { "[forgotten]" } else { &s.title })
        ));
        if *forgotten {
            b.push_str(&status_badge(Status::Forgotten));
        }
        b.push_str(&format!(
            "</h2><p class=\"meta\"><code>{}</code>",
            esc(&s.file_name)
        ));
        if let Some(end) = &s.ended {
            b.push_str(&format!(
                " · ended <span class=\"date\">{}</span>",
                esc(end)
            ));
        }
        b.push_str("</p>");
        for (name, body) in &s.sections {
            b.push_str(&format!("<h3>{}</h3>{}", esc(name), md(body)));
        }
        b.push_str("</article>");
    }
    b.push_str("<h1 id=\"snapshots\">Phase snapshots</h1>");
    if src.snapshots.is_empty() {
        b.push_str("<p>No phase snapshots yet (<code>zo snapshot --phase ID</code>).</p>");
    }
    for (name, text) in &src.snapshots {
        b.push_str(&format!(
            "<article class=\"entry\"><h2><code>{}</code></h2>{}</article>",
            esc(name),
            md(text)
        ));
    }
    page("", "sessions.html", &src.project, "Sessions", &b)
}

/// Active decisions whose governed paths moved on.
pub fn stale(src: &Source) -> String {
    let mut b = String::from(
        "<h1>Stale decisions</h1><p class=\"muted\">Active decisions whose paths (<code>zo decide --paths</code>) changed in many commits or lines since they were made (<code>zo stale</code>).</p>",
    );
    if src.stale.is_empty() {
        b.push_str("<p>None.</p>");
    }
    let mut list: Vec<&StaleEntry> = src.stale.values().collect();
    list.sort_by(|a, c| a.id.cmp(&c.id));
    b.push_str("<ul class=\"stale\">");
    for s in list {
        b.push_str(&format!(
            "<li>{} — moved since {}: {} under <code>{}</code></li>",
            src.link_id("", &s.id, &format!("{} {}", s.id, s.title)),
            esc(s.since.as_deref().unwrap_or("its commit")),
            crate::ops::text::moved(s.commits, s.lines),
            esc(&s.paths.join(", "))
        ));
    }
    b.push_str("</ul>");
    page("", "stale.html", &src.project, "Stale", &b)
}

/// The search page: the records as a JSON block, filters, and an empty result list that
/// `site.js` fills (from `?q=` / `#q=` on load).
pub fn search(src: &Source) -> String {
    let mut records = Vec::new();
    let mut types = std::collections::BTreeSet::new();
    let mut tags = std::collections::BTreeSet::new();
    for i in src.shown() {
        let e = &src.log.entries[i];
        let forgotten = e.is_forgotten();
        let t = src.tags(i);
        types.insert(e.kind.to_ascii_uppercase());
        tags.extend(t.iter().cloned());
        records.push(serde_json::json!({
            "k": "decision", "id": e.id, "t": if forgotten { "[forgotten]" } else { e.title.as_str() },
            "ty": e.kind.to_ascii_uppercase(), "s": src.log.status(i), "g": t, "d": date(&e.timestamp),
            "u": src.href("", i), "x": e.content(&src.log),
        }));
    }
    for p in &src.priors.entries {
        records.push(serde_json::json!({
            "k": "lesson", "id": p.id, "t": p.title, "ty": "LESSON", "s": if p.is_forgotten() { Status::Forgotten } else { Status::Active },
            "g": [], "d": "", "u": format!("lessons.html#{}", p.id), "x": p.content(&src.priors),
        }));
    }
    for key in src.facts.keys() {
        if let Some(&i) = src.facts.versions(key).last() {
            let f = &src.facts.entries[i];
            records.push(serde_json::json!({
                "k": "fact", "id": f.id, "t": key, "ty": "FACT", "s": crate::store::facts::status(&src.facts, i, src.fact_threshold),
                "g": [], "d": date(f.set()), "u": format!("facts.html#fact-{key}"), "x": f.content(&src.facts),
            }));
        }
    }
    for (s, forgotten) in &src.sessions {
        let text: String = s
            .sections
            .iter()
            .map(|(n, b)| format!("{n}\n{b}\n"))
            .collect();
        records.push(serde_json::json!({
            "k": "session", "id": s.file_name, "t": if *forgotten { "[forgotten]" } else { s.title.as_str() }, "ty": "SESSION",
            "s": if *forgotten { Status::Forgotten } else { Status::Active }, "g": [], "d": s.date.as_deref().or(s.ended.as_deref().map(date)).unwrap_or(""),
            "u": format!("sessions.html#{}", s.file_name), "x": text,
        }));
    }
    let mut b = String::from("<h1>Search</h1><div class=\"filters\" id=\"zo-filters\">");
    b.push_str("<input id=\"f-q\" type=\"search\" placeholder=\"Words\" aria-label=\"Words\">");
    b.push_str("<select id=\"f-type\" aria-label=\"Type\"><option value=\"\">any type</option>");
    for t in &types {
        b.push_str(&format!("<option>{}</option>", esc(t)));
    }
    for t in ["LESSON", "FACT", "SESSION"] {
        b.push_str(&format!("<option>{t}</option>"));
    }
    b.push_str("</select><select id=\"f-status\" aria-label=\"Status\"><option value=\"\">any status</option>");
    for s in Status::names() {
        b.push_str(&format!("<option>{s}</option>"));
    }
    b.push_str(
        "</select><select id=\"f-tag\" aria-label=\"Tag\"><option value=\"\">any tag</option>",
    );
    for t in &tags {
        b.push_str(&format!("<option>{}</option>", esc(t)));
    }
    b.push_str("</select><label>from <input id=\"f-from\" type=\"date\"></label><label>to <input id=\"f-to\" type=\"date\"></label></div>");
    b.push_str(
        "<p id=\"zo-count\" class=\"muted\"></p><ol id=\"zo-results\" class=\"results\"></ol>",
    );
    b.push_str("<noscript><p>Search needs JavaScript; every entry is also on the <a href=\"decisions.html\">timeline</a>.</p></noscript>");
    b.push_str(&json_block("zo-data", &serde_json::Value::Array(records)));
    page("", "search.html", &src.project, "Search", &b)
}
