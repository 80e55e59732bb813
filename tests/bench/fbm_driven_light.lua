-- Bench row: the default shading (ng.light) of fbm_driven_height.lua's
-- fractal. Against fbm_driven2: the shading's cost.
local rough = ng.perlin{element_size = 300, seed = 2}:fit(-1, 1, 0.35, 0.65)
local lac = ng.perlin{element_size = 400, seed = 3}:fit(-1, 1, 1.8, 2.2)
local size = ng.perlin{element_size = 500, seed = 4}:fit(-1, 1, 40, 60)
local h = ng.fbm{source = ng.perlin{element_size = size}, octaves = 6, roughness = rough, lacunarity = lac}
return ng.light{h, height = 50}
