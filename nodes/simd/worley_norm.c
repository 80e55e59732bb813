/*
 * worley_norm.c — the Worley normalisers (cell_kernels.h): the distance,
 * or F2-F1, that maps to 1, per feature, metric, dims and jitter. Plain C
 * compiled once; every path's Worley kernel calls it once per call.
 *
 * The provable maxima (e.g. F1 up to sqrt(d) euclidean at jitter 1, where
 * the 2^d cells around a lattice point put their features in their far
 * corners) are far above what occurs, so N is the 1 - 1e-5 quantile of the
 * raw value over 2^24 uniformly random points and seeds (2^23 in 4D) at
 * jitter 0, 1/8, ..., 1, interpolated linearly in jitter in between, so N
 * is continuous in jitter. Clamp rate measured with 2^20 samples at every
 * jitter step of 1/16: at most 2.6e-5 at the table's points and 2.0e-5
 * between them; 1 is always reached.
 */
#include "cell_parts.h"

static const float worley_norm[3][3][4][9] = {
    /* [feature][metric][dims - 1][jitter * 8], rows 1D to 4D */
    {/* F1 */
     {/* euclidean */
      {0.5f, 0.55766f, 0.61741f, 0.67684f, 0.73715f, 0.79809f, 0.85913f, 0.91892f, 0.98075f},
      {0.70559f, 0.73872f, 0.78429f, 0.83614f, 0.89074f, 0.94767f, 1.0067f, 1.0624f, 1.1097f},
      {0.85439f, 0.85694f, 0.87834f, 0.90797f, 0.94711f, 0.98891f, 1.035f, 1.081f, 1.1203f},
      {0.96802f, 0.95754f, 0.95832f, 0.96656f, 0.98981f, 1.0189f, 1.0551f, 1.089f, 1.1139f},
     },
     {/* manhattan */
      {0.49999f, 0.55753f, 0.6172f, 0.67703f, 0.73753f, 0.79876f, 0.85862f, 0.91886f, 0.9803f},
      {0.99775f, 1.0407f, 1.103f, 1.1731f, 1.2441f, 1.3229f, 1.3894f, 1.4496f, 1.5002f},
      {1.4806f, 1.4786f, 1.5008f, 1.5366f, 1.5715f, 1.6155f, 1.6406f, 1.672f, 1.698f},
      {1.9373f, 1.9036f, 1.8816f, 1.8636f, 1.8614f, 1.8512f, 1.8474f, 1.8597f, 1.8687f},
     },
     {/* chebyshev */
      {0.49999f, 0.55765f, 0.61726f, 0.67754f, 0.7373f, 0.7984f, 0.8589f, 0.91968f, 0.98084f},
      {0.5f, 0.55838f, 0.61762f, 0.67714f, 0.7364f, 0.79371f, 0.85025f, 0.90599f, 0.96042f},
      {0.5f, 0.55876f, 0.61833f, 0.67658f, 0.73305f, 0.78428f, 0.83043f, 0.87042f, 0.90621f},
      {0.5f, 0.55868f, 0.61784f, 0.67462f, 0.72761f, 0.7709f, 0.79707f, 0.81777f, 0.83571f},
     },
    },
    {/* F2 */
     {/* euclidean */
      {0.99999f, 1.0577f, 1.117f, 1.1779f, 1.2376f, 1.2981f, 1.3589f, 1.4201f, 1.4801f},
      {0.99845f, 1.0295f, 1.0734f, 1.1251f, 1.1729f, 1.2181f, 1.2669f, 1.3108f, 1.3526f},
      {0.98888f, 1.0019f, 1.0311f, 1.0713f, 1.1095f, 1.1455f, 1.1766f, 1.2022f, 1.2332f},
      {0.97699f, 0.98066f, 1.0037f, 1.0394f, 1.0752f, 1.1081f, 1.1312f, 1.159f, 1.1797f},
     },
     {/* manhattan */
      {0.99999f, 1.0576f, 1.1176f, 1.1778f, 1.2375f, 1.2973f, 1.3592f, 1.4206f, 1.4806f},
      {1.0f, 1.1022f, 1.2081f, 1.3064f, 1.4048f, 1.493f, 1.5755f, 1.6457f, 1.7134f},
      {1.4865f, 1.5127f, 1.564f, 1.6237f, 1.6841f, 1.7338f, 1.7748f, 1.8012f, 1.8374f},
      {1.9472f, 1.9329f, 1.9324f, 1.9318f, 1.9501f, 1.953f, 1.9544f, 1.9603f, 1.9773f},
     },
     {/* chebyshev */
      {0.99999f, 1.0576f, 1.1172f, 1.1776f, 1.2374f, 1.2981f, 1.358f, 1.4199f, 1.4808f},
      {0.9984f, 1.0152f, 1.0436f, 1.0781f, 1.11f, 1.1444f, 1.1832f, 1.2168f, 1.2581f},
      {0.98944f, 0.98012f, 0.97969f, 0.98276f, 0.98857f, 0.99641f, 1.0072f, 1.0173f, 1.0308f},
      {0.9723f, 0.95697f, 0.93833f, 0.92637f, 0.91444f, 0.90463f, 0.90014f, 0.89061f, 0.89237f},
     },
    },
    {/* F2-F1 */
     {/* euclidean */
      {0.99998f, 1.0495f, 1.103f, 1.1578f, 1.2116f, 1.2674f, 1.3249f, 1.3824f, 1.4381f},
      {0.99665f, 1.0029f, 1.0251f, 1.0562f, 1.0883f, 1.112f, 1.1408f, 1.1687f, 1.1927f},
      {0.97459f, 0.95694f, 0.956f, 0.96913f, 0.98129f, 0.99358f, 1.0025f, 1.0119f, 1.0166f},
      {0.93515f, 0.90918f, 0.89472f, 0.89388f, 0.90614f, 0.90711f, 0.90602f, 0.90447f, 0.91613f},
     },
     {/* manhattan */
      {0.99998f, 1.0495f, 1.1033f, 1.1576f, 1.214f, 1.2679f, 1.3239f, 1.3811f, 1.4389f},
      {0.99678f, 1.0438f, 1.1139f, 1.1875f, 1.2685f, 1.3364f, 1.4033f, 1.4596f, 1.504f},
      {0.97757f, 1.0264f, 1.1088f, 1.202f, 1.3022f, 1.3729f, 1.4282f, 1.4725f, 1.4877f},
      {0.9426f, 1.0036f, 1.0973f, 1.2082f, 1.3208f, 1.4109f, 1.4517f, 1.4826f, 1.5034f},
     },
     {/* chebyshev */
      {0.99999f, 1.0494f, 1.1023f, 1.1586f, 1.2123f, 1.2667f, 1.3257f, 1.3815f, 1.4387f},
      {0.9968f, 0.99096f, 0.99998f, 1.0118f, 1.0262f, 1.0464f, 1.0633f, 1.0846f, 1.1066f},
      {0.97889f, 0.94489f, 0.91859f, 0.89928f, 0.88412f, 0.87071f, 0.85915f, 0.84674f, 0.84409f},
      {0.9446f, 0.90488f, 0.86087f, 0.82547f, 0.78958f, 0.75478f, 0.72491f, 0.69998f, 0.68168f},
     },
    },
};


float ng_worley_normaliser(int feature, int metric, int dims, float jitter)
{
    const float *tab;
    float x;
    int k;
    if (feature < NG_WORLEY_F1 || feature > NG_WORLEY_F2_F1 || metric < NG_METRIC_EUCLIDEAN ||
        metric > NG_METRIC_CHEBYSHEV || dims < 1 || dims > 4)
        return 0.0f;
    tab = worley_norm[feature][metric][dims - 1];
    x = clamp_jitter(jitter) * 8.0f;
    k = x < 7.0f ? (int)x : 7;
    return tab[k] + (x - (float)k) * (tab[k + 1] - tab[k]);
}
