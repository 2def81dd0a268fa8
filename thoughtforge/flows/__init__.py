"""Prefect flows: one module per phase, thin layers over the core modules."""
