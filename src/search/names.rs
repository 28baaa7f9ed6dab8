//! The names a question writes ("Flipper or LaunchDarkly", "ADR-047", "Argo CD") and whether
//! the memory holds them however an entry spells them (issue 33). A question that names what
//! no entry mentions is not answered by its neighbours; a name is judged held when any of its
//! spellings is: its words as a phrase, joined ("ArgoCD"), split where the case or a digit
//! turns ("LameDuck" → "lame duck", "TLSv1" → "tls 1"), a version number dropped ("Python3"),
//! or each of its words on its own. Names offered as alternatives or examples ("X or Y",
//! "X over Y", "such as X, Y") are one group: the memory speaks to the group when it holds
//! any of them ("Why Vitest over Mocha?" is answered by the Vitest record).

/// A word is a name when it has a digit (and is longer than one character), a capital after a
/// lower-case letter ("LaunchDarkly"), is all capitals ("CSV"), or opens with a capital
/// anywhere but where a sentence opens ("Flipper"). In a question whose small words are
/// capitalised too (title case, or shouting) capitals mark nothing: only digits and inner
/// capitals count. Month and weekday names are not names (English capitalises them).
fn is_name(word: &str, sentence_start: bool, caps_mark_nothing: bool) -> bool {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() < 2 {
        return false;
    }
    let digit = chars.iter().any(char::is_ascii_digit);
    let camel = chars
        .windows(2)
        .any(|p| p[0].is_lowercase() && p[1].is_uppercase());
    if digit || camel {
        return true;
    }
    let lower = word.to_lowercase();
    // "OR", "THE": a small word shouted is no name; nor is a month.
    if caps_mark_nothing
        || CALENDAR.contains(&lower.as_str())
        || link_word(&lower)
        || super::answerable::is_question_word(&lower)
    {
        return false;
    }
    let letters: Vec<&char> = chars.iter().filter(|c| c.is_alphabetic()).collect();
    let all_caps = letters.len() > 1 && letters.iter().all(|c| c.is_uppercase());
    all_caps || (!sentence_start && chars[0].is_uppercase())
}

const CALENDAR: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// What offers names as alternatives or examples when it alone stands between two names
/// (the words, exactly): "X or Y", "X over Y", "X instead of Y", "X rather than Y", "X vs Y",
/// "X, such as Y", "X, e.g. Y". A slash offers them too ("X/Y").
const LINKS: &[&str] = &[
    "or",
    "nor",
    "over",
    "vs",
    "versus",
    "instead of",
    "rather than",
    "than",
    "such as",
    "e g",
    "eg",
    "i e",
    "ie",
    "for example",
    "including",
    "or even",
    "not",
];

/// A small word of a link ("or", "of"): never a name, even shouted.
fn link_word(w: &str) -> bool {
    LINKS.iter().any(|l| l.split(' ').any(|p| p == w))
}

/// One name as the question writes it: its words, as written (a compound such as "GOV.UK
/// Forms" or "Argo CD" is one name).
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub words: Vec<String>,
}

impl Name {
    /// How it is shown: its words, lower case, joined by spaces.
    pub fn shown(&self) -> String {
        self.words
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A question's words in order, each with the text before it (what separates it from the
/// previous word). Characters that show nothing (zero-width, soft hyphen, direction marks) are
/// dropped first: "Vi\u{200B}test" is "Vitest".
fn words(question: &str) -> Vec<(String, String)> {
    let clean: String = question
        .chars()
        .filter(|&c| c.is_control() || !crate::store::gate::chars::hidden(c))
        .collect();
    let mut out: Vec<(String, String)> = Vec::new();
    let (mut sep, mut word) = (String::new(), String::new());
    for c in clean.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push((std::mem::take(&mut word), std::mem::take(&mut sep)));
            }
            sep.push(c);
        }
    }
    if !word.is_empty() {
        out.push((word, sep));
    }
    out
}

/// The question's names in groups of alternatives, in order.
pub fn groups(question: &str) -> Vec<Vec<Name>> {
    let words = words(question);
    let opens: Vec<bool> = words
        .iter()
        .enumerate()
        .map(|(i, (_, sep))| {
            i == 0
                || sep.contains('\n')
                || (sep.trim_end().ends_with(['.', '?', '!', ':', ';'])
                    && sep.ends_with(char::is_whitespace))
        })
        .collect();
    // Title case or shouting: most small words where no sentence opens open with a capital.
    let small: Vec<&String> = words
        .iter()
        .zip(&opens)
        .filter(|(_, o)| !**o)
        .map(|((w, _), _)| w)
        .filter(|w| super::answerable::is_question_word(&w.to_lowercase()))
        .collect();
    let caps_mark_nothing = !small.is_empty()
        && 2 * small
            .iter()
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
            .count()
            > small.len();
    let named: Vec<bool> = words
        .iter()
        .zip(&opens)
        .map(|((w, _), &o)| is_name(w, o, caps_mark_nothing))
        .collect();
    // Names next to each other with nothing but a space, dot, hyphen or underscore between
    // them are one name.
    let mut names: Vec<(usize, usize)> = Vec::new(); // (first word, last word)
    for i in 0..words.len() {
        if !named[i] {
            continue;
        }
        let joined = matches!(words[i].1.as_str(), " " | "." | "-" | "_");
        match names.last_mut() {
            Some((_, last)) if *last + 1 == i && joined => *last = i,
            _ => names.push((i, i)),
        }
    }
    // How each name is tied to the one before: offered as an alternative (a link's words or a
    // slash), listed (a comma alone), or not at all. Only spaces, commas, slashes, bars and
    // brackets may stand around the words: a sentence's end or a dash is no tie.
    #[derive(PartialEq)]
    enum Tie {
        Offered,
        Listed,
        None,
    }
    let tie = |n: usize| -> Tie {
        let (prev_last, first) = (names[n - 1].1, names[n].0);
        let between = words[prev_last + 1..first]
            .iter()
            .map(|(w, _)| w.to_lowercase())
            .collect::<Vec<_>>()
            .join(" ");
        let seps: String = words[prev_last + 1..=first]
            .iter()
            .map(|(_, s)| s.as_str())
            .collect();
        if !seps
            .chars()
            .all(|c| c.is_whitespace() || ",/|()".contains(c))
        {
            return Tie::None;
        }
        match between.as_str() {
            "" if seps.contains('/') => Tie::Offered,
            "" if seps.trim() == "," => Tie::Listed,
            b if LINKS.contains(&b) => Tie::Offered,
            _ => Tie::None,
        }
    };
    // Runs of tied names; a run with no alternative offered ("Flipper, Postgres and Redis")
    // asks of each name, so each is a group of its own.
    let mut out: Vec<Vec<Name>> = Vec::new();
    let mut run: Vec<Name> = Vec::new();
    let mut offered = false;
    let close = |run: &mut Vec<Name>, offered: bool, out: &mut Vec<Vec<Name>>| {
        if offered {
            out.push(std::mem::take(run));
        } else {
            out.extend(run.drain(..).map(|n| vec![n]));
        }
    };
    for (n, &(first, last)) in names.iter().enumerate() {
        let name = Name {
            words: words[first..=last].iter().map(|(w, _)| w.clone()).collect(),
        };
        let t = if n == 0 { Tie::None } else { tie(n) };
        if t == Tie::None {
            close(&mut run, offered, &mut out);
            offered = false;
        }
        offered |= t == Tie::Offered;
        run.push(name);
    }
    close(&mut run, offered, &mut out);
    out
}

/// Every word of the question written as a name, lower case (for what is said beside an
/// answer: a product no entry names is news, a verb of the question's own is not).
pub fn words_of_names(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in groups(question).into_iter().flatten().flat_map(|n| n.words) {
        let w = w.to_lowercase();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A word split where its case or a digit turns ("LameDuck" → lame duck, "TLSv1" → tls 1,
/// "HTMLParser" → html parser), single letters dropped, lower case.
fn split(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut parts: Vec<String> = Vec::new();
    let mut part = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if let Some(&p) = i.checked_sub(1).map(|j| &chars[j]) {
            let lower = |k: usize| chars.get(k).is_some_and(|n| n.is_lowercase());
            let digit = |k: usize| chars.get(k).is_some_and(char::is_ascii_digit);
            // "HTMLParser": a capital opening a lower-case word; "TLSv1": a version's "v".
            let turn = (p.is_lowercase() && c.is_uppercase())
                || (p.is_alphabetic() && c.is_ascii_digit())
                || (p.is_ascii_digit() && c.is_alphabetic())
                || (p.is_uppercase() && c.is_uppercase() && lower(i + 1) && lower(i + 2))
                || (p.is_uppercase() && c.is_lowercase() && digit(i + 1));
            if turn {
                parts.push(std::mem::take(&mut part));
            }
        }
        part.push(c);
    }
    parts.push(part);
    parts
        .into_iter()
        .filter(|p| p.chars().count() > 1 || p.chars().all(|c| c.is_ascii_digit()))
        .map(|p| p.to_lowercase())
        .collect()
}

/// The ways an entry may write one word of a name: as it is, split where it turns, and
/// without a trailing version number ("Python3" → python).
fn word_spellings(word: &str) -> Vec<String> {
    let mut out = vec![word.to_lowercase()];
    let parts = split(word);
    // "90d" → 90 (a single letter dropped), "LameDuck" → lame duck.
    if parts.len() > 1 || parts.first().is_some_and(|p| *p != out[0]) {
        out.push(parts.join(" "));
        let letters: String = word.chars().take_while(|c| c.is_alphabetic()).collect();
        let rest = &word[letters.len()..];
        if letters.chars().count() > 1
            && !rest.is_empty()
            && rest.chars().all(|c| c.is_ascii_digit())
        {
            out.push(letters.to_lowercase());
        }
    }
    out
}

/// Whether the memory holds the name, asking `holds` of each spelling (a word or a phrase of
/// words, lower case).
pub fn held(
    name: &Name,
    holds: &mut dyn FnMut(&str) -> anyhow::Result<bool>,
) -> anyhow::Result<bool> {
    let lower: Vec<String> = name.words.iter().map(|w| w.to_lowercase()).collect();
    if name.words.len() > 1 {
        for s in [lower.join(" "), lower.concat()] {
            if holds(&s)? {
                return Ok(true);
            }
        }
    }
    for w in &name.words {
        let mut any = false;
        for s in word_spellings(w) {
            if holds(&s)? {
                any = true;
                break;
            }
        }
        if !any {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The names of the question the memory does not hold, shown: those of every group none of
/// whose names it holds.
pub fn unheld(
    question: &str,
    holds: &mut dyn FnMut(&str) -> anyhow::Result<bool>,
) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for group in groups(question) {
        let mut missing = Vec::new();
        for name in &group {
            if held(name, holds)? {
                missing.clear();
                break;
            }
            missing.push(name.shown());
        }
        for m in missing {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(q: &str) -> Vec<Vec<String>> {
        groups(q)
            .iter()
            .map(|g| g.iter().map(Name::shown).collect())
            .collect()
    }

    #[test]
    fn names_their_groups_and_what_is_not_a_name() {
        assert_eq!(
            shown(
                "Which feature-flag tool, for example Flipper or LaunchDarkly, do the GOV.UK Forms apps use?"
            ),
            [vec!["flipper", "launchdarkly"], vec!["gov uk forms"]]
        );
        assert_eq!(
            shown("Why did we choose Vitest over Mocha?"),
            [vec!["vitest", "mocha"]]
        );
        assert_eq!(
            shown("Why do Gradle scripts use the Kotlin DSL instead of Groovy?"),
            [vec!["gradle"], vec!["kotlin dsl", "groovy"]]
        );
        assert_eq!(
            shown("Did we pick Jest, Vitest, Mocha, Jasmine or Ava?"),
            [vec!["jest", "vitest", "mocha", "jasmine", "ava"]]
        );
        assert_eq!(
            shown("Is JabRef on Android for tablets?"),
            [vec!["jabref"], vec!["android"]]
        );
        // A sentence's opening capital, a month, title case and shouting mark no name.
        assert_eq!(
            shown("Why did we swap Jest for Vitest? Recap it for me."),
            [vec!["jest"], vec!["vitest"]]
        );
        assert_eq!(
            shown("What did we decide in February about Flipper?"),
            [vec!["flipper"]]
        );
        assert_eq!(
            shown("Which Feature Flag Service Do We Use For Orders"),
            Vec::<Vec<String>>::new()
        );
        assert_eq!(
            shown("HOW DO WE KEEP THE JS TEST RUNNER SPEEDY"),
            Vec::<Vec<String>>::new()
        );
        assert_eq!(
            shown("Did GOV.UK Forms adopt Unleash on AWS ECS?"),
            [vec!["gov uk forms"], vec!["unleash"], vec!["aws ecs"]]
        );
        // Digits and inner capitals, even first; invisible characters dropped.
        assert_eq!(
            shown("TimescaleDB in postgres 17 or Vi\u{200B}test"),
            [vec!["timescaledb"], vec!["17", "vitest"]]
        );
        assert_eq!(
            shown("what is the 5 minute rule"),
            Vec::<Vec<String>>::new()
        );
        // A list asks of each name; "of", "like", a dash or a sentence's end tie nothing.
        assert_eq!(
            shown("How do Flipper, Postgres and Redis interact?"),
            [vec!["flipper"], vec!["postgres"], vec!["redis"]]
        );
        assert_eq!(
            shown("What is the TTL of Flipper, like Kubernetes?"),
            [vec!["ttl"], vec!["flipper"], vec!["kubernetes"]]
        );
        assert_eq!(
            shown("Does Flipper - Postgres work? We run Postgres. LaunchDarkly too"),
            [
                vec!["flipper"],
                vec!["postgres"],
                vec!["postgres"],
                vec!["launchdarkly"]
            ]
        );
        assert_eq!(
            shown("Why did we pick Kafka OR RabbitMQ, or Flipper/LaunchDarkly?"),
            [vec!["kafka", "rabbitmq", "flipper", "launchdarkly"]]
        );
    }

    #[test]
    fn a_name_is_held_however_an_entry_spells_it() {
        let entries = [
            "90",
            "adr047",
            "adr 15",
            "tls 1 1",
            "utf 8",
            "python",
            "argocd",
            "lame duck",
            "ruby grape",
            "gov uk forms",
            "aws",
            "ecs",
        ];
        let mut holds =
            |s: &str| -> anyhow::Result<bool> { Ok(entries.iter().any(|e| e.contains(s))) };
        for q in [
            "What did ADR-047 decide?",
            "What does ADR15 say?",
            "Are we dropping TLSv1.1?",
            "Only UTF8 files?",
            "Do we use Python3?",
            "Do we deploy with Argo CD?",
            "How does the LameDuck mode work?",
            "Why not RubyGrape?",
            "Which apps of GOV.UK Forms?",
            "Do we run AWS ECS?",
            "Flipper or Python for flags?",
            "Do we keep logs for 90d?",
        ] {
            assert_eq!(unheld(q, &mut holds).unwrap(), Vec::<String>::new(), "{q}");
        }
        assert_eq!(
            unheld("Do we use Flipper or LaunchDarkly, on AWS?", &mut holds).unwrap(),
            ["flipper", "launchdarkly"]
        );
        assert_eq!(
            unheld("Does X25519Kyber768 work?", &mut holds).unwrap(),
            ["x25519kyber768"]
        );
        assert_eq!(
            unheld("Which TestFX runner?", &mut holds).unwrap(),
            ["testfx"]
        );
    }
}
