/* server/verdict: the shell error of two model-space matrices, the metric
 * of every comparison of poses (POST /v1/compare, goldens, test suites).
 *
 * ACL's "shell distance": points at distance s from the joint along its
 * three axes move with its rotation and scale as well as its
 * translation, so one number in model units says how far apart two poses
 * of a joint are, wherever its skin lies within s of it. */
#ifndef ANIMD_SERVER_VERDICT_SHELL_H
#define ANIMD_SERVER_VERDICT_SHELL_H

/* For model matrices ma, mb (16 floats each, column-major as the API
 * answers them) and shell s: max over p in {0, s*x, s*y, s*z} of
 * |ma.p - mb.p|, in double. */
double verdict_shell_error(const float *ma, const float *mb, double shell);

#endif
