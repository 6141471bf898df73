// Minimal stand-ins for the UnrealBuildTool types the plugin's Build.cs files
// use (ModuleRules, ReadOnlyTargetRules, UnrealTargetPlatform, BuildException;
// names and shapes as in UE 5.4/5.5's UnrealBuildTool and as KawaiiPhysics'
// Build.cs files use them), so that tests/unreal_plugin.rs can compile every
// Build.cs with Mono and run the ThirdParty module's rules for each platform.
using System;
using System.Collections.Generic;

namespace UnrealBuildTool
{
    public enum PCHUsageMode { Default, NoPCHs, NoSharedPCHs, UseSharedPCHs, UseExplicitOrSharedPCHs }

    public class BuildException : Exception
    {
        public BuildException(string message) : base(message) { }
    }

    /// UE 5's platform is a struct-like type with a static field per platform.
    public sealed class UnrealTargetPlatform
    {
        readonly string name;
        UnrealTargetPlatform(string name) { this.name = name; }
        public static readonly UnrealTargetPlatform Win64 = new UnrealTargetPlatform("Win64");
        public static readonly UnrealTargetPlatform Mac = new UnrealTargetPlatform("Mac");
        public static readonly UnrealTargetPlatform Linux = new UnrealTargetPlatform("Linux");
        public static readonly UnrealTargetPlatform LinuxArm64 = new UnrealTargetPlatform("LinuxArm64");
        public static readonly UnrealTargetPlatform Android = new UnrealTargetPlatform("Android");
        public static readonly UnrealTargetPlatform IOS = new UnrealTargetPlatform("IOS");
        public static readonly UnrealTargetPlatform TVOS = new UnrealTargetPlatform("TVOS");
        public override string ToString() => name;
    }

    public class ReadOnlyTargetRules
    {
        public UnrealTargetPlatform Platform { get; }
        public ReadOnlyTargetRules(UnrealTargetPlatform platform) { Platform = platform; }
    }

    public class ModuleRules
    {
        public enum ModuleType { CPlusPlus, External }
        public ModuleType Type = ModuleType.CPlusPlus;
        public PCHUsageMode PCHUsage = PCHUsageMode.Default;
        public string ModuleDirectory = "/Plugin/Source/ThirdParty/secmo";
        public List<string> PublicDependencyModuleNames = new List<string>();
        public List<string> PrivateDependencyModuleNames = new List<string>();
        public List<string> PublicSystemIncludePaths = new List<string>();
        public List<string> PublicAdditionalLibraries = new List<string>();
        public List<string> PublicSystemLibraries = new List<string>();
        public ModuleRules(ReadOnlyTargetRules Target) { }
    }
}

// Runs the ThirdParty module's rules for every platform and prints what each
// links (or the build error).
public static class BuildRulesCheck
{
    public static int Main()
    {
        foreach (var p in new[] {
            UnrealBuildTool.UnrealTargetPlatform.Win64, UnrealBuildTool.UnrealTargetPlatform.Mac,
            UnrealBuildTool.UnrealTargetPlatform.Linux, UnrealBuildTool.UnrealTargetPlatform.Android,
            UnrealBuildTool.UnrealTargetPlatform.IOS, UnrealBuildTool.UnrealTargetPlatform.TVOS })
        {
            try
            {
                var rules = new secmo(new UnrealBuildTool.ReadOnlyTargetRules(p));
                Console.WriteLine(p + ": " + string.Join(" ", rules.PublicAdditionalLibraries).Replace('\\', '/')
                    + (rules.Type == UnrealBuildTool.ModuleRules.ModuleType.External ? " (external)" : ""));
            }
            catch (UnrealBuildTool.BuildException e)
            {
                Console.WriteLine(p + ": error: " + e.Message);
            }
        }
        new SecmoRuntime(new UnrealBuildTool.ReadOnlyTargetRules(UnrealBuildTool.UnrealTargetPlatform.Linux));
        new SecmoEditor(new UnrealBuildTool.ReadOnlyTargetRules(UnrealBuildTool.UnrealTargetPlatform.Linux));
        return 0;
    }
}
