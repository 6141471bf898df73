//! One error type for the Rust API; each variant maps to one stable C result code.

use std::fmt;

use crate::rig_error::RigError;

/// Everything an API call can reject. On any error the character's state is
/// exactly what it was before the call.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    Rig(RigError),
    /// A caller buffer has the wrong number of elements.
    BufferLength {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// `dt` is negative, NaN, infinite or larger than [`crate::clock::MAX_DT`].
    InvalidDt(f32),
    /// NaN or infinity in an input transform.
    NonFinitePose {
        bone: usize,
    },
    /// A zero-length quaternion or a scale component beyond 1e4 in an input
    /// transform, or a zero scale component on a bone secmo reads
    /// ([`crate::Rig::reads_bone`]).
    DegeneratePose {
        bone: usize,
        what: &'static str,
    },
    /// A result became non-finite (inputs at the edge of f32 range); nothing was written.
    NonFiniteResult {
        bone: usize,
    },
    /// A snapshot buffer does not belong to this character or is corrupted.
    Snapshot(&'static str),
    /// A setter got a value outside its range.
    InvalidParameter(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Rig(e) => write!(f, "invalid rig: {e}"),
            Error::BufferLength {
                what,
                expected,
                got,
            } => write!(f, "{what}: expected {expected} elements, got {got}"),
            Error::InvalidDt(dt) => write!(
                f,
                "dt {dt} is invalid: it must be finite, >= 0 and <= {} s",
                crate::clock::MAX_DT
            ),
            Error::NonFinitePose { bone } => {
                write!(f, "input pose, bone {bone}: NaN or infinity")
            }
            Error::DegeneratePose { bone, what } => write!(f, "input pose, bone {bone}: {what}"),
            Error::NonFiniteResult { bone } => write!(
                f,
                "bone {bone}: the result is not finite (input coordinates too large); state unchanged"
            ),
            Error::Snapshot(why) => write!(f, "snapshot rejected: {why}"),
            Error::InvalidParameter(why) => write!(f, "invalid parameter: {why}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<RigError> for Error {
    fn from(e: RigError) -> Self {
        Error::Rig(e)
    }
}
