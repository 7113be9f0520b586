#!/usr/bin/env python3
"""Writes the dashboard's app icon (an RGBA PNG) with the standard library only.

A rounded square in the accent colour with a white card and its stripe. Run from the repository
root: python3 assets/tools/make_app_icon.py
"""
import struct
import zlib
from pathlib import Path

ACCENT = (79, 70, 229)
SIZE = 256


def inside_rounded(x, y, x0, y0, x1, y1, radius):
    cx = min(max(x, x0 + radius), x1 - radius)
    cy = min(max(y, y0 + radius), y1 - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius


def pixel(x, y):
    if not inside_rounded(x, y, 8, 8, SIZE - 8, SIZE - 8, 48):
        return (0, 0, 0, 0)
    if inside_rounded(x, y, 48, 76, SIZE - 48, SIZE - 76, 14):
        if 100 <= y <= 122:
            return (*ACCENT, 255)
        if 150 <= y <= 160 and 72 <= x <= 140:
            return (160, 160, 175, 255)
        return (255, 255, 255, 255)
    return (*ACCENT, 255)


def png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(channel for px in row for channel in px) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    rows = [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]
    target = Path("src-tauri/icons/icon.png")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(png(SIZE, SIZE, rows))
    print(f"wrote {target}")
