// secmo.hpp (and secmo.h) may be included more than once.
#include "secmo.hpp"
#include "secmo.h"
#include "secmo.hpp"

#include <type_traits>

static_assert(!std::is_copy_constructible<secmo::Rig>::value, "handles are move-only");
static_assert(std::is_nothrow_move_constructible<secmo::Character>::value, "moves never throw");
static_assert(sizeof(SecmoTransform) == 40, "layout");

int main() { return secmo_abi_version() == SECMO_ABI_VERSION ? 0 : 1; }
