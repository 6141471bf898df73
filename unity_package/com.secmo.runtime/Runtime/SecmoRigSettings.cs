// The settings of a secmo rig as typed, serialized fields: springs, rotation
// constraints, VRM node constraints, correctives, colliders and chains, bones
// by name, lengths in metres (Unity's units), angles in degrees.
//
// The rig-settings text (docs/settings.md) shared with Unreal and the secmo
// tool stays the exchange format: ToJson writes it for the native library,
// FromJson reads it (through secmo_settings_expand, so every preset arrives
// with all its values filled in). Parameter names are not listed twice: a
// field's JSON key is its name in snake_case (frequencyRoot ->
// frequency_root), and a test checks every native key against the fields.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Text;
using UnityEngine;

namespace Secmo.Unity
{
    public enum SecmoSpringPreset { Hip, Chest }
    public enum SecmoChainPreset { Tail, Hair, Vrm }
    public enum SecmoIntegrator { Spring, ExponentialDamping, Vrm }
    public enum SecmoRestSource { Auto, Bind, Animated }
    public enum SecmoColliderShape { Sphere, Capsule, Plane, InsideSphere, InsideCapsule }
    public enum SecmoNodeConstraintKind { Roll, Aim, Rotation }
    public enum SecmoSide { Center, Left, Right }
    public enum SecmoLimitShape { None, Cone, Hinge, Spherical }

    /// <summary>A VRM joint's angle limit (VRMC_springBone_limit); JSON "limits" entries (docs/settings.md).</summary>
    [Serializable]
    public sealed class SecmoJointLimitSetting
    {
        [Tooltip("Cone: within Angle of the bone axis. Hinge: in the limit's y–z plane, within Angle. Spherical: pitch within Angle, yaw within Yaw.")]
        public SecmoLimitShape shape;
        [Tooltip("The cone's or hinge's angle, or the spherical limit's pitch, degrees (0–180).")]
        [Range(0f, 180f)] public float angleDegrees;
        [Tooltip("The spherical limit's yaw, degrees (0–90).")]
        [Range(0f, 90f)] public float yawDegrees;
        [Tooltip("The limit's turn from its default frame (the bone axis), as a quaternion.")]
        public Quaternion rotation = new Quaternion(0f, 0f, 0f, 1f);
    }

    /// <summary>A helper-bone spring's numbers (docs/algorithms.md §3); JSON keys are the field names in snake_case.</summary>
    [Serializable]
    public sealed class SecmoSpringParamSettings
    {
        [Tooltip("Restoring stiffness k, 1/s² (hip and chest 400).")]
        [Range(0f, 5000f)] public float stiffness;
        [Tooltip("Velocity damping d, 1/s (hip 25, chest 20).")]
        [Range(0f, 500f)] public float damping;
        [Tooltip("Longest offset of the helper from its animated place, metres (hip 0.02, chest 0.01).")]
        [Range(0f, 1f)] public float maxOffset;
        [Tooltip("Longest move in one 1/120 s substep, metres (the presets: Max Offset).")]
        [Range(0.0001f, 1f)] public float maxSubstepDisplacement;
        [Tooltip("Velocity history ring, substeps (1–16; 4).")]
        [Range(1, 16)] public int historyLength;
        [Tooltip("Farther than this from its animated place the helper snaps back, metres (2.55).")]
        [Range(0.01f, 10f)] public float resetThreshold;
        [Tooltip("Scales the 1/120 s substep: below 1 is slow motion (1).")]
        [Range(0.01f, 10f)] public float timeFactor;
        [Tooltip("Added motion, metres per second, in the character's space (0, 0, 0).")]
        public Vector3 extraVelocity;
        [Tooltip("Output weight: 0 the animation, 1 the spring (1).")]
        [Range(0f, 1f)] public float alpha;
    }

    /// <summary>A tail or hair chain's numbers (docs/algorithms.md §7, §8; secmo::ChainParams); JSON keys are the field names in snake_case.</summary>
    [Serializable]
    public sealed class SecmoChainParamSettings
    {
        [Tooltip("Spring (tails), exponential damping (hair) or the VRM spring-bone verlet.")]
        public SecmoIntegrator integrator;
        [Tooltip("Spring: natural frequency at the root, Hz (tail 0.9).")]
        [Range(0f, 20f)] public float frequencyRoot;
        [Tooltip("Spring: natural frequency at the tip, Hz (tail 0.45).")]
        [Range(0f, 20f)] public float frequencyTip;
        [Tooltip("Spring: damping ratio ζ, 1 = critical (tail 0.65).")]
        [Range(0f, 4f)] public float dampingRatio;
        [Tooltip("Exponential damping: restoring k, 1/s² (hair 40).")]
        [Range(0f, 1000f)] public float stiffness;
        [Tooltip("Exponential damping: velocity damping c, 1/s (hair 10).")]
        [Range(0f, 100f)] public float damping;
        [Tooltip("Gravity on the chain, m/s² (tail 1, hair 0).")]
        [Range(-50f, 50f)] public float gravity;
        [Tooltip("Gravity direction in world space; zero means down.")]
        public Vector3 gravityDirection;
        [Tooltip("Whole-tail lift about the hips' lateral axis, degrees, spread over the links (tail 50).")]
        [Range(-90f, 90f)] public float carryAngleDegrees;
        [Tooltip("Rest shape: 0 a centred arc, 1 the authored curve (tail 0, hair 1).")]
        [Range(0f, 1f)] public float restCurve;
        [Tooltip("Bend coupling between neighbouring links, 1/s; 0 = off (tail 12).")]
        [Range(0f, 100f)] public float bendRate;
        [Tooltip("Elastic bend limit between neighbouring links, degrees; 180 = off (tail 30).")]
        [Range(1f, 180f)] public float bendLimitDegrees;
        [Tooltip("Keep the chain behind the plane through its root facing forward (tails).")]
        public bool forwardPlane;
        [Tooltip("Rebuild velocity from positions after the length projection (hair); off keeps the swing (tails).")]
        public bool velocityFromPositions;
        [Tooltip("Floor contact (tails).")]
        public bool floorEnabled;
        [Tooltip("Floor height in world space, metres (0).")]
        public float floorHeight;
        [Tooltip("Clearance kept above the floor, metres (0.025).")]
        [Range(0f, 0.5f)] public float floorClearance;
        [Tooltip("Contact damping on the floor, 1/s (8).")]
        [Range(0f, 100f)] public float floorDamping;
        [Tooltip("Link radius against colliders where the chain gives no per-joint radii, metres (tail 0.02, hair 0.01).")]
        [Range(0f, 0.5f)] public float radius;
        [Tooltip("Blend of the simulated rotations over the animation (1).")]
        [Range(0f, 1f)] public float weight;
        [Tooltip("How strongly the character's wind acts on this chain (1).")]
        [Range(0f, 10f)] public float windFactor;
        [Tooltip("Scales the 120 Hz substep rate: below 1 is slow motion (1).")]
        [Range(0.01f, 10f)] public float timeFactor;
        [Tooltip("Below this importance the chain follows the animation (0).")]
        [Range(0f, 1f)] public float lodSkipBelow;
        [Tooltip("Below this importance the chain runs every other update (0).")]
        [Range(0f, 1f)] public float lodHalfBelow;
        [Tooltip("The root moving farther than this in one update is a teleport, metres (1).")]
        [Range(0.01f, 100f)] public float teleportDistance;
        [Tooltip("The anchor turning more than this in one update is a teleport, degrees (60).")]
        [Range(1f, 180f)] public float teleportAngleDegrees;
        [Tooltip("A bone whose motion carries the chain (a vehicle, a platform); empty = world space.")]
        public string simulationSpace = "";
        [Tooltip("Fraction of the simulation space's motion the chain resists (0).")]
        [Range(0f, 1f)] public float inertia;
        [Tooltip("VRM: stiffness, the rest-axis pull, m/s (VRM stiffness; 1).")]
        [Range(0f, 10f)] public float vrmStiffness;
        [Tooltip("VRM: dragForce, the fraction of the per-step motion lost (0.5).")]
        [Range(0f, 1f)] public float vrmDragForce;
        [Tooltip("VRM: gravityPower along the gravity direction, m/s (0).")]
        [Range(0f, 10f)] public float vrmGravityPower;
        [Tooltip("Tail and hair: how much faster the chain's last motion plays once its input has rested, so it settles within 2 s; 1 = off (8).")]
        [Range(1f, 32f)] public float settleSpeedup;
        [Tooltip("On a teleport, restart the chain on its animated pose at rest (three-vrm's reset) instead of carrying it rigidly (off).")]
        public bool teleportRestart;
        [Tooltip("Tail and hair: each substep's rest. Auto: the animation's pose where the animation moves the chain, the rest arc (carry, gravity) where it does not; Bind: always the rest arc; Animated: always the animation's pose (auto).")]
        public SecmoRestSource restSource;
        [Tooltip("Around the animation: the share of the body's motion the springs act on; 0 holds the chain on the animation, 1 adds all of it at the tip, less toward the root (tail and hair 0.2).")]
        [Range(0f, 1f)] public float animationInertia;
        [Tooltip("Around the animation: how far past the animation a joint may turn away from its bind pose about any axis, degrees; 0 never bends the skin farther than the clip does, 180 turns the guard off (tail and hair 0).")]
        [Range(0f, 180f)] public float keyMarginDegrees;
    }

    [Serializable]
    public sealed class SecmoSpringSetting
    {
        [Tooltip("The helper bone whose translation the spring drives.")]
        public string bone = "";
        [Tooltip("The values a new entry starts from (docs/algorithms.md §3). Changing it resets the numbers below.")]
        public SecmoSpringPreset preset;
        public SecmoSpringParamSettings parameters = new SecmoSpringParamSettings();
        [HideInInspector] public string filledFrom = "";
    }

    [Serializable]
    public sealed class SecmoConstraintSetting
    {
        [Tooltip("The bone that turns (docs/algorithms.md §4).")]
        public string bone = "";
        [Tooltip("The bone it aims at.")]
        public string target = "";
    }

    [Serializable]
    public sealed class SecmoNodeConstraintSetting
    {
        [Tooltip("Roll, aim or rotation (VRMC_node_constraint).")]
        public SecmoNodeConstraintKind kind;
        [Tooltip("The bone read.")]
        public string source = "";
        [Tooltip("The bone written.")]
        public string destination = "";
        [Tooltip("Roll: X, Y or Z; aim: PositiveX … NegativeZ; rotation: none. Empty: X or PositiveX.")]
        public string axis = "";
        [Tooltip("Blend of the constraint, 0–1 (1).")]
        [Range(0f, 1f)] public float weight = 1f;
    }

    [Serializable]
    public sealed class SecmoGainSetting
    {
        [Tooltip("Translation gain per unit of closeness (x, y, z).")]
        public Vector3 translation;
        [Tooltip("Scale gain per unit of closeness (x, y, z).")]
        public Vector3 scale;
    }

    [Serializable]
    public sealed class SecmoProbeSetting
    {
        [Tooltip("The bone whose distance drives the correction.")]
        public string bone = "";
        [Tooltip("Distance below which the probe acts, metres.")]
        [Range(0.001f, 2f)] public float threshold = 0.1f;
        [Tooltip("Weight of this probe (1).")]
        [Range(0f, 2f)] public float weight = 1f;
        [Tooltip("The probe's side: centre, left or right.")]
        public SecmoSide side;
        [Tooltip("Gains when the probe is on the driven bone's side.")]
        public SecmoGainSetting same = new SecmoGainSetting();
        [Tooltip("Gains when it is on the other side.")]
        public SecmoGainSetting opposite = new SecmoGainSetting();
    }

    [Serializable]
    public sealed class SecmoBtobSetting
    {
        [Tooltip("The other chest helper.")] public string otherChest = "";
        [Tooltip("Left upper arm.")] public string upperArmL = "";
        [Tooltip("Left forearm.")] public string forearmL = "";
        [Tooltip("Left hand.")] public string handL = "";
        [Tooltip("Right upper arm.")] public string upperArmR = "";
        [Tooltip("Right forearm.")] public string forearmR = "";
        [Tooltip("Right hand.")] public string handR = "";
        [Tooltip("Sign of the chest's local +X toward the body's middle: +1 or −1.")]
        [Range(-1f, 1f)] public float medialX = 1f;
        [Tooltip("Rest distance between the chests, metres.")]
        [Range(0f, 1f)] public float chestGap;
    }

    [Serializable]
    public sealed class SecmoCorrectiveSetting
    {
        [Tooltip("The bone the correction moves (docs/algorithms.md §5).")]
        public string driven = "";
        [Tooltip("The driven bone's side.")]
        public SecmoSide side;
        [Tooltip("Use Rate instead of the default (24 /s).")]
        public bool overrideRate;
        [Tooltip("How fast the correction follows, 1/s.")]
        [Range(0f, 200f)] public float rate = 24f;
        [Tooltip("Explicit probes (or use the BtoB preset below).")]
        public List<SecmoProbeSetting> probes = new List<SecmoProbeSetting>();
        [Tooltip("Use the BtoB chest preset with the bones below.")]
        public bool useBtob;
        [Tooltip("The BtoB preset's bones and numbers (docs/algorithms.md §5), used when Use Btob is on.")]
        public SecmoBtobSetting btob = new SecmoBtobSetting();
    }

    [Serializable]
    public sealed class SecmoColliderSetting
    {
        [Tooltip("The name chains list it by.")]
        public string name = "";
        [Tooltip("The bone it moves with.")]
        public string bone = "";
        [Tooltip("Sphere, capsule, plane, or inside a sphere or capsule (VRM extended colliders).")]
        public SecmoColliderShape shape;
        [Tooltip("Centre (a capsule's first end; a plane's point), metres, in the bone's frame.")]
        public Vector3 a;
        [Tooltip("A capsule's second end (a plane's normal), metres, in the bone's frame.")]
        public Vector3 b;
        [Tooltip("Radius, metres.")]
        [Range(0f, 2f)] public float radius = 0.05f;
    }

    [Serializable]
    public sealed class SecmoChainSetting
    {
        [Tooltip("The values a new chain starts from. Changing it resets the numbers below.")]
        public SecmoChainPreset preset;
        [Tooltip("The bone the chain hangs from (hips for a tail, head for hair).")]
        public string anchor = "";
        [Tooltip("The chain's bones from the root outward.")]
        public List<string> joints = new List<string>();
        public SecmoChainParamSettings parameters = new SecmoChainParamSettings();
        [Tooltip("Per-joint link radii, metres (empty: Radius above for all).")]
        public List<float> radii = new List<float>();
        [Tooltip("Per-joint weights, 0–1 (empty: 1 for all).")]
        public List<float> weights = new List<float>();
        [Tooltip("Give the last link's end explicitly (else from the skeleton).")]
        public bool hasEndOffset;
        [Tooltip("Where the last link ends, metres, in the last joint's frame.")]
        public Vector3 endOffset;
        [Tooltip("Collider names the chain collides with.")]
        public List<string> colliders = new List<string>();
        [Tooltip("VRM preset: per-joint (stiffness, drag force, gravity power) added to the chain's, where a VRM spring's numbers change along it (empty: the chain's for every joint).")]
        public List<Vector3> vrmOffsets = new List<Vector3>();
        [Tooltip("VRM preset: per-joint angle limits (VRMC_springBone_limit; empty: none).")]
        public List<SecmoJointLimitSetting> limits = new List<SecmoJointLimitSetting>();
        [HideInInspector] public string filledFrom = "";
    }

    [CreateAssetMenu(menuName = "secmo/Rig Settings", fileName = "SecmoRigSettings")]
    public sealed class SecmoRigSettings : ScriptableObject
    {
        public List<SecmoSpringSetting> springs = new List<SecmoSpringSetting>();
        public List<SecmoConstraintSetting> constraints = new List<SecmoConstraintSetting>();
        public List<SecmoNodeConstraintSetting> nodeConstraints = new List<SecmoNodeConstraintSetting>();
        public List<SecmoCorrectiveSetting> correctives = new List<SecmoCorrectiveSetting>();
        public List<SecmoColliderSetting> colliders = new List<SecmoColliderSetting>();
        public List<SecmoChainSetting> chains = new List<SecmoChainSetting>();

        // Assets saved before the typed fields held the text here; it is read
        // once (OnEnable) and cleared.
        [HideInInspector] public string settings = "";

        const float UnitsPerMeter = 1f; // Unity works in metres

        void OnEnable()
        {
            if (!string.IsNullOrEmpty(settings) && springs.Count + constraints.Count + nodeConstraints.Count
                + correctives.Count + colliders.Count + chains.Count == 0)
            {
                if (FromJson(settings, out string error)) settings = "";
                else Debug.LogWarning("secmo: " + name + ": the saved settings text could not be read: " + error, this);
            }
        }

        /// <summary>Inspector edits: an entry whose preset changed (or a new, empty one) gets that preset's values.</summary>
        void OnValidate() => FillPresets(out _);

        /// <summary>Fills every entry whose preset is not the one its numbers came from; false (and why) if the library refused.</summary>
        public bool FillPresets(out string error)
        {
            error = null;
            foreach (var s in springs)
            {
                string preset = Snake(s.preset.ToString());
                if (s.filledFrom == preset) continue;
                string text = "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"springs\": [{\"bone\": \"b\", \"preset\": \"" + preset + "\"}]}";
                if (!Expand(text, out var root, out error)) return false;
                var entry = (Dictionary<string, object>)((List<object>)root["springs"])[0];
                ReadFlat(s.parameters, entry, "springs[0]", new[] { "bone", "preset" }, out error);
                if (error != null) return false;
                s.filledFrom = preset;
            }
            foreach (var c in chains)
            {
                string preset = Snake(c.preset.ToString());
                if (c.filledFrom == preset) continue;
                string text = "{\"format\": \"secmo-rig-settings\", \"version\": 1, \"chains\": [{\"preset\": \"" + preset + "\", \"anchor\": \"a\", \"joints\": [\"j\"]}]}";
                if (!Expand(text, out var root, out error)) return false;
                var entry = (Dictionary<string, object>)((List<object>)root["chains"])[0];
                ReadFlat(c.parameters, (Dictionary<string, object>)entry["params"], "chains[0].params", null, out error);
                if (error != null) return false;
                c.filledFrom = preset;
            }
            return true;
        }

        static bool Expand(string text, out Dictionary<string, object> root, out string error)
        {
            root = null;
            if (!Settings.TryExpand(text, UnitsPerMeter, out string expanded, out _, out error)) return false;
            if (!SecmoJson.TryParse(expanded, out object value, out error)) return false;
            root = value as Dictionary<string, object>;
            if (root == null) { error = "the settings are not a JSON object"; return false; }
            return true;
        }

        /// <summary>The rig-settings text of these fields (docs/settings.md), every value explicit.</summary>
        public string ToJson()
        {
            var root = new Dictionary<string, object>
            {
                ["format"] = "secmo-rig-settings",
                ["version"] = 1,
                ["units_per_meter"] = UnitsPerMeter, // metres: files from Unreal (cm) convert on import
            };
            if (springs.Count > 0)
            {
                var list = new List<object>();
                foreach (var s in springs)
                {
                    var o = new Dictionary<string, object> { ["bone"] = s.bone ?? "", ["preset"] = Snake(s.preset.ToString()) };
                    WriteFlat(s.parameters, o);
                    list.Add(o);
                }
                root["springs"] = list;
            }
            if (constraints.Count > 0)
            {
                var list = new List<object>();
                foreach (var c in constraints) list.Add(new Dictionary<string, object> { ["bone"] = c.bone ?? "", ["target"] = c.target ?? "" });
                root["constraints"] = list;
            }
            if (nodeConstraints.Count > 0)
            {
                var list = new List<object>();
                foreach (var c in nodeConstraints)
                {
                    var o = new Dictionary<string, object>
                    {
                        ["kind"] = Snake(c.kind.ToString()),
                        ["source"] = c.source ?? "",
                        ["destination"] = c.destination ?? "",
                    };
                    if (!string.IsNullOrEmpty(c.axis)) o["axis"] = c.axis;
                    o["weight"] = c.weight;
                    list.Add(o);
                }
                root["node_constraints"] = list;
            }
            if (correctives.Count > 0)
            {
                var list = new List<object>();
                foreach (var c in correctives)
                {
                    var o = new Dictionary<string, object> { ["driven"] = c.driven ?? "", ["side"] = Snake(c.side.ToString()) };
                    if (c.overrideRate) o["rate"] = c.rate;
                    if (c.probes.Count > 0)
                    {
                        var probes = new List<object>();
                        foreach (var p in c.probes)
                        {
                            var po = new Dictionary<string, object>
                            {
                                ["bone"] = p.bone ?? "",
                                ["threshold"] = p.threshold,
                                ["weight"] = p.weight,
                                ["side"] = Snake(p.side.ToString()),
                            };
                            var same = new Dictionary<string, object>();
                            WriteFlat(p.same, same);
                            po["same"] = same;
                            var opposite = new Dictionary<string, object>();
                            WriteFlat(p.opposite, opposite);
                            po["opposite"] = opposite;
                            probes.Add(po);
                        }
                        o["probes"] = probes;
                    }
                    if (c.useBtob)
                    {
                        var b = new Dictionary<string, object>();
                        WriteFlat(c.btob, b);
                        o["btob"] = b;
                    }
                    list.Add(o);
                }
                root["correctives"] = list;
            }
            if (colliders.Count > 0)
            {
                var list = new List<object>();
                foreach (var c in colliders)
                {
                    list.Add(new Dictionary<string, object>
                    {
                        ["name"] = c.name ?? "",
                        ["bone"] = c.bone ?? "",
                        ["shape"] = Snake(c.shape.ToString()),
                        ["a"] = Vector(c.a),
                        ["b"] = Vector(c.b),
                        ["radius"] = c.radius,
                    });
                }
                root["colliders"] = list;
            }
            if (chains.Count > 0)
            {
                var list = new List<object>();
                foreach (var c in chains)
                {
                    var parameters = new Dictionary<string, object>();
                    WriteFlat(c.parameters, parameters);
                    var o = new Dictionary<string, object>
                    {
                        ["preset"] = Snake(c.preset.ToString()),
                        ["anchor"] = c.anchor ?? "",
                        ["joints"] = Strings(c.joints),
                        ["params"] = parameters,
                    };
                    if (c.radii.Count > 0) o["radii"] = Floats(c.radii);
                    if (c.weights.Count > 0) o["weights"] = Floats(c.weights);
                    if (c.hasEndOffset) o["end_offset"] = Vector(c.endOffset);
                    if (c.colliders.Count > 0) o["colliders"] = Strings(c.colliders);
                    if (c.vrmOffsets.Count > 0) o["vrm_offsets"] = c.vrmOffsets.ConvertAll(v => (object)Vector(v));
                    if (c.limits.Count > 0) o["limits"] = c.limits.ConvertAll(l => (object)new Dictionary<string, object>
                    {
                        ["shape"] = Snake(l.shape.ToString()),
                        ["angle_degrees"] = l.angleDegrees,
                        ["yaw_degrees"] = l.yawDegrees,
                        ["rotation"] = new List<object> { l.rotation.x, l.rotation.y, l.rotation.z, l.rotation.w },
                    });
                    list.Add(o);
                }
                root["chains"] = list;
            }
            return SecmoJson.Write(root);
        }

        /// <summary>
        /// Replaces every field with a rig-settings text's (docs/settings.md):
        /// the library fills each preset's values in first, and converts a
        /// file that declares other units (an Unreal export in centimetres)
        /// to metres. On failure nothing
        /// changes and `error` names the JSON line or the field.
        /// </summary>
        public bool FromJson(string text, out string error)
        {
            if (!Expand(text, out var root, out error)) return false;
            var read = new Lists();
            try
            {
                read.Read(root);
            }
            catch (FormatException e)
            {
                error = e.Message;
                return false;
            }
            springs = read.springs;
            constraints = read.constraints;
            nodeConstraints = read.nodeConstraints;
            correctives = read.correctives;
            colliders = read.colliders;
            chains = read.chains;
            settings = "";
            return true;
        }

        /// <summary>What FromJson reads, assigned only when all of it was read.</summary>
        sealed class Lists
        {
            public List<SecmoSpringSetting> springs = new List<SecmoSpringSetting>();
            public List<SecmoConstraintSetting> constraints = new List<SecmoConstraintSetting>();
            public List<SecmoNodeConstraintSetting> nodeConstraints = new List<SecmoNodeConstraintSetting>();
            public List<SecmoCorrectiveSetting> correctives = new List<SecmoCorrectiveSetting>();
            public List<SecmoColliderSetting> colliders = new List<SecmoColliderSetting>();
            public List<SecmoChainSetting> chains = new List<SecmoChainSetting>();

            public void Read(Dictionary<string, object> root)
            {
                Known(root, "", "format", "version", "units_per_meter", "springs", "constraints", "node_constraints", "correctives", "colliders", "chains");
                int i = 0;
                foreach (var o in Entries(root, "springs"))
                {
                    string path = "springs[" + i++ + "]";
                    var s = new SecmoSpringSetting { bone = Text(o, "bone", path) };
                    s.preset = EnumValue<SecmoSpringPreset>(o.TryGetValue("preset", out object p) ? p : "hip", path + ".preset");
                    Check(ReadFlat(s.parameters, o, path, new[] { "bone", "preset" }, out string error), error);
                    s.filledFrom = Snake(s.preset.ToString());
                    springs.Add(s);
                }
                i = 0;
                foreach (var o in Entries(root, "constraints"))
                {
                    string path = "constraints[" + i++ + "]";
                    Known(o, path, "bone", "target");
                    constraints.Add(new SecmoConstraintSetting { bone = Text(o, "bone", path), target = Text(o, "target", path) });
                }
                i = 0;
                foreach (var o in Entries(root, "node_constraints"))
                {
                    string path = "node_constraints[" + i++ + "]";
                    Known(o, path, "kind", "source", "destination", "axis", "weight");
                    nodeConstraints.Add(new SecmoNodeConstraintSetting
                    {
                        kind = EnumValue<SecmoNodeConstraintKind>(o["kind"], path + ".kind"),
                        source = Text(o, "source", path),
                        destination = Text(o, "destination", path),
                        axis = o.TryGetValue("axis", out object axis) ? axis as string ?? "" : "",
                        weight = o.TryGetValue("weight", out object w) ? Float(w, path + ".weight") : 1f,
                    });
                }
                i = 0;
                foreach (var o in Entries(root, "correctives"))
                {
                    string path = "correctives[" + i++ + "]";
                    Known(o, path, "driven", "side", "rate", "probes", "btob");
                    var c = new SecmoCorrectiveSetting
                    {
                        driven = Text(o, "driven", path),
                        side = EnumValue<SecmoSide>(o.TryGetValue("side", out object side) ? side : "center", path + ".side"),
                    };
                    if (o.TryGetValue("rate", out object rate) && rate != null)
                    {
                        c.overrideRate = true;
                        c.rate = Float(rate, path + ".rate");
                    }
                    int j = 0;
                    foreach (var po in Entries(o, "probes"))
                    {
                        string pp = path + ".probes[" + j++ + "]";
                        Known(po, pp, "bone", "threshold", "weight", "side", "same", "opposite");
                        var probe = new SecmoProbeSetting
                        {
                            bone = Text(po, "bone", pp),
                            threshold = Float(po["threshold"], pp + ".threshold"),
                            weight = po.TryGetValue("weight", out object pw) ? Float(pw, pp + ".weight") : 1f,
                            side = EnumValue<SecmoSide>(po.TryGetValue("side", out object ps) ? ps : "center", pp + ".side"),
                        };
                        if (po.TryGetValue("same", out object same))
                            Check(ReadFlat(probe.same, Obj(same, pp + ".same"), pp + ".same", null, out string e1, true), e1);
                        if (po.TryGetValue("opposite", out object opposite))
                            Check(ReadFlat(probe.opposite, Obj(opposite, pp + ".opposite"), pp + ".opposite", null, out string e2, true), e2);
                        c.probes.Add(probe);
                    }
                    if (o.TryGetValue("btob", out object btob) && btob != null)
                    {
                        c.useBtob = true;
                        Check(ReadFlat(c.btob, Obj(btob, path + ".btob"), path + ".btob", null, out string e3), e3);
                    }
                    correctives.Add(c);
                }
                i = 0;
                foreach (var o in Entries(root, "colliders"))
                {
                    string path = "colliders[" + i++ + "]";
                    Known(o, path, "name", "bone", "shape", "a", "b", "radius");
                    colliders.Add(new SecmoColliderSetting
                    {
                        name = Text(o, "name", path),
                        bone = Text(o, "bone", path),
                        shape = EnumValue<SecmoColliderShape>(o["shape"], path + ".shape"),
                        a = o.TryGetValue("a", out object a) ? Vec(a, path + ".a") : default,
                        b = o.TryGetValue("b", out object b) ? Vec(b, path + ".b") : default,
                        radius = o.TryGetValue("radius", out object r) ? Float(r, path + ".radius") : 0f,
                    });
                }
                i = 0;
                foreach (var o in Entries(root, "chains"))
                {
                    string path = "chains[" + i++ + "]";
                    Known(o, path, "preset", "anchor", "joints", "params", "radii", "weights", "end_offset", "colliders", "vrm_offsets", "limits");
                    var c = new SecmoChainSetting
                    {
                        preset = EnumValue<SecmoChainPreset>(o["preset"], path + ".preset"),
                        anchor = Text(o, "anchor", path),
                        joints = StringList(o, "joints", path),
                        radii = FloatList(o, "radii", path),
                        weights = FloatList(o, "weights", path),
                        colliders = StringList(o, "colliders", path),
                        vrmOffsets = VectorList(o, "vrm_offsets", path),
                        limits = LimitList(o, path),
                    };
                    if (o.TryGetValue("end_offset", out object end) && end != null)
                    {
                        c.hasEndOffset = true;
                        c.endOffset = Vec(end, path + ".end_offset");
                    }
                    if (o.TryGetValue("params", out object parameters))
                        Check(ReadFlat(c.parameters, Obj(parameters, path + ".params"), path + ".params", null, out string error), error);
                    c.filledFrom = Snake(c.preset.ToString());
                    chains.Add(c);
                }
            }
        }

        /// <summary>Imports a rig-settings file into this asset's fields.</summary>
        public bool ImportFile(string path, out string error)
        {
            if (!File.Exists(path))
            {
                error = path + ": no such file";
                return false;
            }
            if (!FromJson(File.ReadAllText(path), out error))
            {
                error = path + ": " + error;
                return false;
            }
            return true;
        }

        /// <summary>Writes this asset's fields as a rig-settings file.</summary>
        public bool ExportFile(string path, out string error)
        {
            error = null;
            try
            {
                File.WriteAllText(path, ToJson());
                return true;
            }
            catch (IOException e)
            {
                error = path + ": " + e.Message;
                return false;
            }
        }

        // ---- one definition of the parameter names: field name -> snake_case key ----

        /// <summary>frequencyRoot -> frequency_root, upperArmL -> upper_arm_l, ExponentialDamping -> exponential_damping.</summary>
        public static string Snake(string name)
        {
            var b = new StringBuilder();
            for (int k = 0; k < name.Length; k++)
            {
                char ch = name[k];
                if (char.IsUpper(ch))
                {
                    if (k > 0) b.Append('_');
                    b.Append(char.ToLowerInvariant(ch));
                }
                else b.Append(ch);
            }
            return b.ToString();
        }

        static FieldInfo[] Fields(object target) => target.GetType().GetFields(BindingFlags.Public | BindingFlags.Instance);

        /// <summary>Writes every public field of a flat parameter class under its snake_case key.</summary>
        static void WriteFlat(object source, Dictionary<string, object> into)
        {
            foreach (var f in Fields(source))
            {
                object v = f.GetValue(source);
                string key = Snake(f.Name);
                if (v is float || v is int || v is bool) into[key] = v;
                else if (v is Vector3) into[key] = Vector((Vector3)v);
                else if (v is System.Enum) into[key] = Snake(v.ToString());
                else if (v is string || v == null)
                {
                    // Empty: absent (simulation_space: world space).
                    if (!string.IsNullOrEmpty((string)v)) into[key] = v;
                }
                else throw new InvalidOperationException(f.Name + ": no JSON form for " + f.FieldType.Name);
            }
        }

        /// <summary>
        /// Reads a flat parameter class from `from`: every key must be a field
        /// (or listed in `skip`), and every field a key unless `optional`.
        /// </summary>
        static bool ReadFlat(object target, Dictionary<string, object> from, string path, string[] skip, out string error, bool optional = false)
        {
            error = null;
            try
            {
                var fields = new Dictionary<string, FieldInfo>();
                foreach (var f in Fields(target)) fields[Snake(f.Name)] = f;
                foreach (var pair in from)
                {
                    if (skip != null && Array.IndexOf(skip, pair.Key) >= 0) continue;
                    if (!fields.TryGetValue(pair.Key, out var f))
                        throw new FormatException(path + "." + pair.Key + ": no field " + target.GetType().Name + " holds it");
                    string at = path + "." + pair.Key;
                    object v = pair.Value;
                    if (f.FieldType == typeof(float)) f.SetValue(target, Float(v, at));
                    else if (f.FieldType == typeof(int)) f.SetValue(target, (int)Math.Round(Float(v, at)));
                    else if (f.FieldType == typeof(bool))
                    {
                        if (!(v is bool)) throw new FormatException(at + ": true or false");
                        f.SetValue(target, v);
                    }
                    else if (f.FieldType == typeof(Vector3)) f.SetValue(target, Vec(v, at));
                    else if (f.FieldType == typeof(string)) f.SetValue(target, v as string ?? "");
                    else if (f.FieldType.IsEnum) f.SetValue(target, EnumOf(f.FieldType, v, at));
                    else throw new FormatException(at + ": no reader for " + f.FieldType.Name);
                }
                if (!optional)
                {
                    foreach (var pair in fields)
                    {
                        // An empty string is the absent value (simulation_space: world).
                        if (!from.ContainsKey(pair.Key) && pair.Value.FieldType != typeof(string))
                            throw new FormatException(path + "." + pair.Key + ": the library did not give it");
                    }
                }
                foreach (var pair in fields)
                {
                    if (pair.Value.FieldType == typeof(string) && !from.ContainsKey(pair.Key)) pair.Value.SetValue(target, "");
                }
                return true;
            }
            catch (FormatException e)
            {
                error = e.Message;
                return false;
            }
        }

        static void Check(bool ok, string error)
        {
            if (!ok) throw new FormatException(error);
        }

        static void Known(Dictionary<string, object> o, string path, params string[] keys)
        {
            foreach (var key in o.Keys)
                if (Array.IndexOf(keys, key) < 0) throw new FormatException((path.Length > 0 ? path + "." : "") + key + ": not a field here");
        }

        static IEnumerable<Dictionary<string, object>> Entries(Dictionary<string, object> o, string key)
        {
            if (!o.TryGetValue(key, out object v) || v == null) yield break;
            var list = v as List<object>;
            if (list == null) throw new FormatException(key + ": a list was expected");
            foreach (var e in list)
            {
                var entry = e as Dictionary<string, object>;
                if (entry == null) throw new FormatException(key + ": every entry must be an object");
                yield return entry;
            }
        }

        static Dictionary<string, object> Obj(object v, string at)
        {
            var o = v as Dictionary<string, object>;
            if (o == null) throw new FormatException(at + ": an object was expected");
            return o;
        }

        static string Text(Dictionary<string, object> o, string key, string path)
        {
            object v;
            if (!o.TryGetValue(key, out v) || !(v is string)) throw new FormatException(path + "." + key + ": a name was expected");
            return (string)v;
        }

        static float Float(object v, string at)
        {
            if (!(v is double)) throw new FormatException(at + ": a number was expected");
            return (float)(double)v;
        }

        static Vector3 Vec(object v, string at)
        {
            var l = v as List<object>;
            if (l != null && l.Count == 3) return new Vector3(Float(l[0], at), Float(l[1], at), Float(l[2], at));
            throw new FormatException(at + ": [x, y, z] was expected");
        }

        static T EnumValue<T>(object v, string at) where T : struct => (T)EnumOf(typeof(T), v, at);

        static object EnumOf(Type type, object v, string at)
        {
            var s = v as string;
            if (s != null)
                foreach (var value in System.Enum.GetValues(type))
                    if (Snake(value.ToString()) == s) return value;
            var names = new List<string>();
            foreach (var value in System.Enum.GetValues(type)) names.Add(Snake(value.ToString()));
            throw new FormatException(at + ": " + (s != null ? "\"" + s + "\"" : "this") + " is not " + string.Join(", ", names.ToArray()));
        }

        static List<string> StringList(Dictionary<string, object> o, string key, string path)
        {
            var list = new List<string>();
            if (!o.TryGetValue(key, out object v) || v == null) return list;
            var l = v as List<object>;
            if (l == null) throw new FormatException(path + "." + key + ": a list of names was expected");
            foreach (var e in l)
            {
                if (!(e is string)) throw new FormatException(path + "." + key + ": a list of names was expected");
                list.Add((string)e);
            }
            return list;
        }

        static List<float> FloatList(Dictionary<string, object> o, string key, string path)
        {
            var list = new List<float>();
            if (!o.TryGetValue(key, out object v) || v == null) return list;
            var l = v as List<object>;
            if (l == null) throw new FormatException(path + "." + key + ": a list of numbers was expected");
            foreach (var e in l) list.Add(Float(e, path + "." + key));
            return list;
        }

        static List<Vector3> VectorList(Dictionary<string, object> o, string key, string path)
        {
            var list = new List<Vector3>();
            if (!o.TryGetValue(key, out object v) || v == null) return list;
            var l = v as List<object>;
            if (l == null) throw new FormatException(path + "." + key + ": a list of [a, b, c] was expected");
            for (int k = 0; k < l.Count; k++) list.Add(Vec(l[k], path + "." + key + "[" + k + "]"));
            return list;
        }

        static List<SecmoJointLimitSetting> LimitList(Dictionary<string, object> o, string path)
        {
            var list = new List<SecmoJointLimitSetting>();
            if (!o.TryGetValue("limits", out object v) || v == null) return list;
            var l = v as List<object>;
            if (l == null) throw new FormatException(path + ".limits: a list of limits was expected");
            for (int k = 0; k < l.Count; k++)
            {
                string at = path + ".limits[" + k + "]";
                var e = Obj(l[k], at);
                Known(e, at, "shape", "angle_degrees", "yaw_degrees", "rotation");
                var limit = new SecmoJointLimitSetting
                {
                    shape = EnumValue<SecmoLimitShape>(e["shape"], at + ".shape"),
                    angleDegrees = e.TryGetValue("angle_degrees", out object a) ? Float(a, at + ".angle_degrees") : 0f,
                    yawDegrees = e.TryGetValue("yaw_degrees", out object y) ? Float(y, at + ".yaw_degrees") : 0f,
                };
                if (e.TryGetValue("rotation", out object r))
                {
                    var q = r as List<object>;
                    if (q == null || q.Count != 4) throw new FormatException(at + ".rotation: [x, y, z, w] was expected");
                    limit.rotation = new Quaternion(Float(q[0], at + ".rotation"), Float(q[1], at + ".rotation"), Float(q[2], at + ".rotation"), Float(q[3], at + ".rotation"));
                }
                list.Add(limit);
            }
            return list;
        }

        static List<object> Vector(Vector3 v) => new List<object> { v.x, v.y, v.z };
        static List<object> Strings(List<string> names) => new List<object>(names.ConvertAll(n => (object)n));
        static List<object> Floats(List<float> values) => new List<object>(values.ConvertAll(x => (object)x));
    }
}
