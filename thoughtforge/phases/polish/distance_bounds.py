"""Cheap bounds on the Levenshtein distance of two descriptions, from the characters and the
character pairs each holds: a pair whose bound is already past 0.8 is never measured."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray


class CharacterCounts:
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
        counts = CHARACTER_ROWS.of(texts)
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


class BigramCounts:
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

    def __init__(self, texts: list[str], kept: KeptRows) -> None:
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


def bigram_counts(texts: list[str], size: int = BigramCounts.BUCKETS) -> NDArray[np.uint8]:
    """One row of `size` bucket counts of adjacent character pairs per text (none across texts),
    held at 127 as `character_counts` holds them."""
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    rows = np.repeat(np.arange(len(texts)), lengths)
    same_text = rows[:-1] == rows[1:]
    codes = (points[:-1] * 31 + points[1:]) & (size - 1)  # no wrap: code points < 2**21
    flat = np.bincount(rows[:-1][same_text] * size + codes[same_text], minlength=len(texts) * size)
    return np.minimum(flat, 127).reshape(len(texts), size).astype(np.uint8)


def character_counts(texts: list[str]) -> NDArray[np.uint8]:
    """One row of bucket counts per text; a count held at 127 only lowers the bound, and keeps
    a count in a byte and the sum of a row's shared counts within uint16."""
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    codes = BUCKET_OF[np.minimum(points, 127)]
    rows = np.repeat(np.arange(len(texts)), [len(text) for text in texts])
    size = CharacterCounts.BUCKETS
    flat = np.bincount(rows * size + codes, minlength=len(texts) * size)
    return np.minimum(flat, 127).reshape(len(texts), size).astype(np.uint8)


class KeptRows:
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


def bucket_table() -> NDArray[np.intp]:
    """Letters (either case) and the space a bucket each; other characters share the rest."""
    size = CharacterCounts.BUCKETS
    table = np.arange(128) % (size - 27) + 27
    for letter in range(26):
        table[ord("a") + letter] = table[ord("A") + letter] = letter
    table[ord(" ")] = 26
    return table.astype(np.intp)


BUCKET_OF = bucket_table()


CHARACTER_ROWS = KeptRows(character_counts)
BIGRAM_ROWS = KeptRows(bigram_counts)
FINER_BIGRAM_ROWS = KeptRows(partial(bigram_counts, size=BigramCounts.FINER))
