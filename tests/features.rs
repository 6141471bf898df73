//! Engines get only the runtime (issue #18): without the default `settings`
//! feature the library depends on glam and bytemuck alone. (`.ci/run` also
//! builds the library that way, so the cfg'd code keeps compiling.)

use std::process::Command;

/// `cargo tree` of the runtime's normal dependencies, one package a line.
fn tree(extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "secmo", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_runtime_without_settings_links_only_glam_and_bytemuck() {
    let text = tree(&["--no-default-features"]);
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    names.sort_unstable();
    names.dedup();
    // bytemuck's derive macro brings its proc-macro helpers (build time only).
    let allowed = [
        "secmo",
        "glam",
        "bytemuck",
        "bytemuck_derive",
        "proc-macro2",
        "quote",
        "syn",
        "unicode-ident",
    ];
    for n in &names {
        assert!(
            allowed.contains(n),
            "the engine build depends on {n}: {names:?}"
        );
    }
    assert!(names.contains(&"glam") && names.contains(&"bytemuck"));

    // And with the default features the settings reader is there.
    assert!(tree(&[]).contains("serde_json"));
}
