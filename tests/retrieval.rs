//! Retrieval quality with the real model: 326 real decision records, 34 questions written in
//! plain language that avoid their targets' title words, labelled by hand. Reports Recall@3 and
//! MRR for hybrid, lexical and semantic search; hybrid must beat lexical.
//! Run `cargo test --release --test retrieval -- --nocapture` to see the table.

mod util;
use std::collections::HashMap;
use util::Repo;
use zo::format::decision::NewDecision;
use zo::index::Filter;
use zo::recall::{self, Mode};

/// (question, corpus ids of the records that answer it)
const QUESTIONS: &[(&str, &[&str])] = &[
    ("how do we send emails and text messages to people", &["govuk-forms-ADR002-use-govuk-notify"]),
    ("who gets woken up when production breaks at night", &["govuk-forms-ADR031-use-pagerduty"]),
    ("moving frontend specs to a faster runner that works with our bundler", &["govuk-forms-ADR033-swapping-jest-vitest"]),
    ("protection against distributed denial of service attacks", &["govuk-forms-ADR029-use-shield-advanced"]),
    ("scanning files people attach for viruses", &["govuk-forms-ADR042-use-amazon-s3-file-uploads"]),
    ("which continuous integration pipeline tool did the cloud platform pick", &["moj-cloudplatform-003-Use-Concourse-CI"]),
    ("where do we store docker images", &["moj-cloudplatform-007-Use-ECR-As-Container-Registry", "moj-cloudplatform-046-use-ecr-for-all-user-images"]),
    ("enforcing rules on what can be deployed to kubernetes", &["moj-cloudplatform-011-Introduce-Open-Policy-Agent"]),
    ("underscores or camelCase for identifiers in infrastructure code", &["moj-cloudplatform-017-Variable-Naming"]),
    ("running pods without managing worker nodes", &["moj-cloudplatform-034-EKS-Fargate"]),
    ("how do engineers log in to the cloud accounts with single sign-on", &["moj-modplatform-0003-use-aws-sso"]),
    ("where should passwords and API keys be kept", &["moj-modplatform-0009-use-secrets-manager-for-secrets"]),
    ("how do we restore data if something is deleted by mistake", &["moj-modplatform-0023-backup-strategy"]),
    ("separating development and production environments in infrastructure state", &["moj-modplatform-0035-terraform-workspaces"]),
    ("moving staff identity to Microsoft's directory service", &["moj-modplatform-0041-adopting-entra-id"]),
    ("stop running our own Postgres machines and let the cloud provider manage them", &["govuk-aws-0018-use-rds-instead-of-provisioned-ec2-databases"]),
    ("getting rid of an extra layer of traffic distribution in front of apps", &["govuk-aws-0026-remove-load-balancer-tier"]),
    ("how does the balancer know an instance is alive", &["govuk-aws-0037-alb-health-checks"]),
    ("evolving the schema of the datastore as the app changes", &["arachne-adr-016-db-migrations"]),
    ("making stored values disappear after a configured lifetime", &["nats-ADR-48"]),
    ("reducing disk usage of persisted messages by shrinking them", &["nats-ADR-35"]),
    ("telling clients a server is about to shut down so they reconnect elsewhere", &["nats-ADR-5"]),
    ("publish something now so it is delivered at a later point in time", &["nats-ADR-51"]),
    ("use the Windows keychain for TLS identity", &["nats-ADR-39"]),
    ("which library writes our diagnostic output in the Java app", &["jabref-0002-use-slf4j-for-logging"]),
    ("an embedded relational engine shipped inside the desktop app", &["jabref-0010-use-h2-as-internal-database"]),
    ("ignoring filler terms such as 'the' and 'a' when turning searches into fetcher requests", &["jabref-0022-remove-stop-words-during-query-transformation"]),
    ("which library parses command line arguments for the headless tool", &["jabref-0044-use-picocli-for-jabkit"]),
    ("extracting text from scanned PDF pages", &["jabref-0056-OCR-engine-selection"]),
    ("computing vector representations of papers for the assistant chat", &["jabref-0058-use-djl-for-embeddings"]),
    ("marking which fields may be absent so the checker finds missing-value bugs before running", &["jabref-0052-jspecify-nullable-annotations"]),
    ("library for transitions between draft, live and archived lifecycle stages", &["govuk-forms-ADR025-use-aasm-to-manage-form-state"]),
    ("running more than one kubernetes environment instead of a single shared one", &["moj-cloudplatform-021-Multi-cluster", "moj-cloudplatform-036-multi-cluster", "moj-cloudplatform-048-per-business-unit-clusters"]),
    ("where our automated build and deploy pipelines run", &["moj-modplatform-0005-use-github-actions", "moj-cloudplatform-040-use-github-actions"]),
];

fn decision_id(corpus_id: &str) -> String {
    format!("D-{}", &zo::format::sha256_hex(corpus_id)[..8])
}

struct Score {
    recall3: f64,
    mrr: f64,
}

fn evaluate(index: &zo::index::Index, embedder: &mut zo::embedding::Embedder, questions: &[(&str, Vec<String>)], mode: Mode) -> Score {
    let (mut hit3, mut rr) = (0.0, 0.0);
    for (q, relevant) in questions {
        let qv = embedder.embed(&[q]).unwrap().remove(0);
        let hits = recall::rank(index, q, Some(&qv), 10, &Filter { all: true, ..Default::default() }, mode).unwrap();
        if let Some(pos) = hits.iter().position(|h| relevant.contains(&h.row.id)) {
            rr += 1.0 / (pos as f64 + 1.0);
            if pos < 3 {
                hit3 += 1.0;
            }
        }
    }
    let n = questions.len() as f64;
    Score { recall3: hit3 / n, mrr: rr / n }
}

fn table(name: &str, rows: &[(Mode, Score)]) {
    println!("\n{name}\n| mode | Recall@3 | MRR@10 |\n|---|---:|---:|");
    for (m, s) in rows {
        println!("| {} | {:.3} | {:.3} |", m.name(), s.recall3, s.mrr);
    }
}

fn setup_embedder() -> zo::embedding::Embedder {
    let search = zo::embedding::locate(&zo::config::Config::default());
    let paths = search.paths().unwrap_or_else(|why| panic!("the real model is required for this test: {why}"));
    zo::embedding::Embedder::load(&paths).unwrap()
}

#[test]
fn adr_corpus_hybrid_beats_lexical() {
    let r = Repo::init();
    let corpus = std::fs::read_to_string(util::fixtures().join("adr-corpus.jsonl")).unwrap();
    let mut log = r.read(r.log_path());
    let mut ids = HashMap::new();
    for (i, line) in corpus.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let cid = v["id"].as_str().unwrap();
        let d = NewDecision {
            id: decision_id(cid),
            timestamp: zo::time::rfc3339(1_600_000_000 + i as i64 * 86_400),
            kind: "ARCHITECTURE".into(),
            title: v["title"].as_str().unwrap().chars().take(200).collect(),
            decision: v["body"].as_str().unwrap().trim().into(),
            outcome: "pending".into(),
            ..Default::default()
        };
        ids.insert(cid.to_string(), d.id.clone());
        log.push_str(&d.render());
    }
    r.write(r.log_path(), &log);
    let questions: Vec<(&str, Vec<String>)> = QUESTIONS
        .iter()
        .map(|(q, rel)| (*q, rel.iter().map(|c| ids.get(*c).unwrap_or_else(|| panic!("no record {c}")).clone()).collect()))
        .collect();
    assert!(questions.len() >= 30);

    let memory = zo::memory::Memory::open(Some(r.path())).unwrap();
    let (mut index, _) = recall::open_fresh(&memory, &|_| {}).unwrap();
    let mut embedder = setup_embedder();
    let t = std::time::Instant::now();
    let embedded = recall::embed_pending(&mut index, &mut embedder, &|_| {}).unwrap();
    println!("embedded {embedded} records in {:.1}s", t.elapsed().as_secs_f64());
    assert_eq!(embedded, 326);

    let rows: Vec<(Mode, Score)> =
        [Mode::Hybrid, Mode::Lexical, Mode::Semantic].into_iter().map(|m| (m, evaluate(&index, &mut embedder, &questions, m))).collect();
    table(&format!("ADR corpus: {} records, {} questions", 326, questions.len()), &rows);
    let (h, l, s) = (&rows[0].1, &rows[1].1, &rows[2].1);
    assert!(h.recall3 > l.recall3 || (h.recall3 == l.recall3 && h.mrr > l.mrr), "hybrid must beat lexical");
    assert!(h.recall3 >= 0.4 && s.recall3 >= 0.5, "retrieval quality regressed");
}

#[test]
fn zero_operators_fixture_recall() {
    let r = Repo::new();
    let dest = r.path().join("memory/zo-platform");
    std::fs::create_dir_all(dest.join("sessions")).unwrap();
    for f in ["DECISION_LOG.md", "PRIORS.md", "STATE.md"] {
        std::fs::copy(util::fixture().join(f), dest.join(f)).unwrap();
    }
    let by_title: HashMap<String, String> = r.json(&["log"])["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["title"].as_str().unwrap().to_string(), d["id"].as_str().unwrap().to_string()))
        .collect();
    let find = |prefix: &str| by_title.iter().find(|(t, _)| t.starts_with(prefix)).map(|(_, id)| id.clone()).unwrap_or_else(|| panic!("{prefix}"));
    let qs: Vec<(&str, Vec<String>)> = vec![
        ("what happens when the vector search library is not installed", vec![find("Semantic index — graceful fallback")]),
        ("why did the agent window close right after launching", vec![find("Add startup grace + confirmation debounce")]),
        ("where does project memory live so it travels with the client's code", vec![find("Portable project memory")]),
        ("making runs cheaper for students with a small budget", vec![find("`--low-token` mode shipped")]),
        ("dollar signs in the documentation were rendered as math", vec![find("Mintlify low-token-mode page")]),
        ("should the platform itself be containerised in the first version", vec![find("Docker deferred to v2")]),
    ];
    let memory = zo::memory::Memory::open(Some(r.path())).unwrap();
    let (mut index, _) = recall::open_fresh(&memory, &|_| {}).unwrap();
    let mut embedder = setup_embedder();
    recall::embed_pending(&mut index, &mut embedder, &|_| {}).unwrap();
    let rows: Vec<(Mode, Score)> =
        [Mode::Hybrid, Mode::Lexical, Mode::Semantic].into_iter().map(|m| (m, evaluate(&index, &mut embedder, &qs, m))).collect();
    table(&format!("zero-operators fixture: {} questions", qs.len()), &rows);
    assert!(rows[0].1.recall3 >= 0.5, "hybrid recall on the fixture regressed");
}
