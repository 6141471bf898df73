//! Rig entry points: descriptor presets, creation (from descriptors or a
//! settings file), settings output, queries, destruction.

#![allow(clippy::missing_safety_doc)] // the safety contract of every function is in the header comments
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unused_imports)]
use super::*;

/// Fills `*out` with `make(units_per_meter)` behind the panic guard.
pub(crate) fn preset<T>(
    name: &str,
    units_per_meter: f32,
    out: *mut T,
    make: impl FnOnce(f32) -> T,
) -> SecmoResult {
    guard(name, || {
        let out = non_null_mut(out, "out")?;
        if !(units_per_meter.is_finite() && units_per_meter > 0.0) {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("units_per_meter {units_per_meter} must be finite and > 0"),
            ));
        }
        *out = make(units_per_meter);
        Ok(())
    })
}

/// Fills `*out_desc` with the article's hip spring defaults (docs/algorithms.md §3) for a rig
/// in `units_per_meter`, driving `bone`. Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_spring_desc_hip(
    bone: u32,
    units_per_meter: f32,
    out_desc: *mut SpringParams,
) -> SecmoResult {
    preset("secmo_spring_desc_hip", units_per_meter, out_desc, |u| {
        SpringParams::hip(bone, u)
    })
}

/// Fills `*out_desc` with the article's chest spring defaults (docs/algorithms.md §3).
/// Errors: NULL_POINTER, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_spring_desc_chest(
    bone: u32,
    units_per_meter: f32,
    out_desc: *mut SpringParams,
) -> SecmoResult {
    preset("secmo_spring_desc_chest", units_per_meter, out_desc, |u| {
        SpringParams::chest(bone, u)
    })
}

/// Fills a BtoB corrective (docs/algorithms.md §5) for one chest bone: probes on both
/// upper arms (10 cm, weight 2), forearms (13 cm) and hands (15 cm), and the
/// other chest (`chest_gap`, usually their rest distance) on local scale.
/// `medial_x` is +1 or −1: the sign of the chest's local +X toward the
/// midline. Writes 7 probes into `out_probes` (which must hold at least 7) and
/// points `out_desc->probes` at them. Gains are documented in docs/btob.md.
/// Errors: NULL_POINTER, BUFFER_LENGTH, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_corrective_desc_btob(
    bones: *const BtobBones,
    side: u32,
    medial_x: f32,
    chest_gap: f32,
    units_per_meter: f32,
    out_probes: *mut SecmoProbeDesc,
    out_probes_len: usize,
    out_desc: *mut SecmoCorrectiveDesc,
) -> SecmoResult {
    guard("secmo_corrective_desc_btob", || {
        let bones = *non_null(bones, "bones")?;
        let out = non_null_mut(out_desc, "out_desc")?;
        let side = side_from(side)?;
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !(positive(units_per_meter) && positive(chest_gap) && positive(medial_x.abs())) {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                "units_per_meter and chest_gap must be finite and > 0, medial_x ±1",
            ));
        }
        let c = ProximityCorrective::btob(bones, side, medial_x, chest_gap, units_per_meter);
        if out_probes_len < c.probes.len() {
            return Err(Error::BufferLength {
                what: "out_probes",
                expected: c.probes.len(),
                got: out_probes_len,
            }
            .into());
        }
        let probes = slice_mut(out_probes, c.probes.len(), "out_probes")?;
        let code = |s: Side| s as u32;
        for (dst, p) in probes.iter_mut().zip(&c.probes) {
            *dst = SecmoProbeDesc {
                struct_size: core::mem::size_of::<SecmoProbeDesc>() as u32,
                bone: p.bone,
                side: code(p.side),
                threshold: p.threshold,
                weight: p.weight,
                same_translation: p.same_side.translation.to_array(),
                same_scale: p.same_side.scale.to_array(),
                opposite_translation: p.opposite_side.translation.to_array(),
                opposite_scale: p.opposite_side.scale.to_array(),
            };
        }
        *out = SecmoCorrectiveDesc {
            struct_size: core::mem::size_of::<SecmoCorrectiveDesc>() as u32,
            driven_bone: c.driven,
            side: code(c.side),
            rate: c.rate,
            probes: out_probes,
            probe_count: c.probes.len() as u32,
        };
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Rig.

pub(crate) fn rig_desc_from_c(d: &SecmoRigDesc) -> Result<RigDesc, FfiError> {
    let n = d.bone_count as usize;
    let parents = slice(d.parents, n, "desc.parents")?;
    let reference = slice(d.reference_pose, n, "desc.reference_pose")?;
    let inverse_binds = if d.inverse_bind_matrices.is_null() {
        None
    } else {
        Some(slice(
            d.inverse_bind_matrices,
            n * 16,
            "desc.inverse_bind_matrices",
        )?)
    };
    let has_bind = if d.has_inverse_bind.is_null() {
        None
    } else {
        Some(slice(d.has_inverse_bind, n, "desc.has_inverse_bind")?)
    };
    let names = if d.bone_names.is_null() {
        None
    } else {
        Some(slice(d.bone_names, n, "desc.bone_names")?)
    };
    let mut bones = Vec::with_capacity(n);
    for i in 0..n {
        let name = match names {
            Some(names) if !names[i].is_null() => {
                // SAFETY: the caller promises NUL-terminated strings.
                let c = unsafe { CStr::from_ptr(names[i]) };
                c.to_str()
                    .map_err(|_| {
                        FfiError::new(
                            SECMO_ERROR_INVALID_RIG,
                            format!("bone {i}: name is not valid UTF-8"),
                        )
                    })?
                    .to_owned()
            }
            _ => format!("bone{i}"),
        };
        let mut bone = BoneDesc::new(name, parents[i], reference[i]);
        if let Some(m) = inverse_binds {
            if has_bind.is_none_or(|f| f[i] != 0) {
                let cols: &[f32; 16] = m[i * 16..i * 16 + 16].try_into().expect("16 floats");
                bone.inverse_bind = Some(Mat4::from_cols_array(cols));
            }
        }
        bones.push(bone);
    }
    let spring_defaults = SpringParams::hip(0, d.units_per_meter.max(1e-6));
    let springs = read_array(d.springs, d.spring_count, spring_defaults, "desc.springs")?
        .iter()
        .map(|s| s.resolved())
        .collect();
    let up_axis = match d.up_axis {
        SECMO_UP_AXIS_Y => UpAxis::Y,
        SECMO_UP_AXIS_Z => UpAxis::Z,
        other => {
            return Err(FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("desc.up_axis is {other}; use SECMO_UP_AXIS_Y or SECMO_UP_AXIS_Z"),
            ))
        }
    };
    let constraints = read_array(
        d.constraints,
        d.constraint_count,
        SecmoRotationConstraintDesc {
            struct_size: 0,
            bone: 0,
            target: 0,
        },
        "desc.constraints",
    )?
    .into_iter()
    .map(|c| ConstraintDesc {
        bone: c.bone,
        target: c.target,
    })
    .collect();
    let corrective_defaults = SecmoCorrectiveDesc {
        struct_size: 0,
        driven_bone: 0,
        side: SECMO_SIDE_CENTER,
        rate: 24.0,
        probes: std::ptr::null(),
        probe_count: 0,
    };
    let mut correctives = Vec::with_capacity(d.corrective_count as usize);
    for (i, c) in read_array(
        d.correctives,
        d.corrective_count,
        corrective_defaults,
        "desc.correctives",
    )?
    .into_iter()
    .enumerate()
    {
        let probes = read_array(
            c.probes,
            c.probe_count,
            SecmoProbeDesc {
                struct_size: 0,
                bone: 0,
                side: SECMO_SIDE_CENTER,
                threshold: 0.0,
                weight: 1.0,
                same_translation: [0.0; 3],
                same_scale: [0.0; 3],
                opposite_translation: [0.0; 3],
                opposite_scale: [0.0; 3],
            },
            &format!("desc.correctives[{i}].probes"),
        )?
        .into_iter()
        .map(|p| {
            Ok(Probe {
                bone: p.bone,
                threshold: p.threshold,
                weight: p.weight,
                side: side_from(p.side)?,
                same_side: Gains {
                    translation: Vec3::from_array(p.same_translation),
                    scale: Vec3::from_array(p.same_scale),
                },
                opposite_side: Gains {
                    translation: Vec3::from_array(p.opposite_translation),
                    scale: Vec3::from_array(p.opposite_scale),
                },
            })
        })
        .collect::<Result<Vec<_>, FfiError>>()?;
        correctives.push(ProximityCorrective {
            driven: c.driven_bone,
            side: side_from(c.side)?,
            rate: c.rate,
            probes,
        });
    }
    let colliders = read_array(
        d.colliders,
        d.collider_count,
        SecmoColliderDesc {
            struct_size: 0,
            shape: SECMO_COLLIDER_SPHERE,
            bone: 0,
            a: [0.0; 3],
            b: [0.0; 3],
            radius: 0.0,
        },
        "desc.colliders",
    )?
    .iter()
    .map(collider_from_c)
    .collect::<Result<Vec<_>, _>>()?;
    let chain_defaults = SecmoChainDesc {
        struct_size: 0,
        ..SecmoChainDesc::default()
    };
    let chains = read_array(d.chains, d.chain_count, chain_defaults, "desc.chains")?
        .iter()
        .enumerate()
        .map(|(i, c)| chain_from_c(c, d.units_per_meter, i))
        .collect::<Result<Vec<_>, _>>()?;
    let node_constraints = read_array(
        d.node_constraints,
        d.node_constraint_count,
        SecmoNodeConstraintDesc {
            struct_size: 0,
            kind: SECMO_NODE_CONSTRAINT_ROTATION,
            source: 0,
            destination: 0,
            axis: 0,
            weight: 1.0,
        },
        "desc.node_constraints",
    )?
    .iter()
    .enumerate()
    .map(|(i, c)| node_constraint_from_c(c, i))
    .collect::<Result<Vec<_>, _>>()?;
    Ok(RigDesc {
        bones,
        units_per_meter: d.units_per_meter,
        up_axis,
        constraints,
        node_constraints,
        springs,
        correctives,
        colliders,
        chains,
    })
}

/// Validates `desc` and builds an immutable rig. On success `*out_rig` owns one
/// reference; release it with `secmo_rig_destroy`. Allocates. The descriptor's
/// arrays are only read during the call.
/// Errors: NULL_POINTER, STRUCT_SIZE, INVALID_RIG (message names the bone and
/// the reason: parent after child, cycle, out of range, NaN, zero scale),
/// INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_create(
    desc: *const SecmoRigDesc,
    out_rig: *mut *mut SecmoRig,
) -> SecmoResult {
    guard("secmo_rig_create", || {
        let out = non_null_mut(out_rig, "out_rig")?;
        let d = read_versioned(desc, SecmoRigDesc::default(), "desc")?;
        let rig = new_rig(rig_desc_from_c(&d)?, !d.bone_names.is_null())?;
        *out = new_handle(SecmoRig { rig: Arc::new(rig) });
        Ok(())
    })
}

/// `Rig::new`, whose message names the bone where the caller named the
/// bones (`named`).
fn new_rig(desc: RigDesc, named: bool) -> Result<Rig, FfiError> {
    let bones = if named {
        desc.bones.clone()
    } else {
        Vec::new()
    };
    Rig::new(desc).map_err(|e| {
        FfiError::new(
            SECMO_ERROR_INVALID_RIG,
            format!("invalid rig: {}", e.describe(&bones)),
        )
    })
}

/// Builds a rig from a skeleton and a rig-settings text (docs/settings.md):
/// `skeleton` gives the bones (with `bone_names`, which the settings refer
/// to), units and up axis, and any solvers it already lists; the settings'
/// springs, constraints, correctives, colliders and chains are added to them.
/// `settings` is UTF-8 JSON of `settings_len` bytes (no NUL needed). Allocates.
/// Errors: NULL_POINTER, STRUCT_SIZE, SETTINGS (the message names the JSON
/// line or the field), INVALID_RIG, INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_create_from_settings(
    skeleton: *const SecmoRigDesc,
    settings: *const c_char,
    settings_len: usize,
    out_rig: *mut *mut SecmoRig,
) -> SecmoResult {
    guard("secmo_rig_create_from_settings", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (skeleton, settings, settings_len, out_rig);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let out = non_null_mut(out_rig, "out_rig")?;
            let d = read_versioned(skeleton, SecmoRigDesc::default(), "skeleton")?;
            if d.bone_names.is_null() {
                return Err(FfiError::new(
                    SECMO_ERROR_SETTINGS,
                    "skeleton.bone_names is NULL; settings refer to bones by name",
                ));
            }
            let parsed = settings_from_c(settings, settings_len)?;
            let mut base = rig_desc_from_c(&d)?;
            let bones = std::mem::take(&mut base.bones);
            let mut desc = parsed
                .to_rig_desc(bones, base.units_per_meter, base.up_axis)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, e.to_string()))?;
            // The skeleton's own solvers come first.
            base.springs.append(&mut desc.springs);
            base.constraints.append(&mut desc.constraints);
            base.node_constraints.append(&mut desc.node_constraints);
            base.correctives.append(&mut desc.correctives);
            let collider_offset = base.colliders.len() as u32;
            for chain in &mut desc.chains {
                for c in &mut chain.colliders {
                    *c += collider_offset;
                }
            }
            base.colliders.append(&mut desc.colliders);
            base.chains.append(&mut desc.chains);
            base.bones = desc.bones;
            let rig = new_rig(base, true)?;
            *out = new_handle(SecmoRig { rig: Arc::new(rig) });
            Ok(())
        }
    })
}

/// A rig-settings text of `len` UTF-8 bytes at `text`, parsed; SETTINGS
/// names what is wrong.
#[cfg(feature = "settings")]
fn settings_from_c(
    text: *const c_char,
    len: usize,
) -> Result<crate::settings::RigSettings, FfiError> {
    let bytes = slice(text as *const u8, len, "settings")?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, format!("settings are not UTF-8: {e}")))?;
    crate::settings::RigSettings::from_json(text)
        .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, e.to_string()))
}

/// The error of the settings functions in a build without the `settings`
/// feature (the C ABI keeps them, so one header serves every build).
#[cfg(not(feature = "settings"))]
pub(crate) fn without_settings() -> FfiError {
    FfiError::new(
        SECMO_ERROR_SETTINGS,
        "this secmo library was built without the settings feature (rig-settings JSON and VRM)",
    )
}

/// Writes the rig's solver setup as a rig-settings text (UTF-8 JSON,
/// NUL-terminated). `*out_len` receives the bytes needed including the NUL,
/// also when `buffer` is NULL or too small (then BUFFER_LENGTH is returned
/// and nothing is written): call once to size, once to fill. Allocates.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_write_settings(
    rig: *const SecmoRig,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    guard("secmo_rig_write_settings", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (rig, buffer, buffer_len, out_len);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let rig = non_null(rig, "rig")?;
            let text = crate::settings::RigSettings::from_rig(&rig.rig).to_json();
            // SAFETY: the caller's contract for `buffer`/`out_len` is
            // write_text's (header comment of this function).
            unsafe { write_text(&text, buffer, buffer_len, out_len) }
        }
    })
}

/// The two-call text output shared by the settings writers: `*out_len`
/// always receives the bytes needed including the NUL.
#[cfg(feature = "settings")]
pub(crate) unsafe fn write_text(
    text: &str,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> Result<(), FfiError> {
    let needed_out = non_null_mut(out_len, "out_len")?;
    let needed = text.len() + 1;
    *needed_out = needed;
    if buffer.is_null() || buffer_len < needed {
        return Err(Error::BufferLength {
            what: "settings buffer",
            expected: needed,
            got: buffer_len,
        }
        .into());
    }
    let out = slice_mut(buffer as *mut u8, needed, "buffer")?;
    out[..text.len()].copy_from_slice(text.as_bytes());
    out[text.len()] = 0;
    Ok(())
}

/// Reads the spring bones of a VRM 0.x or 1.0 file (.vrm/.glb bytes or
/// .gltf text) and writes them as a rig-settings text (UTF-8 JSON,
/// NUL-terminated) whose chains use the VRM preset (docs/vrm-mapping.md).
/// Two calls like `secmo_rig_write_settings`: `*out_len` receives the bytes
/// needed including the NUL, also when `buffer` is NULL or too small. A
/// spring that starts at a scene root is anchored to an added bone named
/// `secmo_scene_root`. Allocates.
/// Errors: NULL_POINTER, BUFFER_LENGTH, SETTINGS (the message names the
/// file's field, e.g. `VRM.secondaryAnimation.boneGroups[0].bones[2]`).
#[no_mangle]
pub unsafe extern "C" fn secmo_settings_from_vrm(
    bytes: *const u8,
    bytes_len: usize,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    // SAFETY: the caller's contract (header comment of this function) is
    // vrm_text's.
    unsafe {
        vrm_text(
            "secmo_settings_from_vrm",
            VrmText::Settings,
            (bytes, bytes_len),
            (buffer, buffer_len, out_len),
        )
    }
}

/// Writes what `secmo_settings_from_vrm` leaves out or changes for the same
/// file, one note per line (UTF-8, NUL-terminated; an empty text when there
/// is nothing to say): every field the VRM preset does not apply (angle
/// limits, unknown fields and extensions), every broken reference left
/// out, and every damaged or out-of-range value with the value used
/// instead, each naming its field (`VRMC_springBone.springs[0].joints[1]
/// (Hair2).dragForce: 2 is outside [0, 1]; 1 is used`;
/// docs/vrm-mapping.md "Not applied"). The same lines `secmo vrm-settings`
/// prints. Two calls like `secmo_rig_write_settings`. Allocates.
/// Errors: NULL_POINTER, BUFFER_LENGTH, SETTINGS (as
/// `secmo_settings_from_vrm`).
#[no_mangle]
pub unsafe extern "C" fn secmo_vrm_notes(
    bytes: *const u8,
    bytes_len: usize,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    // SAFETY: the caller's contract (header comment of this function) is
    // vrm_text's.
    unsafe {
        vrm_text(
            "secmo_vrm_notes",
            VrmText::Notes,
            (bytes, bytes_len),
            (buffer, buffer_len, out_len),
        )
    }
}

/// What [`vrm_text`] writes of a VRM's import.
#[derive(Clone, Copy)]
enum VrmText {
    /// The rig-settings JSON.
    Settings,
    /// The notes, one per line.
    Notes,
}

/// `secmo_settings_from_vrm` and `secmo_vrm_notes` (`name`): the file read
/// from `bytes`, the import's `which` written through [`write_text`].
///
/// # Safety
///
/// `bytes` is NULL or points to `bytes_len` readable bytes; `buffer`,
/// `buffer_len` and `out_len` are as [`write_text`] takes them.
unsafe fn vrm_text(
    name: &'static str,
    which: VrmText,
    (bytes, bytes_len): (*const u8, usize),
    (buffer, buffer_len, out_len): (*mut c_char, usize, *mut usize),
) -> SecmoResult {
    guard(name, || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (which, bytes, bytes_len, buffer, buffer_len, out_len);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let bytes = slice(bytes, bytes_len, "bytes")?;
            let import = crate::vrm::import(bytes)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, format!("VRM: {e}")))?;
            let text = match which {
                VrmText::Settings => import.settings.to_json(),
                VrmText::Notes => import.notes.join("\n"),
            };
            // SAFETY: the caller's contract for `buffer`/`out_len`.
            unsafe { write_text(&text, buffer, buffer_len, out_len) }
        }
    })
}

/// Writes every bone name a rig-settings text refers to, one per line (each
/// once, in order of first mention), as UTF-8 with a terminating NUL: the
/// bones an engine must feed secmo, with their ancestors. Call it twice, like
/// `secmo_rig_write_settings`: with a NULL `buffer` (or one too short)
/// `*out_len` receives the size needed and the result is BUFFER_LENGTH.
/// Errors: NULL_POINTER, SETTINGS (the message names the JSON line or the
/// field), BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_settings_bone_names(
    settings: *const c_char,
    settings_len: usize,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    guard("secmo_settings_bone_names", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (settings, settings_len, buffer, buffer_len, out_len);
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            let parsed = settings_from_c(settings, settings_len)?;
            // SAFETY: the caller's contract for `buffer`/`out_len` is
            // write_text's (header comment of this function).
            unsafe { write_text(&parsed.bone_names().join("\n"), buffer, buffer_len, out_len) }
        }
    })
}

/// Writes a rig-settings text back with every spring's and chain's
/// parameters written out: each preset resolved for `units_per_meter`, with
/// the entry's overrides applied (docs/settings.md). No skeleton is needed:
/// an editor shows the result as typed fields, and a rig built from it is
/// the rig the original builds. UTF-8 with a terminating NUL, in two calls
/// like `secmo_rig_write_settings`. Allocates.
/// Errors: NULL_POINTER, INVALID_ARGUMENT (`units_per_meter` not finite and
/// positive), SETTINGS (the message names the JSON line or the field),
/// BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_settings_expand(
    settings: *const c_char,
    settings_len: usize,
    units_per_meter: f32,
    buffer: *mut c_char,
    buffer_len: usize,
    out_len: *mut usize,
) -> SecmoResult {
    guard("secmo_settings_expand", || {
        #[cfg(not(feature = "settings"))]
        {
            let _ = (
                settings,
                settings_len,
                units_per_meter,
                buffer,
                buffer_len,
                out_len,
            );
            Err(without_settings())
        }
        #[cfg(feature = "settings")]
        {
            if !(units_per_meter.is_finite() && units_per_meter > 0.0) {
                return Err(FfiError::new(
                    SECMO_ERROR_INVALID_ARGUMENT,
                    format!("units_per_meter must be finite and > 0, not {units_per_meter}"),
                ));
            }
            let parsed = settings_from_c(settings, settings_len)?;
            let full = parsed
                .expanded(units_per_meter)
                .map_err(|e| FfiError::new(SECMO_ERROR_SETTINGS, e.to_string()))?;
            // SAFETY: the caller's contract for `buffer`/`out_len` is
            // write_text's (header comment of this function).
            unsafe { write_text(&full.to_json(), buffer, buffer_len, out_len) }
        }
    })
}

/// Releases the caller's reference. Characters created from the rig keep it
/// alive. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_destroy(rig: *mut SecmoRig) {
    // SAFETY: the caller passes NULL or a rig from secmo_rig_create*, once.
    guard_value((), || unsafe { free_handle(rig) })
}

/// Number of bones; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_bone_count(rig: *const SecmoRig) -> u32 {
    // SAFETY: the caller passes NULL or a live rig.
    guard_value(0, || {
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.bone_count() as u32)
    })
}

/// Number of springs; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_spring_count(rig: *const SecmoRig) -> u32 {
    guard_value(0, || {
        // SAFETY: the caller passes NULL or a live rig.
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.springs().len() as u32)
    })
}

/// Number of warnings raised while building the rig (e.g. sheared bind pose).
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_warning_count(rig: *const SecmoRig) -> u32 {
    guard_value(0, || {
        // SAFETY: the caller passes NULL or a live rig.
        unsafe { rig.as_ref() }.map_or(0, |r| r.rig.warnings().len() as u32)
    })
}

/// Warning `index`: its kind (`SECMO_WARNING_*`) and the bone it concerns.
/// Errors: NULL_POINTER, INVALID_ARGUMENT (index out of range).
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_warning(
    rig: *const SecmoRig,
    index: u32,
    out_kind: *mut u32,
    out_bone: *mut u32,
) -> SecmoResult {
    guard("secmo_rig_warning", || {
        let rig = non_null(rig, "rig")?;
        let kind = non_null_mut(out_kind, "out_kind")?;
        let bone = non_null_mut(out_bone, "out_bone")?;
        let w = rig.rig.warnings().get(index as usize).ok_or_else(|| {
            FfiError::new(
                SECMO_ERROR_INVALID_ARGUMENT,
                format!("warning index {index} is out of range"),
            )
        })?;
        match w {
            RigWarning::Shear { bone: b } => {
                *kind = SECMO_WARNING_SHEAR;
                *bone = *b as u32;
            }
            RigWarning::ChainOrder { bone: b, .. } => {
                *kind = SECMO_WARNING_CHAIN_ORDER;
                *bone = *b as u32;
            }
            RigWarning::UnusualSize { .. } => {
                *kind = SECMO_WARNING_UNUSUAL_SIZE;
                *bone = 0;
            }
        }
        Ok(())
    })
}

/// The skeleton's size in metres: the largest side of the box around its
/// bones in the bind pose, divided by `units_per_meter`. Outside 0.05–50 m
/// the rig also carries a `SECMO_WARNING_UNUSUAL_SIZE` warning.
/// Errors: NULL_POINTER.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_size_meters(
    rig: *const SecmoRig,
    out_meters: *mut f32,
) -> SecmoResult {
    guard("secmo_rig_size_meters", || {
        let rig = non_null(rig, "rig")?;
        let out = non_null_mut(out_meters, "out_meters")?;
        *out = rig.rig.size_meters();
        Ok(())
    })
}

/// Copies the rig's neutral local pose (recovered from inverse binds where
/// given) into `out_pose`, which must hold exactly the bone count.
/// Errors: NULL_POINTER, BUFFER_LENGTH.
#[no_mangle]
pub unsafe extern "C" fn secmo_rig_reference_pose(
    rig: *const SecmoRig,
    out_pose: *mut Transform,
    out_pose_len: usize,
) -> SecmoResult {
    guard("secmo_rig_reference_pose", || {
        let rig = non_null(rig, "rig")?;
        let pose = rig.rig.reference_pose();
        if out_pose_len != pose.len() {
            return Err(Error::BufferLength {
                what: "out_pose",
                expected: pose.len(),
                got: out_pose_len,
            }
            .into());
        }
        slice_mut(out_pose, out_pose_len, "out_pose")?.copy_from_slice(pose);
        Ok(())
    })
}
