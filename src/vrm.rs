//! VRM spring bones → rig settings (SPEC §8 "Import"; docs/vrm-mapping.md).
//!
//! Reads VRM 0.x `secondaryAnimation` and VRM 1.0 `VRMC_springBone` (with
//! `VRMC_springBone_extended_collider`) from a .vrm/.glb file or a .gltf
//! JSON text, and gives the skeleton (from the glTF nodes) and a
//! [`RigSettings`] whose chains use secmo's hair solver. Only the JSON chunk
//! is read; meshes and animations are the tool's business.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use crate::math::Transform;
use crate::rig::BoneDesc;
use crate::settings::{ChainSettings, ColliderSettings, RigSettings, SettingsError};

/// What an import found, for reports and tests.
#[derive(Clone, Debug, PartialEq)]
pub struct VrmImport {
    /// 0 for VRM 0.x, 1 for VRM 1.0.
    pub version: u32,
    /// Bone groups (0.x) or springs (1.0).
    pub groups: usize,
    /// Root nodes of the groups (0.x) or first joints of the springs (1.0).
    pub roots: usize,
    /// Simulated joints over all chains.
    pub joints: usize,
    /// Collider shapes, by settings shape name ("sphere", "plane", ...).
    pub collider_shapes: Vec<String>,
    /// The skeleton: every glTF node, parents first, with unique names.
    pub skeleton: Skeleton,
    pub settings: RigSettings,
}

fn err(path: impl Into<String>, message: impl Into<String>) -> SettingsError {
    SettingsError {
        path: path.into(),
        message: message.into(),
    }
}

/// The JSON of a .glb/.vrm (binary glTF) or a .gltf text.
pub fn gltf_json(bytes: &[u8]) -> Result<Value, SettingsError> {
    let text: &[u8] = if bytes.starts_with(b"glTF") {
        if bytes.len() < 20 {
            return Err(err("glb", "truncated: shorter than a GLB header"));
        }
        let u32_at = |i: usize| {
            u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize
        };
        let total = u32_at(8);
        let chunk_len = u32_at(12);
        let chunk_type = u32_at(16);
        if total > bytes.len() || 20 + chunk_len > bytes.len() {
            return Err(err(
                "glb",
                "truncated: the file is shorter than its header says",
            ));
        }
        if chunk_type != 0x4E4F_534A {
            return Err(err("glb", "the first chunk is not JSON"));
        }
        &bytes[20..20 + chunk_len]
    } else {
        bytes
    };
    serde_json::from_slice(text).map_err(|e| {
        err(
            format!("json line {}, column {}", e.line(), e.column()),
            e.to_string(),
        )
    })
}

fn f32s<const N: usize>(v: Option<&Value>, default: [f32; N]) -> [f32; N] {
    let mut out = default;
    if let Some(a) = v.and_then(Value::as_array) {
        for (o, x) in out.iter_mut().zip(a) {
            if let Some(f) = x.as_f64() {
                *o = f as f32;
            }
        }
    }
    out
}

fn num(v: Option<&Value>, default: f32) -> f32 {
    v.and_then(Value::as_f64).map_or(default, |f| f as f32)
}

/// A JSON array field as a slice; empty when it is absent.
fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The collider names of the groups listed in `groups` (indices into
/// `table`; unknown indices are skipped).
fn group_colliders(groups: Option<&Value>, table: &[Vec<String>]) -> Vec<String> {
    array(groups)
        .iter()
        .filter_map(Value::as_u64)
        .filter_map(|g| table.get(g as usize))
        .flatten()
        .cloned()
        .collect()
}

struct Nodes {
    names: Vec<String>,
    parents: Vec<i32>,
    children: Vec<Vec<usize>>,
    local: Vec<Transform>,
    /// Parents first (depth first from each root).
    order: Vec<usize>,
    /// Largest axis of each node's bind-pose world scale (UniVRM 0.x
    /// scales collider radii by it).
    world_scale: Vec<f32>,
}

fn read_nodes(json: &Value) -> Result<Nodes, SettingsError> {
    let nodes = json
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| err("nodes", "missing"))?;
    let n = nodes.len();
    let mut names = Vec::with_capacity(n);
    let mut children = vec![Vec::new(); n];
    let mut parents = vec![-1i32; n];
    let mut local = Vec::with_capacity(n);
    // The scene root's name is taken (see `skeleton`).
    let mut seen: HashMap<String, usize> = HashMap::from([(SCENE_ROOT.to_string(), usize::MAX)]);
    for (i, node) in nodes.iter().enumerate() {
        let base = node
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("node{i}"), str::to_string);
        // glTF allows duplicate names; settings refer to bones by name.
        let name = if seen.contains_key(&base) {
            format!("{base}#{i}")
        } else {
            base.clone()
        };
        seen.insert(base, i);
        names.push(name);
        for c in array(node.get("children")).iter() {
            let c = c
                .as_u64()
                .ok_or_else(|| err(format!("nodes[{i}].children"), "not an index"))?
                as usize;
            if c >= n {
                return Err(err(
                    format!("nodes[{i}].children"),
                    format!("node {c} does not exist"),
                ));
            }
            if parents[c] >= 0 {
                return Err(err(
                    format!("nodes[{i}].children"),
                    format!("node {c} has two parents"),
                ));
            }
            parents[c] = i as i32;
            children[i].push(c);
        }
        let t = if let Some(m) = node.get("matrix") {
            let m: [f32; 16] = f32s(Some(m), [0.0; 16]);
            let (s, r, t) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
            Transform::new(t, r, s)
        } else {
            Transform::new(
                Vec3::from_array(f32s(node.get("translation"), [0.0; 3])),
                Quat::from_array(f32s(node.get("rotation"), [0.0, 0.0, 0.0, 1.0])),
                Vec3::from_array(f32s(node.get("scale"), [1.0; 3])),
            )
        };
        if !t.is_finite() {
            return Err(err(format!("nodes[{i}]"), "transform has NaN or infinity"));
        }
        if t.scale
            .iter()
            .any(|s| !(crate::math::MIN_SCALE..=crate::math::MAX_SCALE).contains(&s.abs()))
        {
            return Err(err(
                format!("nodes[{i}].scale"),
                "a component is zero or beyond 1e4",
            ));
        }
        if t.rotation().length_squared() < 1e-12 {
            return Err(err(
                format!("nodes[{i}].rotation"),
                "zero-length quaternion",
            ));
        }
        local.push(t);
    }
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = (0..n).rev().filter(|&i| parents[i] < 0).collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    if order.len() != n {
        return Err(err("nodes", "the children form a cycle"));
    }
    let mut world_scale = vec![1.0f32; n];
    for &i in &order {
        let own = local[i].scale().abs().max_element();
        world_scale[i] = match parents[i] {
            p if p >= 0 => world_scale[p as usize] * own,
            _ => own,
        };
    }
    Ok(Nodes {
        names,
        parents,
        children,
        local,
        order,
        world_scale,
    })
}

/// The bone added above the glTF scene roots when a spring starts at one:
/// a chain needs a parent frame to hold its rest arc in.
pub const SCENE_ROOT: &str = "secmo_scene_root";

/// The chain anchor for a chain starting at `node`: its parent, or
/// [`SCENE_ROOT`] (noted in `scene_root`) for a scene root.
fn anchor_of(nodes: &Nodes, node: usize, scene_root: &mut bool) -> String {
    match nodes.parents[node] {
        p if p >= 0 => nodes.names[p as usize].clone(),
        _ => {
            *scene_root = true;
            SCENE_ROOT.to_string()
        }
    }
}

/// Nodes in parents-first order (depth first from each root), below an
/// identity [`SCENE_ROOT`] bone when `scene_root` is set.
fn skeleton(nodes: &Nodes, scene_root: bool) -> Skeleton {
    let n = nodes.names.len();
    let first = usize::from(scene_root);
    let mut bone_of_node = vec![0u32; n];
    for (k, &i) in nodes.order.iter().enumerate() {
        bone_of_node[i] = (first + k) as u32;
    }
    let root = BoneDesc::new(SCENE_ROOT, -1, Transform::IDENTITY);
    let scene_parent = if scene_root { 0 } else { -1 };
    let bones = scene_root
        .then_some(root)
        .into_iter()
        .chain(nodes.order.iter().map(|&i| {
            let parent = match nodes.parents[i] {
                p if p >= 0 => bone_of_node[p as usize] as i32,
                _ => scene_parent,
            };
            BoneDesc::new(nodes.names[i].clone(), parent, nodes.local[i])
        }))
        .collect();
    Skeleton {
        bones,
        bone_of_node,
    }
}

/// A glTF's nodes as a secmo skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// Every node, parents first, with unique names (duplicates get
    /// `#<node index>`), below [`SCENE_ROOT`] when an import needed it.
    pub bones: Vec<BoneDesc>,
    /// The bone index of each glTF node.
    pub bone_of_node: Vec<u32>,
}

/// The skeleton of any glTF/GLB/VRM (no spring bones needed): the same
/// bones and names [`import`] uses, for tools that read the rest of the
/// file (skins, clips) with a glTF library.
pub fn gltf_skeleton(bytes: &[u8]) -> Result<Skeleton, SettingsError> {
    let nodes = read_nodes(&gltf_json(bytes)?)?;
    Ok(skeleton(&nodes, false))
}

/// VRM's spring parameters in secmo's hair preset (docs/vrm-mapping.md).
fn hair_params(
    stiffness: f32,
    drag: f32,
    gravity_power: f32,
    gravity_dir: [f32; 3],
    center: Option<String>,
) -> serde_json::Map<String, Value> {
    let drag = drag.clamp(0.0, 0.99);
    let mut params = serde_json::Map::new();
    params.insert("integrator".into(), "exponential_damping".into());
    // VRM stiffness 1 ↔ secmo's default restoring 40 /s².
    params.insert("stiffness".into(), (40.0 * stiffness.max(0.0)).into());
    // VRM keeps (1 − drag) of the velocity per frame at 60 fps.
    params.insert("damping".into(), (-60.0 * (1.0 - drag).ln()).into());
    params.insert("gravity".into(), (9.8 * gravity_power.max(0.0)).into());
    params.insert("gravity_direction".into(), gravity_dir.to_vec().into());
    if let Some(center) = center {
        params.insert("simulation_space".into(), center.into());
    }
    params
}

/// Reads a VRM's spring bones.
pub fn import(bytes: &[u8]) -> Result<VrmImport, SettingsError> {
    let json = gltf_json(bytes)?;
    let nodes = read_nodes(&json)?;
    let name = |path: String, v: Option<&Value>| -> Result<usize, SettingsError> {
        let i = v
            .and_then(Value::as_u64)
            .ok_or_else(|| err(&path, "missing node index"))? as usize;
        if i >= nodes.names.len() {
            return Err(err(path, format!("node {i} does not exist")));
        }
        Ok(i)
    };
    let ext = json.get("extensions");
    let mut settings = RigSettings::new();
    let mut scene_root = false;
    let mut collider_shapes = Vec::new();
    let (version, groups, roots, joints);
    if let Some(spring) = ext.and_then(|e| e.get("VRMC_springBone")) {
        version = 1;
        for (i, c) in array(spring.get("colliders")).iter().enumerate() {
            let path = format!("VRMC_springBone.colliders[{i}]");
            let node = name(format!("{path}.node"), c.get("node"))?;
            let extended = c
                .get("extensions")
                .and_then(|e| e.get("VRMC_springBone_extended_collider"))
                .and_then(|e| e.get("shape"));
            let shape = extended
                .or_else(|| c.get("shape"))
                .ok_or_else(|| err(&path, "no shape"))?;
            let (kind, a, b, radius) = if let Some(s) = shape.get("sphere") {
                let inside = s.get("inside").and_then(Value::as_bool).unwrap_or(false);
                (
                    if inside { "inside_sphere" } else { "sphere" },
                    f32s(s.get("offset"), [0.0; 3]),
                    [0.0; 3],
                    num(s.get("radius"), 0.0),
                )
            } else if let Some(s) = shape.get("capsule") {
                let inside = s.get("inside").and_then(Value::as_bool).unwrap_or(false);
                (
                    if inside { "inside_capsule" } else { "capsule" },
                    f32s(s.get("offset"), [0.0; 3]),
                    f32s(s.get("tail"), [0.0; 3]),
                    num(s.get("radius"), 0.0),
                )
            } else if let Some(s) = shape.get("plane") {
                (
                    "plane",
                    f32s(s.get("offset"), [0.0; 3]),
                    f32s(s.get("normal"), [0.0, 0.0, 1.0]),
                    0.0,
                )
            } else {
                return Err(err(
                    format!("{path}.shape"),
                    "not a sphere, capsule or plane",
                ));
            };
            collider_shapes.push(kind.to_string());
            settings.colliders.push(ColliderSettings {
                name: format!("collider{i}"),
                bone: nodes.names[node].clone(),
                shape: kind.into(),
                a,
                b,
                // VRM 1.0 radii are taken as they are: the three-vrm
                // fixtures draw a radius-r collider on a node scaled to r.
                radius,
            });
        }
        let table: Vec<Vec<String>> = array(spring.get("colliderGroups"))
            .iter()
            .map(|g| {
                array(g.get("colliders"))
                    .iter()
                    .filter_map(Value::as_u64)
                    .map(|c| format!("collider{c}"))
                    .collect()
            })
            .collect();
        let springs = array(spring.get("springs"));
        let mut total = 0;
        for (s, sp) in springs.iter().enumerate() {
            let path = format!("VRMC_springBone.springs[{s}]");
            let js = array(sp.get("joints"));
            if js.is_empty() {
                return Err(err(format!("{path}.joints"), "empty"));
            }
            let mut indices = Vec::with_capacity(js.len());
            for (k, j) in js.iter().enumerate() {
                indices.push(name(format!("{path}.joints[{k}].node"), j.get("node"))?);
            }
            // The last listed joint is the tail end (VRMC_springBone 1.0).
            let simulated = if indices.len() > 1 {
                indices.len() - 1
            } else {
                1
            };
            let first = &js[0];
            let center = match sp.get("center") {
                Some(c) => Some(nodes.names[name(format!("{path}.center"), Some(c))?].clone()),
                None => None,
            };
            let anchor = anchor_of(&nodes, indices[0], &mut scene_root);
            let colliders = group_colliders(sp.get("colliderGroups"), &table);
            settings.chains.push(ChainSettings {
                preset: "hair".into(),
                anchor,
                joints: indices[..simulated]
                    .iter()
                    .map(|&i| nodes.names[i].clone())
                    .collect(),
                params: hair_params(
                    num(first.get("stiffness"), 1.0),
                    num(first.get("dragForce"), 0.5),
                    num(first.get("gravityPower"), 0.0),
                    f32s(first.get("gravityDir"), [0.0, -1.0, 0.0]),
                    center,
                ),
                radii: js[..simulated]
                    .iter()
                    .map(|j| num(j.get("hitRadius"), 0.0))
                    .collect(),
                weights: Vec::new(),
                end_offset: (indices.len() > 1)
                    .then(|| nodes.local[indices[indices.len() - 1]].translation),
                colliders,
            });
            total += simulated;
        }
        groups = springs.len();
        roots = springs.len();
        joints = total;
    } else if let Some(secondary) = ext
        .and_then(|e| e.get("VRM"))
        .and_then(|v| v.get("secondaryAnimation"))
    {
        version = 0;
        let mut table = Vec::new();
        for (g, cg) in array(secondary.get("colliderGroups")).iter().enumerate() {
            let path = format!("VRM.secondaryAnimation.colliderGroups[{g}]");
            let node = name(format!("{path}.node"), cg.get("node"))?;
            let mut names = Vec::new();
            for (k, c) in array(cg.get("colliders")).iter().enumerate() {
                let o = c.get("offset");
                let get = |axis: &str| num(o.and_then(|o| o.get(axis)), 0.0);
                let collider = format!("group{g}_{k}");
                settings.colliders.push(ColliderSettings {
                    name: collider.clone(),
                    bone: nodes.names[node].clone(),
                    shape: "sphere".into(),
                    // VRM 0.x stores offsets with z flipped (Unity's convention).
                    a: [get("x"), get("y"), -get("z")],
                    b: [0.0; 3],
                    // UniVRM 0.x scales radii by the node's largest world
                    // scale axis; secmo's collider radii are unscaled.
                    radius: num(c.get("radius"), 0.0) * nodes.world_scale[node],
                });
                collider_shapes.push("sphere".into());
                names.push(collider);
            }
            table.push(names);
        }
        let bone_groups = array(secondary.get("boneGroups"));
        let mut root_count = 0;
        let mut total = 0;
        for (g, bg) in bone_groups.iter().enumerate() {
            let path = format!("VRM.secondaryAnimation.boneGroups[{g}]");
            let center = match bg.get("center").and_then(Value::as_i64) {
                Some(c) if c >= 0 => {
                    Some(nodes.names[name(format!("{path}.center"), bg.get("center"))?].clone())
                }
                _ => None,
            };
            let gd = bg.get("gravityDir");
            let gravity_dir = [
                num(gd.and_then(|d| d.get("x")), 0.0),
                num(gd.and_then(|d| d.get("y")), -1.0),
                num(gd.and_then(|d| d.get("z")), 0.0),
            ];
            let params = hair_params(
                num(bg.get("stiffiness"), 1.0),
                num(bg.get("dragForce"), 0.4),
                num(bg.get("gravityPower"), 0.0),
                gravity_dir,
                center,
            );
            let radius = num(bg.get("hitRadius"), 0.02);
            let colliders = group_colliders(bg.get("colliderGroups"), &table);
            for (r, root) in array(bg.get("bones")).iter().enumerate() {
                let root = name(format!("{path}.bones[{r}]"), Some(root))?;
                root_count += 1;
                // VRM 0.x moves every node below the root, each following its
                // first child. secmo chains are linear: the first child
                // continues the chain, other children start new chains
                // anchored at the joint they branch from (which an earlier
                // chain moves, so the branch follows it).
                let mut starts = vec![root];
                while let Some(start) = starts.pop() {
                    let anchor = anchor_of(&nodes, start, &mut scene_root);
                    let mut joints = Vec::new();
                    let mut node = start;
                    loop {
                        joints.push(nodes.names[node].clone());
                        let kids = &nodes.children[node];
                        starts.extend(kids.iter().skip(1).rev());
                        match kids.first() {
                            Some(&next) => node = next,
                            None => break,
                        }
                    }
                    total += joints.len();
                    let mut p = params.clone();
                    p.insert("radius".into(), radius.into());
                    settings.chains.push(ChainSettings {
                        preset: "hair".into(),
                        anchor,
                        joints,
                        params: p,
                        radii: Vec::new(),
                        weights: Vec::new(),
                        end_offset: None,
                        colliders: colliders.clone(),
                    });
                }
            }
        }
        groups = bone_groups.len();
        roots = root_count;
        joints = total;
    } else {
        return Err(err(
            "extensions",
            "no VRMC_springBone (VRM 1.0) or VRM.secondaryAnimation (VRM 0.x)",
        ));
    }
    Ok(VrmImport {
        version,
        groups,
        roots,
        joints,
        collider_shapes,
        skeleton: skeleton(&nodes, scene_root),
        settings,
    })
}
