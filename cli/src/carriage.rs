//! The tail's carriage and swing against the artist's (issue #17 item 1,
//! docs/chains.md "The artist's carriage"): where the tail's tip sits on
//! average in the frame of the bone that carries it, and how far it swings
//! about that mean.

use glam::{Affine3A, Quat, Vec3};
use secmo::math::forward_kinematics;

use crate::bake::Baker;
use crate::import::Clip;

/// Samples per clip, evenly over its keys (as the issue measured).
pub const SAMPLES: usize = 24;

/// A chain's tip over a clip, in its anchor's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carriage {
    /// Mean tip position relative to the chain's first joint, rig units.
    pub mean: Vec3,
    /// RMS distance of the tip from that mean, rig units.
    pub swing: f32,
}

impl Carriage {
    /// Degrees between this carriage's mean direction and `other`'s.
    #[must_use]
    pub fn direction_error(&self, other: &Carriage) -> f32 {
        self.mean.angle_between(other.mean).to_degrees()
    }
}

/// The carriage of the baker's `chain` over `clip` at the key `times`: as the
/// clip animates it (`rotations` None), or with the chain joints' keys
/// `rotations` (a bake's, one track per baker joint).
#[must_use]
pub fn carriage(
    baker: &Baker,
    chain: usize,
    clip: &Clip,
    times: &[f32],
    rotations: Option<&[Vec<Quat>]>,
) -> Carriage {
    let rig = &baker.rig;
    let setup = &rig.chains()[chain];
    let (anchor, first) = (setup.anchor as usize, setup.joints[0] as usize);
    let tip = *setup.joints.last().expect("chains have joints") as usize;
    let mut component = vec![Affine3A::IDENTITY; rig.bone_count()];
    let mut pose = rig.reference_pose().to_vec();
    let keys = times.len().saturating_sub(1).max(1);
    let tips: Vec<Vec3> = (0..SAMPLES)
        .map(|s| {
            let f = (s * keys / SAMPLES).min(times.len() - 1);
            baker.keyed_pose(clip, times[f], rotations.map(|r| (r, f)), &mut pose);
            forward_kinematics(rig.parents(), &pose, &mut component);
            let local = component[anchor].inverse();
            local.transform_point3(component[tip].translation.into())
                - local.transform_point3(component[first].translation.into())
        })
        .collect();
    let mean = tips.iter().copied().sum::<Vec3>() / SAMPLES as f32;
    let swing = (tips
        .iter()
        .map(|t| (*t - mean).length_squared())
        .sum::<f32>()
        / SAMPLES as f32)
        .sqrt();
    Carriage { mean, swing }
}
