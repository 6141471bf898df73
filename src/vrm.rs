//! VRM spring bones → rig settings (docs/algorithms.md §8 "Import"; docs/vrm-mapping.md).
//!
//! Reads VRM 0.x `secondaryAnimation` and VRM 1.0 `VRMC_springBone` (with
//! `VRMC_springBone_extended_collider`) from a .vrm/.glb file or a .gltf
//! JSON text, and gives the skeleton (from the glTF nodes) and a
//! [`RigSettings`] whose chains use the VRM preset of secmo's chain solver
//! (the VRMC_springBone verlet at a fixed 120 Hz). Only the JSON chunk
//! is read; meshes and animations are the tool's business. The extensions
//! are read onto the serde structs of `schema`, which keep a damaged value
//! as found, so that each note quotes it and names the default used.

use std::collections::{HashMap, HashSet};

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use crate::math::Transform;
use crate::rig::BoneDesc;
use crate::settings::{
    ChainSettings, ColliderSettings, LimitSettings, NodeConstraintSettings, RigSettings,
    SettingsError,
};
use crate::solvers::chain::{JointLimit, LimitShape};
use crate::solvers::node_constraint::{AimAxis, RollAxis};

mod schema;
use schema::{ExtendedCollider, Extra, Gltf, Joint, LimitExtension, Num, Obj, Shape, ShapeBody};

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
    /// One line per field the import read but does not apply or had to
    /// change (unknown fields, extensions, damaged values and the value
    /// used), naming the field.
    pub notes: Vec<String>,
}

/// Notes the fields of an object (at `path`) that its struct does not
/// name, `extra`, and its `extensions`, each by name, in the order of their
/// names: secmo reads them but does not apply them.
/// `tail_end`: the object is a VRM 1.0 spring's last joint, which is only
/// where the joint before it aims, so nothing on it is simulated.
fn note_ignored(
    extra: &Extra,
    extensions: &Extra,
    path: &str,
    tail_end: bool,
    notes: &mut Vec<String>,
) {
    let unknown = |key: &String, notes: &mut Vec<String>| {
        notes.push(format!("{path}.{key}: unknown field, ignored"));
    };
    for key in extra.keys().filter(|k| k.as_str() < "extensions") {
        unknown(key, notes);
    }
    for (ext, body) in extensions {
        let what = if tail_end {
            "on the spring's last joint, its tail end, which no joint simulates \
             (it only gives the joint before it its direction and length): \
             the extension has nothing to act on"
                .to_string()
        } else if ext == "VRMC_springBone_limit" {
            continue; // read by joint_limit
        } else {
            // A per-joint angle limit some exporters write in
            // their own extension, named with its value (that note says
            // the extension is not applied: no second note for it).
            let limits = angle_limit_fields(body, "");
            for (field, value) in &limits {
                notes.push(format!(
                    "{path}.extensions.{ext}{field} = {}: a non-standard angle limit, \
                     not applied (secmo applies VRMC_springBone_limit)",
                    quoted(value)
                ));
            }
            if !limits.is_empty() {
                continue;
            }
            "extension not applied".to_string()
        };
        notes.push(format!("{path}.extensions.{ext}: {what}"));
    }
    for key in extra.keys().filter(|k| k.as_str() > "extensions") {
        unknown(key, notes);
    }
}

/// Fields of `body` (at `path` below it) whose name says "angle limit"
/// (`angleLimit`, `angle_limit`, `limitAngle`, any case), with their values.
fn angle_limit_fields<'a>(body: &'a Value, path: &str) -> Vec<(String, &'a Value)> {
    let mut found = Vec::new();
    if let Some(map) = body.as_object() {
        for (key, value) in map {
            let at = format!("{path}.{key}");
            let plain: String = key
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_ascii_lowercase();
            if plain.contains("anglelimit") || plain.contains("limitangle") {
                found.push((at, value));
            } else {
                found.extend(angle_limit_fields(value, &at));
            }
        }
    }
    found
}

/// A VRM 1.0 joint's `VRMC_springBone_limit` (at `path`): its one form
/// (cone, hinge or spherical) with its angles and rotation. A missing or
/// unknown form, a second form or a damaged number is noted and what is
/// used named; no extension is no limit.
fn joint_limit(joint: &Joint, path: &str, notes: &mut Vec<String>) -> JointLimit {
    let Some(ext) = joint.extensions.get("VRMC_springBone_limit") else {
        return JointLimit::default();
    };
    // The joint keeps its extensions by name (for `note_ignored`): this
    // one is read onto its struct here.
    let ext = Obj::<LimitExtension>::of(ext);
    let path = format!("{path}.extensions.VRMC_springBone_limit");
    match ext.spec_version.get() {
        Some(Value::String(v)) if v == "1.0-draft" || v == "1.0" => {}
        other => notes.push(format!(
            "{path}.specVersion: {} is not \"1.0-draft\"; the limit is read as 1.0-draft",
            other.map_or("missing".to_string(), quoted)
        )),
    }
    let limit = &ext.limit;
    if !limit.is_object() {
        notes.push(format!(
            "{path}.limit: missing; the joint moves without a limit"
        ));
        return JointLimit::default();
    }
    let forms: Vec<(&str, &Obj<schema::Angles>)> = [
        ("cone", &limit.cone),
        ("hinge", &limit.hinge),
        ("spherical", &limit.spherical),
    ]
    .into_iter()
    .filter_map(|(form, body)| Some((form, body.get()?)))
    .collect();
    for key in limit.extra.keys() {
        notes.push(format!("{path}.limit.{key}: unknown field, ignored"));
    }
    let Some(&(form, body)) = forms.first() else {
        notes.push(format!(
            "{path}.limit: no cone, hinge or spherical; the joint moves without a limit"
        ));
        return JointLimit::default();
    };
    if forms.len() > 1 {
        notes.push(format!(
            "{path}.limit: {} forms where one is allowed; the {form} is used",
            forms.len()
        ));
    }
    let at = format!("{path}.limit.{form}");
    let angle = |key: &str, value: &Num, top: f32, notes: &mut Vec<String>| {
        let a = value.or(0.0, &at, key, notes);
        if !value.is_present() {
            notes.push(format!("{at}.{key}: missing; 0 is used"));
        }
        if a < 0.0 {
            notes.push(format!("{at}.{key}: {a} is negative; 0 is used"));
            0.0
        } else if a > top {
            notes.push(format!("{at}.{key}: {a} is above {top}; {top} is used"));
            top
        } else {
            a
        }
    };
    let (shape, first, yaw) = match form {
        "cone" => (
            LimitShape::Cone,
            angle("angle", &body.angle, std::f32::consts::PI, notes),
            0.0,
        ),
        "hinge" => (
            LimitShape::Hinge,
            angle("angle", &body.angle, std::f32::consts::PI, notes),
            0.0,
        ),
        _ => (
            LimitShape::Spherical,
            angle("pitch", &body.pitch, std::f32::consts::PI, notes),
            angle("yaw", &body.yaw, std::f32::consts::FRAC_PI_2, notes),
        ),
    };
    let mut rotation = body
        .rotation
        .or([0.0, 0.0, 0.0, 1.0], &at, "rotation", notes);
    if !crate::math::usable_rotation(glam::Quat::from_array(rotation)) {
        notes.push(format!(
            "{at}.rotation: cannot be normalised; no rotation is used"
        ));
        rotation = [0.0, 0.0, 0.0, 1.0];
    }
    JointLimit {
        shape,
        angle: first,
        yaw,
        rotation,
    }
}

/// The settings of a chain's joint limits: none when no joint has one.
fn chain_limits(limits: &[JointLimit]) -> Vec<LimitSettings> {
    if limits.iter().all(|l| l.shape == LimitShape::None) {
        Vec::new()
    } else {
        limits.iter().map(LimitSettings::of).collect()
    }
}

/// A `VRMC_springBone_extended_collider` whose `specVersion` is missing or
/// not "1.0" gets a note saying what secmo does (it uses the extension's
/// shape, `kind`, as 1.0) and what three-vrm does: it reads the extension
/// only at version "1.0" and otherwise falls back to the collider's base
/// shape, and fails on a collider without one, so such a file collides
/// differently in the two runtimes.
fn extended_collider_version(
    extension: &ExtendedCollider,
    base: Option<&Obj<Shape>>,
    kind: &str,
    path: &str,
    notes: &mut Vec<String>,
) {
    let at = format!("{path}.extensions.VRMC_springBone_extended_collider.specVersion");
    let found = match extension.spec_version.get() {
        Some(Value::String(v)) if v == "1.0" => return,
        None => "missing".to_string(),
        Some(v) => format!("{v} is not \"1.0\""),
    };
    let base_shape = base.and_then(|b| b.given().first().copied());
    let three_vrm = match base_shape {
        Some(b) => format!("three-vrm 3.5.5 ignores the extension and uses the base {b}"),
        None => "three-vrm 3.5.5 ignores the extension and fails on this collider, \
                 which has no base shape"
            .to_string(),
    };
    let shape = kind.replace('_', " ");
    notes.push(format!(
        "{at}: {found}; secmo reads the extension as 1.0 and uses its {shape}; {three_vrm}, \
         so the file collides differently there"
    ));
}

fn err(path: impl Into<String>, message: impl Into<String>) -> SettingsError {
    SettingsError {
        path: path.into(),
        message: message.into(),
    }
}

/// The JSON of a .glb/.vrm (binary glTF) or a .gltf text.
pub fn gltf_json(bytes: &[u8]) -> Result<Value, SettingsError> {
    let text: &[u8] = if crate::glb::is_glb(bytes) {
        crate::glb::split(bytes).map_err(|e| err("glb", e))?.json
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

/// A JSON array field as a slice; empty when it is absent.
fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A JSON value as a note quotes it (at most 40 characters).
fn quoted(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A number as a note shows it: `2`, `0.4`, `1e30` (not thirty zeros).
fn shown(x: f32) -> String {
    if x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A sphere's or capsule's `radius` at `path` ([`Num::or`], then
/// [`non_negative`]).
fn radius_of(radius: &Num, path: &str, notes: &mut Vec<String>) -> f32 {
    let radius = radius.or(0.0, path, "radius", notes);
    non_negative(radius, &format!("{path}.radius"), notes)
}

/// A non-negative length (`hitRadius`, a collider's radius) as the rig
/// takes it: a negative one is noted and 0 used.
fn non_negative(value: f32, field: &str, notes: &mut Vec<String>) -> f32 {
    if value < 0.0 {
        notes.push(format!("{field}: {} is negative; 0 is used", shown(value)));
        0.0
    } else {
        value
    }
}

/// `value` at `field` within `[lo, hi]`: one outside is noted and the
/// nearest bound used.
fn clamped(value: f32, field: &str, (lo, hi): (f32, f32), notes: &mut Vec<String>) -> f32 {
    if value < lo || value > hi {
        let used = value.clamp(lo, hi);
        notes.push(format!(
            "{field}: {} is outside [{lo}, {}]; {} is used",
            shown(value),
            shown(hi),
            shown(used)
        ));
        used
    } else {
        value
    }
}

/// The collider names of the groups listed in `groups` (indices into
/// `table`; an index naming no group is left out with a note).
fn group_colliders(
    groups: &[Value],
    table: &[Vec<String>],
    path: &str,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        match g.as_u64().and_then(|g| table.get(g as usize)) {
            Some(colliders) => out.extend(colliders.iter().cloned()),
            // three-vrm and UniVRM index the list; secmo leaves it out.
            None => notes.push(format!(
                "{path}.colliderGroups[{k}]: no collider group {g}; left out"
            )),
        }
    }
    out
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

impl Nodes {
    /// Each node's index by name.
    fn index(&self) -> HashMap<&str, usize> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect()
    }
}

fn read_nodes(json: &Value) -> Result<Nodes, SettingsError> {
    // glTF 2.0 makes `nodes` optional: a file without it has no bones.
    let nodes = match json.get("nodes") {
        None => &[][..],
        Some(v) => v
            .as_array()
            .ok_or_else(|| err("nodes", "not a list"))?
            .as_slice(),
    };
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
        // A transform must be whole (glTF: exactly N numbers): a short or
        // mistyped one is refused, never completed from the defaults.
        let field = |key: &str| -> Result<Option<Vec<f32>>, SettingsError> {
            let Some(v) = node.get(key) else {
                return Ok(None);
            };
            let n = match key {
                "matrix" => 16,
                "rotation" => 4,
                _ => 3,
            };
            v.as_array()
                .filter(|a| a.len() == n)
                .and_then(|a| a.iter().map(|x| x.as_f64().map(|f| f as f32)).collect())
                .map(Some)
                .ok_or_else(|| err(format!("nodes[{i}].{key}"), format!("not {n} numbers")))
        };
        let t = if let Some(m) = field("matrix")? {
            let (s, r, t) = Mat4::from_cols_slice(&m).to_scale_rotation_translation();
            Transform::new(t, r, s)
        } else {
            let or = |v: Option<Vec<f32>>, default: &[f32]| v.unwrap_or_else(|| default.to_vec());
            Transform::new(
                Vec3::from_slice(&or(field("translation")?, &[0.0; 3])),
                Quat::from_slice(&or(field("rotation")?, &[0.0, 0.0, 0.0, 1.0])),
                Vec3::from_slice(&or(field("scale")?, &[1.0; 3])),
            )
        };
        if !t.is_finite() {
            return Err(err(format!("nodes[{i}]"), "transform has NaN or infinity"));
        }
        // A zero scale hides a part (the rig refuses it only where a
        // chain, a collider or another stage reads the node).
        if t.scale.iter().any(|s| s.abs() > crate::math::MAX_SCALE) {
            return Err(err(
                format!("nodes[{i}].scale"),
                "a component is beyond 1e4",
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

/// A node that two springs (VRM 1.0) or bone groups (0.x) list is moved by
/// the first chain that lists it: secmo's chains own their joints (three-vrm
/// and UniVRM simulate such a node once per listing, the last one setting
/// its rotation). A later chain leaves it out and goes on below it as a new
/// chain hanging from it.
fn drop_shared_joints(
    nodes: &Nodes,
    chains: Vec<ChainSettings>,
    sources: &[String],
    notes: &mut Vec<String>,
) -> Vec<ChainSettings> {
    let index = nodes.index();
    let mut owner: HashMap<String, &str> = HashMap::new();
    let mut out = Vec::with_capacity(chains.len());
    for (chain, source) in chains.into_iter().zip(sources) {
        let shared: Vec<bool> = chain.joints.iter().map(|j| owner.contains_key(j)).collect();
        // One note per earlier chain's source, naming the joints.
        let mut by_owner: Vec<(&str, Vec<&str>)> = Vec::new();
        for (j, _) in chain.joints.iter().zip(&shared).filter(|(_, s)| **s) {
            match by_owner.iter_mut().find(|(o, _)| *o == owner[j]) {
                Some((_, js)) => js.push(j),
                None => by_owner.push((owner[j], vec![j])),
            }
        }
        for (first, js) in by_owner {
            notes.push(format!(
                "{source}: {} {} already moved by {first}; this one leaves {} out",
                js.join(", "),
                if js.len() == 1 { "is" } else { "are" },
                if js.len() == 1 { "it" } else { "them" },
            ));
        }
        // Each run of joints no earlier chain moves.
        let mut k = 0;
        while k < chain.joints.len() {
            if shared[k] {
                k += 1;
                continue;
            }
            let start = k;
            while k < chain.joints.len() && !shared[k] {
                k += 1;
            }
            let slice = |v: &[f32]| v.get(start..k).map_or_else(Vec::new, <[f32]>::to_vec);
            // A run that starts past the chain's first joint keeps its
            // joints' own numbers: its first joint's become the run's.
            let vrm_offsets = chain
                .vrm_offsets
                .get(start..k)
                .map_or_else(Vec::new, relative_to_first);
            let run = ChainSettings {
                anchor: match start {
                    0 => chain.anchor.clone(),
                    _ => chain.joints[start - 1].clone(),
                },
                joints: chain.joints[start..k].to_vec(),
                radii: slice(&chain.radii),
                weights: slice(&chain.weights),
                end_offset: match chain.joints.get(k) {
                    Some(next) => Some(rest_offset(
                        nodes,
                        index[chain.joints[k - 1].as_str()],
                        index[next.as_str()],
                    )),
                    None => chain.end_offset,
                },
                params: shifted_params(&chain.params, chain.vrm_offsets.get(start)),
                vrm_offsets,
                ..chain.clone()
            };
            for j in &run.joints {
                owner.insert(j.clone(), source);
            }
            out.push(run);
        }
    }
    out
}

/// The chains in an order where each comes after the chains that move what
/// it reads — the node its root hangs from, its anchor, its colliders'
/// nodes — as three-vrm sorts its joints (a spring after the springs its
/// colliders or its parent ride on); otherwise in file order. secmo runs
/// chains in list order, and a chain listed before the one moving what it
/// reads sees that node's animated pose (`RigWarning::ChainOrder`). In a
/// circle the walk, depth first in file order as three-vrm's, breaks it
/// where it closes (the chain it entered by runs last), with a note.
fn order_chains(
    nodes: &Nodes,
    chains: Vec<ChainSettings>,
    colliders: &[crate::settings::ColliderSettings],
    notes: &mut Vec<String>,
) -> Vec<ChainSettings> {
    let index = nodes.index();
    let mut owner = vec![usize::MAX; nodes.names.len()];
    for (ci, c) in chains.iter().enumerate() {
        for j in &c.joints {
            if let Some(&i) = index.get(j.as_str()) {
                owner[i] = ci;
            }
        }
    }
    // The chain moving each node: the owner of the node or of its nearest
    // ancestor that is a joint (one pass, parents first: linear however
    // deep the file's hierarchy).
    let mut mover = owner.clone();
    for &n in &nodes.order {
        if mover[n] == usize::MAX {
            if let Ok(p) = usize::try_from(nodes.parents[n]) {
                mover[n] = mover[p];
            }
        }
    }
    let moved_by =
        |node: usize| -> Option<usize> { Some(mover[node]).filter(|&m| m != usize::MAX) };
    // Each collider's node by collider name (a spring may list thousands).
    let collider_node: HashMap<&str, usize> = colliders
        .iter()
        .filter_map(|k| Some((k.name.as_str(), *index.get(k.bone.as_str())?)))
        .collect();
    let depends: Vec<Vec<usize>> = chains
        .iter()
        .enumerate()
        .map(|(ci, c)| {
            let root_parent = c
                .joints
                .first()
                .and_then(|j| index.get(j.as_str()))
                .and_then(|&j| usize::try_from(nodes.parents[j]).ok());
            let collider_nodes = c
                .colliders
                .iter()
                .filter_map(|name| collider_node.get(name.as_str()).copied());
            let mut on: Vec<usize> = root_parent
                .into_iter()
                .chain(index.get(c.anchor.as_str()).copied())
                .chain(collider_nodes)
                .filter_map(&moved_by)
                .filter(|&o| o != ci)
                .collect();
            on.sort_unstable();
            on.dedup();
            on
        })
        .collect();
    // Depth first in file order (three-vrm's sort); where springs read
    // each other in a circle, the walk breaks it where it closes.
    let mut circle = false;
    let Ok(order) = crate::rig::depth_first_order(&depends, |_, _| {
        circle = true;
        Ok::<(), std::convert::Infallible>(())
    });
    if circle {
        notes.push(
            "springs read each other's joints in a circle (a collider or a root on a joint of \
             a spring that reads them back): where it closes, one reads the other's animated pose"
                .into(),
        );
    }
    if order.iter().enumerate().any(|(k, &c)| k != c) {
        notes.push(
            "springs reordered so that each runs after the springs moving the nodes its root, \
             anchor or colliders sit on (three-vrm's order)"
                .into(),
        );
    }
    let mut slots: Vec<Option<ChainSettings>> = chains.into_iter().map(Some).collect();
    order.into_iter().filter_map(|c| slots[c].take()).collect()
}

/// Per-joint `[stiffness, drag, gravity power]` as offsets from the first
/// joint's ([`crate::ChainDesc::vrm_offsets`]); empty when none differs.
fn relative_to_first(numbers: &[[f32; 3]]) -> Vec<[f32; 3]> {
    let Some(&base) = numbers.first() else {
        return Vec::new();
    };
    if numbers.iter().all(|v| *v == base) {
        return Vec::new();
    }
    numbers
        .iter()
        .map(|v| [v[0] - base[0], v[1] - base[1], v[2] - base[2]])
        .collect()
}

/// A chain's VRM parameters moved by a joint's offsets: the numbers of a
/// run that starts at that joint.
fn shifted_params(
    params: &serde_json::Map<String, Value>,
    offset: Option<&[f32; 3]>,
) -> serde_json::Map<String, Value> {
    let mut out = params.clone();
    if let Some(o) = offset {
        for (key, d, max) in [
            ("vrm_stiffness", o[0], f32::MAX),
            ("vrm_drag_force", o[1], 1.0),
            ("vrm_gravity_power", o[2], f32::MAX),
        ] {
            let v = params.get(key).and_then(Value::as_f64).unwrap_or(0.0) as f32;
            out.insert(key.into(), json_f32((v + d).clamp(0.0, max)));
        }
    }
    out
}

/// Whether `node` lies below `ancestor`.
fn below(nodes: &Nodes, node: usize, ancestor: usize) -> bool {
    let mut cur = nodes.parents[node];
    // At most one step per node: parents form no cycle (read_nodes).
    while cur >= 0 {
        if cur as usize == ancestor {
            return true;
        }
        cur = nodes.parents[cur as usize];
    }
    false
}

/// Where node `to` sits in node `from`'s frame in the rest pose: its own
/// translation when it is `from`'s child, otherwise through the nodes in
/// between (or the two world transforms, when `to` is not below `from`).
fn rest_offset(nodes: &Nodes, from: usize, to: usize) -> [f32; 3] {
    if nodes.parents[to] == from as i32 {
        return nodes.local[to].translation;
    }
    let world = |mut node: usize| {
        let mut m = nodes.local[node].to_affine();
        while nodes.parents[node] >= 0 {
            node = nodes.parents[node] as usize;
            m = nodes.local[node].to_affine() * m;
        }
        m
    };
    let offset = world(from)
        .inverse()
        .transform_point3(world(to).translation.into());
    if offset.is_finite() {
        offset.to_array()
    } else {
        nodes.local[to].translation
    }
}

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

/// The largest stiffness or gravity power (per second) an import passes on.
const VRM_MAX: f32 = 1e6;

/// One joint's VRM spring settings.
#[derive(Clone, Copy, Debug, PartialEq)]
struct VrmJoint {
    stiffness: f32,
    drag: f32,
    gravity_power: f32,
    gravity_dir: [f32; 3],
}

impl VrmJoint {
    /// Gravity as a unit direction and a power: three-vrm and UniVRM add
    /// `gravityDir · gravityPower` as they are, so a longer direction
    /// pulls harder and a zero one not at all; secmo's preset takes a
    /// unit direction, so the length moves into the power.
    /// A negative power pulls the other way in both (the sum is the same
    /// with the direction turned and the power made positive).
    fn unit_gravity(mut self) -> Self {
        let dir = Vec3::from_array(self.gravity_dir);
        let length = dir.length();
        if length.is_finite() && length > 0.0 {
            let sign = if self.gravity_power < 0.0 { -1.0 } else { 1.0 };
            self.gravity_dir = (dir * (sign / length)).to_array();
            self.gravity_power *= sign * length;
        } else {
            self.gravity_dir = [0.0, -1.0, 0.0];
            self.gravity_power = 0.0;
        }
        self
    }

    /// The joint with its numbers in the ranges the preset takes, each one
    /// changed noted under its field's name in `fields` (stiffness, drag
    /// force, gravity power) at `path`. three-vrm and UniVRM run any number
    /// as written: a negative stiffness pushes the joint off its rest
    /// direction, a drag force above 1 turns its inertia around. A
    /// stiffness or gravity power of [`VRM_MAX`] per second moves the tail
    /// 8.3 km toward its direction per 120 Hz step, so the joint sits on
    /// that direction to within (its own motion per step) / 8.3 km, as with
    /// any larger number (the rig refuses numbers beyond 1e7).
    fn checked(mut self, path: &str, fields: [&str; 3], notes: &mut Vec<String>) -> Self {
        let mut clamp = |value: &mut f32, field: &str, range: (f32, f32)| {
            *value = clamped(*value, &format!("{path}.{field}"), range, notes);
        };
        clamp(&mut self.stiffness, fields[0], (0.0, VRM_MAX));
        clamp(&mut self.drag, fields[1], (0.0, 1.0));
        clamp(&mut self.gravity_power, fields[2], (0.0, VRM_MAX));
        self
    }

    /// Stiffness, drag force and gravity power, as [`VrmJoint::checked`]
    /// left them (every joint goes through it).
    fn numbers(self) -> [f32; 3] {
        [self.stiffness, self.drag, self.gravity_power]
    }
}

/// An f32 as a JSON number with its shortest decimal form (0.4, not
/// 0.4000000059604645), which reads back as the same f32.
fn json_f32(x: f32) -> Value {
    x.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// VRM's spring parameters in secmo's VRM preset (docs/vrm-mapping.md):
/// the numbers are VRM's own, run by the VRMC_springBone verlet.
fn vrm_params(joint: VrmJoint, center: Option<&str>) -> serde_json::Map<String, Value> {
    let mut params = serde_json::Map::new();
    let [stiffness, drag, gravity_power] = joint.numbers();
    params.insert("vrm_stiffness".into(), json_f32(stiffness));
    params.insert("vrm_drag_force".into(), json_f32(drag));
    params.insert("vrm_gravity_power".into(), json_f32(gravity_power));
    params.insert(
        "gravity_direction".into(),
        joint.gravity_dir.map(json_f32).to_vec().into(),
    );
    if let Some(center) = center {
        params.insert("simulation_space".into(), center.into());
    }
    params
}

/// `VRMC_node_constraint` 1.0 on the nodes: roll, aim and rotation
/// constraints with their source, axis and weight (docs/node-constraints.md).
fn node_constraints(
    gltf: &Gltf,
    nodes: &Nodes,
    notes: &mut Vec<String>,
) -> Result<Vec<NodeConstraintSettings>, SettingsError> {
    let mut out = Vec::new();
    for (i, node) in gltf.nodes.items().iter().enumerate() {
        let Some(ext) = node.extensions.node_constraint.get() else {
            continue;
        };
        // A constraint secmo cannot read (a draft's position constraint, a
        // missing or dangling source) is left out with a note (three-vrm's
        // loader skips a constraint of another kind): the rest of the file
        // still opens.
        let path = format!("nodes[{i}].extensions.VRMC_node_constraint.constraint");
        let Some(constraint) = ext.constraint.get() else {
            notes.push(format!("{path}: missing; the node's constraint is ignored"));
            continue;
        };
        let Some((kind, body)) = [
            ("roll", &constraint.roll),
            ("aim", &constraint.aim),
            ("rotation", &constraint.rotation),
        ]
        .into_iter()
        .find_map(|(k, b)| Some((k, b.get()?))) else {
            // None of the three: its fields are all unnamed ones.
            let found: Vec<&str> = constraint.extra.keys().map(String::as_str).collect();
            notes.push(format!(
                "{path}: not a roll, aim or rotation constraint ({}); ignored",
                if found.is_empty() {
                    "empty".to_string()
                } else {
                    found.join(", ")
                }
            ));
            continue;
        };
        let source = match body.source.get().and_then(Value::as_u64) {
            Some(s) if (s as usize) < nodes.names.len() => s as usize,
            Some(s) => {
                notes.push(format!(
                    "{path}.{kind}.source: node {s} does not exist; the constraint is ignored"
                ));
                continue;
            }
            None => {
                notes.push(format!(
                    "{path}.{kind}.source: missing node index; the constraint is ignored"
                ));
                continue;
            }
        };
        let axis_field = match kind {
            "roll" => Some(("rollAxis", &body.roll_axis)),
            "aim" => Some(("aimAxis", &body.aim_axis)),
            _ => None,
        };
        let axis = axis_field.map(|(_, value)| {
            value
                .get()
                .and_then(Value::as_str)
                // The schema requires the axis; three-vrm defaults it.
                .unwrap_or(if kind == "roll" { "X" } else { "PositiveX" })
                .to_string()
        });
        if let (Some((key, value)), Some(axis)) = (axis_field, &axis) {
            // The solver's own axis names (settings.rs reads them the same way).
            let (known, allowed) = if kind == "roll" {
                (
                    RollAxis::from_name(axis).is_some(),
                    [RollAxis::X, RollAxis::Y, RollAxis::Z]
                        .map(RollAxis::name)
                        .join(", "),
                )
            } else {
                (
                    AimAxis::from_name(axis).is_some(),
                    AimAxis::ALL.map(AimAxis::name).join(", "),
                )
            };
            if !known {
                notes.push(format!(
                    "{path}.{kind}.{key}: {} is not one of {allowed}; the constraint is ignored",
                    quoted(value.get().unwrap_or(&Value::Null)),
                ));
                continue;
            }
        }
        let at = format!("{path}.{kind}");
        let weight = body.weight.or(1.0, &at, "weight", notes);
        let weight = clamped(weight, &format!("{at}.weight"), (0.0, 1.0), notes);
        // The other kinds' axis fields are unknown ones here.
        let mut unknown: Vec<&str> = body.extra.keys().map(String::as_str).collect();
        for (key, value) in [("rollAxis", &body.roll_axis), ("aimAxis", &body.aim_axis)] {
            if value.get().is_some() && axis_field.is_none_or(|(k, _)| k != key) {
                unknown.push(key);
            }
        }
        unknown.sort_unstable();
        for key in unknown {
            notes.push(format!("{path}.{kind}.{key}: unknown field, ignored"));
        }
        out.push(NodeConstraintSettings {
            kind: kind.into(),
            source: nodes.names[source].clone(),
            destination: nodes.names[i].clone(),
            axis,
            weight,
        });
    }
    Ok(out)
}

/// Reads a VRM's spring bones and node constraints.
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
    // The rest on serde structs that take any value (see `schema`).
    let gltf = Gltf::of(&json).map_err(|e| err("extensions", e.to_string()))?;
    let ext = &gltf.extensions;
    // glTF and VRM lengths are metres.
    let mut settings = RigSettings {
        units_per_meter: Some(1.0),
        ..RigSettings::new()
    };
    let mut scene_root = false;
    // The spring or bone group each chain comes from (for notes).
    let mut sources: Vec<String> = Vec::new();
    let mut collider_shapes = Vec::new();
    let mut notes = Vec::new();
    settings.node_constraints = node_constraints(&gltf, &nodes, &mut notes)?;
    let (version, groups, roots);
    if let Some(spring) = ext.spring_bone.get() {
        version = 1;
        const TOP: &str = "VRMC_springBone";
        match spring.spec_version.get().and_then(Value::as_str) {
            // three-vrm reads these two and skips the springs of any other
            // version (with a warning); secmo reads them as 1.0 and says so.
            Some("1.0" | "1.0-beta") | None => {}
            Some(other) => notes.push(format!(
                "{TOP}.specVersion: \"{other}\" is not a version secmo knows; read as 1.0"
            )),
        }
        let colliders = spring.colliders.read(TOP, "colliders", &mut notes);
        for (i, c) in colliders.iter().enumerate() {
            let path = format!("{TOP}.colliders[{i}]");
            let node = name(format!("{path}.node"), c.node.get())?;
            let extension = c.extensions.extended_collider.get();
            let extended = extension.and_then(|e| e.shape.get());
            let Some(shape) = extended.or_else(|| c.shape.get()) else {
                notes.push(format!("{path}: no shape; left out"));
                continue;
            };
            let given = shape.given();
            if given.len() > 1 {
                // The schema allows one; three-vrm takes the first of these.
                notes.push(format!(
                    "{path}.shape: has {}; the {} is used",
                    given.join(" and "),
                    given[0]
                ));
            }
            let sub = |kind: &str| format!("{path}.shape.{kind}");
            let offset = |s: &ShapeBody, at: &str, notes: &mut Vec<String>| {
                s.offset.or([0.0; 3], at, "offset", notes)
            };
            let (kind, a, b, radius) = if let Some(s) = shape.sphere.get() {
                let at = sub("sphere");
                (
                    if s.inside.0 {
                        "inside_sphere"
                    } else {
                        "sphere"
                    },
                    offset(s, &at, &mut notes),
                    [0.0; 3],
                    radius_of(&s.radius, &at, &mut notes),
                )
            } else if let Some(s) = shape.capsule.get() {
                let at = sub("capsule");
                (
                    if s.inside.0 {
                        "inside_capsule"
                    } else {
                        "capsule"
                    },
                    offset(s, &at, &mut notes),
                    s.tail.or([0.0; 3], &at, "tail", &mut notes),
                    radius_of(&s.radius, &at, &mut notes),
                )
            } else if let Some(s) = shape.plane.get() {
                let at = sub("plane");
                let normal = s.normal.or([0.0, 0.0, 1.0], &at, "normal", &mut notes);
                if !Vec3::from_array(normal).length().is_normal() {
                    // No side to keep the joints on (three-vrm normalises
                    // it, and a zero normal collides with nothing).
                    notes.push(format!(
                        "{at}.normal: {normal:?} has no direction; left out"
                    ));
                    continue;
                }
                ("plane", offset(s, &at, &mut notes), normal, 0.0)
            } else {
                // A shape of a later version: the rest of the file still
                // moves as authored.
                notes.push(format!(
                    "{path}.shape: not a sphere, capsule or plane; left out"
                ));
                continue;
            };
            if let (Some(e), Some(_)) = (extension, extended) {
                extended_collider_version(e, c.shape.get(), kind, &path, &mut notes);
            }
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
        // The colliders read above, by index (one left out is absent).
        let read: HashSet<String> = settings.colliders.iter().map(|c| c.name.clone()).collect();
        let count = colliders.len();
        let mut table: Vec<Vec<String>> = Vec::new();
        let groups_list = spring
            .collider_groups
            .read(TOP, "colliderGroups", &mut notes);
        for (g, group) in groups_list.iter().enumerate() {
            let mut names = Vec::new();
            let at = format!("{TOP}.colliderGroups[{g}]");
            for (k, c) in group
                .colliders
                .read(&at, "colliders", &mut notes)
                .iter()
                .enumerate()
            {
                match c.as_u64().map(|c| format!("collider{c}")) {
                    Some(name) if read.contains(&name) => names.push(name),
                    // A collider left out above, which has its own note.
                    Some(_) if c.as_u64().is_some_and(|c| (c as usize) < count) => {}
                    _ => notes.push(format!(
                        "VRMC_springBone.colliderGroups[{g}].colliders[{k}]: no collider {c}; \
                         left out"
                    )),
                }
            }
            table.push(names);
        }
        let springs = spring.springs.read(TOP, "springs", &mut notes);
        for (s, sp) in springs.iter().enumerate() {
            let path = format!("{TOP}.springs[{s}]");
            let js = sp.joints.read(&path, "joints", &mut notes);
            note_ignored(&sp.extra, &sp.extensions, &path, false, &mut notes);
            if js.is_empty() {
                // three-vrm and UniVRM make no joint of it either.
                notes.push(format!("{path}: no joints; nothing to simulate"));
                continue;
            }
            let mut indices = Vec::with_capacity(js.len());
            for (k, j) in js.iter().enumerate() {
                indices.push(name(format!("{path}.joints[{k}].node"), j.node.get())?);
            }
            let center = match sp.center.get() {
                Some(c) => Some(nodes.names[name(format!("{path}.center"), Some(c))?].clone()),
                None => None,
            };
            if indices.len() < 2 {
                // VRMC_springBone 1.0: the last joint is the tail end, so a
                // single joint moves nothing (three-vrm and UniVRM skip it).
                notes.push(format!(
                    "{path}: one joint is only a tail end; nothing to simulate"
                ));
                continue;
            }
            let colliders = group_colliders(sp.collider_groups.items(), &table, &path, &mut notes);
            // Each joint read once, what it changes noted under its name.
            // The last joint is only the tail end: its numbers are not read.
            let mut read = Vec::with_capacity(js.len());
            let mut radii = Vec::with_capacity(js.len());
            let mut limits = Vec::with_capacity(js.len());
            for (k, j) in js.iter().enumerate() {
                let joint_path = format!("{path}.joints[{k}] ({})", nodes.names[indices[k]]);
                let tail_end = k + 1 == js.len();
                note_ignored(&j.extra, &j.extensions, &joint_path, tail_end, &mut notes);
                if tail_end {
                    continue;
                }
                let mut field =
                    |n: &Num, key: &str, default: f32| n.or(default, &joint_path, key, &mut notes);
                let (stiffness, drag, gravity_power) = (
                    field(&j.stiffness, "stiffness", 1.0),
                    field(&j.drag_force, "dragForce", 0.5),
                    field(&j.gravity_power, "gravityPower", 0.0),
                );
                let joint = VrmJoint {
                    stiffness,
                    drag,
                    gravity_power,
                    gravity_dir: j.gravity_dir.or(
                        [0.0, -1.0, 0.0],
                        &joint_path,
                        "gravityDir",
                        &mut notes,
                    ),
                }
                .unit_gravity()
                .checked(
                    &joint_path,
                    ["stiffness", "dragForce", "gravityPower"],
                    &mut notes,
                );
                read.push(joint);
                limits.push(joint_limit(j, &joint_path, &mut notes));
                let radius = j.hit_radius.or(0.0, &joint_path, "hitRadius", &mut notes);
                radii.push(non_negative(
                    radius,
                    &format!("{joint_path}.hitRadius"),
                    &mut notes,
                ));
            }
            // VRMC_springBone 1.0 asks only that each joint lie below the
            // one before, not right below it: the nodes between move with
            // the joint above them, which aims at the next joint's rest
            // position (its tail). secmo's chains are runs of direct
            // children, so a spring continues as a new chain after a skip.
            let direct: Vec<bool> = indices
                .windows(2)
                .map(|w| nodes.parents[w[1]] == w[0] as i32)
                .collect();
            for (k, w) in indices.windows(2).enumerate() {
                if !direct[k] {
                    let below = below(&nodes, w[1], w[0]);
                    notes.push(format!(
                        "{path}.joints[{}] ({}) is {} joints[{k}] ({}): {}",
                        k + 1,
                        nodes.names[w[1]],
                        if below { "not a child of" } else { "not below" },
                        nodes.names[w[0]],
                        if below {
                            "the nodes between move with the joint above them"
                        } else {
                            "VRMC_springBone asks for a descendant; the joint aims at its rest position"
                        }
                    ));
                }
            }
            // A chain runs while the joints are direct children and share
            // a gravity direction; stiffness, drag and gravity power may
            // change along it (per-joint offsets from its first joint's, so
            // the chain steps as one, every joint reading its parent's new
            // position in the same substep, as three-vrm does).
            let simulated = indices.len() - 1;
            let mut start = 0;
            while start < simulated {
                let first = read[start];
                let mut end = start + 1;
                while end < simulated
                    && direct[end - 1]
                    && read[end].gravity_dir == first.gravity_dir
                {
                    end += 1;
                }
                let chain_numbers: Vec<[f32; 3]> =
                    read[start..end].iter().map(|j| j.numbers()).collect();
                let vrm_offsets = relative_to_first(&chain_numbers);
                let anchor = anchor_of(&nodes, indices[start], &mut scene_root);
                settings.chains.push(ChainSettings {
                    preset: "vrm".into(),
                    anchor,
                    joints: indices[start..end]
                        .iter()
                        .map(|&i| nodes.names[i].clone())
                        .collect(),
                    params: vrm_params(first, center.as_deref()),
                    radii: radii[start..end].to_vec(),
                    weights: Vec::new(),
                    end_offset: Some(rest_offset(&nodes, indices[end - 1], indices[end])),
                    colliders: colliders.clone(),
                    vrm_offsets,
                    limits: chain_limits(&limits[start..end]),
                });
                sources.push(path.clone());
                start = end;
            }
        }
        groups = springs.len();
        roots = springs.len();
    } else if let Some(secondary) = ext.vrm.secondary_animation.get() {
        version = 0;
        const TOP: &str = "VRM.secondaryAnimation";
        let mut table = Vec::new();
        for (g, cg) in secondary
            .collider_groups
            .read(TOP, "colliderGroups", &mut notes)
            .iter()
            .enumerate()
        {
            let path = format!("{TOP}.colliderGroups[{g}]");
            let node = name(format!("{path}.node"), cg.node.get())?;
            let mut names = Vec::new();
            for (k, c) in cg
                .colliders
                .read(&path, "colliders", &mut notes)
                .iter()
                .enumerate()
            {
                let at = format!("{path}.colliders[{k}]");
                let offset = c.offset.or([0.0; 3], &format!("{at}.offset"), &mut notes);
                let radius = radius_of(&c.radius, &at, &mut notes);
                let collider = format!("group{g}_{k}");
                settings.colliders.push(ColliderSettings {
                    name: collider.clone(),
                    bone: nodes.names[node].clone(),
                    shape: "sphere".into(),
                    // VRM 0.x stores offsets with z flipped (Unity's convention).
                    a: [offset[0], offset[1], -offset[2]],
                    b: [0.0; 3],
                    // UniVRM 0.x scales radii by the node's largest world
                    // scale axis; secmo's collider radii are unscaled.
                    radius: radius * nodes.world_scale[node],
                });
                collider_shapes.push("sphere".into());
                names.push(collider);
            }
            table.push(names);
        }
        let bone_groups = secondary.bone_groups.read(TOP, "boneGroups", &mut notes);
        let mut root_count = 0;
        for (g, bg) in bone_groups.iter().enumerate() {
            let path = format!("{TOP}.boneGroups[{g}]");
            let center = match bg.center.get().and_then(Value::as_i64) {
                Some(c) if c >= 0 => {
                    Some(nodes.names[name(format!("{path}.center"), bg.center.get())?].clone())
                }
                _ => None,
            };
            // three-vrm: an absent gravityDir is down; absent components are 0.
            let gravity_dir =
                bg.gravity_dir
                    .or([0.0, -1.0, 0.0], &format!("{path}.gravityDir"), &mut notes);
            let params = vrm_params(
                VrmJoint {
                    stiffness: bg.stiffiness.or(1.0, &path, "stiffiness", &mut notes),
                    drag: bg.drag_force.or(0.4, &path, "dragForce", &mut notes),
                    gravity_power: bg.gravity_power.or(0.0, &path, "gravityPower", &mut notes),
                    gravity_dir,
                }
                .unit_gravity()
                .checked(
                    &path,
                    ["stiffiness", "dragForce", "gravityPower"],
                    &mut notes,
                ),
                center.as_deref(),
            );
            let radius = bg.hit_radius.or(0.02, &path, "hitRadius", &mut notes);
            let radius = non_negative(radius, &format!("{path}.hitRadius"), &mut notes);
            note_ignored(&bg.extra, &bg.extensions, &path, false, &mut notes);
            let colliders = group_colliders(bg.collider_groups.items(), &table, &path, &mut notes);
            for (r, root) in bg.bones.read(&path, "bones", &mut notes).iter().enumerate() {
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
                    let mut p = params.clone();
                    p.insert("radius".into(), json_f32(radius));
                    // A leaf's tail is 7 cm out along its own offset
                    // (UniVRM and three-vrm for VRM 0.x).
                    let end_offset = Vec3::from_array(nodes.local[node].translation)
                        .try_normalize()
                        .map(|d| (d * 0.07).to_array());
                    settings.chains.push(ChainSettings {
                        preset: "vrm".into(),
                        anchor,
                        joints,
                        params: p,
                        radii: Vec::new(),
                        weights: Vec::new(),
                        end_offset,
                        colliders: colliders.clone(),
                        vrm_offsets: Vec::new(),
                        limits: Vec::new(),
                    });
                    sources.push(path.clone());
                }
            }
        }
        groups = bone_groups.len();
        roots = root_count;
    } else if !settings.node_constraints.is_empty() {
        // Node constraints and no spring bones.
        version = 1;
        groups = 0;
        roots = 0;
    } else {
        return Err(err(
            "extensions",
            "no VRMC_springBone (VRM 1.0) or VRM.secondaryAnimation (VRM 0.x)",
        ));
    }
    settings.chains = drop_shared_joints(
        &nodes,
        std::mem::take(&mut settings.chains),
        &sources,
        &mut notes,
    );
    settings.chains = order_chains(
        &nodes,
        std::mem::take(&mut settings.chains),
        &settings.colliders,
        &mut notes,
    );
    // Simulated joints, after the shared ones are left out.
    let joints = settings.chains.iter().map(|c| c.joints.len()).sum();
    if version == 0 {
        notes.push(
            "VRM 0.x has no node constraints (VRMC_node_constraint is VRM 1.0): \
             constrained twist or sleeve bones stay as animated"
                .into(),
        );
    }
    Ok(VrmImport {
        version,
        groups,
        roots,
        joints,
        collider_shapes,
        skeleton: skeleton(&nodes, scene_root),
        settings,
        notes,
    })
}
