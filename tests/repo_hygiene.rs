//! Repository hygiene: the text of the repository cites only what the
//! repository holds.
//!
//! Each check walks the repository's text files (sources, headers, docs,
//! manifests and scripts; not `target/`, `.git/`, `node_modules/` or the
//! binary test assets) and fails naming every offending `file:line`:
//!
//! - no citation of planning notes kept outside the repository;
//! - every `docs/algorithms.md §N` names a heading of docs/algorithms.md;
//! - every `docs/<name>.md`, `tests/<path>.rs` and `benches/<path>` exists;
//! - no work-log dating (numbered work periods) in place of a description of
//!   the product; history belongs in git log and CHANGELOG.md.
//!
//! Each check's own patterns are spelled in pieces so that this file does
//! not match itself.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Directories never walked, by name at any depth.
const SKIP_DIRS: &[&str] = &["target", ".git", "node_modules"];

/// Directories never walked, by path from the repository root.
const SKIP_PATHS: &[&str] = &[
    "tests/assets",
    "fuzz/target",
    "fuzz/corpus",
    "fuzz/artifacts",
];

/// File extensions that are text the project writes.
const TEXT_EXTENSIONS: &[&str] = &[
    "rs", "md", "h", "hpp", "c", "cpp", "cs", "toml", "json", "py", "sh", "txt", "yml", "yaml",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every text file of the repository, as (path relative to the root, contents).
fn text_files() -> Vec<(String, String)> {
    let root = root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = relative(&root, &path);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !SKIP_DIRS.contains(&name.as_str()) && !SKIP_PATHS.contains(&relative.as_str()) {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let named_text = name.starts_with("README") || name.starts_with("CHANGELOG");
            if !(TEXT_EXTENSIONS.contains(&extension) || named_text) {
                continue;
            }
            // A file that is not UTF-8 is not text the project writes.
            if let Ok(text) = fs::read_to_string(&path) {
                out.push((relative, text));
            }
        }
    }
    out.sort();
    assert!(
        out.iter().any(|(p, _)| p == "README.md") && out.len() > 50,
        "the walk found {} files and no README.md: is the root {}?",
        out.len(),
        root.display()
    );
    out
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Fails listing `offenders` (one `file:line: …` each) under `what`.
fn report(what: &str, offenders: &[String]) {
    assert!(
        offenders.is_empty(),
        "{what} ({} lines):\n{}",
        offenders.len(),
        offenders.join("\n")
    );
}

fn excerpt(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[test]
fn no_citation_of_planning_notes_outside_the_repository() {
    // Spelled in pieces so that this file does not match itself.
    let spec = ["SPEC", " §"].concat();
    let spec_file = ["SPEC", ".md"].concat();
    let design_file = ["DESIGN", ".md"].concat();
    let mut offenders = Vec::new();
    for (path, text) in text_files() {
        for (n, line) in text.lines().enumerate() {
            if [&spec, &spec_file, &design_file]
                .iter()
                .any(|p| line.contains(p.as_str()))
            {
                offenders.push(format!("{path}:{}: {}", n + 1, excerpt(line)));
            }
        }
    }
    report(
        "planning notes outside the repository are cited; cite docs/algorithms.md §N or docs/architecture.md instead",
        &offenders,
    );
}

/// Section numbers of docs/algorithms.md: `## 7. Title` gives "7",
/// `### 12.1 Title` gives "12.1".
fn algorithm_sections() -> BTreeSet<String> {
    let text =
        fs::read_to_string(root().join("docs/algorithms.md")).expect("docs/algorithms.md exists");
    text.lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("## ")
                .or_else(|| line.strip_prefix("### "))?;
            let number: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let number = number.trim_end_matches('.');
            (!number.is_empty()).then(|| number.to_string())
        })
        .collect()
}

/// The section numbers cited as `docs/algorithms.md §N` in `line`.
fn cited_sections(line: &str) -> Vec<String> {
    let key = "algorithms.md §";
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(key) {
        rest = &rest[at + key.len()..];
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let number = number.trim_end_matches('.');
        // `§N` as a placeholder in prose is not a citation.
        if !number.is_empty() {
            out.push(number.to_string());
        }
    }
    out
}

#[test]
fn every_cited_algorithms_section_exists() {
    let sections = algorithm_sections();
    assert!(
        sections.contains("1") && sections.contains("13"),
        "docs/algorithms.md headings read as {sections:?}"
    );
    let mut offenders = Vec::new();
    for (path, text) in text_files() {
        for (n, line) in text.lines().enumerate() {
            for section in cited_sections(line) {
                if !sections.contains(&section) {
                    offenders.push(format!(
                        "{path}:{}: §{section} is not a heading of docs/algorithms.md: {}",
                        n + 1,
                        excerpt(line)
                    ));
                }
            }
        }
    }
    report(
        "docs/algorithms.md sections cited that do not exist",
        &offenders,
    );
}

/// Characters a cited path may contain.
fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '.')
}

/// Relative paths cited in `line`: `docs/<name>.md`, `tests/<path>.rs` and
/// `benches/<path>`, each starting the path (not inside `cli/tests/…`).
fn cited_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["docs/", "tests/", "benches/"] {
        let mut from = 0;
        while let Some(at) = line[from..].find(prefix) {
            let start = from + at;
            from = start + prefix.len();
            let before = line[..start].chars().next_back();
            if before.is_some_and(|c| path_char(c) || c == '\\') {
                continue; // part of a longer path (cli/tests/…) or a word
            }
            let path: String = line[start..]
                .chars()
                .take_while(|&c| path_char(c))
                .collect();
            // Sentence punctuation after a path is not part of it.
            let path = path.trim_end_matches('.').to_string();
            let tail = &line[start + path.len()..];
            if tail.starts_with(['*', '<', '{', '$']) {
                continue; // a pattern, not a file
            }
            let wanted = match prefix {
                "docs/" => path.ends_with(".md") && !path[prefix.len()..].contains('/'),
                "tests/" => path.ends_with(".rs"),
                _ => path.len() > prefix.len(),
            };
            if wanted {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn every_cited_repository_path_exists() {
    let root = root();
    let mut offenders = Vec::new();
    for (path, text) in text_files() {
        // A path may be relative to the repository root or to a directory
        // above the citing file (a crate's own tests/…, benches/…).
        let bases: Vec<PathBuf> = Path::new(&path)
            .ancestors()
            .skip(1)
            .map(|a| root.join(a))
            .collect();
        for (n, line) in text.lines().enumerate() {
            for cited in cited_paths(line) {
                let cited_dir = cited.trim_end_matches('/');
                if !bases.iter().any(|b| b.join(cited_dir).exists()) {
                    offenders.push(format!(
                        "{path}:{}: {cited} does not exist: {}",
                        n + 1,
                        excerpt(line)
                    ));
                }
            }
        }
    }
    report("paths cited that are not in the repository", &offenders);
}

/// Where `line` dates something by a numbered work period rather than
/// describing the product: the word for a work period followed by a number
/// (singular or plural), as a level-2 heading, or after "until".
fn work_log_words(line: &str) -> Option<usize> {
    let lower = line.to_lowercase();
    let word = ["sess", "ion"].concat();
    if lower.trim_start().starts_with(&format!("## {word}")) {
        return Some(0);
    }
    if let Some(at) = lower.find(&format!("until {word}")) {
        return Some(at);
    }
    let mut from = 0;
    while let Some(at) = lower[from..].find(&word) {
        let after = &lower[from + at + word.len()..];
        let after = after.strip_prefix('s').unwrap_or(after);
        if after
            .strip_prefix(' ')
            .and_then(|a| a.chars().next())
            .is_some_and(|c| c.is_ascii_digit())
        {
            return Some(from + at);
        }
        from += at + word.len();
    }
    None
}

#[test]
fn no_work_log_dating() {
    let mut offenders = Vec::new();
    for (path, text) in text_files() {
        for (n, line) in text.lines().enumerate() {
            if let Some(at) = work_log_words(line) {
                // The lowercase line has the same byte offsets for ASCII;
                // fall back to the line's start where it does not.
                let at = if line.is_char_boundary(at) { at } else { 0 };
                let start = line[..at]
                    .char_indices()
                    .rev()
                    .nth(40)
                    .map_or(0, |(i, _)| i);
                offenders.push(format!("{path}:{}: {}", n + 1, excerpt(&line[start..])));
            }
        }
    }
    report(
        "numbered work periods date the text; describe the product as it is (history: git log, CHANGELOG.md with versions and dates)",
        &offenders,
    );
}

#[test]
fn the_matchers_find_what_they_should_and_nothing_else() {
    assert_eq!(
        cited_sections("(docs/algorithms.md §7, docs/algorithms.md §12.4.)"),
        ["7", "12.4"]
    );
    assert_eq!(
        cited_paths("see docs/chains.md, tests/contact.rs and `benches/README.md`."),
        ["docs/chains.md", "tests/contact.rs", "benches/README.md"]
    );
    // Missing files, spelled in pieces so that this file cites none.
    let missing = [
        ["docs/", "none.md"],
        ["tests/", "none.rs"],
        ["benches/", "none.rs"],
    ]
    .map(|parts| parts.concat());
    assert_eq!(
        cited_paths(&format!(
            "{}, {} and {}.",
            missing[0], missing[1], missing[2]
        )),
        missing
    );
    assert!(cited_paths("cli/tests/rig.rs and my_docs/x.md").is_empty());
    assert!(cited_paths("tests/*.rs and docs/images/a.png").is_empty());
    let word = ["Sess", "ion"].concat();
    assert_eq!(work_log_words(&format!("## {word} 14 changes")), Some(0));
    assert_eq!(work_log_words(&format!("in {word}s 23–24")), Some(3));
    assert!(work_log_words(&format!("until {} 18", word.to_lowercase())).is_some());
    assert_eq!(work_log_words(&format!("a {word} of the editor")), None);
}

/// A test target with `harness = false` runs only what its `main` lists
/// (tests/support/tools.rs); a `#[test]` function in it is never run, so
/// it could not fail. Every such target must have none.
#[test]
fn no_test_attribute_in_a_target_without_the_libtest_harness() {
    let root = root();
    let mut offenders = Vec::new();
    for (manifest, folder) in [("Cargo.toml", "tests"), ("cli/Cargo.toml", "cli/tests")] {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        let (mut in_test, mut name) = (false, None);
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                in_test = line == "[[test]]";
                name = None;
            } else if !in_test {
                continue;
            } else if let Some(v) = line.strip_prefix("name = ") {
                name = Some(v.trim_matches('"').to_string());
            } else if line == "harness = false" {
                let Some(name) = &name else { continue };
                let path = root.join(folder).join(format!("{name}.rs"));
                let source = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                for (i, l) in source.lines().enumerate() {
                    if l.trim() == "#[test]" {
                        offenders.push(format!("{folder}/{name}.rs:{}", i + 1));
                    }
                }
            }
        }
    }
    report(
        "#[test] functions in a harness = false target (list them in its main instead)",
        &offenders,
    );
}
