// One native call per frame for every SecmoCharacter in the scene.
//
// Without a manager each SecmoCharacter updates itself in its LateUpdate
// (one secmo call per character). Add one SecmoManager to the scene and the
// characters hand over: in its LateUpdate (execution order 10000, after the
// Animator and gameplay scripts; characters then do nothing in theirs) the
// manager reads every character's animated pose, runs them all with one
// secmo_update_batch call, and writes the results back. The results are the
// ones each character would compute alone, bit for bit. Zero managed
// allocation per frame: the item array grows only when characters are
// enabled, and each character keeps its buffers pinned while enabled.
//
// Not done yet (issue #15 item 3): reading and writing the transforms through
// TransformAccessArray jobs; the manager reads and writes them on the main
// thread.
using System;
using System.Collections.Generic;
using UnityEngine;

namespace Secmo.Unity
{
    [DefaultExecutionOrder(10000)] // after the Animator and gameplay scripts
    [DisallowMultipleComponent]
    public sealed class SecmoManager : MonoBehaviour
    {
        static readonly List<SecmoCharacter> characters = new List<SecmoCharacter>();
        static SecmoManager active;
        SecmoBatchItem[] items = new SecmoBatchItem[0];

        /// <summary>True while an enabled manager updates the characters (they skip their own update).</summary>
        public static bool Batching => active != null;

        /// <summary>The characters updated this frame by the last batch.</summary>
        public int CharacterCount { get; private set; }

        /// <summary>Native calls made by the last LateUpdate: 1 with any character, else 0.</summary>
        public int NativeCalls { get; private set; }

        internal static void Register(SecmoCharacter character)
        {
            if (!characters.Contains(character)) characters.Add(character);
        }

        internal static void Unregister(SecmoCharacter character) => characters.Remove(character);

        void OnEnable()
        {
            if (active != null && active != this)
            {
                Debug.LogWarning("secmo: a second SecmoManager (" + name + ") is ignored; " + active.name + " updates the characters", this);
                return;
            }
            active = this;
        }

        void OnDisable()
        {
            if (active == this) active = null;
        }

        unsafe void LateUpdate()
        {
            NativeCalls = 0;
            if (active != this) return;
            // A character whose driven transform was destroyed disables itself
            // (and leaves the list) here, before any pointer is taken.
            for (int i = characters.Count - 1; i >= 0; i--) characters[i].CheckBones();
            int n = characters.Count;
            CharacterCount = n;
            if (n == 0) return;
            if (items.Length < n) items = new SecmoBatchItem[Math.Max(n, 2 * items.Length)];
            for (int i = 0; i < n; i++) characters[i].Prepare(ref items[i]);
            fixed (SecmoBatchItem* p = items)
            {
                SecmoNative.secmo_update_batch(p, UIntPtr.Zero, (UIntPtr)n);
            }
            NativeCalls = 1;
            for (int i = 0; i < n; i++) characters[i].Finish(items[i].result);
        }
    }
}
