-- clouds.lua — a 2D slice of a 3D cloud density: simplex cloud noise with
-- uphill distortion for billowy shapes, a little droop, Worley puffs, and a
-- soft threshold that leaves blue-sky gaps. Render:
--   noisegraph render graphs/clouds.lua -o clouds.png --size 1024 --z 40
local cover = ng.param("cover", 0.45, {min = 0, max = 1, doc = "how much of the sky is cloud"})
local seed = ng.param("seed", 9, {integer = true})

local density = ng.simplex_cloud{element_size = 260, element_scale = {1, 0.7, 1}, seed = seed, octaves = 7,
                                 roughness = 0.55, distortion = -0.3, droop = {0, 0.1, 0},
                                 worley = 0.3, worley_size = 0.3}
-- density in [-1, 1]: keep what rises above the cover threshold, softly
local lo = 0.55 - cover
return ng.smoothstep(density, lo - 0.5, lo + 0.45)
