-- Bench `turn`: 6 octaves of classic Perlin in a fractal of the given type,
-- with rotated octaves or not; bench.c renders rotate = true and false in
-- turns in the same run (the turn's own cost, with the same gradients).
-- antialias = false as in the rows: all six octaves are computed.
local kind = ng.param("type", "standard", {doc = "the fractal's type"})
local rotate = ng.param("rotate", true, {doc = "turn each octave after the first"})
return ng.fractal{source = ng.perlin{element_size = 50, gradients = "classic"}, type = kind, octaves = 6,
                  antialias = false, rotate = rotate}
