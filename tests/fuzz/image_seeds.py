#!/usr/bin/python3
"""image_seeds.py - writes the seed corpus of the image fuzz target
(tests/fuzz/corpus/image/): tiny files of every format and variant stb_image
reads. Run once by hand (needs python3-pil for JPEG, GIF, BMP and TGA); the
files are committed and the build never runs this.

PNG, PNM, PSD and HDR are written here byte by byte, so every variant is
covered (bit depths 1 to 16, palettes with transparency, Adam7 interlace,
every filter type, RLE) whether or not PIL can write it.
"""
import os
import struct
import sys
import zlib

from PIL import Image

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "image")
W, H = 5, 3  # odd sizes: partial bytes at low bit depths, every Adam7 pass


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


# ---- PNG ----------------------------------------------------------------------

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def sample(x, y, c, bits):
    return ((x * 37 + y * 91 + c * 53) * 2654435761 >> 7) % (1 << bits)


def pack_row(values, bits):
    if bits == 16:
        return b"".join(struct.pack(">H", v) for v in values)
    if bits == 8:
        return bytes(values)
    out, acc, n = bytearray(), 0, 0
    for v in values:
        acc, n = (acc << bits) | v, n + bits
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def filtered(raw_rows, bpp, filters):
    """Applies PNG filter types (cycled over rows) to byte rows."""
    out, prev = bytearray(), None
    for i, row in enumerate(raw_rows):
        ft = filters[i % len(filters)]
        up = prev if prev is not None else bytes(len(row))
        enc = bytearray()
        for j, b in enumerate(row):
            a = row[j - bpp] if j >= bpp else 0
            u = up[j]
            c = up[j - bpp] if j >= bpp else 0
            if ft == 0:
                p = 0
            elif ft == 1:
                p = a
            elif ft == 2:
                p = u
            elif ft == 3:
                p = (a + u) // 2
            else:
                pa, pb, pc = abs(u - c), abs(a - c), abs(a + u - 2 * c)
                p = a if pa <= pb and pa <= pc else u if pb <= pc else c
            enc.append((b - p) & 0xFF)
        out += bytes([ft]) + enc
        prev = row
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(name, ctype, bits, channels, interlace=False, extra=b"", filters=(0, 1, 2, 3, 4), w=W, h=H):
    bpp = max(1, channels * bits // 8)

    def rows(xs, ys):
        return [pack_row([sample(x, y, c, bits) for x in xs for c in range(channels)], bits) for y in ys]

    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, w, dx), range(y0, h, dy)
            if len(xs) and len(ys):
                data += filtered(rows(xs, ys), bpp, filters)
    else:
        data = filtered(rows(range(w), range(h)), bpp, filters)
    ihdr = struct.pack(">IIBBBBB", w, h, bits, ctype, 0, 0, 1 if interlace else 0)
    put(name, b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(data)) +
        chunk(b"IEND", b""))


def palette(n):
    return chunk(b"PLTE", bytes((i * 70 + c * 90) % 256 for i in range(n) for c in range(3)))


def write_pngs():
    for bits in (1, 2, 4, 8, 16):
        png("grey%d.png" % bits, 0, bits, 1)
    png("grey8_trns.png", 0, 8, 1, extra=chunk(b"tRNS", b"\x00\x07"))
    png("ga8.png", 4, 8, 2)
    png("ga16.png", 4, 16, 2)
    png("rgb8.png", 2, 8, 3)
    png("rgb16.png", 2, 16, 3)
    png("rgb8_trns.png", 2, 8, 3, extra=chunk(b"tRNS", b"\x00\x01\x00\x02\x00\x03"))
    png("rgba8.png", 6, 8, 4)
    png("rgba16.png", 6, 16, 4)
    for bits in (1, 2, 4, 8):
        png("pal%d.png" % bits, 3, bits, 1, extra=palette(1 << bits))
    png("pal8_trns.png", 3, 8, 1, extra=palette(256) + chunk(b"tRNS", bytes(range(0, 256, 3))))
    png("rgba8_adam7.png", 6, 8, 4, interlace=True)
    png("grey16_adam7.png", 0, 16, 1, interlace=True)
    png("pal2_adam7.png", 3, 2, 1, interlace=True, extra=palette(4))
    png("rgb8_gamma_text.png", 2, 8, 3,
        extra=chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"tEXt", b"Comment\x00seed") +
        chunk(b"sRGB", b"\x00") + chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1)))
    # Apple's CgBI variant (iphone PNG): stb undoes its BGR and premultiplication
    cgbi = chunk(b"CgBI", b"\x50\x00\x20\x02")
    data = filtered([pack_row([sample(x, y, c, 8) for x in range(W) for c in range(4)], 8) for y in range(H)], 4,
                    (0,))
    comp = zlib.compressobj(wbits=-15)
    raw = comp.compress(data) + comp.flush()
    put("cgbi.png", b"\x89PNG\r\n\x1a\n" + cgbi + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) +
        chunk(b"IDAT", raw) + chunk(b"IEND", b""))


# ---- PNM, PSD, HDR ---------------------------------------------------------------------------

def write_pnm():
    put("grey.pgm", b"P5\n# seed\n%d %d\n255\n" % (W, H) + bytes(sample(x, y, 0, 8) for y in range(H) for x in range(W)))
    put("grey16.pgm", b"P5 %d %d 65535\n" % (W, H) +
        b"".join(struct.pack(">H", sample(x, y, 0, 16)) for y in range(H) for x in range(W)))
    put("rgb.ppm", b"P6\n%d %d\n255\n" % (W, H) +
        bytes(sample(x, y, c, 8) for y in range(H) for x in range(W) for c in range(3)))


def psd(name, channels, depth, rle):
    """An RGB(A) PSD. Alpha is opaque: stb_image 2.27 un-premultiplies other
    alphas with an out-of-range float conversion (tests/fuzz/crashes/image)."""
    head = b"8BPS" + struct.pack(">H6xHIIHH", 1, channels, H, W, depth, 3)
    head += struct.pack(">I", 0) + struct.pack(">I", 0) + struct.pack(">I", 0)
    if not rle:
        body = struct.pack(">H", 0)
        for c in range(channels):
            for y in range(H):
                for x in range(W):
                    v = sample(x, y, c, depth) if c < 3 else (1 << depth) - 1
                    body += struct.pack(">H", v) if depth == 16 else bytes([v])
    else:  # PackBits: each row one literal run, the row byte counts first
        body, counts, rows = struct.pack(">H", 1), b"", b""
        for c in range(channels):
            for y in range(H):
                row = bytes([W - 1]) + bytes(sample(x, y, c, 8) if c < 3 else 255 for x in range(W))
                counts += struct.pack(">H", len(row))
                rows += row
        body += counts + rows
    put(name, head + body)


def rgbe(r, g, b):
    m = max(r, g, b)
    if m < 1e-32:
        return b"\x00\x00\x00\x00"
    e = 0
    while m >= 1:
        m, e = m / 2, e + 1
    while m < 0.5:
        m, e = m * 2, e - 1
    return bytes([int(r / 2.0 ** e * 256), int(g / 2.0 ** e * 256), int(b / 2.0 ** e * 256), e + 128])


def write_hdr():
    head = b"#?RADIANCE\n# seed\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n"
    flat = b"".join(rgbe(x * 0.3 + 0.1, y * 0.7 + 0.05, 2.0) for y in range(H) for x in range(W))
    put("flat.hdr", head % (H, W) + flat)
    # new-style RLE rows need 8 <= width < 32768
    w, rows = 9, b""
    for y in range(2):
        px = [rgbe(x * 0.5 + 0.1, y + 0.2, 0.5) for x in range(w)]
        rows += bytes([2, 2, w >> 8, w & 255])
        for c in range(4):
            comp = [p[c] for p in px]
            rows += bytes([128 + 4, comp[0]]) + bytes([w - 4]) + bytes(comp[4:])
    put("rle.hdr", head % (2, w) + rows)


# ---- through PIL: JPEG, GIF, BMP, TGA ----------------------------------------------------------

def write_pil():
    rgb = Image.new("RGB", (W + 4, H + 5))
    rgb.putdata([(sample(x, y, 0, 8), sample(x, y, 1, 8), sample(x, y, 2, 8))
                 for y in range(H + 5) for x in range(W + 4)])
    rgb.save(os.path.join(OUT, "baseline.jpg"), quality=60)
    rgb.save(os.path.join(OUT, "progressive.jpg"), quality=60, progressive=True)
    rgb.save(os.path.join(OUT, "sub420.jpg"), quality=80, subsampling=2)
    rgb.convert("L").save(os.path.join(OUT, "grey.jpg"), quality=60)
    rgb.convert("CMYK").save(os.path.join(OUT, "cmyk.jpg"), quality=60)
    rgb.convert("P").save(os.path.join(OUT, "pal.gif"))
    frames = [rgb.convert("P"), rgb.rotate(90, expand=True).convert("P")]
    frames[0].save(os.path.join(OUT, "anim.gif"), save_all=True, append_images=frames[1:], duration=10, loop=0)
    rgb.save(os.path.join(OUT, "rgb24.bmp"))
    rgb.convert("RGBA").save(os.path.join(OUT, "rgba32.bmp"))
    rgb.convert("P").save(os.path.join(OUT, "pal8.bmp"))
    rgb.convert("1").save(os.path.join(OUT, "mono.bmp"))
    rgb.save(os.path.join(OUT, "rgb.tga"))
    rgb.save(os.path.join(OUT, "rgb_rle.tga"), compression="tga_rle")
    rgb.convert("RGBA").save(os.path.join(OUT, "rgba_rle.tga"), compression="tga_rle")
    rgb.convert("L").save(os.path.join(OUT, "grey.tga"))
    rgb.convert("P").save(os.path.join(OUT, "pal.tga"))


def main():
    os.makedirs(OUT, exist_ok=True)
    write_pngs()
    write_pnm()
    psd("rgb8_raw.psd", 3, 8, False)
    psd("rgba8_rle.psd", 4, 8, True)
    psd("rgba16_raw.psd", 4, 16, False)
    write_hdr()
    write_pil()


if __name__ == "__main__":
    main()
