-- warp_chain.lua — three chained domain warps: each stage displaces the
-- previous one's result by its own vector noise, giving folded, flowing
-- marble-like bands. Render:
--   noisegraph render graphs/warp_chain.lua -o warp.png --size 1024
local strength = ng.param("strength", 1, {min = 0, max = 4, doc = "scales every warp amount"})
local seed = ng.param("seed", 11)

local shape = ng.fbm{source = ng.simplex{element_size = 220, seed = seed}, octaves = 4, roughness = 0.55}

local stage = shape
for i, s in ipairs{{size = 400, amount = 90}, {size = 180, amount = 45}, {size = 70, amount = 18}} do
  local field = ng.perlin{element_size = s.size, seed = seed + 10 * i, output = "vector"}
  stage = ng.warp{source = stage, by = field, amount = s.amount * strength}
end

return stage:fit(-0.6, 0.6, 0, 1, true)
