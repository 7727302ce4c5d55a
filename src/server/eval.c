/* server: `animd eval` (eval.h). */
#include "server/eval.h"

int srv_eval_main(int argc, char **argv, FILE *out, FILE *err) {
  (void)argc;
  (void)argv;
  (void)out;
  fprintf(err, "animd eval: not available in this build\n");
  return 2;
}
