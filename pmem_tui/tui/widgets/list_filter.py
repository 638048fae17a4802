"""A pane's filter: which rows a query shows, in which order, computed step by step.

The filter tests each row's searchable text in C (`map` of `str.__contains__` or a compiled `match`). A run
(`FilterRun`) is resumable, so the list can show a typed query's first screenful before the frame and finish
the rest after it; `ListFilter` keeps a pane's search texts and the answers already given (backspace goes
back to one; a longer query narrows the last answer).
"""

from __future__ import annotations

from array import array
from bisect import insort
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from itertools import compress, repeat
from operator import contains, indexOf, itemgetter, not_
from typing import TypeAlias, TypeVar

from pmem_tui.tui.index_rows import keys_of, search_texts
from pmem_tui.tui.rows import Row, RowSequence, search_text
from pmem_tui.tui.widgets.fuzzy import term_tests

FILTER_STEP = 2048  # rows a filter tests per step (0.2-1 ms)
MEMO_SIZE = 64  # queries remembered per pane

_T = TypeVar("_T")


def _pick(items: Sequence[_T], indices: Sequence[int]) -> list[_T]:
    """`[items[i] for i in indices]`, in C."""
    if len(indices) > 1:
        return list(itemgetter(*indices)(items))
    return [items[i] for i in indices]


# Row numbers as C ints (4 bytes each): a list of 10^5 ints is ~3.6 MB with its int objects (and the
# memo keeps up to 64 answers), and the cycle collector walks every list on its passes; an array is
# neither.
Positions: TypeAlias = "array[int]"


def positions(values: Iterable[int] = ()) -> Positions:
    return array("i", values)


class FilterRun:
    """One query over a pane's search texts, resumable step by step.

    The display order is: the rows containing the query as typed (`needle`), then the looser matches
    (every term exact or by word-start chunks in one field: `fuzzy.term_test`), each in pane order. A
    row with the needle always matches (the needle has no newline, so it sits in one field, and each
    term is a substring of it). So the
    run first scans the candidates for the needle (cheap), and tests the terms only on the rest; the
    rows found so far (`known`) are always a prefix of the final order, which is what lets the first
    screenful be shown before the run ends.
    """

    __slots__ = (
        "_base",
        "_hays",
        "_loose_pos",
        "_pos",
        "_rest",
        "_tests",
        "_total",
        "exact",
        "loose",
        "needle",
        "terms",
    )

    def __init__(self, terms: list[str], hays: Sequence[str], base: Positions | None) -> None:
        self.terms = terms
        self.needle = " ".join(terms)
        self._hays = hays
        self._base = base  # candidates in pane order holding every hit (a narrower query's); None: all
        self._total = len(hays) if base is None else len(base)
        self._pos = 0  # candidates scanned for the needle
        self.exact = positions()
        self._rest = positions()  # scanned candidates without the needle, in pane order
        self._loose_pos = 0  # of `_rest`, how many were tested term by term
        self.loose = positions()
        self._tests = [test for t in terms for test in term_tests(t)]

    @property
    def done(self) -> bool:
        return self._pos >= self._total and self._loose_pos >= len(self._rest)

    def known(self) -> Positions:
        """The rows found so far, in display order: always a prefix of the final order."""
        if self._pos < self._total:
            return self.exact  # looser matches come after every row with the needle
        return self.exact + self.loose

    def known_count(self) -> int:
        return len(self.exact) + (len(self.loose) if self._pos >= self._total else 0)

    def step(self, limit: int = FILTER_STEP) -> None:
        """Test up to `limit` more rows."""
        hays = self._hays
        if self._pos < self._total:
            a = self._pos
            b = min(self._total, a + limit)
            idx: Sequence[int]
            if self._base is None:
                idx, texts = range(a, b), hays[a:b]
            else:
                idx = self._base[a:b]
                texts = _pick(hays, idx)
            flags = list(map(contains, texts, repeat(self.needle)))
            self.exact.extend(compress(idx, flags))
            self._rest.extend(compress(idx, map(not_, flags)))
            self._pos = b
            return
        a = self._loose_pos
        b = min(len(self._rest), a + limit)
        found: Sequence[int] = self._rest[a:b]
        for test in self._tests:
            if not found:
                break
            found = list(compress(found, test(_pick(hays, found))))
        self.loose.extend(found)
        self._loose_pos = b

    def advance(self, wanted: int) -> None:
        """Step until `wanted` rows of the final order are known, or the run is done."""
        limit = 512  # small first steps: a frequent query fills a screen from the first rows
        while not self.done and self.known_count() < wanted:
            self.step(limit)
            limit = min(limit * 2, 2 * FILTER_STEP)

    def finish(self) -> None:
        while not self.done:
            self.step(8 * FILTER_STEP)

    def order(self) -> Positions:
        return self.exact + self.loose

    def hits(self) -> Positions:
        """Every matching row in pane order (two sorted runs: `sorted` merges them in one pass)."""
        return positions(sorted(self.exact + self.loose)) if self.loose else self.exact


class FilteredRows(RowSequence):
    """The rows a filter shows: their numbers in the pane's rows (C ints), not a list of 10^5 references
    (such a list takes 2-8 ms to build per keystroke, and the cycle collector walks it on each pass).
    A row replaced in the pane's rows (`update_row`) is seen here at once."""

    __slots__ = ("_all", "order")

    def __init__(self, rows: Sequence[Row], order: Positions) -> None:
        self._all = rows
        self.order = order

    def __len__(self) -> int:
        return len(self.order)

    def _many(self, index: slice) -> list[Row]:
        return _pick(self._all, self.order[index])

    def _at(self, index: int) -> Row:
        return self._all[self.order[index]]

    def __iter__(self) -> Iterator[Row]:
        return map(self._all.__getitem__, self.order)

    def __repr__(self) -> str:
        return f"FilteredRows({list(self)!r})"

    def position(self, index: int) -> int | None:
        """Where the pane's row `index` is shown, if it is."""
        try:
            return self.order.index(index)
        except ValueError:
            return None


def shown_keys(rows: Sequence[Row]) -> Sequence[str]:
    """The keys of the rows shown, in order (a filter's answer read through its pane's keys: no row is
    built)."""
    if isinstance(rows, FilteredRows):
        keys = keys_of(rows._all)
        return [keys[i] for i in rows.order]
    return keys_of(rows)


def find_key(rows: Sequence[Row], key: str) -> int | None:
    """Where the row keyed `key` is shown among `rows` (a pane's, or a filter's answer), if it is."""
    with suppress(ValueError):
        return indexOf(shown_keys(rows), key)  # the first row with that key, in C
    return None


class ListFilter:
    """A pane's answers to queries: rows where every term of the query (split on spaces) matches one field
    (`fuzzy.term_test`), first those containing the query as typed, then the others, each in pane order.

    It keeps, until the rows change (`reset`), the search texts, the queries already answered (the hits in
    pane order and the rows in display order) and the last answer, which a longer query narrows from.
    """

    __slots__ = ("_hay", "_last", "_memo", "_rows")

    def __init__(self, rows: Sequence[Row]) -> None:
        self._rows = rows
        self._hay: tuple[str, ...] | None = None
        self._last: tuple[list[str], Positions] | None = None
        self._memo: dict[tuple[str, ...], tuple[Positions, Positions]] = {}

    def reset(self, rows: Sequence[Row]) -> None:
        """New rows, or a row's text changed: forget every answer."""
        self._rows = rows
        self._hay = None
        self._last = None
        self._memo.clear()

    def rebase(self, rows: Sequence[Row]) -> None:
        """The same rows, with the same search texts, given anew (`MemoryList.apply_rows`): the answers
        stand."""
        self._rows = rows

    def retext(self, changed: Sequence[int], query: str, shown: Positions) -> FilteredRows | None:
        """The rows at `changed` have new text: their search texts are replaced (the others kept), and
        `query`'s answer (`shown`, before the change) is made right for them alone, each row leaving,
        staying or joining its tier at its place in pane order: no run over every row. None: no query.
        Answers to other queries are forgotten."""
        if self._hay is not None:
            hay = list(self._hay)
            for i in changed:
                hay[i] = search_text(self._rows[i])
            self._hay = tuple(hay)
        self._memo.clear()
        self._last = None
        terms = query.lower().split()
        if not terms:
            return None
        hays, needle, again = self.haystacks(), " ".join(terms), sorted(set(changed))
        kept = positions(shown)
        for i in again:
            if i in kept:
                kept.remove(i)
        flags = list(map(contains, _pick(hays, kept), repeat(needle)))
        exact, loose = positions(compress(kept, flags)), positions(compress(kept, map(not_, flags)))
        tests = [test for t in terms for test in term_tests(t)]
        for i in again:
            if needle in hays[i]:
                insort(exact, i)
            elif all(next(iter(test([hays[i]]))) for test in tests):
                insort(loose, i)
        order = exact + loose
        hits = positions(sorted(order))
        self._memo[tuple(terms)] = (hits, order)
        self._last = (terms, hits)
        return FilteredRows(self._rows, order)

    def haystacks(self) -> tuple[str, ...]:
        """Per row, its searchable fields (path, then the other columns), lowercase, one per line.

        A tuple of strings: the cycle collector stops tracking it after its first pass (a list of 10^5
        would be walked on every full pass)."""
        if self._hay is None:
            self._hay = tuple(search_texts(self._rows))
        return self._hay

    def answer(self, query: str) -> Sequence[Row]:
        """The rows `query` shows, in display order."""
        started = self.begin(query)
        return started if not isinstance(started, FilterRun) else self.conclude(started)

    def begin(self, query: str) -> Sequence[Row] | FilterRun:
        """The rows for `query` if known (no filter, or a query already answered), else a run to do.

        While the person types on, a query that extends the previous one only tries that one's hits
        (or, if its run did not finish, the candidates that run started from).
        """
        terms = query.lower().split()
        if not terms:
            self._last = None
            return self._rows
        memo = self._memo.get(tuple(terms))
        if memo is not None:
            self._last = (terms, memo[0])
            return FilteredRows(self._rows, memo[1])
        base: Positions | None = None
        last = self._last
        if (
            last is not None
            and len(terms) >= len(last[0])
            and terms[: len(last[0]) - 1] == last[0][:-1]
            and terms[len(last[0]) - 1].startswith(last[0][-1])
        ):
            base = last[1]
        # Until this run ends, its candidates are what a longer query can narrow from.
        self._last = (terms, base) if base is not None else None
        return FilterRun(terms, self.haystacks(), base)

    def conclude(self, run: FilterRun) -> FilteredRows:
        """Finish `run`, remember its answer (for backspace and for narrowing) and return its rows."""
        run.finish()
        hits, order = run.hits(), run.order()
        self._last = (run.terms, hits)
        if len(self._memo) >= MEMO_SIZE:
            self._memo.clear()
        self._memo[tuple(run.terms)] = (hits, order)
        return FilteredRows(self._rows, order)
