/* A real redis-server for the Redis unit tests, started by the test on
 * 127.0.0.1 (a free port found by binding port 0 first; no persistence:
 * --save "" --appendonly no, in a mkdtemp directory) and stopped by its
 * PID (kill, then waitpid; SIGKILL when it does not end in 5 s). The child
 * also gets SIGKILL should the process that started it die first. Without
 * redis-server installed the tests that need it print a line starting
 * "skipped:" and pass. Every wait is bounded. */
#ifndef ANIMD_TESTS_REDIS_FIXTURE_H
#define ANIMD_TESTS_REDIS_FIXTURE_H

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

typedef struct redis_proc_s {
  pid_t pid;
  int port;
  char dir[64];
} redis_proc_t;

static inline void redis_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static inline uint64_t redis_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* redis-server on PATH. */
static inline bool redis_installed(void) {
  const char *path = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
  char *save = NULL;
  for (char *d = strtok_r(dirs, ":", &save); d;
       d = strtok_r(NULL, ":", &save)) {
    char file[4200];
    snprintf(file, sizeof file, "%s/redis-server", d);
    if (access(file, X_OK) == 0) return true;
  }
  return false;
}

/* A port of 127.0.0.1 nothing listens on now: bound to port 0, read back,
 * closed. */
static inline int redis_free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

/* One command on a connection of its own; NULL when Redis does not
 * answer within a second. The caller frees the reply. */
static inline redisReply *redis_sync(int port, const char *fmt, ...) {
  struct timeval tv = {1, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
  if (c == NULL || c->err || redisSetTimeout(c, tv) != REDIS_OK) {
    if (c) redisFree(c);
    return NULL;
  }
  va_list ap;
  va_start(ap, fmt);
  redisReply *r = redisvCommand(c, fmt, ap);
  va_end(ap);
  redisFree(c);
  return r;
}

static inline bool redis_pings(int port) {
  redisReply *r = redis_sync(port, "PING");
  bool ok =
      r != NULL && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
  if (r) freeReplyObject(r);
  return ok;
}

/* Runs redis-server on port (0: a free one) in p->dir (made when empty).
 * Returns true once it answers PING (within 5 s). */
static inline bool redis_proc_start(redis_proc_t *p, int port) {
  if (p->dir[0] == '\0') {
    snprintf(p->dir, sizeof p->dir, "/tmp/animd-redis-XXXXXX");
    if (mkdtemp(p->dir) == NULL) return false;
  }
  for (int attempt = 0; attempt < 3; attempt++) {
    p->port = port ? port : redis_free_port();
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", p->port);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      FILE *null = freopen("/dev/null", "w", stdout);
      (void)null;
      execlp("redis-server", "redis-server", "--bind", "127.0.0.1", "--port",
             port_text, "--save", "", "--appendonly", "no", "--dir", p->dir,
             "--logfile", "redis.log", "--protected-mode", "no", (char *)NULL);
      _exit(127);
    }
    p->pid = pid;
    uint64_t end = redis_now_ms() + 5000;
    while (redis_now_ms() < end) {
      if (redis_pings(p->port)) return true;
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) { /* Port taken? */
        p->pid = 0;
        break;
      }
      redis_sleep_ms(20);
    }
    if (p->pid != 0) {
      kill(p->pid, SIGKILL);
      waitpid(p->pid, NULL, 0);
      p->pid = 0;
    }
  }
  return false;
}

/* Stops it by its PID: sig, then waitpid (SIGKILL after 5 s). */
static inline void redis_proc_signal_stop(redis_proc_t *p, int sig) {
  if (p->pid <= 0) return;
  kill(p->pid, sig);
  uint64_t end = redis_now_ms() + 5000;
  int status;
  while (waitpid(p->pid, &status, WNOHANG) == 0) {
    if (redis_now_ms() > end) {
      kill(p->pid, SIGKILL);
      waitpid(p->pid, &status, 0);
      break;
    }
    redis_sleep_ms(10);
  }
  p->pid = 0;
}

static inline void redis_proc_stop(redis_proc_t *p) {
  redis_proc_signal_stop(p, SIGTERM);
}

/* Stops it and removes its directory. */
static inline void redis_proc_finish(redis_proc_t *p) {
  redis_proc_stop(p);
  if (p->dir[0] == '\0') return;
  DIR *d = opendir(p->dir);
  if (d != NULL) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char file[512];
      snprintf(file, sizeof file, "%s/%s", p->dir, e->d_name);
      unlink(file);
    }
    closedir(d);
  }
  rmdir(p->dir);
  p->dir[0] = '\0';
}

/* The suite's server, started once by the test case's unchecked fixture
 * (in the runner) and shared by its tests (each flushes it first). */
static redis_proc_t suite_redis;
static bool suite_redis_up;

static inline void suite_redis_setup(void) {
  suite_redis_up = false;
  memset(&suite_redis, 0, sizeof suite_redis);
  if (!redis_installed()) {
    printf("skipped: redis-server is not installed (make deps-test "
           "installs it); the tests that need it pass without running\n");
    fflush(stdout);
    return;
  }
  suite_redis_up = redis_proc_start(&suite_redis, 0);
  if (!suite_redis_up) {
    printf("skipped: redis-server did not start on 127.0.0.1\n");
    fflush(stdout);
  }
}

static inline void suite_redis_teardown(void) {
  redis_proc_finish(&suite_redis);
  suite_redis_up = false;
}

/* At the top of a test that needs the suite's server: returns from the
 * test (passing) without one, else empties it. */
#define NEED_REDIS()                                                           \
  do {                                                                         \
    if (!suite_redis_up) return;                                               \
    redisReply *flushed_ = redis_sync(suite_redis.port, "FLUSHALL");           \
    ck_assert_ptr_nonnull(flushed_);                                           \
    ck_assert_int_eq(flushed_->type, REDIS_REPLY_STATUS);                      \
    freeReplyObject(flushed_);                                                 \
  } while (0)

#endif
