/* Tests for the browser files (server/web/static.h) with a host of the
 * test's own: paths that are not its own left alone, the embedded files'
 * headers and HEAD, 405 with Allow and OPTIONS, /three/ without a
 * three_dir, and under one: a directory, a file at the size limit and one
 * past it, a path too long or with characters outside the safe set, and
 * the cache headers of what it serves. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../http/http_host_fixture.h"
#include "server/web/static.h"

static void route(srv_request_t *req) {
  if (!srv_web_static(req))
    srv_respond(req, 299, "text/plain", NULL, "not static", 10);
}

static hfx_answer_t ask(const char *method, const char *target) {
  srv_http_memory_t *m = hfx_client();
  char text[1024];
  snprintf(text, sizeof text, "%s %s HTTP/1.1\r\n\r\n", method, target);
  hfx_answer_t a = hfx_request(m, text);
  srv_http_memory_free(m);
  return a;
}

START_TEST(test_embedded_files) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.three_dir[0] = '\0';
  hfx_start(&cfg, 2000, route);
  char v[256], code[64];
  /* Not its paths. */
  const char *others[] = {
      "/",     "/viewer/", "/client/", "/client/animd.jsx", "/threex/a.js",
      "/three"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    hfx_answer_t a = ask("GET", others[i]);
    ck_assert_msg(a.status == 299, "%s: %d", others[i], a.status);
    hfx_free(&a);
  }
  static const struct {
    const char *path, *type;
  } files[] = {{"/client/animd.js", "text/javascript; charset=utf-8"},
               {"/viewer", "text/html; charset=utf-8"},
               {"/viewer/viewer.js", "text/javascript; charset=utf-8"},
               {"/client/three.js", "text/javascript; charset=utf-8"}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    hfx_answer_t a = ask("GET", files[i].path);
    if (a.status == 404) { /* Not in this build. */
      ck_assert_ptr_nonnull(strstr(a.body, "is not in this build"));
      hfx_free(&a);
      continue;
    }
    ck_assert_int_eq(a.status, 200);
    ck_assert_str_eq(hfx_header(&a, "Content-Type", v, sizeof v),
                     files[i].type);
    ck_assert_str_eq(hfx_header(&a, "Cache-Control", v, sizeof v), "no-cache");
    ck_assert_str_eq(hfx_header(&a, "X-Content-Type-Options", v, sizeof v),
                     "nosniff");
    ck_assert_uint_gt(a.body_len, 100);
    size_t len = a.body_len;
    hfx_free(&a);
    /* HEAD: the same length, no body. */
    a = ask("HEAD", files[i].path);
    ck_assert_int_eq(a.status, 200);
    ck_assert_uint_eq(
        strtoull(hfx_header(&a, "Content-Length", v, sizeof v), NULL, 10), len);
    hfx_free(&a);
    /* Other methods: 405 with Allow; OPTIONS: 204. */
    a = ask("DELETE", files[i].path);
    ck_assert_int_eq(a.status, 405);
    ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v), "GET, HEAD");
    ck_assert_str_eq(hfx_code(&a, code, sizeof code), "method_not_allowed");
    ck_assert_ptr_nonnull(
        strstr(a.body, "DELETE is not allowed here (allowed: GET, HEAD)"));
    hfx_free(&a);
    a = ask("OPTIONS", files[i].path);
    ck_assert_int_eq(a.status, 204);
    ck_assert_str_eq(hfx_header(&a, "Allow", v, sizeof v),
                     "GET, HEAD, OPTIONS");
    hfx_free(&a);
  }
  /* /three/ without a three_dir. */
  hfx_answer_t a = ask("GET", "/three/three.module.js");
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(strstr(a.body, "no such file: /three/three.module.js"));
  hfx_free(&a);
  a = ask("POST", "/three/x.js");
  ck_assert_int_eq(a.status, 405);
  hfx_free(&a);
  hfx_stop();
}
END_TEST

START_TEST(test_three_dir_limits) {
  char dir[] = "/tmp/animd-three2-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  /* A directory named like a file, a file at the size limit (sparse) and
   * one byte past it. */
  snprintf(path, sizeof path, "%s/dir.js", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/max.js", dir);
  int fd = open(path, O_CREAT | O_WRONLY, 0644);
  ck_assert_int_eq(ftruncate(fd, SRV_THREE_MAX_BYTES), 0);
  close(fd);
  snprintf(path, sizeof path, "%s/over.js", dir);
  fd = open(path, O_CREAT | O_WRONLY, 0644);
  ck_assert_int_eq(ftruncate(fd, SRV_THREE_MAX_BYTES + 1), 0);
  close(fd);
  snprintf(path, sizeof path, "%s/A-b_c.1.js", dir);
  FILE *f = fopen(path, "w");
  fputs("ok();\n", f);
  fclose(f);

  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.three_dir, sizeof cfg.three_dir, "%s", dir);
  hfx_start(&cfg, 2000, route);
  char v[256];
  hfx_answer_t a = ask("GET", "/three/A-b_c.1.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(a.body, "ok();\n");
  ck_assert_str_eq(hfx_header(&a, "Cache-Control", v, sizeof v),
                   "public, max-age=3600");
  ck_assert_str_eq(hfx_header(&a, "X-Content-Type-Options", v, sizeof v),
                   "nosniff");
  hfx_free(&a);
  a = ask("HEAD", "/three/A-b_c.1.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(hfx_header(&a, "Content-Length", v, sizeof v), "6");
  hfx_free(&a);
  a = ask("GET", "/three/max.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_uint_eq(a.body_len, SRV_THREE_MAX_BYTES);
  hfx_free(&a);
  a = ask("GET", "/three/over.js");
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(
      strstr(a.body, "no such file under three_dir: over.js"));
  hfx_free(&a);
  a = ask("GET", "/three/dir.js");
  ck_assert_int_eq(a.status, 404);
  hfx_free(&a);
  /* Characters outside the safe set, and a name too long. */
  const char *refused[] = {"/three/a%20b.js", "/three/a~b.js", "/three/a+b.js",
                           "/three/.js", "/three/a.JS"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    a = ask("GET", refused[i]);
    ck_assert_msg(a.status == 404, "%s: %d", refused[i], a.status);
    char want[128];
    snprintf(want, sizeof want, "no such file: ");
    ck_assert_ptr_nonnull(strstr(a.body, want));
    hfx_free(&a);
  }
  char longp[300];
  snprintf(longp, sizeof longp, "/three/");
  memset(longp + 7, 'a', 198);
  snprintf(longp + 7 + 198, sizeof longp - 205, ".js");
  a = ask("GET", longp); /* 201 bytes after /three/. */
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(strstr(a.body, "no such file: /three/aaa"));
  hfx_free(&a);
  longp[7 + 197] = '\0';
  snprintf(longp + 7 + 197, sizeof longp - 204, ".js");
  a = ask("GET", longp); /* 200 bytes: checked, then not there. */
  ck_assert_int_eq(a.status, 404);
  ck_assert_ptr_nonnull(strstr(a.body, "no such file under three_dir"));
  hfx_free(&a);
  hfx_stop();
  snprintf(path, sizeof path, "%s/dir.js", dir);
  rmdir(path);
  const char *names[] = {"max.js", "over.js", "A-b_c.1.js"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}
END_TEST

Suite *server_web_static_host_suite(void) {
  Suite *s = suite_create("server_web_static_host");
  TCase *tc = tcase_create("static_host");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_embedded_files);
  tcase_add_test(tc, test_three_dir_limits);
  suite_add_tcase(s, tc);
  return s;
}
