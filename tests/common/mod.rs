//! A small procedural helper-bone skeleton shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    BoneDesc, ChainDesc, ChainParams, Character, CharacterOptions, FrameInput, Rig, RigDesc,
    SpringParams, Transform,
};

pub const UPM: f32 = 100.0; // centimetres, as the helper-bone article

pub const PELVIS: usize = 1;
pub const HIP_L: usize = 4;
pub const HIP_R: usize = 5;

/// root, pelvis, spine, chest, hip helpers L/R (pelvis), chest helpers L/R (chest).
pub fn helper_rig_desc() -> RigDesc {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("pelvis", 0, t(0.0, 100.0, 0.0)),
        BoneDesc::new("spine", 1, t(0.0, 15.0, 0.0)),
        BoneDesc::new("chest", 2, t(0.0, 25.0, 0.0)),
        BoneDesc::new("hip_helper_l", 1, t(10.0, -5.0, 5.0)),
        BoneDesc::new("hip_helper_r", 1, t(-10.0, -5.0, 5.0)),
        BoneDesc::new("chest_helper_l", 3, t(8.0, 5.0, 10.0)),
        BoneDesc::new("chest_helper_r", 3, t(-8.0, 5.0, 10.0)),
    ];
    RigDesc {
        bones,
        units_per_meter: UPM,
        springs: vec![
            SpringParams::hip(4, UPM),
            SpringParams::hip(5, UPM),
            SpringParams::chest(6, UPM),
            SpringParams::chest(7, UPM),
        ],
        ..Default::default()
    }
}

pub fn helper_rig() -> Arc<Rig> {
    Arc::new(Rig::new(helper_rig_desc()).expect("valid rig"))
}

pub fn character() -> Character {
    Character::new(helper_rig(), CharacterOptions::default())
}

/// A walk-like motion of the pelvis and spine at time `t` (seconds), with a
/// cadence `speed` (1 = walk).
pub fn pose_at(rig: &Rig, t: f32, speed: f32) -> Vec<Transform> {
    let mut pose = rig.reference_pose().to_vec();
    let w = 2.0 * std::f32::consts::PI * 1.8 * speed;
    let pelvis = &mut pose[PELVIS];
    pelvis.translation = [
        3.0 * speed * (w * 0.5 * t).sin(),
        100.0 + 4.0 * speed * (w * t).sin(),
        60.0 * speed * t,
    ];
    pelvis.rotation = (Quat::from_rotation_y(0.15 * speed * (w * 0.5 * t).sin())
        * Quat::from_rotation_x(0.05 * speed * (w * t).cos()))
    .to_array();
    pose[2].rotation = Quat::from_rotation_y(-0.2 * speed * (w * 0.5 * t).sin()).to_array();
    pose
}

/// The demo's built-in body (cli/src/procedural.rs), shared so that the
/// tests and the demo run the same rig.
#[path = "../../cli/src/procedural.rs"]
pub mod procedural;

/// Bones of [`full_body_desc`].
pub mod body {
    #[allow(unused_imports)] // each test binary uses a different subset
    pub use super::procedural::{
        CHEST, CHEST_L, CHEST_R, FOREARM_L, FOREARM_R, HAND_L, HAND_R, PELVIS, POINT_L, POINT_R,
        SPINE, UPPER_ARM_L, UPPER_ARM_R,
    };
}

/// The helper-bone pipeline of the article (docs/algorithms.md §4–§6) on a small body:
/// chest helpers follow same-side chest points (rotation constraint), carry a
/// chest spring, and a BtoB corrective reads both arms and the other chest.
pub fn full_body_desc() -> RigDesc {
    procedural::helper_body()
}

pub fn full_body() -> Arc<Rig> {
    Arc::new(Rig::new(full_body_desc()).expect("valid full-body rig"))
}

/// Walk-like body motion plus the chest points swaying and, from `hug_start`
/// seconds on, both hands folding in toward the chest.
pub fn full_body_pose(rig: &Rig, t: f32, hug_start: f32) -> Vec<Transform> {
    use body::*;
    let mut pose = rig.reference_pose().to_vec();
    let w = 2.0 * std::f32::consts::PI * 1.6;
    pose[PELVIS].translation = [1.5 * (w * 0.5 * t).sin(), 100.0 + 2.0 * (w * t).sin(), 0.0];
    pose[PELVIS].rotation = Quat::from_rotation_y(0.1 * (w * 0.5 * t).sin()).to_array();
    pose[SPINE].rotation = Quat::from_rotation_y(-0.12 * (w * 0.5 * t).sin()).to_array();
    pose[POINT_L].rotation = Quat::from_rotation_x(0.25 * (w * t).sin()).to_array();
    pose[POINT_R].rotation = Quat::from_rotation_x(-0.25 * (w * t).cos()).to_array();
    // Folding: elbows drawn in front of the same-side chest (≈8 cm, inside the
    // 13 cm forearm threshold), forearms across the body toward the other chest.
    let fold = ((t - hug_start) / 0.6).clamp(0.0, 1.0);
    for (upper, fore, side) in [
        (UPPER_ARM_L, FOREARM_L, 1.0f32),
        (UPPER_ARM_R, FOREARM_R, -1.0),
    ] {
        let swing = 0.4 * (w * 0.5 * t).sin() * side * (1.0 - fold);
        let upper_rotation =
            Quat::from_rotation_x(swing - 0.5 * fold) * Quat::from_rotation_z(-side * 0.3 * fold);
        pose[upper].rotation = upper_rotation.to_array();
        let across = Vec3::new(-side * 0.85, 0.3, 0.3).normalize();
        let bend = Quat::from_rotation_arc(Vec3::NEG_Y, upper_rotation.inverse() * across);
        pose[fore].rotation = Quat::IDENTITY.slerp(bend, fold).to_array();
    }
    pose
}

/// One update into `out` (no allocation; benches and the allocation test
/// use it).
pub fn advance(c: &mut Character, dt: f32, pose: &[Transform], out: &mut [Transform]) {
    c.update(
        &FrameInput {
            dt,
            pose,
            teleport: false,
        },
        out,
    )
    .unwrap();
}

/// One update; returns the output pose.
pub fn step(c: &mut Character, dt: f32, pose: &[Transform]) -> Vec<Transform> {
    let mut out = pose.to_vec();
    advance(c, dt, pose, &mut out);
    out
}

/// A validated, shared rig.
pub fn shared(desc: RigDesc) -> Arc<Rig> {
    Arc::new(Rig::new(desc).expect("valid rig"))
}

/// Tail rigs: bone 0 root, bone 1 hips (1 m up).
pub const TAIL_HIPS: usize = 1;
/// The first tail bone; the tail runs to the last bone.
pub const FIRST_TAIL: usize = 2;

/// root, then an anchor bone `height` m up (bone 1), then a chain of
/// `links` bones from bone 2 on: the first `first` from the anchor, each
/// later one `step` from the one before. In metres, Y-up.
pub fn chain_rig(
    anchor: &str,
    height: f32,
    name: impl Fn(usize) -> String,
    (first, step): (Vec3, Vec3),
    links: usize,
    params: ChainParams,
) -> RigDesc {
    let mut bones = vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new(
            anchor,
            0,
            Transform::from_translation(Vec3::new(0.0, height, 0.0)),
        ),
    ];
    for i in 0..links {
        let (parent, offset) = if i == 0 { (1, first) } else { (i + 1, step) };
        bones.push(BoneDesc::new(
            name(i),
            parent as i32,
            Transform::from_translation(offset),
        ));
    }
    RigDesc {
        bones,
        units_per_meter: 1.0,
        chains: vec![ChainDesc::new(
            (0..links).map(|i| (i + 2) as u32).collect(),
            1,
            params,
        )],
        ..Default::default()
    }
}

/// root, hips, then a tail of `joints` bones hanging back and down (−Z is
/// behind), about 0.8 m in all, in metres (Y-up).
pub fn tail_desc(joints: usize, params: ChainParams) -> RigDesc {
    let link = 0.8 / joints as f32;
    chain_rig(
        "hips",
        1.0,
        |i| format!("tail_{}", i + 1),
        (
            Vec3::new(0.0, -0.05, -0.1),
            Vec3::new(0.0, -0.35 * link, -0.94 * link),
        ),
        joints,
        params,
    )
}

/// `libsecmo.a` of the release build, with `libsecmo.so` next to it: the C,
/// C++ and C# programs link what an engine links. The first call in a test
/// binary runs `cargo build --release --lib -p secmo` into this build's
/// `target/tmp/release-lib`, which stays between runs, so later runs only
/// check it. Under valgrind the debug library cost 21× the CPU time.
pub fn static_library() -> std::path::PathBuf {
    static LIB: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("release-lib");
        let out = std::process::Command::new(env!("CARGO"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "--release", "--lib", "-p", "secmo", "--quiet"])
            .env("CARGO_TARGET_DIR", &target)
            // The test build's flags are not the release library's.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET")
            .output()
            .expect("run cargo to build the release library");
        assert!(
            out.status.success(),
            "cargo build --release --lib failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lib = target.join("release/libsecmo.a");
        assert!(lib.exists(), "{} was not built", lib.display());
        lib
    })
    .clone()
}

/// Compiles a C99 program (-Wall -Wextra -Werror -pedantic) against
/// include/secmo.h and the static library.
pub fn compile_c(source: &std::path::Path, out: &std::path::Path) {
    let flags = [
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-O1",
    ];
    compile("CC", "cc", "C", &flags, &["include"], source, out);
}

/// Compiles a C++ program from tests/cpp with g++ (C++17, -Wall -Wextra
/// -Werror -fno-exceptions) against bindings/cpp/secmo.hpp and the static library.
pub fn compile_cpp(source: &std::path::Path, out: &std::path::Path) {
    compile_cpp_with(source, out, &[]);
}

/// [`compile_cpp`] with `extra` flags (sanitizers).
pub fn compile_cpp_with(source: &std::path::Path, out: &std::path::Path, extra: &[&str]) {
    let mut flags = vec![
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fno-exceptions",
        "-pthread",
        "-O1",
        "-g",
    ];
    flags.extend_from_slice(extra);
    let includes = ["include", "bindings/cpp"];
    compile("CXX", "g++", "C++", &flags, &includes, source, out);
}

/// Whether the C++ compiler accepts `source` (a snippet that must not
/// compile), with its diagnostics.
pub fn cpp_compiles(source: &std::path::Path) -> (bool, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let out = std::process::Command::new(&compiler)
        .args(["-std=c++17", "-fsyntax-only", "-fno-exceptions"])
        .arg("-I")
        .arg(root.join("include"))
        .arg("-I")
        .arg(root.join("bindings/cpp"))
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{compiler}`: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `$env_var` (or `default`) with `flags`, `-I` for each of `includes`
/// (relative to the repository), the source, the static library and the
/// system libraries it needs.
fn compile(
    env_var: &str,
    default: &str,
    language: &str,
    flags: &[&str],
    includes: &[&str],
    source: &std::path::Path,
    out: &std::path::Path,
) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiler = std::env::var(env_var).unwrap_or_else(|_| default.into());
    let mut command = std::process::Command::new(&compiler);
    command.args(flags);
    for dir in includes {
        command.arg("-I").arg(root.join(dir));
    }
    let status = command
        .arg(source)
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the {language} compiler `{compiler}`: {e}"));
    assert!(
        status.success(),
        "{language} compilation of {} failed",
        source.display()
    );
}

fn hip_pose_at(reference: &[Transform], frame: i32) -> Vec<Transform> {
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

fn hip_frame_dt(frame: i32) -> f32 {
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

/// tests/c/hip_springs.c and tests/cpp/bits.cpp through the Rust API: the
/// transcript both programs must print, bit for bit.
pub fn hip_springs_transcript() -> String {
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
    let mut out = vec![Transform::IDENTITY; 4];
    let mut text = String::new();
    for f in 0..300 {
        let pose = hip_pose_at(&reference, f);
        let info = c
            .update(
                &FrameInput {
                    dt: hip_frame_dt(f),
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

/// An anchor with `count` one-joint hair chains (rig creation cost).
pub fn many_chains(count: usize) -> secmo::RigDesc {
    let mut bones = vec![BoneDesc::new("anchor", -1, Transform::IDENTITY)];
    let mut chains = Vec::new();
    for i in 0..count {
        bones.push(BoneDesc::new(
            format!("strand_{i}"),
            0,
            Transform::from_translation(Vec3::new(0.0, -0.1, 0.0)),
        ));
        chains.push(ChainDesc::new(
            vec![(i + 1) as u32],
            0,
            ChainParams::hair(1.0),
        ));
    }
    RigDesc {
        bones,
        chains,
        ..Default::default()
    }
}

/// A C ABI frame input for `pose` at 60 Hz, no flags.
pub fn c_frame_input(pose: &[Transform]) -> secmo::ffi::SecmoFrameInput {
    secmo::ffi::SecmoFrameInput {
        struct_size: std::mem::size_of::<secmo::ffi::SecmoFrameInput>() as u32,
        flags: 0,
        dt: 1.0 / 60.0,
        pose: pose.as_ptr(),
        pose_len: pose.len(),
        world: Transform::IDENTITY,
        importance: 1.0,
    }
}

/// [`tail_desc`]`(4, …)` through the C ABI: its tail as a `SECMO_CHAIN_TAIL`
/// chain with `params` (NULL: the preset's). `secmo_rig_destroy` it.
pub fn c_tail_rig(params: *const secmo::ChainParams) -> *mut secmo::ffi::SecmoRig {
    use secmo::ffi::*;
    let bones = tail_desc(4, ChainParams::tail(1.0)).bones;
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = bones.iter().map(|b| b.reference).collect();
    let joints = [2u32, 3, 4, 5];
    let chain = SecmoChainDesc {
        anchor: 1,
        joints: joints.as_ptr(),
        joint_count: joints.len() as u32,
        preset: SECMO_CHAIN_TAIL,
        params,
        ..Default::default()
    };
    let desc = SecmoRigDesc {
        bone_count: bones.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        chains: &chain,
        chain_count: 1,
        ..Default::default()
    };
    let mut rig = std::ptr::null_mut();
    // SAFETY: a valid descriptor whose arrays outlive the call.
    assert_eq!(unsafe { secmo_rig_create(&desc, &mut rig) }, SECMO_OK);
    rig
}

/// A caller built against an older, smaller `SecmoChainParams` (`old`,
/// its `struct_size` a shipped size): a rig of it ([`c_tail_rig`]), a
/// character of that rig, and the chain's parameters as the library reads
/// them back, checked to hold the caller's `frequency_root`. Destroy both
/// handles.
pub fn c_old_caller(
    old: &secmo::ChainParams,
) -> (
    *mut secmo::ffi::SecmoRig,
    *mut secmo::ffi::SecmoCharacter,
    secmo::ChainParams,
) {
    use secmo::ffi::*;
    let rig = c_tail_rig(old);
    let mut character = std::ptr::null_mut();
    let mut read = ChainParams::hair(1.0);
    // SAFETY: a valid rig and out-pointers.
    unsafe {
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut character),
            SECMO_OK
        );
        assert_eq!(
            secmo_character_chain_params(character, 0, &mut read),
            SECMO_OK
        );
    }
    assert_eq!(
        read.frequency_root, old.frequency_root,
        "the caller's fields are read"
    );
    (rig, character, read)
}

/// Sets chain 0's parameters of `character` through the C ABI with
/// `params` (whatever its `struct_size`), expects `SECMO_OK`, and reads
/// them back at today's size.
///
/// # Safety
/// `character` is a live handle.
pub unsafe fn c_set_and_read(
    character: *mut secmo::ffi::SecmoCharacter,
    params: &secmo::ChainParams,
) -> secmo::ChainParams {
    use secmo::ffi::*;
    let mut read = ChainParams::hair(1.0);
    // SAFETY: the caller's live handle and valid pointers.
    unsafe {
        assert_eq!(
            secmo_character_set_chain_params(character, 0, params),
            SECMO_OK
        );
        assert_eq!(
            secmo_character_chain_params(character, 0, &mut read),
            SECMO_OK
        );
    }
    read
}

/// Uniform numbers from a seed (a 64-bit LCG), for the random strands of
/// tests/settling.rs and tests/contact.rs.
pub struct Numbers(pub u64);

impl Numbers {
    /// Uniform in `[a, b)`.
    pub fn between(&mut self, a: f32, b: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        a + (b - a) * ((self.0 >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// A uniform direction.
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.between(-1.0, 1.0),
                self.between(-1.0, 1.0),
                self.between(-1.0, 1.0),
            );
            if v.length() > 0.1 && v.length() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

/// The largest per-frame motion (m) of the last joint of a strand hanging
/// from bone 1 (a head 1.5 m up) over the second after `still` seconds of
/// no input, at `hz` input, when the head yaws by `yaw` at `rate` Hz,
/// pitches by `pitch` and sways by `sway` for 2 s and then holds still.
pub fn random_motion_after_stop(
    rig: &Arc<Rig>,
    [yaw, pitch, sway, rate]: [f32; 4],
    hz: f32,
    still: f32,
) -> f32 {
    const STOP: f32 = 2.0;
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    let mut pose: Vec<Transform> = rig.reference_pose().to_vec();
    let mut component = vec![glam::Affine3A::IDENTITY; pose.len()];
    let tip = rig.bone_count() - 1;
    let (mut previous, mut worst) = (None::<Vec3>, 0.0f32);
    for f in 0..((STOP + still + 1.0) * hz) as usize {
        let t = f as f32 / hz;
        let (y, p, x) = if t < STOP {
            let s = (t * std::f32::consts::TAU * rate).sin();
            (yaw * s, pitch * (t * 5.0).sin(), sway * (t * 3.0).sin())
        } else {
            (0.0, 0.0, 0.0)
        };
        pose[1].rotation = (Quat::from_rotation_y(y) * Quat::from_rotation_x(p)).to_array();
        pose[1].translation = [x, 1.5, 0.0];
        let out = step(&mut c, 1.0 / hz, &pose);
        secmo::math::forward_kinematics(rig.parents(), &out, &mut component);
        let end = Vec3::from(component[tip].translation);
        assert!(end.is_finite(), "frame {f}: the strand is not finite");
        if let (true, Some(p)) = (t >= STOP + still, previous) {
            worst = worst.max(end.distance(p));
        }
        previous = Some(end);
    }
    worst
}

/// Runs every preset (tail, hair, VRM) on each strand that `strand` makes
/// from a seed of `seeds`, at 24, 60 and 144 Hz input
/// ([`random_motion_after_stop`]), and returns how many runs there were and
/// a line for each whose tip still moved 0.001 mm or more in a frame
/// `still` seconds after the stop.
pub fn strands_still_moving(
    seeds: impl Iterator<Item = u64> + Clone,
    strand: impl Fn(u64, ChainParams) -> (Arc<Rig>, [f32; 4]),
    still: f32,
) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, params) in [
        ("tail", ChainParams::tail(1.0)),
        ("hair", ChainParams::hair(1.0)),
        ("vrm", ChainParams::vrm(1.0)),
    ] {
        for seed in seeds.clone() {
            let (rig, motion) = strand(seed, params);
            for hz in [24.0, 60.0, 144.0] {
                runs += 1;
                let moving = random_motion_after_stop(&rig, motion, hz, still);
                if moving >= 1e-6 {
                    failures.push(format!(
                        "{name}, seed {seed}, {hz} Hz: the tip moves {:.4} mm per frame {still} s after the stop",
                        moving * 1e3
                    ));
                }
            }
        }
    }
    (runs, failures)
}

/// A random head motion for [`random_motion_after_stop`]: a yaw of 5–60°
/// at 0.5–2 Hz, a pitch of up to 30° and a sway of up to 0.3 m.
pub fn random_head_motion(g: &mut Numbers) -> [f32; 4] {
    [
        g.between(5.0, 60.0).to_radians(),
        g.between(0.0, 30.0).to_radians(),
        g.between(0.0, 0.3),
        g.between(0.5, 2.0),
    ]
}

/// A rig of `bones` (a root, a head and the strand's joints after them)
/// in metres, whose strand is one chain with `params` anchored on the head.
pub fn strand_on_head(bones: Vec<BoneDesc>, params: ChainParams) -> RigDesc {
    let joints = (2..bones.len() as u32).collect();
    RigDesc {
        bones,
        units_per_meter: 1.0,
        chains: vec![ChainDesc::new(joints, 1, params)],
        ..Default::default()
    }
}
