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
using System;
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
        settings.settings = Settings;
        b.Component = new SecmoCharacter { settings = settings, root = b.Root };
        Method(b.Component, "OnEnable")();
        if (b.Component.LastError != null) throw new Exception(b.Component.LastError);
        b.Update = Method(b.Component, "Update");
        b.LateUpdate = Method(b.Component, "LateUpdate");
        return b;
    }

    /// A private message method of the component, as Unity calls it.
    static Action Method(SecmoCharacter component, string name) =>
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

    static int Main(string[] args)
    {
        switch (args.Length > 0 ? args[0] : "")
        {
            case "rest": return Rest();
            case "gc": return Gc();
            case "only": return Only();
            case "destroyed": return Destroyed();
            default: Console.Error.WriteLine("usage: ComponentTests rest|gc|only|destroyed"); return 2;
        }
    }
}
