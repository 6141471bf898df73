//! The Unity package's P/Invoke layer (plain C#, no UnityEngine), tested
//! under Mono against the freshly built native library: struct layout against
//! the C compiler's, bit-identity with the Rust API, documented errors, zero
//! managed allocation per update, SafeHandle release; and a compile check of
//! the Unity-facing scripts against minimal UnityEngine stubs (a compile
//! check, not a Unity run). Without Mono these tests are reported as ignored
//! (tests/support/tools.rs probes for it when the test runs); `.ci/run` installs it, so CI runs them.

#[path = "support/tools.rs"]
#[macro_use]
mod tools;

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use secmo::{BoneDesc, Character, FrameInput, Rig, RigSettings, Transform, UpAxis};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn native_sources() -> Vec<PathBuf> {
    let dir = root().join("unity_package/com.secmo.runtime/Runtime/Native");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    files.sort();
    files
}

fn mcs(out: &Path, target: &str, sources: &[PathBuf]) {
    let status = Command::new("mcs")
        .args([
            "-unsafe",
            "-langversion:latest",
            "-warnaserror+",
            "-nowarn:1635",
        ])
        .arg(format!("-target:{target}"))
        .arg(format!("-out:{}", out.display()))
        .args(sources)
        .status()
        .expect("run mcs");
    assert!(status.success(), "C# compilation of {sources:?} failed");
}

/// Builds tests/csharp/SecmoTests.exe once per test process.
fn tests_exe() -> PathBuf {
    static ONCE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("SecmoTests.exe");
        let mut sources = vec![root().join("tests/csharp/SecmoTests.cs")];
        sources.extend(native_sources());
        mcs(&exe, "exe", &sources);
        exe
    })
    .clone()
}

fn run_mode(mode: &str) -> String {
    run_mode_with(mode, &[])
}

fn run_mode_with(mode: &str, args: &[&str]) -> String {
    let mut all = vec![mode];
    all.extend_from_slice(args);
    run_mono(&tests_exe(), &all)
}

/// Runs a C# program under Mono with the freshly built native library on the
/// library path; its standard output, or a panic with both streams.
fn run_mono(exe: &Path, args: &[&str]) -> String {
    run_mono_with_library(exe, args, true)
}

/// `run_mono`, with the native library on the library path or not.
fn run_mono_with_library(exe: &Path, args: &[&str], library: bool) -> String {
    let lib_dir = common::static_library().parent().unwrap().to_path_buf();
    assert!(
        lib_dir.join("libsecmo.so").exists(),
        "libsecmo.so is built next to libsecmo.a"
    );
    let mut cmd = Command::new("mono");
    cmd.arg(exe).args(args);
    if library {
        cmd.env("LD_LIBRARY_PATH", &lib_dir);
    } else {
        cmd.env_remove("LD_LIBRARY_PATH");
    }
    let out = cmd.output().expect("run mono");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} {args:?} failed ({:?})\nstdout: {stdout}\nstderr: {}",
        exe.display(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn struct_layout_matches_the_c_header() {
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("layout_c");
    common::compile_c(&root().join("tests/csharp/layout.c"), &exe);
    let c = String::from_utf8(Command::new(&exe).output().unwrap().stdout).unwrap();
    let cs = run_mode("layout");
    assert!(c.lines().count() > 60);
    for (i, (a, b)) in c.lines().zip(cs.lines()).enumerate() {
        assert_eq!(a, b, "line {i}: C and C# layouts differ");
    }
    assert_eq!(c.lines().count(), cs.lines().count());
}

const SETTINGS: &str = r#"{
      "format": "secmo-rig-settings", "version": 1,
      "springs": [ { "bone": "hip_helper", "preset": "hip" } ],
      "chains": [ { "preset": "tail", "anchor": "hips", "joints": ["tail_1", "tail_2", "tail_3", "tail_4"] } ]
    }"#;

fn rust_transcript() -> String {
    let names = [
        "root",
        "hips",
        "hip_helper",
        "tail_1",
        "tail_2",
        "tail_3",
        "tail_4",
    ];
    let parents = [-1, 0, 1, 1, 3, 4, 5];
    let at = |x: f32, y: f32, z: f32| Transform::from_translation(glam::Vec3::new(x, y, z));
    let reference = [
        Transform::IDENTITY,
        at(0.0, 1.0, 0.0),
        at(0.1, -0.05, 0.05),
        at(0.0, -0.05, -0.1),
        at(0.0, -0.05, -0.15),
        at(0.0, -0.05, -0.15),
        at(0.0, -0.05, -0.15),
    ];
    let bones = (0..7)
        .map(|i| BoneDesc::new(names[i], parents[i], reference[i]))
        .collect();
    let desc = RigSettings::from_json(SETTINGS)
        .unwrap()
        .to_rig_desc(bones, 1.0, UpAxis::Y)
        .unwrap();
    let mut c = Character::new(Arc::new(Rig::new(desc).unwrap()), Default::default());
    let mut out = [Transform::IDENTITY; 7];
    let mut text = String::new();
    for f in 0..300i32 {
        let phase = f % 30;
        let tri = if phase < 15 { phase } else { 30 - phase };
        let mut pose = reference;
        pose[1].rotation[1] = 0.03f32 * (tri - 7) as f32;
        pose[1].translation[1] = 1.0f32 + 0.004f32 * tri as f32;
        pose[1].translation[0] = 0.01f32 * (f % 11) as f32;
        let dt = if f == 0 { 0.0 } else { 1.0f32 / 60.0f32 };
        c.update(
            &FrameInput {
                dt,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
        text += &format!("{f}");
        for b in &out[2..] {
            for v in [
                b.translation[0],
                b.translation[1],
                b.translation[2],
                b.rotation[0],
                b.rotation[1],
            ] {
                text += &format!(" {:08x}", v.to_bits());
            }
        }
        text += "\n";
    }
    text + "ok\n"
}

fn csharp_matches_the_rust_api_bit_for_bit() {
    let cs = run_mode("bits");
    let rust = rust_transcript();
    for (i, (a, b)) in cs.lines().zip(rust.lines()).enumerate() {
        assert_eq!(a, b, "line {i} differs between C# and Rust");
    }
    assert_eq!(cs.lines().count(), 301);
}

fn bad_input_gives_the_documented_errors() {
    assert!(run_mode("errors").ends_with("ok\n"));
}

fn a_thousand_updates_allocate_no_managed_memory() {
    let out = run_mode("alloc");
    assert!(
        out.contains("managed bytes allocated in 1000 updates: 0"),
        "{out}"
    );
}

fn safehandles_free_the_native_objects() {
    assert!(run_mode("handles").ends_with("ok\n"));
}

/// `Rig.WarningCount` / `TryGetWarning` read `secmo_rig_warning`: a chain
/// listed before the chain it hangs from is reported with the bone it
/// reads, which SecmoCharacter logs by name.
fn rig_warnings_reach_csharp() {
    let out = run_mode("warnings");
    assert!(out.ends_with("ok\n"), "{out}");
    assert!(
        out.contains("a chain reads upper, which a chain listed after it moves"),
        "{out}"
    );
}

fn unity_scripts_compile_against_unityengine_stubs() {
    let package = root().join("unity_package/com.secmo.runtime");
    let scripts = |dir: &str| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(package.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cs"))
            .collect();
        found.sort();
        found
    };
    let mut sources = scripts("Runtime");
    assert!(sources.iter().any(|p| p.ends_with("SecmoCharacter.cs")));
    sources.extend(native_sources());
    sources.push(root().join("tests/csharp/UnityEngineStubs.cs"));
    sources.push(root().join("tests/csharp/UnityJobsSim.cs"));
    mcs(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("SecmoRuntime.dll"),
        "library",
        &sources,
    );
    // The Editor scripts on top, against UnityEditor stand-ins.
    let editor = scripts("Editor");
    assert!(editor.iter().any(|p| p.ends_with("SecmoMenus.cs")));
    sources.extend(editor);
    sources.push(root().join("tests/csharp/UnityEditorStubs.cs"));
    mcs(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("SecmoEditor.dll"),
        "library",
        &sources,
    );
}

fn package_version_follows_cargo_toml() {
    let json = std::fs::read_to_string(root().join("unity_package/com.secmo.runtime/package.json"))
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(value["name"], "com.secmo.runtime");
    assert_eq!(value["unity"], "2021.3");
    // The package carries the repository's licence (issue #51 item 5: it
    // said MIT alone).
    assert_eq!(value["license"], env!("CARGO_PKG_LICENSE"));
    let licence =
        std::fs::read_to_string(root().join("unity_package/com.secmo.runtime/LICENSE")).unwrap();
    for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(licence.contains(&text), "the package LICENSE lacks {file}");
    }
}

fn settings_from_a_vrm_match_the_rust_importer() {
    let path = root().join("tests/assets/Godette_vrm_v4.vrm");
    let cs = run_mode_with("vrm", &[path.to_str().unwrap()]);
    let rust = secmo::vrm::import(&std::fs::read(&path).unwrap())
        .unwrap()
        .settings
        .to_json();
    assert!(cs.contains("\"FrontHair_Center_L\""));
    assert_eq!(cs, rust);
}

fn notes_from_a_vrm_match_the_rust_importer() {
    // A spring with a drag force outside [0, 1] and an unknown field, and
    // Godette (one note: VRM 0.x has no node constraints).
    let dir = std::env::temp_dir().join(format!("secmo-cs-notes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let damaged = dir.join("damaged.gltf");
    std::fs::write(
        &damaged,
        r#"{"asset": {"version": "2.0"},
          "nodes": [{"name": "Head", "children": [1]},
                    {"name": "H1", "translation": [0, -0.1, 0], "children": [2]},
                    {"name": "H2", "translation": [0, -0.1, 0]}],
          "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
            "joints": [{"node": 1, "dragForce": 2, "wobble": 1}, {"node": 2}]}]}}}"#,
    )
    .unwrap();
    for path in [damaged, root().join("tests/assets/Godette_vrm_v4.vrm")] {
        let cs = run_mode_with("vrm-notes", &[path.to_str().unwrap()]);
        let rust = secmo::vrm::import(&std::fs::read(&path).unwrap())
            .unwrap()
            .notes;
        assert!(!rust.is_empty());
        assert_eq!(cs, rust.join("\n"), "{}", path.display());
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Unity ignores package assets without a .meta in a package installed
/// from git (`cargo xtask unity-metas` writes them).
fn every_unity_package_asset_has_a_meta_with_a_unique_guid() {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            // Hidden files, and `Samples~`: Unity imports no folder ending
            // in `~` (a sample is copied into the project, which writes its
            // .meta files then).
            if file.starts_with('.') || file.ends_with('~') {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            }
            out.push(path);
        }
    }
    let mut paths = Vec::new();
    walk(&root().join("unity_package/com.secmo.runtime"), &mut paths);
    let mut guids = std::collections::HashMap::new();
    let mut assets = 0;
    for path in &paths {
        let name = path.to_string_lossy().into_owned();
        if let Some(asset) = name.strip_suffix(".meta") {
            // A native library's import settings are committed for every
            // platform; the library appears when `cargo xtask unity-plugins`
            // builds it (docs/unity.md).
            let native = asset.contains("/Plugins/")
                && [".so", ".dll", ".dylib", ".a"]
                    .iter()
                    .any(|e| asset.ends_with(e));
            assert!(
                native || std::path::Path::new(asset).exists(),
                "{name}: no asset for this .meta"
            );
            if native {
                let meta = std::fs::read_to_string(path).unwrap();
                assert!(
                    meta.contains("PluginImporter") && meta.contains("enabled: 1"),
                    "{name}"
                );
                let guid = meta
                    .lines()
                    .find_map(|l| l.strip_prefix("guid: "))
                    .unwrap()
                    .to_string();
                assert!(
                    guids.insert(guid, name.clone()).is_none(),
                    "{name}: GUID used twice"
                );
            }
            continue;
        }
        assets += 1;
        let meta = std::fs::read_to_string(format!("{name}.meta"))
            .unwrap_or_else(|_| panic!("{name} has no .meta: run `cargo xtask unity-metas`"));
        let guid = meta
            .lines()
            .find_map(|l| l.strip_prefix("guid: "))
            .unwrap_or_else(|| panic!("{name}.meta has no guid"));
        assert!(
            guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}.meta: guid `{guid}`"
        );
        assert_eq!(path.is_dir(), meta.contains("folderAsset: yes"), "{name}");
        if let Some(other) = guids.insert(guid.to_string(), name.clone()) {
            panic!("{name} and {other} share guid {guid}");
        }
    }
    assert!(assets >= 20, "{assets} assets");
}

/// Builds tests/csharp/ComponentTests.exe: SecmoCharacter and its settings
/// asset with the P/Invoke layer, against UnitySim.cs (behavioural
/// UnityEngine stand-ins).
fn component_exe() -> PathBuf {
    static ONCE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ComponentTests.exe");
        let runtime = root().join("unity_package/com.secmo.runtime/Runtime");
        let mut sources = vec![
            root().join("tests/csharp/ComponentTests.cs"),
            root().join("tests/csharp/SettingsTests.cs"),
            root().join("tests/csharp/UnitySim.cs"),
            root().join("tests/csharp/UnityJobsSim.cs"),
            runtime.join("SecmoCharacter.cs"),
            runtime.join("SecmoManager.cs"),
            runtime.join("SecmoRigSettings.cs"),
            runtime.join("SecmoJson.cs"),
        ];
        sources.extend(native_sources());
        mcs(&exe, "exe", &sources);
        exe
    })
    .clone()
}

fn the_typed_settings_asset_round_trips_and_validates() {
    // Issue #15 item 5: typed fields with ranges and tooltips, JSON kept as
    // the exchange format (tests/csharp/SettingsTests.cs lists the checks).
    let out = run_component("settings");
    print!("{out}");
    assert!(out.contains("settings: all passed"), "{out}");
}

fn run_component(mode: &str) -> String {
    run_mono(&component_exe(), &[mode])
}

fn the_component_feeds_unanimated_helpers_from_their_rest() {
    // Issue #15 item 1: a helper no clip animates used to be read back from
    // secmo's own last output (+0.416 m after 10 s).
    let out = run_component("rest");
    print!("{out}");
    assert!(out.contains("rest: "));
}

fn the_component_allocates_no_managed_memory_per_frame() {
    // The per-transform comparison used to box: 112 B per transform per frame.
    let out = run_component("gc");
    print!("{out}");
    assert!(out.contains("allocate 0 managed bytes"), "{out}");
}

fn only_the_needed_transforms_go_in() {
    // Issue #15 item 2: a zero-scaled prop or a duplicate name elsewhere used
    // to fail the whole rig or update.
    let out = run_component("only");
    print!("{out}");
    assert!(out.contains("only: "));
}

fn a_destroyed_transform_disables_the_component_with_one_error() {
    let out = run_component("destroyed");
    print!("{out}");
    assert!(
        out.contains("destroyed: enabled False, 1 error(s)"),
        "{out}"
    );
}

fn the_component_controls_teleport_reset_lod_wind_and_parameters() {
    // Issue #15 item 4: each control, on a three-joint tail.
    let out = run_component("controls");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
}

fn the_packages_own_tests_run_under_mono() {
    // unity_package/com.secmo.runtime/Tests, compiled with the P/Invoke
    // layer and an NUnit stand-in that has NUnit's meaning, and run.
    let tests_dir = root().join("unity_package/com.secmo.runtime/Tests/Runtime");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&tests_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    assert!(!sources.is_empty());
    sources.extend(native_sources());
    sources.push(root().join("tests/csharp/NUnitLite.cs"));
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("PackageTests.exe");
    mcs(&exe, "exe", &sources);
    let stdout = run_mono(&exe, &[]);
    print!("{stdout}");
    assert!(stdout.contains("3 passed, 0 failed"), "{stdout}");
}

fn the_unity_settings_asset_carries_node_constraints() {
    let out = run_component("constraint");
    print!("{out}");
    assert!(out.contains("sleeve 45.000°"), "{out}");
}

fn the_manager_simulates_every_character_in_jobs() {
    // Issue #15 item 3: SecmoManager, TransformAccessArray jobs; issue #51
    // item 3: the simulation itself as an IJobParallelFor over ranges of 8
    // characters on the worker threads (it was one blocking call on the main
    // thread), completed before the write-back job.
    let out = run_component("manager");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
    assert!(out.contains("0 helper positions differ"), "{out}");
    assert!(
        out.contains(
            "900 secmo_world_update_range ranges in 300 frames, 900 run on worker threads"
        ),
        "{out}"
    );
    assert!(out.contains("allocate 0 managed bytes"), "{out}");
}

/// Issue #49 item 5: SecmoManager owns a world; its budget (importance
/// from the distance to its viewer) holds and releases.
fn the_manager_holds_a_budget_in_its_world() {
    let out = run_component("budget");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
    assert_eq!(out.matches("ok: ").count(), 3, "{out}");
}

fn disabling_and_enabling_leaves_no_bend() {
    // Issue #51 item 1: OnDisable left secmo's output on the bones and
    // OnEnable read it back as the rest pose (tail 7.8° and helper 20 mm off
    // for good).
    let out = run_component("disable");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
    assert_eq!(out.matches("ok: ").count(), 8, "{out}");
}

fn every_animator_update_and_culling_mode_feeds_the_animation() {
    // Issue #51 item 2: the restore in Update overwrote what an Animator in
    // AnimatePhysics mode had written in the fixed step before it.
    let out = run_component("order");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
    assert_eq!(out.matches("ok: ").count(), 12, "{out}");
}

fn a_teleport_streak_is_logged_once_per_streak() {
    // Issue #51 item 10: SecmoUpdateInfo.warnings' teleport-streak bit
    // reaches the Unity log, on the component and the manager path.
    let out = run_component("streak");
    print!("{out}");
    assert!(!out.contains("FAILED"), "{out}");
    assert_eq!(out.matches("ok: ").count(), 2, "{out}");
}

fn a_missing_native_library_is_one_clear_error() {
    // Issue #51 item 4: without its native library the package threw
    // DllNotFoundException from the first call in every component.
    let present = run_mono_with_library(&component_exe(), &["library"], true);
    assert!(present.contains("library: loaded\n"), "{present}");
    assert!(present.contains("library: 0 error(s) logged"), "{present}");
    let missing = run_mono_with_library(&component_exe(), &["library"], false);
    print!("{missing}");
    assert!(
        missing.contains("library: secmo: the native library for "),
        "{missing}"
    );
    assert!(missing.contains("DllNotFoundException"), "{missing}");
    assert!(missing.contains("`cargo xtask unity-package`"), "{missing}");
    assert!(
        missing.contains("library: 1 error(s) logged; LastError the same in both components: True"),
        "{missing}"
    );
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert!(
            missing.contains(
                "for linux-x86_64 is missing (DllNotFoundException; expected Packages/com.secmo.runtime/Plugins/Linux/x86_64/libsecmo.so)"
            ),
            "{missing}"
        );
        assert!(
            missing.contains("`cargo xtask unity-plugins --platform linux-x86_64`"),
            "{missing}"
        );
    }
}

/// Issue #51 item 4: `cargo xtask unity-package` writes a UPM tarball with
/// this host's native library (a package installed from the git URL has
/// none: the libraries are git-ignored).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn unity_package_writes_a_tarball_with_the_hosts_library() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let out = tmp.join("unity-package");
    let _ = std::fs::remove_dir_all(&out);
    let library = common::static_library()
        .parent()
        .unwrap()
        .join("libsecmo.so");
    // xtask builds in a target directory of its own: the test run holds
    // this one's lock.
    let status = Command::new(env!("CARGO"))
        .args(["run", "-q", "-p", "xtask", "--", "unity-package", "--out"])
        .arg(&out)
        .arg("--library")
        .arg(&library)
        .env("CARGO_TARGET_DIR", tmp.join("xtask_target"))
        .current_dir(root())
        .status()
        .expect("run cargo xtask");
    assert!(status.success());
    let tgz = out.join(format!(
        "com.secmo.runtime-{}.tgz",
        env!("CARGO_PKG_VERSION")
    ));
    let list = Command::new("tar").arg("-tzf").arg(&tgz).output().unwrap();
    assert!(list.status.success(), "tar -tzf {}", tgz.display());
    let list = String::from_utf8(list.stdout).unwrap();
    let entries: Vec<&str> = list.lines().collect();
    for needed in [
        "package/package.json",
        "package/package.json.meta",
        "package/Runtime/SecmoCharacter.cs",
        "package/Runtime/SecmoCharacter.cs.meta",
        "package/Editor/SecmoLibraryCheck.cs",
        "package/Plugins/Linux/x86_64/libsecmo.so",
        "package/Plugins/Linux/x86_64/libsecmo.so.meta",
        "package/LICENSE",
    ] {
        assert!(entries.contains(&needed), "{needed} not in\n{list}");
    }
    // No hidden files, and no .meta without its asset (a platform whose
    // library is not in the package).
    assert!(!entries.iter().any(|e| e.contains("/.")), "{list}");
    assert!(!entries.iter().any(|e| e.contains("Windows")), "{list}");
    let extract = |entry: &str| {
        let out = Command::new("tar")
            .arg("-xzOf")
            .arg(&tgz)
            .arg(entry)
            .output()
            .unwrap();
        assert!(out.status.success(), "{entry}");
        out.stdout
    };
    assert_eq!(
        extract("package/Plugins/Linux/x86_64/libsecmo.so"),
        std::fs::read(&library).unwrap()
    );
    assert_eq!(
        extract("package/package.json"),
        std::fs::read(root().join("unity_package/com.secmo.runtime/package.json")).unwrap()
    );
}

fn main() {
    tools::run(cases![
        struct_layout_matches_the_c_header[tools::mono],
        csharp_matches_the_rust_api_bit_for_bit[tools::mono],
        bad_input_gives_the_documented_errors[tools::mono],
        a_thousand_updates_allocate_no_managed_memory[tools::mono],
        safehandles_free_the_native_objects[tools::mono],
        rig_warnings_reach_csharp[tools::mono],
        unity_scripts_compile_against_unityengine_stubs[tools::mono],
        package_version_follows_cargo_toml,
        settings_from_a_vrm_match_the_rust_importer[tools::mono],
        notes_from_a_vrm_match_the_rust_importer[tools::mono],
        every_unity_package_asset_has_a_meta_with_a_unique_guid,
        the_typed_settings_asset_round_trips_and_validates[tools::mono],
        the_component_feeds_unanimated_helpers_from_their_rest[tools::mono],
        the_component_allocates_no_managed_memory_per_frame[tools::mono],
        only_the_needed_transforms_go_in[tools::mono],
        a_destroyed_transform_disables_the_component_with_one_error[tools::mono],
        the_component_controls_teleport_reset_lod_wind_and_parameters[tools::mono],
        the_packages_own_tests_run_under_mono[tools::mono],
        the_unity_settings_asset_carries_node_constraints[tools::mono],
        the_manager_simulates_every_character_in_jobs[tools::mono],
        the_manager_holds_a_budget_in_its_world[tools::mono],
        disabling_and_enabling_leaves_no_bend[tools::mono],
        every_animator_update_and_culling_mode_feeds_the_animation[tools::mono],
        a_teleport_streak_is_logged_once_per_streak[tools::mono],
        a_missing_native_library_is_one_clear_error[tools::mono],
        unity_package_writes_a_tarball_with_the_hosts_library,
    ]);
}
