// P/Invoke declarations and blittable mirrors of every repr(C) type in
// include/secmo.h. Plain C#: no UnityEngine, so it is tested under Mono
// (tests/csharp). Field order and types follow the header exactly; the layout
// test compares Marshal.SizeOf/OffsetOf with the C compiler's sizeof/offsetof.
using System;
using System.Runtime.InteropServices;

namespace Secmo
{
    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoTransform : IEquatable<SecmoTransform>
    {
        public float tx, ty, tz;
        public float rx, ry, rz, rw;
        public float sx, sy, sz;

        public static SecmoTransform Identity => new SecmoTransform { rw = 1f, sx = 1f, sy = 1f, sz = 1f };

        /// <summary>Component-wise equality, without boxing (the per-frame comparison allocates nothing).</summary>
        public bool Equals(SecmoTransform o) =>
            tx == o.tx && ty == o.ty && tz == o.tz && rx == o.rx && ry == o.ry && rz == o.rz && rw == o.rw
            && sx == o.sx && sy == o.sy && sz == o.sz;

        public override bool Equals(object obj) => obj is SecmoTransform o && Equals(o);

        public override int GetHashCode() => tx.GetHashCode() ^ ry.GetHashCode() ^ sz.GetHashCode();
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoSpringDesc
    {
        public uint struct_size;
        public uint bone;
        public float stiffness, damping, max_offset, max_substep_displacement;
        public uint history_length;
        public float reset_threshold, time_factor;
        public fixed float extra_velocity[3];
        public float alpha;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoRotationConstraintDesc
    {
        public uint struct_size, bone, target;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoProbeDesc
    {
        public uint struct_size, bone, side;
        public float threshold, weight;
        public fixed float same_translation[3];
        public fixed float same_scale[3];
        public fixed float opposite_translation[3];
        public fixed float opposite_scale[3];
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoCorrectiveDesc
    {
        public uint struct_size, driven_bone, side;
        public float rate;
        public IntPtr probes;
        public uint probe_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoBtobBones
    {
        public uint chest, other_chest, upper_arm_l, forearm_l, hand_l, upper_arm_r, forearm_r, hand_r;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoColliderDesc
    {
        public uint struct_size, shape, bone;
        public fixed float a[3];
        public fixed float b[3];
        public float radius;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoChainParams
    {
        public uint struct_size, integrator;
        public float frequency_root, frequency_tip, damping_ratio, stiffness, damping, gravity;
        public fixed float gravity_direction[3];
        public float carry_angle, rest_curve, bend_rate, bend_limit;
        public uint forward_plane, velocity_from_positions, floor_enabled;
        public float floor_height, floor_clearance, floor_damping, radius, weight, wind_factor, time_factor;
        public float lod_skip_below, lod_half_below, teleport_distance, teleport_angle;
        public int simulation_space;
        public float inertia;
        public float vrm_stiffness;
        public float vrm_drag_force;
        public float vrm_gravity_power;
        public float settle_speedup;
        public uint teleport_restart;
        public uint rest_source;
        public float animation_inertia;
        public float key_margin;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoChainDesc
    {
        public uint struct_size, anchor;
        public IntPtr joints;
        public uint joint_count, preset;
        public IntPtr @params, radii, weights, colliders;
        public uint collider_count, has_end_offset;
        public fixed float end_offset[3];
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoRigDesc
    {
        public uint struct_size, bone_count;
        public IntPtr parents, reference_pose, inverse_bind_matrices, has_inverse_bind, bone_names;
        public float units_per_meter;
        public uint up_axis;
        public IntPtr springs;
        public uint spring_count;
        public IntPtr constraints;
        public uint constraint_count;
        public IntPtr correctives;
        public uint corrective_count;
        public IntPtr colliders;
        public uint collider_count;
        public IntPtr chains;
        public uint chain_count;
        public IntPtr node_constraints;
        public uint node_constraint_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoBatchItem
    {
        public uint struct_size, result;
        public IntPtr character, input, out_pose;
        public UIntPtr out_pose_len;
        public IntPtr out_info;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoNodeConstraintDesc
    {
        public uint struct_size, kind, source, destination, axis;
        public float weight;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoCharacterDesc
    {
        public uint struct_size, substep_target;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoFrameInput
    {
        public uint struct_size, flags;
        public float dt;
        public IntPtr pose;
        public UIntPtr pose_len;
        public SecmoTransform world;
        public float importance;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoUpdateInfo
    {
        public uint struct_size, max_substeps, snapped_springs, warnings;
        /// <summary>Joint-substeps the chain kernels executed (ABI 1.4).</summary>
        public uint joint_substeps;
    }

    /// <summary>One character's update in a world (secmo_world_plan / _update_range).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoWorldItem
    {
        public uint struct_size, result;
        public IntPtr character, input, out_pose;
        public UIntPtr out_pose_len;
        public IntPtr out_info;
        /// <summary>Budget importance: larger is more important.</summary>
        public float importance;
        /// <summary>Written by secmo_world_plan: SecmoNative.Level*.</summary>
        public uint level;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoSpringRecord
    {
        public uint bone, substeps;
        public float dt, h, remaining_before, remaining_after;
        public fixed float target[3];
        public fixed float position[3];
        public fixed float velocity[3];
        public fixed float output[3];
        public uint snapped, ring_fill, ring_index;
        public fixed float ring[48];
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoCorrectiveRecord
    {
        public uint driven, probe_count, first_probe;
        public float weight;
        public fixed float target_translation[3];
        public fixed float target_scale[3];
        public fixed float state_translation[3];
        public fixed float state_scale[3];
        public SecmoTransform local;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct SecmoStageRecords
    {
        public uint struct_size, bone_count;
        public IntPtr source, constrained, post_spring, post_corrective, final_pose, springs;
        public uint spring_count, corrective_count;
        public IntPtr correctives, probe_distances;
        public uint probe_distance_count;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoDebugLine
    {
        public fixed float a[3];
        public fixed float b[3];
        public uint kind;
    }

    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct SecmoDebugSphere
    {
        public fixed float center[3];
        public float radius;
        public uint kind;
    }

    /// <summary>Result codes (SecmoResult); never renumbered.</summary>
    public enum SecmoStatus : uint
    {
        Ok = 0,
        NullPointer = 7001,
        BufferLength = 7002,
        InvalidDt = 7003,
        NonFinitePose = 7004,
        DegeneratePose = 7005,
        InvalidRig = 7006,
        StructSize = 7007,
        Snapshot = 7008,
        InvalidArgument = 7009,
        NonFiniteResult = 7010,
        Settings = 7011,
        Panic = 7099,
    }

    /// <summary>The raw C functions. Pointers are IntPtr or unsafe pointers.</summary>
    public static unsafe class SecmoNative
    {
#if UNITY_IOS && !UNITY_EDITOR
        // iOS links the static library into the player.
        public const string Library = "__Internal";
#else
        // libsecmo.so / libsecmo.dylib / secmo.dll, from Plugins/<platform>/.
        public const string Library = "secmo";
#endif
        public const uint AbiVersion = 1;
        public const uint FrameTeleport = 1, FrameHasWorld = 2, FrameHasImportance = 4;
        public const uint UpAxisY = 1, UpAxisZ = 2;
        public const uint ChainTail = 0, ChainHair = 1;
        /// <summary>Rig warning kinds (secmo_rig_warning).</summary>
        public const uint WarningShear = 1, WarningChainOrder = 2, WarningUnusualSize = 4;
        /// <summary>Bit of SecmoUpdateInfo.warnings: the chains' teleport threshold fired on three updates in a row without a teleport flag (wrong units, or a world transform that jumps).</summary>
        public const uint WarningTeleportStreak = 8;
        public const uint StageConstraints = 0, StageSprings = 1, StageCorrectives = 2, StageChains = 3;

        [DllImport(Library)] public static extern IntPtr secmo_version();
        [DllImport(Library)] public static extern uint secmo_abi_version();
        [DllImport(Library)] public static extern IntPtr secmo_last_error_message();
        [DllImport(Library)] public static extern UIntPtr secmo_live_object_count();
        [DllImport(Library)] public static extern uint secmo_spring_desc_hip(uint bone, float unitsPerMeter, SecmoSpringDesc* outDesc);
        [DllImport(Library)] public static extern uint secmo_spring_desc_chest(uint bone, float unitsPerMeter, SecmoSpringDesc* outDesc);
        [DllImport(Library)] public static extern uint secmo_chain_params_tail(float unitsPerMeter, SecmoChainParams* outParams);
        [DllImport(Library)] public static extern uint secmo_chain_params_hair(float unitsPerMeter, SecmoChainParams* outParams);
        [DllImport(Library)] public static extern uint secmo_chain_params_vrm(float unitsPerMeter, SecmoChainParams* outParams);
        [DllImport(Library)] public static extern uint secmo_rig_create(SecmoRigDesc* desc, out IntPtr outRig);
        [DllImport(Library)] public static extern uint secmo_update_batch(SecmoBatchItem* items, UIntPtr first, UIntPtr end);
        [DllImport(Library)] public static extern uint secmo_rig_create_from_settings(SecmoRigDesc* skeleton, byte* settings, UIntPtr settingsLen, out IntPtr outRig);
        [DllImport(Library)] public static extern uint secmo_rig_write_settings(IntPtr rig, byte* buffer, UIntPtr bufferLen, out UIntPtr outLen);
        [DllImport(Library)] public static extern uint secmo_settings_bone_names(byte* settings, UIntPtr settingsLen, byte* buffer, UIntPtr bufferLen, out UIntPtr outLen);
        [DllImport(Library)] public static extern uint secmo_settings_expand(byte* settings, UIntPtr settingsLen, float unitsPerMeter, byte* buffer, UIntPtr bufferLen, out UIntPtr outLen);
        [DllImport(Library)] public static extern uint secmo_settings_from_vrm(byte* bytes, UIntPtr bytesLen, byte* buffer, UIntPtr bufferLen, out UIntPtr outLen);
        [DllImport(Library)] public static extern uint secmo_vrm_notes(byte* bytes, UIntPtr bytesLen, byte* buffer, UIntPtr bufferLen, out UIntPtr outLen);
        [DllImport(Library)] public static extern void secmo_rig_destroy(IntPtr rig);
        [DllImport(Library)] public static extern uint secmo_rig_bone_count(IntPtr rig);
        [DllImport(Library)] public static extern uint secmo_rig_warning_count(IntPtr rig);
        [DllImport(Library)] public static extern uint secmo_rig_warning(IntPtr rig, uint index, out uint outKind, out uint outBone);
        [DllImport(Library)] public static extern uint secmo_rig_size_meters(IntPtr rig, out float outMeters);
        [DllImport(Library)] public static extern uint secmo_character_create(IntPtr rig, SecmoCharacterDesc* desc, out IntPtr outCharacter);
        [DllImport(Library)] public static extern void secmo_character_destroy(IntPtr character);
        [DllImport(Library)] public static extern uint secmo_character_update(IntPtr character, SecmoFrameInput* input, SecmoTransform* outPose, UIntPtr outPoseLen, SecmoUpdateInfo* outInfo);
        [DllImport(Library)] public static extern uint secmo_character_reset(IntPtr character);
        [DllImport(Library)] public static extern uint secmo_character_chain_params(IntPtr character, uint chain, SecmoChainParams* outParams);
        [DllImport(Library)] public static extern uint secmo_character_set_chain_params(IntPtr character, uint chain, SecmoChainParams* parameters);
        [DllImport(Library)] public static extern uint secmo_character_set_stage_enabled(IntPtr character, uint stage, uint enabled);
        [DllImport(Library)] public static extern uint secmo_character_set_wind(IntPtr character, float* wind);
        [DllImport(Library)] public static extern uint secmo_character_shift_world(IntPtr character, float* delta);
        [DllImport(Library)] public static extern uint secmo_character_debug_draw_capacity(IntPtr character, out UIntPtr lines, out UIntPtr spheres);
        [DllImport(Library)] public static extern uint secmo_character_debug_draw(IntPtr character, SecmoDebugLine* lines, UIntPtr linesLen, out UIntPtr lineCount, SecmoDebugSphere* spheres, UIntPtr spheresLen, out UIntPtr sphereCount);
        [DllImport(Library)] public static extern uint secmo_character_snapshot_size(IntPtr character, out UIntPtr size);
        [DllImport(Library)] public static extern uint secmo_character_snapshot(IntPtr character, byte* buffer, UIntPtr len, out UIntPtr written);
        [DllImport(Library)] public static extern uint secmo_character_restore(IntPtr character, byte* buffer, UIntPtr len);
        [DllImport(Library)] public static extern uint secmo_world_create(out IntPtr outWorld);
        [DllImport(Library)] public static extern void secmo_world_destroy(IntPtr world);
        [DllImport(Library)] public static extern uint secmo_world_add(IntPtr world, IntPtr rig, out IntPtr outCharacter);
        [DllImport(Library)] public static extern uint secmo_world_remove(IntPtr world, IntPtr character);
        [DllImport(Library)] public static extern uint secmo_world_set_budget(IntPtr world, ulong budget);
        [DllImport(Library)] public static extern uint secmo_world_plan(IntPtr world, SecmoWorldItem* items, UIntPtr count);
        [DllImport(Library)] public static extern uint secmo_world_update_range(IntPtr world, SecmoWorldItem* items, UIntPtr first, UIntPtr end);
        [DllImport(Library)] public static extern uint secmo_world_update(IntPtr world, SecmoWorldItem* items, UIntPtr count);

        /// <summary>secmo_world_set_budget: no budget.</summary>
        public const ulong WorldNoBudget = ulong.MaxValue;
        /// <summary>SecmoWorldItem.level values.</summary>
        public const uint LevelFull = 0, LevelHalf = 1, LevelQuarter = 2, LevelHeld = 3;

        /// <summary>
        /// This process's platform as `cargo xtask unity-plugins` names it
        /// (linux-x86_64, windows-x86_64, macos-universal, android-arm64,
        /// ios).
        /// </summary>
        public static string PlatformName
        {
            get
            {
#if UNITY_IOS && !UNITY_EDITOR
                return "ios";
#elif UNITY_ANDROID && !UNITY_EDITOR
                return "android-arm64";
#else
                string arch = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? "x86_64"
                    : RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
                if (RuntimeInformation.IsOSPlatform(OSPlatform.OSX)) return "macos-universal";
                if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows)) return "windows-" + arch;
                return "linux-" + arch;
#endif
            }
        }

        /// <summary>Where the package keeps the native library for `platform` (under Plugins/), or null if it has no folder for it.</summary>
        public static string PluginPath(string platform)
        {
            switch (platform)
            {
                case "linux-x86_64": return "Plugins/Linux/x86_64/libsecmo.so";
                case "windows-x86_64": return "Plugins/Windows/x86_64/secmo.dll";
                case "macos-universal": return "Plugins/macOS/libsecmo.dylib";
                case "android-arm64": return "Plugins/Android/arm64-v8a/libsecmo.so";
                case "ios": return "Plugins/iOS/libsecmo.a";
                default: return null;
            }
        }

        /// <summary>The error for a native library that did not load (`why`: the exception's name) on `platform`.</summary>
        public static string MissingLibraryMessage(string platform, string why)
        {
            string path = PluginPath(platform);
            return "secmo: the native library for " + platform + " is missing (" + why + "; "
                + (path != null ? "expected Packages/com.secmo.runtime/" + path : "the package has no folder for this platform") + "). "
                + "A package added from the git URL carries no native library: install the tarball that `cargo xtask unity-package` writes "
                + "(Package Manager: Add package from tarball), or run `cargo xtask unity-plugins --platform " + platform
                + "` in the secmo repository and add the package from disk (docs/unity.md, \"Install\").";
        }

        /// <summary>
        /// Null when the native library loads and has ABI version AbiVersion;
        /// otherwise one message that names this platform, the file the
        /// package expects and the command that provides it. The first call
        /// into the library loads it, so call this first (SecmoCharacter
        /// does; the editor does when it loads the package). Allocates only
        /// when it fails.
        /// </summary>
        public static string CheckLibrary()
        {
            try
            {
                uint abi = secmo_abi_version();
                if (abi == AbiVersion) return null;
                return "secmo: the native library for " + PlatformName + " has ABI version " + abi + " and this package needs "
                    + AbiVersion + ": rebuild it with `cargo xtask unity-package` or `cargo xtask unity-plugins --platform " + PlatformName + "`";
            }
            catch (DllNotFoundException e) { return MissingLibraryMessage(PlatformName, e.GetType().Name); }
            catch (EntryPointNotFoundException e) { return MissingLibraryMessage(PlatformName, e.GetType().Name); }
            catch (BadImageFormatException e) { return MissingLibraryMessage(PlatformName, e.GetType().Name + ", a library for another platform"); }
        }

        /// <summary>The thread's last error message (allocates a string: error path only).</summary>
        public static string LastError()
        {
            IntPtr p = secmo_last_error_message();
            if (p == IntPtr.Zero) return string.Empty;
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) n++;
            var bytes = new byte[n];
            Marshal.Copy(p, bytes, 0, n);
            return System.Text.Encoding.UTF8.GetString(bytes);
        }
    }
}
