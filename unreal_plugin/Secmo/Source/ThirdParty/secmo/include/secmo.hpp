// secmo.hpp — header-only C++17 wrapper over include/secmo.h.
//
// Move-only RAII handles, [[nodiscard]] results, no exceptions (engines build
// with -fno-exceptions), spans for pose buffers, the coordinate conventions of
// Unreal (cm, Z-up) and Unity (m, Y-up), and the small TRS toolkit an engine
// node needs to hand secmo a local pose for a subset of its skeleton. All of it
// is tested by the programs in tests/cpp/. docs/cpp.md explains the rules.
#ifndef SECMO_HPP
#define SECMO_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "secmo.h"

namespace secmo {

// ---------------------------------------------------------------------------
// Spans and results.

/// A pointer and a length; converts from C arrays and from containers with
/// data() and size() (std::vector, std::array, TArray-like wrappers).
template <class T>
class Span {
public:
    constexpr Span() noexcept = default;
    constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}
    template <class C, class = decltype(std::declval<C&>().data())>
    constexpr Span(C& container) noexcept : data_(container.data()), size_(container.size()) {}
    constexpr T* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T* begin() const noexcept { return data_; }
    constexpr T* end() const noexcept { return data_ + size_; }
    constexpr operator Span<const T>() const noexcept { return Span<const T>(data_, size_); }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// A SecmoResult. On failure, message() is the thread's last-error text.
class [[nodiscard]] Status {
public:
    constexpr Status() noexcept = default;
    constexpr explicit Status(SecmoResult code) noexcept : code_(code) {}
    constexpr bool ok() const noexcept { return code_ == SECMO_OK; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    constexpr SecmoResult code() const noexcept { return code_; }
    const char* message() const noexcept { return ok() ? "" : secmo_last_error_message(); }

private:
    SecmoResult code_ = SECMO_OK;
};

/// A value or a failed Status. T is a handle (default-constructible, movable).
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) noexcept : value_(std::move(value)) {}
    Result(Status status) noexcept : status_(status) {}
    bool ok() const noexcept { return status_.ok(); }
    explicit operator bool() const noexcept { return ok(); }
    Status status() const noexcept { return status_; }
    T& value() & noexcept { return value_; }
    T take() && noexcept { return std::move(value_); }

private:
    T value_{};
    Status status_{};
};

// ---------------------------------------------------------------------------
// Handles.

namespace detail {
template <class Raw, void (*Destroy)(Raw*)>
class Handle {
public:
    Handle() noexcept = default;
    explicit Handle(Raw* raw) noexcept : raw_(raw) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            raw_ = std::exchange(other.raw_, nullptr);
        }
        return *this;
    }
    ~Handle() { reset(); }
    void reset() noexcept {
        if (raw_ != nullptr) Destroy(std::exchange(raw_, nullptr));
    }
    Raw* get() const noexcept { return raw_; }
    explicit operator bool() const noexcept { return raw_ != nullptr; }

private:
    Raw* raw_ = nullptr;
};
}  // namespace detail

/// A rig descriptor with struct_size set, metres and Y-up.
inline SecmoRigDesc rig_desc() noexcept {
    SecmoRigDesc d{};
    d.struct_size = sizeof d;
    d.units_per_meter = 1.0f;
    d.up_axis = SECMO_UP_AXIS_Y;
    return d;
}

/// An immutable, shareable rig (reference-counted by the library).
class Rig : public detail::Handle<SecmoRig, secmo_rig_destroy> {
public:
    using Handle::Handle;

    static Result<Rig> create(const SecmoRigDesc& desc) noexcept {
        SecmoRig* raw = nullptr;
        const Status s(secmo_rig_create(&desc, &raw));
        if (!s) return s;
        return Rig(raw);
    }

    /// `skeleton` names the bones; `settings` is a rig-settings text (docs/settings.md).
    static Result<Rig> from_settings(const SecmoRigDesc& skeleton, std::string_view settings) noexcept {
        SecmoRig* raw = nullptr;
        const Status s(secmo_rig_create_from_settings(&skeleton, settings.data(), settings.size(), &raw));
        if (!s) return s;
        return Rig(raw);
    }

    std::uint32_t bone_count() const noexcept { return secmo_rig_bone_count(get()); }

    /// Warnings raised while building the rig.
    std::uint32_t warning_count() const noexcept { return secmo_rig_warning_count(get()); }

    /// The skeleton's size in metres (secmo_rig_size_meters): its bind pose's
    /// largest extent over units_per_meter. Outside 0.05–50 m the rig also
    /// carries a SECMO_WARNING_UNUSUAL_SIZE warning.
    float size_meters() const noexcept {
        float meters = 0.0f;
        secmo_rig_size_meters(get(), &meters);
        return meters;
    }

    /// Warning `index`: its kind (SECMO_WARNING_SHEAR, SECMO_WARNING_CHAIN_ORDER,
    /// SECMO_WARNING_UNUSUAL_SIZE) and
    /// the bone it concerns; false past the count.
    bool warning(std::uint32_t index, std::uint32_t& kind, std::uint32_t& bone) const noexcept {
        return secmo_rig_warning(get(), index, &kind, &bone) == SECMO_OK;
    }
};

/// One update's input.
struct Frame {
    float dt = 0.0f;
    Span<const SecmoTransform> pose;
    /// SECMO_FRAME_TELEPORT; HAS_WORLD and HAS_IMPORTANCE are set from the fields below.
    std::uint32_t flags = 0;
    /// The character's world transform, or null to keep the last one.
    const SecmoTransform* world = nullptr;
    /// Chain LOD importance, or a negative value to keep the last one.
    float importance = -1.0f;

    SecmoFrameInput to_c() const noexcept {
        SecmoFrameInput in{};
        in.struct_size = sizeof in;
        in.flags = flags;
        in.dt = dt;
        in.pose = pose.data();
        in.pose_len = pose.size();
        if (world != nullptr) {
            in.world = *world;
            in.flags |= SECMO_FRAME_HAS_WORLD;
        }
        if (importance >= 0.0f) {
            in.importance = importance;
            in.flags |= SECMO_FRAME_HAS_IMPORTANCE;
        }
        return in;
    }
};

/// Per-instance state. One thread at a time; different characters may be
/// updated from different threads concurrently.
class Character : public detail::Handle<SecmoCharacter, secmo_character_destroy> {
public:
    using Handle::Handle;

    static Result<Character> create(const Rig& rig, const SecmoCharacterDesc* desc = nullptr) noexcept {
        SecmoCharacter* raw = nullptr;
        const Status s(secmo_character_create(rig.get(), desc, &raw));
        if (!s) return s;
        return Character(raw);
    }

    /// Runs one update; `out` may alias `frame.pose` exactly (in place).
    Status update(const Frame& frame, Span<SecmoTransform> out, SecmoUpdateInfo* info = nullptr) noexcept {
        const SecmoFrameInput in = frame.to_c();
        if (info != nullptr) info->struct_size = sizeof *info;
        return Status(secmo_character_update(get(), &in, out.data(), out.size(), info));
    }

    Status update(float dt, Span<const SecmoTransform> pose, Span<SecmoTransform> out) noexcept {
        Frame f;
        f.dt = dt;
        f.pose = pose;
        return update(f, out);
    }

    /// Teleport-style reset of the solver state (the handle stays valid).
    /// Not `reset()`, which, as for every handle, destroys the character.
    Status reset_dynamics() noexcept { return Status(secmo_character_reset(get())); }

    Status set_stage_enabled(std::uint32_t stage, bool enabled) noexcept {
        return Status(secmo_character_set_stage_enabled(get(), stage, enabled ? 1u : 0u));
    }

    Status set_wind(float x, float y, float z) noexcept {
        const float wind[3] = {x, y, z};
        return Status(secmo_character_set_wind(get(), &wind));
    }

    /// Moves every world position the character keeps by (x, y, z): call it
    /// with old − new origin when a SimulationOrigin moves.
    Status shift_world(float x, float y, float z) noexcept {
        const float delta[3] = {x, y, z};
        return Status(secmo_character_shift_world(get(), &delta));
    }

    Status set_chain_params(std::uint32_t chain, const SecmoChainParams& params) noexcept {
        return Status(secmo_character_set_chain_params(get(), chain, &params));
    }

    std::size_t snapshot_size() const noexcept {
        std::size_t n = 0;
        return secmo_character_snapshot_size(get(), &n) == SECMO_OK ? n : 0;
    }

    Status snapshot(Span<std::uint8_t> buffer, std::size_t* written) const noexcept {
        return Status(secmo_character_snapshot(get(), buffer.data(), buffer.size(), written));
    }

    Status restore(Span<const std::uint8_t> buffer) noexcept {
        return Status(secmo_character_restore(get(), buffer.data(), buffer.size()));
    }

    /// Debug lines and spheres of the chains; see SECMO_DEBUG_*.
    Status debug_draw(Span<SecmoDebugLine> lines, std::size_t* line_count, Span<SecmoDebugSphere> spheres,
                      std::size_t* sphere_count) const noexcept {
        return Status(secmo_character_debug_draw(get(), lines.data(), lines.size(), line_count, spheres.data(),
                                                 spheres.size(), sphere_count));
    }
};

/// Every bone name a rig-settings text refers to, one per line, NUL
/// terminated (secmo_settings_bone_names): call with an empty buffer to
/// learn the size (BUFFER_LENGTH, `*out_len` set), then again.
inline Status settings_bone_names(std::string_view settings, char* buffer, std::size_t buffer_len,
                                  std::size_t* out_len) noexcept {
    return Status(secmo_settings_bone_names(settings.data(), settings.size(), buffer, buffer_len, out_len));
}

/// The rig-settings text with every spring's and chain's parameters written
/// out for a rig in `units_per_meter` (secmo_settings_expand), NUL
/// terminated: call with an empty buffer to learn the size, then again.
inline Status settings_expand(std::string_view settings, float units_per_meter, char* buffer,
                              std::size_t buffer_len, std::size_t* out_len) noexcept {
    return Status(
        secmo_settings_expand(settings.data(), settings.size(), units_per_meter, buffer, buffer_len, out_len));
}

/// A batch item for `character` (docs/c-api.md, "Batches"): the item keeps
/// the address of `input`, so `input` and `out` must stay alive until
/// secmo_update_batch returns. Keep the inputs in an array beside the items
/// (`inputs[i] = frame.to_c(); items[i] = batch_item(c, inputs[i], out);`);
/// a temporary such as `frame.to_c()` does not compile (the overload below).
inline SecmoBatchItem batch_item(Character& character, const SecmoFrameInput& input,
                                 Span<SecmoTransform> out) noexcept {
    SecmoBatchItem item{};
    item.struct_size = sizeof item;
    item.character = character.get();
    item.input = &input;
    item.out_pose = out.data();
    item.out_pose_len = out.size();
    return item;
}

/// A temporary input would be gone before secmo_update_batch reads it.
SecmoBatchItem batch_item(Character& character, const SecmoFrameInput&& input, Span<SecmoTransform> out) = delete;

/// Updates `items[first, end)`, writing each item's result; non-overlapping
/// ranges may run on different threads (secmo_update_batch).
inline Status update_batch(SecmoBatchItem* items, std::size_t first, std::size_t end) noexcept {
    return Status(secmo_update_batch(items, first, end));
}

/// A world (docs/c-api.md, "Worlds"): it creates and owns its characters
/// and updates many of them at once, optionally within a CPU budget. Its
/// characters are plain `SecmoCharacter*`, owned by the world: every
/// `secmo_character_*` function works on them, but not
/// `secmo_character_destroy` (use `remove`), so they are not wrapped in
/// the owning `Character`.
class World : public detail::Handle<SecmoWorld, secmo_world_destroy> {
public:
    using Handle::Handle;

    static Result<World> create() noexcept {
        SecmoWorld* raw = nullptr;
        const Status s(secmo_world_create(&raw));
        if (!s) return s;
        return World(raw);
    }

    /// A new character of `rig` in this world (valid until `remove` or the
    /// world's end). Allocates: call between updates.
    Result<SecmoCharacter*> add(const Rig& rig) noexcept {
        SecmoCharacter* raw = nullptr;
        const Status s(secmo_world_add(get(), rig.get(), &raw));
        if (!s) return s;
        return raw;
    }

    Status remove(SecmoCharacter* character) noexcept { return Status(secmo_world_remove(get(), character)); }

    /// Joint-substeps per update, or SECMO_WORLD_NO_BUDGET.
    Status set_budget(std::uint64_t budget) noexcept { return Status(secmo_world_set_budget(get(), budget)); }

    /// Once per frame, before the ranges: checks the items and chooses
    /// every character's level (written into each item's `level`).
    Status plan(SecmoWorldItem* items, std::size_t count) noexcept {
        return Status(secmo_world_plan(get(), items, count));
    }

    /// The planned items `[first, end)`; non-overlapping ranges may run on
    /// different threads at once (nothing else may use the world meanwhile).
    Status update_range(SecmoWorldItem* items, std::size_t first, std::size_t end) noexcept {
        return Status(secmo_world_update_range(get(), items, first, end));
    }

    /// `plan` and one range over all items.
    Status update(SecmoWorldItem* items, std::size_t count) noexcept {
        return Status(secmo_world_update(get(), items, count));
    }
};

/// A world item for `character` (of a World): like `batch_item`, it keeps
/// the address of `input`, which must stay alive until the update returns.
/// `importance`: larger is more important to the budget.
inline SecmoWorldItem world_item(SecmoCharacter* character, const SecmoFrameInput& input, Span<SecmoTransform> out,
                                 float importance = 0.0f) noexcept {
    SecmoWorldItem item{};
    item.struct_size = sizeof item;
    item.character = character;
    item.input = &input;
    item.out_pose = out.data();
    item.out_pose_len = out.size();
    item.importance = importance;
    return item;
}

/// A temporary input would be gone before the update reads it.
SecmoWorldItem world_item(SecmoCharacter* character, const SecmoFrameInput&& input, Span<SecmoTransform> out,
                          float importance = 0.0f) = delete;

// ---------------------------------------------------------------------------
// TRS math (column vectors; quaternions x, y, z, w), no shear.

namespace math {

struct Vec3 {
    float x, y, z;
};
struct Quat {
    float x, y, z, w;
};

inline Quat quat_of(const SecmoTransform& t) noexcept {
    return {t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
}
inline Vec3 vec_of(const float v[3]) noexcept { return {v[0], v[1], v[2]}; }
inline void store(const Vec3& v, float out[3]) noexcept {
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}
inline void store(const Quat& q, float out[4]) noexcept {
    out[0] = q.x;
    out[1] = q.y;
    out[2] = q.z;
    out[3] = q.w;
}

inline Quat mul(const Quat& a, const Quat& b) noexcept {
    return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Quat conjugate(const Quat& q) noexcept { return {-q.x, -q.y, -q.z, q.w}; }
inline Quat normalize(const Quat& q) noexcept {
    const float n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return n > 0.0f ? Quat{q.x / n, q.y / n, q.z / n, q.w / n} : Quat{0.0f, 0.0f, 0.0f, 1.0f};
}
inline Vec3 rotate(const Quat& q, const Vec3& v) noexcept {
    // v' = v + 2w(u×v) + 2u×(u×v), u = (x, y, z)
    const Vec3 u{q.x, q.y, q.z};
    const Vec3 t{2.0f * (u.y * v.z - u.z * v.y), 2.0f * (u.z * v.x - u.x * v.z), 2.0f * (u.x * v.y - u.y * v.x)};
    return {v.x + q.w * t.x + (u.y * t.z - u.z * t.y), v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
            v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

/// Component transform of a child: C = P · L.
inline SecmoTransform compose(const SecmoTransform& parent, const SecmoTransform& local) noexcept {
    const Quat pr = normalize(quat_of(parent));
    const Vec3 scaled{parent.scale[0] * local.translation[0], parent.scale[1] * local.translation[1],
                      parent.scale[2] * local.translation[2]};
    const Vec3 moved = rotate(pr, scaled);
    SecmoTransform out{};
    store(Vec3{parent.translation[0] + moved.x, parent.translation[1] + moved.y, parent.translation[2] + moved.z},
          out.translation);
    store(normalize(mul(pr, normalize(quat_of(local)))), out.rotation);
    for (int i = 0; i < 3; ++i) out.scale[i] = parent.scale[i] * local.scale[i];
    return out;
}

/// Local transform of a child from component transforms: L = P⁻¹ · C.
inline SecmoTransform relative(const SecmoTransform& parent, const SecmoTransform& component) noexcept {
    const Quat inv = conjugate(normalize(quat_of(parent)));
    const Vec3 d = rotate(inv, Vec3{component.translation[0] - parent.translation[0],
                                    component.translation[1] - parent.translation[1],
                                    component.translation[2] - parent.translation[2]});
    SecmoTransform out{};
    store(Vec3{d.x / parent.scale[0], d.y / parent.scale[1], d.z / parent.scale[2]}, out.translation);
    store(normalize(mul(inv, normalize(quat_of(component)))), out.rotation);
    for (int i = 0; i < 3; ++i) out.scale[i] = component.scale[i] / parent.scale[i];
    return out;
}

}  // namespace math

// ---------------------------------------------------------------------------
// Coordinate conventions.
//
// Unreal: X forward, Y right, Z up, centimetres. Unity: X right, Y up,
// Z forward, metres. Both are left-handed, so converting is a cyclic
// permutation of the axes (a proper rotation) plus the unit factor:
// Unity (x, y, z) = Unreal (y, z, x) / 100. Quaternion vector parts and
// per-axis scales permute the same way.

namespace convention {

constexpr float kUnrealUnitsPerMeter = 100.0f;
constexpr float kUnityUnitsPerMeter = 1.0f;

namespace detail {
/// Component i of the result is component `from[i]` of `t`, for the
/// translation, the quaternion's vector part and the scale.
inline SecmoTransform permute_axes(const SecmoTransform& t, const int (&from)[3]) noexcept {
    SecmoTransform o{};
    for (int i = 0; i < 3; ++i) {
        o.translation[i] = t.translation[from[i]];
        o.rotation[i] = t.rotation[from[i]];
        o.scale[i] = t.scale[from[i]];
    }
    o.rotation[3] = t.rotation[3];
    return o;
}
}  // namespace detail

inline SecmoTransform unreal_to_unity(const SecmoTransform& t) noexcept {
    SecmoTransform o = detail::permute_axes(t, {1, 2, 0});
    for (float& x : o.translation) x /= kUnrealUnitsPerMeter;
    return o;
}

inline SecmoTransform unity_to_unreal(const SecmoTransform& t) noexcept {
    SecmoTransform o = detail::permute_axes(t, {2, 0, 1});
    for (float& x : o.translation) x *= kUnrealUnitsPerMeter;
    return o;
}

/// A point or a direction (not a transform): Unity ← Unreal and back.
inline math::Vec3 unreal_to_unity(const math::Vec3& v, float units = kUnrealUnitsPerMeter) noexcept {
    return {v.y / units, v.z / units, v.x / units};
}
inline math::Vec3 unity_to_unreal(const math::Vec3& v, float units = kUnrealUnitsPerMeter) noexcept {
    return {v.z * units, v.x * units, v.y * units};
}

inline void unreal_to_unity(Span<const SecmoTransform> in, Span<SecmoTransform> out) noexcept {
    for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) out[i] = unreal_to_unity(in[i]);
}
inline void unity_to_unreal(Span<const SecmoTransform> in, Span<SecmoTransform> out) noexcept {
    for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) out[i] = unity_to_unreal(in[i]);
}

}  // namespace convention

// ---------------------------------------------------------------------------
// Handing secmo part of an engine skeleton.
//
// An engine node runs secmo on the bones it needs (the solver bones and their
// ancestors), not on the whole skeleton. `subset_parents` gives the parent of
// each used bone inside the subset; `to_local` and `to_component` convert the
// engine's component-space transforms of the subset to the local pose secmo
// reads and back.

namespace bridge {

/// `used` lists full-skeleton bone indices in increasing order (parents come
/// first). `out_parents[i]` receives the subset index of the nearest used
/// ancestor of used[i], or -1. Returns false when a used index is out of range
/// or the list is not increasing.
inline bool subset_parents(Span<const std::int32_t> full_parents, Span<const std::int32_t> used,
                           Span<std::int32_t> out_parents) noexcept {
    if (out_parents.size() < used.size()) return false;
    for (std::size_t i = 0; i < used.size(); ++i) {
        const std::int32_t bone = used[i];
        if (bone < 0 || static_cast<std::size_t>(bone) >= full_parents.size()) return false;
        if (i > 0 && used[i - 1] >= bone) return false;
        out_parents[i] = -1;
        std::int32_t ancestor = full_parents[bone];
        while (ancestor >= 0 && out_parents[i] < 0) {
            for (std::size_t j = 0; j < i; ++j) {
                if (used[j] == ancestor) {
                    out_parents[i] = static_cast<std::int32_t>(j);
                    break;
                }
            }
            ancestor = full_parents[ancestor];
        }
    }
    return true;
}

/// Local transforms of the subset from component-space transforms.
inline void to_local(Span<const std::int32_t> parents, Span<const SecmoTransform> component,
                     Span<SecmoTransform> local) noexcept {
    for (std::size_t i = 0; i < parents.size(); ++i)
        local[i] = parents[i] < 0 ? component[i] : math::relative(component[parents[i]], component[i]);
}

/// Component-space transforms of the subset from local transforms.
inline void to_component(Span<const std::int32_t> parents, Span<const SecmoTransform> local,
                         Span<SecmoTransform> component) noexcept {
    for (std::size_t i = 0; i < parents.size(); ++i)
        component[i] = parents[i] < 0 ? local[i] : math::compose(component[parents[i]], local[i]);
}

/// A double-precision origin near the character, for large worlds: an
/// engine passes its world transform to secmo relative to this origin, so
/// float precision is that of the distance from it, not from the level's
/// origin (a walk 10 km out then moves like the same walk at the origin).
/// The origin jumps to the character when it is farther than `step` from it;
/// passing the returned shift to `Character::shift_world` keeps the motion
/// exactly continuous across the jump.
class SimulationOrigin {
public:
    explicit SimulationOrigin(double step = 100000.0) noexcept : step_(step) {}

    /// `location` (level space, double) relative to the origin, as float;
    /// the first call, or one farther than `step` from the origin, moves
    /// the origin to `location` first. Returns true when the origin moved,
    /// the first call included: then `shift` holds old − new origin (the
    /// level's origin before the first call), for `Character::shift_world`,
    /// so the chains continue without a jump and the floor stays at its
    /// level height.
    bool relative(const double location[3], float out[3], float shift[3] = nullptr) noexcept {
        const double dx = location[0] - origin_[0], dy = location[1] - origin_[1], dz = location[2] - origin_[2];
        bool moved = false;
        if (!set_ || dx * dx + dy * dy + dz * dz > step_ * step_) {
            moved = true;
            for (int i = 0; i < 3; ++i) {
                if (shift != nullptr) shift[i] = static_cast<float>(origin_[i] - location[i]);
                origin_[i] = location[i];
            }
            set_ = true;
        }
        for (int i = 0; i < 3; ++i) out[i] = static_cast<float>(location[i] - origin_[i]);
        return moved;
    }

    /// The origin moves to the character at the next call (a new level, a
    /// respawn); that call's shift is from the origin before, as every
    /// shift the character was told of.
    void reset() noexcept { set_ = false; }

    /// `relative`, telling `character` of every move of the origin (the
    /// first included) through `shift_world`, as an engine node does each
    /// evaluation. False when the shift was refused (then `out` is still
    /// the relative position).
    bool place(Character& character, const double location[3], float out[3]) noexcept {
        float shift[3];
        if (relative(location, out, shift)) return bool(character.shift_world(shift[0], shift[1], shift[2]));
        return true;
    }
    const double* origin() const noexcept { return origin_; }

private:
    double origin_[3] = {0.0, 0.0, 0.0};
    double step_;
    bool set_ = false;
};

/// An engine node's frame time: the engine's delta times add up between
/// evaluations (a mesh not evaluated every tick), and an evaluation takes
/// them. A long frame keeps the motion: up to `max_catch_up` seconds of it
/// are simulated (secmo bounds an update's work on its own; this keeps a
/// hitch from costing more than a few frames' work), and only `teleport()`
/// (the engine's teleport) or a jump past the chains' teleport distance
/// restarts the chains.
class FrameClock {
public:
    explicit FrameClock(float max_catch_up = 0.25f) noexcept : max_catch_up_(max_catch_up) {}

    void add(float dt) noexcept { pending_ += dt > 0.0f ? dt : 0.0f; }
    void teleport() noexcept { flags_ |= SECMO_FRAME_TELEPORT; }
    /// Sets `frame.dt` and adds the pending flags to `frame.flags`; the
    /// pending time and flags are taken.
    void take(Frame& frame) noexcept {
        frame.dt = pending_ < max_catch_up_ ? pending_ : max_catch_up_;
        frame.flags |= flags_;
        pending_ = 0.0f;
        flags_ = 0;
    }
    void clear() noexcept {
        pending_ = 0.0f;
        flags_ = 0;
    }

private:
    float pending_ = 0.0f;
    std::uint32_t flags_ = 0;
    float max_catch_up_;
};

}  // namespace bridge

}  // namespace secmo

#endif  // SECMO_HPP
