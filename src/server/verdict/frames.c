/* server/verdict: errors of joints over a grid's frames (frames.h). */
#include "server/verdict/frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/verdict/shell.h"

/* Per-joint figures as the frames come. */
typedef struct tally_s {
  size_t joints;
  double *max, *t, *sq;
  uint32_t frames, failing_frames;
  double tolerance;
} tally_t;

static int tally_init(tally_t *tl, size_t joints, double tolerance) {
  memset(tl, 0, sizeof *tl);
  tl->joints = joints;
  tl->tolerance = tolerance;
  tl->max = calloc(joints + 1, sizeof(double));
  tl->t = calloc(joints + 1, sizeof(double));
  tl->sq = calloc(joints + 1, sizeof(double));
  return tl->max && tl->t && tl->sq ? 0 : -1;
}

static void tally_frame(tally_t *tl, const double *errors, double t) {
  bool failing = false;
  for (size_t j = 0; j < tl->joints; j++) {
    double e = errors[j];
    if (tl->frames == 0 || e > tl->max[j]) {
      tl->max[j] = e;
      tl->t[j] = t;
    }
    tl->sq[j] += e * e;
    failing |= e > tl->tolerance;
  }
  tl->frames++;
  tl->failing_frames += failing;
}

/* r's joints (names copied), max, failing and pass from the tally. 0, or
 * -1 out of memory. */
static int tally_finish(const tally_t *tl, const char *const *names,
                        verdict_compare_result_t *r) {
  r->frames = tl->frames;
  r->failing_frames = tl->failing_frames;
  r->joints = calloc(tl->joints + 1, sizeof *r->joints);
  if (r->joints == NULL) return -1;
  for (size_t j = 0; j < tl->joints; j++) {
    r->joints[j].joint = strdup(names[j]);
    if (r->joints[j].joint == NULL) return -1;
    r->joint_count = j + 1;
    r->joints[j].max_error = tl->max[j];
    r->joints[j].t = tl->t[j];
    r->joints[j].rms_error =
        tl->frames ? sqrt(tl->sq[j] / (double)tl->frames) : 0;
  }
  /* Stable: by max_error descending, then in joint order. */
  for (size_t j = 1; j < tl->joints; j++) {
    verdict_joint_error_t v = r->joints[j];
    size_t k = j;
    while (k > 0 && r->joints[k - 1].max_error < v.max_error) {
      r->joints[k] = r->joints[k - 1];
      k--;
    }
    r->joints[k] = v;
  }
  r->failing_joints = 0;
  for (size_t j = 0; j < r->joint_count; j++)
    r->failing_joints += r->joints[j].max_error > tl->tolerance;
  r->max_error = r->joint_count ? r->joints[0].max_error : 0;
  r->max_t = r->joint_count ? r->joints[0].t : 0;
  r->max_joint = r->joint_count ? r->joints[0].joint : NULL;
  r->pass = r->problem[0] == '\0' && r->max_error <= tl->tolerance;
  return 0;
}

static void tally_free(tally_t *tl) {
  free(tl->max);
  free(tl->t);
  free(tl->sq);
}

void verdict_result_grid(verdict_compare_result_t *out,
                         const verdict_grid_t *grid) {
  out->tolerance = grid->tolerance;
  out->shell = grid->shell;
  out->from = grid->from;
  out->to = grid->to;
  out->fps = grid->fps;
}

int verdict_frames_compare(const verdict_grid_t *grid, uint32_t frames,
                           uint32_t joints, const char *const *names,
                           verdict_frame_fill_fn fill, void *ctx,
                           verdict_compare_result_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  verdict_result_grid(out, grid);
  size_t n = joints;
  float *model = malloc((32 * n + 1) * sizeof(float));
  double *errors = malloc((n + 1) * sizeof(double));
  tally_t tally;
  int rc = -1;
  if (tally_init(&tally, n, grid->tolerance) != 0 || model == NULL ||
      errors == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto done;
  }
  for (uint32_t i = 0; i < frames; i++) {
    double t = grid->from + (double)i / grid->fps;
    if (fill(ctx, i, t, model, model + 16 * n, err) != 0) goto done;
    for (size_t k = 0; k < n; k++)
      errors[k] = verdict_shell_error(model + 16 * k, model + 16 * (n + k),
                                      grid->shell);
    tally_frame(&tally, errors, t);
  }
  if (tally_finish(&tally, names, out) != 0) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto done;
  }
  rc = 0;

done:
  if (rc != 0) verdict_compare_result_free(out);
  tally_free(&tally);
  free(model);
  free(errors);
  return rc;
}
