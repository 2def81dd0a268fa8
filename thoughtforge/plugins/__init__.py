"""The built-in deliverable types, one folder each (`plan/`, `code/`), as the plugin contract
(`phases.plugin_contract`) describes them: `plugin.yaml`, a builder on the shared phase engine, a
reviewer, safety rules, and any assets of their own (plan templates, code's test runner). The
phases find them, and the folders of `plugins.directory`, through `phases.plugin_loader`.

Imports `phases`, `prompting`, `core` and the vocabulary; never Prefect or a flow.
"""
