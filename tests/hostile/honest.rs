//! Hostile-repository cases: honest. (Filled in by the honest part of issue 20.)
