//! Search: the index beside the files and recall over it.
//!
//! - `index` — `.zo/memory/index.db` (SQLite, FTS5, vectors keyed by text hash): `Index::open`
//!   refreshes it from the files by stamps and content hashes, rebuilds it on corruption
//!   (`build` beside the old one, then `install`); `rows` says what each entry's row is, `query`
//!   ranks (BM25, similarity, filters before ranking).
//! - `embedding` — finding and loading the model and ONNX Runtime; `Embedder` for entries,
//!   `QueryEmbedder` for one question.
//! - `recall` — what to rank: the cascade, the index to read, the model, tiers' constants:
//!   `recall()` for one query (and its phrasings), `Recaller` for a long-lived process,
//!   `open_reading` for an index that cannot be used.
//! - `rank` — how: z-score fusion of BM25 and similarity for a question or a question and its
//!   phrasings, tiers and "answered" judged on the result, supersession and decay after fusion
//!   (`rank`, `rank_all`: what `zo eval` measures).
//! - `answerable` — whether the hits answer the question, and why (issue 33); `names` — the
//!   names a question writes and whether the memory holds them, however an entry spells them.
//! - `eval` — `zo eval`: the same ranking measured on labelled questions.
//!
//! Invariants: the index is never the source of truth (any doubt: rebuild it from the files);
//! every process using it holds `index.db-lock` shared; only commands that need semantics load
//! the model, writers never do.

pub mod answerable;
pub mod embedding;
pub mod eval;
pub mod index;
pub mod names;
pub mod rank;
pub mod recall;
