/* animd core: building skeletons from their raw form.
 *
 * The raw joints are validated in the caller's order, then stored
 * parents-first in a stable depth-first order (roots and children keep
 * their caller order), with maps both ways. Everything a skeleton points to
 * lives in one allocation, so freeing is one call and a built skeleton can
 * be shared read-only between threads. Name lookup is a binary search over
 * a name-sorted index. */
#include <math.h>
#include <string.h>

#include "animd/skeleton.h"
#include "builder.h"
#include "pose_kernels.h"

/* ---- validation ---------------------------------------------------------- */

static bool all_finite(const float *v, int n, int *bad) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      *bad = i;
      return false;
    }
  }
  return true;
}

static anim_result check_numbers(const anim_raw_joint_t *j, size_t i,
                                 anim_build_error_t *err) {
  const struct {
    const char *field;
    const float *v;
    int n;
  } parts[4] = {
      {"translation", &j->rest.translation.x, 3},
      {"rotation", &j->rest.rotation.x, 4},
      {"scale", &j->rest.scale.x, 3},
      {"orient", &j->orient.x, 4},
  };
  for (int p = 0; p < 4; p++) {
    int bad;
    if (!all_finite(parts[p].v, parts[p].n, &bad))
      return builder_component(
          err,
          builder_fail(err, ANIM_ERR_NOT_FINITE, parts[p].field, (long)i, -1,
                       -1, "joint %zu: %s[%d] is not a finite number", i,
                       parts[p].field, bad),
          bad);
  }
  anim_quat_t r = j->rest.rotation;
  if (!(pk_quat_dot(r, r) > 1e-12f))
    return builder_fail(err, ANIM_ERR_ZERO_QUATERNION, "rotation", (long)i, -1,
                        -1, "joint %zu: rotation has zero length", i);
  anim_quat_t o = j->orient;
  bool zero = o.x == 0.f && o.y == 0.f && o.z == 0.f && o.w == 0.f;
  if (!zero && !(pk_quat_dot(o, o) > 1e-12f))
    return builder_fail(err, ANIM_ERR_ZERO_QUATERNION, "orient", (long)i, -1,
                        -1, "joint %zu: orient has zero length", i);
  return ANIM_OK;
}

typedef struct name_entry_s {
  const char *name;
  uint32_t index;
} name_entry_t;

static int name_entry_cmp(const void *pa, const void *pb) {
  const name_entry_t *a = pa, *b = pb;
  int c = strcmp(a->name, b->name);
  if (c != 0) return c;
  return (a->index > b->index) - (a->index < b->index);
}

/* Finds the first cycle when walking up from each joint in caller order;
 * returns the smallest caller index on it, or -1. mark is n entries of
 * scratch. Linear time: every joint is walked once. */
static long find_cycle(const anim_raw_joint_t *joints, size_t n,
                       uint32_t *mark) {
  /* mark: 0 unknown, UINT32_MAX done, else (start index + 1). */
  for (size_t i = 0; i < n; i++) mark[i] = 0;
  for (size_t i = 0; i < n; i++) {
    if (mark[i] != 0) continue;
    uint32_t stamp = (uint32_t)i + 1;
    size_t j = i;
    for (;;) {
      if (mark[j] == UINT32_MAX) break;
      if (mark[j] == stamp) {
        /* j is on a cycle: report its smallest index. */
        size_t best = j, k = (size_t)joints[j].parent;
        while (k != j) {
          if (k < best) best = k;
          k = (size_t)joints[k].parent;
        }
        return (long)best;
      }
      mark[j] = stamp;
      if (joints[j].parent < 0) break;
      j = (size_t)joints[j].parent;
    }
    /* No cycle on this path: everything stamped is done. */
    j = i;
    while (mark[j] == stamp) {
      mark[j] = UINT32_MAX;
      if (joints[j].parent < 0) break;
      j = (size_t)joints[j].parent;
    }
  }
  return -1;
}

static anim_result validate(const anim_raw_skeleton_t *raw,
                            name_entry_t *by_name, uint32_t *scratch,
                            anim_build_error_t *err) {
  size_t n = raw->joint_count;
  for (size_t i = 0; i < n; i++) {
    const anim_raw_joint_t *j = &raw->joints[i];
    if (j->name == NULL || j->name[0] == '\0')
      return builder_fail(err, ANIM_ERR_NAME_EMPTY, "name", (long)i, -1, -1,
                          "joint %zu has no name", i);
    if (j->parent < -1 || j->parent >= (int64_t)n)
      return builder_fail(err, ANIM_ERR_PARENT_RANGE, "parent", (long)i, -1, -1,
                          "joint %zu: parent %ld is not in [-1, %zu)", i,
                          (long)j->parent, n);
    if (j->parent == (int32_t)i)
      return builder_fail(err, ANIM_ERR_CYCLE, "parent", (long)i, -1, -1,
                          "joint %zu is its own parent", i);
    anim_result r = check_numbers(j, i, err);
    if (r != ANIM_OK) return r;
    by_name[i].name = j->name;
    by_name[i].index = (uint32_t)i;
  }
  if (raw->inverse_bind != NULL) {
    for (size_t i = 0; i < n; i++) {
      int bad;
      if (!all_finite(raw->inverse_bind + 16 * i, 16, &bad))
        return builder_component(
            err,
            builder_fail(err, ANIM_ERR_NOT_FINITE, "inverse_bind", (long)i, -1,
                         -1,
                         "joint %zu: inverse bind matrix element %d is not "
                         "a finite number",
                         i, bad),
            bad);
    }
  }
  qsort(by_name, n, sizeof *by_name, name_entry_cmp);
  long dup = -1;
  for (size_t i = 1; i < n; i++) {
    if (strcmp(by_name[i - 1].name, by_name[i].name) == 0 &&
        (dup < 0 || by_name[i].index < (uint32_t)dup))
      dup = (long)by_name[i].index;
  }
  if (dup >= 0)
    return builder_fail(err, ANIM_ERR_NAME_DUPLICATE, "name", dup, -1, -1,
                        "joint %ld: name \"%s\" is already used", dup,
                        raw->joints[dup].name);
  long cyc = find_cycle(raw->joints, n, scratch);
  if (cyc >= 0)
    return builder_fail(err, ANIM_ERR_CYCLE, "parent", cyc, -1, -1,
                        "joint %ld: its parents form a cycle", cyc);
  return ANIM_OK;
}

/* ---- ordering ------------------------------------------------------------ */

/* Fills order[storage] = caller index, parents first, depth-first, roots
 * and siblings in caller order. scratch holds 3 * n + 1 entries. */
static void depth_first_order(const anim_raw_joint_t *joints, size_t n,
                              uint32_t *order, uint32_t *scratch) {
  uint32_t *first = scratch;         /* n + 1 child offsets */
  uint32_t *child = scratch + n + 1; /* n children, grouped by parent */
  uint32_t *stack = child + n;       /* at most n entries */
  for (size_t i = 0; i <= n; i++) first[i] = 0;
  for (size_t i = 0; i < n; i++)
    if (joints[i].parent >= 0) first[joints[i].parent + 1]++;
  for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
  /* Fill using first[p] as a moving cursor, then shift back. */
  for (size_t i = 0; i < n; i++)
    if (joints[i].parent >= 0) child[first[joints[i].parent]++] = (uint32_t)i;
  for (size_t i = n; i > 0; i--) first[i] = first[i - 1];
  first[0] = 0;

  size_t top = 0, out = 0;
  for (size_t i = n; i > 0; i--)
    if (joints[i - 1].parent < 0) stack[top++] = (uint32_t)(i - 1);
  while (top > 0) {
    uint32_t j = stack[--top];
    order[out++] = j;
    for (uint32_t c = first[j + 1]; c > first[j]; c--)
      stack[top++] = child[c - 1];
  }
}

/* ---- build --------------------------------------------------------------- */

anim_result anim_skeleton_build(const anim_raw_skeleton_t *raw,
                                const anim_allocator_t *alloc_in,
                                anim_skeleton_t **out,
                                anim_build_error_t *err) {
  builder_error_clear(err);
  if (out != NULL) *out = NULL;
  if (raw == NULL || out == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "joints", -1, -1, -1,
                        "no skeleton given");
  size_t n = raw->joint_count;
  if (n > ANIM_MAX_JOINTS)
    return builder_fail(err, ANIM_ERR_TOO_MANY_JOINTS, "joints", -1, -1, -1,
                        "%zu joints; at most %d are allowed", n,
                        ANIM_MAX_JOINTS);
  if (n == 0 || raw->joints == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "joints", -1, -1, -1,
                        "a skeleton needs at least one joint");

  anim_allocator_t alloc;
  if (!builder_allocator(alloc_in, &alloc))
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "allocator", -1, -1, -1,
                        BUILDER_ALLOCATOR_MESSAGE);
  anim_result res = ANIM_OK;
  anim_skeleton_t *s = NULL;
  name_entry_t *by_name =
      builder_alloc(&alloc, n * sizeof *by_name + (3 * n + 1) * 4);
  if (by_name == NULL)
    return builder_fail(err, ANIM_ERR_OUT_OF_MEMORY, "joints", -1, -1, -1,
                        "out of memory");
  uint32_t *scratch = (uint32_t *)(by_name + n);
  res = validate(raw, by_name, scratch, err);
  if (res != ANIM_OK) goto fail;

  /* One block: header, matrices, transforms, quaternions, pointers, maps,
   * parents, then the strings. */
  size_t name_bytes = 1 + (raw->name != NULL ? strlen(raw->name) : 0);
  for (size_t i = 0; i < n; i++) name_bytes += strlen(raw->joints[i].name) + 1;
  size_t off_ib = builder_align(sizeof *s);
  size_t off_rest = builder_align(off_ib + n * sizeof(anim_mat4_t));
  size_t off_orient = builder_align(off_rest + n * sizeof(anim_transform_t));
  size_t off_names = builder_align(off_orient + n * sizeof(anim_quat_t));
  size_t off_maps = builder_align(off_names + n * sizeof(char *));
  size_t off_parents = builder_align(off_maps + 3 * n * sizeof(uint32_t));
  size_t off_str = builder_align(off_parents + n * sizeof(int16_t));
  char *block = builder_alloc(&alloc, off_str + name_bytes);
  if (block == NULL) {
    res = builder_fail(err, ANIM_ERR_OUT_OF_MEMORY, "joints", -1, -1, -1,
                       "out of memory");
    goto fail;
  }
  s = (anim_skeleton_t *)block;
  memset(s, 0, sizeof *s);
  s->_alloc = alloc;
  s->joint_count = (uint32_t)n;
  s->inverse_bind = (anim_mat4_t *)(block + off_ib);
  s->rest = (anim_transform_t *)(block + off_rest);
  s->orient = (anim_quat_t *)(block + off_orient);
  s->names = (char **)(block + off_names);
  s->to_caller = (uint32_t *)(block + off_maps);
  s->from_caller = s->to_caller + n;
  s->_by_name = s->from_caller + n;
  s->parents = (int16_t *)(block + off_parents);
  char *str = block + off_str;

  depth_first_order(raw->joints, n, s->to_caller, scratch);
  for (size_t k = 0; k < n; k++) s->from_caller[s->to_caller[k]] = (uint32_t)k;
  for (size_t k = 0; k < n; k++) {
    const anim_raw_joint_t *j = &raw->joints[s->to_caller[k]];
    s->parents[k] =
        (int16_t)(j->parent < 0 ? -1 : (int32_t)s->from_caller[j->parent]);
    size_t len = strlen(j->name) + 1;
    memcpy(str, j->name, len);
    s->names[k] = str;
    str += len;
    s->rest[k] = j->rest;
    s->rest[k].rotation = builder_unit_quat(j->rest.rotation);
    anim_quat_t o = j->orient;
    if (o.x == 0.f && o.y == 0.f && o.z == 0.f && o.w == 0.f) o.w = 1.f;
    s->orient[k] = builder_unit_quat(o);
    if (s->orient[k].x != 0.f || s->orient[k].y != 0.f || s->orient[k].z != 0.f)
      s->has_orient = true;
  }
  s->name = str;
  if (raw->name != NULL)
    memcpy(str, raw->name, strlen(raw->name) + 1);
  else
    str[0] = '\0';
  for (size_t i = 0; i < n; i++)
    s->_by_name[i] = s->from_caller[by_name[i].index];

  if (raw->inverse_bind != NULL) {
    for (size_t i = 0; i < n; i++)
      memcpy(s->inverse_bind[s->from_caller[i]].m, raw->inverse_bind + 16 * i,
             sizeof(anim_mat4_t));
  } else {
    /* Rest model matrices go into inverse_bind first (parents come first,
     * so each parent is final when its children read it), then each is
     * inverted in place. */
    for (size_t k = 0; k < n; k++) {
      anim_mat4_t local;
      anim_quat_t r = anim_quat_mul_inl(s->orient[k], s->rest[k].rotation);
      anim_mat4_from_trs_inl(&local, s->rest[k].translation, r,
                             s->rest[k].scale);
      if (s->parents[k] < 0)
        s->inverse_bind[k] = local;
      else
        anim_mat4_mul_inl(&s->inverse_bind[k], &s->inverse_bind[s->parents[k]],
                          &local);
    }
    for (size_t k = n; k > 0; k--) {
      anim_mat4_t inv;
      if (anim_mat4_inverse(&s->inverse_bind[k - 1], &inv) != ANIM_OK) {
        long c = (long)s->to_caller[k - 1];
        res = builder_fail(err, ANIM_ERR_SINGULAR, "scale", c, -1, -1,
                           "joint %ld: its rest model matrix cannot be "
                           "inverted",
                           c);
        goto fail;
      }
      s->inverse_bind[k - 1] = inv;
    }
  }
  builder_free(&alloc, by_name);
  *out = s;
  return ANIM_OK;

fail:
  builder_free(&alloc, s);
  builder_free(&alloc, by_name);
  return res;
}

void anim_skeleton_free(anim_skeleton_t *skeleton) {
  if (skeleton == NULL) return;
  anim_allocator_t a = skeleton->_alloc;
  builder_free(&a, skeleton);
}

int32_t anim_skeleton_find(const anim_skeleton_t *skeleton, const char *name) {
  if (skeleton == NULL || name == NULL) return -1;
  size_t lo = 0, hi = skeleton->joint_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t k = skeleton->_by_name[mid];
    int c = strcmp(skeleton->names[k], name);
    if (c == 0) return (int32_t)k;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}
