//! Derived files are this machine's, never the repository's (SPEC §3a, "Derived files"). The
//! session record, the decision log's summary and the index are made by zo from the memory
//! files; git ignores them, but `git add -f` can commit one and a pull then replaces the local
//! copy. So zo reads each only when this user's zo made it: the record and the index carry a
//! BLAKE3 MAC keyed with the user's secret (`summary::key`, 0600 in the machine's cache),
//! which no repository can compute; one that fails is ignored (the record: no open session;
//! the index: rebuilt). `tracked` names the derived files git tracks, for `verify` and
//! `doctor`.

use crate::store::layout::Layout;

/// The session record's MAC domain (`lifecycle::record` writes the record, `store::write`
/// adds what a writer wrote to it).
pub const SESSION_RECORD: &str = "zo session record 1";

/// The MAC of `bytes` for `domain` (what the bytes are: "session record", "index"), hex;
/// None when this user has no key (then nothing derived is trusted).
pub fn mac(domain: &str, bytes: &[u8]) -> Option<String> {
    let key = crate::store::summary::key()?;
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(domain.as_bytes());
    h.update(&[0]);
    h.update(bytes);
    Some(h.finalize().to_hex().to_string())
}

/// Whether `given` is this user's MAC of `bytes` for `domain` (compared in constant time).
pub fn sealed(domain: &str, bytes: &[u8], given: &str) -> bool {
    let (Some(want), Ok(got)) = (mac(domain, bytes), blake3::Hash::from_hex(given)) else {
        return false;
    };
    blake3::Hash::from_hex(want).is_ok_and(|w| w == got)
}

/// JSON as the MAC reads it: objects with their keys sorted, no spaces, so the same data is the
/// same bytes whoever wrote the file and in what order.
fn canonical(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&o[*k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// Put this user's MAC of `value` (an object, less any `mac` it holds) under its `mac` key.
/// False when there is no key to sign with.
pub fn seal_json(domain: &str, value: &mut serde_json::Value) -> bool {
    let Some(o) = value.as_object_mut() else {
        return false;
    };
    o.remove("mac");
    let Some(m) = mac(domain, canonical(value).as_bytes()) else {
        return false;
    };
    value
        .as_object_mut()
        .map(|o| o.insert("mac".into(), m.into()))
        .is_some()
}

/// Whether `value`'s `mac` is this user's MAC of the rest of it; the `mac` is taken out.
pub fn unseal_json(domain: &str, value: &mut serde_json::Value) -> bool {
    let Some(given) = value.as_object_mut().and_then(|o| o.remove("mac")) else {
        return false;
    };
    let Some(given) = given.as_str() else {
        return false;
    };
    sealed(domain, canonical(value).as_bytes(), given)
}

/// Whether `s` is a full commit ID (`git::is_commit_id`).
pub use crate::git::is_commit_id;

/// The derived files (paths relative to the repository root) that git tracks: each is
/// ignored by zo and should be untracked (`git rm --cached`).
pub fn tracked(layout: &Layout) -> Vec<String> {
    let Some(repo) = crate::git::Repo::discover(&layout.root) else {
        return vec![];
    };
    derived(layout)
        .into_iter()
        .filter(|rel| repo.is_tracked(std::path::Path::new(rel)))
        .collect()
}

/// Every derived file's path relative to the root.
fn derived(layout: &Layout) -> Vec<String> {
    let mut out = vec![
        layout.rel(&layout.session_record()),
        layout.rel(&layout.index_db()),
        layout.rel(&crate::store::summary::path(layout)),
        layout.rel(&crate::store::summary::derived_path(
            layout,
            crate::store::summary::CONTRADICTIONS,
        )),
    ];
    for suffix in ["-wal", "-shm", "-journal", "-lock"] {
        out.push(format!("{}{suffix}", layout.rel(&layout.index_db())));
    }
    out
}
