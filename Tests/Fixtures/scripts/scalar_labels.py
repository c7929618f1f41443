#!/usr/bin/env python3
"""Writes the scalar label corpus as a JSON Lines trace: every character an output language
treats as markup or a delimiter, beside each Unicode scalar that joins it into one grapheme
cluster with a neighbour (combining mark, prepended concatenation mark, ZWJ, variation selector,
regional indicator), and beside CR/LF pairs, NUL, U+2028/9, a bidi override and invalid UTF-8.
Each label is a request's event, its task's name and the task's settle label.

Usage: scalar_labels.py TRACE [--plain] [--labels JSON]

--plain writes the same trace with each label replaced by `label<N>` (the structure every
export must keep whatever the labels hold); --labels writes the labels as decoded (invalid UTF-8
as U+FFFD) in a JSON array, in dispatch order."""
import json
import sys

SPECIALS = ["<", ">", "&", '"', "'", ",", ";", ":", "#", "*", "/", "-", "_", "~", "=", "\\", "`", "|",
            "{", "}", "[", "]", "%", "$", "(", ")", "\t", "\n", "\r", "\r\n"]
NEIGHBOURS = ["\u0301", "\u0600", "\u200d", "\ufe0f", "\U0001F1FA", "\r\n", "\x00", "\u2028", "\u2029",
              "\u202e", "\u0308\u0301"]
# The script payloads each output is tried with: an HTML handler, a closing tag, a CSV row.
PAYLOADS = [
    "\u0600<img src=x onerror=\"window.pwned=1;document.title='PWNED';console.log('PWNED')\">\u0301",
    "</text></svg><script>window.pwned=2</script>\u0301",
    "\u0600</template><img src=x onerror=window.pwned=3>",
    "x\r\n999,FORGED-ROW,\u0301",
    "x\u0301\",\"FORGED\u0301",
    "\u0600'\u0301 onmouseover='window.pwned=4'",
    "</script><script>window.pwned=5</script>",
]
INVALID = [b"bad\xffutf8<", b"\xc3(\xc3&", b"\xed\xa0\x80<lone surrogate>"]


def labels():
    out = []
    for s in SPECIALS:
        for n in NEIGHBOURS:
            for label in (n + s, s + n, n + s + n):
                if label not in out:
                    out.append(label)
    return out + PAYLOADS


def main():
    args = sys.argv[1:]
    path = args[0]
    plain = "--plain" in args
    texts = [l.encode("utf-8", "surrogatepass") for l in labels()] + INVALID
    if plain:
        texts = [f"label{i}".encode() for i in range(len(texts))]
    if "--labels" in args:
        with open(args[args.index("--labels") + 1], "w") as f:
            json.dump([t.decode("utf-8", "replace") for t in texts], f)
    t = 1_000_000_000
    start = {"kind": "runtimeStart", "time": t, "thread": 1, "runtime": 1, "transducer": "Corpus",
             "host": "BaseRuntime", "queue_capacity": 1024}
    cycle = 0
    dispatch = 0
    with open(path, "wb") as f:
        def emit(obj, label=None):
            """One event's line; `label` (a field name and raw bytes) goes in as the bytes are,
            invalid UTF-8 included, with only what JSON requires escaped."""
            nonlocal t
            t += 1000
            obj.update(time=t, thread=1, runtime=1)
            text = json.dumps(obj, separators=(",", ":")).encode()
            if label is not None:
                field, raw = label
                escaped = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"')
                for c in range(0x20):
                    escaped = escaped.replace(bytes([c]), b"\\u%04x" % c)
                text = text[:-1] + b',"' + field.encode() + b'":"' + escaped + b'"}'
            f.write(text + b"\n")
        f.write(json.dumps(start, separators=(",", ":")).encode() + b"\n")
        for i, raw in enumerate(texts):
            dispatch += 1
            request = dispatch
            cycle += 1
            task = i + 1
            emit({"kind": "dispatch", "dispatch": request, "style": "request", "origin_task": 0,
                  "queue_depth": 1}, ("event", raw))
            emit({"kind": "cycleEnter", "cycle": cycle, "dispatch": request, "waited_ns": 1000, "queue_depth": 0})
            emit({"kind": "transduce", "cycle": cycle, "step": 0}, ("event", raw))
            emit({"kind": "taskSpawn", "task": task, "policy": "switchToLatest", "cycle": cycle, "waiters": 1,
                  "replaces": 0}, ("name", raw))
            emit({"kind": "effect", "cycle": cycle, "step": 0, "effect_kind": "task", "duration_ns": 500},
                 ("task", raw))
            emit({"kind": "cycleLeave", "cycle": cycle, "outcome": "handedOff", "steps": 1, "held_ns": 4000})
            if i >= len(texts) - len(PAYLOADS) - len(INVALID):
                t += 1_000_000  # the payloads and the invalid UTF-8 are the slowest requests: the report draws them
            emit({"kind": "taskSettle", "task": task, "outcome": "request", "ran_ns": 3000}, ("label", raw))
            dispatch += 1
            cycle += 1
            emit({"kind": "dispatch", "dispatch": dispatch, "style": "taskRequest", "origin_task": task,
                  "queue_depth": 1}, ("event", raw))
            emit({"kind": "cycleEnter", "cycle": cycle, "dispatch": dispatch, "waited_ns": 1000, "queue_depth": 0})
            emit({"kind": "transduce", "cycle": cycle, "step": 0}, ("event", raw))
            emit({"kind": "effect", "cycle": cycle, "step": 0, "effect_kind": "none", "task": "", "duration_ns": 200})
            emit({"kind": "cycleLeave", "cycle": cycle, "outcome": "settled", "steps": 1, "held_ns": 3000})
            emit({"kind": "requestResume", "dispatch": request, "outcome": "response", "error": "", "by_cycle": cycle,
                  "by_task": 0, "latency_ns": 11000})


if __name__ == "__main__":
    main()
