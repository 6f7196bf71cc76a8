"""The rules of a leaderboard's filters read off its rows one by one (docs/views.md): what
the index's pieces (kg/store/index/board_reads.py) must agree with."""

from __future__ import annotations

from decimal import Decimal

from kg.read.boards import BOARD_FACETS, EVERY_STANDING, BoardFilter, Boards


def _admits(entry, filter, skip: str = "") -> bool:
    """The board's filter rules, read off one row (docs/views.md): what the index's pieces
    must agree with."""
    row = entry.row
    for name, wanted in filter.values.items():
        value = getattr(row, BOARD_FACETS[name][1]) or ("none" if name == "verification" else "")
        if name != skip and wanted != EVERY_STANDING and value != wanted:
            return False
    if "standing" not in filter.values and skip != "standing" and not row.is_current:
        return False
    if filter.checked_only and row.verification != "passed":
        return False
    low, high = filter.params_min, filter.params_max
    if low is not None or high is not None:
        size = row.params_number
        if size is None or (low is not None and size < low) or (high is not None and size > high):
            return False
    return True


def assert_board_reads_agree(boards: Boards) -> None:
    """Counts, facets, pages, places and the chart's values of every board, read from the
    index's board indexes, are what the board's rows give one by one, under every filter a
    page offers."""
    for info in boards.benchmarks():
        whole = boards.board(info.benchmark, BoardFilter({"standing": EVERY_STANDING}))
        assert whole is not None
        every = list(whole.rows())
        assert len(every) == info.size == whole.size
        filters = [BoardFilter(), BoardFilter(checked_only=True)]
        filters.append(BoardFilter(params_min=Decimal("1"), params_max=Decimal("7.5")))
        for name, values in whole.facets.items():
            filters += [BoardFilter({name: value}) for value, _, _ in values]
            filters += [BoardFilter({name: v, "standing": EVERY_STANDING}) for v, _, _ in values]
        for chosen in filters:
            view = boards.board(info.benchmark, chosen)
            assert view is not None
            shown = [e for e in every if _admits(e, chosen)]
            assert [e.row.id for e in view.rows()] == [e.row.id for e in shown]
            assert view.total == len(shown)
            assert view.models == len({e.row.model_node or e.row.model for e in shown})
            assert view.not_current == sum(not e.row.is_current for e in every)
            assert [e.row.id for e in view.page(1, 2)] == [e.row.id for e in shown[1:3]]
            for name, counted in view.facets.items():
                expected: dict[str, int] = {}
                for e in every:
                    if _admits(e, chosen, skip=name):
                        value = getattr(e.row, BOARD_FACETS[name][1]) or (
                            "none" if name == "verification" else ""
                        )
                        if value:
                            expected[value] = expected.get(value, 0) + 1
                assert {v: n for v, _, n in counted} == expected, (info.label, chosen, name)
            if shown:
                assert view.place(shown[-1].row.record) == len(shown) - 1
            bars = view.bars()
            ranked = [e for e in shown if e.rank is not None]
            assert bars.values == [float(e.row.value) for e in ranked]
