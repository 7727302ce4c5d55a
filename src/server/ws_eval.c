/* server: evaluation of stream frames, shared between subscribers.
 *
 * Key design choice: a fixed array of entries with round-robin
 * replacement (skipping entries a pool job is writing) and a linear key
 * scan. Streams on the same clip and time
 * grid ask for the same few keys within a frame period, so a few dozen
 * entries catch them all, and a scan of those is cheaper than hashing. */
#include "server/ws_eval.h"

#include <stdlib.h>
#include <string.h>

#include <uv.h>

/* Memory of the core jobs, grown on demand: one on the loop thread, one
 * per job in the pool. */
typedef struct scratch_s {
  anim_vec3_t *translation;
  anim_quat_t *rotation;
  anim_vec3_t *scale;
  anim_mat4_t *model;
  anim_mat4_t *skin;
  float *full;
  float *dqs;
  size_t joints_cap;
  size_t full_cap;
} scratch_t;

typedef struct entry_s {
  srv_ws_eval_key_t key; /* mask points to mask_copy. */
  uint32_t *mask_copy;
  float *floats;
  size_t cap;            /* Floats allocated. */
  srv_ws_frame_data_t data;
  bool used;             /* key is set (and its assets retained). */
  bool pending;          /* A pool job is writing floats: hands off. */
} entry_t;

typedef struct eval_job_s {
  srv_job_t job; /* First: the pool hands this pointer back. */
  srv_ws_eval_t *e;
  entry_t *en;
  scratch_t scratch;
  int result;
} eval_job_t;

struct srv_ws_eval_s {
  entry_t *entries;
  unsigned count;
  unsigned next; /* Round-robin victim. */
  scratch_t scratch;
  srv_pool_t *pool;
  srv_pool_inbox_t *inbox; /* NULL: jobs come back on the pool's loop. */
  unsigned pending; /* Jobs in flight. */
  bool freeing;     /* Free once the last job is back. */
  srv_ws_eval_stats_t stats;
};

srv_ws_eval_t *srv_ws_eval_new(unsigned entries, srv_pool_t *pool,
                               srv_pool_inbox_t *inbox) {
  srv_ws_eval_t *e = calloc(1, sizeof *e);
  if (e == NULL) return NULL;
  e->entries = calloc(entries, sizeof *e->entries);
  if (e->entries == NULL) {
    free(e);
    return NULL;
  }
  e->count = entries;
  e->pool = pool;
  e->inbox = inbox;
  return e;
}

static void entry_drop(entry_t *en) {
  if (!en->used) return;
  store_asset_release(en->key.skeleton);
  store_asset_release(en->key.clip);
  store_asset_release(en->key.mesh);
  en->used = false;
}

void srv_ws_eval_clear(srv_ws_eval_t *e) {
  for (unsigned i = 0; i < e->count; i++)
    if (!e->entries[i].pending) entry_drop(&e->entries[i]);
}

static void scratch_free(scratch_t *sc) {
  free(sc->translation);
  free(sc->rotation);
  free(sc->scale);
  free(sc->model);
  free(sc->skin);
  free(sc->full);
  free(sc->dqs);
  memset(sc, 0, sizeof *sc);
}

static void eval_destroy(srv_ws_eval_t *e) {
  srv_ws_eval_clear(e);
  for (unsigned i = 0; i < e->count; i++) {
    free(e->entries[i].floats);
    free(e->entries[i].mask_copy);
  }
  free(e->entries);
  scratch_free(&e->scratch);
  free(e);
}

void srv_ws_eval_free(srv_ws_eval_t *e) {
  if (e == NULL) return;
  e->freeing = true;
  if (e->pending == 0) eval_destroy(e);
}

void srv_ws_eval_stats(const srv_ws_eval_t *e, srv_ws_eval_stats_t *out) {
  *out = e->stats;
}

static bool key_eq(const srv_ws_eval_key_t *a, const srv_ws_eval_key_t *b) {
  if (a->skeleton != b->skeleton || a->clip != b->clip ||
      a->mesh != b->mesh || memcmp(&a->t, &b->t, sizeof a->t) != 0 ||
      a->wrap != b->wrap || a->space != b->space ||
      a->normals != b->normals || a->method != b->method ||
      a->mask_count != b->mask_count)
    return false;
  if (a->mask_count == 0) return (a->mask == NULL) == (b->mask == NULL);
  return memcmp(a->mask, b->mask, a->mask_count * sizeof *a->mask) == 0;
}

static int grow(void **p, size_t *cap_unused, size_t bytes) {
  (void)cap_unused;
  void *q = realloc(*p, bytes);
  if (q == NULL) return UV_ENOMEM;
  *p = q;
  return 0;
}

static int reserve_scratch(scratch_t *e, size_t joints, size_t full) {
  if (joints > e->joints_cap) {
    if (grow((void **)&e->translation, NULL, joints * sizeof(anim_vec3_t)) ||
        grow((void **)&e->rotation, NULL, joints * sizeof(anim_quat_t)) ||
        grow((void **)&e->scale, NULL, joints * sizeof(anim_vec3_t)) ||
        grow((void **)&e->model, NULL, joints * sizeof(anim_mat4_t)) ||
        grow((void **)&e->skin, NULL, joints * sizeof(anim_mat4_t)) ||
        grow((void **)&e->dqs, NULL, joints * 8 * sizeof(float)))
      return UV_ENOMEM;
    e->joints_cap = joints;
  }
  if (full > e->full_cap) {
    if (grow((void **)&e->full, NULL, full * sizeof(float))) return UV_ENOMEM;
    e->full_cap = full;
  }
  return 0;
}

/* Samples, then accumulates to model space (and skinning matrices) as the
 * HTTP answers do. */
static int eval_pose(scratch_t *e, const srv_ws_eval_key_t *k,
                     bool need_model, bool need_skin) {
  const anim_skeleton_t *sk = k->skeleton->skeleton;
  uint32_t n = sk->joint_count;
  anim_pose_t pose = {e->translation, e->rotation, e->scale, n};
  anim_sampling_job_t sj = {
      .skeleton = sk,
      .clip = k->clip->clip,
      .time = k->t,
      .wrap = (anim_wrap)k->wrap,
      .output = pose,
  };
  if (anim_sampling_job_run(&sj) != ANIM_OK) return UV_EINVAL;
  if (!need_model) return 0;
  anim_local_to_model_job_t lm = {
      .skeleton = sk, .input = pose, .output = e->model, .output_count = n};
  if (anim_local_to_model_job_run(&lm) != ANIM_OK) return UV_EINVAL;
  if (!need_skin) return 0;
  anim_skinning_matrices_job_t smj = {
      .skeleton = sk, .model = e->model, .output = e->skin, .output_count = n};
  if (anim_skinning_matrices_job_run(&smj) != ANIM_OK) return UV_EINVAL;
  return 0;
}

/* Fills en->floats for en->key. Touches only en, e and the immutable
 * assets, so it runs on a worker as well as on the loop. en->floats must
 * already hold entry_floats(key) floats. */
static int evaluate(scratch_t *e, entry_t *en) {
  const srv_ws_eval_key_t *k = &en->key;
  const anim_skeleton_t *sk = k->skeleton->skeleton;
  uint32_t n = sk->joint_count;
  if (k->mesh != NULL) {
    const anim_mesh_t *mesh = k->mesh->mesh;
    size_t v = mesh->vertex_count;
    size_t need = v * (k->normals ? 6 : 3);
    if (reserve_scratch(e, n, 16 * (size_t)n) != 0) return UV_ENOMEM;
    int r = eval_pose(e, k, true, true);
    if (r != 0) return r;
    anim_skinning_job_t job = {
        .mesh = mesh,
        .matrices = e->skin,
        .matrix_count = n,
        .method = (anim_skin_method)k->method,
        .normals = k->normals ? ANIM_NORMALS_LINEAR : ANIM_NORMALS_NONE,
        .out_positions = en->floats,
        .out_positions_count = 3 * v,
        .out_normals = k->normals ? en->floats + 3 * v : NULL,
        .out_normals_count = k->normals ? 3 * v : 0,
        .scratch = e->dqs,
        .scratch_count = 8 * (size_t)n,
    };
    if (anim_skinning_job_run(&job) != ANIM_OK) return UV_EINVAL;
    en->data.floats = en->floats;
    en->data.count = (uint32_t)need;
    en->data.elements = (uint32_t)v;
    return 0;
  }

  size_t stride = k->space == FMT_SPACE_LOCAL ? 10 : 16;
  size_t sent = k->mask != NULL ? k->mask_count : n;
  if (reserve_scratch(e, n, stride * n) != 0) return UV_ENOMEM;
  int r = eval_pose(e, k, k->space != FMT_SPACE_LOCAL,
                    k->space == FMT_SPACE_SKIN);
  if (r != 0) return r;
  /* Without a mask the caller-order floats go straight to the entry. */
  float *dst = k->mask != NULL ? e->full : en->floats;
  anim_result ar;
  if (k->space == FMT_SPACE_LOCAL) {
    anim_pose_t pose = {e->translation, e->rotation, e->scale, n};
    ar = anim_pose_to_caller_trs10(sk, &pose, dst, 10 * (size_t)n);
  } else {
    ar = anim_mat4_to_caller(
        sk, k->space == FMT_SPACE_SKIN ? e->skin : e->model, dst,
        16 * (size_t)n);
  }
  if (ar != ANIM_OK) return UV_EINVAL;
  if (k->mask != NULL)
    for (uint32_t i = 0; i < k->mask_count; i++)
      memcpy(en->floats + i * stride, e->full + k->mask[i] * stride,
             stride * sizeof(float));
  en->data.floats = en->floats;
  en->data.count = (uint32_t)(stride * sent);
  en->data.elements = (uint32_t)sent;
  return 0;
}

/* Floats a frame of key holds. */
static size_t entry_floats(const srv_ws_eval_key_t *k) {
  if (k->mesh != NULL)
    return (size_t)k->mesh->mesh->vertex_count * (k->normals ? 6 : 3);
  size_t stride = k->space == FMT_SPACE_LOCAL ? 10 : 16;
  return stride * (k->mask != NULL ? k->mask_count
                                   : k->skeleton->skeleton->joint_count);
}

static entry_t *find(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  for (unsigned i = 0; i < e->count; i++) {
    entry_t *en = &e->entries[i];
    if (en->used && key_eq(&en->key, key)) return en;
  }
  return NULL;
}

/* Takes the next entry no job is writing, sets key (retaining its assets)
 * and sizes its floats. NULL when every entry is busy or on ENOMEM. */
static entry_t *claim(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  entry_t *en = NULL;
  for (unsigned tries = 0; tries < e->count && en == NULL; tries++) {
    entry_t *c = &e->entries[e->next];
    e->next = (e->next + 1) % e->count;
    if (!c->pending) en = c;
  }
  if (en == NULL) return NULL;
  entry_drop(en);
  if (key->mask != NULL) {
    uint32_t *m = realloc(en->mask_copy, key->mask_count * sizeof *m);
    if (m == NULL) return NULL;
    memcpy(m, key->mask, key->mask_count * sizeof *m);
    en->mask_copy = m;
  }
  size_t need = entry_floats(key);
  if (need > en->cap) {
    if (grow((void **)&en->floats, NULL, need * sizeof(float)) != 0)
      return NULL;
    en->cap = need;
  }
  en->key = *key;
  en->key.mask = key->mask != NULL ? en->mask_copy : NULL;
  store_asset_retain(key->skeleton);
  store_asset_retain(key->clip);
  if (key->mesh != NULL) store_asset_retain(key->mesh);
  en->used = true;
  return en;
}

int srv_ws_eval_get(srv_ws_eval_t *e, const srv_ws_eval_key_t *key,
                    srv_ws_frame_data_t *out) {
  entry_t *en = find(e, key);
  if (en != NULL && !en->pending) {
    e->stats.hits++;
    *out = en->data;
    return 0;
  }
  /* Not there, or still being computed on a worker: compute it here. A
   * pending entry is left to its job, so this frame goes to another. */
  if (en != NULL) e->stats.late++;
  en = claim(e, key);
  if (en == NULL) return UV_ENOMEM;
  int r = evaluate(&e->scratch, en);
  if (r != 0) {
    entry_drop(en);
    return r;
  }
  e->stats.evaluations++;
  *out = en->data;
  return 0;
}

static void job_work(srv_job_t *job) {
  eval_job_t *j = (eval_job_t *)job;
  j->result = evaluate(&j->scratch, j->en);
}

static void job_done(srv_job_t *job, int status) {
  eval_job_t *j = (eval_job_t *)job;
  srv_ws_eval_t *e = j->e;
  j->en->pending = false;
  if (status != 0 || j->result != 0) entry_drop(j->en);
  else e->stats.evaluations++;
  scratch_free(&j->scratch);
  free(j);
  e->pending--;
  if (e->freeing && e->pending == 0) eval_destroy(e);
}

int srv_ws_eval_prefetch(srv_ws_eval_t *e, const srv_ws_eval_key_t *key) {
  if (e->pool == NULL || e->freeing) return UV_ENOSYS;
  if (find(e, key) != NULL) return 0;
  eval_job_t *j = calloc(1, sizeof *j);
  if (j == NULL) return UV_ENOMEM;
  entry_t *en = claim(e, key);
  if (en == NULL) {
    free(j);
    return UV_EBUSY;
  }
  j->job.work = job_work;
  j->job.done = job_done;
  j->e = e;
  j->en = en;
  en->pending = true;
  int r = srv_pool_submit_to(e->pool, &j->job, e->inbox);
  if (r != 0) {
    en->pending = false;
    entry_drop(en);
    free(j);
    return r;
  }
  e->pending++;
  e->stats.prefetched++;
  return 0;
}
