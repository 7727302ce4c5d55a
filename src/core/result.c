/* animd core: names for anim_result codes. */
#include "animd/base.h"

static const char *const result_names[ANIM_RESULT_COUNT_] = {
    [ANIM_OK] = "ok",
    [ANIM_ERR_INVALID_ARGUMENT] = "invalid_argument",
    [ANIM_ERR_BUFFER_TOO_SMALL] = "buffer_too_small",
    [ANIM_ERR_OUT_OF_MEMORY] = "out_of_memory",
    [ANIM_ERR_NOT_FINITE] = "not_finite",
    [ANIM_ERR_ZERO_QUATERNION] = "zero_quaternion",
    [ANIM_ERR_PARENT_RANGE] = "parent_range",
    [ANIM_ERR_CYCLE] = "cycle",
    [ANIM_ERR_NAME_EMPTY] = "name_empty",
    [ANIM_ERR_NAME_DUPLICATE] = "name_duplicate",
    [ANIM_ERR_TOO_MANY_JOINTS] = "too_many_joints",
    [ANIM_ERR_JOINT_RANGE] = "joint_range",
    [ANIM_ERR_NO_KEYS] = "no_keys",
    [ANIM_ERR_TIMES_ORDER] = "times_order",
    [ANIM_ERR_TIME_NEGATIVE] = "time_negative",
    [ANIM_ERR_VALUE_COUNT] = "value_count",
    [ANIM_ERR_BEZIER_RANGE] = "bezier_range",
    [ANIM_ERR_DUPLICATE_TRACK] = "duplicate_track",
    [ANIM_ERR_WEIGHT] = "weight",
    [ANIM_ERR_INFLUENCES] = "influences",
    [ANIM_ERR_SINGULAR] = "singular",
    [ANIM_ERR_MISMATCH] = "mismatch",
};

const char *anim_result_str(anim_result r) {
  if ((unsigned)r >= ANIM_RESULT_COUNT_ || result_names[r] == 0)
    return "unknown";
  return result_names[r];
}
