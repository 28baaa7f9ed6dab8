//! Active decisions that answer the same question differently (issue 33): "Store cart sessions
//! in Redis" beside "Store cart sessions in Postgres", typically after a merge of two clones,
//! each of which decided on its own. Two titles are read as one subject with two choices when
//! they are the same words but for one run of at most three words each (the choice), and the
//! words they share hold the subject: at least three, two of them not filler words. Numbering
//! (`ADR012:`) is not part of a title's words. Decisions linked by a supersession are never a
//! pair (one replaced the other), nor are outcomes or confirmations.

use crate::format::Status;
use crate::format::decision::DecisionLog;
use serde::Serialize;

/// Two active decisions on one subject with different choices.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Contradiction {
    pub a: String,
    pub a_title: String,
    pub b: String,
    pub b_title: String,
    /// What each chose (the words where the titles differ).
    pub choices: [String; 2],
}

const FILLER: &[&str] = &[
    "a", "an", "the", "for", "in", "on", "of", "to", "and", "or", "with", "as", "by", "at", "from",
    "use", "using", "we", "our",
];
/// Words after which the next words name what was chosen: "Use X", "Adopt X", "Move to X".
const CHOOSE: &[&str] = &[
    "use", "using", "adopt", "choose", "pick", "prefer", "select", "switch", "migrate", "move",
    "to",
];
/// Words after which a run at the end (or before another of them) names a place or a means:
/// "… in X", "… with X", "… via X".
const PLACE: &[&str] = &["in", "with", "on", "via", "through", "into", "onto", "by"];

/// A title's words, lower case, without leading numbering.
fn words(title: &str) -> Vec<String> {
    let mut w: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric() && c != '.' && c != '-')
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase)
        .collect();
    let numbered = w
        .iter()
        .take_while(|s| s.chars().any(|c| c.is_ascii_digit()))
        .count();
    w.drain(..numbered);
    w
}

/// The differing runs of two word lists when all else is shared and the runs stand where a
/// title names its choice (after "use", "adopt", "move to"…, or after "in", "with"… at the end
/// or before another such word): (a's run, b's run, shared). "Store cart sessions in Redis" /
/// "… in Postgres" is a choice; "Store cart sessions in Redis" / "Store user profiles in
/// Redis" are two subjects; "Architecture Decision Record: X" / "…: Y" two records.
fn differ<'a>(
    a: &'a [String],
    b: &'a [String],
) -> Option<(&'a [String], &'a [String], Vec<&'a String>)> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ra, rb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if ra.is_empty() || rb.is_empty() || ra.len() > 3 || rb.len() > 3 {
        return None;
    }
    let before = prefix.checked_sub(1).map(|i| a[i].as_str());
    let after = (suffix > 0).then(|| a[a.len() - suffix].as_str());
    if !slot(before, after) {
        return None;
    }
    Some((
        ra,
        rb,
        a[..prefix].iter().chain(&a[a.len() - suffix..]).collect(),
    ))
}

/// Every pair of active decisions of the log that reads as one subject, two choices. Each
/// title is filed under each skeleton it has — its words with one run of one to three words
/// taken out where a choice stands — and titles that share a skeleton are the pairs: linear in
/// the log, where comparing titles pair by pair took 25 ms of `status` at 10,000 decisions. A
/// skeleton shared by more than `TEMPLATE` titles is a naming pattern ("Decision for item N"),
/// not a disagreement, and is not reported.
pub fn find(log: &DecisionLog) -> Vec<Contradiction> {
    const TEMPLATE: usize = 4;
    let compatible = log.compatible_pairs();
    let active: Vec<usize> = (0..log.entries.len())
        .filter(|&i| !log.entries[i].is_annotation() && log.status(i) == Status::Active)
        .collect();
    let titles: Vec<Vec<String>> = active
        .iter()
        .map(|&i| words(&log.entries[i].title))
        .collect();
    let mut skeletons: std::collections::HashMap<(&[String], &[String]), Vec<usize>> =
        std::collections::HashMap::new();
    for (x, w) in titles.iter().enumerate() {
        for start in 1..w.len() {
            for len in 1..=3.min(w.len() - start) {
                let (p, rest) = (&w[..start], &w[start + len..]);
                let shared = p
                    .iter()
                    .chain(rest)
                    .filter(|x| !FILLER.contains(&x.as_str()))
                    .count();
                if p.len() + rest.len() >= 3
                    && shared >= 2
                    && slot(
                        p.last().map(String::as_str),
                        rest.first().map(String::as_str),
                    )
                {
                    skeletons.entry((p, rest)).or_default().push(x);
                }
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for members in skeletons
        .values()
        .filter(|m| m.len() > 1 && m.len() <= TEMPLATE)
    {
        for (n, &x) in members.iter().enumerate() {
            pairs.extend(
                members[n + 1..]
                    .iter()
                    .filter(|&&y| titles[x] != titles[y])
                    .map(|&y| (x.min(y), x.max(y))),
            );
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut out = Vec::new();
    for (x, y) in pairs {
        let Some((ra, rb, _)) = differ(&titles[x], &titles[y]) else {
            continue;
        };
        let (ea, eb) = (&log.entries[active[x]], &log.entries[active[y]]);
        if compatible.contains(&crate::format::decision::pair(&ea.id, &eb.id)) {
            continue;
        }
        out.push(Contradiction {
            a: ea.id.clone(),
            a_title: ea.title.clone(),
            b: eb.id.clone(),
            b_title: eb.title.clone(),
            choices: [ra.join(" "), rb.join(" ")],
        });
    }
    out
}

/// `find` for the hook path (`status`, the session-start bundle): kept beside the summary for
/// the log as it is now (`summary::derived`), so only the first reader after a change pays for
/// it (about 16 ms at 10,000 decisions).
pub fn cached(layout: &crate::store::layout::Layout, log: &DecisionLog) -> Vec<Contradiction> {
    // Which decisions are active depends on the promotion threshold as well as the text: a
    // kept result for another threshold is none.
    #[derive(Serialize, serde::Deserialize)]
    struct Kept {
        threshold: f64,
        pairs: Vec<Contradiction>,
    }
    let kept: Option<Kept> =
        crate::store::summary::derived(layout, CACHE).and_then(|b| serde_json::from_slice(&b).ok());
    if let Some(k) = kept.filter(|k| k.threshold == log.threshold()) {
        return k.pairs;
    }
    let pairs = find(log);
    if let Ok(bytes) = serde_json::to_vec(&Kept {
        threshold: log.threshold(),
        pairs: pairs.clone(),
    }) {
        crate::store::summary::keep_derived(layout, CACHE, &bytes);
    }
    pairs
}

/// The name of the kept result (`index.db-contradictions`, a derived file never tracked).
const CACHE: &str = crate::store::summary::CONTRADICTIONS;

/// Whether `find` names decisions `a` and `b` (their IDs, either way round) as a pair.
pub fn names(log: &DecisionLog, a: &str, b: &str) -> bool {
    find(log)
        .iter()
        .any(|c| (c.a == a && c.b == b) || (c.a == b && c.b == a))
}

impl Contradiction {
    /// The pair in one sentence, with how to settle it (`zo verify`'s note, the merge driver's).
    pub fn describe(&self) -> String {
        // The titles are the repository's text, and verify and the merge driver print to an
        // agent too: a title the directive rules flag is withheld, as in `log` and `status`.
        let title = |t: &str| {
            crate::store::screened::title_or(
                t,
                "(title withheld: it reads as an instruction to an agent)",
            )
        };
        format!(
            "{} and {} decide one subject differently ({} / {}): \"{}\" and \"{}\". To settle it: zo decide … --supersedes the one that no longer holds, or, if both hold, zo confirm {} --compatible-with {}",
            self.a,
            self.b,
            crate::store::gate::frame::one_line(&self.choices[0]),
            crate::store::gate::frame::one_line(&self.choices[1]),
            title(&self.a_title),
            title(&self.b_title),
            self.a,
            self.b
        )
    }
}

/// The pairs a merge brought: in the merged decision log and not in ours before it (the
/// merge driver says so, as it does for a fact set on both sides).
pub fn introduced(ours: &str, merged: &str) -> Vec<Contradiction> {
    let parse = |t: &str| DecisionLog::parse(crate::format::Text::new(t.to_string()));
    let before: std::collections::HashSet<(String, String)> =
        find(&parse(ours)).into_iter().map(|c| (c.a, c.b)).collect();
    find(&parse(merged))
        .into_iter()
        .filter(|c| !before.contains(&(c.a.clone(), c.b.clone())))
        .collect()
}

/// Whether a run between `before` and `after` stands where a title names its choice.
fn slot(before: Option<&str>, after: Option<&str>) -> bool {
    let chosen = before.is_some_and(|w| CHOOSE.contains(&w));
    let placed = before.is_some_and(|w| PLACE.contains(&w))
        && after.is_none_or(|w| PLACE.contains(&w) || w == "for");
    chosen || placed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str) -> bool {
        let (wa, wb) = (words(a), words(b));
        differ(&wa, &wb).is_some_and(|(_, _, shared)| {
            shared.len() >= 3
                && shared
                    .iter()
                    .filter(|w| !FILLER.contains(&w.as_str()))
                    .count()
                    >= 2
        })
    }

    #[test]
    fn one_subject_two_choices_is_a_pair() {
        assert!(pair(
            "Store cart sessions in Redis",
            "Store cart sessions in Postgres"
        ));
        assert!(pair(
            "Use Postgres for the orders database",
            "Use MySQL for the orders database"
        ));
        assert!(pair(
            "ADR012: Send email with Amazon SES",
            "ADR031: Send email with GOV.UK Notify"
        ));
        assert!(pair(
            "Move the frontend tests to Vitest",
            "Move the frontend tests to Jest"
        ));
    }

    #[test]
    fn different_subjects_or_too_little_in_common_are_not() {
        assert!(!pair("Use Postgres for orders", "Use Redis for sessions"));
        assert!(
            !pair("Use Terraform", "Use Puppet"),
            "no subject beyond filler words"
        );
        assert!(
            !pair(
                "Record architecture decisions",
                "Record architecture decisions"
            ),
            "the same title chooses nothing"
        );
        assert!(!pair(
            "Store cart sessions in Redis",
            "Store user profiles in Redis"
        ));
        assert!(!pair(
            "Architecture Decision Record: Enhanced Validation",
            "Architecture Decision Record: Error Reporting"
        ));
        assert!(!pair(
            "JetStream based Object Stores",
            "JetStream based Key-Value Stores"
        ));
    }
}

#[cfg(all(test, feature = "test-support"))]
mod corpus {
    /// What the detector finds among the 326 real ADRs (seven projects, no merges): each pair
    /// read (see the closing note of the session that added it); the count guards against a
    /// change that floods a real memory with pairs.
    #[test]
    fn the_adr_corpus_pairs_are_few() {
        let corpus = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/adr-corpus.jsonl"
        ))
        .unwrap();
        let text =
            crate::templates::DECISION_LOG.to_string() + &crate::fixtures::adr_entries(&corpus);
        let log = crate::format::decision::DecisionLog::parse(crate::format::Text::new(text));
        let found = super::find(&log);
        for c in &found {
            println!("{} {:?} / {} {:?}", c.a, c.a_title, c.b, c.b_title);
        }
        assert!(found.len() <= 10, "{} pairs", found.len());
    }

    /// A planted set: ten pairs of one subject with two choices, written among the 326 ADRs
    /// as two clones would have merged them (each pair's two titles in the styles the corpus
    /// uses: "Use X for Y", "… in X", "… with X", "… via X", "Adopt X for …"). Every pair is
    /// found, and nothing else.
    #[test]
    fn every_planted_pair_is_found_among_the_adrs_and_nothing_else() {
        const PLANTED: &[(&str, &str)] = &[
            (
                "Store cart sessions in Redis",
                "Store cart sessions in Postgres",
            ),
            (
                "Use Postgres for the orders database",
                "Use MySQL for the orders database",
            ),
            (
                "Send notification email with Amazon SES",
                "Send notification email with GOV.UK Notify",
            ),
            (
                "Move the frontend tests to Vitest",
                "Move the frontend tests to Jest",
            ),
            ("Deploy review apps on Heroku", "Deploy review apps on ECS"),
            (
                "Adopt Kotlin for the build scripts",
                "Adopt Groovy for the build scripts",
            ),
            (
                "Serve static assets via CloudFront",
                "Serve static assets via Fastly",
            ),
            (
                "Use Sentry for error tracking",
                "Use Rollbar for error tracking",
            ),
            (
                "Run background jobs with Sidekiq",
                "Run background jobs with GoodJob",
            ),
            (
                "Store deploy secrets in AWS Secrets Manager",
                "Store deploy secrets in HashiCorp Vault",
            ),
        ];
        let corpus = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/adr-corpus.jsonl"
        ))
        .unwrap();
        let mut text =
            crate::templates::DECISION_LOG.to_string() + &crate::fixtures::adr_entries(&corpus);
        for (n, (a, b)) in PLANTED.iter().enumerate() {
            for (side, title) in [(0, a), (1, b)] {
                let d = crate::format::decision::NewDecision {
                    id: format!("D-{:08x}", 0xfeed_0000u32 + (n as u32) * 2 + side),
                    timestamp: crate::time::rfc3339(1_700_000_000 + (n as i64) * 100 + side as i64),
                    kind: "DECISION".into(),
                    title: title.to_string(),
                    decision: "planted".into(),
                    outcome: "pending".into(),
                    ..Default::default()
                };
                text.push_str(&d.render());
            }
        }
        let log = crate::format::decision::DecisionLog::parse(crate::format::Text::new(text));
        let found: Vec<(String, String)> = super::find(&log)
            .into_iter()
            .map(|c| (c.a_title, c.b_title))
            .collect();
        for (a, b) in PLANTED {
            assert!(
                found
                    .iter()
                    .any(|(x, y)| (x == a && y == b) || (x == b && y == a)),
                "missed {a:?} / {b:?}: {found:?}"
            );
        }
        assert_eq!(found.len(), PLANTED.len(), "{found:?}");
    }
}
