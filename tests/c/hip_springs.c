/*
 * Two hip springs through the C ABI: 300 updates at mixed rates, printed as
 * hex bits so tests/c_program.rs can compare them with the Rust API bit for
 * bit. Also exercises snapshot/restore, error codes and the live-object count.
 * Built with: cc -std=c99 -Wall -Wextra -Werror -pedantic
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secmo.h"
#include "test_util.h"

#define BONES 4
#define FRAMES 300

/* The same procedural pelvis motion as the Rust side: plain + and * only. */
static void make_pose(const SecmoTransform *reference, int frame, SecmoTransform *pose) {
    int phase = frame % 20;
    int tri = phase < 10 ? phase : 20 - phase;
    memcpy(pose, reference, sizeof(SecmoTransform) * BONES);
    pose[1].translation[0] = 0.25f * (float)(frame % 7);
    pose[1].translation[1] = 100.0f + 0.8f * (float)tri;
    pose[1].translation[2] = 1.5f * (float)frame;
    pose[1].rotation[1] = 0.02f * (float)tri;
    pose[1].rotation[3] = 1.0f - 0.0002f * (float)tri;
}

static float frame_dt(int frame) {
    if (frame < 100) return 1.0f / 30.0f;
    if (frame < 200) return 1.0f / 60.0f;
    return (frame % 2) ? 1.0f / 45.0f : 1.0f / 90.0f;
}

static int run(SecmoCharacter *c, const SecmoTransform *reference, int from, int to, int print,
               SecmoTransform *last) {
    SecmoTransform pose[BONES], out[BONES];
    SecmoFrameInput in;
    SecmoUpdateInfo info;
    int f, b;
    for (f = from; f < to; ++f) {
        make_pose(reference, f, pose);
        memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        in.dt = frame_dt(f);
        in.pose = pose;
        in.pose_len = BONES;
        info.struct_size = sizeof info;
        if (check(secmo_character_update(c, &in, out, BONES, &info), SECMO_OK, "update")) return 1;
        if (print) {
            printf("%d %u", f, (unsigned)info.max_substeps);
            for (b = 2; b < BONES; ++b)
                printf(" %08x %08x %08x", bits(out[b].translation[0]), bits(out[b].translation[1]),
                       bits(out[b].translation[2]));
            printf("\n");
        }
    }
    memcpy(last, out, sizeof out);
    return 0;
}

int main(void) {
    const int32_t parents[BONES] = {-1, 0, 1, 1};
    const char *names[BONES] = {"root", "pelvis", "hip_helper_l", "hip_helper_r"};
    SecmoTransform reference[BONES];
    SecmoSpringDesc springs[2];
    SecmoRigDesc desc;
    SecmoRig *rig = NULL;
    SecmoCharacter *c = NULL, *copy = NULL;
    SecmoTransform last_a[BONES], last_b[BONES], pose[BONES], out[BONES];
    SecmoFrameInput in;
    unsigned char *snapshot;
    size_t snapshot_size = 0, written = 0, count = 0;
    SecmoSpringRecord records[2];
    int b;

    if (secmo_abi_version() != SECMO_ABI_VERSION) return 2;
    for (b = 0; b < BONES; ++b) {
        memset(&reference[b], 0, sizeof reference[b]);
        reference[b].rotation[3] = 1.0f;
        reference[b].scale[0] = reference[b].scale[1] = reference[b].scale[2] = 1.0f;
    }
    reference[1].translation[1] = 100.0f;
    reference[2].translation[0] = 10.0f;
    reference[2].translation[1] = -5.0f;
    reference[3].translation[0] = -10.0f;
    reference[3].translation[1] = -5.0f;

    if (check(secmo_spring_desc_hip(2, 100.0f, &springs[0]), SECMO_OK, "hip preset")) return 1;
    if (check(secmo_spring_desc_hip(3, 100.0f, &springs[1]), SECMO_OK, "hip preset")) return 1;

    rig_desc_init(&desc, BONES, parents, reference, 100.0f);
    desc.bone_names = names;
    desc.springs = springs;
    desc.spring_count = 2;

    /* A broken parent array is refused with a message naming the bone. */
    {
        const int32_t bad_parents[BONES] = {-1, 0, 7, 1};
        desc.parents = bad_parents;
        if (check(secmo_rig_create(&desc, &rig), SECMO_ERROR_INVALID_RIG, "bad parents")) return 1;
        if (!strstr(secmo_last_error_message(), "bone 2")) return 3;
        desc.parents = parents;
    }
    if (check(secmo_rig_create(&desc, &rig), SECMO_OK, "rig")) return 1;
    if (check(secmo_character_create(rig, NULL, &c), SECMO_OK, "character")) return 1;
    if (check(secmo_character_create(rig, NULL, &copy), SECMO_OK, "character")) return 1;
    secmo_rig_destroy(rig); /* characters keep the rig alive */
    if (secmo_live_object_count() != 2) return 4;

    if (run(c, reference, 0, 150, 1, last_a)) return 1;
    if (check(secmo_character_snapshot_size(c, &snapshot_size), SECMO_OK, "snapshot size")) return 1;
    snapshot = (unsigned char *)malloc(snapshot_size);
    if (!snapshot) return 5;
    if (check(secmo_character_snapshot(c, snapshot, snapshot_size, &written), SECMO_OK, "snapshot"))
        return 1;
    if (run(c, reference, 150, FRAMES, 1, last_a)) return 1;

    /* Restore into the other character and replay: identical bits. */
    if (check(secmo_character_restore(copy, snapshot, written), SECMO_OK, "restore")) return 1;
    if (run(copy, reference, 150, FRAMES, 0, last_b)) return 1;
    if (memcmp(last_a, last_b, sizeof last_a) != 0) {
        fprintf(stderr, "restored run differs\n");
        return 6;
    }
    if (check(secmo_character_spring_records(c, records, 2, &count), SECMO_OK, "records")) return 1;
    printf("records %u %u %08x %08x\n", (unsigned)count, (unsigned)records[0].substeps,
           bits(records[0].remaining_before), bits(records[0].remaining_after));

    /* Bad input: specific codes, state untouched. */
    make_pose(reference, FRAMES, pose);
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    in.dt = 1.0f / 60.0f;
    in.pose = pose;
    in.pose_len = BONES;
    if (check(secmo_character_update(NULL, &in, out, BONES, NULL), SECMO_ERROR_NULL_POINTER, "null"))
        return 1;
    if (check(secmo_character_update(c, NULL, out, BONES, NULL), SECMO_ERROR_NULL_POINTER, "null in"))
        return 1;
    if (check(secmo_character_update(c, &in, out, BONES - 1, NULL), SECMO_ERROR_BUFFER_LENGTH, "len"))
        return 1;
    in.dt = -1.0f;
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_ERROR_INVALID_DT, "dt")) return 1;
    in.dt = 1e30f;
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_ERROR_INVALID_DT, "dt")) return 1;
    in.dt = 1.0f / 60.0f;
    pose[2].rotation[0] = (float)strtod("nan", NULL);
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_ERROR_NON_FINITE_POSE, "nan"))
        return 1;
    if (!strstr(secmo_last_error_message(), "bone 2")) return 7;
    in.struct_size = 4096;
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_ERROR_STRUCT_SIZE, "size"))
        return 1;
    /* After all that, the state equals the restored copy's: one more frame matches. */
    make_pose(reference, FRAMES, pose);
    in.struct_size = sizeof in;
    if (check(secmo_character_update(c, &in, out, BONES, NULL), SECMO_OK, "update a")) return 1;
    if (check(secmo_character_update(copy, &in, last_b, BONES, NULL), SECMO_OK, "update b")) return 1;
    if (memcmp(out, last_b, sizeof out) != 0) return 8;

    free(snapshot);
    secmo_character_destroy(c);
    secmo_character_destroy(copy);
    if (secmo_live_object_count() != 0) return 9;
    printf("ok\n");
    return 0;
}
