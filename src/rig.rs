//! The Rig: an immutable, validated skeleton plus every solver's setup
//! (docs/architecture.md "Two objects"). Built once, shared by characters through `Arc`.

use std::fmt;

use glam::{Affine3A, Mat4, Vec3};

pub use crate::limits::MAX_BONES;
use crate::math::{self, Transform, MAX_SCALE, MIN_SCALE};
pub use crate::rig_error::RigError;
use crate::solvers::chain::{ChainDesc, ChainParams, ChainSetup, LimitSetup, LimitShape};
use crate::solvers::chain_stage::{ChainPlan, ChainRig, NO_SLOT};
use crate::solvers::collide::Collider;
use crate::solvers::constraint::{self, RotationConstraint};
use crate::solvers::corrective::{self, ProximityCorrective};
use crate::solvers::node_constraint::{NodeConstraint, NodeConstraintDesc, NodeConstraintKind};
use crate::solvers::spring::{self, SpringParams};

/// Which world axis points up. The caller states it; secmo never guesses
/// (Unreal: Z-up, centimetres; Unity: Y-up, metres).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum UpAxis {
    #[default]
    Y = 1,
    Z = 2,
}

/// One bone of a [`RigDesc`].
#[derive(Clone, Debug, PartialEq)]
pub struct BoneDesc {
    pub name: String,
    /// Index of the parent bone, `-1` for a root. Parents must precede children.
    pub parent: i32,
    /// Reference (rest) local transform.
    pub reference: Transform,
    /// Inverse bind matrix, when the bone is a skin joint (docs/algorithms.md §1 bind-pose recovery).
    pub inverse_bind: Option<Mat4>,
}

impl BoneDesc {
    #[must_use]
    pub fn new(name: impl Into<String>, parent: i32, reference: Transform) -> Self {
        Self {
            name: name.into(),
            parent,
            reference,
            inverse_bind: None,
        }
    }
}

/// A rotation constraint in a [`RigDesc`]: `bone` keeps its reference
/// orientation relative to `target` (docs/algorithms.md §4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintDesc {
    pub bone: u32,
    pub target: u32,
}

/// Everything needed to build a [`Rig`].
#[derive(Clone, Debug, PartialEq)]
pub struct RigDesc {
    pub bones: Vec<BoneDesc>,
    /// Position units per metre: Unity 1, Unreal 100 (docs/algorithms.md §1).
    pub units_per_meter: f32,
    pub up_axis: UpAxis,
    /// Rotation constraints (docs/algorithms.md §4), run before the springs.
    pub constraints: Vec<ConstraintDesc>,
    /// VRM node constraints (roll, aim, rotation), run after the docs/algorithms.md §4
    /// constraints and before the springs, in dependency order.
    pub node_constraints: Vec<NodeConstraintDesc>,
    pub springs: Vec<SpringParams>,
    /// Proximity correctives (docs/algorithms.md §5), run after the springs.
    pub correctives: Vec<ProximityCorrective>,
    /// Colliders for the chains, attached to bones.
    pub colliders: Vec<Collider>,
    /// Tail and hair chains (docs/algorithms.md §7, §8), run last.
    pub chains: Vec<ChainDesc>,
}

impl Default for RigDesc {
    fn default() -> Self {
        Self {
            bones: Vec::new(),
            units_per_meter: 1.0,
            up_axis: UpAxis::Y,
            constraints: Vec::new(),
            node_constraints: Vec::new(),
            springs: Vec::new(),
            correctives: Vec::new(),
            colliders: Vec::new(),
            chains: Vec::new(),
        }
    }
}

impl RigError {
    /// The message, with the bone's name from `bones` where the error is
    /// about a named bone: `bone 3 ("tail_1"): ...`.
    #[must_use]
    pub fn describe(&self, bones: &[BoneDesc]) -> String {
        let message = self.to_string();
        match self.bone().and_then(|b| bones.get(b)) {
            Some(b) if !b.name.is_empty() => {
                let bone = self.bone().unwrap_or_default();
                let prefix = format!("bone {bone}");
                match message.strip_prefix(&prefix) {
                    Some(rest) => format!("{prefix} (\"{}\"){rest}", b.name),
                    None => message,
                }
            }
            _ => message,
        }
    }
}

/// A condition the rig accepted but the caller should know about.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RigWarning {
    /// The recovered neutral local matrix of this bone is sheared; TRS drops the
    /// shear (docs/algorithms.md §1 DECISION: detect and report, never silently).
    Shear { bone: usize },
    /// Chain `chain` reads `bone` (its anchor, its root's parent or a
    /// collider's bone), which chain `moved_by` moves, but `moved_by` is
    /// not listed before it: the chain sees the bone's animated pose.
    /// List the chain after the one that moves the bone (the VRM importer
    /// orders springs so).
    ChainOrder {
        chain: usize,
        bone: usize,
        moved_by: usize,
    },
    /// The skeleton's size ([`Rig::size_meters`]) is outside 0.05–50 m at
    /// the declared `units_per_meter`: the units are probably wrong (a
    /// centimetre skeleton declared as metres freezes its chains, and its
    /// teleport threshold fires every frame).
    UnusualSize { meters: f32, units_per_meter: f32 },
}

/// The sizes of skeleton [`Rig::size_meters`] accepts without a warning.
pub const MIN_SIZE_M: f32 = 0.05;
pub const MAX_SIZE_M: f32 = 50.0;

/// The largest side of the box around the bones' positions.
fn skeleton_size(component: &[Affine3A]) -> f32 {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for m in component {
        let p = Vec3::from(m.translation);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    (hi - lo).max_element().max(0.0)
}

impl fmt::Display for RigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RigWarning::Shear { bone } => write!(
                f,
                "bone {bone}: bind pose is sheared (non-uniform parent scale with a rotated child); the shear is dropped"
            ),
            RigWarning::ChainOrder {
                chain,
                bone,
                moved_by,
            } => write!(
                f,
                "chain {chain} reads bone {bone}, which chain {moved_by} moves, but that chain is not \
                 listed before it: it sees the bone's animated pose (list it after chain {moved_by})"
            ),
            RigWarning::UnusualSize {
                meters,
                units_per_meter,
            } => write!(
                f,
                "the skeleton is {meters} m across at {units_per_meter} units per metre, outside \
                 {MIN_SIZE_M}–{MAX_SIZE_M} m: check units_per_meter (a centimetre skeleton is 100, \
                 a metre one 1)"
            ),
        }
    }
}

/// Immutable skeleton and solver setup.
#[derive(Debug)]
pub struct Rig {
    pub(crate) names: Vec<String>,
    pub(crate) parents: Vec<i32>,
    /// Neutral local pose: recovered from inverse binds when given (docs/algorithms.md §1).
    pub(crate) reference: Vec<Transform>,
    pub(crate) reference_component: Vec<Affine3A>,
    pub(crate) units_per_meter: f32,
    pub(crate) up_axis: UpAxis,
    /// Sorted by bone index, so a single parents-first pass visits them in order.
    pub(crate) springs: Vec<SpringParams>,
    /// For each bone, the index into `springs` or `u32::MAX`.
    pub(crate) spring_of_bone: Vec<u32>,
    /// Sorted by constrained bone index.
    pub(crate) constraints: Vec<RotationConstraint>,
    /// Node constraints in evaluation (dependency) order.
    pub(crate) node_constraints: Vec<NodeConstraint>,
    /// Sorted by driven bone index.
    pub(crate) correctives: Vec<ProximityCorrective>,
    /// Index of each corrective's first probe in the flat distance arrays.
    pub(crate) first_probe: Vec<u32>,
    pub(crate) probe_count: usize,
    pub(crate) colliders: Vec<Collider>,
    pub(crate) chains: Vec<ChainSetup>,
    /// The chain stage's schedule, built once from the chains.
    pub(crate) chain_plan: ChainPlan,
    /// Every chain's parameters as created, in chain order: a character
    /// shares this list until it changes one of them
    /// (`Character::set_chain_params`), so characters of one rig keep one
    /// copy.
    pub(crate) chain_params: std::sync::Arc<Vec<ChainParams>>,
    pub(crate) particle_count: usize,
    /// One past the last descendant of each bone: bones are parents first,
    /// so every descendant of `b` lies in `b + 1..subtree_end[b]` and FK
    /// after a change of `b` refreshes only that range (ozz-animation's
    /// `LocalToModelJob` from/to).
    pub(crate) subtree_end: Vec<u32>,
    /// Per bone, whether a stage reads or writes its input transform or
    /// that of a bone below it ([`Rig::reads_bone`]).
    pub(crate) reads: Vec<bool>,
    /// The bones each recorded stage writes — rotation and node
    /// constraints, translation springs, correctives — sorted. A stage
    /// record keeps only these (the rest of its pose is the stage before).
    pub(crate) stage_bones: [Vec<u32>; 3],
    pub(crate) warnings: Vec<RigWarning>,
    pub(crate) size_meters: f32,
    pub(crate) fingerprint: u64,
}

impl Rig {
    /// Validates `desc` and builds the rig. Errors name the bone and the reason.
    pub fn new(desc: RigDesc) -> Result<Rig, RigError> {
        let (parents, reads) = validate_bones(&desc)?;
        let Neutral {
            reference,
            reference_component,
            size_meters,
            mut warnings,
        } = neutral_pose(&desc, &parents, &reads)?;
        let (springs, spring_of_bone) = build_springs(&desc.springs, parents.len())?;
        let constraints = build_constraints(
            &desc.constraints,
            &parents,
            &reference,
            &reference_component,
        )?;
        let node_constraints = build_node_constraints(
            &desc.node_constraints,
            &parents,
            &reference,
            &desc.bones,
            &constraints,
        )?;
        let (correctives, first_probe, probe_count) =
            build_correctives(&desc.correctives, parents.len())?;
        validate_colliders(&desc.colliders, parents.len())?;
        let (mut chains, particle_count) =
            build_chains(&desc, &parents, (&reference, &reference_component))?;
        let (chain_plan, late_reads) = ChainPlan::new(&mut chains, &parents, &desc.colliders);
        // A chain reading a frame that a chain not listed before it moves
        // sees the frame's animated pose (chains run in list order).
        warnings.extend(late_reads.iter().map(|r| RigWarning::ChainOrder {
            chain: r.chain,
            bone: r.bone,
            moved_by: r.moved_by,
        }));
        let subtree_end = subtree_ends(&parents);
        let stage_bones = stage_bones(&constraints, &node_constraints, &springs, &correctives);
        let fingerprint = fingerprint(&parents, &springs, &constraints, &correctives, &chains);
        Ok(Rig {
            names: desc.bones.iter().map(|b| b.name.clone()).collect(),
            parents,
            reference,
            reference_component,
            units_per_meter: desc.units_per_meter,
            up_axis: desc.up_axis,
            springs,
            spring_of_bone,
            constraints,
            node_constraints,
            correctives,
            first_probe,
            probe_count,
            colliders: desc.colliders,
            chain_params: std::sync::Arc::new(chains.iter().map(|c| c.params).collect()),
            chains,
            chain_plan,
            particle_count,
            subtree_end,
            reads,
            stage_bones,
            warnings,
            fingerprint,
            size_meters,
        })
    }

    /// What the constraint stage reads.
    pub(crate) fn constraint_setup(&self) -> constraint::Setup<'_> {
        constraint::Setup {
            parents: &self.parents,
            subtree_end: &self.subtree_end,
            constraints: &self.constraints,
            node_constraints: &self.node_constraints,
        }
    }

    /// What the spring stage reads.
    pub(crate) fn spring_setup(&self) -> spring::Setup<'_> {
        spring::Setup {
            parents: &self.parents,
            springs: &self.springs,
            spring_of_bone: &self.spring_of_bone,
        }
    }

    /// What the chain stage reads.
    pub(crate) fn chain_rig(&self) -> ChainRig<'_> {
        ChainRig {
            parents: &self.parents,
            chains: &self.chains,
            colliders: &self.colliders,
            plan: &self.chain_plan,
            params: &self.chain_params,
            particle_count: self.particle_count,
            units_per_meter: self.units_per_meter,
            up: up_vector(self.up_axis),
            reference: self.reference_pose(),
        }
    }

    /// What the corrective stage reads.
    pub(crate) fn corrective_setup(&self) -> corrective::Setup<'_> {
        corrective::Setup {
            parents: &self.parents,
            subtree_end: &self.subtree_end,
            correctives: &self.correctives,
            first_probe: &self.first_probe,
        }
    }

    /// The skeleton's size in metres: the largest side of the box around
    /// its bones in the bind pose, divided by `units_per_meter`. A size
    /// outside 0.05–50 m raises [`RigWarning::UnusualSize`] (a centimetre
    /// skeleton declared as metres, or the reverse); 0 (every bone at one
    /// point) does not.
    #[must_use]
    pub fn size_meters(&self) -> f32 {
        self.size_meters
    }

    /// Whether secmo reads bone `bone`'s input transform: a stage reads or
    /// writes it or a bone below it (a chain joint, anchor or simulation
    /// space, a spring, constraint, corrective or collider bone, or one of
    /// their ancestors). An update refuses a zero scale only on these; any
    /// other bone is passed through as the engine gave it, so a prop hidden
    /// by a zero scale leaves the hair moving.
    #[must_use]
    pub fn reads_bone(&self, bone: usize) -> bool {
        self.reads.get(bone).copied().unwrap_or(false)
    }

    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.parents.len()
    }

    #[must_use]
    pub fn parents(&self) -> &[i32] {
        &self.parents
    }

    #[must_use]
    pub fn bone_name(&self, bone: usize) -> Option<&str> {
        self.names.get(bone).map(String::as_str)
    }

    /// Index of the first bone called `name`.
    #[must_use]
    pub fn find_bone(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Neutral local pose (recovered from inverse binds where given, docs/algorithms.md §1).
    #[must_use]
    pub fn reference_pose(&self) -> &[Transform] {
        &self.reference
    }

    /// Neutral pose in component space (FK of [`Rig::reference_pose`]).
    #[must_use]
    pub fn reference_component_pose(&self) -> &[Affine3A] {
        &self.reference_component
    }

    #[must_use]
    pub fn units_per_meter(&self) -> f32 {
        self.units_per_meter
    }

    #[must_use]
    pub fn up_axis(&self) -> UpAxis {
        self.up_axis
    }

    /// Springs in the order the character stores their state (by bone index).
    #[must_use]
    pub fn springs(&self) -> &[SpringParams] {
        &self.springs
    }

    /// Node constraints in evaluation (dependency) order.
    #[must_use]
    pub fn node_constraints(&self) -> &[NodeConstraint] {
        &self.node_constraints
    }

    /// Rotation constraints in evaluation order (by bone index).
    #[must_use]
    pub fn constraints(&self) -> &[RotationConstraint] {
        &self.constraints
    }

    /// Proximity correctives in evaluation order (by driven bone index).
    #[must_use]
    pub fn correctives(&self) -> &[ProximityCorrective] {
        &self.correctives
    }

    /// Colliders, in descriptor order.
    #[must_use]
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// Chains, in descriptor order.
    #[must_use]
    pub fn chains(&self) -> &[ChainSetup] {
        &self.chains
    }

    /// Particles over all chains (one per joint).
    #[must_use]
    pub fn particle_count(&self) -> usize {
        self.particle_count
    }

    /// Total number of probes over all correctives (length of the distance records).
    #[must_use]
    pub fn probe_count(&self) -> usize {
        self.probe_count
    }

    #[must_use]
    pub fn warnings(&self) -> &[RigWarning] {
        &self.warnings
    }

    /// A hash of the structure (parents, solver bones and ring lengths); a
    /// snapshot only restores into a character of a rig with the same one.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

/// The bone count, units, hierarchy and every bone's transforms of `desc`
/// checked; its parents, and which bones a stage reads ([`bones_read`]).
fn validate_bones(desc: &RigDesc) -> Result<(Vec<i32>, Vec<bool>), RigError> {
    let n = desc.bones.len();
    if n == 0 {
        return Err(RigError::Empty);
    }
    if n > MAX_BONES {
        return Err(RigError::TooManyBones { count: n });
    }
    if !(desc.units_per_meter.is_finite() && desc.units_per_meter > 0.0) {
        return Err(RigError::InvalidUnits);
    }
    let parents: Vec<i32> = desc.bones.iter().map(|b| b.parent).collect();
    validate_parents(&parents)?;
    let reads = bones_read(desc, &parents);
    for (i, b) in desc.bones.iter().enumerate() {
        validate_transform(i, &b.reference, reads[i])?;
        if let Some(m) = &b.inverse_bind {
            if !m.is_finite() {
                return Err(RigError::NonFinite {
                    bone: i,
                    field: "inverse bind matrix",
                });
            }
            // The block that is used: recovery inverts the affine part
            // (Affine3A::from_mat4 drops the last row), so its 3×3
            // must be invertible and the last row must be (0, 0, 0, 1).
            let linear = glam::Mat3::from_mat4(*m);
            let last_row = m.row(3);
            if linear.determinant().abs() < 1e-12
                || m.determinant().abs() < 1e-12
                || (last_row - glam::Vec4::W).abs().max_element() > 1e-5
            {
                return Err(RigError::SingularInverseBind { bone: i });
            }
        }
    }
    Ok((parents, reads))
}

/// The neutral pose of a rig ([`neutral_pose`]).
struct Neutral {
    reference: Vec<Transform>,
    reference_component: Vec<Affine3A>,
    size_meters: f32,
    /// Sheared bones and an unusual size.
    warnings: Vec<RigWarning>,
}

/// The neutral local pose (recovered from the inverse binds where given,
/// docs/algorithms.md §1), its component matrices and the skeleton's size.
fn neutral_pose(desc: &RigDesc, parents: &[i32], reads: &[bool]) -> Result<Neutral, RigError> {
    let (mut reference, mut warnings) = recover_neutral_pose(&desc.bones);
    for (bone, t) in reference.iter_mut().enumerate() {
        let scale_ok = |s: &f32| s.abs() <= MAX_SCALE && (s.abs() >= MIN_SCALE || !reads[bone]);
        let usable = t.is_finite() && t.scale.iter().all(scale_ok);
        if !usable && !reads[bone] {
            // Below a bone hidden by a zero scale, whose frame cannot be
            // inverted: nothing reads it, so it keeps the pose it has.
            *t = desc.bones[bone].reference;
            t.rotation = t.rotation().normalize().to_array();
        }
        if !t.is_finite() || !t.scale.iter().all(scale_ok) {
            return Err(RigError::NonFinite {
                bone,
                field: "bind pose recovered from the inverse binds",
            });
        }
    }
    let mut reference_component = vec![Affine3A::IDENTITY; parents.len()];
    math::forward_kinematics(parents, &reference, &mut reference_component);
    let size_meters = skeleton_size(&reference_component) / desc.units_per_meter;
    // All bones at one point (one bone, or helpers only) say nothing
    // about the units.
    if size_meters > 0.0 && !(MIN_SIZE_M..=MAX_SIZE_M).contains(&size_meters) {
        warnings.push(RigWarning::UnusualSize {
            meters: size_meters,
            units_per_meter: desc.units_per_meter,
        });
    }
    Ok(Neutral {
        reference,
        reference_component,
        size_meters,
        warnings,
    })
}

/// The springs resolved, validated and sorted by bone, and each bone's
/// spring (`u32::MAX`: none).
fn build_springs(
    descs: &[SpringParams],
    n: usize,
) -> Result<(Vec<SpringParams>, Vec<u32>), RigError> {
    let mut springs: Vec<SpringParams> = descs.iter().map(|s| s.resolved()).collect();
    let mut spring_of_bone = vec![u32::MAX; n];
    for (i, s) in springs.iter().enumerate() {
        if s.bone as usize >= n {
            return Err(RigError::SpringBoneOutOfRange {
                spring: i,
                bone: s.bone,
            });
        }
        if spring_of_bone[s.bone as usize] != u32::MAX {
            return Err(RigError::DuplicateSpring {
                spring: i,
                bone: s.bone,
            });
        }
        spring_of_bone[s.bone as usize] = i as u32;
        s.validate()
            .map_err(|reason| RigError::InvalidSpring { spring: i, reason })?;
    }
    springs.sort_by_key(|s| s.bone);
    spring_of_bone.fill(u32::MAX);
    for (i, s) in springs.iter().enumerate() {
        spring_of_bone[s.bone as usize] = i as u32;
    }
    Ok((springs, spring_of_bone))
}

/// The correctives validated and sorted by driven bone, the index of each
/// one's first probe in the flat distance arrays, and the probe count.
fn build_correctives(
    descs: &[ProximityCorrective],
    n: usize,
) -> Result<(Vec<ProximityCorrective>, Vec<u32>, usize), RigError> {
    let mut correctives = descs.to_vec();
    let mut driven_seen = vec![false; n];
    for (i, c) in correctives.iter().enumerate() {
        c.validate(n)
            .map_err(|reason| RigError::InvalidCorrective {
                corrective: i,
                reason,
            })?;
        if std::mem::replace(&mut driven_seen[c.driven as usize], true) {
            return Err(RigError::InvalidCorrective {
                corrective: i,
                reason: "driven bone already has a corrective",
            });
        }
    }
    correctives.sort_by_key(|c| c.driven);
    let mut first_probe = Vec::with_capacity(correctives.len());
    let mut probe_count = 0usize;
    for c in &correctives {
        first_probe.push(probe_count as u32);
        probe_count += c.probes.len();
    }
    Ok((correctives, first_probe, probe_count))
}

fn validate_colliders(colliders: &[Collider], n: usize) -> Result<(), RigError> {
    for (i, c) in colliders.iter().enumerate() {
        c.validate(n).map_err(|reason| RigError::InvalidCollider {
            collider: i,
            reason,
        })?;
    }
    Ok(())
}

/// The chains built ([`build_chain`]) and checked to share no joint, and
/// the particle count.
fn build_chains(
    desc: &RigDesc,
    parents: &[i32],
    reference: (&[Transform], &[Affine3A]),
) -> Result<(Vec<ChainSetup>, usize), RigError> {
    let n = parents.len();
    let mut chains = Vec::with_capacity(desc.chains.len());
    let mut particle_count = 0usize;
    // The chain owning each bone as a joint (NO_SLOT: none).
    let mut joint_owner = vec![NO_SLOT; n];
    for (i, c) in desc.chains.iter().enumerate() {
        let setup = build_chain(
            c,
            parents,
            reference,
            desc.up_axis,
            desc.colliders.len(),
            particle_count,
        )
        .map_err(|reason| RigError::InvalidChain { chain: i, reason })?;
        // Linear in joints: each bone remembers whether a chain owns it.
        if setup
            .joints
            .iter()
            .any(|&j| joint_owner[j as usize] != NO_SLOT)
        {
            return Err(RigError::InvalidChain {
                chain: i,
                reason: "shares a joint with an earlier chain",
            });
        }
        for &j in &setup.joints {
            joint_owner[j as usize] = i as u32;
        }
        particle_count += setup.len();
        chains.push(setup);
    }
    Ok((chains, particle_count))
}

/// One past the last descendant of each bone (bones are parents first).
fn subtree_ends(parents: &[i32]) -> Vec<u32> {
    let mut subtree_end: Vec<u32> = (1..=parents.len() as u32).collect();
    for i in (0..parents.len()).rev() {
        if let Ok(p) = usize::try_from(parents[i]) {
            subtree_end[p] = subtree_end[p].max(subtree_end[i]);
        }
    }
    subtree_end
}

/// The bones each recorded stage writes, sorted ([`Rig::stage_bones`]).
fn stage_bones(
    constraints: &[RotationConstraint],
    node_constraints: &[NodeConstraint],
    springs: &[SpringParams],
    correctives: &[ProximityCorrective],
) -> [Vec<u32>; 3] {
    let sorted = |mut bones: Vec<u32>| {
        bones.sort_unstable();
        bones.dedup();
        bones
    };
    [
        sorted(
            constraints
                .iter()
                .map(|c| c.bone)
                .chain(node_constraints.iter().map(|c| c.destination))
                .collect(),
        ),
        sorted(springs.iter().map(|s| s.bone).collect()),
        sorted(correctives.iter().map(|c| c.driven).collect()),
    ]
}

fn validate_parents(parents: &[i32]) -> Result<(), RigError> {
    let n = parents.len();
    for (i, &p) in parents.iter().enumerate() {
        if p < -1 || p >= n as i32 {
            return Err(RigError::ParentOutOfRange { bone: i, parent: p });
        }
    }
    for (i, &p) in parents.iter().enumerate() {
        if p == i as i32 {
            return Err(RigError::Cycle { bone: i });
        }
        if p > i as i32 {
            // Tell a real cycle from a mere ordering problem: walk up at most n links.
            let mut cur = i as i32;
            for _ in 0..=n {
                cur = parents[cur as usize];
                if cur < 0 {
                    return Err(RigError::ParentAfterChild { bone: i, parent: p });
                }
                if cur == i as i32 {
                    return Err(RigError::Cycle { bone: i });
                }
            }
            return Err(RigError::Cycle { bone: i });
        }
    }
    Ok(())
}

/// Depth-first entry and exit counters of every bone (parents valid and
/// before their children): `c` is in `b`'s subtree iff
/// `enter[b] <= enter[c] && exit[c] <= exit[b]`.
fn subtree_intervals(parents: &[i32]) -> (Vec<u32>, Vec<u32>) {
    let n = parents.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, &p) in parents.iter().enumerate() {
        match usize::try_from(p) {
            Ok(p) => children[p].push(i as u32),
            Err(_) => roots.push(i as u32),
        }
    }
    let (mut enter, mut exit) = (vec![0u32; n], vec![0u32; n]);
    let mut clock = 0u32;
    let mut stack: Vec<(u32, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
    while let Some((b, done)) = stack.pop() {
        clock += 1;
        if done {
            exit[b as usize] = clock;
            continue;
        }
        enter[b as usize] = clock;
        stack.push((b, true));
        stack.extend(children[b as usize].iter().rev().map(|&c| (c, false)));
    }
    (enter, exit)
}

/// Validates the node constraints and orders them so that every constraint
/// runs after those whose destination lies on its inputs' paths to the root:
/// the source (and, for aim, the destination's parent) or an ancestor of it
/// (three-vrm's dependency rule). A circle is an error naming its bones.
fn build_node_constraints(
    descs: &[NodeConstraintDesc],
    parents: &[i32],
    reference: &[Transform],
    bones: &[BoneDesc],
    rotation_constraints: &[RotationConstraint],
) -> Result<Vec<NodeConstraint>, RigError> {
    if descs.is_empty() {
        return Ok(Vec::new());
    }
    let n = parents.len();
    let mut owner = vec![usize::MAX; n];
    for (i, d) in descs.iter().enumerate() {
        let err = |reason| RigError::InvalidNodeConstraint {
            constraint: i,
            reason,
        };
        if d.source as usize >= n || d.destination as usize >= n {
            return Err(err("source or destination index is out of range"));
        }
        if d.source == d.destination {
            return Err(err("a bone cannot be its own source"));
        }
        if !(d.weight.is_finite() && (0.0..=1.0).contains(&d.weight)) {
            return Err(err("weight must be in [0, 1]"));
        }
        let dst = d.destination as usize;
        if owner[dst] != usize::MAX {
            return Err(err("destination already has a node constraint"));
        }
        if rotation_constraints.iter().any(|c| c.bone as usize == dst) {
            return Err(err("destination already has a rotation constraint"));
        }
        owner[dst] = i;
    }
    // The constraints whose destinations lie on the path from `bone` to the root.
    let on_path = |mut bone: i32, out: &mut Vec<usize>| {
        let mut steps = 0;
        while bone >= 0 && steps <= n {
            if owner[bone as usize] != usize::MAX {
                out.push(owner[bone as usize]);
            }
            bone = parents[bone as usize];
            steps += 1;
        }
    };
    let mut dependencies = Vec::with_capacity(descs.len());
    for (i, d) in descs.iter().enumerate() {
        let mut deps = Vec::new();
        on_path(d.source as i32, &mut deps);
        if deps.contains(&i) && matches!(d.kind, NodeConstraintKind::Aim(_)) {
            // The source hangs below the destination: aiming at it moves it.
            return Err(RigError::InvalidNodeConstraint {
                constraint: i,
                reason: "an aim source must not be below its destination",
            });
        }
        if matches!(d.kind, NodeConstraintKind::Aim(_)) {
            on_path(parents[d.destination as usize], &mut deps);
        }
        // A roll or rotation source below its own destination reads only
        // its own local rotation: no dependency on itself.
        deps.retain(|&k| k != i);
        dependencies.push(deps);
    }
    // Depth-first topological order; a cycle is an error naming its bones.
    let order = depth_first_order(&dependencies, |path, dep| {
        let mut names: Vec<&str> = path
            .iter()
            .map(|&c| bones[descs[c].destination as usize].name.as_str())
            .collect();
        names.push(bones[descs[dep].destination as usize].name.as_str());
        Err(RigError::NodeConstraintCycle {
            bones: names.join(" → "),
        })
    })?;
    Ok(order
        .into_iter()
        .map(|i| {
            let d = &descs[i];
            NodeConstraint::new(
                d,
                reference[d.destination as usize].rotation(),
                reference[d.source as usize].rotation(),
            )
        })
        .collect())
}

fn build_constraints(
    descs: &[ConstraintDesc],
    parents: &[i32],
    reference: &[Transform],
    reference_component: &[Affine3A],
) -> Result<Vec<RotationConstraint>, RigError> {
    let n = parents.len();
    let mut out = Vec::with_capacity(descs.len());
    let mut constrained = vec![false; n];
    // Depth-first entry and exit times: "is a descendant of" in O(1).
    let (enter, exit) = if descs.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        subtree_intervals(parents)
    };
    for (i, d) in descs.iter().enumerate() {
        let err = |reason| RigError::InvalidConstraint {
            constraint: i,
            reason,
        };
        if d.bone as usize >= n || d.target as usize >= n {
            return Err(err("bone or target index is out of range"));
        }
        if d.bone == d.target {
            return Err(err("a bone cannot follow itself"));
        }
        if std::mem::replace(&mut constrained[d.bone as usize], true) {
            return Err(err("bone already has a rotation constraint"));
        }
        // A target below the constrained bone would move with it: circular.
        let (b, t) = (d.bone as usize, d.target as usize);
        if enter[b] < enter[t] && exit[t] <= exit[b] {
            return Err(err("target is a descendant of the constrained bone"));
        }
        out.push(RotationConstraint::with_scale_signs(
            d.bone,
            d.target,
            (&reference_component[b], reference[b].scale()),
            (&reference_component[t], reference[t].scale()),
        ));
    }
    out.sort_by_key(|c| c.bone);
    Ok(out)
}

/// Validates one chain and precomputes its bind lengths, its authored arc in
/// the anchor's bind frame and its end point (docs/algorithms.md §7 "missing end helper").
fn build_chain(
    d: &ChainDesc,
    parents: &[i32],
    (reference, reference_component): (&[Transform], &[Affine3A]),
    up_axis: UpAxis,
    collider_count: usize,
    first_particle: usize,
) -> Result<ChainSetup, &'static str> {
    let n = parents.len();
    let count = d.joints.len();
    if count == 0 {
        return Err("a chain needs at least one joint");
    }
    if d.joints.iter().any(|&j| j as usize >= n) || d.anchor as usize >= n {
        return Err("a joint or the anchor is out of range");
    }
    for w in d.joints.windows(2) {
        if parents[w[1] as usize] != w[0] as i32 {
            return Err("each joint must be the parent of the next");
        }
    }
    // The anchor must not move with the chain. Parents come first, so the
    // walk up from it stops below the root's index (an anchor above the
    // root, the usual case, takes no step).
    let root = d.joints[0] as i32;
    let mut cur = d.anchor as i32;
    while cur >= root {
        if cur == root {
            return Err("the anchor is inside the chain");
        }
        cur = parents[cur as usize];
    }
    if !(d.radii.is_empty() || d.radii.len() == count)
        || !(d.weights.is_empty() || d.weights.len() == count)
    {
        return Err("radii and weights must be empty or have one value per joint");
    }
    if d.radii.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
        return Err("a radius is negative or not finite");
    }
    if d.weights.iter().any(|w| !(0.0..=1.0).contains(w)) {
        return Err("a joint weight is outside [0, 1]");
    }
    if !(d.vrm_offsets.is_empty() || d.vrm_offsets.len() == count) {
        return Err("vrm_offsets must be empty or have one value per joint");
    }
    if d.vrm_offsets
        .iter()
        .flatten()
        .any(|o| !(o.is_finite() && o.abs() <= crate::solvers::chain::VRM_MAX))
    {
        return Err("a VRM joint offset is not finite or above 1e7");
    }
    if !(d.limits.is_empty() || d.limits.len() == count) {
        return Err("limits must be empty or have one limit per joint");
    }
    if d.limits.iter().any(|l| {
        !(l.angle.is_finite()
            && l.angle >= 0.0
            && l.yaw.is_finite()
            && l.yaw >= 0.0
            && l.rotation.iter().all(|v| v.is_finite())
            && math::usable_rotation(glam::Quat::from_array(l.rotation)))
    }) {
        return Err("a joint limit has a negative or non-finite angle, or a rotation that cannot be normalised");
    }
    if d.colliders.iter().any(|&c| c as usize >= collider_count) {
        return Err("a collider index is out of range");
    }
    if d.params.simulation_space < -1 || d.params.simulation_space >= n as i32 {
        return Err("simulation_space must be -1 or a bone index");
    }
    if d.end_offset.is_some_and(|e| !e.is_finite()) {
        return Err("end_offset is not finite");
    }
    d.params.validate()?;

    let last = *d.joints.last().expect("non-empty") as usize;
    let position = |b: usize| Vec3::from(reference_component[b].translation);
    let end_offset = match d.end_offset {
        Some(e) => e,
        None => {
            // docs/algorithms.md §7: extend along the incoming tangent, expressed in the last
            // bone's own local frame.
            let incoming = if count >= 2 {
                position(last) - position(d.joints[count - 2] as usize)
            } else {
                match parents[last] {
                    p if p >= 0 => position(last) - position(p as usize),
                    _ => Vec3::ZERO,
                }
            };
            reference_component[last]
                .matrix3
                .inverse()
                .mul_vec3(incoming)
        }
    };
    let anchor_rotation = math::decompose(&reference_component[d.anchor as usize], Vec3::ONE)
        .transform
        .rotation();
    let to_anchor = anchor_rotation.conjugate();
    let up_world = up_vector(up_axis);
    let lateral_world = up_world.cross(forward_vector(up_axis));
    let mut lengths = Vec::with_capacity(count);
    let mut authored = Vec::with_capacity(count);
    let mut axes = Vec::with_capacity(count);
    let mut previous_dir = -up_world;
    // The VRM kernel's frame at each joint: the root parent's rotation
    // (decomposed, as the stage reads it) times the joints' local
    // rotations; it composes rotations only. Each bone axis is the bind
    // link in that frame, so the bind pose is the kernel's rest under any
    // scale above or along the chain (a non-uniform one included, where
    // the joint's own matrix is no rotation of it).
    let mut kernel_frame = match parents[d.joints[0] as usize] {
        p if p >= 0 => math::decompose(&reference_component[p as usize], Vec3::ONE)
            .transform
            .rotation(),
        _ => glam::Quat::IDENTITY,
    };
    for k in 0..count {
        let head = position(d.joints[k] as usize);
        let tip = if k + 1 < count {
            position(d.joints[k + 1] as usize)
        } else {
            reference_component[last].transform_point3(end_offset)
        };
        let link = tip - head;
        let length = link.length();
        let dir = if length > 1e-6 {
            link / length
        } else {
            previous_dir
        };
        previous_dir = dir;
        lengths.push(length);
        authored.push(to_anchor * dir);
        // The link in the joint's bind frame (VRM's bone axis).
        kernel_frame *= reference[d.joints[k] as usize].rotation().normalize();
        axes.push(
            (kernel_frame.conjugate() * link)
                .try_normalize()
                .unwrap_or(Vec3::Y),
        );
    }
    let limits = if d.limits.iter().all(|l| l.shape == LimitShape::None) {
        Vec::new()
    } else {
        d.limits
            .iter()
            .zip(&axes)
            .map(|(l, &axis)| LimitSetup::new(l, axis))
            .collect()
    };
    Ok(ChainSetup {
        joints: d.joints.clone(),
        anchor: d.anchor,
        params: d.params,
        radii: if d.radii.is_empty() {
            vec![d.params.radius; count]
        } else {
            d.radii.clone()
        },
        weights: if d.weights.is_empty() {
            vec![1.0; count]
        } else {
            d.weights.clone()
        },
        end_offset,
        colliders: d.colliders.clone(),
        lengths,
        authored,
        axes,
        up_in_anchor: to_anchor * up_world,
        lateral_in_anchor: to_anchor * lateral_world,
        first_particle,
        anchor_slot: 0,
        parent_slot: 0,
        // All zero is the same as none.
        vrm_offsets: if d.vrm_offsets.iter().flatten().all(|&o| o == 0.0) {
            Vec::new()
        } else {
            d.vrm_offsets.clone()
        },
        limits,
    })
}

/// Per bone, whether a stage of `desc` reads or writes it or a bone below
/// it ([`Rig::reads_bone`]). Indices out of range are skipped here (the
/// stages' own checks refuse them).
fn bones_read(desc: &RigDesc, parents: &[i32]) -> Vec<bool> {
    let n = parents.len();
    let mut reads = vec![false; n];
    let mut mark = |b: u32| {
        if let Some(r) = reads.get_mut(b as usize) {
            *r = true;
        }
    };
    desc.springs.iter().for_each(|s| mark(s.bone));
    for c in &desc.constraints {
        mark(c.bone);
        mark(c.target);
    }
    for c in &desc.node_constraints {
        mark(c.source);
        mark(c.destination);
    }
    for c in &desc.correctives {
        mark(c.driven);
        c.probes.iter().for_each(|p| mark(p.bone));
    }
    desc.colliders.iter().for_each(|c| mark(c.bone));
    for chain in &desc.chains {
        chain.joints.iter().for_each(|&j| mark(j));
        mark(chain.anchor);
        if let Ok(space) = u32::try_from(chain.params.simulation_space) {
            mark(space);
        }
    }
    // Parents precede children: one pass from the last bone marks every
    // ancestor.
    for i in (0..n).rev() {
        if let (true, Ok(p)) = (reads[i], usize::try_from(parents[i])) {
            reads[p] = true;
        }
    }
    reads
}

/// A bone's reference transform: finite, a rotation of non-zero length,
/// and a scale without a zero component where a stage reads the bone.
fn validate_transform(bone: usize, t: &Transform, read: bool) -> Result<(), RigError> {
    let checks: [(&[f32], &'static str); 3] = [
        (&t.translation, "reference translation"),
        (&t.rotation, "reference rotation"),
        (&t.scale, "reference scale"),
    ];
    for (values, field) in checks {
        if !values.iter().all(|v| v.is_finite()) {
            return Err(RigError::NonFinite { bone, field });
        }
    }
    if read && t.scale.iter().any(|s| s.abs() < MIN_SCALE) {
        return Err(RigError::ZeroScale { bone });
    }
    if !math::usable_rotation(t.rotation()) {
        return Err(RigError::ZeroRotation { bone });
    }
    Ok(())
}

/// docs/algorithms.md §1 bind-pose recovery: `W_i⁰ = B_i⁻¹`, `L_i⁰ = (W_parent⁰)⁻¹ · W_i⁰`,
/// decomposed with the reference scale's signs. Bones without an inverse bind
/// keep their reference local transform and are placed by FK from their parent.
fn recover_neutral_pose(bones: &[BoneDesc]) -> (Vec<Transform>, Vec<RigWarning>) {
    let mut world = Vec::with_capacity(bones.len());
    let mut local = Vec::with_capacity(bones.len());
    let mut warnings = Vec::new();
    for (i, b) in bones.iter().enumerate() {
        let parent_world = if b.parent >= 0 {
            world[b.parent as usize]
        } else {
            Affine3A::IDENTITY
        };
        let (l, w) = match &b.inverse_bind {
            Some(inv_bind) => {
                let w = Affine3A::from_mat4(inv_bind.inverse());
                let d = math::decompose(&(parent_world.inverse() * w), b.reference.scale());
                if d.sheared {
                    warnings.push(RigWarning::Shear { bone: i });
                }
                (d.transform, w)
            }
            None => {
                let mut reference = b.reference;
                reference.rotation = reference.rotation().normalize().to_array();
                (reference, parent_world * reference.to_affine())
            }
        };
        local.push(l);
        world.push(w);
    }
    (local, warnings)
}

/// FNV-1a over the structure that snapshot layout depends on.
fn fingerprint(
    parents: &[i32],
    springs: &[SpringParams],
    constraints: &[RotationConstraint],
    correctives: &[ProximityCorrective],
    chains: &[ChainSetup],
) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&(parents.len() as u32).to_le_bytes());
    for p in parents {
        eat(&p.to_le_bytes());
    }
    eat(&(springs.len() as u32).to_le_bytes());
    for s in springs {
        eat(&s.bone.to_le_bytes());
        eat(&s.history_length.to_le_bytes());
    }
    eat(&(constraints.len() as u32).to_le_bytes());
    eat(&(correctives.len() as u32).to_le_bytes());
    for c in correctives {
        eat(&c.driven.to_le_bytes());
        eat(&(c.probes.len() as u32).to_le_bytes());
    }
    eat(&(chains.len() as u32).to_le_bytes());
    for c in chains {
        eat(&(c.joints.len() as u32).to_le_bytes());
    }
    h
}

/// A vector pointing along the rig's up axis.
#[must_use]
pub fn up_vector(axis: UpAxis) -> Vec3 {
    match axis {
        UpAxis::Y => Vec3::Y,
        UpAxis::Z => Vec3::Z,
    }
}

/// The direction a character faces in each convention: +Z for Y-up (glTF,
/// Unity), +X for Z-up (Unreal). With the up axis it fixes the body's lateral
/// axis, `up × forward` (+X for Y-up, +Y for Z-up), which docs/algorithms.md §7's rest
/// curve uses ("drop the lateral component").
#[must_use]
pub fn forward_vector(axis: UpAxis) -> Vec3 {
    match axis {
        UpAxis::Y => Vec3::Z,
        UpAxis::Z => Vec3::X,
    }
}

/// Items in depth-first order of `dependencies` (each item after the ones
/// it lists), starting from each item in index order, on an explicit stack
/// (a file may chain thousands one below the other). Where a dependency
/// closes a circle, `on_cycle` gets the path from the circle's first item
/// to the last one reached and the item closing it: an error stops the
/// walk, `Ok` skips that dependency.
pub(crate) fn depth_first_order<E>(
    dependencies: &[Vec<usize>],
    mut on_cycle: impl FnMut(&[usize], usize) -> Result<(), E>,
) -> Result<Vec<usize>, E> {
    // 1 = on the current path, 2 = placed. A stack entry is an item and
    // its next dependency.
    let mut state = vec![0u8; dependencies.len()];
    let mut order = Vec::with_capacity(dependencies.len());
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    for start in 0..dependencies.len() {
        if state[start] != 0 {
            continue;
        }
        state[start] = 1;
        stack.push((start, 0));
        while let Some(&mut (item, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = dependencies[item].get(*next) {
                *next += 1;
                match state[dep] {
                    0 => {
                        state[dep] = 1;
                        stack.push((dep, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|&(c, _)| c == dep).unwrap_or(0);
                        path.clear();
                        path.extend(stack[from..].iter().map(|&(c, _)| c));
                        on_cycle(&path, dep)?;
                    }
                    _ => {}
                }
            } else {
                state[item] = 2;
                order.push(item);
                stack.pop();
            }
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn bone(parent: i32, t: Vec3) -> BoneDesc {
        BoneDesc::new(format!("b{parent}"), parent, Transform::from_translation(t))
    }

    fn desc(bones: Vec<BoneDesc>) -> RigDesc {
        RigDesc {
            bones,
            ..Default::default()
        }
    }

    #[test]
    fn subtree_ranges_cover_every_descendant_in_breadth_first_order() {
        // 0 ─ 1 ─ 3 ─ 5
        //   └ 2 ─ 4
        let rig = Rig::new(desc(vec![
            bone(-1, Vec3::ZERO),
            bone(0, Vec3::X),
            bone(0, Vec3::Y),
            bone(1, Vec3::X),
            bone(2, Vec3::Y),
            bone(3, Vec3::X),
        ]))
        .unwrap();
        assert_eq!(rig.subtree_end, [6, 6, 5, 6, 5, 6]);
        for b in 0..6 {
            for d in 0..6 {
                let mut up = d as i32;
                while up > b as i32 {
                    up = rig.parents[up as usize];
                }
                if up == b as i32 {
                    assert!(
                        (b..rig.subtree_end[b] as usize).contains(&d),
                        "{d} under {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn rejects_each_broken_parent_array_with_the_bone_index() {
        let e = Rig::new(desc(vec![bone(-1, Vec3::ZERO), bone(5, Vec3::X)])).unwrap_err();
        assert_eq!(e, RigError::ParentOutOfRange { bone: 1, parent: 5 });
        let e = Rig::new(desc(vec![bone(-1, Vec3::ZERO), bone(-3, Vec3::X)])).unwrap_err();
        assert_eq!(
            e,
            RigError::ParentOutOfRange {
                bone: 1,
                parent: -3
            }
        );
        let e = Rig::new(desc(vec![bone(-1, Vec3::ZERO), bone(1, Vec3::X)])).unwrap_err();
        assert_eq!(e, RigError::Cycle { bone: 1 });
        let e = Rig::new(desc(vec![bone(1, Vec3::ZERO), bone(0, Vec3::X)])).unwrap_err();
        assert_eq!(e, RigError::Cycle { bone: 0 });
        let e = Rig::new(desc(vec![
            bone(2, Vec3::ZERO),
            bone(-1, Vec3::X),
            bone(1, Vec3::Y),
        ]))
        .unwrap_err();
        assert_eq!(e, RigError::ParentAfterChild { bone: 0, parent: 2 });
        assert!(e.to_string().contains("bone 0"));
        assert_eq!(Rig::new(desc(vec![])).unwrap_err(), RigError::Empty);
    }

    #[test]
    fn rejects_non_finite_and_zero_scale() {
        let mut b = bone(-1, Vec3::ZERO);
        b.reference.translation[1] = f32::NAN;
        let e = Rig::new(desc(vec![bone(-1, Vec3::ZERO), b.clone()])).unwrap_err();
        assert_eq!(
            e,
            RigError::NonFinite {
                bone: 1,
                field: "reference translation"
            }
        );
        // A zero scale is refused where a stage reads the bone (here a
        // spring on its child), and accepted where none does: a hidden part.
        let mut z = bone(-1, Vec3::ZERO);
        z.reference.scale = [1.0, 0.0, 1.0];
        let mut sprung = desc(vec![z.clone(), bone(0, Vec3::X)]);
        sprung.springs.push(SpringParams::hip(1, 1.0));
        assert_eq!(
            Rig::new(sprung).unwrap_err(),
            RigError::ZeroScale { bone: 0 }
        );
        let hidden = Rig::new(desc(vec![z.clone()])).unwrap();
        assert!(!hidden.reads_bone(0));
        assert_eq!(hidden.reference_pose()[0].scale, [1.0, 0.0, 1.0]);
        // A skin joint below it: its bind pose cannot be taken relative to
        // a parent that cannot be inverted, and it keeps its own.
        let mut joint = bone(0, Vec3::new(0.0, 2.0, 0.0));
        joint.inverse_bind = Some(glam::Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0)));
        let hidden = Rig::new(desc(vec![z, joint.clone()])).unwrap();
        assert_eq!(hidden.reference_pose()[1], joint.reference);
        let mut q = bone(-1, Vec3::ZERO);
        q.reference.rotation = [0.0; 4];
        assert_eq!(
            Rig::new(desc(vec![q])).unwrap_err(),
            RigError::ZeroRotation { bone: 0 }
        );
        let mut r = desc(vec![bone(-1, Vec3::ZERO)]);
        r.units_per_meter = 0.0;
        assert_eq!(Rig::new(r).unwrap_err(), RigError::InvalidUnits);
    }

    #[test]
    fn rejects_bad_springs() {
        let mut d = desc(vec![bone(-1, Vec3::ZERO), bone(0, Vec3::X)]);
        d.springs = vec![SpringParams::hip(7, 100.0)];
        assert_eq!(
            Rig::new(d.clone()).unwrap_err(),
            RigError::SpringBoneOutOfRange { spring: 0, bone: 7 }
        );
        d.springs = vec![SpringParams::hip(1, 100.0), SpringParams::chest(1, 100.0)];
        assert_eq!(
            Rig::new(d.clone()).unwrap_err(),
            RigError::DuplicateSpring { spring: 1, bone: 1 }
        );
        let mut s = SpringParams::hip(1, 100.0);
        s.history_length = 0;
        d.springs = vec![s];
        assert!(matches!(
            Rig::new(d.clone()).unwrap_err(),
            RigError::InvalidSpring { spring: 0, .. }
        ));
        s.history_length = 4;
        s.damping = f32::NAN;
        d.springs = vec![s];
        assert!(matches!(
            Rig::new(d).unwrap_err(),
            RigError::InvalidSpring { spring: 0, .. }
        ));
    }

    #[test]
    fn rejects_bad_vrm_offsets() {
        use crate::solvers::chain::ChainParams;
        let mut d = desc(vec![
            bone(-1, Vec3::ZERO),
            bone(0, Vec3::X),
            bone(1, Vec3::X),
        ]);
        let mut chain = ChainDesc::new(vec![1, 2], 0, ChainParams::vrm(1.0));
        for (offsets, ok) in [
            (vec![], true),
            (vec![[0.0, 0.0, 0.0], [1.0, -0.2, 0.5]], true),
            (vec![[0.0; 3]], false),
            (vec![[0.0; 3], [f32::NAN, 0.0, 0.0]], false),
            (vec![[0.0; 3], [0.0, 0.0, f32::INFINITY]], false),
            (vec![[0.0; 3], [2e7, 0.0, 0.0]], false),
        ] {
            chain.vrm_offsets = offsets.clone();
            d.chains = vec![chain.clone()];
            match Rig::new(d.clone()) {
                Ok(_) => assert!(ok, "{offsets:?} accepted"),
                Err(e) => {
                    assert!(!ok, "{offsets:?}: {e}");
                    assert!(
                        matches!(e, RigError::InvalidChain { chain: 0, .. }),
                        "{offsets:?}: {e:?}"
                    );
                }
            }
        }
        // Offsets move a joint's numbers within their ranges.
        chain.vrm_offsets = vec![[0.0; 3], [-5.0, 2.0, -1.0]];
        d.chains = vec![chain];
        let rig = Rig::new(d).unwrap();
        let values = (1.0, 0.5, 0.3);
        assert_eq!(rig.chains()[0].vrm_joint(0, values), values);
        assert_eq!(rig.chains()[0].vrm_joint(1, values), (0.0, 1.0, 0.0));
    }

    #[test]
    fn bind_pose_recovery_ignores_a_pre_rotated_saved_pose() {
        // docs/algorithms.md §1 (000): the saved local pose had the last joint pre-rotated by
        // ~28°; the inverse binds hold the true neutral pose.
        let true_local = [
            Transform::new(
                Vec3::new(0.0, 1.0, 0.0),
                Quat::from_rotation_y(0.3),
                Vec3::ONE,
            ),
            Transform::new(
                Vec3::new(0.0, 0.0, -0.2),
                Quat::from_rotation_x(-0.4),
                Vec3::ONE,
            ),
            Transform::new(Vec3::new(0.0, 0.0, -0.2), Quat::IDENTITY, Vec3::ONE),
        ];
        let parents = [-1, 0, 1];
        let mut world = [Affine3A::IDENTITY; 3];
        math::forward_kinematics(&parents, &true_local, &mut world);
        let mut bones: Vec<BoneDesc> = (0..3)
            .map(|i| {
                let mut b = BoneDesc::new(format!("tail{i}"), parents[i], true_local[i]);
                b.inverse_bind = Some(Mat4::from(world[i]).inverse());
                b
            })
            .collect();
        let saved_rotation = Quat::from_rotation_x(28f32.to_radians());
        bones[2].reference.rotation = saved_rotation.to_array();
        let rig = Rig::new(desc(bones)).unwrap();
        let recovered = rig.reference_pose()[2];
        assert!(recovered.rotation().dot(Quat::IDENTITY).abs() > 1.0 - 1e-6);
        assert!((recovered.translation() - Vec3::new(0.0, 0.0, -0.2)).length() < 1e-5);
        assert!(rig.warnings().is_empty());
        let r1 = rig.reference_pose()[1];
        assert!(r1.rotation().dot(true_local[1].rotation()).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn sheared_bind_pose_is_reported_as_a_warning() {
        let parent_local = Transform::new(Vec3::ZERO, Quat::IDENTITY, Vec3::new(3.0, 1.0, 1.0));
        // A child world matrix that is rotated but not scaled relative to world:
        // its local relative to the non-uniformly scaled parent is sheared.
        let child_world = Affine3A::from_rotation_z(0.6);
        let mut p = BoneDesc::new("p", -1, parent_local);
        p.inverse_bind = Some(Mat4::from(parent_local.to_affine()).inverse());
        let mut c = BoneDesc::new("c", 0, Transform::IDENTITY);
        c.inverse_bind = Some(Mat4::from(child_world).inverse());
        let rig = Rig::new(desc(vec![p, c])).unwrap();
        assert_eq!(rig.warnings(), &[RigWarning::Shear { bone: 1 }]);
    }

    /// A chain that hangs from another chain's joint, or touches a collider
    /// on one, must come after it: listed before, it is warned about.
    #[test]
    fn a_chain_listed_before_the_chain_moving_what_it_reads_is_warned_about() {
        use crate::solvers::chain::{ChainDesc, ChainParams};
        // 0 ─ 1 ─ 2 ─ 3 (chain "upper": 1, 2) ─ 4 ─ 5 (chain "lower": 4, 5
        // hangs from 3, below upper's joint 2); a sphere on bone 1.
        let bones: Vec<BoneDesc> = (0..6)
            .map(|i| bone(i - 1, if i == 0 { Vec3::ZERO } else { -Vec3::Y * 0.1 }))
            .collect();
        let rig_of = |upper_first: bool, collider: bool| {
            let upper = ChainDesc::new(vec![1, 2], 0, ChainParams::vrm(1.0));
            let mut lower = ChainDesc::new(vec![4, 5], 0, ChainParams::vrm(1.0));
            if collider {
                lower = ChainDesc::new(vec![4, 5], 3, ChainParams::vrm(1.0));
                lower.colliders = vec![0];
            }
            let chains = if upper_first {
                vec![upper, lower]
            } else {
                vec![lower, upper]
            };
            Rig::new(RigDesc {
                bones: bones.clone(),
                colliders: vec![Collider {
                    bone: 1,
                    shape: crate::ColliderShape::Sphere,
                    a: Vec3::ZERO,
                    b: Vec3::ZERO,
                    radius: 0.05,
                }],
                chains,
                ..Default::default()
            })
            .unwrap()
        };
        assert!(rig_of(true, false).warnings().is_empty());
        assert!(rig_of(true, true).warnings().is_empty());
        // Its root's parent (bone 3, below joint 2) and its anchor (0, no
        // chain's) read; only the first is moved.
        let warning = RigWarning::ChainOrder {
            chain: 0,
            bone: 3,
            moved_by: 1,
        };
        assert_eq!(
            rig_of(false, false).warnings(),
            std::slice::from_ref(&warning)
        );
        // The anchor (3) and root parent (3) are one bone, warned once; the
        // collider's bone 1 too.
        assert_eq!(
            rig_of(false, true).warnings(),
            &[
                warning,
                RigWarning::ChainOrder {
                    chain: 0,
                    bone: 1,
                    moved_by: 1
                }
            ]
        );
        assert!(rig_of(false, true).warnings()[1]
            .to_string()
            .contains("list it after chain 1"));
        assert_eq!(
            rig_of(true, true).chain_plan.collider_slots,
            vec![rig_of(true, true)
                .chain_plan
                .chain_frames
                .iter()
                .position(|&b| b == 1)
                .unwrap() as u32]
        );
    }
}
