//! Hostile-repository cases: the index (issue 20, SPEC "Threat model"). `index.db` is derived
//! and rebuilt at will, so whatever sits there — a link, a FIFO, a file that cannot be written,
//! a rebuild racing busy readers and writers — recall still answers from the files, and zo
//! never writes through a link or waits forever.

use super::*;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A repository with one decision recall can find by its words.
fn with_a_decision() -> Hostile {
    let h = Hostile::new();
    h.expect(
        &[
            "decide",
            "--title",
            "Use a read replica for reports",
            "--decision",
            "reports read from the replica",
        ],
        0,
    );
    h
}

/// `zo --json recall --mode lexical replica` answers with the decision; returns the run.
fn recall_answers(h: &Hostile) -> Run {
    let args = ["--json", "recall", "--mode", "lexical", "replica"];
    let r = h.expect(&args, 0);
    let found = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|hit| hit["title"] == "Use a read replica for reports");
    assert!(found, "{}\n{}", r.stdout, r.stderr);
    r
}

/// The answer came from the files, lexically, and said why (stderr and JSON).
fn answered_from_the_files(r: &Run, why: &str) {
    let v = r.json();
    assert_eq!(v["mode"], "lexical");
    let note = v["note"]
        .as_str()
        .unwrap_or_else(|| panic!("no note in {v}"));
    assert!(note.contains(why), "{note}");
    assert!(
        r.stderr.contains(why) && r.stderr.contains("answering lexically from the files"),
        "{}",
        r.stderr
    );
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// Files a build left beside the index (none may outlive the command).
fn builds_left(h: &Hostile) -> Vec<String> {
    std::fs::read_dir(h.mem(""))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("index.db-build-"))
        .collect()
}

/// `zo ARGS` run by a shell that first limits the size of any file the process may write to 0
/// bytes and ignores SIGXFSZ, so every write that grows a file fails with EFBIG: a full disk, as
/// the process sees it, that also holds for root (CI runs as root, where permissions do not).
fn on_a_full_disk(h: &Hostile, args: &[&str]) -> Command {
    let zo = h.cmd(args);
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("ulimit -f 0 && trap '' XFSZ && exec \"$0\" \"$@\"")
        .arg(zo.get_program())
        .args(zo.get_args());
    c.current_dir(zo.get_current_dir().unwrap());
    for (k, v) in zo.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c
}

// Starvation is measured against a lock timeout, and whether a recall lands inside a rebuild
// depends on the machine's pace: a load test, so `scripts/soak` runs it (`--ignored`), not the
// default suite, where a loaded machine could fail it with nothing wrong (issue 31).
#[test]
#[ignore = "load-dependent: scripts/soak runs it"]
fn index_rebuild_is_not_starved_by_busy_readers_and_writers() {
    let h = Hostile::new();
    // A large log (3,000 entries, ~1 MB), written directly rather than by 3,000 runs.
    let mut log = h.repo.read(h.repo.log_path());
    for i in 0..3000 {
        log.push_str(&util::canonical_entry(
            i,
            &format!("Decision number {i} about replica lag"),
            &format!("keep replica {i} within bounds of the primary"),
        ));
    }
    h.repo.write(h.repo.log_path(), &log);
    h.expect(&["-q", "index", "rebuild"], 0);

    // Starvation shows as a lock timeout: 5 s instead of the default 30.
    let cmd = |args: &[&str]| {
        let mut c = h.cmd(args);
        c.env("ZO_LOCK_TIMEOUT", "5");
        c
    };
    let stop = Arc::new(AtomicBool::new(false));
    let rebuilding = Arc::new(AtomicBool::new(false));
    let during = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        let mut loops = Vec::new();
        for reader in 0..2 {
            let (stop, rebuilding, during) = (stop.clone(), rebuilding.clone(), during.clone());
            let cmd = &cmd;
            loops.push(s.spawn(move || {
                let mut runs = 0;
                while !stop.load(Ordering::SeqCst) {
                    let started_during = rebuilding.load(Ordering::SeqCst);
                    let r = timed(
                        cmd(&[
                            "--json",
                            "recall",
                            "--mode",
                            "lexical",
                            "-k",
                            "3",
                            "replica lag",
                        ]),
                        b"",
                    );
                    assert_eq!(r.code, 0, "reader {reader}, run {runs}: {}", r.stderr);
                    assert_eq!(
                        r.json()["results"].as_array().map(Vec::len),
                        Some(3),
                        "reader {reader}: {}",
                        r.stdout
                    );
                    assert!(
                        r.json()["note"].is_null(),
                        "answered from the index, not the files: {}",
                        r.stderr
                    );
                    if started_during && rebuilding.load(Ordering::SeqCst) {
                        during.fetch_add(1, Ordering::SeqCst);
                    }
                    runs += 1;
                }
            }));
        }
        {
            let stop = stop.clone();
            let cmd = &cmd;
            loops.push(s.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    let r = timed(
                        cmd(&[
                            "decide",
                            "--title",
                            &format!("Writer decision {n}"),
                            "--decision",
                            "replica lag checked again",
                        ]),
                        b"",
                    );
                    assert_eq!(r.code, 0, "writer, run {n}: {}", r.stderr);
                    n += 1;
                }
            }));
        }
        // Twice, as the issue saw it fail (2 of 2 runs).
        for round in 0..2 {
            rebuilding.store(true, Ordering::SeqCst);
            let r = timed(cmd(&["--json", "index", "rebuild"]), b"");
            rebuilding.store(false, Ordering::SeqCst);
            check(&r, &["index", "rebuild"], 0);
            assert!(
                !r.stderr.contains("timed out"),
                "round {round}: {}",
                r.stderr
            );
            assert_eq!(r.json()["rebuilt"], "asked for by `zo index rebuild`");
            assert!(
                r.json()["entries"].as_u64().unwrap() >= 3000,
                "{}",
                r.stdout
            );
        }
        stop.store(true, Ordering::SeqCst);
        for l in loops {
            if let Err(e) = l.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    assert!(
        during.load(Ordering::SeqCst) > 0,
        "no recall ran while the index was rebuilt"
    );
    assert!(builds_left(&h).is_empty(), "{:?}", builds_left(&h));
    h.expect(&["verify"], 0);
    assert_eq!(
        h.run(&["--json", "recall", "--mode", "lexical", "Writer decision"])
            .code,
        0
    );
    assert_eq!(
        h.expect(&["--json", "index", "status"], 0).json()["fresh"],
        true
    );
    h.assert_outside_unchanged();
}

#[test]
fn recall_answers_from_the_files_when_the_disk_is_full() {
    let h = with_a_decision();
    // An index that needs a write to be fresh: built, then a decision it does not have yet.
    h.expect(&["-q", "index", "rebuild"], 0);
    h.expect(
        &[
            "decide",
            "--title",
            "Nightly vacuum",
            "--decision",
            "vacuum the replica nightly",
        ],
        0,
    );
    let db = std::fs::read(h.mem("index.db")).unwrap();
    for case in ["a stale index", "no index"] {
        if case == "no index" {
            std::fs::remove_file(h.mem("index.db")).unwrap();
        }
        let args = ["--json", "recall", "--mode", "lexical", "replica"];
        let r = timed(on_a_full_disk(&h, &args), b"");
        check(&r, &args, 0);
        let v = r.json();
        let titles: Vec<&str> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["title"].as_str().unwrap())
            .collect();
        assert!(
            titles.contains(&"Nightly vacuum")
                && titles.contains(&"Use a read replica for reports"),
            "{case}: {titles:?}"
        );
        answered_from_the_files(&r, "the index could not be used");
        assert!(builds_left(&h).is_empty(), "{case}: {:?}", builds_left(&h));
        if case == "a stale index" {
            assert_eq!(
                std::fs::read(h.mem("index.db")).unwrap(),
                db,
                "the old index is kept as it was"
            );
        }
        h.assert_outside_unchanged();
    }
    // With room again, the index is built and answers.
    let r = recall_answers(&h);
    assert!(r.json()["note"].is_null(), "{}", r.stderr);
}

/// An immutable `index.db` (`chattr +i`, which holds for root too). Needs a filesystem with
/// attributes (ext4, xfs, btrfs); elsewhere (tmpfs, overlayfs) the case cannot be built and is
/// skipped with a line saying so — the full-disk case covers the same path everywhere.
#[test]
fn recall_answers_from_the_files_when_index_db_is_immutable() {
    let h = with_a_decision();
    h.expect(&["-q", "index", "rebuild"], 0);
    h.expect(
        &[
            "decide",
            "--title",
            "Nightly vacuum",
            "--decision",
            "vacuum the replica nightly",
        ],
        0,
    );
    let db = h.mem("index.db");
    let attr = |flag: &str| {
        Command::new("chattr")
            .arg(flag)
            .arg(&db)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !attr("+i") {
        eprintln!("skipped: chattr +i is not available here");
        return;
    }
    struct Mutable<'a>(&'a dyn Fn(&str) -> bool);
    impl Drop for Mutable<'_> {
        fn drop(&mut self) {
            (self.0)("-i");
        }
    }
    let _undo = Mutable(&attr);
    let r = recall_answers(&h);
    answered_from_the_files(&r, "the index could not be used");
    assert!(
        r.stdout.contains("Nightly vacuum"),
        "the answer comes from the files as they are now: {}",
        r.stdout
    );
}

#[test]
fn index_db_link_to_a_file_outside_is_never_written_through() {
    let h = with_a_decision();
    for target in ["precious", "not-there-yet"] {
        let _ = std::fs::remove_file(h.mem("index.db"));
        symlink(h.out(target), h.mem("index.db")).unwrap();
        let r = recall_answers(&h);
        answered_from_the_files(&r, ".zo/memory/index.db is a symbolic link");
        for args in [&["index", "rebuild"][..], &["index", "refresh"]] {
            let r = h.expect(args, 1);
            assert!(
                r.stderr.contains(".zo/memory/index.db is a symbolic link")
                    && r.stderr.contains("remove it"),
                "{args:?}: {}",
                r.stderr
            );
        }
        // `forget` purges the index it keeps, and there is none of its own here.
        let id = h
            .expect(
                &[
                    "decide",
                    "--title",
                    "Short-lived",
                    "--decision",
                    "gone soon",
                ],
                0,
            )
            .stdout
            .trim()
            .to_string();
        let forgot = super::util::forget(
            &h.cmd(&["--json", "forget", &id, "--reason", "no longer true"]),
            &id,
        );
        assert_eq!(forgot.code, 0, "{}", forgot.stdout);
        let f = super::util::json_in(&forgot.stdout);
        assert_eq!(f["index_purged"], false, "{f}");
        assert!(
            std::fs::symlink_metadata(h.mem("index.db"))
                .unwrap()
                .file_type()
                .is_symlink(),
            "zo never removes a link it did not make"
        );
        h.assert_outside_unchanged();
    }
}

#[test]
fn index_db_wal_link_to_a_file_outside_is_never_written_through() {
    let h = with_a_decision();
    h.expect(&["-q", "index", "rebuild"], 0);
    h.expect(
        &[
            "decide",
            "--title",
            "Nightly vacuum",
            "--decision",
            "vacuum the replica nightly",
        ],
        0,
    );
    for sidecar in ["index.db-wal", "index.db-shm", "index.db-journal"] {
        symlink(h.out("precious"), h.mem(sidecar)).unwrap();
        let r = recall_answers(&h);
        answered_from_the_files(&r, &format!(".zo/memory/{sidecar} is a symbolic link"));
        std::fs::remove_file(h.mem(sidecar)).unwrap();
        h.assert_outside_unchanged();
    }
}

#[test]
fn index_db_lock_link_to_a_file_outside_is_never_written_through() {
    let h = with_a_decision();
    for target in ["precious", "not-there-yet"] {
        let _ = std::fs::remove_file(h.mem("index.db-lock"));
        symlink(h.out(target), h.mem("index.db-lock")).unwrap();
        let r = recall_answers(&h);
        answered_from_the_files(&r, ".zo/memory/index.db-lock is a symbolic link");
        let r = h.expect(&["index", "rebuild"], 1);
        assert!(
            r.stderr
                .contains(".zo/memory/index.db-lock is a symbolic link"),
            "{}",
            r.stderr
        );
        h.assert_outside_unchanged();
    }
}

#[test]
fn index_db_or_a_sidecar_that_is_a_fifo_does_not_hang() {
    let h = with_a_decision();
    for name in [
        "index.db",
        "index.db-wal",
        "index.db-shm",
        "index.db-journal",
        "index.db-lock",
    ] {
        let _ = std::fs::remove_file(h.mem("index.db"));
        mkfifo(&h.mem(name));
        let r = recall_answers(&h);
        answered_from_the_files(&r, &format!(".zo/memory/{name} is a FIFO"));
        let r = h.expect(&["index", "rebuild"], 1);
        assert!(
            r.stderr.contains(&format!(".zo/memory/{name} is a FIFO")),
            "{}",
            r.stderr
        );
        std::fs::remove_file(h.mem(name)).unwrap();
    }
}

#[test]
fn index_db_directory_is_answered_from_the_files() {
    let h = with_a_decision();
    std::fs::create_dir(h.mem("index.db")).unwrap();
    let r = recall_answers(&h);
    answered_from_the_files(&r, ".zo/memory/index.db is a directory");
    assert!(
        h.mem("index.db").is_dir(),
        "zo never deletes a directory it did not make"
    );
}
