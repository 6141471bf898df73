//! World entry points (docs/c-api.md "Worlds"): a world creates and owns
//! characters, plans an update of many of them against an optional CPU
//! budget, and runs it in ranges an engine's job system may spread over
//! threads.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

use crate::world::{CharacterId, Plan, World};

/// Opaque world: owns its characters. One thread at a time, except
/// `secmo_world_update_range` on disjoint ranges after one
/// `secmo_world_plan` (docs/c-api.md "Worlds").
pub struct SecmoWorld {
    pub(crate) world: World,
}

/// `secmo_world_set_budget`: no budget (every character at full rate).
pub const SECMO_WORLD_NO_BUDGET: u64 = u64::MAX;

/// `SecmoWorldItem.level`: every substep.
pub const SECMO_LEVEL_FULL: u32 = 0;
/// `SecmoWorldItem.level`: substeps twice as long.
pub const SECMO_LEVEL_HALF: u32 = 1;
/// `SecmoWorldItem.level`: substeps four times as long.
pub const SECMO_LEVEL_QUARTER: u32 = 2;
/// `SecmoWorldItem.level`: no chain stage; chain joints keep their last
/// shown rotations.
pub const SECMO_LEVEL_HELD: u32 = 3;

/// One character's update in a world: the arguments of
/// `secmo_character_update`, the budget importance, and what the world
/// writes back.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SecmoWorldItem {
    /// `sizeof(SecmoWorldItem)`. Shipped sizes: 56 on 64-bit targets (ABI
    /// 1.4; it holds pointers, so 32-bit targets use their own `sizeof`);
    /// any other is refused for that item.
    pub struct_size: u32,
    /// Written by `secmo_world_plan` (its failures) and
    /// `secmo_world_update_range`: this item's `SecmoResult`.
    pub result: u32,
    /// A character of this world (from `secmo_world_add`), at most once per
    /// plan.
    pub character: *mut SecmoCharacter,
    pub input: *const SecmoFrameInput,
    pub out_pose: *mut Transform,
    pub out_pose_len: usize,
    /// Optional (NULL).
    pub out_info: *mut SecmoUpdateInfo,
    /// How important the character is for the budget: larger is more
    /// important (e.g. `1 / (1 + distance to the camera)`). Finite.
    pub importance: f32,
    /// Written by `secmo_world_plan`: the level (`SECMO_LEVEL_*`) this
    /// update runs the character at.
    pub level: u32,
}

const _: () = assert!(
    core::mem::size_of::<SecmoWorldItem>()
        == if core::mem::size_of::<usize>() == 8 {
            56
        } else {
            36
        }
);

/// Creates an empty world. Release with `secmo_world_destroy`.
/// Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_create(out_world: *mut *mut SecmoWorld) -> SecmoResult {
    guard("secmo_world_create", || {
        let out = non_null_mut(out_world, "out_world")?;
        *out = new_handle(SecmoWorld {
            world: World::new(),
        });
        Ok(())
    })
}

/// Destroys a world and every character in it (their pointers become
/// invalid). NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_destroy(world: *mut SecmoWorld) {
    guard_value((), || {
        if !world.is_null() {
            // SAFETY: the caller passes a world from secmo_world_create, once.
            let count = unsafe { (*world).world.len() };
            live_objects_sub(count);
            // SAFETY: as above.
            unsafe { free_handle(world) };
        }
    })
}

/// Creates a character of `rig` in `world` (default options). The pointer
/// works with every `secmo_character_*` function and stays valid until
/// `secmo_world_remove` or `secmo_world_destroy`; `secmo_character_destroy`
/// refuses it. Allocates: call it between updates.
/// Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_add(
    world: *mut SecmoWorld,
    rig: *const SecmoRig,
    out_character: *mut *mut SecmoCharacter,
) -> SecmoResult {
    guard("secmo_world_add", || {
        let w = &mut non_null_mut(world, "world")?.world;
        let rig = non_null(rig, "rig")?;
        let out = non_null_mut(out_character, "out_character")?;
        let id = w.add(Arc::clone(&rig.rig), CharacterOptions::default());
        let character = w.get_mut(id)?;
        live_objects_add(1);
        // SecmoCharacter is a transparent wrapper of Character.
        *out = character as *mut Character as *mut SecmoCharacter;
        Ok(())
    })
}

/// The id of `character` if it is a live character of `world`, found by
/// its address without reading through it (a removed character's handle
/// is refused, not read).
fn member(world: &World, character: *mut SecmoCharacter) -> Result<CharacterId, FfiError> {
    if character.is_null() {
        return Err(FfiError::new(SECMO_ERROR_NULL_POINTER, "character is NULL"));
    }
    // SecmoCharacter is a transparent wrapper of Character.
    world
        .find(character as *const Character)
        .ok_or_else(|| FfiError::new(SECMO_ERROR_INVALID_ARGUMENT, crate::world::NOT_LIVE))
}

/// Destroys a character of `world`; its pointer becomes invalid. On error
/// (a character of no world, of another one, or already removed: the
/// pointer is looked up by its address, never read) nothing changes.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_remove(
    world: *mut SecmoWorld,
    character: *mut SecmoCharacter,
) -> SecmoResult {
    guard("secmo_world_remove", || {
        let w = &mut non_null_mut(world, "world")?.world;
        let id = member(w, character)?;
        w.remove(id)?;
        live_objects_sub(1);
        Ok(())
    })
}

/// Sets the CPU budget in joint-substeps per update
/// (`SECMO_WORLD_NO_BUDGET`: none). The next `secmo_world_plan` applies
/// it by the rule of docs/c-api.md "Worlds". Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_set_budget(
    world: *mut SecmoWorld,
    budget: u64,
) -> SecmoResult {
    guard("secmo_world_set_budget", || {
        let w = &mut non_null_mut(world, "world")?.world;
        w.set_budget((budget != SECMO_WORLD_NO_BUDGET).then_some(budget));
        Ok(())
    })
}

// Holds pointers: 56 bytes on 64-bit targets, 36 on 32-bit ones (the
// header checks the same).
const _: () = assert!(
    core::mem::size_of::<SecmoWorldItem>()
        == if core::mem::size_of::<usize>() == 8 {
            56
        } else {
            36
        }
);

/// Whether an item carries this library's `struct_size`.
fn item_sized(item: &SecmoWorldItem) -> bool {
    item.struct_size as usize == core::mem::size_of::<SecmoWorldItem>()
}

/// An item's failure as its result (and the thread's last error).
fn fail(name: &str, i: usize, e: FfiError) -> SecmoResult {
    guard(name, || {
        Err(FfiError::new(e.code, format!("items[{i}]: {}", e.message)))
    })
}

/// Plans an update of `items[0..count)` (once per frame, before their
/// ranges): checks each item's `struct_size`, character (a live character
/// of this world, found by its address without reading through it, listed
/// once: a character listed twice fails both items), input (its dt as
/// `secmo_character_update` checks it) and importance, and chooses every
/// listed character's level by the budget rule (docs/c-api.md "Worlds"),
/// written into each planned item's `level`. A failing item gets its code
/// in `result`, costs nothing against the budget and is not run by the
/// ranges; an item refused in its range leaves its character's level as
/// it was. Does not allocate. Returns `SECMO_OK` when every item was
/// planned, else the first failing item's code.
/// Errors: NULL_POINTER (world, items), and per item: STRUCT_SIZE,
/// NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_plan(
    world: *mut SecmoWorld,
    items: *mut SecmoWorldItem,
    count: usize,
) -> SecmoResult {
    const NAME: &str = "secmo_world_plan";
    let checked = guard(NAME, || {
        non_null_mut(world, "world")?;
        if count > 0 {
            non_null_mut(items, "items")?;
        }
        Ok(())
    });
    if checked != SECMO_OK {
        return checked;
    }
    let planned = guard(NAME, || {
        // SAFETY: checked non-null above; the caller's world.
        let w = unsafe { &mut (*world).world };
        for i in 0..count {
            // SAFETY: the caller promises `count` readable, writable items.
            let item = unsafe { &mut *items.add(i) };
            item.result = SECMO_OK;
        }
        w.plan_entries(
            count,
            |i| {
                // SAFETY: as above.
                let item = unsafe { &mut *items.add(i) };
                let entry =
                    (|| -> Result<(Option<CharacterId>, f32, f32, *const Character), FfiError> {
                        if !item_sized(item) {
                            return Err(FfiError::new(
                                SECMO_ERROR_STRUCT_SIZE,
                                format!(
                                    "struct_size is {}; set it to sizeof(SecmoWorldItem) ({})",
                                    item.struct_size,
                                    core::mem::size_of::<SecmoWorldItem>()
                                ),
                            ));
                        }
                        if item.character.is_null() {
                            return Err(FfiError::new(
                                SECMO_ERROR_NULL_POINTER,
                                "character is NULL",
                            ));
                        }
                        let input = read_versioned(item.input, SecmoFrameInput::UNSET, "input")?;
                        // Named by its address (World::find): not read.
                        let expected = item.character as *const Character;
                        Ok((None, item.importance, input.dt, expected))
                    })();
                match entry {
                    Ok(e) => Some(e),
                    Err(e) => {
                        item.result = fail(NAME, i, e);
                        None
                    }
                }
            },
            |i, e| {
                // SAFETY: as above.
                let item = unsafe { &mut *items.add(i) };
                item.result = fail(NAME, i, e.into());
            },
        );
        Ok(())
    });
    if planned != SECMO_OK {
        return planned;
    }
    // SAFETY: checked non-null above.
    let w = unsafe { &mut (*world).world };
    let mut status = SECMO_OK;
    for i in 0..count {
        // SAFETY: as above.
        let item = unsafe { &mut *items.add(i) };
        if item.result == SECMO_OK {
            if let Ok(id) = member(w, item.character) {
                item.level = w.level(id).map_or(0, |l| l as u32);
            }
        } else if status == SECMO_OK {
            status = item.result;
        }
    }
    status
}

/// Runs the planned items `items[first..end)` of the last
/// `secmo_world_plan` over the same array, each as
/// `secmo_character_update` would at its planned level, and writes each
/// item's `result` (an item the plan refused keeps its code). Up to 8
/// consecutive items share the chain kernel's lanes. Ranges that do not
/// overlap may run on different threads at the same time, with nothing
/// else using the world meanwhile; no locks, no allocation. Returns
/// `SECMO_OK` when every item succeeded, else the first failing item's code.
/// Errors: NULL_POINTER (world, items), INVALID_ARGUMENT (first > end),
/// and per item: INVALID_ARGUMENT (not planned, or run already in this
/// plan) and every error of `secmo_character_update`.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_update_range(
    world: *mut SecmoWorld,
    items: *mut SecmoWorldItem,
    first: usize,
    end: usize,
) -> SecmoResult {
    const NAME: &str = "secmo_world_update_range";
    let checked = guard(NAME, || {
        non_null(world as *const SecmoWorld, "world")?;
        check_range(items, first, end)
    });
    if checked != SECMO_OK || first == end {
        return checked;
    }
    const JOBS: usize = crate::solvers::chain_stage::JOBS;
    // SAFETY: non-null; shared, so that ranges on several threads may each
    // hold it (every mutation goes through a slot this range took alone).
    let plan = Plan::of(unsafe { &(*world).world });
    let mut status = SECMO_OK;
    let mut start = first;
    while start < end {
        let stop = end.min(start + JOBS);
        let mut entries: [Option<crate::world::Entry<'_>>; JOBS] = [const { None }; JOBS];
        let mut results: [Option<Result<crate::character::UpdateInfo, crate::Error>>; JOBS] =
            [const { None }; JOBS];
        let mut saved = [None; JOBS];
        for (k, i) in (start..stop).enumerate() {
            // SAFETY: the caller promises `end` readable, writable items.
            let item = unsafe { &mut *items.add(i) };
            if item_sized(item) && item.result != SECMO_OK && !is_error_code(item.result) {
                // No plan wrote this: the array was not planned.
                item.result = fail(
                    NAME,
                    i,
                    FfiError::new(
                        SECMO_ERROR_INVALID_ARGUMENT,
                        format!(
                            "result is {}, which secmo_world_plan never writes: plan the items \
                             (secmo_world_plan) before running them",
                            item.result
                        ),
                    ),
                );
                continue;
            }
            if !item_sized(item) || item.result != SECMO_OK {
                if item_sized(item) {
                    continue; // refused by the plan: keeps its code
                }
                item.result = fail(
                    NAME,
                    i,
                    FfiError::new(
                        SECMO_ERROR_STRUCT_SIZE,
                        format!(
                            "struct_size is {}; set it to sizeof(SecmoWorldItem) ({})",
                            item.struct_size,
                            core::mem::size_of::<SecmoWorldItem>()
                        ),
                    ),
                );
                continue;
            }
            let mut saved_inputs = None;
            // SAFETY: the item's pointers follow secmo_character_update's
            // contract; the slot is this range's alone.
            let r = guard(NAME, || unsafe {
                begin_entry(&plan, item, &mut saved_inputs)
                    .map(|e| entries[k] = Some(e))
                    .map_err(|mut e| {
                        e.message = format!("items[{i}]: {}", e.message);
                        e
                    })
            });
            item.result = r;
            saved[k] = saved_inputs;
        }
        // SAFETY: every entry's slot was taken by begin_entry on this thread.
        let ran = guard(NAME, || {
            unsafe {
                crate::world::run_window(&mut entries[..stop - start], &mut results[..stop - start])
            };
            Ok(())
        });
        for (k, i) in (start..stop).enumerate() {
            // SAFETY: as above.
            let item = unsafe { &mut *items.add(i) };
            if let Some(result) = results[k].take() {
                item.result = match (ran, result) {
                    (SECMO_OK, Ok(info)) => {
                        // SAFETY: begin_entry's read_frame checked out_info.
                        unsafe { write_info(item.out_info, &info) };
                        SECMO_OK
                    }
                    (SECMO_OK, Err(e)) => {
                        // SAFETY: the character of a taken slot.
                        let c = unsafe { &mut (*item.character).character };
                        if let Some(s) = saved[k] {
                            c.restore_chain_inputs(s);
                        }
                        let mut e: FfiError = e.into();
                        e.message = crate::ffi::result::name_bone(&e.message, c.rig());
                        fail(NAME, i, e)
                    }
                    (code, _) => code,
                };
            }
            if status == SECMO_OK && item.result != SECMO_OK {
                status = item.result;
            }
        }
        start = stop;
    }
    status
}

/// An item's checks before it runs (`secmo_character_update`'s, with the
/// frame's world and importance applied, their previous values in
/// `saved`), and its window entry.
unsafe fn begin_entry<'a>(
    plan: &Plan<'_>,
    item: &SecmoWorldItem,
    saved: &mut Option<crate::solvers::chain_stage::ChainInputs>,
) -> Result<crate::world::Entry<'a>, FfiError> {
    if item.character.is_null() {
        return Err(FfiError::new(SECMO_ERROR_NULL_POINTER, "character is NULL"));
    }
    // Named by its address (World::find): not read until it is found live.
    let id = plan
        .find(item.character as *const Character)
        .ok_or_else(|| FfiError::new(SECMO_ERROR_INVALID_ARGUMENT, crate::world::NOT_LIVE))?;
    // SAFETY: ranges do not overlap and the plan lists each character once.
    let state = unsafe { plan.take_slot(id, item.character as *const Character)? };
    // SAFETY: the slot is this range's.
    let character = unsafe { Plan::character(state) };
    // SAFETY: the item's pointers follow secmo_character_update's contract.
    let frame = unsafe { read_frame(character, item.input, item.out_info)? };
    // SAFETY: as above.
    let in_place =
        unsafe { check_pose_buffers(character, &frame, item.out_pose, item.out_pose_len)? };
    let teleport = frame.flags & SECMO_FRAME_TELEPORT != 0;
    // In place, the input pose is the output buffer, read before it is
    // written (a level change that reads it twice copies it first).
    let pose: &[Transform] = if in_place {
        &[]
    } else {
        slice(frame.pose, frame.pose_len, "input->pose")?
    };
    *saved = Some(apply_frame(character, &frame)?);
    let output = slice_mut(item.out_pose, item.out_pose_len, "out_pose")?;
    Ok(plan.entry(
        state,
        FrameInput {
            dt: frame.dt,
            pose,
            teleport,
        },
        (output, in_place),
        None,
    ))
}

/// Plans `items[0..count)` and runs them all: `secmo_world_plan`, then
/// `secmo_world_update_range(world, items, 0, count)`. Returns `SECMO_OK`
/// when every item succeeded, else the first failing item's code.
/// Errors: those of the two.
#[no_mangle]
pub unsafe extern "C" fn secmo_world_update(
    world: *mut SecmoWorld,
    items: *mut SecmoWorldItem,
    count: usize,
) -> SecmoResult {
    // SAFETY: the caller's pointers follow this function's contract.
    let planned = unsafe { secmo_world_plan(world, items, count) };
    if world.is_null() || (count > 0 && items.is_null()) {
        // Nothing was planned (an item's NULL character is that item's
        // failure only: the others still run).
        return planned;
    }
    // SAFETY: as above.
    let ran = unsafe { secmo_world_update_range(world, items, 0, count) };
    if planned != SECMO_OK {
        planned
    } else {
        ran
    }
}
