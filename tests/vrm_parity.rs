//! secmo's VRM preset against the reference implementation, three-vrm
//! (`@pixiv/three-vrm-springbone` 3.5.5 with `three` 0.171.0, pinned in
//! tools/three-vrm/package-lock.json), run headless under node by
//! tools/three-vrm/vrm.mjs on the same file and the same motion.
//!
//! Every spring fixture in tests/assets, Godette (VRM 0.x) and synthetic
//! VRM 1.0 fixtures covering stiffness, drag, gravity, colliders (a root
//! inside one too), a center space and teleports (under gravity too, where
//! the chains restart as three-vrm's `reset()` does). The motion (sampled at
//! 120 Hz): 3 s still, the hips +0.5 m over 0.5 s, the head yaws 60°, then
//! rolls 60°, then 2 s still; once with the moves at a constant rate (as the
//! issue states them) and once eased in and out. three-vrm steps with
//! dt = 1/120; secmo gets the same samples at 120 Hz and, for the
//! frame-rate table, every 2nd / 4th sample at 60 / 30 Hz. The figure is
//! the largest difference of a joint tail's world position over the run,
//! as a percentage of its chain's length. docs/vrm-mapping.md holds the
//! table this test prints.
//!
//! A skinned stick-figure humanoid whose hips take a path with corners is
//! also run against three-vrm's stock `manager.update` loop and against
//! the specification's joint update in float64 (docs/vrm-mapping.md, "Bone
//! lengths").
//!
//! Needs node and `npm ci --prefix tools/three-vrm` (.ci/run does both);
//! without them the test is reported as ignored (tests/support/tools.rs).

#[path = "support/tools.rs"]
#[macro_use]
mod tools;

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Affine3A, Quat, Vec3};
use secmo::math::{forward_kinematics, Transform};
use secmo::rig::{Rig, UpAxis};
use secmo::{vrm, Character, CharacterOptions, FrameInput};
use serde_json::{json, Value};

const RATE: usize = 120;

/// Local transform overrides of the moved nodes, per 120 Hz frame.
#[derive(Clone)]
struct Motion {
    /// glTF node index, or -1 for the scene (above every root).
    node: i64,
    translation: Option<Vec<Vec3>>,
    rotation: Option<Vec<Quat>>,
}

#[derive(Clone)]
struct Fixture {
    name: String,
    file: PathBuf,
    motion: Vec<Motion>,
    frames: usize,
    /// 120 Hz frames at which the input teleports.
    teleports: Vec<usize>,
    /// The chains restart on their bind pose at a teleport
    /// (`teleport_restart`, as three-vrm's `reset()`) instead of being
    /// carried (the default).
    restart: bool,
}

fn smooth(t: f32, start: f32, duration: f32) -> f32 {
    let x = ((t - start) / duration).clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// How the standard motion's moves run over their 0.5 s.
#[derive(Clone, Copy, PartialEq)]
enum Ease {
    /// At a constant rate, as the issue states the motion ("+0.5 m over
    /// 0.5 s"): every corner falls on a 30 Hz key, so 30 Hz keys hold the
    /// whole motion and the frame-rate columns measure the solver.
    Ramp,
    /// Smoothstep in and out: 30 Hz keys, linear in between, miss the
    /// curve by up to 1.7 mm (hips) and 3.5 mrad (head), and the columns
    /// measure what a chain makes of that.
    Smooth,
}

impl Ease {
    fn at(self, t: f32, start: f32, duration: f32) -> f32 {
        match self {
            Ease::Ramp => ((t - start) / duration).clamp(0.0, 1.0),
            Ease::Smooth => smooth(t, start, duration),
        }
    }
}

/// 3 s still, hips +0.5 m along x over 0.5 s, head yaw 60° over 0.5 s, head
/// roll 60° over 0.5 s, 2 s still: the motion.
fn standard_motion(
    hips: (i64, Vec3),
    head: (i64, Quat),
    teleport: Option<f32>,
    ease: Ease,
) -> (Vec<Motion>, usize) {
    let frames = (6.5 * RATE as f32) as usize;
    let mut hip_track = Vec::with_capacity(frames);
    let mut head_track = Vec::with_capacity(frames);
    for f in 0..frames {
        let t = f as f32 / RATE as f32;
        let jump = match teleport {
            Some(at) if t >= at => Vec3::new(4.0, 0.0, 3.0),
            _ => Vec3::ZERO,
        };
        hip_track.push(hips.1 + Vec3::X * 0.5 * ease.at(t, 3.0, 0.5) + jump);
        let yaw = Quat::from_rotation_y(60f32.to_radians() * ease.at(t, 3.5, 0.5));
        let roll = Quat::from_rotation_z(60f32.to_radians() * ease.at(t, 4.0, 0.5));
        head_track.push(yaw * roll * head.1);
    }
    let mut motion = vec![Motion {
        node: hips.0,
        translation: Some(hip_track),
        rotation: None,
    }];
    if head.0 == hips.0 {
        motion[0].rotation = Some(head_track);
    } else {
        motion.push(Motion {
            node: head.0,
            translation: None,
            rotation: Some(head_track),
        });
    }
    (motion, frames)
}

fn gltf_json(path: &Path) -> Value {
    vrm::gltf_json(&std::fs::read(path).unwrap()).unwrap()
}

fn node_rest(json: &Value, node: i64) -> (Vec3, Quat) {
    if node < 0 {
        return (Vec3::ZERO, Quat::IDENTITY);
    }
    let n = &json["nodes"][node as usize];
    let v = |key: &str, default: &[f32]| -> Vec<f32> {
        n.get(key)
            .and_then(Value::as_array)
            .map_or(default.to_vec(), |a| {
                a.iter().map(|x| x.as_f64().unwrap() as f32).collect()
            })
    };
    let t = v("translation", &[0.0; 3]);
    let r = v("rotation", &[0.0, 0.0, 0.0, 1.0]);
    (
        Vec3::new(t[0], t[1], t[2]),
        Quat::from_xyzw(r[0], r[1], r[2], r[3]),
    )
}

/// A fixture over a file: the hips and head are the VRM humanoid's when it
/// has one, otherwise the scene moves and the first spring's parent turns.
fn file_fixture(name: &str, file: PathBuf, ease: Ease) -> Fixture {
    let json = gltf_json(&file);
    let humanoid = |bone: &str| -> Option<i64> {
        json.pointer("/extensions/VRMC_vrm/humanoid/humanBones")
            .and_then(|b| b.get(bone))
            .and_then(|b| b["node"].as_i64())
            .or_else(|| {
                json.pointer("/extensions/VRM/humanoid/humanBones")?
                    .as_array()?
                    .iter()
                    .find(|b| b["bone"] == bone)?["node"]
                    .as_i64()
            })
    };
    let first_joint = json
        .pointer("/extensions/VRMC_springBone/springs/0/joints/0/node")
        .and_then(Value::as_i64);
    let parent_of = |node: i64| -> i64 {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| {
                n.get("children")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|c| c.as_i64() == Some(node)))
            })
            .map_or(-1, |p| p as i64)
    };
    let hips = humanoid("hips").unwrap_or(-1);
    let head = humanoid("head").unwrap_or_else(|| first_joint.map_or(-1, parent_of));
    let (motion, frames) = standard_motion(
        (hips, node_rest(&json, hips).0),
        (head, node_rest(&json, head).1),
        None,
        ease,
    );
    Fixture {
        name: name.into(),
        file,
        motion,
        frames,
        teleports: Vec::new(),
        restart: false,
    }
}

/// What a synthetic VRM 1.0 fixture varies.
#[derive(Clone)]
struct Spec {
    name: &'static str,
    stiffness: f32,
    drag: f32,
    gravity_power: f32,
    gravity_dir: [f32; 3],
    /// Collider on the head: (shape JSON, hit radius).
    collider: Option<Value>,
    hit_radius: f32,
    /// The spring's center node: 8 (a child of the hips) or 2 (the head).
    center: Option<usize>,
    teleport: bool,
    /// The teleport restarts the chains (`teleport_restart`).
    restart: bool,
    /// The spring lists strand_0 then strand_2: strand_1 is no joint and
    /// moves with strand_0 (VRMC_springBone asks only that a joint lie
    /// below the one before). strand_1 is then a helper node on strand_0's
    /// head (no translation, no rotation): three-vrm takes the next joint's
    /// own translation as the tail's rest offset, which is the true one
    /// only there.
    skip: bool,
    /// Stiffness, drag and gravity power change joint by joint along the
    /// spring (authors taper them toward the tip).
    taper: bool,
    /// strand_2 and strand_3 pull along another gravity direction: secmo
    /// runs the spring as two chains, the second hanging from the first's
    /// strand_1 joint.
    turn_gravity: bool,
    /// Uniform scale of the scene root (an armature in other units).
    root_scale: f32,
    /// Rotation of the scene root (an armature exported turned or Z-up).
    root_rotation: Option<Quat>,
    /// Uniform scale of the strand's second joint (a bone scaled in place).
    joint_scale: f32,
    /// The node the collider sits on.
    collider_on: Host,
}

/// Where a fixture's collider sits.
#[derive(Clone, Copy, PartialEq)]
enum Host {
    Head,
    /// On the joint of another spring (a bun behind the head, listed after
    /// the strand): three-vrm steps that spring first and the strand meets
    /// the collider where the bun swung to.
    Spring,
    /// On a turned and offset node below that joint.
    BelowSpring,
}

impl Default for Spec {
    fn default() -> Self {
        Self {
            name: "",
            stiffness: 1.0,
            drag: 0.4,
            gravity_power: 0.0,
            gravity_dir: [0.0, -1.0, 0.0],
            collider: None,
            hit_radius: 0.02,
            center: None,
            teleport: false,
            restart: false,
            skip: false,
            taper: false,
            turn_gravity: false,
            root_scale: 1.0,
            root_rotation: None,
            joint_scale: 1.0,
            collider_on: Host::Head,
        }
    }
}

/// root (0) → hips (1, 1 m up) → head (2, 0.5 m up) → a five-joint strand
/// (3..7, the last its tail end) starting behind the head and hanging down
/// and back; node 8 a child of the hips for a center space.
fn synthetic(spec: &Spec, dir: &Path, ease: Ease) -> Fixture {
    let nodes = json!([
        {"name": "root", "children": [1]},
        {"name": "hips", "translation": [0.0, 1.0, 0.0], "children": [2, 8]},
        {"name": "head", "translation": [0.0, 0.5, 0.0], "children": [3]},
        {"name": "strand_0", "translation": [0.0, 0.08, -0.09], "children": [4]},
        {"name": "strand_1", "translation": [0.0, -0.06, -0.05],
         "rotation": [0.0, 0.0, 0.0871557, 0.9961947], "children": [5]},
        {"name": "strand_2", "translation": [0.0, -0.08, -0.02], "children": [6]},
        {"name": "strand_3", "translation": [0.01, -0.08, 0.0], "children": [7]},
        {"name": "strand_end", "translation": [0.0, -0.07, 0.0]},
        {"name": "center", "translation": [0.0, 0.2, 0.0]}
    ]);
    let mut nodes = nodes;
    if spec.root_scale != 1.0 {
        nodes[0]["scale"] = json!([spec.root_scale, spec.root_scale, spec.root_scale]);
    }
    if spec.joint_scale != 1.0 {
        nodes[4]["scale"] = json!([spec.joint_scale, spec.joint_scale, spec.joint_scale]);
    }
    if let Some(r) = spec.root_rotation {
        nodes[0]["rotation"] = json!(r.to_array());
    }
    if spec.collider_on != Host::Head {
        // A bun behind the head: nodes 9 (the joint), 10 (its end) and 11
        // (a node below the joint, turned 30° about x).
        nodes[2]["children"] = json!([3, 9]);
        nodes.as_array_mut().unwrap().extend([
            json!({"name": "bun_0", "translation": [0.0, 0.0, -0.12], "children": [10, 11]}),
            json!({"name": "bun_end", "translation": [0.0, -0.1, -0.02]}),
            json!({"name": "bun_helper", "translation": [0.0, -0.03, 0.0],
                   "rotation": [0.258819, 0.0, 0.0, 0.9659258]}),
        ]);
    }
    if spec.skip {
        nodes[4]["rotation"] = json!([0.0, 0.0, 0.0, 1.0]);
        nodes[4]["translation"] = json!([0.0, 0.0, 0.0]);
        nodes[5]["translation"] = json!([0.0, -0.132, -0.11]);
    }
    let joint = |node: usize| {
        // Joint k of the strand (0 at strand_0).
        let k = node as f32 - 3.0;
        let (stiffness, drag, gravity) = if spec.taper {
            (
                spec.stiffness * (1.0 + 0.4 * k),
                spec.drag - 0.08 * k,
                spec.gravity_power + 0.15 * k,
            )
        } else {
            (spec.stiffness, spec.drag, spec.gravity_power)
        };
        let gravity_dir = if spec.turn_gravity && node >= 5 {
            [0.0, 0.0, -1.0]
        } else {
            spec.gravity_dir
        };
        json!({"node": node, "hitRadius": spec.hit_radius, "stiffness": stiffness,
               "gravityPower": gravity, "gravityDir": gravity_dir,
               "dragForce": drag})
    };
    let mut spring = json!({
        "name": spec.name,
        "joints": [joint(3), joint(4), joint(5), joint(6), {"node": 7}],
    });
    if spec.skip {
        spring["joints"] = json!([joint(3), joint(5), joint(6), {"node": 7}]);
    }
    let mut ext = json!({"specVersion": "1.0", "springs": []});
    let mut used = vec!["VRMC_springBone"];
    if let Some(shape) = &spec.collider {
        let on = match spec.collider_on {
            Host::Head => 2,
            Host::Spring => 9,
            Host::BelowSpring => 11,
        };
        let mut collider = json!({"node": on});
        // Inside shapes and planes exist only in
        // VRMC_springBone_extended_collider (a plane in the core shape is
        // skipped by three-vrm and UniVRM).
        if shape.pointer("/sphere/inside").is_some()
            || shape.pointer("/capsule/inside").is_some()
            || shape.get("plane").is_some()
        {
            // VRMC_springBone_extended_collider, with the 1.0 fallback.
            collider["shape"] = json!({"sphere": {"offset": [0.0, 0.0, 0.0], "radius": 0.0}});
            collider["extensions"] = json!({"VRMC_springBone_extended_collider":
                {"specVersion": "1.0", "shape": shape}});
            used.push("VRMC_springBone_extended_collider");
        } else {
            collider["shape"] = shape.clone();
        }
        ext["colliders"] = json!([collider]);
        ext["colliderGroups"] = json!([{"colliders": [0]}]);
        spring["colliderGroups"] = json!([0]);
    }
    if let Some(center) = spec.center {
        spring["center"] = json!(center);
    }
    ext["springs"] = json!([spring]);
    if spec.collider_on != Host::Head {
        ext["springs"].as_array_mut().unwrap().push(json!({
            "name": "bun",
            "joints": [{"node": 9, "hitRadius": 0.01, "stiffness": 0.4,
                        "gravityPower": 0.5, "gravityDir": [0.0, -1.0, 0.0],
                        "dragForce": 0.3}, {"node": 10}],
        }));
    }
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": used,
        "extensions": {"VRMC_springBone": ext},
    });
    let file = dir.join(format!("{}.gltf", spec.name));
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let teleport = spec.teleport.then_some(2.0);
    let (motion, frames) = standard_motion(
        (1, Vec3::new(0.0, 1.0, 0.0)),
        (2, Quat::IDENTITY),
        teleport,
        ease,
    );
    Fixture {
        name: spec.name.into(),
        file,
        motion,
        frames,
        teleports: teleport
            .map(|t| vec![(t * RATE as f32).ceil() as usize])
            .unwrap_or_default(),
        restart: spec.restart,
    }
}

fn synthetic_specs() -> Vec<Spec> {
    let sphere =
        |offset: [f32; 3], radius: f32| json!({"sphere": {"offset": offset, "radius": radius}});
    let capsule = |offset: [f32; 3], tail: [f32; 3], radius: f32| json!({"capsule": {"offset": offset, "tail": tail, "radius": radius}});
    let mut specs = Vec::new();
    for (name, stiffness) in [
        ("stiffness_0", 0.0),
        ("stiffness_0.5", 0.5),
        ("stiffness_1", 1.0),
        ("stiffness_4", 4.0),
    ] {
        specs.push(Spec {
            name,
            stiffness,
            ..Spec::default()
        });
    }
    for (name, drag) in [("drag_0.05", 0.05), ("drag_0.4", 0.4), ("drag_0.8", 0.8)] {
        specs.push(Spec {
            name,
            drag,
            ..Spec::default()
        });
    }
    for (name, power, dir) in [
        ("gravity_0.5_down", 0.5, [0.0, -1.0, 0.0]),
        ("gravity_1_down", 1.0, [0.0, -1.0, 0.0]),
        ("gravity_0.5_forward", 0.5, [0.0, 0.0, 1.0]),
        ("gravity_1_side", 1.0, [0.6, -0.8, 0.0]),
        // Not a unit vector: three-vrm and UniVRM scale by its length.
        ("gravity_0.8_long_dir", 0.8, [0.0, -1.5, 0.5]),
        ("gravity_1_zero_dir", 1.0, [0.0, 0.0, 0.0]),
        // A negative power: both add gravityDir · gravityPower, so it pulls
        // the other way (the import turns the direction).
        ("gravity_-0.6_side", -0.6, [0.6, -0.8, 0.0]),
    ] {
        specs.push(Spec {
            name,
            gravity_power: power,
            gravity_dir: dir,
            ..Spec::default()
        });
    }
    specs.extend([
        Spec {
            name: "sphere_collider",
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            gravity_power: 0.3,
            ..Spec::default()
        },
        Spec {
            name: "capsule_collider",
            collider: Some(capsule([0.0, -0.1, -0.02], [0.0, 0.12, -0.02], 0.1)),
            gravity_power: 0.3,
            ..Spec::default()
        },
        Spec {
            name: "root_inside_sphere",
            collider: Some(sphere([0.0, 0.06, -0.06], 0.15)),
            gravity_power: 0.5,
            ..Spec::default()
        },
        // The strand's first three joints so deep in a 20 cm sphere (its
        // centre 4 cm down the first link and 4 mm aside) that no
        // direction takes their tails out: three-vrm pushes each tail
        // toward the surface all the same, and so does the VRM preset
        // (the tail and hair presets leave such a link alone).
        Spec {
            name: "root_buried_in_sphere",
            collider: Some(sphere([0.004, 0.049, -0.121], 0.2)),
            ..Spec::default()
        },
        // The whole strand within 2 mm of the axis of a 60 cm capsule: the
        // VRM preset pushes every tail toward a surface none can reach, as
        // three-vrm does.
        Spec {
            name: "root_buried_in_capsule",
            collider: Some(capsule([0.002, -0.3, -0.09], [0.002, 0.3, -0.09], 0.6)),
            ..Spec::default()
        },
        Spec {
            name: "root_inside_capsule",
            collider: Some(capsule([0.0, 0.0, -0.05], [0.0, 0.15, -0.05], 0.14)),
            gravity_power: 0.5,
            ..Spec::default()
        },
        Spec {
            name: "inside_sphere",
            collider: Some(
                json!({"sphere": {"offset": [0.0, 0.0, -0.1], "radius": 0.25, "inside": true}}),
            ),
            gravity_power: 1.0,
            gravity_dir: [0.0, 0.0, -1.0],
            ..Spec::default()
        },
        Spec {
            name: "plane",
            collider: Some(
                json!({"plane": {"offset": [0.0, 0.0, -0.12], "normal": [0.0, 0.0, 1.0]}}),
            ),
            gravity_power: 0.5,
            gravity_dir: [0.0, 0.0, -1.0],
            ..Spec::default()
        },
        Spec {
            name: "center_space",
            center: Some(8),
            drag: 0.2,
            ..Spec::default()
        },
        Spec {
            name: "teleport",
            drag: 0.2,
            teleport: true,
            ..Spec::default()
        },
        // Hair in the head's space against a sphere on the head: the
        // head turns under it.
        Spec {
            name: "center_on_head",
            center: Some(2),
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            gravity_power: 0.5,
            ..Spec::default()
        },
        // In the hips' space over a sphere on the bun spring (placed where
        // the bun's chain left it: interpolated between updates).
        Spec {
            name: "center_collider_on_spring",
            center: Some(8),
            collider: Some(sphere([0.0, -0.06, 0.0], 0.05)),
            gravity_power: 0.3,
            collider_on: Host::Spring,
            ..Spec::default()
        },
        // At the jump the strand rests on its bind pose, where three-vrm's
        // reset puts it (secmo carries the pose the chain has rigidly).
        Spec {
            name: "center_teleport",
            drag: 0.2,
            center: Some(8),
            teleport: true,
            ..Spec::default()
        },
        // A teleport while the strand sags under gravity: three-vrm's
        // reset() puts it back on its bind pose and it falls again; with
        // `teleport_restart` so does secmo (carried, it arrives sagging).
        Spec {
            name: "teleport_gravity",
            gravity_power: 1.0,
            stiffness: 0.5,
            drag: 0.2,
            teleport: true,
            restart: true,
            ..Spec::default()
        },
        Spec {
            name: "center_teleport_gravity",
            gravity_power: 0.5,
            center: Some(8),
            teleport: true,
            restart: true,
            ..Spec::default()
        },
        Spec {
            name: "tapered",
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            taper: true,
            ..Spec::default()
        },
        Spec {
            name: "turned_gravity",
            gravity_power: 0.8,
            turn_gravity: true,
            ..Spec::default()
        },
        Spec {
            name: "scaled_root",
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            gravity_power: 0.3,
            root_scale: 0.4,
            ..Spec::default()
        },
        // The scene root turned: facing −Z as VRM 0.x exporters leave it,
        // and lying on its back as a Z-up armature without its fix-up
        // (gravity still pulls along the world's −Y).
        Spec {
            name: "root_turned_180",
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            gravity_power: 0.3,
            root_rotation: Some(Quat::from_rotation_y(std::f32::consts::PI)),
            ..Spec::default()
        },
        Spec {
            name: "root_on_its_back",
            collider: Some(capsule([0.0, -0.1, -0.02], [0.0, 0.12, -0.02], 0.1)),
            gravity_power: 0.5,
            root_rotation: Some(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)),
            ..Spec::default()
        },
        Spec {
            name: "joint_scaled_1.3",
            collider: Some(sphere([0.0, 0.05, 0.0], 0.12)),
            gravity_power: 0.3,
            joint_scale: 1.3,
            ..Spec::default()
        },
        Spec {
            name: "skipped_node",
            gravity_power: 0.3,
            skip: true,
            ..Spec::default()
        },
        Spec {
            name: "collider_on_spring",
            collider: Some(sphere([0.0, -0.06, 0.0], 0.05)),
            gravity_power: 0.3,
            collider_on: Host::Spring,
            ..Spec::default()
        },
        Spec {
            name: "collider_below_spring",
            collider: Some(capsule([0.0, -0.03, 0.0], [0.0, -0.06, 0.0], 0.045)),
            gravity_power: 0.3,
            collider_on: Host::BelowSpring,
            ..Spec::default()
        },
    ]);
    specs
}

fn fixtures(dir: &Path, ease: Ease) -> Vec<Fixture> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assets");
    let mut out = Vec::new();
    for name in ["sphere-collider", "plane-collider", "inside-collider"] {
        out.push(file_fixture(
            &format!("three-vrm {name}"),
            assets.join(format!("three-vrm-springbone/{name}.gltf")),
            ease,
        ));
    }
    out.push(file_fixture(
        "Godette (VRM 0.x)",
        assets.join("Godette_vrm_v4.vrm"),
        ease,
    ));
    out.extend(synthetic_specs().iter().map(|s| synthetic(s, dir, ease)));
    out.push(branched_vrm0(dir, false, ease));
    out.push(branched_vrm0(dir, true, ease));
    out.push(root_level_spring(dir, ease));
    out.push(cross_space(dir, ease));
    out.push(avatar(dir, false, ease));
    out.push(avatar(dir, true, ease));
    out
}

/// An avatar as VRoid Studio and UniVRM export them: a humanoid body whose
/// arms and legs swing while the hips move and the head turns; eight hair
/// strands rooted inside the head sphere, a ponytail, eight skirt strands
/// around the hips (in the hips' center space), two bust springs. VRM 1.0:
/// a head sphere, a chest capsule, a hips sphere, arm and leg capsules in
/// four collider groups that the springs share, a spring per strand. VRM
/// 0.x: the capsules as three spheres each, a collider group per node, a
/// bone group per kind listing its strands' roots (every node below a root
/// moves, the last ones with UniVRM's 7 cm tail). The swinging arms push
/// through the hair and the skirt, the legs through the skirt.
fn avatar(dir: &Path, vrm0: bool, ease: Ease) -> Fixture {
    let mut nodes: Vec<Value> = Vec::new();
    let add = |nodes: &mut Vec<Value>, name: &str, t: [f32; 3], parent: Option<usize>| {
        let i = nodes.len();
        nodes.push(json!({"name": name, "translation": t}));
        if let Some(p) = parent {
            let children = nodes[p]
                .as_object_mut()
                .unwrap()
                .entry("children")
                .or_insert_with(|| json!([]));
            children.as_array_mut().unwrap().push(json!(i));
        }
        i
    };
    let root = add(&mut nodes, "root", [0.0; 3], None);
    let hips = add(&mut nodes, "hips", [0.0, 0.9, 0.0], Some(root));
    let spine = add(&mut nodes, "spine", [0.0, 0.1, 0.0], Some(hips));
    let chest = add(&mut nodes, "chest", [0.0, 0.15, 0.0], Some(spine));
    let neck = add(&mut nodes, "neck", [0.0, 0.2, 0.0], Some(chest));
    let head = add(&mut nodes, "head", [0.0, 0.1, 0.0], Some(neck));
    let limb = |nodes: &mut Vec<Value>, name: &str, parent, t: [f32; 3], next: [f32; 3]| {
        let upper = add(nodes, &format!("upper{name}"), t, Some(parent));
        let lower = add(nodes, &format!("lower{name}"), next, Some(upper));
        (upper, lower)
    };
    let (arm_l, forearm_l) = limb(
        &mut nodes,
        "Arm_L",
        chest,
        [0.18, 0.12, 0.0],
        [0.26, 0.0, 0.0],
    );
    let (arm_r, forearm_r) = limb(
        &mut nodes,
        "Arm_R",
        chest,
        [-0.18, 0.12, 0.0],
        [-0.26, 0.0, 0.0],
    );
    let (leg_l, _) = limb(
        &mut nodes,
        "Leg_L",
        hips,
        [0.09, -0.05, 0.0],
        [0.0, -0.42, 0.0],
    );
    let (leg_r, _) = limb(
        &mut nodes,
        "Leg_R",
        hips,
        [-0.09, -0.05, 0.0],
        [0.0, -0.42, 0.0],
    );
    // A strand: its root at `at` below `parent`, then `links` steps of `step`.
    let strand =
        |nodes: &mut Vec<Value>, name: &str, parent, at: [f32; 3], step: [f32; 3], links| {
            let mut joints = vec![add(nodes, &format!("{name}_0"), at, Some(parent))];
            for k in 1..=links {
                let last = *joints.last().unwrap();
                joints.push(add(nodes, &format!("{name}_{k}"), step, Some(last)));
            }
            joints
        };
    // Each kind of spring: its strands (nodes from the root to the end),
    // VRM's stiffness, drag and gravity power, the collider kinds it
    // touches, and its center.
    struct Kind {
        name: &'static str,
        strands: Vec<Vec<usize>>,
        numbers: (f32, f32, f32),
        touches: &'static [usize],
        center: Option<usize>,
    }
    // Collider kinds: 0 head, 1 body, 2 arms, 3 legs.
    let mut hair = Vec::new();
    for s in 0..8 {
        let a = (s as f32 / 8.0 + 0.0625) * std::f32::consts::TAU;
        let (x, z) = (a.sin(), a.cos());
        // Front strands are bangs (short); the others reach the shoulders.
        let (links, step) = if z > 0.5 {
            (3, [0.01 * x, -0.04, 0.025])
        } else {
            (4, [0.02 * x, -0.06, 0.015 * z])
        };
        let at = [0.07 * x, 0.14, 0.07 * z];
        hair.push(strand(
            &mut nodes,
            &format!("hair{s}"),
            head,
            at,
            step,
            links,
        ));
    }
    let ponytail = strand(
        &mut nodes,
        "ponytail",
        head,
        [0.0, 0.16, -0.1],
        [0.0, -0.05, -0.04],
        5,
    );
    let mut skirt = Vec::new();
    for s in 0..8 {
        let (x, z) = ((s as f32 / 8.0) * std::f32::consts::TAU).sin_cos();
        let (at, step) = ([0.13 * x, -0.02, 0.11 * z], [0.03 * x, -0.09, 0.03 * z]);
        skirt.push(strand(&mut nodes, &format!("skirt{s}"), hips, at, step, 3));
    }
    let bust = [("L", 0.07f32), ("R", -0.07)].map(|(side, x)| {
        let (at, step) = ([x, 0.05, 0.06], [0.0, -0.01, 0.06]);
        strand(&mut nodes, &format!("bust_{side}"), chest, at, step, 1)
    });
    let kinds = [
        Kind {
            name: "hair",
            strands: hair,
            numbers: (1.0, 0.4, 0.05),
            touches: &[0, 1, 2],
            center: None,
        },
        Kind {
            name: "ponytail",
            strands: vec![ponytail],
            numbers: (0.6, 0.3, 0.3),
            touches: &[0, 1, 2],
            center: None,
        },
        Kind {
            name: "skirt",
            strands: skirt,
            numbers: (0.8, 0.5, 0.1),
            touches: &[1, 2, 3],
            center: Some(hips),
        },
        Kind {
            name: "bust",
            strands: bust.to_vec(),
            numbers: (2.0, 0.3, 0.0),
            touches: &[2],
            center: None,
        },
    ];
    // (node, offset, tail, radius, kind): spheres have tail = offset.
    let colliders = [
        (head, [0.0, 0.09, 0.0], [0.0, 0.09, 0.0], 0.11, 0),
        (chest, [0.0, -0.02, 0.02], [0.0, 0.14, 0.02], 0.11, 1),
        (hips, [0.0; 3], [0.0; 3], 0.12, 1),
        (arm_l, [0.0; 3], [0.26, 0.0, 0.0], 0.045, 2),
        (forearm_l, [0.0; 3], [0.24, 0.0, 0.0], 0.04, 2),
        (arm_r, [0.0; 3], [-0.26, 0.0, 0.0], 0.045, 2),
        (forearm_r, [0.0; 3], [-0.24, 0.0, 0.0], 0.04, 2),
        (leg_l, [0.0; 3], [0.0, -0.42, 0.0], 0.075, 3),
        (leg_r, [0.0; 3], [0.0, -0.42, 0.0], 0.075, 3),
    ];
    let bones = [
        ("hips", hips),
        ("spine", spine),
        ("chest", chest),
        ("neck", neck),
        ("head", head),
        ("leftUpperArm", arm_l),
        ("leftLowerArm", forearm_l),
        ("rightUpperArm", arm_r),
        ("rightLowerArm", forearm_r),
        ("leftUpperLeg", leg_l),
        ("rightUpperLeg", leg_r),
    ];
    let (used, extensions) = if vrm0 {
        // A collider group per collider's node, the capsules as three
        // spheres (VRM 0.x has spheres only; its z is stored negated).
        let groups: Vec<Value> = colliders
            .iter()
            .map(|&(node, a, b, radius, _)| {
                let spheres: Vec<Value> = [0.0f32, 0.5, 1.0]
                    .iter()
                    .take(if a == b { 1 } else { 3 })
                    .map(|&f| {
                        let p = Vec3::from(a).lerp(Vec3::from(b), f);
                        json!({"offset": {"x": p.x, "y": p.y, "z": -p.z}, "radius": radius})
                    })
                    .collect();
                json!({"node": node, "colliders": spheres})
            })
            .collect();
        let bone_groups: Vec<Value> = kinds
            .iter()
            .map(|k| {
                let touching: Vec<usize> = (0..colliders.len())
                    .filter(|&c| k.touches.contains(&colliders[c].4))
                    .collect();
                json!({"comment": k.name, "stiffiness": k.numbers.0, "dragForce": k.numbers.1,
                       "gravityPower": k.numbers.2, "gravityDir": {"x": 0, "y": -1, "z": 0},
                       "hitRadius": 0.02, "center": k.center.map_or(-1, |c| c as i64),
                       "bones": k.strands.iter().map(|s| s[0]).collect::<Vec<_>>(),
                       "colliderGroups": touching})
            })
            .collect();
        let humanoid: Vec<Value> = bones
            .iter()
            .map(|&(bone, node)| json!({"bone": bone, "node": node}))
            .collect();
        (
            vec!["VRM"],
            json!({"VRM": {
                "specVersion": "0.0",
                "humanoid": {"humanBones": humanoid},
                "secondaryAnimation": {"boneGroups": bone_groups, "colliderGroups": groups},
            }}),
        )
    } else {
        let shapes: Vec<Value> = colliders
            .iter()
            .map(|&(node, offset, tail, radius, _)| {
                let shape = if offset == tail {
                    json!({"sphere": {"offset": offset, "radius": radius}})
                } else {
                    json!({"capsule": {"offset": offset, "tail": tail, "radius": radius}})
                };
                json!({"node": node, "shape": shape})
            })
            .collect();
        let groups: Vec<Value> = (0..4)
            .map(|kind| {
                let members: Vec<usize> = (0..colliders.len())
                    .filter(|&c| colliders[c].4 == kind)
                    .collect();
                json!({"colliders": members})
            })
            .collect();
        let mut springs = Vec::new();
        for k in &kinds {
            for (i, strand) in k.strands.iter().enumerate() {
                let (last, simulated) = strand.split_last().unwrap();
                let mut joints: Vec<Value> = simulated
                    .iter()
                    .map(|&n| {
                        json!({"node": n, "hitRadius": 0.02, "stiffness": k.numbers.0,
                               "dragForce": k.numbers.1, "gravityPower": k.numbers.2,
                               "gravityDir": [0.0, -1.0, 0.0]})
                    })
                    .collect();
                joints.push(json!({"node": last}));
                let mut spring = json!({"name": format!("{}{i}", k.name), "joints": joints,
                                        "colliderGroups": k.touches});
                if let Some(center) = k.center {
                    spring["center"] = json!(center);
                }
                springs.push(spring);
            }
        }
        let humanoid: serde_json::Map<String, Value> = bones
            .iter()
            .map(|&(bone, node)| (bone.to_string(), json!({"node": node})))
            .collect();
        (
            vec!["VRMC_vrm", "VRMC_springBone"],
            json!({
                "VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "avatar",
                    "authors": ["secmo"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
                    "humanoid": {"humanBones": humanoid}},
                "VRMC_springBone": {"specVersion": "1.0", "colliders": shapes,
                    "colliderGroups": groups, "springs": springs},
            }),
        )
    };
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [root]}],
        "nodes": nodes,
        "extensionsUsed": used,
        "extensions": extensions,
    });
    let file = dir.join(if vrm0 {
        "avatar_vrm0.gltf"
    } else {
        "avatar.gltf"
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let (mut motion, frames) = standard_motion(
        (hips as i64, Vec3::new(0.0, 0.9, 0.0)),
        (head as i64, Quat::IDENTITY),
        None,
        ease,
    );
    // Arms hang along the body and swing forward and back, legs walk, the
    // hips twist ±20° and sway ±8°, from 1 s to 6 s.
    let swing = |t: f32, amplitude: f32, phase: f32| {
        let envelope = smooth(t, 1.0, 0.5) * (1.0 - smooth(t, 5.5, 0.5));
        amplitude.to_radians() * envelope * (std::f32::consts::TAU * 0.8 * (t - 1.0) + phase).sin()
    };
    // The hips twist and sway as they walk (the skirt's center turns).
    motion[0].rotation = Some(
        (0..frames)
            .map(|f| {
                let t = f as f32 / RATE as f32;
                Quat::from_rotation_y(swing(t, 20.0, 0.0))
                    * Quat::from_rotation_z(swing(t, 8.0, 1.0))
            })
            .collect(),
    );
    for (node, down, amplitude, phase) in [
        (arm_l, -75f32, 45f32, 0.0),
        (arm_r, 75.0, 45.0, std::f32::consts::PI),
        (leg_l, 0.0, 30.0, std::f32::consts::PI),
        (leg_r, 0.0, 30.0, 0.0),
    ] {
        let rotation = (0..frames)
            .map(|f| {
                let t = f as f32 / RATE as f32;
                Quat::from_rotation_x(swing(t, amplitude, phase))
                    * Quat::from_rotation_z(down.to_radians())
            })
            .collect();
        motion.push(Motion {
            node: node as i64,
            translation: None,
            rotation: Some(rotation),
        });
    }
    Fixture {
        name: if vrm0 {
            "avatar (VRM 0.x)"
        } else {
            "avatar (VRM 1.0)"
        }
        .into(),
        file,
        motion,
        frames,
        teleports: Vec::new(),
        restart: false,
    }
}

/// Springs of different spaces reading each other: a bun in the hips'
/// space (node 10 its center) with a tassel in world space hanging from
/// its second joint, and a strand in the bun's space sliding over a
/// sphere on the bun's first joint. The records the bun leaves at each
/// substep are world frames; each reader sees them from its own space.
fn cross_space(dir: &Path, ease: Ease) -> Fixture {
    let joint = |node: usize| {
        json!({"node": node, "stiffness": 0.6, "dragForce": 0.3, "gravityPower": 0.4,
               "hitRadius": 0.015})
    };
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "hips", "translation": [0.0, 1.0, 0.0], "children": [2, 10]},
            {"name": "head", "translation": [0.0, 0.5, 0.0], "children": [3, 11]},
            {"name": "bun_0", "translation": [0.0, 0.05, -0.1], "children": [4]},
            {"name": "bun_1", "translation": [0.0, -0.04, -0.06], "children": [5, 6]},
            {"name": "bun_end", "translation": [0.0, -0.06, -0.02]},
            {"name": "tassel_0", "translation": [0.02, -0.03, 0.0], "children": [7]},
            {"name": "tassel_1", "translation": [0.0, -0.06, 0.0], "children": [8]},
            {"name": "tassel_end", "translation": [0.0, -0.06, 0.0]},
            {"name": "unused"},
            {"name": "center", "translation": [0.0, 0.2, 0.0]},
            {"name": "strand_0", "translation": [0.03, 0.08, -0.06], "children": [12]},
            {"name": "strand_1", "translation": [0.0, -0.07, -0.03], "children": [13]},
            {"name": "strand_2", "translation": [0.0, -0.07, -0.01], "children": [14]},
            {"name": "strand_end", "translation": [0.0, -0.06, 0.0]}
        ],
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0",
            "colliders": [{"node": 3, "shape": {"sphere": {"offset": [0.0, -0.03, -0.02], "radius": 0.05}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [
                {"name": "bun", "center": 10, "joints": [joint(3), joint(4), {"node": 5}]},
                {"name": "tassel", "joints": [joint(6), joint(7), {"node": 8}]},
                {"name": "strand", "center": 10, "colliderGroups": [0],
                 "joints": [joint(11), joint(12), joint(13), {"node": 14}]}
            ]}},
    });
    let file = dir.join("cross_space.gltf");
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let (motion, frames) = standard_motion(
        (1, Vec3::new(0.0, 1.0, 0.0)),
        (2, Quat::IDENTITY),
        None,
        ease,
    );
    Fixture {
        name: "cross-space springs".into(),
        file,
        motion,
        frames,
        teleports: Vec::new(),
        restart: false,
    }
}

/// A spring whose first joint is a scene root (a strap exported as its own
/// node tree, no skeleton above it): the scene moves and turns.
fn root_level_spring(dir: &Path, ease: Ease) -> Fixture {
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0, 4]}],
        "nodes": [
            {"name": "strap_0", "translation": [0.0, 1.2, 0.0], "children": [1]},
            {"name": "strap_1", "translation": [0.0, -0.1, -0.02], "children": [2]},
            {"name": "strap_2", "translation": [0.0, -0.1, 0.0], "children": [3]},
            {"name": "strap_end", "translation": [0.0, -0.1, 0.0]},
            {"name": "post", "translation": [0.0, 1.0, -0.1]}
        ],
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0",
            "colliders": [{"node": 4, "shape": {"sphere": {"offset": [0.0, 0.0, 0.0], "radius": 0.06}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [{"name": "strap", "colliderGroups": [0], "joints": [
                {"node": 0, "stiffness": 0.5, "dragForce": 0.3, "gravityPower": 0.6, "hitRadius": 0.02},
                {"node": 1, "stiffness": 0.5, "dragForce": 0.3, "gravityPower": 0.6, "hitRadius": 0.02},
                {"node": 2, "stiffness": 0.5, "dragForce": 0.3, "gravityPower": 0.6, "hitRadius": 0.02},
                {"node": 3}]}]}},
    });
    let file = dir.join("root_level_spring.gltf");
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    file_fixture("root-level spring", file, ease)
}

/// A VRM 0.x bone group whose root has three strands below it: every node
/// under the root moves (UniVRM); secmo runs the root and its first strand
/// as one chain and each other strand as a chain hanging from the root
/// joint, which it reads substep by substep. A sphere collider on the head.
/// `centered`: the group in the hips' space (the hanging strands then carry
/// the root joint's records into it).
fn branched_vrm0(dir: &Path, centered: bool, ease: Ease) -> Fixture {
    let mut nodes = vec![
        json!({"name": "root", "children": [1]}),
        json!({"name": "hips", "translation": [0.0, 1.0, 0.0], "children": [2]}),
        json!({"name": "head", "translation": [0.0, 0.5, 0.0], "children": [3]}),
        json!({"name": "hair", "translation": [0.0, 0.1, -0.08], "children": []}),
    ];
    let mut strands = Vec::new();
    for s in 0..3 {
        let x = 0.05 * (s as f32 - 1.0);
        let first = nodes.len();
        strands.push(first);
        for k in 0..3 {
            let node = nodes.len();
            let translation = if k == 0 {
                [x, -0.05, -0.04]
            } else {
                [0.2 * x, -0.08, -0.02]
            };
            let mut n = json!({"name": format!("strand{s}_{k}"), "translation": translation});
            if k < 2 {
                n["children"] = json!([node + 1]);
            }
            nodes.push(n);
        }
    }
    nodes[3]["children"] = json!(strands);
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRM"],
        "extensions": {"VRM": {
            "humanoid": {"humanBones": [{"bone": "hips", "node": 1}, {"bone": "head", "node": 2}]},
            "secondaryAnimation": {
                "boneGroups": [{"bones": [3], "stiffiness": 1.0, "dragForce": 0.3,
                                "gravityPower": 0.3, "gravityDir": {"x": 0, "y": -1, "z": 0},
                                "hitRadius": 0.02, "center": -1, "colliderGroups": [0]}],
                "colliderGroups": [{"node": 2, "colliders": [
                    {"offset": {"x": 0, "y": 0.05, "z": 0}, "radius": 0.12}]}]
            }
        }},
    });
    let mut gltf = gltf;
    let (name, file) = if centered {
        gltf["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["center"] = json!(1);
        (
            "branched in a center (VRM 0.x)",
            "branched_center_vrm0.gltf",
        )
    } else {
        ("branched (VRM 0.x)", "branched_vrm0.gltf")
    };
    let file = dir.join(file);
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    file_fixture(name, file, ease)
}

/// World positions of every joint's tail, per frame, in three-vrm's joint
/// order, with the nodes that order names.
struct Run {
    joints: Vec<(usize, i64)>,
    tails: Vec<Vec<Vec3>>,
    /// Node-constrained destinations (glTF nodes) and their local
    /// rotations per frame.
    destinations: Vec<usize>,
    rotations: Vec<Vec<Quat>>,
}

/// `[[[f, …] per item] per frame]` as values built by `make`.
fn per_frame<T>(frames: &Value, make: impl Fn(&[f32]) -> T) -> Vec<Vec<T>> {
    frames
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            frame
                .as_array()
                .unwrap()
                .iter()
                .map(|item| {
                    let v: Vec<f32> = item
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap() as f32)
                        .collect();
                    make(&v)
                })
                .collect()
        })
        .collect()
}

fn three_vrm(fixture: &Fixture, step: usize, driver: &str, dir: &Path) -> Run {
    let frames: Vec<usize> = (0..fixture.frames).step_by(step).collect();
    let pick = |track: &Option<Vec<Vec3>>| {
        track
            .as_ref()
            .map(|t| frames.iter().map(|&f| t[f].to_array()).collect::<Vec<_>>())
    };
    let motion: Vec<Value> = fixture
        .motion
        .iter()
        .map(|m| {
            json!({
                "node": m.node,
                "translation": pick(&m.translation),
                "rotation": m.rotation.as_ref().map(|r| frames.iter().map(|&f| r[f].to_array()).collect::<Vec<_>>()),
            })
        })
        .collect();
    let resets: Vec<usize> = fixture
        .teleports
        .iter()
        .map(|&f| f.div_ceil(step))
        .collect();
    let job = json!({
        "file": fixture.file,
        "dt": step as f64 / RATE as f64,
        "frames": frames.len(),
        "motion": motion,
        "reset_frames": resets,
        "driver": driver,
    });
    let job_file = dir.join("job.json");
    std::fs::write(&job_file, serde_json::to_vec(&job).unwrap()).unwrap();
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/three-vrm");
    let out = Command::new("node")
        .arg(tools.join("vrm.mjs"))
        .arg(&job_file)
        .current_dir(&tools)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}: three-vrm failed: {}",
        fixture.name,
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let joints = result["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["node"].as_u64().unwrap() as usize,
                j["tail_node"].as_i64().unwrap(),
            )
        })
        .collect();
    let tails = per_frame(&result["tails"], |v| Vec3::new(v[0], v[1], v[2]));
    let destinations = result["destinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let rotations = per_frame(&result["rotations"], |v| {
        Quat::from_xyzw(v[0], v[1], v[2], v[3])
    });
    Run {
        joints,
        tails,
        destinations,
        rotations,
    }
}

/// The motion keyed every `keys` frames and linearly re-sampled in between
/// (what secmo itself does between two updates).
fn rekeyed(fixture: &Fixture, keys: usize) -> Fixture {
    let at = |f: usize| {
        (
            f / keys * keys,
            (f / keys * keys + keys).min(fixture.frames - 1),
        )
    };
    let weight = |f: usize, (a, b): (usize, usize)| {
        if b > a {
            (f - a) as f32 / (b - a) as f32
        } else {
            0.0
        }
    };
    let motion = fixture
        .motion
        .iter()
        .map(|m| Motion {
            node: m.node,
            translation: m.translation.as_ref().map(|t| {
                (0..fixture.frames)
                    .map(|f| {
                        let (a, b) = at(f);
                        t[a].lerp(t[b], weight(f, (a, b)))
                    })
                    .collect()
            }),
            rotation: m.rotation.as_ref().map(|r| {
                (0..fixture.frames)
                    .map(|f| {
                        let (a, b) = at(f);
                        r[a].slerp(r[b], weight(f, (a, b)))
                    })
                    .collect()
            }),
        })
        .collect();
    Fixture {
        name: fixture.name.clone(),
        file: fixture.file.clone(),
        motion,
        frames: fixture.frames,
        teleports: fixture.teleports.clone(),
        restart: fixture.restart,
    }
}

/// secmo on the same file and motion at `RATE / step` Hz; tails of the
/// joints `reference` lists, in its order, plus each joint's chain length.
fn secmo_run(fixture: &Fixture, step: usize, reference: &Run) -> (Run, Vec<f32>) {
    let bytes = std::fs::read(&fixture.file).unwrap();
    let import = vrm::import(&bytes).unwrap();
    let mut settings = import.settings.clone();
    if fixture.restart {
        for chain in &mut settings.chains {
            chain.params.insert("teleport_restart".into(), json!(true));
        }
    }
    let desc = settings
        .to_rig_desc(import.skeleton.bones.clone(), 1.0, UpAxis::Y)
        .unwrap();
    let rig = std::sync::Arc::new(Rig::new(desc).unwrap());
    let bone_of = |node: i64| -> usize {
        if node < 0 {
            0 // the scene root bone secmo adds above the glTF roots
        } else {
            import.skeleton.bone_of_node[node as usize] as usize
        }
    };
    // Each reference joint: its bone, and where its tail is in its frame.
    let mut joints = Vec::new();
    let mut lengths = Vec::new();
    for &(node, _) in &reference.joints {
        let b = bone_of(node as i64) as u32;
        let (chain, k) = rig
            .chains()
            .iter()
            .find_map(|c| c.joints.iter().position(|&j| j == b).map(|k| (c, k)))
            .unwrap_or_else(|| panic!("{}: node {node} is in no secmo chain", fixture.name));
        let offset = if k + 1 < chain.len() {
            None // the next joint's own position
        } else {
            Some(chain.end_offset)
        };
        joints.push((b as usize, offset, chain.joints.get(k + 1).copied()));
        lengths.push(chain.lengths.iter().sum::<f32>());
    }
    let reference_pose: Vec<Transform> =
        import.skeleton.bones.iter().map(|b| b.reference).collect();
    let mut character = Character::new(rig.clone(), CharacterOptions::default());
    let mut pose = reference_pose.clone();
    let mut out = reference_pose.clone();
    let mut component = vec![Affine3A::IDENTITY; pose.len()];
    let mut tails = Vec::new();
    let mut rotations = Vec::new();
    let dt = step as f32 / RATE as f32;
    for (k, f) in (0..fixture.frames).step_by(step).enumerate() {
        for m in &fixture.motion {
            let b = bone_of(m.node);
            if let Some(t) = &m.translation {
                pose[b].translation = t[f].to_array();
            }
            if let Some(r) = &m.rotation {
                pose[b].rotation = r[f].to_array();
            }
        }
        let teleport = fixture.teleports.iter().any(|&t| f >= t && f < t + step);
        character
            .update(
                &FrameInput {
                    dt: if k == 0 { 0.0 } else { dt },
                    pose: &pose,
                    teleport,
                },
                &mut out,
            )
            .unwrap();
        forward_kinematics(rig.parents(), &out, &mut component);
        tails.push(
            joints
                .iter()
                .map(|&(b, offset, next)| match (offset, next) {
                    (Some(o), _) => component[b].transform_point3(o),
                    (None, Some(n)) => Vec3::from(component[n as usize].translation),
                    (None, None) => unreachable!(),
                })
                .collect(),
        );
        rotations.push(
            reference
                .destinations
                .iter()
                .map(|&d| out[bone_of(d as i64)].rotation())
                .collect(),
        );
    }
    (
        Run {
            joints: reference.joints.clone(),
            tails,
            destinations: reference.destinations.clone(),
            rotations,
        },
        lengths,
    )
}

/// Largest tail difference over the run, % of chain length; `a` sampled
/// every `step_a` 120 Hz frames, `b` every `step_b`.
fn worst(a: &Run, step_a: usize, b: &Run, step_b: usize, lengths: &[f32]) -> f32 {
    let mut worst = 0f32;
    for (ka, frame_a) in a.tails.iter().enumerate() {
        let f = ka * step_a;
        if f % step_b != 0 {
            continue;
        }
        let Some(frame_b) = b.tails.get(f / step_b) else {
            continue;
        };
        for ((pa, pb), &len) in frame_a.iter().zip(frame_b).zip(lengths) {
            worst = worst.max((*pa - *pb).length() / len * 100.0);
        }
    }
    worst
}

fn vrm_preset_matches_three_vrm_and_is_frame_rate_independent() {
    let dir = std::env::temp_dir().join(format!("secmo-vrm-parity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    println!(
        "| fixture | secmo 120 Hz vs three-vrm 120 Hz, ramps / eased | ramps: secmo 60 Hz | ramps: secmo 30 Hz | ramps: three-vrm 30 Hz vs itself at 120 Hz | eased: secmo 60 Hz | eased: secmo 30 Hz | eased: secmo 30 Hz vs 120 Hz, same input | secmo vs three-vrm's stock manager loop |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let eased = fixtures(&dir, Ease::Smooth);
    for (fixture, eased) in fixtures(&dir, Ease::Ramp).iter().zip(&eased) {
        // SECMO_PARITY_ONLY=name,name runs only those fixtures (debugging).
        if let Ok(only) = std::env::var("SECMO_PARITY_ONLY") {
            if !only.split(',').any(|o| o == fixture.name) {
                continue;
            }
        }
        // The motion as the issue states it (moves at a constant rate).
        let reference = three_vrm(fixture, 1, "joints", &dir);
        let reference_30 = three_vrm(fixture, 4, "joints", &dir);
        let stock = three_vrm(fixture, 1, "manager", &dir);
        let (at_120, lengths) = secmo_run(fixture, 1, &reference);
        let (at_60, _) = secmo_run(fixture, 2, &reference);
        let (at_30, _) = secmo_run(fixture, 4, &reference);
        let parity = worst(&at_120, 1, &reference, 1, &lengths);
        if std::env::var("SECMO_PARITY_DEBUG").is_ok() {
            for (f, (a, b)) in at_120
                .tails
                .iter()
                .zip(&reference.tails)
                .enumerate()
                .step_by(30)
            {
                let e: Vec<String> = a
                    .iter()
                    .zip(b)
                    .map(|(p, q)| format!("{:.4}", (*p - *q).length()))
                    .collect();
                println!(
                    "{f}: {} secmo {:?} three {:?}",
                    e.join(" "),
                    a.last().unwrap(),
                    b.last().unwrap()
                );
            }
        }
        let rate_60 = worst(&at_60, 2, &reference, 1, &lengths);
        let rate_30 = worst(&at_30, 4, &reference, 1, &lengths);
        let three_30 = worst(&reference_30, 4, &reference, 1, &lengths);
        let stock = worst(&at_120, 1, &stock, 1, &lengths);
        if fixture.restart {
            // The same fixture with the chains carried through the jump.
            let carried = Fixture {
                restart: false,
                ..fixture.clone()
            };
            let (carried, _) = secmo_run(&carried, 1, &reference);
            let carry = worst(&carried, 1, &reference, 1, &lengths);
            let after: Vec<f32> = carried
                .tails
                .iter()
                .zip(&reference.tails)
                .map(|(a, b)| {
                    a.iter()
                        .zip(b)
                        .zip(&lengths)
                        .map(|((p, q), l)| (*p - *q).length() / l * 100.0)
                        .fold(0.0, f32::max)
                })
                .collect();
            let last_apart = after.iter().rposition(|&d| d > 1.0).unwrap_or(0);
            println!(
                "{}: carried through the teleport instead, {carry:.2} % from three-vrm's reset, over 1 % until {:.2} s after it",
                fixture.name,
                (last_apart as f32 - fixture.teleports[0] as f32) / RATE as f32
            );
            if carry < 10.0 {
                failures.push(format!(
                    "{}: carrying should differ from three-vrm's reset ({carry:.2} %)",
                    fixture.name
                ));
            }
        }
        // The same moves eased in and out: 30 Hz keys no longer hold them.
        let eased_reference = three_vrm(eased, 1, "joints", &dir);
        let (eased_120, _) = secmo_run(eased, 1, &eased_reference);
        let (eased_60, _) = secmo_run(eased, 2, &eased_reference);
        let (eased_30, _) = secmo_run(eased, 4, &eased_reference);
        let eased_parity = worst(&eased_120, 1, &eased_reference, 1, &lengths);
        let eased_rate_60 = worst(&eased_60, 2, &eased_reference, 1, &lengths);
        let eased_rate_30 = worst(&eased_30, 4, &eased_reference, 1, &lengths);
        // The solver alone: 120 Hz updates on the 30 Hz keys re-sampled
        // linearly, against the 30 Hz run (same input, different rate).
        let (same_input, _) = secmo_run(&rekeyed(eased, 4), 1, &eased_reference);
        let solver_30 = worst(&eased_30, 4, &same_input, 1, &lengths);
        println!(
            "| {} | {parity:.4} / {eased_parity:.4} % | {rate_60:.3} % | {rate_30:.3} % | {three_30:.2} % | {eased_rate_60:.3} % | {eased_rate_30:.3} % | {solver_30:.4} % | {stock:.2} % |",
            fixture.name
        );
        if parity > 0.5 || eased_parity > 0.5 {
            failures.push(format!(
                "{}: {parity:.3} / {eased_parity:.3} % against three-vrm",
                fixture.name
            ));
        }
        // Chains hanging from another chain's joint (skipped_node,
        // turned_gravity) read it substep by substep, so this holds for
        // them too (they were 0.67 % and 1.04 % while they interpolated
        // it between updates). The worst is three-vrm's sphere-collider
        // file at 0.18 % (a collider on a turning scene root: interpolated
        // along its arc, the re-sampled input along the chord); a chain in
        // a center over a collider on another spring was 0.34 % off when it
        // read that spring's output between updates.
        let solver_limit = 0.2;
        if solver_30 > solver_limit {
            failures.push(format!(
                "{}: the same input at 30 and 120 Hz differs by {solver_30:.3} %",
                fixture.name
            ));
        }
        if rate_60 > 2.0 || rate_30 > 2.0 {
            failures.push(format!(
                "{}: 60 / 30 Hz input {rate_60:.3} / {rate_30:.3} % from three-vrm at 120 Hz",
                fixture.name
            ));
        }
        // Eased, one fixture is past 2 % at 30 Hz: drag 0.05 barely damps
        // and rings with what 30 Hz keys miss of the curve (three-vrm's own
        // 30 Hz run is 95 % off); the solver column shows secmo adds
        // 0.003 %. Interpolating the keys with a higher-order curve would
        // trade this for the exact agreement of linear keys at any rate
        // (tests/vrm.rs, the item 5).
        let eased_limit_30 = if fixture.name == "drag_0.05" {
            3.0
        } else {
            2.0
        };
        if eased_rate_60 > 2.0 || eased_rate_30 > eased_limit_30 {
            failures.push(format!(
                "{}: eased, 60 / 30 Hz input {eased_rate_60:.3} / {eased_rate_30:.3} % from three-vrm at 120 Hz",
                fixture.name
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Exact angle between two rotations (glam's `angle_between` is 2·acos,
/// which cannot resolve angles below ~7e-4 rad in f32).
fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
}

/// VRMC_node_constraint fixture: every kind at weights 0, 0.5 and 1, every
/// roll and aim axis, constraints chained through each other (listed in the
/// file after the ones that depend on them), an aim whose destination hangs
/// from a constrained node, and a constrained node carrying a hair spring.
/// The sources turn through ±170°.
fn node_constraint_fixture(dir: &Path) -> Fixture {
    let q =
        |axis: Vec3, degrees: f32| Quat::from_axis_angle(axis.normalize(), degrees.to_radians());
    let arm_rest = q(Vec3::Z, 20.0);
    let mut nodes = vec![
        json!({"name": "root", "children": []}),
        json!({"name": "arm", "translation": [0.0, 1.0, 0.0], "rotation": arm_rest.to_array(), "children": [2]}),
        json!({"name": "hand", "translation": [0.3, 0.0, 0.0]}),
        json!({"name": "orbit", "translation": [0.0, 1.0, 0.0], "children": [4]}),
        json!({"name": "target", "translation": [0.5, 0.1, 0.2]}),
    ];
    let mut root_children = vec![1, 3];
    let mut add = |nodes: &mut Vec<Value>,
                   name: String,
                   parent: Option<usize>,
                   t: [f32; 3],
                   r: Quat,
                   constraint: Value| {
        let i = nodes.len();
        nodes.push(json!({"name": name, "translation": t, "rotation": r.to_array(),
            "extensions": {"VRMC_node_constraint": {"specVersion": "1.0", "constraint": constraint}}}));
        match parent {
            Some(p) => {
                if !nodes[p]["children"].is_array() {
                    nodes[p]["children"] = json!([]);
                }
                nodes[p]["children"].as_array_mut().unwrap().push(json!(i));
            }
            None => root_children.push(i),
        }
        i
    };
    let mut k = 0.0f32;
    let mut rest = || {
        k += 1.0;
        q(Vec3::new(1.0, 0.5, 0.2), 12.0 * k)
    };
    for w in [0.0, 0.5, 1.0] {
        let r = rest();
        add(
            &mut nodes,
            format!("rotation_w{w}"),
            None,
            [0.2, 0.5, 0.0],
            r,
            json!({"rotation": {"source": 1, "weight": w}}),
        );
        for axis in ["X", "Y", "Z"] {
            let r = rest();
            add(
                &mut nodes,
                format!("roll_{axis}_w{w}"),
                None,
                [0.0, 0.5, 0.2],
                r,
                json!({"roll": {"source": 1, "rollAxis": axis, "weight": w}}),
            );
        }
        for axis in [
            "PositiveX",
            "NegativeX",
            "PositiveY",
            "NegativeY",
            "PositiveZ",
            "NegativeZ",
        ] {
            let r = rest();
            add(
                &mut nodes,
                format!("aim_{axis}_w{w}"),
                None,
                [0.05, 1.05, -0.05],
                r,
                json!({"aim": {"source": 4, "aimAxis": axis, "weight": w}}),
            );
        }
    }
    // Chained, listed dependents first: c ← b ← a ← arm.
    let first = nodes.len();
    let (c, b, a) = (first, first + 1, first + 2);
    add(
        &mut nodes,
        "chain_c".into(),
        None,
        [0.1, 0.2, 0.0],
        rest(),
        json!({"roll": {"source": b, "rollAxis": "Y", "weight": 0.8}}),
    );
    add(
        &mut nodes,
        "chain_b".into(),
        None,
        [0.1, 0.3, 0.0],
        rest(),
        json!({"rotation": {"source": a, "weight": 0.7}}),
    );
    add(
        &mut nodes,
        "chain_a".into(),
        None,
        [0.1, 0.4, 0.0],
        rest(),
        json!({"rotation": {"source": 1, "weight": 1.0}}),
    );
    assert_eq!(
        (nodes[c]["name"].as_str(), nodes[a]["name"].as_str()),
        (Some("chain_c"), Some("chain_a"))
    );
    // An aim hanging from a constrained node (its parent's world rotation
    // comes from chain_a's constraint).
    add(
        &mut nodes,
        "sleeve".into(),
        Some(a),
        [0.0, -0.2, 0.0],
        rest(),
        json!({"aim": {"source": 4, "aimAxis": "NegativeY", "weight": 1.0}}),
    );
    // A constrained node carrying a hair spring.
    let hair_root = add(
        &mut nodes,
        "hair_root".into(),
        None,
        [0.0, 1.5, 0.0],
        Quat::IDENTITY,
        json!({"rotation": {"source": 1, "weight": 0.6}}),
    );
    let h1 = nodes.len();
    nodes.push(json!({"name": "hair_1", "translation": [0.0, 0.0, -0.08], "children": [h1 + 1]}));
    nodes.push(json!({"name": "hair_2", "translation": [0.0, -0.1, -0.02], "children": [h1 + 2]}));
    nodes.push(json!({"name": "hair_end", "translation": [0.0, -0.1, 0.0]}));
    nodes[hair_root]["children"] = json!([h1]);
    nodes[0]["children"] = json!(root_children);
    let joint = |n: usize| json!({"node": n, "hitRadius": 0.02, "stiffness": 1.0, "dragForce": 0.3, "gravityPower": 0.2});
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRMC_node_constraint", "VRMC_springBone"],
        "extensions": {"VRMC_springBone": {"specVersion": "1.0", "springs": [
            {"joints": [joint(h1), joint(h1 + 1), {"node": h1 + 2}]}
        ]}},
    });
    let file = dir.join("node-constraints.gltf");
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let frames = 6 * RATE;
    let (mut arm, mut orbit) = (Vec::new(), Vec::new());
    for f in 0..frames {
        let t = f as f32 / RATE as f32;
        let s = |period: f32| (std::f32::consts::TAU * t / period).sin();
        arm.push(arm_rest * q(Vec3::Y, 170.0 * s(4.0)) * q(Vec3::X, 60.0 * s(2.7)));
        orbit.push(q(Vec3::Y, 170.0 * s(3.0)) * q(Vec3::Z, 40.0 * s(2.2)));
    }
    Fixture {
        name: "node constraints".into(),
        file,
        motion: vec![
            Motion {
                node: 1,
                translation: None,
                rotation: Some(arm),
            },
            Motion {
                node: 3,
                translation: None,
                rotation: Some(orbit),
            },
        ],
        frames,
        teleports: Vec::new(),
        restart: false,
    }
}

fn node_constraints_match_three_vrm() {
    let dir = std::env::temp_dir().join(format!("secmo-node-constraints-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = node_constraint_fixture(&dir);
    let reference = three_vrm(&fixture, 1, "joints", &dir);
    assert_eq!(
        reference.destinations.len(),
        3 + 9 + 18 + 3 + 2,
        "three-vrm read every constraint"
    );
    let (secmo, lengths) = secmo_run(&fixture, 1, &reference);
    let names = {
        let json = gltf_json(&fixture.file);
        reference
            .destinations
            .iter()
            .map(|&d| json["nodes"][d]["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let mut worst = vec![0.0f32; names.len()];
    for (a, b) in secmo.rotations.iter().zip(&reference.rotations) {
        for ((w, qa), qb) in worst.iter_mut().zip(a).zip(b) {
            *w = w.max(angle(*qa, *qb));
        }
    }
    let mut moved = 0.0f32;
    for frame in &reference.rotations {
        for (q, q0) in frame.iter().zip(&reference.rotations[0]) {
            moved = moved.max(angle(*q, *q0));
        }
    }
    println!("| destination | largest rotation difference (rad) |\n|---|---|");
    for (n, w) in names.iter().zip(&worst) {
        println!("| {n} | {w:.2e} |");
    }
    let hair = worst_tail(&secmo, &reference, &lengths);
    println!("hair spring on a constrained node: {hair:.4} % of its length");
    std::fs::remove_dir_all(&dir).ok();
    assert!(moved > 2.5, "the destinations turn: {moved} rad");
    let (name, w) =
        names.iter().zip(&worst).fold(
            ("", 0.0f32),
            |acc, (n, &w)| if w > acc.1 { (n, w) } else { acc },
        );
    assert!(w <= 1e-4, "{name}: {w:e} rad from three-vrm");
    assert!(hair <= 0.5, "hair tails {hair} % from three-vrm");
}

fn worst_tail(a: &Run, b: &Run, lengths: &[f32]) -> f32 {
    worst(a, 1, b, 1, lengths)
}

/// A skinned stick-figure humanoid (hips, spine, chest, neck, head, arms,
/// legs; a mesh of one triangle per bone, skinned with inverse binds) with
/// a 4-joint spring hanging from the back of the head (gravityPower 0.5),
/// written as a GLB. The hips follow a piecewise-linear path whose corners
/// change their velocity abruptly, all on 30 Hz keys (`on_keys`) or half
/// of them between two. `bone_axes`: every bone turned so that its local
/// +Y points at its first child, as Blender and most DCC exports leave a
/// skinned rig (otherwise every bone keeps the world's axes). Returns the
/// fixture and the times of the corners.
fn skinned_humanoid(
    dir: &Path,
    (stiffness, drag, gravity): (f32, f32, f32),
    on_keys: bool,
    bone_axes: bool,
) -> (Fixture, Vec<f32>) {
    // (name, parent, translation)
    let bones: [(&str, Option<usize>, [f32; 3]); 17] = [
        ("root", None, [0.0, 0.0, 0.0]),
        ("hips", Some(0), [0.0, 0.9, 0.0]),
        ("spine", Some(1), [0.0, 0.1, 0.0]),
        ("chest", Some(2), [0.0, 0.15, 0.0]),
        ("neck", Some(3), [0.0, 0.2, 0.0]),
        ("head", Some(4), [0.0, 0.1, 0.0]),
        ("upperArm_L", Some(3), [0.18, 0.12, 0.0]),
        ("lowerArm_L", Some(6), [0.26, 0.0, 0.0]),
        ("upperArm_R", Some(3), [-0.18, 0.12, 0.0]),
        ("lowerArm_R", Some(8), [-0.26, 0.0, 0.0]),
        ("upperLeg_L", Some(1), [0.09, -0.05, 0.0]),
        ("upperLeg_R", Some(1), [-0.09, -0.05, 0.0]),
        ("spring_0", Some(5), [0.0, 0.12, -0.09]),
        ("spring_1", Some(12), [0.0, -0.07, -0.02]),
        ("spring_2", Some(13), [0.0, -0.07, 0.0]),
        ("spring_3", Some(14), [0.0, -0.07, 0.01]),
        ("spring_end", Some(15), [0.0, -0.06, 0.0]),
    ];
    let mesh_node = bones.len();
    let mut nodes: Vec<Value> = bones
        .iter()
        .map(|(name, _, t)| json!({"name": name, "translation": t}))
        .collect();
    for (i, (_, parent, _)) in bones.iter().enumerate() {
        if let Some(p) = parent {
            let children = nodes[*p]
                .as_object_mut()
                .unwrap()
                .entry("children")
                .or_insert_with(|| json!([]));
            children.as_array_mut().unwrap().push(json!(i));
        }
    }
    nodes.push(json!({"name": "body", "mesh": 0, "skin": 0}));
    // World positions at bind.
    let mut world = vec![Vec3::ZERO; bones.len()];
    for (i, (_, parent, t)) in bones.iter().enumerate() {
        world[i] = parent.map_or(Vec3::ZERO, |p| world[p]) + Vec3::from(*t);
    }
    // World rotations at bind: +Y along the bone toward its first child.
    let mut turn = vec![Quat::IDENTITY; bones.len()];
    if bone_axes {
        for (i, (_, parent, _)) in bones.iter().enumerate() {
            let child = bones.iter().position(|b| b.1 == Some(i));
            turn[i] = match (child, parent) {
                (Some(c), _) => Quat::from_rotation_arc(Vec3::Y, (world[c] - world[i]).normalize()),
                (None, Some(p)) => turn[*p],
                (None, None) => Quat::IDENTITY,
            };
        }
        for (i, (_, parent, _)) in bones.iter().enumerate() {
            if let Some(p) = parent {
                let inv = turn[*p].conjugate();
                nodes[i]["translation"] = json!((inv * (world[i] - world[*p])).to_array());
                nodes[i]["rotation"] = json!((inv * turn[i]).normalize().to_array());
            }
        }
    }
    // One triangle per bone around its head, weighted to it alone.
    let mut bin: Vec<u8> = Vec::new();
    let push_f32 = |bin: &mut Vec<u8>, v: f32| bin.extend_from_slice(&v.to_le_bytes());
    for w in &world {
        for d in [
            Vec3::new(0.01, 0.0, 0.0),
            Vec3::new(-0.01, 0.0, 0.0),
            Vec3::new(0.0, 0.02, 0.0),
        ] {
            let p = *w + d;
            for c in p.to_array() {
                push_f32(&mut bin, c);
            }
        }
    }
    let positions_len = bin.len();
    for i in 0..bones.len() {
        for _ in 0..3 {
            bin.extend_from_slice(&[i as u8, 0, 0, 0]);
        }
    }
    let joints_len = bin.len() - positions_len;
    for _ in 0..bones.len() * 3 {
        for w in [1.0f32, 0.0, 0.0, 0.0] {
            push_f32(&mut bin, w);
        }
    }
    let weights_len = bin.len() - positions_len - joints_len;
    for (w, r) in world.iter().zip(&turn) {
        let m = glam::Mat4::from_rotation_translation(*r, *w).inverse();
        for c in m.to_cols_array() {
            push_f32(&mut bin, c);
        }
    }
    let binds_len = bin.len() - positions_len - joints_len - weights_len;
    let (min, max) = world.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), w| {
            (
                lo.min(*w - Vec3::new(0.01, 0.0, 0.0)),
                hi.max(*w + Vec3::new(0.01, 0.02, 0.0)),
            )
        },
    );
    let n = bones.len() * 3;
    let joint = |node: usize| {
        json!({"node": node, "hitRadius": 0.02, "stiffness": stiffness, "dragForce": drag,
               "gravityPower": gravity, "gravityDir": [0.0, -1.0, 0.0]})
    };
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "secmo tests/vrm_parity.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0, mesh_node]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "skins": [{"joints": (0..bones.len()).collect::<Vec<_>>(), "inverseBindMatrices": 3, "skeleton": 0}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": positions_len},
            {"buffer": 0, "byteOffset": positions_len, "byteLength": joints_len},
            {"buffer": 0, "byteOffset": positions_len + joints_len, "byteLength": weights_len},
            {"buffer": 0, "byteOffset": positions_len + joints_len + weights_len, "byteLength": binds_len}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": min.to_array(), "max": max.to_array()},
            {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": bones.len(), "type": "MAT4"}
        ],
        "extensionsUsed": ["VRMC_vrm", "VRMC_springBone"],
        "extensions": {
            "VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "stick figure",
                "authors": ["secmo"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
                "humanoid": {"humanBones": {
                    "hips": {"node": 1}, "spine": {"node": 2}, "chest": {"node": 3},
                    "neck": {"node": 4}, "head": {"node": 5},
                    "leftUpperArm": {"node": 6}, "leftLowerArm": {"node": 7},
                    "rightUpperArm": {"node": 8}, "rightLowerArm": {"node": 9},
                    "leftUpperLeg": {"node": 10}, "rightUpperLeg": {"node": 11}}}},
            "VRMC_springBone": {"specVersion": "1.0", "springs": [{"name": "tail",
                "joints": [joint(12), joint(13), joint(14), joint(15), {"node": 16}]}]}
        },
    });
    let mut text = serde_json::to_vec(&gltf).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    let file = dir.join(format!(
        "stick_figure_{stiffness}_{drag}_{gravity}_{on_keys}_{bone_axes}.glb"
    ));
    std::fs::write(&file, glb).unwrap();
    // The hips' path: still, then straight runs at changing speeds and
    // directions meeting at corners on 30 Hz keys, then still.
    // 1.8 s is the 54th 30 Hz key; 1.75 s lies half-way between two.
    let off = if on_keys { 0.05 } else { 0.0 };
    let corners: [(f32, Vec3); 8] = [
        (1.0, Vec3::new(0.0, 0.9, 0.0)),
        (1.5, Vec3::new(0.5, 0.9, 0.0)),
        (1.75 + off, Vec3::new(0.5, 0.9, -0.4)),
        (2.25 - off, Vec3::new(-0.1, 0.9, -0.4)),
        (2.5, Vec3::new(-0.1, 0.75, -0.1)),
        (2.75 + off, Vec3::new(0.2, 0.9, 0.2)),
        (3.0, Vec3::new(0.2, 0.9, 0.2)),
        (3.25 - off, Vec3::new(0.0, 0.9, 0.0)),
    ];
    let frames = 5 * RATE;
    let hips: Vec<Vec3> = (0..frames)
        .map(|f| {
            let t = f as f32 / RATE as f32;
            let k = corners.iter().rposition(|c| c.0 <= t);
            match k {
                None => corners[0].1,
                Some(k) if k + 1 == corners.len() => corners[k].1,
                Some(k) => {
                    let (t0, a) = corners[k];
                    let (t1, b) = corners[k + 1];
                    a.lerp(b, (t - t0) / (t1 - t0))
                }
            }
        })
        .collect();
    (
        Fixture {
            name: format!(
                "stiffness {stiffness}, drag {drag}, gravity {gravity}, corners {}{}",
                if on_keys {
                    "on 30 Hz keys"
                } else {
                    "between 30 Hz keys"
                },
                if bone_axes { ", bones along +Y" } else { "" }
            ),
            file,
            motion: vec![Motion {
                node: 1,
                translation: Some(hips),
                rotation: None,
            }],
            frames,
            teleports: Vec::new(),
            restart: false,
        },
        corners.iter().map(|c| c.0).collect(),
    )
}

/// VRMC_springBone's joint update in float64, as the specification writes
/// it: per step, joint by joint from the root, each reading the frame its
/// parent was just given; `next = tail + (tail − prev)(1 − drag) +
/// R_parent·R_local·axis·stiffness·dt + gravityDir·gravityPower·dt`, put
/// back at the joint's constant (bind) length, the joint turned from its
/// bind rotation by the shortest arc onto it. Only for springs without
/// colliders or a center on nodes without scale; its tails in `joints`'
/// order, per frame.
fn spec_model(fixture: &Fixture, joints: &[(usize, i64)]) -> Vec<Vec<Vec3>> {
    use glam::{DQuat, DVec3};
    let json = gltf_json(&fixture.file);
    let nodes = json["nodes"].as_array().unwrap();
    let parent: Vec<Option<usize>> = (0..nodes.len())
        .map(|i| {
            nodes.iter().position(|n| {
                n.get("children")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|c| c.as_u64() == Some(i as u64)))
            })
        })
        .collect();
    let rest: Vec<(DVec3, DQuat)> = (0..nodes.len())
        .map(|i| {
            let (t, r) = node_rest(&json, i as i64);
            (
                t.as_dvec3(),
                DQuat::from_array(r.to_array().map(f64::from)).normalize(),
            )
        })
        .collect();
    let spring = &json["extensions"]["VRMC_springBone"]["springs"][0]["joints"];
    let chain: Vec<usize> = spring
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["node"].as_u64().unwrap() as usize)
        .collect();
    let number = |k: usize, key: &str, default: f64| -> f64 {
        spring[k]
            .get(key)
            .and_then(Value::as_f64)
            .unwrap_or(default)
    };
    let gravity_dir = |k: usize| -> DVec3 {
        spring[k]
            .get("gravityDir")
            .and_then(Value::as_array)
            .map_or(DVec3::NEG_Y, |a| {
                DVec3::new(
                    a[0].as_f64().unwrap(),
                    a[1].as_f64().unwrap(),
                    a[2].as_f64().unwrap(),
                )
            })
    };
    // World frame of a node from the animated local transforms at frame f.
    let local = |i: usize, f: usize| -> (DVec3, DQuat) {
        let mut l = rest[i];
        for m in fixture.motion.iter().filter(|m| m.node == i as i64) {
            if let Some(t) = &m.translation {
                l.0 = t[f].as_dvec3();
            }
            if let Some(r) = &m.rotation {
                l.1 = DQuat::from_array(r[f].to_array().map(f64::from)).normalize();
            }
        }
        l
    };
    let world = |i: usize, f: usize| -> (DVec3, DQuat) {
        let mut path = vec![i];
        while let Some(p) = parent[*path.last().unwrap()] {
            path.push(p);
        }
        let mut w = (DVec3::ZERO, DQuat::IDENTITY);
        for &n in path.iter().rev() {
            let (t, r) = local(n, f);
            w = (w.0 + w.1 * t, w.1 * r);
        }
        w
    };
    let simulated = chain.len() - 1;
    let axis: Vec<DVec3> = (0..simulated)
        .map(|k| rest[chain[k + 1]].0.normalize())
        .collect();
    let length: Vec<f64> = (0..simulated)
        .map(|k| rest[chain[k + 1]].0.length())
        .collect();
    let mut current: Vec<DVec3> = (0..simulated).map(|k| world(chain[k + 1], 0).0).collect();
    let mut previous = current.clone();
    let dt = 1.0 / RATE as f64;
    let mut out = Vec::with_capacity(fixture.frames);
    for f in 0..fixture.frames {
        if f > 0 {
            let mut parent_frame = world(parent[chain[0]].unwrap(), f);
            for k in 0..simulated {
                let (t, r) = rest[chain[k]];
                let head = parent_frame.0 + parent_frame.1 * t;
                let bind = parent_frame.1 * r;
                let next = current[k]
                    + (current[k] - previous[k]) * (1.0 - number(k, "dragForce", 0.5))
                    + bind * axis[k] * number(k, "stiffness", 1.0) * dt
                    + gravity_dir(k) * number(k, "gravityPower", 0.0) * dt;
                let next = head + (next - head).normalize() * length[k];
                previous[k] = current[k];
                current[k] = next;
                let to = (bind.inverse() * (next - head)).normalize();
                parent_frame = (head, bind * DQuat::from_rotation_arc(axis[k], to));
            }
        }
        out.push(
            joints
                .iter()
                .map(|&(node, _)| {
                    let k = chain.iter().position(|&c| c == node).unwrap();
                    current[k].as_vec3()
                })
                .collect(),
        );
    }
    out
}

/// Largest difference of the tails of two runs at each frame, % of the
/// chain's length.
fn apart_per_frame(a: &[Vec<Vec3>], b: &[Vec<Vec3>], lengths: &[f32]) -> Vec<f32> {
    a.iter()
        .zip(b)
        .map(|(fa, fb)| {
            fa.iter()
                .zip(fb)
                .zip(lengths)
                .map(|((p, q), l)| (*p - *q).length() / l * 100.0)
                .fold(0.0, f32::max)
        })
        .collect()
}

/// The stick figure with the spring hanging from its head, the hips on a
/// path with corners: secmo against three-vrm (its joint update on the
/// current scene graph, `joints`), against three-vrm's stock
/// `manager.update` loop, and both against the specification's joint
/// update in float64 ([`spec_model`]).
fn a_skinned_humanoid_on_a_path_with_corners_matches_three_vrm_and_the_spec() {
    let dir = std::env::temp_dir().join(format!("secmo-vrm-corners-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    println!("| stick figure | secmo vs three-vrm | secmo vs spec (f64) | three-vrm vs spec (f64) | stock loop vs spec (f64) | secmo 30 Hz vs three-vrm 120 Hz | secmo 30 Hz vs 120 Hz, same input |");
    println!("|---|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    let cases = [
        ((1.0, 0.4, 0.5), true, false),
        ((1.0, 0.4, 0.5), false, false),
        ((1.0, 0.4, 0.5), true, true),
        ((0.5, 0.2, 0.5), true, false),
        ((0.5, 0.2, 0.5), false, false),
        ((0.5, 0.2, 0.5), true, true),
        ((2.0, 0.5, 0.5), true, false),
        ((2.0, 0.5, 0.5), false, false),
        ((2.0, 0.5, 0.5), true, true),
    ];
    for (numbers, on_keys, bone_axes) in cases {
        {
            let (fixture, corners) = skinned_humanoid(&dir, numbers, on_keys, bone_axes);
            let reference = three_vrm(&fixture, 1, "joints", &dir);
            let stock = three_vrm(&fixture, 1, "manager", &dir);
            let (secmo, lengths) = secmo_run(&fixture, 1, &reference);
            let (secmo_30, _) = secmo_run(&fixture, 4, &reference);
            let (same_input, _) = secmo_run(&rekeyed(&fixture, 4), 1, &reference);
            let spec = spec_model(&fixture, &reference.joints);
            let max = |v: &[f32]| v.iter().copied().fold(0.0f32, f32::max);
            let parity = max(&apart_per_frame(&secmo.tails, &reference.tails, &lengths));
            let secmo_spec = max(&apart_per_frame(&secmo.tails, &spec, &lengths));
            let three_spec = max(&apart_per_frame(&reference.tails, &spec, &lengths));
            let stock_frames = apart_per_frame(&stock.tails, &spec, &lengths);
            // secmo's 30 Hz updates against three-vrm every 4th frame.
            let keyed: Vec<Vec<Vec3>> = reference.tails.iter().step_by(4).cloned().collect();
            let rate_frames = apart_per_frame(&secmo_30.tails, &keyed, &lengths);
            let rate_30 = max(&rate_frames);
            let solver_30 = worst(&secmo_30, 4, &same_input, 1, &lengths);
            println!(
                "| {} | {parity:.4} % | {secmo_spec:.4} % | {three_spec:.4} % | {:.2} % | {rate_30:.3} % | {solver_30:.4} % |",
                fixture.name,
                max(&stock_frames)
            );
            // How the differences run after each corner (0.05, 0.1, 0.2 s).
            for &c in &corners {
                let at = (c * RATE as f32).round() as usize;
                let after = |v: &[f32], every: usize| -> String {
                    [6usize, 12, 24]
                        .iter()
                        .map(|&d| format!("{:.2}", v[((at + d) / every).min(v.len() - 1)]))
                        .collect::<Vec<_>>()
                        .join(" / ")
                };
                notes.push(format!(
                    "{}, corner at {c:.2} s, 0.05 / 0.1 / 0.2 s after: stock loop vs spec {} %, secmo 30 Hz vs three-vrm {} %",
                    fixture.name,
                    after(&stock_frames, 1),
                    after(&rate_frames, 4)
                ));
            }
            if parity > 0.01 || secmo_spec > 0.01 || three_spec > 0.01 || solver_30 > 0.01 {
                failures.push(format!(
                    "{}: secmo vs three-vrm {parity:.4} %, secmo vs spec {secmo_spec:.4} %, three-vrm vs spec {three_spec:.4} %, same input at 30 and 120 Hz {solver_30:.4} %",
                    fixture.name
                ));
            }
            // Corners on the keys: 30 Hz keys hold the whole path.
            if on_keys && rate_30 > 0.01 {
                failures.push(format!(
                    "{}: 30 Hz input {rate_30:.3} % from three-vrm at 120 Hz",
                    fixture.name
                ));
            }
            if max(&stock_frames) < 0.5 {
                failures.push(format!(
                    "{}: the stock loop's stale bone lengths should show at the corners",
                    fixture.name
                ));
            }
        }
    }
    for n in notes {
        println!("{n}");
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{failures:#?}");
}

fn main() {
    tools::run(cases![
        vrm_preset_matches_three_vrm_and_is_frame_rate_independent[tools::three_vrm_long],
        node_constraints_match_three_vrm[tools::three_vrm],
        a_skinned_humanoid_on_a_path_with_corners_matches_three_vrm_and_the_spec[tools::three_vrm],
    ]);
}
