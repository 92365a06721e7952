#!/usr/bin/python3
# headingd — checks Signal K messages against the published schemas, offline.
# SPDX-License-Identifier: Apache-2.0
#
# Usage: validate-signalk.py SCHEMA FILE   (SCHEMA: delta, hello, discovery or signalk)
# Each line of FILE is one JSON message. Prints "ok N" and exits 0 when all N are valid; else
# prints each invalid line's number and the validator's reason, and exits 1. Uses Debian's
# python3-jsonschema (4.10); the schemas' https ids are served from signalk-schemas/ beside this
# file, as signalk-schemas/SOURCES.md says.
import glob
import json
import os
import sys
import warnings

from jsonschema import Draft4Validator, RefResolver

warnings.simplefilter("ignore", DeprecationWarning)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "signalk-schemas")
store = {}
for path in glob.glob(os.path.join(here, "**", "*.json"), recursive=True):
    with open(path) as file:
        schema = json.load(file)
    if "id" in schema:
        store[schema["id"].rstrip("#")] = schema
definitions = store["https://signalk.org/specification/1.5.1/schemas/definitions.json"]
store["https://signalk.org/specification/1.5.1/schemas/groups/definitions.json"] = definitions

with open(os.path.join(here, sys.argv[1] + ".json")) as file:
    schema = json.load(file)
validator = Draft4Validator(schema, resolver=RefResolver.from_schema(schema, store=store))
failures = 0
count = 0
with open(sys.argv[2]) as messages:
    for number, line in enumerate(messages, 1):
        if not line.strip():
            continue
        count += 1
        try:
            message = json.loads(line)
        except ValueError as error:
            print(f"line {number}: not JSON: {error}")
            failures += 1
            continue
        errors = sorted(validator.iter_errors(message), key=lambda e: list(e.path))
        for error in errors[:3]:
            print(f"line {number}: {'/'.join(map(str, error.path))}: {error.message[:300]}")
        failures += bool(errors)
print(f"ok {count}" if not failures else f"{failures} of {count} invalid")
sys.exit(1 if failures else 0)
