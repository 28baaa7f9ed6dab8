//! One test per bug fixed, named after what broke.

mod util;
use util::Repo;

/// Continuation lines of a multi-line `--rule` are indented under their list item; they were
/// read back with zo's escaping still on them (`\## …`).
#[test]
fn multi_line_prior_rule_read_back_with_escapes() {
    let r = Repo::init();
    r.ok(&["prior", "add", "--title", "T", "--root-cause", "novel_case", "--failure", "f", "--rule", "first\n## looks like a heading\n---"]);
    let j = r.json(&["prior", "list"]);
    assert_eq!(j["priors"][0]["rules"][0], "first\n## looks like a heading\n---");
}

/// `DB_PASSWORD = '…'` slipped through the secret check: `\b` does not separate `_` from a word.
#[test]
fn secret_assignment_with_prefixed_name_was_accepted() {
    let r = Repo::init();
    let e = r.fails(&["decide", "--title", "t", "--decision", "DB_PASSWORD = 'correcthorse'"], 1);
    assert!(e.contains("password-style"), "{e}");
}

/// Two first readers raced to create `index.db`: the second saw the first's tables before the
/// schema version was written, called the database foreign and deleted it under the first,
/// which then failed with "disk I/O error". Readers racing an explicit `index rebuild` could
/// fail the same way.
#[test]
fn concurrent_first_readers_deleted_each_others_new_index() {
    let r = Repo::example();
    for round in 0..6 {
        if round % 2 == 1 {
            std::fs::remove_file(r.path().join(".zo/memory/index.db")).unwrap();
        }
        let children: Vec<_> = (0..8)
            .map(|i| {
                let args: &[&str] = if round % 2 == 0 && i == 0 {
                    &["-q", "index", "rebuild"]
                } else {
                    &["--json", "recall", "--mode", "lexical", "berth"]
                };
                (args, r.cmd(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap())
            })
            .collect();
        for (args, child) in children {
            let run = util::Run::from(child.wait_with_output().unwrap());
            assert_eq!(run.code, 0, "round {round} {args:?}: {}", run.stderr);
            assert!(!run.stderr.contains("is not 2") && !run.stderr.contains("corrupt"), "round {round} {args:?}: {}", run.stderr);
        }
    }
    r.ok(&["verify"]);
    assert_eq!(r.json(&["index", "status"])["fresh"], true);
}
