/* server/request: names resolved against the store (target.h). */
#include "server/request/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/suggest.h"

bool srv_names_given(const srv_names_t *n) {
  return n->csv != NULL || n->array != NULL;
}

size_t srv_names_count(const srv_names_t *n) {
  if (n->array != NULL) return json_array_size(n->array);
  if (n->csv == NULL) return 0;
  size_t count = 1;
  for (const char *c = n->csv; *c; c++) count += *c == ',';
  return count;
}

const char *srv_names_item(const srv_names_t *n, size_t i, char *buf,
                           size_t cap) {
  if (n->array != NULL) {
    const char *s = json_string_value(json_array_get(n->array, i));
    return s != NULL ? s : "";
  }
  const char *p = n->csv;
  for (size_t k = 0; k < i && p != NULL; k++) {
    p = strchr(p, ',');
    if (p != NULL) p++;
  }
  size_t len = p != NULL ? strcspn(p, ",") : 0;
  if (len >= cap) return NULL;
  if (len > 0) memcpy(buf, p, len);
  buf[len] = '\0';
  return buf;
}

int srv_lookup(store_t *st, store_kind kind, const char *at, const char *name,
               const store_asset_t *skeleton, store_asset_t **out,
               srv_error_t *err, srv_lookup_miss_t *miss) {
  *out = NULL;
  if (miss != NULL) miss->missed = false;
  if (name == NULL || *name == '\0') return 0;
  store_match_t m = {0};
  if (st != NULL) store_find_cached(st, kind, name, skeleton, &m);
  if (m.count > 1) {
    srv_error_set(err, SRV_ERR_AMBIGUOUS, at, NULL);
    store_match_describe(&m, kind, name, err->message, sizeof err->message);
    return -1;
  }
  if (m.asset == NULL) {
    /* A name too long to be kept whole is not fetched: a shorter one
     * could name another asset. */
    if (miss != NULL && strlen(name) < sizeof miss->name) {
      miss->missed = true;
      miss->kind = kind;
      snprintf(miss->name, sizeof miss->name, "%s", name);
      snprintf(miss->skeleton, sizeof miss->skeleton, "%s",
               skeleton != NULL ? skeleton->id : "");
      snprintf(miss->at, sizeof miss->at, "%s", at != NULL ? at : "");
    }
    srv_error_set(err, SRV_ERR_NOT_FOUND, at, "no %s '%.200s'%s",
                  store_kind_name(kind), name,
                  skeleton ? " on that skeleton" : "");
    char near[STORE_NAME_MAX + 1];
    store_suggest(st, kind, name, skeleton, near, sizeof near);
    return srv_error_did_you_mean(err, near);
  }
  *out = m.asset;
  return 0;
}

const char *srv_joint_nearest(const anim_skeleton_t *sk, const char *name) {
  fmt_suggest_t near;
  fmt_suggest_init(&near, name, 0);
  for (uint32_t j = 0; sk != NULL && j < sk->joint_count; j++)
    fmt_suggest_offer(&near, sk->names[j]);
  return fmt_suggest_best(&near);
}

int srv_joints_resolve(const srv_names_t *list, const anim_skeleton_t *sk,
                       uint32_t **out, uint32_t *count, srv_error_t *err) {
  *out = NULL;
  *count = 0;
  size_t n = srv_names_count(list);
  uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (idx == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    char buf[256], at[32];
    const char *name = srv_names_item(list, i, buf, sizeof buf);
    snprintf(at, sizeof at, "joints[%zu]", i);
    int32_t j = name != NULL ? anim_skeleton_find(sk, name) : -1;
    if (name == NULL) name = "(longer than 255 bytes)";
    if (j < 0) {
      srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, at,
                    "the skeleton has no joint '%.60s'", name);
      srv_error_did_you_mean(err, srv_joint_nearest(sk, name));
      free(idx);
      return -1;
    }
    idx[i] = sk->to_caller[j];
  }
  *out = idx;
  *count = (uint32_t)n;
  return 0;
}

void srv_target_release(srv_target_t *t) {
  if (t->meshes != NULL) store_list_free(t->meshes, t->mesh_count);
  store_asset_release(t->clip);
  store_asset_release(t->skeleton);
  free(t->joints);
  memset(t, 0, sizeof *t);
}

/* The meshes of a list (within t->skeleton when named) or every mesh of
 * t->skeleton into t->meshes. 0 or -1 with err. */
static int resolve_mesh_list(store_t *st, const srv_target_query_t *q,
                             srv_target_t *t, srv_error_t *err,
                             srv_lookup_miss_t *miss) {
  if (q->mesh_all || !srv_names_given(&q->meshes)) {
    if (store_children(st, t->skeleton, STORE_MESH, &t->meshes,
                       &t->mesh_count) != 0)
      return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    if (t->mesh_count > SRV_TARGET_MAX_MESHES) {
      for (size_t k = SRV_TARGET_MAX_MESHES; k < t->mesh_count; k++)
        store_asset_release(t->meshes[k]);
      t->mesh_count = SRV_TARGET_MAX_MESHES;
    }
    if (t->mesh_count == 0)
      return srv_error_set(err, SRV_ERR_NOT_FOUND, "skeleton",
                           "skeleton '%.200s' has no mesh", q->skeleton);
    return 0;
  }
  size_t n = srv_names_count(&q->meshes);
  if (n > SRV_TARGET_MAX_MESHES)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "mesh",
                         "more than %d meshes", SRV_TARGET_MAX_MESHES);
  t->meshes = calloc(n ? n : 1, sizeof *t->meshes);
  if (t->meshes == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    char buf[256], at[32];
    const char *name = srv_names_item(&q->meshes, i, buf, sizeof buf);
    /* A query's list answers at "mesh", a message's at "mesh[i]". */
    if (q->meshes.array != NULL)
      snprintf(at, sizeof at, "mesh[%zu]", i);
    else
      snprintf(at, sizeof at, "mesh");
    if (name == NULL || *name == '\0')
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, at,
                           name == NULL ? "'mesh' lists a name longer than "
                                          "255 bytes"
                                        : "'mesh' lists an empty name");
    store_asset_t *m = NULL;
    if (srv_lookup(st, STORE_MESH, at, name, t->skeleton, &m, err, miss) != 0)
      return -1;
    t->meshes[t->mesh_count++] = m;
    if (m->skeleton_asset != t->meshes[0]->skeleton_asset)
      return srv_error_set(err, SRV_ERR_SKELETON_MISMATCH, at,
                           "the meshes belong to different skeletons");
  }
  return 0;
}

int srv_target_resolve(store_t *st, const srv_target_query_t *q,
                       srv_target_t *out, srv_error_t *err,
                       srv_lookup_miss_t *miss) {
  memset(out, 0, sizeof *out);
  if (miss != NULL) miss->missed = false;
  if (srv_lookup(st, STORE_SKELETON, "skeleton", q->skeleton, NULL,
                 &out->skeleton, err, miss) != 0)
    goto fail;
  if (q->mesh_all || srv_names_given(&q->meshes)) {
    if (resolve_mesh_list(st, q, out, err, miss) != 0) goto fail;
  } else if (q->mesh != NULL) {
    out->meshes = calloc(1, sizeof *out->meshes);
    if (out->meshes == NULL) {
      srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      goto fail;
    }
    if (srv_lookup(st, STORE_MESH, "mesh", q->mesh, out->skeleton,
                   &out->meshes[0], err, miss) != 0)
      goto fail;
    out->mesh_count = 1;
  }
  if (out->mesh_count > 0 && out->skeleton == NULL) {
    out->skeleton = out->meshes[0]->skeleton_asset;
    store_asset_retain(out->skeleton);
  }
  if (srv_lookup(st, STORE_CLIP, "clip", q->clip, out->skeleton, &out->clip,
                 err, miss) != 0)
    goto fail;
  if (out->clip != NULL && out->skeleton != NULL &&
      out->clip->skeleton_asset != out->skeleton) {
    srv_error_set(err, SRV_ERR_SKELETON_MISMATCH, "clip",
                  out->mesh_count > 0
                      ? "the clip was built for another skeleton than the mesh"
                      : NULL);
    goto fail;
  }
  if (out->skeleton == NULL && out->clip != NULL) {
    out->skeleton = out->clip->skeleton_asset;
    store_asset_retain(out->skeleton);
  }
  if (out->skeleton == NULL) {
    srv_error_set(err, SRV_ERR_MISSING_PARAMETER, "skeleton",
                  "name a skeleton, a clip or a mesh");
    goto fail;
  }
  for (size_t k = 0; q->need_normals && k < out->mesh_count; k++)
    if (out->meshes[k]->mesh->normals == NULL) {
      srv_error_set(err, SRV_ERR_NO_NORMALS, "normals",
                    out->mesh_count > 1 ? "mesh '%.200s' has no normals" : NULL,
                    out->meshes[k]->name);
      goto fail;
    }
  if (srv_names_given(&q->joints)) {
    if (out->mesh_count > 0) {
      srv_error_set(err, SRV_ERR_BAD_VALUE, "joints",
                    "a mesh answer carries vertices, not joints");
      goto fail;
    }
    if (srv_joints_resolve(&q->joints, out->skeleton->skeleton, &out->joints,
                           &out->joint_count, err) != 0)
      goto fail;
  }
  return 0;

fail:
  srv_target_release(out);
  return -1;
}
