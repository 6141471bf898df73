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

/// Collider lengths are in rig units (`secmo::Collider`): a capsule's ends
/// ride its bone's frame, its radius does not. The Fox with its skeleton's
/// root joint scaled by 0.2 (every joint below it moved 5 times as far in
/// its parent's frame, the inverse binds to match: the same skeleton and
/// skin in the world) gets the same capsules in the world. Fitted in the
/// bone's frame, their radii came out 5 times too large there: a held-out
/// fox whose armature is scaled by 0.2 had a hind-leg capsule reach its
/// tail, which the bake pushed 36.6° off the shape its clips hold it in.
#[test]
fn body_capsules_have_the_same_world_radius_under_a_scaled_armature() {
    use glam::{Affine3A, Mat4, Vec3};
    use secmo_cli::glb::Glb;
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/assets/Fox.glb");
    let original = import(&file).unwrap();
    let mut glb = Glb::read(&file).unwrap();
    let s = 0.2f32;
    let root = 2; // _rootJoint, the skin's first joint
    glb.json["nodes"][root]["scale"] = serde_json::json!([s, s, s]);
    let joints: Vec<usize> = glb.json["skins"][0]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_u64().unwrap() as usize)
        .collect();
    for &j in joints.iter().filter(|&&j| j != root) {
        let node = glb.json["nodes"][j].as_object_mut().unwrap();
        if let Some(t) = node.get_mut("translation").and_then(|t| t.as_array_mut()) {
            for c in t.iter_mut() {
                *c = serde_json::json!(c.as_f64().unwrap() / f64::from(s));
            }
        }
    }
    let bones = &original.skins[0];
    let ibm: Vec<f32> = bones
        .iter()
        .flat_map(|&b| {
            (Mat4::from_scale(Vec3::splat(1.0 / s))
                * Mat4::from(original.meshes[0].inverse_bind[b]))
            .to_cols_array()
        })
        .collect();
    let accessor = glb.push_floats(&ibm, "MAT4", false);
    glb.json["skins"][0]["inverseBindMatrices"] = serde_json::json!(accessor);
    let dir = std::env::temp_dir().join(format!("secmo-body-scaled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fox-scaled-armature.glb");
    glb.write(&path).unwrap();
    let scaled = import(&path).unwrap();

    // Each capsule's ends and radius in the world, at rest.
    let capsules = |imported: &secmo_cli::import::Imported| {
        let baker = Baker::new(imported.clone(), 100.0).unwrap();
        let rig = &baker.rig;
        let mut world = vec![Affine3A::IDENTITY; rig.bone_count()];
        secmo::math::forward_kinematics(rig.parents(), rig.reference_pose(), &mut world);
        rig.colliders()
            .iter()
            .map(|c| {
                let m = world[c.bone as usize];
                (m.transform_point3(c.a), m.transform_point3(c.b), c.radius)
            })
            .collect::<Vec<_>>()
    };
    let (before, after) = (capsules(&original), capsules(&scaled));
    assert!(before.len() >= 3, "{before:?}");
    assert_eq!(before.len(), after.len());
    for ((a0, b0, r0), (a1, b1, r1)) in before.iter().zip(&after) {
        println!(
            "radius {r0:.3} → {r1:.3}, ends {:.2e} apart",
            a0.distance(*a1).max(b0.distance(*b1))
        );
        assert!((r1 / r0 - 1.0).abs() < 1e-3, "radius {r0} became {r1}");
        assert!(a0.distance(*a1) < 1e-2 && b0.distance(*b1) < 1e-2);
    }
}
