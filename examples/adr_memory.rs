//! Write the ADR corpus (tests/fixtures/adr-corpus.jsonl, 326 real decision records) into a
//! new git repository as a zo memory, with the IDs tests/fixtures/adr-questions.jsonl uses, so
//! `zo eval` and `zo recall` can be tried on it:
//!   cargo run --release --example adr_memory -- /tmp/adr
//!   cd /tmp/adr && zo eval /path/to/zo/tests/fixtures/adr-questions.jsonl

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: adr_memory DIR (a new directory)");
        std::process::exit(2);
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = std::path::PathBuf::from(dir);
    if repo.exists() {
        eprintln!("{} exists; give a new directory", repo.display());
        std::process::exit(2);
    }
    std::fs::create_dir_all(&repo).unwrap();
    let run = |cmd: &mut std::process::Command| assert!(cmd.status().unwrap().success());
    run(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo));
    run(std::process::Command::new(root.join("target/release/zo"))
        .args(["-q", "init"])
        .current_dir(&repo));
    let corpus = std::fs::read_to_string(root.join("tests/fixtures/adr-corpus.jsonl")).unwrap();
    let log_path = repo.join(".zo/memory/DECISION_LOG.md");
    let mut log = std::fs::read_to_string(&log_path).unwrap();
    log.push_str(&zo::fixtures::adr_entries(&corpus));
    std::fs::write(&log_path, log).unwrap();
    println!("{}", repo.display());
}
