//! Hostile-repository cases: index. (Filled in by the index part of issue 20.)
