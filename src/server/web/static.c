/* server/web: serving the browser files (static.h).
 *
 * Embedded files are answered inline from memory. A /three/ file is read
 * on the worker pool (a megabyte read does not belong on the loop thread)
 * after its path is checked: letters, digits, '.', '_', '-' and '/' only,
 * no "..", no empty segment, and a .js name, so nothing outside three_dir
 * can be named. */
#include "server/web/static.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/config.h"
#include "server/http/task.h"
#include "server/web/preflight.h"

/* files.S */
extern const char srv_web_client_js_start[], srv_web_client_js_end[];
extern const char srv_web_viewer_html_start[], srv_web_viewer_html_end[];
extern const char srv_web_viewer_js_start[], srv_web_viewer_js_end[];
extern const char srv_web_client_three_js_start[],
    srv_web_client_three_js_end[];

#define JS_TYPE "text/javascript; charset=utf-8"

typedef struct embedded_s {
  const char *path;
  const char *content_type;
  const char *start, *end;
} embedded_t;

static const embedded_t embedded[] = {
    {"/client/animd.js", JS_TYPE, srv_web_client_js_start,
     srv_web_client_js_end},
    {"/viewer", "text/html; charset=utf-8", srv_web_viewer_html_start,
     srv_web_viewer_html_end},
    {"/viewer/viewer.js", JS_TYPE, srv_web_viewer_js_start,
     srv_web_viewer_js_end},
    {"/client/three.js", JS_TYPE, srv_web_client_three_js_start,
     srv_web_client_three_js_end},
};

#define THREE_PREFIX "/three/"

/* A path below three_dir that names a .js file and nothing else. */
static bool safe_three_path(const char *rest) {
  size_t n = strlen(rest);
  if (n == 0 || n > 200 || rest[0] == '/' || strstr(rest, "..") ||
      strstr(rest, "//") || n < 4 || strcmp(rest + n - 3, ".js") != 0)
    return false;
  for (const char *p = rest; *p; p++) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
          c == '/'))
      return false;
  }
  return true;
}

/* ---- /three/ files, read on the pool
 * ----------------------------------------- */

typedef struct three_task_s {
  srv_task_t task;
  char path[1280];
  char *data;
  size_t len;
  int rc; /* 0, or a negative errno. */
} three_task_t;

static void three_work(srv_task_t *t) {
  three_task_t *r = (three_task_t *)t;
  int fd = open(r->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r->rc = -errno;
    return;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (uint64_t)st.st_size > SRV_THREE_MAX_BYTES) {
    r->rc = -ENOENT;
    goto done;
  }
  r->data = malloc((size_t)st.st_size + 1);
  if (r->data == NULL) {
    r->rc = -ENOMEM;
    goto done;
  }
  while (r->len < (size_t)st.st_size) {
    ssize_t got = read(fd, r->data + r->len, (size_t)st.st_size - r->len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      r->rc = got < 0 ? -errno : -EIO;
      break;
    }
    r->len += (size_t)got;
  }
done:
  close(fd);
}

static void three_respond(srv_task_t *t) {
  three_task_t *r = (three_task_t *)t;
  if (r->rc == -ENOENT || r->rc == -ENOTDIR || r->rc == -EISDIR)
    srv_respond_fail(t->req, SRV_ERR_NOT_FOUND, NULL,
                     "no such file under three_dir: %s",
                     t->req->path + strlen(THREE_PREFIX));
  else if (r->rc != 0)
    srv_respond_fail(t->req, SRV_ERR_IO_ERROR, NULL, "reading %s: %s",
                     t->req->path, strerror(-r->rc));
  else
    srv_respond(t->req, 200, JS_TYPE,
                "Cache-Control: public, max-age=3600\r\n"
                "X-Content-Type-Options: nosniff\r\n",
                r->data, r->len);
}

static void three_free(srv_task_t *t) {
  three_task_t *r = (three_task_t *)t;
  free(r->data);
  free(r);
}

static void serve_three(srv_request_t *req, const char *rest) {
  const char *dir = srv_request_config(req)->three_dir;
  if (dir[0] == '\0' || !safe_three_path(rest)) {
    srv_respond_fail(req, SRV_ERR_NOT_FOUND, NULL, "no such file: %s",
                     req->path);
    return;
  }
  three_task_t *r = calloc(1, sizeof *r);
  if (r == NULL) {
    srv_respond_fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  snprintf(r->path, sizeof r->path, "%s/%s", dir, rest);
  r->task.work = three_work;
  r->task.respond = three_respond;
  r->task.free = three_free;
  srv__task_run(&r->task, req, SRV_COST_POOL);
}

/* ---- dispatch
 * ------------------------------------------------------------------ */

bool srv_web_static(srv_request_t *req) {
  const embedded_t *file = NULL;
  for (size_t i = 0; i < sizeof embedded / sizeof embedded[0]; i++)
    if (strcmp(req->path, embedded[i].path) == 0) file = &embedded[i];
  bool three = strncmp(req->path, THREE_PREFIX, strlen(THREE_PREFIX)) == 0;
  if (file == NULL && !three) return false;
  if (file != NULL && file->start == file->end) {
    srv_respond_fail(req, SRV_ERR_NOT_FOUND, NULL, "%s is not in this build",
                     req->path);
    return true;
  }
  if (req->method == SRV_OPTIONS) {
    srv_web_preflight(req, "GET, HEAD");
  } else if (req->method != SRV_GET && req->method != SRV_HEAD) {
    srv_respond_fail_h(req, SRV_ERR_METHOD_NOT_ALLOWED, "Allow: GET, HEAD\r\n",
                       NULL, "%s is not allowed here (allowed: GET, HEAD)",
                       req->method_name);
  } else if (three) {
    serve_three(req, req->path + strlen(THREE_PREFIX));
  } else {
    srv_respond(req, 200, file->content_type,
                "Cache-Control: no-cache\r\n"
                "X-Content-Type-Options: nosniff\r\n",
                file->start, (size_t)(file->end - file->start));
  }
  return true;
}
