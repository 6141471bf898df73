// Shared by the C++ test programs: a root, hips and a four-joint tail chain
// (tail preset), and an angle between quaternions that resolves small angles.
#ifndef SECMO_TEST_TAIL_RIG_H
#define SECMO_TEST_TAIL_RIG_H

#include <cmath>

#include "secmo.hpp"

namespace tail_rig {
constexpr int kBones = 6;  // root, hips, 4 tail joints
constexpr int32_t kParents[kBones] = {-1, 0, 1, 2, 3, 4};

inline SecmoTransform identity() { return SecmoTransform{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}; }

inline secmo::Rig make(const SecmoTransform* bones, float units_per_meter, uint32_t up_axis) {
    static const uint32_t joints[4] = {2, 3, 4, 5};
    SecmoChainDesc chain{};
    chain.struct_size = sizeof chain;
    chain.anchor = 1;
    chain.joints = joints;
    chain.joint_count = 4;
    chain.preset = SECMO_CHAIN_TAIL;
    SecmoRigDesc desc = secmo::rig_desc();
    desc.bone_count = kBones;
    desc.parents = kParents;
    desc.reference_pose = bones;
    desc.units_per_meter = units_per_meter;
    desc.up_axis = up_axis;
    desc.chains = &chain;
    desc.chain_count = 1;
    return secmo::Rig::create(desc).take();
}

// The angle of a⁻¹·b from its vector part: accurate for small angles, where
// 2·acos(|a·b|) in f32 cannot resolve less than about 1e-3 rad.
inline float angle_between(const float a[4], const float b[4]) {
    using namespace secmo::math;
    const Quat r = mul(conjugate(Quat{a[0], a[1], a[2], a[3]}), Quat{b[0], b[1], b[2], b[3]});
    float v = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (v > 1.0f) v = 1.0f;
    return 2.0f * std::asin(v);
}
}  // namespace tail_rig

#endif
