//! Vectors in the index: which texts still need one, taking them from the machine's vector
//! cache or the model, and discarding them when the model changes.

use super::{Index, VectorCache};
use crate::search::embedding::{self, Embed};
use anyhow::Result;
use rusqlite::params;

impl Index {
    /// How many distinct texts still need an embedding.
    pub fn pending_embeddings(&self) -> Result<usize> {
        Ok(self.conn.query_row("SELECT count(DISTINCT vhash) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors)", [], |r| r.get::<_, i64>(0))?
            as usize)
    }

    /// Record which model the vectors come from; a different one discards them.
    pub fn check_model(&self, note: &dyn Fn(&str)) -> Result<()> {
        let want = embedding::vectors_id();
        match self.meta("model")? {
            Some(m) if m == want => {}
            Some(m) => {
                note(&format!(
                    "re-embedding every entry: the index was built with {m}, the model is now {want}"
                ));
                let tx = self.conn.unchecked_transaction()?;
                tx.execute("DELETE FROM vectors", [])?;
                tx.execute("UPDATE entries SET vec = NULL", [])?;
                tx.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1)",
                    [&want],
                )?;
                tx.commit()?;
            }
            None => self.set_meta("model", &want)?,
        }
        Ok(())
    }

    /// The texts that have no vector yet, one per distinct text.
    fn missing(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare("SELECT vhash, min(embed_text) FROM entries WHERE vhash NOT IN (SELECT vhash FROM vectors) GROUP BY vhash")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Store vectors (index bytes) for text hashes, in one transaction.
    fn store(&mut self, got: &[(&str, &[u8])]) -> Result<()> {
        let tx = self.conn.transaction()?;
        for (h, bytes) in got {
            tx.execute(
                "INSERT OR REPLACE INTO vectors (vhash, vec) VALUES (?1, ?2)",
                params![h, bytes],
            )?;
            tx.execute(
                "UPDATE entries SET vec = ?2 WHERE vhash = ?1",
                params![h, bytes],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Take every missing vector the machine's cache holds. Returns how many it gave. Call
    /// after `check_model` (a model change discards the index's vectors first).
    pub fn take_cached(&mut self, cache: &VectorCache) -> Result<usize> {
        let todo = self.missing()?;
        if todo.is_empty() {
            return Ok(0);
        }
        let texts: Vec<&str> = todo.iter().map(|(_, t)| t.as_str()).collect();
        let found = cache.get(&texts)?;
        let got: Vec<(&str, &[u8])> = todo
            .iter()
            .zip(&found)
            .filter_map(|((h, _), v)| v.as_deref().map(|v| (h.as_str(), v)))
            .collect();
        self.store(&got)?;
        Ok(got.len())
    }

    /// Embed every row whose text has no vector yet: from the machine's vector cache when it
    /// holds the text (for this model), else by the model, and then into the cache. Returns
    /// how many texts were sent to the model. The cache never fails an index build: when it
    /// cannot be used, everything is embedded as before.
    pub fn embed_missing(&mut self, embedder: &mut dyn Embed) -> Result<usize> {
        self.embed_some(embedder, usize::MAX)
    }

    /// `embed_missing` for at most `max` texts: a background catch-up (the MCP server) embeds
    /// in small batches, so it can stop between two of them and holds the index only briefly.
    /// Returns how many texts were sent to the model; 0 when none was missing.
    pub fn embed_up_to(&mut self, embedder: &mut dyn Embed, max: usize) -> Result<usize> {
        self.embed_some(embedder, max)
    }

    fn embed_some(&mut self, embedder: &mut dyn Embed, max: usize) -> Result<usize> {
        let cache = embedder.paths().and_then(|p| VectorCache::open(p).ok());
        if let Some(c) = &cache {
            let _ = self.take_cached(c);
        }
        let mut todo = self.missing()?;
        todo.truncate(max);
        let bar = crate::progress::bar(todo.len(), "embedding");
        // Small chunks: the progress bar moves every few seconds, and an interrupted build keeps
        // what it embedded (here and in the cache).
        for chunk in todo.chunks(16) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
            let vecs = embedding::embed_entries(embedder, &texts)?;
            bar.inc(chunk.len() as u64);
            let bytes: Vec<Vec<u8>> = vecs.iter().map(|v| embedding::to_bytes(v)).collect();
            let got: Vec<(&str, &[u8])> = chunk
                .iter()
                .zip(&bytes)
                .map(|((h, _), b)| (h.as_str(), b.as_slice()))
                .collect();
            self.store(&got)?;
            if let Some(c) = &cache {
                let _ = c.put(
                    &texts
                        .iter()
                        .copied()
                        .zip(bytes.iter().map(Vec::as_slice))
                        .collect::<Vec<_>>(),
                );
            }
        }
        bar.finish_and_clear();
        self.conn.execute(
            "DELETE FROM vectors WHERE vhash NOT IN (SELECT vhash FROM entries)",
            [],
        )?;
        Ok(todo.len())
    }
}
