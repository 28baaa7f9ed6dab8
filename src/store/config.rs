//! `config.yaml` (committed) and `local.yaml` (this machine). The only module that knows the
//! YAML library: serde_yaml is deprecated upstream, so a switch stays a one-file change.
//! Documents are kept as generic mappings so unknown keys survive a rewrite.

use anyhow::{Result, anyhow};
use std::path::Path;

pub use serde_yaml::Value;

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub map: serde_yaml::Mapping,
    /// The text it was read from, so messages can name the line of a key.
    text: String,
}

impl Config {
    /// Load a YAML mapping; a missing file is empty. Errors name the file and line; a value zo
    /// cannot use is a usage error (`settings::check_config`).
    pub fn load(path: &Path) -> Result<Config> {
        let Some(text) = crate::store::fsio::read_text(path)? else {
            return Ok(Config::default());
        };
        let config = Config::parse(path, text.as_str())?;
        crate::store::settings::check_config(&config, path, text.as_str())?;
        Ok(config)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        match serde_yaml::from_str::<Value>(text) {
            Ok(Value::Mapping(map)) => Ok(Config {
                map,
                text: text.to_string(),
            }),
            Ok(Value::Null) => Ok(Config::default()),
            Ok(_) => Err(anyhow!(
                "{}:1: expected a mapping of `key: value` lines",
                path.display()
            )),
            Err(e) => {
                let line = e.location().map(|l| l.line()).unwrap_or(1);
                Err(anyhow!("{}:{line}: invalid YAML: {e}", path.display()))
            }
        }
    }

    /// Every value by its dotted key (`promotion.threshold`), as the user wrote it: what a
    /// review compares.
    pub fn leaves(&self) -> std::collections::BTreeMap<String, String> {
        fn walk(
            prefix: &str,
            map: &serde_yaml::Mapping,
            out: &mut std::collections::BTreeMap<String, String>,
        ) {
            for (k, v) in map {
                let k = match k {
                    Value::String(s) => s.clone(),
                    other => show(other),
                };
                let key = if prefix.is_empty() {
                    k
                } else {
                    format!("{prefix}.{k}")
                };
                match v {
                    Value::Mapping(m) if !m.is_empty() => walk(&key, m, out),
                    _ => {
                        out.insert(key, show(v));
                    }
                }
            }
        }
        let mut out = std::collections::BTreeMap::new();
        walk("", &self.map, &mut out);
        out
    }

    /// The line where a key (a dotted path: `["recall", "top_k"]`) is set, for messages.
    pub fn line_of(&self, key: &[&str]) -> usize {
        line_of(&self.text, key)
    }

    /// A value at a dotted path: `get(&["index", "embedding"])`.
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        let mut v = self.map.get(*first)?;
        for k in rest {
            v = v.as_mapping()?.get(*k)?;
        }
        Some(v)
    }

    pub fn str(&self, path: &[&str]) -> Option<String> {
        match self.get(path)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub fn u64(&self, path: &[&str]) -> Option<u64> {
        self.get(path)?.as_u64()
    }

    pub fn project(&self) -> Option<String> {
        self.str(&["project"])
    }

    pub fn memory_root(&self) -> String {
        self.str(&["memory_root"])
            .unwrap_or_else(|| "memory".into())
    }

    /// Set a top-level key, keeping every other key and its order.
    pub fn set(&mut self, key: &str, value: Value) {
        self.map.insert(Value::String(key.into()), value);
    }

    pub fn to_yaml(&self) -> Result<String> {
        Ok(serde_yaml::to_string(&self.map)?)
    }
}

/// Convert any serialisable value into a YAML value (for `local.yaml`).
pub fn to_value<T: serde::Serialize>(v: &T) -> Result<Value> {
    Ok(serde_yaml::to_value(v)?)
}

/// A config value as the user wrote it, for messages.
pub fn show(v: &Value) -> String {
    serde_yaml::to_string(v)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into())
}

/// The line a key is written on: its last component at a deeper indent under its section's
/// line; the section's line when written inline (`recall: {top_k: 0}`); 1 when not found.
pub fn line_of(text: &str, key: &[&str]) -> usize {
    let mut found = 0;
    let mut depth = 0;
    let mut indent = 0;
    for (i, line) in text.lines().enumerate() {
        let body = line.trim_start();
        let ind = line.len() - body.len();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if depth > 0 && ind <= indent {
            // Left the section before finding the key.
            if depth < key.len() {
                return found;
            }
        }
        let name = key[depth];
        let is_key = body
            .strip_prefix(name)
            .is_some_and(|r| r.trim_start().starts_with(':'))
            || body
                .strip_prefix(&format!("\"{name}\""))
                .is_some_and(|r| r.trim_start().starts_with(':'));
        if is_key && (depth == 0 && ind == 0 || depth > 0 && ind > indent) {
            found = i + 1;
            depth += 1;
            indent = ind;
            if depth == key.len() {
                return found;
            }
        }
    }
    found.max(1)
}
