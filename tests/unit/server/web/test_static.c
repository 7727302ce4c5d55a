/* Tests for the browser files (server/web/static.h) through the in-memory
 * transport: the embedded client byte for byte as
 * packages/animd-client/animd.js, HEAD, 405 for other methods, and /three/
 * files read from three_dir (a temp directory here) with every path that could
 * leave it refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../http/http_memory_fixture.h"

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(d, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return d;
}

START_TEST(test_client_embedded) {
  mem_server_start();
  mem_answer_t a = mem_get("/client/animd.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nContent-Type: text/javascript; "
                                       "charset=utf-8\r\n"));
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nCache-Control: no-cache\r\n"));
  size_t n;
  char *want = read_file("packages/animd-client/animd.js", &n);
  ck_assert_uint_eq(a.body_len, n);
  ck_assert_int_eq(memcmp(a.body, want, n), 0);
  free(want);
  mem_answer_free(&a);

  srv_http_memory_t *m = mem_client();
  a = mem_request(m, "HEAD /client/animd.js HTTP/1.1\r\nHost: h\r\n\r\n");
  ck_assert_int_eq(a.status, 200);
  ck_assert_uint_eq(a.body_len, 0);
  mem_answer_free(&a);
  a = mem_request(m, "DELETE /client/animd.js HTTP/1.1\r\nHost: h\r\n\r\n");
  ck_assert_int_eq(a.status, 405);
  ck_assert_ptr_nonnull(strstr(a.head, "\r\nAllow: GET, HEAD\r\n"));
  mem_answer_free(&a);
  srv_http_memory_free(m);
  mem_server_stop();
}
END_TEST

START_TEST(test_three_dir) {
  char dir[] = "/tmp/animd-three-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/build", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/build/three.module.js", dir);
  FILE *f = fopen(path, "w");
  fputs("export const REVISION = '111';\n", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/secret.txt", dir);
  f = fopen(path, "w");
  fputs("no\n", f);
  fclose(f);
  /* npm's three keeps its addons three folders down. */
  const char *const addon_dirs[] = {"examples", "examples/jsm",
                                    "examples/jsm/controls"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, addon_dirs[i]);
    ck_assert_int_eq(mkdir(path, 0755), 0);
  }
  snprintf(path, sizeof path, "%s/examples/jsm/controls/OrbitControls.js", dir);
  f = fopen(path, "w");
  fputs("import { Controls } from 'three';\n", f);
  fclose(f);

  srv_config_t cfg;
  srv_config_defaults(&cfg);
  snprintf(cfg.three_dir, sizeof cfg.three_dir, "%s", dir);
  mem_server_start_cfg(&cfg);
  mem_answer_t a = mem_get("/three/build/three.module.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(a.body, "export const REVISION = '111';\n");
  ck_assert_ptr_nonnull(strstr(a.head, "text/javascript"));
  mem_answer_free(&a);
  a = mem_get("/three/examples/jsm/controls/OrbitControls.js");
  ck_assert_int_eq(a.status, 200);
  ck_assert_str_eq(a.body, "import { Controls } from 'three';\n");
  mem_answer_free(&a);
  const char *refused[] = {"/three/secret.txt",       "/three/../etc/passwd.js",
                           "/three/build/../../x.js", "/three//etc/x.js",
                           "/three/missing.js",       "/three/",
                           "/three/a%00.js",          "/three/build"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    a = mem_get(refused[i]);
    ck_assert_msg(a.status == 404, "%s: %d", refused[i], a.status);
    mem_answer_free(&a);
  }
  mem_server_stop();
  snprintf(path, sizeof path, "%s/build/three.module.js", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/build", dir);
  rmdir(path);
  snprintf(path, sizeof path, "%s/secret.txt", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/examples/jsm/controls/OrbitControls.js", dir);
  unlink(path);
  for (size_t i = 3; i-- > 0;) {
    snprintf(path, sizeof path, "%s/%s", dir, addon_dirs[i]);
    rmdir(path);
  }
  rmdir(dir);
}
END_TEST

Suite *web_static_suite(void) {
  Suite *s = suite_create("web_static");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_client_embedded);
  tcase_add_test(tc, test_three_dir);
  suite_add_tcase(s, tc);
  return s;
}
