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
}
