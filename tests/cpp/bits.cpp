// The hip-spring scenario of tests/c/hip_springs.c through the C++ wrapper:
// the transcript must equal the Rust API's bit for bit.
#include <cstdio>
#include <cstring>

#include "secmo.hpp"

namespace {
constexpr int kBones = 4;
constexpr int kFrames = 300;

unsigned bits(float f) {
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

void make_pose(const SecmoTransform* reference, int frame, SecmoTransform* pose) {
    const int phase = frame % 20;
    const int tri = phase < 10 ? phase : 20 - phase;
    std::memcpy(pose, reference, sizeof(SecmoTransform) * kBones);
    pose[1].translation[0] = 0.25f * static_cast<float>(frame % 7);
    pose[1].translation[1] = 100.0f + 0.8f * static_cast<float>(tri);
    pose[1].translation[2] = 1.5f * static_cast<float>(frame);
    pose[1].rotation[1] = 0.02f * static_cast<float>(tri);
    pose[1].rotation[3] = 1.0f - 0.0002f * static_cast<float>(tri);
}

float frame_dt(int frame) {
    if (frame < 100) return 1.0f / 30.0f;
    if (frame < 200) return 1.0f / 60.0f;
    return (frame % 2) ? 1.0f / 45.0f : 1.0f / 90.0f;
}
}  // namespace

int main() {
    const int32_t parents[kBones] = {-1, 0, 1, 1};
    SecmoTransform reference[kBones];
    for (auto& b : reference) b = SecmoTransform{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    reference[1].translation[1] = 100.0f;
    reference[2].translation[0] = 10.0f;
    reference[2].translation[1] = -5.0f;
    reference[3].translation[0] = -10.0f;
    reference[3].translation[1] = -5.0f;
    SecmoSpringDesc springs[2];
    if (secmo_spring_desc_hip(2, 100.0f, &springs[0]) != SECMO_OK) return 2;
    if (secmo_spring_desc_hip(3, 100.0f, &springs[1]) != SECMO_OK) return 2;
    SecmoRigDesc desc = secmo::rig_desc();
    desc.bone_count = kBones;
    desc.parents = parents;
    desc.reference_pose = reference;
    desc.units_per_meter = 100.0f;
    desc.springs = springs;
    desc.spring_count = 2;
    auto rig = secmo::Rig::create(desc);
    if (!rig) return 3;
    auto character = secmo::Character::create(rig.value());
    if (!character) return 4;
    secmo::Character c = std::move(character).take();
    SecmoTransform pose[kBones], out[kBones];
    for (int f = 0; f < kFrames; ++f) {
        make_pose(reference, f, pose);
        secmo::Frame frame;
        frame.dt = frame_dt(f);
        frame.pose = pose;
        SecmoUpdateInfo info{};
        const secmo::Status s = c.update(frame, out, &info);
        if (!s) {
            std::fprintf(stderr, "update: %s\n", s.message());
            return 5;
        }
        std::printf("%d %u", f, static_cast<unsigned>(info.max_substeps));
        for (int b = 2; b < kBones; ++b)
            std::printf(" %08x %08x %08x", bits(out[b].translation[0]), bits(out[b].translation[1]),
                        bits(out[b].translation[2]));
        std::printf("\n");
    }
    std::printf("ok\n");
    return 0;
}
