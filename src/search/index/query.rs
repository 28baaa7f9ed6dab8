//! The queries: BM25 over FTS5 and cosine over the stored vectors, with the filters applied
//! before ranking, and reading a row back.

use super::{Index, Row};
use crate::search::embedding;
use anyhow::Result;
use rusqlite::params;

impl Index {
    /// FTS5 BM25 ranking among rows passing `filter`: (rowid, score), best first.
    pub fn lexical(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<(i64, f64)>> {
        let Some(q) = fts_query(query) else {
            return Ok(vec![]);
        };
        // Ranked by FTS5 alone first, then joined to the entries for the filter: joining every
        // match reads one page per matching entry (3,000 matches for a common word at 10,000
        // decisions: 14–21 ms, against 8–13 ms this way). When the filter leaves fewer than
        // `limit` of the best `4 × limit`, every match is joined after all.
        let ranked = |sql: String| -> Result<Vec<(i64, f64)>> {
            let mut stmt = self.conn.prepare(&sql)?;
            let rows = stmt.query_map(params![q, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        };
        let first = ranked(format!(
            "SELECT e.rowid, f.s FROM (SELECT rowid, -bm25(fts, 4.0, 1.0) AS s FROM fts WHERE fts MATCH ?1 ORDER BY s DESC LIMIT {}) f \
             JOIN entries e ON e.rowid = f.rowid WHERE {} ORDER BY f.s DESC LIMIT ?2",
            4 * limit,
            filter.sql()
        ))?;
        if first.len() == limit {
            return Ok(first);
        }
        ranked(format!(
            "SELECT e.rowid, -bm25(fts, 4.0, 1.0) AS s FROM fts JOIN entries e ON e.rowid = fts.rowid \
             WHERE fts MATCH ?1 AND {} ORDER BY s DESC LIMIT ?2",
            filter.sql()
        ))
    }

    /// The stored vectors of rows passing `filter` (read while the model loads).
    pub fn vectors(&self, filter: &Filter) -> Result<Vectors> {
        let sql = format!(
            "SELECT e.rowid, e.vec FROM entries e WHERE e.vec IS NOT NULL AND {}",
            filter.sql()
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        let mut v = Vectors::default();
        while let Some(r) = rows.next()? {
            let blob = r.get_ref(1)?.as_blob()?;
            if blob.len() == ENTRY_FLOATS * 4 {
                v.ids.push(r.get(0)?);
                v.data.extend(
                    blob.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
            }
        }
        Ok(v)
    }

    /// Similarity ranking among rows passing `filter`: (rowid, similarity), best first.
    pub fn semantic(&self, query: &[f32], filter: &Filter) -> Result<Vec<(i64, f64)>> {
        Ok(self.vectors(filter)?.rank(query))
    }

    /// How many entries hold `word` (FTS5's tokenizer, stemming included), and how many
    /// entries there are: what the answerability judgement weighs a question's words by.
    pub fn doc_count(&self, word: &str) -> Result<usize> {
        let q = phrase_query(word);
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM fts WHERE fts MATCH ?1", [q], |r| {
                r.get::<_, i64>(0)
            })? as usize)
    }

    /// Whether some entry of the memory the search covers holds the word or phrase (as FTS5
    /// matches it): what `filter` passes, and superseded entries too (what was replaced is
    /// history the memory holds: "what replaced Jest?"), but a provisional one only when the
    /// filter asks for them (unconfirmed: the provisional hint names it instead).
    pub fn mentions(&self, phrase: &str, filter: &Filter) -> Result<bool> {
        let q = phrase_query(phrase);
        let mut covered = Filter {
            all: true,
            ..filter.clone()
        }
        .sql();
        if !filter.all && !filter.provisional {
            covered.push_str(" AND e.status <> 'provisional'");
        }
        let sql = format!(
            "SELECT EXISTS(SELECT 1 FROM fts JOIN entries e ON e.rowid = fts.rowid WHERE fts MATCH ?1 AND {covered})"
        );
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([q], |r| r.get::<_, bool>(0))?)
    }

    /// Every entry, counted.
    pub fn entry_count(&self) -> Result<usize> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM entries", [], |r| r.get::<_, i64>(0))?
            as usize)
    }

    /// The words of `words` that the row holds (as FTS5 matches them), in their order.
    pub fn held_by(&self, rowid: i64, words: &[String]) -> Result<Vec<bool>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT 1 FROM fts WHERE fts MATCH ?1 AND rowid = ?2")?;
        words
            .iter()
            .map(|w| Ok(stmt.exists(params![phrase_query(w), rowid])?))
            .collect()
    }

    /// What ranking after fusion needs of a row (kind, age, successor), without its text.
    pub fn brief(&self, rowid: i64) -> Result<Brief> {
        Ok(self.conn.query_row(
            "SELECT kind, id, timestamp, superseded_by FROM entries WHERE rowid = ?1",
            [rowid],
            |r| {
                Ok(Brief {
                    rowid,
                    kind: r.get(0)?,
                    id: r.get(1)?,
                    timestamp: r.get(2)?,
                    superseded_by: r.get(3)?,
                })
            },
        )?)
    }

    pub fn row(&self, rowid: i64) -> Result<Row> {
        Ok(self.conn.query_row(
            "SELECT rowid, kind, id, source, line, title, type, timestamp, status, superseded_by, text FROM entries WHERE rowid = ?1",
            [rowid],
            |r| {
                Ok(Row {
                    rowid: r.get(0)?,
                    kind: r.get(1)?,
                    id: r.get(2)?,
                    source: r.get(3)?,
                    line: r.get(4)?,
                    title: r.get(5)?,
                    subtype: r.get(6)?,
                    timestamp: r.get(7)?,
                    status: r.get(8)?,
                    superseded_by: r.get(9)?,
                    text: r.get(10)?,
                })
            },
        )?)
    }
}

/// Floats stored per entry: its vectors one after another.
const ENTRY_FLOATS: usize = embedding::DIM * embedding::VECTORS_PER_ENTRY;

/// Row vectors held in memory, one after another.
#[derive(Default)]
pub struct Vectors {
    ids: Vec<i64>,
    data: Vec<f32>,
}

impl Vectors {
    /// Every row's similarity to the query, best first: the mean cosine of the row's vectors
    /// (its opening and its whole text). Vectors are unit length: cosine is the dot product.
    pub fn rank(&self, query: &[f32]) -> Vec<(i64, f64)> {
        let mut scored: Vec<(i64, f64)> = self
            .ids
            .iter()
            .zip(self.data.chunks_exact(ENTRY_FLOATS))
            .map(|(&id, v)| {
                let sum: f32 = v
                    .chunks_exact(embedding::DIM)
                    .map(|one| one.iter().zip(query).map(|(a, b)| a * b).sum::<f32>())
                    .sum();
                (id, (sum / embedding::VECTORS_PER_ENTRY as f32) as f64)
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }
}

/// A row's ranking facts (see `Index::brief`).
#[derive(Debug, Clone)]
pub struct Brief {
    pub rowid: i64,
    pub kind: String,
    pub id: String,
    pub timestamp: String,
    pub superseded_by: Option<String>,
}

/// Filters applied before ranking.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// The entry kind: decision | prior | session | fact; None for all.
    pub kind: Option<String>,
    /// The type within the kind (a decision's type, any case).
    pub subtype: Option<String>,
    /// Include superseded entries (and provisional ones).
    pub all: bool,
    /// Include provisional entries (below the promotion threshold, not yet confirmed).
    pub provisional: bool,
    /// Only this scope: `user` is the user's facts, `project` everything else.
    pub scope: Option<crate::store::facts::Scope>,
    /// Sessions lose half their score every this many days (None: no decay). Not a filter,
    /// but it travels with one query's ranking settings.
    pub half_life_days: Option<f64>,
}

impl Filter {
    fn sql(&self) -> String {
        let mut c = vec!["1".to_string()];
        if let Some(k) = &self.kind {
            c.push(format!("e.kind = '{}'", k.replace('\'', "''")));
        }
        if let Some(t) = &self.subtype {
            c.push(format!(
                "upper(e.type) = upper('{}')",
                t.replace('\'', "''")
            ));
        }
        if !self.all {
            c.push("e.status <> 'superseded'".into());
        }
        if !self.all && !self.provisional {
            c.push("e.status <> 'provisional'".into());
        }
        match self.scope {
            Some(crate::store::facts::Scope::User) => {
                c.push("(e.kind = 'fact' AND e.type = 'user')".into())
            }
            Some(crate::store::facts::Scope::Project) => {
                c.push("NOT (e.kind = 'fact' AND e.type = 'user')".into())
            }
            None => {}
        }
        c.join(" AND ")
    }
}

/// Words FTS5 is not asked for: they match nearly every entry (the answerability judgement
/// drops them from a question too, with more of its own).
pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "of", "on", "or", "our", "that", "the", "this", "to", "was", "we",
    "were", "what", "when", "which", "who", "why", "with", "you", "have", "has", "had", "about",
    "should", "can", "there",
];

/// Plain language → an FTS5 query: each word quoted (no syntax errors), any of them may match.
fn fts_query(q: &str) -> Option<String> {
    let words: Vec<String> = q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(&w.to_lowercase().as_str()))
        .map(|w| format!("\"{}\"", w.to_lowercase()))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

/// A word or words as one FTS5 phrase: quoted, its own quotes dropped (nothing in it is
/// read as query syntax).
fn phrase_query(words: &str) -> String {
    format!("\"{}\"", words.replace('"', ""))
}

/// A few texts searched as the index searches (FTS5 with its tokenizer: stems, accents), for a
/// question judged against them alone (`--as-of`: the hits of then).
pub struct Texts(rusqlite::Connection);

impl Texts {
    pub fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Result<Texts> {
        let conn = rusqlite::Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = '{}');",
            super::TOKENIZER
        ))?;
        for t in texts {
            conn.execute("INSERT INTO t (body) VALUES (?1)", [t])?;
        }
        Ok(Texts(conn))
    }

    /// Whether some text holds the word or phrase.
    pub fn mentions(&self, phrase: &str) -> Result<bool> {
        let q = phrase_query(phrase);
        Ok(self.0.query_row(
            "SELECT EXISTS(SELECT 1 FROM t WHERE t MATCH ?1)",
            [q],
            |r| r.get::<_, bool>(0),
        )?)
    }
}
