-- Bench row: the height of terrain_height.lua through ng.erosion_filter
-- (4 octaves of gullies, the default), 2D. Against terrain_height.lua: what
-- the erosion filter costs (issue 25's goal: at most 2x the terrain alone).
local base = ng.perlin{element_size = 256, seed = 7}
local flow = ng.simplex{element_size = 384, seed = 8, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = 60}
local height = ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}:fit(-0.45, 0.45, 0, 1, true)
return ng.erosion_filter{height, octaves = 4, scale = 48}
