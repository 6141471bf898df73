// One native call per frame for every SecmoCharacter in the scene, with the
// transforms read and written by jobs.
//
// Without a manager each SecmoCharacter updates itself in its LateUpdate
// (one secmo call per character, transforms on the main thread). Add one
// SecmoManager to the scene and the characters hand over. Every frame:
//   Update (before the Animator): a RestJob (IJobParallelForTransform) gives
//     every bone the manager wrote last frame its rest pose back, so bones
//     no clip animates are not read back as animation (docs/unity.md).
//   LateUpdate (execution order 10000, after the Animator and gameplay
//     scripts; the characters then do nothing in theirs): a ReadJob copies
//     every driven bone's local pose into one NativeArray, one
//     secmo_update_batch call runs every character, and a WriteJob writes
//     the results back (with each character's weight).
// Inside that call the chains of up to 8 neighbouring characters share the
// native chain kernel's lanes (docs/c-api.md, "Batches").
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
        static readonly List<SecmoCharacter> characters = new List<SecmoCharacter>();
        static SecmoManager active;
        static bool changed = true;

        // Built from `characters` when it changes: every driven bone of every
        // character, character k's at [offsets[k], offsets[k + 1]).
        readonly List<SecmoCharacter> built = new List<SecmoCharacter>();
        int[] offsets = new int[1];
        SecmoBatchItem[] items = new SecmoBatchItem[0];
        TransformAccessArray access;
        NativeArray<SecmoTransform> animated, result, rest;
        NativeArray<SecmoFrameInput> inputs;
        NativeArray<int> owner;          // bone -> character
        NativeArray<float> weights;      // character -> its weight this frame
        NativeArray<byte> failed;        // character -> its update failed this frame (keep the animation)
        NativeArray<byte> written;       // bone -> written last LateUpdate

        /// <summary>True while an enabled manager updates the characters (they skip their own update).</summary>
        public static bool Batching => active != null;

        /// <summary>The characters the last LateUpdate ran.</summary>
        public int CharacterCount { get; private set; }

        /// <summary>Native calls made by the last LateUpdate: 1 with any character, else 0.</summary>
        public int NativeCalls { get; private set; }

        internal static void Register(SecmoCharacter character)
        {
            if (characters.Contains(character)) return;
            characters.Add(character);
            changed = true;
        }

        internal static void Unregister(SecmoCharacter character)
        {
            if (characters.Remove(character)) changed = true;
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
        }

        void OnDisable()
        {
            if (active != this) return;
            Restore();
            Release();
            active = null;
        }

        void Release()
        {
            if (access.isCreated) access.Dispose();
            if (animated.IsCreated) animated.Dispose();
            if (result.IsCreated) result.Dispose();
            if (rest.IsCreated) rest.Dispose();
            if (inputs.IsCreated) inputs.Dispose();
            if (owner.IsCreated) owner.Dispose();
            if (weights.IsCreated) weights.Dispose();
            if (failed.IsCreated) failed.Dispose();
            if (written.IsCreated) written.Dispose();
            built.Clear();
        }

        /// <summary>Rebuilds the transform array and buffers (only when the characters changed; allocates).</summary>
        void Build()
        {
            Release();
            changed = false;
            built.AddRange(characters);
            int k = built.Count;
            offsets = new int[k + 1];
            for (int c = 0; c < k; c++) offsets[c + 1] = offsets[c] + built[c].Bones.Length;
            int n = offsets[k];
            var transforms = new Transform[n];
            animated = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            result = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            rest = new NativeArray<SecmoTransform>(n, Allocator.Persistent);
            owner = new NativeArray<int>(n, Allocator.Persistent);
            written = new NativeArray<byte>(n, Allocator.Persistent);
            inputs = new NativeArray<SecmoFrameInput>(k, Allocator.Persistent);
            weights = new NativeArray<float>(k, Allocator.Persistent);
            failed = new NativeArray<byte>(k, Allocator.Persistent);
            for (int c = 0; c < k; c++)
            {
                var bones = built[c].Bones;
                var pose = built[c].RestPose;
                for (int i = 0; i < bones.Length; i++)
                {
                    transforms[offsets[c] + i] = bones[i];
                    rest[offsets[c] + i] = pose[i];
                    owner[offsets[c] + i] = c;
                }
            }
            access = new TransformAccessArray(transforms);
            if (items.Length < k) items = new SecmoBatchItem[k];
        }

        /// <summary>The rest pose back on every bone written last frame.</summary>
        void Restore()
        {
            if (access.isCreated) new RestJob { rest = rest, written = written }.Schedule(access).Complete();
        }

        void Update()
        {
            if (active != this) return;
            Restore(); // before the Animator
            if (changed) Build();
        }

        unsafe void LateUpdate()
        {
            NativeCalls = 0;
            if (active != this) return;
            // A character whose driven transform was destroyed disables itself
            // (and leaves the list) here, before anything is read.
            for (int i = characters.Count - 1; i >= 0; i--) characters[i].CheckBones();
            if (changed) Build(); // nothing is written since Update's RestJob
            int k = built.Count;
            CharacterCount = k;
            if (k == 0) return;
            new ReadJob { animated = animated }.Schedule(access).Complete();
            var input = (SecmoFrameInput*)inputs.GetUnsafePtr();
            var from = (SecmoTransform*)animated.GetUnsafePtr();
            var to = (SecmoTransform*)result.GetUnsafePtr();
            for (int c = 0; c < k; c++) built[c].PrepareInput(input + c, from + offsets[c], to + offsets[c], ref items[c]);
            fixed (SecmoBatchItem* p = items)
            {
                SecmoNative.secmo_update_batch(p, UIntPtr.Zero, (UIntPtr)k);
            }
            NativeCalls = 1;
            for (int c = 0; c < k; c++)
            {
                bool ok = items[c].result == (uint)SecmoStatus.Ok;
                if (!ok) built[c].Failed();
                failed[c] = ok ? (byte)0 : (byte)1;
                weights[c] = built[c].weight;
            }
            new WriteJob { animated = animated, result = result, owner = owner, weights = weights, failed = failed, written = written }
                .Schedule(access).Complete();
        }

        struct ReadJob : IJobParallelForTransform
        {
            [WriteOnly] public NativeArray<SecmoTransform> animated;

            public void Execute(int index, TransformAccess transform)
            {
                if (!transform.isValid) return;
                var p = transform.localPosition;
                var r = transform.localRotation;
                var s = transform.localScale;
                animated[index] = new SecmoTransform
                {
                    tx = p.x, ty = p.y, tz = p.z,
                    rx = r.x, ry = r.y, rz = r.z, rw = r.w,
                    sx = s.x, sy = s.y, sz = s.z,
                };
            }
        }

        struct WriteJob : IJobParallelForTransform
        {
            [ReadOnly] public NativeArray<SecmoTransform> animated, result;
            [ReadOnly] public NativeArray<int> owner;
            [ReadOnly] public NativeArray<float> weights;
            [ReadOnly] public NativeArray<byte> failed;
            public NativeArray<byte> written;

            public void Execute(int index, TransformAccess transform)
            {
                int c = owner[index];
                float weight = weights[c];
                var o = result[index];
                if (failed[c] != 0 || !transform.isValid || o.Equals(animated[index])) return;
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
                written[index] = 1;
            }
        }

        struct RestJob : IJobParallelForTransform
        {
            [ReadOnly] public NativeArray<SecmoTransform> rest;
            public NativeArray<byte> written;

            public void Execute(int index, TransformAccess transform)
            {
                if (written[index] == 0) return;
                written[index] = 0;
                if (!transform.isValid) return;
                var r = rest[index];
                transform.localPosition = new Vector3(r.tx, r.ty, r.tz);
                transform.localRotation = new Quaternion(r.rx, r.ry, r.rz, r.rw);
                transform.localScale = new Vector3(r.sx, r.sy, r.sz);
            }
        }
    }
}
