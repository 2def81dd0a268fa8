"""The Prefect runtime the flows run in: how a run opens (`run_opening`), its tags and name,
heartbeats, a graceful stop, what it prints, one TLS context per process, a run in the CLI's own
process, holding then suspending while the person thinks, the concurrency limits, transitions as
Prefect events, the warm start a worker forks runs from, the server process and which server
this process talks to, what `up` needs of a deployment, and every Prefect internal used
(`prefect_internals`). Still the Prefect layer: nothing here is a flow, so no deployment
entrypoint names a module of it.
"""
