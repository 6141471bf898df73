//! `secmo rig`: grow tail chains on rigs that have none (SPEC §12).

/// SPEC §12.6: weights of a vertex at fraction `f` ∈ [0, 1) along its
/// segment, as `[previous bone, own bone, next bone]`: the root half blends
/// toward the previous bone, the tip half toward the next, 50/50 at joints.
#[must_use]
pub fn segment_weights(f: f32) -> [f32; 3] {
    let w_prev = (0.5 - 2.0 * f).clamp(0.0, 0.5);
    let w_next = (2.0 * f - 1.5).clamp(0.0, 0.5);
    [w_prev, 1.0 - w_prev - w_next, w_next]
}
