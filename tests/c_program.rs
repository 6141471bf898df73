//! Compiles tests/c/hip_springs.c with the system C compiler against
//! include/secmo.h (C99, -Wall -Wextra -Werror -pedantic), links it to the
//! static library cargo just built, runs it, and checks its output bit for bit
//! against the same sequence through the Rust API.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use glam::Vec3;
use secmo::{BoneDesc, Character, FrameInput, Rig, RigDesc, SpringParams, Transform};

const BONES: usize = 4;
const FRAMES: i32 = 300;

/// `libsecmo.a` of the profile this test was built with. `cargo test` builds
/// all crate types of the library into the same `deps` folder as this test.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps.to_path_buf(), deps.parent().unwrap().to_path_buf()] {
        let lib = dir.join("libsecmo.a");
        if lib.exists() {
            return lib;
        }
    }
    panic!("libsecmo.a not found next to {}", exe.display());
}

pub fn compile_c(source: &Path, out: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
        ])
        .arg("-I")
        .arg(root.join("include"))
        .arg(source)
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        status.success(),
        "C compilation of {} failed",
        source.display()
    );
}

fn rust_pose(reference: &[Transform], frame: i32) -> Vec<Transform> {
    let phase = frame % 20;
    let tri = if phase < 10 { phase } else { 20 - phase };
    let mut pose = reference.to_vec();
    pose[1].translation[0] = 0.25f32 * (frame % 7) as f32;
    pose[1].translation[1] = 100.0f32 + 0.8f32 * tri as f32;
    pose[1].translation[2] = 1.5f32 * frame as f32;
    pose[1].rotation[1] = 0.02f32 * tri as f32;
    pose[1].rotation[3] = 1.0f32 - 0.0002f32 * tri as f32;
    pose
}

fn frame_dt(frame: i32) -> f32 {
    if frame < 100 {
        1.0f32 / 30.0f32
    } else if frame < 200 {
        1.0f32 / 60.0f32
    } else if frame % 2 != 0 {
        1.0f32 / 45.0f32
    } else {
        1.0f32 / 90.0f32
    }
}

fn rust_transcript() -> String {
    let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
    let rig = Rig::new(RigDesc {
        bones: vec![
            BoneDesc::new("root", -1, Transform::IDENTITY),
            BoneDesc::new("pelvis", 0, t(0.0, 100.0)),
            BoneDesc::new("hip_helper_l", 1, t(10.0, -5.0)),
            BoneDesc::new("hip_helper_r", 1, t(-10.0, -5.0)),
        ],
        units_per_meter: 100.0,
        springs: vec![SpringParams::hip(2, 100.0), SpringParams::hip(3, 100.0)],
        ..Default::default()
    })
    .unwrap();
    let reference = rig.reference_pose().to_vec();
    let mut c = Character::new(Arc::new(rig), Default::default());
    let mut out = vec![Transform::IDENTITY; BONES];
    let mut text = String::new();
    for f in 0..FRAMES {
        let pose = rust_pose(&reference, f);
        let info = c
            .update(
                &FrameInput {
                    dt: frame_dt(f),
                    pose: &pose,
                    teleport: false,
                },
                &mut out,
            )
            .unwrap();
        text += &format!("{f} {}", info.max_substeps);
        for b in &out[2..] {
            for v in b.translation {
                text += &format!(" {:08x}", v.to_bits());
            }
        }
        text += "\n";
    }
    let r = c.spring_records()[0];
    text += &format!(
        "records 2 {} {:08x} {:08x}\nok\n",
        r.substeps,
        r.remaining_before.to_bits(),
        r.remaining_after.to_bits()
    );
    text
}

#[test]
fn c_program_matches_the_rust_api_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = dir.join("hip_springs_c");
    compile_c(&root.join("tests/c/hip_springs.c"), &exe);
    let output = Command::new(&exe).output().expect("run the C program");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "C program failed with {:?}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = rust_transcript();
    assert_eq!(stdout.lines().count(), FRAMES as usize + 2);
    for (i, (c_line, rust_line)) in stdout.lines().zip(expected.lines()).enumerate() {
        assert_eq!(c_line, rust_line, "line {i} differs between C and Rust");
    }
    // The springs actually moved: outputs are not all the reference offsets.
    assert!(expected
        .lines()
        .any(|l| !l.contains(&format!("{:08x}", 10.0f32.to_bits()))));
}
