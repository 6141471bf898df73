//! The rig-settings file: one readable JSON format for every solver's setup,
//! shared by the tool, Unity and Unreal (docs/settings.md).
//!
//! Bones and colliders are referenced by name; the skeleton itself comes from
//! the engine or the imported file. Every entry starts from its preset (hip or
//! chest spring, tail or hair chain, BtoB) and the fields given override it.
//! Angles are in degrees, lengths in the rig's units.

use std::collections::HashMap;
use std::fmt;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::rig::{BoneDesc, ConstraintDesc, Rig, RigDesc, UpAxis};
use crate::solvers::chain::{ChainDesc, ChainParams};
use crate::solvers::collide::{Collider, ColliderShape};
use crate::solvers::corrective::{BtobBones, Gains, Probe, ProximityCorrective, Side};
use crate::solvers::node_constraint::{AimAxis, NodeConstraintDesc, NodeConstraintKind, RollAxis};
use crate::solvers::spring::SpringParams;

/// The value of the `format` field.
pub const SETTINGS_FORMAT: &str = "secmo-rig-settings";
/// The version this library reads and writes.
pub const SETTINGS_VERSION: u32 = 1;

/// What went wrong, and where (`chains[0].joints[2]`, or a JSON line/column).
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SettingsError {}

fn error(path: impl Into<String>, message: impl Into<String>) -> SettingsError {
    SettingsError {
        path: path.into(),
        message: message.into(),
    }
}

/// Refuses any number in `value` beyond the float32 range (`path` is the
/// JSON path so far, e.g. `chains[0].radii[3]`).
fn check_float32_range(value: &serde_json::Value, path: &mut String) -> Result<(), SettingsError> {
    use serde_json::Value;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.abs() <= f64::from(f32::MAX) => Ok(()),
            _ => Err(error(
                path.clone(),
                format!("{n} is beyond the float32 range (±3.4e38)"),
            )),
        },
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_float32_range(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                check_float32_range(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The whole file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigSettings {
    pub format: String,
    pub version: u32,
    /// The units the file's lengths are in, per metre (1: metres, as VRM
    /// and Unity; 100: centimetres, as Unreal). Absent: the rig's own units.
    /// Building a rig in other units scales every length (and speed and
    /// acceleration) by the ratio ([`RigSettings::in_units`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units_per_meter: Option<f32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub springs: Vec<SpringSettings>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<ConstraintSettings>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_constraints: Vec<NodeConstraintSettings>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub correctives: Vec<CorrectiveSettings>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<ColliderSettings>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<ChainSettings>,
}

/// A helper-bone translation spring (docs/algorithms.md §3): the bone by name, a preset,
/// and overrides of any field of [`SpringParams`] by its settings name (the
/// keys come from that struct's serde attributes, so the parameter set is
/// defined once; an unknown key is an error naming it).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct SpringSettings {
    pub bone: String,
    /// "hip" (the default) or "chest".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(flatten)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// A rotation constraint (docs/algorithms.md §4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintSettings {
    pub bone: String,
    pub target: String,
}

/// A VRM node constraint (`VRMC_node_constraint`): roll, aim or rotation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConstraintSettings {
    /// "roll", "aim" or "rotation".
    pub kind: String,
    pub source: String,
    pub destination: String,
    /// Roll: "X", "Y" or "Z" (default X); aim: "PositiveX" … "NegativeZ"
    /// (default PositiveX); rotation: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<String>,
    /// 0..1 (default 1).
    #[serde(default = "one")]
    pub weight: f32,
}

/// Gains of a probe on one side.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GainSettings {
    #[serde(default)]
    pub translation: [f32; 3],
    #[serde(default)]
    pub scale: [f32; 3],
}

/// One probe of a proximity corrective (docs/algorithms.md §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSettings {
    pub bone: String,
    pub threshold: f32,
    #[serde(default = "one")]
    pub weight: f32,
    #[serde(default = "center")]
    pub side: String,
    #[serde(default)]
    pub same: GainSettings,
    #[serde(default)]
    pub opposite: GainSettings,
}

fn one() -> f32 {
    1.0
}

fn center() -> String {
    "center".into()
}

/// The BtoB preset's bones (docs/algorithms.md §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BtobSettings {
    pub other_chest: String,
    pub upper_arm_l: String,
    pub forearm_l: String,
    pub hand_l: String,
    pub upper_arm_r: String,
    pub forearm_r: String,
    pub hand_r: String,
    /// Sign of the chest's local +X toward the midline (+1 or −1).
    pub medial_x: f32,
    /// Rest distance between the chests, rig units.
    pub chest_gap: f32,
}

/// A proximity corrective: explicit probes, or the BtoB preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrectiveSettings {
    pub driven: String,
    #[serde(default = "center")]
    pub side: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<ProbeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub btob: Option<BtobSettings>,
}

/// A collider on a bone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColliderSettings {
    pub name: String,
    pub bone: String,
    /// "sphere", "capsule", "plane", "inside_sphere" or "inside_capsule".
    pub shape: String,
    #[serde(default)]
    pub a: [f32; 3],
    #[serde(default)]
    pub b: [f32; 3],
    #[serde(default)]
    pub radius: f32,
}

/// A tail or hair chain (docs/algorithms.md §7, §8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSettings {
    /// "tail", "hair" or "vrm".
    pub preset: String,
    pub anchor: String,
    pub joints: Vec<String>,
    /// Overrides of the preset: any field of [`ChainParams`] by its settings
    /// name (angles in degrees as `*_degrees`, flags as booleans, the
    /// integrator by name, `simulation_space` as a bone name). The keys and
    /// their forms come from `ChainParams`'s own serde attributes, so the
    /// parameter set is defined once; an unknown key is an error naming it.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub params: serde_json::Map<String, serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub radii: Vec<f32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<[f32; 3]>,
    /// Collider names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<String>,
    /// Per-joint `[stiffness, drag force, gravity power]` of a VRM spring
    /// whose numbers change along it, as offsets from the chain's
    /// `vrm_stiffness`, `vrm_drag_force` and `vrm_gravity_power`
    /// ([`crate::ChainDesc::vrm_offsets`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vrm_offsets: Vec<[f32; 3]>,
    /// Per-joint angle limits of a VRM chain ([`crate::ChainDesc::limits`]):
    /// empty, or one per joint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<LimitSettings>,
}

/// A joint's angle limit (VRMC_springBone_limit, docs/settings.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// "none", "cone", "hinge" or "spherical".
    pub shape: String,
    /// The cone's or hinge's angle, or the spherical limit's pitch, degrees.
    #[serde(default)]
    pub angle_degrees: f32,
    /// The spherical limit's yaw, degrees.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub yaw_degrees: f32,
    /// The limit's turn from its default frame, `[x, y, z, w]`.
    #[serde(default = "identity_rotation")]
    pub rotation: [f32; 4],
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

fn identity_rotation() -> [f32; 4] {
    [0.0, 0.0, 0.0, 1.0]
}

impl LimitSettings {
    /// The limit in radians; an unknown shape is an error naming `path`.
    fn limit(&self, path: &str) -> Result<crate::solvers::chain::JointLimit, SettingsError> {
        use crate::solvers::chain::{JointLimit, LimitShape};
        let shape = match self.shape.as_str() {
            "none" => LimitShape::None,
            "cone" => LimitShape::Cone,
            "hinge" => LimitShape::Hinge,
            "spherical" => LimitShape::Spherical,
            other => {
                return Err(error(
                    format!("{path}.shape"),
                    format!("\"{other}\" is not a limit shape (none, cone, hinge, spherical)"),
                ))
            }
        };
        Ok(JointLimit {
            shape,
            angle: self.angle_degrees.to_radians(),
            yaw: self.yaw_degrees.to_radians(),
            rotation: self.rotation,
        })
    }

    /// The settings of `limit` (radians to degrees).
    #[must_use]
    pub fn of(limit: &crate::solvers::chain::JointLimit) -> Self {
        use crate::solvers::chain::LimitShape;
        Self {
            shape: match limit.shape {
                LimitShape::None => "none",
                LimitShape::Cone => "cone",
                LimitShape::Hinge => "hinge",
                LimitShape::Spherical => "spherical",
            }
            .into(),
            angle_degrees: limit.angle.to_degrees(),
            yaw_degrees: limit.yaw.to_degrees(),
            rotation: limit.rotation,
        }
    }
}

fn parse_side(path: &str, s: &str) -> Result<Side, SettingsError> {
    match s {
        "center" => Ok(Side::Center),
        "left" => Ok(Side::Left),
        "right" => Ok(Side::Right),
        other => Err(error(
            path,
            format!("side \"{other}\" is not center, left or right"),
        )),
    }
}

fn side_name(s: Side) -> String {
    match s {
        Side::Center => "center",
        Side::Left => "left",
        Side::Right => "right",
    }
    .into()
}

fn shape_name(s: ColliderShape) -> &'static str {
    match s {
        ColliderShape::Sphere => "sphere",
        ColliderShape::Capsule => "capsule",
        ColliderShape::Plane => "plane",
        ColliderShape::InsideSphere => "inside_sphere",
        ColliderShape::InsideCapsule => "inside_capsule",
    }
}

impl RigSettings {
    /// An empty file of the current version.
    #[must_use]
    pub fn new() -> Self {
        Self {
            format: SETTINGS_FORMAT.into(),
            version: SETTINGS_VERSION,
            units_per_meter: None,
            springs: Vec::new(),
            constraints: Vec::new(),
            node_constraints: Vec::new(),
            correctives: Vec::new(),
            colliders: Vec::new(),
            chains: Vec::new(),
        }
    }

    /// Parses a settings file; errors give the JSON line and column.
    pub fn from_json(text: &str) -> Result<Self, SettingsError> {
        let s: RigSettings = serde_json::from_str(text).map_err(|e| {
            error(
                format!("line {}, column {}", e.line(), e.column()),
                e.to_string(),
            )
        })?;
        // Every value is read as float32 (or a smaller integer): a number
        // beyond its range would become an infinity that no file can hold,
        // so it is refused with its path. (The text parsed above, so it
        // parses again.)
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            check_float32_range(&value, &mut String::new())?;
        }
        if s.format != SETTINGS_FORMAT {
            return Err(error(
                "format",
                format!("expected \"{SETTINGS_FORMAT}\", found \"{}\"", s.format),
            ));
        }
        if s.version != SETTINGS_VERSION {
            return Err(error(
                "version",
                format!(
                    "version {} is not supported (this library reads {SETTINGS_VERSION})",
                    s.version
                ),
            ));
        }
        if let Some(u) = s.units_per_meter {
            if !(u.is_finite() && u > 0.0) {
                return Err(error("units_per_meter", "must be finite and > 0"));
            }
        }
        // Parameter names are known without a skeleton: a misspelt one is
        // reported when the file is read.
        let spring_keys = to_map(&SpringParams::hip(0, 1.0));
        let chain_keys = to_map(&ChainParams::tail(1.0));
        let unknown = |keys: &serde_json::Map<String, serde_json::Value>,
                       known: &serde_json::Map<String, serde_json::Value>,
                       path: String| {
            match keys
                .keys()
                .find(|k| !known.contains_key(*k) && *k != "simulation_space")
            {
                Some(k) => Err(error(
                    format!("{path}.{k}"),
                    "not a parameter here (docs/settings.md lists them)",
                )),
                None => Ok(()),
            }
        };
        for (i, spring) in s.springs.iter().enumerate() {
            unknown(&spring.params, &spring_keys, format!("springs[{i}]"))?;
        }
        for (i, chain) in s.chains.iter().enumerate() {
            unknown(&chain.params, &chain_keys, format!("chains[{i}].params"))?;
        }
        Ok(s)
    }

    /// Every bone name the settings refer to, each once, in order of first
    /// mention: what an engine must feed secmo (with the bones' ancestors);
    /// the Unity component passes only these.
    #[must_use]
    pub fn bone_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            if !name.is_empty() && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        };
        for s in &self.springs {
            add(&s.bone);
        }
        for c in &self.constraints {
            add(&c.bone);
            add(&c.target);
        }
        for c in &self.node_constraints {
            add(&c.source);
            add(&c.destination);
        }
        for c in &self.correctives {
            add(&c.driven);
            for p in &c.probes {
                add(&p.bone);
            }
            if let Some(b) = &c.btob {
                for name in [
                    &b.other_chest,
                    &b.upper_arm_l,
                    &b.forearm_l,
                    &b.hand_l,
                    &b.upper_arm_r,
                    &b.forearm_r,
                    &b.hand_r,
                ] {
                    add(name);
                }
            }
        }
        for c in &self.colliders {
            add(&c.bone);
        }
        for c in &self.chains {
            add(&c.anchor);
            for j in &c.joints {
                add(j);
            }
            if let Some(space) = c.params.get("simulation_space").and_then(|v| v.as_str()) {
                add(space);
            }
        }
        out
    }

    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("settings always serialise")
    }

    /// Builds a [`RigDesc`] for `bones` (which name the bones the settings
    /// refer to), in a rig of `units_per_meter` with `up_axis`.
    pub fn to_rig_desc(
        &self,
        bones: Vec<BoneDesc>,
        units_per_meter: f32,
        up_axis: UpAxis,
    ) -> Result<RigDesc, SettingsError> {
        if self.units_per_meter.is_some_and(|u| u != units_per_meter) {
            return self
                .in_units(units_per_meter)?
                .to_rig_desc(bones, units_per_meter, up_axis);
        }
        // Settings name bones; a name two bones share cannot be resolved
        // (the first bone, index a, and the second, b, are both kept).
        let mut names: HashMap<&str, (u32, Option<u32>)> = HashMap::new();
        for (i, b) in bones.iter().enumerate() {
            names
                .entry(b.name.as_str())
                .and_modify(|e| {
                    e.1.get_or_insert(i as u32);
                })
                .or_insert((i as u32, None));
        }
        let bone = |path: String, name: &str| -> Result<u32, SettingsError> {
            match names.get(name) {
                Some(&(i, None)) => Ok(i),
                Some(&(a, Some(b))) => Err(error(
                    path,
                    format!(
                        "bones {a} and {b} are both named \"{name}\"; settings refer to bones \
                         by name, so the rig's names must be unique"
                    ),
                )),
                None => Err(error(path, format!("no bone named \"{name}\""))),
            }
        };
        let upm = units_per_meter;

        let mut springs = Vec::new();
        for (i, s) in self.springs.iter().enumerate() {
            let path = format!("springs[{i}]");
            let b = bone(format!("{path}.bone"), &s.bone)?;
            let mut p = s.resolve(&path, upm)?;
            p.bone = b; // named by `bone`, not an override
            springs.push(p);
        }

        let mut constraints = Vec::new();
        for (i, c) in self.constraints.iter().enumerate() {
            constraints.push(ConstraintDesc {
                bone: bone(format!("constraints[{i}].bone"), &c.bone)?,
                target: bone(format!("constraints[{i}].target"), &c.target)?,
            });
        }
        let mut node_constraints = Vec::new();
        for (i, c) in self.node_constraints.iter().enumerate() {
            let path = format!("node_constraints[{i}]");
            let axis = c.axis.as_deref();
            let bad_axis = |expected: &str| {
                error(
                    format!("{path}.axis"),
                    format!("{:?} is not {expected}", axis.unwrap_or("")),
                )
            };
            let kind = match c.kind.as_str() {
                "roll" => NodeConstraintKind::Roll(match axis {
                    None => RollAxis::X,
                    Some(a) => RollAxis::from_name(a).ok_or_else(|| bad_axis("X, Y or Z"))?,
                }),
                "aim" => NodeConstraintKind::Aim(match axis {
                    None => AimAxis::PositiveX,
                    Some(a) => AimAxis::from_name(a).ok_or_else(|| {
                        bad_axis(
                            "PositiveX, NegativeX, PositiveY, NegativeY, PositiveZ or NegativeZ",
                        )
                    })?,
                }),
                "rotation" => {
                    if axis.is_some() {
                        return Err(error(
                            format!("{path}.axis"),
                            "a rotation constraint has no axis",
                        ));
                    }
                    NodeConstraintKind::Rotation
                }
                other => {
                    return Err(error(
                        format!("{path}.kind"),
                        format!("\"{other}\" is not roll, aim or rotation"),
                    ))
                }
            };
            node_constraints.push(NodeConstraintDesc {
                kind,
                source: bone(format!("{path}.source"), &c.source)?,
                destination: bone(format!("{path}.destination"), &c.destination)?,
                weight: c.weight,
            });
        }

        let mut correctives = Vec::new();
        for (i, c) in self.correctives.iter().enumerate() {
            let path = format!("correctives[{i}]");
            let driven = bone(format!("{path}.driven"), &c.driven)?;
            let side = parse_side(&format!("{path}.side"), &c.side)?;
            let mut corrective = if let Some(b) = &c.btob {
                if !c.probes.is_empty() {
                    return Err(error(&path, "give either probes or btob, not both"));
                }
                let p = |field: &str, name: &str| bone(format!("{path}.btob.{field}"), name);
                ProximityCorrective::btob(
                    BtobBones {
                        chest: driven,
                        other_chest: p("other_chest", &b.other_chest)?,
                        upper_arm_l: p("upper_arm_l", &b.upper_arm_l)?,
                        forearm_l: p("forearm_l", &b.forearm_l)?,
                        hand_l: p("hand_l", &b.hand_l)?,
                        upper_arm_r: p("upper_arm_r", &b.upper_arm_r)?,
                        forearm_r: p("forearm_r", &b.forearm_r)?,
                        hand_r: p("hand_r", &b.hand_r)?,
                    },
                    side,
                    b.medial_x,
                    b.chest_gap,
                    upm,
                )
            } else {
                let mut probes = Vec::new();
                for (j, p) in c.probes.iter().enumerate() {
                    let pp = format!("{path}.probes[{j}]");
                    probes.push(Probe {
                        bone: bone(format!("{pp}.bone"), &p.bone)?,
                        threshold: p.threshold,
                        weight: p.weight,
                        side: parse_side(&format!("{pp}.side"), &p.side)?,
                        same_side: Gains {
                            translation: Vec3::from_array(p.same.translation),
                            scale: Vec3::from_array(p.same.scale),
                        },
                        opposite_side: Gains {
                            translation: Vec3::from_array(p.opposite.translation),
                            scale: Vec3::from_array(p.opposite.scale),
                        },
                    });
                }
                ProximityCorrective {
                    driven,
                    side,
                    rate: 24.0,
                    probes,
                }
            };
            if let Some(r) = c.rate {
                corrective.rate = r;
            }
            correctives.push(corrective);
        }

        let mut colliders = Vec::new();
        let mut collider_names: HashMap<&str, u32> = HashMap::new();
        for (i, c) in self.colliders.iter().enumerate() {
            let path = format!("colliders[{i}]");
            let shape = match c.shape.as_str() {
                "sphere" => ColliderShape::Sphere,
                "capsule" => ColliderShape::Capsule,
                "plane" => ColliderShape::Plane,
                "inside_sphere" => ColliderShape::InsideSphere,
                "inside_capsule" => ColliderShape::InsideCapsule,
                other => {
                    return Err(error(
                        format!("{path}.shape"),
                        format!("\"{other}\" is not a collider shape"),
                    ))
                }
            };
            if collider_names.insert(c.name.as_str(), i as u32).is_some() {
                return Err(error(
                    format!("{path}.name"),
                    format!("a collider named \"{}\" already exists", c.name),
                ));
            }
            colliders.push(Collider {
                bone: bone(format!("{path}.bone"), &c.bone)?,
                shape,
                a: Vec3::from_array(c.a),
                b: Vec3::from_array(c.b),
                radius: c.radius,
            });
        }

        let mut chains = Vec::new();
        for (i, c) in self.chains.iter().enumerate() {
            let path = format!("chains[{i}]");
            let mut params = c.preset_params(&path, upm)?;
            apply_chain_params(&mut params, &c.params, &format!("{path}.params"), &bone)?;
            let joints = c
                .joints
                .iter()
                .enumerate()
                .map(|(j, n)| bone(format!("{path}.joints[{j}]"), n))
                .collect::<Result<Vec<_>, _>>()?;
            let colliders = c
                .colliders
                .iter()
                .enumerate()
                .map(|(j, n)| {
                    collider_names.get(n.as_str()).copied().ok_or_else(|| {
                        error(
                            format!("{path}.colliders[{j}]"),
                            format!("no collider named \"{n}\""),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            chains.push(ChainDesc {
                joints,
                anchor: bone(format!("{path}.anchor"), &c.anchor)?,
                params,
                radii: c.radii.clone(),
                weights: c.weights.clone(),
                end_offset: c.end_offset.map(Vec3::from_array),
                colliders,
                vrm_offsets: c.vrm_offsets.clone(),
                limits: c
                    .limits
                    .iter()
                    .enumerate()
                    .map(|(j, l)| l.limit(&format!("{path}.limits[{j}]")))
                    .collect::<Result<Vec<_>, _>>()?,
            });
        }

        Ok(RigDesc {
            bones,
            units_per_meter,
            up_axis,
            constraints,
            node_constraints,
            springs,
            correctives,
            colliders,
            chains,
        })
    }

    /// Writes a built rig's setup with every value explicit.
    #[must_use]
    pub fn from_rig(rig: &Rig) -> Self {
        let name = |b: u32| rig.bone_name(b as usize).unwrap_or("").to_string();
        let mut s = RigSettings {
            units_per_meter: Some(rig.units_per_meter()),
            ..RigSettings::new()
        };
        for p in rig.springs() {
            s.springs.push(SpringSettings {
                bone: name(p.bone),
                preset: None,
                params: to_map(p),
            });
        }
        for c in rig.constraints() {
            s.constraints.push(ConstraintSettings {
                bone: name(c.bone),
                target: name(c.target),
            });
        }
        for c in rig.node_constraints() {
            let (kind, axis) = match c.kind {
                NodeConstraintKind::Roll(a) => ("roll", Some(a.name().to_string())),
                NodeConstraintKind::Aim(a) => ("aim", Some(a.name().to_string())),
                NodeConstraintKind::Rotation => ("rotation", None),
            };
            s.node_constraints.push(NodeConstraintSettings {
                kind: kind.into(),
                source: name(c.source),
                destination: name(c.destination),
                axis,
                weight: c.weight,
            });
        }
        let gains = |g: &Gains| GainSettings {
            translation: g.translation.to_array(),
            scale: g.scale.to_array(),
        };
        for c in rig.correctives() {
            s.correctives.push(CorrectiveSettings {
                driven: name(c.driven),
                side: side_name(c.side),
                rate: Some(c.rate),
                probes: c
                    .probes
                    .iter()
                    .map(|p| ProbeSettings {
                        bone: name(p.bone),
                        threshold: p.threshold,
                        weight: p.weight,
                        side: side_name(p.side),
                        same: gains(&p.same_side),
                        opposite: gains(&p.opposite_side),
                    })
                    .collect(),
                btob: None,
            });
        }
        for (i, c) in rig.colliders().iter().enumerate() {
            s.colliders.push(ColliderSettings {
                name: format!("collider{i}"),
                bone: name(c.bone),
                shape: shape_name(c.shape).into(),
                a: c.a.to_array(),
                b: c.b.to_array(),
                radius: c.radius,
            });
        }
        for c in rig.chains() {
            let p = &c.params;
            let mut params = to_map(p);
            match usize::try_from(p.simulation_space) {
                Ok(b) => {
                    params.insert("simulation_space".into(), name(b as u32).into());
                }
                Err(_) => {
                    params.remove("simulation_space");
                }
            }
            s.chains.push(ChainSettings {
                preset: match p.integrator {
                    ChainParams::SPRING => "tail",
                    ChainParams::VRM => "vrm",
                    _ => "hair",
                }
                .into(),
                anchor: name(c.anchor),
                joints: c.joints.iter().map(|&j| name(j)).collect(),
                params,
                radii: c.radii.clone(),
                weights: c.weights.clone(),
                end_offset: Some(c.end_offset.to_array()),
                colliders: c
                    .colliders
                    .iter()
                    .map(|&i| format!("collider{i}"))
                    .collect(),
                vrm_offsets: c.vrm_offsets.clone(),
                limits: c
                    .limits
                    .iter()
                    .map(|l| LimitSettings::of(&l.source))
                    .collect(),
            });
        }
        s
    }
}

impl Default for RigSettings {
    fn default() -> Self {
        Self::new()
    }
}

/// Every field of `p` in its settings form.
fn to_map<T: Serialize>(p: &T) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => unreachable!("parameter structs serialize to objects"),
    }
}

/// Applies the settings' `overrides` to the preset `p`, one key at a time so
/// that an error names the key; `value` maps a key's settings value to its
/// serialized form (bone names to indices).
fn apply_overrides<T: Serialize + serde::de::DeserializeOwned>(
    p: &mut T,
    overrides: &serde_json::Map<String, serde_json::Value>,
    path: &str,
    value: &dyn Fn(&str, &serde_json::Value) -> Result<serde_json::Value, SettingsError>,
) -> Result<(), SettingsError> {
    use serde_json::Value;
    let mut merged = to_map(p);
    for (key, v) in overrides {
        let at = format!("{path}.{key}");
        let v = value(key, v)?;
        let slot = merged.get_mut(key).ok_or_else(|| {
            error(
                at.clone(),
                "not a parameter here (docs/settings.md lists them)",
            )
        })?;
        *slot = v;
        if let Err(e) = serde_json::from_value::<T>(Value::Object(merged.clone())) {
            return Err(error(at, e.to_string()));
        }
    }
    *p = serde_json::from_value(Value::Object(merged))
        .map_err(|e| error(path.to_string(), e.to_string()))?;
    Ok(())
}

/// A chain's overrides: [`apply_overrides`] with `simulation_space` given as
/// a bone name (or null for world space).
fn apply_chain_params(
    p: &mut ChainParams,
    overrides: &serde_json::Map<String, serde_json::Value>,
    path: &str,
    bone: &dyn Fn(String, &str) -> Result<u32, SettingsError>,
) -> Result<(), SettingsError> {
    use serde_json::Value;
    apply_overrides(p, overrides, path, &|key, v| {
        if key != "simulation_space" {
            return Ok(v.clone());
        }
        let at = format!("{path}.{key}");
        match v {
            Value::Null => Ok(Value::from(-1)),
            Value::String(name) => Ok(Value::from(bone(at, name)?)),
            _ => Err(error(at, "a bone name, or null for world space")),
        }
    })
}

/// Spring parameters that are lengths (or speeds): they scale with the units.
const SPRING_LENGTH_KEYS: [&str; 4] = [
    "max_offset",
    "max_substep_displacement",
    "reset_threshold",
    "extra_velocity",
];

/// Chain parameters that are lengths, speeds or accelerations.
const CHAIN_LENGTH_KEYS: [&str; 7] = [
    "gravity",
    "floor_height",
    "floor_clearance",
    "radius",
    "teleport_distance",
    "vrm_stiffness",
    "vrm_gravity_power",
];

/// Multiplies a JSON number, or each number of an array, by `k`.
fn scale_value(v: &mut serde_json::Value, k: f32) {
    match v {
        serde_json::Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                *v = serde_json::Value::from(f64::from((x as f32) * k));
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|x| scale_value(x, k)),
        _ => {}
    }
}

impl RigSettings {
    /// The same settings with their lengths in `units_per_meter`: when the
    /// file declares other units, every length, speed and acceleration it
    /// gives (spring offsets, chain gravity, radii, floor, teleport distance,
    /// VRM pull and gravity, collider offsets and radii, probe thresholds
    /// and translation gains, chest gaps, end offsets) is scaled by the
    /// ratio; presets need nothing (they are made in the rig's units).
    /// Declares `units_per_meter` in the result.
    pub fn in_units(&self, units_per_meter: f32) -> Result<RigSettings, SettingsError> {
        if !(units_per_meter.is_finite() && units_per_meter > 0.0) {
            return Err(error("units_per_meter", "must be finite and > 0"));
        }
        let mut out = self.clone();
        out.units_per_meter = Some(units_per_meter);
        let from = match self.units_per_meter {
            Some(u) if u.is_finite() && u > 0.0 => u,
            Some(_) => return Err(error("units_per_meter", "must be finite and > 0")),
            None => return Ok(out),
        };
        if from == units_per_meter {
            return Ok(out);
        }
        let k = units_per_meter / from;
        let v3 = |v: &mut [f32; 3]| v.iter_mut().for_each(|x| *x *= k);
        for s in &mut out.springs {
            for key in SPRING_LENGTH_KEYS {
                if let Some(v) = s.params.get_mut(key) {
                    scale_value(v, k);
                }
            }
        }
        for c in &mut out.correctives {
            for p in &mut c.probes {
                p.threshold *= k;
                v3(&mut p.same.translation);
                v3(&mut p.opposite.translation);
            }
            if let Some(b) = &mut c.btob {
                b.chest_gap *= k;
            }
        }
        for c in &mut out.colliders {
            v3(&mut c.a);
            if c.shape != "plane" {
                v3(&mut c.b); // a plane's b is its normal
            }
            c.radius *= k;
        }
        for c in &mut out.chains {
            for key in CHAIN_LENGTH_KEYS {
                if let Some(v) = c.params.get_mut(key) {
                    scale_value(v, k);
                }
            }
            c.radii.iter_mut().for_each(|r| *r *= k);
            for o in &mut c.vrm_offsets {
                // Stiffness and gravity power are speeds; drag is a fraction.
                o[0] *= k;
                o[2] *= k;
            }
            if let Some(e) = &mut c.end_offset {
                v3(e);
            }
        }
        Ok(out)
    }
}

impl SpringSettings {
    /// The preset with this entry's overrides (the bone index left 0).
    fn resolve(&self, path: &str, upm: f32) -> Result<SpringParams, SettingsError> {
        let mut p = match self.preset.as_deref().unwrap_or("hip") {
            "hip" => SpringParams::hip(0, upm),
            "chest" => SpringParams::chest(0, upm),
            other => {
                return Err(error(
                    format!("{path}.preset"),
                    format!("\"{other}\" is not hip or chest"),
                ))
            }
        };
        // docs/algorithms.md §3 DECISION: a new max_offset also limits each substep,
        // unless the substep limit is given too.
        if self.params.contains_key("max_offset")
            && !self.params.contains_key("max_substep_displacement")
        {
            p.max_substep_displacement = 0.0;
        }
        apply_overrides(&mut p, &self.params, path, &|_, v| Ok(v.clone()))?;
        Ok(p.resolved())
    }
}

impl RigSettings {
    /// The same settings with every spring's and chain's parameters written
    /// out: each preset resolved for `units_per_meter`, with the entry's
    /// overrides applied, and the preset's name kept. A chain's
    /// `simulation_space` stays a bone name (absent: world space). What an
    /// editor shows as typed fields (the Unity package's `SecmoRigSettings`
    /// reads it); building a rig from it gives the same rig. Needs no
    /// skeleton; errors name the entry and key as building a rig would.
    pub fn expanded(&self, units_per_meter: f32) -> Result<RigSettings, SettingsError> {
        if !(units_per_meter.is_finite() && units_per_meter > 0.0) {
            return Err(error("units_per_meter", "must be finite and > 0"));
        }
        let mut out = self.in_units(units_per_meter)?;
        for (i, s) in out.springs.iter_mut().enumerate() {
            let p = s.resolve(&format!("springs[{i}]"), units_per_meter)?;
            s.preset.get_or_insert_with(|| "hip".into());
            s.params = to_map(&p);
        }
        for (i, c) in out.chains.iter_mut().enumerate() {
            let path = format!("chains[{i}]");
            let mut params = c.preset_params(&path, units_per_meter)?;
            // The space is a bone name here; it is resolved with the skeleton.
            let space = c
                .params
                .get("simulation_space")
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            let mut overrides = c.params.clone();
            overrides.remove("simulation_space");
            apply_chain_params(
                &mut params,
                &overrides,
                &format!("{path}.params"),
                &|at, _| Err(error(at, "unreachable: no bone names here")),
            )?;
            if !(space.is_null() || space.is_string()) {
                return Err(error(
                    format!("{path}.params.simulation_space"),
                    "a bone name, or null for world space",
                ));
            }
            c.params = to_map(&params);
            // As `from_rig` writes it: absent for world space.
            if space.is_null() {
                c.params.remove("simulation_space");
            } else {
                c.params.insert("simulation_space".into(), space);
            }
        }
        Ok(out)
    }
}

impl ChainSettings {
    /// The preset this entry starts from.
    fn preset_params(&self, path: &str, upm: f32) -> Result<ChainParams, SettingsError> {
        match self.preset.as_str() {
            "tail" => Ok(ChainParams::tail(upm)),
            "hair" => Ok(ChainParams::hair(upm)),
            "vrm" => Ok(ChainParams::vrm(upm)),
            other => Err(error(
                format!("{path}.preset"),
                format!("\"{other}\" is not tail, hair or vrm"),
            )),
        }
    }

    /// A numeric override, if the settings give one.
    #[must_use]
    pub fn param_f32(&self, key: &str) -> Option<f32> {
        self.params.get(key)?.as_f64().map(|v| v as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;

    fn skeleton() -> Vec<BoneDesc> {
        let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
        vec![
            BoneDesc::new("root", -1, Transform::IDENTITY),
            BoneDesc::new("hips", 0, t(0.0, 100.0, 0.0)),
            BoneDesc::new("hip_helper_l", 1, t(10.0, -5.0, 5.0)),
            BoneDesc::new("head", 1, t(0.0, 60.0, 0.0)),
            BoneDesc::new("tail_1", 1, t(0.0, -5.0, -10.0)),
            BoneDesc::new("tail_2", 4, t(0.0, -5.0, -15.0)),
            BoneDesc::new("tail_3", 5, t(0.0, -5.0, -15.0)),
        ]
    }

    const EXAMPLE: &str = r#"{
      "format": "secmo-rig-settings",
      "version": 1,
      "springs": [ { "bone": "hip_helper_l", "preset": "hip", "damping": 30 } ],
      "colliders": [ { "name": "head", "bone": "head", "shape": "sphere", "radius": 9 } ],
      "chains": [ {
        "preset": "tail", "anchor": "hips", "joints": ["tail_1", "tail_2", "tail_3"],
        "params": { "carry_angle_degrees": 40, "simulation_space": "hips" },
        "colliders": ["head"]
      } ]
    }"#;

    #[test]
    fn a_file_builds_a_rig_with_presets_and_overrides() {
        let s = RigSettings::from_json(EXAMPLE).unwrap();
        let desc = s.to_rig_desc(skeleton(), 100.0, UpAxis::Y).unwrap();
        assert_eq!(desc.springs[0].bone, 2);
        assert_eq!(desc.springs[0].damping, 30.0);
        assert_eq!(desc.springs[0].stiffness, 400.0); // from the hip preset
        assert_eq!(desc.springs[0].max_offset, 2.0); // 2 cm in a cm rig
        let chain = &desc.chains[0];
        assert_eq!(chain.joints, vec![4, 5, 6]);
        assert!((chain.params.carry_angle - 40f32.to_radians()).abs() < 1e-6);
        assert_eq!(chain.params.gravity, 100.0); // 1 m/s² in cm
        assert_eq!(chain.params.simulation_space, 1);
        assert_eq!(chain.colliders, vec![0]);
        assert!(Rig::new(desc).is_ok());
    }

    #[test]
    fn a_number_beyond_float32_is_refused_with_its_path() {
        // Found by fuzz/settings: 6.7e82 read as a float32 is infinite,
        // which the expanded file then wrote as `null`.
        for (from, to, path) in [
            (
                r#""radius": 9"#,
                r#""radius": 6.7e82"#,
                "colliders[0].radius",
            ),
            (
                r#""carry_angle_degrees": 40"#,
                r#""carry_angle_degrees": -1e39"#,
                "chains[0].params.carry_angle_degrees",
            ),
            (
                r#""damping": 30"#,
                r#""damping": 1e400"#,
                "springs[0].damping",
            ),
        ] {
            let text = EXAMPLE.replace(from, to);
            let e = RigSettings::from_json(&text).unwrap_err();
            if path == "springs[0].damping" {
                // JSON's own reader already refuses a number past f64.
                assert!(e.path.starts_with("line "), "{e:?}");
            } else {
                assert_eq!(e.path, path, "{e:?}");
                assert!(e.message.contains("float32 range"), "{e:?}");
            }
        }
        // The largest float32 itself is read.
        let text = EXAMPLE.replace(r#""radius": 9"#, r#""radius": 3.4028234e38"#);
        assert!(RigSettings::from_json(&text).is_ok());
    }

    #[test]
    fn expanded_settings_write_every_parameter_and_build_the_same_rig() {
        let s = RigSettings::from_json(EXAMPLE).unwrap();
        let full = RigSettings::from_json(&s.expanded(100.0).unwrap().to_json()).unwrap();
        // Every key of the parameter structs, the overrides kept.
        let chain_keys = to_map(&ChainParams::tail(1.0));
        for key in chain_keys.keys() {
            assert!(full.chains[0].params.contains_key(key), "chain key {key}");
        }
        assert_eq!(full.chains[0].params["carry_angle_degrees"], 40.0);
        assert_eq!(full.chains[0].params["simulation_space"], "hips");
        assert_eq!(full.chains[0].params["gravity"], 100.0); // the tail preset in cm
        assert_eq!(full.chains[0].preset, "tail");
        assert_eq!(
            full.springs[0].params.len(),
            to_map(&SpringParams::hip(0, 1.0)).len()
        );
        assert_eq!(full.springs[0].params["damping"], 30.0);
        assert_eq!(full.springs[0].preset.as_deref(), Some("hip"));
        let rig = |s: &RigSettings| Rig::new(s.to_rig_desc(skeleton(), 100.0, UpAxis::Y).unwrap());
        let (a, b) = (rig(&s).unwrap(), rig(&full).unwrap());
        assert_eq!(a.springs(), b.springs());
        assert_eq!(a.chains(), b.chains());
        assert_eq!(a.fingerprint(), b.fingerprint());
        // Expanding again changes nothing.
        assert_eq!(full.expanded(100.0).unwrap(), full);
        // Errors name the entry, as building a rig would.
        let mut bad = s.clone();
        bad.chains[0]
            .params
            .insert("bend_rate".into(), "fast".into());
        let e = bad.expanded(100.0).unwrap_err();
        assert_eq!(e.path, "chains[0].params.bend_rate");
        assert!(s.expanded(0.0).is_err());
    }

    #[test]
    fn the_length_keys_are_the_parameters_that_scale_with_the_units() {
        // Presets are made in the rig's units: a key whose preset value
        // changes with units_per_meter is a length, speed or acceleration.
        let check = |small: serde_json::Map<String, serde_json::Value>,
                     large: serde_json::Map<String, serde_json::Value>,
                     listed: &[&str]| {
            for (key, a) in &small {
                let (a, b) = (a.to_string(), large[key].to_string());
                if a != b {
                    assert!(
                        listed.contains(&key.as_str()),
                        "{key} scales but is not listed"
                    );
                }
            }
            for key in listed {
                let (a, b) = (&small[*key], &large[*key]);
                let zero = a.as_f64() == Some(0.0)
                    || a.as_array()
                        .is_some_and(|v| v.iter().all(|x| x.as_f64() == Some(0.0)));
                assert!(
                    zero || a != b,
                    "{key} is listed but its preset does not scale"
                );
            }
        };
        for (a, b) in [
            (ChainParams::tail(1.0), ChainParams::tail(100.0)),
            (ChainParams::hair(1.0), ChainParams::hair(100.0)),
            (ChainParams::vrm(1.0), ChainParams::vrm(100.0)),
        ] {
            check(to_map(&a), to_map(&b), &CHAIN_LENGTH_KEYS);
        }
        for (a, b) in [
            (SpringParams::hip(0, 1.0), SpringParams::hip(0, 100.0)),
            (SpringParams::chest(0, 1.0), SpringParams::chest(0, 100.0)),
        ] {
            check(to_map(&a), to_map(&b), &SPRING_LENGTH_KEYS);
        }
    }

    #[test]
    fn a_file_in_metres_builds_the_same_rig_in_centimetres() {
        // EXAMPLE is in centimetres; the same file declared in metres, built
        // in a centimetre rig, gives the same rig.
        let cm = RigSettings::from_json(EXAMPLE).unwrap();
        let declared = RigSettings {
            units_per_meter: Some(100.0),
            ..cm.clone()
        };
        let m = declared.in_units(1.0).unwrap();
        assert_eq!(m.units_per_meter, Some(1.0));
        assert_eq!(m.springs[0].params["damping"], 30.0); // not a length
        assert!((m.colliders[0].radius - 0.09).abs() < 1e-7);
        let text = m.to_json();
        assert!(text.contains("\"units_per_meter\": 1.0"), "{text}");
        let a = Rig::new(cm.to_rig_desc(skeleton(), 100.0, UpAxis::Y).unwrap()).unwrap();
        let b = Rig::new(
            RigSettings::from_json(&text)
                .unwrap()
                .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(a.colliders(), b.colliders());
        for (x, y) in a.chains().iter().zip(b.chains()) {
            assert_eq!(x.params.carry_angle, y.params.carry_angle);
            assert!((x.params.radius - y.params.radius).abs() < 1e-5);
            assert!((x.params.gravity - y.params.gravity).abs() < 1e-4);
        }
        // A VRM's settings (metres) in an Unreal rig (centimetres).
        let vrm = RigSettings::from_json(
            r#"{"format": "secmo-rig-settings", "version": 1, "units_per_meter": 1,
                "chains": [{"preset": "vrm", "anchor": "hips", "joints": ["tail_1", "tail_2", "tail_3"],
                            "params": {"vrm_stiffness": 0.5, "radius": 0.02},
                            "vrm_offsets": [[0, 0, 0], [0.5, -0.1, 0.2], [1, -0.2, 0.4]]}]}"#,
        )
        .unwrap();
        let desc = vrm.to_rig_desc(skeleton(), 100.0, UpAxis::Y).unwrap();
        assert!((desc.chains[0].params.vrm_stiffness - 50.0).abs() < 1e-4);
        // Per-joint stiffness and gravity power are speeds; drag is not.
        let o = desc.chains[0].vrm_offsets[2];
        assert!(
            (o[0] - 100.0).abs() < 1e-3 && (o[1] + 0.2).abs() < 1e-6,
            "{o:?}"
        );
        assert!((o[2] - 40.0).abs() < 1e-3, "{o:?}");
        assert!((desc.chains[0].params.radius - 2.0).abs() < 1e-5);
        let bad = r#"{"format": "secmo-rig-settings", "version": 1, "units_per_meter": 0}"#;
        assert_eq!(
            RigSettings::from_json(bad).unwrap_err().path,
            "units_per_meter"
        );
    }

    #[test]
    fn export_then_import_gives_the_same_rig() {
        let s = RigSettings::from_json(EXAMPLE).unwrap();
        let rig = Rig::new(s.to_rig_desc(skeleton(), 100.0, UpAxis::Y).unwrap()).unwrap();
        let text = RigSettings::from_rig(&rig).to_json();
        let again = Rig::new(
            RigSettings::from_json(&text)
                .unwrap()
                .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(rig.springs(), again.springs());
        assert_eq!(rig.chains(), again.chains());
        assert_eq!(rig.colliders(), again.colliders());
        assert_eq!(rig.fingerprint(), again.fingerprint());
    }

    #[test]
    fn a_value_of_the_wrong_form_names_its_key() {
        let e =
            RigSettings::from_json(&EXAMPLE.replace("\"damping\": 30", "\"damping\": \"soft\""))
                .unwrap()
                .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
                .unwrap_err();
        assert_eq!(e.path, "springs[0].damping", "{e}");
        let e = RigSettings::from_json(&EXAMPLE.replace(
            "\"carry_angle_degrees\": 40",
            "\"carry_angle_degrees\": true",
        ))
        .unwrap()
        .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
        .unwrap_err();
        assert_eq!(e.path, "chains[0].params.carry_angle_degrees", "{e}");
        // Presets are the single source of the numbers: a file that names
        // only the preset gets exactly the preset.
        let plain = RigSettings::from_json(&EXAMPLE.replace(
            "\"params\": { \"carry_angle_degrees\": 40, \"simulation_space\": \"hips\" },",
            "",
        ))
        .unwrap()
        .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
        .unwrap();
        assert_eq!(plain.chains[0].params, ChainParams::tail(100.0));
    }

    #[test]
    fn errors_name_the_field() {
        let bad_bone = EXAMPLE.replace("\"tail_2\"", "\"tail_9\"");
        let e = RigSettings::from_json(&bad_bone)
            .unwrap()
            .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "chains[0].joints[1]: no bone named \"tail_9\""
        );
        let e = RigSettings::from_json(&EXAMPLE.replace("\"head\"]", "\"hat\"]"))
            .unwrap()
            .to_rig_desc(skeleton(), 100.0, UpAxis::Y)
            .unwrap_err();
        assert_eq!(e.path, "chains[0].colliders[0]");
        // A misspelt parameter is reported by its path when the file is read.
        let e = RigSettings::from_json(&EXAMPLE.replace("\"damping\": 30", "\"dampnig\": 30"))
            .unwrap_err();
        assert_eq!(e.path, "springs[0].dampnig", "{e}");
        let e =
            RigSettings::from_json(&EXAMPLE.replace("\"carry_angle_degrees\"", "\"carry_angle\""))
                .unwrap_err();
        assert_eq!(e.path, "chains[0].params.carry_angle", "{e}");
        let e = RigSettings::from_json(&EXAMPLE.replace("\"version\": 1", "\"version\": 7"))
            .unwrap_err();
        assert_eq!(e.path, "version");
        let e = RigSettings::from_json("{ not json").unwrap_err();
        assert!(e.path.starts_with("line 1"));
    }
}
