/* server/request: morph weights of one evaluation (morph.h). */
#include "server/request/morph.h"

#include "server/request/morph_field.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Track tr of clip at time t and wrap: its first n weights into out. */
static void sample(const anim_clip_t *clip, const anim_weight_track_t *tr,
                   double t, anim_wrap wrap, uint32_t n, float *out) {
  float w[ANIM_MAX_MORPH_TARGETS];
  anim_weight_track_sample(tr, anim_wrap_time(t, clip->duration, wrap), w);
  memcpy(out, w, (n < tr->target_count ? n : tr->target_count) * sizeof *out);
}

/* The layers' weights for mesh: the weight-normalized blend of the
 * non-additive layers whose clips have a track for it. */
static void layers(const srv_eval_job_t *job, const char *mesh, uint32_t n,
                   float *out) {
  float sum[ANIM_MAX_MORPH_TARGETS] = {0}, one[ANIM_MAX_MORPH_TARGETS];
  float total = 0.f;
  for (size_t l = 0; l < job->layer_count; l++) {
    const srv_eval_layer_t *ly = &job->layers[l];
    const anim_weight_track_t *tr = anim_clip_weight_track(ly->clip, mesh);
    if (ly->additive || tr == NULL || !(ly->weight > 0.f)) continue;
    memcpy(one, out, n * sizeof *one);
    sample(ly->clip, tr, ly->t, ly->wrap, n, one);
    for (uint32_t i = 0; i < n; i++) sum[i] += ly->weight * one[i];
    total += ly->weight;
  }
  if (total > 0.f)
    for (uint32_t i = 0; i < n; i++) out[i] = sum[i] / total;
}

void srv_morph_weights(const srv_eval_job_t *job, const char *mesh, uint32_t n,
                       const float *defaults, float *out) {
  if (n > ANIM_MAX_MORPH_TARGETS) n = ANIM_MAX_MORPH_TARGETS;
  for (uint32_t i = 0; i < n; i++) out[i] = defaults ? defaults[i] : 0.f;
  if (job->layer_count == 0) {
    const anim_weight_track_t *tr = anim_clip_weight_track(job->clip, mesh);
    if (tr != NULL) sample(job->clip, tr, job->t, job->wrap, n, out);
  } else {
    layers(job, mesh, n, out);
  }
  uint32_t k = 0;
  const float *o = srv_morph_field_values(job->fields, mesh, &k);
  if (o != NULL) memcpy(out, o, (k < n ? k : n) * sizeof *out);
}

const anim_clip_t *srv_morph_clip(const srv_eval_job_t *job) {
  const anim_clip_t *c = job->layer_count > 0 ? job->layers[0].clip : job->clip;
  return c != NULL && c->weight_track_count > 0 ? c : NULL;
}

int srv_morph_list(const srv_eval_job_t *job, srv_morph_list_t *out) {
  memset(out, 0, sizeof *out);
  const anim_clip_t *c = srv_morph_clip(job);
  if (c == NULL) return 0;
  size_t total = 0;
  for (uint32_t i = 0; i < c->weight_track_count; i++)
    total += c->weight_tracks[i].target_count;
  out->items = malloc(c->weight_track_count * sizeof *out->items);
  out->values = malloc(total * sizeof *out->values);
  if (out->items == NULL || out->values == NULL) {
    srv_morph_list_free(out);
    return -1;
  }
  float *at = out->values;
  for (uint32_t i = 0; i < c->weight_track_count; i++) {
    const anim_weight_track_t *tr = &c->weight_tracks[i];
    srv_morph_weights(job, tr->mesh, tr->target_count, NULL, at);
    out->items[i] = (fmt_morph_weights_t){tr->mesh, at, tr->target_count};
    at += tr->target_count;
  }
  out->count = c->weight_track_count;
  return 0;
}

void srv_morph_list_free(srv_morph_list_t *list) {
  free(list->items);
  free(list->values);
  memset(list, 0, sizeof *list);
}

size_t srv_morph_clip_floats(const anim_clip_t *clip) {
  size_t n = 0;
  for (uint32_t i = 0; clip != NULL && i < clip->weight_track_count; i++)
    n += clip->weight_tracks[i].target_count;
  return n;
}

void srv_morph_header(char *out, size_t cap, bool binary,
                      const anim_clip_t *clip) {
  if (!binary || srv_morph_clip_floats(clip) == 0) return;
  char line[160];
  size_t n = (size_t)snprintf(line, sizeof line, "X-Animd-Morph-Weights: ");
  for (uint32_t i = 0; i < clip->weight_track_count; i++) {
    if (n + 16 >= sizeof line) return; /* Too many tracks: no header. */
    n += (size_t)snprintf(line + n, sizeof line - n, "%s%u", i ? "," : "",
                          clip->weight_tracks[i].target_count);
  }
  size_t at = strlen(out);
  if (at + n + 3 <= cap)
    memcpy(out + at, line, n), memcpy(out + at + n, "\r\n", 3);
}
