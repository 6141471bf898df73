/*
 * The whole helper-bone pipeline through the C ABI (docs/algorithms.md §4–§6): rotation
 * constraints, hip and chest springs, BtoB correctives built with
 * secmo_corrective_desc_btob, a stage toggle, and stage records. Prints hex
 * bits per frame so tests/c_program.rs can compare them with the Rust API.
 * Built with: cc -std=c99 -Wall -Wextra -Werror -pedantic
 */
#include <stdio.h>
#include <string.h>

#include "secmo.h"
#include "test_util.h"

#define BONES 16
#define FRAMES 150
#define PROBES 14

/* Folded-arm rotations (upper arm, forearm; left then right). */
static const float FOLD[4][4] = {
    {-2.446258813e-1f, -3.697158769e-2f, -1.447924674e-1f, 9.580326080e-1f},
    {-2.832671106e-1f, 0.0f, -5.895866752e-1f, 7.564042211e-1f},
    {-2.446258813e-1f, 3.697158769e-2f, 1.447924674e-1f, 9.580326080e-1f},
    {-2.832671106e-1f, 0.0f, 5.895866752e-1f, 7.564042211e-1f},
};
static const int ARM_BONES[4] = {10, 11, 13, 14};

static void make_pose(const SecmoTransform *reference, int frame, SecmoTransform *pose) {
    int phase = frame % 20, k;
    int tri = phase < 10 ? phase : 20 - phase;
    float fold = frame < 30 ? 0.0f : (float)(frame - 30) / 40.0f;
    if (fold > 1.0f) fold = 1.0f;
    memcpy(pose, reference, sizeof(SecmoTransform) * BONES);
    pose[1].translation[0] = 0.25f * (float)(frame % 7);
    pose[1].translation[1] = 100.0f + 0.5f * (float)tri;
    pose[6].rotation[0] = 0.01f * (float)tri;
    pose[7].rotation[0] = -0.01f * (float)tri;
    for (k = 0; k < 4; ++k) {
        float *q = pose[ARM_BONES[k]].rotation;
        q[0] = fold * FOLD[k][0];
        q[1] = fold * FOLD[k][1];
        q[2] = fold * FOLD[k][2];
        q[3] = (1.0f - fold) + fold * FOLD[k][3];
    }
}

int main(void) {
    const int32_t parents[BONES] = {-1, 0, 1, 2, 1, 1, 3, 3, 3, 3, 3, 10, 11, 3, 13, 14};
    SecmoTransform reference[BONES], pose[BONES], out[BONES];
    SecmoTransform rec_source[BONES], rec_constrained[BONES], rec_post_spring[BONES];
    SecmoTransform rec_post_corrective[BONES], rec_final[BONES];
    SecmoSpringRecord rec_springs[4];
    SecmoCorrectiveRecord rec_correctives[2];
    float rec_distances[PROBES];
    SecmoSpringDesc springs[4];
    SecmoRotationConstraintDesc constraints[2];
    SecmoProbeDesc probes_l[7], probes_r[7], too_few[3];
    SecmoCorrectiveDesc correctives[2];
    SecmoBtobBones arms_l, arms_r;
    SecmoRigDesc desc;
    SecmoStageRecords records;
    SecmoFrameInput in;
    SecmoUpdateInfo info;
    SecmoRig *rig = NULL;
    SecmoCharacter *c = NULL;
    int f, b, j;

    set_t(&reference[0], 0.0f, 0.0f, 0.0f);
    set_t(&reference[1], 0.0f, 100.0f, 0.0f);
    set_t(&reference[2], 0.0f, 15.0f, 0.0f);
    set_t(&reference[3], 0.0f, 25.0f, 0.0f);
    set_t(&reference[4], 10.0f, -6.0f, 6.0f);
    set_t(&reference[5], -10.0f, -6.0f, 6.0f);
    set_t(&reference[6], 8.0f, 4.0f, 12.0f);
    set_t(&reference[7], -8.0f, 4.0f, 12.0f);
    set_t(&reference[8], 8.0f, 4.0f, 11.0f);
    set_t(&reference[9], -8.0f, 4.0f, 11.0f);
    for (b = 8; b <= 9; ++b) {
        reference[b].rotation[1] = b == 8 ? 1.494381428e-1f : -1.494381428e-1f;
        reference[b].rotation[3] = 9.887710810e-1f;
        reference[b].scale[1] = 1.1f;
        reference[b].scale[2] = 0.9f;
    }
    set_t(&reference[10], 18.0f, 20.0f, 0.0f);
    set_t(&reference[11], 0.0f, -28.0f, 0.0f);
    set_t(&reference[12], 0.0f, -25.0f, 0.0f);
    set_t(&reference[13], -18.0f, 20.0f, 0.0f);
    set_t(&reference[14], 0.0f, -28.0f, 0.0f);
    set_t(&reference[15], 0.0f, -25.0f, 0.0f);

    if (check(secmo_spring_desc_hip(4, 100.0f, &springs[0]), SECMO_OK, "hip")) return 1;
    if (check(secmo_spring_desc_hip(5, 100.0f, &springs[1]), SECMO_OK, "hip")) return 1;
    if (check(secmo_spring_desc_chest(8, 100.0f, &springs[2]), SECMO_OK, "chest")) return 1;
    if (check(secmo_spring_desc_chest(9, 100.0f, &springs[3]), SECMO_OK, "chest")) return 1;
    for (j = 0; j < 2; ++j) {
        constraints[j].struct_size = sizeof constraints[j];
        constraints[j].bone = (uint32_t)(8 + j);
        constraints[j].target = (uint32_t)(6 + j);
    }
    arms_l.chest = 8;
    arms_l.other_chest = 9;
    arms_l.upper_arm_l = 10;
    arms_l.forearm_l = 11;
    arms_l.hand_l = 12;
    arms_l.upper_arm_r = 13;
    arms_l.forearm_r = 14;
    arms_l.hand_r = 15;
    arms_r = arms_l;
    arms_r.chest = 9;
    arms_r.other_chest = 8;
    if (check(secmo_corrective_desc_btob(&arms_l, SECMO_SIDE_LEFT, -1.0f, 16.0f, 100.0f, too_few, 3,
                                         &correctives[0]),
              SECMO_ERROR_BUFFER_LENGTH, "btob too few"))
        return 1;
    if (check(secmo_corrective_desc_btob(&arms_l, SECMO_SIDE_LEFT, -1.0f, 16.0f, 100.0f, probes_l, 7,
                                         &correctives[0]),
              SECMO_OK, "btob left"))
        return 1;
    if (check(secmo_corrective_desc_btob(&arms_r, SECMO_SIDE_RIGHT, 1.0f, 16.0f, 100.0f, probes_r, 7,
                                         &correctives[1]),
              SECMO_OK, "btob right"))
        return 1;

    rig_desc_init(&desc, BONES, parents, reference, 100.0f);
    desc.springs = springs;
    desc.spring_count = 4;
    desc.constraints = constraints;
    desc.constraint_count = 2;
    desc.correctives = correctives;
    desc.corrective_count = 2;

    /* A constraint on a bone that follows itself is refused with a message. */
    constraints[1].target = 9;
    if (check(secmo_rig_create(&desc, &rig), SECMO_ERROR_INVALID_RIG, "self constraint")) return 1;
    if (!strstr(secmo_last_error_message(), "constraint 1")) return 3;
    constraints[1].target = 7;

    if (check(secmo_rig_create(&desc, &rig), SECMO_OK, "rig")) return 1;
    if (check(secmo_character_create(rig, NULL, &c), SECMO_OK, "character")) return 1;
    secmo_rig_destroy(rig);

    memset(&records, 0, sizeof records);
    records.struct_size = sizeof records;
    records.bone_count = BONES;
    records.source = rec_source;
    records.constrained = rec_constrained;
    records.post_spring = rec_post_spring;
    records.post_corrective = rec_post_corrective;
    records.final_pose = rec_final;
    records.springs = rec_springs;
    records.spring_count = 4;
    records.correctives = rec_correctives;
    records.corrective_count = 2;
    records.probe_distances = rec_distances;
    records.probe_distance_count = PROBES;

    for (f = 0; f < FRAMES; ++f) {
        make_pose(reference, f, pose);
        memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        in.dt = f < 100 ? 1.0f / 60.0f : 1.0f / 30.0f;
        in.pose = pose;
        in.pose_len = BONES;
        info.struct_size = sizeof info;
        if (f == 60 && check(secmo_character_set_stage_enabled(c, SECMO_STAGE_SPRINGS, 0), SECMO_OK, "off"))
            return 1;
        if (f == 80 && check(secmo_character_set_stage_enabled(c, SECMO_STAGE_SPRINGS, 1), SECMO_OK, "on"))
            return 1;
        if (check(secmo_character_update_recorded(c, &in, out, BONES, &info, &records), SECMO_OK, "update"))
            return 1;
        /* The records agree with the output and the input. */
        if (memcmp(rec_final, out, sizeof out) != 0) return 4;
        if (memcmp(rec_post_corrective, out, sizeof out) != 0) return 5;
        if (memcmp(rec_source, pose, sizeof pose) != 0) return 6;
        if (f >= 60 && f < 80 && memcmp(rec_post_spring, rec_constrained, sizeof out) != 0) return 7;
        printf("%d %u %u", f, (unsigned)info.max_substeps, (unsigned)info.warnings);
        for (b = 8; b <= 9; ++b)
            printf(" %08x %08x %08x %08x %08x", bits(out[b].translation[0]), bits(out[b].translation[1]),
                   bits(out[b].translation[2]), bits(out[b].scale[0]), bits(out[b].rotation[0]));
        for (j = 0; j < 2; ++j)
            printf(" %08x %08x %08x", bits(rec_correctives[j].state_translation[0]),
                   bits(rec_correctives[j].state_scale[0]), bits(rec_correctives[j].weight));
        for (j = 0; j < PROBES; ++j) printf(" %08x", bits(rec_distances[j]));
        printf("\n");
    }

    /* A record buffer of the wrong size: refused, nothing written, state kept. */
    records.probe_distance_count = PROBES - 1;
    in.dt = 1.0f / 60.0f;
    if (check(secmo_character_update_recorded(c, &in, out, BONES, &info, &records),
              SECMO_ERROR_BUFFER_LENGTH, "short records"))
        return 1;
    if (!strstr(secmo_last_error_message(), "records.probe_distances")) return 8;
    if (check(secmo_character_set_stage_enabled(c, 9, 1), SECMO_ERROR_INVALID_ARGUMENT, "bad stage"))
        return 1;

    secmo_character_destroy(c);
    if (secmo_live_object_count() != 0) return 9;
    printf("ok\n");
    return 0;
}
