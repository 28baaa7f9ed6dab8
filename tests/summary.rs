//! The decision log's derived summary (`.zo/memory/index.db-summary`): the hook path (`status`,
//! `log`, `show`, `context`, the SessionStart hook) answers from it only while it describes the
//! file as it is, and answers exactly as the full read does. Every test here runs zo on a log
//! written moments before, so freshness is proven by content each time (the stamp alone
//! proves it only for a file settled seconds before the summary: unit-tested in
//! `store::summary`).

mod util;
use util::{Repo, canonical_entry};

const SUMMARY: &str = ".zo/memory/index.db-summary";

fn has_summary(r: &Repo) -> bool {
    r.path().join(SUMMARY).is_file()
}

fn drop_summary(r: &Repo) {
    let _ = std::fs::remove_file(r.path().join(SUMMARY));
}

/// What the hook path prints, command by command (text and JSON).
fn hook_path_outputs(r: &Repo, show: &[String]) -> Vec<(String, String)> {
    let mut cmds: Vec<Vec<String>> = vec![
        vec!["status".into()],
        vec!["--json".into(), "status".into()],
        vec!["log".into()],
        vec!["log".into(), "--limit".into(), "3".into()],
        vec!["--json".into(), "log".into(), "--all".into()],
        vec!["log".into(), "--type".into(), "OUTCOME".into()],
        vec!["context".into()],
        vec![
            "--json".into(),
            "context".into(),
            "--budget".into(),
            "600".into(),
        ],
    ];
    for id in show {
        cmds.push(vec!["show".into(), id.clone()]);
        cmds.push(vec!["--json".into(), "show".into(), id.clone()]);
    }
    cmds.iter()
        .map(|c| {
            let args: Vec<&str> = c.iter().map(String::as_str).collect();
            let run = r.run(&args);
            (
                c.join(" "),
                format!("{}\n{}\n{}", run.code, run.stdout, run.stderr),
            )
        })
        .collect()
}

/// The outputs with no summary (the full read, which writes one) and then from the summary
/// must be the same, byte for byte.
fn assert_summary_agrees(r: &Repo, show: &[String]) {
    drop_summary(r);
    let full = hook_path_outputs(r, show);
    assert!(has_summary(r), "the full read writes the summary");
    let quick = hook_path_outputs(r, show);
    for ((cmd, a), (_, b)) in full.iter().zip(&quick) {
        assert_eq!(
            a, b,
            "zo {cmd}: the summary's answer differs from the full read's"
        );
    }
    // And once more with the hook an agent runs at session start.
    drop_summary(r);
    let event = r#"{"hook_event_name":"SessionStart","source":"startup","session_id":"s1"}"#;
    let a = r.run_stdin(&["hook", "claude"], event);
    let b = r.run_stdin(&["hook", "claude"], event);
    assert_eq!(
        (a.code, &a.stdout),
        (b.code, &b.stdout),
        "SessionStart from the summary"
    );
}

/// A memory with every kind of link the statuses depend on: outcomes, a supersession, a
/// provisional decision and its confirmation, a forgotten entry, hand-written entries.
fn generated() -> (Repo, Vec<String>) {
    let r = Repo::init();
    let mut log = r.read(r.log_path());
    for i in 0..30 {
        log.push_str(&canonical_entry(
            i,
            &format!("hand written {i}"),
            &format!("body {i}\n\n```\n## Decision: not an entry\n```"),
        ));
    }
    // Links written by hand: a supersede cycle (neither member reads as superseded), an entry
    // superseding an old one by its heading time, a duplicate ID, two outcomes for one entry.
    let hand = |id: &str, extra: &str| {
        let kind = if extra.contains("**Outcome:**") {
            "OUTCOME"
        } else {
            "ARCHITECTURE"
        };
        format!(
            "## Decision: 2026-02-01T00:00:00Z\n**ID:** {id}\n**Type:** {kind}\n**Title:** hand {id}\n**Decision:** d\n{extra}\n---\n\n"
        )
    };
    log.push_str(&hand("D-000000a0", "**Supersedes:** D-000000a1\n"));
    log.push_str(&hand("D-000000a1", "**Supersedes:** D-000000a0\n"));
    log.push_str(&hand(
        "D-000000a2",
        "**Supersedes:** 2026-01-01T00:00:00Z\n",
    ));
    log.push_str(&hand("D-00000005", "**Refs:** D-00000006\n"));
    log.push_str(&hand(
        "D-000000a3",
        "**Refs:** D-00000007\n**Outcome:** first\n",
    ));
    log.push_str(&hand(
        "D-000000a4",
        "**Refs:** D-00000007, D-00000008\n**Outcome:** second\n",
    ));
    r.write(r.log_path(), &log);
    let a = r.decide("use postgres", "yes");
    let b = r
        .ok(&[
            "decide",
            "--title",
            "use sqlite",
            "--decision",
            "smaller",
            "--supersedes",
            &a,
        ])
        .trim()
        .to_string();
    r.ok(&["outcome", &b, "shipped, fine"]);
    r.ok(&["outcome", "D-00000003", "worked"]);
    let p = r
        .ok(&[
            "decide",
            "--title",
            "maybe caching",
            "--decision",
            "try it",
            "--type",
            "PROPOSAL",
        ])
        .trim()
        .to_string();
    let q = r
        .ok(&[
            "decide",
            "--title",
            "unsure thing",
            "--decision",
            "perhaps",
            "--confidence",
            "0.3",
        ])
        .trim()
        .to_string();
    r.ok(&["confirm", &q]);
    r.decide("the last one", "is newest");
    let hand_ids = [
        "D-000000a0",
        "D-000000a1",
        "D-000000a2",
        "D-00000005",
        "D-00000007",
        "D-00000008",
    ]
    .map(String::from);
    let mut show = vec![
        a,
        b,
        p,
        q,
        "D-00000003".into(),
        "D-0000000".into(),
        "2026-01-01T00:00:00Z".into(),
        "nope".into(),
    ];
    show.extend(hand_ids);
    (r, show)
}

fn ids_of(r: &Repo) -> Vec<String> {
    r.ids()
}

#[test]
fn summary_answers_like_the_full_read_on_the_example_memory() {
    let r = Repo::example();
    let ids = ids_of(&r);
    let show: Vec<String> = ids
        .iter()
        .step_by(3)
        .cloned()
        .chain(["PR-".to_string()])
        .collect();
    assert_summary_agrees(&r, &show);
}

#[test]
fn summary_answers_like_the_full_read_on_a_generated_memory() {
    let (r, show) = generated();
    assert_summary_agrees(&r, &show);
}

/// A log with a byte-order mark and CRLF line ends: the summary's spans are offsets into the
/// text after the mark, the file's bytes are read after it.
#[test]
fn summary_answers_like_the_full_read_on_a_bom_crlf_log() {
    let r = Repo::init();
    let mut log = String::from("\u{feff}# DECISION_LOG\n\n---\n\n");
    for i in 0..12 {
        log.push_str(&canonical_entry(i, &format!("crlf {i}"), "x"));
    }
    r.write(r.log_path(), &log.replace('\n', "\r\n"));
    assert_summary_agrees(&r, &["D-00000004".into(), "D-0000000b".into()]);
}

#[test]
fn summary_stale_after_an_entry_appended_by_hand() {
    let (r, _) = generated();
    r.ok(&["status"]);
    assert!(has_summary(&r));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(r.path().join(r.log_path()))
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        canonical_entry(0xabc, "appended by hand", "later").as_bytes(),
    )
    .unwrap();
    drop(f);
    let log = r.ok(&["log", "--limit", "1"]);
    assert!(log.contains("appended by hand"), "{log}");
    assert!(r.ok(&["show", "D-00000abc"]).contains("later"));
    assert!(r.ok(&["context"]).contains("appended by hand"));
}

/// The hardest case for a stamp: the same file, the same length, changed in the middle within
/// the same clock tick. The content check must catch it.
#[test]
fn summary_stale_after_a_same_length_edit_in_the_middle() {
    let (r, _) = generated();
    r.ok(&["log"]);
    assert!(has_summary(&r));
    let path = r.path().join(r.log_path());
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("hand written 7\n").unwrap();
    // Overwrite in place (same inode, same length), as an editor saving without a rename might.
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_at(&f, b"HAND WRITTEN 7", at as u64).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, text.len());
    assert!(r.ok(&["log"]).contains("HAND WRITTEN 7"));
    assert!(r.ok(&["show", "D-00000007"]).contains("HAND WRITTEN 7"));
    assert_summary_agrees(&r, &["D-00000007".into()]);
}

#[test]
fn summary_stale_after_an_outcome_and_a_supersede_written_later() {
    let (r, _) = generated();
    let c = r.decide("cache in redis", "yes");
    r.ok(&["status"]);
    assert!(has_summary(&r));
    r.ok(&["outcome", &c, "too slow"]);
    let d = r
        .ok(&[
            "decide",
            "--title",
            "cache in process",
            "--decision",
            "lru",
            "--supersedes",
            &c,
        ])
        .trim()
        .to_string();
    let shown = r.json(&["show", &c]);
    assert_eq!(shown["status"], "superseded");
    assert_eq!(shown["superseded_by"], d.as_str());
    assert_eq!(shown["outcome"], "too slow");
    assert!(r.ok(&["log"]).contains(&format!("[superseded by {d}]")));
    assert_summary_agrees(&r, &[c, d]);
}

#[test]
fn summary_stale_after_git_checkout_replaces_the_log() {
    let (r, _) = generated();
    r.commit_all("memory");
    let before = r.ok(&["log"]);
    r.decide("after the commit", "gone after checkout");
    assert!(r.ok(&["log"]).contains("after the commit"));
    r.git(&["checkout", "--", ".zo/memory/DECISION_LOG.md"]);
    assert_eq!(r.ok(&["log"]), before);
    assert_summary_agrees(&r, &[]);
}

#[test]
fn summary_deleted_corrupt_or_not_a_file_is_ignored() {
    let (r, show) = generated();
    let want = hook_path_outputs(&r, &show);
    let path = r.path().join(SUMMARY);
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    let mut huge_count = good.clone();
    // The entry count right after the header: a count no file could hold.
    let at = b"zo decision summary 1\n".len() + 8 * 3 + 16 * 3 + 4 + 1;
    huge_count[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..good.len() / 3].to_vec(),
        flipped,
        huge_count,
        b"zo decision summary 1\n garbage".to_vec(),
        b"zo decision summary 9\n".to_vec(),
    ];
    for bytes in cases {
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(hook_path_outputs(&r, &show), want);
    }
    std::fs::remove_file(&path).unwrap();
    assert_eq!(hook_path_outputs(&r, &show), want);
    // A directory or a link in its place: never followed, never fatal.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert_eq!(hook_path_outputs(&r, &show), want);
    std::fs::remove_dir(&path).unwrap();
    std::os::unix::fs::symlink(r.path().join(".zo/memory/STATE.md"), &path).unwrap();
    assert_eq!(hook_path_outputs(&r, &show), want);
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left alone"
    );
}

/// A summary of another log of the same length (copied from elsewhere, or the log replaced
/// by one of equal size) describes other entries: its content check fails.
#[test]
fn summary_of_another_log_with_the_same_length_is_not_used() {
    let r = Repo::init();
    let one: String = (0..8)
        .map(|i| canonical_entry(i, &format!("title {i}"), "aaaa"))
        .collect();
    let two: String = (0..8)
        .map(|i| canonical_entry(i, &format!("other {i}"), "bbbb"))
        .collect();
    assert_eq!(one.len(), two.len());
    r.write(r.log_path(), &one);
    r.ok(&["log"]);
    r.write(r.log_path(), &two);
    let log = r.ok(&["log"]);
    assert!(log.contains("other 3") && !log.contains("title 3"), "{log}");
}

/// The outputs served from a summary of the file before an append (the first command finds it
/// grown, reads only the tail and writes a new summary; the rest use that one) must be the
/// same as from a full read, byte for byte.
fn assert_grown_agrees(r: &Repo, show: &[String]) {
    assert!(has_summary(r), "a summary of the earlier file is there");
    let grown = hook_path_outputs(r, show);
    assert!(has_summary(r));
    drop_summary(r);
    let full = hook_path_outputs(r, show);
    for ((cmd, a), (_, b)) in full.iter().zip(&grown) {
        assert_eq!(
            a, b,
            "zo {cmd}: the grown summary's answer differs from the full read's"
        );
    }
}

fn append(r: &Repo, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(r.path().join(r.log_path()))
        .unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
}

/// zo's writers and a hand append only add to the end of the log: the next hook-path read
/// takes the summary of the file before and walks only the last entry and what follows, and
/// every answer is the full read's: new entries, links from them to old ones (outcome,
/// supersede, confirm), a last entry continued by the append, paths and conflict markers that
/// only the appended text holds, a log with a byte-order mark and CRLF line ends.
#[test]
fn summary_grown_by_appends_answers_like_the_full_read() {
    let (r, mut show) = generated();
    r.ok(&["status"]);
    let old = show[0].clone();
    let new = r.decide("appended decision", "grown");
    show.push(new.clone());
    assert_grown_agrees(&r, &show);
    r.ok(&["outcome", &old, "aged well"]);
    assert_grown_agrees(&r, &show);
    let sup = r
        .ok(&[
            "decide",
            "--title",
            "replaces the new one",
            "--decision",
            "d",
            "--supersedes",
            &new,
        ])
        .trim()
        .to_string();
    show.push(sup);
    assert_grown_agrees(&r, &show);
    let p = r
        .ok(&[
            "decide",
            "--title",
            "tentative",
            "--decision",
            "maybe",
            "--confidence",
            "0.2",
        ])
        .trim()
        .to_string();
    r.ok(&["status"]);
    r.ok(&["confirm", &p]);
    show.push(p);
    assert_grown_agrees(&r, &show);
    // Paths only the appended entry names (the first in the log): it is measured for
    // staleness, and 300 lines changed under it since its commit make it stale.
    r.write("src/x.rs", "fn a() {}\n");
    r.commit_all("x");
    let c0 = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    r.write("src/x.rs", &"line\n".repeat(300));
    r.commit_all("x grows");
    r.ok(&["status"]);
    append(
        &r,
        &format!(
            "## Decision: 2026-03-02T00:00:00Z\n**ID:** D-0000a7a5\n**Type:** ARCHITECTURE\n**Title:** x stays small\n**Decision:** d\n**Paths:** src/x.rs\n**Commit:** {c0}\n\n---\n\n"
        ),
    );
    let ctx = r.ok(&["context"]);
    assert!(
        ctx.contains("(stale: 1 commit, 301 lines changed"),
        "the grown summary knows the log names paths: {ctx}"
    );
    show.push("D-0000a7a5".into());
    assert_grown_agrees(&r, &show);
    // The last entry continued by hand: no new heading.
    let log = r.read(r.log_path());
    r.write(
        r.log_path(),
        log.trim_end().trim_end_matches("---").trim_end(),
    );
    r.ok(&["status"]);
    append(&r, "\nA line added to the last entry.\n");
    assert_grown_agrees(&r, &show);
    // Conflict markers only in the appended text.
    r.ok(&["status"]);
    append(
        &r,
        "\n<<<<<<< ours\n## Decision: 2026-03-01T00:00:00Z\n**ID:** D-0000c0f1\n**Title:** ours\n=======\n>>>>>>> theirs\n",
    );
    show.push("D-0000c0f1".into());
    assert_grown_agrees(&r, &show);

    let r = Repo::init();
    let mut log = String::from("\u{feff}# DECISION_LOG\n\n---\n\n");
    for i in 0..6 {
        log.push_str(&canonical_entry(i, &format!("crlf {i}"), "x"));
    }
    r.write(r.log_path(), &log.replace('\n', "\r\n"));
    r.ok(&["status"]);
    append(
        &r,
        &canonical_entry(0x77, "crlf appended", "y").replace('\n', "\r\n"),
    );
    assert_grown_agrees(&r, &["D-00000005".into(), "D-00000077".into()]);
}

/// A summary of a longer file, or of a file whose beginning changed and that also grew, must
/// not be taken for a grown one.
#[test]
fn summary_of_a_file_that_changed_before_its_end_and_grew_is_not_used() {
    let (r, show) = generated();
    r.ok(&["status"]);
    let log = r
        .read(r.log_path())
        .replace("hand written 3\n", "HAND WRITTEN 3 and longer\n");
    r.write(r.log_path(), &log);
    assert!(
        r.ok(&["show", "D-00000003"])
            .contains("HAND WRITTEN 3 and longer")
    );
    r.ok(&["status"]);
    let log = r.read(r.log_path());
    r.write(r.log_path(), &log[..log.len() / 2]);
    assert_grown_agrees(&r, &show);
}

/// CRC-32 (IEEE), bit by bit: what the summary's content check was.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Flip the case of some of `letters` (byte offsets of ASCII letters) so that `text` gets
/// the CRC-32 `target` again: CRC is linear, so the flips are solved by elimination over GF(2).
fn forge_crc(text: &mut [u8], letters: &[usize], target: u32) {
    let base = crc32(text);
    let effect = |i: usize| {
        let mut t = text.to_vec();
        t[i] ^= 0x20;
        crc32(&t) ^ base
    };
    // basis[bit] = (effect, which letters, as a bit set over `letters`).
    let mut basis: Vec<Option<(u32, u128)>> = vec![None; 32];
    for (k, &i) in letters.iter().take(128).enumerate() {
        let (mut v, mut m) = (effect(i), 1u128 << k);
        for bit in (0..32).rev() {
            if v >> bit & 1 == 0 {
                continue;
            }
            match basis[bit] {
                Some((bv, bm)) => {
                    v ^= bv;
                    m ^= bm;
                }
                None => {
                    basis[bit] = Some((v, m));
                    break;
                }
            }
        }
    }
    let (mut v, mut m) = (base ^ target, 0u128);
    for bit in (0..32).rev() {
        if v >> bit & 1 == 1 {
            let (bv, bm) = basis[bit].expect("enough letters to forge");
            v ^= bv;
            m ^= bm;
        }
    }
    for (k, &i) in letters.iter().take(128).enumerate() {
        if m >> k & 1 == 1 {
            text[i] ^= 0x20;
        }
    }
    assert_eq!(crc32(text), target);
}

/// The content check was a CRC-32, which an edit can be crafted to keep: a commit changing an
/// entry's type (and the case of some letters in the log's preamble) kept the old summary in
/// use, and the hook path showed the entry as it was before the edit. The check is now a
/// keyed hash: the edit is seen.
#[test]
fn a_same_length_edit_crafted_to_keep_the_crc_kept_the_old_summary() {
    let r = Repo::init();
    let mut log = String::from(
        "# DECISION_LOG\n\nDecisions, newest last. Never edit or delete an entry by hand; append instead.\n\n---\n\n",
    );
    for i in 0..5 {
        log.push_str(&canonical_entry(i, &format!("entry {i}"), "d"));
    }
    r.write(r.log_path(), &log);
    assert!(r.ok(&["log"]).contains("entry 3"));
    assert!(has_summary(&r));
    let before = log.as_bytes().to_vec();
    let mut forged = log
        .replacen(
            "**ID:** D-00000003\n**Type:** ARCHITECTURE",
            "**ID:** D-00000003\n**Type:** PROPOSAL    ",
            1,
        )
        .into_bytes();
    assert_eq!(forged.len(), before.len());
    let preamble = log.find("---").unwrap();
    let letters: Vec<usize> = (0..preamble)
        .filter(|&i| forged[i].is_ascii_alphabetic())
        .collect();
    forge_crc(&mut forged, &letters, crc32(&before));
    // Written in place: the same file, the same length, the same CRC-32.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(r.path().join(r.log_path()))
        .unwrap();
    std::os::unix::fs::FileExt::write_at(&f, &forged, 0).unwrap();
    drop(f);
    let shown = r.json(&["show", "D-00000003"]);
    assert_eq!(shown["type"], "PROPOSAL", "{shown}");
    assert_summary_agrees(&r, &["D-00000003".into()]);
}

/// A summary is derived and gitignored, but a repository can commit one (`git add -f`): a
/// clone got it, and the hook path trusted it when its CRC matched the log, whatever its
/// entries said. A summary is now sealed with the key of the user whose zo wrote it: another
/// user's (or a crafted one) is never used, and the clone's zo writes its own.
#[test]
fn a_summary_committed_to_the_repository_was_trusted_by_a_clone() {
    let r = generated().0;
    r.ok(&["status"]);
    assert!(has_summary(&r));
    r.git(&["add", "-f", SUMMARY]);
    r.commit_all("memory, with a summary");
    let clone = tempfile::tempdir().unwrap();
    let dest = clone.path().join("c");
    let out = util::git_anywhere()
        .args(["clone", "-q"])
        .arg(r.path())
        .arg(&dest)
        .output()
        .unwrap();
    assert!(out.status.success());
    let committed = std::fs::read(dest.join(SUMMARY)).unwrap();
    // The clone's zo: another user (its own key, in its own vector cache directory).
    let run = |args: &[&str]| {
        let o = util::zo_command(&dest)
            .args(args)
            .env_remove("ZO_REPO")
            .env("ZO_VECTOR_CACHE", clone.path().join("vectors"))
            .env("ZO_USER_DIR", clone.path().join("user"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let first = run(&["--json", "log", "--all"]);
    assert_ne!(
        std::fs::read(dest.join(SUMMARY)).unwrap(),
        committed,
        "the committed summary was used, not replaced"
    );
    std::fs::remove_file(dest.join(SUMMARY)).unwrap();
    assert_eq!(
        first,
        run(&["--json", "log", "--all"]),
        "the answer is the full read's"
    );
}

/// The key that seals summaries lives in the machine's vector cache directory: a FIFO there
/// never blocks a hook, and a link there is not followed (nor written through); either way
/// there is simply no summary, and the answers are the full read's.
#[test]
fn the_summary_key_is_never_read_through_a_link_or_from_a_fifo() {
    let (r, show) = generated();
    let keydir = r.vector_dir();
    std::fs::create_dir_all(&keydir).unwrap();
    let key = keydir.join("summary.key");
    let fifo = std::ffi::CString::new(key.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let outputs = hook_path_outputs(&r, &show);
    assert!(
        !has_summary(&r),
        "a summary was sealed with a key read from a FIFO"
    );
    std::fs::remove_file(&key).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("k"), [7u8; 32]).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("k"), &key).unwrap();
    assert_eq!(hook_path_outputs(&r, &show), outputs);
    assert!(
        !has_summary(&r),
        "a summary was sealed with a key read through a link"
    );
    assert_eq!(
        std::fs::read(elsewhere.path().join("k")).unwrap(),
        [7u8; 32]
    );
    // Once the link is gone, a key of its own is made (0600) and the summary is back.
    std::fs::remove_file(&key).unwrap();
    assert_eq!(hook_path_outputs(&r, &show), outputs);
    assert!(has_summary(&r));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
}
