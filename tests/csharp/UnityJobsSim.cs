// Stand-ins for the Unity.Collections, Unity.Jobs and UnityEngine.Jobs APIs
// SecmoManager uses (NativeArray, JobHandle, TransformAccessArray,
// IJobParallelForTransform), with their meaning: a scheduled transform job
// runs Execute once per index with that index's transform; JobHandle.Complete
// returns when it has run (here: at once, on this thread). A NativeArray is a
// pinned buffer whose address GetUnsafePtr gives. Names and signatures follow
// Unity's scripting reference (docs/unity.md). Used both to compile the
// package (with UnityEngineStubs.cs) and to run it (with UnitySim.cs).
using System;
using System.Runtime.InteropServices;

namespace Unity.Collections
{
    public enum Allocator { Invalid = 0, None = 1, Temp = 2, TempJob = 3, Persistent = 4 }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class ReadOnlyAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class WriteOnlyAttribute : Attribute { }

    public struct NativeArray<T> : IDisposable where T : struct
    {
        T[] items;
        GCHandle pin;
        public NativeArray(int length, Allocator allocator)
        {
            items = new T[length];
            pin = GCHandle.Alloc(items, GCHandleType.Pinned);
        }
        public bool IsCreated => items != null;
        public int Length => items.Length;
        public T this[int index] { get => items[index]; set => items[index] = value; }
        internal IntPtr Address => pin.AddrOfPinnedObject();
        public void Dispose()
        {
            if (pin.IsAllocated) pin.Free();
            items = null;
        }
    }
}

namespace Unity.Collections.LowLevel.Unsafe
{
    public static class NativeArrayUnsafeUtility
    {
        public static unsafe void* GetUnsafePtr<T>(this NativeArray<T> array) where T : struct => (void*)array.Address;
    }
}

namespace Unity.Jobs
{
    public struct JobHandle
    {
        public void Complete() { }
    }
}

namespace UnityEngine.Jobs
{
    using Unity.Jobs;

    public struct TransformAccess
    {
        readonly Transform transform;
        internal TransformAccess(Transform transform) { this.transform = transform; }
        public bool isValid => transform;
        public Vector3 localPosition { get => transform.localPosition; set => transform.localPosition = value; }
        public Quaternion localRotation { get => transform.localRotation; set => transform.localRotation = value; }
        public Vector3 localScale { get => transform.localScale; set => transform.localScale = value; }
    }

    public struct TransformAccessArray : IDisposable
    {
        Transform[] transforms;
        public TransformAccessArray(Transform[] transforms, int desiredJobCount = -1)
        {
            this.transforms = (Transform[])transforms.Clone();
        }
        public bool isCreated => transforms != null;
        public int length => transforms.Length;
        public Transform this[int index] => transforms[index];
        public void Dispose() => transforms = null;
    }

    public interface IJobParallelForTransform
    {
        void Execute(int index, TransformAccess transform);
    }

    public static class IJobParallelForTransformExtensions
    {
        public static JobHandle Schedule<T>(this T jobData, TransformAccessArray transforms, JobHandle dependsOn = default(JobHandle))
            where T : struct, IJobParallelForTransform
        {
            for (int i = 0; i < transforms.length; i++) jobData.Execute(i, new TransformAccess(transforms[i]));
            return default(JobHandle);
        }
    }
}
