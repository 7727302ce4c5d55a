/* formats: the glTF 2.0 importer (.glb and .gltf with data: URIs).
 *
 * One pass over the document builds, in order: buffers (the GLB BIN chunk
 * or base64 data: URIs; any other URI is refused, nothing is read by
 * name), the node tree (single parents, no cycles, local TRS with matrices
 * decomposed), one skeleton per skin, one clip per (animation, skeleton it
 * touches, with the weight tracks of the morphed meshes of its nodes) and
 * one mesh per skinned or morphed primitive (meshes before clips, so a
 * "weights" channel finds the meshes its node instances). A file without skins
 * gets a single skeleton of all its nodes so node animation still imports.
 *
 * Key design choice: model space must equal glTF scene space. Non-joint
 * nodes between a joint and its nearest joint ancestor (an armature node, a
 * Z-up root matrix) are folded into that joint's rest transform and its
 * animation keys when their product is static and a similarity (rotation,
 * translation, uniform scale: the per-path folding is then exact for every
 * interpolation); otherwise (animated or non-uniformly scaled ancestors)
 * they are appended to the skeleton as extra joints after the skin's own
 * joints, with identity inverse bind matrices, so their animation is kept.
 *
 * Every count, index, offset and stride of the document is checked before
 * use, with overflow-safe arithmetic; errors name the glTF path. */
#include <stdlib.h>

#include "formats/gltf_internal.h"
#include "formats/clip_events.h"

/* ---- nodes --------------------------------------------------------------- */

static int load_nodes(gl_ctx_t *c) {
  size_t n = c->nnodes;
  c->parent = malloc((n ? n : 1) * sizeof *c->parent);
  c->local = malloc((n ? n : 1) * sizeof *c->local);
  c->animated = calloc(n ? n : 1, sizeof *c->animated);
  c->names = calloc(n ? n : 1, sizeof *c->names);
  if (!c->parent || !c->local || !c->animated || !c->names)
    return fmt__nomem(c->err, "nodes");
  for (size_t i = 0; i < n; i++) c->parent[i] = -1;
  for (size_t i = 0; i < n; i++) {
    json_t *nd = json_array_get(c->nodes, i);
    if (!json_is_object(nd))
      return bad(c, FMT_ERR_BAD_TYPE, atf(c, "nodes[%zu]", i), "not an object");
    json_t *ch;
    size_t nch;
    if (get_array(c, nd, "children", &ch, &nch,
                  atf(c, "nodes[%zu].children", i)))
      return -1;
    for (size_t k = 0; k < nch; k++) {
      json_t *e = json_array_get(ch, k);
      if (!json_is_integer(e) || json_integer_value(e) < 0 ||
          (uint64_t)json_integer_value(e) >= n)
        return bad(c, FMT_ERR_INDEX_RANGE,
                   atf(c, "nodes[%zu].children[%zu]", i, k),
                   "is not a valid node index");
      size_t cn = (size_t)json_integer_value(e);
      if (cn == i)
        return bad(c, FMT_ERR_CYCLE, atf(c, "nodes[%zu].children[%zu]", i, k),
                   "a node cannot be its own child");
      if (c->parent[cn] >= 0)
        return fmt_fail(c->err, FMT_ERR_CONFLICTING_PARENTS,
                        atf(c, "nodes[%zu].children[%zu]", i, k),
                        "%s: nodes[%zu] already has parent nodes[%d]; a node "
                        "has at most one parent (in every skin)",
                        c->at, cn, c->parent[cn]);
      c->parent[cn] = (int32_t)i;
    }
    anim_transform_t *t = &c->local[i];
    *t = anim_transform_identity();
    json_t *mat = json_object_get(nd, "matrix");
    if (mat != NULL) {
      anim_mat4_t m;
      if (get_floats(c, nd, "matrix", m.m, 16, atf(c, "nodes[%zu].matrix", i)))
        return -1;
      if (m.m[3] != 0 || m.m[7] != 0 || m.m[11] != 0 || m.m[15] != 1 ||
          anim_mat4_decompose(&m, t) != ANIM_OK)
        return bad(c, FMT_ERR_BAD_MATRIX, atf(c, "nodes[%zu].matrix", i),
                   "must be an invertible affine TRS matrix");
    } else {
      float v[4];
      v[0] = v[1] = v[2] = 0;
      if (get_floats(c, nd, "translation", v, 3,
                     atf(c, "nodes[%zu].translation", i)))
        return -1;
      t->translation = anim_vec3(v[0], v[1], v[2]);
      v[0] = v[1] = v[2] = 0, v[3] = 1;
      if (get_floats(c, nd, "rotation", v, 4, atf(c, "nodes[%zu].rotation", i)))
        return -1;
      anim_quat_t q = anim_quat(v[0], v[1], v[2], v[3]);
      if (anim_quat_length(q) < 1e-6f)
        return bad(c, FMT_ERR_ZERO_QUATERNION, atf(c, "nodes[%zu].rotation", i),
                   "is not a rotation");
      t->rotation = anim_quat_normalize(q);
      v[0] = v[1] = v[2] = 1;
      if (get_floats(c, nd, "scale", v, 3, atf(c, "nodes[%zu].scale", i)))
        return -1;
      t->scale = anim_vec3(v[0], v[1], v[2]);
    }
    json_t *nm = json_object_get(nd, "name");
    char buf[32];
    const char *name = json_is_string(nm) && json_string_value(nm)[0]
                           ? json_string_value(nm)
                           : (snprintf(buf, sizeof buf, "node_%zu", i), buf);
    c->names[i] = strdup(name);
    if (c->names[i] == NULL) return fmt__nomem(c->err, "nodes");
  }
  /* Cycles: with single parents, a cycle is a loop of parent links. Mark
   * each walk; meeting the current walk's mark again is a cycle. */
  uint32_t *mark = calloc(n ? n : 1, sizeof *mark);
  if (mark == NULL) return fmt__nomem(c->err, "nodes");
  for (size_t i = 0; i < n; i++) {
    if (mark[i]) continue;
    uint32_t id = (uint32_t)i + 1;
    for (size_t j = i;;) {
      mark[j] = id;
      int32_t p = c->parent[j];
      if (p < 0 || (mark[p] != 0 && mark[p] != id)) break;
      if (mark[p] == id) {
        free(mark);
        return bad(c, FMT_ERR_CYCLE, atf(c, "nodes[%d].children", p),
                   "the node hierarchy has a cycle");
      }
      j = (size_t)p;
    }
  }
  free(mark);
  return 0;
}

/* ---- animation pre-pass -------------------------------------------------- */

/* Validates the structure of every animation and marks animated nodes. */
static int scan_animations(gl_ctx_t *c) {
  for (size_t a = 0; a < c->nanims; a++) {
    json_t *an = json_array_get(c->anims, a), *chs, *sms;
    size_t nch, nsm;
    if (!json_is_object(an))
      return bad(c, FMT_ERR_BAD_TYPE, atf(c, "animations[%zu]", a),
                 "not an object");
    if (get_array(c, an, "channels", &chs, &nch,
                  atf(c, "animations[%zu].channels", a)) ||
        get_array(c, an, "samplers", &sms, &nsm,
                  atf(c, "animations[%zu].samplers", a)))
      return -1;
    for (size_t s = 0; s < nsm; s++) {
      json_t *sm = json_array_get(sms, s);
      int64_t in, outp;
      if (!json_is_object(sm))
        return bad(c, FMT_ERR_BAD_TYPE,
                   atf(c, "animations[%zu].samplers[%zu]", a, s),
                   "not an object");
      if (get_index(c, sm, "input", c->naccessors, true, &in,
                    atf(c, "animations[%zu].samplers[%zu].input", a, s)) ||
          get_index(c, sm, "output", c->naccessors, true, &outp,
                    atf(c, "animations[%zu].samplers[%zu].output", a, s)))
        return -1;
      json_t *ip = json_object_get(sm, "interpolation");
      if (ip != NULL && (!json_is_string(ip) ||
                         (strcmp(json_string_value(ip), "LINEAR") &&
                          strcmp(json_string_value(ip), "STEP") &&
                          strcmp(json_string_value(ip), "CUBICSPLINE"))))
        return bad(c, FMT_ERR_BAD_INTERPOLATION,
                   atf(c, "animations[%zu].samplers[%zu].interpolation", a, s),
                   "must be LINEAR, STEP or CUBICSPLINE");
    }
    for (size_t k = 0; k < nch; k++) {
      json_t *ch = json_array_get(chs, k);
      int64_t sm, node;
      if (!json_is_object(ch))
        return bad(c, FMT_ERR_BAD_TYPE,
                   atf(c, "animations[%zu].channels[%zu]", a, k),
                   "not an object");
      if (get_index(c, ch, "sampler", nsm, true, &sm,
                    atf(c, "animations[%zu].channels[%zu].sampler", a, k)))
        return -1;
      json_t *tg = json_object_get(ch, "target");
      if (!json_is_object(tg))
        return bad(c, FMT_ERR_MISSING,
                   atf(c, "animations[%zu].channels[%zu].target", a, k),
                   "is required");
      if (get_index(c, tg, "node", c->nnodes, false, &node,
                    atf(c, "animations[%zu].channels[%zu].target.node", a, k)))
        return -1;
      json_t *path = json_object_get(tg, "path");
      const char *ps = json_is_string(path) ? json_string_value(path) : "";
      if (strcmp(ps, "translation") && strcmp(ps, "rotation") &&
          strcmp(ps, "scale") && strcmp(ps, "weights"))
        return bad(c, FMT_ERR_BAD_PATH,
                   atf(c, "animations[%zu].channels[%zu].target.path", a, k),
                   "must be translation, rotation, scale or weights");
      if (node >= 0 && strcmp(ps, "weights") != 0) c->animated[node] = true;
    }
  }
  return 0;
}

static gl_path channel_path(json_t *ch) {
  const char *ps =
      json_string_value(json_object_get(json_object_get(ch, "target"), "path"));
  if (ps == NULL) return GP_NONE;
  if (!strcmp(ps, "translation")) return GP_T;
  if (!strcmp(ps, "rotation")) return GP_R;
  if (!strcmp(ps, "scale")) return GP_S;
  return GP_W;
}

/* ---- skeletons ----------------------------------------------------------- */

static int skel_append(gl_skel_t *k, size_t *cap, uint32_t node,
                       int32_t parent) {
  if (k->count == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    uint32_t *a = realloc(k->node, nc * sizeof *a);
    if (a) k->node = a;
    int32_t *b = realloc(k->parent, nc * sizeof *b);
    if (b) k->parent = b;
    gl_fold_t *f = realloc(k->fold, nc * sizeof *f);
    if (f) k->fold = f;
    if (!a || !b || !f) return -1;
    *cap = nc;
  }
  k->node[k->count] = node;
  k->parent[k->count] = parent;
  memset(&k->fold[k->count], 0, sizeof k->fold[0]);
  k->count++;
  return 0;
}

static int cmp_name_idx(const void *a, const void *b, void *names) {
  const char *const *n = names;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int r = strcmp(n[x], n[y]);
  return r ? r : (x > y) - (x < y);
}

/* Joint names: node names, made unique with ".<node index>" suffixes. */
static int unique_names(const gl_ctx_t *c, const gl_skel_t *k,
                        const char **names, char **owned) {
  uint32_t *ord = malloc(k->count * sizeof *ord);
  if (ord == NULL) return -1;
  for (size_t i = 0; i < k->count; i++) {
    names[i] = c->names[k->node[i]];
    ord[i] = (uint32_t)i;
  }
  qsort_r(ord, k->count, sizeof *ord, cmp_name_idx, (void *)names);
  for (size_t i = 1; i < k->count; i++) {
    if (strcmp(names[ord[i]], names[ord[i - 1]]) != 0) continue;
    size_t n = strlen(names[ord[i]]) + 16;
    char *s = malloc(n);
    if (s == NULL) {
      free(ord);
      return -1;
    }
    snprintf(s, n, "%s.%u", c->names[k->node[ord[i]]], k->node[ord[i]]);
    owned[ord[i]] = s;
  }
  for (size_t i = 0; i < k->count; i++)
    if (owned[i]) names[i] = owned[i];
  free(ord);
  return 0;
}

static anim_mat4_t node_matrix(const gl_ctx_t *c, uint32_t n) {
  return anim_mat4_from_transform(&c->local[n]);
}

/* Assembles skin s into c->skels[s]; chain is scratch of nnodes entries,
 * jmap an all -1 array of nnodes entries (left all -1 on return). */
static int assemble_skin(gl_ctx_t *c, size_t s, uint32_t *chain,
                         int32_t *jmap) {
  json_t *skin = json_array_get(c->skins, s), *jarr;
  gl_skel_t *k = &c->skels[s];
  size_t nj, cap = 0;
  int rc = -1;
  if (!json_is_object(skin))
    return bad(c, FMT_ERR_BAD_TYPE, atf(c, "skins[%zu]", s), "not an object");
  if (get_array(c, skin, "joints", &jarr, &nj, atf(c, "skins[%zu].joints", s)))
    return -1;
  if (nj == 0)
    return bad(c, FMT_ERR_MISSING, atf(c, "skins[%zu].joints", s),
               "must list at least one joint");
  if (nj > fmt__max_joints(c->opts))
    return fmt_fail(
        c->err, FMT_ERR_TOO_MANY_JOINTS, atf(c, "skins[%zu].joints", s),
        "%s: %zu joints, at most %zu", c->at, nj, fmt__max_joints(c->opts));
  for (size_t i = 0; i < nj; i++) {
    json_t *e = json_array_get(jarr, i);
    if (!json_is_integer(e) || json_integer_value(e) < 0 ||
        (uint64_t)json_integer_value(e) >= c->nnodes) {
      bad(c, FMT_ERR_INDEX_RANGE, atf(c, "skins[%zu].joints[%zu]", s, i),
          "is not a valid node index");
      goto done;
    }
    uint32_t node = (uint32_t)json_integer_value(e);
    if (jmap[node] >= 0) {
      fmt_fail(c->err, FMT_ERR_DUPLICATE_JOINT,
               atf(c, "skins[%zu].joints[%zu]", s, i),
               "%s: nodes[%u] is listed twice", c->at, node);
      goto done;
    }
    if (skel_append(k, &cap, node, -1)) {
      fmt__nomem(c->err, "skins");
      goto done;
    }
    jmap[node] = (int32_t)i;
  }
  k->skin_joints = nj;
  for (size_t i = 0; i < nj; i++) {
    size_t len = 0;
    int32_t p = c->parent[k->node[i]];
    bool animated = false;
    while (p >= 0 && jmap[p] < 0) {
      if (++c->walk_steps > GL_MAX_WALK_STEPS) {
        fmt_fail(c->err, FMT_ERR_TOO_COMPLEX, atf(c, "skins[%zu]", s),
                 "%s: the node tree is too deep for the skins' joints", c->at);
        goto done;
      }
      chain[len++] = (uint32_t)p;
      animated |= c->animated[p];
      p = c->parent[p];
    }
    int32_t top = p >= 0 ? jmap[p] : -1;
    if (len == 0) {
      k->parent[i] = top;
      continue;
    }
    anim_mat4_t f = anim_mat4_identity();
    for (size_t m = len; m-- > 0;) {
      anim_mat4_t l = node_matrix(c, chain[m]);
      f = anim_mat4_mul(&f, &l);
    }
    anim_transform_t ft;
    bool similar = false;
    if (!animated && anim_mat4_decompose(&f, &ft) == ANIM_OK) {
      float sx = ft.scale.x, sy = ft.scale.y, sz = ft.scale.z;
      float tol = 1e-5f * fabsf(sx);
      similar = sx > 0 && fabsf(sx - sy) <= tol && fabsf(sx - sz) <= tol;
    }
    if (similar) {
      k->parent[i] = top;
      k->fold[i].on = true;
      k->fold[i].p = ft.translation;
      k->fold[i].q = anim_quat_normalize(ft.rotation);
      k->fold[i].k = ft.scale.x;
      continue;
    }
    /* Keep the ancestors as joints of their own. */
    if (k->count + len > fmt__max_joints(c->opts)) {
      fmt_fail(c->err, FMT_ERR_TOO_MANY_JOINTS, atf(c, "skins[%zu]", s),
               "%s: the skin's joints and their ancestors exceed %zu joints",
               c->at, fmt__max_joints(c->opts));
      goto done;
    }
    for (size_t m = len; m-- > 0;) {
      int32_t idx = (int32_t)k->count;
      if (skel_append(k, &cap, chain[m], top)) {
        fmt__nomem(c->err, "skins");
        goto done;
      }
      jmap[chain[m]] = idx;
      top = idx;
    }
    k->parent[i] = top;
  }
  rc = 0;
done:
  for (size_t i = 0; i < k->count; i++) jmap[k->node[i]] = -1;
  return rc;
}

/* Builds the core skeleton for assembled skeleton k. */
static int build_skeleton(gl_ctx_t *c, size_t s, const char *name,
                          const float *ibm_in, size_t ibm_count) {
  gl_skel_t *k = &c->skels[s];
  anim_raw_joint_t *rj = calloc(k->count, sizeof *rj);
  const char **names = calloc(k->count, sizeof *names);
  char **owned = calloc(k->count, sizeof *owned);
  float *ibm = malloc(k->count * 16 * sizeof *ibm);
  int rc = -1;
  if (!rj || !names || !owned || !ibm || unique_names(c, k, names, owned)) {
    fmt__nomem(c->err, "skins");
    goto done;
  }
  for (size_t i = 0; i < k->count; i++) {
    anim_transform_t t = c->local[k->node[i]];
    const gl_fold_t *f = &k->fold[i];
    if (f->on) {
      t.translation = anim_vec3_add(
          f->p, anim_vec3_scale(anim_quat_rotate(f->q, t.translation), f->k));
      t.rotation = anim_quat_normalize(anim_quat_mul(f->q, t.rotation));
      t.scale = anim_vec3_scale(t.scale, f->k);
    }
    rj[i].name = names[i];
    rj[i].parent = k->parent[i];
    rj[i].rest = t;
    anim_mat4_t id = anim_mat4_identity();
    memcpy(ibm + 16 * i, i < ibm_count ? ibm_in + 16 * i : id.m,
           16 * sizeof(float));
  }
  anim_raw_skeleton_t raw = {
      .name = name, .joints = rj, .joint_count = k->count, .inverse_bind = ibm};
  anim_skeleton_t *sk = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (fmt__charge(c->out, c->opts, fmt_raw_skeleton_bytes(&raw), c->err,
                  c->skins != NULL ? atf(c, "skins[%zu]", s) : "nodes"))
    goto done;
  anim_result r = anim_skeleton_build(&raw, NULL, &sk, &be);
  if (r != ANIM_OK) {
    if (c->skins != NULL && be.joint >= 0 && (size_t)be.joint < k->skin_joints)
      atf(c, "skins[%zu].joints[%d]", s, be.joint);
    else if (be.joint >= 0 && (size_t)be.joint < k->count)
      atf(c, "nodes[%u]", k->node[be.joint]);
    else
      atf(c, c->skins != NULL ? "skins[%zu]" : "nodes", s);
    fmt__build_fail(c->err, c->at, &be, r);
    goto done;
  }
  if (fmt__push_skeleton(c->out, sk, c->err)) goto done;
  rc = 0;
done:
  if (owned)
    for (size_t i = 0; i < k->count; i++) free(owned[i]);
  free(owned);
  free(names);
  free(rj);
  free(ibm);
  return rc;
}

static int cmp_nj(const void *a, const void *b) {
  const gl_nj_t *x = a, *y = b;
  if (x->node != y->node) return (x->node > y->node) - (x->node < y->node);
  return (x->skel > y->skel) - (x->skel < y->skel);
}

static int load_skeletons(gl_ctx_t *c) {
  if (c->nskins == 0) {
    /* No skin: one skeleton of every node, for node animation. */
    if (c->nnodes == 0) return 0;
    if (c->nnodes > fmt__max_joints(c->opts))
      return fmt_fail(c->err, FMT_ERR_TOO_MANY_JOINTS, "nodes",
                      "nodes: %zu nodes, at most %zu joints", c->nnodes,
                      fmt__max_joints(c->opts));
    c->skels = calloc(1, sizeof *c->skels);
    if (c->skels == NULL) return fmt__nomem(c->err, "nodes");
    c->nskels = 1;
    gl_skel_t *k = &c->skels[0];
    size_t cap = 0;
    for (size_t i = 0; i < c->nnodes; i++)
      if (skel_append(k, &cap, (uint32_t)i, c->parent[i]))
        return fmt__nomem(c->err, "nodes");
    k->skin_joints = k->count;
    json_t *scenes = json_object_get(c->root, "scenes");
    const char *name =
        json_string_value(json_object_get(json_array_get(scenes, 0), "name"));
    if (build_skeleton(c, 0, name && name[0] ? name : "scene", NULL, 0))
      return -1;
  } else {
    c->skels = calloc(c->nskins, sizeof *c->skels);
    uint32_t *chain = malloc(c->nnodes * sizeof *chain);
    int32_t *jmap = malloc(c->nnodes * sizeof *jmap);
    if (!c->skels || !chain || !jmap) {
      free(chain);
      free(jmap);
      return fmt__nomem(c->err, "skins");
    }
    c->nskels = c->nskins;
    for (size_t i = 0; i < c->nnodes; i++) jmap[i] = -1;
    int rc = 0;
    for (size_t s = 0; s < c->nskins && rc == 0; s++) {
      rc = assemble_skin(c, s, chain, jmap);
      if (rc) break;
      c->total_joints += c->skels[s].count;
      if (c->total_joints > GL_MAX_TOTAL_JOINTS) {
        rc = fmt_fail(c->err, FMT_ERR_TOO_MANY_JOINTS, atf(c, "skins[%zu]", s),
                      "%s: the skeletons hold more than %zu joints", c->at,
                      GL_MAX_TOTAL_JOINTS);
        break;
      }
      json_t *skin = json_array_get(c->skins, s);
      int64_t acc;
      float *ibm = NULL;
      size_t nibm = 0;
      rc = get_index(c, skin, "inverseBindMatrices", c->naccessors, false, &acc,
                     atf(c, "skins[%zu].inverseBindMatrices", s));
      if (rc == 0 && acc >= 0) {
        rc = fmt__gl_acc_floats(c, (size_t)acc,
                                atf(c, "skins[%zu].inverseBindMatrices", s), 16,
                                TM_FLOAT, &ibm, &nibm);
        if (rc == 0 && nibm < c->skels[s].skin_joints)
          rc = fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH,
                        atf(c, "skins[%zu].inverseBindMatrices", s),
                        "%s: %zu matrices for %zu joints", c->at, nibm,
                        c->skels[s].skin_joints);
      }
      if (rc == 0) {
        const char *nm = json_string_value(json_object_get(skin, "name"));
        char dflt[32];
        snprintf(dflt, sizeof dflt, "skin_%zu", s);
        rc = build_skeleton(c, s, nm && nm[0] ? nm : dflt, ibm,
                            ibm ? c->skels[s].skin_joints : 0);
      }
      free(ibm);
    }
    free(chain);
    free(jmap);
    if (rc) return -1;
  }
  size_t total = 0;
  for (size_t s = 0; s < c->nskels; s++) total += c->skels[s].count;
  c->nj = malloc((total ? total : 1) * sizeof *c->nj);
  if (c->nj == NULL) return fmt__nomem(c->err, "skins");
  for (size_t s = 0; s < c->nskels; s++)
    for (size_t j = 0; j < c->skels[s].count; j++)
      c->nj[c->nnj++] =
          (gl_nj_t){c->skels[s].node[j], (uint32_t)s, (uint32_t)j};
  qsort(c->nj, c->nnj, sizeof *c->nj, cmp_nj);
  return 0;
}

/* First entry of c->nj for node (or c->nnj). */
static size_t nj_lower(const gl_ctx_t *c, uint32_t node) {
  size_t lo = 0, hi = c->nnj;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->nj[mid].node < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* ---- clips --------------------------------------------------------------- */

typedef struct gl_hit_s {
  uint32_t skel, joint, ch;
} gl_hit_t;

static int cmp_hit(const void *a, const void *b) {
  const gl_hit_t *x = a, *y = b;
  if (x->skel != y->skel) return (x->skel > y->skel) - (x->skel < y->skel);
  return (x->ch > y->ch) - (x->ch < y->ch);
}

/* Key times of sampler s of animation a (cached in times[s]). */
static int sampler_times(gl_ctx_t *c, size_t a, json_t *sms, size_t s,
                         float **times, size_t *tn) {
  if (times[s] != NULL) return 0;
  json_t *sm = json_array_get(sms, s);
  size_t in = (size_t)json_integer_value(json_object_get(sm, "input"));
  char at[96];
  snprintf(at, sizeof at, "animations[%zu].samplers[%zu].input", a, s);
  if (fmt__gl_acc_floats(c, in, at, 1, TM_FLOAT, &times[s], &tn[s])) return -1;
  for (size_t i = 0; i < tn[s]; i++) {
    if (times[s][i] < 0 || (i > 0 && !(times[s][i] > times[s][i - 1])))
      return fmt_fail(c->err, FMT_ERR_TIMES_ORDER, at,
                      "%s: key %zu (%g s) is negative or not after the "
                      "previous key",
                      at, i, (double)times[s][i]);
  }
  return 0;
}

static void fold_values(const gl_fold_t *f, gl_path path, bool cubic, float *v,
                        size_t nvals) {
  int comps = path == GP_R ? 4 : 3;
  for (size_t i = 0; i < nvals; i++) {
    float *e = v + i * (size_t)comps;
    bool tangent = cubic && i % 3 != 1;
    if (path == GP_T) {
      anim_vec3_t r = anim_vec3_scale(
          anim_quat_rotate(f->q, anim_vec3(e[0], e[1], e[2])), f->k);
      if (!tangent) r = anim_vec3_add(r, f->p);
      e[0] = r.x, e[1] = r.y, e[2] = r.z;
    } else if (path == GP_R) {
      anim_quat_t q = anim_quat_mul(f->q, anim_quat(e[0], e[1], e[2], e[3]));
      e[0] = q.x, e[1] = q.y, e[2] = q.z, e[3] = q.w;
    } else {
      for (int k = 0; k < 3; k++) e[k] *= f->k;
    }
  }
}

/* The weight tracks of one skeleton's clip: channel ch of each hit
 * (skel, joint = index into c->morphs). */
static int weight_tracks(gl_ctx_t *c, size_t a, json_t *an, const gl_hit_t *w,
                         size_t nw, float **times, size_t *tn,
                         anim_raw_weight_track_t *wt, float **wvals) {
  json_t *chs = json_object_get(an, "channels");
  json_t *sms = json_object_get(an, "samplers");
  for (size_t i = 0; i < nw; i++) {
    json_t *ch = json_array_get(chs, w[i].ch);
    size_t s = (size_t)json_integer_value(json_object_get(ch, "sampler"));
    json_t *sm = json_array_get(sms, s);
    const char *ip = json_string_value(json_object_get(sm, "interpolation"));
    bool cubic = ip && !strcmp(ip, "CUBICSPLINE");
    char at[96];
    if (sampler_times(c, a, sms, s, times, tn)) return -1;
    snprintf(at, sizeof at, "animations[%zu].samplers[%zu].output", a, s);
    size_t out = (size_t)json_integer_value(json_object_get(sm, "output"));
    const anim_mesh_t *mesh = c->out->meshes[c->morphs[w[i].joint].mesh].mesh;
    size_t nv, n = mesh->target_count, per = (cubic ? 3 : 1) * n;
    if (fmt__gl_acc_floats(c, out, at, 1, TM_FLOAT | TM_NORM, &wvals[i], &nv))
      return -1;
    if (nv != per * tn[s])
      return fmt_fail(c->err, FMT_ERR_VALUE_COUNT, at,
                      "%s: %zu weights for %zu key times and %zu morph "
                      "targets (%s)",
                      at, nv, tn[s], n,
                      cubic ? "CUBICSPLINE needs 3 per target per key"
                            : "1 per target per key expected");
    c->total_keys += tn[s];
    if (c->total_keys > fmt__max_keys(c->opts))
      return fmt_fail(c->err, FMT_ERR_TOO_MANY_KEYS, at,
                      "%s: the upload holds more than %zu keys", at,
                      fmt__max_keys(c->opts));
    wt[i] = (anim_raw_weight_track_t){
        .mesh = mesh->name,
        .interpolation = cubic                         ? ANIM_INTERP_CUBICSPLINE
                         : (ip && !strcmp(ip, "STEP")) ? ANIM_INTERP_STEP
                                                       : ANIM_INTERP_LINEAR,
        .target_count = (uint32_t)n,
        .times = times[s],
        .key_count = tn[s],
        .values = wvals[i],
        .value_count = nv};
  }
  return 0;
}

/* One clip of skeleton skel: joint tracks h (nh), weight tracks w (nw). */
static int build_clip(gl_ctx_t *c, size_t a, json_t *an, uint32_t skel,
                      const gl_hit_t *h, size_t nh, const gl_hit_t *w,
                      size_t nw, float **times, size_t *tn, float duration) {
  json_t *chs = json_object_get(an, "channels");
  json_t *sms = json_object_get(an, "samplers");
  anim_raw_track_t *tr = calloc(nh + 1, sizeof *tr);
  float **vals = calloc(nh + 1, sizeof *vals);
  anim_raw_weight_track_t *wt = calloc(nw + 1, sizeof *wt);
  float **wvals = calloc(nw + 1, sizeof *wvals);
  anim_event_t *events = NULL;
  size_t event_count = 0;
  int rc = -1;
  if (!tr || !vals || !wt || !wvals) {
    fmt__nomem(c->err, "animations");
    goto done;
  }
  if (weight_tracks(c, a, an, w, nw, times, tn, wt, wvals)) goto done;
  for (size_t i = 0; i < nh; i++) {
    json_t *ch = json_array_get(chs, h[i].ch);
    size_t s = (size_t)json_integer_value(json_object_get(ch, "sampler"));
    json_t *sm = json_array_get(sms, s);
    gl_path path = channel_path(ch);
    const char *ip = json_string_value(json_object_get(sm, "interpolation"));
    bool cubic = ip && !strcmp(ip, "CUBICSPLINE");
    char at[96];
    if (sampler_times(c, a, sms, s, times, tn)) goto done;
    snprintf(at, sizeof at, "animations[%zu].samplers[%zu].output", a, s);
    size_t out = (size_t)json_integer_value(json_object_get(sm, "output"));
    size_t nv;
    if (fmt__gl_acc_floats(c, out, at, path == GP_R ? 4 : 3, TM_ANY, &vals[i],
                           &nv))
      goto done;
    if (nv != (cubic ? 3 : 1) * tn[s]) {
      fmt_fail(c->err, FMT_ERR_VALUE_COUNT, at,
               "%s: %zu values for %zu key times (%s)", at, nv, tn[s],
               cubic ? "CUBICSPLINE needs 3 per key" : "1 per key expected");
      goto done;
    }
    c->total_keys += tn[s];
    if (c->total_keys > fmt__max_keys(c->opts)) {
      fmt_fail(c->err, FMT_ERR_TOO_MANY_KEYS, at,
               "%s: the upload holds more than %zu keys", at,
               fmt__max_keys(c->opts));
      goto done;
    }
    const gl_fold_t *f = &c->skels[h[i].skel].fold[h[i].joint];
    if (f->on) fold_values(f, path, cubic, vals[i], nv);
    tr[i].joint = h[i].joint;
    tr[i].path = path == GP_T   ? ANIM_PATH_TRANSLATION
                 : path == GP_R ? ANIM_PATH_ROTATION
                                : ANIM_PATH_SCALE;
    tr[i].interpolation = cubic ? ANIM_INTERP_CUBICSPLINE
                          : (ip && !strcmp(ip, "STEP")) ? ANIM_INTERP_STEP
                                                        : ANIM_INTERP_LINEAR;
    tr[i].times = times[s];
    tr[i].key_count = tn[s];
    tr[i].values = vals[i];
    tr[i].value_count = nv * (path == GP_R ? 4 : 3);
  }
  const char *nm = json_string_value(json_object_get(an, "name"));
  char dflt[32];
  snprintf(dflt, sizeof dflt, "animation_%zu", a);
  /* Events in the native shape, from the animation's extras (extras that
   * are not an object, or carry no "events", give none). */
  char events_at[64];
  snprintf(events_at, sizeof events_at, "animations[%zu].extras.events", a);
  json_t *extras = json_object_get(an, "extras");
  if (fmt__events_read(
          json_is_object(extras) ? json_object_get(extras, "events") : NULL,
          events_at, &events, &event_count, c->err))
    goto done;
  anim_raw_clip_t raw = {.name = nm && nm[0] ? nm : dflt,
                         .tracks = tr,
                         .track_count = nh,
                         .weight_tracks = wt,
                         .weight_track_count = nw,
                         .duration = duration,
                         .events = events,
                         .event_count = event_count};
  anim_clip_t *clip = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (fmt__charge(c->out, c->opts,
                  fmt_raw_clip_bytes(&raw, c->out->skeletons[skel]), c->err,
                  atf(c, "animations[%zu]", a)))
    goto done;
  anim_result r =
      anim_clip_build(&raw, c->out->skeletons[skel], NULL, &clip, &be);
  if (r != ANIM_OK) {
    if (be.field && !strcmp(be.field, "weight_tracks") && be.track >= 0 &&
        (size_t)be.track < nw)
      atf(c, "animations[%zu].channels[%u]", a, w[be.track].ch);
    else if (be.field && strcmp(be.field, "events") == 0)
      fmt__events_build_at(&be, events_at, c->at, sizeof c->at);
    else if (be.track >= 0 && (size_t)be.track < nh)
      atf(c, "animations[%zu].channels[%u]", a, h[be.track].ch);
    else
      atf(c, "animations[%zu]", a);
    fmt__build_fail(c->err, c->at, &be, r);
    goto done;
  }
  if (fmt__push_clip(c->out, clip, skel, c->err)) goto done;
  rc = 0;
done:
  if (vals)
    for (size_t i = 0; i < nh; i++) free(vals[i]);
  if (wvals)
    for (size_t i = 0; i < nw; i++) free(wvals[i]);
  free(vals);
  free(tr);
  free(wvals);
  free(wt);
  free(events);
  return rc;
}

/* Appends a hit to *hits (capacity *cap). */
static int push_hit(gl_hit_t **hits, size_t *n, size_t *cap, gl_hit_t h) {
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    gl_hit_t *g = realloc(*hits, ncap * sizeof *g);
    if (g == NULL) return -1;
    *hits = g;
    *cap = ncap;
  }
  (*hits)[(*n)++] = h;
  return 0;
}

static int load_clips(gl_ctx_t *c) {
  for (size_t a = 0; a < c->nanims; a++) {
    json_t *an = json_array_get(c->anims, a);
    json_t *chs = json_object_get(an, "channels");
    json_t *sms = json_object_get(an, "samplers");
    size_t nch = json_array_size(chs), nsm = json_array_size(sms), nh = 0,
           cap = 0, nw = 0, wcap = 0, dropped = 0;
    gl_hit_t *hits = NULL, *whits = NULL;
    float **times = calloc(nsm ? nsm : 1, sizeof *times);
    size_t *tn = calloc(nsm ? nsm : 1, sizeof *tn);
    int rc = 0;
    float duration = 0;
    if (!times || !tn) rc = fmt__nomem(c->err, "animations");
    for (size_t k = 0; k < nch && rc == 0; k++) {
      json_t *ch = json_array_get(chs, k);
      json_t *node = json_object_get(json_object_get(ch, "target"), "node");
      if (node == NULL) continue;
      size_t s = (size_t)json_integer_value(json_object_get(ch, "sampler"));
      if ((rc = sampler_times(c, a, sms, s, times, tn))) break;
      if (tn[s] > 0 && times[s][tn[s] - 1] > duration)
        duration = times[s][tn[s] - 1];
      gl_path path = channel_path(ch);
      uint32_t nd = (uint32_t)json_integer_value(node);
      bool any = false;
      if (path == GP_W) {
        for (size_t e = 0; e < c->nmorphs && rc == 0; e++) {
          if (c->morphs[e].node != nd) continue;
          if (push_hit(&whits, &nw, &wcap,
                       (gl_hit_t){c->morphs[e].skel, (uint32_t)e, (uint32_t)k}))
            rc = fmt__nomem(c->err, "animations");
          any = true;
        }
        if (!any) dropped++;
        continue;
      }
      for (size_t e = nj_lower(c, nd); e < c->nnj && c->nj[e].node == nd; e++) {
        if (push_hit(&hits, &nh, &cap,
                     (gl_hit_t){c->nj[e].skel, c->nj[e].joint, (uint32_t)k})) {
          rc = fmt__nomem(c->err, "animations");
          break;
        }
        any = true;
      }
      if (!any) dropped++;
    }
    if (rc == 0 && (nh > 0 || nw > 0)) {
      if (nh > 0) qsort(hits, nh, sizeof *hits, cmp_hit);
      if (nw > 0) qsort(whits, nw, sizeof *whits, cmp_hit);
      size_t i = 0, wi = 0;
      while (rc == 0 && (i < nh || wi < nw)) {
        uint32_t skel = i < nh && (wi >= nw || hits[i].skel <= whits[wi].skel)
                            ? hits[i].skel
                            : whits[wi].skel;
        size_t j = i, wj = wi;
        while (j < nh && hits[j].skel == skel) j++;
        while (wj < nw && whits[wj].skel == skel) wj++;
        rc = build_clip(c, a, an, skel, hits + i, j - i, whits + wi, wj - wi,
                        times, tn, duration);
        i = j;
        wi = wj;
      }
    }
    if (rc == 0 && dropped > 0 &&
        fmt_bundle_warn(c->out,
                        "animations[%zu]: %zu channels move no joint or "
                        "imported morphed mesh and were left out",
                        a, dropped))
      rc = fmt__nomem(c->err, "animations");
    for (size_t s = 0; times && s < nsm; s++) free(times[s]);
    free(times);
    free(tn);
    free(hits);
    free(whits);
    if (rc) return -1;
  }
  return 0;
}

/* ---- entry point --------------------------------------------------------- */

static int check_document(gl_ctx_t *c) {
  json_t *asset = json_object_get(c->root, "asset");
  const char *ver = json_string_value(json_object_get(asset, "version"));
  if (ver == NULL)
    return bad(c, FMT_ERR_MISSING, "asset.version", "is required");
  if (strncmp(ver, "2.", 2) != 0)
    return bad(c, FMT_ERR_UNSUPPORTED_GLTF_VERSION, "asset.version",
               "must be 2.x");
  static const char *const known[] = {
      "KHR_materials_",        "KHR_texture_transform", "KHR_texture_basisu",
      "EXT_texture_webp",      "KHR_lights_punctual",   "KHR_mesh_quantization",
      "KHR_materials_variants"};
  json_t *req;
  size_t nreq;
  if (get_array(c, c->root, "extensionsRequired", &req, &nreq,
                "extensionsRequired"))
    return -1;
  for (size_t i = 0; i < nreq; i++) {
    const char *e = json_string_value(json_array_get(req, i));
    bool ok = false;
    for (size_t k = 0; e && k < sizeof known / sizeof known[0]; k++)
      if (strncmp(e, known[k], strlen(known[k])) == 0) ok = true;
    if (!ok)
      return fmt_fail(c->err, FMT_ERR_UNSUPPORTED_EXTENSION,
                      atf(c, "extensionsRequired[%zu]", i),
                      "%s: required extension %s is not supported", c->at,
                      e ? e : "(not a string)");
  }
  if (get_array(c, c->root, "bufferViews", &c->views, &c->nviews,
                "bufferViews") ||
      get_array(c, c->root, "accessors", &c->accessors, &c->naccessors,
                "accessors") ||
      get_array(c, c->root, "nodes", &c->nodes, &c->nnodes, "nodes") ||
      get_array(c, c->root, "skins", &c->skins, &c->nskins, "skins") ||
      get_array(c, c->root, "animations", &c->anims, &c->nanims,
                "animations") ||
      get_array(c, c->root, "meshes", &c->meshes, &c->nmeshes, "meshes"))
    return -1;
  if (c->nnodes > (size_t)INT32_MAX)
    return fmt_fail(c->err, FMT_ERR_TOO_LARGE, "nodes", "too many nodes");
  return 0;
}

int fmt_decode_gltf(const void *body, size_t len, bool binary,
                    const fmt_decode_options_t *opts, fmt_bundle_t *out,
                    fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  gl_ctx_t c;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  c.opts = opts ? opts : &defaults;
  c.out = out;
  c.err = err;
  c.read_max = GL_READ_AMPLIFICATION * len + GL_READ_ALLOWANCE;
  const uint8_t *json = body;
  size_t json_len = len;
  int rc = -1;
  if (body == NULL && len > 0) {
    fmt_fail(err, FMT_ERR_EMPTY, "", "no body");
    goto done;
  }
  if (binary) {
    json = NULL;
    if (fmt__gl_parse_glb(&c, body, len, &json, &json_len)) goto done;
  }
  json_error_t jerr;
  c.root = json_loadb((const char *)json, json_len, 0, &jerr);
  if (c.root == NULL) {
    char at[48];
    snprintf(at, sizeof at, "line %d, column %d", jerr.line, jerr.column);
    fmt_fail(err, FMT_ERR_BAD_JSON, at, "%s: %s", at, jerr.text);
    goto done;
  }
  if (!json_is_object(c.root)) {
    bad(&c, FMT_ERR_BAD_JSON, "", "the document must be a JSON object");
    goto done;
  }
  if (check_document(&c) || fmt__gl_load_buffers(&c, binary) ||
      load_nodes(&c) || scan_animations(&c) || load_skeletons(&c) ||
      fmt__gl_load_meshes(&c) || load_clips(&c))
    goto done;
  if (out->skeleton_count == 0) {
    bad(&c, FMT_ERR_EMPTY, "nodes", "the file holds no node to import");
    goto done;
  }
  rc = 0;
done:
  if (rc != 0) fmt_bundle_free(out);
  for (size_t i = 0; i < c.nbufs; i++) free(c.bufs[i].owned);
  free(c.bufs);
  for (size_t i = 0; c.names && i < c.nnodes; i++) free(c.names[i]);
  free(c.names);
  free(c.parent);
  free(c.local);
  free(c.animated);
  for (size_t s = 0; s < c.nskels; s++) {
    free(c.skels[s].node);
    free(c.skels[s].parent);
    free(c.skels[s].fold);
  }
  free(c.skels);
  free(c.nj);
  free(c.morphs);
  json_decref(c.root);
  return rc;
}
