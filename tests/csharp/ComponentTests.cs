// SecmoCharacter's per-frame logic under Mono (UnitySim.cs stands in for
// UnityEngine), driven as Unity drives it: UnitySim's Player runs the
// documented order of event functions (fixed steps with AnimatePhysics
// Animators, Update, Normal/UnscaledTime Animators, LateUpdate), and its
// Animator writes only the bones its clip keys.
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
        public Player Player;
        public Animator Animator;
        /// <summary>The pose the clip gives the pelvis this frame.</summary>
        public Vector3 PelvisPose = new Vector3(0f, 1f, 0f);
        /// <summary>The clip also keys the helper, at rest.</summary>
        public bool KeyHelper;

        /// <summary>One frame of the player with the pelvis animated to `pelvis`.</summary>
        public void Frame(Vector3 pelvis)
        {
            PelvisPose = pelvis;
            Player.Frame(1f / 60f);
        }
    }

    static Body Make() => Make(null);

    /// A pelvis and an unanimated hip helper under a root, an Animator whose
    /// clip keys the pelvis, and the component, in a player of their own (or
    /// `player`).
    static Body Make(Action<Body> extra, Player player = null, string settingsText = Settings)
    {
        var b = new Body();
        b.Root = new Transform { name = "root" };
        b.Pelvis = new Transform { name = "pelvis", localPosition = new Vector3(0f, 1f, 0f) };
        b.Pelvis.parent = b.Root;
        b.Helper = new Transform { name = "helper", localPosition = new Vector3(0.1f, 0f, 0f) };
        b.Helper.parent = b.Pelvis;
        extra?.Invoke(b);
        b.Player = player ?? new Player();
        b.Animator = b.Player.Add(new Animator());
        b.Animator.clip = t =>
        {
            b.Pelvis.localPosition = b.PelvisPose;
            if (!b.KeyHelper) return;
            b.Helper.localPosition = new Vector3(0.1f, 0f, 0f);
            b.Helper.localRotation = new Quaternion(0f, 0f, 0f, 1f);
            b.Helper.localScale = new Vector3(1f, 1f, 1f);
        };
        var settings = ScriptableObject.CreateInstance<SecmoRigSettings>();
        Must(settings.FromJson(settingsText, out string settingsError), settingsError);
        b.Component = b.Player.Add(new SecmoCharacter { settings = settings, root = b.Root });
        if (b.Component.LastError != null) throw new Exception(b.Component.LastError);
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
        var own = Make(); // the clip keys the pelvis only
        var keyed = Make();
        keyed.KeyHelper = true; // a clip keying the helper at rest
        double worst = 0, moved = 0;
        for (int f = 0; f < 600; f++)
        {
            own.Frame(PelvisAt(f));
            keyed.Frame(PelvisAt(f));

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
        for (int f = 0; f < 10; f++) body.Frame(PelvisAt(f));
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int f = 10; f < 1010; f++) body.Frame(PelvisAt(f));
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
        double worst = 0;
        for (int f = 0; f < 120; f++)
        {
            foreach (var body in new[] { plain, cluttered })
            {
                body.Frame(PelvisAt(f));
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
        int errors = Debug.Errors;
        for (int f = 0; f < 5; f++) body.Frame(PelvisAt(f));
        UnityEngine.Object.Destroy(body.Helper);
        for (int f = 5; f < 10; f++) body.Frame(PelvisAt(4));
        Console.WriteLine($"destroyed: enabled {body.Component.enabled}, {Debug.Errors - errors} error(s): {body.Component.LastError}");
        return !body.Component.enabled && Debug.Errors - errors == 1 ? 0 : 1;
    }

    const string TailSettings =
        "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"tail\", \"anchor\": \"pelvis\", " +
        "\"joints\": [\"tail_0\", \"tail_1\", \"tail_2\"], \"params\": {\"lod_skip_below\": 0.5, \"carry_angle_degrees\": 0, \"floor_enabled\": false}}]}";

    sealed class Tailed
    {
        public SecmoCharacter Component;
        public Transform Root, Pelvis, Tail0;
        public Body Body;

        public void Frame(Vector3 pelvis) => Body.Frame(pelvis);

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

    /// A three-joint tail under the pelvis (bones tail_0..tail_2 appended to `b`).
    static void AddTail(Body b)
    {
        var t0 = new Transform { name = "tail_0", localPosition = new Vector3(0f, -0.05f, -0.1f) };
        t0.parent = b.Pelvis;
        var t1 = new Transform { name = "tail_1", localPosition = new Vector3(0f, -0.1f, -0.15f) };
        t1.parent = t0;
        var t2 = new Transform { name = "tail_2", localPosition = new Vector3(0f, -0.1f, -0.15f) };
        t2.parent = t1;
    }

    static Transform Find(Transform top, string name)
    {
        foreach (var t in top.GetComponentsInChildren<Transform>(true)) if (t.name == name) return t;
        throw new Exception("no " + name);
    }

    static Tailed MakeTailed()
    {
        var b = new Tailed();
        b.Body = Make(AddTail, null, TailSettings);
        b.Root = b.Body.Root;
        b.Pelvis = b.Body.Pelvis;
        b.Tail0 = Find(b.Root, "tail_0");
        b.Component = b.Body.Component;
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
        var player = new Player();
        // The arm turns 90° about Z: the sleeve follows 45°.
        float h = (float)Math.Sin(Math.PI / 4), c = (float)Math.Cos(Math.PI / 4);
        player.Add(new Animator()).clip = t => arm.localRotation = new Quaternion(0f, 0f, h, c);
        var component = player.Add(new SecmoCharacter { settings = settings, root = root });
        if (component.LastError != null) { Console.WriteLine("constraint: " + component.LastError); return 1; }
        player.Frame(1f / 60f);
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

    /// SecmoManager: 20 characters whose transforms are read and written by
    /// IJobParallelForTransform jobs and whose simulation runs as an
    /// IJobParallelFor over ranges of 8 characters on the worker threads
    /// (UnityJobsSim.cs), give what each gives alone, bit for bit (the
    /// unanimated helper included), with no managed allocation; a character
    /// whose bone is destroyed leaves the batch, the others go on.
    static int Manager()
    {
        failures = 0;
        const int bodies = 20, frames = 300;
        var alone = new Vector3[bodies, frames];
        for (int k = 0; k < bodies; k++)
        {
            var b = Make();
            for (int f = 0; f < frames; f++)
            {
                b.Frame(PelvisOf(k, f));
                alone[k, f] = b.Helper.localPosition;
            }
            b.Component.enabled = false;
        }

        var player = new Player();
        var batch = new Body[bodies];
        for (int k = 0; k < bodies; k++) batch[k] = Make(null, player);
        var manager = player.Add(new SecmoManager { name = "manager" });
        Action<int> frame = f =>
        {
            for (int k = 0; k < batch.Length; k++) batch[k].PelvisPose = PelvisOf(k, f);
            player.Frame(1f / 60f);
        };
        int differing = 0, calls = 0, onWorkers = Unity.Jobs.JobSim.IndicesOnWorkers;
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
        onWorkers = Unity.Jobs.JobSim.IndicesOnWorkers - onWorkers;
        Check(differing == 0 && moved > 0.001 && manager.CharacterCount == bodies,
            $"manager: {bodies} characters over {frames} frames: {differing} helper positions differ from each character alone (spring offset up to {moved * 1000:F2} mm)");
        Check(calls == 3 * frames && onWorkers == 3 * frames && Unity.Jobs.JobSim.TransformJobsAfterParallelFor == frames,
            $"manager: {calls} secmo_world_update_range ranges in {frames} frames, {onWorkers} run on worker threads; "
            + $"{Unity.Jobs.JobSim.TransformJobsAfterParallelFor} write-back jobs scheduled after the simulation job");

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int f = frames; f < frames + 1000; f++) frame(f);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Check(allocated == 0, $"manager: 1000 frames of {bodies} characters allocate {allocated} managed bytes");

        int errors = Debug.Errors;
        UnityEngine.Object.Destroy(batch[1].Helper);
        var still = batch[2].Helper.localPosition;
        for (int f = frames + 1000; f < frames + 1010; f++) frame(f);
        var after = batch[2].Helper.localPosition;
        Check(!batch[1].Component.enabled && manager.CharacterCount == bodies - 1 && Debug.Errors - errors == 1 && (after.x != still.x || after.z != still.z),
            $"manager: a destroyed bone disables its character ({Debug.Errors - errors} error), {manager.CharacterCount} characters go on");
        manager.enabled = false;
        return failures == 0 ? 0 : 1;
    }

    /// SecmoManager's world and budget: 12 tailed characters in a row away
    /// from the viewer run all their joint-substeps without a budget; with
    /// three quarters of that as the budget the farther ones run fewer and
    /// the total fits it; without it again every character is back at full
    /// rate; disabling the manager moves the characters out of its world
    /// and they go on alone without an error.
    static int Budget()
    {
        failures = 0;
        const int bodies = 12;
        var player = new Player();
        var batch = new Body[bodies];
        for (int k = 0; k < bodies; k++)
        {
            batch[k] = Make(AddTail, player, TailHelperSettings);
            batch[k].Root.localPosition = new Vector3(2f * k, 0f, 0f);
        }
        var manager = player.Add(new SecmoManager { name = "manager" });
        manager.viewer = new Transform { name = "camera" };
        int f = 0;
        Action run = () =>
        {
            for (int k = 0; k < bodies; k++) batch[k].PelvisPose = PelvisOf(k, f);
            player.Frame(1f / 60f);
            f++;
        };
        for (int i = 0; i < 30; i++) run();
        long full = manager.JointSubsteps;
        int budget = (int)(full * 3 / 4);
        manager.jointSubstepBudget = budget;
        for (int i = 0; i < 30; i++) run();
        long under = manager.JointSubsteps;
        int degraded = manager.Degraded;
        Check(full == bodies * 3 * 2 && under <= budget && under >= 0.95 * budget && degraded > 0 && degraded < bodies,
            $"budget: {bodies} characters run {full} joint-substeps a frame; with a budget of {budget}, {under} ({degraded} degraded)");
        manager.jointSubstepBudget = 0;
        for (int i = 0; i < 10; i++) run();
        Check(manager.Degraded == 0 && manager.JointSubsteps == full,
            $"budget: without it {manager.Degraded} degraded, {manager.JointSubsteps} joint-substeps a frame");
        var before = batch[3].Helper.localPosition;
        manager.enabled = false;
        for (int i = 0; i < 10; i++) run();
        int errors = 0;
        foreach (var b in batch) if (b.Component.LastError != null) errors++;
        var after = batch[3].Helper.localPosition;
        Check(errors == 0 && (after.x != before.x || after.z != before.z),
            $"budget: the characters left the manager's world and go on alone ({errors} errors)");
        return failures == 0 ? 0 : 1;
    }

    const string TailHelperSettings =
        "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"springs\": [{\"bone\": \"helper\", \"preset\": \"hip\"}], " +
        "\"chains\": [{\"preset\": \"tail\", \"anchor\": \"pelvis\", " +
        "\"joints\": [\"tail_0\", \"tail_1\", \"tail_2\"], \"params\": {\"carry_angle_degrees\": 0, \"floor_enabled\": false}}]}";

    static SecmoTransform Pose(Transform t)
    {
        Vector3 p = t.localPosition, c = t.localScale;
        Quaternion r = t.localRotation;
        return new SecmoTransform { tx = p.x, ty = p.y, tz = p.z, rx = r.x, ry = r.y, rz = r.z, rw = r.w, sx = c.x, sy = c.y, sz = c.z };
    }

    static void SetPose(Transform t, SecmoTransform p)
    {
        t.localPosition = new Vector3(p.tx, p.ty, p.tz);
        t.localRotation = new Quaternion(p.rx, p.ry, p.rz, p.rw);
        t.localScale = new Vector3(p.sx, p.sy, p.sz);
    }

    static readonly string[] Driven = { "pelvis", "helper", "tail_0", "tail_1", "tail_2" };

    /// <summary>Degrees between two rotations (normalised: a float32 quaternion is unit only to ~3e-8).</summary>
    static double Angle(Quaternion a, Quaternion b)
    {
        double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
        double na = Math.Sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
        double nb = Math.Sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
        return 2.0 * Math.Acos(Math.Min(1.0, Math.Abs(dot) / (na * nb))) * 180.0 / Math.PI;
    }

    static double Distance(Vector3 a, Vector3 b) =>
        Math.Sqrt((double)(a.x - b.x) * (a.x - b.x) + (double)(a.y - b.y) * (a.y - b.y) + (double)(a.z - b.z) * (a.z - b.z));

    static void DisableManager()
    {
        if (activeManager != null) activeManager.enabled = false;
        activeManager = null;
    }

    static SecmoManager activeManager;

    /// Issue #51 item 1: a tail and a hip helper, moved for 2 s, disabled,
    /// enabled again (after 10 frames, or in the same frame), moved, then
    /// left standing for 10 s: against a twin never disabled in the same
    /// player. While disabled every driven bone shows the animation (the
    /// clip keys the pelvis; the rest is at its bind pose).
    static int Disable()
    {
        failures = 0;
        foreach (bool managed in new[] { false, true })
        foreach (int gap in new[] { 10, 0 })
        {
            var player = new Player();
            var toggled = Make(AddTail, player, TailHelperSettings);
            var twin = Make(AddTail, player, TailHelperSettings);
            if (managed) activeManager = player.Add(new SecmoManager { name = "manager" });
            var bind = new SecmoTransform[Driven.Length];
            for (int i = 0; i < Driven.Length; i++) bind[i] = Pose(Find(toggled.Root, Driven[i]));
            double offMeters = 0, offDegrees = 0;
            Action checkOff = () =>
            {
                for (int i = 0; i < Driven.Length; i++)
                {
                    var t = Find(toggled.Root, Driven[i]);
                    var expect = bind[i];
                    if (i == 0) { expect.tx = toggled.PelvisPose.x; expect.ty = toggled.PelvisPose.y; expect.tz = toggled.PelvisPose.z; }
                    offMeters = Math.Max(offMeters, Distance(t.localPosition, new Vector3(expect.tx, expect.ty, expect.tz)));
                    offDegrees = Math.Max(offDegrees, Angle(t.localRotation, new Quaternion(expect.rx, expect.ry, expect.rz, expect.rw)));
                }
            };
            Action<Vector3> frame = pelvis =>
            {
                toggled.PelvisPose = pelvis;
                twin.PelvisPose = pelvis;
                player.Frame(1f / 60f);
            };
            for (int f = 0; f < 120; f++) frame(PelvisAt(f));
            toggled.Component.enabled = false;
            checkOff();
            for (int f = 120; f < 120 + gap; f++)
            {
                frame(PelvisAt(f));
                checkOff();
            }
            toggled.Component.enabled = true;
            for (int f = 120 + gap; f < 300; f++) frame(PelvisAt(f));
            for (int f = 300; f < 900; f++) frame(new Vector3(0f, 1f, 0f));
            double tail = 0;
            foreach (var joint in new[] { "tail_0", "tail_1", "tail_2" })
                tail = Math.Max(tail, Angle(Find(toggled.Root, joint).localRotation, Find(twin.Root, joint).localRotation));
            double helper = Distance(toggled.Helper.localPosition, twin.Helper.localPosition) * 1000;
            double sag = Angle(Find(twin.Root, "tail_0").localRotation, new Quaternion(bind[2].rx, bind[2].ry, bind[2].rz, bind[2].rw));
            string path = (managed ? "manager" : "component") + (gap > 0 ? ", enabled 10 frames later" : ", enabled in the same frame");
            Check(offMeters == 0 && offDegrees == 0,
                $"disable ({path}): while disabled every bone shows the animation (up to {offMeters * 1000:F3} mm and {offDegrees:F3}° off)");
            Check(tail < 0.01 && helper < 0.01 && sag > 1,
                $"disable ({path}): 10 s later the tail is {tail:F4}° and the helper {helper:F4} mm from a twin never disabled (the twin's tail settles {sag:F1}° from its bind pose)");
            toggled.Component.enabled = false;
            twin.Component.enabled = false;
            DisableManager();
        }
        return failures == 0 ? 0 : 1;
    }

    /// The order test's clip at clip time t: the pelvis moving, tail_0 swinging about X.
    static Vector3 ClipPelvis(float t) => new Vector3(0.3f * (float)Math.Sin(3.0 * t), 1f + 0.05f * (float)Math.Sin(7.0 * t), 0.1f * (float)Math.Sin(2.0 * t));

    static Quaternion ClipTail(float t)
    {
        double half = 0.5 * 0.4 * Math.Sin(2.0 * Math.PI * 1.3 * t);
        return new Quaternion((float)Math.Sin(half), 0f, 0f, (float)Math.Cos(half));
    }

    sealed class Order
    {
        public string Name;
        public AnimatorUpdateMode Mode;
        public float Fixed = 0.02f, TimeScale = 1f;
        public AnimatorCullingMode Culling;
        public bool OffScreen; // frames 100..160
    }

    /// Runs `o` for 300 frames: the driven bones' local poses after each frame.
    /// truth: an Animator in the same mode that only tracks the clip time, and
    /// a second one that writes every driven bone (the clip's pelvis and tail_0
    /// at that time, the others at their bind pose) every frame, so the input
    /// is right by construction. Otherwise the clip keys the pelvis and tail_0
    /// only, in mode `o.Mode`, with or without a manager.
    static SecmoTransform[,] RunOrder(Order o, bool truth, bool managed)
    {
        const int frames = 300;
        Time.fixedDeltaTime = o.Fixed;
        Time.timeScale = o.TimeScale;
        var player = new Player();
        var clock = truth ? player.Add(new Animator { updateMode = o.Mode, cullingMode = o.Culling }) : null;
        var b = Make(AddTail, player, TailHelperSettings);
        var tail0 = Find(b.Root, "tail_0");
        var others = new[] { b.Helper, Find(b.Root, "tail_1"), Find(b.Root, "tail_2") };
        var rest = new SecmoTransform[others.Length];
        for (int i = 0; i < others.Length; i++) rest[i] = Pose(others[i]);
        var animator = b.Animator;
        if (truth)
        {
            animator.clip = t =>
            {
                b.Pelvis.localPosition = ClipPelvis(clock.time);
                tail0.localRotation = ClipTail(clock.time);
                for (int i = 0; i < others.Length; i++) SetPose(others[i], rest[i]);
            };
        }
        else
        {
            animator.updateMode = o.Mode;
            animator.cullingMode = o.Culling;
            animator.clip = t =>
            {
                b.Pelvis.localPosition = ClipPelvis(t);
                tail0.localRotation = ClipTail(t);
            };
        }
        if (managed) activeManager = player.Add(new SecmoManager { name = "manager" });
        var bones = new Transform[Driven.Length];
        for (int i = 0; i < Driven.Length; i++) bones[i] = Find(b.Root, Driven[i]);
        var poses = new SecmoTransform[frames, Driven.Length];
        for (int f = 0; f < frames; f++)
        {
            bool visible = !(o.OffScreen && f >= 100 && f < 160);
            (truth ? clock : animator).visible = visible;
            player.Frame(1f / 60f);
            for (int i = 0; i < Driven.Length; i++) poses[f, i] = Pose(bones[i]);
        }
        b.Component.enabled = false;
        DisableManager();
        Time.fixedDeltaTime = 0.02f;
        Time.timeScale = 1f;
        return poses;
    }

    /// Largest angle of tail_0's output from its bind rotation (identity), in degrees.
    static double Swing(SecmoTransform[,] poses)
    {
        double worst = 0;
        for (int f = 0; f < poses.GetLength(0); f++)
            worst = Math.Max(worst, Angle(new Quaternion(poses[f, 2].rx, poses[f, 2].ry, poses[f, 2].rz, poses[f, 2].rw), new Quaternion(0f, 0f, 0f, 1f)));
        return worst;
    }

    /// Issue #51 item 2: in every Animator update mode and culling mode,
    /// secmo's output is the one it gives when fed the animation's current
    /// pose of every bone, bit for bit, on the component and the manager path.
    static int OrderModes()
    {
        failures = 0;
        var orders = new[]
        {
            new Order { Name = "Normal" },
            new Order { Name = "AnimatePhysics, fixed step = frame", Mode = AnimatorUpdateMode.AnimatePhysics, Fixed = 1f / 60f },
            new Order { Name = "AnimatePhysics, 50 Hz fixed steps at 60 fps", Mode = AnimatorUpdateMode.AnimatePhysics },
            new Order { Name = "UnscaledTime, timeScale 0.5", Mode = AnimatorUpdateMode.UnscaledTime, TimeScale = 0.5f },
            new Order { Name = "Normal, cull completely, off screen for 1 s", Culling = AnimatorCullingMode.CullCompletely, OffScreen = true },
            new Order { Name = "AnimatePhysics at 50 Hz, cull completely, off screen for 1 s", Mode = AnimatorUpdateMode.AnimatePhysics, Culling = AnimatorCullingMode.CullCompletely, OffScreen = true },
        };
        foreach (var o in orders)
        {
            var truth = RunOrder(o, true, false);
            foreach (bool managed in new[] { false, true })
            {
                var got = RunOrder(o, false, managed);
                int differing = 0;
                double worst = 0;
                for (int f = 0; f < truth.GetLength(0); f++)
                    for (int i = 0; i < Driven.Length; i++)
                    {
                        if (got[f, i].Equals(truth[f, i])) continue;
                        differing++;
                        worst = Math.Max(worst, Angle(new Quaternion(got[f, i].rx, got[f, i].ry, got[f, i].rz, got[f, i].rw),
                            new Quaternion(truth[f, i].rx, truth[f, i].ry, truth[f, i].rz, truth[f, i].rw)));
                    }
                Check(differing == 0 && Swing(truth) > 1,
                    $"order ({o.Name}, {(managed ? "manager" : "component")}): {differing} of {truth.Length} bone poses differ from secmo fed the animation (up to {worst:F1}°; tail_0 swings {Swing(truth):F1}°)");
            }
        }
        return failures == 0 ? 0 : 1;
    }

    /// Issue #51 item 10: the pelvis jumps 2 m a frame (over the chains' 1 m
    /// teleport distance) for 10 frames, stands, and jumps again: two streaks,
    /// one warning each, on the component and the manager path.
    static int Streak()
    {
        failures = 0;
        foreach (bool managed in new[] { false, true })
        {
            var player = new Player();
            var b = Make(AddTail, player, TailSettings);
            if (managed) activeManager = player.Add(new SecmoManager { name = "manager" });
            int warnings = Debug.Warnings, streaks = 0;
            float x = 0f;
            for (int f = 0; f < 120; f++)
            {
                bool jumping = (f >= 30 && f < 40) || (f >= 70 && f < 80);
                if (jumping) x += 2f;
                int before = Debug.Warnings;
                b.Frame(new Vector3(x, 1f, 0f));
                if (Debug.Warnings > before && Debug.LastWarning.Contains("teleport threshold")) streaks++;
            }
            Check(streaks == 2 && Debug.Warnings - warnings == 2,
                $"streak ({(managed ? "manager" : "component")}): two streaks of 10 jumping frames, {streaks} teleport-streak warning(s): {Debug.LastWarning}");
            b.Component.enabled = false;
            DisableManager();
        }
        return failures == 0 ? 0 : 1;
    }

    /// Issue #51 item 4: two components enabled in a player, with or without
    /// the native library on the library path: without it, one logged error
    /// naming the platform and the command, the same text in each
    /// component's LastError, and no exception.
    static int Library()
    {
        string check = SecmoNative.CheckLibrary();
        var player = new Player();
        int errors = Debug.Errors;
        var a = player.Add(new SecmoCharacter { settings = ScriptableObject.CreateInstance<SecmoRigSettings>(), root = new Transform { name = "a" } });
        var b = player.Add(new SecmoCharacter { settings = ScriptableObject.CreateInstance<SecmoRigSettings>(), root = new Transform { name = "b" } });
        player.Frame(1f / 60f);
        Console.WriteLine("library: " + (check ?? "loaded"));
        Console.WriteLine($"library: {Debug.Errors - errors} error(s) logged; LastError the same in both components: {a.LastError == check && b.LastError == check}");
        return 0;
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
            case "budget": return Budget();
            case "disable": return Disable();
            case "order": return OrderModes();
            case "streak": return Streak();
            case "library": return Library();
            case "settings": return SettingsTests.Run();
            default: Console.Error.WriteLine("usage: ComponentTests rest|gc|only|destroyed"); return 2;
        }
    }
}
