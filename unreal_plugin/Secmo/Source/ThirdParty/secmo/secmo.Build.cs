// The secmo static library and its headers. scripts/build-unreal-thirdparty
// builds the library for the host and copies it under lib/<Platform>/;
// docs/unreal.md gives the cross-compilation commands for the other platforms.
using System.IO;
using UnrealBuildTool;

public class secmo : ModuleRules
{
	public secmo(ReadOnlyTargetRules Target) : base(Target)
	{
		Type = ModuleType.External;
		PublicSystemIncludePaths.Add(Path.Combine(ModuleDirectory, "include"));
		string LibDir = Path.Combine(ModuleDirectory, "lib");

		if (Target.Platform == UnrealTargetPlatform.Win64)
		{
			PublicAdditionalLibraries.Add(Path.Combine(LibDir, "Win64", "secmo.lib"));
			// System libraries the Rust standard library links against.
			PublicSystemLibraries.AddRange(new string[] { "ws2_32.lib", "userenv.lib", "bcrypt.lib", "ntdll.lib" });
		}
		else if (Target.Platform == UnrealTargetPlatform.Linux)
		{
			PublicAdditionalLibraries.Add(Path.Combine(LibDir, "Linux", "libsecmo.a"));
		}
		else if (Target.Platform == UnrealTargetPlatform.Mac)
		{
			PublicAdditionalLibraries.Add(Path.Combine(LibDir, "Mac", "libsecmo.a"));
		}
		else if (Target.Platform == UnrealTargetPlatform.Android)
		{
			PublicAdditionalLibraries.Add(Path.Combine(LibDir, "Android", "arm64-v8a", "libsecmo.a"));
		}
		else if (Target.Platform == UnrealTargetPlatform.IOS)
		{
			PublicAdditionalLibraries.Add(Path.Combine(LibDir, "IOS", "libsecmo.a"));
		}
	}
}
