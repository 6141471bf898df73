//! The helper-bone pipeline of docs/algorithms.md §4–§6: rotation constraints, springs,
//! proximity correctives (BtoB), stage toggles and stage records.

mod common;

use common::body::*;
use common::{full_body, full_body_pose};
use glam::{Affine3A, Quat, Vec3};
use secmo::{
    Character, CharacterOptions, CorrectiveState, FrameInput, Stage, StageRecords, Transform,
};

fn component(rig: &secmo::Rig, pose: &[Transform]) -> Vec<Affine3A> {
    let mut c = vec![Affine3A::IDENTITY; pose.len()];
    secmo::math::forward_kinematics(rig.parents(), pose, &mut c);
    c
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn run(c: &mut Character, rec: &mut StageRecords, dt: f32, pose: &[Transform]) -> Vec<Transform> {
    let mut out = vec![Transform::IDENTITY; pose.len()];
    c.update_recorded(
        &FrameInput {
            dt,
            pose,
            teleport: false,
        },
        &mut out,
        rec,
    )
    .unwrap();
    out
}

#[test]
fn the_hug_drives_btob_and_idle_arms_do_not() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    let mut idle_max = 0.0f32;
    let mut hug_max = 0.0f32;
    for i in 0..240 {
        let t = i as f32 / 60.0;
        run(&mut c, &mut rec, 1.0 / 60.0, &full_body_pose(&rig, t, 2.0));
        let s = c.corrective_states()[0].translation[0].abs();
        if t < 2.0 {
            idle_max = idle_max.max(s);
        } else {
            hug_max = hug_max.max(s);
        }
    }
    assert_eq!(
        idle_max, 0.0,
        "arms swinging at the sides are beyond every threshold"
    );
    assert!(
        hug_max > 0.3,
        "folded arms should push the chest: {hug_max}"
    );
    // Left chest pushed toward the midline: its local +X points outward, so negative.
    assert!(c.corrective_states()[0].translation[0] < 0.0);
    assert!(c.corrective_states()[1].translation[0] > 0.0);
    assert!(c.corrective_states()[0].scale[0] < 0.0, "flattened");
}

#[test]
fn constraint_stage_follows_the_chest_point_and_keeps_translation_and_scale() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    let mut pose = full_body_pose(&rig, 0.0, 99.0);
    pose[POINT_L].rotation = Quat::from_rotation_x(0.7).to_array();
    run(&mut c, &mut rec, 0.0, &pose);
    let before = rec.source[CHEST_L];
    let after = rec.constrained[CHEST_L];
    assert_eq!(after.translation, before.translation);
    assert_eq!(after.scale, before.scale);
    // R_new = R_target · R_offset in component space (docs/algorithms.md §4).
    let src = component(&rig, &rec.source);
    let got = component(&rig, &rec.constrained);
    let r_target = Quat::from_affine3(&src[POINT_L]);
    let expected = r_target * rig.constraints()[0].offset;
    let r_got = secmo::math::decompose(&got[CHEST_L], after.scale())
        .transform
        .rotation();
    assert!(
        r_got.angle_between(expected) < 1e-4,
        "{}",
        r_got.angle_between(expected)
    );
    // The point moved 0.7 rad, so the helper turned too.
    assert!(after.rotation().angle_between(before.rotation()) > 0.6);
}

#[test]
fn corrective_reads_post_spring_positions() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    // Arms folded from the start, and the body jolts so the chest springs lag.
    for i in 0..22 {
        let mut pose = full_body_pose(&rig, 5.0, 0.0);
        pose[PELVIS].translation[1] += if i == 21 { 12.0 } else { 0.0 };
        run(&mut c, &mut rec, 1.0 / 60.0, &pose);
    }
    let post = component(&rig, &rec.post_spring);
    let source = component(&rig, &rec.constrained);
    let lag =
        (Vec3::from(post[CHEST_L].translation) - Vec3::from(source[CHEST_L].translation)).length();
    assert!(lag > 0.3, "spring should lag after the jolt: {lag}");
    let r = c.corrective_records()[0];
    for (j, probe) in rig.correctives()[0].probes.iter().enumerate() {
        let d = rec.probe_distances[r.first_probe as usize + j];
        let from_post = (Vec3::from(post[probe.bone as usize].translation)
            - Vec3::from(post[CHEST_L].translation))
        .length();
        assert!(
            (d - from_post).abs() < 1e-4,
            "probe {j}: {d} vs post-spring {from_post}"
        );
    }
    // ... and they differ from what the pre-spring pose would give, by up to the lag.
    let most = rig.correctives()[0]
        .probes
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let from_pre = (Vec3::from(source[p.bone as usize].translation)
                - Vec3::from(source[CHEST_L].translation))
            .length();
            (rec.probe_distances[r.first_probe as usize + j] - from_pre).abs()
        })
        .fold(0.0f32, f32::max);
    assert!(
        most > 0.25 * lag,
        "largest pre/post difference {most}, lag {lag}"
    );
}

#[test]
fn parent_rotation_changes_component_distances_but_writeback_stays_local_x() {
    let rig = full_body();
    let run_with = |chest_turn: f32| {
        let mut c = Character::new(rig.clone(), CharacterOptions::default());
        c.set_stage_enabled(Stage::Springs, false);
        let mut rec = StageRecords::new(&rig);
        let mut pose = full_body_pose(&rig, 5.0, 0.0);
        pose[CHEST].rotation = Quat::from_rotation_y(chest_turn).to_array();
        // Move the left hand to a fixed **component** position near the left chest.
        for _ in 0..30 {
            run(&mut c, &mut rec, 1.0 / 60.0, &pose);
        }
        (c, rec)
    };
    let (a, ra) = run_with(0.0);
    let (b, rb) = run_with(std::f32::consts::FRAC_PI_2);
    // The whole upper body turned rigidly with the chest: distances are the same...
    for (x, y) in ra.probe_distances.iter().zip(&rb.probe_distances) {
        assert!((x - y).abs() < 1e-3, "{x} vs {y}");
    }
    // ...and the correction is written in local X for both.
    for (c, rec) in [(&a, &ra), (&b, &rb)] {
        let d_t = Vec3::from_array(rec.post_corrective[CHEST_L].translation)
            - Vec3::from_array(rec.post_spring[CHEST_L].translation);
        assert!(d_t.x.abs() > 0.1, "{d_t}");
        assert_eq!((d_t.y, d_t.z), (0.0, 0.0));
        assert_eq!(
            rec.post_corrective[CHEST_L].scale[1],
            rec.post_spring[CHEST_L].scale[1]
        );
        assert_eq!(
            rec.post_corrective[CHEST_L].scale[2],
            rec.post_spring[CHEST_L].scale[2]
        );
        assert!(c.corrective_states()[0].translation[0] != 0.0);
    }
    // In component space, the same local-X correction points along different axes.
    let ca = component(&rig, &ra.post_corrective);
    let cb = component(&rig, &rb.post_corrective);
    let pa = component(&rig, &ra.post_spring);
    let pb = component(&rig, &rb.post_spring);
    let da = Vec3::from(ca[CHEST_L].translation) - Vec3::from(pa[CHEST_L].translation);
    let db = Vec3::from(cb[CHEST_L].translation) - Vec3::from(pb[CHEST_L].translation);
    assert!(da.x.abs() > 0.1 && da.z.abs() < 1e-3, "{da}");
    assert!(db.z.abs() > 0.1 && db.x.abs() < 1e-3, "{db}");
    // Holding the hand still in component space while the chest turns changes the distances.
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    let pose = full_body_pose(&rig, 5.0, 0.0);
    run(&mut c, &mut rec, 1.0 / 60.0, &pose);
    let d0 = rec.probe_distances[2];
    let mut turned = pose.clone();
    turned[CHEST].rotation = Quat::from_rotation_y(0.5).to_array();
    // Counter-rotate the left upper arm so the hand's component position barely moves.
    turned[UPPER_ARM_L].rotation =
        (Quat::from_rotation_y(-0.5) * pose[UPPER_ARM_L].rotation()).to_array();
    run(&mut c, &mut rec, 1.0 / 60.0, &turned);
    assert!(
        (rec.probe_distances[2] - d0).abs() > 0.5,
        "{} vs {d0}",
        rec.probe_distances[2]
    );
}

#[test]
fn both_sides_use_their_own_coefficients_and_mirror() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    c.set_stage_enabled(Stage::Springs, false);
    let mut rec = StageRecords::new(&rig);
    // Only the left arm folds.
    let mut pose = full_body_pose(&rig, 5.0, 0.0);
    let idle = full_body_pose(&rig, 0.0, 99.0);
    pose[UPPER_ARM_R] = idle[UPPER_ARM_R];
    pose[FOREARM_R] = idle[FOREARM_R];
    for (b, t) in pose.iter_mut().zip(&idle).take(8) {
        *b = *t;
    }
    for _ in 0..60 {
        run(&mut c, &mut rec, 1.0 / 60.0, &pose);
    }
    let left = c.corrective_records()[0];
    let right = c.corrective_records()[1];
    // Left chest: same-side gains (0.6 cm, −6 %); right chest: opposite-side (0.25 cm, −2.5 %),
    // at the distances each one sees.
    // Target X translation recomputed from the recorded distances, choosing
    // each probe's same-side or opposite-side gain by the driven bone's side.
    let expect = |k: usize| {
        let cor = &rig.correctives()[k];
        let first = c.corrective_records()[k].first_probe as usize;
        let mut t = 0.0;
        for (j, p) in cor.probes.iter().enumerate().take(6) {
            let w = secmo::solvers::corrective::proximity(p, rec.probe_distances[first + j]);
            let gains = if p.side == cor.side {
                p.same_side
            } else {
                p.opposite_side
            };
            t += w * gains.translation.x;
        }
        t
    };
    assert!((left.target_translation[0] - expect(0)).abs() < 1e-6);
    assert!((right.target_translation[0] - expect(1)).abs() < 1e-6);
    assert!(left.target_translation[0] < 0.0 && right.target_translation[0] > 0.0);
    let per_unit_left = rig.correctives()[0].probes[2].same_side.translation.x;
    let per_unit_right = rig.correctives()[1].probes[2].opposite_side.translation.x;
    assert_eq!(per_unit_left, -0.6);
    assert_eq!(per_unit_right, 0.25);

    // Mirror: folding only the right arm gives the mirrored corrections.
    let mut mirrored = idle.clone();
    let folded = full_body_pose(&rig, 5.0, 0.0);
    for (b, m) in [(UPPER_ARM_L, UPPER_ARM_R), (FOREARM_L, FOREARM_R)] {
        let q = folded[b].rotation();
        // reflect across the YZ plane: (x, y, z, w) → (x, −y, −z, w)
        mirrored[m].rotation = Quat::from_xyzw(q.x, -q.y, -q.z, q.w).to_array();
    }
    let mut m = Character::new(rig.clone(), CharacterOptions::default());
    m.set_stage_enabled(Stage::Springs, false);
    let mut mrec = StageRecords::new(&rig);
    for _ in 0..60 {
        run(&mut m, &mut mrec, 1.0 / 60.0, &mirrored);
    }
    let (ml, mr) = (m.corrective_states()[0], m.corrective_states()[1]);
    let (l, r) = (c.corrective_states()[0], c.corrective_states()[1]);
    assert!(
        (ml.translation[0] + r.translation[0]).abs() < 1e-4,
        "{ml:?} vs {r:?}"
    );
    assert!(
        (mr.translation[0] + l.translation[0]).abs() < 1e-4,
        "{mr:?} vs {l:?}"
    );
    assert!((mr.scale[0] - l.scale[0]).abs() < 1e-5);
}

#[test]
fn changing_one_forearm_changes_only_its_distances_and_the_x_channels() {
    let rig = full_body();
    let go = |bend: f32| {
        let mut c = Character::new(rig.clone(), CharacterOptions::default());
        let mut rec = StageRecords::new(&rig);
        let mut pose = full_body_pose(&rig, 5.0, 0.0);
        pose[FOREARM_L].rotation =
            (Quat::from_rotation_x(bend) * pose[FOREARM_L].rotation()).to_array();
        for i in 0..3 {
            run(
                &mut c,
                &mut rec,
                if i == 0 { 0.0 } else { 1.0 / 60.0 },
                &pose,
            );
        }
        (c.corrective_records().to_vec(), rec)
    };
    let (ra, a) = go(0.0);
    let (rb, b) = go(0.15);
    let names = [
        "upper_l", "fore_l", "hand_l", "upper_r", "fore_r", "hand_r", "chest",
    ];
    for k in 0..2 {
        let first = ra[k].first_probe as usize;
        for (j, name) in names.iter().enumerate() {
            let (da, db) = (a.probe_distances[first + j], b.probe_distances[first + j]);
            let should_change = j == 2; // the forearm's rotation moves the hand, not the forearm head
            assert_eq!(
                da != db,
                should_change,
                "corrective {k} probe {name}: {da} vs {db}"
            );
        }
        // Only the X channels ever carry anything.
        for r in [ra[k], rb[k]] {
            assert_eq!(&r.state_translation[1..], &[0.0, 0.0]);
            assert_eq!(&r.state_scale[1..], &[0.0, 0.0]);
        }
    }
    // The left hand is within the right chest's 15 cm only (opposite side): the
    // right chest's X channels change, the left chest's do not.
    assert_ne!(ra[1].state_translation[0], rb[1].state_translation[0]);
    assert_ne!(ra[1].state_scale[0], rb[1].state_scale[0]);
    assert_eq!(ra[0].state_translation, rb[0].state_translation);
    assert_eq!(ra[0].state_scale, rb[0].state_scale);
    // Everything upstream of the corrective is identical but the bent forearm itself.
    for bone in 0..a.post_spring.len() {
        if bone != FOREARM_L {
            assert_eq!(a.post_spring[bone], b.post_spring[bone], "bone {bone}");
        }
    }
}

#[test]
fn spring_off_branch_equals_the_stage_by_stage_composition() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    c.set_stage_enabled(Stage::Springs, false);
    let mut rec = StageRecords::new(&rig);
    let mut acc = vec![CorrectiveState::default(); rig.correctives().len()];
    for i in 0..180 {
        let dt = if i == 0 { 0.0 } else { 1.0 / 60.0 };
        let pose = full_body_pose(&rig, i as f32 / 60.0, 1.0);
        let out = run(&mut c, &mut rec, dt, &pose);
        // By hand: constraints, then (no spring), then correctives.
        let mut local = pose.clone();
        let mut comp = component(&rig, &local);
        for con in rig.constraints() {
            let b = con.bone as usize;
            let parent = comp[rig.parents()[b] as usize];
            let t = con.target as usize;
            con.apply(
                &parent,
                &comp[b],
                (&comp[t], local[t].scale()),
                &mut local[b],
            );
            comp = component(&rig, &local);
        }
        assert_eq!(
            bits(&local),
            bits(&rec.constrained),
            "frame {i}: constraint stage"
        );
        assert_eq!(
            bits(&rec.post_spring),
            bits(&rec.constrained),
            "spring off passes through"
        );
        // Every corrective measures on the post-spring (here: constrained) pose.
        for (k, cor) in rig.correctives().iter().enumerate() {
            let d = cor.driven as usize;
            let distances: Vec<f32> = cor
                .probes
                .iter()
                .map(|p| {
                    (Vec3::from(comp[p.bone as usize].translation)
                        - Vec3::from(comp[d].translation))
                    .length()
                })
                .collect();
            let target = cor.target(&distances);
            cor.step(&mut acc[k], &target, dt);
        }
        for (k, cor) in rig.correctives().iter().enumerate() {
            secmo::solvers::corrective::apply(&acc[k], &mut local[cor.driven as usize]);
        }
        assert_eq!(bits(&local), bits(&out), "frame {i}: full branch");
    }
    assert!(
        acc[0].translation[0] != 0.0,
        "the hug must have engaged BtoB"
    );
}

#[test]
fn toggled_off_stages_keep_their_state() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    for i in 0..60 {
        run(
            &mut c,
            &mut rec,
            1.0 / 60.0,
            &full_body_pose(&rig, i as f32 / 60.0, 0.0),
        );
    }
    let springs = c.spring_states().to_vec();
    let correctives = c.corrective_states().to_vec();
    c.set_stage_enabled(Stage::Springs, false);
    c.set_stage_enabled(Stage::Correctives, false);
    c.set_stage_enabled(Stage::Constraints, false);
    for i in 60..90 {
        let pose = full_body_pose(&rig, i as f32 / 60.0, 0.0);
        let out = run(&mut c, &mut rec, 1.0 / 60.0, &pose);
        assert_eq!(
            bits(&out),
            bits(&pose),
            "all stages off: output is the input"
        );
    }
    assert_eq!(c.spring_states(), &springs[..]);
    assert_eq!(c.corrective_states(), &correctives[..]);
    c.set_stage_enabled(Stage::Springs, true);
    c.set_stage_enabled(Stage::Correctives, true);
    c.set_stage_enabled(Stage::Constraints, true);
    run(
        &mut c,
        &mut rec,
        1.0 / 60.0,
        &full_body_pose(&rig, 1.5, 0.0),
    );
    assert_ne!(c.spring_states(), &springs[..]);
    // Re-enabled correctives continue from their kept accumulator, not from 0.
    let w = c.corrective_records()[0].weight;
    let expected = correctives[0].translation[0]
        + (c.corrective_records()[0].target_translation[0] - correctives[0].translation[0]) * w;
    assert_eq!(c.corrective_states()[0].translation[0], expected);
}

#[test]
fn accumulator_history_matters_and_snapshots_reproduce_it() {
    let rig = full_body();
    let poses: Vec<Vec<Transform>> = (0..200)
        .map(|i| full_body_pose(&rig, i as f32 / 60.0, 1.0))
        .collect();
    let k = 110;
    let mut continuous = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    let mut snap = vec![0u8; continuous.snapshot_size()];
    let mut outputs = Vec::new();
    for (i, p) in poses.iter().enumerate() {
        if i == k {
            continuous.snapshot(&mut snap).unwrap();
        }
        outputs.push(run(&mut continuous, &mut rec, 1.0 / 60.0, p));
    }
    // Restarting at k (fresh state) differs: the accumulator and springs keep history.
    let mut restarted = Character::new(rig.clone(), CharacterOptions::default());
    let mut differs = false;
    for (i, p) in poses.iter().enumerate().skip(k) {
        let out = run(&mut restarted, &mut rec, 1.0 / 60.0, p);
        differs |= bits(&out) != bits(&outputs[i]);
    }
    assert!(differs);
    // Restoring the snapshot taken at k reproduces the continuous run bit for bit.
    let mut restored = Character::new(rig.clone(), CharacterOptions::default());
    restored.restore(&snap).unwrap();
    for (i, p) in poses.iter().enumerate().skip(k) {
        let out = run(&mut restored, &mut rec, 1.0 / 60.0, p);
        assert_eq!(bits(&out), bits(&outputs[i]), "frame {i}");
    }
    assert!(continuous.corrective_states()[0].translation[0] != 0.0);
}

#[test]
fn record_buffers_of_the_wrong_size_are_refused_and_nothing_changes() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    let pose = full_body_pose(&rig, 0.5, 0.0);
    run(&mut c, &mut rec, 1.0 / 60.0, &pose);
    let mut before = vec![0u8; c.snapshot_size()];
    c.snapshot(&mut before).unwrap();
    rec.probe_distances.pop();
    let mut out = vec![Transform::IDENTITY; pose.len()];
    let e = c
        .update_recorded(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
            &mut rec,
        )
        .unwrap_err();
    assert!(matches!(
        e,
        secmo::Error::BufferLength {
            what: "records.probe_distances",
            ..
        }
    ));
    let mut after = vec![0u8; c.snapshot_size()];
    c.snapshot(&mut after).unwrap();
    assert_eq!(before, after);
}

#[test]
fn constraint_through_a_sheared_parent_warns_on_the_update() {
    let rig = full_body();
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut pose = full_body_pose(&rig, 0.0, 99.0);
    let mut out = pose.clone();
    let info = c
        .update(
            &FrameInput {
                dt: 0.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
    assert_eq!(info.warnings, 0);
    // Non-uniform chest scale with a rotated chest point: the helper's new
    // component rotation cannot be expressed as a local TRS under that parent.
    pose[CHEST].scale = [1.6, 1.0, 0.7];
    pose[POINT_L].rotation = Quat::from_rotation_z(0.8).to_array();
    let info = c
        .update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
    assert_eq!(info.warnings & secmo::WARNING_SHEAR, secmo::WARNING_SHEAR);
    assert!(out.iter().all(Transform::is_finite));
}

#[test]
fn a_chain_under_a_corrected_bone_reads_the_corrected_pose_whatever_the_bone_order() {
    // A strap hangs from the left chest helper, its bones appended after
    // the arms: the helper's subtree is not contiguous in bone order, so
    // the FK refresh after the correctives (over each driven bone's
    // subtree range, Rig::subtree_end) must reach past the arms to it.
    let mut desc = common::full_body_desc();
    let first = desc.bones.len() as u32;
    let down = Transform::from_translation(Vec3::new(0.0, -6.0, 2.0));
    desc.bones
        .push(secmo::BoneDesc::new("strap_0", CHEST_L as i32, down));
    desc.bones
        .push(secmo::BoneDesc::new("strap_1", first as i32, down));
    desc.bones
        .push(secmo::BoneDesc::new("strap_2", first as i32 + 1, down));
    desc.chains.push(secmo::ChainDesc::new(
        vec![first + 1, first + 2],
        first,
        secmo::ChainParams::tail(desc.units_per_meter),
    ));
    let rig = std::sync::Arc::new(secmo::Rig::new(desc).unwrap());
    let mut whole = Character::new(rig.clone(), CharacterOptions::default());
    let mut rec = StageRecords::new(&rig);
    // The same chain on the pose the correctives left, every helper stage off.
    let mut chains_only = Character::new(rig.clone(), CharacterOptions::default());
    for stage in [Stage::Constraints, Stage::Springs, Stage::Correctives] {
        chains_only.set_stage_enabled(stage, false);
    }
    let mut out = vec![Transform::IDENTITY; rig.bone_count()];
    let (mut corrected, mut worst) = (0.0f32, 0.0f32);
    for i in 0..240 {
        let t = i as f32 / 60.0;
        let dt = if i == 0 { 0.0 } else { 1.0 / 60.0 };
        let mut pose = full_body_pose(&rig, t, 1.0);
        pose.truncate(first as usize);
        pose.extend((0..3).map(|_| down));
        let a = run(&mut whole, &mut rec, dt, &pose);
        let moved = Vec3::from(rec.post_corrective[CHEST_L].translation)
            - Vec3::from(rec.post_spring[CHEST_L].translation);
        corrected = corrected.max(moved.length());
        chains_only
            .update(
                &FrameInput {
                    dt,
                    pose: &rec.post_corrective,
                    teleport: false,
                },
                &mut out,
            )
            .unwrap();
        for j in first as usize + 1..rig.bone_count() {
            // Exact for small angles (glam's angle_between is 2·acos).
            let d = a[j].rotation().conjugate() * out[j].rotation();
            worst = worst.max(2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs()));
        }
    }
    assert!(corrected > 0.3, "the hug moves the helper: {corrected} cm");
    assert!(worst < 1e-4, "the strap differs by {worst} rad");
}
