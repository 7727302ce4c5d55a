// tests/ozz: animd's core jobs beside ozz-animation 0.16's, timed the same
// way in one process (built by run_bench.sh; make bench-ozz): two-bone IK
// (IKTwoBoneJob) and aim IK (IKAimJob) per job, with the target moving
// every job, and the blend of 2 and 4 layers of a 67-joint pose
// (BlendingJob; ozz blends 17 SoA transforms of 4 joints, the last one
// padding), with the weights moving every pose, threshold 0.1 for both.
// Single thread, thread CPU time, RUNS runs of the counts of
// tests/bench/bench_ik.c and bench_blend.c, animd's and ozz's runs
// alternating; prints each side's median (the fastest in brackets) and
// animd's median over ozz's. The blends' outputs are compared too (ozz
// normalizes with an estimated reciprocal square root: about 1e-3).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/span.h"

extern "C" {
#include "animd/blend.h"
#include "animd/ik.h"
#include "animd/math.h"
#include "animd/pose.h"
#include "animd/skeleton.h"
}

namespace {

const int kRuns = 9;
const int kIkJobs = 100000;  // Per run, as bench_ik's core jobs.
const int kBlends = 10000;   // Per run, as bench_blend's blend job.
const int kJoints = 67;
const int kSoa = (kJoints + 3) / 4;

double thread_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

uint32_t rng = 2463534242u;
double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (hi - lo) * (double)(rng >> 8) / 16777216.0;
}

anim_quat_t near_identity() {
  double x = uniform(-0.25, 0.25), y = uniform(-0.25, 0.25),
         z = uniform(-0.25, 0.25), n = std::sqrt(x * x + y * y + z * z + 1);
  return {(float)(x / n), (float)(y / n), (float)(z / n), (float)(1 / n)};
}

float sink = 0;

// Runs ours() and theirs() (each returning ns per item) kRuns times,
// alternating, after one unmeasured run of each; prints one line.
template <typename A, typename B>
void side_by_side(const char *label, const char *unit, A ours, B theirs) {
  double a[kRuns], b[kRuns];
  ours();
  theirs();
  for (int i = 0; i < kRuns; i++) {
    a[i] = ours();
    b[i] = theirs();
  }
  std::sort(a, a + kRuns);
  std::sort(b, b + kRuns);
  double ma = a[kRuns / 2], mb = b[kRuns / 2];
  std::printf("  %-22s animd %7.1f (%7.1f) %s  ozz %7.1f (%7.1f) %s  "
              "animd/ozz %.2f\n",
              label, ma, a[0], unit, mb, b[0], unit, ma / mb);
}

ozz::math::Float4x4 to_ozz(const anim_mat4_t &m) {
  ozz::math::Float4x4 o;
  for (int c = 0; c < 4; c++)
    o.cols[c] = ozz::math::simd_float4::LoadPtrU(m.m + 4 * c);
  return o;
}

// ---- IK ---------------------------------------------------------------------

// An arm in the x-y plane: start at the origin, the upper bone 1 along y,
// the mid joint bent 0.5 rad about z, the lower bone 1 along its y.
struct Arm {
  anim_mat4_t s, m, e;
  Arm() {
    anim_transform_t ls = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    anim_transform_t lm = {
        {0, 1, 0}, anim_quat_from_axis_angle({0, 0, 1}, 0.5f), {1, 1, 1}};
    anim_transform_t le = {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    anim_mat4_t ma = anim_mat4_from_transform(&ls);
    anim_mat4_t mb = anim_mat4_from_transform(&lm);
    anim_mat4_t mc = anim_mat4_from_transform(&le);
    s = ma;
    m = anim_mat4_mul(&ma, &mb);
    e = anim_mat4_mul(&m, &mc);
  }
};

void bench_ik() {
  Arm arm;
  const anim_vec3_t target = {0.5f, 1.2f, 0.3f}, aim = {1, 2, 3};
  anim_quat_t cs, cm, ca;
  anim_ik_two_bone_job_t tj = anim_ik_two_bone_job_defaults();
  tj.start = &arm.s;
  tj.mid = &arm.m;
  tj.end = &arm.e;
  tj.start_correction = &cs;
  tj.mid_correction = &cm;
  anim_ik_aim_job_t aj = anim_ik_aim_job_defaults();
  aj.joint = &arm.e;
  aj.correction = &ca;

  ozz::math::Float4x4 os = to_ozz(arm.s), om = to_ozz(arm.m),
                      oe = to_ozz(arm.e);
  ozz::math::SimdQuaternion zs, zm, za;
  ozz::animation::IKTwoBoneJob ot;  // Defaults: mid_axis z, pole y.
  ot.start_joint = &os;
  ot.mid_joint = &om;
  ot.end_joint = &oe;
  ot.start_joint_correction = &zs;
  ot.mid_joint_correction = &zm;
  ozz::animation::IKAimJob oa;  // Defaults: forward x, up y, pole y.
  oa.joint = &oe;
  oa.joint_correction = &za;

  side_by_side(
      "two-bone IK", "ns/job",
      [&] {
        double t0 = thread_ns();
        for (int i = 0; i < kIkJobs; i++) {
          tj.target = target;
          tj.target.x += 1e-7f * (float)(i & 1023);
          anim_ik_two_bone_job_run(&tj);
          sink += cs.x;
        }
        return (thread_ns() - t0) / kIkJobs;
      },
      [&] {
        double t0 = thread_ns();
        for (int i = 0; i < kIkJobs; i++) {
          ot.target = ozz::math::simd_float4::Load(
              target.x + 1e-7f * (float)(i & 1023), target.y, target.z, 0.f);
          ot.Run();
          sink += ozz::math::GetX(zs.xyzw);
        }
        return (thread_ns() - t0) / kIkJobs;
      });
  side_by_side(
      "aim IK", "ns/job",
      [&] {
        double t0 = thread_ns();
        for (int i = 0; i < kIkJobs; i++) {
          aj.target = aim;
          aj.target.x += 1e-7f * (float)(i & 1023);
          anim_ik_aim_job_run(&aj);
          sink += ca.x;
        }
        return (thread_ns() - t0) / kIkJobs;
      },
      [&] {
        double t0 = thread_ns();
        for (int i = 0; i < kIkJobs; i++) {
          oa.target = ozz::math::simd_float4::Load(
              aim.x + 1e-7f * (float)(i & 1023), aim.y, aim.z, 0.f);
          oa.Run();
          sink += ozz::math::GetX(za.xyzw);
        }
        return (thread_ns() - t0) / kIkJobs;
      });
}

// ---- blending ---------------------------------------------------------------

// Pose p (kJoints, AoS) as kSoa SoA transforms (the padding: identity).
void to_soa(const anim_pose_t &p, ozz::math::SoaTransform *out) {
  for (int s = 0; s < kSoa; s++) {
    float v[10][4];
    for (int k = 0; k < 4; k++) {
      int j = 4 * s + k;
      anim_vec3_t t = j < kJoints ? p.translation[j] : anim_vec3_t{0, 0, 0};
      anim_quat_t q = j < kJoints ? p.rotation[j] : anim_quat_t{0, 0, 0, 1};
      anim_vec3_t c = j < kJoints ? p.scale[j] : anim_vec3_t{1, 1, 1};
      const float f[10] = {t.x, t.y, t.z, q.x, q.y, q.z, q.w, c.x, c.y, c.z};
      for (int i = 0; i < 10; i++) v[i][k] = f[i];
    }
    ozz::math::SimdFloat4 l[10];
    for (int i = 0; i < 10; i++) l[i] = ozz::math::simd_float4::LoadPtrU(v[i]);
    out[s].translation = ozz::math::SoaFloat3::Load(l[0], l[1], l[2]);
    out[s].rotation = ozz::math::SoaQuaternion::Load(l[3], l[4], l[5], l[6]);
    out[s].scale = ozz::math::SoaFloat3::Load(l[7], l[8], l[9]);
  }
}

// The largest difference between an animd pose and an ozz one (rotations
// as the same rotation, q or -q).
float pose_difference(const anim_pose_t &p, const ozz::math::SoaTransform *o) {
  float worst = 0;
  for (int j = 0; j < kJoints; j++) {
    const ozz::math::SoaTransform &s = o[j / 4];
    float f[10][4];
    const ozz::math::SimdFloat4 c[10] = {
        s.translation.x, s.translation.y, s.translation.z, s.rotation.x,
        s.rotation.y,    s.rotation.z,    s.rotation.w,    s.scale.x,
        s.scale.y,       s.scale.z};
    for (int i = 0; i < 10; i++) ozz::math::StorePtrU(c[i], f[i]);
    int k = j % 4;
    anim_quat_t q = p.rotation[j];
    float dot = q.x * f[3][k] + q.y * f[4][k] + q.z * f[5][k] + q.w * f[6][k];
    float sg = dot < 0 ? -1.f : 1.f;
    const float ours[10] = {p.translation[j].x, p.translation[j].y,
                            p.translation[j].z, sg * q.x,
                            sg * q.y,           sg * q.z,
                            sg * q.w,           p.scale[j].x,
                            p.scale[j].y,       p.scale[j].z};
    for (int i = 0; i < 10; i++)
      worst = std::max(worst, std::fabs(ours[i] - f[i][k]));
  }
  return worst;
}

// Layer k's weight at pose i: the first moves from 0 to 1, the others
// share the rest.
float weight(int i, int k, int layers) {
  float u = (float)(i & 1023) / 1024.f;
  return k == 0 ? u : (1.f - u) / (float)(layers - 1);
}

void bench_blend() {
  anim_raw_joint_t raw[kJoints];
  char names[kJoints][8];
  for (int j = 0; j < kJoints; j++) {
    std::memset(&raw[j], 0, sizeof raw[j]);
    std::snprintf(names[j], sizeof names[j], "j%d", j);
    raw[j].name = names[j];
    raw[j].parent = j ? (j - 1) / 2 : -1;
    raw[j].rest.translation = {0.3f, 0.1f, 0.02f};
    raw[j].rest.rotation.w = 1;
    raw[j].rest.scale = {1, 1, 1};
  }
  anim_raw_skeleton_t rs = {};
  rs.joints = raw;
  rs.joint_count = kJoints;
  anim_skeleton_t *sk = nullptr;
  if (anim_skeleton_build(&rs, nullptr, &sk, nullptr) != ANIM_OK) std::exit(1);

  static anim_vec3_t t[6][kJoints], sc[6][kJoints];
  static anim_quat_t q[6][kJoints];
  anim_pose_t pose[6];
  static ozz::math::SoaTransform soa[6][kSoa];
  for (int i = 0; i < 6; i++) {
    pose[i] = {t[i], q[i], sc[i], (uint32_t)kJoints};
    anim_pose_set_rest(sk, &pose[i]);
    if (i < 4)  // Layers: the rest translations nudged, rotations moved.
      for (int j = 0; j < kJoints; j++) {
        t[i][j].x += (float)uniform(-0.05, 0.05);
        q[i][j] = near_identity();
        sc[i][j] = {1, 1, 1};
      }
    to_soa(pose[i], soa[i]);  // 4: the rest pose; 5: ozz's output.
  }

  for (int layers : {2, 4}) {
    anim_blend_layer_t al[4] = {};
    ozz::animation::BlendingJob::Layer ol[4];
    for (int k = 0; k < layers; k++) {
      al[k].pose = pose[k];
      ol[k].transform = ozz::span<const ozz::math::SoaTransform>(soa[k], kSoa);
    }
    anim_blend_job_t aj = {};
    aj.skeleton = sk;
    aj.layers = al;
    aj.layer_count = (size_t)layers;
    aj.threshold = 0.1f;
    aj.output = pose[5];
    ozz::animation::BlendingJob oj;
    oj.threshold = 0.1f;
    oj.layers = ozz::span<const ozz::animation::BlendingJob::Layer>(ol, layers);
    oj.rest_pose = ozz::span<const ozz::math::SoaTransform>(soa[4], kSoa);
    oj.output = ozz::span<ozz::math::SoaTransform>(soa[5], kSoa);
    char label[40];
    std::snprintf(label, sizeof label, "blend, %d layers", layers);
    side_by_side(
        label, "ns/pose",
        [&] {
          double t0 = thread_ns();
          for (int i = 0; i < kBlends; i++) {
            for (int k = 0; k < layers; k++) al[k].weight = weight(i, k, layers);
            if (anim_blend_job_run(&aj) != ANIM_OK) std::exit(1);
            sink += q[5][kJoints - 1].x;
          }
          return (thread_ns() - t0) / kBlends;
        },
        [&] {
          double t0 = thread_ns();
          for (int i = 0; i < kBlends; i++) {
            for (int k = 0; k < layers; k++) ol[k].weight = weight(i, k, layers);
            if (!oj.Run()) std::exit(1);
            sink += ozz::math::GetX(soa[5][kSoa - 1].rotation.x);
          }
          return (thread_ns() - t0) / kBlends;
        });
    // Both at the same weights (those of pose 300): the same pose?
    for (int k = 0; k < layers; k++)
      al[k].weight = ol[k].weight = weight(300, k, layers);
    anim_blend_job_run(&aj);
    oj.Run();
    std::printf("    outputs differ by at most %.2g\n",
                pose_difference(pose[5], soa[5]));
  }
  anim_skeleton_free(sk);
}

void print_cpu() {
  FILE *f = std::fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f != nullptr && std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, "model name", 10) == 0) {
      const char *v = std::strchr(line, ':');
      std::printf("animd beside ozz-animation 0.16 on%s", v ? v + 1 : line);
      break;
    }
  if (f != nullptr) std::fclose(f);
}

}  // namespace

int main() {
  print_cpu();
  std::printf("one thread, thread CPU time, median (fastest) of %d runs, "
              "alternating; %d IK jobs, %d blends of %d joints a run:\n",
              kRuns, kIkJobs, kBlends, kJoints);
  bench_ik();
  bench_blend();
  if (sink == 12345.678f) std::printf(" \n");
  return 0;
}
