// The secmo component: reads the animated local pose of the bones under
// `root` after the Animator, runs secmo, and writes the result back. Units
// are metres and Y is up (Unity). Zero GC allocation per frame: all buffers
// are created in OnEnable and reused.
//
// Animated input: a bone the Animator did not write this frame (a helper no
// clip keys; any bone in a frame where an Animator in AnimatePhysics mode ran
// no fixed step, or one culled off screen) still holds secmo's output from
// the frame before, and secmo would read its own result back as the
// animation. So LateUpdate first gives each bone that still holds exactly
// what secmo wrote the animated pose secmo read last frame, as JigglePhysics
// does; a bone the Animator wrote keeps the Animator's pose. This needs no
// step before the Animator, so it is right in every Animator update mode and
// culling mode (docs/unity.md, "Frame order").
//
// Disabling hands every bone back to the animation in the same way, so a
// disabled character shows the animation untouched; the reference pose is
// read once, the first time a bone is driven, so enabling again starts from
// the same rest as the first time.
//
// With a SecmoManager in the scene, the manager does the same for every
// character with jobs (SecmoManager.cs).
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using UnityEngine;

namespace Secmo.Unity
{
    [DefaultExecutionOrder(10000)] // after the Animator and gameplay scripts
    [DisallowMultipleComponent]
    public sealed class SecmoCharacter : MonoBehaviour
    {
        [Tooltip("Springs, constraints, correctives, colliders and chains (bones by name).")]
        public SecmoRigSettings settings;

        [Tooltip("The skeleton's top bone; defaults to this transform.")]
        public Transform root;

        [Tooltip("Use unscaled time (keeps moving while Time.timeScale is 0).")]
        public bool useUnscaledTime;

        [Tooltip("Blend of secmo's result over the animation.")]
        [Range(0f, 1f)]
        public float weight = 1f;

        [Tooltip("Chain LOD importance (chains skip or halve below their thresholds).")]
        [Range(0f, 1f)]
        public float importance = 1f;

        [Tooltip("World acceleration on the chains, m/s².")]
        public Vector3 wind;

        [Tooltip("Optional: a WindZone whose direction (its forward axis) and main strength add to `wind` (m/s² per unit of windMain).")]
        public WindZone windZone;

        public bool drawGizmos = true;

        /// <summary>The last error, if the rig could not be built or an update failed.</summary>
        public string LastError { get; private set; }

        Rig rig;
        Character character;
        Transform[] bones;
        SecmoTransform[] pose;   // the animated pose read this frame (after the update: last frame's)
        SecmoTransform[] output;
        SecmoTransform[] wrote;  // what a bone held right after secmo wrote it
        bool[] written;
        // Each driven bone's reference pose, read the first time it is driven
        // (kept over disable and enable: a re-enabled bone holds an animated
        // pose, not its rest).
        readonly Dictionary<Transform, SecmoTransform> referenceOf = new Dictionary<Transform, SecmoTransform>();
        SecmoUpdateInfo[] info;  // pinned: this frame's update info
        bool inTeleportStreak;
        SecmoDebugLine[] debugLines;
        SecmoDebugSphere[] debugSpheres;
        bool teleportNext;
        // pose, output and the frame input stay pinned while enabled, so a
        // batch item can point at them (SecmoManager).
        SecmoFrameInput[] frameInput;
        Vector3 appliedWind; // the wind the native character has (a new one has none)
        GCHandle posePin, outputPin, inputPin, infoPin;

        /// <summary>Teleport: chains move rigidly with the character, springs restart.</summary>
        public void Teleport() => teleportNext = true;

        /// <summary>Restarts every solver from the animation at the next update (a cut, a respawn).</summary>
        public void ResetDynamics() => character?.Reset();

        /// <summary>Chain `chain`'s parameters as they are now (false if there is no such chain).</summary>
        public bool TryGetChainParams(int chain, out SecmoChainParams parameters)
        {
            parameters = default;
            return character != null && character.GetChainParams(chain, out parameters) == SecmoStatus.Ok;
        }

        /// <summary>Changes a chain's parameters at runtime, keeping its motion; false and LastError if refused.</summary>
        public bool TrySetChainParams(int chain, SecmoChainParams parameters)
        {
            if (character == null) return false;
            if (character.SetChainParams(chain, parameters) == SecmoStatus.Ok) return true;
            LastError = SecmoNative.LastError();
            return false;
        }

        static bool libraryChecked;
        static string libraryError;

        /// <summary>CheckLibrary once per domain; its error is logged once.</summary>
        static string LibraryError(UnityEngine.Object context)
        {
            if (libraryChecked) return libraryError;
            libraryChecked = true;
            libraryError = SecmoNative.CheckLibrary();
            if (libraryError != null) Debug.LogError(libraryError, context);
            return libraryError;
        }

        void OnEnable()
        {
            LastError = LibraryError(this);
            if (LastError != null) return;
            if (settings == null)
            {
                LastError = "no settings";
                return;
            }
            var top = root != null ? root : transform;
            // Only what secmo needs goes in: the bones the settings name and
            // their ancestors up to `root`. A zero-scaled prop, a duplicate
            // name or a destroyed transform elsewhere in the hierarchy changes
            // nothing.
            string settingsText = settings.ToJson();
            if (!Settings.TryBoneNames(settingsText, out string[] needed, out _, out string namesError))
            {
                Fail(namesError);
                return;
            }
            var all = top.GetComponentsInChildren<Transform>(true); // depth-first: parents first
            var keep = new HashSet<Transform> { top };
            foreach (var boneName in needed)
            {
                Transform found = null;
                foreach (var t in all)
                {
                    if (t.name != boneName) continue;
                    if (found != null)
                    {
                        Fail("two transforms under " + top.name + " are named \"" + boneName + "\" (" + PathOf(found, top)
                            + " and " + PathOf(t, top) + "); the settings name it, so it must be unique");
                        return;
                    }
                    found = t;
                }
                if (found == null) continue; // secmo names the missing bone below
                for (var t = found; t != null && keep.Add(t); t = t.parent) { }
            }
            var kept = new List<Transform>(keep.Count);
            foreach (var t in all) if (keep.Contains(t)) kept.Add(t);
            bones = kept.ToArray();
            int n = bones.Length;
            var index = new Dictionary<Transform, int>(n);
            var names = new string[n];
            var parents = new int[n];
            var reference = new SecmoTransform[n];
            for (int i = 0; i < n; i++)
            {
                index[bones[i]] = i;
                names[i] = bones[i].name;
                parents[i] = i > 0 && bones[i].parent != null && index.TryGetValue(bones[i].parent, out int p) ? p : -1;
                if (!referenceOf.TryGetValue(bones[i], out reference[i]))
                {
                    reference[i] = ToSecmo(bones[i]);
                    referenceOf.Add(bones[i], reference[i]);
                }
            }
            if (!Rig.TryFromSettings(names, parents, reference, 1f, SecmoNative.UpAxisY, settingsText, out rig, out _, out string error)
                || !SecmoManager.TryCreateCharacter(rig, out character, out error))
            {
                Fail(error);
                rig?.Dispose();
                rig = null;
                return;
            }
            for (int w = 0; w < rig.WarningCount; w++)
                if (rig.TryGetWarning(w, out uint kind, out int bone))
                    Debug.LogWarning("secmo: " + name + ": " + Rig.DescribeWarning(kind, bone, names), this);
            pose = new SecmoTransform[n];
            output = new SecmoTransform[n];
            frameInput = new SecmoFrameInput[1];
            info = new SecmoUpdateInfo[1];
            appliedWind = new Vector3(0f, 0f, 0f);
            inTeleportStreak = false;
            posePin = GCHandle.Alloc(pose, GCHandleType.Pinned);
            outputPin = GCHandle.Alloc(output, GCHandleType.Pinned);
            inputPin = GCHandle.Alloc(frameInput, GCHandleType.Pinned);
            infoPin = GCHandle.Alloc(info, GCHandleType.Pinned);
            wrote = new SecmoTransform[n];
            written = new bool[n];
            SecmoManager.Register(this);
            character.DebugDrawCapacity(out int lines, out int spheres);
            debugLines = new SecmoDebugLine[lines];
            debugSpheres = new SecmoDebugSphere[spheres];
            // A fresh character's first update starts from the animation: enabling never pops.
        }

        void Fail(string error)
        {
            LastError = error;
            Debug.LogWarning("secmo: " + name + ": " + error, this);
        }

        static string PathOf(Transform t, Transform top)
        {
            string path = t.name;
            for (var p = t.parent; p != null && p != top.parent; p = p.parent) path = p.name + "/" + path;
            return path;
        }

        /// <summary>A transform secmo drives was destroyed: stop, with one error.</summary>
        bool LostBone()
        {
            for (int i = 0; i < bones.Length; i++)
            {
                if (bones[i]) continue;
                LastError = "a transform secmo drives (bone " + i + ") was destroyed; the component is disabled";
                Debug.LogError("secmo: " + name + ": " + LastError, this);
                enabled = false; // Unity calls OnDisable here
                if (character != null) OnDisable();
                return true;
            }
            return false;
        }

        void OnDisable()
        {
            // The animation back on every bone secmo still holds (the
            // manager's writes, then this component's own).
            SecmoManager.Unregister(this);
            HandBack();
            if (posePin.IsAllocated) posePin.Free();
            if (outputPin.IsAllocated) outputPin.Free();
            if (inputPin.IsAllocated) inputPin.Free();
            if (infoPin.IsAllocated) infoPin.Free();
            character?.Dispose();
            rig?.Dispose();
            character = null;
            rig = null;
        }

        /// <summary>
        /// Gives every bone that still holds what this component wrote the
        /// animated pose read before that write (the Animator did not write
        /// it since). No allocation.
        /// </summary>
        internal void HandBack()
        {
            if (written == null) return;
            for (int i = 0; i < written.Length; i++)
            {
                if (!written[i]) continue;
                written[i] = false;
                var t = bones[i];
                if (t && ToSecmo(t).Equals(wrote[i])) Set(t, pose[i]);
            }
        }

        void LateUpdate()
        {
            // With an active SecmoManager, it updates this character with the
            // others instead.
            if (SecmoManager.Batching || character == null || LostBone()) return;
            HandBack();
            var item = new SecmoBatchItem();
            Prepare(ref item);
            uint result = UpdateOne(ref item);
            Finish(result);
            if (result == (uint)SecmoStatus.Ok) NoteWarnings(info[0].warnings);
        }

        /// <summary>
        /// Logs a teleport streak (the chains restarted on three updates in a
        /// row without Teleport()) once per streak. The message is built only
        /// then.
        /// </summary>
        internal void NoteWarnings(uint warnings)
        {
            bool streak = (warnings & SecmoNative.WarningTeleportStreak) != 0;
            if (streak && !inTeleportStreak)
                Debug.LogWarning("secmo: " + name + ": the chains' teleport threshold fired on three updates in a row without Teleport(), "
                    + "so the chains restart every frame: check the skeleton's units (Unity: metres; this rig is "
                    + (rig != null ? rig.SizeMeters.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture) : "?") + " m) or a world transform that jumps", this);
            inTeleportStreak = streak;
        }

        static unsafe uint UpdateOne(ref SecmoBatchItem item)
        {
            fixed (SecmoBatchItem* p = &item)
            {
                SecmoNative.secmo_update_batch(p, UIntPtr.Zero, (UIntPtr)1);
                return p->result;
            }
        }

        /// <summary>Disables this character (with one error) if a driven transform was destroyed.</summary>
        internal void CheckBones()
        {
            if (character != null) LostBone();
        }

        /// <summary>Reads the animated pose into the pinned `pose` and fills `item` (no allocation).</summary>
        internal unsafe void Prepare(ref SecmoBatchItem item)
        {
            int n = bones.Length;
            for (int i = 0; i < n; i++) pose[i] = ToSecmo(bones[i]);
            PrepareInput((SecmoFrameInput*)inputPin.AddrOfPinnedObject(), (SecmoTransform*)posePin.AddrOfPinnedObject(),
                (SecmoTransform*)outputPin.AddrOfPinnedObject(), (SecmoUpdateInfo*)infoPin.AddrOfPinnedObject(), ref item);
        }

        /// <summary>
        /// Fills this frame's input at `input` (dt, flags, world, wind,
        /// importance) for the animated pose at `animated`, and `item` for
        /// secmo_update_batch writing to `result` and `info`. Used by
        /// SecmoManager with its job-filled buffers.
        /// </summary>
        internal unsafe void PrepareInput(SecmoFrameInput* input, SecmoTransform* animated, SecmoTransform* result, SecmoUpdateInfo* info, ref SecmoBatchItem item)
        {
            int n = bones.Length;
            var parent = bones[0].parent;
            var world = parent != null
                ? Make(parent.position, parent.rotation, parent.lossyScale)
                : SecmoTransform.Identity;
            float dt = useUnscaledTime ? Time.unscaledDeltaTime : Time.deltaTime;
            uint flags = teleportNext ? SecmoNative.FrameTeleport : 0u;
            teleportNext = false;
            var w = wind;
            if (windZone != null)
            {
                var f = windZone.transform.forward;
                w = new Vector3(w.x + f.x * windZone.windMain, w.y + f.y * windZone.windMain, w.z + f.z * windZone.windMain);
            }
            if (w.x != appliedWind.x || w.y != appliedWind.y || w.z != appliedWind.z)
            {
                // a native call only when the wind changes (a refused one is retried)
                if (character.SetWind(w.x, w.y, w.z) == SecmoStatus.Ok) appliedWind = w;
            }
            *input = new SecmoFrameInput
            {
                struct_size = (uint)sizeof(SecmoFrameInput),
                flags = flags | SecmoNative.FrameHasWorld | (importance >= 0f ? SecmoNative.FrameHasImportance : 0u),
                dt = dt,
                pose = (IntPtr)animated,
                pose_len = (UIntPtr)n,
                world = world,
                importance = importance,
            };
            item.struct_size = (uint)sizeof(SecmoBatchItem);
            item.result = 0;
            item.character = character.Handle.DangerousGetHandle();
            item.input = (IntPtr)input;
            item.out_pose = (IntPtr)result;
            item.out_pose_len = (UIntPtr)n;
            *info = new SecmoUpdateInfo { struct_size = (uint)sizeof(SecmoUpdateInfo) };
            item.out_info = (IntPtr)info;
        }

        /// <summary>
        /// Moves the native character into `world` (null: out of any world)
        /// through a snapshot, so that its motion goes on exactly
        /// (SecmoManager). False, with LastError, if it could not.
        /// </summary>
        internal bool MoveTo(World world)
        {
            if (character == null || character.Handle.InWorld == (world != null)) return true;
            if (!character.TryMoveTo(world, rig, out Character moved, out string error))
            {
                Fail(error);
                return false;
            }
            character.Dispose();
            character = moved;
            return true;
        }

        /// <summary>The native character's handle (SecmoManager's world items).</summary>
        internal IntPtr NativeCharacter => character.Handle.DangerousGetHandle();

        /// <summary>The bones secmo reads and writes, parents first (for SecmoManager).</summary>
        internal Transform[] Bones => bones;

        /// <summary>Records a failed update's error (SecmoManager; the bones keep the animation).</summary>
        internal void Failed() => LastError = SecmoNative.LastError();

        /// <summary>Writes secmo's result back (or records the error) after secmo_update_batch.</summary>
        internal void Finish(uint result)
        {
            if (result != (uint)SecmoStatus.Ok)
            {
                LastError = SecmoNative.LastError(); // error path only
                return;
            }
            int n = bones.Length;
            for (int i = 0; i < n; i++)
            {
                if (output[i].Equals(pose[i])) continue;
                var t = bones[i];
                var rotation = new Quaternion(output[i].rx, output[i].ry, output[i].rz, output[i].rw);
                var position = new Vector3(output[i].tx, output[i].ty, output[i].tz);
                if (weight < 1f)
                {
                    rotation = Quaternion.Slerp(t.localRotation, rotation, weight);
                    position = Vector3.Lerp(t.localPosition, position, weight);
                }
                t.localRotation = rotation;
                t.localPosition = position;
                t.localScale = new Vector3(output[i].sx, output[i].sy, output[i].sz);
                wrote[i] = ToSecmo(t); // as the transform holds it
                written[i] = true;
            }
        }

        void OnDrawGizmos()
        {
            if (!drawGizmos || character == null) return;
            if (character.DebugDraw(debugLines, out int lines, debugSpheres, out int spheres) != SecmoStatus.Ok) return;
            for (int i = 0; i < lines; i++)
            {
                Gizmos.color = KindColor(debugLines[i].kind);
                Gizmos.DrawLine(Point(ref debugLines[i], true), Point(ref debugLines[i], false));
            }
            for (int i = 0; i < spheres; i++)
            {
                Gizmos.color = KindColor(debugSpheres[i].kind);
                Gizmos.DrawWireSphere(Center(ref debugSpheres[i]), debugSpheres[i].radius);
            }
        }

        static Color KindColor(uint kind)
        {
            switch (kind)
            {
                case 1: return new Color(1f, 0.63f, 0f);   // particle: amber
                case 2: case 4: return new Color(0f, 0.67f, 0.78f); // rest target and arc: cyan
                case 5: return new Color(0.3f, 0.9f, 0.3f); // collider
                case 6: return Color.red;                   // contact
                default: return Color.white;
            }
        }

        static unsafe Vector3 Point(ref SecmoDebugLine line, bool first)
        {
            fixed (float* a = line.a)
            fixed (float* b = line.b)
            {
                float* p = first ? a : b;
                return new Vector3(p[0], p[1], p[2]);
            }
        }

        static unsafe Vector3 Center(ref SecmoDebugSphere sphere)
        {
            fixed (float* c = sphere.center) return new Vector3(c[0], c[1], c[2]);
        }

        internal static SecmoTransform ToSecmo(Transform t) => Make(t.localPosition, t.localRotation, t.localScale);

        internal static void Set(Transform t, SecmoTransform p)
        {
            t.localPosition = new Vector3(p.tx, p.ty, p.tz);
            t.localRotation = new Quaternion(p.rx, p.ry, p.rz, p.rw);
            t.localScale = new Vector3(p.sx, p.sy, p.sz);
        }

        static SecmoTransform Make(Vector3 p, Quaternion r, Vector3 s) => new SecmoTransform
        {
            tx = p.x, ty = p.y, tz = p.z,
            rx = r.x, ry = r.y, rz = r.z, rw = r.w,
            sx = s.x, sy = s.y, sz = s.z,
        };
    }
}
