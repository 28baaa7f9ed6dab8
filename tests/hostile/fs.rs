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
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        h.assert_outside_unchanged()
    }));
    assert!(
        caught.is_err(),
        "the harness must notice a file changed outside the repository"
    );
}

#[test]
fn lock_link_to_a_file_outside_is_never_truncated() {
    let h = Hostile::new();
    let _ = std::fs::remove_file(h.mem(".lock"));
    symlink(h.out("precious"), h.mem(".lock")).unwrap();
    let r = h.expect(&["decide", "--title", "T", "--decision", "D"], 1);
    assert!(
        r.stderr.contains(".zo/memory/.lock") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    assert!(
        !h.repo.read(h.repo.log_path()).contains("**Title:** T\n"),
        "nothing written"
    );
}

#[test]
fn memory_root_outside_the_repository_is_a_usage_error() {
    let h = Hostile::new();
    let out = h.out("tmp").display().to_string();
    for bad in ["../../out", "memory/../../x", out.as_str(), ".", ""] {
        h.repo.write(
            ".zo/config.yaml",
            &format!("project: test\n# a comment\nmemory_root: {bad:?}\n"),
        );
        for args in [
            &["decide", "--title", "T", "--decision", "D"][..],
            &["status"],
            &["context"],
        ] {
            let r = h.expect(args, 2);
            assert!(
                r.stderr
                    .contains(".zo/config.yaml:3: memory_root must be a relative path inside .zo/"),
                "{bad}: {}",
                r.stderr
            );
        }
    }
}

#[test]
fn linked_sessions_dir_is_not_written_through() {
    let h = Hostile::new();
    std::fs::remove_dir_all(h.mem("sessions")).unwrap();
    symlink(h.out("tmp"), h.mem("sessions")).unwrap();
    h.repo
        .decide("Something to record", "so the session has content");
    let r = h.expect(&["session", "end", "--summary", "work"], 1);
    assert!(
        r.stderr.contains(".zo/memory/sessions") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
}

#[test]
fn linked_snapshots_dir_is_not_written_through() {
    let h = Hostile::new();
    std::fs::remove_dir_all(h.mem("snapshots")).unwrap();
    symlink(h.out("tmp"), h.mem("snapshots")).unwrap();
    let r = h.expect(&["snapshot", "--phase", "p1"], 1);
    assert!(
        r.stderr.contains(".zo/memory/snapshots") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
}

#[test]
fn linked_memory_dir_is_refused_for_reads_and_writes() {
    let mut h = Hostile::new();
    let elsewhere = h.out("memory");
    util::copy_dir(&h.mem(""), &elsewhere);
    h.rebase_outside();
    std::fs::remove_dir_all(h.mem("")).unwrap();
    symlink(&elsewhere, h.root().join(".zo/memory")).unwrap();
    for args in [
        &["decide", "--title", "T", "--decision", "D"][..],
        &["log"],
        &["context"],
        &["recall", "--mode", "lexical", "x"],
    ] {
        let r = h.expect(args, 1);
        assert!(
            r.stderr.contains(".zo/memory") && r.stderr.contains("symbolic link"),
            "{args:?}: {}",
            r.stderr
        );
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
    for args in [
        &["decide", "--title", "T", "--decision", "D"][..],
        &["status"],
        &["init"],
    ] {
        let r = h.expect(args, 1);
        assert!(
            r.stderr.contains(".zo") && r.stderr.contains("symbolic link"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn state_link_to_credentials_never_reaches_the_bundle() {
    let h = Hostile::new();
    std::fs::remove_file(h.mem("STATE.md")).unwrap();
    symlink(h.out(".aws/credentials"), h.mem("STATE.md")).unwrap();
    let r = h.expect(&["context"], 0);
    assert!(!r.stdout.contains("outside-secret-value"), "{}", r.stdout);
    let r = h.run_in(
        &["hook", "claude"],
        br#"{"hook_event_name":"SessionStart","source":"startup","session_id":"s"}"#,
    );
    assert!(
        !r.stdout.contains("outside-secret-value") && !r.stderr.contains("outside-secret-value"),
        "{}",
        r.stdout
    );
    let r = h.expect(&["--json", "status"], 0);
    assert!(!r.stdout.contains("outside-secret-value"));
    let r = h.expect(&["state", "show"], 0);
    assert!(!r.stdout.contains("outside-secret-value"));
    assert!(
        r.stderr.contains("STATE.md") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    h.assert_outside_unchanged();
}

#[test]
fn linked_session_file_is_never_indexed_or_recalled() {
    let mut h = Hostile::new();
    std::fs::write(
        h.out("notes.md"),
        "# Session 1\n\nthe zanzibarian launch codes\n",
    )
    .unwrap();
    h.rebase_outside();
    symlink(
        h.out("notes.md"),
        h.mem("sessions/session-001-2026-01-01.md"),
    )
    .unwrap();
    let r = h.expect(
        &[
            "--json",
            "recall",
            "--mode",
            "lexical",
            "--kind",
            "all",
            "zanzibarian launch codes",
        ],
        0,
    );
    assert_eq!(
        r.json()["results"].as_array().unwrap().len(),
        0,
        "{}",
        r.stdout
    );
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
    for args in [
        &["log"][..],
        &["decide", "--title", "T", "--decision", "D"],
        &["recall", "--mode", "lexical", "x"],
    ] {
        let r = h.expect(args, 1);
        assert!(
            r.stderr.contains("DECISION_LOG.md") && r.stderr.contains("FIFO"),
            "{args:?}: {}",
            r.stderr
        );
    }
    std::fs::remove_file(h.mem("STATE.md")).unwrap();
    mkfifo(&h.mem("STATE.md"));
    let r = h.run(&["state", "show"]);
    assert!(
        r.stderr.contains("STATE.md") && r.stderr.contains("FIFO"),
        "{}",
        r.stderr
    );
}

#[test]
fn memory_file_linked_to_dev_zero_does_not_hang() {
    let h = Hostile::new();
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("/dev/zero", h.mem("PRIORS.md")).unwrap();
    let r = h.expect(&["prior", "list"], 1);
    assert!(
        r.stderr.contains("PRIORS.md") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("/dev/zero", h.mem("sessions/session-002-2026-01-02.md")).unwrap();
    h.expect(&["session", "list"], 0);
    h.expect(&["context"], 0);
}

#[test]
fn file_input_from_dev_zero_is_bounded() {
    let h = Hostile::new();
    for args in [
        &["decide", "--file", "/dev/zero"][..],
        &["session", "end", "--file", "/dev/zero"],
        &["eval", "/dev/zero"],
    ] {
        let r = h.expect(args, 2);
        assert!(
            r.stderr.contains("/dev/zero") && r.stderr.contains("16 MiB"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // stdin too: 17 MiB of input is refused, not read whole.
    let r = h.run_in(&["decide", "--file", "-"], &vec![b' '; 17 << 20]);
    check(&r, &["decide", "--file", "-"], 2);
    assert!(
        r.stderr.contains("<stdin>") && r.stderr.contains("16 MiB"),
        "{}",
        r.stderr
    );
}

#[test]
fn memory_file_over_the_cap_is_refused_by_name() {
    let h = Hostile::new();
    // Sparse: 2 GiB long, no disk used; zo must refuse it by its size, not read it.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(h.mem("DECISION_LOG.md"))
        .unwrap();
    f.set_len(2 << 30).unwrap();
    let r = h.expect(&["log"], 1);
    assert!(
        r.stderr.contains("DECISION_LOG.md") && r.stderr.contains("1 GiB"),
        "{}",
        r.stderr
    );
}

/// History is as untrusted as the work tree: a commit whose DECISION_LOG.md is a 1 GiB + 1
/// blob of zeros (4 MB compressed) was inflated whole by `--as-of` and `history`. Refused by its
/// size, before it is read, naming the file; `history` and the site, which walk every version,
/// pass over that one and still tell every entry's life.
#[test]
fn huge_blob_in_git_history_is_refused_before_it_is_read() {
    let h = Hostile::new();
    let root = h.root();
    let sh = |script: &str| {
        // As the repository's user (tests/util::user_command): the developer's global git
        // config (a hooks path, a merge driver) is not this test's.
        let out = super::util::user_command("sh", &super::util::home_for(root))
            .arg("-c")
            .arg(script)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let id = sh("head -c 1073741825 /dev/zero | git -c core.compression=1 hash-object -w --stdin");
    sh(&format!(
        "git update-index --cacheinfo 100644,{id},.zo/memory/DECISION_LOG.md && git commit -qm huge"
    ));
    sh("git checkout -q HEAD~1 -- .zo/memory/DECISION_LOG.md && git commit -qm back");
    let r = h.expect(&["log", "--as-of", "HEAD~1"], 1);
    assert!(
        r.stderr.contains("DECISION_LOG.md") && r.stderr.contains("up to 1073741824 bytes"),
        "{}",
        r.stderr
    );
    let id = h.repo.decide("Written after the huge commit", "still read");
    h.repo.commit_all("after");
    let r = h.expect(&["history", id.trim()], 0);
    assert!(
        r.stdout.contains("Written after the huge commit") && r.stdout.contains("commit "),
        "{}",
        r.stdout
    );
}

#[test]
fn log_truncated_while_read_never_kills_zo() {
    let h = Hostile::new();
    let mut big = h.repo.read(h.repo.log_path());
    for i in 0..2500 {
        big.push_str(&util::canonical_entry(
            i,
            &format!("entry {i}"),
            &"padding text ".repeat(40),
        ));
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
        assert!(
            r.code == 0 || r.code == 1,
            "killed by a signal? code {} {}",
            r.code,
            r.stderr
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    shrinker.join().unwrap();
    h.assert_outside_unchanged();
}

#[test]
fn doctor_and_verify_name_links_and_special_files() {
    let h = Hostile::new();
    symlink(
        h.out("precious"),
        h.mem("sessions/session-003-2026-01-03.md"),
    )
    .unwrap();
    mkfifo(&h.mem("snapshots/p1_2026-01-01T00-00-00.md"));
    let r = h.expect(&["verify"], 4);
    assert!(
        r.stderr.contains("sessions/session-003-2026-01-03.md")
            && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("snapshots/p1_2026-01-01T00-00-00.md") && r.stderr.contains("FIFO"),
        "{}",
        r.stderr
    );
    let r = h.expect(&["--json", "doctor"], 1);
    let links = r.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "symlinks")
        .cloned()
        .unwrap();
    assert_eq!(links["level"], "fail");
    assert!(
        links["detail"].as_str().unwrap().contains("session-003"),
        "{links}"
    );
}

#[test]
fn link_inside_zo_to_a_file_inside_is_refused_too() {
    // The rule is simple: no link under .zo is followed, wherever it points.
    let h = Hostile::new();
    std::fs::remove_file(h.mem("PRIORS.md")).unwrap();
    symlink("DECISION_LOG.md", h.mem("PRIORS.md")).unwrap();
    let r = h.expect(&["prior", "list"], 1);
    assert!(
        r.stderr.contains("PRIORS.md") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
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
    assert!(
        r.stderr.contains("CLAUDE.md") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(h.root().join("CLAUDE.md")).unwrap();
    symlink(h.out("dotclaude"), h.root().join(".claude")).unwrap();
    let r = h.expect(&["init", "--agent", "claude"], 1);
    assert!(
        r.stderr.contains(".claude") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    assert!(
        std::fs::read_dir(h.out("dotclaude"))
            .unwrap()
            .next()
            .is_none(),
        "nothing written through the .claude link"
    );
}

// Found by the fresh-eyes attack review (each test is named after what it broke).

#[test]
fn committed_index_runtime_loaded_a_library_of_the_repository() {
    let h = Hostile::new();
    let sentinel = h.out("PWNED");
    let src = h.root().join("evil.c");
    std::fs::write(
        &src,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void p(void){{FILE*f=fopen(\"{}\",\"a\");if(f){{fputs(\"code ran\\n\",f);fclose(f);}}}}\n",
            sentinel.display()
        ),
    )
    .unwrap();
    let m = h.root().join(".zo/m");
    std::fs::create_dir_all(&m).unwrap();
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(m.join("libonnxruntime.so"))
        .arg(&src)
        .status()
        .unwrap();
    assert!(cc.success(), "a C compiler is needed for this test");
    for f in [
        "model.onnx",
        "tokenizer.json",
        "config.json",
        "special_tokens_map.json",
        "tokenizer_config.json",
    ] {
        std::fs::write(m.join(f), "{}").unwrap();
    }
    let cfg = h.repo.read(".zo/config.yaml");
    h.repo.write(
        ".zo/config.yaml",
        &format!("{cfg}index:\n  model_dir: .zo/m\n  runtime: .zo/m/libonnxruntime.so\n"),
    );
    h.repo.decide("Use Postgres", "one database");
    for args in [
        &["recall", "anything"][..],
        &["index", "rebuild"],
        &["continue"],
    ] {
        let r = h.run(args);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(
            !sentinel.exists(),
            "zo {args:?} loaded the repository's library"
        );
    }
    let r = h.run(&["--json", "doctor"]);
    assert!(!sentinel.exists(), "doctor loaded the repository's library");
    let config = r.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "config")
        .cloned()
        .unwrap();
    assert!(
        config["level"] == "warn" && config["detail"].as_str().unwrap().contains("index.runtime"),
        "{config}"
    );
    h.assert_outside_unchanged();
}

#[test]
fn agent_remove_deleted_files_through_a_linked_directory() {
    let mut h = Hostile::new();
    std::fs::create_dir_all(h.out("dotcursor")).unwrap();
    std::fs::write(
        h.out("dotcursor/mcp.json"),
        r#"{"mcpServers":{"zo":{"command":"zo","args":["mcp"]}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(h.out("dotclaude/commands/memory")).unwrap();
    std::fs::write(
        h.out("dotclaude/commands/memory/recall.md"),
        "---\ndescription: x\n---\nzo recall \"$ARGUMENTS\"\n",
    )
    .unwrap();
    std::fs::write(h.out("dotclaude/settings.json"), r#"{"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"zo hook claude"}]}]}}"#)
        .unwrap();
    h.rebase_outside();
    symlink(h.out("dotcursor"), h.root().join(".cursor")).unwrap();
    symlink(h.out("dotclaude"), h.root().join(".claude")).unwrap();
    for args in [
        &["init", "--agent", "cursor", "--remove"][..],
        &["init", "--agent", "claude"],
        &["init", "--agent", "claude", "--remove"],
    ] {
        let r = h.expect(args, 1);
        assert!(r.stderr.contains("symbolic link"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn links_outside_zo_hung_or_flooded_status_doctor_and_mcp() {
    let h = Hostile::new();
    std::fs::remove_file(h.root().join(".zo/.gitattributes")).unwrap();
    symlink("/dev/zero", h.root().join(".zo/.gitattributes")).unwrap();
    symlink("/dev/zero", h.root().join(".mcp.json")).unwrap();
    mkfifo(&h.root().join(".cursor-fifo"));
    std::fs::create_dir_all(h.root().join(".claude")).unwrap();
    symlink(
        h.root().join(".cursor-fifo"),
        h.root().join(".claude/settings.json"),
    )
    .unwrap();
    for args in [&["status"][..], &["doctor"], &["init", "--agent", "claude"]] {
        let r = h.run(args);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
    }
    let lines = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"status\",\"arguments\":{}}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n";
    let r = h.run_in(&["mcp"], lines);
    assert_eq!(
        r.stdout.lines().count(),
        3,
        "every request answered: {}",
        r.stdout
    );
    h.assert_outside_unchanged();
}

#[test]
fn doctor_printed_a_value_from_a_linked_mcp_json_outside() {
    let mut h = Hostile::new();
    std::fs::write(
        h.out(".claude.json"),
        r#"{"mcpServers":{"zo":{"command":"/opt/SECRET-from-outside-file"}}}"#,
    )
    .unwrap();
    h.rebase_outside();
    symlink(h.out(".claude.json"), h.root().join(".mcp.json")).unwrap();
    let r = h.run(&["doctor"]);
    assert!(
        !r.stdout.contains("SECRET-from-outside") && !r.stderr.contains("SECRET-from-outside"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    h.assert_outside_unchanged();
}

#[test]
fn checkpoint_message_skipped_the_gate() {
    let h = Hostile::new();
    h.repo.decide("Something", "to commit");
    for m in ["esc\u{1b}]0;PWNED\u{7}x", "key AKIAZ7VRSQ5TJXNBMQ3B"] {
        let r = h.expect(&["checkpoint", "-m", m], 1);
        assert!(r.stderr.contains("message"), "{}", r.stderr);
    }
    assert!(!h.repo.git(&["log", "--format=%B"]).contains("PWNED"));
}

#[test]
fn memory_root_that_is_not_a_plain_string_was_accepted() {
    let h = Hostile::new();
    for bad in ["[1, 2]", "{a: b}", "\"a\\u0000b\"", "\"memory\\e]2;x\""] {
        h.repo.write(
            ".zo/config.yaml",
            &format!("project: test\nmemory_root: {bad}\n"),
        );
        let r = h.expect(&["status"], 2);
        assert!(
            r.stderr.contains("config.yaml:2: memory_root must be"),
            "{bad}: {}",
            r.stderr
        );
    }
}
