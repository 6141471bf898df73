//! The `secmo` binary end to end: help for every command, exit codes (2 for
//! usage errors, 1 for run-time errors), one-line messages that name the
//! file and the part, unit inference, and bake/rig never surprising.

mod common;
use common::{asset, secmo};

use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("secmo-commands-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A failing run: its exit code, and its message is one line on stderr
/// containing every one of `parts`.
fn fails(args: &[&str], code: i32, parts: &[&str]) {
    let (got, out, err) = secmo(args);
    assert_eq!(got, code, "{args:?}: exit {got}, stderr {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(err.starts_with("secmo: "), "{args:?}: {err}");
    for p in parts {
        assert!(err.contains(p), "{args:?}: {err:?} lacks {p:?}");
    }
    assert!(out.is_empty(), "{args:?}: nothing on stdout, got {out}");
}

#[test]
fn every_command_has_help_listing_its_options_with_units_and_defaults() {
    let (code, out, _) = secmo(&["help"]);
    assert_eq!(code, 0);
    for command in ["demo", "import", "bake", "report", "vrm-settings", "rig"] {
        assert!(out.contains(command), "`secmo help` lists {command}");
    }
    let expect: [(&str, &[&str]); 6] = [
        (
            "demo",
            &[
                "--out <DIR>",
                "[default: secmo-demo]",
                "--seconds-per-phase <S>",
                "seconds",
                "--input-hz <HZ>",
                "[default: 60]",
            ],
        ),
        (
            "import",
            &["<FILE>", ".gltf, .glb or .vrm", "--tail <BONE>"],
        ),
        (
            "bake",
            &[
                "--tail <BONE>",
                "--clip <NAME>",
                "--units-per-meter <U>",
                "inferred",
                "--rate <HZ>",
                "Hz",
                "--out <PATH>",
                "--blend <W>",
                "[default: 1]",
                "--cold",
                "--force",
            ],
        ),
        (
            "report",
            &[
                "--clip <NAME>",
                "--units-per-meter <U>",
                "--rate <HZ>",
                "--out <DIR>",
                "--tail <BONE>",
                "[default: secmo-report]",
                "tips_<clip>.svg",
                "rates_<clip>.svg",
            ],
        ),
        ("vrm-settings", &["<FILE>", "--out <PATH>"]),
        (
            "rig",
            &["--out <OUT.glb>", "--rigid", "--force", "--write-unchanged"],
        ),
    ];
    for (command, options) in expect {
        let (code, out, err) = secmo(&[command, "--help"]);
        assert_eq!(code, 0, "{command} --help: {err}");
        for o in options {
            assert!(
                out.contains(o),
                "`secmo {command} --help` lacks {o:?}:\n{out}"
            );
        }
        // `secmo help <command>` says the same.
        assert_eq!(secmo(&["help", command]).1, out);
    }
    let (code, out, _) = secmo(&["--version"]);
    assert_eq!(
        (code, out.trim()),
        (0, format!("secmo {}", secmo::VERSION).as_str())
    );
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let fox = asset("Fox.glb");
    fails(
        &["frobnicate"],
        2,
        &["unrecognized subcommand 'frobnicate'"],
    );
    fails(&["demo", "--help-me"], 2, &["'--help-me'"]);
    fails(
        &["demo", "--input-hz", "abc"],
        2,
        &["--input-hz", "`abc` is not a number in [1, 1000]"],
    );
    fails(&["import"], 2, &["<FILE>"]);
    fails(&["import", "a.glb", "b.glb"], 2, &["'b.glb'"]);
    fails(
        &["bake", &fox, "--rate", "0"],
        2,
        &["--rate", "`0` is not a number in [1, 1000]"],
    );
    fails(&["bake", &fox, "--rate=0"], 2, &["--rate", "`0`"]);
    fails(&["bake", &fox, "--blend", "2"], 2, &["--blend", "[0, 1]"]);
    fails(
        &["bake", &fox, "--units-per-meter", "nan"],
        2,
        &["--units-per-meter"],
    );
    fails(&["bake", &fox, "--out"], 2, &["--out <PATH>"]);
    // Options belong to their own command only: report has no blend or cold
    // start, which would change its figures silently.
    fails(&["report", &fox, "--blend", "0.5"], 2, &["'--blend'"]);
    fails(&["report", &fox, "--cold"], 2, &["'--cold'"]);
    fails(&["import", &fox, "--rate", "30"], 2, &["'--rate'"]);
    fails(&["rig", &fox], 2, &["--out <OUT.glb>"]);
    fails(&["vrm-settings"], 2, &["<FILE>"]);
}

#[test]
fn runtime_errors_exit_1_naming_the_file_and_part() {
    let dir = temp_dir("errors");
    let fox = asset("Fox.glb");
    let missing = dir.join("missing.glb");
    let missing = missing.to_str().unwrap();
    fails(&["import", missing], 1, &[missing, "No such file"]);
    fails(&["bake", missing], 1, &[missing, "No such file"]);
    fails(&["report", missing], 1, &[missing]);
    fails(&["vrm-settings", missing], 1, &[missing]);

    // Foreign files: what was found instead of glTF.
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    };
    let empty = write("empty.glb", b"");
    fails(
        &["import", &empty],
        1,
        &[&empty, "not a glTF or GLB file", "empty"],
    );
    let random = write(
        "random.glb",
        &[0x92, 0xc0, 0x65, 0xaa, 0x67, 0xba, 0x67, 0x5f, 1, 2],
    );
    fails(
        &["import", &random],
        1,
        &[&random, "not a glTF or GLB file", "92 c0 65 aa"],
    );
    let fbx = write("char.fbx", b"Kaydara FBX Binary  \x00\x1a\x00");
    fails(&["import", &fbx], 1, &[&fbx, "found an FBX file"]);
    fails(&["vrm-settings", &fbx], 1, &[&fbx, "found an FBX file"]);
    let obj = write("char.obj", b"# exported\nv 0 1 0\n");
    fails(&["bake", &obj], 1, &[&obj, "OBJ"]);
    let png = write("char.glb", b"\x89PNG\r\n\x1a\n....");
    fails(&["rig", &png, "-o", "x.glb"], 1, &[&png, "PNG image"]);
    // A glTF whose JSON is broken names the place.
    let broken = write(
        "broken.gltf",
        b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [",
    );
    fails(&["import", &broken], 1, &[&broken, "json"]);

    fails(
        &["bake", &fox, "--clip", "Nope"],
        1,
        &[&fox, "no clip named \"Nope\""],
    );
    fails(
        &["report", &fox, "--clip", "Nope"],
        1,
        &[&fox, "no clip named \"Nope\""],
    );
    // --tail names a bone the file lacks (the error lists its bones), or
    // the tail's last bone (a chain needs two).
    for command in ["import", "bake", "report"] {
        fails(
            &[command, &fox, "--tail", "Nope"],
            1,
            &[
                &fox,
                "--tail \"Nope\": no bone has that name",
                "b_Tail01_012",
            ],
        );
        fails(
            &[command, &fox, "--tail", "b_Tail03_014"],
            1,
            &[&fox, "--tail \"b_Tail03_014\": the bone has no child"],
        );
    }
    let (code, out, err) = secmo(&["import", &fox, "--tail", "b_Tail02_013"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("tail candidate: b_Tail02_013 → b_Tail03_014\n"),
        "{out}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn import_summary_has_no_empty_fields() {
    let (code, out, err) = secmo(&[
        "import",
        &asset("three-vrm-springbone/sphere-collider.gltf"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("6 bones (nodes), no skin, no animation clips"),
        "{out}"
    );
    assert!(!out.contains("  "), "no empty field: {out}");
    assert!(
        out.contains("VRM 1.0 spring bones: 1 chains, 4 joints, 1 colliders"),
        "{out}"
    );
    let (_, out, _) = secmo(&["import", &asset("RobotExpressive.glb")]);
    assert!(out.contains("2 skin(s) with 43/43 joints"), "{out}");
}

#[test]
fn bake_never_overwrites_its_input_or_writes_empty_clips() {
    let dir = temp_dir("bake");
    // A copy of the Fox, baked onto itself.
    let fox = dir.join("fox.glb");
    std::fs::copy(asset("Fox.glb"), &fox).unwrap();
    let before = std::fs::read(&fox).unwrap();
    let f = fox.to_str().unwrap();
    fails(
        &["bake", f, "--out", f],
        1,
        &[f, "--out names the input file", "--force"],
    );
    // The same file by another spelling.
    let other = dir.join(".").join("fox.glb");
    fails(
        &["bake", f, "--out", other.to_str().unwrap()],
        1,
        &["--force"],
    );
    assert_eq!(
        std::fs::read(&fox).unwrap(),
        before,
        "the input is untouched"
    );
    // --force does overwrite it.
    let (code, _, err) = secmo(&["bake", f, "--out", f, "--clip", "Walk", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read(&fox).unwrap(), before);

    // Nothing to bake: a character without clips is an error, nothing written.
    let godette = asset("Godette_vrm_v4.vrm");
    let out = dir.join("godette.baked.glb");
    fails(
        &["bake", &godette, "--out", out.to_str().unwrap()],
        1,
        &[&godette, "nothing to bake", "no animation clips"],
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rig_writes_nothing_when_it_grows_nothing() {
    let dir = temp_dir("rig");
    let out = dir.join("figure.glb");
    let o = out.to_str().unwrap();
    let figure = asset("RiggedFigure.glb");
    let (code, stdout, err) = secmo(&["rig", &figure, "-o", o]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("nothing grown and nothing made rigid"),
        "{stdout}"
    );
    assert!(stdout.contains("not written"), "{stdout}");
    assert!(!out.exists());
    let (code, stdout, _) = secmo(&["rig", &figure, "-o", o, "--write-unchanged"]);
    assert_eq!(code, 0);
    assert!(stdout.contains(&format!("wrote {o}")), "{stdout}");
    assert!(out.exists());
    // -o naming the input is refused without --force.
    fails(&["rig", o, "-o", o], 1, &[o, "-o names the input file"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn units_are_inferred_and_said_when_not_given() {
    // The 155-unit Fox is in centimetres; Godette, a VRM, in metres by
    // VRM's specification. No unit puts
    // RobotExpressive (its ×100 armature counted: 4.6 units) between 0.5 and
    // 3 m, so it is scaled to the assumed 1.7 m.
    let assumed = " (a character is assumed about 1.7 m); pass --units-per-meter to override";
    for (file, expect, size) in [
        (
            "Fox.glb",
            format!("units: 100 per metre (cm), inferred from the character's size, 154.720 units = 1.55 m{assumed}"),
            "154.720 units = 1.55 m",
        ),
        (
            "RobotExpressive.glb",
            "units: 2.705 per metre (scaled), 4.599 units = 1.70 m: no unit (m, cm, mm) puts the \
             character's size between 0.5 and 3 m, so it is taken to be about 1.7 m; pass \
             --units-per-meter to override"
                .to_string(),
            "4.599 units = 1.70 m",
        ),
        (
            "Godette_vrm_v4.vrm",
            "units: 1 per metre (VRM, in metres by its specification), 1.495 units = 1.50 m"
                .to_string(),
            "1.495 units = 1.50 m",
        ),
        (
            "RiggedFigure.glb",
            format!("units: 1 per metre (m), inferred from the character's size, 1.450 units = 1.45 m{assumed}"),
            "1.450 units = 1.45 m",
        ),
    ] {
        let dir = temp_dir("units");
        let out = dir.join("x.glb");
        let (code, stdout, err) = secmo(&["rig", &asset(file), "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(stdout.lines().next(), Some(expect.as_str()), "{file}");
        // rig's model size H is the same size in the same scene (it read
        // RobotExpressive's skin alone in its bind space: "H 0.019").
        let appendages = stdout.lines().nth(1).unwrap();
        assert!(
            appendages.starts_with(&format!("appendages (model size H {size} in the scene;")),
            "{file}: {appendages}"
        );
        // `import` says the same.
        let (code, stdout, err) = secmo(&["import", &asset(file)]);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(stdout.lines().nth(1), Some(expect.as_str()), "{file}");
        std::fs::remove_dir_all(dir).unwrap();
    }
    // report without --units-per-meter gives the same figures as with 100.
    let dir = temp_dir("report-units");
    let fox = asset("Fox.glb");
    let run = |extra: &[&str], sub: &str| {
        let out = dir.join(sub);
        let mut args = vec![
            "report",
            fox.as_str(),
            "--clip",
            "Walk",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, stdout, err) = secmo(&args);
        assert_eq!(code, 0, "{err}");
        stdout
    };
    let inferred = run(&[], "a");
    let given = run(&["--units-per-meter=100"], "b");
    assert!(
        inferred.starts_with("units: 100 per metre (cm), inferred"),
        "{inferred}"
    );
    assert!(given.starts_with("units: 100 per metre (given)"), "{given}");
    let figures = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("\"Walk\""))
            .map(|l| l.split("; update").next().unwrap().to_string())
    };
    assert!(figures(&inferred).is_some(), "{inferred}");
    assert_eq!(figures(&inferred), figures(&given));
    // Units reach the lengths the report draws: the tail tip's path is in
    // metres, so a rig read as metres draws it 100 times longer. (The
    // stretch figures are ratios, and with the bake's gravity off the Fox's
    // Walk has no length that changes them.)
    let metres = run(&["--units-per-meter", "1"], "c");
    assert!(metres.starts_with("units: 1 per metre (given)"), "{metres}");
    let tips = |sub: &str| std::fs::read_to_string(dir.join(sub).join("tips_Walk.svg")).unwrap();
    assert_eq!(tips("a"), tips("b"));
    assert_ne!(tips("a"), tips("c"), "units matter to the drawn lengths");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bake_report_and_import_run_end_to_end() {
    let dir = temp_dir("e2e");
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
    assert!(
        out.contains(
            "\"Walk\": loop (guessed: its ends are 0.0 key steps apart), 44 keys, 3 warm-up passes"
        ),
        "{out}"
    );
    let (code, out, _) = secmo(&["import", baked.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("clip \"Walk\""), "{out}");

    let report = dir.join("report");
    let (code, out, err) = secmo(&[
        "report",
        &fox,
        "--clip=Run",
        &format!("--out={}", report.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"Run\": chain p99"), "{out}");
    assert!(report.join("report.md").exists() && report.join("stretch_Run.svg").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// A rig warning reaches the user: two VRM springs that collide with
/// spheres on each other's joints (a circle), so one of them reads the other
/// before it runs; `report` names the file, both chains and the bone.
#[test]
fn report_prints_the_rigs_warnings_with_bone_names() {
    let dir = temp_dir("warnings");
    let file = asset("springs_in_a_circle.gltf");
    let out_dir = dir.join("report");
    let (code, out, err) = secmo(&["report", &file, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "warning: {file}: the chain at bun_0 reads hair_1, which the chain at hair_0 moves"
        )),
        "{out}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `secmo` in `dir`: exit code, stdout, stderr.
fn secmo_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_secmo"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run secmo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every command that writes a file goes through one guard: the input
/// under any spelling, an existing directory and a missing folder are
/// refused with exit 1, one line naming the output, and nothing written.
#[test]
fn no_command_overwrites_its_input_under_any_spelling() {
    let dir = temp_dir("guard");
    let dir = dir.canonicalize().unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(asset("Fox.glb"), dir.join("fox.glb")).unwrap();
    std::fs::copy(asset("Godette_vrm_v4.vrm"), dir.join("godette.vrm")).unwrap();
    let fox_bytes = std::fs::read(dir.join("fox.glb")).unwrap();
    let vrm_bytes = std::fs::read(dir.join("godette.vrm")).unwrap();
    // Other names for each input: a symlinked folder, a symlink to the
    // file, a hard link.
    let mut links: Vec<(String, String)> = Vec::new();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&dir, dir.join("folder-link")).unwrap();
        for name in ["fox.glb", "godette.vrm"] {
            let stem = name.split('.').next().unwrap();
            let ext = name.split('.').nth(1).unwrap();
            std::os::unix::fs::symlink(dir.join(name), dir.join(format!("{stem}-sym.{ext}")))
                .unwrap();
            std::fs::hard_link(dir.join(name), dir.join(format!("{stem}-hard.{ext}"))).unwrap();
            links.push((name.into(), format!("folder-link/{name}")));
            links.push((name.into(), format!("{stem}-sym.{ext}")));
            links.push((name.into(), format!("{stem}-hard.{ext}")));
        }
    }
    let spellings = |name: &str| -> Vec<String> {
        let mut s = vec![
            name.to_string(),
            format!("./{name}"),
            dir.join(name).to_string_lossy().into_owned(),
            format!("sub/../{name}"),
        ];
        s.extend(links.iter().filter(|l| l.0 == name).map(|l| l.1.clone()));
        s
    };
    let refused = |args: &[&str], parts: &[&str]| {
        let (code, out, err) = secmo_in(&dir, args);
        assert_eq!(code, 1, "{args:?}: exit {code}, stderr {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        for p in parts {
            assert!(err.contains(p), "{args:?}: {err:?} lacks {p:?}");
        }
        assert!(out.is_empty(), "{args:?}: {out}");
    };
    for out in spellings("fox.glb") {
        let o = out.as_str();
        refused(
            &["bake", "fox.glb", "--out", o],
            &[o, "--out names the input file", "--force"],
        );
        refused(
            &["rig", "fox.glb", "-o", o],
            &[o, "-o names the input file", "--force"],
        );
    }
    for out in spellings("godette.vrm") {
        let o = out.as_str();
        refused(
            &["vrm-settings", "godette.vrm", "--out", o],
            &[o, "--out names the input file", "never overwrites"],
        );
    }
    // The input under one of the files a report writes into its folder.
    std::fs::copy(asset("Fox.glb"), dir.join("report.md")).unwrap();
    refused(
        &["report", "report.md", "--out", "."],
        &["report.md", "--out names the input file"],
    );
    assert_eq!(std::fs::read(dir.join("report.md")).unwrap(), fox_bytes);
    // A folder's name where a file is written, and a file's where a folder is.
    refused(
        &["bake", "fox.glb", "--out", "sub"],
        &["sub", "--out is a directory"],
    );
    refused(
        &["rig", "fox.glb", "-o", "sub"],
        &["sub", "-o is a directory"],
    );
    refused(
        &["vrm-settings", "godette.vrm", "--out", "sub"],
        &["sub", "--out is a directory"],
    );
    refused(
        &["report", "fox.glb", "--out", "fox.glb"],
        &["fox.glb", "names a file, not a directory"],
    );
    refused(
        &["demo", "--out", "fox.glb"],
        &["fox.glb", "names a file, not a directory"],
    );
    // A folder that does not exist.
    for (args, flag) in [
        (
            ["bake", "fox.glb", "--out", "missing/x.glb"].as_slice(),
            "--out",
        ),
        (["rig", "fox.glb", "-o", "missing/x.glb"].as_slice(), "-o"),
        (
            ["vrm-settings", "godette.vrm", "--out", "missing/x.json"].as_slice(),
            "--out",
        ),
    ] {
        refused(
            args,
            &[
                "missing/x.",
                &format!("{flag}'s folder missing does not exist"),
            ],
        );
    }
    assert!(!dir.join("missing").exists());
    assert_eq!(std::fs::read(dir.join("fox.glb")).unwrap(), fox_bytes);
    assert_eq!(std::fs::read(dir.join("godette.vrm")).unwrap(), vrm_bytes);
    // --force lets bake overwrite its input through a hard link, as asked.
    #[cfg(unix)]
    {
        let (code, _, err) = secmo_in(
            &dir,
            &[
                "bake",
                "fox.glb",
                "--out",
                "fox-hard.glb",
                "--clip",
                "Walk",
                "--force",
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert_ne!(std::fs::read(dir.join("fox.glb")).unwrap(), fox_bytes);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Progress counts frames: every frame a bake simulates, planned before it
/// runs (the warm-up's passes corrected once known), so the bar ends full.
#[test]
fn progress_counts_every_frame_and_ends_full() {
    use secmo_cli::bake::{BakeOptions, Baker};
    let fox = secmo_cli::import::import(std::path::Path::new(&asset("Fox.glb"))).unwrap();
    let clips = fox.clips.clone();
    let mut baker = Baker::new(fox, 100.0).unwrap();
    let options = BakeOptions::default();
    for clip in &clips {
        baker.progress = secmo_cli::progress::Progress::hidden();
        baker.progress.plan(baker.work(clip, &options, true));
        let b = baker.bake(clip, &options, true).unwrap();
        let frames = (b.times.len() - 1) as u64;
        // One pass to record, one per warm-up pass, one update per frame.
        assert_eq!(
            baker.progress.position(),
            frames * (b.passes as u64 + 1),
            "{}",
            clip.name
        );
        assert_eq!(baker.progress.length(), baker.progress.position());
    }
    // The report's work: its seven bakes and the skinning, frame by frame.
    let walk = clips.iter().find(|c| c.name == "Walk").unwrap();
    baker.progress = secmo_cli::progress::Progress::hidden();
    let planned = secmo_cli::report::work(&baker, walk, &options);
    baker.progress.plan(planned);
    secmo_cli::report::measure(&baker, walk, &options).unwrap();
    assert_eq!(baker.progress.length(), baker.progress.position());
    // The Walk's report: 1477 frames (its bakes warm up in 3 passes).
    assert!(
        baker.progress.position() > 1450,
        "{}",
        baker.progress.position()
    );
}

/// On a terminal, work that takes more than a second shows frames done of
/// frames planned and an ETA; a command that ends sooner shows nothing.
#[test]
fn long_work_shows_frames_and_an_eta_on_a_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("ignored: `script` (util-linux) runs the command on a terminal");
        return;
    }
    let dir = temp_dir("progress");
    let run = |args: &str| {
        let start = std::time::Instant::now();
        let out = std::process::Command::new("script")
            .args([
                "-qec",
                &format!("{} {args}", env!("CARGO_BIN_EXE_secmo")),
                "/dev/null",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{args}");
        (
            start.elapsed().as_secs_f32(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (seconds, text) = run(&format!(
        "report {} --out {}",
        asset("Fox.glb"),
        dir.join("report").display()
    ));
    let bar = bar_frames(&text);
    if seconds > 1.5 {
        let (done, planned) = bar.expect("a bar after a second of work");
        assert!(done <= planned && planned > 10_000, "{done}/{planned}");
        assert!(text.contains("ETA "), "{text}");
        assert!(text.contains("measuring Survey"), "{text}");
    } else if seconds < 1.0 {
        assert!(bar.is_none(), "no bar for {seconds} s of work");
    }
    let (seconds, text) = run(&format!("import {}", asset("Fox.glb")));
    assert!(seconds < 1.0 && bar_frames(&text).is_none(), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The last "N/M frames" a bar drew, if any.
fn bar_frames(text: &str) -> Option<(u64, u64)> {
    text.split(['\r', '\n']).rev().find_map(|line| {
        let end = line.find(" frames, ")?;
        let count = line[..end].rsplit(' ').next()?;
        let (done, planned) = count.split_once('/')?;
        Some((done.parse().ok()?, planned.parse().ok()?))
    })
}
