//! Progress of long work, counted in frames: a bar on stderr with the
//! frames done, the frames planned and an ETA. It is drawn only once the
//! work has taken a second (and never when stderr is not a terminal), so
//! short commands print nothing but their result.
//!
//! The plan is what the command knows in advance: every frame `bake` and
//! `report` will simulate or skin. A bake's warm-up stops when the chain
//! state repeats, so its passes are planned as [`WARM_UP_GUESS`] and the
//! plan is corrected when each bake knows its own count.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Warm-up passes planned for a bake before it has run (the Fox's clips
/// take 8, the demo's 3; the cap is 30).
pub const WARM_UP_GUESS: usize = 8;

/// Work longer than this shows the bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Frames done against frames planned.
pub struct Progress {
    bar: indicatif::ProgressBar,
    start: Instant,
    /// Whether to draw on stderr once [`SHOW_AFTER`] has passed.
    draw: bool,
    shown: AtomicBool,
}

impl Default for Progress {
    fn default() -> Self {
        Self::hidden()
    }
}

impl Progress {
    /// Counts and never draws (tests, and work inside another command).
    #[must_use]
    pub fn hidden() -> Self {
        Self {
            bar: indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::hidden(),
            ),
            start: Instant::now(),
            draw: false,
            shown: AtomicBool::new(false),
        }
    }

    /// A bar on stderr, drawn once the work has taken [`SHOW_AFTER`].
    #[must_use]
    pub fn stderr(what: &str) -> Self {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(0),
            indicatif::ProgressDrawTarget::hidden(),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} frames, {elapsed} elapsed, ETA {eta}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        Self {
            bar,
            start: Instant::now(),
            draw: true,
            shown: AtomicBool::new(false),
        }
    }

    /// Adds `frames` to the plan.
    pub fn plan(&self, frames: u64) {
        self.bar.inc_length(frames);
    }

    /// Takes `frames` off the plan (work that turned out not to be needed).
    pub fn unplan(&self, frames: u64) {
        let length = self.bar.length().unwrap_or(0);
        self.bar.set_length(length.saturating_sub(frames));
    }

    /// `frames` more done.
    pub fn done(&self, frames: u64) {
        self.bar.inc(frames);
        if self.draw && !self.shown.load(Ordering::Relaxed) && self.start.elapsed() >= SHOW_AFTER {
            self.shown.store(true, Ordering::Relaxed);
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    /// What is being worked on (the clip).
    pub fn set_message(&self, what: String) {
        self.bar.set_message(what);
    }

    /// Frames done.
    #[must_use]
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Frames planned.
    #[must_use]
    pub fn length(&self) -> u64 {
        self.bar.length().unwrap_or(0)
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
