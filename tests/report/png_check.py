"""A screenshot is a page, not a blank: a PNG of plausible size whose pixels take many colours
and whose non-white share is more than a few percent. Standard library only (Debian's python3).

Usage: png_check.py FILE.png"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and colour in (2, 6), f"unexpected PNG format: depth {depth}, colour type {colour}"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path = sys.argv[1]
    width, height, bpp, rows = pixels(path)
    colours, coloured, total = set(), 0, 0
    for line in rows[::4]:
        for x in range(0, len(line), bpp * 4):
            px = line[x:x + 3]
            colours.add(px)
            total += 1
            if px != b"\xff\xff\xff":
                coloured += 1
    share = coloured / total
    print(f"{path}: {width}x{height}, {len(colours)} colours, {share:.1%} not white")
    if len(colours) < 8 or share < 0.03:
        print("blank or nearly blank screenshot")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
