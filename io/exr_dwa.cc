/*
 * exr_dwa.cc — DWAA/DWAB .exr files through OpenEXR's C++ library (Imf),
 * behind the C interface of exr_dwa.h (which says why: OpenEXRCore 3.1
 * has no DWA codec). Every file is written by Imf::MultiPartOutputFile,
 * one part (an ordinary single-part file) or several, each part a
 * scanline or tiled (one level or mip-mapped) part writer; its chunks go
 * out through a stream over the caller's write and seek. The header holds
 * what exr.c's OpenEXRCore header holds (windows, channels, worldOrigin,
 * worldPixelSize, the provenance strings) and dwaCompressionLevel.
 */
#include "exr_dwa.h"

#include <ImfChannelList.h>
#include <ImfDoubleAttribute.h>
#include <ImfFloatAttribute.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfMultiPartOutputFile.h>
#include <ImfOutputPart.h>
#include <ImfPartType.h>
#include <ImfStringAttribute.h>
#include <ImfThreading.h>
#include <ImfTiledOutputPart.h>
#include <ImfVecAttribute.h>
#include <Iex.h>
#include <half.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace {

/* The caller's file as Imf's output stream: a failed write or seek throws
 * (Imf's way), and the caller's callback has kept why. */
class sink_stream : public Imf::OStream {
  public:
    explicit sink_stream(const ng__dwa_spec &s) : Imf::OStream("noisegraph output"), spec(s) {}
    void write(const char c[], int n) override
    {
        if (spec.write(spec.user, c, (size_t)n)) throw Iex::IoExc("cannot write the file");
        pos += (uint64_t)n;
    }
    uint64_t tellp() override { return pos; }
    void seekp(uint64_t to) override
    {
        if (spec.seek(spec.user, to)) throw Iex::IoExc("cannot seek in the file");
        pos = to;
    }

  private:
    ng__dwa_spec spec;
    uint64_t pos = 0;
};

/* body() for a C caller: what it returns, or failed with the exception's
 * text in msg (no exception crosses into C). */
template <class T, class F> T guarded(char *msg, size_t len, T failed, F body)
{
    try {
        return body();
    } catch (const std::exception &e) {
        std::snprintf(msg, len, "%s", e.what());
    } catch (...) {
        std::snprintf(msg, len, "unknown failure");
    }
    return failed;
}

int lines_of(const ng__dwa_spec &s)
{
    return s.tile ? s.tile : s.dwab ? 256 : 32;
}

Imf::Header part_header(const ng__dwa_spec &s, int k)
{
    const IMATH_NAMESPACE::Box2i data(IMATH_NAMESPACE::V2i(s.data[0], s.data[1]),
                                      IMATH_NAMESPACE::V2i(s.data[2], s.data[3]));
    const IMATH_NAMESPACE::Box2i display(IMATH_NAMESPACE::V2i(s.display[0], s.display[1]),
                                         IMATH_NAMESPACE::V2i(s.display[2], s.display[3]));
    Imf::Header h(display, data, 1.0f, IMATH_NAMESPACE::V2f(0.0f, 0.0f), 1.0f, Imf::INCREASING_Y,
                  s.dwab ? Imf::DWAB_COMPRESSION : Imf::DWAA_COMPRESSION);
    for (int c = 0; c < s.nch; c++)
        if (s.ch[c].part == k)
            h.channels().insert(s.ch[c].name, Imf::Channel(s.half ? Imf::HALF : Imf::FLOAT, 1, 1, true));
    if (s.tile)
        h.setTileDescription(Imf::TileDescription((unsigned)s.tile, (unsigned)s.tile,
                                                  s.mipmap ? Imf::MIPMAP_LEVELS : Imf::ONE_LEVEL,
                                                  s.mipmap ? Imf::ROUND_UP : Imf::ROUND_DOWN));
    h.setType(s.tile ? Imf::TILEDIMAGE : Imf::SCANLINEIMAGE); /* MultiPartOutputFile's rule */
    if (s.nparts > 1) h.setName(s.part_names[k]);
    h.dwaCompressionLevel() = (float)s.level; /* what the compressor uses */
    h.insert("dwaCompressionLevel", Imf::FloatAttribute((float)s.level)); /* what readers see */
    if (s.world) {
        h.insert("worldOrigin", Imf::V2dAttribute(IMATH_NAMESPACE::V2d(s.origin[0], s.origin[1])));
        h.insert("worldPixelSize", Imf::DoubleAttribute(s.pixel_size));
    }
    for (int c = 0; s.meta && s.meta[c] && s.meta[c + 1]; c += 2)
        h.insert(s.meta[c], Imf::StringAttribute(s.meta[c + 1]));
    return h;
}

} // namespace

struct ng__dwa_file {
    ng__dwa_spec spec; /* its pointers are the caller's, used by ng__dwa_open alone */
    std::vector<std::string> name; /* the channels', with their parts and places */
    std::vector<int> part, at;
    std::unique_ptr<sink_stream> stream;
    std::unique_ptr<Imf::MultiPartOutputFile> file;
    std::vector<std::unique_ptr<Imf::OutputPart>> scan;
    std::vector<std::unique_ptr<Imf::TiledOutputPart>> tiled;
};

extern "C" double ng__dwa_buffer_bytes(const ng__dwa_spec *s, int width)
{
    const double sample = s->half ? 2 : 4, buffers = s->threads > 0 ? 2.0 * s->threads : 1.0;
    const double chunk = (double)lines_of(*s) * (s->tile ? std::min(s->tile, width) : width) * s->nch * sample;
    return buffers * 5 * chunk; /* the raw chunk and the compressor's buffers, each line or tile buffer */
}

extern "C" ng__dwa_file *ng__dwa_open(const ng__dwa_spec *s, char *msg, size_t len)
{
    return guarded(msg, len, (ng__dwa_file *)nullptr, [&] {
        std::unique_ptr<ng__dwa_file> f(new ng__dwa_file);
        std::vector<Imf::Header> headers;
        f->spec = *s;
        for (int c = 0; c < s->nch; c++) {
            f->name.push_back(s->ch[c].name);
            f->part.push_back(s->ch[c].part);
            f->at.push_back(s->ch[c].at);
        }
        if (s->threads > Imf::globalThreadCount()) Imf::setGlobalThreadCount(s->threads);
        for (int k = 0; k < s->nparts; k++) headers.push_back(part_header(*s, k));
        f->stream.reset(new sink_stream(*s));
        /* its line or tile buffers: 2 * threads a part (ng__dwa_buffer_bytes) */
        f->file.reset(new Imf::MultiPartOutputFile(*f->stream, headers.data(), s->nparts, false, s->threads));
        for (int k = 0; k < s->nparts; k++)
            if (s->tile) f->tiled.emplace_back(new Imf::TiledOutputPart(*f->file, k));
            else f->scan.emplace_back(new Imf::OutputPart(*f->file, k));
        return f.release();
    });
}

/* Part `part`'s slices of the rows: the floats where they are, or (a half
 * file: Imf's writers convert nothing) the part's channels rounded to the
 * nearest halves, interleaved in halves. */
static Imf::FrameBuffer part_slices(const ng__dwa_file *f, int part, int y, int nrows, int width, const float *rows,
                                    std::vector<half> &halves)
{
    const ng__dwa_spec &s = f->spec;
    const IMATH_NAMESPACE::V2i origin(s.data[0], s.data[1] + y);
    const size_t px = (size_t)nrows * (size_t)width;
    size_t n = 0, k = 0;
    Imf::FrameBuffer fb;
    for (size_t c = 0; c < f->name.size(); c++) n += f->part[c] == part;
    if (s.half) halves.resize(px * n);
    for (size_t c = 0; c < f->name.size(); c++) {
        if (f->part[c] != part) continue;
        if (s.half) {
            for (size_t i = 0; i < px; i++) halves[i * n + k] = half(rows[i * (size_t)s.nch + (size_t)f->at[c]]);
            fb.insert(f->name[c], Imf::Slice::Make(Imf::HALF, halves.data() + k, origin, width, nrows,
                                                   n * sizeof(half), n * sizeof(half) * (size_t)width));
        } else {
            const size_t xs = (size_t)s.nch * sizeof(float);
            fb.insert(f->name[c], Imf::Slice::Make(Imf::FLOAT, rows + f->at[c], origin, width, nrows, xs,
                                                   xs * (size_t)width));
        }
        k++;
    }
    return fb;
}

extern "C" int ng__dwa_write(ng__dwa_file *f, int part, int level, int y, int nrows, int width, const float *rows,
                             char *msg, size_t len)
{
    const ng__dwa_spec &s = f->spec;
    return guarded(msg, len, -1, [&] {
        std::vector<half> halves;
        const Imf::FrameBuffer fb = part_slices(f, part, y, nrows, width, rows, halves);
        if (s.tile) {
            Imf::TiledOutputPart &t = *f->tiled[(size_t)part];
            t.setFrameBuffer(fb);
            t.writeTiles(0, t.numXTiles(level) - 1, y / s.tile, (y + nrows - 1) / s.tile, level);
        } else {
            Imf::OutputPart &o = *f->scan[(size_t)part];
            o.setFrameBuffer(fb);
            o.writePixels(nrows);
        }
        return 0;
    });
}

extern "C" void ng__dwa_close(ng__dwa_file *f)
{
    try {
        delete f; /* the parts first (declared after the file), then the file's tables */
    } catch (...) {
    }
}

/* ---- reading ---- */

struct ng__dwa_in {
    std::unique_ptr<Imf::InputFile> file;
};

extern "C" ng__dwa_in *ng__dwa_read_open(const char *path, char *msg, size_t len)
{
    return guarded(msg, len, (ng__dwa_in *)nullptr, [&] {
        std::unique_ptr<ng__dwa_in> in(new ng__dwa_in);
        in->file.reset(new Imf::InputFile(path));
        return in.release();
    });
}

extern "C" int ng__dwa_read(ng__dwa_in *in, int y, int nrows, int width, int nch, const char *const *name,
                            const int *at, float *dst, char *msg, size_t len)
{
    return guarded(msg, len, -1, [&] {
        const IMATH_NAMESPACE::Box2i &dw = in->file->header().dataWindow();
        const size_t xs = (size_t)nch * sizeof(float), ys = xs * (size_t)width;
        const IMATH_NAMESPACE::V2i origin(dw.min.x, dw.min.y + y);
        Imf::FrameBuffer fb;
        for (int c = 0; c < nch; c++)
            fb.insert(name[c], Imf::Slice::Make(Imf::FLOAT, dst + at[c], origin, width, nrows, xs, ys));
        in->file->setFrameBuffer(fb);
        in->file->readPixels(dw.min.y + y, dw.min.y + y + nrows - 1);
        return 0;
    });
}

extern "C" void ng__dwa_read_close(ng__dwa_in *in)
{
    try {
        delete in;
    } catch (...) {
    }
}
