/* server: fetches of uncached assets for a stream loop (fetch.h). */
#include "server/ws/fetch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fetch_job_s {
  srv_job_t job; /* First member. */
  srv_ws_fetch_t *owner;
  struct fetch_job_s *prev, *next; /* Out, in the owner's list. */
  void *client;                    /* NULL once forgotten. */
  store_kind kind;
  unsigned depth;
  srv_backend_status status;
  char skeleton_id[FMT_ID_LEN + 1]; /* "" for none. */
  char *name;                       /* id_or_name, then the message. */
  char *message;
  size_t len;
} fetch_job_t;

struct srv_ws_fetch_s {
  const srv_backend_t *backend;
  srv_pool_t *pool;
  srv_pool_inbox_t *inbox;
  srv_ws_fetched_cb done;
  fetch_job_t *out;
  bool freeing;
};

srv_ws_fetch_t *srv_ws_fetch_new(const srv_backend_t *backend, srv_pool_t *pool,
                                 srv_pool_inbox_t *inbox,
                                 srv_ws_fetched_cb done) {
  srv_ws_fetch_t *f = calloc(1, sizeof *f);
  if (f == NULL) return NULL;
  *f = (srv_ws_fetch_t){
      .backend = backend, .pool = pool, .inbox = inbox, .done = done};
  return f;
}

void srv_ws_fetch_free(srv_ws_fetch_t *f) {
  if (f == NULL) return;
  f->freeing = true;
  if (f->out == NULL) free(f);
}

/* Worker thread. */
static void fetch_work(srv_job_t *job) {
  fetch_job_t *j = (fetch_job_t *)job;
  const srv_backend_t *b = j->owner->backend;
  j->status = b->ops->load_blocking(b->self, j->kind, j->name,
                                    j->skeleton_id[0] ? j->skeleton_id : NULL);
}

/* Stream loop. */
static void fetch_done(srv_job_t *job, int status) {
  fetch_job_t *j = (fetch_job_t *)job;
  srv_ws_fetch_t *f = j->owner;
  if (j->prev)
    j->prev->next = j->next;
  else
    f->out = j->next;
  if (j->next) j->next->prev = j->prev;
  if (!f->freeing && j->client != NULL)
    f->done(j->client, j->message, j->len, j->depth,
            status != 0 ? SRV_BACKEND_UNAVAILABLE : j->status);
  free(j->name);
  free(j);
  if (f->freeing && f->out == NULL) free(f);
}

int srv_ws_fetch_start(srv_ws_fetch_t *f, void *client, store_kind kind,
                       const char *id_or_name, const char *skeleton_id,
                       const char *message, size_t len, unsigned depth) {
  size_t n = strlen(id_or_name);
  fetch_job_t *j = calloc(1, sizeof *j);
  char *text = malloc(n + 1 + len + 1);
  if (j == NULL || text == NULL) {
    free(j);
    free(text);
    return UV_ENOMEM;
  }
  memcpy(text, id_or_name, n + 1);
  memcpy(text + n + 1, message, len);
  text[n + 1 + len] = '\0';
  j->job.work = fetch_work;
  j->job.done = fetch_done;
  j->owner = f;
  j->client = client;
  j->kind = kind;
  j->depth = depth;
  j->name = text;
  j->message = text + n + 1;
  j->len = len;
  if (skeleton_id != NULL)
    snprintf(j->skeleton_id, sizeof j->skeleton_id, "%s", skeleton_id);
  int rc = srv_pool_submit_to(f->pool, &j->job, f->inbox);
  if (rc != 0) {
    free(text);
    free(j);
    return rc;
  }
  j->next = f->out;
  if (f->out) f->out->prev = j;
  f->out = j;
  return 0;
}

void srv_ws_fetch_forget(srv_ws_fetch_t *f, void *client) {
  if (f == NULL) return;
  for (fetch_job_t *j = f->out; j; j = j->next)
    if (j->client == client) j->client = NULL;
}
