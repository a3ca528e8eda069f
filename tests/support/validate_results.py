#!/usr/bin/python3
"""Validates perfengine results files against docs/results.schema.json.

usage: validate_results.py SCHEMA RESULTS.json...
Exit 0 when every file is valid; else 1, with one line per file naming the first violation.
Uses Debian's python3-jsonschema (scripts/install-deps.sh)."""
import json
import sys

import jsonschema


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: at /{where}: {error.message}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
