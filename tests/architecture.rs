//! The house's rules, checked on the source (ARCHITECTURE.md): no module outside a front-end
//! imports a front-end, and no circle between the library's folders. Cheaper than a workspace
//! split and as strict for what it checks: a `crate::cmd` in the library fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The front-ends: they parse and render; nothing else may reach them.
const FRONT_ENDS: &[&str] = &["cmd", "mcp", "cli", "main"];
/// Test support behind the `test-support` feature: it drives the front-ends' decoders on
/// purpose (`props::mcp_request`) and is in no normal build.
const TEST_SUPPORT: &[&str] = &["props", "fixtures"];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to: `src/store/fsio.rs` → `store`, `src/time.rs` → `time`.
fn top(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module `text` names through `crate::` (paths and `use crate::{a, b::c}` groups).
fn uses(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    let ident = |s: &str| {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    for (i, _) in code.match_indices("crate::") {
        if i > 0 && code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The items at depth one of the group.
            let (mut depth, mut start) = (0, true);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        found.insert(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found
}

/// module → (module it uses → the files that use it).
fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut g: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in files {
        let from = top(&src, &f);
        let shown = f.strip_prefix(&src).unwrap().display().to_string();
        for to in uses(&std::fs::read_to_string(&f).unwrap()) {
            if to != from {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(shown.clone());
            }
        }
    }
    g
}

#[test]
fn no_module_outside_a_front_end_imports_a_front_end() {
    let mut bad = Vec::new();
    for (from, tos) in graph() {
        if FRONT_ENDS.contains(&from.as_str()) || TEST_SUPPORT.contains(&from.as_str()) {
            continue;
        }
        for (to, files) in tos {
            if FRONT_ENDS.contains(&to.as_str()) {
                bad.push(format!("{from} → {to} in {files:?}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the library reaches a front-end:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_circle_between_folders() {
    let g = graph();
    // Depth-first search; a grey node met again closes a circle.
    fn visit<'a>(
        n: &'a str,
        g: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        colour: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        colour.insert(n, 1);
        path.push(n);
        for m in g.get(n).into_iter().flat_map(|t| t.keys()) {
            match colour.get(m.as_str()) {
                Some(1) => {
                    let at = path.iter().position(|p| p == m).unwrap();
                    let mut circle: Vec<String> =
                        path[at..].iter().map(|s| s.to_string()).collect();
                    circle.push(m.clone());
                    return Some(circle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, g, colour, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        colour.insert(n, 2);
        None
    }
    let mut colour = BTreeMap::new();
    for n in g.keys() {
        if !colour.contains_key(n.as_str())
            && let Some(circle) = visit(n, &g, &mut colour, &mut Vec::new())
        {
            let why: Vec<String> = circle
                .windows(2)
                .map(|w| format!("{} → {} in {:?}", w[0], w[1], g[&w[0]][&w[1]]))
                .collect();
            panic!(
                "a circle between folders: {}\n{}",
                circle.join(" → "),
                why.join("\n")
            );
        }
    }
}

#[test]
fn the_reader_sees_groups_and_paths() {
    let text = "use crate::{a, b::{self, X}, c::d};\nuse crate::e::F;\n// crate::g in a comment\nlet x = crate::h::i();\nzcrate::j;";
    let got: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(got, ["a", "b", "c", "e", "h"]);
}

/// The text of every `.rs` file under `src/<dir>` (or the one file `src/<dir>.rs`).
fn sources(dir: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let path = src.join(dir);
    if path.is_dir() {
        rs_files(&path, &mut files);
    } else {
        files.push(path);
    }
    files
        .into_iter()
        .map(|f| {
            (
                f.strip_prefix(&src).unwrap().display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            )
        })
        .collect()
}

/// Clap is the CLI's parser: a library type deriving one of its traits (as `Tier` once derived
/// `ValueEnum`, and MCP parsed a tier through clap) puts the CLI's grammar in the library.
#[test]
fn no_library_type_derives_a_clap_trait() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let module = top(&src, &f);
        if FRONT_ENDS.contains(&module.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for needle in [
            "clap::",
            "ValueEnum",
            "#[arg(",
            "derive(Args",
            "derive(Parser",
            "derive(Subcommand",
        ] {
            if text.contains(needle) {
                bad.push(format!(
                    "{} names {needle}",
                    f.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "clap outside the CLI:\n{}", bad.join("\n"));
}

/// The request types `mcp/tools.rs` lists in `tools!`.
fn tool_requests() -> Vec<String> {
    let (_, text) = sources("mcp/tools.rs").into_iter().next().unwrap();
    let list = &text[text.find("tools!(\n").expect("the tools! list") + 8..];
    let list = &list[..list.find(");").unwrap()];
    list.split(',')
        .map(|t| t.trim().rsplit("::").next().unwrap().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// One operation, one request: every MCP tool is a library request that the CLI builds too, so
/// the two front-ends cannot validate, default or decide differently.
#[test]
fn every_tool_is_a_request_the_cli_builds_too() {
    let tools = tool_requests();
    assert!(tools.len() >= 16, "{tools:?}");
    let cmd: String = sources("cmd").into_iter().map(|(_, t)| t).collect();
    let word = |w: &str| {
        cmd.match_indices(w).any(|(i, _)| {
            !cmd[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                && !cmd[i + w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    };
    let missing: Vec<&String> = tools.iter().filter(|t| !word(t)).collect();
    assert!(
        missing.is_empty(),
        "tools whose request no CLI command builds: {missing:?}"
    );
}

/// The front-ends translate: `mcp/` makes no usage error and matches no argument's value
/// itself (the request's types and `run` do), and the commands that run a request leave
/// validation to it.
#[test]
fn the_front_ends_validate_nothing_the_library_does() {
    let mut bad = Vec::new();
    // (`mcp/wire.rs` is the protocol: its errors are JSON-RPC's, not a tool's arguments.)
    for (file, text) in sources("mcp/tools.rs") {
        // The unit tests below `#[cfg(test)]` may look at values: they are not the front-end.
        let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        for needle in [
            "Error::usage",
            "=> bail!",
            "parse::<",
            "from_str",
            "as_str() {",
        ] {
            if text.contains(needle) {
                bad.push(format!("{file} holds {needle}"));
            }
        }
    }
    let translators = [
        "recall", "context", "decide", "fact", "prior", "log", "show", "history", "status",
        "stale", "forget", "outcome", "confirm", "session",
    ];
    for (file, text) in sources("cmd") {
        let name = file.trim_start_matches("cmd/").trim_end_matches(".rs");
        if translators.contains(&name) && text.contains("Error::usage") {
            bad.push(format!("{file} makes a usage error of its own"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The output gate is the only way out (issue 43, SPEC §3a "The output gate"): only
/// `store/shown.rs` makes a `Shown` or `ShownJson`, and only the CLI's one writer (`cmd/mod.rs`)
/// and the MCP server's loop (`mcp/mod.rs`) write to stdout or stderr — `main.rs` only through
/// `cmd::say`. A new path that printed raw text fails here before any test runs it.
#[test]
fn nothing_reaches_a_reader_around_the_output_gate() {
    let mut bad = Vec::new();
    for (file, text) in sources("") {
        // Unit tests below `#[cfg(test)]` are not what a reader is given.
        let code = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        if file != "store/shown.rs" && (code.contains("Shown(") || code.contains("ShownJson(")) {
            bad.push(format!("{file} makes a Shown itself"));
        }
        let writers = ["cmd/mod.rs", "mcp/mod.rs"];
        for needle in [
            "println!",
            "print!(",
            "eprintln!",
            "eprint!(",
            "io::stdout()",
            "io::stderr()",
        ] {
            if code.contains(needle) && !writers.contains(&file.as_str()) {
                // The progress bars draw on stderr through indicatif (counts, never memory
                // text), and a terminal check reads no output.
                let allowed = file == "progress.rs" && needle == "io::stderr()"
                    || file == "cmd/editor.rs" && needle == "io::stdout()";
                if !allowed {
                    bad.push(format!("{file} writes with {needle}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
