//! Fixed substeps with a carried remainder (docs/algorithms.md §2), in exact float32.

/// The article's base step, `0.0083333338f32` (≈ 1/120 s). Spelled exactly as
/// the f32 value the reference implementation used (docs/algorithms.md §2).
pub const BASE_STEP: f32 = 0.008_333_334;

/// `remaining` never exceeds this many seconds (docs/algorithms.md §2 cap [5 s]); a long
/// pause therefore costs at most 5 s of substeps, not an explosion.
pub const REMAINING_CAP: f32 = 5.0;

/// The largest `dt` an update accepts. Anything larger is treated as a caller
/// bug (uninitialised timer, microseconds passed as seconds) and rejected;
/// legitimate pauses up to a day are accepted and capped by [`REMAINING_CAP`].
pub const MAX_DT: f32 = 86_400.0;

/// Whether an update accepts `dt`: finite, 0 ≤ dt ≤ [`MAX_DT`] (the
/// character's input check and the world's plan ask the same).
#[inline]
#[must_use]
pub fn dt_accepted(dt: f32) -> bool {
    dt.is_finite() && (0.0..=MAX_DT).contains(&dt)
}

/// Substep length for a time factor: `h = f32(time_factor × 0.0083333338)` (docs/algorithms.md §2).
#[inline]
#[must_use]
pub fn step_length(time_factor: f32) -> f32 {
    time_factor * BASE_STEP
}

/// Adds `dt` to `remaining` with the cap: `remaining = min(f32(remaining + dt), 5)` (docs/algorithms.md §2).
#[inline]
#[must_use]
pub fn accumulate(remaining: f32, dt: f32) -> f32 {
    (remaining + dt).min(REMAINING_CAP)
}

/// The docs/algorithms.md §2 loop, `while remaining > h { step(k); remaining -= h }`:
/// calls `step` with each substep's index and returns how many ran, leaving
/// the remainder in `remaining`. Never replaced by `floor(remaining / h)`:
/// the strict `>` and the f32 rounding of each subtraction decide the
/// boundary cases. The spring solver runs its substeps through it
/// ([`crate::solvers::spring::advance`]), so these tests test that loop.
#[inline]
pub fn substeps(remaining: &mut f32, h: f32, mut step: impl FnMut(u32)) -> u32 {
    let mut n = 0u32;
    while *remaining > h {
        step(n);
        *remaining -= h;
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_step_is_the_articles_f32() {
        // 0.0083333338 as the article printed it is this f32 (0x3c088889).
        assert_eq!(BASE_STEP.to_bits(), 0x3c08_8889);
        assert_eq!(BASE_STEP, 1.0 / 120.0);
        assert_eq!(step_length(1.0), BASE_STEP);
    }

    /// How many substeps the loop runs from `remaining`, and what is left.
    fn count_substeps(mut remaining: f32, h: f32) -> (u32, f32) {
        let n = substeps(&mut remaining, h, |_| {});
        (n, remaining)
    }

    #[test]
    fn the_loop_hands_each_substep_its_index() {
        let h = step_length(1.0);
        let mut remaining = accumulate(0.0, 0.045);
        let mut seen = Vec::new();
        let n = substeps(&mut remaining, h, |k| seen.push(k));
        assert_eq!(n, 5);
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        assert!(remaining > 0.0 && remaining <= h, "{remaining}");
    }

    fn run(dt: f32, updates: usize) -> Vec<(u32, f32)> {
        let h = step_length(1.0);
        let mut remaining = 0.0f32;
        (0..updates)
            .map(|_| {
                let (n, r) = count_substeps(accumulate(remaining, dt), h);
                remaining = r;
                (n, r)
            })
            .collect()
    }

    #[test]
    fn thirty_hz_input_gives_four_substeps() {
        // docs/algorithms.md §2: at 30 Hz input the tested updates executed 4 substeps.
        let steps = run(1.0 / 30.0, 300);
        assert!(steps.iter().all(|&(n, _)| n == 4), "{steps:?}");
        // f32(1/30) is a little more than 4 f32 steps, so a small remainder is
        // left over and carried (not dropped): it grows update by update.
        let h = step_length(1.0);
        assert!(steps[0].1 > 0.0 && steps[0].1 < 1e-6, "{:?}", steps[0]);
        assert!(steps[10].1 > steps[0].1);
        // Over 300 updates (10 s) the time simulated plus the remainder equals
        // the time given, to f32 rounding.
        let total: u32 = steps.iter().map(|s| s.0).sum();
        assert!((total as f32 * h + steps[299].1 - 10.0).abs() < 1e-3);
    }

    #[test]
    fn the_remainder_carries_into_the_next_update() {
        // 50 Hz input: 0.02 s = 2 steps + 0.00333; the carried part makes every
        // third update run 3 substeps: 2, 2, 3, 2, 2, 3 ...
        let steps = run(0.02, 6);
        let counts: Vec<u32> = steps.iter().map(|s| s.0).collect();
        assert_eq!(counts, [2, 2, 3, 2, 2, 3]);
        // floor(dt / h) would have said 2 every time and lost 1/6 of the time.
        assert_eq!((0.02f32 / step_length(1.0)).floor(), 2.0);
    }

    #[test]
    fn remainder_exactly_at_the_boundary_does_not_step() {
        // remaining == h: the strict `>` runs no substep and keeps h.
        let h = step_length(1.0);
        assert_eq!(count_substeps(h, h), (0, h));
        // One ulp more runs exactly one.
        let above = f32::from_bits(h.to_bits() + 1);
        let (n, r) = count_substeps(above, h);
        assert_eq!(n, 1);
        assert!(r > 0.0 && r < 1e-8);
        // Exactly 2h: one step, and the rest equals h again (not a second step).
        let two_h = 2.0 * h;
        let (n2, r2) = count_substeps(two_h, h);
        assert_eq!(n2, 1);
        assert_eq!(r2, h);
    }

    #[test]
    fn remaining_is_capped_at_five_seconds() {
        assert_eq!(accumulate(0.0, 10.0), 5.0);
        assert_eq!(accumulate(4.9, 0.2), 5.0);
        let (n, r) = count_substeps(accumulate(0.0, 10.0), step_length(1.0));
        // 5 s at ≈1/120 s: 599 or 600 steps depending on rounding, never 1200.
        assert!((599..=600).contains(&n), "{n}");
        assert!(r <= step_length(1.0));
    }

    #[test]
    fn time_factor_scales_the_step() {
        let h2 = step_length(2.0);
        assert_eq!(h2, 2.0 * BASE_STEP);
        let (n, _) = count_substeps(accumulate(0.0, 1.0 / 30.0), h2);
        assert_eq!(n, 1);
    }
}
