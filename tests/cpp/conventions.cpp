// The same tail simulated in Unity's convention (m, Y-up) and in Unreal's
// (cm, Z-up) gives the same motion once converted back, to f32 noise. Also
// checks the bridge helpers an engine node uses.
#include <cmath>
#include <cstdio>

#include "secmo.hpp"
#include "tail_rig.h"

using tail_rig::angle_between;
using tail_rig::identity;
using tail_rig::kBones;
static secmo::Rig make_rig(const SecmoTransform* bones, float units_per_meter, uint32_t up_axis) {
    return tail_rig::make(bones, units_per_meter, up_axis);
}

int main() {
    // Unity: hips 1 m up, the tail hanging back (−Z) and down.
    SecmoTransform unity[kBones];
    for (auto& b : unity) b = identity();
    unity[1].translation[1] = 1.0f;
    unity[2].translation[1] = -0.05f;
    unity[2].translation[2] = -0.1f;
    for (int b = 3; b < kBones; ++b) {
        unity[b].translation[1] = -0.05f;
        unity[b].translation[2] = -0.15f;
    }
    SecmoTransform unreal[kBones];
    secmo::convention::unity_to_unreal(unity, unreal);

    secmo::Rig rig_u = make_rig(unity, 1.0f, SECMO_UP_AXIS_Y);
    secmo::Rig rig_e = make_rig(unreal, 100.0f, SECMO_UP_AXIS_Z);
    if (!rig_u || !rig_e) return 2;
    secmo::Character cu = secmo::Character::create(rig_u).take();
    secmo::Character ce = secmo::Character::create(rig_e).take();

    float worst_angle = 0.0f, worst_tip = 0.0f, moved = 0.0f;
    static const int32_t parents[kBones] = {-1, 0, 1, 2, 3, 4};
    SecmoTransform pose_u[kBones], pose_e[kBones], out_u[kBones], out_e[kBones], back[kBones];
    SecmoTransform comp_u[kBones], comp_back[kBones];
    for (int f = 0; f < 240; ++f) {
        const float t = static_cast<float>(f) / 60.0f;
        const float yaw = 0.8f * std::sin(4.0f * t);
        for (int b = 0; b < kBones; ++b) pose_u[b] = unity[b];
        pose_u[1].rotation[1] = std::sin(0.5f * yaw);  // about Unity's up (Y)
        pose_u[1].rotation[3] = std::cos(0.5f * yaw);
        pose_u[1].translation[0] = 0.2f * std::sin(3.0f * t);
        secmo::convention::unity_to_unreal(pose_u, pose_e);
        if (!cu.update(1.0f / 60.0f, pose_u, out_u) || !ce.update(1.0f / 60.0f, pose_e, out_e)) return 3;
        secmo::convention::unreal_to_unity(out_e, back);
        for (int b = 2; b < kBones; ++b) {
            const float a = angle_between(out_u[b].rotation, back[b].rotation);
            if (a > worst_angle) worst_angle = a;
            const float m = angle_between(out_u[b].rotation, unity[b].rotation);
            if (m > moved) moved = m;
        }
        secmo::bridge::to_component(parents, out_u, comp_u);
        secmo::bridge::to_component(parents, back, comp_back);
        for (int i = 0; i < 3; ++i) {
            const float d = std::fabs(comp_u[kBones - 1].translation[i] - comp_back[kBones - 1].translation[i]);
            if (d > worst_tip) worst_tip = d;
        }
    }
    std::printf("cm/Z-up vs m/Y-up: worst joint rotation %.3e rad, worst tip %.3e m, motion %.3f rad\n",
                worst_angle, worst_tip, moved);
    if (moved < 0.05f) return 4;  // the tail did move
    if (worst_angle > 1e-4f || worst_tip > 2e-5f) return 5;

    // Bridge: component → local → component round trip, and subset parents.
    SecmoTransform local[kBones], comp_again[kBones];
    secmo::bridge::to_local(parents, comp_u, local);
    secmo::bridge::to_component(parents, local, comp_again);
    for (int b = 0; b < kBones; ++b)
        for (int i = 0; i < 3; ++i)
            if (std::fabs(comp_again[b].translation[i] - comp_u[b].translation[i]) > 1e-5f) return 6;
    const int32_t full_parents[7] = {-1, 0, 1, 1, 3, 0, 5};
    const int32_t used[4] = {0, 1, 4, 6};
    int32_t subset[4];
    if (!secmo::bridge::subset_parents(full_parents, used, subset)) return 7;
    if (subset[0] != -1 || subset[1] != 0 || subset[2] != 1 || subset[3] != 0) return 8;
    const int32_t unsorted[2] = {4, 1};
    if (secmo::bridge::subset_parents(full_parents, unsorted, subset)) return 9;

    // Points and directions convert the same way as transforms.
    const secmo::math::Vec3 p = secmo::convention::unity_to_unreal(secmo::math::Vec3{1.0f, 2.0f, 3.0f});
    if (p.x != 300.0f || p.y != 100.0f || p.z != 200.0f) return 10;
    std::printf("ok\n");
    return 0;
}
