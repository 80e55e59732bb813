-- Bench row: simplex warped by a simplex vector field (one warp level), 2D.
-- Peer: libnoise Turbulence of a Perlin (roughness 1).
local source = ng.simplex{element_size = 50}
local field = ng.simplex{element_size = 50, seed = 1, output = "vector"}
return ng.warp{source = source, by = field, amount = 20}
