#!/usr/bin/env python3
"""Test agent: a plan reviewer that judges by the acceptance criteria its prompt shows.

It reports a critical finding when the prompt's `## Acceptance Criteria` set a budget limit
("at most N EUR") that the plan's total ("Total: N EUR") exceeds, and nothing otherwise, so its
verdict depends on whether the criteria reached it, as a real model's does. Its evidence quotes
the plan: the total for criterion 1 when it is within the limit, a written confirmation for 2.
"""

import json
import re
import sys

prompt = sys.stdin.read()
_, _, criteria = prompt.partition("## Acceptance Criteria")
limit = re.search(r"at most ([\d,]+) EUR", criteria.split("\nPlan:\n", 1)[0])
total = re.search(r"Total: ([\d,]+) EUR", prompt.rsplit("\nPlan:\n", 1)[-1])


def amount(found: re.Match[str]) -> int:
    return int(found.group(1).replace(",", ""))


issues = []
if limit and total and amount(total) > amount(limit):
    issues.append(
        {
            "severity": "critical",
            "description": f"The total of {total.group(1)} EUR exceeds the limit of "
            f"{limit.group(1)} EUR set by the acceptance criteria.",
            "location": "Section 1",
            "recommendation": "Cut costs until the total is within the limit.",
        }
    )
plan = prompt.rsplit("\nPlan:\n", 1)[-1]
evidence = []
if limit and total and not issues:
    quote = f"Total: {total.group(1)} EUR across every vendor"
    evidence.append({"criterion": 1, "section": "Section 1", "quote": quote})
if "Confirmed in writing by day 2" in plan:
    quote = "Confirmed in writing by day 2"
    evidence.append({"criterion": 2, "section": "Section 1", "quote": quote})
print(json.dumps({"issues": issues, "evidence": evidence}))
