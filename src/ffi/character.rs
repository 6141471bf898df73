//! Character entry points: creation, updates, stage toggles, reset,
//! records, snapshots, chain parameters, wind and debug draw.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------
// Character.

pub(crate) fn substep_target(value: u32) -> Result<SubstepTarget, FfiError> {
    match value {
        SECMO_SUBSTEP_TARGET_HOLD => Ok(SubstepTarget::Hold),
        SECMO_SUBSTEP_TARGET_INTERPOLATE => Ok(SubstepTarget::Interpolate),
        other => Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            format!("substep_target is {other}; use SECMO_SUBSTEP_TARGET_HOLD or _INTERPOLATE"),
        )),
    }
}

/// Creates a character of `rig` (which it keeps alive). `desc` may be NULL for
/// defaults. All memory the character uses is allocated here; updates never
/// allocate. Release with `secmo_character_destroy`.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_create(
    rig: *const SecmoRig,
    desc: *const SecmoCharacterDesc,
    out_character: *mut *mut SecmoCharacter,
) -> SecmoResult {
    guard("secmo_character_create", || {
        let rig = non_null(rig, "rig")?;
        let out = non_null_mut(out_character, "out_character")?;
        let mut options = CharacterOptions::default();
        if !desc.is_null() {
            let d = read_versioned(
                desc,
                SecmoCharacterDesc {
                    struct_size: 0,
                    substep_target: SECMO_SUBSTEP_TARGET_HOLD,
                },
                "desc",
            )?;
            options.substep_target = substep_target(d.substep_target)?;
        }
        let character = Character::new(Arc::clone(&rig.rig), options);
        *out = new_handle(SecmoCharacter { character });
        Ok(())
    })
}

/// Destroys a character. NULL is ignored. A character of a world
/// (`secmo_world_add`) is not freed: the call sets the last error
/// (`secmo_last_error_message`) and leaves it to `secmo_world_remove`.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_destroy(character: *mut SecmoCharacter) {
    if !character.is_null() {
        // SAFETY: the caller passes NULL or a live character.
        let slot = unsafe { (*character).character.world_slot };
        if slot != u32::MAX {
            // Refused: guard records the message for secmo_last_error_message.
            guard("secmo_character_destroy", || {
                Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    "the character belongs to a world: remove it with secmo_world_remove \
                     (it was not freed)",
                ))
            });
            return;
        }
    }
    // SAFETY: the caller passes NULL or a character from
    // secmo_character_create, once.
    guard_value((), || unsafe { free_handle(character) })
}

/// Turns the pointers of `SecmoStageRecords` into borrowed slices. No record
/// buffer may overlap another or one of `poses` (name, address, bytes): each
/// becomes a slice the update writes.
pub(crate) fn record_sink<'a>(
    r: &SecmoStageRecords,
    rig: &Rig,
    poses: [(&'static str, usize, usize); 2],
) -> Result<RecordSink<'a>, FfiError> {
    let n = rig.bone_count();
    let t = core::mem::size_of::<Transform>();
    let buffers = [
        ("records.source", r.source as usize, n * t),
        ("records.constrained", r.constrained as usize, n * t),
        ("records.post_spring", r.post_spring as usize, n * t),
        ("records.post_corrective", r.post_corrective as usize, n * t),
        ("records.final_pose", r.final_pose as usize, n * t),
        (
            "records.springs",
            r.springs as usize,
            (r.spring_count as usize).saturating_mul(core::mem::size_of::<SpringRecord>()),
        ),
        (
            "records.correctives",
            r.correctives as usize,
            (r.corrective_count as usize).saturating_mul(core::mem::size_of::<CorrectiveRecord>()),
        ),
        (
            "records.probe_distances",
            r.probe_distances as usize,
            (r.probe_distance_count as usize).saturating_mul(core::mem::size_of::<f32>()),
        ),
    ];
    let overlap = |(_, a, la): (&str, usize, usize), (_, b, lb): (&str, usize, usize)| {
        a != 0 && b != 0 && la > 0 && lb > 0 && a < b.saturating_add(lb) && b < a.saturating_add(la)
    };
    for (i, &x) in buffers.iter().enumerate() {
        for &y in buffers[i + 1..].iter().chain(poses.iter()) {
            if overlap(x, y) {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!(
                        "{} overlaps {}: every record buffer must be its own memory",
                        x.0, y.0
                    ),
                ));
            }
        }
    }
    let any_pose = [
        r.source,
        r.constrained,
        r.post_spring,
        r.post_corrective,
        r.final_pose,
    ]
    .iter()
    .any(|p| !p.is_null());
    if any_pose && r.bone_count as usize != n {
        return Err(Error::BufferLength {
            what: "records.bone_count",
            expected: n,
            got: r.bone_count as usize,
        }
        .into());
    }
    fn opt<'a, T>(ptr: *mut T, len: usize, what: &str) -> Result<Option<&'a mut [T]>, FfiError> {
        if ptr.is_null() {
            Ok(None)
        } else {
            slice_mut(ptr, len, what).map(Some)
        }
    }
    Ok(RecordSink {
        source: opt(r.source, n, "records.source")?,
        constrained: opt(r.constrained, n, "records.constrained")?,
        post_spring: opt(r.post_spring, n, "records.post_spring")?,
        post_corrective: opt(r.post_corrective, n, "records.post_corrective")?,
        final_pose: opt(r.final_pose, n, "records.final_pose")?,
        springs: opt(r.springs, r.spring_count as usize, "records.springs")?,
        correctives: opt(
            r.correctives,
            r.corrective_count as usize,
            "records.correctives",
        )?,
        probe_distances: opt(
            r.probe_distances,
            r.probe_distance_count as usize,
            "records.probe_distances",
        )?,
    })
}

/// Reads and checks an update's frame input and `out_info`'s struct size;
/// nothing changes yet.
pub(crate) unsafe fn read_frame(
    character: &Character,
    input: *const SecmoFrameInput,
    out_info: *mut SecmoUpdateInfo,
) -> Result<SecmoFrameInput, FfiError> {
    let frame = read_versioned(input, SecmoFrameInput::UNSET, "input")?;
    // World and importance are validated before anything changes, and
    // applied only when the update itself succeeds.
    if frame.flags & SECMO_FRAME_HAS_WORLD != 0 {
        character.validate_world_transform(&frame.world)?;
    }
    if frame.flags & SECMO_FRAME_HAS_IMPORTANCE != 0 && !frame.importance.is_finite() {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            "input->importance is not finite",
        ));
    }
    if !out_info.is_null() {
        // SAFETY: non-null, and the caller promises a writable
        // SecmoUpdateInfo whose struct_size is set; a u32 is read unaligned.
        let size = unsafe { (out_info as *const u32).read_unaligned() } as usize;
        if !SecmoUpdateInfo::SHIPPED.contains(&size) {
            return Err(FfiError::new(
                SECMO_ERROR_STRUCT_SIZE,
                format!(
                    "out_info.struct_size is {size}; this library accepts {:?}",
                    SecmoUpdateInfo::SHIPPED
                ),
            ));
        }
    }
    Ok(frame)
}

/// Applies a checked frame's world and importance; returns what they
/// replaced, to restore when the update fails.
pub(crate) fn apply_frame(
    character: &mut Character,
    frame: &SecmoFrameInput,
) -> Result<crate::solvers::chain_stage::ChainInputs, FfiError> {
    let saved_inputs = character.chain_inputs();
    if frame.flags & SECMO_FRAME_HAS_WORLD != 0 {
        character.set_world_transform(frame.world)?;
    }
    if frame.flags & SECMO_FRAME_HAS_IMPORTANCE != 0 {
        character.set_importance(frame.importance)?;
    }
    Ok(saved_inputs)
}

/// Writes an update's info into `out_info` (NULL: nothing), whose struct
/// size [`read_frame`] checked.
pub(crate) unsafe fn write_info(
    out_info: *mut SecmoUpdateInfo,
    info: &crate::character::UpdateInfo,
) {
    if !out_info.is_null() {
        // SAFETY: checked by read_frame: non-null, writable, struct_size shipped.
        let size = unsafe { (out_info as *const u32).read_unaligned() } as usize;
        let full = SecmoUpdateInfo {
            struct_size: size as u32,
            max_substeps: info.max_substeps,
            snapped_springs: info.snapped_springs,
            warnings: info.warnings,
            joint_substeps: info.joint_substeps,
        };
        // SAFETY: `size` is a shipped size ≤ size_of::<SecmoUpdateInfo>(),
        // and the caller's struct holds `size` writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &full as *const SecmoUpdateInfo as *const u8,
                out_info as *mut u8,
                size,
            );
        }
    }
}

/// The body shared by `secmo_character_update` and `_update_recorded`.
pub(crate) unsafe fn update_impl(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
    records: *const SecmoStageRecords,
) -> Result<(), FfiError> {
    let character = &mut non_null_mut(character, "character")?.character;
    // SAFETY: the caller's pointers follow this function's contract.
    let frame = unsafe { read_frame(character, input, out_info)? };
    let mut sink = if records.is_null() {
        None
    } else {
        let r = read_versioned(
            records,
            SecmoStageRecords {
                struct_size: 0,
                bone_count: 0,
                source: std::ptr::null_mut(),
                constrained: std::ptr::null_mut(),
                post_spring: std::ptr::null_mut(),
                post_corrective: std::ptr::null_mut(),
                final_pose: std::ptr::null_mut(),
                springs: std::ptr::null_mut(),
                spring_count: 0,
                corrective_count: 0,
                correctives: std::ptr::null_mut(),
                probe_distances: std::ptr::null_mut(),
                probe_distance_count: 0,
            },
            "records",
        )?;
        let pose_bytes = |len: usize| len.saturating_mul(core::mem::size_of::<Transform>());
        Some(record_sink(
            &r,
            character.rig(),
            [
                (
                    "input->pose",
                    frame.pose as usize,
                    pose_bytes(frame.pose_len),
                ),
                ("out_pose", out_pose as usize, pose_bytes(out_pose_len)),
            ],
        )?)
    };
    let teleport = frame.flags & SECMO_FRAME_TELEPORT != 0;
    let saved_inputs = apply_frame(character, &frame)?;
    // SAFETY: the pointers come from the caller under this function's
    // contract; update_pose checks the lengths before making slices.
    let result = unsafe {
        update_pose(
            character,
            &frame,
            teleport,
            out_pose,
            out_pose_len,
            sink.as_mut(),
        )
    };
    let info = match result {
        Ok(info) => info,
        Err(mut e) => {
            character.restore_chain_inputs(saved_inputs);
            e.message = crate::ffi::result::name_bone(&e.message, character.rig());
            return Err(e);
        }
    };
    // SAFETY: read_frame checked out_info.
    unsafe { write_info(out_info, &info) };
    Ok(())
}

/// The pose part of an update: in place or from one buffer to another.
pub(crate) unsafe fn update_pose(
    character: &mut Character,
    frame: &SecmoFrameInput,
    teleport: bool,
    out_pose: *mut Transform,
    out_pose_len: usize,
    sink: Option<&mut RecordSink<'_>>,
) -> Result<crate::character::UpdateInfo, FfiError> {
    // SAFETY: the caller's pointers follow update_impl's contract.
    let in_place = unsafe { check_pose_buffers(character, frame, out_pose, out_pose_len)? };
    if in_place {
        let pose = slice_mut(out_pose, out_pose_len, "out_pose")?;
        Ok(character.update_in_place_with_sink(frame.dt, teleport, pose, sink)?)
    } else {
        let pose = slice(frame.pose, frame.pose_len, "input->pose")?;
        let output = slice_mut(out_pose, out_pose_len, "out_pose")?;
        Ok(character.update_with_sink(
            &FrameInput {
                dt: frame.dt,
                pose,
                teleport,
            },
            output,
            sink,
        )?)
    }
}

/// Checks an update's pose buffers against the rig and each other before
/// any slice of them exists; returns whether the update is in place (one
/// buffer). Both are then safe to view as slices.
pub(crate) unsafe fn check_pose_buffers(
    character: &Character,
    frame: &SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
) -> Result<bool, FfiError> {
    // Lengths are checked against the rig before any slice exists: a slice
    // of more than isize::MAX bytes is undefined behaviour even unread.
    let bones = character.rig().bone_count();
    for (what, len) in [
        ("input->pose_len", frame.pose_len),
        ("out_pose_len", out_pose_len),
    ] {
        if len != bones {
            return Err(FfiError::new(
                SECMO_ERROR_BUFFER_LENGTH,
                format!("{what} is {len} but the rig has {bones} bones"),
            ));
        }
    }
    let bytes = bones * core::mem::size_of::<Transform>(); // bounded by Rig::new
    let in_start = frame.pose as usize;
    let in_end = in_start.saturating_add(bytes);
    let out_start = out_pose as usize;
    let out_end = out_start.saturating_add(bytes);
    if in_start == out_start && frame.pose_len == out_pose_len && !out_pose.is_null() {
        return Ok(true);
    }
    if in_start < out_end && out_start < in_end {
        return Err(FfiError::new(
            SECMO_ERROR_INVALID_ARGUMENT,
            "input->pose and out_pose partly overlap",
        ));
    }
    // Both non-null (views made and dropped here: the checks are slice's).
    slice(frame.pose, frame.pose_len, "input->pose")?;
    slice_mut(out_pose, out_pose_len, "out_pose")?;
    Ok(false)
}

/// Runs one update. `out_pose` receives `out_pose_len` (= bone count) final
/// local transforms; it may be the same buffer as `input->pose` (in place) but
/// must not partly overlap it. `out_info` may be NULL. Does not allocate.
/// On any error nothing is written and the character's state is unchanged.
/// Errors: NULL_POINTER, STRUCT_SIZE, BUFFER_LENGTH, INVALID_DT,
/// NON_FINITE_POSE, DEGENERATE_POSE, NON_FINITE_RESULT, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_update(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
) -> SecmoResult {
    // SAFETY: the caller's pointers follow this function's header contract.
    guard("secmo_character_update", || unsafe {
        update_impl(
            character,
            input,
            out_pose,
            out_pose_len,
            out_info,
            std::ptr::null(),
        )
    })
}

/// Updates `items[first..end)`, each as `secmo_character_update` would, and
/// writes each item's result into its `result`. Up to 8 consecutive items
/// run their chain stages together (the chains of different characters
/// share the lane kernel's lanes), so ranges of at least 8 characters give
/// the fastest updates. Many
/// characters in one call; an engine's job system splits the array into
/// ranges and runs each range on its own worker (docs/c-api.md, "Batches"):
/// ranges that do not overlap, over characters that appear once, may run
/// at the same time. No locks, no atomics, no allocation (a failing item
/// records its message as the calling thread's last error). Returns
/// `SECMO_OK` when every item succeeded, else the first failing item's code.
/// Errors: NULL_POINTER (items), INVALID_ARGUMENT (first > end), and per
/// item: STRUCT_SIZE and every error of `secmo_character_update`.
#[no_mangle]
pub unsafe extern "C" fn secmo_update_batch(
    items: *mut SecmoBatchItem,
    first: usize,
    end: usize,
) -> SecmoResult {
    let checked = guard("secmo_update_batch", || check_range(items, first, end));
    if checked != SECMO_OK || first == end {
        return checked;
    }
    // Windows of JOBS items: each item's update up to its chain stage, then
    // the window's chain stages together (their chains share the lane
    // kernel's lanes), then each item's output.
    const JOBS: usize = crate::solvers::chain_stage::JOBS;
    let mut status = SECMO_OK;
    let mut start = first;
    while start < end {
        // A window ends before a character it already holds: an array
        // that breaks the once-per-batch rule still updates that character
        // twice, one update after the other, as one call per item would.
        let mut stop = start;
        let mut held = [std::ptr::null_mut::<SecmoCharacter>(); JOBS];
        while stop < end && stop - start < JOBS {
            // SAFETY: the caller promises `end` readable items; only the
            // pointer is read (and compared) here.
            let item = unsafe { &*items.add(stop) };
            if item_sized(item) && !item.character.is_null() {
                if held[..stop - start].contains(&item.character) {
                    break;
                }
                held[stop - start] = item.character;
            }
            stop += 1;
        }
        let mut begun = [None; JOBS];
        for (k, i) in (start..stop).enumerate() {
            // SAFETY: the caller promises `end` readable and writable items.
            let item = unsafe { &mut *items.add(i) };
            item.result = if !item_sized(item) {
                guard("secmo_update_batch", || {
                    Err(FfiError::new(
                        SECMO_ERROR_STRUCT_SIZE,
                        format!(
                            "items[{i}].struct_size is {}; set it to sizeof(SecmoBatchItem) ({})",
                            item.struct_size,
                            core::mem::size_of::<SecmoBatchItem>()
                        ),
                    ))
                })
            } else {
                // SAFETY: the item's pointers follow secmo_character_update's
                // contract.
                guard("secmo_update_batch", || unsafe {
                    begun[k] = Some(begin_item(item).map_err(|mut e| {
                        e.message = format!("items[{i}]: {}", e.message);
                        e
                    })?);
                    Ok(())
                })
            };
        }
        let chains = guard("secmo_update_batch", || {
            let mut jobs: [Option<crate::solvers::chain_stage::Job<'_>>; JOBS] =
                [const { None }; JOBS];
            for ((job, begun), i) in jobs.iter_mut().zip(&begun).zip(start..stop) {
                if let Some((_, dt, teleport, true)) = *begun {
                    // SAFETY: begin_item checked the item's character, and
                    // the window holds each character once.
                    let character = unsafe { &mut (*(*items.add(i)).character).character };
                    *job = Some(character.chain_job(dt, teleport));
                }
            }
            crate::solvers::chain_stage::step_jobs(&mut jobs[..stop - start]);
            Ok(())
        });
        for (begun, i) in begun.iter().zip(start..stop) {
            // SAFETY: as above.
            let item = unsafe { &mut *items.add(i) };
            if let Some((info, _, _, ran)) = begun {
                item.result = if chains == SECMO_OK {
                    // SAFETY: begin_item checked the item's pointers.
                    guard("secmo_update_batch", || unsafe {
                        end_item(item, info, *ran)
                    })
                } else {
                    chains
                };
            }
            if status == SECMO_OK {
                status = item.result;
            }
        }
        start = stop;
    }
    status
}

/// Whether a batch item carries this library's `struct_size`.
fn item_sized(item: &SecmoBatchItem) -> bool {
    item.struct_size as usize == core::mem::size_of::<SecmoBatchItem>()
}

/// A batch item's update up to its chain stage (`secmo_character_update`'s
/// checks, the helper stages): its info, dt, teleport flag and whether its
/// chain stage runs. On error nothing of the character has changed.
unsafe fn begin_item(
    item: &SecmoBatchItem,
) -> Result<(crate::character::UpdateInfo, f32, bool, bool), FfiError> {
    let character = &mut non_null_mut(item.character, "character")?.character;
    // SAFETY: the item's pointers follow secmo_character_update's contract.
    let frame = unsafe { read_frame(character, item.input, item.out_info)? };
    // SAFETY: as above.
    unsafe { check_pose_buffers(character, &frame, item.out_pose, item.out_pose_len)? };
    let teleport = frame.flags & SECMO_FRAME_TELEPORT != 0;
    let pose = slice(frame.pose, frame.pose_len, "input->pose")?;
    let input = FrameInput {
        dt: frame.dt,
        pose,
        teleport,
    };
    // Applied last: only the update itself can fail after it.
    let saved_inputs = apply_frame(character, &frame)?;
    match character.begin_update(&input, item.out_pose_len) {
        Ok((info, chains)) => Ok((info, frame.dt, teleport, chains)),
        Err(e) => {
            character.restore_chain_inputs(saved_inputs);
            let mut e: FfiError = e.into();
            e.message = crate::ffi::result::name_bone(&e.message, character.rig());
            Err(e)
        }
    }
}

/// A batch item's update after its chain stage: committed, its pose and
/// info written.
unsafe fn end_item(
    item: &SecmoBatchItem,
    info: &crate::character::UpdateInfo,
    chains_ran: bool,
) -> Result<(), FfiError> {
    let character = &mut non_null_mut(item.character, "character")?.character;
    let output = slice_mut(item.out_pose, item.out_pose_len, "out_pose")?;
    let mut info = *info;
    if chains_ran {
        info.warnings |= character.chain_warnings();
        info.joint_substeps = character.joint_substeps();
    }
    character.finish_update(output);
    // SAFETY: begin_item's read_frame checked out_info.
    unsafe { write_info(item.out_info, &info) };
    Ok(())
}

/// `secmo_character_update` that also writes the stage-by-stage records of
/// docs/algorithms.md §6 into the buffers `records` points to (each optional). Records are
/// written only on success. Does not allocate.
/// Errors: as `secmo_character_update`, plus BUFFER_LENGTH for a record buffer
/// whose count does not match the rig, and INVALID_ARGUMENT for a record
/// buffer that overlaps another one or a pose buffer.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_update_recorded(
    character: *mut SecmoCharacter,
    input: *const SecmoFrameInput,
    out_pose: *mut Transform,
    out_pose_len: usize,
    out_info: *mut SecmoUpdateInfo,
    records: *const SecmoStageRecords,
) -> SecmoResult {
    guard("secmo_character_update_recorded", || {
        non_null(records, "records")?;
        // SAFETY: the caller's pointers follow this function's header contract.
        unsafe { update_impl(character, input, out_pose, out_pose_len, out_info, records) }
    })
}

/// Turns a stage (`SECMO_STAGE_*`) on (non-zero) or off (0) without losing
/// state: a stage that is off passes its input through and does not advance.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_stage_enabled(
    character: *mut SecmoCharacter,
    stage: u32,
    enabled: u32,
) -> SecmoResult {
    guard("secmo_character_set_stage_enabled", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let stage = match stage {
            SECMO_STAGE_CONSTRAINTS => Stage::Constraints,
            SECMO_STAGE_SPRINGS => Stage::Springs,
            SECMO_STAGE_CORRECTIVES => Stage::Correctives,
            SECMO_STAGE_CHAINS => Stage::Chains,
            other => {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!("stage is {other}; use SECMO_STAGE_*"),
                ))
            }
        };
        c.set_stage_enabled(stage, enabled != 0);
        Ok(())
    })
}

/// Teleport: the next update seeds all solver state at its targets, with dt
/// treated as 0. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_reset(character: *mut SecmoCharacter) -> SecmoResult {
    guard("secmo_character_reset", || {
        non_null_mut(character, "character")?.character.reset();
        Ok(())
    })
}

/// Switches how substep targets are chosen, keeping all state (docs/algorithms.md §2).
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_substep_target(
    character: *mut SecmoCharacter,
    substep_target_value: u32,
) -> SecmoResult {
    guard("secmo_character_set_substep_target", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let mut o = c.options();
        o.substep_target = substep_target(substep_target_value)?;
        c.set_options(o);
        Ok(())
    })
}

/// Copies the last update's per-spring records (substeps, dt, h, remaining
/// before/after, x, p, v, output) into `out_records`, which must hold at least
/// the rig's spring count; `*out_count` receives that count.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_spring_records(
    character: *const SecmoCharacter,
    out_records: *mut SpringRecord,
    out_records_len: usize,
    out_count: *mut usize,
) -> SecmoResult {
    guard("secmo_character_spring_records", || {
        let c = &non_null(character, "character")?.character;
        let count = non_null_mut(out_count, "out_count")?;
        let records = c.spring_records();
        if out_records_len < records.len() {
            return Err(Error::BufferLength {
                what: "out_records",
                expected: records.len(),
                got: out_records_len,
            }
            .into());
        }
        slice_mut(out_records, records.len(), "out_records")?.copy_from_slice(records);
        *count = records.len();
        Ok(())
    })
}

/// Bytes needed by `secmo_character_snapshot`. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_snapshot_size(
    character: *const SecmoCharacter,
    out_size: *mut usize,
) -> SecmoResult {
    guard("secmo_character_snapshot_size", || {
        let c = &non_null(character, "character")?.character;
        *non_null_mut(out_size, "out_size")? = c.snapshot_size();
        Ok(())
    })
}

/// Writes the complete solver state (versioned, tied to the rig) into
/// `buffer`; `*out_written` receives the byte count. Does not allocate.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_snapshot(
    character: *const SecmoCharacter,
    buffer: *mut u8,
    buffer_len: usize,
    out_written: *mut usize,
) -> SecmoResult {
    guard("secmo_character_snapshot", || {
        let c = &non_null(character, "character")?.character;
        let written = non_null_mut(out_written, "out_written")?;
        let buf = slice_mut(buffer, buffer_len, "buffer")?;
        *written = c.snapshot(buf)?;
        Ok(())
    })
}

/// Restores state written by `secmo_character_snapshot` for a character of
/// the same rig. Continuing from it gives bit-identical results. The buffer is
/// checked completely first; on error the state is unchanged. The snapshot is
/// the first `secmo_character_snapshot_size` bytes of the buffer; bytes after
/// it are not read (a save game's slot may be larger). A world's character's
/// level under the world's budget is not in its snapshot (docs/c-api.md
/// "Snapshots"). Does not allocate.
/// Errors: NULL_POINTER, SNAPSHOT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_restore(
    character: *mut SecmoCharacter,
    buffer: *const u8,
    buffer_len: usize,
) -> SecmoResult {
    guard("secmo_character_restore", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let buf = slice(buffer, buffer_len, "buffer")?;
        c.restore(buf)?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Chains.

/// Fills `*out_params` with the tail preset (docs/algorithms.md §7) for a rig in
/// `units_per_meter`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_chain_params_tail(
    units_per_meter: f32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    preset(
        "secmo_chain_params_tail",
        units_per_meter,
        out_params,
        ChainParams::tail,
    )
}

/// Fills `*out_params` with the hair preset (docs/algorithms.md §8) for a rig in
/// `units_per_meter`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_chain_params_hair(
    units_per_meter: f32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    preset(
        "secmo_chain_params_hair",
        units_per_meter,
        out_params,
        ChainParams::hair,
    )
}

/// Fills `*out_params` with the VRM spring-bone preset (VRMC_springBone 1.0
/// defaults, docs/vrm-mapping.md) for a rig in `units_per_meter`.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_chain_params_vrm(
    units_per_meter: f32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    preset(
        "secmo_chain_params_vrm",
        units_per_meter,
        out_params,
        ChainParams::vrm,
    )
}

/// Changes chain `chain`'s parameters at runtime, keeping its particles and
/// velocities (no reset). Does not allocate.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_chain_params(
    character: *mut SecmoCharacter,
    chain: u32,
    params: *const ChainParams,
) -> SecmoResult {
    guard("secmo_character_set_chain_params", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let current = c.chain_params(chain as usize).copied().ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("chain {chain} does not exist"),
            )
        })?;
        let p = read_versioned(params, current, "params")?;
        c.set_chain_params(chain as usize, p)?;
        Ok(())
    })
}

/// Copies chain `chain`'s current parameters into `*out_params`.
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_chain_params(
    character: *const SecmoCharacter,
    chain: u32,
    out_params: *mut ChainParams,
) -> SecmoResult {
    guard("secmo_character_chain_params", || {
        let c = &non_null(character, "character")?.character;
        let out = non_null_mut(out_params, "out_params")?;
        let p = c.chain_params(chain as usize).ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("chain {chain} does not exist"),
            )
        })?;
        *out = *p;
        Ok(())
    })
}

/// Wind and other external acceleration on the chains, world units/s²,
/// scaled by each chain's `wind_factor`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_set_wind(
    character: *mut SecmoCharacter,
    wind: *const [f32; 3],
) -> SecmoResult {
    guard("secmo_character_set_wind", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let w = non_null(wind, "wind")?;
        c.set_wind(Vec3::from_array(*w))?;
        Ok(())
    })
}

/// Moves every world-space position the character keeps by `delta` (world
/// units): call it with `old_origin − new_origin` when the origin the world
/// transforms are given relative to moves (large worlds; secmo.hpp's
/// `secmo::bridge::SimulationOrigin`), and the chains continue exactly
/// instead of seeing a jump. On error nothing changes.
/// Errors: NULL_POINTER, INVALID_ARGUMENT (not finite, or a position would
/// leave the state range).
#[no_mangle]
pub unsafe extern "C" fn secmo_character_shift_world(
    character: *mut SecmoCharacter,
    delta: *const [f32; 3],
) -> SecmoResult {
    guard("secmo_character_shift_world", || {
        let c = &mut non_null_mut(character, "character")?.character;
        let d = non_null(delta, "delta")?;
        c.shift_world(Vec3::from_array(*d))?;
        Ok(())
    })
}

/// Buffer sizes that always hold everything `secmo_character_debug_draw`
/// writes. Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_debug_draw_capacity(
    character: *const SecmoCharacter,
    out_lines: *mut usize,
    out_spheres: *mut usize,
) -> SecmoResult {
    guard("secmo_character_debug_draw_capacity", || {
        let c = &non_null(character, "character")?.character;
        let (l, s) = c.debug_draw_capacity();
        *non_null_mut(out_lines, "out_lines")? = l;
        *non_null_mut(out_spheres, "out_spheres")? = s;
        Ok(())
    })
}

/// Writes the chains after the last update (world space): links and rest
/// arcs as lines; particles, rest targets and colliders as spheres; kinds
/// `SECMO_DEBUG_*`. Fills at most the given lengths (either buffer may be NULL
/// with length 0) and reports the counts written. Does not allocate.
/// Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_character_debug_draw(
    character: *const SecmoCharacter,
    lines: *mut DebugLine,
    lines_len: usize,
    out_line_count: *mut usize,
    spheres: *mut DebugSphere,
    spheres_len: usize,
    out_sphere_count: *mut usize,
) -> SecmoResult {
    guard("secmo_character_debug_draw", || {
        let c = &non_null(character, "character")?.character;
        let line_count = non_null_mut(out_line_count, "out_line_count")?;
        let sphere_count = non_null_mut(out_sphere_count, "out_sphere_count")?;
        let l = slice_mut(lines, lines_len, "lines")?;
        let s = slice_mut(spheres, spheres_len, "spheres")?;
        let (nl, ns) = c.debug_draw(l, s);
        *line_count = nl;
        *sphere_count = ns;
        Ok(())
    })
}
