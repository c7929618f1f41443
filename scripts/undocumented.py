#!/usr/bin/env python3
"""Lists the public declarations of a module's symbol graph that have no doc comment.

Usage: scripts/undocumented.py SYMBOL_GRAPH.json [--count]
Synthesized and inherited symbols (no source location, or documented elsewhere) are skipped;
enum cases count, since a reader of the API meets each one.
"""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import json
import sys

graph = json.load(open(sys.argv[1]))
missing = []
for symbol in graph["symbols"]:
    if "location" not in symbol or symbol.get("docComment"):
        continue
    if symbol["accessLevel"] not in ("public", "open"):
        continue
    location = symbol["location"]
    path = location["uri"].split("/Sources/")[-1]
    line = location["position"]["line"] + 1
    missing.append(f'{path}:{line}: {symbol["kind"]["displayName"].lower()} {".".join(symbol["pathComponents"])}')
if "--count" in sys.argv:
    print(len(missing))
else:
    print("\n".join(sorted(missing)))
