//! Compiles tests/c/hip_springs.c with the system C compiler against
//! include/secmo.h (C99, -Wall -Wextra -Werror -pedantic), links it to the
//! static library cargo just built, runs it, and checks its output bit for bit
//! against the same sequence through the Rust API.

// The quaternion literals are spelled with 9 digits exactly as in the C
// programs, so that both languages parse them to the same f32.
#![allow(clippy::excessive_precision)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::compile_c;
use std::sync::Arc;

use glam::Vec3;
use secmo::{BoneDesc, Character, FrameInput, Rig, RigDesc, SpringParams, Transform};

/// Compiles `tests/c/<name>.c`, runs it, and returns its standard output.
fn run_c_program(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}_c"));
    compile_c(&root.join(format!("tests/c/{name}.c")), &exe);
    let output = Command::new(&exe).output().expect("run the C program");
    assert!(
        output.status.success(),
        "{name}.c failed with {:?}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn assert_same_lines(c_text: &str, rust_text: &str) {
    assert_eq!(c_text.lines().count(), rust_text.lines().count());
    for (i, (c_line, rust_line)) in c_text.lines().zip(rust_text.lines()).enumerate() {
        assert_eq!(c_line, rust_line, "line {i} differs between C and Rust");
    }
}

#[test]
fn c_program_matches_the_rust_api_bit_for_bit() {
    let stdout = run_c_program("hip_springs");
    let expected = common::hip_springs_transcript();
    assert_eq!(stdout.lines().count(), 302);
    assert_same_lines(&stdout, &expected);
    // The springs actually moved: outputs are not all the reference offsets.
    assert!(expected
        .lines()
        .any(|l| !l.contains(&format!("{:08x}", 10.0f32.to_bits()))));
}

// --- The full pipeline (tests/c/pipeline.c) -------------------------------

const FOLD: [[f32; 4]; 4] = [
    [
        -2.446258813e-1,
        -3.697158769e-2,
        -1.447924674e-1,
        9.580326080e-1,
    ],
    [-2.832671106e-1, 0.0, -5.895866752e-1, 7.564042211e-1],
    [
        -2.446258813e-1,
        3.697158769e-2,
        1.447924674e-1,
        9.580326080e-1,
    ],
    [-2.832671106e-1, 0.0, 5.895866752e-1, 7.564042211e-1],
];
const ARM_BONES: [usize; 4] = [10, 11, 13, 14];

fn pipeline_rig() -> Rig {
    use secmo::{BtobBones, ConstraintDesc, ProximityCorrective, Side};
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut reference = vec![
        t(0.0, 0.0, 0.0),
        t(0.0, 100.0, 0.0),
        t(0.0, 15.0, 0.0),
        t(0.0, 25.0, 0.0),
        t(10.0, -6.0, 6.0),
        t(-10.0, -6.0, 6.0),
        t(8.0, 4.0, 12.0),
        t(-8.0, 4.0, 12.0),
        t(8.0, 4.0, 11.0),
        t(-8.0, 4.0, 11.0),
        t(18.0, 20.0, 0.0),
        t(0.0, -28.0, 0.0),
        t(0.0, -25.0, 0.0),
        t(-18.0, 20.0, 0.0),
        t(0.0, -28.0, 0.0),
        t(0.0, -25.0, 0.0),
    ];
    for b in [8, 9] {
        reference[b].rotation = [
            0.0,
            if b == 8 {
                1.494381428e-1
            } else {
                -1.494381428e-1
            },
            0.0,
            9.887710810e-1,
        ];
        reference[b].scale = [1.0, 1.1, 0.9];
    }
    let parents = [-1, 0, 1, 2, 1, 1, 3, 3, 3, 3, 3, 10, 11, 3, 13, 14];
    let bones = parents
        .iter()
        .zip(&reference)
        .enumerate()
        .map(|(i, (&p, &r))| BoneDesc::new(format!("bone{i}"), p, r))
        .collect();
    let arms = |chest: u32, other: u32| BtobBones {
        chest,
        other_chest: other,
        upper_arm_l: 10,
        forearm_l: 11,
        hand_l: 12,
        upper_arm_r: 13,
        forearm_r: 14,
        hand_r: 15,
    };
    Rig::new(RigDesc {
        bones,
        units_per_meter: 100.0,
        constraints: vec![
            ConstraintDesc { bone: 8, target: 6 },
            ConstraintDesc { bone: 9, target: 7 },
        ],
        springs: vec![
            SpringParams::hip(4, 100.0),
            SpringParams::hip(5, 100.0),
            SpringParams::chest(8, 100.0),
            SpringParams::chest(9, 100.0),
        ],
        correctives: vec![
            ProximityCorrective::btob(arms(8, 9), Side::Left, -1.0, 16.0, 100.0),
            ProximityCorrective::btob(arms(9, 8), Side::Right, 1.0, 16.0, 100.0),
        ],
        ..Default::default()
    })
    .unwrap()
}

fn pipeline_pose(reference: &[Transform], frame: i32) -> Vec<Transform> {
    let phase = frame % 20;
    let tri = if phase < 10 { phase } else { 20 - phase };
    let mut fold = if frame < 30 {
        0.0f32
    } else {
        (frame - 30) as f32 / 40.0f32
    };
    if fold > 1.0 {
        fold = 1.0;
    }
    let mut pose = reference.to_vec();
    pose[1].translation[0] = 0.25f32 * (frame % 7) as f32;
    pose[1].translation[1] = 100.0f32 + 0.5f32 * tri as f32;
    pose[6].rotation[0] = 0.01f32 * tri as f32;
    pose[7].rotation[0] = -0.01f32 * tri as f32;
    for (k, &b) in ARM_BONES.iter().enumerate() {
        let q = &mut pose[b].rotation;
        q[0] = fold * FOLD[k][0];
        q[1] = fold * FOLD[k][1];
        q[2] = fold * FOLD[k][2];
        q[3] = (1.0f32 - fold) + fold * FOLD[k][3];
    }
    pose
}

fn rust_pipeline_transcript() -> String {
    use secmo::{Stage, StageRecords};
    let rig = Arc::new(pipeline_rig());
    let reference = rig.reference_pose().to_vec();
    let mut c = Character::new(rig.clone(), Default::default());
    let mut records = StageRecords::new(&rig);
    let mut out = vec![Transform::IDENTITY; 16];
    let mut text = String::new();
    for f in 0..150 {
        let pose = pipeline_pose(&reference, f);
        if f == 60 {
            c.set_stage_enabled(Stage::Springs, false);
        }
        if f == 80 {
            c.set_stage_enabled(Stage::Springs, true);
        }
        let dt = if f < 100 {
            1.0f32 / 60.0f32
        } else {
            1.0f32 / 30.0f32
        };
        let info = c
            .update_recorded(
                &FrameInput {
                    dt,
                    pose: &pose,
                    teleport: false,
                },
                &mut out,
                &mut records,
            )
            .unwrap();
        text += &format!("{f} {} {}", info.max_substeps, info.warnings);
        for b in &out[8..10] {
            for v in [
                b.translation[0],
                b.translation[1],
                b.translation[2],
                b.scale[0],
                b.rotation[0],
            ] {
                text += &format!(" {:08x}", v.to_bits());
            }
        }
        for r in &records.correctives {
            for v in [r.state_translation[0], r.state_scale[0], r.weight] {
                text += &format!(" {:08x}", v.to_bits());
            }
        }
        for d in &records.probe_distances {
            text += &format!(" {:08x}", d.to_bits());
        }
        text += "\n";
    }
    assert!(
        c.corrective_states()[0].translation[0] != 0.0,
        "BtoB must engage in this sequence"
    );
    text + "ok\n"
}

#[test]
fn c_pipeline_program_matches_the_rust_api_bit_for_bit() {
    let stdout = run_c_program("pipeline");
    assert_same_lines(&stdout, &rust_pipeline_transcript());
}

// --- Chains (tests/c/chains.c) ---------------------------------------------

fn chains_transcript() -> String {
    use secmo::{ChainDesc, ChainParams, Collider, ColliderShape, DebugLine, DebugSphere};
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut reference = vec![
        t(0.0, 0.0, 0.0),
        t(0.0, 1.0, 0.0),
        t(0.0, 0.6, 0.0),
        t(0.0, -0.05, -0.1),
    ];
    for _ in 4..=6 {
        reference.push(t(0.0, -0.05, -0.15));
    }
    reference.push(t(0.03, 0.05, -0.09));
    for _ in 8..=12 {
        reference.push(t(0.0, -0.048, -0.014));
    }
    let parents = [-1, 0, 1, 1, 3, 4, 5, 2, 7, 8, 9, 10, 11];
    let bones = parents
        .iter()
        .zip(&reference)
        .enumerate()
        .map(|(i, (&p, &r))| BoneDesc::new(format!("bone{i}"), p, r))
        .collect();
    let mut hair = ChainParams::hair(1.0);
    hair.gravity = 2.0;
    let mut hair_chain = ChainDesc::new(vec![7, 8, 9, 10, 11, 12], 2, hair);
    hair_chain.colliders = vec![0, 1, 2];
    let rig = Arc::new(
        Rig::new(RigDesc {
            bones,
            units_per_meter: 1.0,
            colliders: vec![
                Collider {
                    bone: 2,
                    shape: ColliderShape::Sphere,
                    a: Vec3::ZERO,
                    b: Vec3::ZERO,
                    radius: 0.09,
                },
                Collider {
                    bone: 1,
                    shape: ColliderShape::Sphere,
                    a: Vec3::new(0.0, 0.35, 0.05),
                    b: Vec3::ZERO,
                    radius: 0.12,
                },
                Collider {
                    bone: 1,
                    shape: ColliderShape::Capsule,
                    a: Vec3::new(0.0, 0.1, -0.12),
                    b: Vec3::new(0.0, 0.5, -0.12),
                    radius: 0.05,
                },
            ],
            chains: vec![
                ChainDesc::new(vec![3, 4, 5, 6], 1, ChainParams::tail(1.0)),
                hair_chain,
            ],
            ..Default::default()
        })
        .unwrap(),
    );
    let mut c = Character::new(rig.clone(), Default::default());
    c.set_wind(Vec3::new(0.5, 0.0, 0.0)).unwrap();
    let mut out = vec![Transform::IDENTITY; 13];
    let mut text = String::new();
    for f in 0..240i32 {
        let (a, b) = (f % 40, f % 26);
        let tri = if a < 20 { a } else { 40 - a };
        let tri2 = if b < 13 { b } else { 26 - b };
        let mut pose = reference.clone();
        pose[1].rotation[1] = 0.04f32 * (tri - 10) as f32;
        pose[2].rotation[0] = 0.03f32 * (tri2 - 6) as f32;
        let x = 0.01f32 * f as f32 + if f >= 150 { 100.0f32 } else { 0.0 };
        c.set_world_transform(Transform::from_translation(Vec3::new(x, 0.0, 0.0)))
            .unwrap();
        c.update(
            &FrameInput {
                dt: 1.0f32 / 60.0f32,
                pose: &pose,
                teleport: f == 150,
            },
            &mut out,
        )
        .unwrap();
        if f % 10 == 9 {
            text += &format!("{f}");
            for b in &out[3..] {
                for v in &b.rotation[..3] {
                    text += &format!(" {:08x}", v.to_bits());
                }
            }
            text += "\n";
        }
        if f == 120 {
            let mut stiffer = hair;
            stiffer.set_integrator(secmo::Integrator::ExponentialDamping {
                stiffness: 80.0,
                damping: 10.0,
            });
            c.set_chain_params(1, stiffer).unwrap();
        }
    }
    let (cl, cs) = c.debug_draw_capacity();
    let mut lines = vec![DebugLine::default(); cl];
    let mut spheres = vec![DebugSphere::default(); cs];
    let (nl, ns) = c.debug_draw(&mut lines, &mut spheres);
    text += &format!(
        "draw {nl} {ns} {:08x} {:08x}\nsettings 1\nok\n",
        spheres[0].center[0].to_bits(),
        spheres[0].radius.to_bits()
    );
    text
}

#[test]
fn c_chains_program_matches_the_rust_api_bit_for_bit() {
    let stdout = run_c_program("chains");
    assert_same_lines(&stdout, &chains_transcript());
}

/// examples/minimal.c and examples/minimal.rs, the smallest programs a new
/// user starts from, build, run and print the same tail tip: through the C
/// ABI and through the Rust API the same update gives the same rotation, and
/// the tail has moved off its rest (the hips sway it).
#[test]
fn the_minimal_examples_in_c_and_rust_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("minimal_c");
    compile_c(&root.join("examples/minimal.c"), &exe);
    let c = Command::new(&exe).output().expect("run examples/minimal.c");
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let c = String::from_utf8_lossy(&c.stdout).into_owned();

    // `cargo test` builds the examples into target/<profile>/examples.
    let test_exe = std::env::current_exe().unwrap();
    let rust_exe = test_exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples")
        .join(format!("minimal{}", std::env::consts::EXE_SUFFIX));
    let rust = Command::new(&rust_exe)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", rust_exe.display()));
    assert!(
        rust.status.success(),
        "{}",
        String::from_utf8_lossy(&rust.stderr)
    );
    let rust = String::from_utf8_lossy(&rust.stdout).into_owned();
    assert_eq!(c, rust, "C and Rust print different tail tips");

    let numbers: Vec<f32> = c
        .trim()
        .strip_prefix("tail tip rotation: ")
        .expect("the line the examples print")
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 4);
    let norm = numbers.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "{numbers:?}");
    assert!(numbers[3] < 0.9999, "the tail tip never moved: {numbers:?}");
}
