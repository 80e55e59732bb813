-- Bench row: the height of graphs/terrain_colour.lua with its hillshade
-- (ng.light of the height, smax'd into the sea, as that graph lights it):
-- the height once, the shading from its analytic gradient. Against
-- terrain_height.lua: what the hillshade costs.
local base = ng.perlin{element_size = 256, seed = 7}
local flow = ng.simplex{element_size = 384, seed = 8, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = 60}
local height = ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}:fit(-0.45, 0.45, 0, 1, true)
local sun = ng.light{height:smax(0.3, 0.02), height = 100, light = {-1, -1, 1.2}}
return height * (sun * 0.7 + 0.3)
