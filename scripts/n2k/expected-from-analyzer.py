#!/usr/bin/env python3
"""canboat analyzer -json (standard input) -> the expected Vessel Heading (PGN 127250) values,
one CSV line each: source,heading,deviation,variation,reference (empty when not available).

How the committed *.expected.csv fixtures were made, during development, with canboat's analyzer
built from its source (github.com/canboat/canboat, Apache-2.0): the values, not its code.

  analyzer -json < recording.csv | expected-from-analyzer.py > recording.expected.csv
  candump2analyzer < recording.log | analyzer -json | expected-from-analyzer.py > recording.expected.csv
"""
import json
import sys

print("source,heading,deviation,variation,reference")
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("pgn") != 127250:
        continue
    fields = message.get("fields", {})
    reference = fields.get("Reference", "")
    if isinstance(reference, dict):
        reference = reference.get("name", "")
    values = [fields.get(name, "") for name in ("Heading", "Deviation", "Variation")]
    print(",".join(str(x) for x in [message["src"]] + values + [reference]))
