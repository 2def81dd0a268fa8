"""Stagnation's rotation test: do the current review's issues resemble the previous review's?

Stagnation ends the loop only when the total plateaus while the issues rotate, that is when
fewer than 70 % of the current issues resemble a previous one. An issue resembles another when
their descriptions are similar as DESIGN.md says (normalized Levenshtein ≥ 0.8), or when they
name the same things in other words (`issue_wording`: reviewers reword, reorder and swap
synonyms from one round to the next, and a reworded finding still persists). Matching is the
guards' only costly part, so it measures as few pairs as the 70 % rule needs.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property

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
    likely original. The rest are looked up by their words, then compared with every previous
    description that could reach 0.8, fewest of those first, so that when issues matching
    nothing decide, the cheapest of them do.
    """
    known = _Previous(previous)
    tally = Tally(len(current))
    unsure: list[str] = []
    for issue in current:
        if tally.decided:
            break
        if known.likely(issue.description):
            tally.matched += 1
        else:
            unsure.append(issue.description)
    for text in sorted(unsure, key=known.reach):
        if tally.decided:
            break
        if known.same_words(text) or known.resembles(text):
            tally.matched += 1
        else:
            tally.unmatched += 1
    return tally


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

    def likely(self, text: str) -> bool:
        """Seen before, or similar to the description sharing its longest beginning or ending.

        A finding reworded slightly keeps one or the other, and the description that shares
        the most of it is a neighbour in alphabetical order, of the texts or of them reversed.
        """
        return _similar_neighbour(text, self.forwards) or _similar_neighbour(
            text[::-1], self.backwards
        )

    def reach(self, text: str) -> int:
        """How many descriptions `resembles` would measure."""
        low, high = self._window(len(text))
        return high - low

    def resembles(self, text: str) -> bool:
        """Whether any previous description is similar, measured in rapidfuzz's C loop.

        rapidfuzz gives up on a pair as soon as it is further apart than the longest candidate
        allows, and each pair it keeps is checked against its own length.
        """
        size, longest = len(text), 5 * len(text) // 4
        low, high = self._window(size)
        return any(
            5 * distance <= max(size, self.lengths[low + index])
            for _, distance, index in process.extract_iter(
                text,
                self.by_length[low:high],
                scorer=Levenshtein.distance,
                score_cutoff=longest // 5,
            )
        )

    def _window(self, size: int) -> tuple[int, int]:
        """The descriptions from 4/5 to 5/4 of `size` long: the distance is at least the length
        difference, so no other one can reach 0.8."""
        low = bisect.bisect_left(self.lengths, -(-4 * size // 5))
        return low, bisect.bisect_right(self.lengths, 5 * size // 4, low)


def _similar_neighbour(text: str, alphabetical: list[str]) -> bool:
    at = bisect.bisect_left(alphabetical, text)
    return any(_similar(text, other) for other in alphabetical[max(at - 1, 0) : at + 1])


def _similar(text: str, other: str) -> bool:
    longer = max(len(text), len(other))
    return 5 * Levenshtein.distance(text, other, score_cutoff=longer // 5) <= longer


class _WordIndex:
    """The previous descriptions' words, one bit per description in each word's mask.

    For a current description, the number of its words each previous one shares is counted for
    all of them at once, in bit planes (an adder over the masks), so only the few that share
    enough words to pass are compared word by word.
    """

    def __init__(self, texts: list[str]) -> None:
        self.sets = [words(text) for text in texts]
        postings: dict[str, list[int]] = {}
        for n, found in enumerate(self.sets):
            for word in found:
                postings.setdefault(word, []).append(n)
        self.masks = {word: _mask(found, len(texts)) for word, found in postings.items()}
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


def _mask(bits: list[int], size: int) -> int:
    """An int with these bits set, built in one go (or-ing them one by one copies it each time)."""
    packed = bytearray((size + 7) // 8)
    for bit in bits:
        packed[bit >> 3] |= 1 << (bit & 7)
    return int.from_bytes(packed, "little")


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
