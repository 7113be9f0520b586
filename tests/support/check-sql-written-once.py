#!/usr/bin/env python3
"""Fails when one SQL statement's text is written in both storage backends.

    tests/support/check-sql-written-once.py crates/server/src/storage

A statement the two databases agree on is written once, in `storage/rows/` (with `?N`
placeholders, which the PostgreSQL side reads as `$N`); `storage/sqlite/` and
`storage/postgres/` keep only what each database says its own way. Every string literal of
those two folders that starts like a statement (SELECT, INSERT, UPDATE, DELETE, WITH, CREATE,
ALTER, DROP) is compared with `?N` read as `$N`, white space folded and case ignored; a text
found on both sides is reported with where each stands.
"""
import pathlib
import re
import sys
from collections import defaultdict

RAW_STRING = re.compile(r'\br(#*)"([\s\S]*?)"\1')
STRING = re.compile(r'(?<![\w#])"((?:[^"\\]|\\.)*)"')
LINE_COMMENT = re.compile(r"//[^\n]*")
STATEMENT = re.compile(r"^\s*(select|insert|update|delete|with|create|alter|drop)\b", re.IGNORECASE)


def statements(path):
    """Each SQL-looking literal of a file, normalized, with its line."""
    text = path.read_text(encoding="utf-8")
    found = []
    raw_spans = []
    for match in RAW_STRING.finditer(text):
        raw_spans.append(match.span())
        found.append((match.start(), match.group(2)))
    for match in STRING.finditer(text):
        if any(start <= match.start() < end for start, end in raw_spans):
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        if LINE_COMMENT.search(text[line_start:match.start()]):
            continue
        # `\` at a line's end continues the literal without the line break or the indent; `\n`,
        # `\t` and `\r` are white space like any other.
        literal = re.sub(r"\\\n\s*", "", match.group(1))
        found.append((match.start(), re.sub(r"\\[nrt]", " ", literal)))
    for offset, literal in found:
        if STATEMENT.match(literal):
            normalized = " ".join(re.sub(r"\?(\d+)", r"$\1", literal).split()).lower()
            yield normalized, text.count("\n", 0, offset) + 1


def main():
    storage = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "crates/server/src/storage")
    sides = {}
    for backend in ("sqlite", "postgres"):
        places = defaultdict(list)
        for path in sorted((storage / backend).rglob("*.rs")):
            for normalized, line in statements(path):
                places[normalized].append(f"{path}:{line}")
        sides[backend] = places
    both = sorted(set(sides["sqlite"]) & set(sides["postgres"]))
    counts = ", ".join(f"{len(places)} in {backend}" for backend, places in sides.items())
    if not sides["sqlite"] or not sides["postgres"]:
        print(f"{storage}: no statements found on one side ({counts}): is the path right?")
        return 1
    if both:
        print(f"{storage}: {len(both)} statement(s) written in both backends; write each once in storage/rows/:")
        for statement in both:
            print(f"  {statement[:120]}")
            for place in sides["sqlite"][statement] + sides["postgres"][statement]:
                print(f"    {place}")
        return 1
    print(f"{storage}: distinct statements {counts}; none written in both backends")
    return 0


if __name__ == "__main__":
    sys.exit(main())
