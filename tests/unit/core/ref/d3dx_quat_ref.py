#!/usr/bin/python3
"""Reference numbers for the D3DX-compatible quaternion functions.

Run with Debian's python3 (numpy, scipy):  /usr/bin/python3 d3dx_quat_ref.py
It prints the C initializers pasted into tests/unit/core/test_quat_d3dx.c.

Everything here is written from the documented definitions, in double
precision, independently of the C code:
- D3DXQuaternionMultiply(q1, q2) "represents the rotation q1 followed by the
  rotation q2", i.e. the Hamilton product q2 q1 (d3dx_mul below).
- D3DXQuaternionLn(q) = (acos(w) / sqrt(1 - w^2)) (x, y, z), w = 0;
  D3DXQuaternionExp(q) = (sin|v| v / |v|, cos|v|); Inverse = conj / |q|^2.
- D3DXQuaternionSlerp: the shortest-path spherical interpolation, checked
  against scipy.spatial.transform.Slerp.
- D3DXQuaternionSquad(q1, a, b, c, t) =
  Slerp(Slerp(q1, c, t), Slerp(a, b, t), 2t(1 - t)).
- D3DXQuaternionSquadSetup (documented formulas, with the docs' misprinted
  Exp(q) read as the inverse q^-1 and its products as D3DX products):
    q0 = |Q0 + Q1| < |Q0 - Q1| ? -Q0 : Q0
    q2 = |Q1 + Q2| < |Q1 - Q2| ? -Q2 : Q2
    q3 = |q2 + Q3| < |q2 - Q3| ? -Q3 : Q3   (against the aligned q2)
    A = q1 * exp(-0.25 (ln(q1^-1 * q2) + ln(q1^-1 * q0)))
    B = q2 * exp(-0.25 (ln(q2^-1 * q3) + ln(q2^-1 * q1)))
    C = q2
- D3DXQuaternionBaryCentric(q1, q2, q3, f, g) =
  Slerp(Slerp(q1, q2, f + g), Slerp(q1, q3, f + g), g / (f + g)).
- D3DXQuaternionRotationYawPitchRoll: roll (Z) first, then pitch (X), then
  yaw (Y): scipy's intrinsic 'YXZ' Euler sequence.
"""
import numpy as np
from scipy.spatial.transform import Rotation, Slerp


def hamilton(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz])


def d3dx_mul(q1, q2):
    return hamilton(q2, q1)


def inverse(q):
    return np.array([-q[0], -q[1], -q[2], q[3]]) / np.dot(q, q)


def ln(q):
    w = q[3]
    t = 1.0 if abs(w) >= 1.0 else np.arccos(w) / np.sqrt(1.0 - w * w)
    return np.array([q[0] * t, q[1] * t, q[2] * t, 0.0])


def exp(q):
    n = np.linalg.norm(q[:3])
    if n == 0.0:
        return np.array([0.0, 0.0, 0.0, 1.0])
    s = np.sin(n) / n
    return np.array([q[0] * s, q[1] * s, q[2] * s, np.cos(n)])


def slerp(a, b, t):
    d = np.dot(a, b)
    if d < 0.0:
        b, d = -b, -d
    th = np.arccos(min(d, 1.0))
    if th == 0.0:
        return a
    r = (np.sin((1 - t) * th) * a + np.sin(t * th) * b) / np.sin(th)
    # Cross-check with scipy, which normalizes its (float-rounded) inputs,
    # may return either sign of the same rotation and does not extrapolate.
    if not 0.0 <= t <= 1.0:
        return r
    ref = Slerp([0, 1], Rotation.from_quat([a, b]))([t]).as_quat()[0]
    rn = r / np.linalg.norm(r)
    err = min(np.abs(ref - rn).max(), np.abs(ref + rn).max())
    assert err < 1e-7, (a, b, t, err)
    return r


def squad(q1, a, b, c, t):
    return slerp(slerp(q1, c, t), slerp(a, b, t), 2 * t * (1 - t))


def squad_setup(Q0, Q1, Q2, Q3):
    q0 = -Q0 if np.linalg.norm(Q0 + Q1) < np.linalg.norm(Q0 - Q1) else Q0
    q1 = Q1
    q2 = -Q2 if np.linalg.norm(Q1 + Q2) < np.linalg.norm(Q1 - Q2) else Q2
    q3 = -Q3 if np.linalg.norm(q2 + Q3) < np.linalg.norm(q2 - Q3) else Q3
    i1, i2 = inverse(q1), inverse(q2)
    A = d3dx_mul(q1, exp(-0.25 * (ln(d3dx_mul(i1, q2)) +
                                  ln(d3dx_mul(i1, q0)))))
    B = d3dx_mul(q2, exp(-0.25 * (ln(d3dx_mul(i2, q3)) +
                                  ln(d3dx_mul(i2, q1)))))
    return A, B, q2


def barycentric(q1, q2, q3, f, g):
    return slerp(slerp(q1, q2, f + g), slerp(q1, q3, f + g), g / (f + g))


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    return np.append(axis * np.sin(angle / 2), np.cos(angle / 2))


def f32(q):
    """Round to float32 and back: the C test feeds float inputs."""
    return np.asarray(q, np.float32).astype(np.float64)


def c_quat(q):
    return "{%.9g, %.9g, %.9g, %.9g}" % tuple(q)


def c_array(decl, rows, comment=""):
    """A C array initializer, one row per line, within 80 columns."""
    body = ",\n    ".join(rows)
    print("%s = {%s%s\n    %s};" % (decl, comment and " /* %s */" % comment,
                                   "", body))


# Keys chosen so that every alignment branch of SquadSetup is taken:
# Q0 . Q1 < 0, Q1 . Q2 < 0, and Q3 agrees in sign with the original Q2 but
# not with the aligned one (this distinguishes "against q2" from "against
# Q2").
Q0 = f32(-axis_angle([1, 2, 3], 0.3))
Q1 = f32(axis_angle([0, 1, 0], 0.9))
Q2 = f32(-axis_angle([1, 0, 1], 1.7))
Q3 = axis_angle([-1, 1, 2], 2.6)
Q3 = f32(Q3 if np.dot(Q3, Q2) > 0 else -Q3)
assert np.dot(Q0, Q1) < 0 and np.dot(Q1, Q2) < 0 and np.dot(Q3, Q2) > 0

# The example keys of the D3DXQuaternionSquadSetup page, normalized:
# 270, 0, 90 and 180 degrees about z.
h = np.sqrt(0.5)
E = [f32([0, 0, h, -h]), f32([0, 0, 0, 1]), f32([0, 0, h, h]),
     f32([0, 0, 1, 0])]

print("/* Generated by tests/unit/core/ref/d3dx_quat_ref.py. */")
for name, keys in (("keys", (Q0, Q1, Q2, Q3)), ("doc", E)):
    A, B, C = squad_setup(*keys)
    print("/* %s */" % name)
    c_array("static const float %s_in[4][4]" % name,
            [c_quat(k) for k in keys])
    c_array("static const float %s_abc[3][4]" % name,
            [c_quat(q) for q in (A, B, C)])
    ts = (0.0, 0.25, 0.5, 0.8, 1.0)
    c_array("static const float %s_squad[%d][4]" % (name, len(ts)),
            [c_quat(squad(keys[1], f32(A), f32(B), f32(C), t)) for t in ts],
            "t = 0, 0.25, 0.5, 0.8, 1")

fg = ((0.3, 0.5), (0.7, 0.1), (-0.2, 0.6), (1.3, -0.4))
c_array("static const float bary_fg[%d][2]" % len(fg),
        ["{%g, %g}" % p for p in fg])
c_array("static const float bary_out[%d][4]" % len(fg),
        [c_quat(barycentric(Q1, Q2, Q3, f, g)) for f, g in fg],
        "barycentric(Q1, Q2, Q3, f, g)")

ts = (0.1, 0.5, 0.9)
c_array("static const float slerp_out[%d][4]" % len(ts),
        [c_quat(slerp(Q0, Q2, t)) for t in ts], "slerp(Q0, Q2, 0.1 0.5 0.9)")

print("static const float ln_q3[4] =\n    %s;" % c_quat(ln(Q3)))
print("/* exp(0.4, -0.7, 1.1, 0) */")
print("static const float exp_v[4] =\n    %s;" %
      c_quat(exp(f32([0.4, -0.7, 1.1, 0.0]))))

ypr = ((0.3, -1.2, 2.1), (-2.5, 0.4, -0.9), (3.0, 1.5, 0.2))
c_array("static const float ypr_in[%d][3]" % len(ypr),
        ["{%g, %g, %g}" % v for v in ypr], "yaw, pitch, roll")
c_array("static const float ypr_out[%d][4]" % len(ypr),
        [c_quat(Rotation.from_euler("YXZ", v).as_quat()) for v in ypr])
