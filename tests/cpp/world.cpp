// A world of 48 tailed characters updated as one plan and four ranges on
// four threads gives, frame by frame, exactly the bits of 48 standalone
// characters updated one call each; the world's characters work with the
// character functions; secmo_character_destroy refuses them; a budget of 0
// holds every character; the world frees everything it made.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "crowd_rig.h"
#include "secmo.hpp"

namespace {
using crowd_rig::kBones;
using crowd_rig::make_pose;
constexpr int kCharacters = 48;
constexpr int kThreads = 4;
constexpr int kFrames = 240;



int fail(const char* what) {
    std::fprintf(stderr, "%s: %s\n", what, secmo_last_error_message());
    return 1;
}
}  // namespace

int main() {
    const std::size_t live_before = secmo_live_object_count();
    SecmoTransform reference[kBones];
    crowd_rig::reference(reference);
    {
        secmo::Rig rig = crowd_rig::make(reference);
        if (!rig) return fail("rig");
        secmo::World world = secmo::World::create().take();
        if (!world) return fail("world");
        std::vector<SecmoCharacter*> members;
        std::vector<secmo::Character> alone;
        for (int c = 0; c < kCharacters; ++c) {
            auto added = world.add(rig);
            if (!added) return fail("add");
            members.push_back(added.value());
            alone.push_back(secmo::Character::create(rig).take());
            // Per-character functions on a world's character.
            const float wind[3] = {0.2f * static_cast<float>(c % 5), 0.0f, 0.0f};
            if (secmo_character_set_wind(members.back(), &wind) != SECMO_OK) return fail("wind");
            if (!alone.back().set_wind(wind[0], wind[1], wind[2])) return fail("wind");
        }
        if (secmo_live_object_count() != live_before + 2 + 2 * kCharacters) return fail("live count");
        secmo_character_destroy(members[5]);  // refused, not freed
        if (std::strstr(secmo_last_error_message(), "world") == nullptr) return fail("destroy not refused");
        if (secmo_live_object_count() != live_before + 2 + 2 * kCharacters) return fail("destroy freed");

        std::vector<SecmoTransform> poses(static_cast<std::size_t>(kCharacters) * kBones);
        std::vector<SecmoTransform> outs(poses.size()), expected(poses.size());
        std::vector<SecmoFrameInput> inputs(kCharacters);
        std::vector<SecmoWorldItem> items(kCharacters);
        float swing = 0.0f;
        for (int f = 0; f < kFrames; ++f) {
            for (int c = 0; c < kCharacters; ++c) {
                SecmoTransform* pose = &poses[static_cast<std::size_t>(c) * kBones];
                make_pose(reference, c, f, pose);
                secmo::Frame frame;
                frame.dt = f == 0 ? 0.0f : 1.0f / 60.0f;
                frame.pose = secmo::Span<const SecmoTransform>(pose, kBones);
                inputs[c] = frame.to_c();
                secmo::Span<SecmoTransform> out(&outs[static_cast<std::size_t>(c) * kBones], kBones);
                items[c] = secmo::world_item(members[c], inputs[c], out, static_cast<float>(c));
                secmo::Span<SecmoTransform> exp(&expected[static_cast<std::size_t>(c) * kBones], kBones);
                if (!alone[c].update(frame, exp)) return fail("alone");
            }
            if (!world.plan(items.data(), items.size())) return fail("plan");
            std::vector<std::thread> pool;
            bool failed[kThreads] = {};
            const int per = kCharacters / kThreads;
            for (int t = 0; t < kThreads; ++t) {
                pool.emplace_back([&, t] {
                    failed[t] = !world.update_range(items.data(), static_cast<std::size_t>(t * per),
                                                    static_cast<std::size_t>((t + 1) * per));
                });
            }
            for (auto& th : pool) th.join();
            for (bool x : failed)
                if (x) return fail("range");
            if (std::memcmp(outs.data(), expected.data(), sizeof(SecmoTransform) * outs.size()) != 0) {
                std::fprintf(stderr, "frame %d: the world differs from one call per character\n", f);
                return 3;
            }
            for (int c = 0; c < kCharacters; ++c)
                swing = std::fmax(swing, std::fabs(outs[static_cast<std::size_t>(c) * kBones + 6].rotation[1]));
        }
        if (swing < 0.01f) return fail("the tails do not swing");

        // A budget of 0: every character held within three level steps, each
        // in at most 16 updates (the world's level-change arena admits a
        // sixteenth of these like characters' changes per update,
        // docs/c-api.md "Worlds").
        if (!world.set_budget(0)) return fail("budget");
        for (int f = 0; f < 3 * 16 + 1; ++f) {
            if (!world.update(items.data(), items.size())) return fail("budgeted update");
        }
        for (const auto& item : items)
            if (item.level != SECMO_LEVEL_HELD) return fail("not held");
        if (!world.set_budget(SECMO_WORLD_NO_BUDGET)) return fail("no budget");

        if (!world.remove(members[0])) return fail("remove");
        if (secmo_live_object_count() != live_before + 2 + 2 * kCharacters - 1) return fail("remove count");
        std::printf("%d characters x %d frames, one plan and %d ranges on threads: identical to one call each\n",
                    kCharacters, kFrames, kThreads);
    }
    if (secmo_live_object_count() != live_before) return fail("leak");
    std::printf("ok\n");
    return 0;
}
