"""Labelled pairs of reviewer findings, written by hand by a helper session from its own
knowledge of how LLM reviewers phrase findings across rounds, without reading the matcher or any
other pair set. The emphasis is on event, hiring, renovation and research-project plans and on
Python/TypeScript code; roughly 60 % plan findings (located by section heading) and 40 % code
findings (located by file path, sometimes with a line number). SAME pairs are one finding reworded
between rounds; DIFFERENT pairs share location and most vocabulary but name a different problem."""

from __future__ import annotations

Finding = tuple[str, str]

SAME: list[tuple[Finding, Finding]] = [
    # ---------------- plans: events ----------------
    (
        (
            "No backup venue is identified if the conference hall becomes unavailable.",
            "Risks & Dependencies",
        ),
        (
            "Should the hall fall through, the plan has no alternative location lined up.",
            "Risks / Dependencies",
        ),
    ),
    (
        ("Catering headcount is not tied to the RSVP deadline.", "Approach"),
        (
            "The plan orders food before registrations close, so the number of meals ordered has no link to confirmed attendance.",
            "## Approach",
        ),
    ),
    (
        ("Budget omits AV equipment rental.", "Resources & Budget"),
        ("There's no line item for renting projectors, microphones or sound gear.", "Budget"),
    ),
    (
        (
            "The timeline does not leave any time for speaker rehearsals before the event day.",
            "Timeline & Milestones",
        ),
        ("No rehearsal slot for speakers before go-live.", "Timeline"),
    ),
    (
        (
            "Accessibility needs of attendees (wheelchair access, captioning) are not addressed anywhere.",
            "Goals & Scope",
        ),
        (
            "Plan ignores accessibility: nothing about step-free access or live captions for attendees.",
            "Goals and scope",
        ),
    ),
    (
        ("Nobody is named as responsible for on-site registration.", "Approach"),
        ("The check-in desk has no owner.", "Approach"),
    ),
    (
        ("Weather contingency missing for the outdoor reception.", "Risks"),
        (
            "If it rains, the plan says nothing about what happens to the garden reception.",
            "Risks & Dependencies",
        ),
    ),
    (
        (
            "Ticket revenue assumes 500 paid attendees, which is not justified by past turnout.",
            "Resources & Budget",
        ),
        (
            "The five hundred paying guests projected in the budget have no basis in previous years' attendance figures.",
            "Budget",
        ),
    ),
    # ---------------- plans: hiring ----------------
    (
        ("The hiring plan does not define who makes the final offer decision.", "Approach"),
        ("Unclear who has sign-off on extending an offer to a candidate.", "## Approach"),
    ),
    (
        (
            "Salary bands for the three engineering roles are absent from the budget.",
            "Resources & Budget",
        ),
        (
            "Budget section gives no compensation range for any of the 3 engineer positions.",
            "Resources and Budget",
        ),
    ),
    (
        (
            "Time-to-hire target of 2 weeks is unrealistic for senior roles.",
            "Timeline & Milestones",
        ),
        (
            "Expecting to fill senior positions within fourteen days is overly optimistic given typical recruiting cycles.",
            "Timeline",
        ),
    ),
    (
        (
            "No structured scoring rubric for interviews; evaluations will be inconsistent between interviewers.",
            "Approach",
        ),
        ("Interviewers have no shared criteria to grade candidates against.", "Approach"),
    ),
    (
        (
            "Onboarding is out of scope but the success metric is 'new hires productive in 30 days'.",
            "Goals & Scope",
        ),
        (
            "Scope excludes onboarding, yet the goal measures how quickly new hires become productive — those contradict each other.",
            "Goals",
        ),
    ),
    (
        (
            "Risk of the recruiting agency failing to deliver candidates is not considered.",
            "Risks & Dependencies",
        ),
        ("What if the agency doesn't send a usable pipeline? Not covered.", "Risks"),
    ),
    # ---------------- plans: renovations ----------------
    (
        (
            "The renovation schedule has no buffer for permit approval delays.",
            "Timeline & Milestones",
        ),
        (
            "Timeline assumes the building permit arrives on time; there is no slack if the council is slow.",
            "Timeline",
        ),
    ),
    (
        ("No contingency reserve in the renovation budget.", "Resources & Budget"),
        (
            "The cost estimate leaves nothing set aside for surprises such as rot behind the walls or wiring that must be replaced.",
            "## Resources & Budget",
        ),
    ),
    (
        (
            "Asbestos survey is not mentioned, although the building predates 1980.",
            "Risks & Dependencies",
        ),
        (
            "Given the pre-1980 construction, the plan should call for testing for asbestos before demolition; it currently doesn't.",
            "Risks",
        ),
    ),
    (
        (
            "Plan doesn't say where the tenants will live while the kitchen is out of use.",
            "Approach",
        ),
        ("Occupant arrangements during the kitchen works are unaddressed.", "Approach"),
    ),
    (
        ("Contractor selection criteria are not stated.", "Approach"),
        (
            "How the builder will be chosen (quotes, references, licensing) is never explained.",
            "Approach",
        ),
    ),
    (
        (
            "Scope is vague: 'refresh the bathroom' could mean paint or a full refit.",
            "Goals & Scope",
        ),
        (
            "The bathroom work is ambiguous — it's not clear whether it's cosmetic or a complete replacement of fixtures.",
            "Goals & Scope",
        ),
    ),
    # ---------------- plans: research projects ----------------
    (
        ("The research plan lacks a power analysis to justify the sample size of 40.", "Approach"),
        ("Why forty participants? No statistical power calculation is given.", "## Approach"),
    ),
    (
        (
            "Ethics board approval is a dependency but is not on the timeline.",
            "Timeline & Milestones",
        ),
        (
            "IRB sign-off is needed before recruitment starts, yet no milestone for it appears in the schedule.",
            "Timeline",
        ),
    ),
    (
        ("The hypothesis is not falsifiable as stated.", "Goals & Scope"),
        (
            "As currently worded, no experimental outcome could disprove the main hypothesis.",
            "Goals",
        ),
    ),
    (
        (
            "No data management plan: storage, retention and anonymisation of participant data are not described.",
            "Approach",
        ),
        (
            "Participant data handling is missing (where it's stored, how long it's kept, how it's de-identified).",
            "Approach",
        ),
    ),
    (
        ("Risk that the key postdoc leaves mid-project is not mitigated.", "Risks & Dependencies"),
        (
            "Single point of failure: if the postdoctoral researcher departs, nobody else can run the analysis.",
            "Risks",
        ),
    ),
    (
        (
            "Plan relies on access to the hospital dataset but there is no signed data-sharing agreement.",
            "Risks & Dependencies",
        ),
        (
            "The hospital's data isn't secured contractually yet; the project depends on it regardless.",
            "Dependencies",
        ),
    ),
    # ---------------- plans: other kinds ----------------
    (
        ("Success criteria for the product launch are not measurable.", "Goals & Scope"),
        (
            "'Strong launch' is not a metric — define targets like signups or revenue.",
            "Goals & Scope",
        ),
    ),
    (
        ("The migration has no rollback plan.", "Approach"),
        (
            "If the cut-over to the new database fails, there's no documented way back to the old system.",
            "Approach",
        ),
    ),
    (
        ("Next steps lack owners and due dates.", "Review & Next Steps"),
        (
            "Action items at the end aren't assigned to anyone, and none of them has a deadline.",
            "Next steps",
        ),
    ),
    (
        ("The fundraising plan depends on a single major donor.", "Risks & Dependencies"),
        (
            "Overreliance on one large gift: if that donor pulls out, the campaign misses its target.",
            "Risks",
        ),
    ),
    # ---------------- code: Python ----------------
    (
        ("Unbounded retry loop when the payment gateway returns 503.", "api/payments.py:142"),
        (
            "The retry in charge_card never gives up on service-unavailable responses; add a maximum attempt count.",
            "api/payments.py",
        ),
    ),
    (
        (
            "SQL query is built with f-string interpolation of user input, allowing injection.",
            "app/db/users.py:57",
        ),
        (
            "get_user_by_email concatenates the email into the SQL text instead of using bound parameters.",
            "app/db/users.py:55",
        ),
    ),
    (
        ("File handle is never closed if parsing raises.", "ingest/loader.py:33"),
        (
            "open() isn't wrapped in a with-block, so an exception in parse_rows leaks the file descriptor.",
            "ingest/loader.py",
        ),
    ),
    (
        ("Mutable default argument `tags=[]` is shared across calls.", "models/event.py:18"),
        (
            "Event.__init__ uses a list literal as a default parameter; entries accumulate between instances.",
            "models/event.py",
        ),
    ),
    (
        ("Broad `except Exception: pass` swallows errors silently.", "workers/sync.py:90"),
        (
            "Failures in the sync worker are caught and discarded with no logging, making bugs invisible.",
            "workers/sync.py:88",
        ),
    ),
    (
        ("The API key is hard-coded in source.", "services/geocode.py:7"),
        (
            "Credential for the geocoding service is committed in plain text; it should come from environment/config.",
            "services/geocode.py",
        ),
    ),
    (
        (
            "Timestamps are created with naive datetime.now(), so comparisons with UTC values from the database are off by the server's offset.",
            "scheduling/slots.py:64",
        ),
        (
            "Use timezone-aware datetimes; now() without tz mismatches the UTC booking times.",
            "scheduling/slots.py",
        ),
    ),
    (
        ("No test covers the case where the CSV is empty.", "tests/test_import.py"),
        ("Missing test: importing a zero-row file.", "tests/test_import.py"),
    ),
    (
        ("Division by zero when the cohort has no participants.", "analysis/stats.py:112"),
        ("mean_response() crashes if n == 0 — an empty group isn't handled.", "analysis/stats.py"),
    ),
    (
        (
            "Each request opens a new database connection and never returns it to the pool.",
            "app/deps.py:21",
        ),
        ("get_session leaks connections: they are created per call but not closed.", "app/deps.py"),
    ),
    # ---------------- code: TypeScript ----------------
    (
        (
            "Promise returned by saveDraft() is not awaited, so errors are unhandled.",
            "src/editor/autosave.ts:45",
        ),
        (
            "Floating promise: the autosave call fires without await or .catch, so a rejection is lost.",
            "src/editor/autosave.ts",
        ),
    ),
    (
        ("`any` used for the API response type defeats type checking.", "src/api/client.ts:12"),
        (
            "fetchOrders returns an untyped payload; declare an interface instead of any.",
            "src/api/client.ts",
        ),
    ),
    (
        (
            "useEffect is missing `userId` in its dependency array, so stale data is shown after switching users.",
            "src/components/Profile.tsx:28",
        ),
        (
            "Profile doesn't refetch when the user changes because the effect's deps omit the id.",
            "src/components/Profile.tsx",
        ),
    ),
    (
        ("Event listener added on mount is never removed.", "src/hooks/useResize.ts:9"),
        (
            "The resize handler leaks: no cleanup calls removeEventListener on unmount.",
            "src/hooks/useResize.ts:14",
        ),
    ),
    (
        (
            "User-supplied HTML is rendered via dangerouslySetInnerHTML without sanitising.",
            "src/components/Comment.tsx:33",
        ),
        ("XSS risk in comment rendering.", "src/components/Comment.tsx"),
    ),
    (
        ("parseInt called without radix.", "src/utils/query.ts:17"),
        (
            "Specify base 10 when converting the page parameter with parseInt; leading zeros may otherwise be misinterpreted.",
            "src/utils/query.ts",
        ),
    ),
    (
        ("The CLI exits with status 0 even when the build fails.", "src/cli/main.ts:88"),
        (
            "On a failed build, process.exitCode is never set to non-zero, so CI believes it succeeded.",
            "src/cli/main.ts",
        ),
    ),
    (
        (
            "Race condition: two quick clicks on Submit create duplicate bookings.",
            "src/pages/checkout.tsx:61",
        ),
        (
            "The submit button isn't disabled while the request is in flight, letting users double-book by clicking twice.",
            "src/pages/checkout.tsx",
        ),
    ),
    # ---------------- code: other languages ----------------
    (
        (
            "Goroutine leak: the worker never exits when the context is cancelled.",
            "internal/queue/worker.go:52",
        ),
        (
            "The consumer loop ignores ctx.Done(), so it keeps running after shutdown.",
            "internal/queue/worker.go",
        ),
    ),
    (
        ("unwrap() on the config parse will panic on malformed input.", "src/config.rs:40"),
        (
            "A bad config file crashes the program instead of returning a readable error.",
            "src/config.rs",
        ),
    ),
]

DIFFERENT: list[tuple[Finding, Finding]] = [
    # ---------------- plans: events ----------------
    (
        (
            "No backup caterer is named in case the booked caterer cancels close to the date.",
            "Risks & Dependencies",
        ),
        (
            "No backup photographer is named in case the booked photographer cancels close to the date.",
            "Risks & Dependencies",
        ),
    ),
    (
        ("Speaker travel costs are missing from the budget.", "Resources & Budget"),
        ("Speaker honoraria are missing from the budget.", "Resources & Budget"),
    ),
    (
        ("The venue booking milestone has no date.", "Timeline & Milestones"),
        ("The venue booking milestone has no owner.", "Timeline & Milestones"),
    ),
    (
        (
            "The expected attendance figure is not stated anywhere in the event plan.",
            "Goals & Scope",
        ),
        (
            "The expected attendance figure differs between the goals (300) and the catering order (450).",
            "Goals & Scope",
        ),
    ),
    (
        ("Deadline for paying the venue deposit is missing.", "Timeline"),
        ("Amount of the venue deposit is missing.", "Budget"),
    ),
    (
        (
            "The plan doesn't say how attendees will be told about a last-minute programme change.",
            "Approach",
        ),
        (
            "The plan doesn't say how volunteers will be told about a last-minute programme change.",
            "Approach",
        ),
    ),
    (
        ("Security staffing for the evening concert is not budgeted.", "Resources & Budget"),
        (
            "Security staffing for the evening concert is budgeted, but two guards is far too few for 2,000 people.",
            "Resources & Budget",
        ),
    ),
    (
        ("Dietary requirements are not collected at registration.", "Approach"),
        (
            "Dietary requirements are collected at registration but never passed on to the caterer.",
            "Approach",
        ),
    ),
    # ---------------- plans: hiring ----------------
    (
        ("Recruiter agency fees are absent from the hiring budget.", "Resources & Budget"),
        ("Relocation allowances are absent from the hiring budget.", "Resources & Budget"),
    ),
    (
        ("The hiring plan doesn't define who conducts the technical interview.", "Approach"),
        ("The hiring plan doesn't define what the technical interview assesses.", "Approach"),
    ),
    (
        (
            "Reference checks are scheduled after the offer is signed, which is too late.",
            "Timeline & Milestones",
        ),
        ("Reference checks are not scheduled at all.", "Timeline & Milestones"),
    ),
    (
        (
            "Risk of the top candidate declining the offer is not considered.",
            "Risks & Dependencies",
        ),
        ("Risk of a new hire leaving during probation is not considered.", "Risks & Dependencies"),
    ),
    (
        ("Number of open positions is 4 in the summary but 5 in the budget.", "Summary"),
        ("Open positions are listed in the summary without their seniority levels.", "Summary"),
    ),
    (
        ("Job description is missing for the data analyst role.", "Approach"),
        ("Job description is missing for the product designer role.", "Approach"),
    ),
    # ---------------- plans: renovations ----------------
    (
        (
            "The renovation schedule has no buffer for late delivery of the kitchen cabinets.",
            "Timeline & Milestones",
        ),
        (
            "The renovation schedule has no buffer for the plaster drying time before painting.",
            "Timeline & Milestones",
        ),
    ),
    (
        ("Skip hire for demolition waste is not in the renovation budget.", "Resources & Budget"),
        (
            "Skip hire is in the renovation budget, but for one week only while demolition runs for three.",
            "Resources & Budget",
        ),
    ),
    (
        ("Electrical rewiring is listed in scope but not costed.", "Resources & Budget"),
        ("Plumbing rework is listed in scope but not costed.", "Resources & Budget"),
    ),
    (
        ("Neighbours' party-wall notice is not mentioned as a dependency.", "Risks & Dependencies"),
        (
            "Neighbours' party-wall notice is not given a date in the schedule.",
            "Timeline & Milestones",
        ),
    ),
    (
        (
            "The plan doesn't say who signs off the work once the contractor finishes.",
            "Review & Next Steps",
        ),
        (
            "The plan doesn't say when the contractor gets paid once the work finishes.",
            "Review & Next Steps",
        ),
    ),
    (
        (
            "Loft conversion is out of scope, but the timeline includes a week for loft insulation.",
            "Goals & Scope",
        ),
        (
            "Loft conversion is in scope, but no structural engineer's assessment is planned.",
            "Goals & Scope",
        ),
    ),
    # ---------------- plans: research projects ----------------
    (
        ("The research plan doesn't describe how participants will be recruited.", "Approach"),
        (
            "The research plan doesn't describe how participants will be randomised to the two arms.",
            "Approach",
        ),
    ),
    (
        ("Pilot study is missing from the timeline.", "Timeline & Milestones"),
        (
            "Pilot study is on the timeline but overlaps with the main data collection, so its lessons can't be applied.",
            "Timeline & Milestones",
        ),
    ),
    (
        ("The primary outcome measure is not defined.", "Goals & Scope"),
        ("The secondary outcome measures are not defined.", "Goals & Scope"),
    ),
    (
        ("No plan for handling missing data in the analysis.", "Approach"),
        ("No plan for handling outliers in the analysis.", "Approach"),
    ),
    (
        (
            "Risk that the lab's sequencer breaks down mid-project is not mitigated.",
            "Risks & Dependencies",
        ),
        (
            "Risk that the grant renewal is refused mid-project is not mitigated.",
            "Risks & Dependencies",
        ),
    ),
    (
        ("Open-access publication fees are not in the budget.", "Resources & Budget"),
        ("Participant compensation payments are not in the budget.", "Resources & Budget"),
    ),
    # ---------------- plans: other kinds ----------------
    (
        ("Press release date for the product launch is not set.", "Timeline & Milestones"),
        ("Press release for the product launch has no named approver.", "Timeline & Milestones"),
    ),
    (
        ("The office move plan has no inventory of equipment to transfer.", "Approach"),
        (
            "The office move plan has no schedule for disconnecting and reconnecting the network equipment.",
            "Approach",
        ),
    ),
    (
        (
            "The review section doesn't say which metrics will be checked after the campaign.",
            "Review & Next Steps",
        ),
        (
            "The review section doesn't say who will check the metrics after the campaign.",
            "Review & Next Steps",
        ),
    ),
    (
        ("The course plan doesn't say how students will be assessed in module 3.", "Approach"),
        ("The course plan doesn't say how students will be assessed in module 4.", "Approach"),
    ),
    # ---------------- code: Python ----------------
    (
        ("Webhook retry has no backoff between attempts.", "api/webhooks.py:77"),
        (
            "Webhook retry has no idempotency key, so a retried delivery may be processed twice.",
            "api/webhooks.py:77",
        ),
    ),
    (
        (
            "Shell command built from the filename string allows command injection.",
            "tools/convert.py:31",
        ),
        (
            "Shell command built from the filename string allows command injection.",
            "tools/thumbnail.py:31",
        ),
    ),
    (
        (
            "Retry counter incremented in the exception handler is never reset after a successful sync.",
            "workers/mailer.py:90",
        ),
        (
            "Exception handler logs at DEBUG level, so delivery failures never show up in production logs.",
            "workers/mailer.py:90",
        ),
    ),
    (
        (
            "The `start_date` field is not validated in the booking serializer.",
            "bookings/serializers.py",
        ),
        (
            "The `end_date` field is not validated in the booking serializer.",
            "bookings/serializers.py",
        ),
    ),
    (
        ("No test covers a CSV with a malformed header row.", "tests/test_export.py"),
        ("No test covers a CSV with non-UTF-8 characters.", "tests/test_export.py"),
    ),
    (
        ("Standard deviation uses n instead of n-1 for a sample.", "analysis/summary.py:48"),
        (
            "Standard deviation is computed but never included in the report output.",
            "analysis/summary.py:48",
        ),
    ),
    (
        ("The SMTP password is written to the log on startup.", "services/notify.py:12"),
        (
            "The SMTP password is read from an environment variable that is never documented.",
            "services/notify.py:12",
        ),
    ),
    (
        (
            "`send_invite` does not check that the candidate's email address is valid.",
            "hiring/invites.py:40",
        ),
        (
            "`send_invite` does not check whether the candidate was already invited.",
            "hiring/invites.py:40",
        ),
    ),
    (
        ("Timeout on the HTTP call to the vendor API is missing.", "clients/vendor.py:25"),
        (
            "Timeout on the HTTP call to the vendor API is 300 seconds, which blocks the worker far too long.",
            "clients/vendor.py:25",
        ),
    ),
    (
        (
            "Docstring for `compute_quote` says prices are in euros but the code returns cents.",
            "pricing/quote.py",
        ),
        ("Docstring for `compute_quote` is missing entirely.", "pricing/quote.py"),
    ),
    # ---------------- code: TypeScript ----------------
    (
        (
            "uploadPhotos() awaits each upload inside the loop, serialising requests that could run in parallel.",
            "src/gallery/upload.ts:45",
        ),
        ("uploadPhotos() doesn't limit how many uploads run at once.", "src/gallery/upload.ts:45"),
    ),
    (
        (
            "Dashboard effect has no cleanup, so an in-flight fetch sets state after unmount.",
            "src/components/Dashboard.tsx:28",
        ),
        (
            "Dashboard effect refetches on every render because the options object is recreated each time.",
            "src/components/Dashboard.tsx:28",
        ),
    ),
    (
        (
            "Request body type for createBooking allows `guests` to be a string.",
            "src/api/bookings.ts:12",
        ),
        (
            "Response type for createBooking allows `guests` to be a string.",
            "src/api/bookings.ts:30",
        ),
    ),
    (
        ("The deploy script prints errors to stdout instead of stderr.", "scripts/deploy.ts:88"),
        (
            "The deploy script prints errors without the name of the failing step.",
            "scripts/deploy.ts:88",
        ),
    ),
    (
        (
            "Scroll listener is not throttled, so it triggers hundreds of re-renders.",
            "src/hooks/useScroll.ts:9",
        ),
        (
            "Scroll listener is registered as non-passive, which blocks smooth scrolling on mobile.",
            "src/hooks/useScroll.ts:9",
        ),
    ),
    (
        ("Form allows submitting when the email field is empty.", "src/pages/signup.tsx:40"),
        (
            "Form allows submitting when the password confirmation doesn't match.",
            "src/pages/signup.tsx:40",
        ),
    ),
    (
        (
            "Date is formatted with the server's locale instead of the user's.",
            "src/utils/format.ts:22",
        ),
        (
            "Date is formatted with the server's timezone instead of the user's.",
            "src/utils/format.ts:22",
        ),
    ),
    (
        ("Error from the ticket API is not shown to the user.", "src/pages/tickets.tsx:61"),
        (
            "Error from the ticket API is shown to the user as a raw stack trace.",
            "src/pages/tickets.tsx:61",
        ),
    ),
    # ---------------- code: other languages ----------------
    (
        ("Goroutine writes to the results map without a mutex.", "internal/crawler/fetch.go:52"),
        (
            "Goroutine writes to the results channel without checking whether it has been closed.",
            "internal/crawler/fetch.go:52",
        ),
    ),
    (
        ("Integer overflow when summing ticket prices in cents.", "src/billing.rs:40"),
        ("Integer overflow when summing ticket prices in cents.", "src/refunds.rs:40"),
    ),
]

if __name__ == "__main__":
    print(len(SAME), len(DIFFERENT))
