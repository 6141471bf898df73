// The secmo static library and its headers. `cargo xtask unreal-thirdparty`
// (in the secmo repository) builds the library for every platform its host
// can build, copies it under lib/<Platform>/, and prints the commands for the
// others (docs/unreal.md).
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
			// System libraries the Rust standard library links against, as
			// rustc printed them for this target when `cargo xtask
			// unreal-thirdparty` built the library (lib/Win64/secmo.libs);
			// the list of current rustc releases without that file.
			string Listed = Path.Combine(LibDir, "Win64", "secmo.libs");
			string[] Libraries = File.Exists(Listed)
				? File.ReadAllLines(Listed)
				: new string[] { "kernel32.lib", "advapi32.lib", "ntdll.lib", "userenv.lib", "ws2_32.lib", "dbghelp.lib" };
			foreach (string Library in Libraries)
			{
				if (Library.Trim().EndsWith(".lib"))
				{
					PublicSystemLibraries.Add(Library.Trim());
				}
			}
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
		else
		{
			throw new BuildException("secmo: no library for " + Target.Platform.ToString()
				+ "; secmo ships Win64, Mac, Linux, Android (arm64) and IOS (docs/unreal.md)");
		}
	}
}
