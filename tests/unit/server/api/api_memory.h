/* Helpers of the API tests that talk to a real server through the
 * in-memory transport (../http/http_memory_fixture.h): one request of any
 * method with an optional body, answered on a fresh client. */
#ifndef ANIMD_TESTS_API_MEMORY_H
#define ANIMD_TESTS_API_MEMORY_H

#include "../http/http_memory_fixture.h"

/* METHOD target, with body (Content-Type ctype) when body is not NULL. */
static inline mem_answer_t api_call(const char *method, const char *target,
                                    const char *ctype, const char *body,
                                    size_t len) {
  size_t cap = len + 1024;
  char *t = malloc(cap);
  int n = snprintf(t, cap, "%s %s HTTP/1.1\r\nHost: x\r\n", method, target);
  if (body != NULL)
    n += snprintf(t + n, cap - (size_t)n,
                  "Content-Type: %s\r\nContent-Length: %zu\r\n", ctype, len);
  n += snprintf(t + n, cap - (size_t)n, "\r\n");
  if (body != NULL) memcpy(t + n, body, len);
  srv_http_memory_t *m = mem_client();
  srv_http_memory_send(m, t, (size_t)n + (body ? len : 0));
  mem_answer_t a;
  ck_assert_msg(mem_read_answer(m, &a, strcmp(method, "HEAD") == 0),
                "no answer to %s %s", method, target);
  srv_http_memory_free(m);
  free(t);
  return a;
}

static inline mem_answer_t api_json(const char *method, const char *target,
                                    const char *body) {
  return api_call(method, target, "application/json", body,
                  body ? strlen(body) : 0);
}

/* Asserts an answer's status and error code (NULL: none checked) and
 * "at" (NULL: not checked), then frees it. */
static inline void api_expect(mem_answer_t a, int status, const char *code,
                              const char *at, const char *what) {
  char buf[64];
  ck_assert_msg(a.status == status, "%s: status %d, want %d: %s", what,
                a.status, status, a.body);
  if (code != NULL)
    ck_assert_msg(strcmp(mem_error_code(&a, buf, sizeof buf), code) == 0,
                  "%s: %s", what, a.body);
  if (at != NULL) {
    char want[128];
    snprintf(want, sizeof want, "\"at\":\"%s\"", at);
    ck_assert_msg(strstr(a.body, want) != NULL, "%s: %s", what, a.body);
  }
  mem_answer_free(&a);
}

/* The first "id" after key in text (an answer body), into id. */
static inline void api_id_after(const char *text, const char *key,
                                char id[65]) {
  const char *p = strstr(text, key);
  ck_assert_ptr_nonnull(p);
  p = strstr(p, "\"id\":\"");
  ck_assert_ptr_nonnull(p);
  memcpy(id, p + 6, 64);
  id[64] = '\0';
}

#endif
