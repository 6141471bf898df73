// Behavioural stand-ins for the UnityEngine types SecmoCharacter uses, so
// that tests/csharp/ComponentTests.cs can run the component's per-frame
// logic under Mono (not in Unity): a transform hierarchy with local TRS,
// depth-first GetComponentsInChildren, a settable Time.deltaTime. World
// transforms are not modelled (the test's root has no parent).
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public class Object
    {
        bool destroyed;
        public string name { get; set; } = "";
        /// <summary>Destroyed objects read as false, as in Unity.</summary>
        public static implicit operator bool(Object o) => !ReferenceEquals(o, null) && !o.destroyed;
        public static void Destroy(Object o) => o.destroyed = true;
    }

    public class ScriptableObject : Object
    {
        public static T CreateInstance<T>() where T : ScriptableObject, new() => new T();
    }

    public class Component : Object
    {
        Transform own;
        public Transform transform { get => own ?? this as Transform; set => own = value; }
    }

    public class Behaviour : Component
    {
        bool on = true;
        internal Action onEnable, onDisable;
        internal bool live;

        /// <summary>As in Unity: on a behaviour in a running scene (Player.Add), setting it calls OnEnable or OnDisable at once.</summary>
        public bool enabled
        {
            get => on;
            set
            {
                if (on == value) return;
                on = value;
                if (live) (value ? onEnable : onDisable)?.Invoke();
            }
        }
    }

    public class MonoBehaviour : Behaviour { }

    public class Transform : Component
    {
        readonly List<Transform> children = new List<Transform>();
        Transform parentField;
        public Vector3 localPosition { get; set; }
        public Quaternion localRotation { get; set; } = new Quaternion(0f, 0f, 0f, 1f);
        public Vector3 localScale { get; set; } = new Vector3(1f, 1f, 1f);
        public Vector3 position => localPosition;
        public Quaternion rotation => localRotation;
        public Vector3 lossyScale => localScale;
        /// <summary>The local +Z axis turned by localRotation (no parents here).</summary>
        public Vector3 forward
        {
            get
            {
                var q = localRotation;
                return new Vector3(2f * (q.x * q.z + q.w * q.y), 2f * (q.y * q.z - q.w * q.x), 1f - 2f * (q.x * q.x + q.y * q.y));
            }
        }
        public Transform parent
        {
            get => parentField;
            set
            {
                parentField?.children.Remove(this);
                parentField = value;
                value?.children.Add(this);
            }
        }
        public int childCount => children.Count;
        public Transform GetChild(int index) => children[index];
        public T[] GetComponentsInChildren<T>(bool includeInactive) where T : class
        {
            var all = new List<T>();
            Collect(all);
            return all.ToArray();
        }
        void Collect<T>(List<T> all) where T : class
        {
            if (this is T me) all.Add(me);
            foreach (var c in children) c.Collect(all);
        }
    }

    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static Vector3 Lerp(Vector3 a, Vector3 b, float t) => new Vector3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
    }

    public struct Quaternion
    {
        public float x, y, z, w;
        public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
        public static Quaternion Slerp(Quaternion a, Quaternion b, float t) => t >= 1f ? b : a;
    }

    public class WindZone : Component
    {
        public float windMain { get; set; }
    }

    public struct Color
    {
        public float r, g, b, a;
        public Color(float r, float g, float b, float a = 1f) { this.r = r; this.g = g; this.b = b; this.a = a; }
        public static Color red => new Color(1f, 0f, 0f);
        public static Color white => new Color(1f, 1f, 1f);
    }

    public static class Time
    {
        public static float deltaTime { get; set; }
        public static float unscaledDeltaTime { get; set; }
        public static float fixedDeltaTime { get; set; } = 0.02f;
        public static float timeScale { get; set; } = 1f;
    }

    public enum AnimatorUpdateMode { Normal = 0, AnimatePhysics = 1, UnscaledTime = 2 }

    public enum AnimatorCullingMode { AlwaysAnimate = 0, CullUpdateTransforms = 1, CullCompletely = 2 }

    /// <summary>
    /// The Animator as Unity documents it, with a clip given as code
    /// (`clip(time)` writes the pose of the bones the clip keys; a bone it
    /// does not key is not written). Normal: evaluated after every
    /// MonoBehaviour.Update, on Time.deltaTime. UnscaledTime: the same phase,
    /// on Time.unscaledDeltaTime. AnimatePhysics: evaluated in the fixed-step
    /// loop, after FixedUpdate, once per fixed step (none in a frame shorter
    /// than what is left of the step; several in a long one), on
    /// Time.fixedDeltaTime. Off screen (`visible` false, the stand-in for its
    /// renderers' visibility): CullCompletely stops it (no time, no writes);
    /// CullUpdateTransforms advances its time but writes no transform.
    /// </summary>
    public sealed class Animator : Behaviour
    {
        public AnimatorUpdateMode updateMode;
        public AnimatorCullingMode cullingMode;
        public Action<float> clip;
        public bool visible = true;
        /// <summary>The clip time of the last evaluation.</summary>
        public float time;
        /// <summary>Evaluations that wrote the pose.</summary>
        public int writes;

        internal void Evaluate(float dt)
        {
            if (!enabled) return;
            if (!visible && cullingMode == AnimatorCullingMode.CullCompletely) return;
            time += dt;
            if (!visible && cullingMode != AnimatorCullingMode.AlwaysAnimate) return;
            clip?.Invoke(time);
            writes++;
        }
    }

    /// <summary>
    /// Unity's player loop for the behaviours added to it, in the documented
    /// order of event functions: the fixed-step loop (FixedUpdate, then the
    /// Animators in AnimatePhysics mode, once per fixed step due), Update,
    /// the Animators in Normal and UnscaledTime mode, LateUpdate. Behaviours
    /// run by DefaultExecutionOrder, then in the order they were added;
    /// OnEnable runs when an enabled behaviour is added, and setting `enabled`
    /// calls OnEnable/OnDisable at once.
    /// </summary>
    public sealed class Player
    {
        sealed class Entry
        {
            public Behaviour behaviour;
            public int order;
            public Action fixedUpdate, update, lateUpdate;
        }

        readonly System.Collections.Generic.List<Entry> entries = new System.Collections.Generic.List<Entry>();
        readonly System.Collections.Generic.List<Animator> animators = new System.Collections.Generic.List<Animator>();
        double time, fixedTime;

        static Action Message(Behaviour b, string name)
        {
            var m = b.GetType().GetMethod(name, System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic);
            return m == null ? null : (Action)Delegate.CreateDelegate(typeof(Action), b, m);
        }

        public T Add<T>(T b) where T : Behaviour
        {
            if (b is Animator a)
            {
                animators.Add(a);
                return b;
            }
            int order = 0;
            foreach (var attr in b.GetType().GetCustomAttributes(typeof(DefaultExecutionOrder), true)) order = ((DefaultExecutionOrder)attr).order;
            var e = new Entry
            {
                behaviour = b,
                order = order,
                fixedUpdate = Message(b, "FixedUpdate"),
                update = Message(b, "Update"),
                lateUpdate = Message(b, "LateUpdate"),
            };
            int at = entries.Count;
            while (at > 0 && entries[at - 1].order > order) at--;
            entries.Insert(at, e);
            b.onEnable = Message(b, "OnEnable");
            b.onDisable = Message(b, "OnDisable");
            b.live = true;
            if (b.enabled) b.onEnable?.Invoke();
            return b;
        }

        /// <summary>One frame of `dt` seconds (scaled by Time.timeScale for deltaTime).</summary>
        public void Frame(float dt)
        {
            time += dt * Time.timeScale;
            Time.unscaledDeltaTime = dt;
            float step = Time.fixedDeltaTime;
            while (fixedTime + step <= time + 1e-9)
            {
                fixedTime += step;
                Time.deltaTime = step;
                for (int i = 0; i < entries.Count; i++)
                    if (entries[i].behaviour.enabled) entries[i].fixedUpdate?.Invoke();
                for (int i = 0; i < animators.Count; i++)
                    if (animators[i].updateMode == AnimatorUpdateMode.AnimatePhysics) animators[i].Evaluate(step);
            }
            Time.deltaTime = dt * Time.timeScale;
            for (int i = 0; i < entries.Count; i++)
                if (entries[i].behaviour.enabled) entries[i].update?.Invoke();
            for (int i = 0; i < animators.Count; i++)
            {
                var a = animators[i];
                if (a.updateMode == AnimatorUpdateMode.Normal) a.Evaluate(Time.deltaTime);
                else if (a.updateMode == AnimatorUpdateMode.UnscaledTime) a.Evaluate(dt);
            }
            for (int i = 0; i < entries.Count; i++)
                if (entries[i].behaviour.enabled) entries[i].lateUpdate?.Invoke();
        }
    }

    public static class Gizmos
    {
        public static Color color { get; set; }
        public static void DrawLine(Vector3 from, Vector3 to) { }
        public static void DrawWireSphere(Vector3 center, float radius) { }
    }

    public static class Debug
    {
        public static int Errors, Warnings;
        public static string LastError, LastWarning;
        public static void LogWarning(object message) => LogWarning(message, null);
        public static void LogWarning(object message, Object context)
        {
            Warnings++;
            LastWarning = message.ToString();
            Console.Error.WriteLine(message);
        }
        public static void LogError(object message) => LogError(message, null);
        public static void LogError(object message, Object context)
        {
            Errors++;
            LastError = message.ToString();
            Console.Error.WriteLine(message);
        }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class DefaultExecutionOrder : Attribute { public readonly int order; public DefaultExecutionOrder(int order) { this.order = order; } }
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class DisallowMultipleComponent : Attribute { }
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CreateAssetMenuAttribute : Attribute
    {
        public string menuName { get; set; }
        public string fileName { get; set; }
    }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class HideInInspector : Attribute { }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TooltipAttribute : Attribute { public TooltipAttribute(string tooltip) { } }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class RangeAttribute : Attribute { public readonly float min, max; public RangeAttribute(float min, float max) { this.min = min; this.max = max; } }
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TextAreaAttribute : Attribute { public TextAreaAttribute(int minLines, int maxLines) { } }
}
