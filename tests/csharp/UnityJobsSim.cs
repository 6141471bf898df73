// Stand-ins for the Unity.Collections, Unity.Jobs and UnityEngine.Jobs APIs
// SecmoManager uses (NativeArray, JobHandle, IJobParallelFor,
// TransformAccessArray, IJobParallelForTransform), with their meaning:
//   - an IJobParallelFor runs Execute once per index on worker threads (here
//     three threads of this process, never the scheduling thread), after the
//     job it depends on, and JobHandle.Complete waits for it;
//   - a transform job runs Execute once per index with that index's
//     transform (here on the scheduling thread, after its dependency);
//   - as Unity's safety system does, scheduling a job while another one runs
//     without depending on it, or indexing a NativeArray on the main thread
//     while a job runs, throws InvalidOperationException.
// A NativeArray is a pinned buffer whose address GetUnsafePtr gives. Names
// and signatures follow Unity's scripting reference (docs/unity.md). Used
// both to compile the package (with UnityEngineStubs.cs) and to run it (with
// UnitySim.cs). JobSim counts what ran where, for the tests.
using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace Unity.Collections
{
    public enum Allocator { Invalid = 0, None = 1, Temp = 2, TempJob = 3, Persistent = 4 }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class ReadOnlyAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class WriteOnlyAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class NativeDisableParallelForRestrictionAttribute : Attribute { }

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
        public T this[int index]
        {
            get { Unity.Jobs.JobSim.CheckMainThreadAccess(); return items[index]; }
            set { Unity.Jobs.JobSim.CheckMainThreadAccess(); items[index] = value; }
        }
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
        internal int id; // 0: nothing to wait for; else the JobSim job it stands for

        /// <summary>Waits until the job (and what it depends on) has run.</summary>
        public void Complete() => JobSim.Wait(id);
    }

    public interface IJobParallelFor
    {
        void Execute(int index);
    }

    public static class IJobParallelForExtensions
    {
        public static JobHandle Schedule<T>(this T jobData, int arrayLength, int innerloopBatchCount, JobHandle dependsOn = default(JobHandle))
            where T : struct, IJobParallelFor
        {
            return JobSim.Start(jobData, arrayLength, dependsOn);
        }
    }

    /// <summary>The simulated job system: one IJobParallelFor in flight at a time, on three worker threads.</summary>
    public static class JobSim
    {
        public const int Workers = 3;
        /// <summary>IJobParallelFor indices run (on the worker threads).</summary>
        public static int IndicesOnWorkers;
        /// <summary>Transform jobs scheduled to run after an IJobParallelFor (its handle as dependsOn).</summary>
        public static int TransformJobsAfterParallelFor;

        static readonly object gate = new object();
        static Thread[] threads;
        static int mainThread = -1;
        static int running;          // id of the job in flight, 0 if none
        static int pending;          // id of the last job scheduled and not yet completed or depended on, 0 if none
        static int lastId;
        static int length, next, remaining;
        static Action<int> body;
        static long generation;

        static class Runner<T> where T : struct, IJobParallelFor
        {
            public static T job;
            public static readonly Action<int> Run = i => job.Execute(i);
        }

        internal static void CheckMainThreadAccess()
        {
            if (pending != 0 && Thread.CurrentThread.ManagedThreadId == mainThread)
                throw new InvalidOperationException("a NativeArray is read or written on the main thread while a scheduled job runs; Complete() its JobHandle first");
        }

        internal static JobHandle Start<T>(T jobData, int arrayLength, JobHandle dependsOn) where T : struct, IJobParallelFor
        {
            mainThread = Thread.CurrentThread.ManagedThreadId;
            Before(dependsOn);
            if (threads == null)
            {
                threads = new Thread[Workers];
                for (int w = 0; w < Workers; w++)
                {
                    threads[w] = new Thread(Work) { IsBackground = true, Name = "JobSim worker " + w };
                    threads[w].Start();
                }
            }
            Runner<T>.job = jobData;
            lock (gate)
            {
                running = pending = ++lastId;
                body = Runner<T>.Run;
                length = arrayLength;
                next = 0;
                remaining = arrayLength;
                generation++;
                if (arrayLength == 0) running = 0;
                Monitor.PulseAll(gate);
            }
            return new JobHandle { id = lastId };
        }

        /// <summary>A new job may start only after the one in flight, if it depends on it (Unity's safety system).</summary>
        internal static void Before(JobHandle dependsOn)
        {
            if (pending == 0) return;
            if (dependsOn.id != pending)
                throw new InvalidOperationException("a job is scheduled while another one may run, without depending on it; pass its JobHandle as dependsOn");
            Wait(dependsOn.id);
        }

        internal static void Wait(int id)
        {
            if (id == 0) return;
            lock (gate)
            {
                while (running == id) Monitor.Wait(gate);
            }
            if (pending == id) pending = 0;
        }

        static void Work()
        {
            long seen = 0;
            while (true)
            {
                Action<int> run;
                lock (gate)
                {
                    while (generation == seen || next >= length) { seen = generation; Monitor.Wait(gate); }
                    run = body;
                }
                while (true)
                {
                    int i = Interlocked.Increment(ref next) - 1;
                    if (i >= length) break;
                    run(i);
                    Interlocked.Increment(ref IndicesOnWorkers);
                    if (Interlocked.Decrement(ref remaining) == 0)
                    {
                        lock (gate)
                        {
                            running = 0;
                            Monitor.PulseAll(gate);
                        }
                    }
                }
            }
        }

        internal static void TransformJob(JobHandle dependsOn)
        {
            mainThread = Thread.CurrentThread.ManagedThreadId;
            if (dependsOn.id != 0) TransformJobsAfterParallelFor++;
            Before(dependsOn);
        }
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
            JobSim.TransformJob(dependsOn);
            for (int i = 0; i < transforms.length; i++) jobData.Execute(i, new TransformAccess(transforms[i]));
            return default(JobHandle);
        }
    }
}
