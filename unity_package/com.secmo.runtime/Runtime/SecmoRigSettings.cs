// The settings of a secmo rig: the rig-settings text shared with Unreal and
// the secmo tool (docs/settings.md): springs, rotation constraints,
// correctives, colliders and chains, bones by name, lengths in metres.
using System.IO;
using UnityEngine;

namespace Secmo.Unity
{
    [CreateAssetMenu(menuName = "secmo/Rig Settings", fileName = "SecmoRigSettings")]
    public sealed class SecmoRigSettings : ScriptableObject
    {
        [Tooltip("The rig-settings JSON (docs/settings.md). secmo validates it and names any wrong field.")]
        [TextArea(8, 40)]
        public string settings = "{\n  \"format\": \"secmo-rig-settings\",\n  \"version\": 1\n}";

        /// <summary>Reads a rig-settings file into this asset.</summary>
        public bool ImportFile(string path, out string error)
        {
            error = null;
            if (!File.Exists(path))
            {
                error = path + ": no such file";
                return false;
            }
            string text = File.ReadAllText(path);
            if (!text.Contains("\"secmo-rig-settings\""))
            {
                error = path + ": not a secmo rig-settings file (no \"format\": \"secmo-rig-settings\")";
                return false;
            }
            settings = text;
            return true;
        }

        /// <summary>Writes this asset's settings to a file.</summary>
        public bool ExportFile(string path, out string error)
        {
            error = null;
            try
            {
                File.WriteAllText(path, settings);
                return true;
            }
            catch (IOException e)
            {
                error = path + ": " + e.Message;
                return false;
            }
        }
    }
}
