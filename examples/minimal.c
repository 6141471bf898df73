/*
 * The smallest C program that uses secmo: a rig with a four-bone tail, one
 * character, two seconds of updates at 60 Hz while the hips sway, then the
 * tail tip's local rotation. Built and run by tests/c_program.rs:
 *
 *   cargo build --release --lib
 *   cc -std=c99 -Iinclude examples/minimal.c target/release/libsecmo.a \
 *      -lpthread -ldl -lm -o minimal && ./minimal
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "secmo.h"

#define BONES 6

static void translation(SecmoTransform *t, float x, float y, float z) {
    memset(t, 0, sizeof *t);
    t->translation[0] = x;
    t->translation[1] = y;
    t->translation[2] = z;
    t->rotation[3] = 1.0f; /* quaternion x, y, z, w */
    t->scale[0] = t->scale[1] = t->scale[2] = 1.0f;
}

int main(void) {
    /* root, hips 1 m up, then a tail of four bones hanging back (metres, Y up). */
    const int32_t parents[BONES] = {-1, 0, 1, 2, 3, 4};
    const uint32_t tail[4] = {2, 3, 4, 5};
    SecmoTransform reference[BONES], pose[BONES], out[BONES];
    SecmoChainDesc chain;
    SecmoRigDesc desc;
    SecmoFrameInput in;
    SecmoRig *rig = NULL;
    SecmoCharacter *character = NULL;
    int frame, b;

    translation(&reference[0], 0.0f, 0.0f, 0.0f);
    translation(&reference[1], 0.0f, 1.0f, 0.0f);
    translation(&reference[2], 0.0f, -0.05f, -0.1f);
    for (b = 3; b < BONES; ++b) translation(&reference[b], 0.0f, -0.05f, -0.15f);

    memset(&chain, 0, sizeof chain);
    chain.struct_size = sizeof chain;
    chain.anchor = 1; /* the hips */
    chain.joints = tail;
    chain.joint_count = 4;
    chain.preset = SECMO_CHAIN_TAIL; /* params NULL: the tail preset */

    memset(&desc, 0, sizeof desc);
    desc.struct_size = sizeof desc;
    desc.bone_count = BONES;
    desc.parents = parents;
    desc.reference_pose = reference;
    desc.units_per_meter = 1.0f;
    desc.up_axis = SECMO_UP_AXIS_Y;
    desc.chains = &chain;
    desc.chain_count = 1;

    /* Once per model: the rig. Once per instance: the character. */
    if (secmo_rig_create(&desc, &rig) != SECMO_OK ||
        secmo_character_create(rig, NULL, &character) != SECMO_OK) {
        fprintf(stderr, "secmo: %s\n", secmo_last_error_message());
        return 1;
    }

    /* Every frame: the animation's local pose in, the final local pose out. */
    for (frame = 0; frame < 120; ++frame) {
        memcpy(pose, reference, sizeof pose);
        pose[1].translation[0] = 0.2f * sinf(6.0f * (float)frame / 60.0f);
        memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        in.dt = 1.0f / 60.0f;
        in.pose = pose;
        in.pose_len = BONES;
        if (secmo_character_update(character, &in, out, BONES, NULL) != SECMO_OK) {
            fprintf(stderr, "secmo: %s\n", secmo_last_error_message());
            return 1;
        }
    }
    printf("tail tip rotation: %.4f %.4f %.4f %.4f\n", out[5].rotation[0], out[5].rotation[1],
           out[5].rotation[2], out[5].rotation[3]);

    secmo_character_destroy(character);
    secmo_rig_destroy(rig);
    return 0;
}
