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
        public bool enabled { get; set; } = true;
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
    }

    public static class Gizmos
    {
        public static Color color { get; set; }
        public static void DrawLine(Vector3 from, Vector3 to) { }
        public static void DrawWireSphere(Vector3 center, float radius) { }
    }

    public static class Debug
    {
        public static int Errors;
        public static void LogWarning(object message) => Console.Error.WriteLine(message);
        public static void LogWarning(object message, Object context) => Console.Error.WriteLine(message);
        public static void LogError(object message, Object context)
        {
            Errors++;
            Console.Error.WriteLine(message);
        }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class DefaultExecutionOrder : Attribute { public DefaultExecutionOrder(int order) { } }
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
