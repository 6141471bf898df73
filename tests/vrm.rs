//! VRM spring-bone import (src/vrm.rs, docs/vrm-mapping.md): what is read
//! from real files, the parameter mapping, colliders that hold in a running
//! character, branches, and clear errors for broken files.

mod common;

use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::math::{forward_kinematics, Transform};
use secmo::rig::{Rig, UpAxis};
use secmo::vrm::{self, VrmImport, SCENE_ROOT};
use secmo::{Character, CharacterOptions, FrameInput};

fn asset(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/assets")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rig_of(import: &VrmImport) -> Arc<Rig> {
    let desc = import
        .settings
        .to_rig_desc(import.skeleton.bones.clone(), 1.0, UpAxis::Y)
        .expect("imported settings resolve against the imported skeleton");
    common::shared(desc)
}

fn bone(rig: &Rig, name: &str) -> usize {
    rig.find_bone(name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

fn bind_pose(import: &VrmImport) -> Vec<Transform> {
    import.skeleton.bones.iter().map(|b| b.reference).collect()
}

fn world_positions(rig: &Rig, local: &[Transform]) -> Vec<Vec3> {
    let mut component = vec![glam::Affine3A::IDENTITY; local.len()];
    forward_kinematics(rig.parents(), local, &mut component);
    component
        .iter()
        .map(|m| Vec3::from(m.translation))
        .collect()
}

#[test]
fn godette_vrm0_groups_parameters_and_colliders() {
    let import = vrm::import(&asset("Godette_vrm_v4.vrm")).unwrap();
    assert_eq!(import.version, 0);
    assert_eq!(import.groups, 3);
    assert_eq!(import.roots, 8);
    // Eight one-bone strands, each bone with its _End child: 16 joints.
    assert_eq!(import.joints, 16);
    assert_eq!(import.collider_shapes, vec!["sphere"; 4]);
    assert_eq!(
        import.skeleton.bones.len(),
        71,
        "every glTF node, no scene root needed"
    );
    let s = &import.settings;
    assert_eq!(s.chains.len(), 8);

    let front = &s.chains[0];
    assert_eq!(front.preset, "vrm", "VRM springs run the VRM preset");
    assert_eq!(front.anchor, "head_Armature");
    assert_eq!(
        front.joints,
        ["FrontHair_Center_L", "FrontHair_Center_L_End"]
    );
    // VRM's own numbers: stiffiness 2.5, dragForce 0.4, gravityPower 0.
    assert_eq!(front.param_f32("vrm_stiffness"), Some(2.5));
    assert!((front.param_f32("vrm_drag_force").unwrap() - 0.4).abs() < 1e-6);
    assert_eq!(front.param_f32("vrm_gravity_power"), Some(0.0));
    assert_eq!(
        front.params["gravity_direction"],
        serde_json::json!([0.0, -1.0, 0.0])
    );
    assert_eq!(front.param_f32("radius"), Some(0.02));
    // The leaf's tail: 7 cm along its own offset (UniVRM, three-vrm).
    let end = glam::Vec3::from_array(front.end_offset.expect("a leaf gets a 7 cm tail"));
    assert!((end.length() - 0.07).abs() < 1e-6, "{end}");
    assert_eq!(
        front.params.get("simulation_space"),
        None,
        "center −1 is world"
    );
    // Group 0 uses collider group 1 (the head's two spheres).
    assert_eq!(front.colliders, ["group1_0", "group1_1"]);
    // The ribbon (group 1, stiffiness 2) uses the chest's spheres.
    let ribbon = &s.chains[4];
    assert_eq!(ribbon.joints[0], "Ribbon");
    assert_eq!(ribbon.anchor, "chest_Armature");
    assert_eq!(ribbon.param_f32("vrm_stiffness"), Some(2.0));
    assert_eq!(ribbon.colliders, ["group0_0", "group0_1"]);
    // Hair balls: dragForce 0.1.
    let ball = &s.chains[5];
    assert!((ball.param_f32("vrm_drag_force").unwrap() - 0.1).abs() < 1e-6);
    assert!(ball.colliders.is_empty());

    // VRM 0.x offsets are stored with z negated (UniVRM writes Unity's
    // left-handed axes): the file's chest sphere has z = −0.04.
    let chest = &s.colliders[0];
    assert_eq!(chest.bone, "chest_Armature");
    assert_eq!(chest.shape, "sphere");
    assert!((chest.a[1] - 0.06).abs() < 1e-6 && (chest.a[2] - 0.04).abs() < 1e-6);
    assert!((chest.radius - 0.1).abs() < 1e-6);

    // The settings survive their own JSON format.
    let again = secmo::settings::RigSettings::from_json(&s.to_json()).unwrap();
    assert_eq!(&again, s);
}

/// The strand's output local rotation, every frame, for a head held still
/// for two seconds, turned 60° in half a second, then held for three.
fn head_turn(import: &VrmImport) -> Vec<Quat> {
    let rig = rig_of(import);
    let head = bone(&rig, "head_Armature");
    let strand = bone(&rig, "FrontHair_Center_L");
    let bind = bind_pose(import);
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let mut pose = bind.clone();
    let dt = 1.0 / 60.0;
    (0..330)
        .map(|frame| {
            let t = (frame as f32 * dt - 2.0).max(0.0);
            let yaw = 60f32.to_radians() * (t / 0.5).min(1.0);
            pose[head].rotation = (bind[head].rotation() * Quat::from_rotation_y(yaw)).to_array();
            let out = common::step(&mut c, dt, &pose);
            assert!(out.iter().all(Transform::is_finite), "frame {frame}");
            out[strand].rotation()
        })
        .collect()
}

/// Largest angle from `rest` over `rotations`, in degrees.
fn largest_angle(rotations: &[Quat], rest: Quat) -> f32 {
    rotations
        .iter()
        .map(|r| r.angle_between(rest).to_degrees())
        .fold(0.0, f32::max)
}

#[test]
fn godette_hair_lags_a_head_turn_and_settles() {
    let import = vrm::import(&asset("Godette_vrm_v4.vrm")).unwrap();
    let bind = import.skeleton.bones[bone(&rig_of(&import), "FrontHair_Center_L")]
        .reference
        .rotation();

    // Without colliders the strand rests on its bind pose, swings behind
    // the turn and settles again.
    let mut free = import.clone();
    free.settings
        .chains
        .iter_mut()
        .for_each(|c| c.colliders.clear());
    let loose = head_turn(&free);
    assert!(
        largest_angle(&loose[..120], bind) < 0.01,
        "at rest on the bind pose"
    );
    let lag = largest_angle(&loose[120..180], bind);
    assert!(lag > 2.0, "the strand lags the turn: {lag}°");
    let settled = loose[329].angle_between(bind).to_degrees();
    assert!(settled < 0.5, "settled 2.5 s after the turn: {settled}°");

    // The file's radius-1 sphere above the head contains the strand's root.
    // VRM tests only the tail against it, and the tail is outside: the
    // strand stays on its authored pose (three-vrm: 0.0°), and it swings
    // with the turn as it does without the collider.
    let held = head_turn(&import);
    assert!(
        largest_angle(&held[..120], bind) < 0.01,
        "a root inside a collider does not push the strand off its pose"
    );
    let held_lag = largest_angle(&held[120..180], bind);
    assert!(held_lag > 2.0, "it still swings: {held_lag}°");
    assert!(held[329].angle_between(bind).to_degrees() < 0.5);
}

/// Runs a three-vrm fixture: the whole scene slides along `push` for a
/// second, so the strand lags into its collider, then rests. Returns, for
/// every frame, the strand's links (head, particle) in world space.
fn slide(import: &VrmImport, push: Vec3, colliders: bool) -> Vec<Vec<(Vec3, Vec3)>> {
    let mut settings = import.settings.clone();
    if !colliders {
        settings.chains[0].colliders.clear();
    }
    let rig = common::shared(
        settings
            .to_rig_desc(import.skeleton.bones.clone(), 1.0, UpAxis::Y)
            .unwrap(),
    );
    let root = bone(&rig, SCENE_ROOT);
    let first = bone(&rig, "Spring A");
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let mut pose = bind_pose(import);
    let dt = 1.0 / 60.0;
    let mut frames = Vec::new();
    for frame in 0..180 {
        let t = (frame as f32 * dt).min(1.0);
        pose[root].translation = (push * t).to_array();
        let out = common::step(&mut c, dt, &pose);
        let mut head = world_positions(&rig, &out)[first];
        let links = c
            .particle_positions()
            .iter()
            .map(|&p| {
                let link = (head, p);
                head = p;
                link
            })
            .collect();
        frames.push(links);
    }
    frames
}

#[test]
fn three_vrm_sphere_collider_holds_the_strand_off() {
    let import = vrm::import(&asset("three-vrm-springbone/sphere-collider.gltf")).unwrap();
    assert_eq!((import.version, import.groups, import.joints), (1, 1, 4));
    assert_eq!(import.collider_shapes, ["sphere"]);
    let chain = &import.settings.chains[0];
    // The first joint is a scene root: the importer adds SCENE_ROOT above it.
    assert_eq!(chain.anchor, SCENE_ROOT);
    assert_eq!(
        chain.joints,
        ["Spring A", "Spring B", "Spring C", "Spring D"]
    );
    assert_eq!(chain.radii, [0.25; 4]);
    assert_eq!(
        chain.end_offset,
        Some([0.0, -2.0, 0.0]),
        "Spring E is the tail"
    );
    assert_eq!(chain.param_f32("vrm_stiffness"), Some(1.0));
    let collider = &import.settings.colliders[0];
    assert_eq!((collider.bone.as_str(), collider.radius), ("Collider", 0.5));

    // Sliding −X makes the strand trail +X, into the sphere at x = 0.75.
    let center = |frame: usize| Vec3::new(0.75 - 1.5 * (frame as f32 / 60.0).min(1.0), 1.0, 0.0);
    // VRM tests each joint's tail (a sphere of the hit radius), not the
    // whole link: the distance is the tails'.
    let closest = |runs: &[Vec<(Vec3, Vec3)>]| {
        let mut worst = f32::MAX;
        for (f, links) in runs.iter().enumerate() {
            for &(_, b) in links {
                worst = worst.min(b.distance(center(f)));
            }
        }
        worst
    };
    let free = closest(&slide(&import, Vec3::new(-1.5, 0.0, 0.0), false));
    let held = closest(&slide(&import, Vec3::new(-1.5, 0.0, 0.0), true));
    assert!(
        free < 0.6,
        "without the collider the strand passes into it: {free}"
    );
    assert!(held > 0.75 - 0.02, "sphere 0.5 + hit radius 0.25: {held}");
}

#[test]
fn three_vrm_plane_collider_from_the_extended_collider() {
    let import = vrm::import(&asset("three-vrm-springbone/plane-collider.gltf")).unwrap();
    assert_eq!(
        import.collider_shapes,
        ["plane"],
        "the extension wins over the fallback sphere"
    );
    let collider = &import.settings.colliders[0];
    assert_eq!(collider.b, [0.0, 0.0, 1.0], "plane normal");
    assert_eq!(collider.a, [0.0, 0.0, 0.0], "offset defaults to the node");

    // The Collider node is turned 90° about Y, so the plane faces +X and
    // passes 0.25 m to the strand's −X side. Sliding +X makes the strand
    // trail −X, behind the plane.
    let closest = |runs: &[Vec<(Vec3, Vec3)>]| {
        let mut closest = f32::MAX;
        for (f, links) in runs.iter().enumerate() {
            let plane_x = 1.5 * (f as f32 / 60.0).min(1.0) - 0.25;
            for &(_, b) in links {
                closest = closest.min(b.x - plane_x);
            }
        }
        closest
    };
    let free = closest(&slide(&import, Vec3::new(1.5, 0.0, 0.0), false));
    let held = closest(&slide(&import, Vec3::new(1.5, 0.0, 0.0), true));
    assert!(
        free < -0.2,
        "without the plane the strand trails through it: {free}"
    );
    assert!(held > 0.25 - 0.02, "kept a hit radius in front: {held}");
}

#[test]
fn three_vrm_inside_sphere_keeps_the_strand_in() {
    let import = vrm::import(&asset("three-vrm-springbone/inside-collider.gltf")).unwrap();
    assert_eq!(import.collider_shapes, ["inside_sphere"]);
    let collider = &import.settings.colliders[0];
    assert_eq!(collider.radius, 1.25);
    assert_eq!(collider.a, [0.0, 0.0, 0.0]);
    // The sphere (centre (0, 1, 0), moving with the scene) holds every
    // particle within 1.25 − hit radius 0.25 = 1.0 of its centre while the
    // scene slides 3 m along +X in a second.
    let farthest = |runs: &[Vec<(Vec3, Vec3)>]| {
        let mut far = 0.0f32;
        for (f, links) in runs.iter().enumerate() {
            let centre = Vec3::new(3.0 * (f as f32 / 60.0).min(1.0), 1.0, 0.0);
            for &(_, b) in links {
                far = far.max(b.distance(centre));
            }
        }
        far
    };
    let loose = farthest(&slide(&import, Vec3::new(3.0, 0.0, 0.0), false));
    let held = farthest(&slide(&import, Vec3::new(3.0, 0.0, 0.0), true));
    assert!(loose > 1.2, "without the collider it trails out: {loose}");
    // VRM keeps each bone's length after the push, so while the scene
    // slides at 3 m/s a tail ends up to about 2 cm outside the limit;
    // three-vrm does the same (tests/vrm_parity.rs, fixture inside-collider).
    assert!(held < 1.0 + 0.03, "inside 1.25 − hit radius: {held}");
}

/// A VRM 0.x text with a branching strand below the head.
const BRANCHED: &str = r#"{
  "asset": {"version": "2.0"},
  "nodes": [
    {"name": "Root", "children": [1]},
    {"name": "Head", "translation": [0, 1.5, 0], "children": [2]},
    {"name": "Hair", "translation": [0, 0.2, 0], "children": [3, 5]},
    {"name": "A1", "translation": [0.05, -0.1, 0], "children": [4]},
    {"name": "A2", "translation": [0, -0.1, 0]},
    {"name": "B1", "translation": [-0.05, -0.1, 0], "children": [6]},
    {"name": "B2", "translation": [0, -0.1, 0]}
  ],
  "extensions": {"VRM": {"secondaryAnimation": {
    "boneGroups": [{"bones": [2], "stiffiness": 1, "dragForce": 0.4,
                    "gravityPower": 0.2, "hitRadius": 0.01, "center": -1}],
    "colliderGroups": []
  }}}
}"#;

#[test]
fn vrm0_branches_become_chains_that_follow_their_branch_joint() {
    let import = vrm::import(BRANCHED.as_bytes()).unwrap();
    assert_eq!((import.roots, import.joints), (1, 5));
    let chains = &import.settings.chains;
    assert_eq!(chains.len(), 2);
    assert_eq!(chains[0].anchor, "Head");
    assert_eq!(chains[0].joints, ["Hair", "A1", "A2"]);
    assert_eq!(
        chains[1].anchor, "Hair",
        "a branch hangs off the joint it leaves"
    );
    assert_eq!(chains[1].joints, ["B1", "B2"]);
    assert!((chains[0].param_f32("vrm_gravity_power").unwrap() - 0.2).abs() < 1e-6);

    // The branched rig runs: while the head nods the first chain swings
    // Hair, and the branch's first particle stays one link from B1's output
    // position (the branch hangs from the moved Hair, not where it was).
    let rig = rig_of(&import);
    let head = bone(&rig, "Head");
    let b1 = bone(&rig, "B1");
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let bind = bind_pose(&import);
    let mut pose = bind.clone();
    let b1_particle = 3; // Hair, A1, A2, then B1
    let link = bind[bone(&rig, "B2")].translation().length();
    let mut worst = 0.0f32;
    let mut swung = 0.0f32;
    for frame in 0..120 {
        let t = frame as f32 / 60.0;
        let nod = 0.8 * (t * 6.0).sin();
        pose[head].rotation = Quat::from_rotation_x(nod).to_array();
        let out = common::step(&mut c, 1.0 / 60.0, &pose);
        let head_b1 = world_positions(&rig, &out)[b1];
        let particle = c.particle_positions()[b1_particle];
        worst = worst.max((particle.distance(head_b1) - link).abs());
        swung = swung.max(
            out[bone(&rig, "Hair")]
                .rotation()
                .angle_between(bind[bone(&rig, "Hair")].rotation()),
        );
    }
    assert!(
        swung.to_degrees() > 5.0,
        "the first chain moves Hair: {}°",
        swung.to_degrees()
    );
    assert!(worst < 1e-4, "branch link length error {worst} m");
}

/// A branch reads the joint it hangs from as the first chain moved it at
/// each substep, not interpolated between updates: the same motion (keys,
/// linear between them) at 30 and at 120 Hz input gives the same branch to
/// float noise (measured 2.7e-6 rad; interpolating, as before, 1.3e-2 rad),
/// and so does 7.5 Hz input, the slowest whose 16 substeps are recorded.
#[test]
fn a_branch_follows_its_joint_substep_by_substep() {
    let import = vrm::import(BRANCHED.as_bytes()).unwrap();
    let rig = rig_of(&import);
    let head = bone(&rig, "Head");
    let bind = bind_pose(&import);
    let branch = [bone(&rig, "B1"), bone(&rig, "B2")];
    // `keys` per second for 2 s, each update `per_key` of a key.
    let run = |keys: usize, per_key: usize| -> Vec<[Quat; 2]> {
        let key = |k: usize| {
            let t = k as f32 / keys as f32;
            Quat::from_rotation_x(0.8 * (t * 6.0).sin())
                * Quat::from_rotation_z(0.5 * (t * 2.5).sin())
        };
        let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
        let mut pose = bind.clone();
        let mut at_keys = Vec::new();
        for f in 0..=2 * keys * per_key {
            let (k, u) = (f / per_key, (f % per_key) as f32 / per_key as f32);
            pose[head].rotation = key(k).slerp(key(k + 1), u).to_array();
            let dt = if f == 0 {
                0.0
            } else {
                1.0 / (keys * per_key) as f32
            };
            let out = common::step(&mut c, dt, &pose);
            if f % per_key == 0 {
                at_keys.push(branch.map(|b| out[b].rotation()));
            }
        }
        at_keys
    };
    let angle = |a: Quat, b: Quat| {
        let d = a.conjugate() * b;
        2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
    };
    for (keys, per_key) in [(30, 4), (15, 8), (8, 15)] {
        let (slow, fast) = (run(keys, 1), run(keys, per_key));
        let mut worst = 0.0f32;
        let mut moved = 0.0f32;
        for (a, b) in slow.iter().zip(&fast) {
            for (k, (qa, qb)) in a.iter().zip(b).enumerate() {
                worst = worst.max(angle(*qa, *qb));
                moved = moved.max(angle(*qb, bind[branch[k]].rotation()));
            }
        }
        eprintln!("branch, {keys} vs 120 Hz input: {worst:e} rad (swings {moved:.2} rad)");
        assert!(moved > 0.1, "the branch swings: {moved} rad");
        assert!(worst <= 1e-5, "{keys} and 120 Hz differ by {worst:e} rad");
    }
}

#[test]
fn broken_files_name_what_is_wrong() {
    let godette = asset("Godette_vrm_v4.vrm");
    let e = vrm::import(&godette[..30]).unwrap_err();
    assert_eq!(e.path, "glb");
    assert!(e.message.contains("truncated"), "{e:?}");

    let e = vrm::import(&asset("RiggedFigure.glb")).unwrap_err();
    assert_eq!(e.path, "extensions", "a glTF without spring bones: {e:?}");

    let e = vrm::import(b"{\"nodes\": [ }").unwrap_err();
    assert!(e.path.starts_with("json line 1"), "{e:?}");

    let bad_root = BRANCHED.replace("\"bones\": [2]", "\"bones\": [99]");
    let e = vrm::import(bad_root.as_bytes()).unwrap_err();
    assert_eq!(e.path, "VRM.secondaryAnimation.boneGroups[0].bones[0]");
    assert!(e.message.contains("node 99 does not exist"), "{e:?}");

    let cycle = BRANCHED.replace(
        "{\"name\": \"B2\", \"translation\": [0, -0.1, 0]}",
        "{\"name\": \"B2\", \"translation\": [0, -0.1, 0], \"children\": [0]}",
    );
    // Node 0 gets a parent (B2) and every node is then inside the loop.
    let e = vrm::import(cycle.as_bytes()).unwrap_err();
    assert_eq!(e.path, "nodes", "{e:?}");

    let nan = BRANCHED.replace("[0, 1.5, 0]", "[0, 1e39, 0]");
    let e = vrm::import(nan.as_bytes()).unwrap_err();
    assert_eq!(e.path, "nodes[1]", "{e:?}");
}

/// Asserts that each of `named` is part of one of the import's notes, and
/// returns the notes, one per line.
fn assert_notes(import: &VrmImport, named: &[&str]) -> String {
    let notes = import.notes.join("\n");
    for named in named {
        assert!(notes.contains(named), "missing note {named:?} in:\n{notes}");
    }
    notes
}

/// A glTF of a head node and a three-joint strand below it (H1, H2, H3),
/// with `rest` (the top-level fields after `nodes`) added.
fn head_strand_file(rest: &str) -> String {
    format!(
        r#"{{
      "asset": {{"version": "2.0"}},
      "nodes": [
        {{"name": "Head", "children": [1]}},
        {{"name": "H1", "translation": [0, -0.1, 0], "children": [2]}},
        {{"name": "H2", "translation": [0, -0.1, 0], "children": [3]}},
        {{"name": "H3", "translation": [0, -0.1, 0]}}
      ],
      {rest}
    }}"#
    )
}

#[test]
fn broken_references_are_left_out_with_a_note_and_the_rest_opens() {
    // What three-vrm and UniVRM skip or cannot use: a collider of a shape
    // a later version may add, one without a shape, a group listing a
    // collider that does not exist, a spring with no joints, a spring
    // naming a collider group that does not exist. The file opens; each is
    // named in a note; the hair keeps the sphere that exists.
    let text = head_strand_file(
        r#""extensionsUsed": ["VRMC_springBone"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0",
        "colliders": [
          {"node": 0, "shape": {"sphere": {"offset": [0, 0, 0.1], "radius": 0.05}}},
          {"node": 0, "shape": {"cylinder": {"radius": 0.1}}},
          {"node": 0}
        ],
        "colliderGroups": [{"colliders": [0, 1, 2, 7]}],
        "springs": [
          {"name": "nothing", "joints": []},
          {"name": "hair", "colliderGroups": [0, 3],
           "joints": [{"node": 1}, {"node": 2}, {"node": 3}]}
        ]}}"#,
    );
    let import = vrm::import(text.as_bytes()).expect("the file opens");
    assert_notes(
        &import,
        &[
            "VRMC_springBone.colliders[1].shape: not a sphere, capsule or plane; left out",
            "VRMC_springBone.colliders[2]: no shape; left out",
            "VRMC_springBone.colliderGroups[0].colliders[3]: no collider 7; left out",
            "VRMC_springBone.springs[0]: no joints; nothing to simulate",
            "VRMC_springBone.springs[1].colliderGroups[1]: no collider group 3; left out",
        ],
    );
    assert_eq!(import.settings.colliders.len(), 1);
    assert_eq!(import.settings.chains.len(), 1);
    assert_eq!(import.settings.chains[0].colliders, vec!["collider0"]);
    // The settings build a rig (a collider named but absent used to fail
    // here: "no collider named collider7").
    let rig = rig_of(&import);
    assert_eq!(rig.chains()[0].colliders.len(), 1);

    // VRM 0.x: a bone group naming a collider group that does not exist.
    let vrm0 = BRANCHED.replace(
        "\"center\": -1}]",
        "\"center\": -1, \"colliderGroups\": [4]}]",
    );
    assert_ne!(vrm0, BRANCHED, "the fixture's bone group");
    let import = vrm::import(vrm0.as_bytes()).expect("the file opens");
    let notes = import.notes.join("\n");
    assert!(
        notes.contains(
            "VRM.secondaryAnimation.boneGroups[0].colliderGroups[0]: no collider group 4; left out"
        ),
        "{notes}"
    );
    rig_of(&import);
}

/// A chain's `gravity_direction` parameter.
fn gravity_direction(chain: &secmo::settings::ChainSettings) -> Vec<f64> {
    chain.params["gravity_direction"]
        .as_array()
        .expect("a gravity direction")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

#[test]
fn gravity_pulls_by_the_direction_as_written() {
    // three-vrm and UniVRM add gravityDir · gravityPower as written: a
    // direction of length 2 pulls twice as hard, a zero one not at all.
    let spring = |dir: &str| {
        format!(
            r#"{{"asset": {{"version": "2.0"}},
              "nodes": [{{"name": "Head", "children": [1]}},
                        {{"name": "H1", "translation": [0, -0.1, 0], "children": [2]}},
                        {{"name": "H2", "translation": [0, -0.1, 0]}}],
              "extensions": {{"VRMC_springBone": {{"specVersion": "1.0", "springs": [{{
                "joints": [{{"node": 1, "gravityPower": 0.5, "gravityDir": {dir}}},
                           {{"node": 2}}]}}]}}}}}}"#
        )
    };
    for (dir, power, unit) in [
        ("[0, -2, 0]", 1.0, [0.0, -1.0, 0.0]),
        ("[0, -0.3, 0.4]", 0.25, [0.0, -0.6, 0.8]),
        ("[0, 0, 0]", 0.0, [0.0, -1.0, 0.0]),
    ] {
        let import = vrm::import(spring(dir).as_bytes()).unwrap();
        let chain = &import.settings.chains[0];
        let got = chain.param_f32("vrm_gravity_power").unwrap();
        assert!(
            (got - power).abs() < 1e-6,
            "{dir}: power {got}, not {power}"
        );
        let direction = gravity_direction(chain);
        for (a, b) in direction.iter().zip(unit) {
            assert!((a - b).abs() < 1e-6, "{dir}: direction {direction:?}");
        }
    }
}

/// One of the C ABI's two-call text functions (`secmo_settings_from_vrm`,
/// `secmo_vrm_notes`) on `file`: the size the first call (no buffer) asks
/// for, and the text the second call writes.
fn text_in_two_calls(
    f: unsafe extern "C" fn(
        *const u8,
        usize,
        *mut std::ffi::c_char,
        usize,
        *mut usize,
    ) -> secmo::ffi::SecmoResult,
    file: &[u8],
) -> (usize, String) {
    use secmo::ffi::*;
    let mut needed = 0usize;
    // SAFETY: `file` and `buffer` are live for the calls, with their lengths.
    unsafe {
        let r = f(
            file.as_ptr(),
            file.len(),
            std::ptr::null_mut(),
            0,
            &mut needed,
        );
        assert_eq!(r, SECMO_ERROR_BUFFER_LENGTH);
        let first = needed;
        let mut buffer = vec![0 as std::ffi::c_char; needed];
        let r = f(
            file.as_ptr(),
            file.len(),
            buffer.as_mut_ptr(),
            needed,
            &mut needed,
        );
        assert_eq!(r, SECMO_OK);
        let text = std::ffi::CStr::from_ptr(buffer.as_ptr()).to_str().unwrap();
        (first, text.to_string())
    }
}

#[test]
fn c_abi_writes_the_settings_in_two_calls() {
    use secmo::ffi::*;
    let file = asset("Godette_vrm_v4.vrm");
    let expected = vrm::import(&file).unwrap().settings.to_json();
    let last_error = || unsafe {
        std::ffi::CStr::from_ptr(secmo_last_error_message())
            .to_string_lossy()
            .into_owned()
    };
    let (needed, text) = text_in_two_calls(secmo_settings_from_vrm, &file);
    assert_eq!(needed, expected.len() + 1);
    assert_eq!(text, expected);
    let mut buffer = vec![0 as std::ffi::c_char; needed];
    let mut needed = 0usize;
    unsafe {
        let r = secmo_settings_from_vrm(
            std::ptr::null(),
            10,
            buffer.as_mut_ptr(),
            needed,
            &mut needed,
        );
        assert_eq!(r, SECMO_ERROR_NULL_POINTER);
        let r =
            secmo_settings_from_vrm(file.as_ptr(), 30, buffer.as_mut_ptr(), needed, &mut needed);
        assert_eq!(r, SECMO_ERROR_SETTINGS);
        assert!(last_error().contains("VRM: glb"), "{}", last_error());
    }
}

#[test]
fn c_abi_lists_the_notes_in_two_calls() {
    use secmo::ffi::*;
    let text = head_strand_file(
        r#""extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "joints": [{"node": 1, "dragForce": 2}, {"node": 2, "wobble": 1}, {"node": 3}]}]}}"#,
    );
    let expected = vrm::import(text.as_bytes()).unwrap().notes.join("\n");
    assert_eq!(expected.lines().count(), 2, "{expected}");
    let notes = |file: &[u8]| text_in_two_calls(secmo_vrm_notes, file).1;
    assert_eq!(notes(text.as_bytes()), expected);
    assert!(expected.contains("joints[0] (H1).dragForce: 2 is outside [0, 1]; 1 is used"));
    assert!(expected.contains("joints[1] (H2).wobble: unknown field, ignored"));
    // A file with nothing to say: an empty text.
    let clean = head_strand_file(
        r#""extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "joints": [{"node": 1}, {"node": 2}]}]}}"#,
    );
    assert_eq!(notes(clean.as_bytes()), "");
    unsafe {
        let mut needed = 0usize;
        let r = secmo_vrm_notes(b"{".as_ptr(), 1, std::ptr::null_mut(), 0, &mut needed);
        assert_eq!(r, SECMO_ERROR_SETTINGS);
        let r = secmo_vrm_notes(std::ptr::null(), 4, std::ptr::null_mut(), 0, &mut needed);
        assert_eq!(r, SECMO_ERROR_NULL_POINTER);
    }
}

#[test]
fn fields_the_preset_does_not_apply_are_listed_by_name_and_limits_are_read() {
    // A VRM 1.0 spring whose second joint carries an angle limit of the
    // VRMC_springBone_limit draft (read, so not noted), plus fields no
    // version defines.
    let text = head_strand_file(
        r#""extensionsUsed": ["VRMC_springBone", "VRMC_springBone_limit"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "name": "hair", "wobble": 3,
        "joints": [
          {"node": 1, "stiffness": 1},
          {"node": 2, "stiffness": 1, "extensions": {"VRMC_springBone_limit":
            {"specVersion": "1.0-draft", "limit": {"cone": {"angle": 0.5}}}}},
          {"node": 3, "softness": 2}
        ]}]}}"#,
    );
    let import = vrm::import(text.as_bytes()).unwrap();
    let notes = import.notes.join("\n");
    assert!(!notes.contains("VRMC_springBone_limit"), "{notes}");
    assert!(notes.contains("springs[0].wobble"), "{notes}");
    assert!(notes.contains("joints[2] (H3).softness"), "{notes}");
    assert_eq!(import.notes.len(), 2, "{notes}");
    let limits = &import.settings.chains[0].limits;
    assert_eq!(limits.len(), 2, "one per simulated joint");
    assert_eq!(limits[0].shape, "none");
    assert_eq!(limits[1].shape, "cone");
    assert!((limits[1].angle_degrees - 0.5f32.to_degrees()).abs() < 1e-4);
    // The rig built from it carries the limit.
    let desc = import
        .settings
        .to_rig_desc(import.skeleton.bones.clone(), 1.0, secmo::UpAxis::Y)
        .unwrap();
    assert_eq!(desc.chains[0].limits[1].shape, secmo::LimitShape::Cone);
    // Godette carries nothing the preset ignores; being VRM 0.x, it gets
    // the one note that its format has no node constraints.
    let godette = vrm::import(&asset("Godette_vrm_v4.vrm")).unwrap();
    assert_eq!(godette.notes.len(), 1, "{:?}", godette.notes);
    assert!(godette.notes[0].contains("VRM 0.x has no node constraints"));
}

#[test]
fn damaged_limits_and_non_standard_angle_limits_are_named_with_their_values() {
    let text = head_strand_file(
        r#""extensionsUsed": ["VRMC_springBone", "VRMC_springBone_limit", "EXT_springs"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "joints": [
          {"node": 1, "extensions": {"VRMC_springBone_limit":
            {"limit": {"cone": {"angle": -1}, "hinge": {"angle": 0.3}}}}},
          {"node": 2, "extensions": {"EXT_springs": {"joint": {"angleLimit": 45}}}},
          {"node": 3}
        ]}]}}"#,
    );
    let import = vrm::import(text.as_bytes()).unwrap();
    let at = "VRMC_springBone.springs[0].joints[0] (H1).extensions.VRMC_springBone_limit";
    for expected in [
        format!("{at}.specVersion: missing is not \"1.0-draft\"; the limit is read as 1.0-draft"),
        format!("{at}.limit: 2 forms where one is allowed; the cone is used"),
        format!("{at}.limit.cone.angle: -1 is negative; 0 is used"),
        "VRMC_springBone.springs[0].joints[1] (H2).extensions.EXT_springs.joint.angleLimit = 45: \
         a non-standard angle limit, not applied (secmo applies VRMC_springBone_limit)"
            .to_string(),
    ] {
        assert!(
            import.notes.contains(&expected),
            "{expected}\nnot in {:#?}",
            import.notes
        );
    }
    // One note for the extension that holds the angle limit, not a second
    // "extension not applied".
    assert_eq!(
        import
            .notes
            .iter()
            .filter(|n| n.contains("(H2).extensions.EXT_springs"))
            .count(),
        1,
        "{:#?}",
        import.notes
    );
    let limits = &import.settings.chains[0].limits;
    assert_eq!(
        (limits[0].shape.as_str(), limits[0].angle_degrees),
        ("cone", 0.0)
    );
    assert_eq!(limits[1].shape, "none");
}

#[test]
fn a_spring_tails_extensions_are_named_as_on_a_tail_end() {
    // The last joint of a VRM 1.0 spring is only where the joint before it
    // aims: no joint is simulated there, so "not applied" (as if secmo left
    // something out of a simulated joint) was the wrong note for it.
    let text = head_strand_file(
        r#""extensionsUsed": ["VRMC_springBone", "VRMC_springBone_limit", "EXT_wiggle"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "joints": [
          {"node": 1, "extensions": {"EXT_wiggle": {}}},
          {"node": 2},
          {"node": 3, "extensions": {"EXT_wiggle": {}, "VRMC_springBone_limit":
            {"specVersion": "1.0-draft", "limit": {"cone": {"angle": 0.5}}}}}
        ]}]}}"#,
    );
    let import = vrm::import(text.as_bytes()).unwrap();
    let tail = "on the spring's last joint, its tail end, which no joint simulates \
                (it only gives the joint before it its direction and length): \
                the extension has nothing to act on";
    assert_eq!(
        import.notes,
        [
            "VRMC_springBone.springs[0].joints[0] (H1).extensions.EXT_wiggle: extension not applied"
                .to_string(),
            format!("VRMC_springBone.springs[0].joints[2] (H3).extensions.EXT_wiggle: {tail}"),
            format!(
                "VRMC_springBone.springs[0].joints[2] (H3).extensions.VRMC_springBone_limit: {tail}"
            ),
        ]
    );
}

#[test]
fn an_extended_collider_without_version_1_0_is_named_with_what_each_runtime_does() {
    // VRMC_springBone_extended_collider requires specVersion "1.0".
    // three-vrm 3.5.5 reads the extension only then; otherwise it uses the
    // collider's base shape, and fails on a collider without one. secmo
    // uses the extension's shape and says so.
    let file = |version: &str, base: &str| {
        head_strand_file(&format!(
            r#""extensionsUsed": ["VRMC_springBone", "VRMC_springBone_extended_collider"],
      "extensions": {{"VRMC_springBone": {{"specVersion": "1.0",
        "colliders": [{{"node": 0, {base}
          "extensions": {{"VRMC_springBone_extended_collider": {{{version}
            "shape": {{"sphere": {{"offset": [0, 0, 0], "radius": 0.5, "inside": true}}}}}}}}}}],
        "colliderGroups": [{{"colliders": [0]}}],
        "springs": [{{"colliderGroups": [0], "joints": [{{"node": 1}}, {{"node": 2}}]}}]}}}}"#
        ))
    };
    let base = r#""shape": {"sphere": {"offset": [0, 0, 0], "radius": 0.1}},"#;
    let at =
        "VRMC_springBone.colliders[0].extensions.VRMC_springBone_extended_collider.specVersion";
    for (version, base, note) in [
        (
            "",
            base,
            Some(format!(
                "{at}: missing; secmo reads the extension as 1.0 and uses its inside sphere; \
                 three-vrm 3.5.5 ignores the extension and uses the base sphere, \
                 so the file collides differently there"
            )),
        ),
        (
            r#""specVersion": "1.1","#,
            "",
            Some(format!(
                "{at}: \"1.1\" is not \"1.0\"; secmo reads the extension as 1.0 and uses its \
                 inside sphere; three-vrm 3.5.5 ignores the extension and fails on this \
                 collider, which has no base shape, so the file collides differently there"
            )),
        ),
        (
            r#""specVersion": 1,"#,
            base,
            Some(format!(
            "{at}: 1 is not \"1.0\"; secmo reads the extension as 1.0 and uses its inside sphere; \
             three-vrm 3.5.5 ignores the extension and uses the base sphere, \
             so the file collides differently there"
        )),
        ),
        (r#""specVersion": "1.0","#, base, None),
    ] {
        let import = vrm::import(file(version, base).as_bytes()).unwrap();
        assert_eq!(
            import.notes,
            note.into_iter().collect::<Vec<_>>(),
            "{version}"
        );
        // secmo's shape either way: the extension's.
        assert_eq!(import.collider_shapes, ["inside_sphere"], "{version}");
        assert_eq!(import.settings.colliders[0].radius, 0.5);
    }
}

#[test]
fn godette_hair_agrees_across_30_60_and_120_hz_input() {
    // docs/algorithms.md §8, §13.1: the same motion at any input rate. The head turns
    // (yaw, then roll) along 30 Hz keys, linear between them; 60 and 120 Hz
    // input samples the same path. Every chain joint's output rotation at
    // the common 30 Hz instants agrees to float noise, contacts included.
    let import = vrm::import(&asset("Godette_vrm_v4.vrm")).unwrap();
    let rig = rig_of(&import);
    let head = bone(&rig, "head_Armature");
    let hips = bone(&rig, "pelvis_Armature");
    let bind = bind_pose(&import);
    let joints: Vec<usize> = rig
        .chains()
        .iter()
        .flat_map(|c| c.joints.iter().map(|&j| j as usize))
        .collect();
    let key = |k: usize| {
        let t = k as f32 / 30.0;
        let s = |start: f32| ((t - start) / 0.5).clamp(0.0, 1.0);
        let turn = Quat::from_rotation_y(70f32.to_radians() * s(1.0))
            * Quat::from_rotation_z(50f32.to_radians() * s(1.6));
        let sway = Vec3::new(0.3 * s(2.2), 0.0, -0.2 * s(2.4));
        (
            bind[head].rotation() * turn,
            bind[hips].translation() + sway,
        )
    };
    let run = |per_key: usize| -> Vec<Vec<Quat>> {
        let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
        let mut pose = bind.clone();
        let mut at_keys = Vec::new();
        let keys = 30 * 5;
        for f in 0..=keys * per_key {
            let (k, u) = (f / per_key, (f % per_key) as f32 / per_key as f32);
            let ((r0, t0), (r1, t1)) = (key(k), key(k + 1));
            pose[head].rotation = r0.slerp(r1, u).to_array();
            pose[hips].translation = t0.lerp(t1, u).to_array();
            let dt = if f == 0 {
                0.0
            } else {
                1.0 / (30 * per_key) as f32
            };
            let out = common::step(&mut c, dt, &pose);
            if f % per_key == 0 {
                at_keys.push(joints.iter().map(|&j| out[j].rotation()).collect());
            }
        }
        at_keys
    };
    let (r30, r60, r120) = (run(1), run(2), run(4));
    let mut worst = 0.0f32;
    let mut moved = 0.0f32;
    // glam's angle_between is 2·acos(|a·b|), which cannot resolve angles
    // below ~7e-4 rad in f32; this is exact for small ones.
    let angle = |a: Quat, b: Quat| {
        let d = a.conjugate() * b;
        2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
    };
    for ((a, b), c) in r30.iter().zip(&r60).zip(&r120) {
        for (((qa, qb), qc), &j) in a.iter().zip(b).zip(c).zip(&joints) {
            worst = worst.max(angle(*qa, *qc)).max(angle(*qb, *qc));
            moved = moved.max(angle(*qc, bind[j].rotation()));
        }
    }
    assert!(moved > 5f32.to_radians(), "the hair swings: {moved} rad");
    eprintln!("Godette hair, 30/60/120 Hz input: largest difference {worst:e} rad");
    // Measured 3.9e-6 rad. While particles were f32 world positions 1.5 m
    // up (one ulp, 1.2e-7 m, is 1.7e-6 rad of a 7 cm `_End` link) it was
    // 1.13e-5; they are now kept relative to the chains' simulation origin
    // at the head. The dead zone this guards against gave 1.6e-3.
    assert!(worst <= 1e-5, "30/60/120 Hz differ by {worst:e} rad");
}

/// VRMC_springBone 1.0 asks only that each joint lie below the one before:
/// a spring that skips a node (strand_1, rotated and offset) opens, as two
/// chains, the first aiming at the next joint's true rest position, with a
/// note naming both joints. (tests/vrm_parity.rs runs such a spring
/// against three-vrm.)
#[test]
fn a_spring_that_skips_a_node_opens_as_two_chains() {
    let file = r#"{
      "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
      "nodes": [
        {"name": "head", "translation": [0, 1.5, 0], "children": [1]},
        {"name": "strand_0", "translation": [0, 0.08, -0.09], "children": [2]},
        {"name": "strand_1", "translation": [0, -0.06, -0.05],
         "rotation": [0, 0, 0.0871557, 0.9961947], "children": [3]},
        {"name": "strand_2", "translation": [0, -0.08, -0.02], "children": [4]},
        {"name": "strand_end", "translation": [0, -0.07, 0]}
      ],
      "extensionsUsed": ["VRMC_springBone"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [
        {"joints": [{"node": 1}, {"node": 3}, {"node": 4}]}]}}
    }"#;
    let import = vrm::import(file.as_bytes()).unwrap();
    let chains = &import.settings.chains;
    assert_eq!(chains.len(), 2);
    assert_eq!(chains[0].joints, ["strand_0"]);
    assert_eq!(chains[1].joints, ["strand_2"]);
    assert_eq!(chains[1].anchor, "strand_1");
    // strand_2's head in strand_0's frame: strand_1's offset plus its
    // rotation (10° about z) applied to strand_2's.
    let r = Quat::from_xyzw(0.0, 0.0, 0.0871557, 0.9961947);
    let expected = Vec3::new(0.0, -0.06, -0.05) + r * Vec3::new(0.0, -0.08, -0.02);
    let got = Vec3::from(chains[0].end_offset.unwrap());
    assert!((got - expected).length() < 1e-6, "{got} vs {expected}");
    assert!(
        import
            .notes
            .iter()
            .any(|n| n.contains("joints[1] (strand_2)")
                && n.contains("not a child of joints[0] (strand_0)")),
        "{:#?}",
        import.notes
    );
    // It builds a rig and runs.
    let rig = rig_of(&import);
    let mut c = Character::new(rig.clone(), Default::default());
    let pose = bind_pose(&import);
    let mut out = pose.clone();
    for k in 0..30 {
        let input = FrameInput {
            dt: if k == 0 { 0.0 } else { 1.0 / 60.0 },
            pose: &pose,
            teleport: false,
        };
        c.update(&input, &mut out).unwrap();
    }
    assert!(out.iter().all(|t| t.rotation().is_finite()));
}

/// A node that two springs (1.0) or bone groups (0.x) list is moved by the
/// first; the later one continues after it as a chain hanging from it, and
/// a note names the node. (Chains own their joints: before, the rig was
/// refused, "shares a joint with an earlier chain".)
#[test]
fn a_node_in_two_springs_is_moved_by_the_first() {
    let vrm1 = BRANCHED.replace(
        r#""extensions": {"VRM": {"secondaryAnimation": {
    "boneGroups": [{"bones": [2], "stiffiness": 1, "dragForce": 0.4,
                    "gravityPower": 0.2, "hitRadius": 0.01, "center": -1}],
    "colliderGroups": []
  }}}"#,
        r#""extensionsUsed": ["VRMC_springBone"],
  "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [
    {"joints": [{"node": 2}, {"node": 3}, {"node": 4}]},
    {"joints": [{"node": 2}, {"node": 5}, {"node": 6}]}]}}"#,
    );
    let import = vrm::import(vrm1.as_bytes()).unwrap();
    let chains = &import.settings.chains;
    let joints: Vec<&[String]> = chains.iter().map(|c| &c.joints[..]).collect();
    assert_eq!(joints, [&["Hair", "A1"][..], &["B1"][..]]);
    assert_eq!(chains[1].anchor, "Hair");
    assert_eq!(import.joints, 3);
    assert!(
        import
            .notes
            .iter()
            .any(|n| n.contains("Hair") && n.contains("springs[1]")),
        "{:#?}",
        import.notes
    );
    rig_of(&import);

    // VRM 0.x: the second group's root lies inside the first group's
    // subtree, the third repeats the first.
    let vrm0 = BRANCHED.replace(
        r#""boneGroups": [{"bones": [2], "stiffiness": 1, "dragForce": 0.4,
                    "gravityPower": 0.2, "hitRadius": 0.01, "center": -1}],"#,
        r#""boneGroups": [{"bones": [2], "stiffiness": 1, "dragForce": 0.4,
                    "gravityPower": 0.2, "hitRadius": 0.01, "center": -1},
                   {"bones": [5], "stiffiness": 0.5},
                   {"bones": [2], "stiffiness": 2}],"#,
    );
    assert_ne!(vrm0, BRANCHED);
    let import = vrm::import(vrm0.as_bytes()).unwrap();
    let joints: Vec<&[String]> = import
        .settings
        .chains
        .iter()
        .map(|c| &c.joints[..])
        .collect();
    assert_eq!(joints, [&["Hair", "A1", "A2"][..], &["B1", "B2"][..]]);
    assert_eq!(import.joints, 5);
    for bone in ["B1", "Hair"] {
        assert!(
            import.notes.iter().any(|n| n.contains(bone)),
            "{bone}: {:#?}",
            import.notes
        );
    }
    rig_of(&import);
}

/// VRMC_springBone 1.0 settings are per joint: a spring whose stiffness,
/// drag and gravity power change along it is one chain, the changes kept
/// as per-joint offsets from its first joint's numbers, so the whole
/// spring steps together (each joint reads its parent's new position in
/// the same substep, as three-vrm does). A change of gravity direction
/// still starts a new chain. A run after a joint another spring owns
/// takes its own first joint's numbers.
#[test]
fn a_spring_whose_numbers_change_along_it_is_one_chain() {
    let nodes = r#"
      "nodes": [
        {"name": "head", "translation": [0, 1.5, 0], "children": [1]},
        {"name": "s0", "translation": [0, 0.08, -0.09], "children": [2]},
        {"name": "s1", "translation": [0, -0.06, -0.05], "children": [3]},
        {"name": "s2", "translation": [0, -0.08, -0.02], "children": [4]},
        {"name": "s3", "translation": [0, -0.08, 0], "children": [5]},
        {"name": "end", "translation": [0, -0.07, 0]}
      ],"#;
    let joint = |node: u32, stiffness: f32, drag: f32, gravity: f32, dir: [f32; 3]| {
        format!(
            r#"{{"node": {node}, "stiffness": {stiffness}, "dragForce": {drag},
                "gravityPower": {gravity}, "gravityDir": {dir:?}}}"#
        )
    };
    let down = [0.0, -1.0, 0.0];
    let file = |springs: &[Vec<String>]| {
        let springs: Vec<String> = springs
            .iter()
            .map(|js| format!(r#"{{"joints": [{}]}}"#, js.join(",")))
            .collect();
        format!(
            r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0]}}], {nodes}
              "extensionsUsed": ["VRMC_springBone"],
              "extensions": {{"VRMC_springBone": {{"specVersion": "1.0",
                "springs": [{}]}}}}}}"#,
            springs.join(",")
        )
    };
    let tapered = vec![
        joint(1, 1.0, 0.5, 0.0, down),
        joint(2, 2.0, 0.4, 0.1, down),
        joint(3, 3.0, 0.3, 0.2, down),
        joint(4, 4.0, 0.2, 0.3, down),
        r#"{"node": 5}"#.to_string(),
    ];
    let import = vrm::import(file(std::slice::from_ref(&tapered)).as_bytes()).unwrap();
    let chains = &import.settings.chains;
    assert_eq!(chains.len(), 1, "{chains:#?}");
    assert_eq!(chains[0].joints, ["s0", "s1", "s2", "s3"]);
    assert_eq!(chains[0].params["vrm_stiffness"].as_f64(), Some(1.0));
    let offsets = &chains[0].vrm_offsets;
    assert_eq!(offsets.len(), 4);
    for (k, o) in offsets.iter().enumerate() {
        let want = [k as f32, -0.1 * k as f32, 0.1 * k as f32];
        for (a, b) in o.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "joint {k}: {o:?} vs {want:?}");
        }
    }
    // The rig keeps them; the settings it writes carry them back.
    let rig = rig_of(&import);
    assert_eq!(rig.chains()[0].vrm_offsets.len(), 4);
    let written = secmo::RigSettings::from_rig(&rig);
    assert_eq!(written.chains[0].vrm_offsets, rig.chains()[0].vrm_offsets);
    // Another gravity direction from s2 on: two chains, the second with
    // s2's numbers and s3's offset from them.
    let mut turned = tapered.clone();
    turned[2] = joint(3, 3.0, 0.3, 0.2, [0.0, 0.0, 1.0]);
    turned[3] = joint(4, 4.0, 0.2, 0.3, [0.0, 0.0, 1.0]);
    let import = vrm::import(file(&[turned]).as_bytes()).unwrap();
    let chains = &import.settings.chains;
    assert_eq!(chains.len(), 2, "{chains:#?}");
    assert_eq!(chains[1].joints, ["s2", "s3"]);
    assert_eq!(chains[1].anchor, "s1");
    assert_eq!(chains[1].params["vrm_stiffness"].as_f64(), Some(3.0));
    // Numbers as the file wrote them, not as their f32's exact value
    // (0.30000001192092896).
    assert_eq!(chains[1].params["vrm_drag_force"].to_string(), "0.3");
    assert!((chains[1].vrm_offsets[1][0] - 1.0).abs() < 1e-6);
    // s1 listed first by another spring: the tapered one moves s0, then
    // s2 and s3 from s1, with s2's numbers.
    let other = vec![joint(2, 9.0, 0.9, 0.0, down), r#"{"node": 3}"#.to_string()];
    let import = vrm::import(file(&[other, tapered]).as_bytes()).unwrap();
    let chains = &import.settings.chains;
    assert_eq!(chains.len(), 3, "{chains:#?}");
    assert_eq!(chains[2].joints, ["s2", "s3"]);
    let p = &chains[2].params;
    assert_eq!(p["vrm_stiffness"].as_f64(), Some(3.0));
    assert_eq!(p["vrm_drag_force"].to_string(), "0.3");
    assert!((p["vrm_gravity_power"].as_f64().unwrap() - 0.2).abs() < 1e-6);
    let o = chains[2].vrm_offsets[1];
    assert!(
        (o[0] - 1.0).abs() < 1e-6 && (o[1] + 0.1).abs() < 1e-6,
        "{o:?}"
    );
    assert!(chains[1].vrm_offsets.is_empty(), "{:?}", chains[1]);
}

/// Under a non-uniform scale above the spring (here the head's parent,
/// stretched 2× along y, and a strand node stretched along x), an avatar
/// standing still keeps its authored hair: the VRM kernel's bone axes are
/// taken in the frames it composes (rotations), so the bind pose is its
/// rest. With the axes taken through each joint's scaled matrix, the
/// joints drifted up to 0.12 m from it with no input.
#[test]
fn a_non_uniform_scale_above_a_spring_keeps_it_at_rest() {
    let file = r#"{
      "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
      "nodes": [
        {"name": "body", "scale": [1, 2, 1], "rotation": [0, 0.3826834, 0, 0.9238795], "children": [1]},
        {"name": "head", "translation": [0, 0.75, 0], "children": [2]},
        {"name": "s0", "translation": [0, 0.04, -0.09], "rotation": [0.2588190, 0, 0, 0.9659258], "children": [3]},
        {"name": "s1", "translation": [0.02, -0.06, -0.05], "scale": [1.5, 1, 1], "children": [4]},
        {"name": "s2", "translation": [0, -0.08, -0.02], "children": [5]},
        {"name": "end", "translation": [0.01, -0.07, 0]}
      ],
      "extensionsUsed": ["VRMC_springBone"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [
        {"joints": [{"node": 2, "stiffness": 1}, {"node": 3, "stiffness": 1},
                    {"node": 4, "stiffness": 1}, {"node": 5}]}]}}
    }"#;
    let import = vrm::import(file.as_bytes()).unwrap();
    let rig = rig_of(&import);
    let bind = bind_pose(&import);
    let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
    let rest = world_positions(&rig, &bind);
    let mut worst = 0.0f32;
    for f in 0..240 {
        let out = common::step(&mut c, if f == 0 { 0.0 } else { 1.0 / 60.0 }, &bind);
        for (p, q) in world_positions(&rig, &out).iter().zip(&rest) {
            worst = worst.max(p.distance(*q));
        }
    }
    eprintln!("non-uniform scale, still: joints {worst:e} m from the bind pose");
    assert!(worst < 1e-5, "the still hair moved {worst} m");
}

/// The first joint of each imported chain, in the chains' order.
fn first_joints(import: &VrmImport) -> Vec<&str> {
    import
        .settings
        .chains
        .iter()
        .map(|c| c.joints[0].as_str())
        .collect()
}

/// A VRM 1.0 file whose hair spring (listed first) collides with a sphere
/// on the joint of a bun spring (listed second) that droops under gravity
/// from a horizontal rest.
fn bun_file() -> Vec<u8> {
    serde_json::to_vec(&bun_json()).unwrap()
}

fn bun_json() -> serde_json::Value {
    let joint = |node: usize, gravity: f32| {
        serde_json::json!({"node": node, "hitRadius": 0.02, "stiffness": 0.3,
                           "gravityPower": gravity, "gravityDir": [0.0, -1.0, 0.0],
                           "dragForce": 0.4})
    };
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "head", "translation": [0.0, 1.5, 0.0], "children": [1, 4]},
            {"name": "hair_0", "translation": [0.0, 0.05, -0.1], "children": [2]},
            {"name": "hair_1", "translation": [0.0, -0.1, -0.02], "children": [3]},
            {"name": "hair_end", "translation": [0.0, -0.1, 0.0]},
            {"name": "bun_0", "translation": [0.0, 0.0, -0.1], "children": [5]},
            {"name": "bun_end", "translation": [0.0, 0.0, -0.12]}
        ],
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "colliders": [{"node": 4, "shape": {"sphere": {"offset": [0.0, 0.0, -0.07], "radius": 0.04}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [
                {"name": "hair", "joints": [joint(1, 0.3), joint(2, 0.3), {"node": 3}],
                 "colliderGroups": [0]},
                {"name": "bun", "joints": [joint(4, 1.0), {"node": 5}]}
            ]
        }}
    });
    gltf
}

/// three-vrm steps a spring after the springs its colliders ride on, and the
/// collider where that spring swung to (tests/vrm_parity.rs holds secmo to
/// 0.0003 % of it on such a fixture, and to 27 % before). The importer
/// orders the springs so (a note says it did); a rig listing them the
/// other way warns, and its collider stays on the animated pose.
#[test]
fn a_collider_on_another_springs_joint_rides_where_that_spring_swung() {
    use secmo::rig::RigWarning;
    let import = vrm::import(&bun_file()).unwrap();
    assert_eq!(
        first_joints(&import),
        ["bun_0", "hair_0"],
        "the bun runs first"
    );
    assert!(
        import.notes.iter().any(|n| n.contains("reordered")),
        "{:#?}",
        import.notes
    );
    let run = |settings: &secmo::settings::RigSettings| {
        let rig = common::shared(
            settings
                .to_rig_desc(import.skeleton.bones.clone(), 1.0, UpAxis::Y)
                .unwrap(),
        );
        let mut c = Character::new(Arc::clone(&rig), CharacterOptions::default());
        let pose = bind_pose(&import);
        let mut out = pose.clone();
        for _ in 0..240 {
            out = common::step(&mut c, 1.0 / 60.0, &pose);
        }
        let mut spheres = vec![secmo::DebugSphere::default(); c.debug_draw_capacity().1];
        let mut lines = vec![secmo::DebugLine::default(); c.debug_draw_capacity().0];
        let (_, ns) = c.debug_draw(&mut lines, &mut spheres);
        let collider = spheres[..ns]
            .iter()
            .find(|s| s.kind == secmo::DEBUG_COLLIDER)
            .map(|s| Vec3::from(s.center))
            .unwrap();
        // The sphere's centre on bun_0 as the output and the animation
        // place it.
        let bun = bone(&rig, "bun_0");
        let centre = |local: &[Transform]| {
            let mut component = vec![glam::Affine3A::IDENTITY; local.len()];
            forward_kinematics(rig.parents(), local, &mut component);
            component[bun].transform_point3(Vec3::new(0.0, 0.0, -0.07))
        };
        let (simulated, animated) = (centre(&out), centre(&pose));
        (rig, collider, simulated, animated, c.particle_positions())
    };

    let (rig, collider, simulated, animated, particles) = run(&import.settings);
    assert!(rig.warnings().is_empty(), "{:?}", rig.warnings());
    assert!(
        simulated.distance(animated) > 0.02,
        "the bun droops: {simulated} against {animated}"
    );
    assert!(
        collider.distance(simulated) < 1e-5,
        "the collider rides on the simulated bun: {collider} against {simulated}"
    );
    // The hair (particles 1 and 2: the bun's one particle comes first)
    // keeps out of the sphere where it is (its middle joint rests on it,
    // 0.06 m from the centre).
    for p in &particles[1..] {
        assert!(
            p.distance(collider) >= 0.04 + 0.02 - 1e-4,
            "a hair joint {} m from the collider",
            p.distance(collider)
        );
    }

    // Listed the other way, the hair runs first and reads the animated bun.
    let mut reversed = import.settings.clone();
    reversed.chains.reverse();
    let (rig, collider, _, animated, _) = run(&reversed);
    assert_eq!(
        rig.warnings(),
        &[RigWarning::ChainOrder {
            chain: 0,
            bone: bone(&rig, "bun_0"),
            moved_by: 1
        }]
    );
    assert!(
        collider.distance(animated) < 1e-5,
        "{collider} against {animated}"
    );
}

/// Springs that ride on each other's colliders in a circle: the depth-first
/// walk from the first (three-vrm's) breaks it where it closes, so the hair
/// runs last, with a note; the rig warns about the bun, which reads the
/// later hair's joint.
#[test]
fn springs_colliding_in_a_circle_are_ordered_depth_first_with_a_note() {
    let import = vrm::import(&asset("springs_in_a_circle.gltf")).unwrap();
    assert_eq!(first_joints(&import), ["bun_0", "hair_0"]);
    assert!(
        import.notes.iter().any(|n| n.contains("in a circle")),
        "{:#?}",
        import.notes
    );
    let rig = rig_of(&import);
    assert_eq!(
        rig.warnings(),
        &[secmo::rig::RigWarning::ChainOrder {
            chain: 0,
            bone: bone(&rig, "hair_1"),
            moved_by: 1
        }]
    );
}

/// 20,000 one-joint springs, each hanging below the one before, listed last
/// first: the importer orders them parents first without recursing (a
/// depth-first walk on the call stack overflowed a test thread's 2 MiB in
/// a debug build).
#[test]
fn thousands_of_springs_hanging_one_below_another_are_ordered_without_recursion() {
    let springs = 20_000;
    let nodes: Vec<serde_json::Value> = (0..2 * springs)
        .map(|i| {
            let mut node =
                serde_json::json!({"name": format!("n{i}"), "translation": [0.0, -0.01, 0.0]});
            if i + 1 < 2 * springs {
                node["children"] = serde_json::json!([i + 1]);
            }
            node
        })
        .collect();
    let list: Vec<serde_json::Value> = (0..springs)
        .rev()
        .map(|k| serde_json::json!({"joints": [{"node": 2 * k}, {"node": 2 * k + 1}]}))
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": list}},
    });
    let import = vrm::import(&serde_json::to_vec(&gltf).unwrap()).unwrap();
    let expected: Vec<String> = (0..springs).map(|k| format!("n{}", 2 * k)).collect();
    assert_eq!(first_joints(&import), expected);
    // The rig takes them in that order, none before the chain it hangs
    // from (building it must stay linear in the chains: frame slots and
    // the anchor test once searched linearly). The strand is 400 m long,
    // which the size check reports; nothing else is.
    let rig = rig_of(&import);
    assert_eq!(rig.chains().len(), springs);
    assert!(
        matches!(rig.warnings(), [secmo::RigWarning::UnusualSize { .. }]),
        "{:?}",
        rig.warnings()
    );
}

#[test]
fn damaged_or_out_of_range_numbers_are_named_and_the_rig_still_builds() {
    // Numbers three-vrm would run as written but the preset cannot (a
    // negative hit radius or collider radius, a drag force outside [0, 1],
    // a stiffness of 1e30), values of the wrong type or length, a second
    // shape, a list that is not one: each is named with its field and the
    // value used, the rest of the file opens, and its settings build a rig
    // (before, a short gravityDir was completed from the default and
    // pointed up, a string stiffness passed for 1, and the out-of-range
    // numbers made the rig refuse the whole file).
    let text = head_strand_file(
        r#""extensionsUsed": ["VRMC_springBone", "VRMC_springBone_extended_collider"],
      "extensions": {"VRMC_springBone": {"specVersion": "1.0",
        "colliders": [
          {"node": 0, "shape": {"sphere": {"offset": [0, 0, 0.1], "radius": -1},
                                "capsule": {"offset": [0, 0, 0], "tail": [0, 1, 0], "radius": 1}}},
          {"node": 0, "extensions": {"VRMC_springBone_extended_collider": {
             "specVersion": "1.0", "shape": {"plane": {"offset": [0, 0, 0], "normal": [0, 0, 0]}}}}}
        ],
        "colliderGroups": [{"colliders": [0, 1]}],
        "springs": [{"name": "hair", "colliderGroups": [0],
          "joints": [
            {"node": 1, "stiffness": 1e30, "dragForce": 2, "hitRadius": -3,
             "gravityPower": 1, "gravityDir": [0, 1]},
            {"node": 2, "stiffness": "high", "dragForce": -1, "hitRadius": 0.02},
            {"node": 3}
          ]}]}}"#,
    );
    let import = vrm::import(text.as_bytes()).expect("the file opens");
    let notes = assert_notes(
        &import,
        &[
            "colliders[0].shape: has sphere and capsule; the sphere is used",
            "colliders[0].shape.sphere.radius: -1 is negative; 0 is used",
            "colliders[1].shape.plane.normal: [0.0, 0.0, 0.0] has no direction; left out",
            "joints[0] (H1).stiffness: 1e30 is outside [0, 1e6]; 1e6 is used",
            "joints[0] (H1).dragForce: 2 is outside [0, 1]; 1 is used",
            "joints[0] (H1).hitRadius: -3 is negative; 0 is used",
            "joints[0] (H1).gravityDir: [0,1] is not 3 finite numbers; [0.0, -1.0, 0.0] is used",
            "joints[1] (H2).stiffness: \"high\" is not a finite number; 1 is used",
            "joints[1] (H2).dragForce: -1 is outside [0, 1]; 0 is used",
        ],
    );
    assert_eq!(import.notes.len(), 9, "{notes}");
    let chain = &import.settings.chains[0];
    assert_eq!(chain.radii, [0.0, 0.02]);
    assert_eq!(chain.param_f32("vrm_stiffness"), Some(1e6));
    assert_eq!(chain.param_f32("vrm_drag_force"), Some(1.0));
    assert_eq!(
        gravity_direction(chain),
        [0.0, -1.0, 0.0],
        "the default down, not [0, 1, 0]"
    );
    assert_eq!(import.settings.colliders.len(), 1);
    assert_eq!(import.settings.colliders[0].shape, "sphere");
    assert_eq!(import.settings.colliders[0].radius, 0.0);
    let rig = rig_of(&import);
    assert_eq!(rig.chains()[0].colliders.len(), 1);

    // A negative gravity power pulls the other way in three-vrm and UniVRM
    // (they add gravityDir · gravityPower): the direction turns, no note.
    let text = head_strand_file(
        r#""extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [{
        "joints": [{"node": 1, "gravityPower": -0.5, "gravityDir": [0, -1, 0]},
                   {"node": 2}]}]}}"#,
    );
    let import = vrm::import(text.as_bytes()).unwrap();
    assert!(import.notes.is_empty(), "{:?}", import.notes);
    let chain = &import.settings.chains[0];
    assert_eq!(chain.param_f32("vrm_gravity_power"), Some(0.5));
    assert_eq!(chain.params["gravity_direction"][1].as_f64(), Some(1.0));

    // A list that is not one, and a version secmo does not know.
    let text = head_strand_file(
        r#""extensions": {"VRMC_springBone": {"specVersion": "2.0", "springs": {"a": 1}}}"#,
    );
    let import = vrm::import(text.as_bytes()).unwrap();
    let notes = import.notes.join("\n");
    assert!(
        notes.contains("VRMC_springBone.springs: {\"a\":1} is not a list; nothing is read from it")
            && notes.contains("VRMC_springBone.specVersion: \"2.0\" is not a version secmo knows"),
        "{notes}"
    );

    // VRM 0.x: the bone group's numbers and its vector fields the same way.
    let vrm0 = BRANCHED.replace(
        "\"stiffiness\": 1,",
        "\"stiffiness\": -2, \"gravityDir\": 3,",
    );
    assert_ne!(vrm0, BRANCHED, "the fixture's bone group");
    let import = vrm::import(vrm0.as_bytes()).unwrap();
    assert_notes(
        &import,
        &[
            "boneGroups[0].stiffiness: -2 is outside [0, 1e6]; 0 is used",
            "boneGroups[0].gravityDir: 3 is not an {x, y, z} vector; [0.0, -1.0, 0.0] is used",
        ],
    );
    rig_of(&import);

    // A node transform of the wrong length is refused, naming it.
    let text = head_strand_file(r#""extensions": {}"#).replace(
        "[0, -0.1, 0], \"children\": [2]",
        "[0, -0.1], \"children\": [2]",
    );
    let e = vrm::import(text.as_bytes()).unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("nodes[1].translation", "not 3 numbers")
    );
}

#[test]
fn node_constraints_with_a_damaged_weight_or_axis_are_named() {
    // A weight outside [0, 1] (the rig refused the file for it), a weight
    // that is not a number, an axis that is none of the schema's: each is
    // named; the weights are clamped or defaulted, the constraint with no
    // axis it can turn about is left out, and the rest builds a rig.
    let text = r#"{"asset": {"version": "2.0"}, "nodes": [
      {"name": "A"},
      {"name": "B", "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
        "constraint": {"rotation": {"source": 0, "weight": 1.5}}}}},
      {"name": "C", "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
        "constraint": {"roll": {"source": 0, "rollAxis": "W"}}}}},
      {"name": "D", "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
        "constraint": {"aim": {"source": 0, "aimAxis": "PositiveY", "weight": "x"}}}}}
    ]}"#;
    let import = vrm::import(text.as_bytes()).expect("the file opens");
    let at = "extensions.VRMC_node_constraint.constraint";
    assert_notes(
        &import,
        &[
            &format!("nodes[1].{at}.rotation.weight: 1.5 is outside [0, 1]; 1 is used"),
            &format!(
                "nodes[2].{at}.roll.rollAxis: \"W\" is not one of X, Y, Z; the constraint is \
                 ignored"
            ),
            &format!("nodes[3].{at}.aim.weight: \"x\" is not a finite number; 1 is used"),
        ],
    );
    assert_eq!(import.notes.len(), 3, "{:?}", import.notes);
    let constraints = &import.settings.node_constraints;
    assert_eq!(constraints.len(), 2);
    assert_eq!((constraints[0].weight, constraints[1].weight), (1.0, 1.0));
    rig_of(&import);
}
