-- Bench row: a fractal whose roughness, lacunarity and element size are
-- driven by nodes (which analytic shading cannot differentiate), 2D.
-- Against fbm_driven_light.lua.
local rough = ng.perlin{element_size = 300, seed = 2}:fit(-1, 1, 0.35, 0.65)
local lac = ng.perlin{element_size = 400, seed = 3}:fit(-1, 1, 1.8, 2.2)
local size = ng.perlin{element_size = 500, seed = 4}:fit(-1, 1, 40, 60)
return ng.fbm{source = ng.perlin{element_size = size}, octaves = 6, roughness = rough, lacunarity = lac}
