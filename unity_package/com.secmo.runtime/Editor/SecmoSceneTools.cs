// Scene tools for a SecmoCharacter's settings, in edit mode: gizmos for the
// colliders and chains its settings asset describes, and handles that edit a
// collider's offset (its centre, and a capsule's second end) and radius with
// undo. In play mode the component draws what the simulation does instead
// (SecmoCharacter.OnDrawGizmos, from secmo's debug draw).
using System;
using System.Collections.Generic;
using UnityEditor;
using UnityEngine;

namespace Secmo.Unity.Editor
{
    [CustomEditor(typeof(SecmoCharacter))]
    sealed class SecmoCharacterEditor : UnityEditor.Editor
    {
        static readonly Color ColliderColor = new Color(0.3f, 0.9f, 0.3f);
        static readonly Color InsideColor = new Color(0.9f, 0.6f, 0.2f);
        static readonly Color ChainColor = new Color(1f, 0.63f, 0f);

        /// <summary>The transform named `name` under the character's root (first in depth order), or null.</summary>
        static Transform Bone(SecmoCharacter character, string name)
        {
            if (string.IsNullOrEmpty(name)) return null;
            var top = character.root != null ? character.root : character.transform;
            if (top == null) return null;
            if (top.name == name) return top;
            foreach (var t in top.GetComponentsInChildren<Transform>(true))
                if (t.name == name) return t;
            return null;
        }

        // Radii are in metres in the settings; on a scaled bone they scale with it.
        static float Scale(Transform bone)
        {
            var s = bone.lossyScale;
            return (Math.Abs(s.x) + Math.Abs(s.y) + Math.Abs(s.z)) / 3f;
        }

        [DrawGizmo(GizmoType.Selected | GizmoType.NonSelected)]
        static void DrawSettings(SecmoCharacter character, GizmoType type)
        {
            if (Application.isPlaying || !character.drawGizmos || character.settings == null) return;
            var settings = character.settings;
            foreach (var c in settings.colliders)
            {
                var bone = Bone(character, c.bone);
                if (bone == null) continue;
                bool inside = c.shape == SecmoColliderShape.InsideSphere || c.shape == SecmoColliderShape.InsideCapsule;
                Gizmos.color = inside ? InsideColor : ColliderColor;
                float r = c.radius * Scale(bone);
                Vector3 a = bone.TransformPoint(c.a);
                switch (c.shape)
                {
                    case SecmoColliderShape.Sphere:
                    case SecmoColliderShape.InsideSphere:
                        Gizmos.DrawWireSphere(a, r);
                        break;
                    case SecmoColliderShape.Capsule:
                    case SecmoColliderShape.InsideCapsule:
                        Vector3 b = bone.TransformPoint(c.b);
                        Gizmos.DrawWireSphere(a, r);
                        Gizmos.DrawWireSphere(b, r);
                        Gizmos.DrawLine(a, b);
                        break;
                    case SecmoColliderShape.Plane:
                        Vector3 normal = bone.TransformDirection(c.b);
                        Handles.color = ColliderColor;
                        Handles.DrawWireDisc(a, normal, 0.5f);
                        Gizmos.DrawLine(a, a + normal * 0.2f);
                        break;
                }
            }
            Gizmos.color = ChainColor;
            foreach (var chain in settings.chains)
            {
                var previous = Bone(character, chain.anchor);
                for (int k = 0; k < chain.joints.Count; k++)
                {
                    var joint = Bone(character, chain.joints[k]);
                    if (joint == null) break;
                    if (previous != null) Gizmos.DrawLine(previous.position, joint.position);
                    float radius = k < chain.radii.Count ? chain.radii[k] : chain.parameters.radius;
                    Gizmos.DrawWireSphere(joint.position, radius * Scale(joint));
                    previous = joint;
                }
            }
        }

        void OnSceneGUI()
        {
            var character = (SecmoCharacter)target;
            var settings = character.settings;
            if (settings == null) return;
            foreach (var c in settings.colliders)
            {
                var bone = Bone(character, c.bone);
                if (bone == null) continue;
                float scale = Scale(bone);
                if (scale <= 0f) continue;
                bool capsule = c.shape == SecmoColliderShape.Capsule || c.shape == SecmoColliderShape.InsideCapsule;
                bool plane = c.shape == SecmoColliderShape.Plane;
                Handles.color = ColliderColor;
                EditorGUI.BeginChangeCheck();
                Vector3 a = Handles.PositionHandle(bone.TransformPoint(c.a), bone.rotation);
                Vector3 b = capsule ? Handles.PositionHandle(bone.TransformPoint(c.b), bone.rotation) : Vector3.zero;
                float radius = plane ? c.radius : Handles.RadiusHandle(bone.rotation, bone.TransformPoint(c.a), c.radius * scale);
                if (EditorGUI.EndChangeCheck())
                {
                    Undo.RecordObject(settings, "Edit secmo collider " + c.name);
                    c.a = bone.InverseTransformPoint(a);
                    if (capsule) c.b = bone.InverseTransformPoint(b);
                    if (!plane) c.radius = Math.Max(0f, radius / scale);
                    EditorUtility.SetDirty(settings);
                }
            }
        }
    }
}
