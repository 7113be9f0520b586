#!/usr/bin/env python3
"""Fails when the top-level modules of a crate depend on each other in a cycle.

    tests/support/check-module-cycles.py crates/server/src

Every `crate::<module>` path in a module's code counts (imports, types of fields, calls in
bodies, grouped `use crate::{a, b}`); comments and string literals do not. Items are folded into
the top-level module whose file holds them (`src/http/context.rs` is `http`), and the strongly
connected groups of two or more modules are reported with a line that makes each edge.
(`cargo modules dependencies --acyclic` was tried: its graph keeps imports and signatures but
not paths written out in bodies or field types, so it missed the cycle this check was made for,
and it judges the whole item graph, where a trait implemented for `String` closes a loop.)
"""
import pathlib
import re
import sys
from collections import defaultdict

RAW_STRING = re.compile(r'\br(#*)"[\s\S]*?"\1')
STRING = re.compile(r'b?"(?:[^"\\]|\\.)*"')
CHAR = re.compile(r"b?'(?:[^'\\\n]|\\[^\n]{1,10})'")
BLOCK_COMMENT = re.compile(r"/\*[\s\S]*?\*/")
LINE_COMMENT = re.compile(r"//[^\n]*")
PATH = re.compile(r"\bcrate::(\w+)")
GROUP = re.compile(r"\bcrate::\{")


def code_of(text):
    """The source without comments and literals (lines kept, for the report)."""
    for pattern in (RAW_STRING, STRING, CHAR, BLOCK_COMMENT, LINE_COMMENT):
        text = pattern.sub(lambda match: "\n" * match.group(0).count("\n"), text)
    return text


def grouped_names(code, start):
    """The first segment of every path in `crate::{a, b::c, d::{e}}` starting at `start` (after `{`)."""
    names, depth, current, index = [], 0, "", start
    while index < len(code):
        character = code[index]
        if character == "{":
            depth += 1
        elif character == "}":
            if depth == 0:
                break
            depth -= 1
        elif character == "," and depth == 0:
            names.append(current)
            current = ""
            index += 1
            continue
        if depth == 0:
            current += character
        index += 1
    names.append(current)
    return [name.strip().split("::")[0].strip() for name in names if name.strip()]


def top_module(root, path):
    relative = path.relative_to(root)
    first = relative.parts[0]
    if len(relative.parts) == 1:
        first = first[: -len(".rs")]
    return None if first in ("lib", "main") else first


def strongly_connected(graph):
    """Tarjan's algorithm: the groups of modules that reach each other."""
    index, low, on_stack, stack, groups, counter = {}, {}, set(), [], [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "crates/server/src")
    files = sorted(root.rglob("*.rs"))
    modules = {module for module in (top_module(root, path) for path in files) if module}
    graph = {module: set() for module in modules}
    examples = defaultdict(list)
    for path in files:
        source = top_module(root, path)
        if not source:
            continue
        code = code_of(path.read_text())
        found = [(match.start(), match.group(1)) for match in PATH.finditer(code)]
        found += [(match.start(), name) for match in GROUP.finditer(code) for name in grouped_names(code, match.end())]
        for offset, target in found:
            if target in modules and target != source:
                graph[source].add(target)
                line = code.count("\n", 0, offset) + 1
                examples[(source, target)].append(f"{path}:{line}")
    cycles = [group for group in strongly_connected(graph) if len(group) > 1]
    if not cycles:
        print(f"{root}: {len(modules)} top-level modules, no dependency cycle among them")
        return
    print(f"{root}: top-level modules that depend on each other in a cycle:", file=sys.stderr)
    for group in cycles:
        print(f"  {', '.join(group)}", file=sys.stderr)
        for (source, target), where in sorted(examples.items()):
            if source in group and target in group:
                print(f"    {source} -> {target}: {where[0]}" + (f" (and {len(where) - 1} more)" if len(where) > 1 else ""),
                      file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
