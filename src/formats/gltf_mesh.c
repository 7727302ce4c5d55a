/* formats: glTF skinned meshes: one mesh per primitive of every node that
 * has a mesh and a skin, and of a node with a morphed mesh and no skin
 * (bound rigidly to the node's joint).
 *
 * POSITION, optional NORMAL, optional TEXCOORD_0 (float, or normalized
 * u8/u16 decoded as c / 255 or c / 65535, as the glTF 2.0 spec allows),
 * JOINTS_0 (u8/u16) with WEIGHTS_0 (float or normalized u8/u16) and an
 * optional second set for 8 influences; counts must agree, joint indices
 * must lie within the skin, weights must be non-negative with a positive
 * sum (the core renormalizes them); triangle list indices are kept, and
 * the material's base-color texture (gltf_material.c). A primitive without
 * NORMAL gets area-weighted vertex normals, with a warning. Names are
 * unique within a skeleton. Morph targets (POSITION and NORMAL deltas,
 * float or normalized) and the mesh's default weights are kept. */
#include <stdlib.h>

#include "formats/gltf_internal.h"

/* ---- meshes -------------------------------------------------------------- */

/* Reads attribute key of a primitive (-1 index when absent). */
static int prim_attr(gl_ctx_t *c, json_t *attrs, const char *key, int64_t *acc,
                     const char *pat) {
  return get_index(c, attrs, key, c->naccessors, false, acc,
                   atf(c, "%s.attributes.%s", pat, key));
}

/* True when accessor index is float or normalized (integer weights and
 * texture coordinates must be); false with err filled at `use`. */
static bool acc_normalized_or_float(gl_ctx_t *c, size_t index,
                                    const char *use) {
  json_t *acc = json_array_get(c->accessors, index);
  if (json_integer_value(json_object_get(acc, "componentType")) == CT_F32 ||
      json_is_true(json_object_get(acc, "normalized")))
    return true;
  fmt_fail(c->err, FMT_ERR_BAD_COMPONENT_TYPE, use,
           "%s: integer components must be normalized", use);
  return false;
}

static bool mesh_name_taken(const gl_ctx_t *c, uint32_t skel,
                            const char *name) {
  for (size_t i = 0; i < c->out->mesh_count; i++)
    if (c->out->meshes[i].skeleton == skel &&
        strcmp(c->out->meshes[i].mesh->name, name) == 0)
      return true;
  return false;
}

/* The morph targets of a primitive of nv vertices: POSITION and NORMAL
 * deltas (absent: zero), target-major, into *tp and *tn (NULL when no
 * target has NORMAL), and the mesh's default weights into *dw; *nt = 0
 * without targets. */
static int load_targets(gl_ctx_t *c, json_t *mesh, json_t *prim,
                        const char *pat, size_t nv, size_t *nt, float **tp,
                        float **tn, float **dw) {
  json_t *targets;
  *nt = 0;
  if (get_array(c, prim, "targets", &targets, nt, atf(c, "%s.targets", pat)))
    return -1;
  if (*nt == 0) return 0;
  if (*nt > ANIM_MAX_MORPH_TARGETS)
    return bad(c, FMT_ERR_BAD_VALUE, atf(c, "%s.targets", pat),
               "at most 256 morph targets");
  *tp = calloc(*nt * nv * 3, sizeof **tp);
  *dw = calloc(*nt, sizeof **dw);
  if (!*tp || !*dw) return fmt__nomem(c->err, pat);
  static const char *const keys[2] = {"POSITION", "NORMAL"};
  for (size_t i = 0; i < *nt; i++) {
    json_t *t = json_array_get(targets, i);
    if (!json_is_object(t))
      return bad(c, FMT_ERR_BAD_TYPE, atf(c, "%s.targets[%zu]", pat, i),
                 "not an object");
    for (int k = 0; k < 2; k++) {
      char at[128];
      snprintf(at, sizeof at, "%s.targets[%zu].%s", pat, i, keys[k]);
      int64_t acc;
      if (get_index(c, t, keys[k], c->naccessors, false, &acc, at)) return -1;
      if (acc < 0) continue;
      float **dst = k == 0 ? tp : tn;
      if (*dst == NULL && (*dst = calloc(*nt * nv * 3, sizeof **dst)) == NULL)
        return fmt__nomem(c->err, pat);
      float *d = NULL;
      size_t n = 0;
      if (fmt__gl_acc_floats(c, (size_t)acc, at, 3, TM_FLOAT | TM_NORM, &d, &n))
        return -1;
      if (n != nv) {
        free(d);
        return fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH, at,
                        "%s: %zu deltas for %zu positions", at, n, nv);
      }
      memcpy(*dst + i * nv * 3, d, nv * 3 * sizeof *d);
      free(d);
    }
  }
  return get_floats(c, mesh, "weights", *dw, *nt,
                    atf(c, "%s.weights", pat) /* the mesh's */);
}

/* rigid >= 0: a mesh without a skin, every vertex bound to that joint
 * (caller order) with weight 1. */
static int load_primitive(gl_ctx_t *c, size_t node, size_t skin, size_t m,
                          json_t *mesh, size_t p, size_t nprims,
                          int64_t rigid) {
  char pat[64];
  snprintf(pat, sizeof pat, "meshes[%zu].primitives[%zu]", m, p);
  json_t *prim = json_array_get(json_object_get(mesh, "primitives"), p);
  if (!json_is_object(prim))
    return bad(c, FMT_ERR_BAD_TYPE, pat, "not an object");
  json_t *attrs = json_object_get(prim, "attributes");
  if (!json_is_object(attrs))
    return bad(c, FMT_ERR_MISSING, atf(c, "%s.attributes", pat), "is required");
  int64_t apos, anrm, auv, aj[2], aw[2], aind;
  if (prim_attr(c, attrs, "POSITION", &apos, pat) ||
      prim_attr(c, attrs, "NORMAL", &anrm, pat) ||
      prim_attr(c, attrs, "TEXCOORD_0", &auv, pat) ||
      prim_attr(c, attrs, "JOINTS_0", &aj[0], pat) ||
      prim_attr(c, attrs, "WEIGHTS_0", &aw[0], pat) ||
      prim_attr(c, attrs, "JOINTS_1", &aj[1], pat) ||
      prim_attr(c, attrs, "WEIGHTS_1", &aw[1], pat) ||
      get_index(c, prim, "indices", c->naccessors, false, &aind,
                atf(c, "%s.indices", pat)))
    return -1;
  if (apos < 0)
    return bad(c, FMT_ERR_MISSING, atf(c, "%s.attributes.POSITION", pat),
               "is required");
  if (rigid < 0 && (aj[0] < 0 || aw[0] < 0)) {
    return fmt_bundle_warn(c->out,
                           "%s: no JOINTS_0/WEIGHTS_0 on a skinned "
                           "node; left out",
                           pat)
               ? fmt__nomem(c->err, pat)
               : 0;
  }
  int sets = rigid >= 0 ? 0 : (aj[1] >= 0 && aw[1] >= 0) ? 2 : 1;
  float *pos = NULL, *nrm = NULL, *uv = NULL, *w[2] = {NULL, NULL}, *wt = NULL;
  float *tp = NULL, *tn = NULL, *dw = NULL;
  size_t nt = 0;
  gl_material_t mat;
  memset(&mat, 0, sizeof mat);
  uint32_t *jn[2] = {NULL, NULL}, *jt = NULL, *idx = NULL;
  size_t nv, n2, nidx = 0;
  int rc = -1;
  size_t skel_joints = c->skels[skin].skin_joints;
  if (fmt__gl_acc_floats(c, (size_t)apos, atf(c, "%s.attributes.POSITION", pat),
                         3, TM_ANY, &pos, &nv))
    goto done;
  c->total_vertices += nv;
  if (c->total_vertices > fmt__max_vertices(c->opts)) {
    fmt_fail(c->err, FMT_ERR_TOO_MANY_VERTICES, pat,
             "%s: the upload holds more than %zu vertices", pat,
             fmt__max_vertices(c->opts));
    goto done;
  }
  if (anrm >= 0) {
    if (fmt__gl_acc_floats(c, (size_t)anrm, atf(c, "%s.attributes.NORMAL", pat),
                           3, TM_FLOAT | TM_NORM, &nrm, &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH,
               atf(c, "%s.attributes.NORMAL", pat),
               "%s: %zu normals for %zu positions", c->at, n2, nv);
      goto done;
    }
  }
  if (auv >= 0) {
    char uat[96];
    snprintf(uat, sizeof uat, "%s.attributes.TEXCOORD_0", pat);
    if (!acc_normalized_or_float(c, (size_t)auv, uat) ||
        fmt__gl_acc_floats(c, (size_t)auv, uat, 2,
                           TM_FLOAT | (1u << (CT_U8 - CT_I8)) |
                               (1u << (CT_U16 - CT_I8)),
                           &uv, &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH, uat,
               "%s: %zu entries for %zu positions", uat, n2, nv);
      goto done;
    }
  }
  if (fmt__gl_material(c, prim, pat, &mat) ||
      load_targets(c, mesh, prim, pat, nv, &nt, &tp, &tn, &dw))
    goto done;
  for (int s = 0; s < sets; s++) {
    char jat[96], wat[96];
    snprintf(jat, sizeof jat, "%s.attributes.JOINTS_%d", pat, s);
    snprintf(wat, sizeof wat, "%s.attributes.WEIGHTS_%d", pat, s);
    if (fmt__gl_acc_uints(c, (size_t)aj[s], jat, 4,
                          (1u << (CT_U8 - CT_I8)) | (1u << (CT_U16 - CT_I8)),
                          &jn[s], &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH, jat,
               "%s: %zu entries for %zu positions", jat, n2, nv);
      goto done;
    }
    if (!acc_normalized_or_float(c, (size_t)aw[s], wat) ||
        fmt__gl_acc_floats(c, (size_t)aw[s], wat, 4,
                           TM_FLOAT | (1u << (CT_U8 - CT_I8)) |
                               (1u << (CT_U16 - CT_I8)),
                           &w[s], &n2))
      goto done;
    if (n2 != nv) {
      fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH, wat,
               "%s: %zu entries for %zu positions", wat, n2, nv);
      goto done;
    }
  }
  size_t inf = rigid >= 0 ? 1 : 4 * (size_t)sets;
  jt = malloc(nv * inf * sizeof *jt);
  wt = malloc(nv * inf * sizeof *wt);
  if (!jt || !wt) {
    fmt__nomem(c->err, pat);
    goto done;
  }
  for (size_t v = 0; rigid >= 0 && v < nv; v++) {
    jt[v] = (uint32_t)rigid;
    wt[v] = 1.0f;
  }
  for (size_t v = 0; rigid < 0 && v < nv; v++) {
    float sum = 0;
    for (size_t k = 0; k < inf; k++) {
      uint32_t j = jn[k / 4][v * 4 + k % 4];
      float wk = w[k / 4][v * 4 + k % 4];
      if (wk < 0) {
        fmt_fail(c->err, FMT_ERR_BAD_WEIGHT,
                 atf(c, "%s.attributes.WEIGHTS_%zu", pat, k / 4),
                 "%s: vertex %zu has a negative weight", c->at, v);
        goto done;
      }
      if (j >= skel_joints) {
        if (wk == 0)
          j = 0; /* Unused slot: any valid joint. */
        else {
          fmt_fail(c->err, FMT_ERR_JOINT_RANGE,
                   atf(c, "%s.attributes.JOINTS_%zu", pat, k / 4),
                   "%s: vertex %zu names joint %u of a %zu-joint skin", c->at,
                   v, j, skel_joints);
          goto done;
        }
      }
      jt[v * inf + k] = j;
      wt[v * inf + k] = wk;
      sum += wk;
    }
    if (!(sum > 0)) {
      fmt_fail(c->err, FMT_ERR_BAD_WEIGHT,
               atf(c, "%s.attributes.WEIGHTS_0", pat),
               "%s: the weights of vertex %zu sum to zero", c->at, v);
      goto done;
    }
  }
  json_t *mode = json_object_get(prim, "mode");
  int64_t md =
      mode ? (json_is_integer(mode) ? json_integer_value(mode) : -1) : 4;
  if (md < 0 || md > 6) {
    bad(c, FMT_ERR_BAD_VALUE, atf(c, "%s.mode", pat), "must be within 0..6");
    goto done;
  }
  if (aind >= 0 && md == 4) {
    if (fmt__gl_acc_uints(c, (size_t)aind, atf(c, "%s.indices", pat), 1,
                          TM_UINT, &idx, &nidx))
      goto done;
    if (nidx % 3 != 0) {
      fmt_fail(c->err, FMT_ERR_COUNT_MISMATCH, atf(c, "%s.indices", pat),
               "%s: %zu indices do not make whole triangles", c->at, nidx);
      goto done;
    }
    for (size_t i = 0; i < nidx; i++)
      if (idx[i] >= nv) {
        fmt_fail(c->err, FMT_ERR_INDEX_RANGE, atf(c, "%s.indices", pat),
                 "%s: index %zu is %u, beyond %zu vertices", c->at, i, idx[i],
                 nv);
        goto done;
      }
  } else if (md != 4 && fmt_bundle_warn(c->out,
                                        "%s: mode %lld is not a triangle list; "
                                        "its indices were left out",
                                        pat, (long long)md)) {
    fmt__nomem(c->err, pat);
    goto done;
  }
  /* A name unique within the skeleton. */
  json_t *nd = json_array_get(c->nodes, node);
  const char *base = json_string_value(json_object_get(mesh, "name"));
  if (base == NULL || !base[0])
    base = json_string_value(json_object_get(nd, "name"));
  char name[256], dflt[32];
  snprintf(dflt, sizeof dflt, "mesh_%zu", m);
  if (base == NULL || !base[0]) base = dflt;
  /* Long names are cut between characters, never inside one. */
  if (nprims > 1)
    snprintf(name, sizeof name, "%.*s_%zu", (int)fmt__utf8_cut(base, 200), base,
             p);
  else
    snprintf(name, sizeof name, "%.*s",
             (int)fmt__utf8_cut(base, sizeof name - 1), base);
  if (mesh_name_taken(c, (uint32_t)skin, name)) {
    /* Several nodes share the mesh: the node index makes it unique. */
    char b2[256];
    snprintf(b2, sizeof b2, "%s", name);
    snprintf(name, sizeof name, "%.*s.%zu", (int)fmt__utf8_cut(b2, 200), b2,
             node);
    if (mesh_name_taken(c, (uint32_t)skin, name)) {
      fmt_fail(c->err, FMT_ERR_DUPLICATE_NAME, pat,
               "%s: mesh name %s is already used by this skin", pat, name);
      goto done;
    }
  }
  if (nrm == NULL) {
    /* Without indices a triangle list is consecutive vertex triples. */
    size_t corners = idx ? nidx : md == 4 ? nv - nv % 3 : 0;
    if (fmt__vertex_normals(pos, nv, idx, corners, &nrm) ||
        fmt_bundle_warn(c->out,
                        "%s: no NORMAL; area-weighted vertex normals were "
                        "computed",
                        pat)) {
      fmt__nomem(c->err, pat);
      goto done;
    }
  }
  anim_raw_mesh_t raw = {.name = name,
                         .vertex_count = nv,
                         .positions = pos,
                         .normals = nrm,
                         .texcoords = uv,
                         .material = mat.m,
                         .influences = (uint32_t)inf,
                         .joints = jt,
                         .weights = wt,
                         .indices = idx,
                         .index_count = nidx,
                         .target_count = (uint32_t)nt,
                         .target_positions = tp,
                         .target_normals = nrm ? tn : NULL,
                         .default_weights = dw};
  anim_mesh_t *mh = NULL;
  anim_build_error_t be;
  memset(&be, 0, sizeof be);
  if (fmt__charge(c->out, c->opts, fmt_raw_mesh_bytes(&raw), c->err, pat))
    goto done;
  anim_result r =
      anim_mesh_build(&raw, c->out->skeletons[skin], NULL, &mh, &be);
  if (r != ANIM_OK) {
    fmt__build_fail(c->err, pat, &be, r);
    goto done;
  }
  if (fmt__push_mesh(c->out, mh, (uint32_t)skin, c->err)) goto done;
  if (nt > 0) {
    gl_morph_t *g = realloc(c->morphs, (c->nmorphs + 1) * sizeof *g);
    if (g == NULL) {
      fmt__nomem(c->err, pat);
      goto done;
    }
    c->morphs = g;
    c->morphs[c->nmorphs++] = (gl_morph_t){
        (uint32_t)node, (uint32_t)(c->out->mesh_count - 1), (uint32_t)skin};
  }
  rc = 0;
done:
  free(tp);
  free(tn);
  free(dw);
  free(pos);
  free(nrm);
  free(uv);
  fmt__gl_material_free(&mat);
  for (int s = 0; s < 2; s++) {
    free(w[s]);
    free(jn[s]);
  }
  free(jt);
  free(wt);
  free(idx);
  return rc;
}

/* For a node with mesh and no skin: the node's joint (caller order) when
 * the mesh has morph targets and the node is a joint with an identity
 * inverse bind matrix (its skeleton into *skel), else -1. */
static int64_t rigid_joint(gl_ctx_t *c, size_t node, int64_t mesh,
                           int64_t *skel) {
  json_t *prims =
      json_object_get(json_array_get(c->meshes, (size_t)mesh), "primitives");
  bool targets = false;
  for (size_t p = 0; p < json_array_size(prims); p++)
    if (json_array_size(json_object_get(json_array_get(prims, p), "targets")))
      targets = true;
  if (!targets) return -1;
  anim_mat4_t id = anim_mat4_identity();
  for (size_t e = 0; e < c->nnj; e++) {
    if (c->nj[e].node != node) continue;
    const anim_skeleton_t *sk = c->out->skeletons[c->nj[e].skel];
    uint32_t j = sk->from_caller[c->nj[e].joint];
    if (memcmp(sk->inverse_bind[j].m, id.m, sizeof id.m) != 0) continue;
    *skel = c->nj[e].skel;
    return c->nj[e].joint;
  }
  return -1;
}

int fmt__gl_load_meshes(gl_ctx_t *c) {
  for (size_t n = 0; n < c->nnodes; n++) {
    json_t *nd = json_array_get(c->nodes, n);
    int64_t skin, mesh;
    if (get_index(c, nd, "skin", c->nskins, false, &skin,
                  atf(c, "nodes[%zu].skin", n)) ||
        get_index(c, nd, "mesh", c->nmeshes, false, &mesh,
                  atf(c, "nodes[%zu].mesh", n)))
      return -1;
    if (mesh < 0) continue;
    int64_t rigid = -1;
    if (skin < 0 && (rigid = rigid_joint(c, n, mesh, &skin)) < 0) continue;
    json_t *m = json_array_get(c->meshes, (size_t)mesh), *prims;
    size_t np;
    if (!json_is_object(m))
      return bad(c, FMT_ERR_BAD_TYPE, atf(c, "meshes[%lld]", (long long)mesh),
                 "not an object");
    if (get_array(c, m, "primitives", &prims, &np,
                  atf(c, "meshes[%lld].primitives", (long long)mesh)))
      return -1;
    for (size_t p = 0; p < np; p++) {
      if (c->out->mesh_count >= GL_MAX_MESHES)
        return fmt_fail(c->err, FMT_ERR_TOO_MANY_MESHES, "meshes",
                        "more than %d skinned primitives", GL_MAX_MESHES);
      if (load_primitive(c, n, (size_t)skin, (size_t)mesh, m, p, np, rigid))
        return -1;
    }
  }
  return 0;
}
