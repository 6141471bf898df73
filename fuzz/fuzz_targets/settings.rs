//! The rig-settings reader: any text, then (if it parses) a rig on the fuzz
//! skeleton. No panic; a rig that builds also updates.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(settings) = secmo::RigSettings::from_json(text) else {
        return;
    };
    let skeleton = common::rig_desc().bones;
    // The expanded form (every preset written out, what the engines' typed
    // fields hold) reads back and builds the same rig as the original.
    let expanded = settings
        .expanded(1.0)
        .ok()
        .map(|e| secmo::RigSettings::from_json(&e.to_json()).expect("expanded settings read back"));
    let Ok(desc) = settings.to_rig_desc(skeleton.clone(), 1.0, secmo::UpAxis::Y) else {
        return;
    };
    let built = secmo::Rig::new(desc);
    if let (Ok(rig), Some(expanded)) = (&built, &expanded) {
        let again = expanded
            .to_rig_desc(skeleton, 1.0, secmo::UpAxis::Y)
            .map(secmo::Rig::new);
        match again {
            Ok(Ok(again)) => assert_eq!(again.fingerprint(), rig.fingerprint()),
            Ok(Err(e)) => panic!("the expanded settings do not build a rig: {e}"),
            Err(e) => panic!("the expanded settings do not resolve: {e}"),
        }
    }
    if let Ok(rig) = built {
        let rig = std::sync::Arc::new(rig);
        let mut ch = secmo::Character::new(rig.clone(), Default::default());
        let pose = rig.reference_pose().to_vec();
        let mut out = pose.clone();
        for _ in 0..3 {
            if ch
                .update(
                    &secmo::FrameInput {
                        dt: 1.0 / 60.0,
                        pose: &pose,
                        teleport: false,
                    },
                    &mut out,
                )
                .is_ok()
            {
                assert!(out.iter().all(secmo::Transform::is_finite));
            }
        }
        let _ = secmo::RigSettings::from_rig(&rig).to_json();
    }
});
