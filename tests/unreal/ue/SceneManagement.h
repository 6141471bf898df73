#pragma once
#include "CoreMinimal.h"
enum ESceneDepthPriorityGroup { SDPG_World, SDPG_Foreground };
class FPrimitiveDrawInterface {
public:
    virtual ~FPrimitiveDrawInterface() = default;
    virtual void DrawLine(const FVector& Start, const FVector& End, const FLinearColor& Color, uint8 DepthPriorityGroup,
                          float Thickness = 0.0f, float DepthBias = 0.0f, bool bScreenSpace = false) = 0;
};
void DrawWireSphere(FPrimitiveDrawInterface* PDI, const FTransform& Transform, const FLinearColor& Color, double Radius,
                    int32 NumSides, uint8 DepthPriority, float Thickness = 0, float DepthBias = 0, bool bScreenSpace = false);
