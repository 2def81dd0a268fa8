"""Deliverable-type plugins (plan, code): builder, review schema, safety rules, templates."""
