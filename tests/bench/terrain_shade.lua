-- Bench row: the hillshade of terrain_height.lua alone (ng.light of the
-- height, the default method: the grid in 2D). Against terrain2: what
-- shading the terrain costs. terrain_light.lua multiplies the height by it.
local base = ng.perlin{element_size = 256, seed = 7}
local flow = ng.simplex{element_size = 384, seed = 8, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = 60}
local height = ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}:fit(-0.45, 0.45, 0, 1, true)
return ng.light{height, height = 100, light = {-1, -1, 1.2}}
