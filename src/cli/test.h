/* cli: the offline `animd test` command: a test suite run on asset files
 * and its report printed, the same bytes POST /v1/test answers for the
 * same suite and assets (but for JUnit's measured times). */
#ifndef ANIMD_CLI_TEST_H
#define ANIMD_CLI_TEST_H

#include <stdio.h>

/* argv[0] is "test". Prints the report to out (or the -o file), errors to
 * err. Returns the process exit status: 0 every case passed, 1 a case
 * failed, 2 bad usage, a bad suite or asset file, or a name the files do
 * not hold. */
int srv_test_main(int argc, char **argv, FILE *out, FILE *err);

/* The usage line of `animd test`, indented by indent spaces. */
void srv_test_synopsis(FILE *out, int indent);

#endif
