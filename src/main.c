/* animd: the daemon (HTTP API v1 on one libuv loop) and the offline
 * `animd eval` and `animd test` commands.
 *
 * main owns process policy: flags and config, signals (SIGTERM/SIGINT
 * drain then exit 0, SIGHUP reopens the access log and re-reads the tokens
 * file, SIGPIPE ignored), and
 * the decision that a failure at start is fatal (exit 1, message on
 * stderr). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "animd/animd.h"
#include "server/config.h"
#include "cli/eval.h"
#include "cli/test.h"
#include "server/server.h"

static uv_signal_t sig_term, sig_int, sig_hup;
static srv_server_t *server;

static void close_signals(void) {
  uv_close((uv_handle_t *)&sig_term, NULL);
  uv_close((uv_handle_t *)&sig_int, NULL);
  uv_close((uv_handle_t *)&sig_hup, NULL);
}

static void on_drained(srv_server_t *s) {
  (void)s;
  close_signals();
}

static void on_stop_signal(uv_signal_t *h, int signum) {
  (void)h;
  fprintf(stderr, "animd: signal %d: draining\n", signum);
  srv_server_drain(server, on_drained);
}

static void on_hup(uv_signal_t *h, int signum) {
  (void)h;
  (void)signum;
  srv_server_reload(server); /* It reports on stderr. */
}

/* `animd --help`: the usage lines of every command (generated from their
 * option tables) and the daemon's options with their defaults. */
static void print_help(FILE *out) {
  char *commands = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&commands, &len);
  if (f != NULL) {
    srv_eval_synopsis(f, 7);
    srv_test_synopsis(f, 7);
    fclose(f);
  }
  srv_config_print_help_with(out, commands);
  free(commands);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("animd %s\n", ANIMD_VERSION);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "eval") == 0)
    return srv_eval_main(argc - 1, argv + 1, stdout, stderr);
  if (argc > 1 && strcmp(argv[1], "test") == 0)
    return srv_test_main(argc - 1, argv + 1, stdout, stderr);

  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      print_help(stdout);
      return 0;
    }

  srv_config_t cfg;
  srv_config_defaults(&cfg);
  char err[1024];
  int rc = srv_config_parse_args(&cfg, argc, argv, stdout, err, sizeof err);
  if (rc == 1) return 0;
  if (rc != 0) {
    fprintf(stderr, "animd: %s\n", err);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);

  uv_loop_t *loop = uv_default_loop();
  rc = srv_server_new(loop, &cfg, &server, err, sizeof err);
  if (rc != 0) {
    fprintf(stderr, "animd: %s\n", err);
    uv_run(loop, UV_RUN_DEFAULT); /* What it made closes. */
    return 1;
  }
  rc = srv_server_listen(server);
  if (rc != 0) {
    fprintf(stderr, "animd: listen %s: %s\n", cfg.listen, uv_strerror(rc));
    srv_server_drain(server, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
    srv_server_free(server);
    return 1;
  }
  char line[2048];
  srv_server_describe(server, line, sizeof line);
  fprintf(stderr, "%s\n", line);

  uv_signal_init(loop, &sig_term);
  uv_signal_start(&sig_term, on_stop_signal, SIGTERM);
  uv_signal_init(loop, &sig_int);
  uv_signal_start(&sig_int, on_stop_signal, SIGINT);
  uv_signal_init(loop, &sig_hup);
  uv_signal_start(&sig_hup, on_hup, SIGHUP);

  uv_run(loop, UV_RUN_DEFAULT);
  srv_server_free(server);
  rc = uv_loop_close(loop);
  if (rc != 0) fprintf(stderr, "animd: loop close: %s\n", uv_strerror(rc));
  fprintf(stderr, "animd: stopped\n");
  return 0;
}
