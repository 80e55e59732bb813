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
    bool y_up;
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

/* A voxel's value; y up turns a vector as its voxel is turned: (x, z, -y). */
template <typename Value> Value voxel(const float *p, bool y_up);
template <> inline float voxel<float>(const float *p, bool) { return p[0]; }
template <> inline openvdb::Vec3s voxel<openvdb::Vec3s>(const float *p, bool y_up)
{
    return y_up ? openvdb::Vec3s(p[0], p[2], -p[1]) : openvdb::Vec3s(p[0], p[1], p[2]);
}

/* Index (i, j, k) of the volume where the grid stores it: y up puts it at
 * (i, k, -1 - j), the rotation (x, y, z) -> (x, z, -y) of its centre. */
inline openvdb::Coord place(int i, int j, int k, bool y_up)
{
    return y_up ? openvdb::Coord(i, k, -1 - j) : openvdb::Coord(i, j, k);
}

template <typename Accessor>
void add_block(Accessor &acc, const ng__vdbgrid &g, int channels, int x0, int y0, int z0, int width, int nrows,
               int nslices, const float *data)
{
    using Value = typename Accessor::ValueType;
    for (int s = 0; s < nslices; s++)
        for (int j = 0; j < nrows; j++) {
            const float *row = data + (static_cast<size_t>(s) * nrows + j) * width * channels;
            for (int i = 0; i < width; i++) {
                Value v = voxel<Value>(row + static_cast<size_t>(i) * channels, g.y_up);
                if (active(v, g.background)) acc.setValue(place(x0 + i, y0 + j, z0 + s, g.y_up), v);
            }
        }
}

/* Index to world: voxel (i, j, k)'s centre at origin + (ijk + 0.5) *
 * size, per axis; y up maps the stored index (i, k, -1 - j) to (x, z, -y)
 * of that centre. */
openvdb::math::Transform::Ptr index_to_world(const ng__vdbgrid_spec *spec)
{
    const double *v = spec->voxel_size, *o = spec->origin;
    openvdb::math::Transform::Ptr xf = openvdb::math::Transform::createLinearTransform(1.0);
    if (spec->y_up) {
        xf->preScale(openvdb::Vec3d(v[0], v[2], v[1]));
        xf->postTranslate(openvdb::Vec3d(o[0] + 0.5 * v[0], o[2] + 0.5 * v[2], -o[1] + 0.5 * v[1]));
    } else {
        xf->preScale(openvdb::Vec3d(v[0], v[1], v[2]));
        xf->postTranslate(openvdb::Vec3d(o[0] + 0.5 * v[0], o[1] + 0.5 * v[1], o[2] + 0.5 * v[2]));
    }
    return xf;
}

/* The metadata that OpenVDB stores as strings, as text. */
void each_string(const openvdb::MetaMap &m, const std::string &prefix,
                 void (*each)(void *, const char *, const char *), void *user)
{
    for (auto it = m.beginMeta(); it != m.endMeta(); ++it) {
        if (!it->second) continue;
        std::string key = prefix + it->first;
        each(user, key.c_str(), it->second->str().c_str());
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
        made->y_up = spec->y_up != 0;
        if (spec->channels == 1) {
            openvdb::FloatGrid::Ptr fg = openvdb::FloatGrid::create(0.0f);
            fg->setGridClass(openvdb::GRID_FOG_VOLUME);
            made->facc.reset(new openvdb::FloatGrid::Accessor(fg->getAccessor()));
            made->grid = fg;
        } else if (spec->channels == 3) {
            openvdb::Vec3SGrid::Ptr vg = openvdb::Vec3SGrid::create(openvdb::Vec3s(0.0f, 0.0f, 0.0f));
            /* a velocity (vel): no fog or level set, and it turns with the
             * transform's rotation and scale, not its translation */
            vg->setGridClass(openvdb::GRID_UNKNOWN);
            vg->setVectorType(openvdb::VEC_CONTRAVARIANT_RELATIVE);
            made->vacc.reset(new openvdb::Vec3SGrid::Accessor(vg->getAccessor()));
            made->grid = vg;
        } else {
            std::snprintf(msg, msglen, "a grid of 1 or 3 channels, not %d", spec->channels);
            return nullptr;
        }
        made->grid->setTransform(index_to_world(spec));
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
            add_block(*g->facc, *g, 1, x0, y0, z0, width, nrows, nslices, data);
        else
            add_block(*g->vacc, *g, 3, x0, y0, z0, width, nrows, nslices, data);
        return 0;
    } catch (...) {
        say_caught(msg, msglen);
        return -1;
    }
}

extern "C" int ng__vdbgrid_write(ng__vdbgrid *const *grids, int n, FILE *fp, const char *creator,
                                 const char *const *meta, int *errnum, char *msg, size_t msglen)
{
    FileBuf buf(fp);
    *errnum = 0;
    try {
        std::ostream os(&buf);
        openvdb::MetaMap file;
        openvdb::GridCPtrVec list;
        file.insertMeta("creator", openvdb::StringMetadata(creator));
        for (int k = 0; meta && meta[k] && meta[k + 1]; k += 2)
            file.insertMeta(meta[k], openvdb::StringMetadata(meta[k + 1]));
        for (int i = 0; i < n; i++) {
            openvdb::GridBase &g = *grids[i]->grid;
            g.setCreator(creator);
            for (int k = 0; meta && meta[k] && meta[k + 1]; k += 2)
                g.insertMeta(meta[k], openvdb::StringMetadata(meta[k + 1]));
            list.push_back(grids[i]->grid);
        }
        Writer().to(os, list, file);
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

extern "C" int ng__vdb_read_meta(const char *path, void (*each)(void *, const char *, const char *), void *user,
                                 char *msg, size_t msglen)
{
    try {
        openvdb::initialize();
        openvdb::io::File file(path);
        file.open(/* delayLoad */ false);
        openvdb::MetaMap::Ptr meta = file.getMetadata();
        if (meta) each_string(*meta, "", each, user);
        openvdb::GridPtrVecPtr grids = file.readAllGridMetadata();
        for (const openvdb::GridBase::Ptr &g : *grids) {
            const std::string prefix = g->getName() + ": ";
            each(user, (prefix + "value_type").c_str(), g->valueType().c_str());
            each_string(*g, prefix, each, user);
        }
        file.close();
        return 0;
    } catch (...) {
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
