// The managed face of secmo: SafeHandles that free the native objects, and
// Rig/Character with Try* methods (bool + message) and throwing variants.
// Plain C# (no UnityEngine). The update path allocates nothing: pose arrays
// are pinned with `fixed` for the duration of the call.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Secmo
{
    public sealed class SecmoException : Exception
    {
        public SecmoStatus Status { get; }

        public SecmoException(SecmoStatus status, string message) : base(message) { Status = status; }
    }

    public sealed class RigHandle : SafeHandle
    {
        public RigHandle() : base(IntPtr.Zero, true) { }
        internal RigHandle(IntPtr raw) : base(IntPtr.Zero, true) { SetHandle(raw); }
        public override bool IsInvalid => handle == IntPtr.Zero;
        protected override bool ReleaseHandle()
        {
            SecmoNative.secmo_rig_destroy(handle);
            return true;
        }
    }

    public sealed class CharacterHandle : SafeHandle
    {
        // The world that owns the character (released with secmo_world_remove), or null.
        readonly WorldHandle world;
        public CharacterHandle() : base(IntPtr.Zero, true) { }
        internal CharacterHandle(IntPtr raw) : base(IntPtr.Zero, true) { SetHandle(raw); }
        internal CharacterHandle(IntPtr raw, WorldHandle world) : base(IntPtr.Zero, true)
        {
            SetHandle(raw);
            this.world = world;
            bool added = false;
            world.DangerousAddRef(ref added); // the world outlives its characters' handles
        }
        public override bool IsInvalid => handle == IntPtr.Zero;
        /// <summary>Whether a world owns the character.</summary>
        public bool InWorld => world != null;
        protected override bool ReleaseHandle()
        {
            if (world != null)
            {
                SecmoNative.secmo_world_remove(world.DangerousGetHandle(), handle);
                world.DangerousRelease();
            }
            else
            {
                SecmoNative.secmo_character_destroy(handle);
            }
            return true;
        }
    }

    public sealed class WorldHandle : SafeHandle
    {
        public WorldHandle() : base(IntPtr.Zero, true) { }
        internal WorldHandle(IntPtr raw) : base(IntPtr.Zero, true) { SetHandle(raw); }
        public override bool IsInvalid => handle == IntPtr.Zero;
        protected override bool ReleaseHandle()
        {
            SecmoNative.secmo_world_destroy(handle);
            return true;
        }
    }

    /// <summary>
    /// A world (docs/c-api.md, "Worlds"): creates and owns characters and
    /// updates them with one plan and ranges, optionally within a CPU budget.
    /// Its characters are Characters; disposing one removes it from the
    /// world. The native world is freed once it and all its characters are
    /// disposed.
    /// </summary>
    public sealed class World : IDisposable
    {
        public WorldHandle Handle { get; }

        private World(WorldHandle handle) { Handle = handle; }

        public static bool TryCreate(out World world, out SecmoStatus status, out string error)
        {
            world = null;
            error = null;
            status = (SecmoStatus)SecmoNative.secmo_world_create(out IntPtr raw);
            if (status != SecmoStatus.Ok)
            {
                error = SecmoNative.LastError();
                return false;
            }
            world = new World(new WorldHandle(raw));
            return true;
        }

        /// <summary>A new character of `rig` in this world. Allocates.</summary>
        public bool TryAdd(Rig rig, out Character character, out SecmoStatus status, out string error)
        {
            character = null;
            error = null;
            status = (SecmoStatus)SecmoNative.secmo_world_add(Handle.DangerousGetHandle(), rig.Handle.DangerousGetHandle(), out IntPtr raw);
            if (status != SecmoStatus.Ok)
            {
                error = SecmoNative.LastError();
                return false;
            }
            character = Character.Wrap(new CharacterHandle(raw, Handle));
            return true;
        }

        /// <summary>Joint-substeps per update, or SecmoNative.WorldNoBudget.</summary>
        public SecmoStatus SetBudget(ulong budget) => (SecmoStatus)SecmoNative.secmo_world_set_budget(Handle.DangerousGetHandle(), budget);

        /// <summary>Once per frame, before the ranges (main thread).</summary>
        public unsafe SecmoStatus Plan(SecmoWorldItem* items, int count) =>
            (SecmoStatus)SecmoNative.secmo_world_plan(Handle.DangerousGetHandle(), items, (UIntPtr)count);

        /// <summary>Planned items [first, end); disjoint ranges may run on different threads.</summary>
        public unsafe SecmoStatus UpdateRange(SecmoWorldItem* items, int first, int end) =>
            (SecmoStatus)SecmoNative.secmo_world_update_range(Handle.DangerousGetHandle(), items, (UIntPtr)first, (UIntPtr)end);

        /// <summary>Plan and one range over all items.</summary>
        public unsafe SecmoStatus Update(SecmoWorldItem* items, int count) =>
            (SecmoStatus)SecmoNative.secmo_world_update(Handle.DangerousGetHandle(), items, (UIntPtr)count);

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>Rig settings from a VRM's spring bones (docs/vrm-mapping.md).</summary>
    /// <summary>The secmo functions that take a text or file and write a NUL-terminated text (size, then fill).</summary>
    unsafe delegate uint TextCall(byte* input, UIntPtr inputLen, byte* buffer, UIntPtr bufferLen, out UIntPtr needed);

    static class TextOut
    {
        /// <summary>Calls `call` once to size and once to fill; the text without its NUL. Allocates.</summary>
        public static unsafe bool Get(byte[] input, TextCall call, out string text, out SecmoStatus status, out string error)
        {
            text = null;
            error = null;
            fixed (byte* i = input)
            {
                status = (SecmoStatus)call(i, (UIntPtr)input.Length, null, UIntPtr.Zero, out UIntPtr needed);
                if (status == SecmoStatus.BufferLength)
                {
                    var buffer = new byte[(int)needed];
                    fixed (byte* b = buffer)
                        status = (SecmoStatus)call(i, (UIntPtr)input.Length, b, (UIntPtr)buffer.Length, out needed);
                    if (status == SecmoStatus.Ok)
                    {
                        text = Encoding.UTF8.GetString(buffer, 0, buffer.Length - 1);
                        return true;
                    }
                }
                error = SecmoNative.LastError();
                return false;
            }
        }
    }

    public static class Vrm
    {
        /// <summary>
        /// Reads the spring bones of a VRM 0.x/1.0 file (.vrm/.glb bytes or
        /// .gltf text) into a rig-settings text. Editor-time: allocates.
        /// </summary>
        public static unsafe bool TrySettingsFromVrm(byte[] file, out string settings, out SecmoStatus status, out string error) =>
            TextOut.Get(file ?? new byte[0], SecmoNative.secmo_settings_from_vrm, out settings, out status, out error);

        /// <summary>
        /// What TrySettingsFromVrm leaves out or changes for the same file,
        /// one note per field (the lines `secmo vrm-settings` prints: angle
        /// limits and unknown fields not applied, broken references left
        /// out, damaged or out-of-range values and the value used).
        /// Editor-time: allocates.
        /// </summary>
        public static unsafe bool TryNotes(byte[] file, out string[] notes, out SecmoStatus status, out string error)
        {
            notes = null;
            if (!TextOut.Get(file ?? new byte[0], SecmoNative.secmo_vrm_notes, out string joined, out status, out error))
                return false;
            notes = joined.Length == 0 ? new string[0] : joined.Split('\n');
            return true;
        }
    }

    /// <summary>What a rig-settings text refers to.</summary>
    public static class Settings
    {
        /// <summary>
        /// Every bone name the settings refer to (each once): the bones a
        /// component must feed secmo, with their ancestors. Allocates.
        /// </summary>
        public static unsafe bool TryBoneNames(string settings, out string[] names, out SecmoStatus status, out string error)
        {
            names = null;
            if (!TextOut.Get(Encoding.UTF8.GetBytes(settings ?? ""), SecmoNative.secmo_settings_bone_names, out string joined, out status, out error))
                return false;
            names = joined.Length == 0 ? new string[0] : joined.Split('\n');
            return true;
        }

        /// <summary>
        /// The settings with every spring's and chain's parameters written
        /// out (each preset resolved for <paramref name="unitsPerMeter"/>,
        /// the overrides applied): what the typed inspector fields hold.
        /// Editor-time: allocates.
        /// </summary>
        public static unsafe bool TryExpand(string settings, float unitsPerMeter, out string expanded, out SecmoStatus status, out string error) =>
            TextOut.Get(Encoding.UTF8.GetBytes(settings ?? ""),
                (byte* i, UIntPtr len, byte* b, UIntPtr blen, out UIntPtr needed) => SecmoNative.secmo_settings_expand(i, len, unitsPerMeter, b, blen, out needed),
                out expanded, out status, out error);
    }

    /// <summary>An immutable rig, shared by characters (which keep it alive).</summary>
    public sealed class Rig : IDisposable
    {
        public RigHandle Handle { get; }
        public int BoneCount => (int)SecmoNative.secmo_rig_bone_count(Handle.DangerousGetHandle());

        /// <summary>The skeleton's size in metres (its bind pose's largest extent over unitsPerMeter); outside 0.05–50 m the rig warns (SecmoNative.WarningUnusualSize).</summary>
        public float SizeMeters
        {
            get
            {
                SecmoNative.secmo_rig_size_meters(Handle.DangerousGetHandle(), out float meters);
                return meters;
            }
        }

        /// <summary>Warnings raised while building the rig (nothing is dropped silently).</summary>
        public int WarningCount => (int)SecmoNative.secmo_rig_warning_count(Handle.DangerousGetHandle());

        /// <summary>
        /// Warning <paramref name="index"/>: its kind (SecmoNative.WarningShear: a sheared
        /// bind pose; SecmoNative.WarningChainOrder: a chain reads the bone while the chain
        /// moving it is listed at or after it, so it sees the bone's animated pose) and the
        /// bone it concerns.
        /// </summary>
        public bool TryGetWarning(int index, out uint kind, out int bone)
        {
            bone = -1;
            if (index < 0 || SecmoNative.secmo_rig_warning(Handle.DangerousGetHandle(), (uint)index, out kind, out uint b) != 0)
            {
                kind = 0;
                return false;
            }
            bone = (int)b;
            return true;
        }

        /// <summary>A warning as a sentence naming the bone (<paramref name="names"/>: the rig's bone names).</summary>
        public static string DescribeWarning(uint kind, int bone, string[] names)
        {
            string name = names != null && bone >= 0 && bone < names.Length ? names[bone] : "bone " + bone;
            if (kind == SecmoNative.WarningShear)
                return name + ": the bind pose is sheared (non-uniform parent scale with a rotated child); the shear is dropped";
            if (kind == SecmoNative.WarningChainOrder)
                return "a chain reads " + name + ", which a chain listed after it moves: it sees " + name
                    + "'s animated pose (list it after the chain that moves " + name + ")";
            if (kind == SecmoNative.WarningUnusualSize)
                return "the skeleton's size is outside 0.05–50 m at its units per metre: check the units (Unity skeletons are in metres, unitsPerMeter 1)";
            return name + ": warning kind " + kind;
        }

        private Rig(RigHandle handle) { Handle = handle; }

        /// <summary>
        /// A rig from a skeleton (names, parents, reference local pose) and a
        /// rig-settings text. Unity: unitsPerMeter 1, upAxis SecmoNative.UpAxisY.
        /// </summary>
        public static unsafe bool TryFromSettings(string[] names, int[] parents, SecmoTransform[] reference,
            float unitsPerMeter, uint upAxis, string settings, out Rig rig, out SecmoStatus status, out string error)
        {
            rig = null;
            error = null;
            int n = names.Length;
            if (parents.Length != n || reference.Length != n)
            {
                status = SecmoStatus.BufferLength;
                error = "names, parents and reference must have the same length";
                return false;
            }
            // UTF-8, NUL-terminated names for the duration of the call.
            var nameHandles = new GCHandle[n];
            var namePointers = new IntPtr[n];
            try
            {
                for (int i = 0; i < n; i++)
                {
                    byte[] utf8 = Encoding.UTF8.GetBytes(names[i] + "\0");
                    nameHandles[i] = GCHandle.Alloc(utf8, GCHandleType.Pinned);
                    namePointers[i] = nameHandles[i].AddrOfPinnedObject();
                }
                byte[] text = Encoding.UTF8.GetBytes(settings ?? string.Empty);
                fixed (int* p = parents)
                fixed (SecmoTransform* r = reference)
                fixed (IntPtr* np = namePointers)
                fixed (byte* t = text)
                {
                    var desc = new SecmoRigDesc
                    {
                        struct_size = (uint)sizeof(SecmoRigDesc),
                        bone_count = (uint)n,
                        parents = (IntPtr)p,
                        reference_pose = (IntPtr)r,
                        bone_names = (IntPtr)np,
                        units_per_meter = unitsPerMeter,
                        up_axis = upAxis,
                    };
                    status = (SecmoStatus)SecmoNative.secmo_rig_create_from_settings(&desc, t, (UIntPtr)text.Length, out IntPtr raw);
                    if (status != SecmoStatus.Ok)
                    {
                        error = SecmoNative.LastError();
                        return false;
                    }
                    rig = new Rig(new RigHandle(raw));
                    return true;
                }
            }
            finally
            {
                foreach (var h in nameHandles)
                    if (h.IsAllocated) h.Free();
            }
        }

        /// <summary>A rig from a full descriptor (arrays pinned by the caller).</summary>
        public static unsafe bool TryCreate(ref SecmoRigDesc desc, out Rig rig, out SecmoStatus status, out string error)
        {
            rig = null;
            error = null;
            fixed (SecmoRigDesc* d = &desc)
            {
                status = (SecmoStatus)SecmoNative.secmo_rig_create(d, out IntPtr raw);
                if (status != SecmoStatus.Ok)
                {
                    error = SecmoNative.LastError();
                    return false;
                }
                rig = new Rig(new RigHandle(raw));
                return true;
            }
        }

        public void Dispose() => Handle.Dispose();
    }

    /// <summary>Per-instance state. One thread at a time.</summary>
    public sealed class Character : IDisposable
    {
        public CharacterHandle Handle { get; }

        private Character(CharacterHandle handle) { Handle = handle; }

        internal static Character Wrap(CharacterHandle handle) => new Character(handle);

        /// <summary>
        /// This character's state in a new character of `rig` in `world`
        /// (null: a standalone one), through a snapshot: the motion goes on
        /// exactly. The caller disposes this one. Allocates.
        /// </summary>
        public unsafe bool TryMoveTo(World world, Rig rig, out Character moved, out string error)
        {
            moved = null;
            error = null;
            SecmoNative.secmo_character_snapshot_size(Handle.DangerousGetHandle(), out UIntPtr size);
            var buffer = new byte[(int)size];
            Character created;
            SecmoStatus status;
            bool ok = world != null ? world.TryAdd(rig, out created, out status, out error) : TryCreate(rig, out created, out status, out error);
            if (!ok) return false;
            fixed (byte* b = buffer)
            {
                if (SecmoNative.secmo_character_snapshot(Handle.DangerousGetHandle(), b, size, out UIntPtr written) != 0
                    || SecmoNative.secmo_character_restore(created.Handle.DangerousGetHandle(), b, written) != 0)
                {
                    error = SecmoNative.LastError();
                    created.Dispose();
                    return false;
                }
            }
            moved = created;
            return true;
        }

        public static unsafe bool TryCreate(Rig rig, out Character character, out SecmoStatus status, out string error)
        {
            character = null;
            error = null;
            status = (SecmoStatus)SecmoNative.secmo_character_create(rig.Handle.DangerousGetHandle(), null, out IntPtr raw);
            if (status != SecmoStatus.Ok)
            {
                error = SecmoNative.LastError();
                return false;
            }
            character = new Character(new CharacterHandle(raw));
            return true;
        }

        public static Character Create(Rig rig)
        {
            if (!TryCreate(rig, out var c, out var status, out var error)) throw new SecmoException(status, error);
            return c;
        }

        /// <summary>
        /// One update. `output` may be `pose` itself (in place). `world` is the
        /// character's world transform (with flags), `importance` the chain LOD
        /// importance (negative: keep). Allocates nothing; on failure returns
        /// the status and leaves the state unchanged (message: LastError()).
        /// </summary>
        public unsafe SecmoStatus TryUpdate(float dt, SecmoTransform[] pose, SecmoTransform[] output,
            uint flags, ref SecmoTransform world, bool hasWorld, float importance = -1f)
        {
            fixed (SecmoTransform* p = pose)
            fixed (SecmoTransform* o = output)
            {
                var input = new SecmoFrameInput
                {
                    struct_size = (uint)sizeof(SecmoFrameInput),
                    flags = flags | (hasWorld ? SecmoNative.FrameHasWorld : 0u) | (importance >= 0f ? SecmoNative.FrameHasImportance : 0u),
                    dt = dt,
                    pose = (IntPtr)p,
                    pose_len = (UIntPtr)(pose == null ? 0 : pose.Length),
                    world = world,
                    importance = importance,
                };
                return (SecmoStatus)SecmoNative.secmo_character_update(Handle.DangerousGetHandle(), &input, o,
                    (UIntPtr)(output == null ? 0 : output.Length), null);
            }
        }

        /// <summary>TryUpdate without a world transform.</summary>
        public SecmoStatus TryUpdate(float dt, SecmoTransform[] pose, SecmoTransform[] output)
        {
            var world = SecmoTransform.Identity;
            return TryUpdate(dt, pose, output, 0u, ref world, false);
        }

        /// <summary>Throws SecmoException on failure (allocates only then).</summary>
        public void Update(float dt, SecmoTransform[] pose, SecmoTransform[] output)
        {
            var status = TryUpdate(dt, pose, output);
            if (status != SecmoStatus.Ok) throw new SecmoException(status, SecmoNative.LastError());
        }

        public SecmoStatus Reset() => (SecmoStatus)SecmoNative.secmo_character_reset(Handle.DangerousGetHandle());

        /// <summary>Chain `chain`'s current parameters.</summary>
        public unsafe SecmoStatus GetChainParams(int chain, out SecmoChainParams parameters)
        {
            SecmoChainParams p;
            var status = (SecmoStatus)SecmoNative.secmo_character_chain_params(Handle.DangerousGetHandle(), (uint)chain, &p);
            parameters = p;
            return status;
        }

        /// <summary>Changes chain `chain`'s parameters at runtime, keeping its motion.</summary>
        public unsafe SecmoStatus SetChainParams(int chain, SecmoChainParams parameters)
        {
            parameters.struct_size = (uint)sizeof(SecmoChainParams);
            return (SecmoStatus)SecmoNative.secmo_character_set_chain_params(Handle.DangerousGetHandle(), (uint)chain, &parameters);
        }

        public unsafe SecmoStatus SetWind(float x, float y, float z)
        {
            float* w = stackalloc float[3];
            w[0] = x;
            w[1] = y;
            w[2] = z;
            return (SecmoStatus)SecmoNative.secmo_character_set_wind(Handle.DangerousGetHandle(), w);
        }

        /// <summary>Moves every world position the character keeps by (x, y, z): old − new origin when a floating origin moves.</summary>
        public unsafe SecmoStatus ShiftWorld(float x, float y, float z)
        {
            float* d = stackalloc float[3];
            d[0] = x;
            d[1] = y;
            d[2] = z;
            return (SecmoStatus)SecmoNative.secmo_character_shift_world(Handle.DangerousGetHandle(), d);
        }

        public SecmoStatus SetStageEnabled(uint stage, bool enabled) =>
            (SecmoStatus)SecmoNative.secmo_character_set_stage_enabled(Handle.DangerousGetHandle(), stage, enabled ? 1u : 0u);

        /// <summary>Debug lines and spheres (buffers owned by the caller, reused).</summary>
        public unsafe SecmoStatus DebugDraw(SecmoDebugLine[] lines, out int lineCount, SecmoDebugSphere[] spheres, out int sphereCount)
        {
            fixed (SecmoDebugLine* l = lines)
            fixed (SecmoDebugSphere* s = spheres)
            {
                var status = (SecmoStatus)SecmoNative.secmo_character_debug_draw(Handle.DangerousGetHandle(),
                    l, (UIntPtr)(lines == null ? 0 : lines.Length), out UIntPtr nl,
                    s, (UIntPtr)(spheres == null ? 0 : spheres.Length), out UIntPtr ns);
                lineCount = (int)nl;
                sphereCount = (int)ns;
                return status;
            }
        }

        public void DebugDrawCapacity(out int lines, out int spheres)
        {
            SecmoNative.secmo_character_debug_draw_capacity(Handle.DangerousGetHandle(), out UIntPtr l, out UIntPtr s);
            lines = (int)l;
            spheres = (int)s;
        }

        public void Dispose() => Handle.Dispose();
    }
}
