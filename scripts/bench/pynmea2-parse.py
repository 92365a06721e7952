#!/usr/bin/env python3
# headingd — the pynmea2 baseline for scripts/bench-compare: parse every sentence of a file and
# read its heading the way a Python consumer would. Prints the count of headings on stderr.
# SPDX-License-Identifier: Apache-2.0
import sys

import pynmea2

headings = 0
with open(sys.argv[1], encoding="ascii", errors="replace") as recording:
    for line in recording:
        try:
            sentence = pynmea2.parse(line, check=True)
        except pynmea2.ParseError:
            continue
        kind = sentence.sentence_type
        if kind == "HDT" or kind == "HDG":
            value = sentence.heading
        elif kind == "THS":
            value = sentence.headt
        elif kind == "RMC":
            value = sentence.true_course
        else:
            continue
        if value is not None:
            headings += 1
print(f"pynmea2: {headings} headings", file=sys.stderr)
