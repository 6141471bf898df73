// The Unreal node's per-evaluation logic (AnimNode_Secmo.cpp), driven
// outside the engine through the same secmo.hpp helpers it calls:
// secmo::bridge::SimulationOrigin::place and secmo::bridge::FrameClock.
// Unreal's convention: centimetres, Z up.
//
// floor: a character spawned on a 3 m platform walks down a ramp to the
// ground; its tail, which the floor holds up, must end where the same walk's
// tail ends for a character spawned on the ground (the node once left the
// first origin unreported, so the floor stayed at the spawn height). The
// same walk without the first report must differ, so the check can fail.
//
// long frames: a swaying body at 8 fps keeps its tail's lag (the node once
// made every frame over 0.1 s a teleport, which carried the tail rigidly);
// the lag must be at least half of the same motion's at 60 fps.
#include <cmath>
#include <cstdio>

#include "secmo.hpp"
#include "tail_rig.h"

namespace {
using tail_rig::identity;
using tail_rig::kBones;

// Hips 25 cm up; the tail hangs back and down onto the ground.
secmo::Rig make_rig(SecmoTransform* bones) {
    for (int b = 0; b < kBones; ++b) bones[b] = identity();
    bones[1].translation[2] = 25.0f;
    bones[2].translation[0] = -8.0f;
    bones[2].translation[2] = -4.0f;
    for (int b = 3; b < kBones; ++b) {
        bones[b].translation[0] = -8.0f;
        bones[b].translation[2] = -12.0f;
    }
    return tail_rig::make(bones, 100.0f, SECMO_UP_AXIS_Z);
}

// The lowest tail joint's level height (cm) after a walk: `spawn` cm up for
// 1 s, down a ramp over 2 s, then 4 s on the ground, at 60 Hz.
double tail_floor(const secmo::Rig& rig, const SecmoTransform* reference, double spawn, bool report_first) {
    secmo::Character character = secmo::Character::create(rig).take();
    secmo::bridge::SimulationOrigin origin;
    secmo::bridge::FrameClock clock;
    SecmoTransform pose[kBones], out[kBones];
    double lowest = 0.0;
    for (int f = 0; f < 7 * 60; ++f) {
        const double t = f / 60.0;
        const double height = t < 1.0 ? spawn : (t < 3.0 ? spawn * (3.0 - t) / 2.0 : 0.0);
        const double level[3] = {150.0 * t, 0.0, height};
        SecmoTransform world = identity();
        if (report_first) {
            origin.place(character, level, world.translation);
        } else {
            float shift[3];
            if (origin.relative(level, world.translation, shift) && f > 0) {
                (void)character.shift_world(shift[0], shift[1], shift[2]);
            }
        }
        clock.add(1.0f / 60.0f);
        for (int b = 0; b < kBones; ++b) pose[b] = reference[b];
        secmo::Frame frame;
        frame.pose = secmo::Span<const SecmoTransform>(pose, kBones);
        frame.world = &world;
        clock.take(frame);
        if (!character.update(frame, secmo::Span<SecmoTransform>(out, kBones))) {
            std::printf("update failed: %s\n", secmo_last_error_message());
            return 1e9;
        }
        // The tail joints' component positions: FK down the chain.
        SecmoTransform component[kBones];
        secmo::bridge::to_component(
            secmo::Span<const int32_t>(tail_rig::kParents, kBones),
            secmo::Span<const SecmoTransform>(out, kBones), secmo::Span<SecmoTransform>(component, kBones));
        lowest = 1e9;
        for (int b = 2; b < kBones; ++b) {
            const double z = height + component[b].translation[2];
            if (z < lowest) lowest = z;
        }
    }
    return lowest;
}

// The tail tip's mean angle from its rest (degrees) over 4 s of a body
// swaying ±40 cm sideways at 1 Hz, updated at `fps`.
float lag(const secmo::Rig& rig, const SecmoTransform* reference, int fps) {
    secmo::Character character = secmo::Character::create(rig).take();
    secmo::bridge::SimulationOrigin origin;
    secmo::bridge::FrameClock clock;
    SecmoTransform pose[kBones], out[kBones];
    double sum = 0.0;
    int count = 0;
    const int frames = 4 * fps;
    for (int f = 0; f < frames; ++f) {
        const double t = double(f) / fps;
        const double level[3] = {0.0, 40.0 * std::sin(2.0 * 3.14159265358979 * t), 0.0};
        SecmoTransform world = identity();
        origin.place(character, level, world.translation);
        clock.add(1.0f / float(fps));
        for (int b = 0; b < kBones; ++b) pose[b] = reference[b];
        secmo::Frame frame;
        frame.pose = secmo::Span<const SecmoTransform>(pose, kBones);
        frame.world = &world;
        clock.take(frame);
        if (!character.update(frame, secmo::Span<SecmoTransform>(out, kBones))) {
            std::printf("update failed: %s\n", secmo_last_error_message());
            return -1.0f;
        }
        if (t >= 1.0) {
            sum += tail_rig::angle_between(out[2].rotation, reference[2].rotation) * 180.0 / 3.14159265358979;
            ++count;
        }
    }
    return float(sum / count);
}
}  // namespace

int main() {
    SecmoTransform bones[kBones];
    secmo::Rig rig = make_rig(bones);
    const double ground = tail_floor(rig, bones, 0.0, true);
    const double platform = tail_floor(rig, bones, 300.0, true);
    const double unreported = tail_floor(rig, bones, 300.0, false);
    // A frame as long as 0.125 s is simulated, not a teleport.
    secmo::bridge::FrameClock clock;
    clock.add(0.125f);
    secmo::Frame frame;
    clock.take(frame);
    const bool long_frame = frame.dt == 0.125f && (frame.flags & SECMO_FRAME_TELEPORT) == 0;
    const float lag60 = lag(rig, bones, 60), lag8 = lag(rig, bones, 8);
    std::printf("tail's lowest joint after the walk: spawned on the ground %.2f cm, on a 3 m platform %.2f cm, "
                "platform without the first origin reported %.2f cm; tail lag at 60 fps %.2f deg, at 8 fps %.2f deg\n",
                ground, platform, unreported, lag60, lag8);
    const bool ok = std::fabs(platform - ground) <= 1.0 && std::fabs(unreported - ground) > 10.0 && long_frame &&
                    lag60 > 1.0f && lag8 >= 0.5f * lag60;
    std::printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
