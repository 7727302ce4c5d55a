/* formats: the BVH motion-capture importer.
 *
 * HIERARCHY becomes a skeleton (one joint per ROOT/JOINT; End Sites are
 * not joints), MOTION a fixed-rate clip: one rotation track per joint with
 * rotation channels (Euler degrees composed in the file's channel order,
 * intrinsic, so "Zrotation Xrotation Yrotation" is Rz * Rx * Ry) and one
 * translation track per joint with position channels, whose values replace
 * the OFFSET (missing components keep it). Offsets become rest
 * translations. The clip is named "motion-" plus 8 hex digits of the
 * file's SHA-256 (BVH names nothing), so many takes fit one rig. Options
 * scale lengths and turn a Z-up file Y-up by
 * conjugating every transform with a -90 degree turn about X.
 *
 * Key design choice: one forward pass over the text with a bounded explicit
 * stack, every token checked where it is read, and every frame row checked
 * to hold exactly the declared channel count; no quadratic work, so a
 * 2 MB capture decodes in milliseconds. Errors say "line N" and the token.
 * With opts->skeleton the motion is retargeted by joint name onto that
 * skeleton instead of creating a new one. */
#include "formats/import_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT };

typedef struct bvh_joint_s {
  char *name;
  int32_t parent;
  size_t line;
  anim_vec3_t offset;
  uint8_t nch;
  uint8_t ch[6];
  size_t first; /* Index of its first channel in a frame row. */
} bvh_joint_t;

typedef struct bvh_s {
  fmt_text_t t;
  const fmt_decode_options_t *opts;
  fmt_error_t *err;
  bvh_joint_t *j;
  size_t nj, cap;
  size_t channels;
  float scale;
} bvh_t;

static int expect(bvh_t *b, const char *word) {
  if (!fmt__text_next(&b->t) || !fmt__tok_is(&b->t, word)) {
    char what[64];
    snprintf(what, sizeof what, "expected \"%s\"", word);
    return fmt__text_fail(b->err, &b->t, FMT_ERR_BVH_SYNTAX, what);
  }
  return 0;
}

static int read_float(bvh_t *b, double *v, const char *what) {
  if (!fmt__text_next(&b->t) || !fmt__tok_float(&b->t, v))
    return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_NUMBER, what);
  return 0;
}

static int read_offset(bvh_t *b, anim_vec3_t *o) {
  double v[3];
  if (expect(b, "OFFSET")) return -1;
  for (int k = 0; k < 3; k++)
    if (read_float(b, &v[k], "OFFSET needs 3 numbers")) return -1;
  *o = anim_vec3((float)v[0], (float)v[1], (float)v[2]);
  return 0;
}

static int parse_channels(bvh_t *b, bvh_joint_t *j) {
  static const char *const names[6] = {"Xposition", "Yposition", "Zposition",
                                       "Xrotation", "Yrotation", "Zrotation"};
  long long n;
  if (expect(b, "CHANNELS")) return -1;
  if (!fmt__text_next(&b->t) || !fmt__tok_long(&b->t, &n) || n < 0 || n > 6)
    return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_CHANNELS,
                          "CHANNELS count must be within 0..6");
  j->nch = (uint8_t)n;
  j->first = b->channels;
  unsigned seen = 0;
  for (long long i = 0; i < n; i++) {
    if (!fmt__text_next(&b->t))
      return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_CHANNELS,
                            "fewer channel names than the CHANNELS count");
    int k = -1;
    for (int c = 0; c < 6; c++)
      if (fmt__tok_is(&b->t, names[c])) k = c;
    if (k < 0)
      return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_CHANNELS,
                            "unknown channel name");
    if (seen & (1u << k))
      return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_CHANNELS,
                            "channel listed twice");
    seen |= 1u << k;
    j->ch[i] = (uint8_t)k;
  }
  b->channels += (size_t)n;
  return 0;
}

static int add_joint(bvh_t *b, int32_t parent) {
  if (b->nj >= fmt__max_joints(b->opts))
    return fmt_fail(b->err, FMT_ERR_TOO_MANY_JOINTS, "HIERARCHY",
                    "more than %zu joints", fmt__max_joints(b->opts));
  if (b->nj == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 32;
    bvh_joint_t *g = realloc(b->j, nc * sizeof *g);
    if (g == NULL) return fmt__nomem(b->err, "HIERARCHY");
    b->j = g;
    b->cap = nc;
  }
  bvh_joint_t *j = &b->j[b->nj];
  memset(j, 0, sizeof *j);
  j->parent = parent;
  if (!fmt__text_next(&b->t) || fmt__tok_is(&b->t, "{"))
    return fmt__text_fail(b->err, &b->t, FMT_ERR_BVH_SYNTAX,
                          "expected a joint name");
  j->line = b->t.tok_line;
  if (!fmt__utf8_valid(b->t.tok, b->t.tok_len))
    return fmt__text_fail(b->err, &b->t, FMT_ERR_BAD_NAME,
                          "joint name is not valid UTF-8");
  j->name = strndup(b->t.tok, b->t.tok_len);
  if (j->name == NULL) return fmt__nomem(b->err, "HIERARCHY");
  b->nj++;
  return 0;
}

/* Parses from after "HIERARCHY" up to and including "MOTION". */
static int parse_hierarchy(bvh_t *b) {
  int32_t *stack = NULL;
  size_t depth = 0, cap = 0;
  int rc = -1;
  if (!fmt__text_next(&b->t) || !fmt__tok_is(&b->t, "ROOT")) {
    fmt__text_fail(b->err, &b->t, FMT_ERR_BVH_SYNTAX, "expected ROOT");
    goto done;
  }
  for (;;) {
    /* At a ROOT or JOINT keyword. */
    int32_t parent = depth ? stack[depth - 1] : -1;
    if (add_joint(b, parent) || expect(b, "{")) goto done;
    bvh_joint_t *j = &b->j[b->nj - 1];
    if (read_offset(b, &j->offset)) goto done;
    j = &b->j[b->nj - 1];
    if (parse_channels(b, j)) goto done;
    if (depth == cap) {
      size_t nc = cap ? cap * 2 : 32;
      int32_t *g = realloc(stack, nc * sizeof *g);
      if (g == NULL) {
        fmt__nomem(b->err, "HIERARCHY");
        goto done;
      }
      stack = g;
      cap = nc;
    }
    stack[depth++] = (int32_t)(b->nj - 1);
    /* Children, End Sites and closing braces until the next joint. */
    for (;;) {
      if (!fmt__text_next(&b->t)) {
        fmt__text_fail(b->err, &b->t, FMT_ERR_TRUNCATED,
                       "unclosed joint block");
        goto done;
      }
      if (fmt__tok_is(&b->t, "JOINT")) break;
      if (fmt__tok_is(&b->t, "End")) {
        anim_vec3_t o;
        if (expect(b, "Site") || expect(b, "{") || read_offset(b, &o) ||
            expect(b, "}"))
          goto done;
        continue;
      }
      if (fmt__tok_is(&b->t, "}")) {
        if (--depth > 0) continue;
        if (!fmt__text_next(&b->t)) {
          fmt__text_fail(b->err, &b->t, FMT_ERR_TRUNCATED, "expected MOTION");
          goto done;
        }
        if (fmt__tok_is(&b->t, "ROOT")) break;
        if (fmt__tok_is(&b->t, "MOTION")) {
          rc = 0;
          goto done;
        }
        fmt__text_fail(b->err, &b->t, FMT_ERR_BVH_SYNTAX,
                       "expected ROOT or MOTION");
        goto done;
      }
      fmt__text_fail(b->err, &b->t, FMT_ERR_BVH_SYNTAX,
                     "expected JOINT, End Site or }");
      goto done;
    }
  }
done:
  free(stack);
  return rc;
}

static anim_quat_t axis_quat(int axis, double deg) {
  double h = deg * (M_PI / 360.0);
  float s = (float)sin(h), c = (float)cos(h);
  return axis == 0   ? anim_quat(s, 0, 0, c)
         : axis == 1 ? anim_quat(0, s, 0, c)
                     : anim_quat(0, 0, s, c);
}

/* The caller-order index of joint name in the target skeleton, or -1. */
static int32_t target_index(const anim_skeleton_t *s, const char *name) {
  int32_t st = anim_skeleton_find(s, name);
  return st < 0 ? -1 : (int32_t)s->to_caller[st];
}

static int build(bvh_t *b, size_t frames, double frame_time, float *rows,
                 const char *clip_name, fmt_bundle_t *out) {
  const anim_skeleton_t *target = b->opts->skeleton;
  size_t nj = b->nj;
  anim_quat_t up = b->opts->z_up ? anim_quat(-0.70710678f, 0, 0, 0.70710678f)
                                 : anim_quat_identity();
  anim_quat_t up_inv = anim_quat(-up.x, -up.y, -up.z, up.w);
  /* Keys only for joints with channels: a file of frames without
   * channels (CHANNELS 0) holds no data and gets no keys, so what is
   * allocated here stays within a few times the frame rows read. */
  size_t per_frame = 0;
  for (size_t i = 0; i < nj; i++) {
    bool pos = false, rot = false;
    for (int c = 0; c < b->j[i].nch; c++) {
      if (b->j[i].ch[c] <= CH_ZPOS)
        pos = true;
      else
        rot = true;
    }
    per_frame += (pos ? 3 : 0) + (rot ? 4 : 0);
  }
  anim_raw_joint_t *rj = calloc(nj, sizeof *rj);
  anim_raw_track_t *tr = calloc(2 * nj, sizeof *tr);
  float *times = malloc((per_frame ? frames : 1) * sizeof *times);
  float *vals = malloc((per_frame ? frames * per_frame : 1) * sizeof *vals);
  size_t ntr = 0;
  int rc = -1;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (!rj || !tr || !times || !vals) {
    fmt__nomem(b->err, "MOTION");
    goto done;
  }
  for (size_t f = 0; per_frame && f < frames; f++)
    times[f] = (float)(f * frame_time);
  float *vp = vals;
  for (size_t i = 0; i < nj; i++) {
    bvh_joint_t *j = &b->j[i];
    anim_vec3_t off =
        anim_quat_rotate(up, anim_vec3_scale(j->offset, b->scale));
    rj[i].name = j->name;
    rj[i].parent = j->parent;
    rj[i].rest = anim_transform_identity();
    rj[i].rest.translation = off;
    uint32_t joint = (uint32_t)i;
    if (target != NULL) {
      int32_t ti = target_index(target, j->name);
      if (ti < 0) {
        char at[32];
        snprintf(at, sizeof at, "line %zu", j->line);
        fmt_fail(b->err, FMT_ERR_JOINT_NOT_FOUND, at,
                 "%s: joint %s is not in the target skeleton", at, j->name);
        goto done;
      }
      joint = (uint32_t)ti;
    }
    bool has_pos = false, has_rot = false;
    for (int c = 0; c < j->nch; c++) {
      if (j->ch[c] <= CH_ZPOS)
        has_pos = true;
      else
        has_rot = true;
    }
    if (has_pos) {
      for (size_t f = 0; f < frames; f++) {
        const float *row = rows + f * b->channels + j->first;
        float p[3] = {j->offset.x, j->offset.y, j->offset.z};
        for (int c = 0; c < j->nch; c++)
          if (j->ch[c] <= CH_ZPOS) p[j->ch[c]] = row[c];
        anim_vec3_t v = anim_quat_rotate(
            up, anim_vec3_scale(anim_vec3(p[0], p[1], p[2]), b->scale));
        vp[3 * f] = v.x, vp[3 * f + 1] = v.y, vp[3 * f + 2] = v.z;
      }
      tr[ntr++] = (anim_raw_track_t){.joint = joint,
                                     .path = ANIM_PATH_TRANSLATION,
                                     .interpolation = ANIM_INTERP_LINEAR,
                                     .times = times,
                                     .key_count = frames,
                                     .values = vp,
                                     .value_count = 3 * frames};
      vp += 3 * frames;
    }
    if (has_rot) {
      for (size_t f = 0; f < frames; f++) {
        const float *row = rows + f * b->channels + j->first;
        anim_quat_t q = up;
        for (int c = 0; c < j->nch; c++)
          if (j->ch[c] >= CH_XROT)
            q = anim_quat_mul(q, axis_quat(j->ch[c] - CH_XROT, row[c]));
        q = anim_quat_normalize(anim_quat_mul(q, up_inv));
        vp[4 * f] = q.x, vp[4 * f + 1] = q.y, vp[4 * f + 2] = q.z,
               vp[4 * f + 3] = q.w;
      }
      tr[ntr++] = (anim_raw_track_t){.joint = joint,
                                     .path = ANIM_PATH_ROTATION,
                                     .interpolation = ANIM_INTERP_LINEAR,
                                     .times = times,
                                     .key_count = frames,
                                     .values = vp,
                                     .value_count = 4 * frames};
      vp += 4 * frames;
    }
  }
  const anim_skeleton_t *skel = target;
  uint32_t skel_index = FMT_EXTERNAL_SKELETON;
  if (target == NULL) {
    anim_skeleton_t *s = NULL;
    anim_raw_skeleton_t raw = {
        .name = b->j[0].name, .joints = rj, .joint_count = nj};
    if (fmt__charge(out, b->opts, fmt_raw_skeleton_bytes(&raw), b->err,
                    "HIERARCHY"))
      goto done;
    anim_result r = anim_skeleton_build(&raw, NULL, &s, &be);
    if (r != ANIM_OK) {
      char at[32];
      snprintf(at, sizeof at, "line %zu",
               be.joint >= 0 && (size_t)be.joint < nj ? b->j[be.joint].line
                                                      : (size_t)1);
      fmt__build_fail(b->err, at, &be, r);
      goto done;
    }
    if (fmt__push_skeleton(out, s, b->err)) goto done;
    skel = s;
    skel_index = 0;
  }
  anim_raw_clip_t rc_raw = {.name = clip_name,
                            .tracks = tr,
                            .track_count = ntr,
                            .duration = (float)((frames - 1) * frame_time)};
  anim_clip_t *clip = NULL;
  memset(&be, 0, sizeof be);
  if (fmt__charge(out, b->opts, fmt_raw_clip_bytes(&rc_raw, skel), b->err,
                  "MOTION"))
    goto done;
  anim_result r = anim_clip_build(&rc_raw, skel, NULL, &clip, &be);
  if (r != ANIM_OK) {
    fmt__build_fail(b->err, "MOTION", &be, r);
    goto done;
  }
  if (fmt__push_clip(out, clip, skel_index, b->err)) goto done;
  rc = 0;
done:
  free(rj);
  free(tr);
  free(times);
  free(vals);
  return rc;
}

int fmt_decode_bvh(const void *body, size_t len,
                   const fmt_decode_options_t *opts, fmt_bundle_t *out,
                   fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  bvh_t b;
  memset(&b, 0, sizeof b);
  memset(out, 0, sizeof *out);
  b.opts = opts ? opts : &defaults;
  b.err = err;
  b.scale = b.opts->unit_scale > 0 && isfinite(b.opts->unit_scale)
                ? b.opts->unit_scale
                : 1.0f;
  fmt__text_init(&b.t, body, body ? len : 0);
  float *rows = NULL;
  int rc = -1;
  long long frames;
  double ft;
  if (expect(&b, "HIERARCHY") || parse_hierarchy(&b) || expect(&b, "Frames:"))
    goto done;
  if (!fmt__text_next(&b.t) || !fmt__tok_long(&b.t, &frames) || frames < 1) {
    fmt__text_fail(err, &b.t, FMT_ERR_BAD_FRAMES, "Frames: needs a count >= 1");
    goto done;
  }
  if (expect(&b, "Frame") || expect(&b, "Time:")) goto done;
  if (read_float(&b, &ft, "Frame Time: needs a number")) goto done;
  if (!(ft > 0) || ft > 3600) {
    fmt__text_fail(err, &b.t, FMT_ERR_BAD_FRAME_TIME,
                   "Frame Time must be positive");
    goto done;
  }
  size_t keys;
  if ((unsigned long long)frames > SIZE_MAX / (b.nj + 1) ||
      (keys = (size_t)frames * b.nj) > fmt__max_keys(b.opts) ||
      (size_t)frames > SIZE_MAX / (b.channels + 1) / sizeof(float)) {
    fmt_fail(err, FMT_ERR_TOO_MANY_KEYS,
             "Frames:", "%lld frames of %zu joints exceed the key limit %zu",
             frames, b.nj, fmt__max_keys(b.opts));
    goto done;
  }
  /* Every row holds at least 2 bytes per channel: a cheap bound on
   * Frames: before allocating. */
  if (b.channels > 0 &&
      (size_t)frames > (size_t)(b.t.end - b.t.p) / (2 * b.channels) + 1) {
    fmt__text_fail(err, &b.t, FMT_ERR_TRUNCATED,
                   "Frames: is larger than the data that follows");
    goto done;
  }
  rows = malloc(((size_t)frames * b.channels + 1) * sizeof *rows);
  if (rows == NULL) {
    fmt__nomem(err, "MOTION");
    goto done;
  }
  if (!fmt__text_at_eol(&b.t)) {
    fmt__text_next(&b.t);
    fmt__text_fail(err, &b.t, FMT_ERR_BVH_SYNTAX,
                   "unexpected token after Frame Time");
    goto done;
  }
  for (size_t f = 0; f < (size_t)frames; f++) {
    size_t line = 0;
    for (size_t c = 0; c < b.channels; c++) {
      if (!fmt__text_next(&b.t)) {
        char what[96];
        snprintf(what, sizeof what, "frame %zu: %zu of %zu values", f, c,
                 b.channels);
        fmt__text_fail(err, &b.t, FMT_ERR_TRUNCATED, what);
        goto done;
      }
      if (c == 0) line = b.t.tok_line;
      if (b.t.tok_line != line) {
        char at[32];
        snprintf(at, sizeof at, "line %zu", line);
        fmt_fail(err, FMT_ERR_VALUE_COUNT, at,
                 "%s: frame %zu has %zu values, %zu expected", at, f, c,
                 b.channels);
        goto done;
      }
      double v;
      if (!fmt__tok_float(&b.t, &v)) {
        fmt__text_fail(err, &b.t, FMT_ERR_BAD_NUMBER, "not a finite number");
        goto done;
      }
      rows[f * b.channels + c] = (float)v;
    }
    if (b.channels > 0 && !fmt__text_at_eol(&b.t)) {
      fmt__text_next(&b.t);
      char what[96];
      snprintf(what, sizeof what, "frame %zu has more than %zu values", f,
               b.channels);
      fmt__text_fail(err, &b.t, FMT_ERR_VALUE_COUNT, what);
      goto done;
    }
  }
  if (fmt__text_next(&b.t)) {
    fmt__text_fail(err, &b.t, FMT_ERR_VALUE_COUNT,
                   "more frame rows than Frames: says");
    goto done;
  }
  char clip_name[32];
  fmt__content_name("motion", body, len, clip_name, sizeof clip_name);
  if (build(&b, (size_t)frames, ft, rows, clip_name, out)) goto done;
  rc = 0;
done:
  if (rc != 0) fmt_bundle_free(out);
  for (size_t i = 0; i < b.nj; i++) free(b.j[i].name);
  free(b.j);
  free(rows);
  return rc;
}
