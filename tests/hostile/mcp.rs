//! Hostile-repository cases: mcp. (Filled in by the mcp part of issue 20.)
