/*
 * ngmath.c — the transcendental functions of the bit path, our own, so that
 * a render has the same bits on every CPU and architecture.
 *
 * Why: glibc 2.36 chooses at run time between builds of its double sin,
 * cos, tan, atan, atan2, exp, log, log2, pow and tanh: x86-64 CPUs with
 * FMA and AVX2 get variants compiled with fused multiply-adds, which round
 * differently. Measured on this machine: with GLIBC_TUNABLES=
 * glibc.cpu.hwcaps=-AVX2,-FMA (a CPU without FMA), 200,000 random inputs
 * each, glibc's results differed in 1 (log) to 161 (sincos) places, and
 * in 15 of the 23 cases of tests/test_ngmath.c (test_same_bits_without_fma,
 * which checks ours do not); aarch64's glibc and other libms (macOS,
 * musl) are other builds again, and glibc's float sinf, cosf, expf, logf
 * and powf carry no promise of the same bits either.
 *
 * How: argument reductions that are exact (Cody-Waite with pi/2 in three
 * parts; for |x| >= 2^19 the bits of 2/pi multiplied as integers) and
 * fixed polynomials (Taylor series, truncated where the next term is below
 * 2^-57 of the result), the leading terms in double-double arithmetic
 * (Dekker's exact products by Veltkamp splitting, Knuth's exact sums).
 * Only IEEE add, subtract, multiply and divide are used, in a fixed order;
 * every unit is compiled with -ffp-contract=off (no FMA), so the bits are
 * the same on every CPU, path and compiler that keeps IEEE semantics.
 *
 * Accuracy (tests/test_ngmath.c, against a long double reference over
 * 2^18 inputs of each function's domain): the double functions are within
 * 0.57 ulp and give glibc's result but for 0.1 to 0.5% of inputs (1 ulp
 * apart; tanh: glibc's errs by 2 ulp); the float ones, evaluated in plain
 * double, are correctly rounded (glibc's sinf and cosf are not, by 0.56
 * ulp).
 */
#include "ngmath.h"

#include <stdint.h>
#include <string.h>

/* ---- double-double arithmetic ------------------------------------------- */

typedef struct dd {
    double h, l; /* value h + l, |l| <= ulp(h) / 2 */
} dd;

static inline dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

/* |a| >= |b| (or a == 0) */
static inline dd fast_two_sum(double a, double b)
{
    double s = a + b;
    return (dd){s, b - (s - a)};
}

/* Veltkamp's split: a = hi + lo, each of 26 bits or fewer (|a| < 2^995) */
static inline void split(double a, double *hi, double *lo)
{
    double t = 134217729.0 * a; /* 2^27 + 1 */
    *hi = t - (t - a);
    *lo = a - *hi;
}

/* Dekker's exact product a * b = h + l */
static inline dd two_prod(double a, double b)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    return (dd){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

static inline dd dd_add(dd a, dd b)
{
    dd s = two_sum(a.h, b.h), t = two_sum(a.l, b.l);
    s = fast_two_sum(s.h, s.l + t.h);
    return fast_two_sum(s.h, s.l + t.l);
}

static inline dd dd_neg(dd a)
{
    return (dd){-a.h, -a.l};
}

static inline dd dd_mul(dd a, dd b)
{
    dd p = two_prod(a.h, b.h);
    return fast_two_sum(p.h, p.l + (a.h * b.l + a.l * b.h));
}

static inline dd dd_mul_d(dd a, double b)
{
    dd p = two_prod(a.h, b);
    return fast_two_sum(p.h, p.l + a.l * b);
}

static dd dd_div(dd a, dd b)
{
    double q1 = a.h / b.h, q2, q3;
    dd r = dd_add(a, dd_neg(dd_mul_d(b, q1)));
    q2 = r.h / b.h;
    r = dd_add(r, dd_neg(dd_mul_d(b, q2)));
    q3 = r.h / b.h;
    r = fast_two_sum(q1, q2);
    return dd_add(r, (dd){q3, 0.0});
}

/* ---- constants (python3's decimal module, 500 digits: pi by Machin's
 * formula, ln 2 = 2 atanh(1/3); each the nearest double of the rest) ------ */

static const dd PI = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};
static const dd PIO2 = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
static const dd PIO4 = {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55};
static const dd LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
static const dd INVLN2 = {0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56};
static const double TWOOPI = 0x1.45f306dc9c883p-1;
/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + O(2^-122): the first two of 33 bits,
 * so n * PIO2_k is exact for n < 2^20 */
static const double PIO2_1 = 0x1.921fb544p+0, PIO2_2 = 0x1.0b4611a6p-34, PIO2_3 = 0x1.3198a2e037073p-69;
/* ln 2 = LN2_1 + LN2_2 + O(2^-86): LN2_1 of 32 bits, k * LN2_1 exact for |k| < 2^21 */
static const double LN2_1 = 0x1.62e42feep-1, LN2_2 = 0x1.a39ef35793c76p-33;
/* the first 1536 bits of 2/pi, 32 a word */
static const uint32_t TWOOPI_BITS[48] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
    0xa9e39161, 0x5ee61b08, 0x6599855f, 0x14a06840, 0x8dffd880, 0x4d732731, 0x06061556, 0xca73a8c9,
};

/* 1/6 and 1/3 to 2^-106 */
static const dd SIXTH = {0x1.5555555555555p-3, 0x1.5555555555555p-57};
static const dd THIRD = {0x1.5555555555555p-2, 0x1.5555555555555p-56};

static inline uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x rounded to the nearest integer (ties to even), |x| < 2^51 */
static inline double round_int(double x)
{
    const double shift = 0x1.8p52;
    return (x + shift) - shift;
}

/* x * 2^k, one rounding (k in [-1100, 1100]); a subnormal result is the
 * second rounding of a double-double's value (within 1 ulp, not 1/2) */
static double scale2(double x, int k)
{
    if (k > 1023) x *= 0x1p1023, k -= 1023;
    if (k < -1022) x *= 0x1p-1022, k += 1022;
    if (k < -1022) x *= 0x1p-1022, k += 1022;
    return x * double_of((uint64_t)(k + 1023) << 52);
}

/* ---- sin, cos, tan -------------------------------------------------------- */

/* b_k .. b_{k+63}, b_k the bit of 2/pi at 2^-k (0 for k < 1) */
static uint64_t twoopi_bits(int k)
{
    unsigned i, s;
    uint64_t hi;
    if (k < 1) return k <= -63 ? 0 : twoopi_bits(1) >> (1 - k);
    i = (unsigned)(k - 1) >> 5, s = (unsigned)(k - 1) & 31;
    hi = (uint64_t)TWOOPI_BITS[i] << 32 | TWOOPI_BITS[i + 1];
    return s ? hi << s | TWOOPI_BITS[i + 2] >> (32 - s) : hi;
}

/* Payne and Hanek's reduction, |x| >= 2^19 finite: x = m 2^e with m an
 * integer of 53 bits; the bits of 2/pi above 2^(1-e) give multiples of 4
 * quadrants, the next 192 times m give x * 2/pi mod 4 to 2^-190. */
static int rem_pio2_large(double x, dd *r)
{
    const uint64_t u = bits_of(x);
    const int e = (int)((u >> 52) & 0x7ff) - 1075;
    const uint64_t m = (u & ((1ULL << 52) - 1)) | 1ULL << 52;
    const uint64_t w0 = twoopi_bits(e - 1), w1 = twoopi_bits(e + 63), w2 = twoopi_bits(e + 127);
    unsigned __int128 p2 = (unsigned __int128)m * w2, p1 = (unsigned __int128)m * w1 + (uint64_t)(p2 >> 64);
    uint64_t c0 = m * w0 + (uint64_t)(p1 >> 64), c1 = (uint64_t)p1, c2 = (uint64_t)p2;
    int n = (int)(c0 >> 62);
    /* the fraction's 128 bits, as a signed fraction in [-1/2, 1/2) */
    int64_t top = (int64_t)(c0 << 2 | c1 >> 62);
    uint64_t low = c1 << 2 | c2 >> 62;
    dd f;
    n = (n + (top < 0)) & 3;
    f = two_sum((double)(top >> 32) * 0x1p32, (double)(uint32_t)top);
    f = dd_add(f, (dd){(double)low * 0x1p-64, 0.0});
    f.h *= 0x1p-64, f.l *= 0x1p-64;
    *r = dd_mul(f, PIO2);
    if (x < 0) *r = dd_neg(*r), n = -n & 3;
    return n;
}

/* x = n pi/2 + r, |r| <= pi/4 (a hair more at a rounding edge); n mod 4 */
static int rem_pio2(double x, dd *r)
{
    double a = x < 0 ? -x : x, n, w;
    if (a <= PIO4.h) {
        *r = (dd){x, 0.0};
        return 0;
    }
    if (!(a < 0x1p19)) return rem_pio2_large(x, r);
    n = round_int(x * TWOOPI);
    w = x - n * PIO2_1; /* exact: n PIO2_1 is, and within a factor 2 of x */
    *r = two_sum(w, -(n * PIO2_2));
    *r = fast_two_sum(r->h, r->l - n * PIO2_3);
    return (int)((int64_t)n & 3);
}

/* sin(r), |r| <= pi/4 + ε: r - r^3/6 in double-double, then Taylor to r^17 */
static dd sin_kernel_dd(dd r)
{
    const double x = r.h, z = x * x;
    dd c3 = dd_mul(dd_mul_d(two_prod(x, x), x), SIXTH), s;
    double tail = z * z * x * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800 + z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0)))))));
    s = two_sum(x, -c3.h);
    return fast_two_sum(s.h, s.l + (-c3.l + tail + r.l * (1.0 - 0.5 * z)));
}

/* cos(r), |r| <= pi/4 + ε: 1 - r^2/2 + r^4/24 in double-double, then Taylor to r^16 */
static dd cos_kernel_dd(dd r)
{
    const double x = r.h;
    const dd z = two_prod(x, x);
    const double w = z.h, tail = w * w * w * ((-1.0 / 720 + w * (1.0 / 40320 + w * (-1.0 / 3628800 + w * (1.0 / 479001600.0 + w * (-1.0 / 87178291200.0 + w * (1.0 / 20922789888000.0)))))));
    dd s = two_sum(1.0, -0.5 * z.h), c4 = dd_mul_d(dd_mul(z, z), 1.0 / 24); /* fl(1/24): 2^-58 of the result */
    s = dd_add(s, c4);
    return fast_two_sum(s.h, s.l + (-0.5 * z.l + tail - x * r.l));
}

static double sin_kernel(dd r)
{
    return sin_kernel_dd(r).h;
}

static double cos_kernel(dd r)
{
    return cos_kernel_dd(r).h;
}

double ng_sin(double x)
{
    dd r;
    int n;
    if ((bits_of(x) & 0x7fffffffffffffffULL) < 0x3e40000000000000ULL) return x; /* |x| < 2^-27: sin x = x */
    if (x - x != 0) return x - x;                                                /* inf, NaN */
    n = rem_pio2(x, &r);
    switch (n) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
    }
}

double ng_cos(double x)
{
    dd r;
    int n;
    if ((bits_of(x) & 0x7fffffffffffffffULL) < 0x3e40000000000000ULL) return 1.0;
    if (x - x != 0) return x - x;
    n = rem_pio2(x, &r);
    switch (n) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
    }
}

void ng_sincos(double x, double *s, double *c)
{
    dd r;
    double sk, ck;
    int n;
    if ((bits_of(x) & 0x7fffffffffffffffULL) < 0x3e40000000000000ULL) {
        *s = x, *c = 1.0;
        return;
    }
    if (x - x != 0) {
        *s = *c = x - x;
        return;
    }
    n = rem_pio2(x, &r);
    sk = sin_kernel(r), ck = cos_kernel(r);
    switch (n) {
    case 0: *s = sk, *c = ck; break;
    case 1: *s = ck, *c = -sk; break;
    case 2: *s = -sk, *c = -ck; break;
    default: *s = -ck, *c = sk; break;
    }
}

double ng_tan(double x)
{
    dd r, s, c;
    int n;
    if ((bits_of(x) & 0x7fffffffffffffffULL) < 0x3e40000000000000ULL) return x; /* tan x = x + x^3/3 */
    if (x - x != 0) return x - x;
    n = rem_pio2(x, &r);
    s = sin_kernel_dd(r), c = cos_kernel_dd(r);
    return n & 1 ? -dd_div(c, s).h : dd_div(s, c).h;
}

/* ---- atan, atan2 ---------------------------------------------------------- */

/* atan(u), |u| <= tan(pi/8) + ε: u - u^3/3 in double-double, then Taylor
 * to u^45 (its next term is 2^-61 of u); u.l's share by the derivative */
static dd atan_kernel(dd u)
{
    static const double c[21] = {1.0 / 5,  -1.0 / 7,  1.0 / 9,  -1.0 / 11, 1.0 / 13, -1.0 / 15, 1.0 / 17,
                                 -1.0 / 19, 1.0 / 21, -1.0 / 23, 1.0 / 25, -1.0 / 27, 1.0 / 29, -1.0 / 31,
                                 1.0 / 33, -1.0 / 35, 1.0 / 37, -1.0 / 39, 1.0 / 41, -1.0 / 43, 1.0 / 45};
    const double x = u.h, z = x * x;
    double p = c[20], tail;
    dd c3 = dd_mul(dd_mul_d(two_prod(x, x), x), THIRD), s;
    int i;
    for (i = 19; i >= 0; i--) p = c[i] + z * p;
    tail = z * z * x * p;
    s = two_sum(x, -c3.h);
    return fast_two_sum(s.h, s.l + (-c3.l + tail + u.l / (1.0 + z)));
}

/* atan(q), q >= 0 finite (q.h < 2^995): reduced by atan q = pi/4 +
 * atan((q - 1) / (q + 1)) or pi/2 - atan(1 / q) */
static dd atan_pos(dd q)
{
    const double tan_pi8 = 0x1.a827999fcef32p-2, tan_3pi8 = 0x1.3504f333f9de6p+1;
    if (q.h <= tan_pi8) return atan_kernel(q);
    if (q.h <= tan_3pi8) {
        dd u = dd_div(dd_add(q, (dd){-1.0, 0.0}), dd_add(q, (dd){1.0, 0.0}));
        return dd_add(PIO4, atan_kernel(u));
    }
    return dd_add(PIO2, atan_kernel(dd_neg(dd_div((dd){1.0, 0.0}, q))));
}

double ng_atan(double x)
{
    double a = x < 0 ? -x : x, r;
    if (x != x) return x + x;
    if (a < 0x1p-27) return x;          /* atan x = x - x^3/3 */
    if (a > 0x1p60) r = PIO2.h;         /* pi/2 - 1/a rounds to pi/2 */
    else r = atan_pos((dd){a, 0.0}).h;
    return x < 0 ? -r : r;
}

/* atan(|y| / |x|) for finite non-zero x, y */
static dd atan_ratio(double ay, double ax)
{
    /* the same ratio with both near 1: the exact products stay in range */
    int ey = (int)(bits_of(ay) >> 52) - 1023, ex = (int)(bits_of(ax) >> 52) - 1023;
    if (ey - ex > 60) return fast_two_sum(PIO2.h, PIO2.l - ax / ay);
    if (ex - ey > 60) return (dd){ay / ax, 0.0};
    ay = scale2(ay, -ex), ax = scale2(ax, -ex);
    return atan_pos(dd_div((dd){ay, 0.0}, (dd){ax, 0.0}));
}

double ng_atan2(double y, double x)
{
    double ay = y < 0 ? -y : y, ax = x < 0 ? -x : x, r;
    const int xneg = (bits_of(x) >> 63) != 0;
    if (x != x || y != y) return x + y;
    if (ay == 0) r = xneg ? PI.h : 0.0;                           /* atan2(±0, x) */
    else if (ax == 0) r = PIO2.h;                                 /* atan2(y, ±0) */
    else if (ax - ax != 0) r = ay - ay != 0 ? (xneg ? 3 * PIO4.h : PIO4.h) : (xneg ? PI.h : 0.0);
    else if (ay - ay != 0) r = PIO2.h;                            /* atan2(±inf, x) */
    else {
        dd a = atan_ratio(ay, ax);
        r = xneg ? dd_add(PI, dd_neg(a)).h : a.h;
    }
    return (bits_of(y) >> 63) ? -r : r;
}

/* ---- exp, log, pow, tanh -------------------------------------------------- */

/* e^(a.h + a.l), |a.h| <= 709.79: a = k ln 2 + r, |r| <= ln2/2; e^r =
 * 1 + r + r^2/2 in double-double, then Taylor to r^14 (its next term is
 * 2^-63); the result as double-double, before the scaling by 2^k
 * (returned in *k) */
static dd exp_dd(dd a, int *k)
{
    const double kd = round_int(a.h * INVLN2.h);
    const double w = a.h - kd * LN2_1; /* exact, as in rem_pio2 */
    dd r = two_sum(w, -(kd * LN2_2)), z, s;
    double x, tail;
    r = fast_two_sum(r.h, r.l + a.l);
    x = r.h;
    z = two_prod(x, x);
    tail = x * z.h * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120 + x * (1.0 / 720 + x * (1.0 / 5040 + x * (1.0 / 40320 + x * (1.0 / 362880 + x * (1.0 / 3628800 + x * (1.0 / 39916800 + x * (1.0 / 479001600.0 + x * (1.0 / 6227020800.0 + x * (1.0 / 87178291200.0))))))))))));
    s = two_sum(1.0, x);
    s = dd_add(s, (dd){0.5 * z.h, 0.5 * z.l});
    *k = (int)kd;
    return fast_two_sum(s.h, s.l + (r.l + x * r.l + tail));
}

/* e^a with the out-of-range ends: overflow to inf, underflow to 0 */
static double exp_of(dd a)
{
    int k;
    dd e;
    if (a.h > 709.8) return 0x1p1023 * 2.0;
    if (a.h < -745.2) return 0x1p-1022 * 0x1p-60;
    e = exp_dd(a, &k);
    return scale2(e.h, k);
}

double ng_exp(double x)
{
    if (x != x) return x + x;
    return exp_of((dd){x, 0.0});
}

/* log x, x > 0 finite, to about 2^-100: x = 2^e m, m in [sqrt(1/2),
 * sqrt(2)), f = m - 1, s = f / (2 + f): log m = 2 atanh s =
 * f - f^2/2 + s (f^2/2 + R), R = 2 s^2/3 + 2 s^4/5 + ... (to s^28, whose
 * next term is 2^-77 of the result) */
static dd log_dd(double x)
{
    static const dd two_thirds = {0x1.5555555555555p-1, 0x1.5555555555555p-55};
    uint64_t u = bits_of(x);
    int e;
    double f, zz, tail;
    dd s, z, hfsq, R;
    if (u < 0x0010000000000000ULL) u = bits_of(x * 0x1p54), e = -54; /* subnormal */
    else e = 0;
    e += (int)(u >> 52) - 1023;
    u &= (1ULL << 52) - 1;
    if (u > 0x6a09e667f3bcdULL) u |= 0x3fe0000000000000ULL, e++; /* m > sqrt 2: m / 2 */
    else u |= 0x3ff0000000000000ULL;
    f = double_of(u) - 1.0; /* exact (Sterbenz) */
    s = dd_div((dd){f, 0.0}, two_sum(2.0, f));
    z = dd_mul(s, s);
    zz = z.h;
    tail = zz * zz * (2.0 / 5 + zz * (2.0 / 7 + zz * (2.0 / 9 + zz * (2.0 / 11 + zz * (2.0 / 13 + zz * (2.0 / 15 + zz * (2.0 / 17 + zz * (2.0 / 19 + zz * (2.0 / 21 + zz * (2.0 / 23 + zz * (2.0 / 25 + zz * (2.0 / 27 + zz * (2.0 / 29)))))))))))));
    R = dd_add(dd_mul(z, two_thirds), (dd){tail, 0.0});
    hfsq = two_prod(f, f);
    hfsq.h *= 0.5, hfsq.l *= 0.5;
    return dd_add(dd_add(dd_mul_d(LN2, (double)e), dd_add((dd){f, 0.0}, dd_neg(hfsq))),
                  dd_mul(s, dd_add(hfsq, R)));
}

/* log of the special values: 0 -> -inf, < 0 -> NaN, inf and NaN as they are;
 * returns 0 and sets *r for them */
static int log_special(double x, double *r)
{
    if (x == 0) return *r = -0x1p1023 * 2.0, 1;
    if (x < 0) return *r = (x - x) / 0.0, 1; /* NaN */
    if (x != x || x - x != 0) return *r = x + x, 1;
    return 0;
}

double ng_log(double x)
{
    double r;
    if (log_special(x, &r)) return r;
    return log_dd(x).h;
}

double ng_log2(double x)
{
    double r;
    if (log_special(x, &r)) return r;
    return dd_mul(log_dd(x), INVLN2).h;
}

/* y is an integer: 1 odd, 2 even, 0 not (every double from 2^53 is even) */
static int int_kind(double y)
{
    const double a = y < 0 ? -y : y;
    int64_t i;
    if (a - a != 0) return 0;
    if (a >= 0x1p53) return 2;
    i = (int64_t)a;
    return (double)i != a ? 0 : (i & 1) ? 1 : 2;
}

/* C99 F.9.4.4's special cases of pow; 1 with *r set, else 0 */
static int pow_special(double x, double y, double *r)
{
    const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (y == 0 || x == 1) return *r = 1.0, 1;
    if (x != x || y != y) return *r = x + y, 1;
    if (ay - ay != 0) { /* y = ±inf */
        if (ax == 1) *r = 1.0;
        else *r = (ax < 1) == (y < 0) ? y * y : 0.0;
        return 1;
    }
    if (x == 0 || ax - ax != 0) { /* ±0, ±inf */
        const int odd = int_kind(y) == 1, neg = (bits_of(x) >> 63) != 0;
        double m = (x == 0) == (y < 0) ? 0x1p1023 * 2.0 : 0.0; /* inf or 0 */
        *r = odd && neg ? -m : m;
        return 1;
    }
    if (x < 0 && !int_kind(y)) return *r = (x - x) / 0.0, 1;
    return 0;
}

double ng_pow(double x, double y)
{
    double r;
    dd l;
    if (pow_special(x, y, &r)) return r;
    l = log_dd(x < 0 ? -x : x);
    /* |y log x| beyond 2^11: over- or underflow, whatever its bits (and
     * |y| < 2^64 below, as |log x| >= 2^-54 but for x = -1) */
    if (l.h == 0) r = 1.0; /* (-1)^y, y an integer */
    else if (!((l.h < 0 ? -l.h : l.h) * (y < 0 ? -y : y) < 0x1p11)) r = (l.h < 0) == (y < 0) ? 0x1p1023 * 2.0 : 0.0;
    else r = exp_of(dd_mul_d(l, y));
    return x < 0 && int_kind(y) == 1 ? -r : r;
}

double ng_tanh(double x)
{
    double a = x < 0 ? -x : x, r;
    if (x != x) return x + x;
    if (a < 0x1p-27) return x;
    if (a > 22) r = 1.0;
    else if (a < 0.0625) {
        /* Taylor to x^13: the next term is 2^-57 of x */
        const double z = a * a;
        dd c3 = dd_mul(dd_mul_d(two_prod(a, a), a), THIRD), s;
        double tail = z * z * a * (2.0 / 15 + z * (-17.0 / 315 + z * (62.0 / 2835 + z * (-1382.0 / 155925 + z * (21844.0 / 6081075)))));
        s = two_sum(a, -c3.h);
        r = s.h + (s.l + (-c3.l + tail));
    } else {
        /* (e^2a - 1) / (e^2a + 1), e^2a - 1 exact in double-double */
        int k;
        dd e = exp_dd((dd){2 * a, 0.0}, &k), m1;
        e.h = scale2(e.h, k), e.l = scale2(e.l, k);
        m1 = dd_add(e, (dd){-1.0, 0.0});
        r = dd_div(m1, dd_add(e, (dd){1.0, 0.0})).h;
    }
    return x < 0 ? -r : r;
}

/* ---- float: double arithmetic, rounded once -------------------------------
 * The float functions evaluate in plain double (no double-double): their
 * double result is within about 2^-50 of the true value, so the float is
 * the correctly rounded one but where the true value lies within 2^-26 of
 * a float ulp from a tie (measured: none in 2^18 inputs each). */

/* sin and cos of r, |r| <= pi/4 + ε, in double: Taylor to r^17 and r^16 */
static double sin_poly(double r)
{
    const double z = r * r;
    return r + r * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800 + z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0))))))));
}

static double cos_poly(double r)
{
    const double z = r * r;
    return 1.0 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 + z * (-1.0 / 3628800 + z * (1.0 / 479001600.0 + z * (-1.0 / 87178291200.0 + z * (1.0 / 20922789888000.0))))))));
}

/* a float's x = n pi/2 + r in double: the float has 24 bits, so for
 * |x| < 2^19 r = x - n PIO2_1 - n PIO2_2 - n PIO2_3 is good to 2^-70 */
static int rem_pio2f(float xf, double *r)
{
    const double x = xf, a = x < 0 ? -x : x;
    double n;
    dd big;
    int q;
    if (a <= PIO4.h) return *r = x, 0;
    if (!(a < 0x1p19)) {
        q = rem_pio2_large(x, &big);
        *r = big.h + big.l;
        return q;
    }
    n = round_int(x * TWOOPI);
    *r = ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3;
    return (int)((int64_t)n & 3);
}

/* sin (odd 0) or cos (odd 1) of a float */
static float sincosf_of(float x, int cosine)
{
    double r;
    int n;
    if (x - x != 0) return x - x;
    n = (rem_pio2f(x, &r) + cosine) & 3;
    switch (n) {
    case 0: return (float)sin_poly(r);
    case 1: return (float)cos_poly(r);
    case 2: return (float)-sin_poly(r);
    default: return (float)-cos_poly(r);
    }
}

float ng_sinf(float x)
{
    return sincosf_of(x, 0);
}

float ng_cosf(float x)
{
    return sincosf_of(x, 1);
}

/* e^x in double, |x| <= 709 (|x| < 2^11 for the float callers): Taylor to
 * r^13 of the reduced r, |r| <= ln2/2 */
static double exp_plain(double x)
{
    const double kd = round_int(x * INVLN2.h);
    const double r = (x - kd * LN2_1) - kd * LN2_2;
    const double p = r * (1.0 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 + r * (1.0 / 479001600.0 + r * (1.0 / 6227020800.0)))))))))))));
    return scale2(1.0 + p, (int)kd);
}

/* log x in double, x > 0 finite: as log_dd in plain double */
static double log_plain(double x)
{
    uint64_t u = bits_of(x);
    int e;
    double f, s, z, R, hfsq;
    if (u < 0x0010000000000000ULL) u = bits_of(x * 0x1p54), e = -54;
    else e = 0;
    e += (int)(u >> 52) - 1023;
    u &= (1ULL << 52) - 1;
    if (u > 0x6a09e667f3bcdULL) u |= 0x3fe0000000000000ULL, e++;
    else u |= 0x3ff0000000000000ULL;
    f = double_of(u) - 1.0;
    s = f / (2.0 + f);
    z = s * s;
    R = z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11 + z * (2.0 / 13 + z * (2.0 / 15 + z * (2.0 / 17 + z * (2.0 / 19)))))))));
    hfsq = 0.5 * f * f;
    return e * LN2_1 + (f - (hfsq - (s * (hfsq + R) + e * LN2_2)));
}

float ng_expf(float x)
{
    if (x != x) return x + x;
    if (x > 89.0f) return 0x1p127f * 2.0f;
    if (x < -104.0f) return 0.0f;
    return (float)exp_plain(x);
}

float ng_logf(float x)
{
    double r;
    if (log_special(x, &r)) return (float)r;
    return (float)log_plain(x);
}

float ng_powf(float x, float y)
{
    double r, l;
    if (pow_special(x, y, &r)) return (float)r;
    l = log_plain(x < 0 ? -(double)x : x) * y; /* |l| < 2^24 * 104 */
    if (l > 129.0) r = 0x1p1023 * 2.0;
    else if (l < -151.0) r = 0.0;
    else r = exp_plain(l);
    return x < 0 && int_kind(y) == 1 ? (float)-r : (float)r;
}
