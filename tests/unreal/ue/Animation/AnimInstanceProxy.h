#pragma once
#include "BoneControllers/AnimNode_SkeletalControlBase.h"
