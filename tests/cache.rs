//! The machine's vector cache (issue 24): a second clone or worktree embeds nothing the cache
//! holds, a damaged entry is never used, concurrent builds fill it consistently, and `zo cache`
//! reports and prunes. Every test has its own cache (`ZO_CACHE` set to a temp dir, the model
//! named directly), never the person's.

mod util;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use util::{Machine, Repo, Run, git_in};

/// The example memory (20 entries to embed), committed.
fn source() -> Repo {
    let r = Repo::example();
    r.commit_all("memory");
    r
}

fn clone(from: &Path, into: &Path) -> PathBuf {
    git_in(
        Path::new("/"),
        &[
            "clone",
            "-q",
            from.to_str().unwrap(),
            into.to_str().unwrap(),
        ],
    );
    into.to_path_buf()
}

/// The semantic top hit for a question the example answers by meaning only.
fn semantic_ok(m: &Machine, dir: &Path) {
    let v = m.json(
        dir,
        &[
            "recall",
            "--mode",
            "semantic",
            "-k",
            "2",
            "stop two dispatchers reserving one berth at the same moment",
        ],
    );
    assert_eq!(v["mode"], "semantic", "{v}");
    let ids: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"D-02e4fb86") || ids.contains(&"PR-001"),
        "{ids:?}"
    );
}

#[test]
fn a_second_clone_and_a_new_worktree_embed_nothing_the_cache_holds() {
    let m = Machine::new();
    let r = source();
    assert_eq!(
        m.refresh(r.path()),
        (20, 0),
        "a cold cache embeds everything"
    );
    assert_eq!(m.entries(), 20);

    let dirs = tempfile::tempdir().unwrap();
    let second = clone(r.path(), &dirs.path().join("second"));
    let out = m.run(&second, &["continue"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let st = m.json(&second, &["index", "status"]);
    assert_eq!(
        (st["embedded"].as_u64(), st["pending_embeddings"].as_u64()),
        (Some(20), Some(0)),
        "{st}"
    );
    assert!(
        !out.stderr.contains("embedding"),
        "continue embedded: {}",
        out.stderr
    );
    semantic_ok(&m, &second);

    let wt = dirs.path().join("worktree");
    r.git(&["worktree", "add", "-q", wt.to_str().unwrap()]);
    assert_eq!(
        m.refresh(&wt),
        (0, 20),
        "a new worktree takes every vector from the cache"
    );
    semantic_ok(&m, &wt);

    // Deleting the index rebuilds it, from the cache; deleting both re-embeds.
    std::fs::remove_file(wt.join(".zo/memory/index.db")).unwrap();
    assert_eq!(m.refresh(&wt), (0, 20));
    m.json(&wt, &["cache", "clear"]);
    let v = m.json(&wt, &["index", "rebuild"]);
    assert_eq!(
        (v["embedded"].as_u64(), v["from_cache"].as_u64()),
        (Some(20), Some(0)),
        "{v}"
    );
    assert_eq!(m.entries(), 20);
}

#[test]
fn a_corrupt_cache_entry_is_ignored_and_replaced() {
    let m = Machine::new();
    let r = source();
    m.refresh(r.path());
    {
        let db = rusqlite::Connection::open(m.db()).unwrap();
        // Flip a byte of one vector: its checksum no longer holds.
        let (rowid, mut vec): (i64, Vec<u8>) = db
            .query_row(
                "SELECT rowid, vec FROM vectors ORDER BY rowid LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        vec[7] ^= 0x40;
        db.execute(
            "UPDATE vectors SET vec = ?2 WHERE rowid = ?1",
            rusqlite::params![rowid, vec],
        )
        .unwrap();
        // And cut another short, as a torn write would.
        db.execute("UPDATE vectors SET vec = substr(vec, 1, 100) WHERE rowid = (SELECT rowid FROM vectors ORDER BY rowid LIMIT 1 OFFSET 1)", []).unwrap();
    }
    let dirs = tempfile::tempdir().unwrap();
    let second = clone(r.path(), &dirs.path().join("second"));
    assert_eq!(
        m.refresh(&second),
        (2, 18),
        "the two damaged entries are embedded again"
    );
    semantic_ok(&m, &second);
    let third = clone(r.path(), &dirs.path().join("third"));
    assert_eq!(m.refresh(&third), (0, 20), "and replaced in the cache");
    assert_eq!(m.entries(), 20);

    // A cache file that is not a database at all is made again.
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", m.db().display()));
    }
    std::fs::write(m.db(), vec![0x5au8; 8192]).unwrap();
    let fourth = clone(r.path(), &dirs.path().join("fourth"));
    assert_eq!(m.refresh(&fourth), (20, 0));
    semantic_ok(&m, &fourth);
    assert_eq!(m.entries(), 20);
}

#[test]
fn two_rebuilds_filling_the_cache_at_once_end_consistent() {
    let m = Machine::new();
    let r = source();
    let dirs = tempfile::tempdir().unwrap();
    let a = clone(r.path(), &dirs.path().join("a"));
    let b = clone(r.path(), &dirs.path().join("b"));
    let children: Vec<_> = [&a, &b]
        .iter()
        .map(|d| {
            m.cmd(d, &["--json", "index", "rebuild"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = Run::from(c.wait_with_output().unwrap());
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = out.json();
        assert_eq!(
            v["embedded"].as_u64().unwrap() + v["from_cache"].as_u64().unwrap(),
            20,
            "{v}"
        );
        assert_eq!(v["embedded_total"], 20, "{v}");
    }
    for d in [&a, &b] {
        let st = m.json(d, &["index", "status"]);
        assert_eq!(
            (st["embedded"].as_u64(), st["pending_embeddings"].as_u64()),
            (Some(20), Some(0)),
            "{st}"
        );
        semantic_ok(&m, d);
    }
    assert_eq!(m.entries(), 20, "one entry per text, however many wrote it");
    let c = clone(r.path(), &dirs.path().join("c"));
    assert_eq!(m.refresh(&c), (0, 20));
    let db = rusqlite::Connection::open(m.db()).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn cache_status_prune_and_clear_report() {
    let m = Machine::new();
    let nowhere = Path::new("/");
    let st = m.json(nowhere, &["cache", "status"]);
    assert_eq!(
        (st["exists"].as_bool(), st["entries"].as_u64()),
        (Some(false), Some(0)),
        "{st}"
    );
    assert!(!m.db().exists(), "status makes nothing");
    assert_eq!(st["max_bytes"], 1u64 << 30);

    let r = source();
    m.refresh(r.path());
    let st = m.json(nowhere, &["cache", "status"]);
    assert_eq!(
        (st["exists"].as_bool(), st["entries"].as_u64()),
        (Some(true), Some(20)),
        "{st}"
    );
    let per = st["bytes"].as_u64().unwrap() / 20;
    assert!(per > 3072, "{st}");
    let text = m.run(nowhere, &["cache", "status"]);
    assert!(text.stdout.contains("vectors   20"), "{}", text.stdout);

    // The least recently used go first: mark half the entries as used long ago.
    {
        let db = rusqlite::Connection::open(m.db()).unwrap();
        db.execute("UPDATE vectors SET used = 1000 WHERE rowid IN (SELECT rowid FROM vectors ORDER BY rowid LIMIT 10)", []).unwrap();
    }
    let max = per * 12;
    let on_disk = || {
        m.json(nowhere, &["cache", "status"])["file_bytes"]
            .as_u64()
            .unwrap()
    };
    let before = on_disk();
    let p = m.json(nowhere, &["cache", "prune", "--max", &max.to_string()]);
    assert_eq!(
        (p["removed"].as_u64(), p["entries"].as_u64()),
        (Some(8), Some(12)),
        "{p}"
    );
    assert!(p["bytes"].as_u64().unwrap() <= max, "{p}");
    // The file gives the space back: prune and clear kept the file at its size (the vacuum
    // freed one page, and the write-ahead log was not checkpointed into the file).
    assert!(
        on_disk() + 7 * per <= before,
        "prune gave no disk space back: {before} then {}",
        on_disk()
    );
    {
        let db = rusqlite::Connection::open(m.db()).unwrap();
        let old: i64 = db
            .query_row("SELECT count(*) FROM vectors WHERE used = 1000", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(old, 2, "the 8 removed were all among the oldest");
    }
    // The bound holds by itself after new vectors are written.
    let dirs = tempfile::tempdir().unwrap();
    let second = clone(r.path(), &dirs.path().join("second"));
    let mut c = m.cmd(&second, &["--json", "index", "refresh"]);
    let out = Run::from(
        c.env("ZO_CACHE_MAX", (per * 5).to_string())
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        (
            out.json()["embedded"].as_u64(),
            out.json()["from_cache"].as_u64()
        ),
        (Some(8), Some(12))
    );
    assert!(m.entries() <= 5, "{}", m.entries());

    let cl = m.json(nowhere, &["cache", "clear"]);
    assert_eq!(cl["entries"], 0, "{cl}");
    assert_eq!(m.entries(), 0);
    assert!(
        on_disk() < 64 << 10,
        "clear gave no disk space back: {}",
        on_disk()
    );
    let text = m.run(nowhere, &["cache", "clear"]);
    assert!(
        text.stdout.starts_with("cleared ") && text.stdout.contains("0 vectors removed"),
        "{}",
        text.stdout
    );
    // It names the bound in force, not the 0 it cleared to.
    assert!(
        text.stdout.contains("(0 B of 1.0 GiB bound)"),
        "{}",
        text.stdout
    );

    // Bad sizes are usage errors.
    assert_eq!(m.run(nowhere, &["cache", "prune", "--max", "lots"]).code, 2);
    let out = Run::from(
        m.cmd(nowhere, &["cache", "status"])
            .env("ZO_CACHE_MAX", "-1")
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("ZO_CACHE_MAX"), "{}", out.stderr);
}

/// The cache directory is the user's, but zo makes `vectors/` itself and never writes through
/// a link it finds there: the index is built without the cache, and the link's target stays
/// untouched.
#[test]
fn a_link_where_the_vector_cache_lives_is_not_written_through() {
    let m = Machine::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), m.cache.path().join("vectors")).unwrap();
    let r = source();
    let out = m.run(r.path(), &["--json", "index", "refresh"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["embedded"], 20);
    assert!(
        out.stderr.contains("vector cache could not be used"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );
    semantic_ok(&m, r.path());
}

/// `zo forget` keeps no copy of the erased text anywhere: its vectors leave the machine's cache
/// too (another checkout then embeds it again, if it still holds the text).
#[test]
fn forget_erases_the_entry_from_the_vector_cache() {
    let m = Machine::new();
    let r = source();
    m.refresh(r.path());
    assert_eq!(m.entries(), 20);
    let out = util::forget(
        &m.cmd(
            r.path(),
            &["forget", "D-02e4fb86", "--reason", "held a credential"],
        ),
        "D-02e4fb86",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The decision's vectors, and the session's that listed it with its title (the forget
    // replaced the title there, so that text is gone too).
    assert_eq!(m.entries(), 18);
    // A clone of the commit before the forget still holds both texts: embedded again.
    let dirs = tempfile::tempdir().unwrap();
    let second = clone(r.path(), &dirs.path().join("second"));
    assert_eq!(m.refresh(&second), (2, 18));
}

/// A recall in a fresh clone, before any `continue`, takes the vectors the cache holds before it
/// counts what is left to embed (it used to load the full model for them), and answers in
/// hybrid mode with nothing left to embed afterwards.
#[test]
fn recall_in_a_fresh_clone_answers_from_the_cache() {
    let m = Machine::new();
    let src = source();
    assert_eq!(m.refresh(src.path()), (20, 0));
    let dir = tempfile::tempdir().unwrap();
    let c = clone(src.path(), &dir.path().join("c"));
    let r = m.run(
        &c,
        &[
            "--json",
            "recall",
            "how do we keep secrets out of the repository",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("embedding"), "{}", r.stderr);
    assert_eq!(r.json()["mode"], "hybrid", "{}", r.stdout);
    assert_eq!(m.refresh(&c), (0, 0), "nothing left to embed or take");
}
