#!/usr/bin/env python3
"""Validates JSON Lines against a JSON Schema with PyPI's `jsonschema` (draft 2020-12, the
schema itself checked first): each line of FILE must be one object the schema accepts.

Prints one JSON object: {"rows": N, "errors": ["line K: why", ...] (the first 20),
"error_count": M}.

Usage: schema-check.py SCHEMA FILE
Exit status: 0 with the JSON on stdout; 2 when the schema itself is not a valid schema."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print(f"schema-check: {sys.argv[1]} is not a valid schema: {error.message}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    rows = 0
    errors = []
    for number, line in enumerate(open(sys.argv[2], encoding="utf-8"), 1):
        if not line.strip():
            errors.append(f"line {number}: empty")
            continue
        rows += 1
        try:
            value = json.loads(line)
        except ValueError as error:
            errors.append(f"line {number}: not JSON: {error}")
            continue
        for error in validator.iter_errors(value):
            errors.append(f"line {number}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
    print(json.dumps({"rows": rows, "errors": errors[:20], "error_count": len(errors)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
