-- terrain.lua — a heightmap: warped fBm of Perlin noise, mapped to [0, 1].
-- Render: noisegraph render graphs/terrain.lua -o terrain.png --size 1024 (what make demo renders)
local scale  = ng.param("scale", 384, {min = 1, doc = "size of the largest landforms, pixels"})
local warp   = ng.param("warp", 60, {min = 0, doc = "how far the domain warp pushes, pixels"})
local seed   = ng.param("seed", 7, {integer = true, doc = "pattern seed"})

local base = ng.perlin{element_size = scale, seed = seed}
local flow = ng.simplex{element_size = scale * 1.5, seed = seed + 1, output = "vector"}
local shaped = ng.warp{source = base, by = flow, amount = warp}
local height = ng.fbm{source = shaped, octaves = 7, lacunarity = 2.03, roughness = 0.5}

return height:fit(-0.45, 0.45, 0, 1, true)
