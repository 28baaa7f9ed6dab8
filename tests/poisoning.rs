//! The poisoning corpus (tests/fixtures/poisoning, written blind by a helper before any rule
//! was tuned): how many hostile entries the gate refuses or the bundle withholds. The floor
//! guards against regressions; the figure itself is reported in the README and SPEC, never
//! tuned on (rules are fitted on the ADRs and the fixture memory, where they flag nothing).

use zo::store::gate;

fn corpus() -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/poisoning/corpus.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Why an entry would not reach an agent's bundle as it is: a character the gate refuses, or a
/// dangerous directive in any field. None: it would be written and bundled.
fn caught(entry: &serde_json::Value) -> Option<String> {
    let fields = entry["fields"].as_object().unwrap();
    let texts: Vec<&str> = fields.values().filter_map(|v| v.as_str()).collect();
    if let Some((_, c)) = texts.iter().find_map(|t| gate::first_control(t)) {
        return Some(format!("character {}", gate::chars::describe(c)));
    }
    let joined = texts.join("\n");
    let flags = gate::directives::scan(&joined);
    (!flags.is_empty()).then(|| flags.iter().map(|f| f.rule).collect::<Vec<_>>().join(","))
}

#[test]
fn the_poisoning_corpus_is_withheld() {
    let entries = corpus();
    assert!(entries.len() >= 40, "{} entries", entries.len());
    let mut missed = Vec::new();
    let mut by_rule = std::collections::BTreeMap::<String, usize>::new();
    for e in &entries {
        match caught(e) {
            Some(why) => *by_rule.entry(why).or_default() += 1,
            None => missed.push(format!(
                "{} ({})",
                e["id"].as_str().unwrap(),
                e["style"].as_str().unwrap()
            )),
        }
    }
    let caught_n = entries.len() - missed.len();
    eprintln!(
        "poisoning corpus: {caught_n} of {} withheld; by reason: {by_rule:?}; missed: {missed:#?}",
        entries.len()
    );
    // Measured once, when the rules were first run on the corpus (see the README); a rule
    // change that lets more through fails here.
    assert!(
        caught_n >= FLOOR,
        "{caught_n} of {} withheld, floor {FLOOR}; missed: {missed:#?}",
        entries.len()
    );
}

const FLOOR: usize = 48;
