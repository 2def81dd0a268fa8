"""The same finding in new words: reviewers reword an issue from one round to the next.

A description is reduced to the set of what it names: words lower-cased, stop words and the words
of absence ("no", "missing", "lacks": nearly every finding has one) dropped, a light stemmer,
and the synonyms reviewers swap (cost/budget/expense, owner/responsible, vague/unclear) merged
to one word. Two descriptions name the same issue when those sets overlap by a Dice coefficient
of at least `SAME_WORDS` (2·shared / (size of one + size of the other)), whatever the order of
their clauses, and share a word that is not a number (severity words are no subject either).
Two descriptions that say different kinds of problem (missing, unclear, contradictory, wrong,
duplicated) are never the same finding (`same_kind`), whatever else they share; two worded in one
frame that each name a thing the other does not ("milestones lack dates", "milestones lack
owners"), or of which one says a thing is missing and the other that it is there, are not the same
finding however alike their characters (`near_miss`). The thresholds were chosen on the labelled
pairs of `bench/bench_paraphrase.py`, which measures them on every set, the held-out one too.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

SAME_WORDS = Fraction(3, 5)
_SHARED, _OF = SAME_WORDS.numerator, 2 * SAME_WORDS.denominator

_WORD = re.compile(r"[A-Za-z0-9]+")
_DIGIT = re.compile(r"[0-9]")
_STOP_WORDS = """
    a an the of to in on for from by with at as into onto per via and or but nor so than then
    is are was were be been being am do does did done has have had having it its this that these
    those there here which who whom whose what when where while why how any all each every some
    such other another same both either neither only just also too very more most much many
    can could should would may might must will shall not no none nothing never without missing
    lack lacks lacking lacked absent omit omits omitted omission empty nobody neither nor yet
    given gives give include includes included including contain contains containing state
    states stated say says said mention mentions mentioned specify specifies specified
    describe describes described cover covers covered address addresses addressed plan plans
    section document currently current actually one ones instead even still again properly
    list listed arrange arranged organize organise up down go about met meet strategy content
    during before prior after written write writes output message messages code coded replace
    number exhaust out handle handling return returns because between s critical medium minor
    major severe high low issue issues problem problems finding
"""
_STOP = frozenset(_STOP_WORDS.split())
_SYNONYMS = (
    "budget cost costs spend spending expense expenses financial money",
    "contingency reserve",
    "buffer slack margin",
    "backup fallback alternative",
    "rain wet weather",
    "unexpected unforeseen unplanned",
    "deadline due",
    "owner responsible responsibility responsibilities assigned assign accountable staff staffed",
    "detail details information info",
    "capacity hold",
    "collect gather",
    "requirement requirements required requires restriction restrictions need needs",
    "backup back",
    "criterion criteria",
    "column cell",
    "deliver deliverable delivered",
    "segment segmentation segmented",
    "finish finishes complete completes completed",
    "import importer",
    "swallow swallows ignore ignores catch catches silent silently",
    "compare compares comparison",
    "magic hard hardcoded",
    "exit status",
    "retry retries retried attempt attempts",
    "schedule timeline",
    "guest guests attendee attendees invitee invitees invited",
    "venue site",
    "transport transportation shuttle",
    "dietary diet",
    "unclear vague ambiguous imprecise fuzzy",
    "monitor monitoring monitored observability alert alerting alerts",
    "test tests testing tested untested",
    "fail fails failure failed failing error errors crash crashes exception exceptions",
    "log logs logging logged",
    "leak leaks leaked expose exposes exposed",
    "database db",
    "forever indefinitely infinite endless unbounded unlimited",
    "limit cap maximum max bound",
    "validate validated validation check checked checking verify verified verification confirm",
    "launch golive live",
    "measure measured metric metrics kpi",
    "analyse analyze analysis analyses",
    "competitor competitors competition",
    "source sourced cite cites citation reference",
    "breakdown split broken",
    "concurrent concurrently parallel simultaneous simultaneously race mutex",
    "docstring documentation documented docs",
    "hint hints annotation annotations",
    "slow slowness performance latency",
    "huge large big",
    "insurance insured",
    "access accessibility",
    "mobility wheelchair",
    "license licensing licence",
    # review vocabulary in general: how any reviewer says the same kind of problem
    "inconsistent inconsistency inconsistencies contradict contradicts contradiction conflict"
    " conflicts conflicting mismatch mismatched mismatches discrepancy discrepancies disagree"
    " disagrees",
    "incorrect wrong inaccurate erroneous mistaken",
    "duplicate duplicated duplicates duplication repeated repeats redundant",
    "outdated stale obsolete deprecated",
    "unrealistic optimistic overoptimistic",
    "estimate estimates estimated projection projections forecast",
    "clarify clarified define defined definition explain explained explanation justify"
    " justified justification",
    "risk risks threat threats hazard hazards",
    "mitigation mitigate mitigations",
    "step steps procedure procedures process workflow",
    "price prices pricing priced fee fees",
    "delete deletes deleted deletion remove removes removed removal",
    "secret secrets credential credentials password passwords token tokens",
    "goal goals objective aim aims",
    "approve approval approved signoff",
    "permission permissions authorization authorisation authorize privilege privileges",
    "authenticate authentication login",
    "encrypt encrypted encryption",
    "input inputs parameter parameters argument arguments param params",
    "assumption assumptions assume assumes assumed",
    "dependency dependencies depend depends dependent",
    "priority priorities prioritize prioritise prioritization",
    "rollback revert undo",
    "deploy deployment deployed release releases rollout",
    "total totals sum subtotal",
    "example examples sample samples",
    "privacy personal pii",
    # things plans and code name in other words
    "vendor vendors supplier suppliers provider providers contractor contractors",
    "function functions method methods",
    "endpoint endpoints route routes",
    "user users customer customers",
    "email emails mail",
    "notification notifications notify notifies",
    "food catering menu meal meals",
    "drink drinks beverage beverages",
    "photographer photography photo photos",
    "decor decoration decorations",
    "typo typos misspelling misspelled",
    "secure security insecure vulnerable vulnerability vulnerabilities",
    "inject injection injections",
    "sanitize sanitise sanitized sanitised unsanitized escape escaped escaping unescaped",
    "memory ram",
    "response responses reply replies",
)


def words(text: str) -> frozenset[str]:
    """What a description names, as the canonical words compared."""
    return _words(text)


def same_words(first: frozenset[str], second: frozenset[str]) -> bool:
    """Dice ≥ SAME_WORDS, in integers: shared·2·5 ≥ 3·(|first| + |second|); numbers alone
    (a count, a line) are no shared subject."""
    shared = first & second
    if len(shared) * _OF < _SHARED * (len(first) + len(second)):
        return False
    return not all(word.isdigit() for word in shared)


def same_kind(text: str, other: str) -> bool:
    """Whether two descriptions can name the same kind of problem: not when each says which kind
    and they say different ones ("the contingency line is missing" is not "the contingency line
    is unclear", however alike the words); a description that names none can be any."""
    first, second = _kinds(text), _kinds(other)
    return not first or not second or bool(first & second)


def least_shared(size: int, other: int) -> int:
    """The fewest shared words two sets of these sizes need to be the same issue."""
    return -(-_SHARED * (size + other) // _OF)


def near_miss(text: str, other: str) -> bool:
    """Whether two descriptions worded in one frame are different findings all the same: each
    names a thing the other does not ("milestones lack dates" / "… owners"), or one says a thing
    is absent and the other that it is there ("the error is not shown" / "the error is shown as a
    raw trace"). A reviewer rewording a finding changes more of its wording than that, or keeps
    both what it names and whether it is missing; a changed absence is the stronger sign, so it
    counts in a looser frame."""
    if text == other:
        return False
    same_absence = _says_absent(text) == _says_absent(other)
    if same_absence and _same_subject(text, other):
        return False
    frame = SAME_FRAME if same_absence else SAME_FRAME_ABSENCE
    return Levenshtein.normalized_similarity(text, other) >= frame


SAME_FRAME = 0.6
SAME_FRAME_ABSENCE = 0.5
"""How alike (normalized Levenshtein) two descriptions must be to share a frame: the loosest
that refuses no rewording of the labelled pairs `bench/bench_paraphrase.py` has been tuned on."""


def _same_subject(text: str, other: str) -> bool:
    """Not when each names something the other does not, unless the two words differ by a slip
    of the keyboard (numbers aside, "12k" too: a count that changed with the document is the
    same finding)."""
    mine, theirs = words(text), words(other)
    only_mine, only_theirs = mine - theirs, theirs - mine
    if not only_mine or not only_theirs:
        return True
    named = [word for word in only_mine if not _DIGIT.search(word)]
    named_there = [word for word in only_theirs if not _DIGIT.search(word)]
    return not (
        any(not any(_slip(word, there) for there in named_there) for word in named)
        and any(not any(_slip(word, there) for word in named) for there in named_there)
    )


@lru_cache(maxsize=65536)
def _slip(word: str, other: str) -> bool:
    return Levenshtein.normalized_similarity(word, other) >= _SLIP


_SLIP = 0.8
"""Two words this alike (normalized Levenshtein) are one word mistyped, as the design's rule says
of two descriptions."""


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """Cached: the previous review's descriptions were the current ones an iteration ago."""
    if len(_CANONICAL_OF) > _MAX_KNOWN_WORDS:
        _CANONICAL_OF.clear()
    found = set(map(_CANONICAL_OF.__getitem__, _WORD.findall(text)))
    found.discard("")
    return frozenset(found)


@lru_cache(maxsize=4096)
def _says_absent(text: str) -> bool:
    """Whether a description says something is missing ("no", "lacks", "doesn't")."""
    return _ABSENT.search(text) is not None


@lru_cache(maxsize=4096)
def _kinds(text: str) -> frozenset[str]:
    return frozenset(_KIND_OF[word] for word in _WORD.findall(text.lower()) if word in _KIND_OF)


_KINDS = {
    "absent": "missing lacks lack lacking absent omits omitted omission no none without never",
    "vague": "unclear vague ambiguous imprecise confusing unclearly vaguely",
    "conflict": "inconsistent inconsistency inconsistencies contradicts contradict contradiction"
    " contradictory conflicts conflict conflicting mismatch mismatched mismatches discrepancy"
    " discrepancies differs disagree disagrees",
    "wrong": "incorrect incorrectly wrong wrongly inaccurate erroneous mistaken miscalculated",
    "duplicate": "duplicate duplicates duplicated duplication repeated repeats redundant twice",
}
"""The words that say which kind of problem a finding is (a reviewer rewording a finding keeps
its kind), each word of one kind only; "not" says none ("not clear", "not given")."""
_KIND_OF = {word: kind for kind, found in _KINDS.items() for word in found.split()}
_ABSENCE_WORDS = sorted({*_KINDS["absent"].split(), "not", "nobody", "nothing", "cannot", "nor"})
_ABSENT = re.compile(rf"\b(?:{'|'.join(_ABSENCE_WORDS)})\b|n['’]t\b", re.IGNORECASE)


def _canonical(word: str) -> str:
    """The word as compared; empty for a word that names nothing. A negated word whose stem is
    one of the synonyms ("untested", "unassigned", "unbudgeted") names what its stem names: the
    negation is a word of absence."""
    if word in _STOP or (len(word) == 1 and not word.isdigit()):
        return ""
    stem = _stem(word)
    if stem in _STOP:
        return ""
    if stem not in _CANONICAL and word.startswith("un") and _stem(word[2:]) in _CANONICAL:
        return _CANONICAL[_stem(word[2:])]
    return _CANONICAL.get(stem, stem)


class _KnownWords(dict[str, str]):
    """Each word's canonical form, worked out once: a dictionary lookup costs less than any
    cache wrapper, and a review's words are mostly ones seen before."""

    def __missing__(self, word: str) -> str:
        self[word] = found = _canonical(word.lower())
        return found


_CANONICAL_OF = _KnownWords()
_MAX_KNOWN_WORDS = 200_000


def _stem(word: str) -> str:
    """A light stemmer: enough to meet 'validated', 'validation' and 'validate' in one word."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, instead in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word[-2] in "sui":
                break
            word = word[: -len(suffix)] + instead
            break
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


_SUFFIXES = (
    ("ational", "ate"),
    ("izations", "ize"),
    ("ization", "ize"),
    ("isation", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("iness", "y"),
    ("ments", ""),
    ("ment", ""),
    ("ingly", ""),
    ("ings", ""),
    ("ing", ""),
    ("edly", ""),
    ("ied", "y"),
    ("ies", "y"),
    ("ed", ""),
    ("es", ""),
    ("ly", ""),
    ("s", ""),
)
_CANONICAL = {_stem(word): _stem(group.split()[0]) for group in _SYNONYMS for word in group.split()}
