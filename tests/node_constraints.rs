//! VRM node constraints (src/solvers/node_constraint.rs,
//! docs/node-constraints.md): the rig orders them by dependency and refuses
//! circles naming the bones; the settings file and the C ABI carry them.
//! Parity with three-vrm is in tests/vrm_parity.rs.

mod common;

use std::ffi::CStr;

use glam::{Quat, Vec3};
use secmo::ffi::*;
use secmo::{
    AimAxis, BoneDesc, Character, CharacterOptions, NodeConstraintDesc, NodeConstraintKind, Rig,
    RigDesc, RigError, RigSettings, RollAxis, Transform,
};

/// root → arm (1 m up) → hand; three free bones under the root.
fn bones() -> Vec<BoneDesc> {
    let at = |y: f32| Transform::from_translation(Vec3::new(0.0, y, 0.0));
    vec![
        BoneDesc::new("root", -1, Transform::IDENTITY),
        BoneDesc::new("arm", 0, at(1.0)),
        BoneDesc::new("hand", 1, at(0.3)),
        BoneDesc::new("a", 0, at(0.5)),
        BoneDesc::new("b", 0, at(0.6)),
        BoneDesc::new("c", 3, at(0.1)),
    ]
}

fn rig(node_constraints: Vec<NodeConstraintDesc>) -> Result<Rig, RigError> {
    Rig::new(RigDesc {
        bones: bones(),
        node_constraints,
        ..Default::default()
    })
}

fn rotation(source: u32, destination: u32) -> NodeConstraintDesc {
    NodeConstraintDesc {
        kind: NodeConstraintKind::Rotation,
        source,
        destination,
        weight: 1.0,
    }
}

#[test]
fn a_circle_is_an_error_naming_its_bones() {
    let e = rig(vec![rotation(3, 4), rotation(4, 3)]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("circle") && text.contains('a') && text.contains('b'),
        "{text}"
    );
    // Through an ancestor: c hangs below a, a follows b, b follows c.
    let e = rig(vec![rotation(5, 4), rotation(4, 3)]).unwrap_err();
    assert!(matches!(e, RigError::NodeConstraintCycle { .. }), "{e}");
}

#[test]
fn bad_constraints_are_refused_by_reason() {
    let aim_below = NodeConstraintDesc {
        kind: NodeConstraintKind::Aim(AimAxis::PositiveY),
        source: 5,
        destination: 3,
        weight: 1.0,
    };
    for (desc, reason) in [
        (rotation(1, 1), "its own source"),
        (rotation(9, 1), "out of range"),
        (
            NodeConstraintDesc {
                weight: 1.5,
                ..rotation(1, 3)
            },
            "weight",
        ),
        (aim_below, "below its destination"),
    ] {
        let e = rig(vec![desc]).unwrap_err().to_string();
        assert!(e.contains(reason), "{e}");
    }
    let e = rig(vec![rotation(1, 3), rotation(2, 3)]).unwrap_err();
    assert!(
        e.to_string().contains("already has a node constraint"),
        "{e}"
    );
}

#[test]
fn dependents_run_after_what_they_read_whatever_the_order_given() {
    // b follows a, a follows the arm; listed b first.
    let rig = rig(vec![rotation(3, 4), rotation(1, 3)]).unwrap();
    let order: Vec<u32> = rig
        .node_constraints()
        .iter()
        .map(|c| c.destination)
        .collect();
    assert_eq!(order, [3, 4]);
    let rig = std::sync::Arc::new(rig);
    let mut c = Character::new(rig.clone(), CharacterOptions::default());
    let mut pose = rig.reference_pose().to_vec();
    let turn = Quat::from_rotation_y(1.0);
    pose[1].rotation = turn.to_array();
    let out = common::step(&mut c, 1.0 / 60.0, &pose);
    for b in [3, 4] {
        assert!(
            out[b].rotation().angle_between(turn) < 1e-3,
            "bone {b} follows the arm in the same update"
        );
    }
}

#[test]
fn the_settings_file_carries_them_and_names_wrong_fields() {
    let text = r#"{
      "format": "secmo-rig-settings", "version": 1,
      "node_constraints": [
        {"kind": "roll", "source": "arm", "destination": "a", "axis": "Y", "weight": 0.5},
        {"kind": "aim", "source": "hand", "destination": "b", "axis": "NegativeZ"},
        {"kind": "rotation", "source": "arm", "destination": "c"}
      ]
    }"#;
    let settings = RigSettings::from_json(text).unwrap();
    // The bones an engine must feed (secmo_settings_bone_names).
    assert_eq!(settings.bone_names(), ["arm", "a", "hand", "b", "c"]);
    let desc = settings
        .to_rig_desc(bones(), 1.0, secmo::UpAxis::Y)
        .unwrap();
    assert_eq!(
        desc.node_constraints[0].kind,
        NodeConstraintKind::Roll(RollAxis::Y)
    );
    assert_eq!(
        desc.node_constraints[1].kind,
        NodeConstraintKind::Aim(AimAxis::NegativeZ)
    );
    assert_eq!(desc.node_constraints[2].weight, 1.0, "weight defaults to 1");
    let rig = Rig::new(desc).unwrap();
    let again = RigSettings::from_rig(&rig);
    assert_eq!(again.node_constraints.len(), 3);
    let back = RigSettings::from_json(&again.to_json()).unwrap();
    assert_eq!(back, again);

    for (bad, path) in [
        (
            r#"{"kind": "twist", "source": "arm", "destination": "a"}"#,
            "node_constraints[0].kind",
        ),
        (
            r#"{"kind": "roll", "source": "arm", "destination": "a", "axis": "W"}"#,
            "node_constraints[0].axis",
        ),
        (
            r#"{"kind": "rotation", "source": "arm", "destination": "a", "axis": "X"}"#,
            "node_constraints[0].axis",
        ),
        (
            r#"{"kind": "rotation", "source": "leg", "destination": "a"}"#,
            "node_constraints[0].source",
        ),
    ] {
        let text = format!(
            r#"{{"format": "secmo-rig-settings", "version": 1, "node_constraints": [{bad}]}}"#
        );
        let e = RigSettings::from_json(&text)
            .and_then(|s| s.to_rig_desc(bones(), 1.0, secmo::UpAxis::Y))
            .unwrap_err();
        assert_eq!(e.path, path, "{e}");
    }
}

#[test]
fn the_c_abi_creates_them_and_accepts_the_older_rig_desc() {
    let bones = bones();
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    let pose: Vec<Transform> = bones.iter().map(|b| b.reference).collect();
    let constraints = [SecmoNodeConstraintDesc {
        struct_size: std::mem::size_of::<SecmoNodeConstraintDesc>() as u32,
        kind: SECMO_NODE_CONSTRAINT_ROLL,
        source: 1,
        destination: 3,
        axis: SECMO_AXIS_POSITIVE_Y,
        weight: 1.0,
    }];
    let mut desc = SecmoRigDesc {
        bone_count: bones.len() as u32,
        parents: parents.as_ptr(),
        reference_pose: pose.as_ptr(),
        node_constraints: constraints.as_ptr(),
        node_constraint_count: 1,
        ..Default::default()
    };
    let mut rig: *mut SecmoRig = std::ptr::null_mut();
    // SAFETY: every pointer is valid for its count.
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        secmo_rig_destroy(rig);
    }
    // A bad axis is refused by name.
    let bad = [SecmoNodeConstraintDesc {
        axis: SECMO_AXIS_NEGATIVE_X,
        ..constraints[0]
    }];
    desc.node_constraints = bad.as_ptr();
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            secmo_rig_create(&desc, &mut rig),
            SECMO_ERROR_INVALID_ARGUMENT
        );
        let message = CStr::from_ptr(secmo_last_error_message()).to_string_lossy();
        assert!(message.contains("node_constraints[0].axis"), "{message}");
    }
    // A caller built against the first header (no node constraints).
    desc.struct_size = std::mem::offset_of!(SecmoRigDesc, node_constraints) as u32;
    desc.node_constraints = 0x1 as *const SecmoNodeConstraintDesc; // never read
    desc.node_constraint_count = 99;
    // SAFETY: the fields past struct_size are not read.
    unsafe {
        assert_eq!(secmo_rig_create(&desc, &mut rig), SECMO_OK);
        secmo_rig_destroy(rig);
    }
}
