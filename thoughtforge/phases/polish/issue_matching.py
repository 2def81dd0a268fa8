"""Stagnation's rotation test: do the current review's issues resemble the previous review's?

Stagnation ends the loop only when the total plateaus while the issues rotate, that is when
fewer than 70 % of the current issues resemble a previous one. An issue resembles another when
their descriptions are similar as the design says (normalized Levenshtein ≥ 0.8), or when they
name the same things in other words (`issue_wording`: reviewers reword, reorder and swap
synonyms from one round to the next, and a reworded finding still persists). Matching is the
guards' only costly part, so it measures as few pairs as the 70 % rule needs, and measures a
pair only when the characters the two descriptions are made of leave the distance within reach.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from thoughtforge.models import Issue
from thoughtforge.phases.polish.issue_wording import least_shared, same_words, words


@dataclass
class Tally:
    """Current issues found to resemble a previous one, or not, until the 70 % rule is decided.

    Once 70 % have matched, or more than 30 % cannot, the issues left cannot change the verdict,
    so they are not measured; the share then states the bound that decided it, never a guess.
    """

    total: int
    matched: int = 0
    unmatched: int = 0

    @property
    def persists(self) -> bool:
        """At least 70 % matched: the same issues persist, so the plateau is not a rotation."""
        return self.matched * 10 >= self.total * 7

    @property
    def decided(self) -> bool:
        return self.persists or (self.total - self.unmatched) * 10 < self.total * 7

    @property
    def share(self) -> str:
        """The exact count once every issue was measured, else the bound that decided."""
        matched, total = self.matched, self.total
        if matched + self.unmatched == total:
            return (
                f"{matched} of {total} matched, {round(100 * matched / total) if total else 100} %"
            )
        if self.persists:
            return f"at least {matched} of {total} matched, 70 % or more"
        return f"at most {total - self.unmatched} of {total} matched, under 70 %"


def tally_matches(current: list[Issue], previous: list[Issue]) -> Tally:
    """Match the current issues cheapest first, until the 70 % rule is decided.

    A first pass takes what is cheap to find: a description seen before, or one similar to its
    likely original. The rest are looked up by their words, then measured against the previous
    descriptions their characters leave within reach, a chunk of similar lengths at a time so
    that the bound is worked out for the whole chunk in one step.
    """
    known = _Previous(previous)
    tally = Tally(len(current))
    texts = [issue.description for issue in current]
    unsure: list[str] = []
    for text, likely in zip(texts, known.likely(texts), strict=True):
        if tally.decided:
            break
        if likely:
            tally.matched += 1
        else:
            unsure.append(text)
    unsure.sort(key=len)
    for start in range(0, len(unsure), _CHUNK):
        chunk = unsure[start : start + _CHUNK]
        for text, similar in zip(chunk, known.resembling(chunk), strict=True):
            if tally.decided:
                return tally
            if similar or known.same_words(text):
                tally.matched += 1
            else:
                tally.unmatched += 1
    return tally


_CHUNK = 48


class _Previous:
    """The previous review's descriptions, sorted three ways for the questions `tally_matches` asks.

    Similar means rapidfuzz's normalized Levenshtein similarity 1 − distance/longer ≥ 0.8,
    compared in integers as 5 · distance ≤ longer, so a pair at exactly 0.8 matches whatever
    the float rounding.
    """

    def __init__(self, issues: list[Issue]) -> None:
        self.by_length = sorted({issue.description for issue in issues}, key=len)
        self.lengths = [len(text) for text in self.by_length]
        self.forwards = sorted(self.by_length)
        self.backwards = sorted(text[::-1] for text in self.by_length)

    @cached_property
    def words(self) -> _WordIndex:
        """Built when first asked: a first pass that decides alone never needs it."""
        return _WordIndex(self.by_length)

    def same_words(self, text: str) -> bool:
        return self.words.any_same(words(text))

    def likely(self, texts: list[str]) -> list[bool]:
        """For each text: seen before, or similar to the description sharing its longest
        beginning or ending.

        A finding reworded slightly keeps one or the other, and the description that shares
        the most of it is a neighbour in alphabetical order, of the texts or of them reversed.
        """
        found = np.zeros(len(texts), dtype=bool)
        if not self.by_length:
            return found.tolist()
        reversed_texts = [text[::-1] for text in texts]
        for alphabetical, keys in ((self.forwards, texts), (self.backwards, reversed_texts)):
            places = [bisect.bisect_left(alphabetical, key) for key in keys]
            last = len(alphabetical) - 1
            for before in (1, 0):
                neighbours = [alphabetical[min(max(at - before, 0), last)] for at in places]
                found |= _similar_pairs(keys, neighbours)
        return found.tolist()

    @cached_property
    def characters(self) -> _CharacterCounts:
        """Built when first asked, like `words`."""
        return _CharacterCounts(self.by_length)

    def resembling(self, texts: list[str]) -> list[bool]:
        """For each text (shortest first), whether a previous description is similar: only the
        pairs the character bound leaves within reach are measured, all in one call."""
        reach = self.characters.within_reach(texts)
        pairs = _similar_pairs(
            [text for text, rows in zip(texts, reach, strict=True) for _ in rows],
            [self.by_length[row] for rows in reach for row in rows],
        )
        ends = np.cumsum([len(rows) for rows in reach])
        return [
            bool(pairs[end - len(rows) : end].any()) for rows, end in zip(reach, ends, strict=True)
        ]


def _similar_pairs(texts: list[str], others: list[str]) -> NDArray[np.bool_]:
    """Whether each text is similar to the other beside it, in rapidfuzz's C loop, which gives
    up on a pair as soon as it is further apart than the loosest pair allows; a pair it gave up
    on is further apart than its own limit too."""
    if not texts:
        return np.zeros(0, dtype=bool)
    longer = np.maximum(
        np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)),
        np.fromiter(map(len, others), dtype=np.int64, count=len(others)),
    )
    cutoff = int(longer.max()) // 5
    distances = process.cpdist(texts, others, scorer=Levenshtein.distance, score_cutoff=cutoff)
    return np.asarray(5 * distances.astype(np.int64) <= longer)


class _CharacterCounts:
    """How many of each character every description holds, in buckets, for a bound on distance.

    An edit adds, removes or swaps one character, so the edit distance is at least the larger of
    the characters one text has that the other lacks and the reverse, counted with multiplicity:
    half of (the counts' L1 difference + the length difference). Folding characters into buckets
    and holding a count at a ceiling only lower that bound, so a pair it rules out can never be
    similar. The counts are kept a bucket per row, so a chunk of texts is compared with the whole
    window one bucket at a time.
    """

    BUCKETS = 32

    def __init__(self, texts: list[str]) -> None:
        self.by_bucket = np.ascontiguousarray(_counts(texts).T)
        self.lengths = np.array([len(text) for text in texts], dtype=np.int32)

    def within_reach(self, texts: list[str]) -> list[list[int]]:
        """For each text (shortest first), the rows whose bound allows a similarity of 0.8.

        Only rows from 4/5 of the shortest to 5/4 of the longest text's length are compared:
        the distance is at least the length difference.
        """
        sizes = np.array([len(text) for text in texts], dtype=np.int32)[:, None]
        low = int(np.searchsorted(self.lengths, -(-4 * int(sizes[0, 0]) // 5)))
        high = int(np.searchsorted(self.lengths, 5 * int(sizes[-1, 0]) // 4, side="right"))
        lengths = self.lengths[None, low:high]
        counts = _counts(texts)
        apart = np.abs(lengths - sizes)
        step = np.empty(apart.shape, dtype=np.int16)
        for bucket in range(self.BUCKETS):
            np.subtract(self.by_bucket[bucket, None, low:high], counts[:, bucket, None], out=step)
            apart += np.abs(step, out=step)
        within = 5 * apart <= 2 * np.maximum(lengths, sizes)
        return [(np.flatnonzero(row) + low).tolist() for row in within]


def _counts(texts: list[str]) -> NDArray[np.int16]:
    """One row of bucket counts per text; a count held at 255 only lowers the bound, and keeps
    each difference within int16."""
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    codes = _BUCKET_OF[np.minimum(points, 127)]
    rows = np.repeat(np.arange(len(texts)), [len(text) for text in texts])
    size = _CharacterCounts.BUCKETS
    flat = np.bincount(rows * size + codes, minlength=len(texts) * size)
    return np.minimum(flat, 255).reshape(len(texts), size).astype(np.int16)


def _bucket_table() -> NDArray[np.intp]:
    """Letters (either case) and the space a bucket each; other characters share the rest."""
    size = _CharacterCounts.BUCKETS
    table = np.arange(128) % (size - 27) + 27
    for letter in range(26):
        table[ord("a") + letter] = table[ord("A") + letter] = letter
    table[ord(" ")] = 26
    return table.astype(np.intp)


_BUCKET_OF = _bucket_table()


class _WordIndex:
    """The previous descriptions' words, one bit per description in each word's mask.

    For a current description, the number of its words each previous one shares is counted for
    all of them at once, in bit planes (an adder over the masks), so only the few that share
    enough words to pass are compared word by word.
    """

    def __init__(self, texts: list[str]) -> None:
        self.sets = [words(text) for text in texts]
        self.masks: dict[str, int] = {}
        for n, found in enumerate(self.sets):
            bit = 1 << n
            for word in found:
                self.masks[word] = self.masks.get(word, 0) | bit
        self.smallest = min((len(found) for found in self.sets if found), default=0)
        self.every = (1 << len(self.sets)) - 1

    def any_same(self, found: frozenset[str]) -> bool:
        masks = [self.masks[word] for word in found if word in self.masks]
        if not masks or not self.smallest:
            return False
        need = least_shared(len(found), max(self.smallest, -(-7 * len(found) // 13)))
        if len(masks) < need:
            return False
        candidates = _at_least(masks, need, self.every)
        while candidates:
            low = candidates & -candidates
            if same_words(found, self.sets[low.bit_length() - 1]):
                return True
            candidates ^= low
        return False


def _at_least(masks: list[int], need: int, every: int) -> int:
    """The bits set in at least `need` of the masks: their counts summed in binary, bit plane by
    bit plane, then compared with `need` from the highest plane down."""
    planes: list[int] = []
    for carry in masks:
        for n, plane in enumerate(planes):
            planes[n], carry = plane ^ carry, plane & carry
            if not carry:
                break
        else:
            if carry:
                planes.append(carry)
    greater, equal = 0, every
    for n in range(max(len(planes), need.bit_length()) - 1, -1, -1):
        plane = planes[n] if n < len(planes) else 0
        if need >> n & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane
    return greater | equal
