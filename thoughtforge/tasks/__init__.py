"""Prefect tasks around plain-Python work that talks to the outside: each call a named task in the
run's UI, retried where a retry can help (`connector_pull`)."""
