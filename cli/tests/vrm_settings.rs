//! `secmo vrm-settings` writes settings that load, and names the file and
//! field when the input is wrong.

use std::path::Path;

use secmo_cli::vrm_settings::{default_output, run};

fn asset(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/assets")
        .join(name)
}

#[test]
fn writes_settings_that_load_back() {
    let out = std::env::temp_dir().join(format!("secmo-vrm-{}.json", std::process::id()));
    let report = run(&asset("Godette_vrm_v4.vrm"), &out).unwrap();
    assert!(
        report
            .summary
            .contains("VRM 0.x, 3 bone groups, 8 roots → 8 chains, 16 joints"),
        "{}",
        report.summary
    );
    assert!(report.summary.contains("colliders: 4 (4 sphere"));
    let text = std::fs::read_to_string(&out).unwrap();
    let settings = secmo::RigSettings::from_json(&text).unwrap();
    assert_eq!(settings.chains.len(), 8);
    assert_eq!(settings.colliders.len(), 4);
    std::fs::remove_file(out).unwrap();

    assert_eq!(
        default_output(Path::new("/x/Godette_vrm_v4.vrm")),
        Path::new("/x/Godette_vrm_v4.secmo-settings.json")
    );
}

#[test]
fn errors_name_the_file_and_field() {
    let out = std::env::temp_dir().join(format!("secmo-vrm-err-{}.json", std::process::id()));
    let fox = asset("Fox.glb");
    let e = run(&fox, &out).err().unwrap().to_string();
    assert!(
        e.starts_with(&format!("{}: extensions:", fox.display())),
        "{e}"
    );
    assert!(!out.exists(), "nothing written for a broken input");
    let missing = asset("no-such.vrm");
    let e = run(&missing, &out).err().unwrap().to_string();
    assert!(e.starts_with(&missing.display().to_string()), "{e}");
}
