//! Character-level behaviour: docs/algorithms.md §1–§3 through the whole update.

mod common;

use common::*;
use glam::{Affine3A, Quat, Vec3};
use secmo::{Character, CharacterOptions, Error, FrameInput, SubstepTarget, Transform};

fn component(rig: &secmo::Rig, pose: &[Transform]) -> Vec<Affine3A> {
    let mut c = vec![Affine3A::IDENTITY; pose.len()];
    secmo::math::forward_kinematics(rig.parents(), pose, &mut c);
    c
}

fn bits(pose: &[Transform]) -> Vec<u32> {
    bytemuck::cast_slice::<Transform, f32>(pose)
        .iter()
        .map(|f| f.to_bits())
        .collect()
}

#[test]
fn first_update_has_zero_dt_and_returns_the_input() {
    let mut c = character();
    let pose = pose_at(c.rig(), 0.3, 1.0);
    let out = step(&mut c, 0.5, &pose);
    assert_eq!(bits(&out), bits(&pose));
    assert!(c
        .spring_records()
        .iter()
        .all(|r| r.substeps == 0 && r.dt == 0.0));
}

#[test]
fn helpers_lag_and_stay_within_max_offset() {
    let mut c = character();
    let rig = c.rig().clone();
    let mut peak = 0.0f32;
    for i in 0..240 {
        let pose = pose_at(&rig, i as f32 / 60.0, 2.0);
        let out = step(&mut c, 1.0 / 60.0, &pose);
        let src = component(&rig, &pose);
        let dst = component(&rig, &out);
        for (k, r) in c.spring_records().iter().enumerate() {
            let b = r.bone as usize;
            let offset = Vec3::from(dst[b].translation) - Vec3::from(src[b].translation);
            let limit = rig.springs()[k].max_offset;
            // The clamp is exact in the kernel; measured here through a second FK
            // pass at ~140 cm, so allow a few ulps of those coordinates (1.5e-5 each).
            assert!(
                offset.length() <= limit + 1e-4,
                "frame {i} bone {b}: {offset}"
            );
            // The output the record claims is where FK of the written pose puts it:
            // the writeback went through the current parent (docs/algorithms.md §1 path A).
            assert!((Vec3::from(dst[b].translation) - Vec3::from(r.output)).length() < 1e-4);
            peak = peak.max(offset.length());
        }
        // Non-spring bones pass through untouched.
        for b in 0..4 {
            assert_eq!(bits(&out[b..b + 1]), bits(&pose[b..b + 1]));
        }
    }
    assert!(
        peak > 0.5,
        "helpers should visibly lag during a run, peak {peak}"
    );
}

#[test]
fn writeback_through_a_rotated_scaled_parent_lands_in_component_space() {
    // Parent rotated +90° about Z and scaled 2 along its X: the spring's
    // component-space offset must come back out of FK unchanged.
    let mut c = character();
    let rig = c.rig().clone();
    let mut pose = rig.reference_pose().to_vec();
    pose[PELVIS].rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2).to_array();
    pose[PELVIS].scale = [2.0, 1.0, 1.0];
    step(&mut c, 0.0, &pose);
    let mut moved = pose.clone();
    moved[PELVIS].translation[1] += 30.0; // jump up: helpers lag below
    let out = step(&mut c, 1.0 / 30.0, &moved);
    let src = component(&rig, &moved);
    let dst = component(&rig, &out);
    let rec = c.spring_records()[0];
    let offset = Vec3::from(dst[HIP_L].translation) - Vec3::from(src[HIP_L].translation);
    assert!(offset.y < -0.5, "{offset}");
    assert!((Vec3::from(dst[HIP_L].translation) - Vec3::from(rec.output)).length() < 1e-4);
    // In local space the lag is along the parent's −X (rotated +90°) and halved by scale 2.
    let d_local =
        Vec3::from_array(out[HIP_L].translation) - Vec3::from_array(moved[HIP_L].translation);
    assert!(
        (d_local.x - offset.y / 2.0).abs() < 1e-4,
        "{d_local} vs {offset}"
    );
    assert!(d_local.y.abs() < 1e-4);
}

#[test]
fn full_snapshot_continues_bit_identically_and_pv_only_diverges() {
    let mut a = character();
    let rig = a.rig().clone();
    for i in 0..100 {
        step(&mut a, 1.0 / 30.0, &pose_at(&rig, i as f32 / 30.0, 2.0));
    }
    let mut snap = vec![0u8; a.snapshot_size()];
    a.snapshot(&mut snap).unwrap();

    let mut b = character();
    b.restore(&snap).unwrap();

    // p/v only: a state with the same positions and velocities but an empty
    // ring and no remainder, as a naive save would keep.
    let mut pv = character();
    let mut pv_snap = snap.clone();
    {
        let header = secmo::SNAPSHOT_HEADER_SIZE;
        let size = std::mem::size_of::<secmo::SpringState>();
        for k in 0..rig.springs().len() {
            let bytes = &mut pv_snap[header + k * size..header + (k + 1) * size];
            let mut s: secmo::SpringState = bytemuck::pod_read_unaligned(bytes);
            s.ring = [[0.0; 3]; 16];
            s.ring_fill = 0;
            s.ring_index = 0;
            s.remaining = 0.0;
            bytes.copy_from_slice(bytemuck::bytes_of(&s));
        }
    }
    // Edited on purpose: the checksum is recomputed (restore checks it).
    secmo::reseal_snapshot(&mut pv_snap).unwrap();
    pv.restore(&pv_snap).unwrap();

    let mut diverged = 0;
    for i in 100..160 {
        let pose = pose_at(&rig, i as f32 / 30.0, 2.0);
        let oa = step(&mut a, 1.0 / 30.0, &pose);
        let ob = step(&mut b, 1.0 / 30.0, &pose);
        let op = step(&mut pv, 1.0 / 30.0, &pose);
        assert_eq!(bits(&oa), bits(&ob), "frame {i}");
        if bits(&oa) != bits(&op) {
            diverged += 1;
        }
    }
    assert!(diverged > 0, "a p/v-only copy should diverge");
}

#[test]
fn an_animation_segment_change_is_not_a_reset() {
    // Clip A (run) then clip B (walk) continuously, vs clip B from a fresh state.
    let mut continuous = character();
    let rig = continuous.rig().clone();
    for i in 0..90 {
        step(
            &mut continuous,
            1.0 / 60.0,
            &pose_at(&rig, i as f32 / 60.0, 2.5),
        );
    }
    let mut fresh = character();
    let mut differs = 0;
    let mut max_diff = 0.0f32;
    for i in 0..30 {
        let pose = pose_at(&rig, 5.0 + i as f32 / 60.0, 1.0);
        let oc = step(&mut continuous, 1.0 / 60.0, &pose);
        let of = step(&mut fresh, 1.0 / 60.0, &pose);
        assert_eq!(
            continuous
                .spring_records()
                .iter()
                .map(|r| r.snapped)
                .sum::<u32>(),
            0
        );
        let d = (Vec3::from_array(oc[HIP_L].translation) - Vec3::from_array(of[HIP_L].translation))
            .length();
        max_diff = max_diff.max(d);
        if d > 1e-4 {
            differs += 1;
        }
    }
    assert!(
        differs > 5 && max_diff > 0.1,
        "continuous and fresh should differ: {max_diff}"
    );
}

#[test]
fn reset_threshold_snaps_and_clears_velocity() {
    let mut c = character();
    let rig = c.rig().clone();
    for i in 0..30 {
        step(&mut c, 1.0 / 60.0, &pose_at(&rig, i as f32 / 60.0, 2.0));
    }
    assert!(c.spring_states()[0].velocity().length() > 1.0);
    // Move the whole body 3 m in one frame (threshold 255 cm).
    let mut pose = pose_at(&rig, 30.0 / 60.0, 2.0);
    pose[0].translation[0] += 300.0;
    let out = step(&mut c, 1.0 / 60.0, &pose);
    assert!(c.spring_records().iter().all(|r| r.snapped == 1));
    // Snapped this update, then a substep or two from rest at the target:
    // the offsets are tiny and the velocity is far below the running value.
    let src = component(&rig, &pose);
    let dst = component(&rig, &out);
    for r in c.spring_records() {
        let b = r.bone as usize;
        let d = (Vec3::from(dst[b].translation) - Vec3::from(src[b].translation)).length();
        assert!(d < 1e-3, "bone {b} offset {d}");
    }
    assert!(c
        .spring_states()
        .iter()
        .all(|s| s.velocity().length() < 1e-3));
}

#[test]
fn teleport_flag_and_reset_seed_springs_at_the_target() {
    let mut c = character();
    let rig = c.rig().clone();
    for i in 0..30 {
        step(&mut c, 1.0 / 60.0, &pose_at(&rig, i as f32 / 60.0, 2.0));
    }
    let pose = pose_at(&rig, 0.7, 2.0);
    let mut out = pose.clone();
    c.update(
        &FrameInput {
            dt: 1.0 / 60.0,
            pose: &pose,
            teleport: true,
        },
        &mut out,
    )
    .unwrap();
    assert_eq!(bits(&out), bits(&pose));
    assert!(c
        .spring_states()
        .iter()
        .all(|s| s.velocity() == Vec3::ZERO && s.ring_fill == 0));
    step(&mut c, 1.0 / 60.0, &pose_at(&rig, 0.72, 2.0));
    c.reset();
    let out = step(&mut c, 1.0 / 60.0, &pose);
    assert_eq!(bits(&out), bits(&pose));
}

#[test]
fn interpolated_substep_targets_differ_from_held_at_30hz() {
    let rig = helper_rig();
    let mut hold = Character::new(rig.clone(), CharacterOptions::default());
    let mut interp = Character::new(
        rig.clone(),
        CharacterOptions {
            substep_target: SubstepTarget::Interpolate,
        },
    );
    let mut max_diff = 0.0f32;
    for i in 0..90 {
        let pose = pose_at(&rig, i as f32 / 30.0, 2.0);
        let a = step(&mut hold, 1.0 / 30.0, &pose);
        let b = step(&mut interp, 1.0 / 30.0, &pose);
        max_diff = max_diff.max(
            (Vec3::from_array(a[HIP_R].translation) - Vec3::from_array(b[HIP_R].translation))
                .length(),
        );
    }
    // Both are bounded by the same 2 cm cap, so they differ by at most 4 cm (docs/algorithms.md §9).
    assert!(max_diff > 0.01 && max_diff < 4.0, "{max_diff}");
}

#[test]
fn bad_input_returns_a_specific_error_and_leaves_state_untouched() {
    let mut c = character();
    let rig = c.rig().clone();
    for i in 0..20 {
        step(&mut c, 1.0 / 60.0, &pose_at(&rig, i as f32 / 60.0, 2.0));
    }
    let mut before = vec![0u8; c.snapshot_size()];
    c.snapshot(&mut before).unwrap();
    let good = pose_at(&rig, 0.4, 2.0);
    let n = good.len();
    let mut out = vec![Transform::IDENTITY; n];
    let sentinel = out.clone();

    let mut nan = good.clone();
    nan[3].rotation[2] = f32::NAN;
    let mut inf = good.clone();
    inf[1].translation[0] = f32::INFINITY;
    let mut zero_scale = good.clone();
    zero_scale[1].scale = [1.0, 0.0, 1.0];
    let mut zero_quat = good.clone();
    zero_quat[2].rotation = [0.0; 4];

    let cases: Vec<(FrameInput, usize, Error)> = vec![
        (
            FrameInput {
                dt: -0.01,
                pose: &good,
                teleport: false,
            },
            n,
            Error::InvalidDt(-0.01),
        ),
        (
            FrameInput {
                dt: f32::NAN,
                pose: &good,
                teleport: false,
            },
            n,
            Error::InvalidDt(f32::NAN),
        ),
        (
            FrameInput {
                dt: 1e30,
                pose: &good,
                teleport: false,
            },
            n,
            Error::InvalidDt(1e30),
        ),
        (
            FrameInput {
                dt: f32::INFINITY,
                pose: &good,
                teleport: false,
            },
            n,
            Error::InvalidDt(f32::INFINITY),
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &nan,
                teleport: false,
            },
            n,
            Error::NonFinitePose { bone: 3 },
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &inf,
                teleport: false,
            },
            n,
            Error::NonFinitePose { bone: 1 },
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &zero_scale,
                teleport: true,
            },
            n,
            Error::DegeneratePose {
                bone: 1,
                what: "scale has a zero component",
            },
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &zero_quat,
                teleport: false,
            },
            n,
            Error::DegeneratePose {
                bone: 2,
                what: "rotation quaternion cannot be normalised (zero length, or a squared length beyond float32's range)",
            },
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &good[..n - 1],
                teleport: false,
            },
            n,
            Error::BufferLength {
                what: "input pose",
                expected: n,
                got: n - 1,
            },
        ),
        (
            FrameInput {
                dt: 0.01,
                pose: &good,
                teleport: false,
            },
            n + 1,
            Error::BufferLength {
                what: "output pose",
                expected: n,
                got: n + 1,
            },
        ),
    ];
    for (input, out_len, expected) in cases {
        let mut out_buf = vec![Transform::IDENTITY; out_len];
        let err = c.update(&input, &mut out_buf).unwrap_err();
        match (&err, &expected) {
            (Error::InvalidDt(a), Error::InvalidDt(b)) => {
                assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
            }
            _ => assert_eq!(err, expected),
        }
        assert!(!err.to_string().is_empty());
        let mut after = vec![0u8; c.snapshot_size()];
        c.snapshot(&mut after).unwrap();
        assert_eq!(before, after, "state changed after {expected:?}");
        assert!(
            out_buf.iter().all(|t| *t == Transform::IDENTITY),
            "output written on error"
        );
    }
    assert_eq!(out, sentinel);
    // The next good update behaves exactly as for a character that never saw the bad calls.
    let mut control = character();
    control.restore(&before).unwrap();
    let a = step(&mut c, 1.0 / 60.0, &good);
    let b = step(&mut control, 1.0 / 60.0, &good);
    assert_eq!(bits(&a), bits(&b));
    out.copy_from_slice(&a);
}

#[test]
fn a_ten_second_pause_is_capped_and_stays_bounded() {
    let mut c = character();
    let rig = c.rig().clone();
    for i in 0..30 {
        step(&mut c, 1.0 / 60.0, &pose_at(&rig, i as f32 / 60.0, 2.0));
    }
    let out = step(&mut c, 10.0, &pose_at(&rig, 10.5, 2.0));
    let r = c.spring_records()[0];
    assert!(r.substeps >= 599 && r.substeps <= 600, "{}", r.substeps);
    assert!(r.remaining_before < 0.01 && r.remaining_after <= r.h);
    assert!(out.iter().all(Transform::is_finite));
}

#[test]
fn snapshot_from_another_rig_or_corrupted_is_refused() {
    let mut c = character();
    let mut snap = vec![0u8; c.snapshot_size()];
    c.snapshot(&mut snap).unwrap();
    let mut desc = helper_rig_desc();
    desc.springs.pop();
    let mut other = Character::new(
        std::sync::Arc::new(secmo::Rig::new(desc).unwrap()),
        Default::default(),
    );
    assert!(matches!(other.restore(&snap), Err(Error::Snapshot(_))));
    assert!(matches!(
        c.restore(&snap[..snap.len() - 1]),
        Err(Error::Snapshot(_))
    ));
    let mut bad = snap.clone();
    bad[0] ^= 0xff;
    assert!(matches!(c.restore(&bad), Err(Error::Snapshot(_))));
    let mut nan = snap.clone();
    nan[secmo::SNAPSHOT_HEADER_SIZE..secmo::SNAPSHOT_HEADER_SIZE + 4]
        .copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(c.restore(&nan), Err(Error::Snapshot(_))));
    let mut small = vec![0u8; 8];
    assert!(matches!(
        c.snapshot(&mut small),
        Err(Error::BufferLength { .. })
    ));
}

#[test]
fn moving_the_whole_character_does_not_change_its_local_outputs() {
    // docs/algorithms.md §3 invariant at the character level: translating every target (here
    // via the root) translates every spring state, so local outputs agree up to
    // f32 rounding at the larger coordinates (|x| ≈ 1100 cm: ulp 1.2e-4).
    let rig = helper_rig();
    let mut near = Character::new(rig.clone(), CharacterOptions::default());
    let mut far = Character::new(rig.clone(), CharacterOptions::default());
    let shift = [1000.0f32, -250.0, 500.0];
    let mut worst = 0.0f32;
    for i in 0..300 {
        let pose = pose_at(&rig, i as f32 / 60.0, 2.0);
        let mut moved = pose.clone();
        for (t, s) in moved[0].translation.iter_mut().zip(shift) {
            *t += s;
        }
        let a = step(&mut near, 1.0 / 60.0, &pose);
        let b = step(&mut far, 1.0 / 60.0, &moved);
        for bone in [HIP_L, HIP_R, 6, 7] {
            let d = Vec3::from_array(a[bone].translation) - Vec3::from_array(b[bone].translation);
            worst = worst.max(d.abs().max_element());
        }
    }
    println!("worst local difference {worst:e}");
    let ulp_at_1100 = 1100f32.to_bits();
    let ulp_at_1100 = f32::from_bits(ulp_at_1100 + 1) - 1100.0;
    assert!(worst <= 5.0 * ulp_at_1100, "worst local difference {worst}");
    // and the motion itself is far larger than that bound
    let rec = near.spring_records()[0];
    assert!((Vec3::from(rec.output) - Vec3::from(rec.target)).length() > 0.1);
}
