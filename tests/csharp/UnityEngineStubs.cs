// Minimal stand-ins for the UnityEngine types the package's Runtime scripts
// use, so that tests/csharp.rs can compile Runtime/*.cs with Mono's compiler.
// This checks that the scripts compile (names, signatures, syntax); it does
// not run them in Unity. Signatures follow Unity's scripting reference.
using System;

namespace UnityEngine
{
    public class Object
    {
        public string name { get; set; }
        public static implicit operator bool(Object o) => o != null;
    }

    public class ScriptableObject : Object
    {
        public static T CreateInstance<T>() where T : ScriptableObject, new() => new T();
    }

    public class Component : Object
    {
        public Transform transform { get; }
        public T[] GetComponentsInChildren<T>(bool includeInactive) => new T[0];
    }

    public class Behaviour : Component
    {
        public bool enabled { get; set; }
    }

    public class MonoBehaviour : Behaviour { }

    public class Transform : Component
    {
        public Vector3 localPosition { get; set; }
        public Quaternion localRotation { get; set; }
        public Vector3 localScale { get; set; }
        public Vector3 position { get; set; }
        public Quaternion rotation { get; set; }
        public Vector3 lossyScale { get; }
        public Vector3 forward { get; }
        public Transform parent { get; set; }
        public int childCount { get; }
        public Transform GetChild(int index) => null;
        public new T[] GetComponentsInChildren<T>(bool includeInactive) => new T[0];
        public Vector3 TransformPoint(Vector3 position) => position;
        public Vector3 InverseTransformPoint(Vector3 position) => position;
        public Vector3 TransformDirection(Vector3 direction) => direction;
    }

    public static class Application
    {
        public static bool isPlaying => false;
    }

    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static Vector3 Lerp(Vector3 a, Vector3 b, float t) => new Vector3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
        public static Vector3 zero => new Vector3(0f, 0f, 0f);
        public static Vector3 operator +(Vector3 a, Vector3 b) => new Vector3(a.x + b.x, a.y + b.y, a.z + b.z);
        public static Vector3 operator *(Vector3 a, float d) => new Vector3(a.x * d, a.y * d, a.z * d);
    }

    public struct Quaternion
    {
        public float x, y, z, w;
        public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
        public static Quaternion Slerp(Quaternion a, Quaternion b, float t) => b;
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
        public static float deltaTime => 0f;
        public static float unscaledDeltaTime => 0f;
    }

    public static class Gizmos
    {
        public static Color color { get; set; }
        public static void DrawLine(Vector3 from, Vector3 to) { }
        public static void DrawWireSphere(Vector3 center, float radius) { }
    }

    public static class Debug
    {
        public static void LogWarning(object message) { }
        public static void LogWarning(object message, Object context) { }
        public static void LogError(object message) { }
        public static void LogError(object message, Object context) { }
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
