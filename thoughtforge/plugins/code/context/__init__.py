"""What the code-mode polish loop shows its reviewer and its fixer, within a token budget.

**The codebase** is the deliverable: every file git would track in the project (tracked, or
untracked and not ignored), minus what is not the deliverable:

* ThoughtForge's own files (`staging.is_own`: state files, the polish record, `docs/*.md`, which
  are the spec, `resources/`) and its private ones (`staging.PRIVATE_FILES`);
* `.git`, symlinks (a link may lead out of the project; what it points to inside is listed
  anyway), dependency and cache folders that are never the deliverable (`SKIPPED_DIRS`);
* binary files and files over `MAX_FILE_BYTES`, which are named (`not_shown`) but never read.

**Review context** (`review_context`): the whole codebase, one fenced block per file, when it fits
the budget (mode "codebase"). Otherwise (mode "manifest") every file with its size, then
`git diff` of the code since the last iteration's commit (`since`) plus new untracked files. With
no usable `since` the last commit's changes stand in for it; a repository with a single commit
has no diff to show, which the text says. What does not fit is cut and named: the manifest loses
its last entries, the diff is fitted as below. `truncated` tells the caller to log the spec's
warning.

**Fix context** (`fix_context`): the files the review's issue `location`s name, in order of first
mention. A location is `src/app.py:42`, `src/app.py line 42`, `app.py#L42`, `src/app.py (function
foo)` and the like: line numbers and anchors are stripped. Prose ("general") names no file and is
`ignored`. A path outside the project (`../`, absolute, a symlink leading out), in `.git`, one of
ThoughtForge's files, ignored by git or binary is `refused` and never read. A path that does not
exist is `missing` and noted ("Referenced file not found").

**Fitting** (files for the fixer, per-file diffs for the reviewer): when they do not fit, the
largest is cut first, down to the size of the next largest, then both, and so on; a cut keeps the
start, ends on a whole line and is noted. When even `MIN_PART_TOKENS` each does not fit, the last
ones (in order of mention, or path order for a diff) are left out and named instead.

Token counts are `prompting.estimate_tokens` estimates, so "fits" means "about fits". Git is run
as a subprocess (`ls-files`, `diff`, `rev-parse`), reading only; nothing here writes.
"""

from thoughtforge.plugins.code.context.fix import FixContext, fix_context
from thoughtforge.plugins.code.context.review import ReviewContext, review_context

__all__ = ["FixContext", "ReviewContext", "fix_context", "review_context"]
