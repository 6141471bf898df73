//! The VRM 0.x / 1.0 spring-bone reader on any bytes (GLB or glTF JSON).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(import) = secmo::vrm::import(data) {
        let _ = import.settings.to_json();
    }
    let _ = secmo::vrm::gltf_skeleton(data);
});
