"""The tracker's identity of a finding: which known finding, if any, a review's issue is.

An issue is a known finding when their descriptions are similar as the design says (normalized
Levenshtein ≥ 0.8), or name the same things in other words (`issue_wording`: reviewers reword,
reorder and swap synonyms from one round to the next), and their locations can name the same
place (`places`), unless they say different kinds of problem (`issue_wording.same_kind`) or,
worded in one frame, name different things or disagree on whether a thing is missing
(`issue_wording.near_miss`).
Matching is the loop's only costly part, so it finds the cheap matches first (the same text, a
text similar to its alphabetical neighbour) and measures a pair only when the characters the two
descriptions are made of leave the distance within reach.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from thoughtforge.models import Issue
from thoughtforge.phases.polish.distance_bounds import (
    BIGRAM_ROWS,
    CHARACTER_ROWS,
    FINER_BIGRAM_ROWS,
    BigramCounts,
    CharacterCounts,
)
from thoughtforge.phases.polish.issue_wording import (
    least_shared,
    near_miss,
    same_kind,
    same_words,
    words,
)
from thoughtforge.phases.polish.places import same_place

_CHUNK = 48


class Described(Protocol):
    """A review's issue or a tracker's finding: what matching reads of either."""

    @property
    def description(self) -> str: ...

    @property
    def location(self) -> str: ...


def match_findings(current: list[Issue], known: Sequence[Described]) -> list[int | None]:
    """For each current issue, the index of the known finding it is, or None for a new one.

    A known finding is matched once at most, by the first issue that resembles it (as
    `tally_matches` measures resemblance) and whose location can name the same place. The
    cheap stages run for every issue at once; the costly ones only for those still unmatched.
    """
    if not current or not known:
        return [None] * len(current)
    previous = _Previous(known)
    indices: dict[str, list[int]] = {}
    for n, issue in enumerate(known):
        indices.setdefault(issue.description, []).append(n)
    taken: set[int] = set()
    found: list[int | None] = [None] * len(current)

    refused: dict[tuple[int, str], bool] = {}

    def worded_in_one_frame(at: int, description: str) -> bool:
        """A near miss (`issue_wording.near_miss`), asked once a pair, though the stages may
        offer a description to the same issue more than once."""
        found = refused.get((at, description))
        if found is None:
            found = refused[at, description] = near_miss(texts[at], description)
        return found

    def take(at: int, descriptions: Iterable[str]) -> bool:
        """Match issue `at` to the first free finding described by one of `descriptions`."""
        text = texts[at]
        for description in descriptions:
            free = [
                n
                for n in indices.get(description, ())
                if n not in taken
                and same_place(current[at].location, known[n].location)
                and same_kind(text, description)
            ]
            if not free or worded_in_one_frame(at, description):
                continue
            taken.add(free[0])
            found[at] = free[0]
            return True
        return False

    texts = [issue.description for issue in current]
    rest = [at for at in range(len(current)) if not take(at, [texts[at]])]
    likely = previous.likely_texts([texts[at] for at in rest])
    rest = [at for at, near in zip(rest, likely, strict=True) if not take(at, near)]
    rest.sort(key=lambda at: len(texts[at]))
    unmatched = [texts[at] for at in rest]
    similar_texts = previous.resembling_texts(unmatched)
    same_words_as = previous.same_word_texts(unmatched)
    for at, similar, alike in zip(rest, similar_texts, same_words_as, strict=True):
        if not take(at, similar):
            take(at, alike)
    return found


class _Previous:
    """The known findings' descriptions, sorted three ways for the questions `match_findings`
    asks.

    Similar means rapidfuzz's normalized Levenshtein similarity 1 − distance/longer ≥ 0.8,
    compared in integers as 5 · distance ≤ longer, so a pair at exactly 0.8 matches whatever
    the float rounding.
    """

    def __init__(self, issues: Sequence[Described]) -> None:
        self.forwards = sorted({issue.description for issue in issues})
        self.by_length = sorted(self.forwards, key=len)  # stable: equal lengths alphabetical
        self.backwards = sorted(text[::-1] for text in self.by_length)

    @cached_property
    def words(self) -> _WordIndex:
        """Built when first asked: a first pass that decides alone never needs it."""
        return _WordIndex(self.by_length)

    def likely_texts(self, texts: list[str]) -> list[list[str]]:
        """For each text, the descriptions sharing its longest beginning or ending that are
        similar to it: a finding reworded slightly keeps one or the other, and the description
        that shares the most of it is a neighbour in alphabetical order, of the texts or of them
        reversed."""
        found: list[list[str]] = [[] for _ in texts]
        if not self.by_length or not texts:
            return found
        reversed_texts = [text[::-1] for text in texts]
        for alphabetical, keys, flip in (
            (self.forwards, texts, False),
            (self.backwards, reversed_texts, True),
        ):
            places = [bisect.bisect_left(alphabetical, key) for key in keys]
            last = len(alphabetical) - 1
            for before in (1, 0):
                neighbours = [alphabetical[min(max(at - before, 0), last)] for at in places]
                for n in np.flatnonzero(_similar_pairs(keys, neighbours)):
                    found[n].append(neighbours[n][::-1] if flip else neighbours[n])
        return found

    def resembling_texts(self, texts: list[str]) -> list[list[str]]:
        """For each text (shortest first), the previous descriptions similar to it: of those its
        characters leave within reach, those its pairs of characters do (counted coarsely, then
        finely), measured. The character bound compares a chunk of texts with a window of rows
        at once."""
        if not texts:
            return []
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        characters = CHARACTER_ROWS.of(texts)
        coarse, finer = BIGRAM_ROWS.of(texts), FINER_BIGRAM_ROWS.of(texts)
        mine_in, theirs_in = [], []
        for start in range(0, len(texts), _CHUNK):
            chunk = slice(start, start + _CHUNK)
            within = self.characters.within_reach(sizes[chunk], characters[chunk])
            within = self.pairs_of_characters.within_reach(sizes[chunk], coarse[chunk], *within)
            which, rows = self.finer_pairs_of_characters.within_reach(
                sizes[chunk], finer[chunk], *within
            )
            mine_in.append(which + start)
            theirs_in.append(rows)
        mine, theirs = np.concatenate(mine_in).tolist(), np.concatenate(theirs_in).tolist()
        pairs = _similar_pairs([texts[n] for n in mine], [self.by_length[row] for row in theirs])
        found: list[list[str]] = [[] for _ in texts]
        for n in np.flatnonzero(pairs).tolist():
            found[mine[n]].append(self.by_length[theirs[n]])
        return found

    def same_word_texts(self, texts: list[str]) -> list[list[str]]:
        """For each text, the previous descriptions that name the same things in other words."""
        if not texts:
            return []
        return [
            [self.by_length[n] for n in found]
            for found in self.words.all_same([words(text) for text in texts])
        ]

    @cached_property
    def pairs_of_characters(self) -> BigramCounts:
        """Built when first asked, like `words`."""
        return BigramCounts(self.by_length, BIGRAM_ROWS)

    @cached_property
    def finer_pairs_of_characters(self) -> BigramCounts:
        """Built when first asked, like `words`."""
        return BigramCounts(self.by_length, FINER_BIGRAM_ROWS)

    @cached_property
    def characters(self) -> CharacterCounts:
        """Built when first asked, like `words`."""
        return CharacterCounts(self.by_length)


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


class _WordIndex:
    """The previous descriptions' words, one bit per description in each word's mask.

    For a batch of current descriptions, the number of its words each previous one shares is
    counted for all pairs at once, in bit planes (an adder over the masks, 64 descriptions a
    machine word), and compared, bit plane by bit plane, with the number that pair needs
    (`least_shared` of the two sizes), so only the pairs that share enough words to pass are
    compared word by word (numbers alone are no shared subject).
    """

    BATCH = 256

    def __init__(self, texts: list[str]) -> None:
        self.sets = [words(text) for text in texts]
        self.row_of: dict[str, int] = {}
        rows = [self.row_of.setdefault(word, len(self.row_of)) for f in self.sets for word in f]
        self.sizes = np.array([len(found) for found in self.sets], dtype=np.int64)
        columns = np.repeat(np.arange(len(texts)), self.sizes)
        self.width = -(-len(texts) // 64)
        masks = np.zeros((len(self.row_of) + 1, self.width * 8), dtype=np.uint8)  # + no word
        bits = np.left_shift(1, columns & 7).astype(np.uint8)
        np.bitwise_or.at(masks, (np.array(rows, dtype=np.intp), columns >> 3), bits)
        self.masks = masks.view(np.uint64)
        self.needs: dict[int, NDArray[np.uint64]] = {}

    def all_same(self, sets: list[frozenset[str]]) -> list[list[int]]:
        """For each set of words, the previous descriptions (in order) with the same words."""
        found: list[list[int]] = [[] for _ in sets]
        none = len(self.row_of)
        asked = sorted(
            (len(mine), at, [self.row_of.get(word, none) for word in mine])
            for at, mine in enumerate(sets)
            if mine
        )
        for start in range(0, len(asked), self.BATCH):
            batch = asked[start : start + self.BATCH]
            table = np.full((len(batch), batch[-1][0]), none, dtype=np.intp)
            for row, (size, _, rows) in enumerate(batch):
                table[row, :size] = rows
            hits = self._enough(self._count(table), [size for size, _, _ in batch])
            which, places = np.nonzero(hits)
            for row, place, bits in zip(
                which.tolist(), places.tolist(), hits[which, places].tolist(), strict=True
            ):
                at = batch[row][1]
                while bits:
                    low = bits & -bits
                    n = place * 64 + low.bit_length() - 1
                    if same_words(sets[at], self.sets[n]):
                        found[at].append(n)
                    bits ^= low
        return found

    def _count(self, table: NDArray[np.intp]) -> list[NDArray[np.uint64]]:
        """How many of each row's words each description holds, in bit planes (lowest first)."""
        planes: list[NDArray[np.uint64]] = []
        carry = np.empty((len(table), self.width), dtype=np.uint64)
        spare = np.empty_like(carry)
        for column in range(table.shape[1]):
            np.take(self.masks, table[:, column], axis=0, out=carry)
            for plane in planes:
                np.bitwise_and(plane, carry, out=spare)
                np.bitwise_xor(plane, carry, out=plane)
                carry, spare = spare, carry
            if len(planes) < (column + 1).bit_length():
                planes.append(carry.copy())
        return planes

    def _enough(self, planes: list[NDArray[np.uint64]], sizes: list[int]) -> NDArray[np.uint64]:
        """The bits whose count (in `planes`) reaches what the pair of sizes needs: compared
        from the highest plane down, still equal or already greater."""
        distinct = sorted(set(sizes))
        each = [self._needs(size) for size in distinct]
        height = max(len(planes), *(len(needs) for needs in each))
        stack = np.zeros((len(distinct), height, self.width), dtype=np.uint64)
        for n, needs in enumerate(each):
            stack[n, : len(needs)] = needs
        need = stack[np.searchsorted(distinct, sizes)]
        equal: NDArray[np.uint64] = np.bitwise_or.reduce(need[:, len(planes) :], axis=1, initial=0)
        np.invert(equal, out=equal)  # a need past the highest count is never met
        greater = np.zeros_like(equal)
        for n in range(len(planes) - 1, -1, -1):
            greater |= equal & planes[n] & ~need[:, n]
            equal &= ~(planes[n] ^ need[:, n])
        return greater | equal

    def _needs(self, size: int) -> NDArray[np.uint64]:
        """How many shared words each description needs with a set of `size` words, in bit
        planes; one for the bits past the last description, which hold none."""
        found = self.needs.get(size)
        if found is None:
            need = np.ones(self.width * 64, dtype=np.int64)
            need[: len(self.sizes)] = least_shared(size, self.sizes)  # type: ignore[arg-type]
            bits = need[None, :] >> np.arange(int(need.max()).bit_length())[:, None] & 1
            found = np.packbits(bits.astype(np.uint8), axis=1, bitorder="little").view(np.uint64)
            self.needs[size] = found
        return found
