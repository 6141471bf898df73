//! The `secmo` binary's commands end to end: exit codes and messages.

use std::path::Path;
use std::process::Command;

fn secmo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_secmo"))
        .args(args)
        .output()
        .expect("run secmo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn asset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn bake_report_and_import_run_and_fail_with_clear_codes() {
    let dir = std::env::temp_dir().join(format!("secmo-commands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baked = dir.join("fox.glb");
    let fox = asset("Fox.glb");
    let (code, out, err) = secmo(&[
        "bake",
        &fox,
        "--units-per-meter",
        "100",
        "--clip",
        "Walk",
        "--out",
        baked.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"Walk\": 44 keys, 7 warm-up passes"), "{out}");
    let (code, out, _) = secmo(&["import", baked.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("clip \"Walk\""), "{out}");

    let report = dir.join("report");
    let (code, out, err) = secmo(&[
        "report",
        &fox,
        "--units-per-meter",
        "100",
        "--clip",
        "Run",
        "--out",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"Run\": chain p99"), "{out}");
    assert!(report.join("report.md").exists() && report.join("stretch_Run.svg").exists());

    let (code, _, err) = secmo(&["bake", &fox, "--clip", "Nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("no clip named \"Nope\""), "{err}");
    let (code, _, err) = secmo(&["bake", &fox, "--rate", "0"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--rate: `0` is not a number in [1, 1000]"),
        "{err}"
    );
    let (code, _, err) = secmo(&["import"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = secmo(&["frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown command `frobnicate`"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
