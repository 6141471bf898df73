// RAII: no leak, no double free. The library counts live rigs and characters;
// .ci/run also runs this under valgrind's memcheck.
#include <cstdio>
#include <utility>
#include <vector>

#include "secmo.hpp"

static int fail(const char* what, std::size_t live) {
    std::fprintf(stderr, "%s: live objects %zu\n", what, live);
    return 1;
}

int main() {
    SecmoTransform bones[2];
    for (auto& b : bones) b = SecmoTransform{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    bones[1].translation[1] = -0.1f;
    const int32_t parents[2] = {-1, 0};
    SecmoSpringDesc spring{};
    if (secmo_spring_desc_hip(1, 1.0f, &spring) != SECMO_OK) return 2;
    SecmoRigDesc desc = secmo::rig_desc();
    desc.bone_count = 2;
    desc.parents = parents;
    desc.reference_pose = bones;
    desc.springs = &spring;
    desc.spring_count = 1;
    {
        auto rig = secmo::Rig::create(desc).take();
        if (secmo_live_object_count() != 1) return fail("rig", secmo_live_object_count());
        std::vector<secmo::Character> crowd;
        for (int i = 0; i < 5; ++i) {
            auto c = secmo::Character::create(rig);
            if (!c) return 3;
            crowd.push_back(std::move(c).take());  // moves, never copies
        }
        if (secmo_live_object_count() != 6) return fail("crowd", secmo_live_object_count());
        rig.reset();  // characters keep the rig alive
        if (secmo_live_object_count() != 5) return fail("rig released", secmo_live_object_count());
        secmo::Character moved = std::move(crowd[0]);
        if (crowd[0]) return 4;  // moved-from is empty
        crowd[1] = std::move(crowd[2]);  // move-assign destroys the old one
        if (secmo_live_object_count() != 4) return fail("move-assign", secmo_live_object_count());
        crowd[3] = std::move(crowd[3]);  // self-move keeps it
        if (!crowd[3]) return 5;
        SecmoTransform pose[2] = {bones[0], bones[1]};
        SecmoTransform out[2];
        if (!moved.update(1.0f / 60.0f, pose, out)) return 6;
        // reset_dynamics() restarts the solver and keeps the handle; reset() frees it.
        if (!moved.reset_dynamics() || !moved) return 11;
        const std::size_t before = secmo_live_object_count();
        crowd[4].reset();
        if (crowd[4] || secmo_live_object_count() != before - 1) return fail("reset", secmo_live_object_count());
        // A failing call gives a status and a message, not an exception.
        SecmoTransform short_out[1];
        const secmo::Status bad = moved.update(1.0f / 60.0f, pose, short_out);
        if (bad || bad.code() != SECMO_ERROR_BUFFER_LENGTH || bad.message()[0] == '\0') return 7;
        // A bad descriptor fails the same way.
        SecmoRigDesc broken = desc;
        const int32_t bad_parents[2] = {-1, 5};
        broken.parents = bad_parents;
        const auto none = secmo::Rig::create(broken);
        if (none || none.status().code() != SECMO_ERROR_INVALID_RIG) return 8;
        // Rig warnings: none here; a chain listed before the chain it hangs
        // from (bone 1 moves with the second) is reported with that bone.
        std::uint32_t kind = 0, bone = 0;
        auto plain = secmo::Rig::create(desc).take();
        if (plain.warning_count() != 0 || plain.warning(0, kind, bone)) return 12;
        SecmoTransform three[3] = {bones[0], bones[1], bones[1]};
        const int32_t chain_parents[3] = {-1, 0, 1};
        const uint32_t upper = 1, lower = 2;
        SecmoChainDesc chains[2]{};
        for (auto& c : chains) {
            c.struct_size = sizeof c;
            c.joint_count = 1;
            c.preset = SECMO_CHAIN_VRM;
        }
        chains[0].joints = &lower;
        chains[0].anchor = 1;
        chains[1].joints = &upper;
        chains[1].anchor = 0;
        SecmoRigDesc hanging = secmo::rig_desc();
        hanging.bone_count = 3;
        hanging.parents = chain_parents;
        hanging.reference_pose = three;
        hanging.chains = chains;
        hanging.chain_count = 2;
        auto reversed = secmo::Rig::create(hanging).take();
        if (reversed.warning_count() != 1 || !reversed.warning(0, kind, bone)) return 13;
        if (kind != SECMO_WARNING_CHAIN_ORDER || bone != 1 || reversed.warning(1, kind, bone)) return 14;
    }
    if (secmo_live_object_count() != 0) return fail("end", secmo_live_object_count());
    std::printf("ok\n");
    return 0;
}
