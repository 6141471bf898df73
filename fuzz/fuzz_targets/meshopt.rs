//! The meshopt decoder (`secmo_cli::meshopt`) on any stream: the first
//! bytes choose the mode, the filter, the element size and count, the rest
//! is the compressed stream. Every outcome is a decoded view of exactly
//! `count × stride` bytes or an error, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [choice, stride, lo, hi, stream @ ..] = data else {
        return;
    };
    let modes = ["ATTRIBUTES", "TRIANGLES", "INDICES"];
    let filters = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"];
    let mode = modes[usize::from(choice % 3)];
    let filter = filters[usize::from(choice / 3 % 5)];
    let stride = usize::from(*stride);
    let count = usize::from(u16::from_le_bytes([*lo, *hi]));
    if let Ok(out) = secmo_cli::meshopt::decode_view(stream, count, stride, mode, filter) {
        assert_eq!(out.len(), count * stride);
    }
});
