//! Hardening (issue #18): snapshots are untrusted input, `Ok` means finite,
//! and one update's work is bounded. Each reproducer from the issue is a test.

mod common;

use common::*;
use glam::Vec3;
use secmo::solvers::chain::ChainClock;
use secmo::{ChainParams, Character, Error, FrameInput, Transform};

fn tail_character(params: ChainParams) -> Character {
    Character::new(shared(tail_desc(4, params)), Default::default())
}

/// Hips swinging sideways: the tail moves.
fn hips_pose(c: &Character, t: f32) -> Vec<Transform> {
    let mut pose = c.rig().reference_pose().to_vec();
    pose[TAIL_HIPS].translation[0] = 0.3 * (3.0 * t).sin();
    pose
}

fn run(c: &mut Character, frames: usize, start: usize) {
    for f in start..start + frames {
        let pose = hips_pose(c, f as f32 / 60.0);
        step(c, 1.0 / 60.0, &pose);
    }
}

fn snapshot(c: &Character) -> Vec<u8> {
    let mut s = vec![0u8; c.snapshot_size()];
    c.snapshot(&mut s).unwrap();
    s
}

/// The chain clock of a tail rig's snapshot (no springs, no correctives:
/// the character settings and the one chain's parameters, then the clock).
fn clock_at(snap: &[u8]) -> (usize, ChainClock) {
    let at = secmo::SNAPSHOT_HEADER_SIZE
        + secmo::SNAPSHOT_SETTINGS_SIZE
        + std::mem::size_of::<ChainParams>();
    let size = std::mem::size_of::<ChainClock>();
    (at, bytemuck::pod_read_unaligned(&snap[at..at + size]))
}

fn write_clock(snap: &mut [u8], clock: &ChainClock) {
    let (at, _) = clock_at(snap);
    snap[at..at + std::mem::size_of::<ChainClock>()].copy_from_slice(bytemuck::bytes_of(clock));
}

/// `restore` refuses `bad` with a snapshot error and leaves the state as it was.
fn refused(c: &mut Character, bad: &[u8], why: &str) {
    let before = snapshot(c);
    match c.restore(bad) {
        Err(Error::Snapshot(message)) => assert!(message.contains(why), "{message}"),
        other => panic!("expected a snapshot error containing {why:?}, got {other:?}"),
    }
    assert_eq!(snapshot(c), before, "a refused restore changed the state");
}

#[test]
fn a_flipped_payload_byte_is_refused_by_the_checksum() {
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 60, 0);
    let good = snapshot(&c);
    // Every byte of the payload matters: flip a bit in a particle velocity,
    // deep inside, where range checks alone would accept it.
    for at in [
        secmo::SNAPSHOT_HEADER_SIZE + 3,
        good.len() / 2,
        good.len() - 1,
    ] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        let mut other = tail_character(ChainParams::tail(1.0));
        run(&mut other, 10, 0);
        refused(&mut other, &bad, "checksum");
    }
    // The untouched snapshot restores and continues bit-identically.
    let mut other = tail_character(ChainParams::tail(1.0));
    other.restore(&good).unwrap();
    let pose = hips_pose(&c, 1.0);
    assert_eq!(
        step(&mut c, 1.0 / 60.0, &pose),
        step(&mut other, 1.0 / 60.0, &pose)
    );
}

#[test]
fn a_chain_clock_of_1e20_seconds_is_refused_even_with_a_valid_checksum() {
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 30, 0);
    let mut bad = snapshot(&c);
    let (_, mut clock) = clock_at(&bad);
    clock.time = 1e20;
    clock.simulated = 1e20;
    clock.last_update = 1e20;
    write_clock(&mut bad, &clock);
    // Without resealing: the checksum catches it.
    refused(&mut c, &bad, "checksum");
    // Resealed (someone who knows the format): the range check does.
    secmo::reseal_snapshot(&mut bad).unwrap();
    refused(&mut c, &bad, "chain clock");
    // The simulated time ahead of the input time, or negative.
    for simulated in [1e6, -1.0] {
        let mut bad = snapshot(&c);
        let (_, mut clock) = clock_at(&bad);
        clock.simulated = clock.time + simulated;
        write_clock(&mut bad, &clock);
        secmo::reseal_snapshot(&mut bad).unwrap();
        refused(&mut c, &bad, "chain clock");
    }
}

/// The skin guard's level (`ChainClock::guard`) and how far the rest lies
/// toward the input's pose (`ChainClock::on_pose`), each 0 to 1: anything
/// else in a resealed snapshot is refused, and levels inside the range are
/// taken.
#[test]
fn a_skin_guard_level_outside_0_to_1_is_refused() {
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 30, 0);
    for (guard, on_pose) in [
        (f32::NAN, 0.0),
        (-0.01, 0.0),
        (1.01, 0.0),
        (f32::INFINITY, 0.0),
        (0.5, f32::NAN),
        (0.5, -0.01),
        (0.5, 1.01),
    ] {
        let mut bad = snapshot(&c);
        let (_, mut clock) = clock_at(&bad);
        clock.guard = guard;
        clock.on_pose = on_pose;
        write_clock(&mut bad, &clock);
        secmo::reseal_snapshot(&mut bad).unwrap();
        refused(&mut c, &bad, "chain clock");
    }
    let mut half = snapshot(&c);
    let (_, mut clock) = clock_at(&half);
    clock.guard = 0.5;
    clock.on_pose = 0.5;
    write_clock(&mut half, &clock);
    secmo::reseal_snapshot(&mut half).unwrap();
    c.restore(&half).unwrap();
}

#[test]
fn a_velocity_of_3e38_is_refused_and_updates_keep_working() {
    // Spring velocity (the helper rig) ...
    let mut h = character();
    let rig = h.rig().clone();
    for i in 0..30 {
        step(&mut h, 1.0 / 30.0, &pose_at(&rig, i as f32 / 30.0, 2.0));
    }
    let mut bad = snapshot(&h);
    let at = secmo::SNAPSHOT_HEADER_SIZE;
    let size = std::mem::size_of::<secmo::SpringState>();
    let mut s: secmo::SpringState = bytemuck::pod_read_unaligned(&bad[at..at + size]);
    s.velocity = [3e38, 0.0, 0.0];
    bad[at..at + size].copy_from_slice(bytemuck::bytes_of(&s));
    secmo::reseal_snapshot(&mut bad).unwrap();
    refused(&mut h, &bad, "spring state");
    // ... and chain particle velocity.
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 30, 0);
    let mut bad = snapshot(&c);
    let (at, _) = clock_at(&bad);
    // Clocks, then positions, then velocities (4 particles).
    let v = at + std::mem::size_of::<ChainClock>() + 4 * 12;
    bad[v..v + 4].copy_from_slice(&3e38f32.to_le_bytes());
    secmo::reseal_snapshot(&mut bad).unwrap();
    refused(&mut c, &bad, "chain particles");
    // The character still updates.
    run(&mut c, 5, 30);
}

#[test]
fn a_restore_never_makes_a_later_update_hang_or_fail() {
    // The latest clock the bounds accept, with the largest backlog they
    // accept: the next update runs at most MAX_CHAIN_SUBSTEPS substeps and
    // succeeds.
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 30, 0);
    let mut edge = snapshot(&c);
    let (_, mut clock) = clock_at(&edge);
    clock.time = secmo::snapshot_limits::MAX_CLOCK_SECONDS;
    clock.last_update = clock.time;
    clock.simulated = 0.0; // far behind: an LOD hold can leave it so
    write_clock(&mut edge, &clock);
    secmo::reseal_snapshot(&mut edge).unwrap();
    c.restore(&edge).unwrap();
    let pose = hips_pose(&c, 0.5);
    for _ in 0..3 {
        let out = step(&mut c, 1.0 / 60.0, &pose);
        assert!(out.iter().all(Transform::is_finite));
    }
    let (_, clock) = clock_at(&snapshot(&c));
    assert!(
        clock.time - clock.simulated < 1.0 / 120.0 + 1e-6,
        "{clock:?}"
    );
}

#[test]
fn one_update_runs_a_bounded_number_of_substeps_whatever_the_time_factor() {
    // time_factor 0.001: each substep is 8.3 µs of input time. After a 5 s
    // pause the old cap (in input time) meant 600,000 substeps in one update.
    let mut params = ChainParams::tail(1.0);
    params.time_factor = 0.001;
    let mut c = tail_character(params);
    run(&mut c, 2, 0);
    let pose = hips_pose(&c, 1.0);
    step(&mut c, 5.0, &pose);
    let (_, clock) = clock_at(&snapshot(&c));
    // The backlog past MAX_CHAIN_SUBSTEPS substeps was dropped, not run.
    let h = 1.0 / 120.0 * 0.001;
    assert!(clock.time - clock.simulated <= h + 1e-12, "{clock:?}");
    assert_eq!(secmo::MAX_CHAIN_SUBSTEPS, 600);
}

#[test]
fn a_parent_scale_of_1e20_is_refused_and_large_but_sane_scales_are_finite() {
    let mut c = character();
    let rig = c.rig().clone();
    let pose = pose_at(&rig, 0.0, 1.0);
    step(&mut c, 1.0 / 30.0, &pose);
    let before = snapshot(&c);
    let mut huge = pose.clone();
    huge[0].scale = [1e20, 1e20, 1e20];
    let mut out = pose.clone();
    let r = c.update(
        &FrameInput {
            dt: 1.0 / 30.0,
            pose: &huge,
            teleport: false,
        },
        &mut out,
    );
    assert!(
        matches!(r, Err(Error::DegeneratePose { bone: 0, .. })),
        "{r:?}"
    );
    assert_eq!(snapshot(&c), before);
    // 1e3 is accepted and gives finite output.
    let mut big = pose.clone();
    big[0].scale = [1e3, 1e3, 1e3];
    let out = step(&mut c, 1.0 / 30.0, &big);
    assert!(out.iter().all(Transform::is_finite));
}

#[test]
fn overflowing_wind_gravity_and_wind_factor_are_refused_and_the_largest_stay_finite() {
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 10, 0);
    assert!(matches!(
        c.set_wind(Vec3::new(3e38, 0.0, 0.0)),
        Err(Error::InvalidParameter(_))
    ));
    // The largest accepted wind keeps everything finite.
    c.set_wind(Vec3::new(secmo::MAX_WIND_M_PER_S2, 0.0, 0.0))
        .unwrap();
    run(&mut c, 30, 10);
    c.set_wind(Vec3::ZERO).unwrap();

    // Gravity and wind factors whose products overflow are refused by name.
    for (gravity, wind_factor) in [(3e38, 1.0), (1.0, 3e38)] {
        let mut params = ChainParams::tail(1.0);
        params.gravity = gravity;
        params.wind_factor = wind_factor;
        match c.set_chain_params(0, params) {
            Err(Error::InvalidParameter(m)) => assert!(m.contains("gravity"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    // The largest accepted ones with the largest wind: every update is Ok
    // and finite (a chain whose state would leave the range is re-seeded on
    // the animation), and the character's own snapshot restores.
    let mut params = ChainParams::tail(1.0);
    params.gravity = 1e7;
    params.wind_factor = 1e3;
    c.set_chain_params(0, params).unwrap();
    c.set_wind(Vec3::new(secmo::MAX_WIND_M_PER_S2, 0.0, 0.0))
        .unwrap();
    for f in 0..30 {
        let pose = hips_pose(&c, f as f32 / 60.0);
        let out = step(&mut c, 1.0 / 60.0, &pose);
        assert!(out.iter().all(Transform::is_finite));
    }
    let mut other = tail_character(ChainParams::tail(1.0));
    other.restore(&snapshot(&c)).unwrap();
}

#[test]
fn an_lod_skipped_chain_with_a_tiny_dt_stays_finite() {
    // LOD skip follows the animation with its velocity (tip − p) / dt: with
    // dt = 1e-40 that was infinite and committed with Ok.
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 10, 0);
    c.set_importance(-1.0).unwrap();
    let mut moved = hips_pose(&c, 0.0);
    moved[TAIL_HIPS].translation[0] += 0.5;
    let out = step(&mut c, 1e-40, &moved);
    assert!(out.iter().all(Transform::is_finite));
    c.set_importance(1.0).unwrap();
    run(&mut c, 30, 10);
    let mut other = tail_character(ChainParams::tail(1.0));
    other.restore(&snapshot(&c)).unwrap();
}

/// A C-ABI character over the 4-bone helper rig's first two bones (root and
/// one child), in metres.
fn ffi_character() -> (*mut secmo::ffi::SecmoRig, *mut secmo::ffi::SecmoCharacter) {
    use secmo::ffi::*;
    let parents = [-1i32, 0];
    let reference = [Transform::IDENTITY, Transform::from_translation(Vec3::Y)];
    let desc = SecmoRigDesc {
        bone_count: 2,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 1.0,
        ..Default::default()
    };
    let (mut rig, mut ch) = (std::ptr::null_mut(), std::ptr::null_mut());
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
    }
    (rig, ch)
}

#[test]
fn c_lengths_are_checked_before_any_slice_exists() {
    use secmo::ffi::*;
    let (rig, ch) = ffi_character();
    let pose = [Transform::IDENTITY, Transform::from_translation(Vec3::Y)];
    let mut out = pose;
    let frame = |pose_len: usize| SecmoFrameInput {
        struct_size: std::mem::size_of::<SecmoFrameInput>() as u32,
        flags: 0,
        dt: 1.0 / 60.0,
        pose: pose.as_ptr(),
        pose_len,
        world: Transform::IDENTITY,
        importance: 1.0,
    };
    // A length past isize::MAX bytes: an error code, not undefined behaviour
    // (a debug build used to abort here).
    for len in [usize::MAX, usize::MAX / 40 + 1, 3] {
        let r = unsafe {
            secmo_character_update(ch, &frame(len), out.as_mut_ptr(), 2, std::ptr::null_mut())
        };
        assert_eq!(r, SECMO_ERROR_BUFFER_LENGTH, "pose_len {len}");
        let r = unsafe {
            secmo_character_update(ch, &frame(2), out.as_mut_ptr(), len, std::ptr::null_mut())
        };
        assert_eq!(r, SECMO_ERROR_BUFFER_LENGTH, "out_pose_len {len}");
    }
    // A struct_size that would copy half of the pose pointer.
    let mut half = frame(2);
    half.struct_size = 12;
    let r = unsafe { secmo_character_update(ch, &half, out.as_mut_ptr(), 2, std::ptr::null_mut()) };
    assert_eq!(r, SECMO_ERROR_STRUCT_SIZE);
    // out_info with an unshipped struct_size.
    let mut info = SecmoUpdateInfo {
        struct_size: 10,
        ..Default::default()
    };
    let r = unsafe { secmo_character_update(ch, &frame(2), out.as_mut_ptr(), 2, &mut info) };
    assert_eq!(r, SECMO_ERROR_STRUCT_SIZE);
    // A misaligned output buffer.
    let mut bytes = vec![0u8; std::mem::size_of_val(&out) + 8];
    let misaligned = unsafe { bytes.as_mut_ptr().add(1) } as *mut Transform;
    let r = unsafe { secmo_character_update(ch, &frame(2), misaligned, 2, std::ptr::null_mut()) };
    assert_eq!(r, SECMO_ERROR_INVALID_ARGUMENT);
    // And the good call works.
    let r =
        unsafe { secmo_character_update(ch, &frame(2), out.as_mut_ptr(), 2, std::ptr::null_mut()) };
    assert_eq!(r, SECMO_OK);
    unsafe {
        secmo_character_destroy(ch);
        secmo_rig_destroy(rig);
    }
}

#[test]
fn an_inverse_bind_with_a_singular_3x3_block_is_refused() {
    use secmo::{BoneDesc, Rig, RigDesc, RigError};
    // det(4×4) = −1, but the 3×3 block that bind-pose recovery inverts is
    // singular (and the last row is not (0, 0, 0, 1)): it gave a NaN neutral
    // pose with Ok.
    let m = glam::Mat4::from_cols_array(&[
        0.0, 0.0, 0.0, 1.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        1.0, 0.0, 0.0, 0.0,
    ]);
    assert!(m.determinant().abs() > 0.5);
    let mut bone = BoneDesc::new("root", -1, Transform::IDENTITY);
    bone.inverse_bind = Some(m);
    let r = Rig::new(RigDesc {
        bones: vec![bone],
        ..Default::default()
    });
    assert!(
        matches!(r, Err(RigError::SingularInverseBind { bone: 0 })),
        "{r:?}"
    );
}

#[test]
fn duplicate_bone_names_are_refused_where_settings_name_them() {
    let mut desc = tail_desc(3, ChainParams::tail(1.0));
    let settings = secmo::RigSettings::from_rig(&secmo::Rig::new(desc.clone()).unwrap());
    // Two bones called "tail_2": the file's chain could mean either.
    desc.bones[4].name = "tail_2".into();
    let e = settings
        .to_rig_desc(desc.bones.clone(), 1.0, secmo::UpAxis::Y)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bones 3 and 4 are both named \"tail_2\""), "{e}");
    // A duplicate the settings do not refer to is harmless: "root" twice.
    desc.bones[4].name = "tail_3".into();
    desc.bones
        .push(secmo::BoneDesc::new("root", 0, Transform::IDENTITY));
    assert!(settings
        .to_rig_desc(desc.bones.clone(), 1.0, secmo::UpAxis::Y)
        .is_ok());
    // One it does (the anchor) is refused.
    desc.bones[0].name = "hips".into();
    let e = settings
        .to_rig_desc(desc.bones, 1.0, secmo::UpAxis::Y)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bones 0 and 1 are both named \"hips\""), "{e}");
}

#[test]
fn rig_creation_is_linear_in_chains() {
    // 60,000 one-joint chains under one anchor took 48 s (a quadratic
    // shared-joint check). Now each bone remembers its chain. Not a timed
    // test: the check is that this finishes at all in a debug test run;
    // benches/rig.rs measures it.
    let rig = secmo::Rig::new(common::many_chains(20_000)).unwrap();
    assert_eq!(rig.chains().len(), 20_000);
}

#[test]
fn a_fresh_characters_own_snapshot_restores() {
    // Found by fuzz/c_abi: before its first update a chain holds all-zero
    // frames, which the range checks took for corruption.
    for mut c in [tail_character(ChainParams::tail(1.0)), character()] {
        let snap = snapshot(&c);
        c.restore(&snap).unwrap();
        let mut other = Character::new(c.rig().clone(), Default::default());
        other.restore(&snap).unwrap();
    }
    let mut c = Character::new(shared(secmo_fuzz_like_rig()), Default::default());
    let snap = snapshot(&c);
    c.restore(&snap).unwrap();
}

/// A tail with a collider (unseeded collider frames are all zero too).
fn secmo_fuzz_like_rig() -> secmo::RigDesc {
    let mut desc = tail_desc(3, ChainParams::tail(1.0));
    desc.colliders.push(secmo::Collider {
        bone: 1,
        shape: secmo::ColliderShape::Sphere,
        a: Vec3::ZERO,
        b: Vec3::ZERO,
        radius: 0.1,
    });
    desc.chains[0].colliders = vec![0];
    desc
}

#[test]
fn a_snapshot_taken_during_an_lod_hold_after_a_long_frame_restores() {
    // Found by fuzz/c_abi: a half-rate LOD hold advances the input time but
    // not the simulated time, so after a long frame the two are far apart
    // in a valid snapshot.
    let mut params = ChainParams::tail(1.0);
    params.lod_half_below = 0.5;
    let mut c = tail_character(params);
    run(&mut c, 3, 0);
    c.set_importance(0.1).unwrap();
    let pose = hips_pose(&c, 0.1);
    // One of two consecutive updates is a hold.
    let mut snap = snapshot(&c);
    for _ in 0..2 {
        step(&mut c, 3600.0, &pose);
        snap = snapshot(&c);
        let (_, clock) = clock_at(&snap);
        if clock.time - clock.simulated > 3000.0 {
            break;
        }
    }
    let (_, clock) = clock_at(&snap);
    assert!(clock.time - clock.simulated > 3000.0, "{clock:?}");
    let mut other = tail_character(params);
    other
        .restore(&snap)
        .unwrap_or_else(|e| panic!("{e}: {clock:?}"));
    run(&mut other, 3, 10);
}

#[test]
fn a_world_translation_beyond_1e7_m_is_refused() {
    // Found by fuzz/c_abi: a world translation of −1.7e38 was accepted and
    // put chain positions where the character's own snapshot was refused.
    let mut c = tail_character(ChainParams::tail(1.0));
    let far = Transform::from_translation(Vec3::new(0.0, -1.7e38, 0.0));
    assert!(matches!(
        c.set_world_transform(far),
        Err(Error::InvalidParameter(_))
    ));
    // 10 km from the origin is fine, and its snapshot restores.
    c.set_world_transform(Transform::from_translation(Vec3::new(1e4, 0.0, 0.0)))
        .unwrap();
    run(&mut c, 30, 0);
    let mut other = tail_character(ChainParams::tail(1.0));
    other.restore(&snapshot(&c)).unwrap();
}

#[test]
fn an_accepted_snapshot_with_an_absurd_frame_is_reseeded_not_failed() {
    // Found by fuzz/snapshot: a restored parent frame with a scale of 1e30
    // (in range for a frame, which is a product of scales) threw the chain
    // 1e20 m away on the next update, which then failed, and every later one.
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 20, 0);
    let mut snap = snapshot(&c);
    let (_, mut clock) = clock_at(&snap);
    clock.previous_parent.scale = [1e30, 1e30, 1e30];
    write_clock(&mut snap, &clock);
    secmo::reseal_snapshot(&mut snap).unwrap();
    let mut other = tail_character(ChainParams::tail(1.0));
    if other.restore(&snap).is_ok() {
        for f in 0..5 {
            let pose = hips_pose(&other, f as f32 / 60.0);
            let out = step(&mut other, 5.0, &pose);
            assert!(out.iter().all(Transform::is_finite));
        }
        let positions = other.particle_positions();
        assert!(positions.iter().all(|p| p.length() < 10.0), "{positions:?}");
        let mut again = tail_character(ChainParams::tail(1.0));
        again.restore(&snapshot(&other)).unwrap();
    }
}

#[test]
fn shifting_the_world_continues_the_motion_and_refuses_bad_shifts() {
    // A floating origin (large worlds): after 1 s at world position A, one
    // run keeps A, the other shifts secmo's state by d and passes A − d as
    // the world from then on (the same place, relative to a moved origin).
    let mut a = tail_character(ChainParams::tail(1.0));
    let world = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 2.0));
    a.set_world_transform(world(30.0)).unwrap();
    run(&mut a, 60, 0);
    let mut b = Character::new(a.rig().clone(), Default::default());
    b.restore(&snapshot(&a)).unwrap();
    b.set_world_transform(world(30.0)).unwrap();
    b.shift_world(Vec3::new(-25.0, 0.0, 0.0)).unwrap();
    b.set_world_transform(world(5.0)).unwrap();
    let mut worst = 0.0f32;
    for f in 60..240 {
        let pose = hips_pose(&a, f as f32 / 60.0);
        let oa = step(&mut a, 1.0 / 60.0, &pose);
        let ob = step(&mut b, 1.0 / 60.0, &pose);
        for (x, y) in oa.iter().zip(&ob) {
            let d = x.rotation() * y.rotation().conjugate();
            worst = worst.max(2.0 * Vec3::new(d.x, d.y, d.z).length());
        }
    }
    assert!(worst < 1e-4, "the shifted run strays {worst} rad");
    // Bad shifts change nothing.
    let before = snapshot(&b);
    assert!(matches!(
        b.shift_world(Vec3::new(f32::NAN, 0.0, 0.0)),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        b.shift_world(Vec3::new(3e10, 0.0, 0.0)),
        Err(Error::InvalidParameter(_))
    ));
    assert_eq!(snapshot(&b), before);
}

#[test]
fn a_chain_whose_animation_leaves_the_state_range_rests_on_it_and_resumes() {
    // The chain stage changes its state in place and cannot fail: a chain
    // whose animated pose itself lies beyond the state range (1e7 m) is
    // parked on the animation (finite output, Ok), the character's own
    // snapshot still restores, and back in range the chain simulates again.
    let mut c = tail_character(ChainParams::tail(1.0));
    run(&mut c, 30, 0);
    let mut far = hips_pose(&c, 0.5);
    far[TAIL_HIPS].translation[0] = 3e7;
    let mut out = far.clone();
    for _ in 0..3 {
        c.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &far,
                teleport: false,
            },
            &mut out,
        )
        .expect("a chain out of the range is parked, not an error");
        assert!(out.iter().all(Transform::is_finite));
        for j in TAIL_HIPS + 1..out.len() {
            assert_eq!(out[j].rotation, far[j].rotation, "joint {j} stays animated");
        }
    }
    let snap = snapshot(&c);
    let mut twin = tail_character(ChainParams::tail(1.0));
    twin.restore(&snap)
        .expect("the character's own snapshot restores");
    // Back near the origin the tail is seeded again and swings.
    let mut moved = 0f32;
    for f in 0..60 {
        let pose = hips_pose(&c, f as f32 / 60.0);
        let out = step(&mut c, 1.0 / 60.0, &pose);
        for j in TAIL_HIPS + 1..out.len() {
            moved = moved.max(out[j].rotation().angle_between(pose[j].rotation()));
        }
    }
    assert!(moved > 0.01, "the tail simulates again: {moved} rad");
}

/// `secmo_rig_warning` reports a chain listed before the chain moving what
/// it reads (`SECMO_WARNING_CHAIN_ORDER`, the bone read), and nothing for
/// the same chains in order; an index past the count is refused.
#[test]
fn the_c_abi_reports_a_chain_listed_before_the_chain_it_hangs_from() {
    use secmo::ffi::*;
    // root ─ upper (joint of one chain) ─ lower (joint of another).
    let parents = [-1i32, 0, 1, 2];
    let reference: Vec<Transform> = (0..4)
        .map(|i| Transform::from_translation(-Vec3::Y * 0.1 * i as f32))
        .collect();
    let chain = |joint: &u32, anchor: u32| SecmoChainDesc {
        anchor,
        joints: joint,
        joint_count: 1,
        preset: SECMO_CHAIN_VRM,
        ..Default::default()
    };
    let (upper, lower) = (1u32, 2u32);
    for (chains, warned) in [
        ([chain(&upper, 0), chain(&lower, 1)], false),
        ([chain(&lower, 1), chain(&upper, 0)], true),
    ] {
        let desc = SecmoRigDesc {
            bone_count: 4,
            parents: parents.as_ptr(),
            reference_pose: reference.as_ptr(),
            units_per_meter: 1.0,
            chains: chains.as_ptr(),
            chain_count: 2,
            ..Default::default()
        };
        let mut rig = std::ptr::null_mut();
        let (mut kind, mut bone) = (0u32, 0u32);
        unsafe {
            assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
            assert_eq!(secmo_rig_warning_count(rig), u32::from(warned));
            if warned {
                assert_eq!(secmo_rig_warning(rig, 0, &mut kind, &mut bone), SECMO_OK);
                assert_eq!((kind, bone), (SECMO_WARNING_CHAIN_ORDER, 1));
            }
            assert_eq!(
                secmo_rig_warning(rig, u32::from(warned), &mut kind, &mut bone),
                SECMO_ERROR_INVALID_ARGUMENT
            );
            secmo_rig_destroy(rig);
        }
    }
}

/// The helper rig (springs on the hips and chest) with a hair strand on the
/// chest and a prop under the root with a bone below it that no stage reads.
fn rig_with_a_prop() -> (std::sync::Arc<secmo::Rig>, usize, usize) {
    let mut desc = helper_rig_desc();
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let chest = 3;
    let hair = desc.bones.len() as u32;
    desc.bones
        .push(secmo::BoneDesc::new("hair_0", chest, t(0.0, 20.0, -8.0)));
    desc.bones.push(secmo::BoneDesc::new(
        "hair_1",
        hair as i32,
        t(0.0, -8.0, -2.0),
    ));
    desc.bones.push(secmo::BoneDesc::new(
        "hair_2",
        hair as i32 + 1,
        t(0.0, -8.0, 0.0),
    ));
    let prop = desc.bones.len();
    desc.bones
        .push(secmo::BoneDesc::new("prop", 0, t(30.0, 90.0, 0.0)));
    desc.bones.push(secmo::BoneDesc::new(
        "prop_tip",
        prop as i32,
        t(0.0, 10.0, 0.0),
    ));
    desc.chains.push(secmo::ChainDesc::new(
        vec![hair, hair + 1, hair + 2],
        chest as u32,
        ChainParams::hair(UPM),
    ));
    (shared(desc), chest as usize, prop)
}

#[test]
fn a_zero_scale_hides_a_bone_no_stage_reads_and_is_refused_on_one_it_reads() {
    // Engines and clips hide a prop by scaling its bone to zero. On a bone
    // that no stage reads (nor any bone below it) that is not an error: the
    // bone passes through and every other output is the same, bit for bit,
    // as with the prop shown.
    let (rig, chest, prop) = rig_with_a_prop();
    assert!(!rig.reads_bone(prop) && !rig.reads_bone(prop + 1));
    for b in 0..prop {
        assert!(rig.reads_bone(b), "bone {b} ({:?})", rig.bone_name(b));
    }
    let mut shown = Character::new(rig.clone(), Default::default());
    let mut hidden = Character::new(rig.clone(), Default::default());
    for f in 0..120 {
        let pose = pose_at(&rig, f as f32 / 60.0, 2.0);
        let mut hiding = pose.clone();
        if f >= 30 {
            hiding[prop].scale = [0.0; 3];
            hiding[prop + 1].scale = [0.0, 1.0, 0.0];
        }
        let a = step(&mut shown, 1.0 / 60.0, &pose);
        let b = step(&mut hidden, 1.0 / 60.0, &hiding);
        for bone in 0..prop {
            assert_eq!(a[bone], b[bone], "frame {f}, bone {bone}");
        }
        assert_eq!(b[prop], hiding[prop], "frame {f}: the prop passes through");
        assert_eq!(b[prop + 1], hiding[prop + 1]);
        assert!(b.iter().all(Transform::is_finite));
    }
    assert_eq!(snapshot(&shown), snapshot(&hidden));
    // The hair moved: the test is not of a still character.
    let rest = rig.reference_pose()[chest + 5];
    let out = step(&mut hidden, 1.0 / 60.0, &pose_at(&rig, 2.0, 2.0));
    assert!(
        glam::Quat::from_array(out[chest + 5].rotation)
            .angle_between(glam::Quat::from_array(rest.rotation))
            > 0.01
    );
    // On a bone that a stage reads — the strand's anchor, an ancestor of
    // it, a spring bone — a zero scale is refused and the state kept.
    let before = snapshot(&hidden);
    for bone in [chest, 0, 4] {
        let mut pose = pose_at(&rig, 2.0, 2.0);
        pose[bone].scale = [1.0, 0.0, 1.0];
        let mut out = pose.clone();
        let r = hidden.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        );
        assert_eq!(
            r.unwrap_err(),
            Error::DegeneratePose {
                bone,
                what: "scale has a zero component"
            }
        );
        assert_eq!(snapshot(&hidden), before);
    }
}

/// The input check's bounds, exactly: every scale component's magnitude
/// from `MIN_SCALE` (on a bone a stage reads; below it only on one no
/// stage reads) to `MAX_SCALE` passes, the next float past either is
/// refused with the bone and the reason, in each component and sign; a
/// rotation is refused where `math::usable_rotation` refuses it.
#[test]
fn the_input_check_refuses_scales_and_rotations_exactly_past_their_bounds() {
    use secmo::math::{MAX_SCALE, MIN_SCALE};
    let (rig, _, prop) = rig_with_a_prop();
    let c = Character::new(rig.clone(), Default::default());
    let base = pose_at(&rig, 0.5, 2.0);
    let check = |pose: &[Transform]| {
        c.validate_input(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose,
                teleport: false,
            },
            pose.len(),
        )
    };
    assert_eq!(check(&base), Ok(()));
    let small = "scale has a zero component";
    let large = "scale has a component beyond 1e4 (math::MAX_SCALE)";
    for bone in [0, 4, prop, prop + 1] {
        let read = rig.reads_bone(bone);
        assert_eq!(read, bone < prop);
        for k in 0..3 {
            for sign in [1.0f32, -1.0] {
                let with = |v: f32| {
                    let mut pose = base.clone();
                    pose[bone].scale[k] = sign * v;
                    check(&pose)
                };
                let refused = |what| Err(Error::DegeneratePose { bone, what });
                assert_eq!(with(MIN_SCALE), Ok(()), "bone {bone}, component {k}");
                assert_eq!(with(MAX_SCALE), Ok(()), "bone {bone}, component {k}");
                assert_eq!(with(MAX_SCALE.next_up()), refused(large));
                let below = [MIN_SCALE.next_down(), f32::from_bits(1), 0.0];
                for v in below {
                    let want = if read { refused(small) } else { Ok(()) };
                    assert_eq!(with(v), want, "bone {bone}, component {k}, {v:e}");
                }
            }
        }
        let with_rotation = |q: [f32; 4]| {
            let mut pose = base.clone();
            pose[bone].rotation = q;
            check(&pose)
        };
        let what = "rotation quaternion cannot be normalised (zero length, or a squared length beyond float32's range)";
        for q in [[0.0; 4], [1e-7, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2e19]] {
            let usable = secmo::math::usable_rotation(glam::Quat::from_array(q));
            assert!(!usable);
            assert_eq!(with_rotation(q), Err(Error::DegeneratePose { bone, what }));
        }
        for q in [[0.0, 1e-6, 0.0, 0.0], [0.0, 0.0, 1e19, 0.0]] {
            assert_eq!(with_rotation(q), Ok(()), "bone {bone}, {q:?}");
        }
    }
}

/// A rig with colliders and no chain: its snapshot is as large as
/// `snapshot_size` says, and restores (the colliders move nothing, so no
/// collider frames are kept).
#[test]
fn a_rig_with_colliders_and_no_chain_snapshots_and_restores() {
    use secmo::ffi::*;
    let mut desc = tail_desc(3, ChainParams::tail(1.0));
    desc.chains.clear();
    desc.colliders = vec![secmo::Collider {
        bone: 1,
        shape: secmo::ColliderShape::Sphere,
        a: Vec3::ZERO,
        b: Vec3::ZERO,
        radius: 0.1,
    }];
    let mut c = Character::new(shared(desc.clone()), Default::default());
    run(&mut c, 10, 0);
    let snap = snapshot(&c);
    assert_eq!(snap.len(), c.snapshot_size());
    c.restore(&snap).unwrap();
    // The same through the C ABI.
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let collider = SecmoColliderDesc {
        struct_size: std::mem::size_of::<SecmoColliderDesc>() as u32,
        shape: SECMO_COLLIDER_SPHERE,
        bone: 1,
        a: [0.0; 3],
        b: [0.0; 3],
        radius: 0.1,
    };
    let d = SecmoRigDesc {
        bone_count: parents.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 1.0,
        colliders: &collider,
        collider_count: 1,
        ..Default::default()
    };
    // SAFETY: valid descriptors and buffers; handles destroyed below.
    unsafe {
        let (mut rig, mut ch) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(secmo_rig_create(&d, &mut rig), SECMO_OK);
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
        let mut size = 0;
        assert_eq!(secmo_character_snapshot_size(ch, &mut size), SECMO_OK);
        let mut buf = vec![0u8; size];
        let mut written = 0;
        let r = secmo_character_snapshot(ch, buf.as_mut_ptr(), buf.len(), &mut written);
        assert_eq!(
            r,
            SECMO_OK,
            "{:?}",
            std::ffi::CStr::from_ptr(secmo_last_error_message())
        );
        assert_eq!(written, size);
        assert_eq!(secmo_character_restore(ch, buf.as_ptr(), written), SECMO_OK);
        secmo_character_destroy(ch);
        secmo_rig_destroy(rig);
    }
}

/// Everything a later update reads is in the snapshot: a snapshot restored
/// into a fresh character continues bit for bit, although the updates after
/// it leave the world transform, importance and wind out (they keep the last
/// ones) and the character had its chain parameters, stages and substep
/// target changed.
#[test]
fn a_snapshot_restored_into_a_fresh_character_continues_bit_for_bit() {
    use secmo::{CharacterOptions, Stage, SubstepTarget};
    let rig = shared(tail_desc(4, ChainParams::tail(1.0)));
    let mut a = Character::new(rig.clone(), Default::default());
    a.set_world_transform(Transform::new(
        Vec3::new(3.0, 0.5, -2.0),
        glam::Quat::from_rotation_y(0.7),
        Vec3::splat(1.3),
    ))
    .unwrap();
    a.set_importance(0.4).unwrap();
    a.set_wind(Vec3::new(2.0, 0.0, 1.0)).unwrap();
    let mut p = *a.chain_params(0).unwrap();
    p.lod_half_below = 0.5; // half rate at importance 0.4
    p.gravity *= 0.5;
    a.set_chain_params(0, p).unwrap();
    a.set_options(CharacterOptions {
        substep_target: SubstepTarget::Interpolate,
    });
    a.set_stage_enabled(Stage::Springs, false);
    run(&mut a, 45, 0);
    let snap = snapshot(&a);
    let mut b = Character::new(rig, Default::default());
    b.restore(&snap).unwrap();
    assert_eq!(
        snapshot(&b),
        snap,
        "the restored character's own snapshot is the same"
    );
    let mut moved = 0f32;
    for f in 45..165 {
        let pose = hips_pose(&a, f as f32 / 60.0);
        let (oa, ob) = (
            step(&mut a, 1.0 / 60.0, &pose),
            step(&mut b, 1.0 / 60.0, &pose),
        );
        assert_eq!(oa, ob, "update {f} after the restore");
        moved =
            moved.max(glam::Quat::from_array(oa[3].rotation).angle_between(glam::Quat::IDENTITY));
    }
    assert!(moved > 0.05, "the tail moves ({moved} rad)");
    // A settings section out of range is refused and changes nothing.
    let mut bad = snap.clone();
    let importance_at = secmo::SNAPSHOT_HEADER_SIZE + 40 + 12;
    bad[importance_at..importance_at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    secmo::reseal_snapshot(&mut bad).unwrap();
    refused(&mut b, &bad, "character settings");
    let mut bad = snap.clone();
    let (at, _) = clock_at(&snap);
    let integrator_at = at - std::mem::size_of::<ChainParams>() + 4;
    bad[integrator_at..integrator_at + 4].copy_from_slice(&7u32.to_le_bytes()); // no such integrator
    secmo::reseal_snapshot(&mut bad).unwrap();
    refused(&mut b, &bad, "chain parameters");
}

/// A rig is accepted only if its own reference pose updates: a reference
/// rotation whose squared length overflows float32 is refused with the
/// bone's index and name, as an input pose with it is; a merely
/// unnormalised one is accepted and updates.
#[test]
fn a_reference_rotation_that_cannot_be_normalised_is_refused_by_name() {
    use secmo::ffi::*;
    let mut desc = tail_desc(3, ChainParams::tail(1.0));
    desc.bones[3].reference.rotation = [0.0, 0.0, 1e30, 1.0];
    match secmo::Rig::new(desc.clone()) {
        Err(e) => {
            let message = e.describe(&desc.bones);
            assert!(
                message.starts_with("bone 3 (\"tail_2\"): reference rotation"),
                "{message}"
            );
        }
        Ok(_) => panic!("a rig whose reference rotation cannot be normalised was accepted"),
    }
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let names: Vec<std::ffi::CString> = desc
        .bones
        .iter()
        .map(|b| std::ffi::CString::new(b.name.as_str()).unwrap())
        .collect();
    let name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let d = SecmoRigDesc {
        bone_count: parents.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        bone_names: name_ptrs.as_ptr(),
        units_per_meter: 1.0,
        ..Default::default()
    };
    let mut rig = std::ptr::null_mut();
    // SAFETY: a valid descriptor whose arrays outlive the call.
    unsafe {
        assert_eq!(secmo_rig_create(&d, &mut rig), SECMO_ERROR_INVALID_RIG);
        let message = std::ffi::CStr::from_ptr(secmo_last_error_message()).to_string_lossy();
        assert!(message.contains("bone 3 (\"tail_2\")"), "{message}");
    }
    // Unnormalised but usable: accepted, and its own reference pose updates.
    desc.bones[3].reference.rotation = [0.0, 0.0, 3.0, 4.0];
    let mut c = Character::new(shared(desc), Default::default());
    let pose = c.rig().reference_pose().to_vec();
    let mut out = pose.clone();
    for _ in 0..3 {
        c.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &pose,
                teleport: false,
            },
            &mut out,
        )
        .unwrap();
    }
    // The frame check uses the same rule.
    let mut bad = pose.clone();
    bad[3].rotation = [0.0, 0.0, 1e30, 1.0];
    assert!(matches!(
        c.update(
            &FrameInput {
                dt: 1.0 / 60.0,
                pose: &bad,
                teleport: false
            },
            &mut out
        ),
        Err(Error::DegeneratePose { bone: 3, .. })
    ));
}

/// Units sanity: a centimetre skeleton declared as metres is reported at rig
/// creation (its size in metres, and a warning outside 0.05–50 m), and a
/// character whose chains' teleport threshold fires on consecutive updates
/// says so in its update info, through Rust and the C ABI.
#[test]
fn wrong_units_are_reported_at_creation_and_when_teleports_repeat() {
    use secmo::ffi::*;
    // The tail rig in centimetres.
    let in_cm = |units_per_meter: f32| {
        let mut desc = tail_desc(4, ChainParams::tail(units_per_meter));
        for b in &mut desc.bones {
            for t in &mut b.reference.translation {
                *t *= 100.0;
            }
        }
        desc.units_per_meter = units_per_meter;
        desc
    };
    let right = secmo::Rig::new(in_cm(100.0)).unwrap();
    assert!(
        (right.size_meters() - 1.0).abs() < 0.1,
        "{}",
        right.size_meters()
    );
    assert!(right.warnings().is_empty(), "{:?}", right.warnings());
    let wrong = secmo::Rig::new(in_cm(1.0)).unwrap();
    assert!(
        (wrong.size_meters() - 100.0).abs() < 10.0,
        "{}",
        wrong.size_meters()
    );
    assert!(
        matches!(wrong.warnings(), [secmo::RigWarning::UnusualSize { .. }]),
        "{:?}",
        wrong.warnings()
    );
    assert!(wrong.warnings()[0]
        .to_string()
        .contains("check units_per_meter"));
    // Walking at 1.5 m/s: 2.5 cm per 60 Hz frame, past a 1-unit threshold.
    let walk = |rig: secmo::Rig| {
        let mut c = Character::new(std::sync::Arc::new(rig), Default::default());
        let mut flags = Vec::new();
        for f in 0..8 {
            let mut pose = c.rig().reference_pose().to_vec();
            pose[TAIL_HIPS].translation[2] += 2.5 * f as f32;
            let mut out = pose.clone();
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
            flags.push(info.warnings & secmo::WARNING_TELEPORT_STREAK != 0);
        }
        flags
    };
    assert_eq!(walk(secmo::Rig::new(in_cm(100.0)).unwrap()), [false; 8]);
    // The first update seeds; the threshold fires from the second on, and
    // the third jump in a row raises the warning.
    assert_eq!(
        walk(secmo::Rig::new(in_cm(1.0)).unwrap()),
        [false, false, false, true, true, true, true, true]
    );
    // Through the C ABI: the size, the rig warning and the update bit.
    let desc = in_cm(1.0);
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let joints: Vec<u32> = desc.chains[0].joints.clone();
    let chain = SecmoChainDesc {
        anchor: 1,
        joints: joints.as_ptr(),
        joint_count: joints.len() as u32,
        preset: SECMO_CHAIN_TAIL,
        ..Default::default()
    };
    let d = SecmoRigDesc {
        bone_count: parents.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: reference.as_ptr(),
        units_per_meter: 1.0,
        chains: &chain,
        chain_count: 1,
        ..Default::default()
    };
    // SAFETY: valid descriptors and buffers; handles destroyed below.
    unsafe {
        let (mut rig, mut ch) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(secmo_rig_create(&d, &mut rig), SECMO_OK);
        let mut meters = 0.0f32;
        assert_eq!(secmo_rig_size_meters(rig, &mut meters), SECMO_OK);
        assert!((meters - 100.0).abs() < 10.0, "{meters}");
        let (mut kind, mut bone) = (0u32, 0u32);
        assert_eq!(secmo_rig_warning_count(rig), 1);
        assert_eq!(secmo_rig_warning(rig, 0, &mut kind, &mut bone), SECMO_OK);
        assert_eq!(kind, SECMO_WARNING_UNUSUAL_SIZE);
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
        let mut last = 0;
        for f in 0..5 {
            let mut pose = reference.clone();
            pose[TAIL_HIPS].translation[2] += 2.5 * f as f32;
            let mut out = pose.clone();
            let input = c_frame_input(&pose);
            let input = SecmoFrameInput {
                dt: 1.0 / 60.0,
                ..input
            };
            let mut info = SecmoUpdateInfo {
                struct_size: std::mem::size_of::<SecmoUpdateInfo>() as u32,
                ..Default::default()
            };
            assert_eq!(
                secmo_character_update(ch, &input, out.as_mut_ptr(), out.len(), &mut info),
                SECMO_OK
            );
            last = info.warnings;
        }
        assert_eq!(
            last & SECMO_WARNING_TELEPORT_STREAK,
            SECMO_WARNING_TELEPORT_STREAK
        );
        secmo_character_destroy(ch);
        secmo_rig_destroy(rig);
    }
}

/// C ABI messages name the bone where the rig has names, and a struct size
/// larger than the library's says which sizes it accepts without blaming
/// the header alone.
#[test]
fn c_messages_name_the_bone_and_the_accepted_struct_sizes() {
    use secmo::ffi::*;
    let desc = tail_desc(3, ChainParams::tail(1.0));
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let reference: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let names: Vec<std::ffi::CString> = desc
        .bones
        .iter()
        .map(|b| std::ffi::CString::new(b.name.as_str()).unwrap())
        .collect();
    let name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let last_error = || unsafe {
        std::ffi::CStr::from_ptr(secmo_last_error_message())
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: valid descriptors and buffers; handles destroyed below.
    unsafe {
        for named in [true, false] {
            let d = SecmoRigDesc {
                bone_count: parents.len() as u32,
                parents: parents.as_ptr(),
                reference_pose: reference.as_ptr(),
                bone_names: if named {
                    name_ptrs.as_ptr()
                } else {
                    std::ptr::null()
                },
                units_per_meter: 1.0,
                ..Default::default()
            };
            let (mut rig, mut ch) = (std::ptr::null_mut(), std::ptr::null_mut());
            assert_eq!(secmo_rig_create(&d, &mut rig), SECMO_OK);
            assert_eq!(
                secmo_character_create(rig, std::ptr::null(), &mut ch),
                SECMO_OK
            );
            let mut pose = reference.clone();
            pose[3].rotation[0] = f32::NAN;
            let mut out = pose.clone();
            let input = c_frame_input(&pose);
            let r = secmo_character_update(
                ch,
                &input,
                out.as_mut_ptr(),
                out.len(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, SECMO_ERROR_NON_FINITE_POSE);
            let expected = if named {
                "input pose, bone 3 (\"tail_2\"): NaN or infinity"
            } else {
                "input pose, bone 3: NaN or infinity"
            };
            assert!(last_error().contains(expected), "{}", last_error());
            // The same item through the batch.
            let mut items = [SecmoBatchItem {
                struct_size: std::mem::size_of::<SecmoBatchItem>() as u32,
                result: 0,
                character: ch,
                input: &input,
                out_pose: out.as_mut_ptr(),
                out_pose_len: out.len(),
                out_info: std::ptr::null_mut(),
            }];
            assert_eq!(
                secmo_update_batch(items.as_mut_ptr(), 0, 1),
                SECMO_ERROR_NON_FINITE_POSE
            );
            assert!(last_error().contains(expected), "{}", last_error());
            // Another struct passed as the frame input.
            let wrong = SecmoRigDesc::default();
            let r = secmo_character_update(
                ch,
                &wrong as *const SecmoRigDesc as *const SecmoFrameInput,
                out.as_mut_ptr(),
                out.len(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, SECMO_ERROR_STRUCT_SIZE);
            let message = last_error();
            assert!(
                message.contains(
                    "the pointer is to another struct, or the struct comes from a newer header"
                ) && message.contains("are accepted"),
                "{message}"
            );
            secmo_character_destroy(ch);
            secmo_rig_destroy(rig);
        }
    }
}

#[test]
fn vrm_chains_stepped_together_have_their_speeds_clamped_to_the_state_range() {
    // Three VRM strands take the same substeps, so the chain stage keeps
    // them in lanes and checks their state range there. Their root flies
    // 400 m an update (never a teleport here): the links follow it at
    // 24,000 m/s, past the 1e4 m/s the state holds, so their speeds are
    // clamped, as the per-particle check clamps them, and the
    // character's own snapshot restores.
    use secmo::{BoneDesc, ChainDesc, RigDesc};
    let mut bones = vec![BoneDesc::new("root", -1, Transform::IDENTITY)];
    let mut chains = Vec::new();
    for c in 0..3 {
        let first = bones.len() as u32;
        for j in 0..4 {
            let parent = if j == 0 { 0 } else { bones.len() as i32 - 1 };
            let offset = if j == 0 {
                Vec3::new(0.1 * c as f32, 0.0, 0.0)
            } else {
                Vec3::new(0.0, -0.1, 0.02)
            };
            bones.push(BoneDesc::new(
                format!("s{c}_{j}"),
                parent,
                Transform::from_translation(offset),
            ));
        }
        let mut params = ChainParams::vrm(1.0);
        params.teleport_distance = 1e6;
        chains.push(ChainDesc::new(
            (first..bones.len() as u32).collect(),
            0,
            params,
        ));
    }
    let rig = shared(RigDesc {
        bones,
        units_per_meter: 1.0,
        chains,
        ..Default::default()
    });
    let mut c = Character::new(rig.clone(), Default::default());
    for f in 0..20 {
        let mut pose = rig.reference_pose().to_vec();
        pose[0].translation[0] = 400.0 * f as f32;
        let out = step(&mut c, 1.0 / 60.0, &pose);
        assert!(out.iter().all(Transform::is_finite));
        let mut fresh = Character::new(rig.clone(), Default::default());
        fresh
            .restore(&snapshot(&c))
            .unwrap_or_else(|e| panic!("update {f}: {e}"));
    }
}
