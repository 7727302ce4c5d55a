/* formats: the native JSON asset decoder (DESIGN.md "Native JSON asset
 * form") into built skeletons, clips and meshes.
 *
 * jansson parses the text (duplicate keys refused); a walk over the tree
 * then checks every member's type, count and range itself, so that each
 * problem is reported with the exact path of the bad value
 * ("clips[0].tracks[3].times[7]"); what only the core can judge (cycles,
 * duplicate names, zero quaternions, ...) comes back as an
 * anim_build_error_t and is mapped to the same kind of path. Unknown
 * members are refused (a typo must not pass silently), except "id" and
 * "vertices", which describe answers carry. */
#include "formats/native_json.h"

#include "formats/import_common.h"
#include "formats/clip_events.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_KEYS ((size_t)1 << 24)

/* jansson's tree costs about this much per value (a 24-byte value in a
 * 32-byte block, its array slot and that array's growth room) and per
 * object member (hash table entry and key); a body whose tree would cost
 * more than TREE_AMPLIFICATION times its size plus TREE_ALLOWANCE is
 * refused before parsing: "0," costs 2 bytes of text and 48 of tree. */
#define TREE_VALUE_BYTES 48
#define TREE_MEMBER_BYTES 96
#define TREE_AMPLIFICATION 8
#define TREE_ALLOWANCE ((size_t)64 << 20)
#define DEFAULT_MAX_VERTICES ((size_t)1 << 24)

/* The decoding state: the path of the value being read and the error. */
typedef struct ctx_s {
  char at[256];
  size_t len;
  fmt_error_t *err;
  const fmt_decode_options_t *opts;
  fmt_bundle_t *out;
  const anim_skeleton_t *external; /* The one stored skeleton used. */
} ctx_t;

/* Appends ".key" (or "key" at the root) and returns the old length. */
static size_t push_key(ctx_t *c, const char *key) {
  size_t old = c->len;
  int n = snprintf(c->at + c->len, sizeof c->at - c->len, "%s%s",
                   c->len ? "." : "", key);
  if (n > 0) c->len += (size_t)n;
  if (c->len >= sizeof c->at) c->len = sizeof c->at - 1;
  return old;
}

static size_t push_index(ctx_t *c, size_t i) {
  size_t old = c->len;
  int n = snprintf(c->at + c->len, sizeof c->at - c->len, "[%zu]", i);
  if (n > 0) c->len += (size_t)n;
  if (c->len >= sizeof c->at) c->len = sizeof c->at - 1;
  return old;
}

static void pop(ctx_t *c, size_t old) {
  c->len = old;
  c->at[old] = '\0';
}

static int fail(ctx_t *c, fmt_error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(ctx_t *c, fmt_error_code code, const char *fmt, ...) {
  char message[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return fmt_fail(c->err, code, c->at, "%s", message);
}

/* Fails at path + "." + key. */
static int fail_at(ctx_t *c, const char *key, fmt_error_code code,
                   const char *what) {
  size_t old = push_key(c, key);
  fail(c, code, "%s", what);
  pop(c, old);
  return -1;
}

static const char *type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER:
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  case JSON_NULL: return "null";
  }
  return "unknown";
}

static int wrong_type(ctx_t *c, const json_t *v, const char *expected) {
  return fail(c, FMT_ERR_WRONG_TYPE, "expected %s, found %s", expected,
              type_name(v));
}

/* Refuses members of obj not in allowed (NULL-terminated). */
static int check_members(ctx_t *c, json_t *obj, const char *const *allowed) {
  const char *k;
  json_t *v;
  json_object_foreach(obj, k, v) {
    bool ok = false;
    for (const char *const *a = allowed; *a; a++)
      if (strcmp(*a, k) == 0) ok = true;
    if (!ok) {
      size_t old = push_key(c, k);
      fail(c, FMT_ERR_UNKNOWN_FIELD, "unknown member \"%.60s\"", k);
      pop(c, old);
      return -1;
    }
  }
  return 0;
}

/* A finite number that fits a float, into *out. */
static int read_float(ctx_t *c, json_t *v, float *out) {
  if (!json_is_number(v)) return wrong_type(c, v, "a number");
  double d = json_number_value(v);
  if (!isfinite(d) || fabs(d) > FLT_MAX)
    return fail(c, FMT_ERR_NUMBER_RANGE,
                "%g is outside the range of a 32-bit float", d);
  *out = (float)d;
  return 0;
}

/* An integral number (1 and 1.0 both count) within [lo, hi]. */
static int read_int(ctx_t *c, json_t *v, int64_t lo, int64_t hi,
                    fmt_error_code range_code, int64_t *out) {
  int64_t i;
  if (json_is_integer(v)) {
    i = json_integer_value(v);
  } else if (json_is_real(v)) {
    double d = json_real_value(v);
    if (d != floor(d) || d < -9e15 || d > 9e15)
      return fail(c, FMT_ERR_WRONG_TYPE, "expected an integer, found %g", d);
    i = (int64_t)d;
  } else {
    return wrong_type(c, v, "an integer");
  }
  if (i < lo || i > hi)
    return fail(c, range_code, "%lld is outside [%lld, %lld]", (long long)i,
                (long long)lo, (long long)hi);
  *out = i;
  return 0;
}

/* Member key of obj as an array (NULL when absent and optional). */
static int get_array(ctx_t *c, json_t *obj, const char *key, bool required,
                     json_t **out) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL) {
    if (!required) return 0;
    return fail_at(c, key, FMT_ERR_MISSING_FIELD, "this member is required");
  }
  if (!json_is_array(v)) {
    size_t old = push_key(c, key);
    wrong_type(c, v, "an array");
    pop(c, old);
    return -1;
  }
  *out = v;
  return 0;
}

static int get_string(ctx_t *c, json_t *obj, const char *key, bool required,
                      const char **out) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL) {
    if (!required) return 0;
    return fail_at(c, key, FMT_ERR_MISSING_FIELD, "this member is required");
  }
  if (!json_is_string(v)) {
    size_t old = push_key(c, key);
    wrong_type(c, v, "a string");
    pop(c, old);
    return -1;
  }
  if (strlen(json_string_value(v)) != json_string_length(v))
    return fail_at(c, key, FMT_ERR_BAD_VALUE, "a NUL character in a string");
  *out = json_string_value(v);
  return 0;
}

/* Reads the array member key of obj: exactly `expected` numbers (any count
 * when expected is SIZE_MAX), into a new array *out (NULL when absent and
 * optional; also NULL for an empty array). */
static int get_floats(ctx_t *c, json_t *obj, const char *key, bool required,
                      size_t expected, float **out, size_t *count) {
  json_t *arr;
  *out = NULL;
  if (count) *count = 0;
  if (get_array(c, obj, key, required, &arr) != 0) return -1;
  if (arr == NULL) return 0;
  size_t n = json_array_size(arr);
  size_t old = push_key(c, key);
  if (expected != SIZE_MAX && n != expected) {
    fail(c, FMT_ERR_VALUE_COUNT, "expected %zu numbers, found %zu", expected,
         n);
    pop(c, old);
    return -1;
  }
  float *v = malloc((n ? n : 1) * sizeof *v);
  if (v == NULL) {
    fail(c, FMT_ERR_OUT_OF_MEMORY, "out of memory");
    pop(c, old);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    size_t o = push_index(c, i);
    if (read_float(c, json_array_get(arr, i), &v[i]) != 0) {
      free(v);
      return -1;
    }
    pop(c, o);
  }
  pop(c, old);
  *out = v;
  if (count) *count = n;
  return 0;
}

static int oom(ctx_t *c) {
  return fail(c, FMT_ERR_OUT_OF_MEMORY, "out of memory");
}

/* Maps a core build error to a path under the current one. sub names the
 * list the indices point into ("joints", "tracks"). */
static int build_failed(ctx_t *c, anim_result r, const anim_build_error_t *e,
                        const char *list, int32_t index, int32_t key) {
  size_t old = c->len;
  if (r == ANIM_ERR_OUT_OF_MEMORY) return oom(c);
  if (list != NULL && index >= 0) {
    push_key(c, list);
    push_index(c, (size_t)index);
  }
  const char *field = e->field;
  if (field != NULL && field[0]) {
    if (strcmp(field, "inverse_bind") == 0) field = "inverseBindMatrices";
    push_key(c, field);
    if (key >= 0) push_index(c, (size_t)key);
  }
  fail(c, fmt_error_of_result(r), "%s",
       e->message[0] ? e->message : anim_result_str(r));
  pop(c, old);
  return -1;
}

/* ---- skeletons -------------------------------------------------------- */

static int decode_vec(ctx_t *c, json_t *joint, const char *key, size_t n,
                      float *dst) {
  float *v;
  if (get_floats(c, joint, key, false, n, &v, NULL) != 0) return -1;
  if (v != NULL) {
    memcpy(dst, v, n * sizeof *v);
    free(v);
  }
  return 0;
}

static int decode_skeleton(ctx_t *c, json_t *obj) {
  static const char *const members[] = {"name", "joints", "inverseBindMatrices",
                                        "id", NULL};
  static const char *const joint_members[] = {
      "name", "parent", "translation", "rotation", "scale", "orient", NULL};
  if (!json_is_object(obj)) return wrong_type(c, obj, "an object");
  if (check_members(c, obj, members) != 0) return -1;
  const char *name;
  json_t *joints;
  if (get_string(c, obj, "name", false, &name) != 0) return -1;
  if (get_array(c, obj, "joints", true, &joints) != 0) return -1;
  size_t n = json_array_size(joints);
  size_t max = c->opts->max_joints ? c->opts->max_joints : ANIM_MAX_JOINTS;
  if (max > ANIM_MAX_JOINTS) max = ANIM_MAX_JOINTS;
  if (n == 0)
    return fail_at(c, "joints", FMT_ERR_VALUE_COUNT,
                   "a skeleton needs at least one joint");
  if (n > max) {
    size_t old = push_key(c, "joints");
    fail(c, FMT_ERR_TOO_MANY_JOINTS, "%zu joints; at most %zu are accepted", n,
         max);
    pop(c, old);
    return -1;
  }
  anim_raw_joint_t *raw = calloc(n, sizeof *raw);
  float *ibm = NULL;
  if (raw == NULL) return oom(c);
  int rc = -1;
  size_t old = push_key(c, "joints");
  for (size_t i = 0; i < n; i++) {
    size_t o = push_index(c, i);
    json_t *j = json_array_get(joints, i);
    anim_raw_joint_t *r = &raw[i];
    if (!json_is_object(j)) {
      wrong_type(c, j, "an object");
      goto done;
    }
    if (check_members(c, j, joint_members) != 0) goto done;
    if (get_string(c, j, "name", true, &r->name) != 0) goto done;
    if (r->name[0] == '\0') {
      fail_at(c, "name", FMT_ERR_NAME_EMPTY, "a joint needs a name");
      goto done;
    }
    json_t *p = json_object_get(j, "parent");
    if (p == NULL) {
      fail_at(c, "parent", FMT_ERR_MISSING_FIELD,
              "this member is required (-1 for a root)");
      goto done;
    }
    int64_t parent;
    size_t op = push_key(c, "parent");
    if (read_int(c, p, -1, (int64_t)n - 1, FMT_ERR_PARENT_RANGE, &parent) != 0)
      goto done;
    if (parent == (int64_t)i) {
      fail(c, FMT_ERR_CYCLE, "a joint cannot be its own parent");
      goto done;
    }
    pop(c, op);
    r->parent = (int32_t)parent;
    r->rest.rotation.w = 1;
    r->rest.scale = (anim_vec3_t){1, 1, 1};
    r->orient = (anim_quat_t){0, 0, 0, 1};
    if (decode_vec(c, j, "translation", 3, &r->rest.translation.x) != 0 ||
        decode_vec(c, j, "rotation", 4, &r->rest.rotation.x) != 0 ||
        decode_vec(c, j, "scale", 3, &r->rest.scale.x) != 0 ||
        decode_vec(c, j, "orient", 4, &r->orient.x) != 0)
      goto done;
    pop(c, o);
  }
  pop(c, old);
  if (get_floats(c, obj, "inverseBindMatrices", false, 16 * n, &ibm, NULL))
    goto done;
  anim_raw_skeleton_t rs = {.name = name ? name : "",
                            .joints = raw,
                            .joint_count = n,
                            .inverse_bind = ibm};
  anim_skeleton_t *built = NULL;
  anim_build_error_t be = {0};
  if (fmt__charge(c->out, c->opts, fmt_raw_skeleton_bytes(&rs), c->err,
                  c->at) != 0)
    goto done;
  anim_result r = anim_skeleton_build(&rs, NULL, &built, &be);
  if (r != ANIM_OK) {
    const char *list = be.joint >= 0 ? "joints" : NULL;
    if (be.field && strcmp(be.field, "inverse_bind") == 0 && be.joint >= 0) {
      /* Matrix j of the flat list starts at float 16 j. */
      be.key = be.joint * 16;
      list = NULL;
    }
    build_failed(c, r, &be, list, be.joint, be.key);
    goto done;
  }
  fmt_bundle_t *b = c->out;
  anim_skeleton_t **grown =
      realloc(b->skeletons, (b->skeleton_count + 1) * sizeof *grown);
  if (grown == NULL) {
    anim_skeleton_free(built);
    oom(c);
    goto done;
  }
  b->skeletons = grown;
  b->skeletons[b->skeleton_count++] = built;
  rc = 0;
done:
  free(raw);
  free(ibm);
  return rc;
}

/* ---- binding clips and meshes to a skeleton -------------------------------
 */

/* Finds the skeleton a clip or mesh belongs to: its "skeleton" member (a
 * name of this upload's skeletons, or a stored skeleton's id or name), or
 * the upload's only skeleton, or opts->skeleton. */
static int bind_skeleton(ctx_t *c, json_t *obj, const anim_skeleton_t **out,
                         uint32_t *index) {
  const char *ref;
  fmt_bundle_t *b = c->out;
  if (get_string(c, obj, "skeleton", false, &ref) != 0) return -1;
  if (ref == NULL) {
    if (b->skeleton_count == 1) {
      *out = b->skeletons[0];
      *index = 0;
      return 0;
    }
    if (b->skeleton_count == 0 && c->opts->skeleton != NULL) {
      *out = c->opts->skeleton;
      *index = FMT_EXTERNAL_SKELETON;
      c->external = c->opts->skeleton;
      return 0;
    }
    return fail_at(c, "skeleton", FMT_ERR_MISSING_FIELD,
                   b->skeleton_count
                       ? "the upload holds several skeletons: name one"
                       : "name the stored skeleton (its id or name)");
  }
  size_t found = SIZE_MAX;
  for (size_t i = 0; i < b->skeleton_count; i++) {
    if (strcmp(b->skeletons[i]->name, ref) != 0) continue;
    if (found != SIZE_MAX)
      return fail_at(c, "skeleton", FMT_ERR_SKELETON_AMBIGUOUS,
                     "several skeletons of this upload have that name");
    found = i;
  }
  if (found != SIZE_MAX) {
    *out = b->skeletons[found];
    *index = (uint32_t)found;
    return 0;
  }
  const anim_skeleton_t *s = NULL;
  if (c->opts->resolve != NULL)
    s = c->opts->resolve(ref, c->opts->resolve_user_data);
  if (s == NULL && c->opts->skeleton != NULL &&
      strcmp(c->opts->skeleton->name, ref) == 0)
    s = c->opts->skeleton;
  if (s == NULL) {
    size_t old = push_key(c, "skeleton");
    fail(c, FMT_ERR_UNKNOWN_SKELETON,
         "no skeleton \"%.80s\" in this upload or in the store", ref);
    pop(c, old);
    return -1;
  }
  if (c->external != NULL && c->external != s)
    return fail_at(c, "skeleton", FMT_ERR_SEVERAL_STORED_SKELETONS,
                   "an upload may refer to one stored skeleton only");
  if (c->opts->skeleton != NULL && c->opts->skeleton != s)
    return fail_at(c, "skeleton", FMT_ERR_SEVERAL_STORED_SKELETONS,
                   "this skeleton is not the one the request names");
  c->external = s;
  *out = s;
  *index = FMT_EXTERNAL_SKELETON;
  return 0;
}

/* ---- clips -------------------------------------------------------------- */

static const char *const path_names[] = {"translation", "rotation", "scale"};
static const char *const interp_names[] = {"LINEAR", "STEP", "CUBICSPLINE",
                                           "BEZIER", "SQUAD"};

typedef struct track_mem_s {
  float *times, *values, *bezier;
} track_mem_t;

static int decode_track(ctx_t *c, json_t *t, const anim_skeleton_t *s,
                        anim_raw_track_t *raw, track_mem_t *mem) {
  static const char *const members[] = {
      "joint", "path", "interpolation", "times", "values", "bezier", NULL};
  if (!json_is_object(t)) return wrong_type(c, t, "an object");
  if (check_members(c, t, members) != 0) return -1;
  json_t *joint = json_object_get(t, "joint");
  if (joint == NULL)
    return fail_at(c, "joint", FMT_ERR_MISSING_FIELD,
                   "this member is required (a joint name or index)");
  size_t old = push_key(c, "joint");
  if (json_is_string(joint)) {
    int32_t storage = anim_skeleton_find(s, json_string_value(joint));
    if (storage < 0)
      return fail(c, FMT_ERR_UNKNOWN_JOINT,
                  "the skeleton has no joint "
                  "\"%.80s\"",
                  json_string_value(joint));
    raw->joint = s->to_caller[storage];
  } else {
    int64_t j;
    if (json_is_number(joint)) {
      if (read_int(c, joint, 0, (int64_t)s->joint_count - 1,
                   FMT_ERR_JOINT_RANGE, &j) != 0)
        return -1;
    } else {
      return wrong_type(c, joint, "a joint name or index");
    }
    raw->joint = (uint32_t)j;
  }
  pop(c, old);

  const char *path, *interp;
  if (get_string(c, t, "path", true, &path) != 0) return -1;
  if (get_string(c, t, "interpolation", false, &interp) != 0) return -1;
  int p = -1;
  for (int i = 0; i < 3; i++)
    if (strcmp(path, path_names[i]) == 0) p = i;
  if (p < 0)
    return fail_at(c, "path", FMT_ERR_BAD_VALUE,
                   "expected \"translation\", \"rotation\" or \"scale\"");
  int ip = ANIM_INTERP_LINEAR;
  if (interp != NULL) {
    ip = -1;
    for (int i = 0; i < ANIM_INTERP_COUNT_; i++)
      if (strcmp(interp, interp_names[i]) == 0) ip = i;
    if (ip < 0)
      return fail_at(c, "interpolation", FMT_ERR_BAD_VALUE,
                     "expected STEP, LINEAR, CUBICSPLINE, BEZIER or SQUAD");
  }
  raw->path = (anim_path)p;
  raw->interpolation = (anim_interp)ip;

  size_t keys;
  if (get_floats(c, t, "times", true, SIZE_MAX, &mem->times, &keys) != 0)
    return -1;
  size_t max_keys = c->opts->max_keys ? c->opts->max_keys : DEFAULT_MAX_KEYS;
  if (keys == 0)
    return fail_at(c, "times", FMT_ERR_NO_KEYS, "a track needs keys");
  if (keys > max_keys) {
    old = push_key(c, "times");
    fail(c, FMT_ERR_TOO_MANY_KEYS, "%zu keys; at most %zu per track", keys,
         max_keys);
    pop(c, old);
    return -1;
  }
  old = push_key(c, "times");
  for (size_t k = 0; k < keys; k++) {
    size_t o = push_index(c, k);
    if (mem->times[k] < 0)
      return fail(c, FMT_ERR_TIME_NEGATIVE, "key times start at 0");
    if (k > 0 && !(mem->times[k] > mem->times[k - 1]))
      return fail(c, FMT_ERR_TIMES_ORDER,
                  "key times must increase strictly (%g after %g)",
                  (double)mem->times[k], (double)mem->times[k - 1]);
    pop(c, o);
  }
  pop(c, old);
  size_t comps = p == ANIM_PATH_ROTATION ? 4 : 3;
  size_t per_key = ip == ANIM_INTERP_CUBICSPLINE ? 3 * comps : comps;
  size_t nvalues;
  if (get_floats(c, t, "values", true, SIZE_MAX, &mem->values, &nvalues))
    return -1;
  if (nvalues != keys * per_key) {
    old = push_key(c, "values");
    fail(c, FMT_ERR_VALUE_COUNT,
         "expected %zu numbers (%zu keys x %zu%s), found %zu", keys * per_key,
         keys, comps,
         ip == ANIM_INTERP_CUBICSPLINE ? " x 3 for in-tangent, value, "
                                         "out-tangent"
                                       : "",
         nvalues);
    pop(c, old);
    return -1;
  }
  if (ip == ANIM_INTERP_BEZIER) {
    if (get_floats(c, t, "bezier", true, 4 * keys, &mem->bezier, NULL))
      return -1;
    old = push_key(c, "bezier");
    for (size_t k = 0; k < 4 * keys; k++) {
      if (mem->bezier[k] < 0 || mem->bezier[k] > 1) {
        push_index(c, k);
        return fail(c, FMT_ERR_BEZIER_RANGE,
                    "Bezier control values lie in [0, 1]");
      }
    }
    pop(c, old);
  } else if (json_object_get(t, "bezier") != NULL) {
    return fail_at(c, "bezier", FMT_ERR_UNKNOWN_FIELD,
                   "\"bezier\" belongs to BEZIER tracks only");
  }
  raw->times = mem->times;
  raw->key_count = keys;
  raw->values = mem->values;
  raw->value_count = nvalues;
  raw->bezier = mem->bezier;
  return 0;
}

/* One member of a clip's "weights": {"mesh", "interpolation" (LINEAR,
 * STEP or CUBICSPLINE), "times", "values"}, n weights per key (3n for
 * CUBICSPLINE: a1..an, v1..vn, b1..bn) with n = values / keys (/ 3). */
static int decode_weight_track(ctx_t *c, json_t *t,
                               anim_raw_weight_track_t *raw, track_mem_t *mem) {
  static const char *const members[] = {"mesh", "interpolation", "times",
                                        "values", NULL};
  if (!json_is_object(t)) return wrong_type(c, t, "an object");
  if (check_members(c, t, members) != 0) return -1;
  const char *mesh, *interp;
  if (get_string(c, t, "mesh", true, &mesh) != 0 ||
      get_string(c, t, "interpolation", false, &interp) != 0)
    return -1;
  int ip = ANIM_INTERP_LINEAR;
  if (interp != NULL) {
    ip = -1;
    for (int i = 0; i <= ANIM_INTERP_CUBICSPLINE; i++)
      if (strcmp(interp, interp_names[i]) == 0) ip = i;
    if (ip < 0)
      return fail_at(c, "interpolation", FMT_ERR_BAD_VALUE,
                     "expected STEP, LINEAR or CUBICSPLINE");
  }
  size_t keys, nvalues;
  if (get_floats(c, t, "times", true, SIZE_MAX, &mem->times, &keys) != 0 ||
      get_floats(c, t, "values", true, SIZE_MAX, &mem->values, &nvalues) != 0)
    return -1;
  if (keys == 0)
    return fail_at(c, "times", FMT_ERR_NO_KEYS, "a track needs keys");
  size_t per = ip == ANIM_INTERP_CUBICSPLINE ? 3 : 1;
  size_t n = nvalues / (keys * per);
  if (n == 0 || n > ANIM_MAX_MORPH_TARGETS || n * keys * per != nvalues) {
    size_t old = push_key(c, "values");
    fail(c, FMT_ERR_VALUE_COUNT,
         "expected keys x weights%s numbers (1 to 256 weights), found %zu "
         "for %zu keys",
         per == 3 ? " x 3" : "", nvalues, keys);
    pop(c, old);
    return -1;
  }
  *raw = (anim_raw_weight_track_t){.mesh = mesh,
                                   .interpolation = (anim_interp)ip,
                                   .target_count = (uint32_t)n,
                                   .times = mem->times,
                                   .key_count = keys,
                                   .values = mem->values,
                                   .value_count = nvalues};
  return 0;
}

static int decode_clip(ctx_t *c, json_t *obj) {
  static const char *const members[] = {"name",    "skeleton", "duration",
                                        "tracks",  "events",   "id",
                                        "weights", NULL};
  if (!json_is_object(obj)) return wrong_type(c, obj, "an object");
  if (check_members(c, obj, members) != 0) return -1;
  const char *name;
  json_t *tracks;
  float duration = 0;
  if (get_string(c, obj, "name", false, &name) != 0) return -1;
  if (get_array(c, obj, "tracks", true, &tracks) != 0) return -1;
  json_t *d = json_object_get(obj, "duration");
  if (d != NULL) {
    size_t old = push_key(c, "duration");
    if (read_float(c, d, &duration) != 0) return -1;
    if (duration < 0) return fail(c, FMT_ERR_BAD_VALUE, "a negative duration");
    pop(c, old);
  }
  const anim_skeleton_t *s;
  uint32_t skel_index;
  if (bind_skeleton(c, obj, &s, &skel_index) != 0) return -1;

  anim_event_t *events = NULL;
  size_t event_count = 0;
  size_t at_events = push_key(c, "events");
  char events_at[sizeof c->at];
  snprintf(events_at, sizeof events_at, "%s", c->at);
  pop(c, at_events);
  if (fmt__events_read(json_object_get(obj, "events"), events_at, &events,
                       &event_count, c->err) != 0)
    return -1;

  size_t n = json_array_size(tracks), nw = 0;
  anim_raw_track_t *raw = calloc(n ? n : 1, sizeof *raw);
  track_mem_t *mem = calloc(n ? n : 1, sizeof *mem), *wmem = NULL;
  anim_raw_weight_track_t *wraw = NULL;
  int rc = -1;
  if (raw == NULL || mem == NULL) {
    oom(c);
    goto done;
  }
  size_t old = push_key(c, "tracks");
  for (size_t i = 0; i < n; i++) {
    size_t o = push_index(c, i);
    if (decode_track(c, json_array_get(tracks, i), s, &raw[i], &mem[i]))
      goto done;
    pop(c, o);
  }
  pop(c, old);
  json_t *wts;
  if (get_array(c, obj, "weights", false, &wts) != 0) goto done;
  nw = json_array_size(wts);
  wraw = calloc(nw ? nw : 1, sizeof *wraw);
  wmem = calloc(nw ? nw : 1, sizeof *wmem);
  if (wraw == NULL || wmem == NULL) {
    oom(c);
    goto done;
  }
  old = push_key(c, "weights");
  for (size_t i = 0; i < nw; i++) {
    size_t o = push_index(c, i);
    if (decode_weight_track(c, json_array_get(wts, i), &wraw[i], &wmem[i]))
      goto done;
    pop(c, o);
  }
  pop(c, old);
  anim_raw_clip_t rc_raw = {.name = name ? name : "",
                            .tracks = raw,
                            .track_count = n,
                            .weight_tracks = wraw,
                            .weight_track_count = nw,
                            .duration = duration,
                            .events = events,
                            .event_count = event_count};
  anim_clip_t *built = NULL;
  anim_build_error_t be = {0};
  if (fmt__charge(c->out, c->opts, fmt_raw_clip_bytes(&rc_raw, s), c->err,
                  c->at) != 0)
    goto done;
  anim_result r = anim_clip_build(&rc_raw, s, NULL, &built, &be);
  if (r != ANIM_OK) {
    if (be.track < 0 && be.field && strcmp(be.field, "duration") == 0) {
      build_failed(c, r, &be, NULL, -1, -1);
    } else if (be.field && strcmp(be.field, "weight_tracks") == 0) {
      build_failed(c, r, &be, "weights", be.track, -1);
    } else if (be.field && strcmp(be.field, "events") == 0) {
      char at[sizeof c->at];
      fmt__events_build_at(&be, events_at, at, sizeof at);
      fmt__build_fail(c->err, at, &be, r);
    } else {
      int32_t key = be.key;
      if (key >= 0 && be.component >= 0 && be.field &&
          strcmp(be.field, "values") == 0 && be.track >= 0 &&
          (size_t)be.track < n) {
        size_t comps = raw[be.track].path == ANIM_PATH_ROTATION ? 4 : 3;
        if (raw[be.track].interpolation == ANIM_INTERP_CUBICSPLINE) comps *= 3;
        key = (int32_t)((size_t)key * comps + (size_t)be.component);
      } else if (key >= 0 && be.component >= 0 && be.field &&
                 strcmp(be.field, "bezier") == 0) {
        key = key * 4 + be.component;
      }
      build_failed(c, r, &be, "tracks", be.track, key);
    }
    goto done;
  }
  fmt_bundle_t *b = c->out;
  fmt_clip_t *grown = realloc(b->clips, (b->clip_count + 1) * sizeof *grown);
  if (grown == NULL) {
    anim_clip_free(built);
    oom(c);
    goto done;
  }
  b->clips = grown;
  b->clips[b->clip_count++] = (fmt_clip_t){built, skel_index};
  rc = 0;
done:
  if (mem != NULL)
    for (size_t i = 0; i < n; i++) {
      free(mem[i].times);
      free(mem[i].values);
      free(mem[i].bezier);
    }
  free(mem);
  free(raw);
  if (wmem != NULL)
    for (size_t i = 0; i < nw; i++) {
      free(wmem[i].times);
      free(wmem[i].values);
    }
  free(wmem);
  free(wraw);
  free(events);
  return rc;
}

/* ---- meshes ------------------------------------------------------------- */

/* Reads count unsigned integers below limit from member key. */
static int get_uints(ctx_t *c, json_t *obj, const char *key, bool required,
                     size_t expected, uint32_t limit, fmt_error_code range_code,
                     uint32_t **out, size_t *count) {
  json_t *arr;
  *out = NULL;
  *count = 0;
  if (get_array(c, obj, key, required, &arr) != 0) return -1;
  if (arr == NULL) return 0;
  size_t n = json_array_size(arr);
  size_t old = push_key(c, key);
  if (expected != SIZE_MAX && n != expected) {
    fail(c, FMT_ERR_VALUE_COUNT, "expected %zu integers, found %zu", expected,
         n);
    return -1;
  }
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  if (v == NULL) return oom(c);
  for (size_t i = 0; i < n; i++) {
    int64_t x;
    size_t o = push_index(c, i);
    if (read_int(c, json_array_get(arr, i), 0, (int64_t)limit - 1, range_code,
                 &x) != 0) {
      free(v);
      return -1;
    }
    pop(c, o);
    v[i] = (uint32_t)x;
  }
  pop(c, old);
  *out = v;
  *count = n;
  return 0;
}

/* A mesh's "material" into *m; embedded image bytes are decoded into
 * *image (malloc'd, the caller frees). A describe answer's image (no
 * "data", only its size and route) is accepted and keeps no bytes. */
static int decode_material(ctx_t *c, json_t *obj, anim_mesh_material_t *m,
                           unsigned char **image) {
  static const char *const members[] = {"name", "texture", "image", NULL};
  static const char *const image_members[] = {"uri",   "mimeType", "data",
                                              "bytes", "href",     NULL};
  json_t *mat = json_object_get(obj, "material");
  if (mat == NULL) return 0;
  size_t old = push_key(c, "material");
  if (!json_is_object(mat)) return wrong_type(c, mat, "an object");
  if (check_members(c, mat, members) != 0 ||
      get_string(c, mat, "name", false, &m->name) != 0)
    return -1;
  json_t *tex = json_object_get(mat, "texture");
  if (tex != NULL) {
    int64_t t;
    size_t o = push_key(c, "texture");
    if (read_int(c, tex, 0, INT32_MAX, FMT_ERR_BAD_VALUE, &t) != 0) return -1;
    pop(c, o);
    m->has_texture = true;
    m->texture = (uint32_t)t;
  }
  json_t *img = json_object_get(mat, "image");
  if (img != NULL) {
    size_t o = push_key(c, "image");
    const char *data;
    if (!json_is_object(img)) return wrong_type(c, img, "an object");
    if (check_members(c, img, image_members) != 0 ||
        get_string(c, img, "uri", false, &m->image_uri) != 0 ||
        get_string(c, img, "mimeType", false, &m->image_type) != 0 ||
        get_string(c, img, "data", false, &data) != 0)
      return -1;
    if (data != NULL) {
      size_t n = strlen(data);
      if (m->image_type == NULL || !fmt__image_type_known(m->image_type))
        return fail_at(c, "mimeType", FMT_ERR_BAD_VALUE,
                       "image/png, image/jpeg, image/webp or image/ktx2");
      if (n == 0 || n % 4 != 0 || n > INT32_MAX)
        return fail_at(c, "data", FMT_ERR_BAD_VALUE,
                       "base64 of a non-empty image");
      *image = malloc(n / 4 * 3 + 1);
      if (*image == NULL) return oom(c);
      int got = EVP_DecodeBlock(*image, (const unsigned char *)data, (int)n);
      if (got < 0)
        return fail_at(c, "data", FMT_ERR_BAD_VALUE, "invalid base64");
      size_t pad = (data[n - 1] == '=') + (n >= 2 && data[n - 2] == '=');
      m->image = *image;
      m->image_size = (size_t)got - pad;
    } else {
      m->image_type = NULL; /* A described image: its bytes are not here. */
    }
    pop(c, o);
  }
  pop(c, old);
  return 0;
}

/* A mesh's "targets": [{"positions", "normals"}] (3 numbers per vertex
 * of v each; "normals" optional, all targets alike) and "target_weights"
 * (one per target, default zeros), target-major into *tp, *tn, *tw. */
static int decode_targets(ctx_t *c, json_t *obj, size_t v, size_t *nt,
                          float **tp, float **tn, float **tw) {
  json_t *arr;
  *nt = 0;
  if (get_array(c, obj, "targets", false, &arr) != 0) return -1;
  if (arr == NULL || json_array_size(arr) == 0) {
    if (json_object_get(obj, "target_weights") != NULL)
      return fail_at(c, "target_weights", FMT_ERR_UNKNOWN_FIELD,
                     "\"target_weights\" needs \"targets\"");
    return 0;
  }
  size_t n = json_array_size(arr);
  if (n > ANIM_MAX_MORPH_TARGETS)
    return fail_at(c, "targets", FMT_ERR_VALUE_COUNT, "at most 256 targets");
  bool normals = json_object_get(json_array_get(arr, 0), "normals") != NULL;
  *tp = calloc(n * v * 3, sizeof **tp);
  *tn = normals ? calloc(n * v * 3, sizeof **tn) : NULL;
  if (*tp == NULL || (normals && *tn == NULL)) return oom(c);
  size_t old = push_key(c, "targets");
  for (size_t i = 0; i < n; i++) {
    static const char *const members[] = {"positions", "normals", NULL};
    json_t *t = json_array_get(arr, i);
    size_t o = push_index(c, i);
    float *p = NULL, *q = NULL;
    if (!json_is_object(t)) return wrong_type(c, t, "an object");
    if (check_members(c, t, members) != 0 ||
        get_floats(c, t, "positions", true, v * 3, &p, NULL) != 0 ||
        get_floats(c, t, "normals", normals, v * 3, &q, NULL) != 0) {
      free(p);
      return -1;
    }
    if (!normals && q != NULL) {
      free(p);
      free(q);
      return fail_at(c, "normals", FMT_ERR_UNKNOWN_FIELD,
                     "every target has normals, or none");
    }
    memcpy(*tp + i * v * 3, p, v * 3 * sizeof *p);
    if (normals) memcpy(*tn + i * v * 3, q, v * 3 * sizeof *q);
    free(p);
    free(q);
    pop(c, o);
  }
  pop(c, old);
  *nt = n;
  return get_floats(c, obj, "target_weights", false, n, tw, NULL);
}

static int decode_mesh(ctx_t *c, json_t *obj) {
  static const char *const members[] = {
      "name",      "skeleton", "influences", "positions",      "normals",
      "joints",    "weights",  "indices",    "vertices",       "id",
      "texcoords", "material", "targets",    "target_weights", NULL};
  if (!json_is_object(obj)) return wrong_type(c, obj, "an object");
  if (check_members(c, obj, members) != 0) return -1;
  const char *name;
  if (get_string(c, obj, "name", false, &name) != 0) return -1;
  int64_t k = 4;
  json_t *inf = json_object_get(obj, "influences");
  if (inf != NULL) {
    size_t old = push_key(c, "influences");
    if (read_int(c, inf, 1, 8, FMT_ERR_INFLUENCES, &k) != 0) return -1;
    pop(c, old);
  }
  const anim_skeleton_t *s;
  uint32_t skel_index;
  if (bind_skeleton(c, obj, &s, &skel_index) != 0) return -1;

  float *pos = NULL, *nrm = NULL, *uv = NULL, *w = NULL;
  float *tp = NULL, *tn = NULL, *tw = NULL;
  size_t nt = 0;
  uint32_t *joints = NULL, *indices = NULL;
  unsigned char *image = NULL;
  anim_mesh_material_t material = {0};
  size_t npos, count, nidx = 0;
  int rc = -1;
  if (get_floats(c, obj, "positions", true, SIZE_MAX, &pos, &npos) != 0)
    goto done;
  if (npos == 0 || npos % 3 != 0) {
    fail_at(c, "positions", FMT_ERR_VALUE_COUNT,
            "3 numbers per vertex, at least one vertex");
    goto done;
  }
  size_t v = npos / 3;
  size_t max_v =
      c->opts->max_vertices ? c->opts->max_vertices : DEFAULT_MAX_VERTICES;
  if (v > max_v) {
    size_t old = push_key(c, "positions");
    fail(c, FMT_ERR_TOO_MANY_VERTICES, "%zu vertices; at most %zu", v, max_v);
    pop(c, old);
    goto done;
  }
  json_t *vert = json_object_get(obj, "vertices");
  if (vert != NULL) {
    int64_t vv;
    size_t old = push_key(c, "vertices");
    if (read_int(c, vert, (int64_t)v, (int64_t)v, FMT_ERR_VALUE_COUNT, &vv) !=
        0)
      goto done;
    pop(c, old);
  }
  if (get_floats(c, obj, "normals", false, npos, &nrm, NULL) != 0 ||
      get_floats(c, obj, "texcoords", false, v * 2, &uv, NULL) != 0 ||
      decode_material(c, obj, &material, &image) != 0 ||
      decode_targets(c, obj, v, &nt, &tp, &tn, &tw) != 0)
    goto done;
  if (get_uints(c, obj, "joints", true, v * (size_t)k, s->joint_count,
                FMT_ERR_JOINT_RANGE, &joints, &count) != 0)
    goto done;
  if (get_floats(c, obj, "weights", true, v * (size_t)k, &w, NULL) != 0)
    goto done;
  size_t old = push_key(c, "weights");
  for (size_t i = 0; i < v; i++) {
    float sum = 0;
    for (size_t j = 0; j < (size_t)k; j++) {
      float x = w[i * (size_t)k + j];
      if (x < 0) {
        push_index(c, i * (size_t)k + j);
        fail(c, FMT_ERR_WEIGHT, "a negative weight");
        goto done;
      }
      sum += x;
    }
    if (!(sum > 0) || !isfinite(sum)) {
      push_index(c, i * (size_t)k);
      fail(c, FMT_ERR_WEIGHT, "the weights of vertex %zu sum to %g", i,
           (double)sum);
      goto done;
    }
  }
  pop(c, old);
  if (v > UINT32_MAX) {
    fail_at(c, "positions", FMT_ERR_TOO_MANY_VERTICES, "too many vertices");
    goto done;
  }
  if (get_uints(c, obj, "indices", false, SIZE_MAX, (uint32_t)v,
                FMT_ERR_INDEX_RANGE, &indices, &nidx) != 0)
    goto done;
  if (nidx % 3 != 0) {
    fail_at(c, "indices", FMT_ERR_VALUE_COUNT, "3 indices per triangle");
    goto done;
  }
  if (nrm == NULL) {
    /* Normals for every mesh (normals=1 always works): area-weighted,
     * a list without indices taken as consecutive triangles. */
    if (fmt__vertex_normals(pos, v, nidx ? indices : NULL,
                            nidx ? nidx : v - v % 3, &nrm) != 0) {
      oom(c);
      goto done;
    }
    if (fmt_bundle_warn(c->out,
                        "%s: no normals; area-weighted vertex normals were "
                        "computed",
                        c->at[0] ? c->at : "mesh") != 0) {
      oom(c);
      goto done;
    }
  }
  anim_raw_mesh_t raw = {.name = name ? name : "",
                         .vertex_count = v,
                         .positions = pos,
                         .normals = nrm,
                         .influences = (uint32_t)k,
                         .joints = joints,
                         .weights = w,
                         .indices = nidx ? indices : NULL,
                         .index_count = nidx,
                         .texcoords = uv,
                         .material = material,
                         .target_count = (uint32_t)nt,
                         .target_positions = tp,
                         .target_normals = tn,
                         .default_weights = tw};
  anim_mesh_t *built = NULL;
  anim_build_error_t be = {0};
  if (fmt__charge(c->out, c->opts, fmt_raw_mesh_bytes(&raw), c->err, c->at))
    goto done;
  anim_result r = anim_mesh_build(&raw, s, NULL, &built, &be);
  if (r != ANIM_OK) {
    int32_t key = be.key;
    if (key >= 0 && be.component >= 0 && be.field &&
        (strcmp(be.field, "positions") == 0 ||
         strcmp(be.field, "normals") == 0))
      key = key * 3 + be.component;
    else if (key >= 0 && be.component >= 0 && be.field &&
             strcmp(be.field, "texcoords") == 0)
      key = key * 2 + be.component;
    else if (key >= 0 && be.component >= 0)
      key = key * (int32_t)k + be.component;
    build_failed(c, r, &be, NULL, -1, key);
    goto done;
  }
  fmt_bundle_t *b = c->out;
  fmt_mesh_t *grown = realloc(b->meshes, (b->mesh_count + 1) * sizeof *grown);
  if (grown == NULL) {
    anim_mesh_free(built);
    oom(c);
    goto done;
  }
  b->meshes = grown;
  b->meshes[b->mesh_count++] = (fmt_mesh_t){built, skel_index};
  rc = 0;
done:
  free(pos);
  free(nrm);
  free(uv);
  free(image);
  free(w);
  free(joints);
  free(indices);
  free(tp);
  free(tn);
  free(tw);
  return rc;
}

/* The bytes jansson would take for the tree of body: one pass counting
 * values (numbers, literals, strings, arrays, objects) and object members,
 * strings skipped with their escapes. Malformed text is left to jansson. */
static size_t tree_cost(const char *p, size_t len) {
  size_t values = 0, members = 0;
  bool in_token = false;
  for (size_t i = 0; i < len; i++) {
    char ch = p[i];
    if (ch == '"') {
      values++;
      for (i++; i < len && p[i] != '"'; i++)
        if (p[i] == '\\') i++;
      in_token = false;
      continue;
    }
    if (ch == ':') members++;
    bool token = ch == '-' || ch == '.' || ch == '+' ||
                 (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
                 (ch >= 'A' && ch <= 'Z');
    if (token && !in_token) values++;
    if (ch == '[' || ch == '{') values++;
    in_token = token;
  }
  return len + values * TREE_VALUE_BYTES + members * TREE_MEMBER_BYTES;
}

/* ---- the document -----------------------------------------------------------
 */

static int decode_list(ctx_t *c, json_t *root, const char *key,
                       int (*one)(ctx_t *, json_t *)) {
  json_t *arr;
  if (get_array(c, root, key, false, &arr) != 0) return -1;
  if (arr == NULL) return 0;
  size_t old = push_key(c, key);
  for (size_t i = 0; i < json_array_size(arr); i++) {
    size_t o = push_index(c, i);
    if (one(c, json_array_get(arr, i)) != 0) return -1;
    pop(c, o);
  }
  pop(c, old);
  return 0;
}

int fmt_decode_native_json(const void *body, size_t len,
                           const fmt_decode_options_t *opts, fmt_bundle_t *out,
                           fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  static const char *const members[] = {"skeleton", "skeletons", "clips",
                                        "meshes", NULL};
  ctx_t c = {.err = err, .opts = opts ? opts : &defaults, .out = out};
  memset(out, 0, sizeof *out);
  size_t cost = tree_cost(body, len);
  if (cost > TREE_AMPLIFICATION * len + TREE_ALLOWANCE)
    return fmt_fail(err, FMT_ERR_TOO_LARGE, "body",
                    "parsing these %zu bytes would take about %zu MiB (at "
                    "most %d times the body plus %zu MiB): split the upload",
                    len, cost >> 20, TREE_AMPLIFICATION, TREE_ALLOWANCE >> 20);
  json_error_t je;
  json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
  if (root == NULL) {
    snprintf(c.at, sizeof c.at, "line %d, column %d", je.line, je.column);
    return fmt_fail(err, FMT_ERR_BAD_JSON, c.at, "%s", je.text);
  }
  int rc = -1;
  if (!json_is_object(root)) {
    wrong_type(&c, root, "an object");
    goto done;
  }
  if (check_members(&c, root, members) != 0) goto done;
  json_t *one = json_object_get(root, "skeleton");
  json_t *many = json_object_get(root, "skeletons");
  if (one != NULL && many != NULL) {
    fail_at(&c, "skeletons", FMT_ERR_UNKNOWN_FIELD,
            "give \"skeleton\" or \"skeletons\", not both");
    goto done;
  }
  if (one != NULL) {
    size_t old = push_key(&c, "skeleton");
    if (decode_skeleton(&c, one) != 0) goto done;
    pop(&c, old);
  }
  if (decode_list(&c, root, "skeletons", decode_skeleton) != 0 ||
      decode_list(&c, root, "clips", decode_clip) != 0 ||
      decode_list(&c, root, "meshes", decode_mesh) != 0)
    goto done;
  if (out->skeleton_count + out->clip_count + out->mesh_count == 0) {
    fail(&c, FMT_ERR_EMPTY_UPLOAD,
         "the upload holds no skeleton, clip or mesh");
    goto done;
  }
  rc = 0;
done:
  json_decref(root);
  if (rc != 0) fmt_bundle_free(out);
  return rc;
}
