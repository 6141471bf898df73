// Every SecmoCharacter in the scene updated together: the transforms read
// and written by jobs, and the simulation itself run as a job split into
// ranges across the worker threads.
//
// Without a manager each SecmoCharacter updates itself in its LateUpdate
// (one secmo call per character, all on the main thread). Add one
// SecmoManager to the scene and the characters hand over. In its LateUpdate
// (execution order 10000, after the Animator in any update mode and after
// gameplay scripts; the characters then do nothing in theirs):
//   main thread: each character's frame input (dt, world transform, wind,
//     importance, teleport) and weight, gathered into native buffers;
//   ReadJob (IJobParallelForTransform): a bone that still holds exactly what
//     the WriteJob left on it last frame (the Animator did not write it)
//     gets last frame's animated pose back; then every bone's local pose is
//     copied into one NativeArray;
//   the manager owns one secmo world (docs/c-api.md, "Worlds"): characters
//     are created in it (those enabled before the manager move in, through
//     a snapshot, and move out again when it is disabled); after the
//     inputs, one secmo_world_plan on the main thread chooses every
//     character's level for the optional CPU budget (jointSubstepBudget;
//     importance from the distance to `viewer`: nearer is more important);
//   UpdateJob (IJobParallelFor, after ReadJob): each index runs
//     secmo_world_update_range over one range of RangeSize characters, on
//     the worker threads (non-overlapping ranges may run at the same time);
//   WriteJob (IJobParallelForTransform, after UpdateJob): the results back
//     on the transforms, with each character's weight;
//   main thread, after Complete: failed updates and teleport streaks logged.
// The results are the ones each character computes alone, bit for bit. The
// transform array and buffers are rebuilt only when characters are enabled
// or disabled; a frame allocates nothing.
using System;
using System.Collections.Generic;
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using Unity.Jobs;
using UnityEngine;
using UnityEngine.Jobs;

namespace Secmo.Unity
{
    [DefaultExecutionOrder(10000)] // after the Animator and gameplay scripts
    [DisallowMultipleComponent]
    public sealed class SecmoManager : MonoBehaviour
    {
        /// <summary>
        /// Characters per UpdateJob index: up to 8 neighbouring characters
        /// share the native chain kernel's lanes (docs/c-api.md, "Batches").
        /// </summary>
        public const int RangeSize = 8;

        [Tooltip("CPU budget of the chains in joint-substeps per frame (a 6-joint chain at 120 substeps/s and 60 fps costs 12); 0: none. Over it the characters farthest from `viewer` run fewer substeps, then hold (docs/c-api.md, \"Worlds\").")]
        public int jointSubstepBudget;

        [Tooltip("The budget's point of view (usually the camera): nearer characters are more important. None: all equal (the earliest enabled first).")]
        public Transform viewer;

        static readonly List<SecmoCharacter> characters = new List<SecmoCharacter>();
        World world;                            // owns the characters while the manager is enabled
        NativeArray<SecmoWorldItem> worldItems; // character -> its world item
        static SecmoManager active;
        static bool changed = true;

        // Built from `characters` when it changes: every driven bone of every
        // character, character k's at [offsets[k], offsets[k + 1]).
        readonly List<SecmoCharacter> built = new List<SecmoCharacter>();
        int[] offsets = new int[1];
        TransformAccessArray access;
        NativeArray<SecmoTransform> animated;  // bone -> the animated pose read this frame (then last frame's)
        NativeArray<SecmoTransform> result;    // bone -> secmo's output
        NativeArray<SecmoTransform> wrote;     // bone -> what the transform held right after the WriteJob
        NativeArray<byte> written;             // bone -> the WriteJob wrote it last frame
        NativeArray<int> owner;                // bone -> character
        NativeArray<SecmoBatchItem> items;     // character -> its batch item
        NativeArray<SecmoFrameInput> inputs;   // character -> its frame input
        NativeArray<SecmoUpdateInfo> infos;    // character -> its update info
        NativeArray<float> weights;            // character -> its weight this frame

        /// <summary>True while an enabled manager updates the characters (they skip their own update).</summary>
        public static bool Batching => active != null;

        /// <summary>The characters the last LateUpdate ran.</summary>
        public int CharacterCount { get; private set; }

        /// <summary>secmo_world_update_range calls (UpdateJob ranges) made by the last LateUpdate: one per RangeSize characters.</summary>
        public int NativeCalls { get; private set; }

        /// <summary>Joint-substeps the chains ran in the last LateUpdate (what the budget counts).</summary>
        public long JointSubsteps { get; private set; }

        /// <summary>Characters the last LateUpdate ran below full rate (the budget's levels half, quarter or held).</summary>
        public int Degraded { get; private set; }

        /// <summary>
        /// A new native character of `rig`: in the active manager's world, or
        /// standalone without one (SecmoCharacter.OnEnable).
        /// </summary>
        internal static bool TryCreateCharacter(Rig rig, out Character character, out string error)
        {
            if (active != null && active.world != null) return active.world.TryAdd(rig, out character, out _, out error);
            return Character.TryCreate(rig, out character, out _, out error);
        }

        internal static void Register(SecmoCharacter character)
        {
            if (characters.Contains(character)) return;
            characters.Add(character);
            changed = true;
        }

        /// <summary>
        /// A character leaves: the animation back on its bones that still
        /// hold the manager's last write (main thread; no job is running
        /// between frames).
        /// </summary>
        internal static void Unregister(SecmoCharacter character)
        {
            if (!characters.Remove(character)) return;
            changed = true;
            if (active == null) return;
            int c = active.built.IndexOf(character);
            if (c >= 0) active.HandBack(c);
        }

        void OnEnable()
        {
            if (active != null && active != this)
            {
                Debug.LogWarning("secmo: a second SecmoManager (" + name + ") is ignored; " + active.name + " updates the characters", this);
                return;
            }
            active = this;
            changed = true;
            if (!World.TryCreate(out world, out _, out string error)) Debug.LogError("secmo: " + error, this);
        }

        void OnDisable()
        {
            if (active != this) return;
            for (int c = 0; c < built.Count; c++) HandBack(c);
            Release();
            // The characters leave the world (their motion goes on exactly)
            // before it goes.
            foreach (var character in characters) character.MoveTo(null);
            world?.Dispose();
            world = null;
            active = null;
            changed = true;
        }

        void HandBack(int c)
        {
            if (!access.isCreated) return;
            var bones = built[c].Bones;
            for (int i = 0, j = offsets[c]; j < offsets[c + 1]; i++, j++)
            {
                if (written[j] == 0) continue;
                written[j] = 0;
                var t = bones[i];
                if (t && SecmoCharacter.ToSecmo(t).Equals(wrote[j])) SecmoCharacter.Set(t, animated[j]);
            }
        }

        void Release()
        {
            if (access.isCreated) access.Dispose();
            if (animated.IsCreated) animated.Dispose();
            if (result.IsCreated) result.Dispose();
            if (wrote.IsCreated) wrote.Dispose();
            if (written.IsCreated) written.Dispose();
            if (owner.IsCreated) owner.Dispose();
            if (items.IsCreated) items.Dispose();
            if (inputs.IsCreated) inputs.Dispose();
            if (infos.IsCreated) infos.Dispose();
            if (weights.IsCreated) weights.Dispose();
            if (worldItems.IsCreated) worldItems.Dispose();
            built.Clear();
        }

        /// <summary>Rebuilds the transform array and buffers (only when the characters changed; allocates).</summary>
        void Build()
        {
            // The old buffers' writes go back first, so that the new buffers
            // start from bones that hold the animation.
            for (int c = 0; c < built.Count; c++) HandBack(c);
            Release();
            changed = false;
            // Characters enabled before the manager move into its world.
            foreach (var character in characters) character.MoveTo(world);
            built.AddRange(characters);
            int k = built.Count;
            offsets = new int[k + 1];
            for (int c = 0; c < k; c++)
            {
                offsets[c + 1] = offsets[c] + built[c].Bones.Length;
                built[c].HandBack(); // writes it made on its own, before the manager took over
            }
            int n = offsets[k];
            var transforms = new Transform[n];
            animated = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            result = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            wrote = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            written = new NativeArray<byte>(n, Allocator.Persistent);
            owner = new NativeArray<int>(n, Allocator.Persistent);
            items = new NativeArray<SecmoBatchItem>(k, Allocator.Persistent);
            inputs = new NativeArray<SecmoFrameInput>(k, Allocator.Persistent);
            infos = new NativeArray<SecmoUpdateInfo>(k, Allocator.Persistent);
            weights = new NativeArray<float>(k, Allocator.Persistent);
            worldItems = new NativeArray<SecmoWorldItem>(k, Allocator.Persistent);
            for (int c = 0; c < k; c++)
            {
                var bones = built[c].Bones;
                for (int i = 0; i < bones.Length; i++)
                {
                    transforms[offsets[c] + i] = bones[i];
                    owner[offsets[c] + i] = c;
                }
            }
            access = new TransformAccessArray(transforms);
        }

        unsafe void LateUpdate()
        {
            NativeCalls = 0;
            JointSubsteps = 0;
            Degraded = 0;
            if (active != this || world == null) return;
            // A character whose driven transform was destroyed disables itself
            // (and leaves the list) here, before anything is read.
            for (int i = characters.Count - 1; i >= 0; i--) characters[i].CheckBones();
            if (changed) Build();
            int k = built.Count;
            CharacterCount = k;
            if (k == 0) return;
            // Main thread: the per-character input (reads transforms and
            // components that jobs may not touch).
            var item = (SecmoBatchItem*)items.GetUnsafePtr();
            var input = (SecmoFrameInput*)inputs.GetUnsafePtr();
            var info = (SecmoUpdateInfo*)infos.GetUnsafePtr();
            var from = (SecmoTransform*)animated.GetUnsafePtr();
            var to = (SecmoTransform*)result.GetUnsafePtr();
            var witem = (SecmoWorldItem*)worldItems.GetUnsafePtr();
            bool hasViewer = viewer != null;
            var eye = hasViewer ? viewer.position : default(Vector3);
            for (int c = 0; c < k; c++)
            {
                built[c].PrepareInput(input + c, from + offsets[c], to + offsets[c], info + c, ref item[c]);
                weights[c] = built[c].weight;
                float importance = 1f;
                if (hasViewer)
                {
                    var at = built[c].Bones[0].position;
                    float dx = at.x - eye.x, dy = at.y - eye.y, dz = at.z - eye.z;
                    importance = 1f / (1f + (float)Math.Sqrt(dx * dx + dy * dy + dz * dz));
                }
                witem[c] = new SecmoWorldItem
                {
                    struct_size = (uint)sizeof(SecmoWorldItem),
                    character = item[c].character,
                    input = item[c].input,
                    out_pose = item[c].out_pose,
                    out_pose_len = item[c].out_pose_len,
                    out_info = item[c].out_info,
                    importance = importance,
                };
            }
            world.SetBudget(jointSubstepBudget > 0 ? (ulong)jointSubstepBudget : SecmoNative.WorldNoBudget);
            // Once per frame, on the main thread, before the ranges.
            world.Plan(witem, k);
            int ranges = (k + RangeSize - 1) / RangeSize;
            var read = new ReadJob { animated = animated, wrote = wrote, written = written }.Schedule(access);
            var update = new UpdateJob { world = world.Handle.DangerousGetHandle(), items = worldItems, count = k }.Schedule(ranges, 1, read);
            new WriteJob { animated = animated, result = result, owner = owner, weights = weights, items = worldItems, wrote = wrote, written = written }
                .Schedule(access, update).Complete();
            NativeCalls = ranges;
            for (int c = 0; c < k; c++)
            {
                if (witem[c].result != (uint)SecmoStatus.Ok)
                {
                    // The message is the worker thread's. A failed update
                    // changes nothing, so planning and running the item
                    // again here fails the same way and leaves the message
                    // on this thread (error path only).
                    world.Plan(witem + c, 1);
                    world.UpdateRange(witem + c, 0, 1);
                    built[c].Failed();
                }
                else
                {
                    built[c].NoteWarnings(info[c].warnings);
                    JointSubsteps += info[c].joint_substeps;
                    if (witem[c].level != SecmoNative.LevelFull) Degraded++;
                }
            }
        }

        /// <summary>Index r: secmo_world_update_range over characters [r·RangeSize, min((r+1)·RangeSize, count)).</summary>
        unsafe struct UpdateJob : IJobParallelFor
        {
            public IntPtr world; // the manager's world, alive while the job runs
            // Index r writes the results of items [first, end), not items[r].
            [NativeDisableParallelForRestriction] public NativeArray<SecmoWorldItem> items;
            public int count;

            public void Execute(int range)
            {
                int first = range * RangeSize;
                int end = Math.Min(first + RangeSize, count);
                SecmoNative.secmo_world_update_range(world, (SecmoWorldItem*)items.GetUnsafePtr(), (UIntPtr)first, (UIntPtr)end);
            }
        }

        static SecmoTransform Read(TransformAccess t)
        {
            var p = t.localPosition;
            var r = t.localRotation;
            var s = t.localScale;
            return new SecmoTransform
            {
                tx = p.x, ty = p.y, tz = p.z,
                rx = r.x, ry = r.y, rz = r.z, rw = r.w,
                sx = s.x, sy = s.y, sz = s.z,
            };
        }

        struct ReadJob : IJobParallelForTransform
        {
            public NativeArray<SecmoTransform> animated;
            [ReadOnly] public NativeArray<SecmoTransform> wrote;
            public NativeArray<byte> written;

            public void Execute(int index, TransformAccess transform)
            {
                if (!transform.isValid) return;
                var now = Read(transform);
                if (written[index] != 0)
                {
                    written[index] = 0;
                    if (now.Equals(wrote[index]))
                    {
                        // Not written by the Animator since: last frame's
                        // animated pose, which `animated` still holds.
                        var a = animated[index];
                        transform.localPosition = new Vector3(a.tx, a.ty, a.tz);
                        transform.localRotation = new Quaternion(a.rx, a.ry, a.rz, a.rw);
                        transform.localScale = new Vector3(a.sx, a.sy, a.sz);
                        return;
                    }
                }
                animated[index] = now;
            }
        }

        struct WriteJob : IJobParallelForTransform
        {
            [ReadOnly] public NativeArray<SecmoTransform> animated, result;
            [ReadOnly] public NativeArray<int> owner;
            [ReadOnly] public NativeArray<float> weights;
            [ReadOnly] public NativeArray<SecmoWorldItem> items;
            public NativeArray<SecmoTransform> wrote;
            public NativeArray<byte> written;

            public void Execute(int index, TransformAccess transform)
            {
                int c = owner[index];
                float weight = weights[c];
                var o = result[index];
                if (items[c].result != (uint)SecmoStatus.Ok || !transform.isValid || o.Equals(animated[index])) return;
                var rotation = new Quaternion(o.rx, o.ry, o.rz, o.rw);
                var position = new Vector3(o.tx, o.ty, o.tz);
                if (weight < 1f)
                {
                    rotation = Quaternion.Slerp(transform.localRotation, rotation, weight);
                    position = Vector3.Lerp(transform.localPosition, position, weight);
                }
                transform.localRotation = rotation;
                transform.localPosition = position;
                transform.localScale = new Vector3(o.sx, o.sy, o.sz);
                wrote[index] = Read(transform); // as the transform holds it
                written[index] = 1;
            }
        }
    }
}
