/* A preload library that counts lock acquisitions per thread kind: every
 * pthread_mutex_lock, pthread_rwlock_rdlock and pthread_rwlock_wrlock the
 * daemon makes, by the name of the thread making it (an HTTP loop thread,
 * the daemon's own thread, which is HTTP loop 0, or any other). At exit it
 * writes one line to stderr:
 *   locks: loop=N main=N other=N
 * Used by tests/e2e/t_locks_per_request.py (LD_PRELOAD, release build
 * only: a sanitizer's runtime must come first) to show what a request
 * locks on the loop that serves it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic unsigned long counts[3]; /* loop, main, other */

static int kind(void) {
  static __thread int cached = -1;
  if (cached < 0) {
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    cached = strncmp(name, "animd-http", 10) == 0 ? 0
             : strcmp(name, "animd") == 0         ? 1
                                                  : 2;
  }
  return cached;
}

#define COUNTED(fn, type)                                                      \
  int fn(type *l) {                                                            \
    static int (*real)(type *);                                                \
    if (real == NULL) *(void **)&real = dlsym(RTLD_NEXT, #fn);                 \
    atomic_fetch_add_explicit(&counts[kind()], 1, memory_order_relaxed);       \
    return real(l);                                                            \
  }

COUNTED(pthread_mutex_lock, pthread_mutex_t)
COUNTED(pthread_rwlock_rdlock, pthread_rwlock_t)
COUNTED(pthread_rwlock_wrlock, pthread_rwlock_t)

__attribute__((destructor)) static void report(void) {
  fprintf(stderr, "locks: loop=%lu main=%lu other=%lu\n",
          (unsigned long)counts[0], (unsigned long)counts[1],
          (unsigned long)counts[2]);
}
