local a = ng.perlin{element_size = 1e-6, offset = {1e15, -1e15, 1e15}, amplitude = 1e30}
local b = ng.worley{element_size = 1e12, element_scale = {1e6, 1e-6, 1}, seed = -2147483648}
local c = ng.fbm{source = a, octaves = 32, lacunarity = 16, roughness = 2}
return a / b + c ^ 0.5 + ng.constant(1e30) * ng.constant(-1e30)
