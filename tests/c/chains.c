/*
 * Tail and hair chains through the C ABI (docs/algorithms.md §7, §8): descriptors for
 * chains and colliders, presets, a moving world transform, a teleport, wind
 * and debug draw. Prints hex bits so tests/c_program.rs can compare them with
 * the Rust API. Built with: cc -std=c99 -Wall -Wextra -Werror -pedantic
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secmo.h"
#include "test_util.h"

#define BONES 13
#define FRAMES 240

static void make_pose(const SecmoTransform *reference, int frame, SecmoTransform *pose) {
    int a = frame % 40, b = frame % 26;
    int tri = a < 20 ? a : 40 - a;
    int tri2 = b < 13 ? b : 26 - b;
    memcpy(pose, reference, sizeof(SecmoTransform) * BONES);
    pose[1].rotation[1] = 0.04f * (float)(tri - 10);
    pose[2].rotation[0] = 0.03f * (float)(tri2 - 6);
}

int main(void) {
    const int32_t parents[BONES] = {-1, 0, 1, 1, 3, 4, 5, 2, 7, 8, 9, 10, 11};
    const uint32_t tail_joints[4] = {3, 4, 5, 6};
    const uint32_t hair_joints[6] = {7, 8, 9, 10, 11, 12};
    const uint32_t hair_colliders[3] = {0, 1, 2};
    SecmoTransform reference[BONES], pose[BONES], out[BONES];
    SecmoColliderDesc colliders[3];
    SecmoChainDesc chains[2];
    SecmoChainParams hair, check_params;
    SecmoRigDesc desc;
    SecmoFrameInput in;
    SecmoRig *rig = NULL, *rig2 = NULL;
    SecmoCharacter *c = NULL, *c2 = NULL;
    const char *names[BONES] = {"root",  "hips",  "head",  "tail0", "tail1", "tail2", "tail3",
                                "hair0", "hair1", "hair2", "hair3", "hair4", "hair5"};
    static char settings[16384];
    size_t settings_len = 0;
    SecmoTransform final_pose[BONES];
    SecmoDebugLine lines[64];
    SecmoDebugSphere spheres[64];
    size_t nl = 0, ns = 0, cap_l = 0, cap_s = 0;
    const float wind[3] = {0.5f, 0.0f, 0.0f};
    int f, b, k;

    set_t(&reference[0], 0.0f, 0.0f, 0.0f);
    set_t(&reference[1], 0.0f, 1.0f, 0.0f);  /* hips */
    set_t(&reference[2], 0.0f, 0.6f, 0.0f);  /* head */
    set_t(&reference[3], 0.0f, -0.05f, -0.1f);
    for (b = 4; b <= 6; ++b) set_t(&reference[b], 0.0f, -0.05f, -0.15f);
    set_t(&reference[7], 0.03f, 0.05f, -0.09f);
    for (b = 8; b <= 12; ++b) set_t(&reference[b], 0.0f, -0.048f, -0.014f);

    memset(colliders, 0, sizeof colliders);
    for (k = 0; k < 3; ++k) colliders[k].struct_size = sizeof colliders[k];
    colliders[0].shape = SECMO_COLLIDER_SPHERE; /* head */
    colliders[0].bone = 2;
    colliders[0].radius = 0.09f;
    colliders[1].shape = SECMO_COLLIDER_SPHERE; /* chest */
    colliders[1].bone = 1;
    colliders[1].a[1] = 0.35f;
    colliders[1].a[2] = 0.05f;
    colliders[1].radius = 0.12f;
    colliders[2].shape = SECMO_COLLIDER_CAPSULE; /* back */
    colliders[2].bone = 1;
    colliders[2].a[1] = 0.1f;
    colliders[2].a[2] = -0.12f;
    colliders[2].b[1] = 0.5f;
    colliders[2].b[2] = -0.12f;
    colliders[2].radius = 0.05f;

    if (check(secmo_chain_params_hair(1.0f, &hair), SECMO_OK, "hair preset")) return 1;
    hair.gravity = 2.0f;
    memset(chains, 0, sizeof chains);
    chains[0].struct_size = sizeof chains[0];
    chains[0].anchor = 1;
    chains[0].joints = tail_joints;
    chains[0].joint_count = 4;
    chains[0].preset = SECMO_CHAIN_TAIL; /* params NULL: the tail preset */
    chains[1].struct_size = sizeof chains[1];
    chains[1].anchor = 2;
    chains[1].joints = hair_joints;
    chains[1].joint_count = 6;
    chains[1].params = &hair;
    chains[1].colliders = hair_colliders;
    chains[1].collider_count = 3;

    rig_desc_init(&desc, BONES, parents, reference, 1.0f);
    desc.colliders = colliders;
    desc.collider_count = 3;
    desc.chains = chains;
    desc.chain_count = 2;
    desc.bone_names = names;

    /* Broken setups are refused with messages that name the entry. */
    colliders[1].shape = 42;
    if (check(secmo_rig_create(&desc, &rig), SECMO_ERROR_INVALID_ARGUMENT, "bad shape")) return 1;
    colliders[1].shape = SECMO_COLLIDER_SPHERE;
    chains[0].anchor = 5; /* inside the tail */
    if (check(secmo_rig_create(&desc, &rig), SECMO_ERROR_INVALID_RIG, "anchor in chain")) return 1;
    if (!strstr(secmo_last_error_message(), "chain 0")) return 3;
    chains[0].anchor = 1;

    if (check(secmo_rig_create(&desc, &rig), SECMO_OK, "rig")) return 1;
    if (check(secmo_character_create(rig, NULL, &c), SECMO_OK, "character")) return 1;

    /* The rig's setup as a settings text: size first, then fill. */
    if (check(secmo_rig_write_settings(rig, NULL, 0, &settings_len), SECMO_ERROR_BUFFER_LENGTH, "size"))
        return 1;
    if (settings_len > sizeof settings) return 6;
    if (check(secmo_rig_write_settings(rig, settings, sizeof settings, &settings_len), SECMO_OK, "write"))
        return 1;
    secmo_rig_destroy(rig);

    /* A second rig: the bare skeleton plus the settings text. */
    {
        SecmoRigDesc skeleton = desc;
        skeleton.colliders = NULL;
        skeleton.collider_count = 0;
        skeleton.chains = NULL;
        skeleton.chain_count = 0;
        if (check(secmo_rig_create_from_settings(&skeleton, settings, settings_len - 1, &rig2), SECMO_OK,
                  "from settings"))
            return 1;
        if (check(secmo_rig_create_from_settings(&skeleton, "{\"format\": 1}", 13, &rig), SECMO_ERROR_SETTINGS,
                  "bad settings"))
            return 1;
        if (check(secmo_character_create(rig2, NULL, &c2), SECMO_OK, "character 2")) return 1;
        secmo_rig_destroy(rig2);
        if (check(secmo_character_set_wind(c2, &wind), SECMO_OK, "wind 2")) return 1;
    }
    if (check(secmo_character_set_wind(c, &wind), SECMO_OK, "wind")) return 1;

    for (f = 0; f < FRAMES; ++f) {
        make_pose(reference, f, pose);
        memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        in.flags = SECMO_FRAME_HAS_WORLD | (f == 150 ? SECMO_FRAME_TELEPORT : 0u);
        in.dt = 1.0f / 60.0f;
        in.pose = pose;
        in.pose_len = BONES;
        set_t(&in.world, 0.01f * (float)f + (f >= 150 ? 100.0f : 0.0f), 0.0f, 0.0f);
        if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_OK, "update")) return 1;
        if (check(secmo_character_update(c2, &in, final_pose, BONES, NULL), SECMO_OK, "update 2")) return 1;
        if (f % 10 == 9) {
            printf("%d", f);
            for (b = 3; b < BONES; ++b)
                printf(" %08x %08x %08x", bits(out[b].rotation[0]), bits(out[b].rotation[1]),
                       bits(out[b].rotation[2]));
            printf("\n");
        }
        if (f == 120) {
            /* Stiffer hair at runtime, without a reset. */
            hair.stiffness = 80.0f;
            if (check(secmo_character_set_chain_params(c, 1, &hair), SECMO_OK, "set params")) return 1;
            if (check(secmo_character_set_chain_params(c2, 1, &hair), SECMO_OK, "set params 2")) return 1;
        }
    }

    if (check(secmo_character_chain_params(c, 1, &check_params), SECMO_OK, "get params")) return 1;
    if (check_params.stiffness != 80.0f) return 4;
    hair.weight = 3.0f;
    if (check(secmo_character_set_chain_params(c, 1, &hair), SECMO_ERROR_INVALID_ARGUMENT, "bad weight"))
        return 1;

    /* A NaN world transform is refused and nothing changes. */
    in.flags = SECMO_FRAME_HAS_WORLD;
    in.world.translation[0] = (float)strtod("nan", NULL);
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_ERROR_INVALID_ARGUMENT, "nan world"))
        return 1;

    if (check(secmo_character_debug_draw_capacity(c, &cap_l, &cap_s), SECMO_OK, "capacity")) return 1;
    if (cap_l > 64 || cap_s > 64) return 5;
    if (check(secmo_character_debug_draw(c, lines, cap_l, &nl, spheres, cap_s, &ns), SECMO_OK, "draw"))
        return 1;
    printf("draw %u %u %08x %08x\n", (unsigned)nl, (unsigned)ns, bits(spheres[0].center[0]),
           bits(spheres[0].radius));

    /* The rig rebuilt from its own settings moved exactly alike. */
    if (memcmp(final_pose, out, sizeof out) != 0) return 7;
    printf("settings %u\n", (unsigned)(settings_len > 100));

    secmo_character_destroy(c);
    secmo_character_destroy(c2);
    if (secmo_live_object_count() != 0) return 9;
    printf("ok\n");
    return 0;
}
