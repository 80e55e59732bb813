local v = ng.perlin{element_size = 6, output = "vector", seed = 3}
local base = ng.simplex{element_size = 5}
local w1 = ng.warp{source = base, by = v, amount = 4, octaves = 2.5, mode = "independent"}
local w2 = ng.warp{source = w1, by = ng.vector{ng.x() * 0.1, ng.y() * 0.5, 0.2}, amount = ng.perlin{} + 1}
return w2 + v:channel(2) + ng.channel{source = v, index = 3}
