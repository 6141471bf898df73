// The typed settings asset (SecmoRigSettings) under Mono, against the native
// library (issue #15 item 5):
//   - a file with every kind of entry survives FromJson -> ToJson: the
//     library expands both to the same text;
//   - every native parameter key has a field and every field a key (FromJson
//     refuses a key no field holds, the library refuses a key it does not
//     know);
//   - every [Range] bound of the parameter fields builds a rig, and values
//     just past a hard limit are refused naming the field;
//   - every shown field has a tooltip;
//   - choosing a preset fills its numbers from the library;
//   - a wrong value names its field and leaves the asset as it was;
//   - an asset saved as text before the typed fields is read on load.
using System;
using System.Collections.Generic;
using System.Reflection;
using Secmo;
using Secmo.Unity;
using UnityEngine;

static class SettingsTests
{
    static int failures;

    static void Check(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok: " : "FAILED: ") + what);
        if (!ok) failures++;
    }

    const string Every = @"{
  ""format"": ""secmo-rig-settings"", ""version"": 1,
  ""springs"": [ { ""bone"": ""helper"", ""preset"": ""chest"", ""damping"": 31, ""max_offset"": 0.015 } ],
  ""constraints"": [ { ""bone"": ""sleeve"", ""target"": ""hand_l"" } ],
  ""node_constraints"": [
    { ""kind"": ""roll"", ""source"": ""forearm_l"", ""destination"": ""cuff"", ""axis"": ""Y"", ""weight"": 0.5 },
    { ""kind"": ""aim"", ""source"": ""hand_r"", ""destination"": ""probe"" },
    { ""kind"": ""rotation"", ""source"": ""forearm_r"", ""destination"": ""hand_r"", ""weight"": 0.25 } ],
  ""correctives"": [
    { ""driven"": ""chest_l"", ""side"": ""left"",
      ""btob"": { ""other_chest"": ""chest_r"", ""upper_arm_l"": ""upper_arm_l"", ""forearm_l"": ""forearm_l"", ""hand_l"": ""hand_l"",
                  ""upper_arm_r"": ""upper_arm_r"", ""forearm_r"": ""forearm_r"", ""hand_r"": ""hand_r"",
                  ""medial_x"": -1, ""chest_gap"": 0.16 } },
    { ""driven"": ""chest_r"", ""side"": ""right"", ""rate"": 12,
      ""probes"": [ { ""bone"": ""hand_r"", ""threshold"": 0.2, ""weight"": 0.5, ""side"": ""right"",
                      ""same"": { ""translation"": [0.1, 0, 0], ""scale"": [0, 0.2, 0] },
                      ""opposite"": { ""translation"": [0, 0, -0.05], ""scale"": [0, 0, 0] } } ] } ],
  ""colliders"": [
    { ""name"": ""head"", ""bone"": ""head"", ""shape"": ""sphere"", ""a"": [0, 0.08, 0], ""radius"": 0.09 },
    { ""name"": ""shoulders"", ""bone"": ""spine"", ""shape"": ""capsule"", ""a"": [-0.18, 0.15, 0], ""b"": [0.18, 0.15, 0], ""radius"": 0.06 },
    { ""name"": ""floor"", ""bone"": ""root"", ""shape"": ""plane"", ""a"": [0, 0, 0], ""b"": [0, 1, 0] },
    { ""name"": ""hood"", ""bone"": ""head"", ""shape"": ""inside_sphere"", ""radius"": 0.5 },
    { ""name"": ""tube"", ""bone"": ""spine"", ""shape"": ""inside_capsule"", ""a"": [0, 0, 0], ""b"": [0, 1, 0], ""radius"": 0.6 } ],
  ""chains"": [
    { ""preset"": ""tail"", ""anchor"": ""hips"", ""joints"": [""tail_1"", ""tail_2"", ""tail_3""],
      ""params"": { ""carry_angle_degrees"": 35, ""simulation_space"": ""hips"", ""floor_enabled"": false },
      ""radii"": [0.03, 0.02, 0.01], ""weights"": [1, 1, 0.5], ""colliders"": [""floor""] },
    { ""preset"": ""hair"", ""anchor"": ""head"", ""joints"": [""hair_1"", ""hair_2""],
      ""params"": { ""integrator"": ""spring"", ""bend_limit_degrees"": 45 },
      ""end_offset"": [0, -0.05, 0], ""colliders"": [""head"", ""shoulders"", ""hood"", ""tube""] },
    { ""preset"": ""vrm"", ""anchor"": ""spine"", ""joints"": [""ribbon_1"", ""ribbon_2""],
      ""params"": { ""vrm_drag_force"": 0.3 }, ""vrm_offsets"": [[0, 0, 0], [0.5, -0.1, 0.2]],
      ""limits"": [{ ""shape"": ""cone"", ""angle_degrees"": 20 },
                   { ""shape"": ""spherical"", ""angle_degrees"": 30, ""yaw_degrees"": 10, ""rotation"": [0, 0.6, 0, 0.8] }] } ]
}";

    // The skeleton the file names (metres, Y up).
    static readonly string[] Names = {
        "root", "hips", "spine", "head", "chest_l", "chest_r", "upper_arm_l", "forearm_l", "hand_l",
        "upper_arm_r", "forearm_r", "hand_r", "sleeve", "probe", "helper", "tail_1", "tail_2", "tail_3",
        "hair_1", "hair_2", "ribbon_1", "ribbon_2", "cuff" };
    static readonly int[] Parents = { -1, 0, 1, 2, 2, 2, 2, 6, 7, 2, 9, 10, 7, 11, 1, 1, 15, 16, 3, 18, 2, 20, 7 };
    static readonly float[][] Offsets = {
        new[] { 0f, 0f, 0f }, new[] { 0f, 1f, 0f }, new[] { 0f, 0.3f, 0f }, new[] { 0f, 0.3f, 0f },
        new[] { 0.1f, 0.1f, 0.1f }, new[] { -0.1f, 0.1f, 0.1f }, new[] { 0.2f, 0.2f, 0f }, new[] { 0.3f, 0f, 0f },
        new[] { 0.25f, 0f, 0f }, new[] { -0.2f, 0.2f, 0f }, new[] { -0.3f, 0f, 0f }, new[] { -0.25f, 0f, 0f },
        new[] { 0.1f, 0f, 0f }, new[] { -0.05f, 0f, 0f }, new[] { 0.1f, -0.05f, 0.05f }, new[] { 0f, -0.05f, -0.1f },
        new[] { 0f, -0.05f, -0.15f }, new[] { 0f, -0.05f, -0.15f }, new[] { 0.08f, 0.05f, 0f }, new[] { 0f, -0.06f, 0f },
        new[] { 0f, 0.1f, -0.12f }, new[] { 0f, -0.1f, -0.02f }, new[] { 0.2f, 0f, 0f } };

    static bool Build(string text, out string error)
    {
        var reference = new SecmoTransform[Names.Length];
        for (int i = 0; i < Names.Length; i++)
        {
            reference[i] = SecmoTransform.Identity;
            reference[i].tx = Offsets[i][0];
            reference[i].ty = Offsets[i][1];
            reference[i].tz = Offsets[i][2];
        }
        if (!Rig.TryFromSettings(Names, Parents, reference, 1f, SecmoNative.UpAxisY, text, out Rig rig, out _, out error))
            return false;
        rig.Dispose();
        return true;
    }

    static string Expanded(string text)
    {
        if (!Settings.TryExpand(text, 1f, out string full, out _, out string error)) throw new InvalidOperationException(error);
        return full;
    }

    static IEnumerable<Type> Typed() => new[] {
        typeof(SecmoSpringParamSettings), typeof(SecmoChainParamSettings), typeof(SecmoSpringSetting),
        typeof(SecmoConstraintSetting), typeof(SecmoNodeConstraintSetting), typeof(SecmoGainSetting),
        typeof(SecmoProbeSetting), typeof(SecmoBtobSetting), typeof(SecmoCorrectiveSetting),
        typeof(SecmoColliderSetting), typeof(SecmoChainSetting) };

    public static int Run()
    {
        // The file builds a rig as written.
        Check(Build(Every, out string buildError), "the file with every kind of entry builds a rig " + buildError);

        // Round trip through the typed fields.
        var asset = ScriptableObject.CreateInstance<SecmoRigSettings>();
        bool read = asset.FromJson(Every, out string readError);
        Check(read, "FromJson reads every kind of entry " + readError);
        string written = asset.ToJson();
        Check(Expanded(written) == Expanded(Every), "ToJson gives the file back: the library expands both to the same text");
        Check(Build(written, out buildError), "and the written text builds the rig " + buildError);
        Check(asset.springs[0].preset == SecmoSpringPreset.Chest && asset.springs[0].parameters.damping == 31f
              && asset.springs[0].parameters.stiffness == 400f, "a spring keeps its preset, override and preset values");
        Check(asset.chains[0].parameters.simulationSpace == "hips" && asset.chains[1].parameters.simulationSpace == ""
              && asset.chains[0].parameters.carryAngleDegrees == 35f && !asset.chains[0].parameters.floorEnabled
              && asset.chains[1].parameters.integrator == SecmoIntegrator.Spring, "chain overrides arrive in typed fields");
        Check(asset.correctives[0].useBtob && !asset.correctives[0].overrideRate && asset.correctives[1].overrideRate
              && asset.correctives[1].probes[0].same.translation.x == 0.1f, "correctives: BtoB, rate and probe gains");
        Check(asset.colliders[4].shape == SecmoColliderShape.InsideCapsule && asset.chains[1].hasEndOffset
              && asset.chains[1].colliders.Count == 4, "colliders and chain extras");
        Check(asset.chains[2].vrmOffsets.Count == 2 && asset.chains[2].vrmOffsets[1].x == 0.5f
              && asset.chains[2].vrmOffsets[1].z == 0.2f, "a VRM chain's per-joint numbers");
        Check(asset.chains[2].limits.Count == 2 && asset.chains[2].limits[0].shape == SecmoLimitShape.Cone
              && asset.chains[2].limits[0].angleDegrees == 20f && asset.chains[2].limits[1].shape == SecmoLimitShape.Spherical
              && asset.chains[2].limits[1].yawDegrees == 10f && asset.chains[2].limits[1].rotation.y == 0.6f
              && asset.chains[2].limits[1].rotation.w == 0.8f, "a VRM chain's angle limits");

        // Every native parameter key has a field: FromJson refuses a key no field holds.
        var probe = ScriptableObject.CreateInstance<SecmoRigSettings>();
        bool unknown = probe.FromJson("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"tail\", " +
            "\"anchor\": \"hips\", \"joints\": [\"tail_1\"], \"params\": {\"gravityy\": 1}}]}", out string unknownError);
        Check(!unknown && unknownError.Contains("chains[0].params.gravityy"), "a misspelt key is named: " + unknownError);
        // ... and every field a key (the library refuses keys it does not know, so a
        // field without one would fail the round trip above; check by name too).
        var keys = new HashSet<string>();
        foreach (var f in typeof(SecmoChainParamSettings).GetFields()) keys.Add(SecmoRigSettings.Snake(f.Name));
        string tailFull = Expanded("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"tail\", \"anchor\": \"a\", \"joints\": [\"j\"], \"params\": {\"simulation_space\": \"a\"}}]}");
        SecmoJson.TryParse(tailFull, out object tree, out _);
        var nativeParams = (Dictionary<string, object>)((Dictionary<string, object>)((List<object>)((Dictionary<string, object>)tree)["chains"])[0])["params"];
        bool same = nativeParams.Count == keys.Count;
        foreach (var k in nativeParams.Keys) same &= keys.Contains(k);
        Check(same, "SecmoChainParamSettings has exactly the library's " + nativeParams.Count + " chain parameter keys");

        // Every [Range] bound of a parameter field is a value the library accepts.
        int bounds = 0;
        foreach (var f in typeof(SecmoChainParamSettings).GetFields())
        {
            var range = f.GetCustomAttribute<RangeAttribute>();
            if (range == null) continue;
            foreach (float v in new[] { range.min, range.max })
            {
                foreach (var preset in new[] { SecmoChainPreset.Tail, SecmoChainPreset.Hair, SecmoChainPreset.Vrm })
                {
                    var a = ScriptableObject.CreateInstance<SecmoRigSettings>();
                    var c = new SecmoChainSetting { preset = preset, anchor = "hips", joints = new List<string> { "tail_1", "tail_2", "tail_3" } };
                    a.chains.Add(c);
                    a.FillPresets(out _);
                    f.SetValue(c.parameters, f.FieldType == typeof(int) ? (object)(int)v : v);
                    bool ok = Build(a.ToJson(), out string e);
                    if (!ok) Check(false, preset + " " + f.Name + " = " + v + " is refused: " + e);
                    bounds++;
                }
            }
        }
        foreach (var f in typeof(SecmoSpringParamSettings).GetFields())
        {
            var range = f.GetCustomAttribute<RangeAttribute>();
            if (range == null) continue;
            foreach (float v in new[] { range.min, range.max })
            {
                var a = ScriptableObject.CreateInstance<SecmoRigSettings>();
                var s = new SecmoSpringSetting { bone = "helper" };
                a.springs.Add(s);
                a.FillPresets(out _);
                f.SetValue(s.parameters, f.FieldType == typeof(int) ? (object)(int)v : v);
                bool ok = Build(a.ToJson(), out string e);
                if (!ok) Check(false, "spring " + f.Name + " = " + v + " is refused: " + e);
                bounds++;
            }
        }
        Check(bounds > 70, bounds + " [Range] bounds build a rig");
        // A value past a hard limit is refused, naming the field.
        var over = ScriptableObject.CreateInstance<SecmoRigSettings>();
        over.chains.Add(new SecmoChainSetting { preset = SecmoChainPreset.Vrm, anchor = "hips", joints = new List<string> { "tail_1" } });
        over.FillPresets(out _);
        over.chains[0].parameters.vrmDragForce = 1.5f;
        Check(!Build(over.ToJson(), out string overError) && overError.Contains("vrm_drag_force"), "vrm_drag_force 1.5 is refused: " + overError);

        // Every field the inspector shows has a tooltip.
        foreach (var type in Typed())
        {
            foreach (var f in type.GetFields())
            {
                bool hidden = f.GetCustomAttribute<HideInInspector>() != null;
                bool nested = f.Name == "parameters";
                if (!hidden && !nested && f.GetCustomAttribute<TooltipAttribute>() == null)
                    Check(false, type.Name + "." + f.Name + " has no tooltip");
            }
        }
        Check(true, "tooltips checked on " + string.Join(", ", Array.ConvertAll(new List<Type>(Typed()).ToArray(), t => t.Name)));

        // Choosing a preset fills its numbers.
        var fresh = ScriptableObject.CreateInstance<SecmoRigSettings>();
        fresh.chains.Add(new SecmoChainSetting { preset = SecmoChainPreset.Hair });
        Check(fresh.FillPresets(out string fillError), "FillPresets " + fillError);
        var hair = fresh.chains[0].parameters;
        Check(hair.integrator == SecmoIntegrator.ExponentialDamping && hair.stiffness == 40f && hair.damping == 10f
              && hair.bendLimitDegrees == 180f && hair.radius == 0.01f, "hair preset: exponential damping, k 40, c 10, no bend limit, 1 cm links");
        fresh.chains[0].preset = SecmoChainPreset.Tail;
        fresh.FillPresets(out _);
        var tail = fresh.chains[0].parameters;
        Check(tail.integrator == SecmoIntegrator.Spring && Math.Abs(tail.frequencyRoot - 0.9f) < 1e-6f
              && Math.Abs(tail.carryAngleDegrees - 50f) < 1e-4f && tail.floorEnabled && tail.settleSpeedup == 8f,
              "switching to the tail preset refills: 0.9 Hz root, 50° carry, floor, settle x8");
        tail.frequencyRoot = 2f;
        fresh.FillPresets(out _);
        Check(fresh.chains[0].parameters.frequencyRoot == 2f, "an edited value stays while the preset does not change");

        // A wrong value names its field; the asset stays as it was.
        string before = asset.ToJson();
        bool bad = asset.FromJson(Every.Replace("\"carry_angle_degrees\": 35", "\"carry_angle_degrees\": \"steep\""), out string badError);
        Check(!bad && badError.Contains("chains[0].params.carry_angle_degrees"), "a wrong value is named: " + badError);
        Check(asset.ToJson() == before, "and the asset is unchanged");
        bool broken = asset.FromJson("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [", out string brokenError);
        Check(!broken && brokenError.Contains("line 1"), "broken JSON names the place: " + brokenError);

        // A file in centimetres (an Unreal export) arrives in metres.
        var cmAsset = ScriptableObject.CreateInstance<SecmoRigSettings>();
        bool cmRead = cmAsset.FromJson("{\"format\": \"secmo-rig-settings\", \"version\": 1, \"units_per_meter\": 100, " +
            "\"colliders\": [{\"name\": \"head\", \"bone\": \"head\", \"shape\": \"sphere\", \"radius\": 9}], " +
            "\"chains\": [{\"preset\": \"tail\", \"anchor\": \"hips\", \"joints\": [\"tail_1\"], \"params\": {\"radius\": 3}}]}", out string cmError);
        Check(cmRead && Math.Abs(cmAsset.colliders[0].radius - 0.09f) < 1e-6f && Math.Abs(cmAsset.chains[0].parameters.radius - 0.03f) < 1e-6f
              && Math.Abs(cmAsset.chains[0].parameters.gravity - 1f) < 1e-6f,
              "a centimetre file arrives in metres (9 cm collider -> 0.09 m, preset gravity 1 m/s²) " + cmError);
        Check(cmAsset.ToJson().Contains("\"units_per_meter\": 1"), "ToJson declares metres");

        // An asset saved as text before the typed fields is read on load.
        var old = ScriptableObject.CreateInstance<SecmoRigSettings>();
        old.settings = Every;
        typeof(SecmoRigSettings).GetMethod("OnEnable", BindingFlags.Instance | BindingFlags.NonPublic).Invoke(old, null);
        Check(old.settings == "" && old.chains.Count == 3 && Expanded(old.ToJson()) == Expanded(Every), "an old text asset becomes typed fields on load");

        Console.WriteLine(failures == 0 ? "settings: all passed" : "settings: " + failures + " failed");
        return failures == 0 ? 0 : 1;
    }
}
