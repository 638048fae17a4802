"""No import circle in pmem_tui: the app imports its screens, the screens never import the app; core's
modules import down their layers only.

Drawn from the imports themselves (grimp, import-linter's library), every kind counted: at the top,
inside functions, and under `TYPE_CHECKING` (a circle of annotations still ties the modules together).
"""

from __future__ import annotations

import grimp

PACKAGE = "pmem_tui"
CHECKED = "pmem_tui.tui"


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan), each sorted."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_the_finder_sees_a_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.app", "a.screen", "a.leaf"):
        graph.add_module(name)
    graph.add_import(importer="a.app", imported="a.screen")
    graph.add_import(importer="a.screen", imported="a.app")
    graph.add_import(importer="a.screen", imported="a.leaf")
    assert circles(graph) == [["a.app", "a.screen"]]


def test_no_import_circle_in_the_tui() -> None:
    graph = grimp.build_graph(PACKAGE, include_external_packages=False)
    assert "pmem_tui.tui.app" in graph.modules and "pmem_tui.tui.screens.health" in graph.modules
    assert graph.direct_import_exists(importer="pmem_tui.tui.app", imported="pmem_tui.tui.screens.main")
    tui = [group for group in circles(graph) if any(m.startswith(CHECKED + ".") for m in group)]
    assert tui == []


def test_no_import_circle_in_the_package() -> None:
    graph = grimp.build_graph(PACKAGE, include_external_packages=False)
    assert len(graph.modules) > 100  # the whole package: core, cli, tui, demo
    assert circles(graph) == []
