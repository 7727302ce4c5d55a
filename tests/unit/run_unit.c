/* The Check runner: every suite of tests/unit (listed at build time in
 * suites.inc) in one SRunner, so a run ends with one Check summary line.
 *
 * Check's own environment variables pick a subset: CK_RUN_SUITE=name,
 * CK_RUN_CASE=name. Each test runs in its own forked process. A verbose
 * log of every test goes to $ANIMD_BUILD/unit.log when ANIMD_BUILD is set. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
/* Check forks every test from this process. Under AddressSanitizer the
 * runner's own freed memory waits in the quarantine (256 MB by default),
 * which fills over a thousand tests; every fork then copies it and the
 * test faults its pages back in (about 0.2 s a test: the unit suites took
 * 8.5 min instead of under 3). An 8 MB quarantine keeps the runner small;
 * a test's use of memory it freed is still caught within its last 8 MB of
 * frees. The daemons the end-to-end tests start keep the default; an
 * ASAN_OPTIONS in the environment overrides this. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=8"; }
#endif

#define ANIMD_SUITE(name) Suite *name(void);
#include "suites.inc"
#undef ANIMD_SUITE

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define ANIMD_SUITE(name) srunner_add_suite(sr, name());
#include "suites.inc"
#undef ANIMD_SUITE

  char log_path[4096];
  const char *build = getenv("ANIMD_BUILD");
  if (build != NULL) {
    snprintf(log_path, sizeof log_path, "%s/unit.log", build);
    srunner_set_log(sr, log_path);
  }
  srunner_run_all(sr, CK_SILENT);

  /* Failures first, then the summary, so the output ends with it. */
  TestResult **failures = srunner_failures(sr);
  int n = srunner_ntests_failed(sr);
  for (int i = 0; i < n; i++) {
    TestResult *tr = failures[i];
    fprintf(stdout, "%s:%d: %s: %s: %s\n", tr_lfile(tr), tr_lno(tr),
            tr_tcname(tr), tr_rtype(tr) == CK_ERROR ? "error" : "failure",
            tr_msg(tr));
  }
  free(failures);
  fflush(stdout);
  srunner_print(sr, CK_MINIMAL);
  srunner_free(sr);
  return n == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
