//! Near-duplicate titles: a decision or prior whose title nearly repeats an active one is
//! written, and the writer is told which it resembles. A word count, cheap at write time.

/// Word overlap above which two titles name the same thing: "Use Postgres for orders" and
/// "Use PostgreSQL for the orders service" do not reach it; "Adopt Hono for the API" and
/// "Adopt Hono for the HTTP API" do. A cheap test that needs no model, at write time.
pub const NEAR_DUPLICATE: f64 = 0.6;

const SMALL: [&str; 12] = [
    "a", "an", "the", "for", "of", "to", "in", "on", "and", "or", "with", "use",
];

fn title_words(t: &str) -> std::collections::HashSet<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .map(|w| w.to_lowercase())
        .map(|w| {
            if w.len() > 3 {
                w.trim_end_matches('s').to_string()
            } else {
                w
            }
        })
        .filter(|w| !w.is_empty() && !SMALL.contains(&w.as_str()))
        .collect()
}

/// Titles among `others` that nearly match `title` (not exactly: exact ones are refused).
pub fn near_duplicates<'a>(
    title: &str,
    others: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<crate::format::Similar> {
    let mine = title_words(title);
    if mine.len() < 2 {
        return vec![];
    }
    let mut scratch = Scratch::default();
    // A title has a few words: comparing each is quicker than hashing it.
    let mine_list: Vec<&str> = mine.iter().map(String::as_str).collect();
    let mut out: Vec<crate::format::Similar> = others
        .filter_map(|(id, t)| {
            let (shared, theirs) = scratch.count_ascii(t, &mine_list).unwrap_or_else(|| {
                let theirs = title_words(t);
                (mine.intersection(&theirs).count(), theirs.len())
            });
            let score = shared as f64 / (mine.len() + theirs - shared).max(1) as f64;
            (score >= NEAR_DUPLICATE && shared >= 2).then(|| crate::format::Similar {
                id: id.to_string(),
                title: t.to_string(),
                score: (score * 100.0).round() / 100.0,
            })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(3);
    out
}

/// Buffers reused across the titles `near_duplicates` compares: a 10,000-entry log's titles
/// each made a set of new strings, a tenth of `zo decide`.
#[derive(Default)]
struct Scratch {
    buf: Vec<u8>,
    words: Vec<(usize, usize)>,
}

impl Scratch {
    /// `title_words(t)`'s size and how many of them are in `mine`, without allocating, for an
    /// ASCII title (None otherwise: Unicode lower-casing is left to `title_words`).
    fn count_ascii(&mut self, t: &str, mine: &[&str]) -> Option<(usize, usize)> {
        if !t.is_ascii() {
            return None;
        }
        self.buf.clear();
        self.words.clear();
        let mut shared = 0;
        for w in t.split(|c: char| !c.is_ascii_alphanumeric()) {
            let start = self.buf.len();
            self.buf.extend(w.bytes().map(|b| b.to_ascii_lowercase()));
            let mut end = self.buf.len();
            if end - start > 3 {
                while end > start && self.buf[end - 1] == b's' {
                    end -= 1;
                }
            }
            self.buf.truncate(end);
            let word = &self.buf[start..end];
            let repeated = self.words.iter().any(|&(s, e)| &self.buf[s..e] == word);
            if word.is_empty() || SMALL.iter().any(|s| s.as_bytes() == word) || repeated {
                self.buf.truncate(start);
                continue;
            }
            shared += usize::from(mine.iter().any(|m| m.as_bytes() == word));
            self.words.push((start, end));
        }
        Some((shared, self.words.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocation-free count agrees with the sets it replaces, for every pair of a table of
    /// titles (plural `s`, repeated and small words, case, digits, punctuation, non-ASCII).
    #[test]
    fn near_duplicate_counts_match_the_word_sets() {
        let titles = [
            "Adopt Hono for the HTTP API",
            "Use Hono for HTTP APIs",
            "use hono, hono and HONO for the http apis",
            "Boss bosses BOSS's bus",
            "a an the for of to in on and or with use",
            "Store v2 tokens in SQLite 3",
            "sqlite3 store: v2 tokens!",
            "",
            "s ss sss ssss",
            "Привет мир API",
            "Über cafés and APIs",
        ];
        let mut scratch = Scratch::default();
        for a in titles {
            let mine = title_words(a);
            let list: Vec<&str> = mine.iter().map(String::as_str).collect();
            for b in titles {
                let theirs = title_words(b);
                let want = (mine.intersection(&theirs).count(), theirs.len());
                match scratch.count_ascii(b, &list) {
                    Some(got) => assert_eq!(got, want, "{a:?} vs {b:?}"),
                    None => assert!(!b.is_ascii()),
                }
            }
        }
    }

    #[test]
    fn near_duplicate_titles_are_found_and_different_ones_are_not() {
        let others = [
            ("D-1", "Adopt Hono for the HTTP API"),
            ("D-2", "Use Postgres for orders"),
            ("D-3", "Cache sessions in Redis"),
        ];
        let hits = near_duplicates("Adopt Hono for the API", others.iter().copied());
        assert_eq!(
            hits.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["D-1"]
        );
        assert!(
            near_duplicates(
                "Use PostgreSQL for the orders service",
                others.iter().copied()
            )
            .is_empty()
        );
        assert!(near_duplicates("Redis", others.iter().copied()).is_empty());
    }
}
