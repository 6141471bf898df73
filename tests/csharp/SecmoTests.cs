// Tests of the plain-C# P/Invoke layer under Mono (run by tests/csharp.rs).
// Usage: mono SecmoTests.exe layout|bits|errors|alloc|handles|warnings|vrm FILE|vrm-notes FILE
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;
using Secmo;

static class SecmoTests
{
    static int Main(string[] args)
    {
        switch (args.Length > 0 ? args[0] : "")
        {
            case "layout": return Layout();
            case "bits": return Bits();
            case "errors": return Errors();
            case "alloc": return Alloc();
            case "handles": return Handles();
            case "vrm": return VrmSettings(args[1]);
            case "vrm-notes": return VrmNotes(args[1]);
            case "warnings": return Warnings();
            default:
                Console.Error.WriteLine("usage: SecmoTests layout|bits|errors|alloc|handles|warnings|vrm FILE|vrm-notes FILE");
                return 2;
        }
    }

    // --- layout: the same lines layout.c prints ----------------------------
    static readonly KeyValuePair<Type, string[]>[] Structs =
    {
        new KeyValuePair<Type, string[]>(typeof(SecmoTransform), new string[0]),
        new KeyValuePair<Type, string[]>(typeof(SecmoSpringDesc), new[] { "struct_size", "bone", "stiffness", "history_length", "extra_velocity", "alpha" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoRotationConstraintDesc), new[] { "target" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoProbeDesc), new[] { "threshold", "same_translation", "opposite_scale" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoCorrectiveDesc), new[] { "rate", "probes", "probe_count" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoBtobBones), new[] { "hand_r" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoColliderDesc), new[] { "a", "b", "radius" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoChainParams), new[] { "gravity_direction", "forward_plane", "floor_height", "simulation_space", "inertia" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoChainDesc), new[] { "joints", "preset", "params", "colliders", "collider_count", "end_offset" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoRigDesc), new[] { "parents", "bone_names", "units_per_meter", "springs", "spring_count", "correctives", "chains", "chain_count", "node_constraints" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoNodeConstraintDesc), new[] { "axis", "weight" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoBatchItem), new[] { "character", "out_pose_len", "out_info" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoCharacterDesc), new[] { "substep_target" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoFrameInput), new[] { "dt", "pose", "pose_len", "world", "importance" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoUpdateInfo), new[] { "warnings", "joint_substeps" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoWorldItem), new[] { "character", "out_pose_len", "out_info", "importance", "level" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoSpringRecord), new[] { "target", "snapped", "ring" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoCorrectiveRecord), new[] { "state_scale", "local" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoStageRecords), new[] { "source", "springs", "spring_count", "correctives", "probe_distance_count" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoDebugLine), new[] { "b", "kind" }),
        new KeyValuePair<Type, string[]>(typeof(SecmoDebugSphere), new[] { "radius", "kind" }),
    };

    static int Layout()
    {
        foreach (var entry in Structs)
        {
            Type type = entry.Key;
            string[] fields = entry.Value;
            Console.WriteLine($"{type.Name} size {Marshal.SizeOf(type)}");
            foreach (var f in fields)
                Console.WriteLine($"{type.Name}.{f} {Marshal.OffsetOf(type, f).ToInt64()}");
        }
        return 0;
    }

    // --- bits: a helper spring and a 4-joint tail, from a settings text -----
    const string Settings = @"{
      ""format"": ""secmo-rig-settings"", ""version"": 1,
      ""springs"": [ { ""bone"": ""hip_helper"", ""preset"": ""hip"" } ],
      ""chains"": [ { ""preset"": ""tail"", ""anchor"": ""hips"", ""joints"": [""tail_1"", ""tail_2"", ""tail_3"", ""tail_4""] } ]
    }";

    static readonly string[] Names = { "root", "hips", "hip_helper", "tail_1", "tail_2", "tail_3", "tail_4" };
    static readonly int[] Parents = { -1, 0, 1, 1, 3, 4, 5 };

    static SecmoTransform At(float x, float y, float z)
    {
        var t = SecmoTransform.Identity;
        t.tx = x;
        t.ty = y;
        t.tz = z;
        return t;
    }

    static SecmoTransform[] Reference() => new[]
    {
        SecmoTransform.Identity, At(0f, 1f, 0f), At(0.1f, -0.05f, 0.05f),
        At(0f, -0.05f, -0.1f), At(0f, -0.05f, -0.15f), At(0f, -0.05f, -0.15f), At(0f, -0.05f, -0.15f),
    };

    static void MakePose(SecmoTransform[] reference, int frame, SecmoTransform[] pose)
    {
        int phase = frame % 30;
        int tri = phase < 15 ? phase : 30 - phase;
        Array.Copy(reference, pose, reference.Length);
        pose[1].ry = 0.03f * (float)(tri - 7);
        pose[1].ty = 1f + 0.004f * (float)tri;
        pose[1].tx = 0.01f * (float)(frame % 11);
    }

    static Rig MakeRig()
    {
        if (!Rig.TryFromSettings(Names, Parents, Reference(), 1f, SecmoNative.UpAxisY, Settings, out var rig, out var status, out var error))
            throw new SecmoException(status, error);
        return rig;
    }

    static uint Bits(float f) => BitConverter.ToUInt32(BitConverter.GetBytes(f), 0);

    static int Bits()
    {
        using (var rig = MakeRig())
        using (var c = Character.Create(rig))
        {
            var reference = Reference();
            var pose = new SecmoTransform[7];
            var output = new SecmoTransform[7];
            for (int f = 0; f < 300; f++)
            {
                MakePose(reference, f, pose);
                c.Update(f == 0 ? 0f : 1f / 60f, pose, output);
                var line = new System.Text.StringBuilder();
                line.Append(f);
                for (int b = 2; b < 7; b++)
                    line.Append($" {Bits(output[b].tx):x8} {Bits(output[b].ty):x8} {Bits(output[b].tz):x8} {Bits(output[b].rx):x8} {Bits(output[b].ry):x8}");
                Console.WriteLine(line.ToString());
            }
        }
        Console.WriteLine("ok");
        return 0;
    }

    // --- errors: documented codes, no crash, state untouched ----------------
    static int Errors()
    {
        using (var rig = MakeRig())
        using (var a = Character.Create(rig))
        using (var b = Character.Create(rig))
        {
            var reference = Reference();
            var pose = new SecmoTransform[7];
            var output = new SecmoTransform[7];
            for (int f = 0; f < 30; f++)
            {
                MakePose(reference, f, pose);
                a.Update(1f / 60f, pose, output);
                b.Update(1f / 60f, pose, output);
            }
            var shortOutput = new SecmoTransform[6];
            Expect(a.TryUpdate(1f / 60f, pose, shortOutput), SecmoStatus.BufferLength, "short output");
            Expect(a.TryUpdate(-1f, pose, output), SecmoStatus.InvalidDt, "negative dt");
            var nan = (SecmoTransform[])pose.Clone();
            nan[4].ry = float.NaN;
            Expect(a.TryUpdate(1f / 60f, nan, output), SecmoStatus.NonFinitePose, "NaN pose");
            if (!SecmoNative.LastError().Contains("bone 4")) throw new Exception("message should name bone 4: " + SecmoNative.LastError());
            try
            {
                a.Update(1f / 60f, nan, output);
                throw new Exception("Update should throw");
            }
            catch (SecmoException e) when (e.Status == SecmoStatus.NonFinitePose) { }
            // Bad settings: a clear status and message naming the field.
            if (Rig.TryFromSettings(Names, Parents, Reference(), 1f, SecmoNative.UpAxisY, Settings.Replace("tail_4", "tail_9"), out _, out var st, out var err)
                || st != SecmoStatus.Settings || !err.Contains("tail_9"))
                throw new Exception("bad settings should fail with SETTINGS: " + err);
            // After all that, `a` behaves exactly like `b`, which saw none of it.
            var oa = new SecmoTransform[7];
            var ob = new SecmoTransform[7];
            for (int f = 30; f < 60; f++)
            {
                MakePose(reference, f, pose);
                a.Update(1f / 60f, pose, oa);
                b.Update(1f / 60f, pose, ob);
                for (int i = 0; i < 7; i++)
                    if (!oa[i].Equals(ob[i])) throw new Exception($"state changed by a failed call (frame {f}, bone {i})");
            }
        }
        Console.WriteLine("ok");
        return 0;
    }

    static void Expect(SecmoStatus got, SecmoStatus expected, string what)
    {
        if (got != expected) throw new Exception($"{what}: got {got}, expected {expected}: {SecmoNative.LastError()}");
    }

    // --- alloc: zero managed allocation across 1,000 updates ----------------
    static int Alloc()
    {
        using (var rig = MakeRig())
        using (var c = Character.Create(rig))
        {
            var reference = Reference();
            var poses = new SecmoTransform[1000][];
            for (int f = 0; f < poses.Length; f++)
            {
                poses[f] = new SecmoTransform[7];
                MakePose(reference, f, poses[f]);
            }
            var output = new SecmoTransform[7];
            var world = SecmoTransform.Identity;
            // Warm up (JIT, first call marshalling stubs).
            for (int f = 0; f < 10; f++) c.TryUpdate(1f / 60f, poses[f], output, 0u, ref world, true, 1f);
            long before = GC.GetAllocatedBytesForCurrentThread();
            int failures = 0;
            for (int f = 0; f < poses.Length; f++)
            {
                world.tx = 0.01f * f;
                if (c.TryUpdate(1f / 60f, poses[f], output, 0u, ref world, true, 1f) != SecmoStatus.Ok) failures++;
                c.SetWind(0.1f, 0f, 0f);
            }
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Console.WriteLine($"managed bytes allocated in 1000 updates: {allocated}");
            if (failures != 0 || allocated != 0) return 1;
        }
        Console.WriteLine("ok");
        return 0;
    }

    // --- handles: SafeHandle release frees the native object ----------------
    static int Handles()
    {
        long baseline = (long)SecmoNative.secmo_live_object_count();
        var rig = MakeRig();
        var c = Character.Create(rig);
        Check((long)SecmoNative.secmo_live_object_count() == baseline + 2, "created");
        c.Dispose();
        Check((long)SecmoNative.secmo_live_object_count() == baseline + 1, "character disposed");
        rig.Dispose();
        Check((long)SecmoNative.secmo_live_object_count() == baseline, "rig disposed");
        // Dropped without Dispose: the finalizer releases them.
        DropWithoutDispose();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Check((long)SecmoNative.secmo_live_object_count() == baseline, "finalized");
        // A world: its characters count; the world is freed once it and
        // every character handle are released, in any order; a character
        // moved into and out of it keeps its motion.
        var wrig = MakeRig();
        Check(World.TryCreate(out var world, out _, out _), "world created");
        Check(world.TryAdd(wrig, out var a, out _, out _) && world.TryAdd(wrig, out var b, out _, out _), "world characters added");
        Check((long)SecmoNative.secmo_live_object_count() == baseline + 4, "world counted");
        SecmoNative.secmo_character_destroy(a.Handle.DangerousGetHandle()); // refused: not freed
        Check((long)SecmoNative.secmo_live_object_count() == baseline + 4 && SecmoNative.LastError().Contains("world"), "destroy refused");
        var alone = Character.Create(wrig);
        Check(alone.TryMoveTo(world, wrig, out var moved, out _) && moved.Handle.InWorld, "moved in");
        alone.Dispose();
        Check(moved.TryMoveTo(null, wrig, out var back, out _) && !back.Handle.InWorld, "moved out");
        moved.Dispose();
        world.Dispose(); // the native world lives on until a and b are released
        Check((long)SecmoNative.secmo_live_object_count() == baseline + 5, "world kept by its characters");
        a.Dispose();
        b.Dispose();
        back.Dispose();
        wrig.Dispose();
        Check((long)SecmoNative.secmo_live_object_count() == baseline, "world freed");
        Console.WriteLine("ok");
        return 0;
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    static void DropWithoutDispose()
    {
        var rig = MakeRig();
        Character.Create(rig);
        Check((long)SecmoNative.secmo_live_object_count() >= 2, "alive");
    }

    // --- warnings: a chain listed before the chain it hangs from ------------
    static int Warnings()
    {
        string[] names = { "root", "upper", "lower", "end" };
        int[] parents = { -1, 0, 1, 2 };
        var reference = new[] { SecmoTransform.Identity, At(0f, -0.1f, 0f), At(0f, -0.1f, 0f), At(0f, -0.1f, 0f) };
        string upper = @"{ ""preset"": ""vrm"", ""anchor"": ""root"", ""joints"": [""upper""] }";
        string lower = @"{ ""preset"": ""vrm"", ""anchor"": ""upper"", ""joints"": [""lower""] }";
        foreach (bool reversed in new[] { false, true })
        {
            string settings = @"{ ""format"": ""secmo-rig-settings"", ""version"": 1, ""chains"": [ "
                + (reversed ? lower + ", " + upper : upper + ", " + lower) + " ] }";
            if (!Rig.TryFromSettings(names, parents, reference, 1f, SecmoNative.UpAxisY, settings, out var rig, out var status, out var error))
                throw new SecmoException(status, error);
            using (rig)
            {
                Check(rig.WarningCount == (reversed ? 1 : 0), "warning count " + rig.WarningCount);
                if (reversed)
                {
                    Check(rig.TryGetWarning(0, out uint kind, out int bone), "warning 0");
                    Check(kind == SecmoNative.WarningChainOrder && bone == 1, $"kind {kind} bone {bone}");
                    Console.WriteLine(Rig.DescribeWarning(kind, bone, names));
                }
                Check(!rig.TryGetWarning(rig.WarningCount, out _, out _), "past the count");
            }
        }
        Console.WriteLine("ok");
        return 0;
    }

    // --- vrm: settings from a VRM file, printed; a truncated file refused --
    static int VrmSettings(string path)
    {
        byte[] file = System.IO.File.ReadAllBytes(path);
        Check(Vrm.TrySettingsFromVrm(file, out string settings, out SecmoStatus status, out string error), "import: " + error);
        Check(status == SecmoStatus.Ok, "status Ok");
        byte[] truncated = new byte[30];
        Array.Copy(file, truncated, truncated.Length);
        Check(!Vrm.TrySettingsFromVrm(truncated, out string none, out status, out error), "truncated refused");
        Check(status == SecmoStatus.Settings && none == null, "status Settings, no text");
        Check(error.Contains("VRM: glb"), "message names the GLB header: " + error);
        Console.Write(settings);
        return 0;
    }

    static int VrmNotes(string path)
    {
        byte[] file = System.IO.File.ReadAllBytes(path);
        Check(Vrm.TryNotes(file, out string[] notes, out SecmoStatus status, out string error), "notes: " + error);
        Check(status == SecmoStatus.Ok, "status Ok");
        Check(!Vrm.TryNotes(new byte[] { (byte)'{' }, out string[] none, out status, out error), "broken JSON refused");
        Check(status == SecmoStatus.Settings && none == null, "status Settings, no notes");
        Console.Write(string.Join("\n", notes));
        return 0;
    }

    static void Check(bool ok, string what)
    {
        if (!ok) throw new Exception($"{what}: live objects {SecmoNative.secmo_live_object_count()}");
    }
}
