//! One chain solver for tails (docs/algorithms.md §7) and hair (docs/algorithms.md §8): two presets of
//! the same kernel, as docs/architecture.md asks.
//!
//! A chain is a run of joints `j_0 … j_{N−1}`, each the parent of the next.
//! Link `i` goes from joint `i` (its head) to joint `i+1` (its tip; the last
//! link ends at the end point). One particle per link tip, in the simulation
//! frame (world space, optionally carried by a chosen bone). The rest arc is
//! kept in the **anchor** frame (hips for a tail, head for hair) and the rest
//! target of link `i` is `head_i + R_anchor · ℓ_i · r_i` — never relative to
//! the already-bent parent (docs/algorithms.md §8: that accumulates into tentacle curls).

use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3};

use crate::math::Transform;
use crate::solvers::collide::{self, PlacedCollider};

/// The fixed chain substep, exactly 1/120 s (docs/algorithms.md §8: 120 steps/s).
pub const CHAIN_STEP: f64 = 1.0 / 120.0;

/// Which integrator moves the particles (the Rust view of
/// [`ChainParams::integrator`] and its five numbers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Integrator {
    /// docs/algorithms.md §7: `p̈ = ω²(T − p) − 2ζω ṗ + g`, ω = 2πf, f from `frequency_root`
    /// at the base to `frequency_tip` at the tip; semi-implicit Euler.
    Spring {
        frequency_root: f32,
        frequency_tip: f32,
        damping_ratio: f32,
    },
    /// docs/algorithms.md §8: `u = e^{−c h}[v + h(k(r − x) + g)]`, `y = x + h u`.
    ExponentialDamping { stiffness: f32, damping: f32 },
    /// The VRMC_springBone 1.0 verlet step as UniVRM and three-vrm run it
    /// (docs/vrm-mapping.md), at secmo's fixed 120 Hz substep:
    /// `next = x + (x − x_prev)(1 − drag) + axis·stiffness·h + g·power·h`,
    /// the rest axis taken through the already-moved parent joint.
    Vrm {
        stiffness: f32,
        drag_force: f32,
        gravity_power: f32,
    },
}

/// Every tunable of a chain, defined once: this `repr(C)` Pod struct is the
/// Rust type, the C ABI's `SecmoChainParams` (cbindgen renames it; the C#,
/// C++ and Unreal mirrors follow the header) and, through its serde
/// attributes, the `params` object of a chain in the rig-settings file
/// (angles in degrees there, flags as booleans, the integrator by name).
///
/// Lengths are in the rig's position units, times in seconds, angles in
/// radians. Presets: [`ChainParams::tail`], [`ChainParams::hair`],
/// [`ChainParams::vrm`]; each carries the other integrators' numbers too, so
/// switching `integrator` alone gives that integrator's defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[cfg_attr(
    feature = "settings",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ChainParams {
    /// `sizeof(SecmoChainParams)` (C ABI versioning; the presets set it and
    /// Rust code never needs to touch it). Shipped sizes: 136 (ABI 1), 140
    /// (ABI 1.1, `settle_speedup`), 144 (ABI 1.2, `teleport_restart`), 152 (ABI 1.3,
    /// `rest_source`, `animation_inertia`), 156 (ABI 1.5, `key_margin`);
    /// any other is refused.
    #[cfg_attr(feature = "settings", serde(skip, default = "ChainParams::size"))]
    pub struct_size: u32,
    /// `SECMO_INTEGRATOR_SPRING` (0, tails),
    /// `SECMO_INTEGRATOR_EXPONENTIAL_DAMPING` (1, hair) or
    /// `SECMO_INTEGRATOR_VRM` (2, VRM spring bones). Settings: `"spring"`,
    /// `"exponential_damping"` or `"vrm"`.
    #[cfg_attr(feature = "settings", serde(with = "serde_integrator"))]
    pub integrator: u32,
    /// Spring integrator (tails): natural frequency at the root, Hz [0.9].
    pub frequency_root: f32,
    /// Spring integrator: natural frequency at the tip, Hz [0.45].
    pub frequency_tip: f32,
    /// Spring integrator: damping ratio ζ [0.65].
    pub damping_ratio: f32,
    /// Exponential-damping integrator (hair): restoring k, 1/s² (default 40).
    pub stiffness: f32,
    /// Exponential-damping integrator: velocity damping c, 1/s (default 10).
    pub damping: f32,
    /// Gravity, units/s² (tail [1 m/s²], hair [0, as VRM's gravityPower]).
    pub gravity: f32,
    /// World gravity direction; zero means "down the rig's up axis".
    pub gravity_direction: [f32; 3],
    /// Whole-tail lift about the anchor's lateral axis, radians, distributed
    /// as `C·(i+1)/N` over the links (docs/algorithms.md §7) [tail 50°, hair 0].
    /// Settings: `carry_angle_degrees`.
    #[cfg_attr(
        feature = "settings",
        serde(rename = "carry_angle_degrees", with = "serde_degrees")
    )]
    pub carry_angle: f32,
    /// Rest curve β, 0 to 1: 0 centred arc, 1 authored curve (docs/algorithms.md §7) (default tail 0, hair 1).
    pub rest_curve: f32,
    /// Bend coupling rate k, 1/s; α = 1 − e^(−k·h) (docs/algorithms.md §7) [tail 12, hair 0 = off].
    pub bend_rate: f32,
    /// Elastic bend limit between neighbouring links, radians (docs/algorithms.md §7)
    /// [tail 30°, hair π = off]. Settings: `bend_limit_degrees`.
    #[cfg_attr(
        feature = "settings",
        serde(rename = "bend_limit_degrees", with = "serde_degrees")
    )]
    pub bend_limit: f32,
    /// 1: keep particles behind the plane through the chain root facing
    /// forward (docs/algorithms.md §7) [tail 1, hair 0].
    #[cfg_attr(feature = "settings", serde(with = "serde_flag"))]
    pub forward_plane: u32,
    /// 0: the rope projection keeps the swinging velocity and never feeds the
    /// position correction back (tail, docs/algorithms.md §7); 1: velocity is rebuilt from
    /// positions (hair, docs/algorithms.md §8).
    #[cfg_attr(feature = "settings", serde(with = "serde_flag"))]
    pub velocity_from_positions: u32,
    /// 1: floor contact (docs/algorithms.md §7) [tail 1, hair 0].
    #[cfg_attr(feature = "settings", serde(with = "serde_flag"))]
    pub floor_enabled: u32,
    /// Floor height along the up axis, world units (default 0).
    pub floor_height: f32,
    /// Clearance ρ above the floor [0.025 m].
    pub floor_clearance: f32,
    /// Inelastic contact damping γ, 1/s (default 8).
    pub floor_damping: f32,
    /// Link radius where the chain gives no per-joint radii [tail 0.02 m, hair 0.01 m].
    pub radius: f32,
    /// Blend of the simulated rotations over the animation, 0..1 (default 1).
    pub weight: f32,
    /// How strongly the character's wind acts on this chain (default 1).
    pub wind_factor: f32,
    /// Scales the substep rate (slow motion < 1), from 0.001 to 100 (default 1).
    pub time_factor: f32,
    /// Below this importance the chain is not simulated and follows the animation (default 0).
    pub lod_skip_below: f32,
    /// Below this importance the chain is simulated on every other update (default 0).
    pub lod_half_below: f32,
    /// Root moves farther than this in one update: teleport (units) [1 m].
    pub teleport_distance: f32,
    /// Root turns more than this in one update: teleport, radians [60°].
    /// Settings: `teleport_angle_degrees`.
    #[cfg_attr(
        feature = "settings",
        serde(rename = "teleport_angle_degrees", with = "serde_degrees")
    )]
    pub teleport_angle: f32,
    /// −1: particles live in world space. Otherwise the bone whose motion
    /// carries them (a vehicle, a platform), with `inertia` of it kept.
    /// Settings: a bone name, or absent for world space.
    pub simulation_space: i32,
    /// Fraction of the simulation-space motion the particles resist, 0..1 (default 0).
    pub inertia: f32,
    /// VRM integrator: VRM `stiffness` times the rig's units per metre,
    /// units/s (the rest-axis pull per second) [1 m/s].
    pub vrm_stiffness: f32,
    /// VRM integrator: VRM `dragForce`, the fraction of the per-step motion
    /// lost, 0..1 [0.5].
    pub vrm_drag_force: f32,
    /// VRM integrator: VRM `gravityPower` times the rig's units per metre,
    /// units/s along `gravity_direction` (default 0).
    pub vrm_gravity_power: f32,
    /// Tail and hair integrators: how many times faster the chain's
    /// remaining motion plays once its input has rested, in [1, 32] [tail
    /// 8, hair 8; VRM: ignored]. Half a second after the chain's input
    /// (anchor, root, the root's parent, simulation space, colliders, wind)
    /// last changed, each 120 Hz step runs more of the same substeps, ramping
    /// over half a second to this many: the same motion toward the same
    /// resting pose, played faster, so the chain settles to < 0.001 mm per
    /// frame within 2 s instead of creeping for seconds (the docs/algorithms.md §7 tail
    /// took over 12 s). A chain at rest then sleeps and costs nothing until
    /// its input changes; any input change returns it to normal speed at
    /// once. Rounded to whole substeps. 1: off (the pure docs/algorithms.md §7/§8 timing,
    /// and no sleep). Added in ABI 1.1 (a 136-byte struct gets the preset's
    /// value). docs/chains.md "Coming to rest".
    pub settle_speedup: f32,
    /// What a teleport does to the chain (an explicit teleport, or the root
    /// moving or turning past `teleport_distance` / `teleport_angle` in one
    /// update). 0 (every preset): **carry** — the particles and their
    /// velocities move rigidly with the root, so a chain sagging under
    /// gravity arrives sagging and swings on. 1: **restart** — the particles
    /// start again on the animated pose (a VRM joint the animation does not
    /// touch: its bind pose) with no velocity, as three-vrm's
    /// `VRMSpringBoneManager.reset()`; a chain under gravity then falls from
    /// there, starting one substep before the update's end at any input
    /// rate. A chain resting on its input's pose (`rest_source`) restarts
    /// either way: the pose is its equilibrium, and a cut to another clip
    /// would carry the last clip's shape. Settings: a boolean. Added in ABI
    /// 1.2 (a 136- or 140-byte struct gets the preset's value, carry).
    /// docs/chains.md "Teleport".
    #[cfg_attr(feature = "settings", serde(with = "serde_flag"))]
    pub teleport_restart: u32,
    /// Where each substep's rest comes from (tail and hair integrators; the
    /// VRM integrator keeps VRMC_springBone's rule, the initial local
    /// rotation, whatever this says). 0 (`REST_AUTO`, the tail and hair
    /// presets): the input's pose while the input animates the chain (a
    /// chain joint's local rotation more than 1e-3 rad from the reference
    /// pose) and for 2.5 s after, the rest arc (carry angle, rest
    /// curve, gravity) where it does not. 1 (`REST_BIND`): always the rest
    /// arc. 2 (`REST_ANIMATED`): always the input's
    /// pose. On the input's pose each link's rest direction is the input's,
    /// in the anchor frame, interpolated between inputs as the colliders
    /// are, and the links turn with it: the animation's own motion is
    /// carried and the springs add lag and follow-through from the body's
    /// motion around it ([`ChainParams::animation_inertia`] of it). The
    /// animation already carries the chain, so neither the carry angle,
    /// gravity (which would sag it below the keyed pose) nor the forward
    /// plane acts there. Settings:
    /// `"auto"`, `"bind"` or `"animated"`. Added in ABI 1.3 (a 136-, 140- or
    /// 144-byte struct gets the preset's value, auto, or the chain's
    /// current choice in `secmo_character_set_chain_params`).
    /// docs/chains.md "Around the animation".
    #[cfg_attr(feature = "settings", serde(with = "serde_rest_source"))]
    pub rest_source: u32,
    /// Around the animation ([`ChainParams::rest_source`]): the share of
    /// the body's motion the springs act on at the chain's tip, 0..1 [tail
    /// and hair 0.2]. At every substep link k of n keeps
    /// `animation_inertia · s³` (s = (k + 1) / n) of its frame's motion
    /// since the last substep (the anchor's turn about the chain root and
    /// the root's travel) as inertia and rides the rest, as a simulation
    /// space's particles keep `inertia` of its motion: the root rides the
    /// body and the tip keeps the whole share. 0 holds the chain on the
    /// animation, 1 gives the tip the whole body's motion (a loose tail
    /// whipping at every turn of the hips). No effect on the rest arc.
    /// Added in ABI 1.3 with `rest_source`. docs/chains.md "Around the
    /// animation".
    pub animation_inertia: f32,
    /// Around the animation ([`ChainParams::rest_source`]): how far past
    /// the input's pose a joint's output may turn away from its reference
    /// pose, about each axis of the joint's reference frame, in radians,
    /// ≥ 0 [tail and hair 0]. At 0 no joint turns farther from its
    /// reference (bind) pose than the input turns it, about any axis, so
    /// the skin painted for the clip stretches no more than the clip
    /// stretches it; the springs' lag and follow-through show where they
    /// turn the joint back toward its reference pose or within the input's
    /// own turn. π or more: no guard. The VRM integrator and the rest arc ignore
    /// it. Settings: `key_margin_degrees`. Added in ABI 1.5 (a smaller
    /// struct gets the preset's value, 0, or the chain's current one in
    /// `secmo_character_set_chain_params`). docs/chains.md "The skin
    /// guard", docs/algorithms.md §7.
    #[cfg_attr(
        feature = "settings",
        serde(rename = "key_margin_degrees", with = "serde_degrees")
    )]
    pub key_margin: f32,
}

impl ChainParams {
    /// [`ChainParams::integrator`] for the docs/algorithms.md §7 spring.
    pub const SPRING: u32 = 0;
    /// [`ChainParams::integrator`] for the docs/algorithms.md §8 exponential damping.
    pub const EXPONENTIAL_DAMPING: u32 = 1;
    /// [`ChainParams::integrator`] for the VRMC_springBone verlet step.
    pub const VRM: u32 = 2;
    /// [`ChainParams::teleport_restart`]: a teleport carries the chain
    /// rigidly (every preset's value).
    pub const TELEPORT_CARRY: u32 = 0;
    /// [`ChainParams::teleport_restart`]: a teleport restarts the chain on
    /// its animated pose, at rest (three-vrm's `reset()`).
    pub const TELEPORT_RESTART: u32 = 1;
    /// [`ChainParams::rest_source`]: the input's pose where it animates the
    /// chain, the rest arc elsewhere (the tail and hair presets).
    pub const REST_AUTO: u32 = 0;
    /// [`ChainParams::rest_source`]: always the rest arc.
    pub const REST_BIND: u32 = 1;
    /// [`ChainParams::rest_source`]: always the input's pose.
    pub const REST_ANIMATED: u32 = 2;

    /// `size_of::<ChainParams>()` as the C ABI's `struct_size`.
    #[must_use]
    pub const fn size() -> u32 {
        core::mem::size_of::<ChainParams>() as u32
    }

    /// docs/algorithms.md §7 defaults for a tail in a rig of `units_per_meter`.
    #[must_use]
    pub fn tail(units_per_meter: f32) -> Self {
        let m = units_per_meter;
        Self {
            struct_size: Self::size(),
            integrator: Self::SPRING,
            frequency_root: 0.9,
            frequency_tip: 0.45,
            damping_ratio: 0.65,
            // The hair preset's numbers, for a switch of integrator.
            stiffness: 40.0,
            damping: 10.0,
            gravity: 1.0 * m,
            gravity_direction: [0.0; 3],
            carry_angle: 50f32.to_radians(),
            rest_curve: 0.0,
            bend_rate: 12.0,
            bend_limit: std::f32::consts::FRAC_PI_6,
            forward_plane: 1,
            velocity_from_positions: 0,
            floor_enabled: 1,
            floor_height: 0.0,
            floor_clearance: 0.025 * m,
            floor_damping: 8.0,
            radius: 0.02 * m,
            weight: 1.0,
            wind_factor: 1.0,
            time_factor: 1.0,
            lod_skip_below: 0.0,
            lod_half_below: 0.0,
            teleport_distance: 1.0 * m,
            teleport_angle: 60f32.to_radians(),
            simulation_space: -1,
            inertia: 0.0,
            vrm_stiffness: 1.0 * m,
            vrm_drag_force: 0.5,
            vrm_gravity_power: 0.0,
            settle_speedup: SETTLE_SPEEDUP,
            teleport_restart: Self::TELEPORT_CARRY,
            rest_source: Self::REST_AUTO,
            animation_inertia: ANIMATION_INERTIA,
            key_margin: 0.0,
        }
    }

    /// A VRM spring bone (VRMC_springBone 1.0 defaults: stiffness 1,
    /// dragForce 0.5, gravityPower 0, hitRadius 0) in a rig of
    /// `units_per_meter`. Only the VRM numbers, `gravity_direction`, the
    /// radius, colliders, weight, wind, time factor, LOD, teleport and
    /// simulation space act on it; the tail and hair shaping (carry, bend,
    /// forward plane, floor) does not.
    #[must_use]
    pub fn vrm(units_per_meter: f32) -> Self {
        Self {
            integrator: Self::VRM,
            gravity: 0.0,
            gravity_direction: [0.0, -1.0, 0.0],
            radius: 0.0,
            settle_speedup: 1.0,
            rest_source: Self::REST_BIND,
            ..Self::hair(units_per_meter)
        }
    }

    /// docs/algorithms.md §8 defaults for a hair strand in a rig of `units_per_meter`.
    #[must_use]
    pub fn hair(units_per_meter: f32) -> Self {
        Self {
            // k = 40 /s² (ω ≈ 6.3 rad/s) with c = 10 /s (ζ ≈ 0.8): a strand
            // swings visibly and settles within about two seconds, as VRM and
            // KawaiiPhysics users expect (c = 4 left the tip swaying 0.1 mm
            // per frame 8 s after the head stopped).
            integrator: Self::EXPONENTIAL_DAMPING,
            stiffness: 40.0,
            damping: 10.0,
            gravity: 0.0,
            carry_angle: 0.0,
            rest_curve: 1.0,
            bend_rate: 0.0,
            bend_limit: std::f32::consts::PI,
            forward_plane: 0,
            velocity_from_positions: 1,
            floor_enabled: 0,
            radius: 0.01 * units_per_meter,
            ..Self::tail(units_per_meter)
        }
    }

    /// The integrator with its numbers.
    #[must_use]
    pub fn integrator(&self) -> Integrator {
        if self.integrator == Self::VRM {
            Integrator::Vrm {
                stiffness: self.vrm_stiffness,
                drag_force: self.vrm_drag_force,
                gravity_power: self.vrm_gravity_power,
            }
        } else if self.integrator == Self::EXPONENTIAL_DAMPING {
            Integrator::ExponentialDamping {
                stiffness: self.stiffness,
                damping: self.damping,
            }
        } else {
            Integrator::Spring {
                frequency_root: self.frequency_root,
                frequency_tip: self.frequency_tip,
                damping_ratio: self.damping_ratio,
            }
        }
    }

    /// Selects `integrator` and sets its numbers (the other integrator's
    /// numbers are kept).
    pub fn set_integrator(&mut self, integrator: Integrator) {
        match integrator {
            Integrator::Spring {
                frequency_root,
                frequency_tip,
                damping_ratio,
            } => {
                self.integrator = Self::SPRING;
                self.frequency_root = frequency_root;
                self.frequency_tip = frequency_tip;
                self.damping_ratio = damping_ratio;
            }
            Integrator::ExponentialDamping { stiffness, damping } => {
                self.integrator = Self::EXPONENTIAL_DAMPING;
                self.stiffness = stiffness;
                self.damping = damping;
            }
            Integrator::Vrm {
                stiffness,
                drag_force,
                gravity_power,
            } => {
                self.integrator = Self::VRM;
                self.vrm_stiffness = stiffness;
                self.vrm_drag_force = drag_force;
                self.vrm_gravity_power = gravity_power;
            }
        }
    }

    /// The gravity direction as a vector.
    #[must_use]
    pub fn gravity_direction(&self) -> Vec3 {
        Vec3::from_array(self.gravity_direction)
    }

    pub(crate) fn validate(&self) -> Result<(), &'static str> {
        let values = [
            self.frequency_root,
            self.frequency_tip,
            self.damping_ratio,
            self.stiffness,
            self.damping,
            self.gravity,
            self.gravity_direction[0],
            self.gravity_direction[1],
            self.gravity_direction[2],
            self.carry_angle,
            self.rest_curve,
            self.bend_rate,
            self.bend_limit,
            self.floor_height,
            self.floor_clearance,
            self.floor_damping,
            self.radius,
            self.weight,
            self.wind_factor,
            self.time_factor,
            self.lod_skip_below,
            self.lod_half_below,
            self.teleport_distance,
            self.teleport_angle,
            self.inertia,
            self.vrm_stiffness,
            self.vrm_drag_force,
            self.vrm_gravity_power,
            self.settle_speedup,
        ];
        if !values.iter().all(|v| v.is_finite()) {
            return Err("a chain parameter is NaN or infinite");
        }
        if self.integrator > Self::VRM {
            return Err("integrator must be 0 (spring), 1 (exponential damping) or 2 (vrm)");
        }
        if [
            self.forward_plane,
            self.velocity_from_positions,
            self.floor_enabled,
        ]
        .iter()
        .any(|&f| f > 1)
        {
            return Err("forward_plane, velocity_from_positions and floor_enabled must be 0 or 1");
        }
        if self.teleport_restart > Self::TELEPORT_RESTART {
            return Err("teleport_restart must be 0 (carry) or 1 (restart)");
        }
        if self.rest_source > Self::REST_ANIMATED {
            return Err("rest_source must be 0 (auto), 1 (bind) or 2 (animated)");
        }
        if !(0.0..=1.0).contains(&self.animation_inertia) {
            return Err("animation_inertia must be within 0..1");
        }
        if !(self.key_margin >= 0.0 && self.key_margin.is_finite()) {
            return Err("key_margin must be a finite angle >= 0 (pi or more: no guard)");
        }
        let integrator_numbers = [
            self.frequency_root,
            self.frequency_tip,
            self.damping_ratio,
            self.stiffness,
            self.damping,
            self.vrm_stiffness,
            self.vrm_gravity_power,
        ];
        if integrator_numbers.iter().any(|&v| v < 0.0) {
            return Err(
                "integrator frequencies, stiffness, damping and gravity power must be >= 0",
            );
        }
        if !(0.0..=1.0).contains(&self.vrm_drag_force) {
            return Err("vrm_drag_force must be in [0, 1]");
        }
        if self.vrm_stiffness > VRM_MAX || self.vrm_gravity_power > VRM_MAX {
            return Err("vrm_stiffness and vrm_gravity_power must be <= 1e7 units/s");
        }
        if !(1.0..=MAX_SETTLE_SPEEDUP).contains(&self.settle_speedup) {
            return Err("settle_speedup must be in [1, 32]");
        }
        if self.bend_rate < 0.0 || self.bend_limit <= 0.0 {
            return Err("bend_rate must be >= 0 and bend_limit > 0");
        }
        if !(0.0..=1.0).contains(&self.rest_curve)
            || !(0.0..=1.0).contains(&self.weight)
            || !(0.0..=1.0).contains(&self.inertia)
        {
            return Err("rest_curve, weight and inertia must be in [0, 1]");
        }
        if self.radius < 0.0 || self.floor_clearance < 0.0 || self.floor_damping < 0.0 {
            return Err("radius, floor clearance and floor damping must be >= 0");
        }
        if !(self.time_factor >= 1e-3 && self.time_factor <= 100.0) {
            return Err("time_factor must be in [0.001, 100]");
        }
        if self.teleport_distance <= 0.0 || self.teleport_angle <= 0.0 {
            return Err("teleport thresholds must be > 0");
        }
        // Past these the arithmetic overflows float32 in a substep.
        if self.gravity.abs() > 1e7 || self.wind_factor.abs() > 1e3 {
            return Err("|gravity| must be <= 1e7 units/s² and |wind_factor| <= 1000");
        }
        Ok(())
    }
}

/// The settings file's forms of [`ChainParams`] fields.
#[cfg(feature = "settings")]
mod serde_integrator {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match *v {
            super::ChainParams::EXPONENTIAL_DAMPING => "exponential_damping",
            super::ChainParams::VRM => "vrm",
            _ => "spring",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        match String::deserialize(d)?.as_str() {
            "spring" => Ok(super::ChainParams::SPRING),
            "exponential_damping" => Ok(super::ChainParams::EXPONENTIAL_DAMPING),
            "vrm" => Ok(super::ChainParams::VRM),
            other => Err(D::Error::custom(format!(
                "\"{other}\" is not spring, exponential_damping or vrm"
            ))),
        }
    }
}

#[cfg(feature = "settings")]
mod serde_degrees {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(radians: &f32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f32(radians.to_degrees())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        Ok(f32::deserialize(d)?.to_radians())
    }
}

#[cfg(feature = "settings")]
mod serde_flag {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(*v != 0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(u32::from(bool::deserialize(d)?))
    }
}

#[cfg(feature = "settings")]
mod serde_rest_source {
    use super::ChainParams;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match *v {
            ChainParams::REST_BIND => "bind",
            ChainParams::REST_ANIMATED => "animated",
            _ => "auto",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        match String::deserialize(d)?.as_str() {
            "auto" => Ok(ChainParams::REST_AUTO),
            "bind" => Ok(ChainParams::REST_BIND),
            "animated" => Ok(ChainParams::REST_ANIMATED),
            other => Err(D::Error::custom(format!(
                "rest_source is {other:?}; use \"auto\", \"bind\" or \"animated\""
            ))),
        }
    }
}

/// Seconds a chain keeps resting on its input's pose after the input last
/// animated it ([`ChainClock::animated_left`]): longer than a clip that
/// keys the chain holds it on its reference pose. An older Quaternius
/// pack's walks key the tail for half their 3.3 s cycle and hold it on its
/// reference pose for the other 1.7 s; with a hold of 0.5 s the rest swung
/// 88° to the rest arc and back every cycle (carriage 23-25° off the
/// clip's, its swing 14 times the clip's).
pub(crate) const ANIMATED_HOLD: f32 = 2.5;

/// The tail and hair presets' [`ChainParams::animation_inertia`]: two
/// tenths of the body's motion added to the animation at the tip, less
/// toward the root (docs/chains.md "Around the animation" has the
/// measurements behind it).
const ANIMATION_INERTIA: f32 = 0.2;

/// The presets' [`ChainParams::settle_speedup`].
const SETTLE_SPEEDUP: f32 = 8.0;
/// The largest [`ChainParams::settle_speedup`]: substeps per 120 Hz step.
const MAX_SETTLE_SPEEDUP: f32 = 32.0;
/// Seconds of unchanged input before the settle phase starts, and over which
/// it then ramps in.
const SETTLE_DELAY: f64 = 0.5;
const SETTLE_RAMP: f64 = 0.5;

/// How far the settle phase has ramped in `still` seconds after the chain's
/// input last changed: 0 until `SETTLE_DELAY`, then a smoothstep to 1 over
/// `SETTLE_RAMP`.
#[must_use]
pub fn settle_engagement(still: f64) -> f32 {
    let x = ((still - SETTLE_DELAY) / SETTLE_RAMP).clamp(0.0, 1.0) as f32;
    x * x * (3.0 - 2.0 * x)
}

/// Substeps a chain runs per 120 Hz step `still` seconds after its input
/// last changed: 1 (the articles' timing) until the settle phase, then up to
/// `params.settle_speedup`, rounded; always 1 for the VRM integrator, whose
/// motion must match three-vrm's.
#[must_use]
pub fn settle_substeps(params: &ChainParams, still: f64) -> u32 {
    if params.integrator == ChainParams::VRM || params.settle_speedup <= 1.0 {
        return 1;
    }
    let x = settle_engagement(still);
    (1.0 + (params.settle_speedup.min(MAX_SETTLE_SPEEDUP) - 1.0) * x).round() as u32
}

/// Static friction of a chain's contacts `still` seconds after its input
/// last changed: none while the input moves, then
/// `collide::STATIC_FRICTION` ramped in with the settle phase
/// ([`settle_engagement`]). A tip that would slide over a shape, relative
/// to its head, by less than half of `friction × push` in a substep stays
/// where it was (between half and all of it, in part), so a strand resting
/// on a shape near a balance point stops instead of sliding round it for
/// seconds (#13 item 4). Only once the input rests: a hold decided on
/// micrometres of slide is tipped one way or the other by the rounding of
/// world positions, and while the input moves that made the same motion
/// differ by 0.026 % of a strand's length between 30 and 120 Hz updates
/// (docs/chains.md). The tail preset's contacts hold alike: without the
/// hold, a tail whose first link rests along a thin capsule beside its root
/// was pushed out and pulled back through the contact slack in a cycle of
/// four substeps, 0.0035–0.0085 mm per frame for ever (tests/contact.rs).
///
/// The VRM preset's joints that a sphere or capsule pushes too
/// (`vrm_hold`): while the input moves the preset is three-vrm's verlet
/// to float32 noise, and once the input rests such a joint holds its place
/// instead of turning or sliding round the shape for seconds, as
/// three-vrm's does (#13 item 4, docs/chains.md).
#[must_use]
pub fn settle_friction(still: f64) -> f32 {
    collide::STATIC_FRICTION * settle_engagement(still)
}

/// The VRM preset's static friction ([`settle_friction`]), one joint: its
/// tail `next` after the collider pushes, `push_sum` the sum of the pushes
/// of spheres and capsules, and where the joint and its head were at the
/// start of the substep (`start`, `head_start`). Returns the new tail, on
/// the joint's sphere. Both kernels call it, so their bits agree.
///
/// A joint a sphere or capsule pushed keeps its place relative to its head,
/// as the hair's contacts do ([`substep`]): in full while it would slide,
/// across the pushes' normal, by less than half of `friction × |push_sum|`,
/// in part up to all of it, and not where a collider holds that place
/// deeper than the pushes left the tail (the collider moved into it).
/// three-vrm pushes a joint's tail out of the shape every step and puts it
/// back at its length: a tail its length keeps inside (a strand rooted
/// near the axis of a thick capsule) turns round its head for ever, and
/// one on a surface near a balance point slides round it for tens of
/// seconds (#13 item 4; tools/three-vrm/vrm.mjs: 5.41 mm per 1/30 s 3–4 s
/// after the input stopped in a 1.5 m capsule, 0.146, 0.037 and 0.009 mm
/// per 1/60 s at 3, 12 and 24 s in a 5 cm capsule standing on the first
/// joint), as secmo's VRM preset does without the hold. Inside colliders and
/// planes do not hold: a strand in a hood slides along its wall as in
/// three-vrm (holding there moved three-vrm's own inside-collider fixture
/// 1.6 % of its chain's length off three-vrm, docs/vrm-mapping.md).
#[must_use]
pub(crate) fn vrm_hold(
    (head, head_start): (Vec3, Vec3),
    (start, next): (Vec3, Vec3),
    push_sum: Vec3,
    (length, radius, fallback): (f32, f32, Vec3),
    friction: f32,
    (colliders, placed): (&[u32], &[PlacedCollider]),
) -> Vec3 {
    let cone = friction * push_sum.length();
    let (true, Some(normal)) = (cone > 0.0, push_sum.try_normalize()) else {
        return next;
    };
    let depth =
        |p: Vec3, c: &PlacedCollider| collide::push_point(p, radius, c).map_or(0.0, Vec3::length);
    let onto_sphere = |p: Vec3| head + (p - head).try_normalize().unwrap_or(fallback) * length;
    let slide = (next - head) - (start - head_start);
    let tangential = slide - normal * slide.dot(normal);
    let mut hold = ((cone - tangential.length()) / (0.5 * cone)).clamp(0.0, 1.0);
    if hold <= 0.0 {
        return next;
    }
    let held = onto_sphere(head + (start - head_start));
    for &c in colliders {
        let c = &placed[c as usize];
        let deeper = depth(held, c) - depth(next, c);
        if deeper > 0.0 {
            let allowed = collide::HOLD_DEPTH * (radius + c.radius);
            hold *= ((allowed - deeper) / (0.5 * allowed)).clamp(0.0, 1.0);
        }
    }
    if hold <= 0.0 {
        return next;
    }
    onto_sphere(next + (held - next) * hold)
}

/// Whether a chain at full settle speed has come to rest: no particle moved
/// more than 32 float32 steps of its own position (and never less than
/// 1e-7 units at scale 1) over the last 120 Hz step: 3.8 µm for a particle
/// 1 m from the simulation origin, which is the first chain's anchor
/// (docs/chains.md), a speed of 0.5 mm/s.
///
/// A chain at its resting shape does not stand still in float32: each
/// substep rounds every particle to its float grid, and the integrator
/// carries that rounding on as velocity, so the particles walk a few grid
/// steps per 120 Hz step for as long as they run. A bound of 4 steps is
/// crossed by such a walk most steps: with it, a free hair
/// strand of seven 3–15 cm links hanging forward slept only 10.8 s after
/// its input stopped, moving up to 0.003 mm per frame until then, and 8 of
/// tests/settling.rs's 360 random strands (all hair) still moved
/// 0.0013–0.0035 mm per frame 2 s after their input stopped; with 16
/// steps, 3 hair runs of 5,400 more such runs still did (none with 32).
/// Asleep, nothing moves; the step
/// that puts a chain to sleep moves it less than this bound.
#[must_use]
pub fn at_rest(position: &[Vec3], previous: &[Vec3], scale: f32) -> bool {
    position.iter().zip(previous).all(|(p, q)| {
        let noise = (32.0 * f32::EPSILON * p.abs().max_element()).max(1e-7 * scale);
        p.distance(*q) <= noise
    })
}

/// 120 Hz steps in each window over which the settle phase judges a chain
/// that is not at rest in float32 ([`settle_window`]): an eighth of a
/// second of input time, a second of simulated time at the presets'
/// speed-up of 8.
const QUIET_WINDOW: u64 = 15;

/// A window whose particles all moved slower than this, at every step, is
/// quiet: units per simulated second at scale 1 (2 mm/s).
const QUIET_SPEED: f32 = 2e-3;

/// Seconds after the chain's input last changed from which a window whose
/// peak speed is at least [`UNDECAYED`] of the window's before it puts the
/// chain to sleep: by then the settle phase has run 8 s of simulated time
/// at the presets' speed-up, in which their swings decay by e^-15 or more.
const CYCLE_AFTER: f64 = 2.0;
const UNDECAYED: f32 = 0.9;

/// The fastest any particle moved in the substep from `previous` to
/// `position` of `h` seconds, units/s.
#[must_use]
pub(crate) fn peak_speed(position: &[Vec3], previous: &[Vec3], h: f32) -> f32 {
    let d = position
        .iter()
        .zip(previous)
        .map(|(p, q)| p.distance_squared(*q))
        .fold(0.0f32, f32::max);
    d.sqrt() / h
}

/// The settle phase's judgement of a chain its float32 test
/// ([`at_rest`]) does not put to sleep, one 120 Hz step `step` steps after
/// its input last changed, at which its particles moved at most `speed`
/// units/s, at `scale` units per metre (#13 item 4). Keeps the running
/// window in `clock` and returns whether the chain sleeps: at the end of a
/// window of [`QUIET_WINDOW`] steps in which no particle moved faster than
/// [`QUIET_SPEED`] (a creep), or, [`CYCLE_AFTER`] seconds after the input
/// last changed (a teleport's wake counts, [`woken_still_since`]), whose
/// peak speed is no lower than [`UNDECAYED`] of the
/// window's before (a motion that has stopped decaying: a contact's
/// cycle). Rigid bodies sleep alike below a speed for a time in Box2D and
/// PhysX (1 cm/s for half a second in Box2D).
///
/// Contact needs it. A chain held by a collider does not always come to a
/// standstill that [`at_rest`]'s float32 bound sees: a sweep of
/// 3,600 random strands rooted inside spheres and capsules (tests/contact.rs
/// keeps 84 of them) left a hair strand in a 1.3 cm sphere creeping 0.014 mm
/// per frame and slower for 10 s more, a tail creeping over its sphere that
/// slept 3.5 s after the stop, and seven tails in cycles that their contacts
/// keep going for ever: 0.02–2.3 mm per frame (the two measured: periods
/// of 11 and 22 steps, peaks of 16 and 170 mm/s of simulated time). A swing of the presets has
/// decayed many times over by [`CYCLE_AFTER`], and neither rule touches the
/// VRM preset (it never repeats substeps, so never sleeps) or a chain with
/// `settle_speedup` 1.
pub(crate) fn settle_window(
    clock: &mut ChainClock,
    step: u64,
    speed: f32,
    scale: f32,
    still: f64,
) -> bool {
    // 0 bits: the window under way began part-way (a restart, a new
    // chain, a snapshot of an older format) and is not judged; a
    // whole window starts from the smallest positive float.
    let whole = clock.window_peak != 0;
    let peak = f32::from_bits(clock.window_peak).max(speed);
    if step % QUIET_WINDOW != 0 {
        if whole {
            clock.window_peak = peak.to_bits();
        }
        return false;
    }
    let before = clock.previous_peak;
    clock.previous_peak = if whole { peak.to_bits() } else { 0 };
    clock.window_peak = f32::MIN_POSITIVE.to_bits();
    whole
        && (peak <= QUIET_SPEED * scale
            || (still >= CYCLE_AFTER && before != 0 && peak >= UNDECAYED * f32::from_bits(before)))
}

/// The still clock of a chain woken by a teleport at input time `time`,
/// whose input last changed at `still_since`: the teleport keeps it (the
/// particles were carried, not the input changed, and the settle phase
/// goes on at full speed), but no further back than a chain whose phase
/// has just ramped in, so that [`settle_window`]'s cycle rule counts from
/// the wake. Judged by the old clock, a tail of eight links teleported
/// with its hips tilted 20–170° after 4 s of still input was stopped
/// mid-fall, its tip 0.8–29 cm from its rest (tests/settling.rs; now
/// 0.4–19 µm, as before the cycle rule).
#[must_use]
pub(crate) fn woken_still_since(still_since: f64, time: f64) -> f64 {
    still_since.max(time - SETTLE_DELAY - SETTLE_RAMP)
}

/// Restarts [`settle_window`]'s count (a chain woken or not yet settled):
/// the window under way is not judged, the first whole one is judged
/// quiet or not, and only the second is compared with the one before. A
/// zeroed clock (a new chain, a snapshot of an older format) is so
/// restarted.
pub(crate) fn restart_window(clock: &mut ChainClock) {
    clock.window_peak = 0;
    clock.previous_peak = 0;
}

/// docs/algorithms.md §7 bend coupling weight for a time step: `α = 1 − exp(−k·Δt)`.
#[inline]
#[must_use]
pub fn bend_alpha(rate: f32, dt: f32) -> f32 {
    1.0 - (-rate * dt).exp()
}

/// A chain in a [`crate::RigDesc`].
#[derive(Clone, Debug, PartialEq)]
pub struct ChainDesc {
    /// Joints from the root to the last; each is the parent of the next.
    pub joints: Vec<u32>,
    /// Bone whose frame holds the rest arc: the hips for a tail, the head for hair.
    pub anchor: u32,
    pub params: ChainParams,
    /// Per-joint link radius (segment i uses joint i); empty = `params.radius`.
    pub radii: Vec<f32>,
    /// Per-joint weight of the simulation over the animation; empty = 1.
    pub weights: Vec<f32>,
    /// End point of the last link in the last joint's local frame (a
    /// `Tail_End` helper). `None`: extend along the incoming tangent (docs/algorithms.md §7).
    pub end_offset: Option<Vec3>,
    /// Indices into `RigDesc::colliders` this chain collides with.
    pub colliders: Vec<u32>,
    /// Per-joint VRM settings where they change along a VRMC_springBone
    /// spring (a stiffness that tapers toward the tip): each joint's
    /// `[stiffness, drag force, gravity power]` minus the chain's
    /// `vrm_stiffness`, `vrm_drag_force` and `vrm_gravity_power`. The VRM
    /// integrator adds them to the chain's values per joint (clamped to
    /// their ranges), so a change of the chain's parameters moves every
    /// joint by the same amount. Empty = every joint takes the chain's.
    /// Other integrators do not read them.
    pub vrm_offsets: Vec<[f32; 3]>,
    /// Per-joint angle limits of the VRM integrator (VRMC_springBone_limit);
    /// empty = none. Other integrators do not read them.
    pub limits: Vec<JointLimit>,
}

impl ChainDesc {
    /// A chain over `joints` anchored at `anchor`, no colliders.
    #[must_use]
    pub fn new(joints: Vec<u32>, anchor: u32, params: ChainParams) -> Self {
        Self {
            joints,
            anchor,
            params,
            radii: Vec::new(),
            weights: Vec::new(),
            end_offset: None,
            colliders: Vec::new(),
            vrm_offsets: Vec::new(),
            limits: Vec::new(),
        }
    }
}

/// The shape of a joint's angle limit (VRMC_springBone_limit): how far the
/// direction from the joint to its child may turn from the limit's axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum LimitShape {
    /// No limit.
    #[default]
    None = 0,
    /// Within `angle` of the axis, in any direction.
    Cone = 1,
    /// In the limit's y–z plane (a turn about its x axis), within `angle`
    /// of the axis.
    Hinge = 2,
    /// Pitch (about the limit's x axis) within `angle`, yaw (toward its x
    /// axis) within `yaw`.
    Spherical = 3,
}

/// A joint's angle limit, as VRMC_springBone_limit defines it
/// (docs/vrm-mapping.md "Angle limits"): the limit's frame is the joint's
/// rest frame turned from +Y onto the bone axis by the shortest arc, then
/// by `rotation`. Angles in radians; `angle` is the cone's or hinge's
/// angle or the spherical limit's pitch (clamped to [0, π]), `yaw` the
/// spherical limit's yaw (clamped to [0, π/2]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimit {
    pub shape: LimitShape,
    pub angle: f32,
    pub yaw: f32,
    /// `[x, y, z, w]`, normalised when the rig is built.
    pub rotation: [f32; 4],
}

impl Default for JointLimit {
    fn default() -> Self {
        Self {
            shape: LimitShape::None,
            angle: 0.0,
            yaw: 0.0,
            rotation: [0.0, 0.0, 0.0, 1.0],
        }
    }
}

/// A joint's limit as the VRM integrator reads it: its frame relative to
/// the joint's rest frame (bone-axis arc times the limit's rotation), and
/// the cosines and angles it compares with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitSetup {
    /// The limit as given.
    pub source: JointLimit,
    pub shape: LimitShape,
    pub frame: Quat,
    /// Cone and hinge: `cos(angle)`, `sin(angle)`.
    pub cos: f32,
    pub sin: f32,
    /// Spherical: the pitch and yaw bounds.
    pub pitch: f32,
    pub yaw: f32,
}

impl LimitSetup {
    /// The limit on a joint whose bone axis (rest direction to its child,
    /// in its rest frame) is `axis`.
    #[must_use]
    pub fn new(limit: &JointLimit, axis: Vec3) -> Self {
        // The shortest arc from +Y onto the axis; exactly opposite, half a
        // turn about X (VRMC_springBone_limit asks for that case).
        let dot = axis.y;
        let arc = if dot + 1.0 < 1e-8 {
            Quat::from_xyzw(1.0, 0.0, 0.0, 0.0)
        } else {
            Quat::from_xyzw(axis.z, 0.0, -axis.x, dot + 1.0).normalize()
        };
        let angle = limit.angle.clamp(0.0, core::f32::consts::PI);
        Self {
            source: *limit,
            shape: limit.shape,
            frame: arc * Quat::from_array(limit.rotation).normalize(),
            cos: angle.cos(),
            sin: angle.sin(),
            pitch: angle,
            yaw: limit.yaw.clamp(0.0, core::f32::consts::FRAC_PI_2),
        }
    }

    /// A unit direction in the limit's frame, brought within the limit.
    #[must_use]
    pub fn clamp_direction(&self, d: Vec3) -> Vec3 {
        // Within a cone of cosine `cos` about +Y: the part across the axis
        // scaled onto the cone; straight back along −Y (no direction
        // across it), the cone's edge toward +Z.
        let onto_cone = |d: Vec3, cos: f32, sin: f32| {
            if d.y >= cos {
                return d;
            }
            let across = 1.0 - d.y * d.y;
            if across <= 1e-12 {
                return Vec3::new(0.0, cos, sin);
            }
            let ratio = ((1.0 - cos * cos) / across).sqrt();
            Vec3::new(d.x * ratio, cos, d.z * ratio)
        };
        match self.shape {
            LimitShape::None => d,
            LimitShape::Cone => onto_cone(d, self.cos, self.sin),
            LimitShape::Hinge => {
                // In the y–z plane; a direction along ±X has none there and
                // takes the axis.
                let planar = Vec3::new(0.0, d.y, d.z).try_normalize().unwrap_or(Vec3::Y);
                onto_cone(planar, self.cos, self.sin)
            }
            LimitShape::Spherical => {
                let mut pitch = d.z.atan2(d.y);
                let mut yaw = d.x.clamp(-1.0, 1.0).asin();
                if pitch.abs() > self.pitch {
                    pitch = self.pitch.copysign(pitch);
                }
                if yaw.abs() > self.yaw {
                    yaw = self.yaw.copysign(yaw);
                }
                Vec3::new(yaw.sin(), yaw.cos() * pitch.cos(), yaw.cos() * pitch.sin())
            }
        }
    }
}

/// Joint `i`'s angle limit applied to `next`, a point `length` from `head`
/// ([`LimitSetup`]); `bind` is the joint's rest frame in the simulation
/// (its parent's frame times its rest rotation). Both chain kernels call
/// this one function.
#[inline]
#[must_use]
pub(crate) fn limit_point(
    limit: &LimitSetup,
    bind: Quat,
    head: Vec3,
    next: Vec3,
    length: f32,
) -> Vec3 {
    let Some(dir) = (next - head).try_normalize() else {
        return next;
    };
    let frame = bind * limit.frame;
    let inside = limit.clamp_direction(frame.conjugate() * dir);
    head + (frame * inside) * length
}

/// Validated, precomputed chain setup (in the Rig).
#[derive(Clone, Debug, PartialEq)]
pub struct ChainSetup {
    pub joints: Vec<u32>,
    pub anchor: u32,
    pub params: ChainParams,
    pub radii: Vec<f32>,
    pub weights: Vec<f32>,
    /// Where the last link ends, in the last joint's local frame.
    pub end_offset: Vec3,
    pub colliders: Vec<u32>,
    /// Bind length of each link.
    pub lengths: Vec<f32>,
    /// Bind direction of each link in the anchor's bind frame (authored curve).
    pub authored: Vec<Vec3>,
    /// Bind direction of each link in its joint's bind frame as the VRM
    /// integrator composes it (the root parent's rotation times the joints'
    /// local rotations): the VRM bone axis, and the bind pose its rest
    /// under any scale.
    pub axes: Vec<Vec3>,
    /// World up in the anchor's bind frame.
    pub up_in_anchor: Vec3,
    /// The body's lateral axis (`up × forward` of the rig's convention) in the
    /// anchor's bind frame.
    pub lateral_in_anchor: Vec3,
    /// Index of this chain's first particle in the character's flat arrays.
    pub first_particle: usize,
    /// This chain's anchor and the chain root's parent as slots of
    /// [`crate::Rig`]'s chain frames: chains that share a bone share the
    /// frame's world decomposition and its per-substep interpolation.
    pub anchor_slot: u32,
    pub parent_slot: u32,
    /// [`ChainDesc::vrm_offsets`]: empty, or one per joint.
    pub vrm_offsets: Vec<[f32; 3]>,
    /// [`ChainDesc::limits`] for the VRM integrator: empty when no joint
    /// has one, else one per joint.
    pub limits: Vec<LimitSetup>,
}

impl ChainSetup {
    #[must_use]
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// This chain's particles in the character's flat arrays.
    #[must_use]
    pub fn particles(&self) -> core::ops::Range<usize> {
        self.first_particle..self.first_particle + self.joints.len()
    }

    /// Joint `i`'s VRM stiffness, drag force and gravity power: the chain's
    /// `values` plus the joint's [`ChainDesc::vrm_offsets`], kept in the
    /// ranges `ChainParams::validate` allows.
    #[inline]
    #[must_use]
    pub fn vrm_joint(&self, i: usize, values: (f32, f32, f32)) -> (f32, f32, f32) {
        let (stiffness, drag_force, gravity_power) = values;
        match self.vrm_offsets.get(i) {
            Some(o) => (
                (stiffness + o[0]).clamp(0.0, VRM_MAX),
                (drag_force + o[1]).clamp(0.0, 1.0),
                (gravity_power + o[2]).clamp(0.0, VRM_MAX),
            ),
            None => values,
        }
    }
}

/// Largest VRM stiffness and gravity power, units/s ([`ChainParams::validate`]).
pub(crate) const VRM_MAX: f32 = 1e7;

/// Rest directions in the anchor frame for the current parameters (docs/algorithms.md §7
/// carry angle and rest curve; hair keeps the authored arc).
pub fn rest_directions(setup: &ChainSetup, params: &ChainParams, out: &mut [Vec3]) {
    for (i, dir) in out.iter_mut().enumerate().take(setup.len()) {
        *dir = rest_direction(setup, params, i);
    }
}

/// Link `i`'s rest direction ([`rest_directions`]).
#[must_use]
pub fn rest_direction(setup: &ChainSetup, params: &ChainParams, i: usize) -> Vec3 {
    let n = setup.len();
    let up = setup.up_in_anchor;
    // c: the root direction without its lateral component (docs/algorithms.md §7 writes
    // "drop x" for a glTF/Unity hips frame; the lateral axis comes from the
    // rig's up axis and convention, so Z-up rigs behave the same), falling
    // back to "down".
    let a0 = setup.authored[0];
    let side = setup.lateral_in_anchor;
    let c = (a0 - side * a0.dot(side)).try_normalize().unwrap_or(-up);
    // The lift axis: rotating c about it moves c toward up.
    let lateral = c.cross(up).try_normalize().unwrap_or(Vec3::X);
    let a = setup.authored[i];
    let curve = Quat::IDENTITY.slerp(crate::math::rotation_arc(c, a), params.rest_curve);
    let lift = Quat::from_axis_angle(lateral, params.carry_angle * (i + 1) as f32 / n as f32);
    (lift * (curve * c)).normalize_or(a)
}

/// Per-particle state: flat arrays shared by all chains of a character.
#[derive(Clone, Debug, Default)]
pub struct ParticleArrays {
    pub position: Vec<Vec3>,
    pub velocity: Vec<Vec3>,
    /// Bend of each link relative to its rest direction, anchor frame (docs/algorithms.md §7).
    pub bend: Vec<Quat>,
}

/// Per-chain clock and bookkeeping, plain data for snapshots.
///
/// The chain clock is not the f32 loop of docs/algorithms.md §2 (that is the helper-bone
/// kernel's reproduction contract). To give the same motion at 30, 60 and
/// 120 Hz input (docs/algorithms.md §8, §13.1), time is summed in f64 and substeps end at
/// `simulated + h ≤ time`; inputs are interpolated to each substep's end time.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, Pod, Zeroable)]
pub struct ChainClock {
    /// Input time received, seconds.
    pub time: f64,
    /// Time simulated by substeps so far, seconds.
    pub simulated: f64,
    /// Input time at the last simulated update (the start of the interpolation).
    pub last_update: f64,
    /// 0 until the first update seeded the particles.
    pub started: u32,
    /// Updates counted for the half-rate LOD (only its parity is read).
    pub lod_counter: u16,
    /// For how much longer the chain rests on its input's pose whether or
    /// not the input animates it ([`ChainParams::REST_AUTO`]), in
    /// ticks of 2.5/65535 s: set to the whole 2.5 s whenever the input
    /// animates it, so that a clip passing through the reference pose, or
    /// holding the chain there for a while, does not switch the rest back
    /// and forth.
    pub animated_left: u16,
    /// Anchor world rotation and root head at the last simulated update.
    pub previous_anchor: [f32; 4],
    pub previous_root: [f32; 3],
    /// The fastest a particle moved at the last substep of a 120 Hz step
    /// in the settle phase's previous window of 15 steps, units/s (`f32`
    /// bits; 0 when there was no whole window before: `settle_window`).
    /// This and [`ChainClock::window_peak`] were
    /// padding in older snapshot formats: such a snapshot, zero there,
    /// restarts the count.
    pub previous_peak: u32,
    /// Simulation-space frame at the last update.
    pub previous_space: Transform,
    /// World frame of the chain root's parent, and the root's local
    /// translation, at the last simulated update. The root head is
    /// interpolated through them (not as a straight line), so that a
    /// piecewise-linear animation gives the same path at every input rate.
    pub previous_parent: Transform,
    pub previous_root_local: [f32; 3],
    /// 1 while the chain sleeps: at rest in its settle phase, skipped until
    /// its input changes ([`ChainParams::settle_speedup`]).
    pub sleeping: u32,
    /// Input time at which the chain's input last changed: the settle
    /// phase's clock.
    pub still_since: f64,
    /// The character's wind at the last simulated update (a change wakes
    /// the chain).
    pub previous_wind: [f32; 3],
    /// The same in the current window (`f32` bits; 0 while the window
    /// under way began part-way).
    pub window_peak: u32,
    /// How far the skin guard is on ([`ChainParams::key_margin`]), 0 to 1:
    /// it moves toward 1 while the chain rests on its input's pose and
    /// toward 0 while it rests on its rest arc, by the update's time over
    /// 0.3 s (`GUARD_FADE`), so that the guard comes on and goes off without a
    /// step (docs/algorithms.md §7 "The skin guard").
    pub guard: f32,
    /// How far the chain's rest lies toward its input's pose, 0 (on the
    /// rest arc) to 1 ([`ChainParams::rest_source`]): up while the input
    /// animates the chain, its joint farthest from the keys turning at
    /// 2 rad/s (at once within 10°), and down once the input leaves it
    /// unanimated, over 0.6 s or at the same pace where that is slower, so
    /// that the rest turns between the arc and the pose in joint space
    /// through a smoothstep of it (docs/chains.md "Around the animation").
    pub on_pose: f32,
}

const _: () = assert!(core::mem::size_of::<ChainClock>() == 192);

/// Seconds the skin guard takes to come on when the input starts
/// animating a chain that rested on its rest arc, and to go off when the
/// chain returns there ([`ChainClock::guard`]): a short crossfade's time.
pub(crate) const GUARD_FADE: f32 = 0.3;

/// [`ChainClock::guard`] after an update of `dt` seconds that heads it
/// toward `target` (0 or 1).
#[must_use]
pub(crate) fn guard_toward(guard: f32, target: f32, dt: f32) -> f32 {
    let step = dt / GUARD_FADE;
    if target > guard {
        (guard + step).min(target)
    } else {
        (guard - step).max(target)
    }
}

/// [`ChainClock::guard`] after an update of `dt` seconds that brings it on,
/// the chain's joint farthest from its keys `turn` radians from them on
/// the rest arc: over [`GUARD_FADE`], or over the time the rest took to
/// turn onto the keys ([`ONTO_POSE_SPEED`]) where that is longer.
#[must_use]
pub(crate) fn guard_onto(guard: f32, turn: f32, dt: f32) -> f32 {
    let fade = (turn / ONTO_POSE_SPEED).max(GUARD_FADE);
    (guard + dt / fade).min(1.0)
}

/// The smoothstep of a level 0 to 1: the share of the skin guard's hold at
/// [`ChainClock::guard`], and of the way from the rest arc to the input's
/// pose at [`ChainClock::on_pose`], so that a fade starts and ends without
/// a jolt (exactly 0 at 0 and 1 at 1).
#[must_use]
pub(crate) fn smoothstep(level: f32) -> f32 {
    level * level * (3.0 - 2.0 * level)
}

/// Seconds the rest takes at least to turn back from the input's pose to
/// the rest arc once the input has left a chain unanimated for
/// [`ANIMATED_HOLD`] ([`ChainClock::on_pose`]).
pub(crate) const RETURN_TO_ARC: f32 = 0.6;

/// [`ChainClock::on_pose`] after an update of `dt` seconds on which the
/// input leaves the chain on its way back to the rest arc, its joint
/// farthest from the arc `turn` radians from it: down over
/// [`RETURN_TO_ARC`], or at [`ONTO_POSE_SPEED`] on that joint where that
/// is slower, as the way onto the pose.
#[must_use]
pub(crate) fn on_pose_back(on_pose: f32, turn: f32, dt: f32) -> f32 {
    let time = (turn / ONTO_POSE_SPEED).max(RETURN_TO_ARC);
    (on_pose - dt / time).max(0.0)
}

/// Radians per second at which the rest turns from the rest arc onto the
/// input's pose when the input starts animating a chain, measured on the
/// joint whose local rotation lies farthest from its keys
/// ([`ChainClock::on_pose`]; through its smoothstep the fastest instant is
/// 1.5 times this: 172°/s, 2.9° per update at 60 Hz).
pub(crate) const ONTO_POSE_SPEED: f32 = 2.0;

/// A rest arc whose joints all lie within this turn (radians, 10°) of the
/// input's pose is left at once: the springs take up that much within the
/// chain's own lag ([`on_pose_onto`]).
pub(crate) const ONTO_POSE_AT_ONCE: f32 = 0.174_532_92;

/// [`ChainClock::on_pose`] after an update of `dt` seconds on which the
/// input animates the chain, its joint farthest from its keys `turn`
/// radians from them on the rest arc: 1 within [`ONTO_POSE_AT_ONCE`], else
/// up by the part of that turn [`ONTO_POSE_SPEED`] covers in `dt`, so that
/// an arc far from the keys is left over a time in proportion to how far.
#[must_use]
pub(crate) fn on_pose_onto(on_pose: f32, turn: f32, dt: f32) -> f32 {
    let step = dt * ONTO_POSE_SPEED;
    if !(turn > ONTO_POSE_AT_ONCE && turn > step) {
        1.0
    } else {
        (on_pose + step / turn).min(1.0)
    }
}

/// `seconds` in [`ChainClock::animated_left`]'s ticks (saturating).
#[must_use]
pub(crate) fn hold_ticks(seconds: f32) -> u16 {
    (f64::from(seconds) / f64::from(ANIMATED_HOLD) * f64::from(u16::MAX))
        .round()
        .clamp(0.0, f64::from(u16::MAX)) as u16
}

/// Longest backlog the chain clock catches up, seconds (as docs/algorithms.md §2's cap).
pub const CHAIN_CATCH_UP: f64 = 5.0;

/// Everything one substep of one chain reads.
pub struct SubstepFrame<'a> {
    pub h: f32,
    pub anchor: Quat,
    pub root: Vec3,
    pub up: Vec3,
    /// Gravity plus wind and external forces, units/s².
    pub acceleration: Vec3,
    /// Character's uniform runtime scale.
    pub scale: f32,
    /// Every collider of the rig placed at this substep, by rig index (a
    /// chain reads those in [`ChainSetup::colliders`]).
    pub colliders: &'a [PlacedCollider],
    /// VRM integrator: world rotation of the chain root's parent.
    pub parent: Quat,
    /// VRM integrator: the character's local pose this update, whose chain
    /// joints' rotations are the frames the rest axes are taken through.
    pub pose: &'a [Transform],
    /// VRM integrator: `gravityDir · gravityPower`, units/s.
    pub gravity_velocity: Vec3,
    /// VRM integrator: `gravityDir` (a joint's own gravity power scales it).
    pub gravity_direction: Vec3,
    /// VRM integrator: wind and external forces, units/s².
    pub wind: Vec3,
    /// Height of the simulation origin along `up`: positions here are
    /// relative to it, the floor height is not.
    pub floor_shift: f32,
    /// The substep's decay factors ([`StepDecay::new`], once per chain and
    /// update: `h` and the parameters do not change between its substeps).
    pub decay: StepDecay,
    /// Static friction of the contacts at this substep ([`settle_friction`]):
    /// 0 while the chain's input moves.
    pub friction: f32,
    /// Whether the forward plane acts at this substep: the chain's
    /// `forward_plane`, except around the animation
    /// ([`ChainParams::rest_source`]), whose pose decides which side of
    /// the body the chain is on.
    pub forward_plane: bool,
    /// The rest arc's root link in the anchor frame, which the forward
    /// plane faces away from (also while the rest turns back to the arc
    /// from the input's pose: the turning rest's own root link flipped the
    /// plane as it passed through vertical). Taken once per update.
    pub plane_rest: Vec3,
    /// Around the animation ([`ChainParams::rest_source`]): the floor and
    /// the colliders yield to the keys. A link whose rest puts its end
    /// lower than the floor's clearance is held no higher than that rest (a
    /// tail the animation lays on the ground, or dips toward it in a
    /// crouch, is not pushed off it), and a collider pushes a link no
    /// deeper out than its rest lies in it ([`collide::depth`]: a tail the
    /// animation brushes past a leg is not pushed off its keys, one that
    /// swings past them is). On the rest arc both hold as set.
    pub yields_to_keys: bool,
}

/// Per-substep factors that depend only on the step and the parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepDecay {
    /// `e^{−c·h}` of the exponential-damping integrator (docs/algorithms.md §8), else 1.
    pub velocity: f32,
    /// `e^{−floor_damping·h}` (docs/algorithms.md §7).
    pub floor: f32,
    /// Bend coupling blend `1 − e^{−k·h}` (docs/algorithms.md §7); 0 for a one-link chain.
    pub bend_alpha: f32,
}

impl StepDecay {
    #[must_use]
    pub fn new(params: &ChainParams, h: f32, links: usize) -> Self {
        Self {
            velocity: match params.integrator() {
                Integrator::ExponentialDamping { damping, .. } => (-damping * h).exp(),
                Integrator::Spring { .. } | Integrator::Vrm { .. } => 1.0,
            },
            floor: (-params.floor_damping * h).exp(),
            bend_alpha: if links > 1 {
                bend_alpha(params.bend_rate, h)
            } else {
                0.0
            },
        }
    }
}

/// One chain's particles, as slices of the character's flat arrays.
pub struct Particles<'a> {
    pub position: &'a mut [Vec3],
    pub velocity: &'a mut [Vec3],
    /// Bend of each link relative to its rest direction, anchor frame (docs/algorithms.md §7).
    pub bend: &'a mut [Quat],
    /// Not read: the kernel keeps each link's new bend until the next link
    /// has read the old one, so every link reads the bends from before the
    /// substep.
    pub bend_scratch: &'a mut [Quat],
    /// Written: each link's rest target and contact flag (debug drawing).
    pub rest_targets: &'a mut [Vec3],
    pub contacts: &'a mut [u8],
}

/// What the bend step of one chain reads at one substep (docs/algorithms.md §7).
pub(crate) struct BendContext {
    pub(crate) anchor: Quat,
    pub(crate) anchor_inv: Quat,
    pub(crate) h: f32,
    pub(crate) alpha: f32,
    pub(crate) n: usize,
    pub(crate) coupling: bool,
    pub(crate) limiting: bool,
    pub(crate) bend_limit: f32,
}

impl BendContext {
    pub(crate) fn new(params: &ChainParams, frame: &SubstepFrame<'_>, n: usize) -> Self {
        Self {
            anchor: frame.anchor,
            anchor_inv: frame.anchor.conjugate(),
            h: frame.h,
            alpha: frame.decay.bend_alpha,
            n,
            coupling: params.bend_rate > 0.0 && n > 1,
            limiting: params.bend_limit < std::f32::consts::PI,
            bend_limit: params.bend_limit,
        }
    }
}

/// One link while it is being stepped: its head, length, particle,
/// velocity and direction.
pub(crate) struct Link {
    pub(crate) head: Vec3,
    pub(crate) length: f32,
    pub(crate) p: Vec3,
    pub(crate) v: Vec3,
    pub(crate) dir: Vec3,
}

/// Bend coupling and the elastic bend limit of link `i` (docs/algorithms.md §7), in the
/// shared anchor frame; `old` are the chain's bends before this substep.
/// Returns the link's new bend (identity when neither is on). The chain
/// kernel (`lanes`) runs it lane by lane.
#[inline(never)]
pub(crate) fn bend_link(
    ctx: &BendContext,
    i: usize,
    rest: Vec3,
    old: &[Quat],
    previous_bend: &mut Quat,
    link: &mut Link,
) -> Quat {
    let (coupling, limiting, n) = (ctx.coupling, ctx.limiting, ctx.n);
    if !(coupling || limiting) {
        return Quat::IDENTITY;
    }
    let Link {
        head,
        length,
        p,
        v,
        dir,
    } = link;
    let (head, length) = (*head, *length);
    let d_anchor = ctx.anchor_inv * *dir;
    let mut q = crate::math::rotation_arc(rest, d_anchor);
    if coupling {
        let neighbour = if i == 0 {
            Quat::IDENTITY.slerp(old[1], 0.5) // the hips support the base
        } else if i == n - 1 {
            old[i - 1] // a free tip has one neighbour
        } else {
            old[i - 1].slerp(old[i + 1], 0.5)
        };
        // Coupling smooths positions; it never feeds back into
        // velocity, and no velocity is removed against it either:
        // docs/algorithms.md §7 removes velocity only at the limit. (Removing it
        // here too, as an earlier version did, cancelled the spring's
        // return every substep near rest, and the tail crept into
        // its resting shape over 40 s.)
        q = q.slerp(neighbour, ctx.alpha);
    }
    // Where the link would be without the limit (None: within it).
    let mut unlimited = None;
    if limiting {
        // DECISION: the limit applies between neighbouring links (the
        // base against the anchor): the base stays supported, the tip
        // accumulates freedom.
        let relative = previous_bend.conjugate() * q;
        let theta = 2.0 * relative.w.abs().clamp(0.0, 1.0).acos();
        if theta > ctx.bend_limit {
            let limited = Quat::IDENTITY.slerp(relative, ctx.bend_limit / theta);
            unlimited = Some(head + (ctx.anchor * (q * rest)).normalize_or(*dir) * length);
            q = *previous_bend * limited;
        }
    }
    let new_dir = (ctx.anchor * (q * rest)).normalize_or(*dir);
    *p = head + new_dir * length;
    // Remove the velocity that keeps pushing into the limit, so it
    // cannot accumulate and release as a jolt (docs/algorithms.md §7) — at most the
    // velocity this correction undid (|c|/h). Never more: that would
    // feed the correction back as velocity. And continuous: a
    // vanishing correction removes nothing, so f32-level differences
    // cannot switch a finite kick on or off (an on/off removal made
    // 30/60/120 Hz runs differ by centimetres).
    if let Some(before) = unlimited {
        let correction = *p - before;
        let size = correction.length();
        if size > 0.0 {
            let n_c = correction / size;
            let against = -v.dot(n_c);
            if against > 0.0 {
                *v += n_c * against.min(size / ctx.h);
            }
        }
    }
    *dir = new_dir;
    *previous_bend = q;
    q
}

/// The bend of a link that the forward plane, the floor or a collider
/// turned after [`bend_link`] (from `bent` to `dir`, world directions):
/// `q` turned the same way, so that the next link's limit and the next
/// substep's coupling read where the link is. Reading where the bend step
/// had put it instead, a tail whose first link a collider held
/// away from that shape was pulled back toward it by the coupling and
/// pushed out again, 2 mm per frame for ever. The chain kernel runs it lane
/// by lane.
#[inline(never)]
pub(crate) fn rebend(ctx: &BendContext, q: Quat, bent: Vec3, dir: Vec3) -> Quat {
    if bent == dir {
        return q;
    }
    crate::math::rotation_arc(ctx.anchor_inv * bent, ctx.anchor_inv * dir) * q
}

/// Joint `i`'s `(1 − drag, stiffness·scale·h, gravity·scale·h + wind·h²)`
/// for the VRM verlet from the chain's `(stiffness, drag, gravity power)`
/// and the joint's [`ChainSetup::vrm_joint`] numbers.
#[inline]
pub(crate) fn vrm_joint_terms(
    setup: &ChainSetup,
    frame: &SubstepFrame<'_>,
    chain_values: (f32, f32, f32),
    i: usize,
) -> (f32, f32, Vec3) {
    let h = frame.h;
    let (stiffness, drag_force, gravity_power) = setup.vrm_joint(i, chain_values);
    (
        1.0 - drag_force,
        stiffness * frame.scale * h,
        frame.gravity_direction * (gravity_power * frame.scale * h) + frame.wind * (h * h),
    )
}

/// A chain joint turned more than 1e-3 rad from its reference pose is
/// animated ([`ChainParams::REST_AUTO`]): the sine of half that angle.
const ANIMATED_HALF_SINE: f32 = 5e-4;

/// Whether a joint at local `rotation` is turned from its `reference`
/// local rotation far enough that [`ChainParams::REST_AUTO`] calls its
/// chain animated (more than 1e-3 rad). Tools that decide ahead of time
/// (`secmo bake`'s settled start) ask the runtime's question with it.
#[must_use]
pub fn turned_from_reference(reference: Quat, rotation: Quat) -> bool {
    // The sine of half the angle between them, either sign.
    let d = reference.conjugate() * rotation;
    Vec3::new(d.x, d.y, d.z).length() > ANIMATED_HALF_SINE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds [`settle_window`] one speed per 120 Hz step from `first`
    /// (steps since the input last changed) and returns the step at which
    /// the chain sleeps, if it does before `last`.
    fn sleeps_at(first: u64, last: u64, speed: impl Fn(u64) -> f32) -> Option<u64> {
        // A zeroed clock (a new chain, an old snapshot) is a restarted one.
        let mut clock = ChainClock::default();
        (first..last).find(|&step| {
            let still = step as f64 / 120.0;
            settle_window(&mut clock, step, speed(step), 1.0, still)
        })
    }

    #[test]
    fn the_settle_window_sleeps_on_a_creep_or_a_cycle_never_on_a_decaying_swing() {
        // Settled from 1 s (step 120): a creep at 1.5 mm/s sleeps at the
        // end of the first whole window, not of the one under way.
        assert_eq!(sleeps_at(123, 600, |_| 1.5e-3), Some(150));
        // A cycle: the same peaks window after window, from 2 s (step 240).
        let cycle = |step: u64| 0.02 + 0.15 * ((step % 11) as f32 / 10.0);
        assert_eq!(sleeps_at(120, 600, cycle), Some(240));
        // A swing decaying at the presets' slowest rate (1.5 /s of simulated
        // time, 8 simulated steps per step) never counts as a cycle, and
        // sleeps only once quiet.
        let swing = |step: u64| 0.5 * (-1.5 * (step - 120) as f32 * 8.0 / 120.0).exp();
        let quiet = sleeps_at(120, 600, swing).expect("quiet in the end");
        assert!(
            swing(quiet - 14) <= 2e-3,
            "asleep at {quiet} while still moving"
        );
        assert!(swing(quiet - 29) > 2e-3, "quiet a window before {quiet}");
        // A swing decaying more slowly than 0.1 /s (15 times slower than
        // that) is taken for a cycle at 2 s, the limit docs/chains.md
        // names; one decaying at 0.15 /s is not.
        let slow =
            |rate: f32| move |step: u64| 0.5 * (-rate * (step - 120) as f32 * 8.0 / 120.0).exp();
        assert_eq!(sleeps_at(120, 600, slow(0.1)), Some(240));
        assert_eq!(sleeps_at(120, 600, slow(0.15)), None);
        // Faster than the bound at every window's end and decaying by half a
        // window: awake.
        let halving = |step: u64| 10.0 * 0.5f32.powf(step as f32 / 15.0);
        assert_eq!(sleeps_at(120, 181, halving), None);
        // Restarted mid-cycle (woken at step 250): the window under way and
        // the first whole one are never compared, the second is.
        let mut clock = ChainClock::default();
        for step in 120..240 {
            assert!(!settle_window(
                &mut clock,
                step,
                cycle(step),
                1.0,
                step as f64 / 120.0
            ));
        }
        restart_window(&mut clock);
        assert_eq!(clock, ChainClock::default());
        let woken = (250..400)
            .find(|&step| settle_window(&mut clock, step, cycle(step), 1.0, step as f64 / 120.0));
        assert_eq!(woken, Some(285));
    }

    #[test]
    fn bend_alpha_at_60_and_30_fps() {
        // docs/algorithms.md §7: k = 12 /s → α ≈ 0.181 at 60 fps, 0.330 at 30 fps.
        assert!((bend_alpha(12.0, 1.0 / 60.0) - 0.181).abs() < 5e-4);
        assert!((bend_alpha(12.0, 1.0 / 30.0) - 0.330).abs() < 5e-4);
        assert_eq!(bend_alpha(0.0, 1.0 / 60.0), 0.0);
    }

    #[test]
    fn presets_validate() {
        assert!(ChainParams::tail(100.0).validate().is_ok());
        assert!(ChainParams::hair(1.0).validate().is_ok());
        let mut p = ChainParams::tail(1.0);
        p.weight = 2.0;
        assert!(p.validate().is_err());
        p = ChainParams::tail(1.0);
        p.gravity = f32::NAN;
        assert!(p.validate().is_err());
    }
}
