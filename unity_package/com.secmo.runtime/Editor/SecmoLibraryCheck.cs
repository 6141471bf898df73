// When the editor loads the package: one clear error if the native library
// for the editor's platform is missing (a package added from the git URL has
// none), naming the platform and the command that provides it.
using Secmo;
using UnityEditor;
using UnityEngine;

namespace Secmo.Unity.Editor
{
    [InitializeOnLoad]
    static class SecmoLibraryCheck
    {
        static SecmoLibraryCheck()
        {
            string error = SecmoNative.CheckLibrary();
            if (error != null) Debug.LogError(error);
        }
    }
}
