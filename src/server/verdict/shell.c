/* server/verdict: the shell error (shell.h). */
#include "server/verdict/shell.h"

#include <math.h>

double verdict_shell_error(const float *ma, const float *mb, double shell) {
  /* M.p for p = (0,0,0,1) is column 3; for p = s*e_k it is column 3 plus
   * s times column k. */
  double d0[3], worst = 0;
  for (int i = 0; i < 3; i++) d0[i] = (double)ma[12 + i] - (double)mb[12 + i];
  worst = d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2];
  for (int k = 0; k < 3; k++) {
    double e = 0;
    for (int i = 0; i < 3; i++) {
      double d =
          d0[i] + shell * ((double)ma[4 * k + i] - (double)mb[4 * k + i]);
      e += d * d;
    }
    if (e > worst) worst = e;
  }
  return sqrt(worst);
}
