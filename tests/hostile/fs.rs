//! Confinement: zo never reads or writes outside `<repo>/.zo/` through links, never reads special
//! files, and bounds every read (SPEC "Threat model").

use super::*;
use std::os::unix::fs::symlink;

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

#[test]
fn harness_sees_a_change_outside() {
    let h = Hostile::new();
    h.expect(&["status"], 0);
    std::fs::write(h.out("precious"), "changed").unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.assert_outside_unchanged()));
    assert!(caught.is_err(), "the harness must notice a file changed outside the repository");
}

#[test]
fn lock_link_to_a_file_outside_is_never_truncated() {
    let h = Hostile::new();
    let _ = std::fs::remove_file(h.mem(".lock"));
    symlink(h.out("precious"), h.mem(".lock")).unwrap();
    let r = h.expect(&["decide", "--title", "T", "--decision", "D"], 1);
    assert!(r.stderr.contains(".zo/memory/.lock") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(!h.repo.read(h.repo.log_path()).contains("**Title:** T\n"), "nothing written");
}

#[test]
fn memory_root_outside_the_repository_is_a_usage_error() {
    let h = Hostile::new();
    let out = h.out("tmp").display().to_string();
    for bad in ["../../out", "memory/../../x", out.as_str(), ".", ""] {
        h.repo.write(".zo/config.yaml", &format!("project: test\n# a comment\nmemory_root: {bad:?}\n"));
        for args in [&["decide", "--title", "T", "--decision", "D"][..], &["status"], &["context"]] {
            let r = h.expect(args, 2);
            assert!(r.stderr.contains(".zo/config.yaml:3: memory_root must be a relative path inside .zo/"), "{bad}: {}", r.stderr);
        }
    }
}

#[test]
fn linked_sessions_dir_is_not_written_through() {
    let h = Hostile::new();
    std::fs::remove_dir_all(h.mem("sessions")).unwrap();
    symlink(h.out("tmp"), h.mem("sessions")).unwrap();
    h.repo.decide("Something to record", "so the session has content");
    let r = h.expect(&["session", "end", "--summary", "work"], 1);
    assert!(r.stderr.contains(".zo/memory/sessions") && r.stderr.contains("symbolic link"), "{}", r.stderr);
}

#[test]
fn linked_snapshots_dir_is_not_written_through() {
    let h = Hostile::new();
    std::fs::remove_dir_all(h.mem("snapshots")).unwrap();
    symlink(h.out("tmp"), h.mem("snapshots")).unwrap();
    let r = h.expect(&["snapshot", "--phase", "p1"], 1);
    assert!(r.stderr.contains(".zo/memory/snapshots") && r.stderr.contains("symbolic link"), "{}", r.stderr);
}

#[test]
fn linked_memory_dir_is_refused_for_reads_and_writes() {
    let mut h = Hostile::new();
    let elsewhere = h.out("memory");
    util::copy_dir(&h.mem(""), &elsewhere);
    h.rebase_outside();
    std::fs::remove_dir_all(h.mem("")).unwrap();
    symlink(&elsewhere, h.root().join(".zo/memory")).unwrap();
    for args in [&["decide", "--title", "T", "--decision", "D"][..], &["log"], &["context"], &["recall", "--mode", "lexical", "x"]] {
        let r = h.expect(args, 1);
        assert!(r.stderr.contains(".zo/memory") && r.stderr.contains("symbolic link"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn linked_zo_dir_is_refused() {
    let mut h = Hostile::new();
    let elsewhere = h.out("zo");
    util::copy_dir(&h.root().join(".zo"), &elsewhere);
    h.rebase_outside();
    std::fs::remove_dir_all(h.root().join(".zo")).unwrap();
    symlink(&elsewhere, h.root().join(".zo")).unwrap();
    for args in [&["decide", "--title", "T", "--decision", "D"][..], &["status"], &["init"]] {
        let r = h.expect(args, 1);
        assert!(r.stderr.contains(".zo") && r.stderr.contains("symbolic link"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn state_link_to_credentials_never_reaches_the_bundle() {
    let h = Hostile::new();
    std::fs::remove_file(h.mem("STATE.md")).unwrap();
    symlink(h.out(".aws/credentials"), h.mem("STATE.md")).unwrap();
    let r = h.expect(&["context"], 0);
    assert!(!r.stdout.contains("outside-secret-value"), "{}", r.stdout);
    let r = h.run_in(&["hook", "claude"], br#"{"hook_event_name":"SessionStart","source":"startup","session_id":"s"}"#);
    assert!(!r.stdout.contains("outside-secret-value") && !r.stderr.contains("outside-secret-value"), "{}", r.stdout);
    let r = h.expect(&["--json", "status"], 0);
    assert!(!r.stdout.contains("outside-secret-value"));
    let r = h.expect(&["state", "show"], 0);
    assert!(!r.stdout.contains("outside-secret-value"));
    assert!(r.stderr.contains("STATE.md") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    h.assert_outside_unchanged();
}

#[test]
fn linked_session_file_is_never_indexed_or_recalled() {
    let mut h = Hostile::new();
    std::fs::write(h.out("notes.md"), "# Session 1\n\nthe zanzibarian launch codes\n").unwrap();
    h.rebase_outside();
    symlink(h.out("notes.md"), h.mem("sessions/session-001-2026-01-01.md")).unwrap();
    let r = h.expect(&["--json", "recall", "--mode", "lexical", "--kind", "all", "zanzibarian launch codes"], 0);
    assert_eq!(r.json()["results"].as_array().unwrap().len(), 0, "{}", r.stdout);
    let r = h.expect(&["session", "list"], 0);
    assert!(!r.stdout.contains("session-001"), "{}", r.stdout);
    let r = h.expect(&["context"], 0);
    assert!(!r.stdout.contains("zanzibarian"));
}

#[test]
fn memory_file_fifo_does_not_hang() {
    let h = Hostile::new();
    std::fs::remove_file(h.mem("DECISION_LOG.md")).unwrap();
    mkfifo(&h.mem("DECISION_LOG.md"));
    for args in [&["log"][..], &["decide", "--title", "T", "--decision", "D"], &["recall", "--mode", "lexical", "x"]] {
        let r = h.expect(args, 1);
        assert!(r.stderr.contains("DECISION_LOG.md") && r.stderr.contains("FIFO"), "{args:?}: {}", r.stderr);
    }
    std::fs::remove_file(h.mem("STATE.md")).unwrap();
    mkfifo(&h.mem("STATE.md"));
    let r = h.run(&["state", "show"]);
    assert!(r.stderr.contains("STATE.md") && r.stderr.contains("FIFO"), "{}", r.stderr);
}

#[test]
fn memory_file_linked_to_dev_zero_does_not_hang() {
    let h = Hostile::new();
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("/dev/zero", h.mem("PRIORS.md")).unwrap();
    let r = h.expect(&["prior", "list"], 1);
    assert!(r.stderr.contains("PRIORS.md") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("/dev/zero", h.mem("sessions/session-002-2026-01-02.md")).unwrap();
    h.expect(&["session", "list"], 0);
    h.expect(&["context"], 0);
}

#[test]
fn file_input_from_dev_zero_is_bounded() {
    let h = Hostile::new();
    for args in [&["decide", "--file", "/dev/zero"][..], &["session", "end", "--file", "/dev/zero"], &["eval", "/dev/zero"]] {
        let r = h.expect(args, 2);
        assert!(r.stderr.contains("/dev/zero") && r.stderr.contains("16 MiB"), "{args:?}: {}", r.stderr);
    }
    // stdin too: 17 MiB of input is refused, not read whole.
    let r = h.run_in(&["decide", "--file", "-"], &vec![b' '; 17 << 20]);
    check(&r, &["decide", "--file", "-"], 2);
    assert!(r.stderr.contains("<stdin>") && r.stderr.contains("16 MiB"), "{}", r.stderr);
}

#[test]
fn memory_file_over_the_cap_is_refused_by_name() {
    let h = Hostile::new();
    // Sparse: 2 GiB long, no disk used; zo must refuse it by its size, not read it.
    let f = std::fs::OpenOptions::new().write(true).open(h.mem("DECISION_LOG.md")).unwrap();
    f.set_len(2 << 30).unwrap();
    let r = h.expect(&["log"], 1);
    assert!(r.stderr.contains("DECISION_LOG.md") && r.stderr.contains("1 GiB"), "{}", r.stderr);
}

#[test]
fn log_truncated_while_read_never_kills_zo() {
    let h = Hostile::new();
    let mut big = h.repo.read(h.repo.log_path());
    for i in 0..2500 {
        big.push_str(&util::canonical_entry(i, &format!("entry {i}"), &"padding text ".repeat(40)));
    }
    let path = h.mem("DECISION_LOG.md");
    std::fs::write(&path, &big).unwrap();
    // Another process shrinks the file in place while zo reads it, over and over. With the
    // log memory-mapped this killed zo with SIGBUS 13 times in 30; read into memory it cannot.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (p, s, text) = (path.clone(), stop.clone(), big.clone());
    let shrinker = std::thread::spawn(move || {
        while !s.load(std::sync::atomic::Ordering::Relaxed) {
            let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            f.set_len(text.len() as u64 / 3).unwrap();
            std::fs::write(&p, &text).unwrap();
        }
    });
    for _ in 0..30 {
        let r = h.run(&["log", "--limit", "1"]);
        assert!(r.code == 0 || r.code == 1, "killed by a signal? code {} {}", r.code, r.stderr);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    shrinker.join().unwrap();
    h.assert_outside_unchanged();
}

#[test]
fn doctor_and_verify_name_links_and_special_files() {
    let h = Hostile::new();
    symlink(h.out("precious"), h.mem("sessions/session-003-2026-01-03.md")).unwrap();
    mkfifo(&h.mem("snapshots/p1_2026-01-01T00-00-00.md"));
    let r = h.expect(&["verify"], 4);
    assert!(r.stderr.contains("sessions/session-003-2026-01-03.md") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(r.stderr.contains("snapshots/p1_2026-01-01T00-00-00.md") && r.stderr.contains("FIFO"), "{}", r.stderr);
    let r = h.expect(&["--json", "doctor"], 1);
    let links = r.json()["checks"].as_array().unwrap().iter().find(|c| c["check"] == "links").cloned().unwrap();
    assert_eq!(links["level"], "fail");
    assert!(links["detail"].as_str().unwrap().contains("session-003"), "{links}");
}

#[test]
fn link_inside_zo_to_a_file_inside_is_refused_too() {
    // The rule is simple: no link under .zo is followed, wherever it points.
    let h = Hostile::new();
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("DECISION_LOG.md", h.mem("PRIORS.md")).unwrap();
    let r = h.expect(&["prior", "list"], 1);
    assert!(r.stderr.contains("PRIORS.md") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    let r = h.expect(&["verify"], 4);
    assert!(r.stderr.contains("PRIORS.md"), "{}", r.stderr);
}

#[test]
fn agent_wiring_never_writes_through_a_link() {
    let mut h = Hostile::new();
    std::fs::create_dir_all(h.out("dotclaude")).unwrap();
    h.rebase_outside();
    symlink(h.out("precious"), h.root().join("CLAUDE.md")).unwrap();
    let r = h.expect(&["init", "--agent", "claude"], 1);
    assert!(r.stderr.contains("CLAUDE.md") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    std::fs::remove_file(h.root().join("CLAUDE.md")).unwrap();
    symlink(h.out("dotclaude"), h.root().join(".claude")).unwrap();
    let r = h.expect(&["init", "--agent", "claude"], 1);
    assert!(r.stderr.contains(".claude") && r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(std::fs::read_dir(h.out("dotclaude")).unwrap().next().is_none(), "nothing written through the .claude link");
}
