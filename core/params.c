/*
 * params.c — parameter kinds (the NG_PARAM_KINDS list in noisegraph.h):
 * their words, what their values must be, and how a value is written back
 * as a script would write it.
 */
#include "ng_internal.h"

#include <stdio.h>
#include <string.h>

typedef int (*printer)(const ng_param_desc *p, const ng_value *v, char *buf, size_t len);

static int format_number(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    (void)p;
    return snprintf(buf, len, "%g", v->v[0]);
}

static int format_bool(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    (void)p;
    return snprintf(buf, len, "%s", v->i ? "true" : "false");
}

static int format_choice(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    return snprintf(buf, len, "\"%s\"", p->choices[v->i]);
}

static int format_vec3(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    (void)p;
    return snprintf(buf, len, "{%g, %g, %g}", v->v[0], v->v[1], v->v[2]);
}

static const char *const range_modes[] = {[NG_RANGE_NATURAL] = "natural", [NG_RANGE_UNIT] = "unit",
                                           [NG_RANGE_SIGNED] = "signed"};

int ng_range_mode(const char *name)
{
    int m;
    for (m = 0; m < (int)(sizeof range_modes / sizeof range_modes[0]); m++)
        if (strcmp(name, range_modes[m]) == 0) return m;
    return -1;
}

const char *ng_range_mode_name(int mode)
{
    return mode >= 0 && mode < (int)(sizeof range_modes / sizeof range_modes[0]) ? range_modes[mode] : NULL;
}

static int format_range(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    (void)p;
    if (v->i == NG_RANGE_CUSTOM) return snprintf(buf, len, "{%g, %g}", v->v[0], v->v[1]);
    return snprintf(buf, len, "\"%s\"", ng_range_mode_name(v->i));
}

static int format_string(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    (void)p;
    return snprintf(buf, len, "\"%s\"", v->s ? v->s : "");
}

static int format_list(const ng_param_desc *p, const ng_value *v, char *buf, size_t len)
{
    int i, used = snprintf(buf, len, "{");
    (void)p;
    for (i = 0; i < v->count && used < (int)len - 24; i++)
        used += snprintf(buf + used, len - (size_t)used, "%s%g", i ? ", " : "", v->list[i]);
    return used + snprintf(buf + used, len - (size_t)used, "%s}", i < v->count ? ", ..." : "");
}

static const struct kind_row {
    const char *word, *must_be;
    printer format;
} kinds[NG_PARAM_KIND_COUNT] = {
#define NG_PARAM_KIND_ROW(id, word, must_be, printer) [NG_PARAM_##id] = {word, must_be, format_##printer},
    NG_PARAM_KINDS(NG_PARAM_KIND_ROW)
#undef NG_PARAM_KIND_ROW
};

static const struct kind_row *row(ng_param_kind kind)
{
    return (unsigned)kind < NG_PARAM_KIND_COUNT ? &kinds[kind] : NULL;
}

const char *ng_param_kind_word(ng_param_kind kind) { return row(kind) ? row(kind)->word : NULL; }
const char *ng_param_kind_must_be(ng_param_kind kind) { return row(kind) ? row(kind)->must_be : NULL; }

int ng_param_takes_node(const ng_node_type *t, int k)
{
    return k >= 0 && k < t->nparams && k < 64 && ((t->node_params >> k) & 1) &&
           (t->params[k].kind == NG_PARAM_NUMBER || t->params[k].kind == NG_PARAM_VEC3);
}

const char *ng_param_word(const ng_node_type *t, int k)
{
    if (ng_param_takes_node(t, k)) return t->params[k].kind == NG_PARAM_VEC3 ? "vector or node" : "number or node";
    return ng_param_kind_word(t->params[k].kind);
}

const char *ng_param_must_be(const ng_node_type *t, int k)
{
    if (ng_param_takes_node(t, k))
        return t->params[k].kind == NG_PARAM_VEC3 ? "a number, {x, y}, {x, y, z} or a node of 1 to 3 channels"
                                                  : "a number or a node";
    return ng_param_kind_must_be(t->params[k].kind);
}

void ng__param_default(const ng_param_desc *p, ng_value *v)
{
    memcpy(v->v, p->def, sizeof p->def);
    v->i = (int)p->def[0];
    if (p->kind == NG_PARAM_RANGE) {
        v->v[0] = p->def[1];
        v->v[1] = p->def[2];
    }
}

int ng_param_format(const ng_node *n, int k, char *buf, size_t len)
{
    const ng_param_desc *p = &n->type->params[k];
    const int src = ng_node_param_source(n, k);
    if (src >= 0) return snprintf(buf, len, "node #%d", src);
    return row(p->kind) ? row(p->kind)->format(p, &n->param[k], buf, len) : snprintf(buf, len, "?");
}

int ng_param_format_default(const ng_param_desc *p, char *buf, size_t len)
{
    ng_value v;
    memset(&v, 0, sizeof v);
    ng__param_default(p, &v);
    return row(p->kind) ? row(p->kind)->format(p, &v, buf, len) : snprintf(buf, len, "?");
}

int ng_param_is_default(const ng_node *n, int k)
{
    const ng_param_desc *p = &n->type->params[k];
    const ng_value *v = &n->param[k];
    if (ng_node_param_source(n, k) >= 0) return 0;
    switch (p->kind) {
    case NG_PARAM_NUMBER:
    case NG_PARAM_INT: return v->v[0] == p->def[0];
    case NG_PARAM_BOOL:
    case NG_PARAM_ENUM: return v->i == (int)p->def[0];
    case NG_PARAM_VEC3: return v->v[0] == p->def[0] && v->v[1] == p->def[1] && v->v[2] == p->def[2];
    case NG_PARAM_RANGE: return v->i == (int)p->def[0] && (v->i != NG_RANGE_CUSTOM);
    case NG_PARAM_STRING:
    case NG_PARAM_PATH: return !v->s || !*v->s;
    case NG_PARAM_LIST: return v->count == 0;
    }
    return 1;
}
