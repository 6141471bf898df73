// Shared by tests/cpp/concurrency.cpp and tests/cpp/world.cpp: a root, hips
// with a hip helper spring and a four-joint tail chain (tail preset), and
// each character's pose at a frame (the hips yawing and bobbing, phase
// shifted per character).
#ifndef SECMO_TEST_CROWD_RIG_H
#define SECMO_TEST_CROWD_RIG_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "secmo.hpp"

namespace crowd_rig {
constexpr int kBones = 7;  // root, hips, hip helper, 4 tail joints

inline SecmoTransform identity() { return SecmoTransform{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}; }

// The reference pose: hips 1 m up, the helper beside them, the tail behind.
inline void reference(SecmoTransform* pose) {
    for (int b = 0; b < kBones; ++b) pose[b] = identity();
    pose[1].translation[1] = 1.0f;
    pose[2].translation[0] = 0.1f;
    pose[3].translation[1] = -0.05f;
    pose[3].translation[2] = -0.1f;
    for (int b = 4; b < kBones; ++b) {
        pose[b].translation[1] = -0.05f;
        pose[b].translation[2] = -0.15f;
    }
}

inline void make_pose(const SecmoTransform* reference, int character, int frame, SecmoTransform* pose) {
    const float t = static_cast<float>(frame) / 60.0f + 0.1f * static_cast<float>(character);
    std::memcpy(pose, reference, sizeof(SecmoTransform) * kBones);
    const float yaw = 0.7f * std::sin(3.0f * t);
    pose[1].rotation[1] = std::sin(0.5f * yaw);
    pose[1].rotation[3] = std::cos(0.5f * yaw);
    pose[1].translation[1] = 1.0f + 0.03f * std::sin(9.0f * t);
}

inline secmo::Rig make(const SecmoTransform* reference) {
    static const int32_t parents[kBones] = {-1, 0, 1, 1, 3, 4, 5};
    static const uint32_t joints[4] = {3, 4, 5, 6};
    SecmoSpringDesc spring{};
    (void)secmo_spring_desc_hip(2, 1.0f, &spring);
    SecmoChainDesc chain{};
    chain.struct_size = sizeof chain;
    chain.anchor = 1;
    chain.joints = joints;
    chain.joint_count = 4;
    chain.preset = SECMO_CHAIN_TAIL;
    SecmoRigDesc desc = secmo::rig_desc();
    desc.bone_count = kBones;
    desc.parents = parents;
    desc.reference_pose = reference;
    desc.springs = &spring;
    desc.spring_count = 1;
    desc.chains = &chain;
    desc.chain_count = 1;
    return secmo::Rig::create(desc).take();
}
}  // namespace crowd_rig

#endif
