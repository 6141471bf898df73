/* Helpers shared by the C test programs. */
#ifndef SECMO_TEST_UTIL_H
#define SECMO_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "secmo.h"

/* The bits of a float, for bit-exact transcripts. */
static unsigned bits(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* 0 when r == expected; otherwise prints the call, both codes and the message. */
static int check(SecmoResult r, SecmoResult expected, const char *what) {
    if (r != expected) {
        fprintf(stderr, "%s: got %u, expected %u: %s\n", what, (unsigned)r, (unsigned)expected,
                secmo_last_error_message());
        return 1;
    }
    return 0;
}

/* A translation-only transform. */
static inline void set_t(SecmoTransform *t, float x, float y, float z) {
    memset(t, 0, sizeof *t);
    t->translation[0] = x;
    t->translation[1] = y;
    t->translation[2] = z;
    t->rotation[3] = 1.0f;
    t->scale[0] = t->scale[1] = t->scale[2] = 1.0f;
}

/* A Y-up rig descriptor with its size and skeleton set and nothing else. */
static inline void rig_desc_init(SecmoRigDesc *desc, uint32_t bone_count, const int32_t *parents,
                                 const SecmoTransform *reference, float units_per_meter) {
    memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    desc->bone_count = bone_count;
    desc->parents = parents;
    desc->reference_pose = reference;
    desc->units_per_meter = units_per_meter;
    desc->up_axis = SECMO_UP_AXIS_Y;
}

#endif
