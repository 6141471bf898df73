//! Pointer helpers: every raw pointer and length from C goes through these
//! before it becomes a reference or a slice (null, alignment, `isize::MAX`
//! bytes), and versioned descriptors through `read_versioned`. They are
//! crate-private and take the C caller's contract (a non-null pointer is
//! valid for the stated length) as their precondition; every other condition
//! from_raw_parts needs is checked here.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

pub(crate) fn non_null<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, FfiError> {
    // SAFETY: the caller promises a non-null pointer is valid for reads (header contract).
    unsafe { ptr.as_ref() }
        .ok_or_else(|| FfiError::new(SECMO_ERROR_NULL_POINTER, format!("{what} is NULL")))
}

pub(crate) fn non_null_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, FfiError> {
    // SAFETY: as above, valid for writes.
    unsafe { ptr.as_mut() }
        .ok_or_else(|| FfiError::new(SECMO_ERROR_NULL_POINTER, format!("{what} is NULL")))
}

/// A range `[first, end)` of an item array: in order, and the array
/// non-null when the range reaches past 0 (`secmo_update_batch`,
/// `secmo_world_update_range`).
pub(crate) fn check_range<T>(items: *mut T, first: usize, end: usize) -> Result<(), FfiError> {
    if first > end {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!("first ({first}) is after end ({end})"),
        ));
    }
    if end > 0 {
        non_null_mut(items, "items")?;
    }
    Ok(())
}

/// What `from_raw_parts` needs beyond the caller's promise: a non-null,
/// aligned pointer and at most `isize::MAX` bytes. Checked before any slice
/// exists.
pub(crate) fn check_raw<T>(addr: usize, len: usize, what: &str) -> Result<(), FfiError> {
    if addr == 0 {
        return Err(FfiError::new(
            SECMO_ERROR_NULL_POINTER,
            format!("{what} is NULL but its length is {len}"),
        ));
    }
    if addr % core::mem::align_of::<T>() != 0 {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!(
                "{what} is not aligned to {} bytes",
                core::mem::align_of::<T>()
            ),
        ));
    }
    let fits = len
        .checked_mul(core::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= isize::MAX as usize);
    if !fits {
        return Err(FfiError::new(
            SECMO_ERROR_BUFFER_LENGTH,
            format!("{what}: a length of {len} is larger than any buffer"),
        ));
    }
    Ok(())
}

pub(crate) fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], FfiError> {
    if len == 0 {
        return Ok(&[]);
    }
    check_raw::<T>(ptr as usize, len, what)?;
    // SAFETY: non-null, aligned, at most isize::MAX bytes (checked), and the
    // caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

pub(crate) fn slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    what: &str,
) -> Result<&'a mut [T], FfiError> {
    if len == 0 {
        return Ok(&mut []);
    }
    check_raw::<T>(ptr as usize, len, what)?;
    // SAFETY: non-null, aligned, at most isize::MAX bytes (checked), and the
    // caller promises `len` writable elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A descriptor that starts with `u32 struct_size`. `SHIPPED` lists every
/// size a released `secmo.h` declared for it on this target, oldest first;
/// the last is `size_of::<Self>()`. A caller built against an older header
/// passes an older size and gets defaults for the fields it lacks; any other
/// size (a half-copied pointer, garbage, a newer header) is refused.
pub(crate) trait Versioned: Copy {
    const SHIPPED: &'static [usize];
}

/// Reads a versioned descriptor (see [`Versioned`]): `struct_size` must be
/// one of `T::SHIPPED`; fields past it keep `defaults`.
pub(crate) fn read_versioned<T: Versioned>(
    ptr: *const T,
    defaults: T,
    what: &str,
) -> Result<T, FfiError> {
    non_null(ptr, what)?;
    // SAFETY: non-null, and every descriptor begins with a u32 struct_size
    // (read unaligned: C may pack an array of older, shorter descriptors).
    let size = unsafe { (ptr as *const u32).read_unaligned() } as usize;
    if !T::SHIPPED.contains(&size) {
        let newest = core::mem::size_of::<T>();
        return Err(FfiError::new(
            SECMO_ERROR_STRUCT_SIZE,
            if size > newest {
                format!(
                    "{what}.struct_size is {size} but this library's struct is at most {newest} bytes \
                     ({:?} are accepted): the pointer is to another struct, or the struct comes from \
                     a newer header than this library",
                    T::SHIPPED
                )
            } else {
                format!(
                    "{what}.struct_size is {size}; set it to sizeof the struct ({:?} are accepted)",
                    T::SHIPPED
                )
            },
        ));
    }
    let mut out = defaults;
    // SAFETY: `size` is a shipped size, so ≤ size_of::<T>() and a whole
    // number of that release's fields, which the caller declared readable.
    unsafe {
        std::ptr::copy_nonoverlapping(ptr as *const u8, &mut out as *mut T as *mut u8, size);
    }
    Ok(out)
}

/// Reads `count` versioned descriptors laid out `springs[0].struct_size`
/// bytes apart; every element must carry that same `struct_size`.
pub(crate) fn read_array<T: Versioned>(
    ptr: *const T,
    count: u32,
    defaults: T,
    what: &str,
) -> Result<Vec<T>, FfiError> {
    // No capacity from the caller's count: a wrong count must not be an
    // allocation of its own.
    let mut out = Vec::new();
    if count == 0 {
        return Ok(out);
    }
    non_null(ptr, what)?;
    // SAFETY: non-null; every descriptor begins with a u32 struct_size.
    let stride = unsafe { (ptr as *const u32).read_unaligned() } as usize;
    for i in 0..count as usize {
        let offset = i
            .checked_mul(stride)
            .filter(|&o| o <= isize::MAX as usize)
            .ok_or_else(|| {
                FfiError::new(
                    SECMO_ERROR_BUFFER_LENGTH,
                    format!("{what}: {count} elements overflow the address space"),
                )
            })?;
        // SAFETY: the caller promises `count` elements, `stride` bytes apart;
        // element 0's stride was validated by read_versioned before any other
        // element is read.
        let element = unsafe { (ptr as *const u8).add(offset) } as *const T;
        let item = read_versioned(element, defaults, &format!("{what}[{i}]"))?;
        // SAFETY: read_versioned has just read this element's first u32.
        let size = unsafe { (element as *const u32).read_unaligned() } as usize;
        if size != stride {
            return Err(FfiError::new(
                SECMO_ERROR_STRUCT_SIZE,
                format!("{what}[{i}].struct_size differs from {what}[0]"),
            ));
        }
        out.push(item);
    }
    Ok(out)
}
