-- eroded_hills.lua — a range of hills with gullies carved down every slope
-- (ng.erosion_filter: no simulation, per point, so it tiles and stitches).
-- Preview: noisegraph preview graphs/eroded_hills.lua -o eroded.png --view terrain --size 768
-- Set erode=0 for the hills before erosion.
local scale    = ng.param("scale", 384, {min = 1, doc = "size of the largest landforms, pixels"})
local gullies  = ng.param("gullies", 72, {min = 1, doc = "spacing of the widest gullies, pixels"})
local strength = ng.param("erode", 1.3, {min = 0, max = 4, doc = "depth of the gullies (0: none)"})
local seed     = ng.param("seed", 7, {integer = true, doc = "pattern seed"})
local method   = ng.param("method", "auto", {doc = "the filter's slopes: auto (the grid of the pixels' heights in "
  .. "a 2D render) or analytic (the hills' graph's gradient: this picture's bits before the grid method)"})

local base = ng.perlin{element_size = scale, seed = seed}
local flow = ng.simplex{element_size = scale * 1.5, seed = seed + 1, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = scale / 6}
-- few octaves: the erosion filter adds the fine relief
local hills = ng.fbm{source = shaped, octaves = 3, lacunarity = 2.03, roughness = 0.45}:fit(-0.45, 0.45, 0, 1, true)

return ng.erosion_filter{hills, scale = gullies, strength = strength, octaves = 4, gain = 0.6,
                         ridge_rounding = 0, gully_rounding = 0.15, levels = {0.25, 0.9}, method = method}
