// SecmoCharacter's per-frame logic under Mono (UnitySim.cs stands in for
// UnityEngine), driven as Unity drives it: Update, the Animator writing the
// bones it animates, LateUpdate.
//   rest:  a hip helper no clip animates, 10 s of a moving pelvis, against a
//          run whose clip keys the helper at rest every frame: within 1 mm.
//   gc:    1,000 frames of the whole component path allocate 0 managed bytes.
//   only:  a zero-scaled prop and a transform sharing a name elsewhere in the
//          hierarchy change nothing; only the needed bones go in.
//   destroyed: destroying a driven transform disables the component with one
//          logged error, and the next frames do nothing.
//   controls: Teleport(), ResetDynamics(), importance (LOD), wind and a
//          WindZone, runtime chain parameter changes, on a three-joint tail.
//   manager: SecmoManager runs three characters with one native call per
//          frame: bit for bit what each gives alone, 0 managed bytes.
using System;
using Secmo;
using Secmo.Unity;
using UnityEngine;

static class ComponentTests
{
    const string Settings =
        "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"springs\": [{\"bone\": \"helper\", \"preset\": \"hip\"}]}";

    sealed class Body
    {
        public SecmoCharacter Component;
        public Transform Root, Pelvis, Helper;
        public Action Update, LateUpdate;
    }

    static Body Make() => Make(null);

    static Body Make(Action<Body> extra)
    {
        var b = new Body();
        b.Root = new Transform { name = "root" };
        b.Pelvis = new Transform { name = "pelvis", localPosition = new Vector3(0f, 1f, 0f) };
        b.Pelvis.parent = b.Root;
        b.Helper = new Transform { name = "helper", localPosition = new Vector3(0.1f, 0f, 0f) };
        b.Helper.parent = b.Pelvis;
        extra?.Invoke(b);
        var settings = ScriptableObject.CreateInstance<SecmoRigSettings>();
        Must(settings.FromJson(Settings, out string settingsError), settingsError);
        b.Component = new SecmoCharacter { settings = settings, root = b.Root };
        Method(b.Component, "OnEnable")();
        if (b.Component.LastError != null) throw new Exception(b.Component.LastError);
        b.Update = Method(b.Component, "Update");
        b.LateUpdate = Method(b.Component, "LateUpdate");
        return b;
    }

    /// A private message method of the component, as Unity calls it.
    static Action Method(MonoBehaviour component, string name) =>
        (Action)Delegate.CreateDelegate(typeof(Action), component, name);

    static Vector3 PelvisAt(int frame)
    {
        float t = frame / 60f;
        return new Vector3(0.3f * (float)Math.Sin(3.0 * t), 1f + 0.05f * (float)Math.Sin(7.0 * t), 0.1f * (float)Math.Sin(2.0 * t));
    }

    static int Rest()
    {
        var own = Make();
        var keyed = Make();
        Time.deltaTime = 1f / 60f;
        double worst = 0, moved = 0;
        for (int f = 0; f < 600; f++)
        {
            own.Update();
            own.Pelvis.localPosition = PelvisAt(f); // the Animator: the pelvis only
            own.LateUpdate();

            keyed.Update();
            keyed.Pelvis.localPosition = PelvisAt(f);
            keyed.Helper.localPosition = new Vector3(0.1f, 0f, 0f); // a clip keying the helper at rest
            keyed.Helper.localRotation = new Quaternion(0f, 0f, 0f, 1f);
            keyed.Helper.localScale = new Vector3(1f, 1f, 1f);
            keyed.LateUpdate();

            var a = own.Helper.localPosition;
            var b = keyed.Helper.localPosition;
            worst = Math.Max(worst, Math.Sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)));
            moved = Math.Max(moved, Math.Abs(b.x - 0.1f));
        }
        Console.WriteLine($"rest: unanimated helper vs helper keyed at rest, 10 s: {worst * 1000:F4} mm apart (spring offset up to {moved * 1000:F2} mm)");
        return worst <= 0.001 && moved > 0.001 ? 0 : 1;
    }

    static int Gc()
    {
        var body = Make();
        Time.deltaTime = 1f / 60f;
        for (int f = 0; f < 10; f++)
        {
            body.Update();
            body.Pelvis.localPosition = PelvisAt(f);
            body.LateUpdate();
        }
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int f = 10; f < 1010; f++)
        {
            body.Update();
            body.Pelvis.localPosition = PelvisAt(f);
            body.LateUpdate();
        }
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Console.WriteLine($"gc: 1000 frames of the component allocate {allocated} managed bytes");
        return allocated == 0 ? 0 : 1;
    }

    static int Only()
    {
        var plain = Make();
        var cluttered = Make(b =>
        {
            var prop = new Transform { name = "prop", localScale = new Vector3(0f, 0f, 0f) };
            prop.parent = b.Pelvis;
            var twin = new Transform { name = "pelvis" }; // shares a name, not needed
            twin.parent = prop;
        });
        Time.deltaTime = 1f / 60f;
        double worst = 0;
        for (int f = 0; f < 120; f++)
        {
            foreach (var body in new[] { plain, cluttered })
            {
                body.Update();
                body.Pelvis.localPosition = PelvisAt(f);
                body.LateUpdate();
                if (body.Component.LastError != null) { Console.WriteLine("only: " + body.Component.LastError); return 1; }
            }
            var a = plain.Helper.localPosition;
            var b = cluttered.Helper.localPosition;
            worst = Math.Max(worst, Math.Abs(a.x - b.x) + Math.Abs(a.y - b.y) + Math.Abs(a.z - b.z));
        }
        Console.WriteLine($"only: a zero-scaled prop and a duplicate name elsewhere: helper {worst:E1} m from the plain run");
        return worst == 0 ? 0 : 1;
    }

    static int Destroyed()
    {
        var body = Make();
        Time.deltaTime = 1f / 60f;
        for (int f = 0; f < 5; f++)
        {
            body.Update();
            body.Pelvis.localPosition = PelvisAt(f);
            body.LateUpdate();
        }
        UnityEngine.Object.Destroy(body.Helper);
        for (int f = 5; f < 10; f++)
        {
            body.Update();
            body.LateUpdate();
        }
        Console.WriteLine($"destroyed: enabled {body.Component.enabled}, {Debug.Errors} error(s): {body.Component.LastError}");
        return !body.Component.enabled && Debug.Errors == 1 ? 0 : 1;
    }

    const string TailSettings =
        "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"tail\", \"anchor\": \"pelvis\", " +
        "\"joints\": [\"tail_0\", \"tail_1\", \"tail_2\"], \"params\": {\"lod_skip_below\": 0.5, \"carry_angle_degrees\": 0, \"floor_enabled\": false}}]}";

    sealed class Tailed
    {
        public SecmoCharacter Component;
        public Transform Root, Pelvis, Tail0;
        public Action Update, LateUpdate;

        public void Frame(Vector3 pelvis)
        {
            Update();
            Pelvis.localPosition = pelvis;
            LateUpdate();
        }

        /// <summary>tail_0's local rotation once settled, standing still.</summary>
        public Quaternion Settled = new Quaternion(0f, 0f, 0f, 1f);

        /// <summary>Degrees between tail_0's local rotation and its settled one.</summary>
        public double Swing
        {
            get
            {
                var a = Tail0.localRotation;
                var b = Settled;
                // Normalised: a float32 quaternion's norm is 1 only to ~3e-8,
                // which alone reads as 0.015° through acos.
                double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
                double na = Math.Sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
                double nb = Math.Sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
                return 2.0 * Math.Acos(Math.Min(1.0, Math.Abs(dot) / (na * nb))) * 180.0 / Math.PI;
            }
        }
    }

    static Tailed MakeTailed()
    {
        var b = new Tailed();
        b.Root = new Transform { name = "root" };
        b.Pelvis = new Transform { name = "pelvis", localPosition = new Vector3(0f, 1f, 0f) };
        b.Pelvis.parent = b.Root;
        b.Tail0 = new Transform { name = "tail_0", localPosition = new Vector3(0f, -0.05f, -0.1f) };
        b.Tail0.parent = b.Pelvis;
        var t1 = new Transform { name = "tail_1", localPosition = new Vector3(0f, -0.1f, -0.15f) };
        t1.parent = b.Tail0;
        var t2 = new Transform { name = "tail_2", localPosition = new Vector3(0f, -0.1f, -0.15f) };
        t2.parent = t1;
        var settings = ScriptableObject.CreateInstance<SecmoRigSettings>();
        Must(settings.FromJson(TailSettings, out string settingsError), settingsError);
        b.Component = new SecmoCharacter { settings = settings, root = b.Root };
        Method(b.Component, "OnEnable")();
        if (b.Component.LastError != null) throw new Exception(b.Component.LastError);
        b.Update = Method(b.Component, "Update");
        b.LateUpdate = Method(b.Component, "LateUpdate");
        Time.deltaTime = 1f / 60f;
        for (int f = 0; f < 240; f++) b.Frame(new Vector3(0f, 1f, 0f)); // settled
        b.Settled = b.Tail0.localRotation;
        return b;
    }

    static int failures;

    /// <summary>Stops the run when the settings asset refuses its text.</summary>
    static void Must(bool ok, string error)
    {
        if (!ok) throw new InvalidOperationException("settings: " + error);
    }

    static void Check(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok: " : "FAILED: ") + what);
        if (!ok) failures++;
    }

    /// <summary>Largest tail swing over 30 frames after a 0.8 m jump.</summary>
    static double TeleportSwing(bool teleport)
    {
        var b = MakeTailed();
        if (teleport) b.Component.Teleport();
        double worst = 0;
        for (int f = 0; f < 30; f++)
        {
            b.Frame(new Vector3(0.8f, 1f, 0f));
            worst = Math.Max(worst, b.Swing);
        }
        return worst;
    }

    /// <summary>The tail's swing after 3 s standing still with `set` applied.</summary>
    static double Windy(Action<SecmoCharacter> set)
    {
        var b = MakeTailed();
        set(b.Component);
        for (int f = 0; f < 180; f++) b.Frame(new Vector3(0f, 1f, 0f));
        return b.Swing;
    }

    static int Controls()
    {
        failures = 0;
        var still = new Vector3(0f, 1f, 0f);

        // Teleport: a 0.8 m jump (under the chains' 1 m automatic threshold).
        double free = TeleportSwing(false), carried = TeleportSwing(true);
        Check(free > 5 && carried < 0.5, $"Teleport(): a 0.8 m jump swings the tail {free:F1}° without it, {carried:F3}° with it");

        // ResetDynamics: swinging, then a reset: the next frame is at rest.
        var r = MakeTailed();
        for (int f = 0; f < 20; f++) r.Frame(new Vector3(0.3f * (float)Math.Sin(f / 3.0), 1f, 0f));
        double before = r.Swing;
        r.Component.ResetDynamics();
        r.Frame(still);
        // After a reset the solvers start from the animation: the tail's
        // animated (bind) pose, not the settled sag.
        r.Settled = new Quaternion(0f, 0f, 0f, 1f);
        Check(before > 1 && r.Swing < 0.01, $"ResetDynamics(): {before:F1}° swinging, {r.Swing:F4}° from the animated pose the frame after the reset");

        // Importance below the chain's lod_skip_below: the tail follows the animation.
        var lod = MakeTailed();
        lod.Component.importance = 0f;
        lod.Settled = new Quaternion(0f, 0f, 0f, 1f); // the animated pose
        double lodSwing = 0;
        for (int f = 0; f < 60; f++)
        {
            lod.Frame(new Vector3(0.3f * (float)Math.Sin(f / 3.0), 1f, 0f));
            lodSwing = Math.Max(lodSwing, lod.Swing);
        }
        Check(lodSwing < 1e-4, $"importance 0: the skipped tail stays on its animated pose ({lodSwing:E1}°)");

        // Wind, from the field and from a WindZone pointing +Z.
        double calm = Windy(c => { });
        double field = Windy(c => c.wind = new Vector3(0f, 0f, 5f));
        double zone = Windy(c =>
        {
            var z = new WindZone { windMain = 5f };
            z.transform = new Transform { name = "wind" };
            c.windZone = z;
        });
        Check(calm < 0.01 && field > 2 && Math.Abs(field - zone) < 1e-3,
            $"wind: calm {calm:F3}°, 5 m/s² along +Z {field:F2}°, the same from a WindZone {zone:F2}°");

        // A runtime parameter change: weight 0 hands the tail back to the animation.
        var p = MakeTailed();
        p.Settled = new Quaternion(0f, 0f, 0f, 1f); // the animated pose
        bool got = p.Component.TryGetChainParams(0, out SecmoChainParams parameters);
        parameters.weight = 0f;
        bool set = p.Component.TrySetChainParams(0, parameters);
        double weighted = 0;
        for (int f = 0; f < 60; f++)
        {
            p.Frame(new Vector3(0.3f * (float)Math.Sin(f / 3.0), 1f, 0f));
            weighted = Math.Max(weighted, p.Swing);
        }
        parameters.weight = 2f; // out of range: refused, named
        bool refused = !p.Component.TrySetChainParams(0, parameters) && p.Component.LastError != null;
        Check(got && set && weighted < 1e-4 && refused,
            $"TrySetChainParams: weight 0 keeps the animated pose ({weighted:E1}°); weight 2 refused: {p.Component.LastError}");
        return failures == 0 ? 0 : 1;
    }

    /// A VRM node constraint from the settings asset: a sleeve copying half
    /// of the arm's turn (issue #19: the engine assets carry constraints).
    static int Constraint()
    {
        var root = new Transform { name = "root" };
        var arm = new Transform { name = "arm", localPosition = new Vector3(0.2f, 1.4f, 0f) };
        arm.parent = root;
        var sleeve = new Transform { name = "sleeve", localPosition = new Vector3(0.2f, 1.4f, 0f) };
        sleeve.parent = root;
        var settings = ScriptableObject.CreateInstance<SecmoRigSettings>();
        Must(settings.FromJson("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"node_constraints\": " +
            "[{\"kind\": \"rotation\", \"source\": \"arm\", \"destination\": \"sleeve\", \"weight\": 0.5}]}", out string settingsError), settingsError);
        var component = new SecmoCharacter { settings = settings, root = root };
        Method(component, "OnEnable")();
        if (component.LastError != null) { Console.WriteLine("constraint: " + component.LastError); return 1; }
        var update = Method(component, "Update");
        var late = Method(component, "LateUpdate");
        Time.deltaTime = 1f / 60f;
        // The arm turns 90° about Z: the sleeve follows 45°.
        float h = (float)Math.Sin(Math.PI / 4), c = (float)Math.Cos(Math.PI / 4);
        update();
        arm.localRotation = new Quaternion(0f, 0f, h, c);
        late();
        var q = sleeve.localRotation;
        double angle = 2.0 * Math.Atan2(Math.Sqrt(q.x * q.x + q.y * q.y + q.z * q.z), Math.Abs(q.w)) * 180.0 / Math.PI;
        Console.WriteLine($"constraint: arm turned 90°, sleeve {angle:F3}° about ({q.x:F3}, {q.y:F3}, {q.z:F3})");
        return Math.Abs(angle - 45.0) < 1e-3 && Math.Abs(q.z) > 0.38 ? 0 : 1;
    }

    /// Pelvis motion of body `k` at `frame`: each body moves differently.
    static Vector3 PelvisOf(int k, int frame)
    {
        var p = PelvisAt(frame + 37 * k);
        return new Vector3(p.x * (1f + 0.3f * k), p.y, p.z);
    }

    /// SecmoManager: three characters updated by one native call per frame,
    /// their transforms read and written by IJobParallelForTransform jobs
    /// (UnityJobsSim.cs), give what each gives alone, bit for bit (the
    /// unanimated helper included: the RestJob feeds it from its rest), with
    /// no managed allocation; a character whose bone is destroyed leaves the
    /// batch, the others go on.
    static int Manager()
    {
        failures = 0;
        Time.deltaTime = 1f / 60f;
        const int bodies = 3, frames = 300;
        var alone = new Vector3[bodies, frames];
        for (int k = 0; k < bodies; k++)
        {
            var b = Make();
            for (int f = 0; f < frames; f++)
            {
                b.Update();
                b.Pelvis.localPosition = PelvisOf(k, f);
                b.LateUpdate();
                alone[k, f] = b.Helper.localPosition;
            }
            Method(b.Component, "OnDisable")();
        }

        var batch = new Body[bodies];
        for (int k = 0; k < bodies; k++) batch[k] = Make();
        var manager = new SecmoManager { name = "manager" };
        Method(manager, "OnEnable")();
        var update = Method(manager, "Update");
        var late = Method(manager, "LateUpdate");
        Action<int> frame = f =>
        {
            update(); // the RestJob, before the Animator
            for (int k = 0; k < batch.Length; k++)
            {
                if (!batch[k].Component.enabled) continue;
                batch[k].Update();
                batch[k].Pelvis.localPosition = PelvisOf(k, f);
                batch[k].LateUpdate(); // hands over to the manager: does nothing
            }
            late();
        };
        int differing = 0, calls = 0;
        double moved = 0;
        for (int f = 0; f < frames; f++)
        {
            frame(f);
            calls += manager.NativeCalls;
            for (int k = 0; k < bodies; k++)
            {
                var a = alone[k, f];
                var h = batch[k].Helper.localPosition;
                if (a.x != h.x || a.y != h.y || a.z != h.z) differing++;
                moved = Math.Max(moved, Math.Abs(h.x - 0.1f));
            }
        }
        Check(differing == 0 && moved > 0.001 && calls == frames && manager.CharacterCount == bodies,
            $"manager: {bodies} characters, {calls} native calls in {frames} frames, {differing} helper positions differ from each character alone (spring offset up to {moved * 1000:F2} mm)");

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int f = frames; f < frames + 1000; f++) frame(f);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Check(allocated == 0, $"manager: 1000 frames of {bodies} characters allocate {allocated} managed bytes");

        UnityEngine.Object.Destroy(batch[1].Helper);
        var still = batch[2].Helper.localPosition;
        for (int f = frames + 1000; f < frames + 1010; f++) frame(f);
        var after = batch[2].Helper.localPosition;
        Check(!batch[1].Component.enabled && manager.CharacterCount == bodies - 1 && Debug.Errors == 1 && (after.x != still.x || after.z != still.z),
            $"manager: a destroyed bone disables its character ({Debug.Errors} error), {manager.CharacterCount} characters go on");
        Method(manager, "OnDisable")();
        return failures == 0 ? 0 : 1;
    }

    static int Main(string[] args)
    {
        switch (args.Length > 0 ? args[0] : "")
        {
            case "rest": return Rest();
            case "gc": return Gc();
            case "only": return Only();
            case "destroyed": return Destroyed();
            case "controls": return Controls();
            case "constraint": return Constraint();
            case "manager": return Manager();
            case "settings": return SettingsTests.Run();
            default: Console.Error.WriteLine("usage: ComponentTests rest|gc|only|destroyed"); return 2;
        }
    }
}
