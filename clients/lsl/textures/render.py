#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Renders the textures' SVGs (this folder: the pieces, by letter, and the
board's grid) to the PNGs that ship.

The SVGs use only filled <polygon> and <circle> shapes, painted in order,
which this renders with 4 x 4 samples a pixel (standard library only).
render.py        writes <name>.png beside each <name>.svg
render.py --check  fails if a checked-in PNG differs from its SVG's render
"""

import pathlib
import re
import struct
import sys
import zlib

HERE = pathlib.Path(__file__).resolve().parent
SAMPLES = 4


def shapes(svg):
    out = []
    for tag, attrs in re.findall(r"<(polygon|circle)\s([^>]*)/>", svg):
        a = dict(re.findall(r'(\w+)="([^"]*)"', attrs))
        colour = tuple(int(a["fill"][i:i + 2], 16) for i in (1, 3, 5))
        if tag == "polygon":
            nums = [float(n) for n in re.split(r"[ ,]+", a["points"].strip())]
            out.append(("polygon", list(zip(nums[::2], nums[1::2])), colour))
        else:
            out.append(("circle", (float(a["cx"]), float(a["cy"]),
                                   float(a["r"])), colour))
    return out


def bounds(shape):
    """The shape's box: (left, top, right, bottom)."""
    kind, geometry, _ = shape
    if kind == "circle":
        cx, cy, r = geometry
        return cx - r, cy - r, cx + r, cy + r
    xs = [x for x, _ in geometry]
    ys = [y for _, y in geometry]
    return min(xs), min(ys), max(xs), max(ys)


def inside(shape, x, y):
    kind, geometry, _ = shape
    if kind == "circle":
        cx, cy, r = geometry
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    hit = False
    points = geometry
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def render(svg):
    width, height = (int(n) for n in
                     re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    drawn = [(shape, bounds(shape)) for shape in shapes(svg)]
    rows = []
    for py in range(height):
        row = bytearray([0])  # PNG filter: none
        for px in range(width):
            # Only shapes whose box meets this pixel can cover its samples.
            near = [shape for shape, (left, top, right, bottom) in drawn
                    if left <= px + 1 and right >= px and
                    top <= py + 1 and bottom >= py]
            total = [0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = px + (sx + 0.5) / SAMPLES
                    y = py + (sy + 0.5) / SAMPLES
                    colour = (0, 0, 0)
                    for shape in near:
                        if inside(shape, x, y):
                            colour = shape[2]
                    total = [t + c for t, c in zip(total, colour)]
            row += bytes(t // (SAMPLES * SAMPLES) for t in total)
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data))
    return b"\x89PNG\r\n\x1a\n" + \
        chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


def main(check):
    stale = []
    for svg in sorted(HERE.glob("*.svg")):
        png = svg.with_suffix(".png")
        data = render(svg.read_text())
        if check:
            if not png.exists() or png.read_bytes() != data:
                stale.append(png.name)
        else:
            png.write_bytes(data)
        print(f"{svg.name} -> {png.name} ({len(data)} bytes)")
    if stale:
        print(f"FAIL: not rendered from their SVGs: {stale}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
