/*
 * vdbgrid.cc — an OpenVDB grid behind the C interface of vdbgrid.h, the
 * project's only C++. The grid is sparse from the start: each block that
 * arrives is copied voxel by voxel into the tree, active voxels only, so
 * memory follows the voxels above the background, never the dense volume.
 *
 * Every entry point catches every exception: C++ errors become a message
 * for the C side and never unwind through C frames.
 */
#include "vdbgrid.h"

#include <openvdb/io/Archive.h>
#include <openvdb/openvdb.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <sys/types.h>

/* Declared after the grid, the accessors go first: each is registered
 * with the grid's tree until it is destroyed. */
struct ng__vdbgrid {
    openvdb::GridBase::Ptr grid;
    std::unique_ptr<openvdb::FloatGrid::Accessor> facc; /* one of them, for the grid's type */
    std::unique_ptr<openvdb::Vec3SGrid::Accessor> vacc;
    float background;
};

namespace {

void say(char *msg, size_t len, const char *what)
{
    if (len) std::snprintf(msg, len, "%s", what);
}

/* The message for whatever was thrown. */
void say_caught(char *msg, size_t len)
{
    try {
        throw;
    } catch (const std::bad_alloc &) {
        say(msg, len, "out of memory for the grid");
    } catch (const std::exception &e) {
        std::snprintf(msg, len, "OpenVDB: %s", e.what());
    } catch (...) {
        say(msg, len, "OpenVDB failed (an unknown exception)");
    }
}

/* A std::streambuf over the file sink's FILE *, so the grid goes into its
 * temporary file (and the sink's rename makes it the target). It keeps no
 * buffer of its own (stdio buffers); the first failed write or seek is
 * kept with its errno and fails every later one. Seeks are needed: the
 * archive goes back to write each grid's offsets. */
class FileBuf : public std::streambuf {
public:
    explicit FileBuf(FILE *fp) : fp_(fp) {}
    int error() const { return err_; }

protected:
    int_type overflow(int_type c) override
    {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        char ch = traits_type::to_char_type(c);
        return put(&ch, 1) ? c : traits_type::eof();
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override
    {
        return n > 0 && !put(s, static_cast<size_t>(n)) ? 0 : n;
    }
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override
    {
        int whence = dir == std::ios_base::beg ? SEEK_SET : dir == std::ios_base::cur ? SEEK_CUR : SEEK_END;
        off_t at;
        if (err_) return pos_type(off_type(-1));
        errno = 0;
        /* tellp() asks for (0, cur): no seek, so nothing is flushed */
        if (!(off == 0 && dir == std::ios_base::cur) && fseeko(fp_, static_cast<off_t>(off), whence) != 0)
            return failed();
        if ((at = ftello(fp_)) < 0) return failed();
        return pos_type(static_cast<off_type>(at));
    }
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override
    {
        return seekoff(off_type(pos), std::ios_base::beg, which);
    }
    int sync() override
    {
        if (err_) return -1;
        errno = 0;
        if (std::fflush(fp_) != 0) {
            failed();
            return -1;
        }
        return 0;
    }

private:
    bool put(const char *s, size_t n)
    {
        if (err_) return false;
        errno = 0;
        if (std::fwrite(s, 1, n, fp_) != n) {
            failed();
            return false;
        }
        return true;
    }
    pos_type failed()
    {
        err_ = errno ? errno : EIO;
        return pos_type(off_type(-1));
    }
    FILE *fp_;
    int err_ = 0;
};

/* An archive writing to any seekable stream, with the grid offsets a .vdb
 * file has (io::Stream writes none; io::File only to a path). */
class Writer : public openvdb::io::Archive {
public:
    void to(std::ostream &os, const openvdb::GridCPtrVec &grids, const openvdb::MetaMap &meta) const
    {
        openvdb::io::Archive::write(os, grids, /* seekable */ true, meta);
    }
};

/* A float voxel above the background; NaN is not. */
inline bool active(float v, float background) { return v > background; }

/* A vector voxel with no NaN and a length above the cut-off (a signed
 * field keeps every direction: only vectors shorter than it, read back as
 * zero, are left out; a negative cut-off keeps every vector). */
inline bool active(const openvdb::Vec3s &v, float cutoff)
{
    if (std::isnan(v[0]) || std::isnan(v[1]) || std::isnan(v[2])) return false;
    return cutoff < 0 || v.lengthSqr() > cutoff * cutoff;
}

template <typename Value> Value voxel(const float *p);
template <> inline float voxel<float>(const float *p) { return p[0]; }
template <> inline openvdb::Vec3s voxel<openvdb::Vec3s>(const float *p) { return openvdb::Vec3s(p[0], p[1], p[2]); }

template <typename Accessor>
void add_block(Accessor &acc, float background, int channels, int x0, int y0, int z0, int width, int nrows,
               int nslices, const float *data)
{
    using Value = typename Accessor::ValueType;
    for (int s = 0; s < nslices; s++)
        for (int j = 0; j < nrows; j++) {
            const float *row = data + (static_cast<size_t>(s) * nrows + j) * width * channels;
            for (int i = 0; i < width; i++) {
                Value v = voxel<Value>(row + static_cast<size_t>(i) * channels);
                if (active(v, background)) acc.setValue(openvdb::Coord(x0 + i, y0 + j, z0 + s), v);
            }
        }
}

} // namespace

extern "C" ng__vdbgrid *ng__vdbgrid_new(const ng__vdbgrid_spec *spec, char *msg, size_t msglen)
{
    try {
        openvdb::initialize(); /* registers the types; once, thread-safe */
        std::unique_ptr<ng__vdbgrid> made(new ng__vdbgrid());
        const float b = spec->background;
        made->background = b;
        if (spec->channels == 1) {
            openvdb::FloatGrid::Ptr fg = openvdb::FloatGrid::create(0.0f);
            fg->setGridClass(openvdb::GRID_FOG_VOLUME);
            made->facc.reset(new openvdb::FloatGrid::Accessor(fg->getAccessor()));
            made->grid = fg;
        } else if (spec->channels == 3) {
            openvdb::Vec3SGrid::Ptr vg = openvdb::Vec3SGrid::create(openvdb::Vec3s(0.0f, 0.0f, 0.0f));
            made->vacc.reset(new openvdb::Vec3SGrid::Accessor(vg->getAccessor()));
            made->grid = vg;
        } else {
            std::snprintf(msg, msglen, "a grid of 1 or 3 channels, not %d", spec->channels);
            return nullptr;
        }
        /* index (i, j, k) is a voxel's centre: world = origin + (ijk + 0.5) * size */
        openvdb::math::Transform::Ptr xf = openvdb::math::Transform::createLinearTransform(spec->voxel_size);
        xf->postTranslate(openvdb::Vec3d(spec->origin[0] + 0.5 * spec->voxel_size,
                                         spec->origin[1] + 0.5 * spec->voxel_size,
                                         spec->origin[2] + 0.5 * spec->voxel_size));
        made->grid->setTransform(xf);
        made->grid->setName(spec->name);
        made->grid->setSaveFloatAsHalf(spec->half != 0);
        return made.release();
    } catch (...) {
        say_caught(msg, msglen);
        return nullptr;
    }
}

extern "C" int ng__vdbgrid_add(ng__vdbgrid *g, int x0, int y0, int z0, int width, int nrows, int nslices,
                               const float *data, char *msg, size_t msglen)
{
    try {
        if (g->facc)
            add_block(*g->facc, g->background, 1, x0, y0, z0, width, nrows, nslices, data);
        else
            add_block(*g->vacc, g->background, 3, x0, y0, z0, width, nrows, nslices, data);
        return 0;
    } catch (...) {
        say_caught(msg, msglen);
        return -1;
    }
}

extern "C" int ng__vdbgrid_write(ng__vdbgrid *g, FILE *fp, const char *creator, int *errnum, char *msg,
                                 size_t msglen)
{
    FileBuf buf(fp);
    *errnum = 0;
    try {
        std::ostream os(&buf);
        openvdb::MetaMap meta;
        meta.insertMeta("creator", openvdb::StringMetadata(creator));
        g->grid->setCreator(creator);
        Writer().to(os, openvdb::GridCPtrVec{g->grid}, meta);
        os.flush();
        if (buf.error() || !os) {
            *errnum = buf.error() ? buf.error() : EIO;
            say(msg, msglen, "cannot write");
            return -1;
        }
        return 0;
    } catch (...) {
        if ((*errnum = buf.error()) != 0) { /* a failed write is why it threw */
            say(msg, msglen, "cannot write");
            return -1;
        }
        say_caught(msg, msglen);
        return -1;
    }
}

/* Leaves hold the voxels; each internal node is a table of its children
 * (32^3 or 16^3 slots). Counting them walks the internal nodes only. */
extern "C" size_t ng__vdbgrid_bytes(const ng__vdbgrid *g)
{
    using FloatTree = openvdb::FloatTree;
    using VecTree = openvdb::Vec3STree;
    try {
        const openvdb::TreeBase &t = g->grid->baseTree();
        /* a leaf's values live in a buffer of their own, outside the node */
        const size_t leaf = g->facc ? sizeof(FloatTree::LeafNodeType) + FloatTree::LeafNodeType::SIZE * sizeof(float)
                                    : sizeof(VecTree::LeafNodeType) + VecTree::LeafNodeType::SIZE * sizeof(openvdb::Vec3s);
        const size_t inner = g->facc ? sizeof(FloatTree::RootNodeType::ChildNodeType::ChildNodeType)
                                     : sizeof(VecTree::RootNodeType::ChildNodeType::ChildNodeType);
        return static_cast<size_t>(t.leafCount()) * leaf + static_cast<size_t>(t.nonLeafCount()) * inner;
    } catch (...) {
        return 0;
    }
}

extern "C" void ng__vdbgrid_free(ng__vdbgrid *g)
{
    delete g;
}
