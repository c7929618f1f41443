#!/usr/bin/env python3
"""Reads one export of the scalar label corpus (scalar_labels.py) and of its plain twin with the
format's own reader, and prints one JSON object: `problems` (empty when all is well) and `read`
(how many labels were found whole).

Usage: check_exports.py FORMAT HOSTILE PLAIN LABELS_JSON

The oracle is the twin: the same trace with every label `label<N>`. Whatever the labels hold,
an export must parse (expat for SVG, Python's csv and json modules), and must have the twin's
structure: the same elements and attributes, rows and fields, JSON shape, diagram lines and
statements. Where a format keeps the label (JSON, CSV, SVG text), the label must be read back:
exactly in JSON; in CSV with the C0 and C1 controls (other than tab, LF, CR) as the escapes every
output shows; in SVG on one line (line breaks as spaces, controls and bidi as `?`)."""
import csv
import io
import json
import re
import sys
import xml.parsers.expat

sys.dont_write_bytecode = True

UNSAFE = set(range(0x20)) | set(range(0x7F, 0xA0)) | {0x61C, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF} \
    | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def one_line(label):
    out = []
    for c in label:
        v = ord(c)
        if c in "\n\r\u2028\u2029":
            out.append(" ")
        elif v in UNSAFE or v in (0xFFFE, 0xFFFF):
            out.append("?")
        else:
            out.append(c)
    return "".join(out)


def control_escaped(label):
    out = []
    for c in label:
        v = ord(c)
        if (v < 0x20 and c not in "\t\n\r") or 0x7F <= v < 0xA0:
            out.append("\\x%02x" % v if v < 0x80 else "\\u{%x}" % v)
        else:
            out.append(c)
    return "".join(out)


def svg(path):
    elements, texts, problems = [], [], []
    parser = xml.parsers.expat.ParserCreate()
    current = []

    def start(name, attrs):
        elements.append((name, tuple(sorted(attrs))))
        if name.lower() in ("script", "foreignobject", "iframe", "image", "a", "use"):
            problems.append(f"element <{name}>")
        for a in attrs:
            if a.lower().startswith("on") or a.lower().endswith("href"):
                problems.append(f"attribute {a} on <{name}>")
        current.append("")

    def end(name):
        texts.append(current.pop())

    def data(d):
        if current:
            current[-1] += d
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    with open(path, "rb") as f:
        parser.Parse(f.read(), True)
    return elements, texts, problems


def json_shape(value):
    if isinstance(value, dict):
        return {k: json_shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_shape(v) for v in value]
    return "" if isinstance(value, str) else value


def main():
    fmt, hostile, plain, labels_path = sys.argv[1:5]
    labels = json.load(open(labels_path))
    problems, found = [], 0
    if fmt == "svg":
        try:
            h_elements, h_texts, h_problems = svg(hostile)
        except xml.parsers.expat.ExpatError as e:
            print(json.dumps({"problems": [f"expat: {e}"], "read": 0}))
            return
        p_elements, _, _ = svg(plain)
        problems += h_problems
        if h_elements != p_elements:
            first = next((i for i, (a, b) in enumerate(zip(h_elements, p_elements)) if a != b), min(len(h_elements), len(p_elements)))
            problems.append(f"{len(h_elements)} elements for the twin's {len(p_elements)}; first unlike at {first}")
        text = "\n".join(h_texts)
        for label in labels:
            if one_line(label) in text:
                found += 1
            else:
                problems.append(f"label {label!r} not in the SVG's text")
    elif fmt == "csv":
        def rows(path):
            with open(path, newline="", encoding="utf-8") as f:
                return list(csv.reader(f, strict=True))
        h_rows, p_rows = rows(hostile), rows(plain)
        if [len(r) for r in h_rows] != [len(r) for r in p_rows]:
            problems.append(f"{len(h_rows)} rows for the twin's {len(p_rows)}")
        header = h_rows[0]
        kind, label = header.index("kind"), header.index("label")
        read = [r[label] for r in h_rows[1:] if r[kind] == "dispatch" and r[header.index("code")] == "request"]
        expected = [control_escaped(l) for l in labels]
        found = sum(1 for a, b in zip(read, expected) if a == b)
        problems += [f"label {b!r} read as {a!r}" for a, b in zip(read, expected) if a != b][:20]
        if len(read) != len(expected):
            problems.append(f"{len(read)} request rows for {len(expected)} labels")
    elif fmt in ("chrome", "otlp"):
        def documents(path):  # Chrome's one JSON document; OTLP's one a line (a request each)
            with open(path, encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()] if fmt == "otlp" else json.load(f)
        h, p = documents(hostile), documents(plain)
        if json_shape(h) != json_shape(p):
            problems.append("the JSON's shape is not the twin's")
        text = json.dumps(h, ensure_ascii=False)
        found = sum(1 for l in labels if json.dumps(l, ensure_ascii=False)[1:-1] in text)
    elif fmt == "jsonl":
        def events(path):
            with open(path, encoding="utf-8") as f:
                return [json.loads(line) for line in f]
        h, p = events(hostile), events(plain)
        if [json_shape(e) for e in h] != [json_shape(e) for e in p]:
            problems.append("the lines' shape is not the twin's")
        read = [e["event"] for e in h if e["kind"] == "dispatch" and e["style"] == "request"]
        found = sum(1 for a, b in zip(read, labels) if a == b)
        problems += [f"label {b!r} read as {a!r}" for a, b in zip(read, labels) if a != b][:20]
    elif fmt in ("mermaid", "plantuml"):
        h = open(hostile, encoding="utf-8").read().split("\n")
        p = open(plain, encoding="utf-8").read().split("\n")
        if len(h) != len(p):
            problems.append(f"{len(h)} lines for the twin's {len(p)}")
        # Each line's statement: its first word, and for a message everything before the text.
        separator = ":" if fmt == "mermaid" else " : "
        for i, (a, b) in enumerate(zip(h, p)):
            statement = lambda line: line.split(separator, 1)[0] if separator in line and "participant" not in line \
                else line.split()[0] if line.split() else ""
            if statement(a) != statement(b):
                problems.append(f"line {i + 1}: {a!r} is not a statement like {b!r}")
                if len(problems) > 20:
                    break
        found = len(labels) if not problems else 0
    print(json.dumps({"problems": problems, "read": found}))


if __name__ == "__main__":
    main()
