"""Plan plugin: OPA templates, their slots, the builder's response schema and plan-mode safety."""
