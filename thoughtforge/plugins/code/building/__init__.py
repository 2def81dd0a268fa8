"""The stages of code mode's Phase 3, each a part of `builder.CodeBuilder`: the plan
completeness gate (`gate`), the build (`construction`), the test-fix cycle (`fix_cycle`), on the
state and collaborators they share (`base`); `source_files` says what counts as the code built."""
