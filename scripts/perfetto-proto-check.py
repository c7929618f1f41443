#!/usr/bin/env python3
"""Reads a Perfetto protobuf trace with the Perfetto project's own Python definitions
(`perfetto_trace_pb2` from PyPI's `perfetto` package, see scripts/python-readers.sh) and checks
what a reader relies on: every track an event names is described, every parent track exists,
every interned id is defined on its sequence before it is used, every time is on a clock the
trace relates to its own (through a clock snapshot), every slice's begin has its end
on its track (nested, in time order), every flow is linked. Prints one JSON object: counts, the
problems found (an empty list when none), each request slice as [start, duration, dispatch,
outcome, trace id or null] (ns, by time), each process as [pid, name, labels], each thread
descriptor as [pid, tid] (with the instants on thread tracks), and each counter track as [name,
number of values].

Usage: perfetto-proto-check.py TRACE.pftrace
Exit status: 0 with the JSON on stdout (problems included); 2 when the file does not parse."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import json
import sys
from collections import defaultdict

sys.dont_write_bytecode = True
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb  # noqa: E402

BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def main():
    raw = open(sys.argv[1], "rb").read()
    trace = pb.Trace()
    try:
        trace.ParseFromString(raw)
    except Exception as error:  # the protobuf library's own refusal
        print(f"perfetto-proto-check: does not parse: {error}", file=sys.stderr)
        return 2
    problems = []
    descriptors = {}
    interned = defaultdict(dict)  # (sequence, table) -> {iid: text}
    events = []  # (ts, order, sequence, track_event)
    cleared = set()
    # Times: a packet's timestamp is on its clock (its own, or its sequence's default), turned
    # into the trace's clock (the snapshot's primary) through the sequence's clock snapshot.
    default_clock = {}
    snapshots = {}
    primary = 6  # BOOTTIME, Perfetto's default
    for order, packet in enumerate(trace.packet):
        sequence = packet.trusted_packet_sequence_id
        if packet.sequence_flags & 1:
            cleared.add(sequence)
        if packet.HasField("trace_packet_defaults") and packet.trace_packet_defaults.HasField("timestamp_clock_id"):
            default_clock[sequence] = packet.trace_packet_defaults.timestamp_clock_id
        if packet.HasField("clock_snapshot"):
            snapshots[sequence] = {c.clock_id: c.timestamp for c in packet.clock_snapshot.clocks}
            if packet.clock_snapshot.HasField("primary_trace_clock"):
                primary = packet.clock_snapshot.primary_trace_clock
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            descriptors[d.uuid] = d
        if packet.HasField("interned_data"):
            if sequence not in cleared:
                problems.append(f"packet {order}: interned data before the sequence's state was cleared")
            data = packet.interned_data
            for table, entries, text in (("names", data.event_names, "name"),
                                         ("categories", data.event_categories, "name"),
                                         ("argument_names", data.debug_annotation_names, "name"),
                                         ("texts", data.debug_annotation_string_values, "str")):
                for entry in entries:
                    value = getattr(entry, text)
                    interned[(sequence, table)][entry.iid] = value.decode() if isinstance(value, bytes) else value
        if packet.HasField("track_event"):
            e = packet.track_event
            if (e.name_iid or e.category_iids or any(a.name_iid for a in e.debug_annotations)) and not (
                    packet.sequence_flags & 2):
                problems.append(f"packet {order}: interned ids without SEQ_NEEDS_INCREMENTAL_STATE")
            known = interned[(sequence, "names")]
            if e.name_iid and e.name_iid not in known:
                problems.append(f"packet {order}: name iid {e.name_iid} not interned")
            for iid in e.category_iids:
                if iid not in interned[(sequence, "categories")]:
                    problems.append(f"packet {order}: category iid {iid} not interned")
            for a in e.debug_annotations:
                if a.name_iid not in interned[(sequence, "argument_names")]:
                    problems.append(f"packet {order}: argument name iid {a.name_iid} not interned")
                if a.HasField("string_value_iid") and a.string_value_iid not in interned[(sequence, "texts")]:
                    problems.append(f"packet {order}: string iid {a.string_value_iid} not interned")
            clock = packet.timestamp_clock_id if packet.HasField("timestamp_clock_id") else default_clock.get(sequence, primary)
            time = packet.timestamp
            if clock != primary:
                snapshot = snapshots.get(sequence, {})
                if clock not in snapshot or primary not in snapshot:
                    problems.append(f"packet {order}: clock {clock} has no snapshot against the trace's clock")
                else:
                    time = time - snapshot[clock] + snapshot[primary]
            events.append((time, order, sequence, e))
    for uuid, d in descriptors.items():
        if d.parent_uuid and d.parent_uuid not in descriptors:
            problems.append(f"track {uuid} ({d.name}): parent {d.parent_uuid} is not described")

    # Slices per track, in time order (ties in file order, as Perfetto's sorter keeps them).
    events.sort(key=lambda x: (x[0], x[1]))
    stacks = defaultdict(list)
    slices = 0
    requests = []
    flows = defaultdict(int)
    terminated = set()
    counters = defaultdict(int)
    for ts, order, sequence, e in events:
        if e.track_uuid not in descriptors:
            problems.append(f"packet {order}: track {e.track_uuid} is not described")
            continue
        for uuid in e.extra_counter_track_uuids:
            if uuid not in descriptors or not descriptors[uuid].HasField("counter"):
                problems.append(f"packet {order}: extra counter track {uuid} is not a described counter")
            counters[uuid] += 1
        for flow in list(e.flow_ids) + list(e.terminating_flow_ids):
            if flow in terminated:
                problems.append(f"packet {order}: flow {flow} goes on after it ended")
            flows[flow] += 1
        terminated.update(e.terminating_flow_ids)
        if e.type == BEGIN:
            stacks[e.track_uuid].append((ts, e))
        elif e.type == END:
            if not stacks[e.track_uuid]:
                problems.append(f"packet {order}: an end on track {e.track_uuid} with no slice open")
                continue
            start, begin = stacks[e.track_uuid].pop()
            slices += 1
            categories = [interned[(sequence, "categories")].get(i) for i in begin.category_iids]
            if "request" in categories:
                names = interned[(sequence, "argument_names")]
                texts = interned[(sequence, "texts")]
                arguments = {names.get(a.name_iid): a for a in begin.debug_annotations}
                dispatch = arguments["dispatch"].uint_value if "dispatch" in arguments else None
                outcome = texts.get(arguments["outcome"].string_value_iid) if "outcome" in arguments else None
                trace_id = texts.get(arguments["trace_id"].string_value_iid) if "trace_id" in arguments else None
                requests.append([start, ts - start, dispatch, outcome, trace_id])
        elif e.type == INSTANT:
            slices += 1
        elif e.type == COUNTER:
            if not descriptors[e.track_uuid].HasField("counter"):
                problems.append(f"packet {order}: a counter value on track {e.track_uuid}, not a counter track")
            counters[e.track_uuid] += 1
    for uuid, stack in stacks.items():
        if stack:
            problems.append(f"track {uuid}: {len(stack)} slices never end")
    processes = sorted([d.process.pid, d.process.process_name, list(d.process.process_labels)]
                       for d in descriptors.values() if d.HasField("process"))
    threads = sorted([d.thread.pid, d.thread.tid] for d in descriptors.values() if d.HasField("thread"))
    for pid, tid in threads:
        if pid not in {p[0] for p in processes}:
            problems.append(f"thread {tid}: its pid {pid} has no process descriptor")
    thread_uuids = {u for u, d in descriptors.items() if d.HasField("thread")}
    thread_instants = sum(1 for _, _, _, e in events if e.type == INSTANT and e.track_uuid in thread_uuids)
    print(json.dumps({
        "bytes": len(raw),
        "packets": len(trace.packet),
        "tracks": len(descriptors),
        "slices": slices,
        "flows": len(flows),
        "links": sum(n - 1 for n in flows.values()),
        "unterminated_flows": len([f for f in flows if f not in terminated]),
        "counter_tracks": sorted([descriptors[u].name, n] for u, n in counters.items()),
        "requests": sorted(requests, key=lambda r: (r[0], r[1], r[2] or 0, r[3] or "", r[4] or "")),
        "processes": processes,
        "threads": threads,
        "names": sorted({n for (seq, table), values in interned.items() if table == "names" for n in values.values()}),
        "argument_names": sorted({n for (seq, table), values in interned.items() if table == "argument_names"
                                  for n in values.values()}),
        "thread_instants": thread_instants,
        "problems": problems[:50],
        "problem_count": len(problems),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
