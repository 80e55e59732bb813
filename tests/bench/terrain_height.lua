-- Bench row: the height of graphs/terrain_colour.lua alone (perlin warped
-- by a simplex vector field, 7 octaves of fBm, fit), 2D. Compare with
-- terrain_light.lua (the same height shaded by ng.light).
local base = ng.perlin{element_size = 256, seed = 7}
local flow = ng.simplex{element_size = 384, seed = 8, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = 60}
return ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}:fit(-0.45, 0.45, 0, 1, true)
