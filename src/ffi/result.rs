//! Result codes, the error a boundary call carries, the panic guard every
//! entry point opens with, the thread-local last error, handle bookkeeping,
//! and the library-wide entry points (version, ABI, last error, live objects).

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------
// Result codes. Never renumbered; retired codes stay reserved.

/// Every fallible function returns one of the `SECMO_*` codes below.
pub type SecmoResult = u32;
/// Success.
pub const SECMO_OK: SecmoResult = 0;
/// A required pointer argument was NULL.
pub const SECMO_ERROR_NULL_POINTER: SecmoResult = 7001;
/// A buffer has the wrong number of elements or is too small.
pub const SECMO_ERROR_BUFFER_LENGTH: SecmoResult = 7002;
/// dt is negative, NaN, infinite or larger than 86400 s.
pub const SECMO_ERROR_INVALID_DT: SecmoResult = 7003;
/// NaN or infinity in an input pose.
pub const SECMO_ERROR_NON_FINITE_POSE: SecmoResult = 7004;
/// Zero-length quaternion or scale beyond 1e4 in an input pose, or a zero
/// scale on a bone secmo reads (a zero scale elsewhere passes through).
pub const SECMO_ERROR_DEGENERATE_POSE: SecmoResult = 7005;
/// The rig descriptor is invalid (parents, values, solver setup); the message names the bone.
pub const SECMO_ERROR_INVALID_RIG: SecmoResult = 7006;
/// A descriptor's `struct_size` is too small or newer than this library.
pub const SECMO_ERROR_STRUCT_SIZE: SecmoResult = 7007;
/// A snapshot is from another rig, another version, truncated or corrupted.
pub const SECMO_ERROR_SNAPSHOT: SecmoResult = 7008;
/// An argument is outside its documented range.
pub const SECMO_ERROR_INVALID_ARGUMENT: SecmoResult = 7009;
/// A result was not finite (inputs near the f32 limit); nothing was written.
pub const SECMO_ERROR_NON_FINITE_RESULT: SecmoResult = 7010;
/// A rig-settings text is not valid JSON, is another format or version, or
/// names a bone or collider that does not exist; the message gives the path.
pub const SECMO_ERROR_SETTINGS: SecmoResult = 7011;
/// A Rust panic was caught at the boundary. The object is still valid.
pub const SECMO_ERROR_PANIC: SecmoResult = 7099;

// ---------------------------------------------------------------------------
// Boundary machinery.

pub(crate) struct FfiError {
    pub(crate) code: SecmoResult,
    pub(crate) message: String,
}

impl FfiError {
    pub(crate) fn new(code: SecmoResult, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<Error> for FfiError {
    fn from(e: Error) -> Self {
        let code = match &e {
            Error::Rig(_) => SECMO_ERROR_INVALID_RIG,
            Error::BufferLength { .. } => SECMO_ERROR_BUFFER_LENGTH,
            Error::InvalidDt(_) => SECMO_ERROR_INVALID_DT,
            Error::NonFinitePose { .. } => SECMO_ERROR_NON_FINITE_POSE,
            Error::DegeneratePose { .. } => SECMO_ERROR_DEGENERATE_POSE,
            Error::NonFiniteResult { .. } => SECMO_ERROR_NON_FINITE_RESULT,
            Error::Snapshot(_) => SECMO_ERROR_SNAPSHOT,
            Error::InvalidParameter(_) => SECMO_ERROR_INVALID_ARGUMENT,
        };
        FfiError::new(code, e.to_string())
    }
}

impl From<RigError> for FfiError {
    fn from(e: RigError) -> Self {
        Error::Rig(e).into()
    }
}

/// `message` with the rig's name for the first bone it names ("bone 3:"
/// becomes "bone 3 (\"tail_1\"):"), where the rig was given names (a
/// C rig without names calls bone 3 "bone3", which adds nothing).
/// Whether `code` is one of this library's error codes (what a call or a
/// plan can have written into an item's `result`).
pub(crate) fn is_error_code(code: SecmoResult) -> bool {
    (SECMO_ERROR_NULL_POINTER..=SECMO_ERROR_SETTINGS).contains(&code) || code == SECMO_ERROR_PANIC
}

pub(crate) fn name_bone(message: &str, rig: &crate::Rig) -> String {
    let Some(at) = message.find("bone ") else {
        return message.to_string();
    };
    let digits: String = message[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let end = at + 5 + digits.len();
    let Ok(bone) = digits.parse::<usize>() else {
        return message.to_string();
    };
    match rig.bone_name(bone) {
        Some(name) if !name.is_empty() && name != format!("bone{bone}") && message[end..].starts_with(':') => {
            format!("{} (\"{name}\"){}", &message[..end], &message[end..])
        }
        _ => message.to_string(),
    }
}

thread_local! {
    /// NUL-terminated message of the last failing call on this thread.
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

static LIVE_OBJECTS: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn set_last_error(message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.extend(message.bytes().map(|b| if b == 0 { b'?' } else { b }));
        e.push(0);
    });
}

/// Runs `body` behind the panic boundary and turns its outcome into a code.
pub(crate) fn guard(name: &str, body: impl FnOnce() -> Result<(), FfiError>) -> SecmoResult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SECMO_OK,
        Ok(Err(e)) => {
            set_last_error(&format!("{name}: {}", e.message));
            e.code
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_last_error(&format!("{name}: internal panic: {what}"));
            SECMO_ERROR_PANIC
        }
    }
}

/// Boxes a new handle for C and counts it as live.
pub(crate) fn new_handle<T>(value: T) -> *mut T {
    LIVE_OBJECTS.fetch_add(1, Ordering::SeqCst);
    Box::into_raw(Box::new(value))
}

/// Frees a handle made by [`new_handle`]; NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or came from `new_handle::<T>` and was not freed yet.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the caller promises `ptr` came from `new_handle::<T>`
        // (Box::into_raw) and has not been freed.
        drop(unsafe { Box::from_raw(ptr) });
        LIVE_OBJECTS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Counts objects made without [`new_handle`] (a world's characters).
pub(crate) fn live_objects_add(n: usize) {
    LIVE_OBJECTS.fetch_add(n, Ordering::SeqCst);
}

/// Uncounts objects freed without [`free_handle`].
pub(crate) fn live_objects_sub(n: usize) {
    LIVE_OBJECTS.fetch_sub(n, Ordering::SeqCst);
}

/// Infallible-by-signature functions still must not unwind into C.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

// ---------------------------------------------------------------------------
// Library.

/// Library version string, e.g. "0.1.0". Static; never NULL; does not allocate.
#[no_mangle]
pub extern "C" fn secmo_version() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr() as *const c_char
}

/// `SECMO_ABI_VERSION` of the compiled library; compare with the header's.
#[no_mangle]
pub extern "C" fn secmo_abi_version() -> u32 {
    SECMO_ABI_VERSION
}

/// Message of the most recent failing call on this thread ("" if none).
/// Valid until the next failing call on the same thread. Never NULL. Owned by
/// the library: do not free.
#[no_mangle]
pub extern "C" fn secmo_last_error_message() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    guard_value(EMPTY.as_ptr() as *const c_char, || {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            if e.is_empty() {
                EMPTY.as_ptr() as *const c_char
            } else {
                e.as_ptr() as *const c_char
            }
        })
    })
}

/// Number of rigs, worlds and characters (a world's included) currently
/// alive (created and not destroyed).
/// For leak checks in tests and wrappers.
#[no_mangle]
pub extern "C" fn secmo_live_object_count() -> usize {
    LIVE_OBJECTS.load(Ordering::SeqCst)
}
