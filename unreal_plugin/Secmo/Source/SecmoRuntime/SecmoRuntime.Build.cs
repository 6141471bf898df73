using UnrealBuildTool;

public class SecmoRuntime : ModuleRules
{
	public SecmoRuntime(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = PCHUsageMode.UseExplicitOrSharedPCHs;
		PublicDependencyModuleNames.AddRange(new string[] { "Core", "CoreUObject", "Engine", "AnimGraphRuntime", "secmo" });
		// The rig asset reads rig-settings text (FJsonObject, FJsonSerializer).
		PrivateDependencyModuleNames.AddRange(new string[] { "Json" });
	}
}
