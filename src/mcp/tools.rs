//! The tools: each is a library request (`ops::request`), decoded from the call's arguments and
//! advertised with the JSON Schema derived from the same type, so what a tool accepts and what
//! it says it accepts have one source. This module only lists them and translates.
//!
//! How to add a tool: write the request in `ops::request` (see there), then add its type to
//! `tools!` below; `tools/list`, decoding and dispatch follow from the list.

use super::Server;
use crate::ops::request::{self, Env, Operation, Report, Searcher};
use crate::store::memory::Memory;
use crate::store::shown::{Shown, ShownJson};
use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};

/// Every tool, in the order `tools/list` gives them. Not `forget` (erasing memory is a
/// person's act at a terminal, as `approve` is: `cmd/forget.rs`), and `fact_set` writes only
/// the project's facts (the user's file reaches every repository's bundle and no one reviews
/// it): an agent writes only what a person reviews (SPEC §3a).
macro_rules! tools {
    ($($t:ty),+ $(,)?) => {
        /// Every tool's name.
        pub const TOOL_NAMES: &[&str] = &[$(<$t as Operation>::NAME),+];

        /// The tools as `tools/list` gives them.
        pub fn list() -> Vec<Value> {
            vec![$(describe::<$t>()),+]
        }

        /// Decode a tool's arguments without running it (the fuzz target's entry to the decoding).
        pub fn check_args(name: &str, a: Value) -> Result<()> {
            $(if name == <$t as Operation>::NAME {
                return args::<$t>(a).map(|_| ());
            })+
            bail!("no tool {name:?}")
        }

        /// Run one tool: its JSON and the text an agent reads, through the output gate.
        /// Errors carry the CLI's message.
        pub fn call(server: &Server, name: &str, a: Value) -> Result<(ShownJson, Shown)> {
            $(if name == <$t as Operation>::NAME {
                return run::<$t>(server, a);
            })+
            bail!("no tool {name:?}; `tools/list` has them")
        }
    };
}

tools!(
    request::recall::Recall,
    request::context::Context,
    request::write::Decide,
    request::facts::FactGet,
    request::facts::FactSetRequest,
    request::facts::FactList,
    request::write::Confirm,
    request::read::Stale,
    request::write::Outcome,
    request::write::PriorAdd,
    request::read::Show,
    request::read::Log,
    request::read::History,
    request::read::Status,
    request::context::SessionStart,
    request::write::SessionEnd,
);

/// A tool's entry in `tools/list`: name, description, input schema, annotations.
fn describe<T: Operation>() -> Value {
    // Only what differs from MCP's defaults (not read-only, destructive, not idempotent, open
    // world): every byte of the list is paid on every session.
    let h = T::HINTS;
    let mut annotations = json!({});
    if h.read_only {
        annotations["readOnlyHint"] = json!(true);
    } else if !h.destructive {
        annotations["destructiveHint"] = json!(false);
    }
    if h.idempotent && !h.read_only {
        annotations["idempotentHint"] = json!(true);
    }
    let mut tool =
        json!({ "name": T::NAME, "description": T::ABOUT, "inputSchema": input_schema::<T>() });
    if let Some(out) = output_schema::<T>() {
        tool["outputSchema"] = out;
    }
    // On every tool, empty where MCP's defaults are true of it (forget erases).
    tool["annotations"] = annotations;
    tool
}

/// The report's JSON Schema, where it has one (`Report::shape`), cut to what a client can rely
/// on: the fields always there, each with its type. The rest (a note, hits' fields) the agent
/// reads in the result; the list is paid on every session.
pub fn output_schema<T: Operation>() -> Option<Value> {
    let schema = <T::Report as Report>::shape()?.to_value();
    let required = schema.get("required")?.clone();
    let properties: serde_json::Map<String, Value> = required
        .as_array()?
        .iter()
        .filter_map(|name| {
            let name = name.as_str()?;
            let ty = schema
                .get("properties")?
                .get(name)?
                .get("type")
                .cloned()
                .unwrap_or(json!("object"));
            Some((name.to_string(), json!({ "type": ty })))
        })
        .collect();
    Some(json!({ "type": "object", "properties": properties, "required": required }))
}

/// The request type's JSON Schema, inlined and without what only costs an agent context (the
/// `$schema` URI, the type's title, `null` beside every optional type).
pub fn input_schema<T: Operation>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = schema.as_object_mut() {
        o.remove("title");
        o.remove("description");
        o.remove("additionalProperties");
        for p in o
            .get_mut("properties")
            .and_then(Value::as_object_mut)
            .into_iter()
            .flat_map(|m| m.values_mut())
        {
            compact(p);
        }
    }
    if schema.get("properties").is_none() {
        schema["properties"] = json!({});
    }
    if !T::REQUIRED.is_empty() {
        let mut required: Vec<Value> = schema
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        required.extend(T::REQUIRED.iter().map(|r| json!(r)));
        schema["required"] = json!(required);
    }
    schema
}

/// `"type": ["string", "null"]` → `"string"`, and an optional enum's `null` dropped: a missing
/// argument says "default" already.
fn compact(p: &mut Value) {
    if let Some(t) = p.get_mut("type") {
        if let Some(a) = t.as_array() {
            let kept: Vec<&Value> = a.iter().filter(|x| *x != "null").collect();
            if kept.len() == 1 {
                *t = kept[0].clone();
            }
        }
    }
    if let Some(any) = p.get("anyOf").and_then(Value::as_array).cloned() {
        let kept: Vec<Value> = any
            .into_iter()
            .filter(|x| x.get("type") != Some(&json!("null")))
            .collect();
        if let [one] = kept.as_slice() {
            let description = p.get("description").cloned();
            *p = one.clone();
            if let Some(d) = description {
                p["description"] = d;
            }
        }
    }
    // A unit enum's variants with their doc comments (`oneOf` of `const`s): the names alone.
    if let Some(consts) = p.get("oneOf").and_then(Value::as_array).and_then(|v| {
        v.iter()
            .map(|c| c.get("const").cloned())
            .collect::<Option<Vec<Value>>>()
    }) {
        let o = p.as_object_mut().expect("a schema object");
        o.remove("oneOf");
        o.insert("type".into(), json!("string"));
        o.insert("enum".into(), json!(consts));
    }
    if let Some(e) = p.get_mut("enum").and_then(Value::as_array_mut) {
        e.retain(|x| !x.is_null());
    }
    if let Some(o) = p.as_object_mut() {
        // Rust's widths (`uint`, `double`) mean nothing to a client; an empty or false default says no more
        // than a missing one.
        o.remove("format");
        if o.get("minimum") == Some(&json!(0)) {
            o.remove("minimum");
        }
        if o.get("default")
            .is_some_and(|d| d.is_null() || d == "" || d == &json!([]) || d == &json!(false))
        {
            o.remove("default");
        }
    }
}

/// The tools as `tools/list` gives them, derived once per process (every call's arguments are
/// checked against them).
pub fn listed() -> &'static [Value] {
    static LISTED: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    LISTED.get_or_init(list)
}

/// Arguments as the tool's request; a bad shape is the tool's error, naming the tool. Only
/// the advertised names are taken: the request types keep aliases for the CLI's `--file`
/// JSON (`kind` for `type`, `blocker`), which a tool would otherwise accept unadvertised.
fn args<T: Operation>(v: Value) -> Result<T> {
    if let Some(given) = v.as_object() {
        let tool = listed().iter().find(|t| t["name"] == T::NAME);
        let listed = tool.and_then(|t| t["inputSchema"]["properties"].as_object());
        if let Some(k) = given
            .keys()
            .find(|k| !listed.is_some_and(|l| l.contains_key(*k)))
        {
            let names: Vec<&str> = listed
                .into_iter()
                .flat_map(|l| l.keys().map(String::as_str))
                .collect();
            bail!(
                "bad arguments for {}: unknown field `{k}`, expected one of: {}",
                T::NAME,
                names.join(", ")
            );
        }
    }
    serde_json::from_value(v).map_err(|e| anyhow!("bad arguments for {}: {e}", T::NAME))
}

/// Decode, run against the server's memory with its kept model, and render through the
/// output gate: the report's JSON, and its text followed by its notes.
fn run<T: Operation>(server: &Server, a: Value) -> Result<(ShownJson, Shown)> {
    let req = args::<T>(a)?;
    let memory = Memory::open(server.repo.as_deref())?;
    let notes = std::cell::RefCell::new(Vec::<String>::new());
    let note = |m: &str| notes.borrow_mut().push(m.to_string());
    let report = {
        let mut recaller = server.recaller();
        let mut env = Env {
            memory: &memory,
            search: Searcher::Kept(&mut recaller),
            note: &note,
            agent: Some("mcp"),
        };
        req.run(&mut env)?
    };
    let text = Some(report.text().trim_end().to_string()).filter(|t| !t.is_empty());
    let said: Vec<String> = report
        .notes()
        .into_iter()
        .map(|n| format!("note: {n}"))
        .collect();
    let mut lines: Vec<String> = if report.notes_first() {
        said.into_iter().chain(text).collect()
    } else {
        text.into_iter().chain(said).collect()
    };
    lines.extend(notes.into_inner().into_iter().map(|n| format!("note: {n}")));
    Ok(crate::store::shown::report(
        serde_json::to_value(&report)?,
        &lines.join("\n"),
        report.vouched(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_tools() {
        let tools = list();
        let listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(listed, TOOL_NAMES);
    }

    /// A value of a property's advertised type (an enum's first name).
    fn sample(p: &Value) -> Value {
        if let Some(e) = p["enum"].as_array() {
            return e[0].clone();
        }
        match p["type"].as_str() {
            Some("integer") => json!(1),
            Some("number") => json!(0.5),
            Some("boolean") => json!(true),
            Some("array") => json!(["x"]),
            _ => json!("x"),
        }
    }

    /// Advertised and accepted are one: every property a tool lists is accepted with a value
    /// of its advertised type (beside the required ones), and a key it does not list is refused.
    #[test]
    fn every_advertised_property_is_accepted_and_nothing_else() {
        for t in list() {
            let name = t["name"].as_str().unwrap();
            let props = t["inputSchema"]["properties"].as_object().unwrap();
            let required: Vec<&str> = t["inputSchema"]["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let base: serde_json::Map<String, Value> = required
                .iter()
                .map(|r| (r.to_string(), sample(&props[*r])))
                .collect();
            for (key, p) in props {
                let mut args = base.clone();
                args.insert(key.clone(), sample(p));
                check_args(name, Value::Object(args))
                    .unwrap_or_else(|e| panic!("{name}.{key}: {e}"));
            }
            let mut extra = base.clone();
            extra.insert("not_advertised".into(), json!("x"));
            assert!(
                check_args(name, Value::Object(extra)).is_err(),
                "{name} accepted a key it does not list"
            );
        }
    }

    /// The request types keep aliases for the CLI's `--file` JSON: `decide` took `kind` (an
    /// alias of `type`) and `session_end` took `blocker`, unadvertised. A tool takes only what
    /// it lists.
    #[test]
    fn tools_accepted_aliases_they_do_not_advertise() {
        for (tool, args) in [
            (
                "decide",
                json!({"title": "t", "decision": "d", "kind": "PRIOR"}),
            ),
            ("session_end", json!({"blocker": ["x"]})),
        ] {
            let e = check_args(tool, args).unwrap_err().to_string();
            assert!(
                e.contains("unknown field") && e.contains("expected one of"),
                "{tool}: {e}"
            );
        }
    }

    #[test]
    fn every_tool_has_a_short_description_and_an_object_schema() {
        for t in list() {
            assert!(
                t["description"].as_str().is_some_and(|d| d.len() <= 200),
                "{}",
                t["name"]
            );
            assert_eq!(t["inputSchema"]["type"], "object");
        }
    }
}
