/* server/request: what a pose or skin request names, resolved against the
 * store: the one lookup of the API. HTTP (GET /v1/pose, GET /v1/skin and
 * every handler that names an asset), WebSocket play and pose messages and
 * `animd eval` turn names into assets here, so a name answers the same on
 * every transport: an unknown one 404 not_found at its field, one that
 * several assets share 409 ambiguous listing their ids, a clip of another
 * skeleton 400 skeleton_mismatch, an unknown joint 400 unknown_joint.
 *
 * Key design choice: resolving never answers and never waits. A miss
 * fills a srv_lookup_miss_t (what was asked, by kind and name), so the
 * transport with a shared store can fetch the asset and run the same
 * request again; without one the error is the answer. Any thread that
 * may read the store. */
#ifndef ANIMD_SERVER_REQUEST_TARGET_H
#define ANIMD_SERVER_REQUEST_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "server/errors.h"
#include "store/store.h"

/* A list of names as a request carries it: a query's comma-separated text
 * ("a,b,c") or a JSON array of strings (its members checked to be strings
 * by the message parser). Both NULL: no list. */
typedef struct srv_names_s {
  const char *csv;
  const json_t *array;
} srv_names_t;

/* True when the request carries the list. */
bool srv_names_given(const srv_names_t *n);
/* Names in the list (a csv's commas + 1). */
size_t srv_names_count(const srv_names_t *n);
/* Name i, NUL-terminated: points into the array, or is copied into buf
 * (cap bytes) from the csv; NULL when it does not fit there. */
const char *srv_names_item(const srv_names_t *n, size_t i, char *buf,
                           size_t cap);

/* Why a lookup came back empty-handed, for a transport that can fetch
 * from a shared store: the kind and name asked, within skeleton (NULL:
 * none). Filled when the error is not_found for an asset whose name fits
 * here whole; missed is false otherwise. */
typedef struct srv_lookup_miss_s {
  bool missed;
  store_kind kind;
  char name[STORE_NAME_MAX + 1];
  char skeleton[80]; /* The skeleton's id, "" for none. */
  char at[64];
} srv_lookup_miss_t;

/* The asset named name (an id, or a name; within skeleton for a clip or a
 * mesh when given), retained into *out. NULL or "": *out = NULL and 0.
 * -1 with err: not_found at `at` (miss filled when not NULL), or
 * ambiguous listing the ids that share the name. */
int srv_lookup(store_t *st, store_kind kind, const char *at, const char *name,
               const store_asset_t *skeleton, store_asset_t **out,
               srv_error_t *err, srv_lookup_miss_t *miss);

/* For "did you mean": the joint name of sk nearest to name
 * (formats/suggest.h), or NULL. */
const char *srv_joint_nearest(const anim_skeleton_t *sk, const char *name);

/* Most meshes one request may name. */
#define SRV_TARGET_MAX_MESHES 1024

/* What a pose or skin request names. A request names a skeleton, a clip
 * (which brings its skeleton), a mesh (which brings its skeleton) or a
 * list of meshes; skin answers name meshes, pose answers may name joints.
 */
typedef struct srv_target_query_s {
  const char *skeleton;
  const char *clip; /* NULL: the rest pose. */
  /* One mesh by id or name, the name as it is (commas included). */
  const char *mesh;
  /* Several meshes (within skeleton when given), or with mesh_all every
   * mesh of skeleton. */
  srv_names_t meshes;
  bool mesh_all;
  /* The joints to answer, in that order (repeats allowed); not with a
   * mesh. */
  srv_names_t joints;
  /* Refuse a mesh without normals (no_normals at "normals"). */
  bool need_normals;
} srv_target_query_t;

/* What it resolved to: retained assets and malloc'd arrays, released with
 * srv_target_release. */
typedef struct srv_target_s {
  store_asset_t *skeleton;
  store_asset_t *clip;    /* NULL: the rest pose. */
  store_asset_t **meshes; /* mesh_count (0: a pose). */
  size_t mesh_count;
  uint32_t *joints; /* Caller-order indices; NULL: all. */
  uint32_t joint_count;
} srv_target_t;

/* Resolves q in st into *out. 0, or -1 with err (and miss, when not
 * NULL, for a not_found a shared store might hold) and nothing retained.
 * Faults are reported in this order: skeleton, mesh(es), clip, the clip's
 * skeleton, normals, joints. */
int srv_target_resolve(store_t *st, const srv_target_query_t *q,
                       srv_target_t *out, srv_error_t *err,
                       srv_lookup_miss_t *miss);
void srv_target_release(srv_target_t *t);

/* The joints a list names, as caller-order indices of sk, into *out
 * (malloc'd; free it) and *count. -1 with unknown_joint at "joints[i]"
 * for a name sk does not have (an empty one included), or
 * out_of_memory. */
int srv_joints_resolve(const srv_names_t *list, const anim_skeleton_t *sk,
                       uint32_t **out, uint32_t *count, srv_error_t *err);

#endif
