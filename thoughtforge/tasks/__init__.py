"""Prefect tasks: agent calls, git commits and other steps that get retries and names in the UI."""
