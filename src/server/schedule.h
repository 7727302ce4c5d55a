/* server: the one scheduling policy of the HTTP loop: cheap work runs
 * inline on the loop thread under a per-iteration cost budget, the rest
 * goes to the worker pool. Single requests (http/task.h) and streamed
 * ranges (http/range.h) both ask it, with costs from the same model.
 *
 * Cost units: a pose of N joints evaluated costs N; a skinned vertex
 * costs 1/16 of a joint (srv_cost_*). A JSON answer prints every float as
 * text, several times the cost of evaluating it (a 67-joint model-space
 * answer, 1,072 floats, prints in about 6 us with fmt_float_list's
 * AVX-512 kernel and 18 us without: make bench, bench_answer), and counts
 * SRV_JSON_COST times its evaluation cost: a
 * 67-joint JSON pose (2,144) stays above the default inline_cost (2,000)
 * and prints on the pool while the loop goes on reading and writing.
 * Measured with make bench-http, counted 12 times (inline) against 32 (on
 * the pool), in turn: 44,944 and 36,754 against 43,990 and 38,246
 * requests/s, p99 8.2 and 8.4 against 3.0 and 3.6 ms (and with the
 * printer at 18 us, counted 18 times against 32: 30,000 to 35,500 against
 * 34,200 to 35,800 requests/s, p99 5.3 to 7.4 against 4.2 to 4.7 ms). The
 * cost is counted as it is spent.
 *
 * Yield: after an iteration that ran work inline the loop gives up its CPU
 * (sched_yield) before it polls again, so that threads waiting for that
 * CPU run first (when none waits, the call returns at once). A loop under
 * load always has work: without the yield it never blocks, and a thread
 * waiting for its CPU (another loop, a pool worker, a stream loop, a
 * client on the same machine) waits until the kernel's scheduler tick
 * takes it away, up to two ticks (8 ms at 250 Hz) on a kernel that does
 * not preempt. Threads that keep a CPU once they have it (batch jobs)
 * would take it from the loop at every yield until the next tick: a
 * yield that took longer than SRV_YIELD_SLOW_NS makes the loop stop
 * yielding for a while (srv_schedule_next_pause), and the loop keeps its
 * share of the CPU beside them.
 * Measured with make bench-http and beside busy loops: see
 * docs/performance.md, "HTTP: make bench-http".
 *
 * One per HTTP loop; loop thread only (srv_schedule_rejected and
 * srv_schedule_yields may be read from any thread). */
#ifndef ANIMD_SERVER_SCHEDULE_H
#define ANIMD_SERVER_SCHEDULE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "server/pool.h"
#include "server/task_blocks.h"

/* Cost units one loop iteration may run inline (work below inline_cost
 * each); beyond the budget work goes to the pool, so the loop never stalls
 * for long on a burst. A 67-joint binary pose (cost 67) evaluates in about
 * 1 us, while handing it to a worker and back costs tens of microseconds
 * of wake-ups and locking, so under load inline is faster too. */
#define SRV_INLINE_BUDGET 8192

/* JSON work counts this many times its evaluation cost. */
#define SRV_JSON_COST 32

/* A yield that kept the loop off its CPU longer than this found threads
 * that keep a CPU; the pause before the next yield grows (2 x + this, up
 * to SRV_YIELD_PAUSE_MAX_NS), and halves after every quick yield. */
#define SRV_YIELD_SLOW_NS 1000000ull
#define SRV_YIELD_PAUSE_MAX_NS 128000000ull

/* Work that always goes to the pool (imports). */
#define SRV_COST_POOL ((unsigned long)-1)

typedef struct srv_schedule_s {
  /* private */
  srv_pool_t *_pool;
  srv_pool_inbox_t *_inbox; /* Where jobs come back; NULL: the pool's loop. */
  srv_job_t _trim;          /* srv_schedule_release_memory's job. */
  bool _trim_queued;        /* It is on the pool. */
  unsigned _inline_cost;
  unsigned long _spent;       /* This iteration's inline cost. */
  bool _yield;                /* Yield after an iteration with inline work. */
  _Atomic uint64_t _rejected; /* Jobs refused by a full pool. */
  _Atomic uint64_t _yields;   /* Times the loop yielded. */
  uint64_t _yield_pause;      /* Yields wait this long after the last one, */
  uint64_t _yield_resume;     /* that is until this uv_hrtime. */
  void (*_before_poll)(void *arg);
  void *_before_poll_arg;
  uv_prepare_t _tick;
  srv_task_blocks_t _blocks; /* Request tasks' memory (task_blocks.h). */
} srv_schedule_t;

/* Starts the policy on loop over pool: work below inline_cost (0: none)
 * may run inline; pool jobs come back through inbox (NULL when loop is the
 * pool's own). The budget resets before each poll; with yield, an
 * iteration that ran work inline ends with a sched_yield (but for the
 * pause after slow ones). */
void srv_schedule_init(srv_schedule_t *s, uv_loop_t *loop, srv_pool_t *pool,
                       srv_pool_inbox_t *inbox, unsigned inline_cost,
                       bool yield);
/* Calls fn(arg) once per loop iteration, before the loop polls (and
 * before a yield): what the iteration gathered (log lines) goes out then,
 * in one go. */
void srv_schedule_before_poll(srv_schedule_t *s, void (*fn)(void *arg),
                              void *arg);
/* Closes its handle (the loop must run once more to finish) and frees
 * the task blocks it keeps. */
void srv_schedule_close(srv_schedule_t *s);

/* The loop's task memory (task_blocks.h). */
static inline srv_task_blocks_t *srv_schedule_blocks(srv_schedule_t *s) {
  return &s->_blocks;
}

/* The scheduling cost of work of evaluation cost `cost` answered in binary
 * or JSON. */
static inline unsigned long srv_cost_answer(unsigned long cost, bool bin) {
  return bin ? cost : cost * SRV_JSON_COST;
}

/* The one rule of where work runs, for every loop: work of that cost may
 * run on a loop thread when it is below inline_cost (0: none may), else
 * it goes to the pool. An HTTP loop also holds inline work to a budget
 * per iteration (srv_schedule_inline); a stream loop asks this alone. */
static inline bool srv_cost_inline(unsigned long cost, unsigned inline_cost) {
  return cost < inline_cost;
}

/* True when work of that cost runs on the loop thread now (counted). */
bool srv_schedule_inline(srv_schedule_t *s, unsigned long cost);

/* Queues job on the pool. Returns 0, or UV_EAGAIN when the queue is full
 * (counted in srv_schedule_rejected). */
int srv_schedule_submit(srv_schedule_t *s, srv_job_t *job);

uint64_t srv_schedule_rejected(srv_schedule_t *s);

/* Times the loop gave up its CPU after an iteration with inline work. */
uint64_t srv_schedule_yields(srv_schedule_t *s);

/* The pause before the next yield, after one that took took_ns with the
 * pause at pause_ns (the rule at SRV_YIELD_SLOW_NS). */
uint64_t srv_schedule_next_pause(uint64_t pause_ns, uint64_t took_ns);

/* Gives freed heap back to the system (malloc_trim) on a worker, after a
 * large free: trimming walks every arena and returns their free pages one
 * by one, tens to hundreds of milliseconds after a big body, which the
 * loop must not wait for. At most one such job is queued at a time; a
 * full pool skips it. */
void srv_schedule_release_memory(srv_schedule_t *s);

#endif
