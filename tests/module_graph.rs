//! Layering check: no import circle between the modules of `src/` (the
//! library) or of `cli/src/` (the tool).
//!
//! The graph is read from the source text (std only, no parser crate):
//!
//! * A node is a module of the crate. In `src/`, a top-level module (`x.rs`
//!   or the folder `x/`, e.g. all of `ffi/`) is one node, except that each
//!   solver under `solvers/` is a node of its own (`solvers/x.rs` or the
//!   folder `solvers/x/`, e.g. all of `solvers/chain_stage/`), and
//!   `solvers/mod.rs` is the node `solvers`. The files of such a folder
//!   read each other through `use super::*` (the chain stage's driver calls
//!   its substeps, which read the driver's per-update types), so the folder
//!   is one node and only its edges out are checked. `lib.rs` (and
//!   `main.rs`) are the crate root. In `cli/src/` every file is a node.
//! * `MODULE_GRAPH_PRINT=1 cargo test --test module_graph -- --nocapture`
//!   prints the graph.
//! * An edge is any path that names another node: `use crate::…` (groups
//!   `crate::{a, b::c}` expanded), `crate::x::…` written inline, and
//!   `super::…` resolved from the file's module (and from inline modules
//!   inside it). A name the crate root re-exports (`crate::Rig`) is an
//!   edge to the module that defines it; the root itself, a façade of
//!   `pub use`s, is a node of its own that nothing depends on.
//! * Comments are skipped, and so are `#[cfg(test)]` modules: a unit test
//!   may build what it needs from any layer.
//!
//! The test fails naming one cycle of each circle it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file (`["solvers", "chain_stage", "plan"]`).
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The node a module path belongs to, under the rules of the module doc.
fn node_of(path: &[String], per_file: bool) -> String {
    if path.is_empty() {
        return "crate".to_string();
    }
    if per_file {
        return path.join("::");
    }
    if path[0] == "solvers" && path.len() > 1 {
        return format!("solvers::{}", path[1]);
    }
    path[0].clone()
}

/// The text of a file without comments, string contents and `#[cfg(test)]`
/// modules.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            i = end;
        } else if b[i] == b'"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('"', '\n'); lifetimes ('a) are left as they are.
            let end = text[i + 1..].find('\'').map_or(b.len(), |e| i + 1 + e + 1);
            let end = if b[i + 1] == b'\\' {
                text[i + 3..].find('\'').map_or(b.len(), |e| i + 3 + e + 1)
            } else {
                end
            };
            out.push_str("' '");
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    // Drop `#[cfg(test)] mod … { … }` blocks.
    let mut result = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        result.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if trimmed.starts_with("mod ") {
            match skip_block(trimmed) {
                Some(tail) => rest = tail,
                None => {
                    rest = "";
                }
            }
        } else {
            result.push_str("#[cfg(test)]");
            rest = after;
        }
    }
    result.push_str(rest);
    result
}

/// The text after the `{ … }` block that `s` opens (or after its `;`).
fn skip_block(s: &str) -> Option<&str> {
    let open = s.find(['{', ';'])?;
    if s.as_bytes()[open] == b';' {
        return Some(&s[open + 1..]);
    }
    let mut depth = 0usize;
    for (k, c) in s[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[open + k + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Expands a use tree (`a::{b, c::d}`) into its paths.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..k], &prefix, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &prefix, out);
    } else if !tree.is_empty() {
        let head = tree.split(" as ").next().unwrap().trim();
        out.push(if head == "self" {
            prefix.to_string()
        } else {
            join(prefix, head)
        });
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}::{b}"),
    }
}

/// Every `crate::…` / `super::…` path in the (stripped) text, with the number
/// of inline modules it sits in.
fn paths(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    // Inline modules: (brace depth at which they close).
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        let boundary = i == 0 || !is_ident(b[i - 1] as char) && b[i - 1] != b':';
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth = depth.saturating_sub(1);
            if inline.last() == Some(&depth) {
                inline.pop();
            }
        } else if boundary && text[i..].starts_with("mod ") {
            let rest = &text[i + 4..];
            let name_end = rest.find(|ch: char| !is_ident(ch)).unwrap_or(rest.len());
            if rest[name_end..].trim_start().starts_with('{') {
                inline.push(depth);
            }
        } else if boundary && text[i..].starts_with("use ") {
            let end = text[i..].find(';').map_or(text.len(), |e| i + e);
            let mut out = Vec::new();
            expand(&text[i + 4..end], "", &mut out);
            for p in out {
                if p.starts_with("crate::") || p.starts_with("super::") || p == "super" {
                    found.push((p, inline.len()));
                }
            }
            i = end;
            continue;
        } else if boundary && (text[i..].starts_with("crate::") || text[i..].starts_with("super::"))
        {
            let end = text[i..]
                .find(|ch: char| !(is_ident(ch) || ch == ':'))
                .map_or(text.len(), |e| i + e);
            found.push((text[i..end].trim_end_matches(':').to_string(), inline.len()));
            i = end;
            continue;
        }
        i += 1;
    }
    found
}

/// The module graph of the crate whose sources are under `root`.
fn graph(root: &Path, per_file: bool) -> Graph {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: Vec<Vec<String>> = files.iter().map(|f| module_path(root, f)).collect();
    // What the crate root re-exports (`pub use rig::{Rig, …}` in lib.rs):
    // a path through it (`crate::Rig`) names the module that defines it.
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for (file, module) in files.iter().zip(&modules) {
        if !module.is_empty() {
            continue;
        }
        let text = strip(&fs::read_to_string(file).unwrap());
        for stmt in text.split(';') {
            let Some(at) = stmt.find("pub use ") else {
                continue;
            };
            let mut out = Vec::new();
            expand(&stmt[at + "pub use ".len()..], "", &mut out);
            for p in out {
                let segs: Vec<String> = p
                    .trim_start_matches("crate::")
                    .split("::")
                    .map(str::to_string)
                    .collect();
                let Some(name) = segs.last() else { continue };
                let depth = (1..segs.len())
                    .rev()
                    .find(|&d| modules.iter().any(|m| m.starts_with(&segs[..d])))
                    .unwrap_or(0);
                if depth > 0 {
                    reexports.insert(name.clone(), node_of(&segs[..depth], per_file));
                }
            }
        }
    }
    let mut g = Graph::new();
    for m in &modules {
        g.entry(node_of(m, per_file)).or_default();
    }
    for (file, module) in files.iter().zip(&modules) {
        let from = node_of(module, per_file);
        let text = strip(&fs::read_to_string(file).unwrap());
        for (path, inline) in paths(&text) {
            let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            let mut base: Vec<String>;
            if segs[0] == "crate" {
                base = Vec::new();
                segs.remove(0);
            } else {
                let supers = segs.iter().take_while(|s| **s == "super").count();
                segs.drain(..supers);
                if supers <= inline {
                    continue; // within the file
                }
                base = module.clone();
                for _ in 0..supers - inline {
                    base.pop();
                }
            }
            if base.is_empty() {
                if let Some(node) = segs.first().and_then(|s| reexports.get(*s)) {
                    if *node != from {
                        g.get_mut(&from).unwrap().insert(node.clone());
                    }
                    continue;
                }
            }
            // The longest module path the named path starts with.
            for s in segs {
                base.push(s.to_string());
                if !modules.iter().any(|m| m.starts_with(&base)) {
                    base.pop();
                    break;
                }
            }
            let to = node_of(&base, per_file);
            if to != from {
                g.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    g
}

/// One cycle through each strongly connected component of more than one
/// node, as `a -> b -> … -> a`.
fn cycles(g: &Graph) -> Vec<String> {
    let mut found = Vec::new();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    for start in g.keys() {
        if reported.contains(start) {
            continue;
        }
        // Breadth-first search for the shortest way back to `start`.
        let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.as_str()]);
        let mut closed = None;
        while let Some(n) = queue.pop_front() {
            for next in &g[n] {
                if next == start {
                    closed = Some(n);
                    break;
                }
                if !prev.contains_key(next.as_str()) {
                    prev.insert(next, n);
                    queue.push_back(next);
                }
            }
            if closed.is_some() {
                break;
            }
        }
        if let Some(mut n) = closed {
            let mut path = vec![start.as_str()];
            while n != start {
                path.push(n);
                n = prev[n];
            }
            path[1..].reverse();
            path.push(start);
            for p in &path {
                reported.insert(p.to_string());
            }
            found.push(path.join(" -> "));
        }
    }
    found
}

fn check(dir: &str, per_file: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let g = graph(&root, per_file);
    assert!(g.len() > 5, "{dir}: found only {:?}", g.keys());
    if std::env::var_os("MODULE_GRAPH_PRINT").is_some() {
        for (from, to) in &g {
            println!("{from} -> {to:?}");
        }
    }
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "import circles in {dir}/:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn library_modules_form_no_circle() {
    check("src", false);
}

#[test]
fn cli_modules_form_no_circle() {
    check("cli/src", true);
}

#[test]
fn a_circle_is_found_and_named() {
    let mut g = Graph::new();
    for (a, b) in [
        ("math", "clock"),
        ("rig", "math"),
        ("solvers::x", "rig"),
        ("rig", "solvers::x"),
    ] {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    }
    assert_eq!(cycles(&g), ["rig -> solvers::x -> rig"]);
    g.get_mut("rig").unwrap().remove("solvers::x");
    assert!(cycles(&g).is_empty());
}

#[test]
fn paths_are_read_from_groups_super_and_inline_uses() {
    let text = strip(
        "use crate::{math::{self, T}, rig::Rig};\n\
         // use crate::commented::Out;\n\
         fn f() { crate::clock::tick(); let s = \"crate::in_string\"; }\n\
         mod inner { use super::Thing; }\n\
         use super::sibling::X;\n\
         #[cfg(test)]\nmod tests { use crate::tests_only::Y; }\n",
    );
    let p: Vec<(String, usize)> = paths(&text);
    let names: Vec<&str> = p.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        names,
        [
            "crate::math",
            "crate::math::T",
            "crate::rig::Rig",
            "crate::clock::tick",
            "super::Thing",
            "super::sibling::X"
        ]
    );
    assert_eq!(p[4].1, 1);
    assert_eq!(p[5].1, 0);
}
