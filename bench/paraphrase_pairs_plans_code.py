"""A third set of labelled finding pairs, written apart from the tuning pairs and never tuned on.

Written before the matcher of issue 46 was changed, by someone who had not read the tuning pairs'
wording closely; each finding is (description, location) as a reviewer answers it. SAME pairs are
one finding reworded between rounds: synonyms, reordered clauses, a detail added or dropped, the
location written another way. DIFFERENT pairs are near misses: another problem in the same place,
or the same words about another place. `bench_paraphrase.py` reports on it; nothing is tuned on it.
"""

from __future__ import annotations

Finding = tuple[str, str]

SAME: list[tuple[Finding, Finding]] = [
    (
        ("The risk register has no mitigation for supplier insolvency.", "Risks & Dependencies"),
        ("No mitigation is planned in case a key supplier goes bankrupt.", "Risks"),
    ),
    (
        ("Milestones lack dates.", "Timeline & Milestones"),
        ("None of the milestones in the timeline is given a target date.", "Timeline"),
    ),
    (
        ("The assessment column does not say how success is measured.", "Goals & Scope"),
        ("How success will be measured is not stated in the Assessment cell.", "Goals and scope"),
    ),
    (
        ("Budget total (12k) exceeds the 10k cap in the constraints.", "Resources & Budget"),
        ("The budget adds up to 12k, over the 10k limit set by the constraints.", "Budget"),
    ),
    (
        ("No one is responsible for ordering the timber.", "Approach"),
        ("Ordering the timber has no assigned owner.", "## Approach"),
    ),
    (
        ("The plan never says who signs off on the final design.", "Review & Next Steps"),
        ("Sign-off on the final design has no named approver.", "Review and next steps"),
    ),
    (
        ("The launch date conflicts with the beta period end date.", "Timeline"),
        (
            "Beta ends after the planned launch date, so the two dates contradict each other.",
            "Timeline & Milestones",
        ),
    ),
    (
        ("Marketing channels are listed but no spend is allocated to them.", "Approach"),
        ("No budget is assigned to the listed marketing channels.", "Resources & Budget"),
    ),
    (
        ("There is no fallback if the keynote speaker cancels.", "Risks"),
        ("If the keynote speaker drops out there is no backup plan.", "Risks & Dependencies"),
    ),
    (
        ("The objective is vague: 'improve engagement' has no target.", "Goals & Scope"),
        ("'Improve engagement' is too vague — it needs a measurable target.", "Goals"),
    ),
    (
        ("Accessibility for wheelchair users at the venue is not addressed.", "Approach"),
        ("The venue plan ignores wheelchair access.", "Approach"),
    ),
    (
        ("Data migration has no rollback step.", "Approach"),
        ("If the migration fails there is no way described to roll it back.", "Approach"),
    ),
    (
        ("Load testing is missing before go-live.", "Timeline"),
        ("No performance/load test is scheduled ahead of the launch.", "Timeline & Milestones"),
    ),
    (
        ("The summary says 3 phases but the timeline shows 4.", "Summary"),
        ("Timeline has four phases while the summary mentions three.", "Summary / Timeline"),
    ),
    (
        ("Staffing for the weekend shifts is not planned.", "Resources & Budget"),
        ("Nobody is scheduled to staff the weekend shifts.", "Resources"),
    ),
    (
        ("Success criteria for the pilot are undefined.", "Review & Next Steps"),
        ("The pilot has no defined criteria for success.", "Review & Next Steps"),
    ),
    (
        ("Permit application lead time is not accounted for in the schedule.", "Timeline"),
        ("The schedule ignores how long the permit takes to be approved.", "Timeline"),
    ),
    (
        ("Competitor pricing is cited without a source.", "Approach"),
        ("No source is given for the competitor prices quoted.", "Approach"),
    ),
    (
        ("The plan assumes 200 attendees but the venue holds 150.", "Resources & Budget"),
        ("Venue capacity of 150 is below the 200 expected guests.", "Resources"),
    ),
    (
        ("No communication plan for notifying customers of the outage window.", "Approach"),
        ("Customers are not told about the maintenance outage in advance.", "Approach"),
    ),
    # code
    (
        ("fetch_user swallows the timeout exception and returns None.", "api/users.py:88"),
        (
            "A timeout in fetch_user is caught and silently ignored, returning None.",
            "api/users.py:91",
        ),
    ),
    (
        ("The retry loop has no upper bound.", "jobs/sync.py:40"),
        ("Retries are unlimited: the loop never gives up.", "jobs/sync.py"),
    ),
    (
        ("API key is written to the debug log.", "client/http.py:120"),
        ("The debug logging leaks the API key.", "client/http.py:118"),
    ),
    (
        ("parse_date assumes UTC but input is local time.", "util/dates.py:12"),
        ("Local timestamps are treated as UTC by parse_date.", "util/dates.py"),
    ),
    (
        ("No tests cover the CSV export.", "billing/export.py"),
        ("The CSV export path is untested.", "billing/export.py:1"),
    ),
    (
        ("The database connection is never closed on error.", "db/session.py:55"),
        ("On an exception the DB connection leaks because it is not closed.", "db/session.py:57"),
    ),
    (
        ("Magic number 86400 should be a named constant.", "core/cache.py:30"),
        ("Replace the hard-coded 86400 with a named constant.", "core/cache.py:30"),
    ),
    (
        ("The upload handler reads the whole file into memory.", "web/upload.py:14"),
        ("Large uploads are loaded entirely in memory by the handler.", "web/upload.py"),
    ),
    (
        ("Two workers can process the same job concurrently.", "jobs/queue.py:77"),
        (
            "There is a race: the same job may be picked up by two workers at once.",
            "jobs/queue.py:80",
        ),
    ),
    (
        ("The CLI exits 0 even when the import fails.", "cli/main.py:140"),
        ("A failed import still returns exit status 0 from the CLI.", "cli/main.py"),
    ),
    (
        ("Password reset tokens never expire.", "auth/tokens.py:22"),
        ("There is no expiry on the password reset token.", "auth/tokens.py:25"),
    ),
    (
        ("Search index is rebuilt on every request.", "search/index.py:9"),
        ("Every request triggers a full rebuild of the search index.", "search/index.py"),
    ),
    (
        ("Missing docstring on the public function export_rows.", "billing/export.py:60"),
        ("export_rows is public but undocumented.", "billing/export.py:60"),
    ),
    (
        ("Settings page does not validate the email field.", "web/settings.tsx:45"),
        ("The email input on the settings page accepts invalid addresses.", "web/settings.tsx"),
    ),
    (
        ("Duplicate logic: price rounding is copied from cart.py.", "checkout/total.py:33"),
        ("checkout/total.py repeats the rounding code of cart.py.", "checkout/total.py:30"),
    ),
    (
        ("Rate limiter counts requests per process, not per user.", "api/limits.py:18"),
        ("The rate limit is per process instead of per user.", "api/limits.py"),
    ),
]

DIFFERENT: list[tuple[Finding, Finding]] = [
    (
        ("The risk register has no mitigation for supplier insolvency.", "Risks & Dependencies"),
        ("The risk register has no owner for each risk.", "Risks & Dependencies"),
    ),
    (
        ("Milestones lack dates.", "Timeline & Milestones"),
        ("Milestones lack owners.", "Timeline & Milestones"),
    ),
    (
        ("Budget total (12k) exceeds the 10k cap in the constraints.", "Resources & Budget"),
        ("Budget has no line for venue insurance.", "Resources & Budget"),
    ),
    (
        ("The assessment column does not say how success is measured.", "Goals & Scope"),
        ("The assessment column does not say when the goal is reviewed.", "Goals & Scope"),
    ),
    (
        ("No one is responsible for ordering the timber.", "Approach"),
        ("No one is responsible for ordering the timber.", "Timeline & Milestones"),
    ),
    (
        ("There is no fallback if the keynote speaker cancels.", "Risks"),
        ("There is no fallback if the caterer cancels.", "Risks"),
    ),
    (
        ("Load testing is missing before go-live.", "Timeline"),
        ("Security review is missing before go-live.", "Timeline"),
    ),
    (
        ("The summary says 3 phases but the timeline shows 4.", "Summary"),
        ("The summary says 3 months but the budget covers 6.", "Summary"),
    ),
    (
        ("Staffing for the weekend shifts is not planned.", "Resources & Budget"),
        ("Staffing costs for the weekend shifts are not budgeted.", "Resources & Budget"),
    ),
    (
        ("Success criteria for the pilot are undefined.", "Review & Next Steps"),
        ("The pilot has no end date.", "Review & Next Steps"),
    ),
    (
        ("Permit application lead time is not accounted for in the schedule.", "Timeline"),
        ("Permit fees are not accounted for in the budget.", "Resources & Budget"),
    ),
    (
        ("Competitor pricing is cited without a source.", "Approach"),
        ("Competitor pricing is out of date (2019).", "Approach"),
    ),
    (
        ("The plan assumes 200 attendees but the venue holds 150.", "Resources & Budget"),
        ("The plan assumes 200 attendees but catering is ordered for 180.", "Resources & Budget"),
    ),
    (
        ("Marketing channels are listed but no spend is allocated to them.", "Approach"),
        ("Marketing channels are listed but none targets existing customers.", "Approach"),
    ),
    (
        ("The objective is vague: 'improve engagement' has no target.", "Goals & Scope"),
        (
            "The objective 'improve engagement' conflicts with the cost-cutting goal.",
            "Goals & Scope",
        ),
    ),
    (
        ("Data migration has no rollback step.", "Approach"),
        ("Data migration has no dry run on a copy of production.", "Approach"),
    ),
    (
        ("Accessibility for wheelchair users at the venue is not addressed.", "Approach"),
        ("Parking for guests at the venue is not addressed.", "Approach"),
    ),
    (
        ("No communication plan for notifying customers of the outage window.", "Approach"),
        ("No plan for compensating customers affected by the outage.", "Approach"),
    ),
    (
        ("The launch date conflicts with the beta period end date.", "Timeline"),
        ("The launch date falls on a public holiday.", "Timeline"),
    ),
    (
        ("The plan never says who signs off on the final design.", "Review & Next Steps"),
        ("The plan never says when the final design is due.", "Review & Next Steps"),
    ),
    # code
    (
        ("fetch_user swallows the timeout exception and returns None.", "api/users.py:88"),
        ("fetch_user does not cache the result between calls.", "api/users.py:88"),
    ),
    (
        ("The retry loop has no upper bound.", "jobs/sync.py:40"),
        ("The retry loop has no backoff between attempts.", "jobs/sync.py:40"),
    ),
    (
        ("API key is written to the debug log.", "client/http.py:120"),
        ("API key is read from a hard-coded string.", "client/http.py:12"),
    ),
    (
        ("parse_date assumes UTC but input is local time.", "util/dates.py:12"),
        ("parse_date crashes on an empty string.", "util/dates.py:12"),
    ),
    (
        ("No tests cover the CSV export.", "billing/export.py"),
        ("No tests cover the PDF invoice.", "billing/invoice.py"),
    ),
    (
        ("The database connection is never closed on error.", "db/session.py:55"),
        ("The database connection is opened once per query instead of pooled.", "db/session.py:40"),
    ),
    (
        ("Magic number 86400 should be a named constant.", "core/cache.py:30"),
        ("Magic number 3600 should be a named constant.", "jobs/sync.py:12"),
    ),
    (
        ("The upload handler reads the whole file into memory.", "web/upload.py:14"),
        ("The upload handler does not check the file type.", "web/upload.py:14"),
    ),
    (
        ("Two workers can process the same job concurrently.", "jobs/queue.py:77"),
        ("A failed job is never retried by the workers.", "jobs/queue.py:90"),
    ),
    (
        ("The CLI exits 0 even when the import fails.", "cli/main.py:140"),
        ("The CLI prints the stack trace when the import fails.", "cli/main.py:140"),
    ),
    (
        ("Password reset tokens never expire.", "auth/tokens.py:22"),
        ("Password reset tokens are stored in plain text.", "auth/tokens.py:22"),
    ),
    (
        ("Search index is rebuilt on every request.", "search/index.py:9"),
        ("Search index ignores accented characters.", "search/index.py:30"),
    ),
    (
        ("Missing docstring on the public function export_rows.", "billing/export.py:60"),
        ("Missing type hints on the public function export_rows.", "billing/export.py:60"),
    ),
    (
        ("Settings page does not validate the email field.", "web/settings.tsx:45"),
        ("Settings page does not validate the phone field.", "web/settings.tsx:52"),
    ),
    (
        ("Rate limiter counts requests per process, not per user.", "api/limits.py:18"),
        ("Rate limiter resets its counts on every deploy.", "api/limits.py:18"),
    ),
    (
        ("Duplicate logic: price rounding is copied from cart.py.", "checkout/total.py:33"),
        ("Price rounding uses float instead of Decimal.", "checkout/total.py:33"),
    ),
]
