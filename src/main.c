/* animd: the daemon and the offline `animd eval` command. */
#include <stdio.h>
#include <string.h>

#include "animd/animd.h"

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("animd %s\n", ANIMD_VERSION);
    return 0;
  }
  fprintf(stderr, "animd %s: the server is not built yet\n", ANIMD_VERSION);
  return 2;
}
