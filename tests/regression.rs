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
