// Unity Test Runner checks for a project that installs the package (they need
// the native plugin for the editor's platform). The same checks, and more, run
// on every secmo CI build under Mono: tests/csharp in the secmo repository.
using NUnit.Framework;
using Secmo;

public class SecmoNativeTests
{
    [Test]
    public void TheNativeLibraryLoads()
    {
        // Null, or the message naming the platform and the command that provides the library.
        Assert.IsNull(SecmoNative.CheckLibrary());
    }

    [Test]
    public void AbiVersionMatches()
    {
        Assert.AreEqual(SecmoNative.AbiVersion, SecmoNative.secmo_abi_version());
    }

    [Test]
    public void BadSettingsGiveAClearError()
    {
        bool ok = Rig.TryFromSettings(new[] { "root" }, new[] { -1 }, new[] { SecmoTransform.Identity }, 1f,
            SecmoNative.UpAxisY, "{ \"format\": 1 }", out _, out var status, out var error);
        Assert.IsFalse(ok);
        Assert.AreEqual(SecmoStatus.Settings, status);
        Assert.IsNotEmpty(error);
    }
}
