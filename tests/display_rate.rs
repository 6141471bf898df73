//! Smooth at any display rate (issue #17 item 6): with the fixed 120 Hz
//! chain substep, an update that runs no substep used to repeat the previous
//! output, so at 240 Hz every other frame froze and dt = 1e-7 updates froze
//! and then jumped. The output now carries the state forward along its
//! velocity by the time past the last substep.

mod common;

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use secmo::math::forward_kinematics;
use secmo::{ChainParams, Character, CharacterOptions, Rig};

/// A hair strand on a head that turns back and forth.
fn strand(params: ChainParams) -> Arc<Rig> {
    common::shared(common::chain_rig(
        "head",
        1.6,
        |i| format!("strand_{i}"),
        (Vec3::new(0.0, 0.05, -0.08), Vec3::new(0.0, -0.1, -0.02)),
        4,
        params,
    ))
}

/// Tip world positions after each update at `hz`, for `seconds`, with the
/// head yaw `0.8·sin(2πt/1.5)` sampled at each update's time.
fn run(rig: &Arc<Rig>, dts: &[f32]) -> Vec<Vec3> {
    let mut c = Character::new(Arc::clone(rig), CharacterOptions::default());
    let mut pose = rig.reference_pose().to_vec();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    let tip = rig.bone_count() - 1;
    let mut t = 0.0f64;
    let mut tips = Vec::with_capacity(dts.len());
    for &dt in dts {
        t += f64::from(dt);
        let yaw = 0.8 * (std::f64::consts::TAU * t / 1.5).sin();
        pose[1].rotation = Quat::from_rotation_y(yaw as f32).to_array();
        let out = common::step(&mut c, dt, &pose);
        forward_kinematics(rig.parents(), &out, &mut component);
        tips.push(component[tip].transform_point3(Vec3::new(0.0, -0.1, -0.02)));
    }
    tips
}

fn steady(hz: u32, seconds: f32) -> Vec<f32> {
    let n = (hz as f32 * seconds) as usize;
    let mut dts = vec![1.0 / hz as f32; n];
    dts[0] = 0.0;
    dts
}

fn steps(tips: &[Vec3]) -> Vec<f32> {
    tips.windows(2).map(|w| w[1].distance(w[0])).collect()
}

#[test]
fn every_update_moves_at_144_240_and_360_hz() {
    for (name, params) in [
        ("hair", ChainParams::hair(1.0)),
        ("tail", ChainParams::tail(1.0)),
        ("vrm", ChainParams::vrm(1.0)),
    ] {
        let rig = strand(params);
        let at_120 = steps(&run(&rig, &steady(120, 3.0)));
        let typical = at_120[120..].iter().sum::<f32>() / (at_120.len() - 120) as f32;
        for hz in [144, 240, 360] {
            let s = steps(&run(&rig, &steady(hz, 3.0)));
            // From 1 s on the strand swings all the time; no update may
            // repeat the one before.
            let from = hz as usize;
            let frozen = s[from..]
                .iter()
                .filter(|&&d| d < 0.05 * typical * 120.0 / hz as f32)
                .count();
            assert_eq!(frozen, 0, "{name} at {hz} Hz: {frozen} frozen updates");
        }
        // At 240 Hz each update covers about half of a 120 Hz one: none is
        // larger than the motion calls for.
        let s = steps(&run(&rig, &steady(240, 3.0)));
        for (k, &big) in at_120.iter().enumerate().skip(120) {
            let (a, b) = (s[2 * k - 1], s[2 * k]);
            assert!(
                a.max(b) <= 0.75 * big + 1e-6 && a + b >= 0.9 * big,
                "{name}: 120 Hz step {big} vs 240 Hz steps {a}, {b} at frame {k}"
            );
        }
    }
}

#[test]
fn tiny_updates_move_a_little_each_instead_of_freezing_then_jumping() {
    let rig = strand(ChainParams::hair(1.0));
    // 1.5 s at 120 Hz to get the strand swinging, then 2e-4 s of 1e-7 s
    // updates (far less than a substep), then the rest of the substep.
    let mut dts = steady(120, 1.5);
    let swinging = dts.len();
    dts.extend(std::iter::repeat_n(1e-7, 2000));
    dts.extend(std::iter::repeat_n(1.0 / 240.0, 4));
    let tips = run(&rig, &dts);
    let s = steps(&tips);
    let typical = s[swinging - 10..swinging - 1].iter().sum::<f32>() / 9.0;
    let worst = s[swinging..].iter().fold(0.0f32, |a, &b| a.max(b));
    // A 120 Hz step is `typical`; no single update of this run may jump by
    // more than that (the frozen output used to jump by a whole substep's
    // worth when the substep completed).
    assert!(typical > 1e-4, "the strand swings: {typical} m per frame");
    assert!(
        worst <= 0.6 * typical,
        "largest step {worst} m vs {typical} m per 120 Hz frame"
    );
}
