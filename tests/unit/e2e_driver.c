/* The end-to-end suites: run every tests/e2e/t_* script (suite e2e) and
 * every tests/web/t_* script (suite web: the JavaScript client's tests and
 * the browser tests) -- shell, Python with Debian's /usr/bin/python3, or
 * Node -- as one Check test each, so their results land in the same Check
 * summary as the unit tests.
 *
 * A script gets ANIMD_BIN (the daemon to start), ANIMD_SHARED (the shared
 * assets folder) and ANIMD_E2E_DIR in its environment; it starts the daemon
 * on an ephemeral loopback port and stops it by PID. Its output goes to
 * $ANIMD_BUILD/e2e/<name>.log; the tail is shown on failure. Each script
 * runs in its own process group, killed whole when it overruns its time.
 * Each script's wall time is appended to $ANIMD_BUILD/e2e/durations.tsv
 * (name, seconds, exit status; the last run's, emptied when the runner
 * starts) to show where a suite's time goes.
 * ANIMD_E2E=substring runs only the scripts whose name contains it. A
 * script that needs what is not here (../shared/assets) exits 77 and is
 * reported as skipped, with its reason, in one line. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define E2E_DIR "tests/e2e"
#define WEB_DIR "tests/web"
#define E2E_MAX_SCRIPTS 128
#define E2E_TIMEOUT_S 240
/* A script that cannot run here (the shared assets are missing) exits with
 * this after printing why as its last line. */
#define E2E_SKIPPED 77

/* Scripts of every suite, each suite's sorted together: "dir/t_name". */
static char e2e_names[E2E_MAX_SCRIPTS][160];
static int e2e_count;

static int by_name(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

/* Appends the scripts of dir; returns the index of the first. */
static int e2e_discover(const char *dir) {
  int first = e2e_count;
  DIR *d = opendir(dir);
  if (d == NULL) return first;
  const char *only = getenv("ANIMD_E2E");
  struct dirent *e;
  while ((e = readdir(d)) != NULL && e2e_count < E2E_MAX_SCRIPTS) {
    if (strncmp(e->d_name, "t_", 2) != 0) continue;
    const char *dot = strrchr(e->d_name, '.');
    if (dot == NULL ||
        (strcmp(dot, ".sh") && strcmp(dot, ".py") && strcmp(dot, ".js")))
      continue;
    if (only != NULL && strstr(e->d_name, only) == NULL) continue;
    size_t dn = strlen(dir), nn = strlen(e->d_name);
    if (dn + nn + 2 > sizeof e2e_names[0]) continue;
    char *out = e2e_names[e2e_count++];
    memcpy(out, dir, dn);
    out[dn] = '/';
    memcpy(out + dn + 1, e->d_name, nn + 1);
  }
  closedir(d);
  qsort(e2e_names[first], (size_t)(e2e_count - first), sizeof e2e_names[0],
        by_name);
  return first;
}

static void print_tail(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, size > 4000 ? size - 4000 : 0, SEEK_SET);
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  fprintf(stderr, "---- tail of %s ----\n%s\n----\n", path, buf);
}

/* The scripts' log directory, $ANIMD_BUILD/e2e (build/e2e without it). */
static void get_log_dir(char *out, size_t cap) {
  const char *build = getenv("ANIMD_BUILD");
  snprintf(out, cap, "%s/e2e", build ? build : "build");
}

/* The durations file in log_dir. */
static void get_durations_path(char *out, size_t cap, const char *log_dir) {
  snprintf(out, cap, "%s/durations.tsv", log_dir);
}

static void record_duration(const char *log_dir, const char *name,
                            const struct timespec *start, int status) {
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double s = (double)(end.tv_sec - start->tv_sec) +
             (double)(end.tv_nsec - start->tv_nsec) / 1e9;
  char path[4096 + 32];
  get_durations_path(path, sizeof path, log_dir);
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, "%s\t%.2f\t%d\n", name, s,
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  fclose(f);
}

START_TEST(test_e2e_script) {
  const char *script = e2e_names[_i];
  const char *name = strrchr(script, '/') + 1;
  const char *bin = getenv("ANIMD_BIN");
  ck_assert_msg(bin != NULL, "ANIMD_BIN is not set (run through make test)");
  char log_dir[4096], log_path[4096 + 160];
  get_log_dir(log_dir, sizeof log_dir);
  mkdir(log_dir, 0755);
  snprintf(log_path, sizeof log_path, "%s/%s.log", log_dir, name);

  const char *dot = strrchr(name, '.');
  const char *interp = strcmp(dot, ".py") == 0   ? "/usr/bin/python3"
                       : strcmp(dot, ".js") == 0 ? "node"
                                                 : "bash";
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (getenv("ANIMD_SHARED") == NULL) setenv("ANIMD_SHARED", "../shared", 1);
    char dir[sizeof e2e_names[0]];
    snprintf(dir, sizeof dir, "%.*s", (int)(name - 1 - script), script);
    setenv("ANIMD_E2E_DIR", dir, 1);
    execlp(interp, interp, script, (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    ck_assert_int_eq(r, 0);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > E2E_TIMEOUT_S) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      print_tail(log_path);
      ck_abort_msg("%s overran %d s", name, E2E_TIMEOUT_S);
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  /* Whatever the script left behind in its group goes too. */
  kill(-pid, SIGKILL);
  record_duration(log_dir, name, &start, status);
  if (WIFEXITED(status) && WEXITSTATUS(status) == E2E_SKIPPED) {
    /* The script's last line says what it needs. */
    char why[256] = "";
    FILE *f = fopen(log_path, "r");
    if (f != NULL) {
      char line[256];
      while (fgets(line, sizeof line, f) != NULL)
        snprintf(why, sizeof why, "%s", line);
      fclose(f);
    }
    why[strcspn(why, "\n")] = '\0';
    printf("skipped: e2e %s: %s\n", name, why);
    fflush(stdout);
    return;
  }
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) print_tail(log_path);
  ck_assert_msg(ok, "%s failed (exit %d, signal %d), log: %s", name,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0, log_path);
}
END_TEST

static Suite *scripts_suite(const char *name, const char *dir) {
  Suite *s = suite_create(name);
  TCase *tc = tcase_create("scripts");
  tcase_set_timeout(tc, E2E_TIMEOUT_S + 30);
  int first = e2e_discover(dir);
  if (e2e_count > first)
    tcase_add_loop_test(tc, test_e2e_script, first, e2e_count);
  suite_add_tcase(s, tc);
  return s;
}

Suite *e2e_suite(void) {
  /* The durations file holds this run's scripts only. */
  char log_dir[4096], path[4096 + 32];
  get_log_dir(log_dir, sizeof log_dir);
  get_durations_path(path, sizeof path, log_dir);
  unlink(path);
  return scripts_suite("e2e", E2E_DIR);
}

Suite *web_suite(void) { return scripts_suite("web", WEB_DIR); }
