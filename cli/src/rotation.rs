//! Rotation measures shared by the importer, the baker and the report; it
//! sits below them all, so that none of them imports another for it.

use glam::Quat;

/// The angle between two rotations, accurate near zero (`Quat::angle_between`
/// uses `acos`, whose f32 resolution near 1 is about 7e-4 rad).
pub fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * glam::Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
}
