/* server: the offline `animd eval` command: evaluates one pose from an
 * asset file and prints exactly what GET /v1/pose would answer. */
#ifndef ANIMD_SERVER_EVAL_H
#define ANIMD_SERVER_EVAL_H

#include <stdio.h>

/* argv[0] is "eval". Returns the process exit status. */
int srv_eval_main(int argc, char **argv, FILE *out, FILE *err);

#endif
