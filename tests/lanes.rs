//! Kernel selection: the detected kernel is one this CPU runs, and a kernel
//! it lacks is refused. The kernels' agreement over a 10 s scene is the
//! long sweep in tests/sweeps.rs.

#[path = "support/tools.rs"]
#[macro_use]
mod tools;

#[path = "support/kernel_scenes.rs"]
mod scenes;

use scenes::rig;
use secmo::{ChainKernel, Character};

fn a_kernel_the_cpu_lacks_is_refused() {
    let mut c = Character::new(rig(), Default::default());
    let detected = ChainKernel::detect();
    assert!(detected.supported());
    // Off x86-64 (aarch64: tests/aarch64.rs runs this there) the stage
    // runs the portable lane kernel, not the scalar one.
    #[cfg(not(target_arch = "x86_64"))]
    assert_eq!(detected, ChainKernel::Lanes);
    assert_eq!(c.chain_kernel(), detected);
    c.set_chain_kernel(ChainKernel::Scalar).unwrap();
    if !ChainKernel::LanesAvx2.supported() {
        assert!(c.set_chain_kernel(ChainKernel::LanesAvx2).is_err());
        assert_eq!(c.chain_kernel(), ChainKernel::Scalar);
    }
}

fn main() {
    tools::run(cases![a_kernel_the_cpu_lacks_is_refused]);
}
