-- warp_chain.lua — chained domain warps: a fractal warp folds the base
-- shape, a curl (divergence-free) warp swirls it without bunching, and a
-- fine independent warp roughens the edges. Marble and flowing-rock bands.
--   noisegraph render graphs/warp_chain.lua -o warp.png --size 1024
local strength = ng.param("strength", 1, {min = 0, max = 4, doc = "scales every warp amount"})
local seed = ng.param("seed", 11, {integer = true})

local shape = ng.fbm{source = ng.simplex{element_size = 220, seed = seed}, octaves = 4, roughness = 0.55}

-- 1. folds on folds: each octave samples the field where the last one moved to
local fold = ng.warp{source = shape, by = ng.perlin{element_size = 400, seed = seed + 10, output = "vector"},
                     amount = 90 * strength, octaves = 3, roughness = 0.5, mode = "progressive"}

-- 2. swirl: the curl of a potential moves points along its contour lines
local swirl = ng.warp{source = fold, by = ng.curl{ng.simplex{element_size = 260, seed = seed + 20}},
                      amount = 2500 * strength}

-- 3. fine detail on the edges, strongest where the shape is bright
local mask = swirl:fit(-0.5, 0.5, 0.2, 1, true)
local rough = ng.warp{source = swirl, by = ng.simplex{element_size = 60, seed = seed + 30, output = "vector"},
                      amount = mask * 14 * strength, octaves = 2, mode = "independent"}

return rough:fit(-0.6, 0.6, 0, 1, true)
