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
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module `text` names through `crate::` (paths and `use crate::{a, b::c}` groups).
fn uses(text: &str) -> BTreeSet<String> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut found = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    for (i, _) in code.match_indices("crate::") {
        if i > 0 && code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
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
                g.entry(from.clone()).or_default().entry(to).or_default().insert(shown.clone());
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
    assert!(bad.is_empty(), "the library reaches a front-end:\n{}", bad.join("\n"));
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
                    let mut circle: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
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
            let why: Vec<String> = circle.windows(2).map(|w| format!("{} → {} in {:?}", w[0], w[1], g[&w[0]][&w[1]])).collect();
            panic!("a circle between folders: {}\n{}", circle.join(" → "), why.join("\n"));
        }
    }
}

#[test]
fn the_reader_sees_groups_and_paths() {
    let text = "use crate::{a, b::{self, X}, c::d};\nuse crate::e::F;\n// crate::g in a comment\nlet x = crate::h::i();\nzcrate::j;";
    let got: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(got, ["a", "b", "c", "e", "h"]);
}
