"""Hand-written labelled set of reviewer-finding pairs, held out (never looked at), written by a helper session from its
own knowledge of how LLM and human reviewers phrase findings, without reading the matcher code or any
other pair file. Leans towards product launches, migrations, fundraising, courses, operations, and
Go/Java/Python code; about 60 % plan-document findings (section-heading locations) and 40 % code
findings (file-path locations). SAME pairs are one finding reworded between rounds; DIFFERENT pairs
share a location and most of their words but describe a different problem."""

from __future__ import annotations

Finding = tuple[str, str]

SAME: list[tuple[Finding, Finding]] = [
    # ---------------- plan documents ----------------
    (
        ("No rollback plan if the launch-day release breaks checkout.", "Approach"),
        (
            "If the release on launch day fails, the plan does not say how we revert to the previous build.",
            "## Approach",
        ),
    ),
    (
        (
            "The gala revenue projection assumes every pledged sponsor actually pays; there is no allowance for sponsors who back out.",
            "Resources & Budget",
        ),
        ("Budget treats all sponsorship pledges as guaranteed income.", "Budget"),
    ),
    (
        ("Cutover weekend has no owner.", "Timeline & Milestones"),
        (
            "Nobody is named as responsible for running the database cutover on the weekend of the 14th.",
            "Timeline",
        ),
    ),
    (
        ("Learning objectives are not measurable.", "Goals & Scope"),
        (
            "The course goals rely on verbs like 'understand' and 'appreciate', which cannot be assessed.",
            "Goals and scope",
        ),
    ),
    (
        (
            "A single engineer covers overnight on-call for three straight weeks.",
            "Resources & Budget",
        ),
        (
            "One person is on the night pager for 21 consecutive days, which is a burnout risk.",
            "Resources",
        ),
    ),
    (
        ("No validation step after migrating customer records.", "Approach"),
        (
            "Once records are copied into the new CRM, nothing checks that row counts and field values match the source system.",
            "Approach",
        ),
    ),
    (
        ("Press embargo lifts before the app is available in the stores.", "Timeline"),
        (
            "Journalists can publish on 3 March, but store availability is not until 5 March.",
            "Timeline & Milestones",
        ),
    ),
    (
        (
            "The dependency on the foundation grant arriving by June is not listed as a risk.",
            "Risks & Dependencies",
        ),
        (
            "What happens if the foundation grant is late or declined? The plan depends on it but the risks section is silent.",
            "Risks",
        ),
    ),
    (
        ("Budget omits instructor fees for the pilot cohort.", "Resources & Budget"),
        ("There's no line item for paying the teachers who run the first cohort.", "## Budget"),
    ),
    (
        (
            "The Summary claims a 30% cost reduction that nothing else in the plan supports.",
            "Summary",
        ),
        ("Thirty percent savings figure is asserted without any backing calculation.", "Summary"),
    ),
    (
        ("Venue capacity (200) is lower than expected attendance (350).", "Resources & Budget"),
        (
            "We expect three hundred and fifty attendees, but the hall only holds two hundred.",
            "Resources",
        ),
    ),
    (
        ("Success criteria for the hiring plan are missing.", "Goals & Scope"),
        (
            "How will we know recruiting succeeded? No target headcount or time-to-fill goal is given.",
            "Goals",
        ),
    ),
    (
        ("Sample size is not justified.", "Approach"),
        (
            "The study picks 40 participants with no power analysis or stated rationale for that number.",
            "Approach / Methods",
        ),
    ),
    (
        (
            "Demolition is scheduled before the asbestos survey; it should come after.",
            "Timeline & Milestones",
        ),
        (
            "The hazardous-materials inspection must happen ahead of knocking walls down, but the schedule has it the other way round.",
            "Timeline",
        ),
    ),
    (
        ("No contingency for missed connecting flights.", "Risks / Dependencies"),
        (
            "If someone misses the Frankfurt connection there is no fallback arrangement.",
            "Risks & Dependencies",
        ),
    ),
    (
        ("Campaign KPIs undefined.", "Goals & Scope"),
        (
            "The plan never says which metrics - click-through rate, sign-ups, CAC - will decide whether the campaign worked.",
            "Goals & Scope",
        ),
    ),
    (
        (
            "The legacy ERP is switched off on go-live day, so there is no parallel run.",
            "Timeline & Milestones",
        ),
        (
            "Decommissioning of the old system coincides with cutover; at no point do both systems run side by side.",
            "Timeline",
        ),
    ),
    (
        ("Support staff are not trained before launch.", "Approach"),
        (
            "Customer support gets no training on the new product until after it ships.",
            "Approach section",
        ),
    ),
    (
        ("It is unclear who approves spending of the campaign funds.", "Review & Next Steps"),
        (
            "The plan does not state which person or board signs off on disbursing the money raised.",
            "Review and next steps",
        ),
    ),
    (
        ("Single point of failure: only one courier is contracted.", "Risks & Dependencies"),
        (
            "All deliveries go through one courier company, so an outage on their side halts fulfilment entirely.",
            "Risks",
        ),
    ),
    (
        (
            "Only one week between finishing course materials and the first class; too tight for review.",
            "Timeline & Milestones",
        ),
        (
            "Content is due on a Friday and teaching starts the following Monday, leaving no time to QA it.",
            "Timeline",
        ),
    ),
    (
        (
            "Goals & Scope lists a mobile app, but Approach and Timeline only cover the web version.",
            "Goals & Scope",
        ),
        ("Mobile app is in scope yet is never planned or scheduled.", "Scope"),
    ),
    (
        ("No communication to users about the planned downtime.", "Approach"),
        (
            "Users are not told in advance that the portal will be offline during the switchover.",
            "## Approach",
        ),
    ),
    (
        (
            "Budget line items sum to $48,500, not the stated total of $52,000.",
            "Resources & Budget",
        ),
        (
            "Arithmetic error in the budget table: the total is 3,500 dollars more than the rows add up to.",
            "Budget table",
        ),
    ),
    (
        (
            "The marketing site is blocked on an undecided pricing model, and this dependency isn't tracked.",
            "Risks & Dependencies",
        ),
        (
            "Pricing still TBD; landing page can't ship until it's settled. Not captured anywhere.",
            "Dependencies",
        ),
    ),
    (
        ("Review cadence is vague ('regularly').", "Review & Next Steps"),
        (
            "'We will revisit this regularly' gives no actual frequency or date for the next review.",
            "Next steps",
        ),
    ),
    (
        ("Ethics approval is missing from the timeline.", "Timeline & Milestones"),
        (
            "IRB sign-off is not scheduled anywhere, yet participant recruitment starts in week 2.",
            "Timeline",
        ),
    ),
    (
        ("No wet-weather plan for the outdoor ceremony.", "Risks"),
        (
            "The ceremony is outside and no indoor alternative is mentioned in case it rains.",
            "Risks & Dependencies",
        ),
    ),
    (
        (
            "Interviewers have no shared scoring rubric, so candidates will be judged inconsistently.",
            "Approach",
        ),
        ("Interview panels aren't calibrated - each one applies its own criteria.", "Approach"),
    ),
    (
        ("Monthly cloud spend is unbounded.", "Resources & Budget"),
        ("Nothing caps what autoscaling can cost us in a given month.", "Budget"),
    ),
    # ---------------- code ----------------
    (
        ("SQL built with an f-string - injection risk.", "api/orders.py:88"),
        (
            "The user-supplied order_id is interpolated straight into the query text; use a parameterised query instead.",
            "api/orders.py",
        ),
    ),
    (
        ("Error from json.Unmarshal is discarded.", "internal/config/load.go:42"),
        (
            "A malformed config file silently loads as zero values because the unmarshal failure is never checked.",
            "internal/config/load.go",
        ),
    ),
    (
        (
            "Resource leak: FileInputStream is not closed on the exception path.",
            "src/main/java/com/acme/io/ReportReader.java:57",
        ),
        (
            "Use try-with-resources here; if parse() throws, the stream stays open.",
            "ReportReader.java:57",
        ),
    ),
    (
        (
            "Goroutine leak: worker never exits when the context is cancelled.",
            "pkg/worker/pool.go:73",
        ),
        (
            "The worker loop doesn't select on ctx.Done(), so it keeps running after shutdown.",
            "pkg/worker/pool.go",
        ),
    ),
    (
        ("Mutable default argument.", "utils/cache.py:12"),
        (
            "add_item(item, bucket=[]) shares the same list across every call that omits bucket.",
            "utils/cache.py line 12",
        ),
    ),
    (
        (
            "Plain HashMap is accessed from multiple threads without synchronization.",
            "src/main/java/com/acme/session/SessionStore.java:31",
        ),
        (
            "SessionStore is not thread-safe; concurrent puts can corrupt the map - switch to ConcurrentHashMap.",
            "SessionStore.java",
        ),
    ),
    (
        ("Retry loop has no maximum number of attempts.", "internal/client/retry.go:28"),
        (
            "If the server stays down, retryRequest keeps retrying forever.",
            "internal/client/retry.go:28",
        ),
    ),
    (
        ("Bare except hides errors.", "jobs/sync.py:140"),
        (
            "The catch-all `except:` also swallows KeyboardInterrupt and masks genuine failures; catch specific exception types.",
            "jobs/sync.py",
        ),
    ),
    (
        ("Promise not awaited.", "src/cli/main.ts:12"),
        (
            "saveConfig() is async but called without await, so the process can exit before the file is written.",
            "src/cli/main.ts",
        ),
    ),
    (
        (
            "Off-by-one: loop condition uses <= items.size().",
            "src/main/java/com/acme/billing/InvoiceBatcher.java:88",
        ),
        (
            "The last iteration throws IndexOutOfBoundsException because the loop bound is inclusive.",
            "InvoiceBatcher.java:88",
        ),
    ),
    (
        ("Passwords are stored in plaintext.", "auth/models.py:23"),
        (
            "User.password is saved without hashing; it should go through bcrypt or argon2.",
            "auth/models.py",
        ),
    ),
    (
        ("Data race on the hits counter.", "metrics/counter.go:19"),
        (
            "hits++ runs from many HTTP handlers at once with neither a mutex nor sync/atomic.",
            "metrics/counter.go",
        ),
    ),
    (
        ("unwrap() on user input can panic.", "src/parser.rs:54"),
        (
            "Parsing the port with .unwrap() crashes the program on a non-numeric value instead of returning an error.",
            "src/parser.rs",
        ),
    ),
    (
        ("Naive datetime is compared with a timezone-aware one.", "billing/invoice.py:77"),
        (
            "datetime.now() has no tzinfo, so comparing it to the UTC due_date raises TypeError.",
            "billing/invoice.py:77",
        ),
    ),
    (
        ("Hard-coded database credentials.", "src/main/resources/application.properties"),
        (
            "The production DB password is committed in the properties file; load it from a secret store instead.",
            "application.properties:4",
        ),
    ),
    (
        ("HTTP client has no timeout.", "cmd/fetcher/main.go:35"),
        (
            "http.Get uses the default client, which never gives up, so a slow upstream hangs the fetcher indefinitely.",
            "cmd/fetcher/main.go",
        ),
    ),
    (
        ("The backfill migration is not idempotent.", "migrations/0042_backfill_emails.py"),
        (
            "Running this backfill a second time duplicates rows; it should skip records that were already processed.",
            "migrations/0042_backfill_emails.py:15",
        ),
    ),
    (
        (
            "N+1 query: each author's books are loaded inside the loop.",
            "app/controllers/authors_controller.rb:22",
        ),
        (
            "The index action issues one SELECT per author; eager-load the books association.",
            "authors_controller.rb",
        ),
    ),
    (
        ("equals() is overridden without hashCode().", "src/main/java/com/acme/model/Money.java"),
        (
            "Two Money values that compare equal can end up in different HashSet buckets.",
            "Money.java:40",
        ),
    ),
    (
        ("defer f.Close() inside a loop.", "internal/export/writer.go:61"),
        (
            "Files opened in the for loop are only closed when the function returns, so big exports run out of file descriptors.",
            "internal/export/writer.go",
        ),
    ),
]

DIFFERENT: list[tuple[Finding, Finding]] = [
    # ---------------- plan documents ----------------
    (
        ("The launch milestones (beta, GA) have no target dates.", "Timeline & Milestones"),
        ("The launch milestones (beta, GA) have no exit criteria.", "Timeline & Milestones"),
    ),
    (
        ("Budget has no contingency line for the fundraising dinner.", "Resources & Budget"),
        (
            "Budget has no line for card payment processing fees on the fundraising dinner.",
            "Resources & Budget",
        ),
    ),
    (
        (
            "Approach doesn't say how auto-increment sequences are reset after the data import.",
            "Approach",
        ),
        (
            "Approach doesn't say how foreign-key constraints are re-enabled after the data import.",
            "Approach",
        ),
    ),
    (
        ("No backup plan if the keynote speaker drops out.", "Risks & Dependencies"),
        ("No backup plan if the AV supplier drops out.", "Risks & Dependencies"),
    ),
    (
        ("Final project: no grading rubric is provided.", "Approach"),
        ("Final project: no late-submission policy is provided.", "Approach"),
    ),
    (
        ("No owner assigned for the data-export step of the migration.", "Approach"),
        ("No owner assigned for the data-import step of the migration.", "Approach"),
    ),
    (
        ("Pricing page copy has not been reviewed by legal before launch.", "Approach"),
        ("Terms of service have not been reviewed by legal before launch.", "Approach"),
    ),
    (
        ("The downtime window is unrealistic: two hours to move 4 TB.", "Timeline"),
        ("The downtime window is never communicated to customers.", "Timeline"),
    ),
    (
        (
            "Donor database cleanup is scheduled after the mail appeal goes out.",
            "Timeline & Milestones",
        ),
        ("Donor database cleanup has no staff time allocated to it.", "Timeline & Milestones"),
    ),
    (
        ("The plan assumes three hires by Q2 but budgets no recruiter fees.", "Resources & Budget"),
        (
            "The plan assumes three hires by Q2 but budgets no relocation costs.",
            "Resources & Budget",
        ),
    ),
    (
        (
            "Interview recordings will be stored on personal laptops, which isn't GDPR-compliant.",
            "Risks & Dependencies",
        ),
        (
            "Interview recordings have no stated retention period or deletion date.",
            "Risks & Dependencies",
        ),
    ),
    (
        ("Building permit approval time is underestimated at two weeks.", "Timeline"),
        ("Building permit application has no one assigned to submit it.", "Timeline"),
    ),
    (
        ("Operational KPIs are listed without baseline values.", "Goals & Scope"),
        ("Operational KPIs are listed without target values.", "Goals & Scope"),
    ),
    (
        ("Visa processing time is not accounted for.", "Timeline & Milestones"),
        ("Visa fees are not accounted for.", "Resources & Budget"),
    ),
    (
        (
            "Ad spend of EUR 20k in the Budget conflicts with the EUR 15k quoted in the Summary.",
            "Budget",
        ),
        ("Ad spend of EUR 20k in the Budget has no breakdown by channel.", "Budget"),
    ),
    (
        ("Prerequisite knowledge expected of students is not listed.", "Goals & Scope"),
        ("Prerequisite certifications expected of instructors are not listed.", "Goals & Scope"),
    ),
    (
        ("Risk register omits app store rejection.", "Risks"),
        ("Risk register omits a payment provider outage.", "Risks"),
    ),
    (
        ("The code freeze overlaps the quarter-end financial close.", "Timeline & Milestones"),
        ("There is no code freeze before the migration cutover.", "Timeline & Milestones"),
    ),
    (
        (
            "The $250k goal is not broken down by source (grants, major gifts, events).",
            "Goals & Scope",
        ),
        ("The $250k goal is not broken down by quarter.", "Goals & Scope"),
    ),
    (
        ("No response-time target for P1 incidents.", "Approach"),
        ("No resolution-time target for P1 incidents.", "Approach"),
    ),
    (
        ("Registration opens after the early-bird deadline has already passed.", "Timeline"),
        ("Registration opening date falls on a public holiday when the team is off.", "Timeline"),
    ),
    (
        ("Interview panel includes nobody from product.", "Approach"),
        ("Interview panel includes nobody who will manage the hire.", "Approach"),
    ),
    (
        ("Goals state the hypothesis but not the primary outcome measure.", "Goals & Scope"),
        (
            "Goals state the hypothesis but not the minimum effect size worth detecting.",
            "Goals & Scope",
        ),
    ),
    (
        ("Summary says the launch is in Q3, but the Timeline puts it in Q4.", "Summary"),
        ("Summary says the launch is in Q3 but never says which markets it covers.", "Summary"),
    ),
    (
        ("Renovation budget lacks a line for skip hire and waste removal.", "Resources & Budget"),
        (
            "Renovation budget lacks a line for temporary accommodation during the works.",
            "Resources & Budget",
        ),
    ),
    (
        ("No buffer between the end of module 3 and the final exam.", "Timeline & Milestones"),
        ("Module 3 has no instructor assigned.", "Timeline & Milestones"),
    ),
    (
        (
            "Dependency on the vendor deprecating API v2 in March is not listed.",
            "Risks & Dependencies",
        ),
        (
            "Dependency on renewing the vendor's export-tool licence is not listed.",
            "Risks & Dependencies",
        ),
    ),
    (
        (
            "Next steps don't say who decides whether to continue after the pilot.",
            "Review & Next Steps",
        ),
        (
            "Next steps don't say what criteria decide whether to continue after the pilot.",
            "Review & Next Steps",
        ),
    ),
    (
        ("Sponsor tiers in the Approach don't match the prices in the Budget.", "Approach"),
        ("Sponsor tiers in the Approach don't say what benefits each tier receives.", "Approach"),
    ),
    (
        (
            "Launch plan leans on influencer posts, but no influencers are confirmed yet.",
            "Risks & Dependencies",
        ),
        (
            "Launch plan leans on influencer posts, but doesn't say how their impact will be measured.",
            "Goals & Scope",
        ),
    ),
    # ---------------- code ----------------
    (
        (
            "Cache key in get_profile omits the tenant id, so tenants can see each other's data.",
            "services/profile.py:54",
        ),
        ("Cache entries in get_profile never expire.", "services/profile.py:54"),
    ),
    (
        ("Error returned by db.Exec is ignored.", "internal/store/user.go:45"),
        ("Error returned by tx.Commit is ignored.", "internal/store/user.go:58"),
    ),
    (
        (
            "Possible NullPointerException when customer.getAddress() returns null.",
            "src/main/java/com/acme/order/OrderService.java:120",
        ),
        (
            "Possible NullPointerException when order.getItems() returns null.",
            "src/main/java/com/acme/order/OrderService.java:134",
        ),
    ),
    (
        (
            "Webhook sender disables TLS certificate verification (InsecureSkipVerify: true).",
            "internal/webhook/sender.go",
        ),
        (
            "Webhook sender doesn't sign payloads with an HMAC, so receivers can't verify them.",
            "internal/webhook/sender.go",
        ),
    ),
    (
        ("No validation on `quantity`: negative values are accepted.", "api/cart.py:30"),
        ("No validation on `coupon_code`: strings of any length are accepted.", "api/cart.py:30"),
    ),
    (
        (
            "Logging the full request body writes users' passwords to the log.",
            "src/main/java/com/acme/web/AuthController.java:64",
        ),
        (
            "Logging every request at INFO level will flood the logs under load.",
            "src/main/java/com/acme/web/AuthController.java:64",
        ),
    ),
    (
        ("sync.Mutex is copied because the method has a value receiver.", "cache/lru.go:22"),
        ("sync.Mutex is locked but never unlocked on the early-return path.", "cache/lru.go:48"),
    ),
    (
        ("The uploaded CSV is read entirely into memory with f.read().", "jobs/import_csv.py"),
        (
            "The uploaded CSV is decoded as ASCII, so names with accents fail to import.",
            "jobs/import_csv.py",
        ),
    ),
    (
        ("Unhandled promise rejection in fetchUser.", "src/api/user.ts:40"),
        ("Unhandled promise rejection in fetchOrders.", "src/api/orders.ts:40"),
    ),
    (
        (
            "totalAmount() can overflow an int when summing cents on large invoices.",
            "src/main/java/com/acme/billing/Invoice.java:72",
        ),
        (
            "totalAmount() uses double for money, so rounding errors creep in.",
            "src/main/java/com/acme/billing/Invoice.java:72",
        ),
    ),
    (
        (
            "Migration 0043 drops the old column before its data is copied.",
            "migrations/0043_split_name.py",
        ),
        ("Migration 0043 has no downgrade function.", "migrations/0043_split_name.py"),
    ),
    (
        (
            "Request context is not passed to the DB call in ListUsers.",
            "internal/handlers/users.go:31",
        ),
        (
            "Request context is not passed to the DB call in DeleteUser.",
            "internal/handlers/users.go:88",
        ),
    ),
    (
        ("strcpy into the 64-byte hostname buffer can overflow.", "src/net/parse.c:77"),
        (
            "hostname buffer is not null-terminated after strncpy truncates it.",
            "src/net/parse.c:77",
        ),
    ),
    (
        ("Config path is hard-coded to /etc/app.yaml.", "app/config.py:10"),
        ("Config is parsed with yaml.load instead of yaml.safe_load.", "app/config.py:10"),
    ),
    (
        (
            "Executor thread pool size is hard-coded to 200.",
            "src/main/java/com/acme/config/WorkerConfig.java",
        ),
        (
            "Executor thread pool is never shut down when the application stops.",
            "src/main/java/com/acme/config/WorkerConfig.java",
        ),
    ),
    (
        ("JSON tag on CreatedAt is misspelled as `created_ta`.", "api/types.go:14"),
        ("JSON tag on UpdatedAt is missing, so it serialises as `UpdatedAt`.", "api/types.go:15"),
    ),
    (
        ("Pagination is off by one: the first page skips item 0.", "api/listing.py:41"),
        ("Pagination has no upper limit on page_size.", "api/listing.py:41"),
    ),
    (
        (
            "@Transactional on transferFunds has no effect because the method is private.",
            "src/main/java/com/acme/bank/AccountService.java:103",
        ),
        (
            "@Transactional on transferFunds uses default isolation, which allows a double spend under concurrency.",
            "src/main/java/com/acme/bank/AccountService.java:103",
        ),
    ),
    (
        (
            "TestCreateOrder depends on wall-clock time and is flaky.",
            "internal/orders/orders_test.go",
        ),
        ("TestCreateOrder never asserts on the returned error.", "internal/orders/orders_test.go"),
    ),
    (
        ("CI pins Go 1.19, which is end-of-life.", ".github/workflows/ci.yml"),
        (
            "CI doesn't cache Go modules, so every build re-downloads dependencies.",
            ".github/workflows/ci.yml",
        ),
    ),
]
