// Issue #16 item 2: a steady walk 10 km (and 20 km) from the level's origin
// moves a tail like the same walk at the origin, to within 0.01°, when the
// world transform reaches secmo through secmo::bridge::SimulationOrigin, as
// the Unreal node passes it. Unreal's convention: centimetres, Z up. Passing
// the 10 km position as float directly (the node before) is measured too:
// it strayed 0.49° while secmo kept its chain state in world coordinates;
// now that the state is kept relative to the chains' own simulation origin,
// it must stay within 0.01° as well. With a 3 m origin step the 15 m walk
// crosses five steps; shifting secmo's state with each (shift_world) keeps
// it within 0.01° too, and the run without the shift (a teleport by the
// step) must stray, so the comparison can tell a wrong run apart.
#include <cmath>
#include <cstdio>

#include "secmo.hpp"
#include "tail_rig.h"

namespace {
using tail_rig::angle_between;
using tail_rig::identity;
using tail_rig::kBones;
constexpr float kPi = 3.14159265358979f;

constexpr int kFrames = 600;  // 10 s at 60 Hz

// Tail joint local rotations of every frame of the walk starting at `start`
// (level space, double). With `origin`, the world transform goes through a
// SimulationOrigin; without, the level position is cast to float.
enum class Pass { Float, Origin, SmallSteps, SmallStepsUnshifted };

void walk(const secmo::Rig& rig, const SecmoTransform* reference, const double start[3], Pass pass,
          float (*out)[4][4]) {
    secmo::Character character = secmo::Character::create(rig).take();
    const bool small = pass == Pass::SmallSteps || pass == Pass::SmallStepsUnshifted;
    secmo::bridge::SimulationOrigin simulation_origin(small ? 300.0 : 100000.0);
    int steps = 0;
    SecmoTransform pose[kBones];
    SecmoTransform result[kBones];
    for (int f = 0; f < kFrames; ++f) {
        const double t = f / 60.0;
        // 1.5 m/s along X, swaying ±20° of yaw at 0.5 Hz, bobbing ±3 cm at 2 Hz.
        const double level[3] = {start[0] + 150.0 * t, start[1] + 20.0 * std::sin(1.3 * t),
                                 start[2] + 3.0 * std::sin(4.0 * kPi * t)};
        SecmoTransform world = identity();
        if (pass == Pass::Float) {
            for (int i = 0; i < 3; ++i) world.translation[i] = static_cast<float>(level[i]);
        } else {
            float shift[3];
            if (simulation_origin.relative(level, world.translation, shift)) {
                ++steps;
                if (pass != Pass::SmallStepsUnshifted && !character.shift_world(shift[0], shift[1], shift[2])) {
                    std::printf("shift failed: %s\n", secmo_last_error_message());
                }
            }
        }
        const float yaw = 0.35f * std::sin(kPi * static_cast<float>(t));
        world.rotation[2] = std::sin(0.5f * yaw);
        world.rotation[3] = std::cos(0.5f * yaw);
        for (int b = 0; b < kBones; ++b) pose[b] = reference[b];
        secmo::Frame frame;
        frame.dt = 1.0f / 60.0f;
        frame.pose = secmo::Span<const SecmoTransform>(pose, kBones);
        frame.world = &world;
        if (!character.update(frame, secmo::Span<SecmoTransform>(result, kBones))) {
            std::printf("update failed: %s\n", secmo_last_error_message());
            return;
        }
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) out[f][j][k] = result[2 + j].rotation[k];
    }
    if (small && steps < 4) std::printf("only %d origin steps\n", steps);
}

float worst(float (*a)[4][4], float (*b)[4][4]) {
    float w = 0.0f;
    for (int f = 0; f < kFrames; ++f)
        for (int j = 0; j < 4; ++j) {
            const float d = angle_between(a[f][j], b[f][j]);
            if (d > w) w = d;
        }
    return w;
}

float home[kFrames][4][4], far10[kFrames][4][4], far20[kFrames][4][4], raw10[kFrames][4][4], stepped[kFrames][4][4],
    jumped[kFrames][4][4];
}  // namespace

int main() {
    SecmoTransform bones[kBones];
    for (auto& b : bones) b = identity();
    bones[1].translation[2] = 100.0f;  // pelvis 1 m up
    bones[2].translation[0] = -10.0f;  // the tail hangs back (−X) and down
    bones[2].translation[2] = -5.0f;
    for (int b = 3; b < kBones; ++b) {
        bones[b].translation[0] = -15.0f;
        bones[b].translation[2] = -5.0f;
    }
    secmo::Rig rig = tail_rig::make(bones, 100.0f, SECMO_UP_AXIS_Z);
    const double at_origin[3] = {0.0, 0.0, 0.0};
    const double at_10km[3] = {1.0e6, 0.0, 0.0};
    const double at_20km[3] = {1.5e6, -1.3e6, 0.0};
    walk(rig, bones, at_origin, Pass::Origin, home);
    walk(rig, bones, at_10km, Pass::Origin, far10);
    walk(rig, bones, at_20km, Pass::Origin, far20);
    walk(rig, bones, at_10km, Pass::Float, raw10);
    walk(rig, bones, at_10km, Pass::SmallSteps, stepped);
    walk(rig, bones, at_10km, Pass::SmallStepsUnshifted, jumped);
    const float deg = 180.0f / kPi;
    const float w10 = worst(home, far10) * deg, w20 = worst(home, far20) * deg, raw = worst(home, raw10) * deg;
    const float ws = worst(home, stepped) * deg, wj = worst(home, jumped) * deg;
    // How much the tail swings at all over the walk, for scale.
    float swing = 0.0f;
    for (int f = 0; f < kFrames; ++f) {
        const float d = angle_between(home[f][3], bones[5].rotation) * deg;
        if (d > swing) swing = d;
    }
    std::printf("tail swing over the walk %.2f deg; 10 km through the origin %.5f deg, 20 km %.5f deg; "
                "10 km as float %.3f deg; 3 m origin steps with shift_world %.5f deg, without %.3f deg\n",
                swing, w10, w20, raw, ws, wj);
    const bool ok = swing > 1.0f && w10 <= 0.01f && w20 <= 0.01f && raw <= 0.01f && ws <= 0.01f && wj > 0.01f;
    std::printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
