"""The rig of the test-suite scripts (t_suite.py, t_fleet_suite.py): a
three-joint arm whose spine turns 90 degrees about z over a second, the
hand 0.5 out along its x, so the hand is at (0.5, 1.5, 0) at t = 0 and
(0, 2, 0) at t = 1; MOVED is the same rig with the last key moved (the
spine turns 60 degrees)."""
import copy

ARM = {"skeleton": {"name": "arm", "joints": [
    {"name": "hips", "parent": -1, "translation": [0, 1, 0]},
    {"name": "spine", "parent": 0, "translation": [0, 0.5, 0]},
    {"name": "hand", "parent": 1, "translation": [0.5, 0, 0]}]},
    "clips": [{"name": "raise", "tracks": [
        {"joint": "spine", "path": "rotation", "times": [0, 1],
         "values": [0, 0, 0, 1, 0, 0, 0.70710678, 0.70710678]}]}]}

MOVED = copy.deepcopy(ARM)
MOVED["clips"][0]["tracks"][0]["values"][4:] = [0, 0, 0.5, 0.8660254]


def pose(t):
    """A POST /v1/pose body: the arm's clip at t."""
    return {"skeleton": "arm", "layers": [{"clip": "raise", "t": t}]}
