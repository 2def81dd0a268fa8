"""Locked acceptance: the tests that stand for the acceptance criteria, locked when Phase 3
ends so that no build or fix step can game its way to `done`.

`python_tests` fingerprints a pytest test from its source, `runner_files` what the runner reads
before it, `reads` what the tests read themselves (their data, their helpers), `survey` the
tests as the tree stands, `lock` the record (`acceptance_lock.json`), `verdict` a step against
it, `runner` ThoughtForge's own run of the locked tests (`record` what that run read, `outside`
its second run, outside pytest; `in_project/` what runs in the project's interpreter), and
`check` ties them to a project (`check_locked_acceptance`, the code plugin's deliverable
validator).
"""
