/* server/request: the "ik" request field (docs/api.md "IK"): two-bone and
 * aim inverse kinematics (animd/ik.h) applied in order, in model space,
 * after sampling or blending and before skinning.
 *
 * A row of the table of request fields (fields.h): its value is the JSON
 * array of the request, parsed with every default filled in and every
 * axis normalized (a zero axis is refused), its joint names resolved to
 * the skeleton's storage indices (each two-bone chain's joints checked to
 * be ancestors in order), and its answer two floats per entry, reached
 * (0 or 1) and error (two-bone: the distance from end to target; aim: the
 * angle in radians between the forward axis and the target), printed as
 * "ik": [{"reached", "error"}]. */
#ifndef ANIMD_SERVER_REQUEST_IK_FIELD_H
#define ANIMD_SERVER_REQUEST_IK_FIELD_H

#include "server/request/fields.h"

/* Most entries an "ik" array holds. */
#define SRV_IK_MAX 32

extern const srv_field_t srv_ik_field;

#endif
