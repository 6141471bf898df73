// A model of exactly the Unreal Engine 5.4/5.5 declarations the secmo plugin
// uses, for compiling its .cpp files with -fsyntax-only where no UE SDK
// exists (tests/unreal_plugin.rs). Each declaration follows the engine's
// public headers as public plugins that compile on those versions use them
// (KawaiiPhysics, AnimNode_RigidBody; docs/unreal.md lists where each was
// checked). What UnrealHeaderTool requires is modelled too: TStructOpsTypeTraits
// with WithCopy defaulting to true, checked by static_asserts in checks.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using int32 = std::int32_t;
using uint32 = std::uint32_t;
using uint8 = std::uint8_t;
using int64 = std::int64_t;
using TCHAR = char16_t;
#define TEXT(x) u##x

#define USTRUCT(...)
#define UCLASS(...)
#define UPROPERTY(...)
#define UFUNCTION(...)
#define UENUM(...)
#define GENERATED_BODY()
#define SECMORUNTIME_API
#define SECMOEDITOR_API
#define WITH_EDITOR 1

template <class T> std::remove_reference_t<T>&& MoveTemp(T&& v) { return static_cast<std::remove_reference_t<T>&&>(v); }

/// UHT's per-struct options; WithCopy is true unless a specialization says otherwise.
template <class T> struct TStructOpsTypeTraitsBase2 {
    enum { WithCopy = true };
};
template <class T> struct TStructOpsTypeTraits : TStructOpsTypeTraitsBase2<T> {};

template <class T> class TArray {
public:
    int32 Num() const { return int32(v_.size()); }
    T* GetData() { return v_.data(); }
    const T* GetData() const { return v_.data(); }
    /// Default-constructs new elements, as the engine's does.
    void SetNum(int32 n) { v_.resize(size_t(n)); }
    void SetNumUninitialized(int32 n) { v_.resize(size_t(n)); }
    void Reset(int32 slack = 0) { v_.clear(); v_.reserve(size_t(slack)); }
    void Empty(int32 slack = 0) { Reset(slack); }
    void Reserve(int32 n) { v_.reserve(size_t(n)); }
    int32 Add(const T& x) { v_.push_back(x); return Num() - 1; }
    int32 Add(T&& x) { v_.push_back(std::move(x)); return Num() - 1; }
    template <class... A> int32 Emplace(A&&... a) { v_.emplace_back(std::forward<A>(a)...); return Num() - 1; }
    T& Last() { return v_.back(); }
    T& operator[](int32 i) { return v_[size_t(i)]; }
    const T& operator[](int32 i) const { return v_[size_t(i)]; }
    T* begin() { return v_.data(); }
    T* end() { return v_.data() + v_.size(); }
    const T* begin() const { return v_.data(); }
    const T* end() const { return v_.data() + v_.size(); }
private:
    std::vector<T> v_;
};

namespace UeModel {
/// UE compares FString and FName ignoring case (ESearchCase::IgnoreCase,
/// FName's case-insensitive comparison).
inline bool SameIgnoringCase(const std::u16string& a, const std::u16string& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char16_t x = a[i], y = b[i];
        if (x >= u'A' && x <= u'Z') x = char16_t(x - u'A' + u'a');
        if (y >= u'A' && y <= u'Z') y = char16_t(y - u'A' + u'a');
        if (x != y) return false;
    }
    return true;
}
}  // namespace UeModel

class FString {
public:
    FString() = default;
    FString(const TCHAR* s) : s_(s) {}
    const TCHAR* operator*() const { return s_.c_str(); }
    bool IsEmpty() const { return s_.empty(); }
    void Reset() { s_.clear(); }
    bool Contains(const TCHAR* sub) const { return s_.find(sub) != std::u16string::npos; }
    FString& operator+=(const FString& o) { s_ += o.s_; return *this; }
    FString& operator+=(const TCHAR* o) { s_ += o; return *this; }
    template <class... A> static FString Printf(const TCHAR*, A&&...) { return FString(); }
    /// UE (Containers/String.cpp): printf's %f (six decimals), trailing
    /// zeros dropped down to `MinFractionalDigits`, no negative zero; so
    /// 1.0 is "1.0" and 1e-7 is "0.0".
    static FString SanitizeFloat(double Value, const int32 MinFractionalDigits = 1) {
        if (Value == 0.0) Value = 0.0;
        char buffer[400];
        std::snprintf(buffer, sizeof buffer, "%f", Value);
        std::string text(buffer);
        const size_t dot = text.find('.');
        if (dot != std::string::npos) {
            size_t keep = text.size();
            while (keep > dot + 1 + size_t(MinFractionalDigits) && text[keep - 1] == '0') --keep;
            text.resize(keep);
            if (MinFractionalDigits == 0 && text.back() == '.') text.pop_back();
        }
        if (text == "-0.0" || text == "-0") text.erase(0, 1);
        FString out;
        out.s_.assign(text.begin(), text.end());
        return out;
    }
    static FString FromInt(int32) { return FString(); }
    static FString Join(const TArray<FString>&, const TCHAR*) { return FString(); }
    FString Replace(const TCHAR*, const TCHAR*) const { return *this; }
    FString operator+(const FString& o) const { FString r(*this); r.s_ += o.s_; return r; }
    FString operator+(const TCHAR* o) const { FString r(*this); r.s_ += o; return r; }
    friend FString operator+(const TCHAR* a, const FString& b) { return FString(a) + b; }
    int32 Len() const { return int32(s_.size()); }
    bool operator==(const TCHAR* o) const { return UeModel::SameIgnoringCase(s_, o); }
    bool operator==(const FString& o) const { return UeModel::SameIgnoringCase(s_, o.s_); }
    bool operator!=(const FString& o) const { return !(*this == o); }
private:
    std::u16string s_;
};

class FName {
public:
    FName() = default;
    FName(const TCHAR* s) : s_(s) {}
    FString ToString() const { return s_.empty() ? FString(u"None") : FString(s_.c_str()); }
    bool IsNone() const { return s_.empty() || UeModel::SameIgnoringCase(s_, u"None"); }
    bool operator==(const FName& o) const { return IsNone() ? o.IsNone() : UeModel::SameIgnoringCase(s_, o.s_); }
    bool operator!=(const FName& o) const { return !(*this == o); }
private:
    std::u16string s_;
};

constexpr int32 INDEX_NONE = -1;
inline const FName NAME_None;

/// Templates/SharedPointer.h: shared references and pointers.
template <class T> class TSharedPtr {
public:
    TSharedPtr() = default;
    T* operator->() const { return p_; }
    T& operator*() const { return *p_; }
    bool IsValid() const { return p_ != nullptr; }
    T* Get() const { return p_; }
private:
    T* p_ = nullptr;
};
template <class T> class TSharedRef {
public:
    T* operator->() const { return p_; }
    T& Get() const { return *p_; }
private:
    T* p_ = nullptr;
};

/// Containers/Map.h: a map whose range-for yields pairs with Key and Value.
template <class K, class V> struct TPair {
    K Key;
    V Value;
};
template <class K, class V> class TMap {
public:
    int32 Num() const { return int32(v_.size()); }
    const TPair<K, V>* begin() const { return v_.data(); }
    const TPair<K, V>* end() const { return v_.data() + v_.size(); }
private:
    std::vector<TPair<K, V>> v_;
};

class FText {
public:
    static FText FromString(const FString&) { return FText(); }
    template <class... A> static FText Format(const FText&, A&&...) { return FText(); }
};
#define LOCTEXT(key, text) FText()

/// Containers/StringConv.h: a conversion holds its text in an inline buffer
/// with a pointer into it, so its copy is deleted (and a TArray of them, whose
/// growth relocates elements, is a bug). Keep one as a named local, as public
/// plugins do (`FTCHARToUTF8 Converter(*Text);`).
class FTCHARToUTF8 {
public:
    explicit FTCHARToUTF8(const TCHAR*) {}
    FTCHARToUTF8(const FTCHARToUTF8&) = delete;
    FTCHARToUTF8& operator=(const FTCHARToUTF8&) = delete;
    const char* Get() const { return ""; }
    int32 Length() const { return 0; }
};
namespace UeModel {
inline const TCHAR* Utf8ToTchar(const char*) { return u""; }
}  // namespace UeModel
/// StringConv.h: the argument is cast to `const ANSICHAR*`, so a std::string
/// (or an FString) does not compile; pass `.c_str()` or a `const char*`.
#define UTF8_TO_TCHAR(s) (::UeModel::Utf8ToTchar((const char*)(s)))

struct FVector {
    double X = 0, Y = 0, Z = 0;
    FVector() = default;
    FVector(double x, double y, double z) : X(x), Y(y), Z(z) {}
    static const FVector ZeroVector;
    FVector operator-(const FVector& o) const { return {X - o.X, Y - o.Y, Z - o.Z}; }
    FVector operator+(const FVector& o) const { return {X + o.X, Y + o.Y, Z + o.Z}; }
    double Size() const { return std::sqrt(X * X + Y * Y + Z * Z); }
    double SizeSquared() const { return X * X + Y * Y + Z * Z; }
};
inline const FVector FVector::ZeroVector{};

struct FQuat {
    double X = 0, Y = 0, Z = 0, W = 1;
    FQuat() = default;
    FQuat(double x, double y, double z, double w) : X(x), Y(y), Z(z), W(w) {}
};

class FTransform {
public:
    FTransform() = default;
    explicit FTransform(const FVector& t) : T(t) {}
    FTransform(const FQuat& r, const FVector& t, const FVector& s = FVector(1, 1, 1)) : R(r), T(t), S(s) {}
    FVector GetTranslation() const { return T; }
    FVector GetLocation() const { return T; }
    FQuat GetRotation() const { return R; }
    FVector GetScale3D() const { return S; }
    void SetTranslation(const FVector& t) { T = t; }
private:
    FQuat R;
    FVector T;
    FVector S{1, 1, 1};
};

struct FLinearColor {
    float R = 0, G = 0, B = 0, A = 1;
    FLinearColor() = default;
    FLinearColor(float r, float g, float b, float a = 1.0f) : R(r), G(g), B(b), A(a) {}
    static const FLinearColor White;
    static const FLinearColor Red;
};
inline const FLinearColor FLinearColor::White{1, 1, 1};
inline const FLinearColor FLinearColor::Red{1, 0, 0};

struct FMath {
    template <class T> static T Clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
    template <class T> static T Min(T a, T b) { return a < b ? a : b; }
    template <class T> static T Max(T a, T b) { return a > b ? a : b; }
};

struct FMemory {
    static int32 Memcmp(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n); }
};

struct FLogCategoryBase {};
inline FLogCategoryBase LogAnimation;
inline FLogCategoryBase LogTemp;
namespace UeModel {
/// UE_LOG checks its format arguments at compile time (UE 5's
/// UE_VALIDATE_FORMAT_STRING): `%s` takes a TCHAR pointer, so an FString
/// (or any class) passed as it is does not compile: pass `*Str`, as
/// KawaiiPhysics does (KawaiiPhysicsBoneConstraintsDataAsset.cpp:
/// `UE_LOG(LogKawaiiPhysics, Log, TEXT("... (%s)"), *this->GetName())`).
template <class... A> inline void LogArguments(const FLogCategoryBase&, const TCHAR*, const A&...) {
    static_assert((!std::is_class_v<A> && ...), "UE_LOG: format arguments must be numbers or TCHAR pointers (pass *Str for an FString)");
}
}  // namespace UeModel
#define UE_LOG(category, verbosity, format, ...) (::UeModel::LogArguments(category, format __VA_OPT__(, ) __VA_ARGS__))

struct FPropertyChangedEvent {};

class UObject {
public:
    virtual ~UObject() = default;
    virtual void PostLoad() {}
    virtual void PostEditChangeProperty(FPropertyChangedEvent&) {}
    FString GetName() const { return FString(); }
    bool Modify(bool bAlwaysMarkDirty = true) { (void)bAlwaysMarkDirty; return true; }
};

template <class T> class TObjectPtr {
public:
    TObjectPtr() = default;
    TObjectPtr(std::nullptr_t) {}
    T* operator->() const { return p_; }
    bool operator==(std::nullptr_t) const { return p_ == nullptr; }
    bool operator!=(std::nullptr_t) const { return p_ != nullptr; }
    T* Get() const { return p_; }
private:
    T* p_ = nullptr;
};
