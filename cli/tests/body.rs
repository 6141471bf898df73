//! Issue #17 item 2: body colliders for a chain that has none — capsules
//! fitted to the skin — and the report's worst penetration per clip
//! (docs/chains.md "Body colliders").

use std::path::Path;

use secmo_cli::bake::{BakeOptions, Baker};
use secmo_cli::body::penetration;
use secmo_cli::import::import;

#[test]
fn the_fox_tail_gets_leg_and_torso_capsules_but_none_at_its_root() {
    let fox =
        import(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/assets/Fox.glb")).unwrap();
    let baker = Baker::new(fox.clone(), 100.0).unwrap();
    let rig = &baker.rig;
    let tail = &rig.chains()[0];
    let on: Vec<&str> = tail
        .colliders
        .iter()
        .map(|&c| {
            rig.bone_name(rig.colliders()[c as usize].bone as usize)
                .unwrap()
        })
        .collect();
    println!("capsules on {on:?}");
    for leg in ["b_LeftLeg02_016", "b_RightLeg02_020", "b_Spine01_02"] {
        assert!(on.contains(&leg), "no capsule on {leg}: {on:?}");
    }
    // Not on the tail, nor on the hips its root grows out of.
    for bone in ["b_Tail02_013", "b_Tail03_014", "b_Hip_01"] {
        assert!(!on.contains(&bone), "a capsule on {bone}");
    }
    // Every capsule lies inside its bone's skin: its radius is the median
    // distance of the bone's vertices from its axis, so 4–20 units here.
    for &c in &tail.colliders {
        let r = rig.colliders()[c as usize].radius;
        assert!((1.0..20.0).contains(&r), "radius {r}");
    }

    // No clip puts the tail more than 0.5 units into one.
    for clip in &fox.clips {
        let report = secmo_cli::report::measure(&baker, clip, &BakeOptions::default()).unwrap();
        let depth = report.penetration.expect("the tail has capsules");
        println!(
            "{}: deepest into a body capsule {depth:.2} units",
            clip.name
        );
        assert!(depth <= 0.5, "{}: {depth} units deep", clip.name);
    }
}

#[test]
fn penetration_is_the_depth_of_a_segment_inside_a_capsule() {
    use glam::Vec3;
    let (a, b) = (Vec3::ZERO, Vec3::new(0.0, 10.0, 0.0));
    // Crossing the axis: as deep as the radius.
    let d = penetration(
        Vec3::new(-5.0, 5.0, 0.0),
        Vec3::new(5.0, 5.0, 0.0),
        a,
        b,
        2.0,
    );
    assert!((d - 2.0).abs() < 1e-5, "{d}");
    // Passing 1.5 from the axis: 0.5 deep; 3 away: outside.
    let d = penetration(
        Vec3::new(-5.0, 5.0, 1.5),
        Vec3::new(5.0, 5.0, 1.5),
        a,
        b,
        2.0,
    );
    assert!((d - 0.5).abs() < 1e-5, "{d}");
    assert_eq!(
        penetration(
            Vec3::new(-5.0, 5.0, 3.0),
            Vec3::new(5.0, 5.0, 3.0),
            a,
            b,
            2.0
        ),
        0.0
    );
    // Past the cap: the distance to the end point.
    let d = penetration(
        Vec3::new(-5.0, 11.0, 0.0),
        Vec3::new(5.0, 11.0, 0.0),
        a,
        b,
        2.0,
    );
    assert!((d - 1.0).abs() < 1e-5, "{d}");
}
