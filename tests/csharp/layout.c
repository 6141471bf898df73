/* Sizes and field offsets of every struct in secmo.h, as the C compiler lays
 * them out; tests/csharp.rs compares them with Marshal.SizeOf/OffsetOf. */
#include <stddef.h>
#include <stdio.h>

#include "secmo.h"

#define S(T) printf(#T " size %u\n", (unsigned)sizeof(T))
#define F(T, f) printf(#T "." #f " %u\n", (unsigned)offsetof(T, f))

int main(void) {
    S(SecmoTransform);
    S(SecmoSpringDesc); F(SecmoSpringDesc, struct_size); F(SecmoSpringDesc, bone); F(SecmoSpringDesc, stiffness);
    F(SecmoSpringDesc, history_length); F(SecmoSpringDesc, extra_velocity); F(SecmoSpringDesc, alpha);
    S(SecmoRotationConstraintDesc); F(SecmoRotationConstraintDesc, target);
    S(SecmoProbeDesc); F(SecmoProbeDesc, threshold); F(SecmoProbeDesc, same_translation); F(SecmoProbeDesc, opposite_scale);
    S(SecmoCorrectiveDesc); F(SecmoCorrectiveDesc, rate); F(SecmoCorrectiveDesc, probes); F(SecmoCorrectiveDesc, probe_count);
    S(SecmoBtobBones); F(SecmoBtobBones, hand_r);
    S(SecmoColliderDesc); F(SecmoColliderDesc, a); F(SecmoColliderDesc, b); F(SecmoColliderDesc, radius);
    S(SecmoChainParams); F(SecmoChainParams, gravity_direction); F(SecmoChainParams, forward_plane);
    F(SecmoChainParams, floor_height); F(SecmoChainParams, simulation_space); F(SecmoChainParams, inertia);
    S(SecmoChainDesc); F(SecmoChainDesc, joints); F(SecmoChainDesc, preset); F(SecmoChainDesc, params);
    F(SecmoChainDesc, colliders); F(SecmoChainDesc, collider_count); F(SecmoChainDesc, end_offset);
    S(SecmoRigDesc); F(SecmoRigDesc, parents); F(SecmoRigDesc, bone_names); F(SecmoRigDesc, units_per_meter);
    F(SecmoRigDesc, springs); F(SecmoRigDesc, spring_count); F(SecmoRigDesc, correctives); F(SecmoRigDesc, chains);
    F(SecmoRigDesc, chain_count); F(SecmoRigDesc, node_constraints);
    S(SecmoNodeConstraintDesc); F(SecmoNodeConstraintDesc, axis); F(SecmoNodeConstraintDesc, weight);
    S(SecmoBatchItem); F(SecmoBatchItem, character); F(SecmoBatchItem, out_pose_len); F(SecmoBatchItem, out_info);
    S(SecmoCharacterDesc); F(SecmoCharacterDesc, substep_target);
    S(SecmoFrameInput); F(SecmoFrameInput, dt); F(SecmoFrameInput, pose); F(SecmoFrameInput, pose_len);
    F(SecmoFrameInput, world); F(SecmoFrameInput, importance);
    S(SecmoUpdateInfo); F(SecmoUpdateInfo, warnings); F(SecmoUpdateInfo, joint_substeps);
    S(SecmoWorldItem); F(SecmoWorldItem, character); F(SecmoWorldItem, out_pose_len); F(SecmoWorldItem, out_info);
    F(SecmoWorldItem, importance); F(SecmoWorldItem, level);
    S(SecmoSpringRecord); F(SecmoSpringRecord, target); F(SecmoSpringRecord, snapped); F(SecmoSpringRecord, ring);
    S(SecmoCorrectiveRecord); F(SecmoCorrectiveRecord, state_scale); F(SecmoCorrectiveRecord, local);
    S(SecmoStageRecords); F(SecmoStageRecords, source); F(SecmoStageRecords, springs); F(SecmoStageRecords, spring_count);
    F(SecmoStageRecords, correctives); F(SecmoStageRecords, probe_distance_count);
    S(SecmoDebugLine); F(SecmoDebugLine, b); F(SecmoDebugLine, kind);
    S(SecmoDebugSphere); F(SecmoDebugSphere, radius); F(SecmoDebugSphere, kind);
    return 0;
}
