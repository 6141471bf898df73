// Minimal stand-ins for the UnityEditor types the package's Editor scripts
// use, so that tests/csharp.rs can compile Editor/*.cs with Mono's compiler
// (names, signatures, syntax; nothing runs). Signatures follow Unity's
// scripting reference.
using System;

namespace UnityEditor
{
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class MenuItem : Attribute
    {
        public MenuItem(string itemName) { }
        public MenuItem(string itemName, bool isValidateFunction, int priority) { }
    }

    public static class Selection
    {
        public static UnityEngine.Transform activeTransform { get; set; }
        public static UnityEngine.Object activeObject { get; set; }
    }

    public static class EditorUtility
    {
        public static bool DisplayDialog(string title, string message, string ok) => true;
        public static bool DisplayDialog(string title, string message, string ok, string cancel) => true;
        public static string OpenFilePanel(string title, string directory, string extension) => "";
        public static string OpenFilePanelWithFilters(string title, string directory, string[] filters) => "";
        public static string SaveFilePanel(string title, string directory, string defaultName, string extension) => "";
        public static void SetDirty(UnityEngine.Object target) { }
    }

    public static class AssetDatabase
    {
        public static string GenerateUniqueAssetPath(string path) => path;
        public static void CreateAsset(UnityEngine.Object asset, string path) { }
        public static string GetAssetPath(UnityEngine.Object assetObject) => "";
    }

    public class Editor : UnityEngine.ScriptableObject
    {
        public UnityEngine.Object target { get; }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CustomEditor : Attribute
    {
        public CustomEditor(Type inspectedType) { }
    }

    [Flags]
    public enum GizmoType { Pickable = 1, NotInSelectionHierarchy = 2, NonSelected = 32, Selected = 4, Active = 8, InSelectionHierarchy = 16 }

    [AttributeUsage(AttributeTargets.Method)]
    public sealed class DrawGizmo : Attribute
    {
        public DrawGizmo(GizmoType gizmo) { }
    }

    public static class Handles
    {
        public static UnityEngine.Color color { get; set; }
        public static UnityEngine.Vector3 PositionHandle(UnityEngine.Vector3 position, UnityEngine.Quaternion rotation) => position;
        public static float RadiusHandle(UnityEngine.Quaternion rotation, UnityEngine.Vector3 position, float radius) => radius;
        public static void DrawWireDisc(UnityEngine.Vector3 center, UnityEngine.Vector3 normal, float radius) { }
    }

    public static class EditorGUI
    {
        public static void BeginChangeCheck() { }
        public static bool EndChangeCheck() => false;
    }

    public static class Undo
    {
        public static void RecordObject(UnityEngine.Object objectToUndo, string name) { }
    }
}
