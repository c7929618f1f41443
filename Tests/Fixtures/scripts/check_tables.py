"""Reads trace-view's --format json and --format tsv tables with Python's own json and csv
modules and checks them against what it computes itself from the JSON Lines trace: the same
rows in both formats, every value as the trace says. Usage: check_tables.py TRACE_VIEW TRACE.jsonl SCRATCH_DIR
Prints 'tables ok: N rows' and exits 0, or raises."""
import csv
import io
import json
import os
import subprocess
import sys

tool, trace = sys.argv[1], sys.argv[2]
events = [json.loads(line) for line in open(trace)]
events = [e for e in events if e["kind"] not in ("counts", "process")]


def run(command, fmt, path=trace):
    done = subprocess.run([tool] + command + ["--format", fmt, path], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (command, fmt, done.returncode, done.stderr)
    return done.stdout


def table(command, path=trace):
    """The JSON Lines rows, checked equal to the TSV rows (each JSON row carries its shape's
    `schema_version` besides the columns)."""
    rows = [json.loads(line) for line in run(command, "json", path).splitlines()]
    for row in rows:
        assert row.pop("schema_version") == 1, (command, row)
    tsv = list(csv.DictReader(io.StringIO(run(command, "tsv", path)), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert len(rows) == len(tsv), (command, len(rows), len(tsv))
    for row, text in zip(rows, tsv):
        assert list(row) == list(text), (command, list(row), list(text))
        for key, value in row.items():
            if value is None:
                assert text[key] == "", (command, key, text[key])
            elif isinstance(value, bool):
                assert text[key] == ("true" if value else "false")
            elif isinstance(value, list) and all(isinstance(v, int) for v in value):
                assert text[key] == ",".join(map(str, value)), (command, key)
            elif isinstance(value, (list, dict)):
                assert json.loads(text[key]) == value, (command, key)
            else:
                assert text[key] == str(value), (command, key, text[key], value)
    return rows


def key(e):
    return (e["runtime"], e.get("pid"))


checked = 0

# tasks: one row per instance; ran_ns is its end's time − its spawn's.
spawns = {key(e) + (e["task"],): e for e in events if e["kind"] == "taskSpawn"}
ends = {}
for e in events:
    if e["kind"] in ("taskCancel", "taskSettle"):
        ends.setdefault(key(e) + (e["task"],), e)
rows = table(["tasks"])
assert {(r["runtime"], r["pid"], r["task"]) for r in rows} == set(spawns)
for r in rows:
    k = (r["runtime"], r["pid"], r["task"])
    assert r["name"] == spawns[k]["name"] and r["policy"] == spawns[k]["policy"]
    assert r["spawned_ns"] == spawns[k]["time"]
    assert r["ran_ns"] == (ends[k]["time"] - spawns[k]["time"] if k in ends else None), r
checked += len(rows)

# slow: the slowest ten, latencies resume − dispatch, parts adding up.
dispatches = {key(e) + (e["dispatch"],): e for e in events if e["kind"] == "dispatch"}
latencies = {}
for e in events:
    if e["kind"] == "requestResume":
        k = key(e) + (e["dispatch"],)
        latencies[k] = e["time"] - dispatches[k]["time"]
rows = table(["slow"])
assert len(rows) == min(10, len(latencies))
assert [r["total_ns"] for r in rows] == sorted(latencies.values(), reverse=True)[: len(rows)]
for r in rows:
    k = (r["runtime"], r["pid"], r["dispatch"])
    assert r["total_ns"] == latencies[k] and r["label"] == dispatches[k]["event"]
    assert sum(p["ns"] for p in r["parts"]) == r["total_ns"]
checked += len(rows)

# summary: one row per runtime with its events and span.
rows = table(["summary"])
runtimes = {}
for e in events:
    runtimes.setdefault(key(e), []).append(e["time"])
assert {(r["runtime"], r["pid"]) for r in rows} == set(runtimes)
for r in rows:
    times = runtimes[(r["runtime"], r["pid"])]
    assert (r["events"], r["first_ns"], r["last_ns"]) == (len(times), min(times), max(times)), r
    assert r["transducer"] == "Storefront" and r["host"] == "vm"
checked += len(rows)

# contention: per runtime and label (each runtime has its own gate), cycles and their holds
# (leave − enter), awaited requests resumed; with --pooled, per label over every runtime.
label_of = {k: d["event"] for k, d in dispatches.items()}
enters = {key(e) + (e["cycle"],): e for e in events if e["kind"] == "cycleEnter"}
held, cycles, requests = {}, {}, {}
for e in events:
    if e["kind"] == "cycleLeave":
        enter = enters[key(e) + (e["cycle"],)]
        label = key(e) + (label_of[key(e) + (enter["dispatch"],)],)
        held[label] = held.get(label, 0) + e["time"] - enter["time"]
        cycles[label] = cycles.get(label, 0) + 1
entered = {key(e) + (e["dispatch"],) for e in events if e["kind"] == "cycleEnter"}
for k in latencies:
    if dispatches[k]["style"] in ("send", "request", "uniqueRequest") and k in entered:
        label = k[:-1] + (label_of[k],)
        requests[label] = requests.get(label, 0) + 1


def pooled(counts):
    out = {}
    for k, v in counts.items():
        out[k[-1]] = out.get(k[-1], 0) + v
    return out


rows = table(["contention"])
assert len({(r["runtime"], r["pid"]) for r in rows}) == len({k[:-1] for k in cycles}) > 1, rows
found = {(r["runtime"], r["pid"], r["label"]): r for r in rows}
assert set(found) == set(cycles) | set(requests), (set(found), set(cycles))
for k, r in found.items():
    assert (r["cycles"], r["held_ns"], r["requests"]) == (cycles.get(k, 0), held.get(k, 0), requests.get(k, 0)), r
checked += len(rows)
rows = table(["contention", "--pooled"])
held, cycles, requests = pooled(held), pooled(cycles), pooled(requests)
assert {r["label"] for r in rows} == set(cycles) | set(requests)
for r in rows:
    assert r["runtime"] is None and r["pid"] is None, r
    assert (r["cycles"], r["held_ns"], r["requests"]) == (cycles.get(r["label"], 0), held.get(r["label"], 0),
                                                          requests.get(r["label"], 0)), r
checked += len(rows)

# check: no row on the whole trace; a trace missing one resume has its violation.
assert table(["check"]) == []
tampered = os.path.join(sys.argv[3], "tampered.jsonl")
resume = next(e for e in events if e["kind"] == "requestResume")
with open(tampered, "w") as out:
    for e in events:
        if e is not resume:
            out.write(json.dumps(e) + "\n")
done = subprocess.run([tool, "check", "--format", "json", tampered], capture_output=True, text=True, timeout=60)
assert done.returncode == 1, done
rows = [json.loads(line) for line in done.stdout.splitlines()]
assert any(r["rule"] == "resumedExactlyOnce" and r["runtime"] == resume["runtime"] for r in rows), rows
checked += len(rows)
print(f"tables ok: {checked} rows")
