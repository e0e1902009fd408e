"""The package's shape: the folders' layers are import-linter contracts (`make lint`);
this checks what those contracts cannot, that no two modules import each other in a
circle."""

from __future__ import annotations

import grimp


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in edges[module]:
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in edges:
        if module not in order:
            visit(module)
    return found


def test_no_module_imports_another_that_imports_it_back() -> None:
    graph = grimp.build_graph("horizon")
    edges = {module: set(graph.find_modules_directly_imported_by(module))
             for module in graph.modules}
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(edges) == [["a", "b", "c"]]
