/* animd core library (libanimd): the umbrella header.
 *
 * Pure C11 + libm: math, skeletons, clips, sampling, blending, hierarchy,
 * skinning and the position solver. No I/O, no threads, no allocation
 * inside a job's run. */
#ifndef ANIMD_ANIMD_H
#define ANIMD_ANIMD_H

#include "animd/base.h"
#include "animd/math.h"
#include "animd/skeleton.h"
#include "animd/clip.h"
#include "animd/events.h"
#include "animd/pose.h"
#include "animd/sampling.h"
#include "animd/blend.h"
#include "animd/blend_space.h"
#include "animd/motion.h"
#include "animd/hierarchy.h"
#include "animd/skinning.h"
#include "animd/solve.h"
#include "animd/morph.h"
#include "animd/ik.h"
#include "animd/retarget.h"
#include "animd/kernels.h"

#define ANIMD_VERSION "0.1.0"

#endif
