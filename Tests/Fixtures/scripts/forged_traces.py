#!/usr/bin/env python3
"""Prints a forged JSON Lines trace that no runtime writes, for `check`'s tests.

Usage: forged_traces.py MODE

Modes: dispatch-ids (one dispatch id three times), cycle-ids (one cycle id three times),
unknown-resume (a resume of a dispatch never made), backwards (every event earlier than the one
before), footer (a counts line claiming 2^63 lost events)."""
import json
import sys


def ev(**fields):
    return json.dumps(fields)


def request(dispatch, cycle, t):
    return [
        ev(kind="dispatch", time=t, thread=1, runtime=1, dispatch=dispatch, style="request", event="x", origin_task=0,
           queue_depth=1),
        ev(kind="cycleEnter", time=t + 1, thread=1, runtime=1, cycle=cycle, dispatch=dispatch, waited_ns=1, queue_depth=0),
        ev(kind="transduce", time=t + 2, thread=1, runtime=1, cycle=cycle, step=0, event="x"),
        ev(kind="cycleLeave", time=t + 3, thread=1, runtime=1, cycle=cycle, outcome="settled", steps=1, held_ns=2),
        ev(kind="requestResume", time=t + 4, thread=1, runtime=1, dispatch=dispatch, outcome="response", error="",
           by_cycle=cycle, by_task=0, latency_ns=4),
    ]


mode = sys.argv[1]
lines = [ev(kind="runtimeStart", time=1000, thread=1, runtime=1, transducer="F", host="h", queue_capacity=8)]
if mode == "dispatch-ids":
    for i in range(3):
        lines += request(1, i + 1, 1000 + 10 * (i + 1))
elif mode == "cycle-ids":
    for i in range(3):
        lines += request(i + 1, 1, 1000 + 10 * (i + 1))
elif mode == "unknown-resume":
    lines += request(1, 1, 1010)
    lines.append(ev(kind="requestResume", time=1050, thread=1, runtime=1, dispatch=77, outcome="response", error="",
                    by_cycle=1, by_task=0, latency_ns=4))
elif mode == "backwards":
    for i in range(3):
        lines += request(i + 1, i + 1, 0)
    t = 10**9
    for i in range(1, len(lines)):
        event = json.loads(lines[i])
        event["time"] = t
        t -= 10
        lines[i] = json.dumps(event)
elif mode == "footer":
    lines += request(1, 1, 1010)
    lines.append(ev(kind="counts", events=6, overwritten=0, discarded=0, lost=2**63))
else:
    sys.exit(f"unknown mode {mode}")
print("\n".join(lines))
