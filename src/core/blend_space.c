/* animd core: blend-space weights (animd/blend_space.h).
 *
 * 2D: Bowyer-Watson with a super triangle a thousand times the points'
 * extent, in double, every array on the stack; the triangles that touch
 * the super triangle are dropped, and the edges left with one triangle
 * are the hull's. A blend space holds a handful of points, so the
 * triangulation is redone per call (well under a microsecond for 9). */
#include <math.h>

#include "animd/blend_space.h"

#define MAXP (ANIM_BLEND_SPACE_MAX + 3)
#define MAXT (2 * MAXP)

typedef struct tri_s {
  int v[3];
  double cx, cy, r2; /* Circumcircle. */
} tri_t;

static bool circumcircle(const double (*p)[2], tri_t *t) {
  const double *a = p[t->v[0]], *b = p[t->v[1]], *c = p[t->v[2]];
  double d =
      2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]));
  if (d == 0) return false;
  double a2 = a[0] * a[0] + a[1] * a[1], b2 = b[0] * b[0] + b[1] * b[1],
         c2 = c[0] * c[0] + c[1] * c[1];
  t->cx = (a2 * (b[1] - c[1]) + b2 * (c[1] - a[1]) + c2 * (a[1] - b[1])) / d;
  t->cy = (a2 * (c[0] - b[0]) + b2 * (a[0] - c[0]) + c2 * (b[0] - a[0])) / d;
  t->r2 = (a[0] - t->cx) * (a[0] - t->cx) + (a[1] - t->cy) * (a[1] - t->cy);
  return true;
}

/* Triangulates the n points p (with room for three more); returns the
 * triangle count, the triangles in tris. */
static int delaunay(double (*p)[2], int n, tri_t *tris) {
  double lo[2] = {p[0][0], p[0][1]}, hi[2] = {p[0][0], p[0][1]};
  for (int i = 1; i < n; i++)
    for (int k = 0; k < 2; k++) {
      lo[k] = fmin(lo[k], p[i][k]);
      hi[k] = fmax(hi[k], p[i][k]);
    }
  double m = fmax(hi[0] - lo[0], hi[1] - lo[1]) * 1000;
  double cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
  p[n][0] = cx - m, p[n][1] = cy - m;
  p[n + 1][0] = cx + m, p[n + 1][1] = cy - m;
  p[n + 2][0] = cx, p[n + 2][1] = cy + m;
  int count = 1;
  tris[0] = (tri_t){.v = {n, n + 1, n + 2}};
  circumcircle((const double(*)[2])p, &tris[0]);
  int edges[3 * MAXT][2];
  for (int i = 0; i < n; i++) {
    int ne = 0, kept = 0;
    for (int t = 0; t < count; t++) {
      double dx = p[i][0] - tris[t].cx, dy = p[i][1] - tris[t].cy;
      if (dx * dx + dy * dy < tris[t].r2) {
        for (int e = 0; e < 3; e++) {
          edges[ne][0] = tris[t].v[e];
          edges[ne][1] = tris[t].v[(e + 1) % 3];
          ne++;
        }
      } else {
        tris[kept++] = tris[t];
      }
    }
    count = kept;
    /* The cavity's boundary: the edges of one bad triangle only. */
    for (int e = 0; e < ne; e++) {
      bool shared = false;
      for (int f = 0; f < ne && !shared; f++)
        shared =
            f != e && edges[f][0] == edges[e][1] && edges[f][1] == edges[e][0];
      if (shared || count == MAXT) continue;
      tri_t t = {.v = {edges[e][0], edges[e][1], i}};
      if (circumcircle((const double(*)[2])p, &t)) tris[count++] = t;
    }
  }
  int kept = 0;
  for (int t = 0; t < count; t++)
    if (tris[t].v[0] < n && tris[t].v[1] < n && tris[t].v[2] < n)
      tris[kept++] = tris[t];
  return kept;
}

static double cross(const double *o, const double *a, const double *b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* The weights of param among the n points p, triangulated as tris (3
 * indices each, count of them). */
static void weights_2d(const double (*p)[2], int n, const uint8_t *tv,
                       int count, const float *param, float *weights) {
  double x[2] = {param[0], param[1]};
  for (int i = 0; i < n; i++) weights[i] = 0;
  /* Inside: the triangle whose smallest barycentric coordinate is largest
   * (so an edge shared by two triangles gives one answer). */
  int best = -1;
  double best_min = -1e-9, bary[3] = {0, 0, 0};
  for (int t = 0; t < count; t++) {
    const double *a = p[tv[3 * t + 0]], *b = p[tv[3 * t + 1]],
                 *c = p[tv[3 * t + 2]];
    double area = cross(a, b, c);
    if (area == 0) continue;
    double u = cross(x, b, c) / area, v = cross(a, x, c) / area, w = 1 - u - v;
    double mn = fmin(u, fmin(v, w));
    if (mn > best_min || (best < 0 && mn >= best_min)) {
      best = t, best_min = mn;
      bary[0] = u, bary[1] = v, bary[2] = w;
    }
  }
  if (best >= 0) {
    double sum = 0;
    for (int k = 0; k < 3; k++) sum += bary[k] = fmax(bary[k], 0);
    for (int k = 0; k < 3; k++)
      weights[tv[3 * best + k]] = (float)(bary[k] / sum);
    return;
  }
  /* Outside: the nearest point of the hull edges (edges of one triangle). */
  double best_d = INFINITY;
  int ea = 0, eb = 0;
  double eu = 0;
  for (int t = 0; t < count; t++)
    for (int e = 0; e < 3; e++) {
      int a = tv[3 * t + e], b = tv[3 * t + (e + 1) % 3];
      bool shared = false;
      for (int s = 0; s < count && !shared; s++)
        for (int f = 0; f < 3 && !shared; f++)
          shared = s != t && tv[3 * s + f] == b && tv[3 * s + (f + 1) % 3] == a;
      if (shared) continue;
      double dx = p[b][0] - p[a][0], dy = p[b][1] - p[a][1];
      double u =
          ((x[0] - p[a][0]) * dx + (x[1] - p[a][1]) * dy) / (dx * dx + dy * dy);
      u = fmin(fmax(u, 0), 1);
      double qx = p[a][0] + u * dx - x[0], qy = p[a][1] + u * dy - x[1];
      double d = qx * qx + qy * qy;
      if (d < best_d) best_d = d, ea = a, eb = b, eu = u;
    }
  weights[ea] = (float)(1 - eu);
  weights[eb] += (float)eu;
}

static void weights_1d(const float *at, uint32_t n, float x, float *weights) {
  int lo = -1, hi = -1; /* The nearest points at or below, and above. */
  for (uint32_t i = 0; i < n; i++) {
    weights[i] = 0;
    if (at[i] <= x && (lo < 0 || at[i] > at[lo])) lo = (int)i;
    if (at[i] > x && (hi < 0 || at[i] < at[hi])) hi = (int)i;
  }
  if (lo < 0) {
    weights[hi] = 1; /* Below the first point. */
  } else if (hi < 0) {
    weights[lo] = 1; /* At or beyond the last point. */
  } else {
    /* In double: the difference of two far floats may overflow a float. */
    double u = ((double)x - at[lo]) / ((double)at[hi] - at[lo]);
    weights[lo] = (float)(1 - u);
    weights[hi] = (float)u;
  }
}

/* The points' own checks: finite, no two at one place, 2D not all on one
 * line; bad (optional) names the point at fault. */
static anim_result check_points(uint32_t d, const float *points, uint32_t n,
                                int32_t *bad) {
  for (uint32_t i = 0; i < d * n; i++)
    if (!isfinite(points[i])) return ANIM_ERR_NOT_FINITE;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t k = 0; k < i; k++)
      if (points[d * i] == points[d * k] &&
          (d == 1 || points[d * i + 1] == points[d * k + 1])) {
        if (bad != NULL) *bad = (int32_t)i;
        return ANIM_ERR_INVALID_ARGUMENT;
      }
  if (d == 1) return ANIM_OK;
  for (uint32_t i = 2; i < n; i++) {
    double c =
        ((double)points[2] - points[0]) *
            ((double)points[2 * i + 1] - points[1]) -
        ((double)points[3] - points[1]) * ((double)points[2 * i] - points[0]);
    if (c != 0) return ANIM_OK;
  }
  if (bad != NULL) *bad = -1;
  return ANIM_ERR_INVALID_ARGUMENT;
}

anim_result anim_blend_space_job_validate(const anim_blend_space_job_t *job) {
  if (job == NULL || job->points == NULL || job->param == NULL ||
      job->weights == NULL || (job->dimensions != 1 && job->dimensions != 2) ||
      job->point_count == 0 || job->point_count > ANIM_BLEND_SPACE_MAX ||
      (job->triangles != NULL && job->triangle_count == 0))
    return ANIM_ERR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < job->dimensions; i++)
    if (!isfinite(job->param[i])) return ANIM_ERR_NOT_FINITE;
  return check_points(job->dimensions, job->points, job->point_count,
                      job->bad_point);
}

uint32_t anim_blend_space_triangulate(const float *points, uint32_t point_count,
                                      uint8_t *triangles, uint32_t max) {
  if (points == NULL || triangles == NULL || point_count < 3 ||
      point_count > ANIM_BLEND_SPACE_MAX ||
      check_points(2, points, point_count, NULL) != ANIM_OK)
    return 0;
  double p[MAXP][2] = {{0, 0}};
  for (uint32_t i = 0; i < point_count; i++) {
    p[i][0] = points[2 * i];
    p[i][1] = points[2 * i + 1];
  }
  tri_t tris[MAXT];
  int count = delaunay(p, (int)point_count, tris);
  if ((uint32_t)count > max) return 0;
  for (int t = 0; t < count; t++)
    for (int k = 0; k < 3; k++) triangles[3 * t + k] = (uint8_t)tris[t].v[k];
  return (uint32_t)count;
}

anim_result anim_blend_space_job_run(const anim_blend_space_job_t *job) {
  anim_result r = anim_blend_space_job_validate(job);
  if (r != ANIM_OK) return r;
  if (job->dimensions == 1) {
    weights_1d(job->points, job->point_count, job->param[0], job->weights);
    return ANIM_OK;
  }
  double p[MAXP][2] = {{0, 0}};
  for (uint32_t i = 0; i < job->point_count; i++) {
    p[i][0] = job->points[2 * i];
    p[i][1] = job->points[2 * i + 1];
  }
  uint8_t tv[3 * MAXT];
  const uint8_t *tris = job->triangles;
  int count = (int)job->triangle_count;
  if (tris == NULL) {
    count = (int)anim_blend_space_triangulate(job->points, job->point_count, tv,
                                              MAXT);
    tris = tv;
  }
  weights_2d((const double(*)[2])p, (int)job->point_count, tris, count,
             job->param, job->weights);
  return ANIM_OK;
}

void anim_blend_space_times(const float *durations, const float *weights,
                            uint32_t count, double t, bool sync,
                            double *times) {
  double total = 0;
  for (uint32_t i = 0; i < count; i++)
    if (weights[i] > 0) total += (double)weights[i] * durations[i];
  double phase = total > 0 ? t / total : 0;
  for (uint32_t i = 0; i < count; i++)
    times[i] = sync ? phase * durations[i] : t;
}
