// Editor menus: create rig settings from a chosen bone chain or from a VRM's
// spring bones, and import or export the rig-settings file.
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using UnityEditor;
using UnityEngine;

namespace Secmo.Unity.Editor
{
    static class SecmoMenus
    {
        [MenuItem("GameObject/secmo/Create Rig Settings From Selected Chain", false, 20)]
        static void FromChain()
        {
            var selected = Selection.activeTransform;
            if (selected == null || selected.parent == null)
            {
                EditorUtility.DisplayDialog("secmo", "Select the first bone of a chain (a tail or a strand).", "OK");
                return;
            }
            var joints = new List<string>();
            for (var t = selected; t != null; t = t.childCount > 0 ? t.GetChild(0) : null) joints.Add(t.name);
            bool hair = EditorUtility.DisplayDialog("secmo", "Which preset?", "Hair", "Tail");
            var json = new StringBuilder();
            json.Append("{\n  \"format\": \"secmo-rig-settings\",\n  \"version\": 1,\n  \"chains\": [ {\n");
            json.Append("    \"preset\": \"").Append(hair ? "hair" : "tail").Append("\",\n");
            json.Append("    \"anchor\": \"").Append(selected.parent.name).Append("\",\n");
            json.Append("    \"joints\": [");
            for (int i = 0; i < joints.Count; i++) json.Append(i == 0 ? "\"" : ", \"").Append(joints[i]).Append('"');
            json.Append("]\n  } ]\n}\n");
            var asset = ScriptableObject.CreateInstance<SecmoRigSettings>();
            if (!asset.FromJson(json.ToString(), out string error))
            {
                EditorUtility.DisplayDialog("secmo", error, "OK");
                return;
            }
            string path = AssetDatabase.GenerateUniqueAssetPath("Assets/" + selected.name + "_SecmoRigSettings.asset");
            AssetDatabase.CreateAsset(asset, path);
            Selection.activeObject = asset;
        }

        // The selected .vrm/.glb/.gltf asset, or a file chosen in a dialog.
        [MenuItem("Assets/secmo/Create Rig Settings From VRM...")]
        static void FromVrm()
        {
            string path = Selection.activeObject != null ? AssetDatabase.GetAssetPath(Selection.activeObject) : "";
            string extension = System.IO.Path.GetExtension(path).ToLowerInvariant();
            if (extension != ".vrm" && extension != ".glb" && extension != ".gltf")
                path = EditorUtility.OpenFilePanelWithFilters("VRM with spring bones", "", new[] { "VRM / glTF", "vrm,glb,gltf" });
            if (string.IsNullOrEmpty(path)) return;
            byte[] file = System.IO.File.ReadAllBytes(path);
            if (!Vrm.TrySettingsFromVrm(file, out string settings, out SecmoStatus _, out string error))
            {
                EditorUtility.DisplayDialog("secmo", path + ": " + error, "OK");
                return;
            }
            // What the settings leave out or change, one console line per field.
            if (Vrm.TryNotes(file, out string[] notes, out SecmoStatus notesStatus, out string notesError))
                foreach (string note in notes)
                    Debug.LogWarning("secmo: " + path + ": " + note);
            var asset = ScriptableObject.CreateInstance<SecmoRigSettings>();
            if (!asset.FromJson(settings, out error))
            {
                EditorUtility.DisplayDialog("secmo", path + ": " + error, "OK");
                return;
            }
            string name = System.IO.Path.GetFileNameWithoutExtension(path);
            string assetPath = AssetDatabase.GenerateUniqueAssetPath("Assets/" + name + "_SecmoRigSettings.asset");
            AssetDatabase.CreateAsset(asset, assetPath);
            Selection.activeObject = asset;
        }

        [MenuItem("Assets/secmo/Import Rig-Settings File...")]
        static void Import()
        {
            if (!(Selection.activeObject is SecmoRigSettings asset)) return;
            string path = EditorUtility.OpenFilePanel("Import secmo rig settings", "", "json");
            if (string.IsNullOrEmpty(path)) return;
            if (!asset.ImportFile(path, out string error)) EditorUtility.DisplayDialog("secmo", error, "OK");
            EditorUtility.SetDirty(asset);
        }

        [MenuItem("Assets/secmo/Export Rig-Settings File...")]
        static void Export()
        {
            if (!(Selection.activeObject is SecmoRigSettings asset)) return;
            string path = EditorUtility.SaveFilePanel("Export secmo rig settings", "", asset.name, "json");
            if (string.IsNullOrEmpty(path)) return;
            if (!asset.ExportFile(path, out string error)) EditorUtility.DisplayDialog("secmo", error, "OK");
        }
    }
}
