#pragma once
#include "CoreMinimal.h"
class IModuleInterface { public: virtual ~IModuleInterface() = default; };
class FDefaultModuleImpl : public IModuleInterface {};
#define IMPLEMENT_MODULE(Impl, Name) [[maybe_unused]] static Impl Name##_module_instance;
