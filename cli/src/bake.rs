//! `secmo bake` (issue #5, SPEC §11): simulate a clip with secmo driving
//! the chains, warm up by looping until the chain state comes back to where
//! the pass began, record one pass, and write the chain joints' rotations as
//! keyframes into a copy of the GLB (their authored rotation tracks are
//! replaced).

use std::path::Path;
use std::sync::Arc;

use glam::{Quat, Vec3};
use secmo::{
    ChainDesc, ChainParams, Character, CharacterOptions, FrameInput, Rig, RigDesc, Transform,
};
use serde_json::{json, Value};

use crate::import::{Clip, Imported};

/// How to bake.
#[derive(Clone, Debug)]
pub struct BakeOptions {
    /// Samples per second of the baked keys (and of the simulation input).
    pub rate: f32,
    /// Warm-up stops when the chain state after a pass differs from its
    /// start by less than this (metres for positions, m/s for velocities,
    /// in the rig's units scaled to metres).
    pub tolerance: f32,
    /// At most this many warm-up passes (SPEC §11: a cap).
    pub max_passes: usize,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            rate: 60.0,
            tolerance: 1e-4,
            max_passes: 30,
        }
    }
}

/// One baked clip.
#[derive(Clone, Debug)]
pub struct BakedClip {
    pub name: String,
    /// Warm-up passes run before recording (0: recorded from a cold start).
    pub passes: usize,
    /// Largest chain-joint rotation difference between the recorded first
    /// frame and the frame after the last one (the loop seam), radians.
    pub closing_error: f32,
    /// Key times, seconds.
    pub times: Vec<f32>,
    /// Per chain joint (in [`Baker::joints`] order), its local rotation at
    /// every key.
    pub rotations: Vec<Vec<Quat>>,
    /// Wall-clock time of each recorded update (clip sampling and secmo's
    /// update), microseconds.
    pub update_micros: Vec<f32>,
}

/// A character ready to bake: the imported file and a rig whose chains are
/// the file's tail (tail preset) and VRM spring bones.
pub struct Baker {
    pub imported: Imported,
    pub rig: Arc<Rig>,
    /// Chain joints (bone indices) in chain order.
    pub joints: Vec<usize>,
}

impl Baker {
    /// The rig for `imported`, in the file's units (`units_per_meter`): a
    /// tail chain on its tail candidate (tail preset, rest curve 1 so the
    /// modelled arc is kept, no carry), or else the VRM spring bones as hair
    /// chains (docs/vrm-mapping.md).
    pub fn new(imported: Imported, units_per_meter: f32) -> Result<Self, String> {
        let at = |m: &str| format!("{}: {m}", imported.path.display());
        let tail = imported.tail();
        let desc = if !tail.is_empty() {
            let anchor = imported.skeleton.bones[tail[0]].parent;
            if anchor < 0 {
                return Err(at("the tail has no parent to anchor it"));
            }
            let mut params = ChainParams::tail(units_per_meter);
            params.carry_angle = 0.0;
            params.rest_curve = 1.0;
            RigDesc {
                bones: imported.skeleton.bones.clone(),
                units_per_meter,
                chains: vec![ChainDesc::new(
                    tail.iter().map(|&j| j as u32).collect(),
                    anchor as u32,
                    params,
                )],
                ..Default::default()
            }
        } else if let Some(springs) = &imported.spring_bones {
            if springs.skeleton != imported.skeleton {
                return Err(at(
                    "a spring starts at a scene root; baking needs it under a bone",
                ));
            }
            springs
                .settings
                .to_rig_desc(
                    springs.skeleton.bones.clone(),
                    units_per_meter,
                    secmo::UpAxis::Y,
                )
                .map_err(|e| at(&e.to_string()))?
        } else {
            return Err(at(
                "no chain to bake (no bone named *tail*, no VRM spring bones)",
            ));
        };
        let rig = Rig::new(desc).map_err(|e| at(&e.to_string()))?;
        let joints = rig
            .chains()
            .iter()
            .flat_map(|c| c.joints.iter().map(|&j| j as usize))
            .collect();
        Ok(Self {
            imported,
            rig: Arc::new(rig),
            joints,
        })
    }

    /// The glTF node of each chain joint (for [`write_glb`]).
    pub fn joint_nodes(&self) -> Vec<usize> {
        let of_node = &self.imported.skeleton.bone_of_node;
        self.joints
            .iter()
            .map(|&b| {
                of_node
                    .iter()
                    .position(|&x| x as usize == b)
                    .expect("every bone is a node")
            })
            .collect()
    }

    /// Bakes `clip` (warm-up passes first when `warm_up`).
    pub fn bake(&self, clip: &Clip, options: &BakeOptions, warm_up: bool) -> BakedClip {
        let frames = ((clip.duration * options.rate).round() as usize).max(1);
        let dt = clip.duration / frames as f32;
        let bind: Vec<Transform> = self.rig.reference_pose().to_vec();
        let mut pose = bind.clone();
        let mut out = bind.clone();
        let mut character = Character::new(Arc::clone(&self.rig), CharacterOptions::default());
        let update = |c: &mut Character,
                      frame: usize,
                      pose: &mut Vec<Transform>,
                      out: &mut [Transform],
                      dt: f32| {
            pose.copy_from_slice(&bind);
            clip.sample(frame as f32 * clip.duration / frames as f32, pose);
            c.update(
                &FrameInput {
                    dt,
                    pose,
                    teleport: false,
                },
                out,
            )
            .expect("imported clips are finite");
        };
        // The first update only seeds the state (dt 0).
        update(&mut character, 0, &mut pose, &mut out, 0.0);
        let scale = 1.0 / self.rig.units_per_meter();
        let state = |c: &Character| -> Vec<Vec3> {
            c.particle_positions()
                .iter()
                .chain(c.particle_velocities())
                .map(|v| *v * scale)
                .collect()
        };
        let mut passes = 0;
        if warm_up {
            while passes < options.max_passes {
                let start = state(&character);
                for frame in 1..=frames {
                    update(&mut character, frame % frames, &mut pose, &mut out, dt);
                }
                passes += 1;
                let end = state(&character);
                let change = start
                    .iter()
                    .zip(&end)
                    .map(|(a, b)| a.distance(*b))
                    .fold(0.0, f32::max);
                if change < options.tolerance {
                    break;
                }
            }
        }
        let mut times = Vec::with_capacity(frames + 1);
        let mut rotations = vec![Vec::with_capacity(frames + 1); self.joints.len()];
        let record = |out: &[Transform], rotations: &mut Vec<Vec<Quat>>| {
            for (k, &j) in self.joints.iter().enumerate() {
                rotations[k].push(out[j].rotation());
            }
        };
        record(&out, &mut rotations);
        times.push(0.0);
        let mut update_micros = Vec::with_capacity(frames);
        for frame in 1..frames {
            let start = std::time::Instant::now();
            update(&mut character, frame, &mut pose, &mut out, dt);
            update_micros.push(start.elapsed().as_secs_f32() * 1e6);
            record(&out, &mut rotations);
            times.push(frame as f32 * dt);
        }
        // The seam: one more step brings the loop back to frame 0.
        update(&mut character, 0, &mut pose, &mut out, dt);
        let closing_error = self
            .joints
            .iter()
            .enumerate()
            .map(|(k, &j)| angle(out[j].rotation(), rotations[k][0]))
            .fold(0.0, f32::max);
        // The last key repeats the first so the baked clip loops exactly.
        for r in rotations.iter_mut() {
            r.push(r[0]);
        }
        times.push(clip.duration);
        BakedClip {
            name: clip.name.clone(),
            passes,
            closing_error,
            times,
            rotations,
            update_micros,
        }
    }
}

/// The angle between two rotations, accurate near zero (`Quat::angle_between`
/// uses `acos`, whose f32 resolution near 1 is about 7e-4 rad).
pub fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * glam::Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
}

/// Writes `source` (a GLB) to `out` with each baked clip's chain-joint
/// rotation tracks replaced by the baked keys. Clips are matched by name.
pub fn write_glb(
    source: &Path,
    out: &Path,
    joints_nodes: &[usize],
    baked: &[BakedClip],
) -> Result<(), String> {
    let at = |m: String| format!("{}: {m}", source.display());
    let bytes = std::fs::read(source).map_err(|e| at(e.to_string()))?;
    if !bytes.starts_with(b"glTF") || bytes.len() < 20 {
        return Err(at("bake writes GLB files; this is not one".into()));
    }
    let u32_at = |i: usize| {
        u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize
    };
    let json_len = u32_at(12);
    if 20 + json_len > bytes.len() {
        return Err(at("truncated GLB".into()));
    }
    let mut json: Value =
        serde_json::from_slice(&bytes[20..20 + json_len]).map_err(|e| at(e.to_string()))?;
    if json["buffers"][0].get("uri").is_some() || !json["buffers"][0].is_object() {
        return Err(at("bake needs the GLB's binary chunk as buffers[0]".into()));
    }
    for list in ["bufferViews", "accessors"] {
        if !json[list].is_array() {
            json[list] = json!([]);
        }
    }
    let bin_start = 20 + json_len;
    let mut bin = if bin_start + 8 <= bytes.len() {
        let len = u32_at(bin_start);
        bytes
            .get(bin_start + 8..bin_start + 8 + len)
            .ok_or_else(|| at("truncated GLB binary chunk".into()))?
            .to_vec()
    } else {
        Vec::new()
    };

    let push_view = |json: &mut Value, bin: &mut Vec<u8>, data: &[u8]| -> usize {
        pad4(bin, 0);
        let offset = bin.len();
        bin.extend_from_slice(data);
        let views = json["bufferViews"].as_array_mut().expect("bufferViews");
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len()}));
        views.len() - 1
    };
    let push_accessor = |json: &mut Value,
                         view: usize,
                         count: usize,
                         kind: &str,
                         minmax: Option<(f32, f32)>|
     -> usize {
        let mut a =
            json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind});
        if let Some((lo, hi)) = minmax {
            a["min"] = json!([lo]);
            a["max"] = json!([hi]);
        }
        let accessors = json["accessors"].as_array_mut().expect("accessors");
        accessors.push(a);
        accessors.len() - 1
    };

    let animations = json["animations"].as_array().cloned().unwrap_or_default();
    let mut new_animations = Vec::new();
    for (a, animation) in animations.into_iter().enumerate() {
        let name = animation["name"]
            .as_str()
            .map_or_else(|| format!("clip{a}"), str::to_string);
        let Some(clip) = baked.iter().find(|b| b.name == name) else {
            new_animations.push(animation);
            continue;
        };
        let mut animation = animation;
        // Drop the authored rotation tracks of the chain joints.
        let channels: Vec<Value> = animation["channels"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|c| {
                let node = c["target"]["node"].as_u64().map(|n| n as usize);
                !(c["target"]["path"] == "rotation"
                    && node.is_some_and(|n| joints_nodes.contains(&n)))
            })
            .collect();
        animation["channels"] = Value::Array(channels);
        let times: Vec<u8> = clip.times.iter().flat_map(|t| t.to_le_bytes()).collect();
        let view = push_view(&mut json, &mut bin, &times);
        let input = push_accessor(
            &mut json,
            view,
            clip.times.len(),
            "SCALAR",
            Some((0.0, *clip.times.last().unwrap())),
        );
        for (k, &node) in joints_nodes.iter().enumerate() {
            let data: Vec<u8> = clip.rotations[k]
                .iter()
                .flat_map(|q| q.to_array())
                .flat_map(f32::to_le_bytes)
                .collect();
            let view = push_view(&mut json, &mut bin, &data);
            let output = push_accessor(&mut json, view, clip.times.len(), "VEC4", None);
            let samplers = animation["samplers"].as_array_mut().expect("samplers");
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            let sampler = samplers.len() - 1;
            animation["channels"]
                .as_array_mut()
                .expect("channels")
                .push(json!({"sampler": sampler, "target": {"node": node, "path": "rotation"}}));
        }
        new_animations.push(animation);
    }
    json["animations"] = Value::Array(new_animations);
    pad4(&mut bin, 0);
    json["buffers"][0]["byteLength"] = json!(bin.len());

    let mut text = serde_json::to_vec(&json).map_err(|e| at(e.to_string()))?;
    pad4(&mut text, b' ');
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    std::fs::write(out, glb).map_err(|e| format!("{}: {e}", out.display()))
}

/// GLB chunks are 4-byte aligned: JSON pads with spaces, BIN with zeros.
fn pad4(bytes: &mut Vec<u8>, with: u8) {
    bytes.resize(bytes.len().next_multiple_of(4), with);
}
