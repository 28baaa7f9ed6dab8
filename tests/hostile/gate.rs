//! Hostile-repository cases: gate. (Filled in by the gate part of issue 20.)
