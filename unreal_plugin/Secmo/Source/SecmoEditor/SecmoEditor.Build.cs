using UnrealBuildTool;

public class SecmoEditor : ModuleRules
{
	public SecmoEditor(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;
		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine", "AnimGraph", "AnimGraphRuntime", "BlueprintGraph", "SecmoRuntime", "secmo" });
		PrivateDependencyModuleNames.AddRange(new string[] { "UnrealEd" });
	}
}
