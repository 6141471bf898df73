//! The demo's meshed character, generated in code: the procedural helper
//! body ([`crate::procedural`]) with a head, legs, a five-bone tail on the
//! pelvis and a four-bone ponytail on the head, skinned tube meshes for the
//! torso, limbs, tail and ponytail, the walk → run → sprint → stop sequence
//! as a glTF clip, and the ponytail as a VRM 1.0 spring (with a head
//! collider). It is written as a GLB in metres so that `report` and `bake`
//! treat it like any imported file, and any glTF viewer can show it.

use glam::{Affine3A, Mat4, Quat, Vec3};
use secmo::settings::{BtobSettings, ConstraintSettings, CorrectiveSettings, SpringSettings};
use secmo::{BoneDesc, RigDesc, RigSettings, Transform};
use serde_json::{json, Value};

use crate::glb::Glb;
use crate::procedural::{self, Sequence, CHEST, FOREARM_L, FOREARM_R, HAND_L, HAND_R, PELVIS};
use crate::procedural::{CHEST_L, CHEST_R, HIP_L, HIP_R, SPINE, UPPER_ARM_L, UPPER_ARM_R};

pub const HEAD: usize = 16;
pub const THIGH_L: usize = 17;
pub const SHIN_L: usize = 18;
pub const FOOT_L: usize = 19;
pub const THIGH_R: usize = 20;
pub const SHIN_R: usize = 21;
pub const FOOT_R: usize = 22;
/// tail_1..tail_5, then the weightless tail_end.
pub const TAIL: [usize; 6] = [23, 24, 25, 26, 27, 28];
/// ponytail_1..ponytail_4, then the weightless ponytail_end.
pub const PONYTAIL: [usize; 5] = [29, 30, 31, 32, 33];
/// Sleeve bones at the shoulders, each following its upper arm halfway
/// (a VRMC_node_constraint rotation constraint, weight 0.5).
pub const SLEEVE: [usize; 2] = [34, 35];

/// The clip's name in the GLB.
pub const CLIP: &str = "walk_run_sprint_stop";

/// The helper body plus head, legs, tail and ponytail (centimetres).
#[must_use]
pub fn meshed_body() -> RigDesc {
    let mut desc = procedural::helper_body();
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut add = |name: &str, parent: usize, local: Transform| {
        desc.bones.push(BoneDesc::new(name, parent as i32, local));
    };
    add("head", CHEST, t(0.0, 28.0, 0.0));
    for (side, x) in [("l", 9.0), ("r", -9.0)] {
        let thigh = if side == "l" { THIGH_L } else { THIGH_R };
        add(&format!("thigh_{side}"), PELVIS, t(x, -6.0, 0.0));
        add(&format!("shin_{side}"), thigh, t(0.0, -45.0, 0.0));
        add(&format!("foot_{side}"), thigh + 1, t(0.0, -43.0, 0.0));
    }
    add("tail_1", PELVIS, t(0.0, -2.0, -12.0));
    for k in 2..=5 {
        add(&format!("tail_{k}"), TAIL[k - 2], t(0.0, -3.0, -13.0));
    }
    add("tail_end", TAIL[4], t(0.0, -2.0, -12.0));
    add("ponytail_1", HEAD, t(0.0, 12.0, -12.0));
    for k in 2..=4 {
        add(
            &format!("ponytail_{k}"),
            PONYTAIL[k - 2],
            t(0.0, -9.0, -3.0),
        );
    }
    add("ponytail_end", PONYTAIL[3], t(0.0, -8.0, -1.0));
    add("sleeve_l", CHEST, t(18.0, 20.0, 0.0));
    add("sleeve_r", CHEST, t(-18.0, 20.0, 0.0));
    debug_assert_eq!(desc.bones.len(), SLEEVE[1] + 1);
    desc
}

/// The body's pose at `t`: the procedural sequence, plus a nodding head,
/// legs that stride with the arms and a tail carried up that sways with the
/// gait, as an animator keys it (secmo simulates the tail around that pose,
/// docs/chains.md "Around the animation"). The ponytail keeps its
/// reference locals: its VRM spring moves it.
pub fn write_pose(sequence: &Sequence, t: f32, pose: &mut [Transform]) {
    sequence.write_pose(t, pose);
    let (s, ph) = sequence.gait(t);
    // Only the whole meshed body has the tail (the rig tests' bodies lack it).
    let whole = pose.len() == SLEEVE[1] + 1;
    for (k, &bone) in TAIL[..5].iter().enumerate().filter(|_| whole) {
        let lift = if k == 0 { 0.15 } else { 0.03 };
        let sway = 0.06 * s.min(1.5) * (ph - 0.5 * k as f32).sin();
        pose[bone].rotation =
            (Quat::from_rotation_y(sway) * Quat::from_rotation_x(lift)).to_array();
    }
    pose[HEAD].rotation = Quat::from_rotation_x(0.04 * s * (2.0 * ph).sin()).to_array();
    let stride = 0.35 * s.min(2.5);
    for (thigh, side) in [(THIGH_L, 1.0f32), (THIGH_R, -1.0)] {
        let swing = stride * ph.sin() * side;
        pose[thigh].rotation = Quat::from_rotation_x(-swing).to_array();
        // The knee bends while the leg swings forward.
        let knee = 0.5 * stride * (1.0 + (ph + 0.8).sin() * side).max(0.0);
        pose[thigh + 1].rotation = Quat::from_rotation_x(knee).to_array();
    }
}

/// A skinned triangle mesh under construction (metres, bind space).
#[derive(Clone, Debug, Default)]
pub struct MeshBuilder {
    pub positions: Vec<Vec3>,
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
    /// Give each tube segment its own vertices (an island per segment, as
    /// exporters split meshes at UV seams).
    pub split_segments: bool,
}

impl MeshBuilder {
    /// A tube along `points` (bind-space joint positions) with `radii`;
    /// segment i is owned by `bones[i]` and blended with its neighbours by
    /// the docs/algorithms.md §12.6 rule (`before` precedes the first segment).
    pub fn tube(&mut self, points: &[Vec3], radii: &[f32], bones: &[usize], before: usize) {
        const SIDES: usize = 10;
        const RINGS: usize = 4;
        let segments = points.len() - 1;
        let mut ring = 0;
        let mut last_ring: Vec<Vec3> = Vec::new();
        for i in 0..segments {
            let (a, b) = (points[i], points[i + 1]);
            let axis = (b - a).normalize();
            let side = axis.any_orthonormal_vector();
            let up = axis.cross(side);
            let last = if i + 1 == segments || self.split_segments {
                RINGS
            } else {
                RINGS - 1
            };
            if self.split_segments {
                ring = 0;
            }
            for r in 0..=last {
                let f = r as f32 / RINGS as f32;
                let centre = a.lerp(b, f);
                let radius = radii[i] + (radii[i + 1] - radii[i]) * f;
                let [w_prev, w_self, w_next] = crate::grow::segment_weights(f);
                let prev = if i == 0 { before } else { bones[i - 1] };
                let (next, w_self, w_next) = match bones.get(i + 1) {
                    Some(&n) => (n, w_self, w_next),
                    None => (bones[i], w_self + w_next, 0.0),
                };
                // A split segment starts on an exact copy of the ring before
                // (a seam: same positions, separate vertices).
                let positions: Vec<Vec3> = if self.split_segments && i > 0 && r == 0 {
                    last_ring.clone()
                } else {
                    (0..SIDES)
                        .map(|k| {
                            let angle = k as f32 / SIDES as f32 * std::f32::consts::TAU;
                            centre + radius * (angle.cos() * side + angle.sin() * up)
                        })
                        .collect()
                };
                for p in &positions {
                    self.positions.push(*p);
                    self.joints
                        .push([prev as u32, bones[i] as u32, next as u32, 0]);
                    self.weights.push([w_prev, w_self, w_next, 0.0]);
                }
                last_ring = positions;
                if ring > 0 {
                    let base = (self.positions.len() - 2 * SIDES) as u32;
                    for k in 0..SIDES as u32 {
                        let k1 = (k + 1) % SIDES as u32;
                        let (p0, p1) = (base + k, base + k1);
                        let (q0, q1) = (p0 + SIDES as u32, p1 + SIDES as u32);
                        self.indices.extend_from_slice(&[p0, q0, p1, p1, q0, q1]);
                    }
                }
                ring += 1;
            }
        }
    }
}

impl MeshBuilder {
    /// A grid of `nu` × `nv` quads from `corner` along `u` and `v`, every
    /// vertex weighted 1.0 to `bone`.
    pub fn sheet(&mut self, corner: Vec3, u: Vec3, v: Vec3, (nu, nv): (usize, usize), bone: usize) {
        let base = self.positions.len() as u32;
        for j in 0..=nv {
            for i in 0..=nu {
                self.positions
                    .push(corner + u * (i as f32 / nu as f32) + v * (j as f32 / nv as f32));
                self.joints.push([bone as u32, 0, 0, 0]);
                self.weights.push([1.0, 0.0, 0.0, 0.0]);
            }
        }
        let row = (nu + 1) as u32;
        for j in 0..nv as u32 {
            for i in 0..nu as u32 {
                let p = base + j * row + i;
                self.indices
                    .extend_from_slice(&[p, p + row, p + 1, p + 1, p + row, p + row + 1]);
            }
        }
    }

    /// The body of [`meshed_body`]: torso with head, arms and legs, from
    /// its bind-space transforms `world` (metres).
    pub fn body(&mut self, world: &[Affine3A]) {
        let at = |b: usize| Vec3::from(world[b].translation);
        let head_top = at(HEAD) + Vec3::Y * 0.2;
        self.tube(
            &[
                at(PELVIS) - Vec3::Y * 0.08,
                at(SPINE),
                at(CHEST),
                at(HEAD),
                head_top,
            ],
            &[0.13, 0.12, 0.14, 0.07, 0.09],
            &[PELVIS, SPINE, CHEST, HEAD],
            PELVIS,
        );
        for (upper, fore, hand) in [
            (UPPER_ARM_L, FOREARM_L, HAND_L),
            (UPPER_ARM_R, FOREARM_R, HAND_R),
        ] {
            let tip = at(hand) - Vec3::Y * 0.1;
            self.tube(
                &[at(upper), at(fore), at(hand), tip],
                &[0.045, 0.04, 0.035, 0.03],
                &[upper, fore, hand],
                CHEST,
            );
        }
        for thigh in [THIGH_L, THIGH_R] {
            let toe = at(thigh + 2) + Vec3::new(0.0, -0.04, 0.12);
            self.tube(
                &[at(thigh), at(thigh + 1), at(thigh + 2), toe],
                &[0.07, 0.05, 0.04, 0.03],
                &[thigh, thigh + 1, thigh + 2],
                PELVIS,
            );
        }
    }
}

/// Bind-space (component) transforms of `desc`'s reference pose, metres.
pub fn bind_world(desc: &RigDesc) -> Vec<Affine3A> {
    let locals: Vec<Transform> = desc
        .bones
        .iter()
        .map(|b| {
            let mut l = b.reference;
            l.translation = (Vec3::from(l.translation) * 0.01).to_array();
            l
        })
        .collect();
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    let mut world = vec![Affine3A::IDENTITY; locals.len()];
    secmo::math::forward_kinematics(&parents, &locals, &mut world);
    world
}

/// The demo character as GLB bytes, its clip sampled at `rate` Hz.
pub fn glb(sequence: &Sequence, rate: f32) -> anyhow::Result<Vec<u8>> {
    let desc = meshed_body();
    let world = bind_world(&desc);
    let at = |b: usize| Vec3::from(world[b].translation);

    let mut mesh = MeshBuilder::default();
    mesh.body(&world);
    let tail_points: Vec<Vec3> = TAIL.iter().map(|&b| at(b)).collect();
    mesh.tube(
        &tail_points,
        &[0.05, 0.06, 0.055, 0.045, 0.03, 0.01],
        &TAIL[..5],
        PELVIS,
    );
    let pony_points: Vec<Vec3> = PONYTAIL.iter().map(|&b| at(b)).collect();
    mesh.tube(
        &pony_points,
        &[0.022, 0.025, 0.022, 0.016, 0.006],
        &PONYTAIL[..4],
        HEAD,
    );

    // Pads on the hip and chest helpers, so that their springs show.
    for helper in [HIP_L, HIP_R, CHEST_L, CHEST_R] {
        let p = at(helper);
        mesh.tube(
            &[p - Vec3::Z * 0.03, p + Vec3::Z * 0.03],
            &[0.04, 0.035],
            &[helper],
            helper,
        );
    }

    let mut bytes = write_glb(&desc, &mesh, Some((sequence, rate)), true)?;
    let mut doc = Glb::parse(&bytes)?;
    doc.json["extras"] = json!({
        "secmo_rig_settings": serde_json::to_value(helper_settings()).map_err(|e| anyhow::anyhow!("{e}"))?
    });
    bytes = doc.to_bytes()?;
    Ok(bytes)
}

/// The helper body's springs (docs/algorithms.md §3 hip and chest presets), chest
/// rotation constraints (§4) and BtoB correctives (§5) as rig settings for
/// the GLB, which is in metres: presets scale with the rig's units, and the
/// chests' rest gap is 0.16 m.
#[must_use]
pub fn helper_settings() -> RigSettings {
    let mut s = RigSettings::new();
    for (bone, preset) in [
        ("hip_helper_l", "hip"),
        ("hip_helper_r", "hip"),
        ("chest_helper_l", "chest"),
        ("chest_helper_r", "chest"),
    ] {
        s.springs.push(SpringSettings {
            bone: bone.into(),
            preset: Some(preset.into()),
            params: Default::default(),
        });
    }
    for side in ["l", "r"] {
        s.constraints.push(ConstraintSettings {
            bone: format!("chest_helper_{side}"),
            target: format!("chest_point_{side}"),
        });
    }
    // Local +X of the left chest points away from the midline, of the right
    // toward it (as in `procedural::helper_body`).
    for (side, other, name, medial_x) in [("l", "r", "left", -1.0), ("r", "l", "right", 1.0)] {
        s.correctives.push(CorrectiveSettings {
            driven: format!("chest_helper_{side}"),
            side: name.into(),
            rate: None,
            probes: Vec::new(),
            btob: Some(BtobSettings {
                other_chest: format!("chest_helper_{other}"),
                upper_arm_l: "upper_arm_l".into(),
                forearm_l: "forearm_l".into(),
                hand_l: "hand_l".into(),
                upper_arm_r: "upper_arm_r".into(),
                forearm_r: "forearm_r".into(),
                hand_r: "hand_r".into(),
                medial_x,
                chest_gap: 0.16,
            }),
        });
    }
    s
}

/// Writes `desc`'s bones (centimetres, written in metres), `mesh` skinned to
/// them, the sequence as a clip when given, and the ponytail spring when
/// `ponytail` (the bones must include [`PONYTAIL`]).
pub fn write_glb(
    desc: &RigDesc,
    mesh: &MeshBuilder,
    clip: Option<(&Sequence, f32)>,
    ponytail: bool,
) -> anyhow::Result<Vec<u8>> {
    let world = bind_world(desc);
    // Nodes: one per bone, then the mesh node.
    let mut nodes: Vec<Value> = desc
        .bones
        .iter()
        .map(|b| {
            let l = b.reference;
            json!({"name": b.name,
                   "translation": (Vec3::from(l.translation) * 0.01).to_array(),
                   "rotation": l.rotation, "scale": l.scale})
        })
        .collect();
    for (i, b) in desc.bones.iter().enumerate() {
        if b.parent >= 0 {
            let p = b.parent as usize;
            if nodes[p].get("children").is_none() {
                nodes[p]["children"] = json!([]);
            }
            nodes[p]["children"].as_array_mut().unwrap().push(json!(i));
        }
    }
    let mesh_node = nodes.len();
    nodes.push(json!({"name": "body", "mesh": 0, "skin": 0}));
    let bones = desc.bones.len();
    let mut doc = Glb::new(json!({
        "asset": {"version": "2.0", "generator": "secmo demo"},
        "scene": 0,
        "scenes": [{"name": "secmo demo", "nodes": [0, mesh_node]}],
        "nodes": nodes,
    }));

    let floats = |v: &[Vec3]| -> Vec<f32> { v.iter().flat_map(|p| p.to_array()).collect() };
    let position = doc.push_floats(&floats(&mesh.positions), "VEC3", true);
    let (mut joints, mut weights) = (Vec::new(), Vec::new());
    for (&j, &w) in mesh.joints.iter().zip(&mesh.weights) {
        let (j, w) = crate::glb::clean_influences(j, w);
        joints.extend(j);
        weights.extend(w);
    }
    let joints = doc.push_indices(&joints, "VEC4");
    let weights = doc.push_floats(&weights, "VEC4", false);
    let indices = doc.push_indices(&mesh.indices, "SCALAR");
    doc.json["meshes"] = json!([{"name": "body", "primitives": [{
        "attributes": {"POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights},
        "indices": indices, "mode": 4}]}]);
    let inverse: Vec<f32> = world
        .iter()
        .flat_map(|w| Mat4::from(w.inverse()).to_cols_array())
        .collect();
    let inverse = doc.push_floats(&inverse, "MAT4", false);
    doc.json["skins"] = json!([{"name": "body", "joints": (0..bones).collect::<Vec<_>>(),
                                "inverseBindMatrices": inverse, "skeleton": 0}]);

    if let Some((sequence, rate)) = clip {
        write_clip(&mut doc, desc, sequence, rate);
    }
    if ponytail {
        write_ponytail(&mut doc);
    }
    doc.to_bytes()
}

/// The clip: every bone the sequence poses, sampled at `rate`.
fn write_clip(doc: &mut Glb, desc: &RigDesc, sequence: &Sequence, rate: f32) {
    let bones = desc.bones.len();
    let frames = (sequence.duration() * rate).round() as usize;
    let times: Vec<f32> = (0..=frames).map(|f| f as f32 / rate).collect();
    let reference: Vec<Transform> = desc.bones.iter().map(|b| b.reference).collect();
    let poses: Vec<Vec<Transform>> = times
        .iter()
        .map(|&t| {
            let mut pose = reference.clone();
            write_pose(sequence, t, &mut pose);
            pose
        })
        .collect();
    let input = doc.push_floats(&times, "SCALAR", true);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for bone in 0..bones {
        let moves = |f: &dyn Fn(&Transform) -> Vec<f32>| {
            poses.iter().any(|p| f(&p[bone]) != f(&reference[bone]))
        };
        let rotation = |t: &Transform| t.rotation.to_vec();
        let translation = |t: &Transform| t.translation.to_vec();
        for (path, get, scale) in [
            (
                "rotation",
                &rotation as &dyn Fn(&Transform) -> Vec<f32>,
                1.0,
            ),
            ("translation", &translation, 0.01),
        ] {
            if !moves(get) {
                continue;
            }
            let values: Vec<f32> = poses
                .iter()
                .flat_map(|p| get(&p[bone]))
                .map(|v| v * scale)
                .collect();
            let kind = if path == "rotation" { "VEC4" } else { "VEC3" };
            let output = doc.push_floats(&values, kind, false);
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(json!({"sampler": samplers.len() - 1,
                                 "target": {"node": bone, "path": path}}));
        }
    }
    doc.json["animations"] = json!([{"name": CLIP, "samplers": samplers, "channels": channels}]);
}

fn write_ponytail(doc: &mut Glb) {
    // The ponytail as a VRM 1.0 spring, kept off the head by a sphere.
    let joints: Vec<Value> = PONYTAIL
        .iter()
        .map(|&b| {
            json!({"node": b, "hitRadius": 0.02, "stiffness": 2.0, "dragForce": 0.5,
                   "gravityPower": 0.5, "gravityDir": [0.0, -1.0, 0.0]})
        })
        .collect();
    doc.json["extensions"] = json!({"VRMC_springBone": {
        "specVersion": "1.0",
        "colliders": [{"node": HEAD, "shape": {"sphere": {"offset": [0.0, 0.1, 0.0], "radius": 0.09}}}],
        "colliderGroups": [{"name": "head", "colliders": [0]}],
        "springs": [{"name": "ponytail", "joints": joints, "colliderGroups": [0]}],
    }});
    // Sleeves that follow the upper arms halfway (docs/node-constraints.md).
    for (sleeve, arm) in SLEEVE.into_iter().zip([UPPER_ARM_L, UPPER_ARM_R]) {
        doc.json["nodes"][sleeve]["extensions"] = json!({"VRMC_node_constraint": {
            "specVersion": "1.0",
            "constraint": {"rotation": {"source": arm, "weight": 0.5}}}});
    }
    doc.json["extensionsUsed"] = json!(["VRMC_springBone", "VRMC_node_constraint"]);
}
