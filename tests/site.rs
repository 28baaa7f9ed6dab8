//! `zo site`: the site opened in a real headless browser (Debian's `chromium`; install it with
//! `scripts/install-browser`). A missing browser fails these tests, never skips them.

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;
use util::Repo;

/// The DOM of a page after its scripts ran, as headless Chromium dumps it. The browser gets a
/// fresh profile and HOME inside the test's temp dir (nothing written to the real HOME), no
/// network, and a timeout of its own.
fn dom(scratch: &Path, url: &str) -> String {
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()))
        .unwrap_or_else(|| panic!("no chromium on PATH: these tests open the site in a real browser; run scripts/install-browser"));
    let home = tempfile::Builder::new()
        .prefix("browser-")
        .tempdir_in(scratch)
        .unwrap();
    let out = Command::new("timeout")
        .args([
            "-k",
            "10",
            "120",
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
        ])
        .arg(format!(
            "--user-data-dir={}",
            home.path().join("profile").display()
        ))
        .args(["--dump-dom", url])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("</html>"),
        "chromium failed on {url}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Text as a DOM dump shows it inside an element.
fn as_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn site(r: &Repo) -> PathBuf {
    r.path().join(".zo/site")
}

/// (id, title, superseded_by) of every entry, from `zo log --all` (OUTCOMEs too).
fn decisions(r: &Repo) -> Vec<(String, String, Option<String>)> {
    let v = r.json(&["log", "--all"]);
    v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().into(),
                d["title"].as_str().unwrap().into(),
                d["superseded_by"].as_str().map(String::from),
            )
        })
        .collect()
}

/// The first `href` on the page that ends with `target`.
fn has_link(dom: &str, target: &str) -> bool {
    dom.match_indices("href=\"").any(|(i, _)| {
        dom[i + 6..]
            .split('"')
            .next()
            .is_some_and(|h| h.ends_with(target))
    })
}

fn check_supersession_links(r: &Repo) {
    let mut pairs = 0;
    for (id, title, by) in decisions(r) {
        let Some(by) = by else { continue };
        pairs += 1;
        let (old_page, new_page) = (
            site(r).join(format!("d/{id}.html")),
            site(r).join(format!("d/{by}.html")),
        );
        assert!(
            old_page.is_file() && new_page.is_file(),
            "{id} → {by}: a page is missing"
        );
        let old_dom = dom(r.path(), &url(&old_page));
        let new_dom = dom(r.path(), &url(&new_page));
        let new_title = decisions(r).into_iter().find(|d| d.0 == by).unwrap().1;
        assert!(
            has_link(&old_dom, &format!("{by}.html")) && old_dom.contains(&as_text(&new_title)),
            "{id}'s page does not link {by}"
        );
        assert!(
            has_link(&new_dom, &format!("{id}.html")) && new_dom.contains(&as_text(&title)),
            "{by}'s page does not link {id}"
        );
    }
    assert!(pairs > 0, "no supersession to check");
}

#[test]
fn example_site_in_a_browser_holds_every_title_links_and_search() {
    let r = Repo::example();
    r.commit_all("memory");
    let report = r.json(&["site"]);
    assert_eq!(report["dir"], ".zo/site");
    assert_eq!(report["decisions"], 11, "{report}");
    assert!(report["pages"].as_u64().unwrap() >= 19, "{report}");
    let timeline = dom(r.path(), &url(&site(&r).join("decisions.html")));
    for (id, title, _) in decisions(&r) {
        assert!(
            timeline.contains(&as_text(&title)),
            "{id} {title:?} not on the timeline"
        );
        assert!(
            has_link(&timeline, &format!("d/{id}.html")),
            "{id} has no permalink on the timeline"
        );
    }
    check_supersession_links(&r);
    // "JSONB" is in D-956a2656's decision text, not in its title.
    let found = dom(
        r.path(),
        &format!("{}?q=jsonb", url(&site(&r).join("search.html"))),
    );
    let results = found
        .split("id=\"zo-results\"")
        .nth(1)
        .unwrap()
        .split("</ol>")
        .next()
        .unwrap();
    assert!(
        results.contains("Store bookings in PostgreSQL 16")
            && results.contains("d/D-956a2656.html"),
        "{results}"
    );
    assert!(!results.contains("No mobile app in v1"), "{results}");
    let hash = dom(
        r.path(),
        &format!("{}#q=kysely", url(&site(&r).join("search.html"))),
    );
    assert!(
        hash.split("id=\"zo-results\"")
            .nth(1)
            .unwrap()
            .contains("Typed SQL with Kysely, no ORM")
    );
    // The front page carries the chart and the counts.
    let index = dom(r.path(), &url(&site(&r).join("index.html")));
    assert!(
        index.contains("<svg class=\"chart\"") && index.contains("Decisions per month"),
        "{index}"
    );
}

/// Memory text whose scripts, if any ran, would mark the DOM: `data-pwned` on the body or an
/// element with id `pwned` (built from pieces so the escaped text itself never reads so).
const MARK: &str = "document.body.dataset['pw'+'ned']=1;var e=document.createElement('b');e.id='pw'+'ned';document.body.appendChild(e)";

fn hostile_log() -> String {
    let entries = [
        (
            "D-0000000a",
            "<script>MARK</script>",
            "First <img src=x onerror=\"MARK\"> and a quokka in the body.",
            "",
        ),
        (
            "D-0000000b",
            "Links [click](javascript:MARK) <a href=\"javascript:MARK\">raw</a>",
            "[x](JaVaScRiPt:MARK) ![i](data:text/html,<script>MARK</script>) <javascript:MARK>",
            "",
        ),
        (
            "D-0000000c",
            "Closing </script><script>MARK</script> the JSON",
            "</script><script>MARK</script><!-- <svg onload=\"MARK\"> <iframe srcdoc=\"<script>MARK</script>\">",
            "D-0000000a",
        ),
        (
            "../../../escape",
            "A hostile ID",
            "Its page must not be written anywhere.",
            "",
        ),
        (
            "D-0000000d\" onmouseover=\"MARK",
            "A quoted ID",
            "An attribute break in the ID.",
            "",
        ),
    ];
    let mut log = String::from("# DECISION_LOG\n\n---\n\n");
    for (id, title, decision, supersedes) in entries {
        let (title, decision) = (title.replace("MARK", MARK), decision.replace("MARK", MARK));
        log.push_str(&format!("## Decision: 2026-11-0{}T10:00:00Z\n**ID:** {id}\n**Type:** ARCHITECTURE\n**Title:** {title}\n**Decision:** {decision}\n**Rationale:** <style>body{{display:none}}</style>\n", 1 + log.len() % 8));
        if !supersedes.is_empty() {
            log.push_str(&format!("**Supersedes:** {supersedes}\n"));
        }
        log.push_str("**Tags:** <b>tag</b>\n\n---\n\n");
    }
    log
}

/// The tags of a DOM dump (what follows each `<` up to `>`): text never holds a `<`, and an
/// attribute value never a `"`, so memory text shown as text cannot be taken for a tag here.
fn tags(dom: &str) -> impl Iterator<Item = &str> {
    dom.split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
}

fn assert_no_effect(page: &str, dom: &str) {
    for tag in tags(dom) {
        let lower = tag.to_lowercase();
        assert!(
            !(tag.starts_with("body") && tag.contains("pwned")),
            "{page}: a script from memory ran: <{tag}>"
        );
        assert!(
            !tag.contains("id=\"pwned\""),
            "{page}: a script from memory added an element: <{tag}>"
        );
        assert!(
            !lower.contains("href=\"javascript:") && !lower.contains("href=\"data:"),
            "{page}: a link from memory: <{tag}>"
        );
        assert!(
            !lower
                .split_whitespace()
                .skip(1)
                .any(|a| a.starts_with("on") && a.contains('=')),
            "{page}: an event handler: <{tag}>"
        );
    }
    assert!(
        !dom.contains("<img") && !dom.contains("<iframe") && !dom.contains("<style"),
        "{page}: an element from memory text"
    );
}

#[test]
fn hostile_memory_text_runs_no_script_in_a_browser() {
    let r = Repo::init();
    r.write(".zo/memory/DECISION_LOG.md", &hostile_log());
    r.write(".zo/memory/PRIORS.md", &format!("# PRIORS\n\n---\n\n## PR-001: <script>{MARK}</script>\n**Root cause category:** <img src=x onerror=\"{MARK}\">\n**Failure:** </script><script>{MARK}</script>\n\n---\n"));
    r.write(
        ".zo/memory/sessions/session-001-2026-11-01.md",
        &format!("# Session 001 — <script>{MARK}</script>\n\n## Shipped\n<img src=x onerror=\"{MARK}\">\n"),
    );
    let report = r.json(&["site"]);
    let skipped = report["skipped"].to_string();
    assert!(
        skipped.contains("escape") && skipped.contains("onmouseover"),
        "{report}"
    );
    // The hostile IDs named no file, anywhere.
    assert!(!r.path().join("escape.html").exists() && !r.path().join(".zo/escape.html").exists());
    let names: Vec<String> = std::fs::read_dir(site(&r).join("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let mut pages = vec![
        "index.html",
        "decisions.html",
        "lessons.html",
        "sessions.html",
        "facts.html",
        "search.html",
    ]
    .into_iter()
    .map(|p| (p.to_string(), url(&site(&r).join(p))))
    .collect::<Vec<_>>();
    pages.push((
        "search ?q=".into(),
        format!("{}?q=script", url(&site(&r).join("search.html"))),
    ));
    for n in &names {
        pages.push((n.clone(), url(&site(&r).join("d").join(n))));
    }
    for (page, u) in &pages {
        let d = dom(r.path(), u);
        assert_no_effect(page, &d);
        if page == "decisions.html" {
            assert!(
                d.contains(&as_text(&format!("<script>{MARK}</script>"))),
                "the title is shown as text"
            );
        }
    }
    // Search still works over hostile text: a word of a body finds its entry.
    let found = dom(
        r.path(),
        &format!("{}?q=quokka", url(&site(&r).join("search.html"))),
    );
    let results = found
        .split("id=\"zo-results\"")
        .nth(1)
        .unwrap()
        .split("</ol>")
        .next()
        .unwrap();
    assert!(results.contains("d/D-0000000a.html"), "{results}");
    check_supersession_links(&r);
}

#[cfg(unix)]
#[test]
fn site_link_pointing_outside_is_never_written_through() {
    let r = Repo::example();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), site(&r)).unwrap();
    let err = r.fails(&["site"], 1);
    assert!(
        err.contains(".zo/site") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "written through the link"
    );
    assert!(
        std::fs::symlink_metadata(site(&r))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    // A linked .zo/ on the way is refused the same way, for a DIR given inside it too.
    let err = r.fails(&["site", ".zo/site/sub"], 1);
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn non_empty_dir_that_is_not_a_site_is_refused_and_untouched() {
    let r = Repo::example();
    r.write("notes/keep.txt", "mine");
    let err = r.fails(&["site", "notes"], 2);
    assert!(err.contains("notes") && err.contains("not empty"), "{err}");
    assert_eq!(r.read("notes/keep.txt"), "mine");
    assert_eq!(
        std::fs::read_dir(r.path().join("notes")).unwrap().count(),
        1
    );
    // A file is no directory either.
    r.write("file.txt", "x");
    r.fails(&["site", "file.txt"], 2);
    assert_eq!(r.read("file.txt"), "x");
    // An empty directory is fine, and from then on it is a site zo may replace.
    std::fs::create_dir(r.path().join("pub")).unwrap();
    r.ok(&["site", "pub"]);
    assert!(r.path().join("pub/index.html").is_file() && r.path().join("pub/.zo-site").is_file());
    r.ok(&["site", "pub"]);
}

#[test]
fn rebuild_replaces_an_old_site() {
    let r = Repo::example();
    r.ok(&["site"]);
    r.write(".zo/site/stray.html", "left from before");
    let id = r.decide("Ship the site in the release", "zo site in every release");
    let report = r.json(&["site"]);
    assert_eq!(report["decisions"], 12, "{report}");
    assert!(site(&r).join(format!("d/{id}.html")).is_file());
    assert!(
        !site(&r).join("stray.html").exists(),
        "the old site was not replaced"
    );
    let left: Vec<String> = std::fs::read_dir(r.path().join(".zo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".zo-site"))
        .collect();
    assert!(left.is_empty(), "temp dirs left: {left:?}");
    // Ignored by git: `zo init` writes site/ into .zo/.gitignore.
    r.ok(&["init"]);
    assert!(r.read(".zo/.gitignore").lines().any(|l| l == "site/"));
}

/// `ops::lives::all` (what the site shows) must tell each entry's life exactly as
/// `ops::history::history` (what `zo history` prints) does: over several commits, outcomes,
/// a confirmation, a supersession, a forget and sessions naming agents.
#[test]
fn lives_agree_with_history_for_every_entry() {
    let r = Repo::example();
    r.commit_all("example memory");
    let maybe = r.json(&[
        "decide",
        "--title",
        "Maybe cache berth lists",
        "--decision",
        "Redis for berth lists",
        "--confidence",
        "0.4",
    ]);
    let maybe = maybe["id"].as_str().unwrap().to_string();
    r.commit_all("a provisional decision");
    r.ok(&["confirm", &maybe]);
    r.ok(&["outcome", &maybe, "Cache hit rate 93 %"]);
    let old = r.decide("Poll carriers every minute", "cron job");
    let new = r.json(&[
        "decide",
        "--title",
        "Carriers push to a webhook",
        "--decision",
        "webhook",
        "--supersedes",
        &old,
    ]);
    let new = new["id"].as_str().unwrap().to_string();
    r.commit_all("supersession");
    let gone = r.decide("Held a secret by mistake", "text to erase");
    assert_eq!(
        util::forget(&r.cmd(&["forget", &gone, "--reason", "test"]), &gone).code,
        0
    );
    let memory = zo::store::memory::Memory::open(Some(r.path())).unwrap();
    let log = memory.decisions().unwrap();
    let lives = zo::ops::lives::all(&memory, &log).unwrap();
    assert_eq!(lives.len(), log.entries.len());
    let mut checked = 0;
    for (e, life) in log.entries.iter().zip(&lives) {
        let one = zo::ops::history::history(&memory, &e.id)
            .ok()
            .map(|h| serde_json::to_value(h).unwrap());
        let all = life.as_ref().map(|h| serde_json::to_value(h).unwrap());
        assert_eq!(
            all, one,
            "{}: the site's life differs from zo history's",
            e.id
        );
        checked += 1;
    }
    assert!(checked >= 16, "{checked}");
    // The cases are there: a commit, a session with an agent, an outcome, a supersession, a forget.
    let life = |id: &str| lives[log.find(id).unwrap()].clone().unwrap();
    assert!(
        life("D-99598e35").written.agent.is_some() && life("D-99598e35").written.commit.is_some()
    );
    assert_eq!(life(&maybe).outcomes.len(), 1);
    assert_eq!(life(&maybe).confirmations.len(), 1);
    assert_eq!(
        life(&old).superseded_by.as_ref().map(|e| e.id.clone()),
        Some(new.clone())
    );
    assert!(life(&gone).forgotten.is_some() && life(&gone).written.commit.is_none());
}

#[test]
fn site_dir_inside_zo_other_than_the_default_is_refused() {
    let r = Repo::example();
    let before = std::fs::read_dir(r.path().join(".zo/memory"))
        .unwrap()
        .count();
    for dir in [".zo/memory", ".zo/memory/site", ".zo", ".zo/pages"] {
        let err = r.fails(&["site", dir], 2);
        assert!(
            err.contains("inside .zo") && err.contains(dir),
            "{dir}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_dir(r.path().join(".zo/memory"))
            .unwrap()
            .count(),
        before,
        "written into the memory"
    );
    assert!(!r.path().join(".zo/pages").exists());
    // The default, named or not, is fine.
    r.ok(&["site", ".zo/site"]);
    r.ok(&["site"]);
}

#[test]
fn site_dot_names_the_directory_in_its_message() {
    let r = Repo::example();
    let err = r.fails(&["site", "."], 2);
    assert!(
        !err.contains("zo:  is") && err.contains(&r.path().display().to_string()),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn site_fifo_as_dir_is_a_usage_error_like_a_file() {
    let r = Repo::example();
    let st = Command::new("mkfifo")
        .arg(r.path().join("pipe"))
        .status()
        .unwrap();
    assert!(st.success());
    let err = r.fails(&["site", "pipe"], 2);
    assert!(
        err.contains("pipe") && err.contains("not a directory"),
        "{err}"
    );
}

#[test]
fn entry_page_shows_the_recorded_outcome_not_pending() {
    let r = Repo::init();
    let id = r.decide("Use Postgres", "Postgres for orders");
    r.ok(&["outcome", &id, "held up under quokka load"]);
    r.ok(&["site"]);
    let page = std::fs::read_to_string(site(&r).join(format!("d/{id}.html"))).unwrap();
    let field = page
        .split("<dt>Outcome</dt><dd>")
        .nth(1)
        .and_then(|s| s.split("</dd>").next())
        .unwrap_or_else(|| panic!("no Outcome field: {page}"));
    assert!(
        field.contains("held up under quokka load") && !field.contains("pending"),
        "{field}"
    );
}

#[test]
fn entry_page_names_every_entry_that_supersedes_it() {
    let r = Repo::init();
    let a = r.decide("Poll every minute", "cron");
    let b = r.json(&[
        "decide",
        "--title",
        "Webhook",
        "--decision",
        "push",
        "--supersedes",
        &a,
    ])["id"]
        .as_str()
        .unwrap()
        .to_string();
    let c = r.json(&[
        "decide",
        "--title",
        "Queue",
        "--decision",
        "pull from a queue",
        "--supersedes",
        &a,
    ])["id"]
        .as_str()
        .unwrap()
        .to_string();
    r.ok(&["site"]);
    let page = std::fs::read_to_string(site(&r).join(format!("d/{a}.html"))).unwrap();
    let note = page
        .split("<p class=\"note superseded\">")
        .nth(1)
        .and_then(|s| s.split("</p>").next())
        .unwrap_or_else(|| panic!("{page}"));
    assert!(
        note.contains(&format!("{b}.html")) && note.contains(&format!("{c}.html")),
        "{note}"
    );
}

#[test]
fn long_chain_shows_a_window_around_the_current_entry() {
    let r = Repo::init();
    let mut ids = vec![r.decide("Step 0", "d0")];
    for k in 1..9 {
        let prev = ids.last().unwrap().clone();
        ids.push(
            r.json(&[
                "decide",
                "--title",
                &format!("Step {k}"),
                "--decision",
                "d",
                "--supersedes",
                &prev,
            ])["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    r.ok(&["site"]);
    let page = |id: &str| std::fs::read_to_string(site(&r).join(format!("d/{id}.html"))).unwrap();
    let boxes = |p: &str| p.matches("<rect class=\"box").count();
    let middle = page(&ids[4]);
    assert_eq!(boxes(&middle), 3, "{middle}");
    assert!(
        middle.contains("rect class=\"box current\"")
            && middle.contains("… 3 more before")
            && middle.contains("… 3 more after"),
        "{middle}"
    );
    // At an end the window is still three boxes, all on one side.
    let last = page(&ids[8]);
    assert_eq!(boxes(&last), 3);
    assert!(
        last.contains("… 6 more before") && !last.contains("more after"),
        "{last}"
    );
}

#[test]
fn chart_starts_at_the_first_month_with_data_and_facts_cells_align() {
    let r = Repo::init();
    r.decide("Use Postgres", "Postgres");
    r.ok(&["site"]);
    let index = std::fs::read_to_string(site(&r).join("index.html")).unwrap();
    let chart = index
        .split("<svg class=\"chart\"")
        .nth(1)
        .and_then(|s| s.split("</svg>").next())
        .unwrap();
    assert_eq!(
        chart.matches("<rect ").count(),
        1,
        "one month, one bar: {chart}"
    );
    assert_eq!(
        chart.matches("text-anchor=\"middle\"").count(),
        1,
        "no empty months before it: {chart}"
    );
    // A value cell's Markdown paragraph has no margin of its own (it lines up with the others).
    let css = std::fs::read_to_string(site(&r).join("style.css")).unwrap();
    assert!(
        css.contains("td > p:first-child { margin-top: 0; }"),
        "{css}"
    );
}

#[test]
fn timeline_and_report_say_one_outcome_not_one_outcomes() {
    let r = Repo::init();
    let id = r.decide("Use Postgres", "Postgres for orders");
    r.ok(&["outcome", &id, "fine"]);
    let out = r.ok(&["site"]);
    assert!(
        out.contains("(1 decision, 0 lessons, 0 facts, 0 sessions)"),
        "{out}"
    );
    let timeline = std::fs::read_to_string(site(&r).join("decisions.html")).unwrap();
    assert!(
        timeline.contains("1 decision and 1 outcome or confirmation,"),
        "{timeline}"
    );
}
