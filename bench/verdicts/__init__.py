"""The verdict scoreboard (issue 56): how often the polish loop's `done` is wrong and how often
a halt is needless, measured against ground truth. `bench/bench_verdicts.py` runs it.

model (a plan from a real template with true defects), reviewer and fixer (honest-noisy and
gaming agents), populations (their parameters with sources; the tuning and held-out sets),
simulation (one run and its oracle), real (the one coupling to ThoughtForge's modules),
scoreboard (the rates, their Wilson intervals, the goals, the table).
"""
