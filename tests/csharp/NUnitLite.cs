// The part of NUnit the package's own Unity Test Runner tests use
// (unity_package/com.secmo.runtime/Tests), with NUnit's meaning, plus a
// runner: tests/csharp.rs compiles and runs those tests under Mono.
using System;
using System.Reflection;

namespace NUnit.Framework
{
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class TestAttribute : Attribute { }

    public sealed class AssertionException : Exception
    {
        public AssertionException(string message) : base(message) { }
    }

    public static class Assert
    {
        public static void AreEqual(object expected, object actual)
        {
            if (!Equals(expected, actual)) throw new AssertionException($"expected {expected}, got {actual}");
        }
        public static void IsTrue(bool condition) { if (!condition) throw new AssertionException("expected true"); }
        public static void IsFalse(bool condition) { if (condition) throw new AssertionException("expected false"); }
        public static void IsNull(object value) { if (value != null) throw new AssertionException($"expected null, got {value}"); }
        public static void IsNotEmpty(string text) { if (string.IsNullOrEmpty(text)) throw new AssertionException("expected a non-empty string"); }
    }
}

static class PackageTestRunner
{
    static int Main()
    {
        int passed = 0, failed = 0;
        foreach (var type in Assembly.GetExecutingAssembly().GetTypes())
        {
            foreach (var method in type.GetMethods(BindingFlags.Public | BindingFlags.Instance))
            {
                if (method.GetCustomAttribute<NUnit.Framework.TestAttribute>() == null) continue;
                try
                {
                    method.Invoke(Activator.CreateInstance(type), null);
                    passed++;
                    Console.WriteLine($"ok {type.Name}.{method.Name}");
                }
                catch (TargetInvocationException e)
                {
                    failed++;
                    Console.WriteLine($"FAILED {type.Name}.{method.Name}: {e.InnerException?.Message}");
                }
            }
        }
        Console.WriteLine($"{passed} passed, {failed} failed");
        return failed == 0 && passed > 0 ? 0 : 1;
    }
}
