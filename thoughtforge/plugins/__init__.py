"""Deliverable types (`plan/`, later `code/`): each a builder on the shared phase engine, its
templates, and its safety rules (`thoughtforge.plugins.<type>.safety`, loaded by type).

Imports `phases`, `prompting`, `core` and the vocabulary; never Prefect or a flow.
"""
