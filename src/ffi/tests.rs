//! Unit tests of the boundary machinery.

use super::*;

fn last_error() -> String {
    unsafe { CStr::from_ptr(secmo_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_panic_becomes_an_error_code_with_a_message() {
    let r = guard("secmo_test", || panic!("boom at the boundary"));
    assert_eq!(r, SECMO_ERROR_PANIC);
    assert!(
        last_error().contains("boom at the boundary"),
        "{}",
        last_error()
    );
    assert_eq!(guard_value(7u32, || panic!("x")), 7);
}

#[test]
fn last_error_is_per_thread() {
    set_last_error("main thread failure");
    let other = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(other, "");
    assert_eq!(last_error(), "main thread failure");
}

#[repr(C)]
#[derive(Clone, Copy)]
struct OldCharacterDesc {
    struct_size: u32,
}

#[test]
fn descriptors_grow_by_struct_size() {
    let defaults = SecmoCharacterDesc {
        struct_size: 0,
        substep_target: 9,
    };
    // A caller compiled against a header that had only 8 bytes: fine.
    let full = SecmoCharacterDesc {
        struct_size: 8,
        substep_target: SECMO_SUBSTEP_TARGET_INTERPOLATE,
    };
    let d = read_versioned(&full, defaults, "desc").ok().unwrap();
    assert_eq!(d.substep_target, SECMO_SUBSTEP_TARGET_INTERPOLATE);
    // Too small to hold even struct_size and one field.
    let old = OldCharacterDesc { struct_size: 4 };
    let e = read_versioned(
        &old as *const _ as *const SecmoCharacterDesc,
        defaults,
        "desc",
    );
    assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
    // Newer than the library.
    let newer = SecmoCharacterDesc {
        struct_size: 64,
        substep_target: 0,
    };
    let e = read_versioned(&newer, defaults, "desc");
    assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
    // A size between fields (half of a field, or of a pointer) is not a
    // shipped size: refused, never copied.
    for size in [5, 6, 7] {
        let odd = SecmoCharacterDesc {
            struct_size: size,
            substep_target: 0,
        };
        let e = read_versioned(&odd, defaults, "desc");
        assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
    }
    // A frame input whose struct_size is 12 would copy half of the pose
    // pointer: refused.
    let mut frame = SecmoFrameInput {
        struct_size: 12,
        ..SecmoFrameInput::UNSET
    };
    let e = read_versioned(&frame, frame, "input");
    assert_eq!(e.err().unwrap().code, SECMO_ERROR_STRUCT_SIZE);
    frame.struct_size = core::mem::size_of::<SecmoFrameInput>() as u32;
    assert!(read_versioned(&frame, frame, "input").is_ok());
    assert!(
        read_versioned(std::ptr::null::<SecmoCharacterDesc>(), defaults, "desc")
            .err()
            .is_some_and(|e| e.code == SECMO_ERROR_NULL_POINTER)
    );
}

#[test]
fn null_arguments_are_reported_not_dereferenced() {
    unsafe {
        assert_eq!(
            secmo_rig_create(std::ptr::null(), std::ptr::null_mut()),
            SECMO_ERROR_NULL_POINTER
        );
        assert!(last_error().contains("out_rig is NULL"));
        assert_eq!(
            secmo_character_reset(std::ptr::null_mut()),
            SECMO_ERROR_NULL_POINTER
        );
        assert_eq!(
            secmo_spring_desc_hip(0, 100.0, std::ptr::null_mut()),
            SECMO_ERROR_NULL_POINTER
        );
        let mut d = std::mem::zeroed::<SecmoSpringDesc>();
        assert_eq!(
            secmo_spring_desc_chest(0, f32::NAN, &mut d),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(secmo_rig_bone_count(std::ptr::null()), 0);
        secmo_rig_destroy(std::ptr::null_mut());
        secmo_character_destroy(std::ptr::null_mut());
        let mut rig = std::ptr::null_mut();
        let desc = SecmoRigDesc {
            bone_count: 3,
            ..Default::default()
        };
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_ERROR_NULL_POINTER);
        assert!(last_error().contains("desc.parents is NULL but its length is 3"));
        assert!(rig.is_null());
    }
}

#[test]
fn invalid_rig_message_names_the_bone() {
    let parents = [-1i32, 2, 1];
    let pose = [Transform::IDENTITY; 3];
    let desc = SecmoRigDesc {
        bone_count: 3,
        parents: parents.as_ptr(),
        reference_pose: pose.as_ptr(),
        ..Default::default()
    };
    let mut rig = std::ptr::null_mut();
    assert_eq!(
        unsafe { secmo_rig_create(&desc, &mut rig) },
        SECMO_ERROR_INVALID_RIG
    );
    assert!(
        last_error().contains("bone 1: parent chain forms a cycle"),
        "{}",
        last_error()
    );
    let good_parents = [-1i32, 0, 1];
    let bad_axis = SecmoRigDesc {
        up_axis: 5,
        parents: good_parents.as_ptr(),
        ..desc
    };
    assert_eq!(
        unsafe { secmo_rig_create(&bad_axis, &mut rig) },
        SECMO_ERROR_INVALID_ARGUMENT
    );
}

#[test]
fn record_buffers_that_overlap_a_pose_or_each_other_are_refused() {
    let parents = [-1i32, 0, 1];
    let pose = [Transform::IDENTITY; 3];
    let desc = SecmoRigDesc {
        bone_count: 3,
        parents: parents.as_ptr(),
        reference_pose: pose.as_ptr(),
        ..Default::default()
    };
    unsafe {
        let mut rig = std::ptr::null_mut();
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        let mut ch = std::ptr::null_mut();
        assert_eq!(
            secmo_character_create(rig, std::ptr::null(), &mut ch),
            SECMO_OK
        );
        let mut io = pose;
        let input = SecmoFrameInput {
            struct_size: core::mem::size_of::<SecmoFrameInput>() as u32,
            dt: 1.0 / 60.0,
            pose: io.as_ptr(),
            pose_len: 3,
            ..std::mem::zeroed()
        };
        let mut source = [Transform::IDENTITY; 3];
        let mut final_pose = [Transform::IDENTITY; 3];
        let records = |source: *mut Transform, final_pose: *mut Transform| SecmoStageRecords {
            struct_size: core::mem::size_of::<SecmoStageRecords>() as u32,
            bone_count: 3,
            source,
            final_pose,
            ..std::mem::zeroed()
        };
        // Own buffers: fine, also in place.
        let r = records(source.as_mut_ptr(), final_pose.as_mut_ptr());
        let out = io.as_mut_ptr();
        assert_eq!(
            secmo_character_update_recorded(ch, &input, out, 3, std::ptr::null_mut(), &r),
            SECMO_OK
        );
        // The source record on the in-place pose buffer.
        let r = records(io.as_mut_ptr(), final_pose.as_mut_ptr());
        assert_eq!(
            secmo_character_update_recorded(ch, &input, out, 3, std::ptr::null_mut(), &r),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert!(
            last_error().contains("records.source overlaps input->pose"),
            "{}",
            last_error()
        );
        // Two records sharing memory, one bone apart.
        let r = records(source.as_mut_ptr(), source.as_mut_ptr().add(1));
        assert_eq!(
            secmo_character_update_recorded(ch, &input, out, 3, std::ptr::null_mut(), &r),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        assert!(
            last_error().contains("records.source overlaps records.final_pose"),
            "{}",
            last_error()
        );
        secmo_character_destroy(ch);
        secmo_rig_destroy(rig);
    }
}

#[cfg(feature = "settings")]
#[test]
fn settings_expand_follows_the_two_call_contract() {
    let text = br#"{"format": "secmo-rig-settings", "version": 1,
        "chains": [{"preset": "hair", "anchor": "head", "joints": ["h1"], "params": {"damping": 12}}]}"#;
    let expected = crate::settings::RigSettings::from_json(std::str::from_utf8(text).unwrap())
        .unwrap()
        .expanded(100.0)
        .unwrap()
        .to_json();
    unsafe {
        let t = text.as_ptr() as *const std::ffi::c_char;
        let mut needed = 0usize;
        let r = secmo_settings_expand(t, text.len(), 100.0, std::ptr::null_mut(), 0, &mut needed);
        assert_eq!(r, SECMO_ERROR_BUFFER_LENGTH);
        assert_eq!(needed, expected.len() + 1);
        let mut buffer = vec![0 as std::ffi::c_char; needed];
        let r = secmo_settings_expand(
            t,
            text.len(),
            100.0,
            buffer.as_mut_ptr(),
            needed,
            &mut needed,
        );
        assert_eq!(r, SECMO_OK);
        let out = std::ffi::CStr::from_ptr(buffer.as_ptr()).to_str().unwrap();
        assert_eq!(out, expected);
        assert!(
            out.contains("\"damping\": 12.0") && out.contains("\"units_per_meter\": 100.0"),
            "{out}"
        );
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let r =
                secmo_settings_expand(t, text.len(), bad, buffer.as_mut_ptr(), needed, &mut needed);
            assert_eq!(r, SECMO_ERROR_INVALID_ARGUMENT, "{bad}");
        }
        assert_eq!(
            secmo_settings_expand(
                std::ptr::null(),
                3,
                1.0,
                buffer.as_mut_ptr(),
                needed,
                &mut needed
            ),
            SECMO_ERROR_NULL_POINTER
        );
        let broken = b"{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"tail\", \"anchor\": \"a\", \"joints\": [\"j\"], \"params\": {\"gravityy\": 1}}]}";
        let r = secmo_settings_expand(
            broken.as_ptr() as *const std::ffi::c_char,
            broken.len(),
            1.0,
            buffer.as_mut_ptr(),
            needed,
            &mut needed,
        );
        assert_eq!(r, SECMO_ERROR_SETTINGS);
        assert!(
            last_error().contains("chains[0].params.gravityy"),
            "{}",
            last_error()
        );
        let invalid = [0xffu8, 0xfe];
        let r = secmo_settings_expand(
            invalid.as_ptr() as *const std::ffi::c_char,
            2,
            1.0,
            buffer.as_mut_ptr(),
            needed,
            &mut needed,
        );
        assert_eq!(r, SECMO_ERROR_SETTINGS);
    }
}
