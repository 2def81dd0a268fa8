"""The ledger's identity of a finding: which known finding, if any, a review's issue is.

An issue is a known finding when their descriptions are similar as the design says (normalized
Levenshtein ≥ 0.8), or name the same things in other words (`issue_wording`: reviewers reword,
reorder and swap synonyms from one round to the next), and their locations can name the same
place (`places`), unless they say different kinds of problem (`issue_wording.same_kind`).
Matching is the loop's only costly part, so it finds the cheap matches first (the same text, a
text similar to its alphabetical neighbour) and measures a pair only when the characters the two
descriptions are made of leave the distance within reach.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, partial
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from thoughtforge.models import Issue
from thoughtforge.phases.polish.issue_wording import least_shared, same_kind, same_words, words
from thoughtforge.phases.polish.places import same_place

_CHUNK = 48


class Described(Protocol):
    """A review's issue or a ledger's finding: what matching reads of either."""

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

    def take(at: int, descriptions: Iterable[str]) -> bool:
        for text in descriptions:
            for n in indices.get(text, ()):
                if (
                    n not in taken
                    and same_place(current[at].location, known[n].location)
                    and same_kind(texts[at], known[n].description)
                ):
                    taken.add(n)
                    found[at] = n
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
        characters = _CHARACTER_ROWS.of(texts)
        coarse, finer = _BIGRAM_ROWS.of(texts), _FINER_BIGRAM_ROWS.of(texts)
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
    def pairs_of_characters(self) -> _BigramCounts:
        """Built when first asked, like `words`."""
        return _BigramCounts(self.by_length, _BIGRAM_ROWS)

    @cached_property
    def finer_pairs_of_characters(self) -> _BigramCounts:
        """Built when first asked, like `words`."""
        return _BigramCounts(self.by_length, _FINER_BIGRAM_ROWS)

    @cached_property
    def characters(self) -> _CharacterCounts:
        """Built when first asked, like `words`."""
        return _CharacterCounts(self.by_length)


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
    similar. The L1 difference is the two texts' totals less twice the characters they share
    (the least of each bucket's two counts), so only the shared characters are summed: one
    minimum and one addition a bucket, in bytes while no text of the chunk could share more than
    a byte holds. The counts are kept a bucket per row, so a chunk of texts is compared with the
    whole window one bucket at a time.
    """

    BUCKETS = 32

    def __init__(self, texts: list[str]) -> None:
        counts = _CHARACTER_ROWS.of(texts)
        self.by_bucket = np.ascontiguousarray(counts.T)
        self.totals = counts.sum(axis=1, dtype=np.int32)
        self.lengths = np.array([len(text) for text in texts], dtype=np.int32)

    def within_reach(
        self, text_lengths: NDArray[np.int64], counts: NDArray[np.uint8]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The pairs (a text, shortest first, of these lengths and counts; a row) whose bound
        allows a similarity of 0.8, in order of text then row.

        Only rows from 4/5 of the shortest to 5/4 of the longest text's length are compared:
        the distance is at least the length difference.
        """
        sizes = text_lengths.astype(np.int32)
        low = int(np.searchsorted(self.lengths, -(-4 * int(sizes[0]) // 5)))
        high = int(np.searchsorted(self.lengths, 5 * int(sizes[-1]) // 4, side="right"))
        totals = counts.sum(axis=1, dtype=np.int32)
        lengths, theirs = self.lengths[low:high], self.totals[low:high]
        # 5 · (L1 + |Δlength|) ≤ 2 · longer, with L1 = totals + theirs − 2 · shared, is
        # 10 · shared ≥ 5 · (totals + theirs) + the larger of the two signs of Δlength's terms.
        need = np.maximum(
            (5 * (totals - sizes))[:, None] + (5 * theirs + 3 * lengths)[None, :],
            (5 * totals + 3 * sizes)[:, None] + (5 * (theirs - lengths))[None, :],
        )
        shared = np.zeros(need.shape, dtype=np.uint8 if totals.max() < 256 else np.uint16)
        step = np.empty(need.shape, dtype=np.uint8)
        for bucket in range(self.BUCKETS):
            np.minimum(self.by_bucket[bucket, None, low:high], counts[:, bucket, None], out=step)
            np.add(shared, step, out=shared)
        within = np.flatnonzero(np.multiply(shared, 10, dtype=np.int32) >= need)
        which, rows = np.divmod(within, high - low)
        return which, rows + low


class _BigramCounts:
    """How many of each pair of adjacent characters every description holds, in buckets.

    An edit changes at most two adjacent pairs and adds at most two, so the L1 difference of two
    texts' pair counts is at most 4 × their distance; a similarity of 0.8 allows a distance of a
    fifth of the longer text, so 5 · L1 ≤ 4 · longer. Buckets and a ceiling only lower the L1, so
    a pair it rules out can never be similar; the L1 is summed as the character counts' is, from
    the pairs shared. Asked only about the pairs the character counts left within reach: it is
    the finer, costlier bound. Counted twice: in `BUCKETS` buckets for the pairs the characters
    leave, then in `FINER` for the few those leave (rapidfuzz measures what is left, pair by
    pair, at a higher cost per pair than a row of a thousand counts).
    """

    BUCKETS = 128  # powers of two: a pair's code is masked into a bucket
    FINER = 256

    def __init__(self, texts: list[str], kept: _KeptRows) -> None:
        self.counts = kept.of(texts)
        self.totals = self.counts.sum(axis=1, dtype=np.int64)
        self.lengths = np.array([len(text) for text in texts], dtype=np.int64)

    def within_reach(
        self,
        sizes: NDArray[np.int64],
        counts: NDArray[np.uint8],
        which: NDArray[np.intp],
        rows: NDArray[np.intp],
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Of the pairs (a text, of these lengths and counts; a row) given, those whose bound
        allows a similarity of 0.8."""
        if not len(which):
            return which, rows
        shared = np.take(counts, which, axis=0)
        np.minimum(shared, np.take(self.counts, rows, axis=0), out=shared)
        apart = counts.sum(axis=1, dtype=np.int64)[which] + self.totals[rows]
        apart -= 2 * shared.sum(axis=1, dtype=np.uint16)
        keep = 5 * apart <= 4 * np.maximum(sizes[which], self.lengths[rows])
        return which[keep], rows[keep]


def _bigram_counts(texts: list[str], size: int = _BigramCounts.BUCKETS) -> NDArray[np.uint8]:
    """One row of `size` bucket counts of adjacent character pairs per text (none across texts),
    held at 127 as `_counts` holds them."""
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    rows = np.repeat(np.arange(len(texts)), lengths)
    same_text = rows[:-1] == rows[1:]
    codes = (points[:-1] * 31 + points[1:]) & (size - 1)  # no wrap: code points < 2**21
    flat = np.bincount(rows[:-1][same_text] * size + codes[same_text], minlength=len(texts) * size)
    return np.minimum(flat, 127).reshape(len(texts), size).astype(np.uint8)


def _counts(texts: list[str]) -> NDArray[np.uint8]:
    """One row of bucket counts per text; a count held at 127 only lowers the bound, and keeps
    a count in a byte and the sum of a row's shared counts within uint16."""
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    codes = _BUCKET_OF[np.minimum(points, 127)]
    rows = np.repeat(np.arange(len(texts)), [len(text) for text in texts])
    size = _CharacterCounts.BUCKETS
    flat = np.bincount(rows * size + codes, minlength=len(texts) * size)
    return np.minimum(flat, 127).reshape(len(texts), size).astype(np.uint8)


class _KeptRows:
    """Each text's row of counts, kept across calls: a round's known findings are the texts
    earlier rounds counted (as the current issues or as the known findings). Only the texts not
    kept are counted; the rows are dropped all at once past `LIMIT` texts. Safe when two loops
    match at once: a call reads what it counted, not what the other may have dropped."""

    LIMIT = 20_000

    def __init__(self, count: Callable[[list[str]], NDArray[np.uint8]]) -> None:
        self.count = count
        self.kept: dict[str, NDArray[np.uint8]] = {}

    def of(self, texts: list[str]) -> NDArray[np.uint8]:
        kept = self.kept
        rows = [kept.get(text) for text in texts]
        fresh = list(
            dict.fromkeys(text for text, row in zip(texts, rows, strict=True) if row is None)
        )
        if not fresh:
            return np.array(rows) if rows else self.count(texts)
        counted = dict(zip(fresh, self.count(fresh), strict=True))
        if len(kept) + len(fresh) > self.LIMIT:
            kept.clear()
        kept.update(counted)
        return np.array(
            [counted[t] if row is None else row for t, row in zip(texts, rows, strict=True)]
        )


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
        equal = np.bitwise_or.reduce(need[:, len(planes) :], axis=1, initial=0)
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


_CHARACTER_ROWS = _KeptRows(_counts)
_BIGRAM_ROWS = _KeptRows(_bigram_counts)
_FINER_BIGRAM_ROWS = _KeptRows(partial(_bigram_counts, size=_BigramCounts.FINER))
