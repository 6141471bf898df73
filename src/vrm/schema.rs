//! The glTF JSON the VRM reader reads (docs/vrm-mapping.md), as serde
//! structs that take any value. A field of the wrong type is kept as found
//! (a [`Num`], [`Nums`], [`List`] or [`Vector3`] holding it), so the reader
//! notes it, quoting it, and uses the field's default instead of refusing
//! the file (docs/vrm-mapping.md, damaged or out-of-range values); a value
//! that is not an object reads as an empty one ([`Obj`]). Fields a struct
//! does not name are kept in its `extra` (sorted by name) for the reader's
//! "unknown field" notes.

use std::collections::BTreeMap;
use std::ops::Deref;

use serde::de::{DeserializeOwned, Error as _, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Fields an object has beyond those its struct names, by name.
pub(super) type Extra = BTreeMap<String, Value>;

/// A field that may be absent: unlike an `Option`, a `null` is present.
pub(super) struct Field<T>(Option<T>);

impl<T> Default for Field<T> {
    fn default() -> Self {
        Field(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|t| Field(Some(t)))
    }
}

impl<T> Field<T> {
    /// The value, when the field is there.
    pub(super) fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

/// A JSON object read as `T`; any other value reads as an empty object
/// (`T::default()`), which is how the reader takes it.
#[derive(Default)]
pub(super) struct Obj<T> {
    body: T,
    object: bool,
}

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            v @ Value::Object(_) => T::deserialize(v)
                .map(|body| Obj { body, object: true })
                .map_err(D::Error::custom),
            _ => Ok(Obj::default()),
        }
    }
}

impl<T> Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.body
    }
}

impl<T: DeserializeOwned + Default> Obj<T> {
    /// `v` read as `T` (an `Obj` takes any value).
    pub(super) fn of(v: &Value) -> Self {
        Self::deserialize(v).unwrap_or_default()
    }
}

impl<T> Obj<T> {
    /// Whether the value was a JSON object.
    pub(super) fn is_object(&self) -> bool {
        self.object
    }
}

/// The checked number: absent, a number finite as an f32, or anything
/// else, kept so that its note can quote it.
#[derive(Default)]
pub(super) enum Num {
    #[default]
    Absent,
    Finite(f32),
    Damaged(Value),
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(match finite(&v) {
            Some(f) => Num::Finite(f),
            None => Num::Damaged(v),
        })
    }
}

/// A JSON value as an f32, when it is a number finite as one.
fn finite(v: &Value) -> Option<f32> {
    v.as_f64().map(|f| f as f32).filter(|f| f.is_finite())
}

impl Num {
    /// Whether the field is there (whatever its value).
    pub(super) fn is_present(&self) -> bool {
        !matches!(self, Num::Absent)
    }

    /// The number `key` of the object at `path`: `default` when it is
    /// absent; a value that is not a number finite as an f32 is noted and
    /// `default` taken instead, so a damaged field never passes for an
    /// authored one.
    pub(super) fn or(&self, default: f32, path: &str, key: &str, notes: &mut Vec<String>) -> f32 {
        match self {
            Num::Absent => default,
            Num::Finite(f) => *f,
            Num::Damaged(v) => {
                notes.push(format!(
                    "{path}.{key}: {} is not a finite number; {default} is used",
                    super::quoted(v)
                ));
                default
            }
        }
    }
}

/// `N` checked numbers: absent, a list of `N` numbers finite as f32s, or
/// anything else, kept so that its note can quote it.
#[derive(Default)]
pub(super) enum Nums<const N: usize> {
    #[default]
    Absent,
    Finite([f32; N]),
    Damaged(Value),
}

impl<'de, const N: usize> Deserialize<'de> for Nums<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let read: Option<Vec<f32>> = v
            .as_array()
            .filter(|a| a.len() == N)
            .and_then(|a| a.iter().map(finite).collect());
        Ok(match read {
            Some(read) => Nums::Finite(core::array::from_fn(|i| read[i])),
            None => Nums::Damaged(v),
        })
    }
}

impl<const N: usize> Nums<N> {
    /// The numbers `key` of the object at `path`, as [`Num::or`] reads one:
    /// anything but a list of `N` finite numbers is noted and `default`
    /// taken whole (a short `gravityDir` is not completed from the default).
    pub(super) fn or(
        &self,
        default: [f32; N],
        path: &str,
        key: &str,
        notes: &mut Vec<String>,
    ) -> [f32; N] {
        match self {
            Nums::Absent => default,
            Nums::Finite(f) => *f,
            Nums::Damaged(v) => {
                notes.push(format!(
                    "{path}.{key}: {} is not {N} finite numbers; {default:?} is used",
                    super::quoted(v)
                ));
                default
            }
        }
    }
}

/// A list field: absent, a list, or anything else, kept so that its note
/// can quote it.
#[derive(Default)]
pub(super) enum List<T> {
    #[default]
    Absent,
    Items(Vec<T>),
    Damaged(Value),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(a) => List::Items(
                a.into_iter()
                    .map(T::deserialize)
                    .collect::<Result<_, _>>()
                    .map_err(D::Error::custom)?,
            ),
            v => List::Damaged(v),
        })
    }
}

impl<T> List<T> {
    /// The items; none when the field is absent or not a list.
    pub(super) fn items(&self) -> &[T] {
        match self {
            List::Items(items) => items,
            _ => &[],
        }
    }

    /// The list `key` of the object at `path`: empty when it is absent; a
    /// value that is not a list is noted and read as empty.
    pub(super) fn read(&self, path: &str, key: &str, notes: &mut Vec<String>) -> &[T] {
        if let List::Damaged(v) = self {
            notes.push(format!(
                "{path}.{key}: {} is not a list; nothing is read from it",
                super::quoted(v)
            ));
        }
        self.items()
    }
}

/// A VRM 0.x vector `{"x": …, "y": …, "z": …}`: absent, an object, or
/// anything else, kept so that its note can quote it.
#[derive(Default)]
pub(super) enum Vector3 {
    #[default]
    Absent,
    Xyz(Xyz),
    Damaged(Value),
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Xyz {
    x: Num,
    y: Num,
    z: Num,
}

impl<'de> Deserialize<'de> for Vector3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            v @ Value::Object(_) => Vector3::Xyz(Xyz::deserialize(v).map_err(D::Error::custom)?),
            v => Vector3::Damaged(v),
        })
    }
}

impl Vector3 {
    /// The vector at `path` (absent components 0), as [`Num::or`] reads
    /// each; `default` when it is absent, and when it is not an object
    /// (noted).
    pub(super) fn or(&self, default: [f32; 3], path: &str, notes: &mut Vec<String>) -> [f32; 3] {
        match self {
            Vector3::Absent => default,
            Vector3::Xyz(v) => [("x", &v.x), ("y", &v.y), ("z", &v.z)]
                .map(|(axis, n)| n.or(0.0, path, axis, notes)),
            Vector3::Damaged(v) => {
                notes.push(format!(
                    "{path}: {} is not an {{x, y, z}} vector; {default:?} is used",
                    super::quoted(v)
                ));
                default
            }
        }
    }
}

/// A flag: `true` only when the value is JSON `true`.
#[derive(Default)]
pub(super) struct Flag(pub(super) bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Flag(Value::deserialize(d)?.as_bool().unwrap_or(false)))
    }
}

/// The parts of a glTF the reader reads beyond the node hierarchy.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Gltf {
    pub(super) nodes: List<Obj<Node>>,
    pub(super) extensions: Obj<Extensions>,
}

impl Gltf {
    /// What the reader reads of `json` (nothing when it is not an object).
    /// Every field takes any value, so this fails on no JSON.
    pub(super) fn of(json: &Value) -> Result<Self, serde_json::Error> {
        match json {
            Value::Object(_) => Self::deserialize(json),
            _ => Ok(Self::default()),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Extensions {
    #[serde(rename = "VRMC_springBone")]
    pub(super) spring_bone: Field<Obj<SpringBone>>,
    #[serde(rename = "VRM")]
    pub(super) vrm: Obj<Vrm0>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Node {
    pub(super) extensions: Obj<NodeExtensions>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct NodeExtensions {
    #[serde(rename = "VRMC_node_constraint")]
    pub(super) node_constraint: Field<Obj<NodeConstraint>>,
}

/// `VRMC_node_constraint` 1.0 on a node.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct NodeConstraint {
    pub(super) constraint: Field<Obj<Constraint>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Constraint {
    pub(super) roll: Field<Obj<ConstraintBody>>,
    pub(super) aim: Field<Obj<ConstraintBody>>,
    pub(super) rotation: Field<Obj<ConstraintBody>>,
    #[serde(flatten)]
    pub(super) extra: Extra,
}

/// A roll, aim or rotation constraint (each reads its own axis field).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct ConstraintBody {
    pub(super) source: Field<Value>,
    pub(super) roll_axis: Field<Value>,
    pub(super) aim_axis: Field<Value>,
    pub(super) weight: Num,
    #[serde(rename = "extensions")]
    _extensions: IgnoredAny,
    #[serde(rename = "extras")]
    _extras: IgnoredAny,
    #[serde(flatten)]
    pub(super) extra: Extra,
}

/// `VRMC_springBone` 1.0.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct SpringBone {
    pub(super) spec_version: Field<Value>,
    pub(super) colliders: List<Obj<Collider>>,
    pub(super) collider_groups: List<Obj<ColliderGroup>>,
    pub(super) springs: List<Obj<Spring>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Collider {
    pub(super) node: Field<Value>,
    pub(super) shape: Field<Obj<Shape>>,
    pub(super) extensions: Obj<ColliderExtensions>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ColliderExtensions {
    #[serde(rename = "VRMC_springBone_extended_collider")]
    pub(super) extended_collider: Field<Obj<ExtendedCollider>>,
}

/// `VRMC_springBone_extended_collider` 1.0.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct ExtendedCollider {
    pub(super) spec_version: Field<Value>,
    pub(super) shape: Field<Obj<Shape>>,
}

/// A collider's shape: the schema allows one of these.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Shape {
    pub(super) sphere: Field<Obj<ShapeBody>>,
    pub(super) capsule: Field<Obj<ShapeBody>>,
    pub(super) plane: Field<Obj<ShapeBody>>,
}

impl Shape {
    /// The shapes given, in the order sphere, capsule, plane.
    pub(super) fn given(&self) -> Vec<&'static str> {
        [
            ("sphere", &self.sphere),
            ("capsule", &self.capsule),
            ("plane", &self.plane),
        ]
        .into_iter()
        .filter(|(_, body)| body.get().is_some())
        .map(|(kind, _)| kind)
        .collect()
    }
}

/// A sphere (offset, radius, inside), capsule (and tail) or plane (offset,
/// normal): each shape reads its own fields.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ShapeBody {
    pub(super) offset: Nums<3>,
    pub(super) tail: Nums<3>,
    pub(super) normal: Nums<3>,
    pub(super) radius: Num,
    pub(super) inside: Flag,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ColliderGroup {
    pub(super) colliders: List<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Spring {
    pub(super) joints: List<Obj<Joint>>,
    pub(super) collider_groups: List<Value>,
    pub(super) center: Field<Value>,
    pub(super) extensions: Obj<Extra>,
    #[serde(rename = "name")]
    _name: IgnoredAny,
    #[serde(rename = "extras")]
    _extras: IgnoredAny,
    #[serde(flatten)]
    pub(super) extra: Extra,
}

/// A spring's joint: the fields the VRM preset applies.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Joint {
    pub(super) node: Field<Value>,
    pub(super) hit_radius: Num,
    pub(super) stiffness: Num,
    pub(super) gravity_power: Num,
    pub(super) gravity_dir: Nums<3>,
    pub(super) drag_force: Num,
    pub(super) extensions: Obj<Extra>,
    #[serde(rename = "extras")]
    _extras: IgnoredAny,
    #[serde(flatten)]
    pub(super) extra: Extra,
}

/// `VRMC_springBone_limit` on a joint.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct LimitExtension {
    pub(super) spec_version: Field<Value>,
    pub(super) limit: Obj<Limit>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Limit {
    pub(super) cone: Field<Obj<Angles>>,
    pub(super) hinge: Field<Obj<Angles>>,
    pub(super) spherical: Field<Obj<Angles>>,
    #[serde(rename = "extensions")]
    _extensions: IgnoredAny,
    #[serde(rename = "extras")]
    _extras: IgnoredAny,
    #[serde(flatten)]
    pub(super) extra: Extra,
}

/// A limit form: a cone's or hinge's `angle`, a spherical's `pitch` and
/// `yaw`, and the `rotation` of each.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Angles {
    pub(super) angle: Num,
    pub(super) pitch: Num,
    pub(super) yaw: Num,
    pub(super) rotation: Nums<4>,
}

/// The VRM 0.x extension (only its spring bones are read).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Vrm0 {
    pub(super) secondary_animation: Field<Obj<Secondary>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Secondary {
    pub(super) collider_groups: List<Obj<Vrm0ColliderGroup>>,
    pub(super) bone_groups: List<Obj<BoneGroup>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Vrm0ColliderGroup {
    pub(super) node: Field<Value>,
    pub(super) colliders: List<Obj<Vrm0Collider>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Vrm0Collider {
    pub(super) offset: Vector3,
    pub(super) radius: Num,
}

/// A VRM 0.x bone group: the fields the VRM preset applies.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct BoneGroup {
    pub(super) stiffiness: Num,
    pub(super) gravity_power: Num,
    pub(super) gravity_dir: Vector3,
    pub(super) drag_force: Num,
    pub(super) center: Field<Value>,
    pub(super) hit_radius: Num,
    pub(super) bones: List<Value>,
    pub(super) collider_groups: List<Value>,
    pub(super) extensions: Obj<Extra>,
    #[serde(rename = "comment")]
    _comment: IgnoredAny,
    #[serde(rename = "extras")]
    _extras: IgnoredAny,
    #[serde(flatten)]
    pub(super) extra: Extra,
}
